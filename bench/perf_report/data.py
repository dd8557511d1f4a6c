"""What bench/run measured (BenchData: every run, command, meta datum,
feature and listing), saved as a work directory's bench.json and read
back, and the report's read access to it (Results)."""

import json
import os
from dataclasses import asdict, dataclass, field


def parse_fields(text):
    """The key=value words of TEXT (a program's output) as a dict; other
    words are left out, a later key replaces an earlier one."""
    fields = {}
    for word in text.split():
        key, eq, value = word.partition("=")
        if eq:
            fields[key] = value
    return fields


@dataclass
class Run:
    """One run: a table, a variant, a round and its fields (text)."""
    table: str
    variant: str
    round: int
    fields: dict = field(default_factory=dict)

    @classmethod
    def from_line(cls, line):
        """TABLE VARIANT ROUND key=value... (the VM's RESULT lines)."""
        table, variant, rnd, *rest = line.split()
        return cls(table, variant, int(rnd) if rnd.isdigit() else rnd, parse_fields(" ".join(rest)))

    @property
    def line(self):
        words = [self.table, self.variant, str(self.round)]
        return " ".join(words + ["%s=%s" % kv for kv in self.fields.items()])

    def num(self, key):
        """A field as a number; missing or not a number is 0, as in awk."""
        try:
            return float(self.fields.get(key, ""))
        except ValueError:
            return 0.0

    @property
    def failed(self):
        return "error" in self.fields


@dataclass
class BenchData:
    """Everything bench/run measured: what the report is written from."""
    runs: list = field(default_factory=list)
    commands: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    features: dict = field(default_factory=dict)
    listings: dict = field(default_factory=dict)

    FILE = "bench.json"

    def save(self, workdir):
        path = os.path.join(workdir, self.FILE)
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(asdict(self), f, indent=1, ensure_ascii=False)
        os.replace(path + ".tmp", path)

    @classmethod
    def load(cls, workdir):
        """From WORKDIR's bench.json, or the shell bench/run's files; None
        if it holds neither."""
        path = os.path.join(workdir, cls.FILE)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                raw = json.load(f)
            raw["runs"] = [Run(**r) for r in raw.get("runs", [])]
            return cls(**raw)
        if os.path.isfile(os.path.join(workdir, "results")):
            return cls.load_text(workdir)
        return None

    @classmethod
    def load_text(cls, workdir):
        def lines(name):
            try:
                with open(os.path.join(workdir, name), encoding="utf-8", errors="replace") as f:
                    return f.read().splitlines()
            except FileNotFoundError:
                return []

        def pairs(name):
            return [line.partition("\t")[::2] for line in lines(name)]

        data = cls(runs=[Run.from_line(line) for line in lines("results") if len(line.split()) >= 3])
        for key, cmd in pairs("commands"):
            data.commands.setdefault(key, cmd)
        data.meta = dict(pairs("meta"))
        data.features = {w[0]: w[1] == "yes" for w in map(str.split, lines("features")) if len(w) == 2}
        for name in ("samples", "kernel", "hangs", "waits",
                     "prof.filt", "prof.startup", "prof.small", "prof.large"):
            if lines(name):
                data.listings[name] = lines(name)
        return data


class Results:
    """Read access to BenchData for the report."""

    def __init__(self, data):
        self.runs = data.runs
        self.commands = data.commands
        self.meta = data.meta
        self.features = data.features
        self.listings = data.listings

    def lines(self, name):
        return self.listings.get(name, [])

    def has(self, name):
        return bool(self.lines(name))

    def feature(self, name):
        return bool(self.features.get(name))

    def of(self, table, variant):
        return [r for r in self.runs if r.table == table and r.variant == variant]

    def kernels(self, table):
        """The VM kernels TABLE ran on ("6.1", "6.12"), in version order."""
        return sorted({r.fields.get("kernel", "?") for r in self.runs if r.table == table},
                      key=lambda k: [int(x) if x.isdigit() else 0 for x in k.split(".")])

    def has_table(self, table):
        return any(r.table == table for r in self.runs)

    def m(self, key, default=""):
        return self.meta.get(key, default)

    def mnum(self, key):
        return float(self.meta.get(key) or 0)

    def cmd(self, key):
        return self.commands.get(key, "")
