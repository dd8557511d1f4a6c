#!/usr/bin/python3
"""bench/report.py: docs/PERFORMANCE.md from the raw results of bench/run.

    bench/report.py WORKDIR [--out FILE]

bench/run measures and writes raw numbers into WORKDIR; this computes the
statistics (medians, min-max, added cost per round, ratios, targets) and
writes the report, prose included. Python 3 standard library only.

What WORKDIR holds: bench.json (written by bench/run), one object:

    runs       one per run: {"table", "variant", "round", "fields"}, the
               fields as the programs printed them (key=value words, kept
               as text); table "cpu", variant PHASE: CPU ticks while a part ran
    commands   KEY -> each command line as run
    meta       KEY -> the machine, versions, sizes, times
    features   "ksnoop-usdt" -> true or false
    listings   NAME -> lines:
               samples   TRACER LINE: what each tracer printed for one open()
               kernel, hangs, waits
                         guest kernel trouble, tracers that ignored SIGINT,
                         waits for an earlier tracer (from the VM part)
               prof.filt, prof.startup, prof.small, prof.large
                         perf report listings
               tree-sample, tree-kernel
                         one --tree tree as ksnoop prints it, guest
                         kernel trouble (table 7's boot)
               arm64-info
                         "arm64 MACHINE bpftrace VERSION" from the arm64 guest
               track-verbose, track-kernel
                         ksnoop -v on the skb glob, guest kernel
                         trouble (table 8's boot)

bench/run hands the same data to write_report() directly. A directory kept
by the shell bench/run before it (results, commands, meta, features and
one file per listing) is read too.

A missing table or listing leaves its part of the report out, as bench/run's
--no-vm, --no-native and --no-profile do. Data of bench/run --only-tree
(meta "only" = "tree") replaces table 7, its rows in "Targets at a glance"
and its raw results in an existing report, and leaves the rest as it was;
data of bench/run --only-arm64 (meta "only" = "arm64") does the same for
table 9.
data of --only-track (meta "only" = "track") does the same for table 8.
table 9, and of bench/run --only-record (meta "only" = "record") for
table 4b.
"""

import argparse
import json
import os
import re
import sys
from dataclasses import asdict, dataclass, field

DASH = "—"


# ---- raw results ----------------------------------------------------------

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


# ---- statistics -----------------------------------------------------------

class Stats:
    """Median, min and max of one quantity over the rounds."""

    def __init__(self, values):
        x = sorted(values)
        n = len(x)
        self.n = n
        self.min, self.max = x[0], x[-1]
        self.median = x[n // 2] if n % 2 else (x[n // 2 - 1] + x[n // 2]) / 2


def stats(values):
    values = list(values)
    return Stats(values) if values else None


def stat(res, table, variant, key):
    """A recorded field over the rounds (rounds without it left out)."""
    return stats(r.num(key) for r in res.of(table, variant) if r.fields.get(key, "") != "")


def derived(res, table, variant, expr):
    """expr(run) over the rounds that did not fail."""
    values = []
    for r in res.of(table, variant):
        if r.failed:
            continue
        try:
            values.append(expr(r))
        except ZeroDivisionError:
            continue
    return stats(values)


def padd(res, table, variant):
    """Added cost: each traced run minus the untraced run just before it."""
    return derived(res, table, variant, lambda r: r.num("ns_per_iter") - r.num("base"))


def med(s):
    return s.median if s else None


def errors_of(res, table, variant):
    """The first error of any round, or ""."""
    for r in res.of(table, variant):
        if "error" in r.fields:
            return r.fields["error"]
    return ""


def cpu_use(res, phase):
    """(other %, steal %) of the machine's CPU time while PHASE ran, as
    printed (one decimal), or None. Other = busy ticks not this script's
    own (its reaped children included); kernel threads working for our
    runs count as other, so a few % is normal."""
    for r in res.of("cpu", phase):
        cap = r.num("usecs") / 1e6 * r.num("hz") * r.num("ncpu")
        if cap <= 0:
            cap = 1
        other = max((r.num("busy_ticks") - r.num("own_ticks")) / cap * 100, 0)
        return "%.1f" % other, "%.1f" % (r.num("steal_ticks") / cap * 100)
    return None


# ---- numbers as text --------------------------------------------------------

def fmt(x, decimals=0):
    """With thousands separators: 1234567.8 -> 1,234,568."""
    return "{:,.{}f}".format(x or 0, decimals)


def cell(s, decimals=0, scale=1):
    """'median (min–max)', or — without data."""
    if not s:
        return DASH
    return "%s (%s–%s)" % (fmt(s.median / scale, decimals), fmt(s.min / scale, decimals),
                           fmt(s.max / scale, decimals))


def sgn(x):
    if x is None:
        return DASH
    return fmt(x) if x < 0 else "+" + fmt(x)


def intmed(s):
    return fmt(s.median) if s else "?"


def ratio(a, b):
    """a/b to 2 decimals, or —."""
    if a is None or b is None or b <= 0:
        return DASH
    return "%.2f" % (a / b)


def pct_over(a, b):
    """How many % a is above b."""
    return "%.0f" % ((a / b - 1) * 100)


def cut(text, width):
    return text[:width]


# ---- the report -------------------------------------------------------------

class Report:
    def __init__(self, res):
        self.res = res
        self.out = []
        self.verdicts = []
        self.findings = 0
        # values one table finds and a later part (findings) reads
        self.f_ks = self.f_b = self.s_ks = None
        self.kfunc_notes = False

    def w(self, text=""):
        """Append text; a multi-line string is several lines."""
        self.out.append(text)

    def commands(self, pairs):
        for label, key in pairs:
            self.w("- %s: `%s`" % (label, self.res.cmd(key)))

    def verdict(self, target, measured, verdict):
        self.verdicts.append("| %s | %s | %s |" % (target, measured, verdict))

    def disturbance(self, phase):
        """A sentence on other processes' CPU use while PHASE ran."""
        use = cpu_use(self.res, phase)
        if not use:
            return
        other, steal = use
        if float(other) > 10 or float(steal) > 5:
            self.w("**Disturbed:** while this was measured, other processes used %s %% of the "
                   "machine's CPU time (steal %s %%); the spread shows it. Re-run on a quiet "
                   "machine." % (other, steal))
        else:
            self.w("While this was measured, other processes used %s %% of the CPU time "
                   "(steal %s %%): quiet." % (other, steal))
        self.w()

    def text(self):
        return "\n".join(self.out) + "\n"

    # ---- the parts, in order

    def write(self):
        self.header()
        self.kfunc()
        self.usdt()
        self.tracepoint()
        self.tracepoint_filtered()
        self.aggregation()
        self.syscall_pair()
        self.throughput()
        self.recording()
        self.startup()
        self.globs()
        self.tree()
        self.track()
        self.arm64()
        self.trouble()
        self.targets()
        self.profiles()
        self.findings_part()
        self.raw()
        return self.text()

    def header(self):
        res = self.res
        m = res.m
        elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
        quick = ", --quick sizes" if m("quick") == "1" else ""
        vm_kernel = re.sub(r" ncpu.*", "", re.sub(r"^kernel ", "", m("vm_info") or "6.1 cloud kernel"))
        vm_tcg, su_tcg, glob_tcg = (m("vm_tcg") or "single", m("su_tcg") or m("vm_tcg") or "single",
                                    m("glob_tcg") or "single")
        mode = {"multi": "a host thread per vCPU (`thread=multi`)",
                "single": "both vCPUs in one host thread (`thread=single`)"}
        note = [f"qemu runs table 1 with {mode.get(vm_tcg, vm_tcg)}, tables 5 and 6",
                f"with {mode.get(su_tcg, su_tcg)}" +
                ("." if su_tcg == glob_tcg else f" and {mode.get(glob_tcg, glob_tcg)}.")]
        if vm_tcg == "multi":
            note += ["A cost per call needs the reader and the workload running at once,",
                     "as on two real CPUs; in one host thread the vCPUs take turns, and",
                     "whatever a tracer's reader does would be timed as the workload's."]
        else:
            note += ["In one host thread the vCPUs take turns: whatever a tracer's reader",
                     "does is timed as the workload's, so table 1 compares whole CPU cost,",
                     "not the cost on the traced CPU."]
        if su_tcg == "single" or glob_tcg == "single":
            note += ["Tables 5 and 6 patch kernel text while the other vCPU runs (the",
                     "workload during each attach; hundreds of probes at once), which",
                     "crashes or hangs multi-threaded TCG's guest (tests/vm/boot.bash);",
                     "they time attach and detach work, and table 6's per-call rows",
                     "compare two ksnoop modes with the same reader."]
        tcg_note = "\n  ".join(note)
        busy = ""
        if m("busy"):
            busy = ("\n  **Other work was running when this run started** (%s), so\n"
                    "  these numbers are disturbed." % " ".join(m("busy").split()[1:3]))
        self.w(f"""# ksnoop performance

<!-- Generated by bench/run and bench/report.py; edit those, not this file. -->

Measured by `bench/run` ({m("run_date")}, {elapsed:.1f} minutes) on
this machine: {m("cpu_model")}, {m("ncpu")} CPUs, Linux {m("kernel")}. ksnoop {m("ks_ver")}
(`{m("ksnoop")}`, sha256 {m("ks_sha")}, tree at commit {m("commit")}); peers: bcc's ksnoop from Debian's libbpf-tools {m("bcc_ver")},
bpftrace {m("bt_ver")}. {m("rounds")} rounds natively, {m("vm_rounds")} in the VM{quick}.

Run it with `bench/run` (as root; it installs what is missing from Debian,
builds the workloads with `gcc -static`, boots the test VM once); `KSNOOP=path`
picks the binary; `--rounds N` (native, default 5), `--vm-rounds N` (default 7),
`--quick`, `--no-vm`, `--no-native`, `--no-profile`, `--no-tree`, `--keep` (keep the raw
results and perf data), `--report-from DIR` (rewrite this file from a kept
run), `--only-tree` (table 7 alone, replaced in this file in place), `--only-arm64`
(table 9, the arm64 VM, likewise), `--only-record` (table 4b, natively, likewise). It takes about 8–15 minutes. Benchmarks are not tests: `make check`
does not run them. Run it on a quiet machine: it reports how much CPU
other processes took while each table was measured.

## How to read the numbers

- Every table is one interleaved experiment: each round runs every variant
  once, and the order rotates by one place each round, so slow drift of the
  machine spreads over all variants. A cell is the **median** over the
  rounds, with the **min–max** in parentheses.
- *Added* cost is computed per run: every traced run is preceded by an
  untraced run of the same loop, and the difference is taken against that
  neighbour (so drift between runs cancels), then summarised.
- Tracers run on CPU 0 (`taskset -c 0`) and the workload on CPU 1 (`ksb-loop -C 1`, also in the
  VM), so the scheduler cannot put both on one CPU in some runs only.
- Ratios divide medians of added cost. "ksnoop / bcc = 0.40" means ksnoop
  adds 40 % of what bcc's ksnoop adds.
- Tracers print to `/dev/null`; the workload is a static C program
  (`bench/loop.c`, timed with `clock_gettime`, a vDSO call).
- **Kernel functions are measured in the VM** (Debian's
  {vm_kernel} under qemu), because this machine's kernel has
  no kprobes and refuses fentry. qemu runs under **software emulation (TCG;
  KVM does not work here)**: everything there is 10–50× slower than on
  hardware and timer-heavy paths are distorted, so the absolute numbers are
  inflated. **Only the ratios between variants measured in the same boot
  count.**
- {tcg_note}
- Single runs are noisy (two CPUs, emulated in the VM); look at the ranges.
  Load average at the start of this run: {m("load_start")}; at the end: {m("load_end")}
  (anything else running on the machine shows up as spread).{busy}
""")

    # ---- table 1

    def kfunc(self):
        res = self.res
        self.w("## 1. Kernel function: cost per traced call (VM)")
        self.w()
        if not res.has_table("kfunc"):
            if res.m("vm_rc") == "skipped":
                self.w("Not measured in this run (--no-vm).")
            else:
                self.w("Not measured: the VM run did not produce results (`tests/vm/run` "
                       "status %s)." % res.m("vm_rc"))
            self.w()
            return
        self.w(f"""Workload: `ksb-loop open {res.m("open_n")} /tmp/ksb/target-file`, a loop of
`open()` + `close()` on one file, i.e. one `do_sys_openat2()` call per
iteration; reported as ns per iteration. Every tracer captures the same thing,
the file name (a user-space string) on entry and the return value, except
where noted. ksnoop and bcc's ksnoop run in the background and are stopped
with SIGINT after the loop; bpftrace runs the loop itself (`-c`, which starts
it after attaching). Same VM boot for every row. bpftrace runs in the VM
as it is (`tests/vm/run --bin` copies it with the LLVM and clang libraries
`ldd` lists, about 200 MB).

Commands (in the VM; `ksb-loop` is `bench/loop.c`):
""")
        for v in ("untraced", "ksnoop-fentry", "ksnoop-kprobe", "bcc-ksnoop", "bpftrace-kfunc",
                  "bpftrace-kprobe", "ksnoop-filtered-fentry", "ksnoop-filtered-kprobe",
                  "bare-kfunc", "bare-kprobe", "ksnoop-return-only", "ksnoop-fentry-stopped"):
            if res.cmd("vm-" + v):
                self.w("- %s: `%s`" % (v, res.cmd("vm-" + v)))
        self.w()

        def added(v):
            return med(padd(res, "kfunc", v))

        a_fen, a_kp, a_bcc = added("ksnoop-fentry"), added("ksnoop-kprobe"), added("bcc-ksnoop")
        a_btkf, a_btkp = added("bpftrace-kfunc"), added("bpftrace-kprobe")
        a_ffen, a_fkp = added("ksnoop-filtered-fentry"), added("ksnoop-filtered-kprobe")
        a_bkf, a_bkp = added("bare-kfunc"), added("bare-kprobe")
        a_ret, a_stop = added("ksnoop-return-only"), added("ksnoop-fentry-stopped")

        t_fen = self.target_cost(a_fen, a_bcc, a_btkf, "bpftrace kfunc")
        t_kp = self.target_cost(a_kp, a_bcc, a_btkp, "bpftrace kprobe")
        if None not in (a_kp, a_fen, a_bcc) and a_kp > a_bcc / 2:
            t_kp += ("; cause: the kprobe and kretprobe themselves, %s ns over fentry for the "
                     "same work, which bcc pays too (below the table)" % fmt(a_kp - a_fen))
        t_ffen = self.target_filter(a_ffen, a_bkf, padd(res, "kfunc", "bare-kfunc"))
        t_fkp = self.target_filter(a_fkp, a_bkp, padd(res, "kfunc", "bare-kprobe"))

        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost "
               "| ksnoop ÷ peer (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        row = self.kfunc_row
        row("untraced", "untraced", DASH, DASH)
        row("ksnoop-fentry", "**ksnoop**, fentry/fexit (default)",
            "bcc %s; bpftrace kfunc %s; bpftrace kprobe %s"
            % (ratio(a_fen, a_bcc), ratio(a_fen, a_btkf), ratio(a_fen, a_btkp)), t_fen)
        row("ksnoop-kprobe", "**ksnoop**, kprobe/kretprobe",
            "bcc %s; bpftrace kprobe %s" % (ratio(a_kp, a_bcc), ratio(a_kp, a_btkp)), t_kp)
        row("bcc-ksnoop", "bcc's ksnoop (kprobes; prints the return value only, see below)",
            DASH, "reference")
        row("bpftrace-kfunc", "bpftrace, kfunc/kretfunc", DASH, "reference")
        row("bpftrace-kprobe", "bpftrace, kprobe/kretprobe", DASH, "reference")
        row("ksnoop-filtered-fentry", "**ksnoop** filtered out (`dfd == 12345`), fentry",
            "bare kfunc %s" % ratio(a_ffen, a_bkf), t_ffen)
        row("ksnoop-filtered-kprobe", "**ksnoop** filtered out (`dfd == 12345`), kprobe",
            "bare kprobe %s" % ratio(a_fkp, a_bkp), t_fkp)
        row("bare-kfunc", "bare fentry probe (bpftrace `kfunc {}`)", DASH, "reference")
        row("bare-kprobe", "bare kprobe (bpftrace `kprobe {}`)", DASH, "reference")
        row("ksnoop-return-only", "*diagnostic:* ksnoop, return value only "
            "(`do_sys_openat2(return)`, fentry): one record per call, what bcc's ksnoop prints",
            "bcc %s" % ratio(a_ret, a_bcc), DASH)
        row("ksnoop-fentry-stopped", "*diagnostic:* ksnoop fentry, reader stopped (SIGSTOP) "
            "during the loop: the BPF side alone",
            "ksnoop fentry %s" % ratio(a_stop, a_fen), DASH)
        self.w()
        self.disturbance("vm")

        if None not in (a_fen, a_bcc, a_ret, a_stop) and a_fen > 0:
            self.w(f"""Reading the diagnostic rows:

- **Records per call.** For this spec ksnoop sends two records per call
  (entry, with a 256-byte slot reserved for the file name, and return);
  bcc's ksnoop sends one (the return; it cannot read the name). With the
  return value only, ksnoop adds {sgn(a_ret)} ns per call, {ratio(a_ret, a_bcc)}× bcc's.
- **Wake-ups.** With ksnoop's reader stopped, the BPF side alone adds
  {sgn(a_stop)} ns, {100 * a_stop / a_fen:.0f} % of the full cost ({ratio(a_fen, a_stop)}× the BPF side).
  The reader is woken once per sixteenth of the ring buffer written, or
  when it was last woken 10 ms ago or more (`BPF_RB_NO_WAKEUP` otherwise),
  no longer for nearly every record; what remains is the
  reader's own work, and in the VM its virtual CPU competes with the
  workload's for the host's two cores.""")
            if not a_fen <= a_bcc / 2:
                self.w("""
So the ½-of-bcc target is missed on these counts: one record per call in
fentry mode (fexit sees the arguments too) is the lever left.""")
            if a_kp is not None and a_btkp is not None and a_btkf is not None and not a_kp <= a_bcc / 2:
                mech = a_kp - a_fen
                self.w(f"""
- **kprobe mode.** The same BPF work (the same two records, the same string)
  costs {fmt(mech)} ns more through a kprobe and a kretprobe than through
  fentry and fexit ({ratio(a_kp, a_fen)}× ksnoop's fentry row); bpftrace shows the same
  step, {fmt(a_btkp - a_btkf)} ns between its kprobe and kfunc rows. That is the probes
  themselves under emulation, and bcc's ksnoop, kprobes too, pays it as
  well: without it, ksnoop's {fmt(a_fen)} ns would be {ratio(a_fen, a_bcc - mech)}× the
  {fmt(a_bcc - mech)} ns left of bcc's. So the ½-of-bcc target in kprobe mode is
  missed by the attach mechanism both share, not by ksnoop's program.""")
            self.w()
            self.verdict("traced call ≤ 1.3× the BPF side alone (wake-ups batched; fentry, VM)",
                         "ksnoop %s ns; reader stopped %s ns" % (sgn(a_fen), sgn(a_stop)),
                         "≤ 1.3×: %s (%s×)" % ("**met**" if a_fen <= 1.3 * a_stop else "**missed**",
                                               ratio(a_fen, a_stop)))

        self.verdict("traced call ≤ ½ bcc's ksnoop and < bpftrace (fentry, VM)",
                     "ksnoop %s ns; bcc %s; bpftrace kfunc %s" % (sgn(a_fen), sgn(a_bcc), sgn(a_btkf)),
                     t_fen)
        self.verdict("traced call ≤ ½ bcc's ksnoop and < bpftrace (kprobe, VM)",
                     "ksnoop %s ns; bcc %s; bpftrace kprobe %s" % (sgn(a_kp), sgn(a_bcc), sgn(a_btkp)),
                     t_kp)
        self.verdict("filtered-out call ≤ 1.2× bare probe (fentry, VM)",
                     "ksnoop %s ns; bare kfunc %s" % (sgn(a_ffen), sgn(a_bkf)), t_ffen)
        self.verdict("filtered-out call ≤ 1.2× bare probe (kprobe, VM)",
                     "ksnoop %s ns; bare kprobe %s" % (sgn(a_fkp), sgn(a_bkp)), t_fkp)

        self.w("What each tracer printed for one `open()` of the target file:")
        self.w()
        self.w("```")
        for tracer in ("ksnoop", "bcc-ksnoop", "bpftrace"):
            self.w("# " + tracer)
            for line in res.lines("samples"):
                if line.startswith(tracer + " "):
                    self.w(line[len(tracer) + 1:])
        self.w("""```

bcc's ksnoop cannot show `filename`: it reads every pointer with
`bpf_probe_read_kernel()`, so a user-space string is not captured, and it
prints only the return record. Its row is therefore *cheaper* work than the
others (no string copy), yet it is the peer the target names.
""")
        self.kfunc_notes = True

    def kfunc_row(self, v, label, ratios, target):
        res = self.res
        s = stat(res, "kfunc", v, "ns_per_iter")
        added = DASH if v == "untraced" else cell(padd(res, "kfunc", v))
        printed_lost = DASH
        if v.startswith("ksnoop"):
            printed_lost = "%s / %s" % (intmed(stat(res, "kfunc", v, "printed")),
                                        intmed(stat(res, "kfunc", v, "lost")))
        if not s:
            self.w("| %s | failed: `%s` | | | | %s |"
                   % (label, errors_of(res, "kfunc", v) or "no result", target))
        else:
            self.w("| %s | %s | %s | %s | %s | %s |" % (label, cell(s), added, printed_lost, ratios, target))

    @staticmethod
    def target_cost(a, bcc, bt, bt_name):
        """Traced call: at most half of bcc's ksnoop, less than bpftrace."""
        if None in (a, bcc, bt):
            return "not measured"
        half = bcc / 2
        if a <= half:
            text = "≤ ½ bcc: **met** (%s×)" % ratio(a, bcc)
        else:
            text = "≤ ½ bcc: **missed** (%s× bcc, %s %% over ½)" % (ratio(a, bcc), pct_over(a, half))
        if a < bt:
            text += "; < %s: **met** (%s×)" % (bt_name, ratio(a, bt))
        else:
            text += "; < %s: **missed** (%s×, %s %% over)" % (bt_name, ratio(a, bt), pct_over(a, bt))
        return text

    @staticmethod
    def target_filter(a, bare, bare_stats):
        """Filtered-out call: at most 1.2 times a bare probe's added cost."""
        if a is None or bare is None:
            return "not measured"
        if bare <= 0 or bare_stats.min <= 0:
            return ("cannot be judged in the VM: the bare probe's added cost, %s ns, is not above "
                    "the run-to-run noise (see table 3b for a native measurement)" % cell(bare_stats))
        if a <= 0:
            return ("≤ 1.2× bare: **met** as far as the VM can tell: the filtered-out call is not "
                    "measurably dearer than an untraced one (%s ns), the bare probe adds %s ns "
                    "(table 3b resolves it natively)" % (sgn(a), sgn(bare)))
        if a <= bare * 1.2:
            return "≤ 1.2× bare: **met** (%s×)" % ratio(a, bare)
        return "≤ 1.2× bare: **missed** (%s×, %s %% over 1.2×)" % (ratio(a, bare), pct_over(a, bare * 1.2))

    # ---- table 2

    def usdt(self):
        res = self.res
        self.w("## 2. USDT probe: cost per hit (native)")
        self.w()
        if not res.has_table("usdt"):
            return
        self.disturbance("native")
        self.w(f"""Workload: `ksb-loop usdt {res.m("usdt_n")}`, a loop over a `<sys/sdt.h>` probe
`DTRACE_PROBE3(ksb, tick, i, name, &payload)` (no semaphore: untraced, the
probe is one `nop`); reported as ns per loop iteration. Tracers capture
`arg0` (a long), `arg1` (a string) and `arg2` (a pointer).

Commands:
""")
        self.commands((v, "usdt-" + v) for v in ("untraced", "bpftrace-bare", "bpftrace", "ksnoop"))
        self.w()
        u_bt = med(padd(res, "usdt", "bpftrace"))
        u_ks = med(padd(res, "usdt", "ksnoop"))
        self.w("| variant | ns per hit | added ns per hit | ksnoop ÷ bpftrace (added) | target |")
        self.w("| --- | --- | --- | --- | --- |")
        self.w("| untraced | %s | — | — | — |" % cell(stat(res, "usdt", "untraced", "ns_per_iter"), 1))
        self.w("| bpftrace, empty action (bare uprobe) | %s | %s | — | reference |"
               % (cell(stat(res, "usdt", "bpftrace-bare", "ns_per_iter")), cell(padd(res, "usdt", "bpftrace-bare"))))
        self.w("| bpftrace, printing the arguments | %s | %s | — | reference |"
               % (cell(stat(res, "usdt", "bpftrace", "ns_per_iter")), cell(padd(res, "usdt", "bpftrace"))))
        measured = stat(res, "usdt", "ksnoop", "ns_per_iter")
        if res.feature("ksnoop-usdt") and measured:
            if u_bt is None:
                t = "not measured (bpftrace failed: `%s`)" % errors_of(res, "usdt", "bpftrace")
            elif u_ks is None:
                t = "not measured"
            elif u_ks < u_bt:
                t = "< bpftrace: **met** (%s×)" % ratio(u_ks, u_bt)
            else:
                t = "< bpftrace: **missed** (%s×, %s %% over)" % (ratio(u_ks, u_bt), pct_over(u_ks, u_bt))
            self.w("| **ksnoop** `usdt` | %s | %s | %s | %s |"
                   % (cell(measured), cell(padd(res, "usdt", "ksnoop")), ratio(u_ks, u_bt), t))
            self.verdict("USDT hit < bpftrace (native)", "ksnoop %s ns; bpftrace %s" % (sgn(u_ks), sgn(u_bt)), t)
        else:
            self.w("| **ksnoop** `usdt` | not implemented yet | | | TODO: filled in by bench/run once "
                   "`ksnoop usdt BIN:PROV:NAME` works |")
            self.verdict("USDT hit < bpftrace (native)", "ksnoop: not implemented yet", "TODO")
        self.w()

    # ---- table 3

    def tracepoint(self):
        res = self.res
        self.w("## 3. Tracepoint: cost per syscall (native)")
        self.w()
        if not res.has_table("tp"):
            return
        self.disturbance("native")
        self.w(f"""Workload: `ksb-loop syscall {res.m("tp_n")}`, a loop of `getppid()` system calls,
each of which fires `raw_syscalls:sys_enter` once; ns per call. Both tracers
filter on the workload's pid in BPF and print the syscall number. ksnoop is
attached to the workload before it starts (the workload waits on a FIFO).

Commands:
""")
        self.commands((v, "tp-" + v) for v in ("untraced", "ksnoop", "bpftrace"))
        self.w()
        t_ks = med(padd(res, "tp", "ksnoop"))
        t_bt = med(padd(res, "tp", "bpftrace"))
        if t_ks is not None and t_bt is not None:
            if t_ks < t_bt:
                t = "< bpftrace: **met** (%s×)" % ratio(t_ks, t_bt)
            else:
                t = "< bpftrace: **missed** (%s×, %s %% over)" % (ratio(t_ks, t_bt), pct_over(t_ks, t_bt))
        else:
            t = "not measured"
        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost "
               "| ksnoop ÷ bpftrace (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        self.w("| untraced | %s | — | — | — | — |" % cell(stat(res, "tp", "untraced", "ns_per_iter")))
        self.w("| **ksnoop** | %s | %s | %s / %s | %s | %s |"
               % (cell(stat(res, "tp", "ksnoop", "ns_per_iter")), cell(padd(res, "tp", "ksnoop")),
                  intmed(stat(res, "tp", "ksnoop", "printed")), intmed(stat(res, "tp", "ksnoop", "lost")),
                  ratio(t_ks, t_bt), t))
        self.w("| bpftrace | %s | %s | — | — | reference |"
               % (cell(stat(res, "tp", "bpftrace", "ns_per_iter")), cell(padd(res, "tp", "bpftrace"))))
        self.w()
        self.verdict("tracepoint event < bpftrace (native)", "ksnoop %s ns; bpftrace %s" % (sgn(t_ks), sgn(t_bt)), t)

        # A lost event costs less than a printed one: say when ksnoop lost some.
        good = [r for r in res.of("tp", "ksnoop") if not r.failed]
        lossy = [r for r in good if r.num("lost") > 0]
        if lossy:
            clean = stats(r.num("ns_per_iter") - r.num("base") for r in good if r.num("lost") <= 0)
            self.w("ksnoop lost events in %d of %d rounds: its reader fell more than a buffer (8 MiB, "
                   "~100,000 of these records) behind a loop that makes ~2 million events a second, and a "
                   "lost event costs the traced task less than a delivered one (the reservation fails; no "
                   "copy, no wake-up). Rounds without loss: median %s added per call. bpftrace does not "
                   "report its losses when its output goes to /dev/null."
                   % (len(lossy), len(good), "+%s ns" % fmt(clean.median) if clean else "— (none)"))
            self.w()
        e = errors_of(res, "tp", "ksnoop") + errors_of(res, "tp", "bpftrace")
        if e:
            self.w("Errors in some rounds: `%s`" % e)
            self.w()

    # ---- table 3c

    def aggregation(self):
        """-s, --count and --hist per call, against a filtered-out call and bpftrace."""
        res = self.res
        if not res.has_table("agg"):
            return
        spec, hspec, fspec = res.m("agg_spec"), res.m("agg_hist_spec"), res.m("agg_filt_spec")
        self.w("## 3c. Stacks, counts and histograms per call (native tracepoint)")
        self.w()
        self.disturbance("native")
        self.w(f"""`ksb-loop syscall {fmt(res.mnum("tp_n"))}` (`getppid()`, syscall 110, every call
selected): ksnoop with `-s` (an event with the kernel stack per call),
`--count` and `--hist` (a map update in BPF, no event), side by side with
bpftrace's `kstack` (printed), `count()` and `hist()` under the same filter,
and ksnoop with the predicate never holding (`{fspec}`, a filtered-out call:
the floor every mode starts from).

Commands:
""")
        variants = ("untraced", "ksnoop-filtered", "ksnoop-stack", "bpftrace-kstack",
                    "ksnoop-count", "bpftrace-count", "ksnoop-hist", "bpftrace-hist")
        self.commands((v, "agg-" + v) for v in variants)
        self.w()
        a = {v: med(padd(res, "agg", v)) for v in variants[1:]}
        self.w("| variant | ns per call | added ns per call | ÷ filtered out (added) "
               "| ksnoop events printed / lost |")
        self.w("| --- | --- | --- | --- | --- |")
        self.w("| untraced | %s | — | — | — |" % cell(stat(res, "agg", "untraced", "ns_per_iter"), 1))
        label = {
            "ksnoop-filtered": "ksnoop, filtered out (`%s`)" % fspec,
            "ksnoop-stack": "**ksnoop** `-s '%s'`" % spec,
            "bpftrace-kstack": "bpftrace `printf(kstack)`",
            "ksnoop-count": "**ksnoop** `--count '%s'`" % spec,
            "bpftrace-count": "bpftrace `count()`",
            "ksnoop-hist": "**ksnoop** `--hist '%s'`" % hspec,
            "bpftrace-hist": "bpftrace `hist(args->id)`",
        }
        for v in variants[1:]:
            ev = DASH
            if v.startswith("ksnoop") and stat(res, "agg", v, "printed"):
                ev = "%s / %s" % (intmed(stat(res, "agg", v, "printed")),
                                  intmed(stat(res, "agg", v, "lost")))
            self.w("| %s | %s | %s | %s | %s |"
                   % (label[v], cell(stat(res, "agg", v, "ns_per_iter"), 1),
                      cell(padd(res, "agg", v), 1), ratio(a[v], a["ksnoop-filtered"]), ev))
        self.w()
        for ks, bt, what in (("ksnoop-stack", "bpftrace-kstack", "-s per event (kernel stack)"),
                             ("ksnoop-count", "bpftrace-count", "--count per call"),
                             ("ksnoop-hist", "bpftrace-hist", "--hist per call")):
            if a[ks] is None or a[bt] is None:
                t = "not measured"
            elif a[ks] < a[bt]:
                t = "< bpftrace: **met** (%s×)" % ratio(a[ks], a[bt])
            else:
                t = "< bpftrace: **missed** (%s×)" % ratio(a[ks], a[bt])
            self.verdict("%s < bpftrace (tracepoint, native)" % what,
                         "ksnoop %s ns; bpftrace %s" % (sgn(a[ks]), sgn(a[bt])), t)
        e = "".join(errors_of(res, "agg", v) for v in variants)
        if e:
            self.w("Errors in some rounds: `%s`" % e)
            self.w()

    # ---- table 3d

    def syscall_pair(self):
        """sys:openat(filename, return) per call, against bpftrace's enter/exit pair."""
        res = self.res
        if not res.has_table("sys"):
            return
        spec = res.m("sys_spec", "sys:openat(filename, return)")
        pred = res.m("sys_pred_spec", "sys:openat(filename, return < 0)")
        self.w("## 3d. System call, entry with return: cost per openat (native)")
        self.w()
        self.disturbance("native")
        self.w(f"""Workload: `ksb-loop openat {res.m("sys_n")} PATH`, a loop of `openat()` calls on a
path that does not exist (each fails with ENOENT: one system call per
iteration, firing `syscalls:sys_enter_openat` and `sys_exit_openat` once
each); ns per call. ksnoop's `sys:` attaches both tracepoints:
`{spec}` prints an entry event (the file name) and a return event
(the return value and the duration), two per call; `{pred}`, whose
predicate holds for every call here, keeps the entry's values per task
and prints them with the return, one event per call. bpftrace's program
prints one line per call: the entry probe keeps the `filename` pointer in
a map keyed by thread id, the exit probe prints the string with the return
value and deletes the entry. All filter on the workload's pid; ksnoop is
attached before the workload starts, as in table 3.

Commands:
""")
        self.commands((v, "sys-" + v) for v in ("untraced", "ksnoop", "ksnoop-pred", "bpftrace"))
        self.w()
        s_bt = med(padd(res, "sys", "bpftrace"))
        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost "
               "| ksnoop ÷ bpftrace (added) |")
        self.w("| --- | --- | --- | --- | --- |")
        self.w("| untraced | %s | — | — | — |" % cell(stat(res, "sys", "untraced", "ns_per_iter")))
        for v, label in (("ksnoop", "`%s`, two events per call" % spec),
                         ("ksnoop-pred", "`%s`, one event per call" % pred)):
            self.w("| **ksnoop** %s | %s | %s | %s / %s | %s |"
                   % (label, cell(stat(res, "sys", v, "ns_per_iter")), cell(padd(res, "sys", v)),
                      intmed(stat(res, "sys", v, "printed")), intmed(stat(res, "sys", v, "lost")),
                      ratio(med(padd(res, "sys", v)), s_bt)))
        self.w("| bpftrace, `sys_enter_openat` + `sys_exit_openat`, one line per call | %s | %s | — | — |"
               % (cell(stat(res, "sys", "bpftrace", "ns_per_iter")), cell(padd(res, "sys", "bpftrace"))))
        self.w()
        self.loss_note("sys", ("ksnoop", "ksnoop-pred"))
        e = "".join(errors_of(res, "sys", v) for v in ("ksnoop", "ksnoop-pred", "bpftrace"))
        if e:
            self.w("Errors in some rounds: `%s`" % e)
            self.w()

    def loss_note(self, table, variants):
        """A sentence for each of ksnoop's VARIANTS in TABLE that lost
        events: a lost event costs the traced task less than a printed one."""
        for v in variants:
            good = [r for r in self.res.of(table, v) if not r.failed]
            lossy = [r for r in good if r.num("lost") > 0]
            if not lossy:
                continue
            clean = stats(r.num("ns_per_iter") - r.num("base") for r in good if r.num("lost") <= 0)
            self.w("%s lost events in %d of %d rounds (its reader fell a buffer behind); a lost event "
                   "costs the traced task less than a printed one. Rounds without loss: median %s added "
                   "per call." % (v, len(lossy), len(good), "+%s ns" % fmt(clean.median) if clean else "— (none)"))
            self.w()

    # ---- table 3b

    def tracepoint_filtered(self):
        res = self.res
        if not res.has_table("tpfilt"):
            return
        filt_spec = res.m("filt_spec")
        self.w("## 3b. A filtered-out call against a bare probe (native tracepoint)")
        self.w()
        self.disturbance("native")
        self.w(f"""The VM is too noisy to resolve the few hundred nanoseconds between a bare
probe and a filtered-out one (table 1), so the same question is also asked
here, on real hardware, for ksnoop's tracepoint program: `ksb-loop syscall
{fmt(res.mnum("filt_n"))}` (`getppid()` in a loop), untraced; with a `tp_btf` program on
`sys_enter` that returns at once (the bare probe, attached the way ksnoop
attaches); and with ksnoop tracing `sys_enter` with a predicate that never
holds (no pid filter, so every call is checked and filtered out).

Commands:
""")
        self.commands((v, "tpfilt-" + v) for v in ("untraced", "bare", "ksnoop-filtered"))
        self.w()
        f_ks = self.f_ks = med(padd(res, "tpfilt", "ksnoop-filtered"))
        f_b = self.f_b = med(padd(res, "tpfilt", "bare"))
        if f_ks is None or f_b is None:
            t = "not measured"
        elif f_b <= 0:
            t = "cannot be judged: the bare probe's added cost is within noise"
        elif f_ks <= f_b * 1.2:
            t = "≤ 1.2× bare: **met** (%s×)" % ratio(f_ks, f_b)
        else:
            t = ("≤ 1.2× bare: **missed** (%s×, %s %% over 1.2×; +%s ns per call over the bare probe)"
                 % (ratio(f_ks, f_b), pct_over(f_ks, f_b * 1.2), fmt(f_ks - f_b)))
        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost "
               "| ksnoop ÷ bare (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        self.w("| untraced | %s | — | — | — | — |" % cell(stat(res, "tpfilt", "untraced", "ns_per_iter"), 1))
        self.w("| bare `tp_btf` probe | %s | %s | — | — | reference |"
               % (cell(stat(res, "tpfilt", "bare", "ns_per_iter"), 1), cell(padd(res, "tpfilt", "bare"), 1)))
        self.w("| **ksnoop**, filtered out (`%s`) | %s | %s | %s / %s | %s | %s |"
               % (filt_spec, cell(stat(res, "tpfilt", "ksnoop-filtered", "ns_per_iter"), 1),
                  cell(padd(res, "tpfilt", "ksnoop-filtered"), 1),
                  intmed(stat(res, "tpfilt", "ksnoop-filtered", "printed")),
                  intmed(stat(res, "tpfilt", "ksnoop-filtered", "lost")), ratio(f_ks, f_b), t))
        self.w()
        self.verdict("filtered-out call ≤ 1.2× bare probe (tracepoint, native)",
                     "ksnoop %s ns; bare tp_btf %s" % (sgn(f_ks), sgn(f_b)), t)
        if not self.filter_missed():
            return
        if res.has("prof.filt"):
            def share(pattern):
                total = 0.0
                for line in res.lines("prof.filt"):
                    words = line.split()
                    if len(words) >= 3 and re.search(pattern, words[2]):
                        total += float(words[0].rstrip("%"))
                return "%.1f" % total
            self.w(f"""Where it goes (profile below, `perf record -C 1` on the workload's CPU during such a run):
ksnoop's program itself {share("^bpf_prog_.*ksnoop")} % of the samples,
`bpf_probe_read_kernel` with `copy_from_kernel_nofault` {share("^(bpf_probe_read_kernel|copy_from_kernel_nofault)")} %, and
`bpf_get_current_pid_tgid` {share("^bpf_get_current_pid_tgid$")} %; a bare program is ~2 %.
""")
        self.w("""Likely reason, from `bpf/ksnoop.bpf.c`: before the predicate is looked at,
`capture()` calls `task_selected()`, which calls `bpf_get_current_pid_tgid()`
even when no pid, tid or comm filter is set, zeroes a 13-word argument array
and the stash key, and `tp_words()` fetches every argument word the plan
uses with `bpf_probe_read_kernel()` (a helper call and a fault-checked
copy), even a plain `long` like `id` that a direct `ctx` load would give as
a scalar. Loading scalar arguments straight from `ctx`, calling the helper
only when a filter needs it, and testing predicates before anything else
would leave a filtered-out call little more than the bare probe's work.
""")

    def filter_missed(self):
        return (self.f_ks is not None and self.f_b is not None and self.f_b > 0
                and not self.f_ks <= self.f_b * 1.2)

    # ---- table 4

    @staticmethod
    def unaccounted(r):
        left = r.num("calls") - r.num("printed") - r.num("lost")
        return left if left > 0 else 0

    @staticmethod
    def lost_pct(r):
        calls = r.num("calls")
        return 100 * r.num("lost") / (calls if calls > 0 else 1)

    @staticmethod
    def printed_per_s(r):
        return r.num("printed") / r.num("wall")

    def throughput(self):
        res = self.res
        self.w("## 4. Consumer throughput (native)")
        self.w()
        if not res.has_table("tput-max"):
            return
        self.disturbance("tput")
        drain_n, fixed_rate = fmt(res.mnum("drain_n")), fmt(res.mnum("fixed_rate"))
        self.w(f"""How many events per second ksnoop prints. The event source is
`ksb-loop flood`, `getppid()` in a loop on CPU 1 (`-C 1`); ksnoop runs
on CPU 0, filtered to the generator's pid; bench/run reads its output
in 1 MiB reads and keeps only the end (where `-j` puts its summary record).
*Small* event: `{res.m("tput_small")}` (one 8-byte value, a 72-byte record);
*large*: `{res.m("tput_large")}` (the 168-byte `struct pt_regs`, dumped member by
member: ~25 lines of text or one JSON object).

- **capacity**: ksnoop is stopped (SIGSTOP) while {drain_n} events go into a
  256 MiB buffer, then continued; `-n {drain_n}` makes it exit after
  printing them. Events ÷ seconds from SIGCONT to exit (ksnoop's own
  teardown included, so slightly conservative), i.e. what the consumer can
  print, independent of how fast events can be produced.
- **live, max**: the generator runs unpaced for {res.m("flood_secs")} s. *offered* = its
  calls per second; *printed/s* = printed ÷ seconds from start to ksnoop's exit
  (after SIGINT); *lost* and *printed* from ksnoop's summary line; *unaccounted* =
  offered events that the summary counts neither as printed nor as lost,
  0 when every event is accounted for (the workload's own start-up system
  calls are traced too, so a run that keeps up prints ~170 more events than
  the loop offered).
- **live, fixed**: the same, paced at {fixed_rate} calls per second.

Targets: small events, a capacity of at least 1,000,000/s with nothing lost
at the fixed rate; large events, at least 2× 233,000/s (the figure for
`{res.m("tput_large")}` in text and JSON when issue #16 was filed), i.e.
466,000/s, judged on the live-max *printed/s* median.

Commands:
""")
        for k in ("tput-text-small", "tput-json-small", "tput-text-large", "tput-json-large",
                  "tput-gen-max", "tput-gen-fixed", "tput-drain"):
            self.w("- %s: `%s`" % (k[len("tput-"):], res.cmd(k)))
        self.w()
        self.w("| event | capacity (events/s) | live max: offered/s | printed/s | lost | unaccounted "
               "| live %s/s: offered/s | printed/s | lost | target |" % fixed_rate)
        self.w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for v in ("text-small", "json-small", "text-large", "json-large"):
            self.throughput_row(v)
        self.w()

    def throughput_row(self, v):
        res = self.res
        rate = lambda r: r.num("rate")
        lost = lambda r: r.num("lost")
        small = v.endswith("-small")
        cap = cell(derived(res, "tput-drain", v, self.printed_per_s)) if small else DASH
        cells = [cap,
                 cell(derived(res, "tput-max", v, rate)),
                 cell(derived(res, "tput-max", v, self.printed_per_s)),
                 cell(derived(res, "tput-max", v, self.lost_pct), 1) + " %",
                 cell(derived(res, "tput-max", v, self.unaccounted)),
                 cell(derived(res, "tput-fixed", v, rate)),
                 cell(derived(res, "tput-fixed", v, self.printed_per_s)),
                 cell(derived(res, "tput-fixed", v, self.lost_pct), 1) + " %"]
        t = DASH
        if small:
            capm = med(derived(res, "tput-drain", v, self.printed_per_s))
            lost_fixed = derived(res, "tput-fixed", v, lost)
            loss_rounds = sum(1 for r in res.of("tput-fixed", v)
                              if r.fields.get("lost") != "0" and not r.failed)
            rounds = len(res.of("tput-fixed", v))
            if capm is None:
                t = "not measured"
            elif capm >= 1000000 and lost_fixed and lost_fixed.max == 0:
                t = ("≥ 1,000,000/s: **met** (capacity %s/s; nothing lost at ~1,000,000/s offered)"
                     % fmt(capm))
            elif capm >= 1000000 and lost_fixed and lost_fixed.median == 0:
                t = ("≥ 1,000,000/s: **met** (capacity %s/s); at ~1,000,000/s offered, events were "
                     "lost in %d of %d rounds" % (fmt(capm), loss_rounds, rounds))
            elif capm >= 1000000:
                t = ("≥ 1,000,000/s: capacity **met** (%s/s) but at ~1,000,000/s offered events were "
                     "**lost** in %d of %d rounds" % (fmt(capm), loss_rounds, rounds))
            else:
                t = "≥ 1,000,000/s: **missed** (%s/s, %.0f %% short)" % (fmt(capm), (1 - capm / 1000000) * 100)
            self.verdict("≥ 1,000,000 small events/s printed (%s)" % v,
                         "capacity %s/s; at the fixed rate (offered %s/s) lost %s; at the generator's "
                         "max (%s/s) lost %s %%"
                         % (fmt(capm), intmed(derived(res, "tput-fixed", v, rate)), intmed(lost_fixed),
                            intmed(derived(res, "tput-max", v, rate)),
                            cell(derived(res, "tput-max", v, self.lost_pct), 1)), t)
        if not small:
            t = self.target_large(v)
        self.w("| %s | %s | %s |" % (v, " | ".join(cells), t))

    LARGE_THEN = 233000  # events/s printed, tp:sys_enter(regs), when issue #16 was filed

    def target_large(self, v):
        """Large events: live-max printed/s at least 2× the figure of issue #16."""
        res = self.res
        goal = 2 * self.LARGE_THEN
        pm = med(derived(res, "tput-max", v, self.printed_per_s))
        if pm is None:
            t = "not measured"
        elif pm >= goal:
            t = "≥ 2× 233,000/s: **met** (%s/s, %s×)" % (fmt(pm), ratio(pm, self.LARGE_THEN))
        else:
            t = ("≥ 2× 233,000/s: **missed** (%s/s, %s×, %.0f %% short of %s/s)"
                 % (fmt(pm), ratio(pm, self.LARGE_THEN), (1 - pm / goal) * 100, fmt(goal)))
        self.verdict("large events (`%s`) ≥ 2× 233,000/s printed (%s, live max)" % (res.m("tput_large"), v),
                     "printed %s/s at the generator's max (offered %s/s), lost %s %%"
                     % (intmed(derived(res, "tput-max", v, self.printed_per_s)),
                        intmed(derived(res, "tput-max", v, lambda r: r.num("rate"))),
                        cell(derived(res, "tput-max", v, self.lost_pct), 1)), t)
        return t

    # ---- table 4b

    RECORD_HEADING = "## 4b. Recording against printing (native)"
    RECORD_GOAL = 3         # recording sustains at least 3× the rate text printing does (issue #30)
    RECORD_MARK = "(`ksnoop record`)"   # the end of table 4b's rows in "Targets at a glance"

    def record_rates(self):
        """Table 4b's paced rates in order (0: the generator unpaced, last)."""
        rates = {int(r.variant.split("@")[1]) if r.variant.split("@")[1].isdigit() else 0
                 for r in self.res.runs if r.table == "record" and "@drain" not in r.variant}
        return sorted(rates, key=lambda x: x or float("inf"))

    def record_row(self, v, rate):
        """The runs of kind V (text, record) at RATE (0: max), as
        (offered, events, lost, lost rounds, rounds) or None if none."""
        runs = [r for r in self.res.of("record", "%s@%s" % (v, rate or "max")) if not r.failed]
        if not runs:
            return None
        return (stats(r.num("rate") for r in runs), stats(r.num("printed") for r in runs),
                stats(r.num("lost") for r in runs), sum(1 for r in runs if r.num("lost") > 0), len(runs))

    def record_sustained(self, v):
        """(offered events/s, rate) of the highest rate at which kind V lost
        nothing (median over the rounds), and whether every lower rate did
        too; (None, None) if it lost at the lowest."""
        best = (None, None)
        for rate in self.record_rates():
            row = self.record_row(v, rate)
            if row is None:
                continue
            if row[2].median > 0:
                break
            best = (row[0].median, rate)
        return best

    def recording(self):
        """Table 4b: text printing against `ksnoop record` on the paced generator."""
        res = self.res
        m = res.m
        if not res.has_table("record"):
            return
        self.w(self.RECORD_HEADING)
        self.w()
        if m("only") == "record":
            elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
            self.w(f"""Measured on its own by `bench/run --only-record` ({m("run_date")}, {elapsed:.1f}
minutes, {m("rounds")} rounds{", --quick sizes" if m("quick") == "1" else ""}; tree at commit {m("commit")},
ksnoop sha256 {m("ks_sha")}), not in the run the header describes.
""")
        self.w(f"""Issue #30: `ksnoop record -o FILE` writes the raw records (zlib blocks)
instead of printing them. The source is table 4's generator, `ksb-loop flood
{m("flood_secs")} RATE` (`getppid()` on CPU 1, paced at RATE calls per second; RATE 0:
as fast as it goes), traced by `{m("rec_spec")}` (table 4's small event) with ksnoop on
CPU 0 filtered to its pid: (a) printing text to `/dev/null`, (b) `ksnoop record -o FILE`
with FILE on tmpfs (`{m("rec_dir")}`: the disk's speed is not measured). Each round runs
every rate and kind once, the order rotated by one each round. *offered* = the
generator's calls per second; *events* and *lost* from ksnoop's closing line ("N
events printed, M lost" or "N events recorded to FILE (B bytes), M lost"); *losing
rounds* = rounds with any loss. After each recording, `ksnoop report FILE
>/dev/null` on CPU 0 is timed (process start to exit): *report events/s* = events
it printed ÷ that time. *bytes/event* = the file's size ÷ events (header, BTF and
plans included: small files carry them over few events).

*Capacity*, as table 4's, for the small event and table 4's large one
(`{m("tput_large")}`, the 168-byte `struct pt_regs`): ksnoop (`--buffer 256M -n N`) is stopped
(SIGSTOP) while `ksb-loop syscall N` fills its buffer, then continued (N = {fmt(res.mnum("drain_n"))}
small events, a quarter of that large ones, which would overflow 256 MiB):
events ÷ seconds from SIGCONT to its exit, what each consumer keeps up with
apart from how fast the generator goes and from the scheduler's pauses (a paused
consumer loses events once the default buffer fills, whatever its speed).

A kind *sustains* a rate when the median of its lost events there is 0 (and at every
lower rate). Target (issue #30): recording sustains at least {self.RECORD_GOAL}× the
events per second that text printing does, with nothing lost at the rate where
printing starts to lose. The ratio is judged on capacity: the generator (one CPU
calling `getppid()`) offers at most a few million events a second, which the paced
runs cannot go past; loss is judged on the paced runs, in every round.

Commands:
""")
        self.w("- text: `%s`" % res.cmd("record-text"))
        self.w("- record: `%s`, then `ksnoop report FILE >/dev/null`" % res.cmd("record-record"))
        self.w("- generator: `ksb-loop -C 1 flood %s RATE`" % m("flood_secs"))
        for size in ("small", "large"):
            if res.cmd("record-drain-text-" + size):
                self.w("- capacity, %s event: `%s`, `%s`" % (size, res.cmd("record-drain-text-" + size),
                                                          res.cmd("record-drain-record-" + size)))
        self.w()
        self.disturbance("record")
        self.w("| rate asked | text: offered/s | printed | lost | losing rounds "
               "| record: offered/s | recorded | lost | losing rounds | bytes/event | report events/s |")
        self.w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for rate in self.record_rates():
            cells = []
            for v in ("text", "record"):
                row = self.record_row(v, rate)
                if row is None:
                    err = errors_of(res, "record", "%s@%s" % (v, rate or "max"))
                    cells += ["failed: `%s`" % cut(err, 60) if err else DASH, DASH, DASH, DASH]
                    continue
                offered, events, lost, losing, n = row
                cells += [cell(offered), cell(events), cell(lost), "%d of %d" % (losing, n)]
            name = "record@%s" % (rate or "max")
            bpe = derived(res, "record", name, lambda r: r.num("bytes") / r.num("printed"))
            rps = derived(res, "record", name, lambda r: r.num("report_printed") / r.num("report_s"))
            cells += [cell(bpe, 2), cell(rps)]
            self.w("| %s | %s |" % (fmt(rate) + "/s" if rate else "max (unpaced)", " | ".join(cells)))
        self.w()
        self.record_capacity()
        self.record_verdicts()

    def record_capacity(self):
        """Table 4b's second part: what each kind drains from a full buffer."""
        res = self.res
        if not any("@drain" in r.variant for r in res.runs if r.table == "record"):
            return
        self.w("| capacity | events/s | lost | bytes/event | report events/s |")
        self.w("| --- | --- | --- | --- | --- |")
        for size, v in (("small", "text"), ("small", "record"), ("large", "text"), ("large", "record")):
            name = "%s@drain-%s" % (v, size)
            if not res.of("record", name):
                continue
            if not any(not r.failed for r in res.of("record", name)):
                self.w("| %s, %s | failed: `%s` | | | |" % (v, size, cut(errors_of(res, "record", name), 60)))
                continue
            per_s = derived(res, "record", name, self.printed_per_s)
            bpe = derived(res, "record", name, lambda r: r.num("bytes") / r.num("printed"))
            rps = derived(res, "record", name, lambda r: r.num("report_printed") / r.num("report_s"))
            self.w("| %s event, %s (%s events) | %s | %s | %s | %s |"
                   % (size, "text printing" if v == "text" else "`record -o FILE`", intmed(stat(res, "record", name, "printed")),
                      cell(per_s), cell(stat(res, "record", name, "lost")),
                      cell(bpe, 2) if v == "record" else DASH, cell(rps) if v == "record" else DASH))
        self.w()

    def record_verdicts(self):
        res = self.res
        t_rate, _ = self.record_sustained("text")
        r_rate, r_key = self.record_sustained("record")
        rates = self.record_rates()
        top = rates[-1] if rates else None
        bound = r_key is not None and r_key == top      # recording kept up with the generator's most
        t_bound = self.record_sustained("text")[1] == top and top is not None
        first_loss = next((x for x in rates
                           if self.record_row("text", x) and self.record_row("text", x)[2].median > 0), None)
        at_loss = self.record_row("record", first_loss) if first_loss is not None else None
        if first_loss is None:
            loss_txt = "printing lost nothing (median) at any rate measured"
        else:
            tr = self.record_row("text", first_loss)
            loss_txt = ("printing starts to lose at %s (offered %s/s, lost %s, %d of %d rounds); there "
                        "recording lost %s (%d of %d rounds)"
                        % ("the generator's max" if first_loss == 0 else fmt(first_loss) + "/s",
                           intmed(tr[0]), intmed(tr[2]), tr[3], tr[4],
                           intmed(at_loss[2]) if at_loss else "?", at_loss[3] if at_loss else 0,
                           at_loss[4] if at_loss else 0))
        paced = ("text %s/s%s, recording %s/s%s: %s"
                 % (fmt(t_rate) if t_rate else DASH, " (the generator's max)" if t_bound else "",
                    fmt(r_rate) if r_rate else DASH, " (the generator's max)" if bound else "",
                    ratio(r_rate, t_rate) + "×" if t_rate and r_rate else "no ratio"))
        cap_t = med(derived(res, "record", "text@drain-small", self.printed_per_s))
        cap_r = med(derived(res, "record", "record@drain-small", self.printed_per_s))
        lg_t = med(derived(res, "record", "text@drain-large", self.printed_per_s))
        lg_r = med(derived(res, "record", "record@drain-large", self.printed_per_s))
        lossless = at_loss is None or at_loss[2].max == 0
        if cap_t is None or cap_r is None:
            t = "not measured"
        else:
            x = cap_r / cap_t
            met = x >= self.RECORD_GOAL and lossless
            t = "≥ %d×: **%s** (capacity %s×" % (self.RECORD_GOAL, "met" if met else "missed", ratio(cap_r, cap_t))
            if not lossless:
                t += "; recording lost events in %d of %d rounds where printing starts to lose" % (at_loss[3], at_loss[4])
            t += ")"
        self.w("Highest paced rate sustained with nothing lost (median): %s. %s. Capacity, small event: "
               "text printing %s/s, recording %s/s (%s×); large event: %s/s and %s/s (%s×)."
               % (paced, loss_txt[0].upper() + loss_txt[1:], fmt(cap_t) if cap_t else DASH,
                  fmt(cap_r) if cap_r else DASH, ratio(cap_r, cap_t), fmt(lg_t) if lg_t else DASH,
                  fmt(lg_r) if lg_r else DASH, ratio(lg_r, lg_t)))
        self.w()
        self.verdict("recording sustains ≥ %d× the small events/s text printing does, nothing lost where "
                     "printing loses %s" % (self.RECORD_GOAL, self.RECORD_MARK),
                     "capacity: text %s/s, record %s/s; paced, lossless: %s; %s"
                     % (fmt(cap_t) if cap_t else DASH, fmt(cap_r) if cap_r else DASH, paced, loss_txt), t)
        if lg_t and lg_r:
            x = lg_r / lg_t
            self.verdict("recording sustains ≥ %d× the large events/s (`%s`) text printing does %s"
                         % (self.RECORD_GOAL, res.m("tput_large"), self.RECORD_MARK),
                         "capacity: text %s/s, record %s/s" % (fmt(lg_t), fmt(lg_r)),
                         "≥ %d×: **%s** (%s×)" % (self.RECORD_GOAL, "met" if x >= self.RECORD_GOAL else "missed",
                                                 ratio(lg_r, lg_t)))
        name = ("record@drain-small" if res.of("record", "record@drain-small")
                else "record@%s" % (top or "max"))
        bpe = derived(res, "record", name, lambda r: r.num("bytes") / r.num("printed"))
        rps = derived(res, "record", name, lambda r: r.num("report_printed") / r.num("report_s"))
        events = stat(res, "record", name, "printed")
        self.verdict("bytes per small event on disk %s" % self.RECORD_MARK,
                     "%s bytes/event (file ÷ events, %s events a file)" % (cell(bpe, 2), intmed(events)),
                     "measured (issue #30 sets no number)")
        self.verdict("`ksnoop report` events per second %s" % self.RECORD_MARK,
                     "%s events/s (text to /dev/null, %s events a file)" % (cell(rps), intmed(events)),
                     "measured (issue #30 sets no number)")

    def recording_only(self):
        """Table 4b alone, for splice_record(): its section, its verdicts
        and its raw lines."""
        self.recording()
        raw = [r.line for r in self.res.runs if is_record_run(r.table, r.variant)]
        return self.text(), self.verdicts, raw

    # ---- table 5

    def startup(self):
        res = self.res
        self.w("""## 5. Start-up and memory

Start-up: from just before `fork()`+`exec` until the first line of an event
arrives on the tracer's terminal (`bench/startup.c`: the tracer runs on a
pseudo-terminal so that every tracer's stdio is line-buffered; the helper
triggers the traced event every millisecond while it waits). So it covers
parsing, BTF, loading and verification, attaching, and one event's trip
through the buffer. The tracer runs under `/usr/bin/time -v` (its exec is
included) and **peak RSS** is time's "Maximum resident set size". *Exit
after SIGINT* is how long the tracer took to detach and exit when asked.
""")
        if res.has_table("startup-tp"):
            self.startup_native()
        if res.has_table("startup-attach"):
            self.startup_attach()
        if res.has_table("startup-kfunc"):
            self.startup_vm()
        if res.has_table("usdt-bulk"):
            self.usdt_bulk()

    def usdt_bulk(self):
        res = self.res
        self.w("Bulk USDT attach, native: every `hotspot` probe of the JVM's `libjvm.so` "
               "(42 probes, 529 call sites) against one of them, each a whole run with one "
               "second of tracing (attach, trace, detach, exit). The target: all probes add at "
               "most 30 % over one.")
        self.w()
        self.commands((v, "bulk-" + v) for v in ("ksnoop-all", "ksnoop-one", "bpftrace-all"))
        self.w()
        all_ = med(stat(res, "usdt-bulk", "ksnoop-all", "wall_ms"))
        one = med(stat(res, "usdt-bulk", "ksnoop-one", "wall_ms"))
        bt = med(stat(res, "usdt-bulk", "bpftrace-all", "wall_ms"))
        if all_ is None or one is None:
            t = "not measured"
        elif all_ <= 1.3 * one:
            t = "≤ 1.3× one probe: **met** (%s×)" % ratio(all_, one)
        else:
            t = "≤ 1.3× one probe: **missed** (%s×)" % ratio(all_, one)
            st_all = stat(res, "usdt-bulk", "ksnoop-all", "wall_ms")
            st_one = stat(res, "usdt-bulk", "ksnoop-one", "wall_ms")
            # A miss inside the rounds' own spread is not a measured change.
            if st_all.min <= 1.3 * st_one.max:
                t += ("; within this run's spread: its fastest round, %s ms, is %s× the "
                      "slowest one-probe round" % (fmt(st_all.min), ratio(st_all.min, st_one.max)))
        self.w("| run | wall ms | ÷ ksnoop, one probe | ksnoop ÷ this | target |")
        self.w("| --- | --- | --- | --- | --- |")
        for v, label, target in (("ksnoop-all", "**ksnoop**, hotspot:*", t),
                                 ("ksnoop-one", "ksnoop, one probe", "reference"),
                                 ("bpftrace-all", "bpftrace, hotspot:*", "reference")):
            st = stat(res, "usdt-bulk", v, "wall_ms")
            if not st:
                self.w("| %s | failed: `%s` | | | |" % (label, errors_of(res, "usdt-bulk", v)))
                continue
            self.w("| %s | %s | %s | %s | %s |"
                   % (label, cell(st), ratio(st.median, one),
                      DASH if v.startswith("ksnoop") else ratio(all_, st.median), target))
        self.w()
        self.w("Why it is cheap: libbpf attaches all call sites of one probe through one "
               "uprobe.multi link, and ksnoop destroys the 42 links from several threads at "
               "exit: each link waits for a grace period before it lets go, and overlapping "
               "waits share one (one after another they took 1.5 s).")
        self.w()
        self.verdict("bulk USDT attach ≤ 1.3× one probe (hotspot:*)",
                     "ksnoop %s ms vs %s ms; bpftrace %s ms" % (fmt(all_), fmt(one), fmt(bt)), t)

    def startup_native(self):
        res = self.res
        self.w("Tracepoint spec, native (the target: start-up under 100 ms on this machine):")
        self.w()
        self.disturbance("native")
        self.w("- ksnoop: `%s`\n- bpftrace: `%s`\n" % (res.cmd("su-tp-ksnoop"), res.cmd("su-tp-bpftrace")))
        s_ks = self.s_ks = med(stat(res, "startup-tp", "ksnoop", "startup_ms"))
        s_bt = med(stat(res, "startup-tp", "bpftrace", "startup_ms"))
        if s_ks is None:
            t = "not measured"
        elif s_ks < 100:
            t = "< 100 ms: **met**"
        else:
            t = "< 100 ms: **missed** by %s ms (%s %%)" % (fmt(s_ks - 100), pct_over(s_ks, 100))
        self.w("| tracer | start-up ms | peak RSS MiB | exit after SIGINT, ms | ksnoop ÷ bpftrace (start-up) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        for tracer, label, rt, target in (("ksnoop", "**ksnoop**", ratio(s_ks, s_bt), t),
                                          ("bpftrace", "bpftrace", DASH, "reference")):
            self.w("| %s | %s | %s | %s | %s | %s |"
                   % (label, cell(stat(res, "startup-tp", tracer, "startup_ms"), 1),
                      cell(stat(res, "startup-tp", tracer, "rss_kb"), 1, 1024),
                      cell(stat(res, "startup-tp", tracer, "stop_ms"), 1), rt, target))
        self.w()
        self.verdict("start-up < 100 ms on this machine (tracepoint)",
                     "ksnoop %s ms; bpftrace %s ms" % (fmt(s_ks, 1), fmt(s_bt, 1)), t)
        e = errors_of(res, "startup-tp", "ksnoop") + errors_of(res, "startup-tp", "bpftrace")
        if e:
            self.w("Errors in some rounds: `%s`" % e)
            self.w()

    def startup_attach(self):
        res = self.res
        self.w("Exec to attached, native, a single-target trace (the target: at most 15 ms): "
               "from just before `fork()`+`exec` until ksnoop's stderr says `tracing` (`-v`), "
               "no `time(1)` and no event; interleaved with the rows above. Where the time went, "
               "from when each `-v` line arrived: *resolved* is exec until the spec's line "
               "(arguments parsed, BTF read, the spec resolved), *load + attach* until the "
               "\"loaded ... attached\" line, *to tracing* the rest; ksnoop's own figures in "
               "that line are `load_s` (open + load + verify) and `attach_s` (since the "
               "attacher started, load included), to 10 ms.")
        self.w()
        self.commands([("ksnoop", "su-attach-ksnoop")])
        self.w()
        a = stat(res, "startup-attach", "ksnoop", "attached_ms")
        am = med(a)
        if am is None:
            t = "not measured"
        elif am <= 15:
            t = "≤ 15 ms: **met**"
        else:
            t = "≤ 15 ms: **missed** by %s ms (%s %% over)" % (fmt(am - 15, 1), pct_over(am, 15))
        self.w("| run | exec to attached, ms | resolved, ms | load + attach, ms | to tracing, ms "
               "| ksnoop's load_s / attach_s | exit after SIGINT, ms | target |")
        self.w("| --- | --- | --- | --- | --- | --- | --- | --- |")
        if not a:
            self.w("| **ksnoop** `%s` | failed: `%s` | | | | | | %s |"
                   % (res.m("tp_spec", "tp:sys_enter(id)"), errors_of(res, "startup-attach", "ksnoop")
                      or "no result", t))
        else:
            load = derived(res, "startup-attach", "ksnoop",
                           lambda r: r.num("loaded_ms") - r.num("resolved_ms"))
            rest = derived(res, "startup-attach", "ksnoop",
                           lambda r: r.num("attached_ms") - r.num("loaded_ms"))
            self.w("| **ksnoop** `%s` | %s | %s | %s | %s | %s / %s s | %s | %s |"
                   % (res.m("tp_spec", "tp:sys_enter(id)"), cell(a, 1),
                      cell(stat(res, "startup-attach", "ksnoop", "resolved_ms"), 1),
                      cell(load, 1), cell(rest, 1),
                      fmt(med(stat(res, "startup-attach", "ksnoop", "load_s")), 2),
                      fmt(med(stat(res, "startup-attach", "ksnoop", "attach_s")), 2),
                      cell(stat(res, "startup-attach", "ksnoop", "stop_ms"), 1), t))
        self.w()
        self.verdict("single-target trace, exec to attached ≤ 15 ms (native)",
                     "ksnoop %s ms" % (fmt(am, 1) if am is not None else "?"), t)

    def startup_vm(self):
        res = self.res
        tracers = ("ksnoop", "ksnoop-kprobe", "bcc-ksnoop", "bpftrace")
        self.w("Kernel-function spec, in the VM (software emulation: compare the ratios only):")
        self.w()
        self.commands((v, "vm-su-" + v) for v in tracers)
        self.w()
        k_ks = med(stat(res, "startup-kfunc", "ksnoop", "startup_ms"))
        self.w("| tracer | start-up ms (TCG) | peak RSS MiB | exit after SIGINT, ms (TCG) | ksnoop ÷ this tracer (start-up) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        for v in tracers:
            s = stat(res, "startup-kfunc", v, "startup_ms")
            label = "**%s**" % v if v.startswith("ksnoop") else v
            if not s:
                self.w("| %s | failed: `%s` | | | | |" % (label, errors_of(res, "startup-kfunc", v)))
                continue
            rt = DASH if v == "ksnoop" else ratio(k_ks, s.median)
            self.w("| %s | %s | %s | %s | %s | %s |"
                   % (label, cell(s), cell(stat(res, "startup-kfunc", v, "rss_kb"), 1, 1024),
                      cell(stat(res, "startup-kfunc", v, "stop_ms")), rt,
                      "informational (TCG)" if v == "ksnoop" else "reference"))
        self.w()

    # ---- 6. many functions

    def globs(self):
        res = self.res
        if not (res.has_table("glob") or res.has_table("info") or res.has_table("globcall")
                or res.has_table("tplist") or res.has_table("complete")):
            return
        self.w("""## 6. Many functions at once

A whole run of `ksnoop 'tcp_*'` (every argument of each of 300 and more
functions, on entry and on return) against `ksnoop tcp_sendmsg`, and
bpftrace's `kprobe:tcp_*` (entry only, a count per probe) against its
`kprobe:tcp_sendmsg`, in the VM (TCG) on both kernels: *attach* from exec
until the tracer is attached, one second of *trace*, *detach* from SIGINT
(bpftrace: the end of its `-c` command) until it has exited. ksnoop's
target: the whole `tcp_*` run within 2× that of one function, and faster
than bpftrace's `kprobe:tcp_*`.
""")
        if res.has_table("glob"):
            self.w()
            self.commands((v, "vm-glob-" + v) for v in
                          ("ksnoop-glob", "ksnoop-one", "bpftrace-glob", "bpftrace-one"))
            self.w()
            kernels = res.kernels("glob")
            self.w("| kernel | run | attach s | trace s | detach s | total s | ÷ one function | "
                   "ksnoop ÷ bpftrace (total) | target |")
            self.w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
            self.glob_notes = []
            for k in kernels:
                self.glob_rows(k)
            self.w()
            self.w("Why it is cheap: functions whose plans differ only in their values share "
                   "one program (each function's ways to its values are in a map, at the index "
                   "its BPF cookie gives), so `tcp_*` loads two programs, not one per signature; "
                   "where the kernel has kprobe.multi (6.12) each program attaches all its "
                   "functions through one link. Debian's 6.1 has no kprobe.multi: every "
                   "function gets a kprobe and a kretprobe of its own, and the kernel "
                   "destroys each one under a global mutex after an RCU and a tracepoint SRCU "
                   "grace period (`perf_kprobe_destroy()`), one after another whatever the "
                   "number of threads that close them.")
            self.w()
            for note in self.glob_notes:
                self.w(note)
                self.w()
        if res.has_table("globcall"):
            self.globcall_table()
        if res.has_table("info"):
            self.info_table()
        if res.has_table("tplist"):
            self.tp_list_table()
        if res.has_table("complete"):
            self.complete_table()

    def globcall_stat(self, kernel, variant, expr):
        values = []
        for r in self.res.of("globcall", variant):
            if r.fields.get("kernel") == kernel and not r.failed and r.fields.get("ns_per_iter"):
                values.append(expr(r))
        return stats(values)

    def globcall_table(self):
        """A glob's per-call cost with fentry against kprobe(.multi), VM; no target."""
        res = self.res
        self.w("A glob's cost per call, fentry against kprobes, in the VM (TCG): the table-1 "
               "workload (`ksb-loop open`, one `open()`+`close()` per iteration) traced by a glob "
               "matching `do_sys_openat2()`, the file name on entry (one record per call); "
               "`--mode fentry` loads a program per function, `--mode kprobe` (a glob's default) "
               "attaches one program to all matches through kprobe.multi where the kernel has "
               "it (6.12; on 6.1 a kprobe per function). Every traced run follows an untraced "
               "one; added cost against that neighbour. Informational, no target.")
        self.w()
        self.commands((v, "vm-globcall-" + v) for v in ("untraced", "fentry", "kprobe"))
        self.w()
        kernels = res.kernels("globcall")
        self.w("| kernel | variant | attached as | ns per call | added ns per call "
               "| events printed / lost | ÷ fentry (added) |")
        self.w("| --- | --- | --- | --- | --- | --- | --- |")
        for k in kernels:
            added = {v: self.globcall_stat(k, v, lambda r: r.num("ns_per_iter") - r.num("base"))
                     for v in ("fentry", "kprobe")}
            a_f = med(added["fentry"])
            for v, label in (("untraced", "untraced"), ("fentry", "**ksnoop** `--mode fentry`"),
                             ("kprobe", "**ksnoop** `--mode kprobe`")):
                st = self.globcall_stat(k, v, lambda r: r.num("ns_per_iter"))
                if not st:
                    errs = "; ".join(sorted({r.fields.get("error", "") for r in res.of("globcall", v)
                                             if r.fields.get("kernel") == k and r.failed}))
                    self.w("| %s | %s | failed: `%s` | | | | |" % (k, label, errs or "no result"))
                    continue
                how = sorted({r.fields.get("attach", "") for r in res.of("globcall", v)
                              if r.fields.get("kernel") == k and not r.failed} - {""})
                pl = DASH
                if v != "untraced":
                    pl = "%s / %s" % (intmed(self.globcall_stat(k, v, lambda r: r.num("printed"))),
                                      intmed(self.globcall_stat(k, v, lambda r: r.num("lost"))))
                self.w("| %s | %s | %s | %s | %s | %s | %s |"
                       % (k, label, ", ".join(how) or DASH, cell(st),
                          cell(added[v]) if v != "untraced" else DASH, pl,
                          (ratio(med(added[v]), a_f) if a_f is None or a_f > 0 else
                           "— (fentry's added cost, %s ns, is not above the noise)" % sgn(a_f))
                          if v == "kprobe" else DASH))
        self.w()

    def glob_stat(self, kernel, variant, key):
        return stats(r.num(key) for r in self.res.of("glob", variant)
                     if r.fields.get("kernel") == kernel and r.fields.get(key, "") != "")

    def glob_rows(self, kernel):
        res = self.res
        total = {v: med(self.glob_stat(kernel, v, "total_ms"))
                 for v in ("ksnoop-glob", "ksnoop-one", "bpftrace-glob", "bpftrace-one")}
        kg, ko, bg = total["ksnoop-glob"], total["ksnoop-one"], total["bpftrace-glob"]
        if kg is None or ko is None:
            t = "not measured"
        else:
            t = "≤ 2× one function: **%s** (%s×)" % ("met" if kg <= 2 * ko else "missed", ratio(kg, ko))
            links = med(self.glob_stat(kernel, "ksnoop-glob", "links"))
            progs = med(self.glob_stat(kernel, "ksnoop-glob", "programs")) or 0
            if kg > 2 * ko and links and links > 2 * progs:
                t += ("; cause: no kprobe.multi, %s kprobes destroyed one at a time "
                      "(below the table)" % fmt(links))
            if bg is not None:
                t += "; faster than bpftrace: **%s**" % ("met" if kg < bg else "missed")
                if kg >= bg:
                    t += ("; cause: a kprobe and a kretprobe per function to detach, "
                          "bpftrace an entry kprobe (below the table)")
        rows = (("ksnoop-glob", "**ksnoop** `tcp_*`", "ksnoop-one", t),
                ("ksnoop-one", "ksnoop, one function", None, "reference"),
                ("bpftrace-glob", "bpftrace `kprobe:tcp_*`", "bpftrace-one", "reference"),
                ("bpftrace-one", "bpftrace, one function", None, "reference"))
        for v, label, one, target in rows:
            st = self.glob_stat(kernel, v, "total_ms")
            if not st:
                errs = "; ".join(sorted({r.fields.get("error", "") for r in res.of("glob", v)
                                         if r.fields.get("kernel") == kernel and r.failed}))
                self.w("| %s | %s | failed: `%s` | | | | | | |" % (kernel, label, errs or "no result"))
                continue
            funcs = med(self.glob_stat(kernel, v, "funcs"))
            progs = med(self.glob_stat(kernel, v, "programs"))
            if funcs and v == "ksnoop-glob":
                label += " (%d functions, %d programs)" % (funcs, progs or 0)
            vs_bt = DASH
            if v.startswith("ksnoop"):
                bt = total["bpftrace-glob" if v == "ksnoop-glob" else "bpftrace-one"]
                vs_bt = ratio(st.median, bt) if bt else DASH
            self.w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |"
                   % (kernel, label, cell(self.glob_stat(kernel, v, "attach_ms"), 2, 1000),
                      cell(self.glob_stat(kernel, v, "trace_ms"), 2, 1000),
                      cell(self.glob_stat(kernel, v, "detach_ms"), 2, 1000),
                      cell(st, 2, 1000),
                      ratio(st.median, total[one]) if one and total[one] else DASH, vs_bt, target))
        if None not in (kg, bg) and kg >= bg:
            kd = med(self.glob_stat(kernel, "ksnoop-glob", "detach_ms"))
            bd = med(self.glob_stat(kernel, "bpftrace-glob", "detach_ms"))
            ka = med(self.glob_stat(kernel, "ksnoop-glob", "attach_ms"))
            ba = med(self.glob_stat(kernel, "bpftrace-glob", "attach_ms"))
            links = med(self.glob_stat(kernel, "ksnoop-glob", "links"))
            if None not in (kd, bd, ka, ba) and links:
                self.glob_notes.append(
                    f"On {kernel} ksnoop's `tcp_*` run is not faster than bpftrace's "
                    f"({ratio(kg, bg)}×). It attaches faster ({fmt(ka / 1000, 2)} s against "
                    f"{fmt(ba / 1000, 2)} s) and detaches slower ({fmt(kd / 1000, 2)} s against "
                    f"{fmt(bd / 1000, 2)} s): it removes {fmt(links)} probes, a kprobe and a "
                    f"kretprobe per function ({kd / links:.0f} ms each), where bpftrace's "
                    f"`kprobe:tcp_*` has an entry kprobe per function only; the kernel "
                    f"destroys them one at a time (above), so the detach grows with the "
                    f"probes, and ksnoop's work is twice bpftrace's.")
        if kg is not None and ko is not None:
            self.verdict("`tcp_*` within 2× one function, %s (VM)" % kernel,
                         "ksnoop %s s vs %s s; bpftrace `kprobe:tcp_*` %s s"
                         % (fmt(kg / 1000, 2), fmt(ko / 1000, 2),
                            fmt(bg / 1000, 2) if bg is not None else "?"), t)

    def info_table(self):
        res = self.res
        one = med(stat(res, "info", "one", "wall_ms"))
        many = med(stat(res, "info", "many", "wall_ms"))
        bcc = med(stat(res, "info", "bcc-one", "wall_ms"))
        n = med(stat(res, "info", "many", "funcs"))
        self.w("`ksnoop info` of %s functions against one, and of one function against bcc's "
               "ksnoop `info` of the same function, natively, interleaved (the targets: "
               "1,000 functions at most 3× one; one function at most 0.7× bcc's time):"
               % (fmt(n) if n else "1,000"))
        self.w()
        self.commands((v, "info-" + v) for v in ("one", "many", "bcc-one") if res.cmd("info-" + v))
        self.w()
        if one is None or many is None:
            t = "not measured"
        else:
            t = "≤ 3× one function: **%s** (%s×)" % ("met" if many <= 3 * one else "missed", ratio(many, one))
        if one is None or bcc is None:
            t_bcc = "not measured"
        elif one <= 0.7 * bcc:
            t_bcc = "≤ 0.7× bcc: **met** (%s×)" % ratio(one, bcc)
        else:
            t_bcc = "≤ 0.7× bcc: **missed** (%s×, %s %% over 0.7×)" % (ratio(one, bcc), pct_over(one, 0.7 * bcc))
        self.w("| run | wall ms | ÷ ksnoop, one function | ksnoop ÷ bcc (one function) | target |")
        self.w("| --- | --- | --- | --- | --- |")
        for v, label, target in (("many", "**ksnoop info**, %s functions" % (fmt(n) if n else "?"), t),
                                 ("one", "**ksnoop info**, one function", t_bcc),
                                 ("bcc-one", "bcc's ksnoop info, one function", "reference")):
            st = stat(res, "info", v, "wall_ms")
            if not st:
                if v == "bcc-one" and not res.of("info", v):
                    continue  # a run from before this row existed
                self.w("| %s | failed: `%s` | | | |" % (label, errors_of(res, "info", v) or "no result"))
                continue
            self.w("| %s | %s | %s | %s | %s |"
                   % (label, cell(st), ratio(st.median, one),
                      ratio(one, bcc) if v == "one" else DASH, target))
        self.w()
        self.verdict("`ksnoop info` of 1,000 functions ≤ 3× one",
                     "%s ms vs %s ms" % (fmt(many), fmt(one)), t)
        self.verdict("`ksnoop info FUNC` ≤ 0.7× bcc's ksnoop `info FUNC` (native)",
                     "ksnoop %s ms; bcc %s ms" % (fmt(one), fmt(bcc) if bcc is not None else "?"), t_bcc)

    def tp_list_table(self):
        """Every tracepoint listed, ksnoop against bpftrace (native; target ≤ 1×)."""
        res = self.res
        ks = med(stat(res, "tplist", "ksnoop", "wall_us"))
        bt = med(stat(res, "tplist", "bpftrace", "wall_us"))
        self.w("Every tracepoint listed, natively, interleaved: `ksnoop info 'tp:*'` (each one's "
               "prototype, typed from BTF) against `bpftrace -l 'tracepoint:*'` (names from "
               "tracefs), both in a mount namespace with tracefs mounted, output counted "
               "through a pipe (the target: ksnoop at most bpftrace's time):")
        self.w()
        self.commands((v, "tplist-" + v) for v in ("ksnoop", "bpftrace") if res.cmd("tplist-" + v))
        self.w()
        if ks is None or bt is None:
            t = "not measured"
        else:
            t = "≤ 1× bpftrace: **%s** (%s×)" % ("met" if ks <= bt else "missed", ratio(ks, bt))
        self.w("| run | wall ms | lines | ÷ bpftrace | target |")
        self.w("| --- | --- | --- | --- | --- |")
        for v, label, target in (("ksnoop", "**ksnoop info 'tp:*'**", t),
                                 ("bpftrace", "bpftrace -l 'tracepoint:*'", "reference")):
            st = stat(res, "tplist", v, "wall_us")
            if not st:
                if res.of("tplist", v):
                    self.w("| %s | failed: `%s` | | | |" % (label, errors_of(res, "tplist", v) or "no result"))
                continue
            lines = med(stat(res, "tplist", v, "lines"))
            self.w("| %s | %s | %s | %s | %s |"
                   % (label, cell(st, 1, 1000), fmt(lines), ratio(st.median, bt), target))
        self.w()
        self.verdict("`ksnoop info 'tp:*'` ≤ bpftrace `-l 'tracepoint:*'` (native)",
                     "ksnoop %s ms; bpftrace %s ms" % (fmt((ks or 0) / 1000, 1), fmt((bt or 0) / 1000, 1)), t)

    # ---- 7. call trees

    TREE_HEADING = "## 7. Call trees (`--tree`): cost per call (VM)"
    TREE_IDLE_MAX = 1.3     # an inner call outside a session, ÷ a filtered-out call
    TREE_EVENTS_MAX = 1.0   # a whole error tree, ÷ the same calls as events

    def tree(self):
        res = self.res
        if not (res.has_table("tree") or res.has_table("tree-shape")):
            if res.m("tree_rc", "skipped") not in ("skipped", "0", ""):
                self.w(self.TREE_HEADING)
                self.w()
                self.w("Not measured: the VM run did not produce results (`tests/vm/run` status %s)."
                       % res.m("tree_rc"))
                self.w()
            return
        m = res.m
        self.w(self.TREE_HEADING)
        self.w()
        if m("only") == "tree":
            elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
            self.w(f"""Measured on its own by `bench/run --only-tree` ({m("run_date")}, {elapsed:.1f}
minutes, {m("vm_rounds")} rounds in the VM{", --quick sizes" if m("quick") == "1" else ""}; ksnoop {m("ks_ver")},
sha256 {m("ks_sha")}, tree at commit {m("commit")}), not in the run the header describes;
qemu with {"a host thread per vCPU (`thread=multi`)" if m("tree_tcg", "multi") == "multi" else "both vCPUs in one host thread (`thread=single`)"}, as table 1.
""")
        dirs = m("tree_dirs", "16")
        self.w(f"""Two questions of issue #28, in the VM (Debian's 6.1, TCG), fentry mode,
the tracer's output on `/dev/null`, interleaved rounds, every traced run
after an untraced run of its own loop (added cost against that neighbour):

- **An inner function called outside any session** (the per-task check
  every inner program makes first) against **today's filtered-out call**
  (an entry predicate that never holds), on table 1's loop
  (`ksb-loop open {m("open_n")}`, one `do_sys_openat2()` per iteration): `--tree`
  with a root the loop never calls (`do_mkdirat`) and `do_sys_openat2` as
  its inner function, so every call is an inner call outside a session.
  Target: at most {self.TREE_IDLE_MAX}× the filtered-out call's added cost.
- **A whole error tree against the same calls as today's events**:
  `ksb-loop openat {m("tree_n")} PATH`, where PATH is a missing file under {dirs}
  directories, so every `openat()` fails (ENOENT) and makes one tree of
  about 50 inner calls (counted below); the same specs without `--tree`
  print one event per call (`(return)`: the return record only), and
  with `-L 1ns` each event also carries its call's duration (the entry
  is timed too), which is what every call of a tree carries. All go
  through a 64 MiB buffer (`--buffer`), so that nothing is lost: a lost
  event costs the traced task less than a printed one. Target: the tree
  at most the added cost, per failing open, of the events that carry the
  same (return and duration).

Commands (in the VM; `ksb-loop` is `bench/loop.c`):
""")
        for v in ("untraced-open", "filtered", "inner-idle", "untraced-deep", "events", "events-timed", "tree"):
            if res.cmd("vm-tree-" + v):
                self.w("- %s: `%s`" % (v, res.cmd("vm-tree-" + v)))
        self.w()
        self.disturbance("tree")
        shape = next((r for r in res.of("tree-shape", "tree") if not r.failed), None)
        ncalls = shape.num("calls") if shape else None
        if shape:
            fns = ", ".join("%s %s" % (k[3:], v) for k, v in shape.fields.items() if k.startswith("fn_"))
            self.w("One tree, counted from `ksnoop -j -c ksb-loop --tree` (the loop's last failing "
                   "`openat()`): **%d inner calls** (%s), %d levels deep, %s not recorded; the root "
                   "returned %s. The same specs without `--tree` printed %s events per failing open "
                   "(the root's return among them)."
                   % (ncalls, fns, shape.num("depth"), shape.fields.get("not_recorded", "?"),
                      shape.fields.get("return", "?"), shape.fields.get("events_per_open", "?")))
            self.w()
        elif res.of("tree-shape", "tree"):
            self.w("The tree could not be counted: `%s`." % errors_of(res, "tree-shape", "tree"))
            self.w()

        def added(v):
            return med(padd(res, "tree", v))

        a_filt, a_idle = added("filtered"), added("inner-idle")
        a_ev, a_tree = added("events"), added("tree")
        a_evt = added("events-timed")
        a_ref = a_evt if a_evt is not None else a_ev
        t_idle = self.target_tree_idle(a_idle, a_filt, padd(res, "tree", "filtered"))
        if a_tree is None or a_ref is None:
            t_tree = "not measured"
        elif a_ref <= 0:
            t_tree = "cannot be judged: the events' added cost, %s ns, is not above the noise" % sgn(a_ref)
        elif a_tree <= a_ref * self.TREE_EVENTS_MAX:
            t_tree = "≤ 1× events with durations: **met** (%s×)" % ratio(a_tree, a_ref)
        else:
            t_tree = "≤ 1× events with durations: **missed** (%s×, %s %% over)" % (
                ratio(a_tree, a_ref), pct_over(a_tree, a_ref))

        def per_open(r):
            return r.num("printed") / r.num("iters")

        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost "
               "| printed per call | ratio (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- | --- |")
        rows = (("untraced-open", "untraced, `open`+`close` loop", DASH, DASH),
                ("filtered", "ksnoop, filtered out (`do_sys_openat2(dfd == 12345)`)", DASH, "reference"),
                ("inner-idle", "**ksnoop --tree**, inner `do_sys_openat2` outside any session",
                 "÷ filtered out: %s" % ratio(a_idle, a_filt), t_idle),
                ("untraced-deep", "untraced, failing deep `openat()` loop", DASH, DASH),
                ("events", "ksnoop, the same functions as events (one per call, the return only)", DASH, DASH),
                ("events-timed", "ksnoop, the same events with their durations (`-L 1ns`)", DASH, "reference"),
                ("tree", "**ksnoop --tree**, one error tree per failing `openat()`",
                 "÷ events with durations: %s; ÷ return-only events: %s" % (ratio(a_tree, a_evt), ratio(a_tree, a_ev)),
                 t_tree))
        for v, label, rt, target in rows:
            st = stat(res, "tree", v, "ns_per_iter")
            if not st:
                if res.of("tree", v):
                    self.w("| %s | failed: `%s` | | | | | %s |"
                           % (label, errors_of(res, "tree", v) or "no result", target))
                continue
            traced = not v.startswith("untraced")
            pl = pc = DASH
            if traced:
                pl = "%s / %s" % (intmed(stat(res, "tree", v, "printed")), intmed(stat(res, "tree", v, "lost")))
                unprinted = stat(res, "tree", v, "unprinted")
                if unprinted and unprinted.max > 0:
                    pl += " (%s not printed)" % intmed(unprinted)
                pc = fmt(med(derived(res, "tree", v, per_open)), 2)
            self.w("| %s | %s | %s | %s | %s | %s | %s |"
                   % (label, cell(st), cell(padd(res, "tree", v)) if traced else DASH, pl, pc, rt, target))
        self.w()
        if ncalls and a_tree is not None and a_ev is not None:
            self.w("Per inner call of a failing open (%d calls): the tree adds %s ns, the events %s ns. "
                   "A tree is one record per call as well (each inner call's record waits in a BPF "
                   "map until the root returns, then goes to the ring buffer), plus the session's "
                   "own bookkeeping; the events variant prints every call (`printed per call` "
                   "above), the tree variant one tree per failing open, counted as one event."
                   % (ncalls, fmt(a_tree / ncalls), fmt(a_ev / ncalls)))
            self.w()
        self.loss_note("tree", ("events", "events-timed", "tree"))
        made = shape.num("events_per_open") if shape else 0
        printed = med(derived(res, "tree", "events", per_open))
        if made > 0 and printed is not None and printed < 0.95 * made:
            self.w("The events runs printed fewer events than the calls made (median %s per failing "
                   "open, of the %s one open makes), and none was lost: the reader was behind when "
                   "the loop ended, and ksnoop prints for at most a second after SIGINT, then counts "
                   "the rest as captured but not printed (`ksnoop/cmd/cmd_trace.c`, `finish_run()`). Every "
                   "one of them was written to the ring buffer while the loop ran, so the traced "
                   "task paid for all of them and the added cost stands; what the reader would have "
                   "spent on the rest is not in it.%s"
                   % (fmt(printed, 1), fmt(made),
                      " The trees were all printed." if (med(derived(res, "tree", "tree", per_open)) or 0)
                      >= 0.99 else ""))
            self.w()
        if a_tree is not None and a_ref is not None and a_ref > 0 and a_tree > a_ref:
            self.w("""Where a tree's calls cost more, from `bpf/ksnoop.bpf.c` (not measured
apart here): each inner call looks its task's session up at entry and
return (`tree_session()`, an LRU hash) and, in a session, reads the CPU's
preempt count (`in_task()`: two `bpf_probe_read_kernel()`); its record is
written into a preallocated `tree_buf` element (`bpf_map_update_elem()`
copies the element's size from `scratch`, then a lookup), and at the root's
return `tree_flush()` looks each up, copies it to the ring buffer and
deletes it. An event is one ring-buffer reservation of its own size.
Before `tree_buf` was preallocated (an element allocated and freed per
call), the same tree cost 7.9× the return-only events.
""")
        retsnoop = m("retsnoop", "")
        if retsnoop.startswith("deb "):
            self.w("retsnoop: Debian has a package (%s), but bench/run does not run it yet." % retsnoop[4:])
        else:
            checked = retsnoop or "bookworm"
            self.w(f"""retsnoop: not measured, it cannot be had here. Debian packages no
retsnoop (`apt-cache policy retsnoop` knows no such package; checked: {checked}), and building
it from source needs Rust crates (blazesym, which retsnoop links for its
symbolization) that cannot be fetched on this machine, so there is no
retsnoop row.""")
        self.w()
        if res.has("tree-sample"):
            self.w("One tree as ksnoop prints it (`ksnoop --tree '%s' ...`, the deep missing path):"
                   % "do_sys_openat2(return < 0)")
            self.w()
            self.w("```")
            for line in res.lines("tree-sample")[:80]:
                self.w(line)
            self.w("```")
            self.w()
        if res.has("tree-kernel"):
            self.w("The guest kernel reported trouble during this part; its first lines:")
            self.w()
            self.w("```")
            for line in res.lines("tree-kernel")[:40]:
                self.w(line)
            self.w("```")
            self.w()
        self.verdict("`--tree`: an inner call outside any session ≤ %s× a filtered-out call (fentry, VM)"
                     % self.TREE_IDLE_MAX,
                     "inner outside a session %s ns; filtered out %s ns" % (sgn(a_idle), sgn(a_filt)), t_idle)
        self.verdict("`--tree`: a whole error tree (%s calls) ≤ the same calls as today's events with durations "
                     "(fentry, VM)" % (fmt(ncalls) if ncalls else "~50"),
                     "tree %s ns; events with durations %s ns per failing open" % (sgn(a_tree), sgn(a_ref)), t_tree)

    def target_tree_idle(self, a, filt, filt_stats):
        """An inner call outside a session: at most TREE_IDLE_MAX times a
        filtered-out call's added cost."""
        limit = self.TREE_IDLE_MAX
        if a is None or filt is None:
            return "not measured"
        if filt <= 0 or filt_stats.min <= 0:
            return ("cannot be judged in the VM: the filtered-out call's added cost, %s ns, is not "
                    "above the run-to-run noise (inner outside a session: %s ns)" % (cell(filt_stats), sgn(a)))
        if a <= filt * limit:
            return "≤ %s× filtered out: **met** (%s×)" % (limit, ratio(a, filt))
        return ("≤ %s× filtered out: **missed** (%s×, %s %% over %s×)"
                % (limit, ratio(a, filt), pct_over(a, filt * limit), limit))

    def tree_only(self):
        """Table 7 alone, for splice_tree(): its section, its verdicts and
        its raw lines."""
        self.tree()
        raw = [r.line for r in self.res.runs if is_tree_run(r.table, r.variant)]
        return self.text(), self.verdicts, raw
    # ---- 8. object tracking

    TRACK_HEADING = "## 8. Object tracking (`--track`): cost per call, attach time"
    TRACK_IDLE_MAX = 1.3    # a call whose object is not tracked, ÷ a filtered-out call

    def track(self):
        res = self.res
        tables = ("track", "track-attach", "track-list", "tracknat")
        if not any(res.has_table(t) for t in tables):
            if res.m("track_rc", "skipped") not in ("skipped", "0", ""):
                self.w(self.TRACK_HEADING)
                self.w()
                self.w("Not measured: the VM run did not produce results (`tests/vm/run` status %s)."
                       % res.m("track_rc"))
                self.w()
            return
        m = res.m
        self.w(self.TRACK_HEADING)
        self.w()
        if m("only") == "track":
            elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
            self.w(f"""Measured on its own by `bench/run --only-track` ({m("run_date")}, {elapsed:.1f}
minutes, {m("rounds")} rounds natively and {m("vm_rounds")} in the VM{", --quick sizes" if m("quick") == "1" else ""}; ksnoop {m("ks_ver")},
sha256 {m("ks_sha")}, tree at commit {m("commit")}; bpftrace {m("bt_ver")}), not in the run the
header describes. The VM: Debian's {m("track_info") or "6.12"}, qemu with
{"both vCPUs in one host thread (`thread=single`: the skb glob patches hundreds of functions)" if m("track_tcg", "single") == "single" else "a host thread per vCPU (`thread=multi`)"}.
""")
        self.w("""Two questions of issue #29, interleaved rounds, every traced run after an
untraced run of its own loop (added cost against that neighbour), the
tracer's output on `/dev/null`:

- **A traced call whose object is not tracked** against **today's
  filtered-out call**: `--track` with a spec that binds a pointer by type
  and a predicate that never holds, so nothing is ever tracked and each
  call costs the predicate and one lookup in the tracked set, against the
  same predicate without `--track`. Natively on `tp:sys_enter` (the
  `getppid()` loop of table 3b; `struct pt_regs *` bound by type) and in
  the VM on `do_sys_openat2` (table 1's open+close loop, fentry;
  `struct open_how *` bound by type). Target: at most %s× the
  filtered-out call's added cost.
- **Attach time over every function that takes an skb** (6.12):
  whole runs of `ksnoop -v --track s '*(struct sk_buff *s)'` (start to
  "tracing N target(s)", one second of tracing, SIGINT, exited) against
  bpftrace with a kprobe on each of the same functions: the list is read
  from tracefs's `enabled_functions` while an untimed ksnoop run is
  attached (less the kprobe blacklist), and written as one program
  `kprobe:F1,kprobe:F2,... { }`; bpftrace runs a command once it has
  attached (its time is "attached") and detaches when it ends. And
  against pwru `--filter-track-skb` (attached at its "Listening for
  events"), where bench/run could give it (below).

Commands (`ksb-loop` is `bench/loop.c`):
""" % self.TRACK_IDLE_MAX)
        for key in ("tracknat-untraced", "tracknat-filtered", "tracknat-untracked", "vm-track-untraced",
                    "vm-track-filtered", "vm-track-untracked", "vm-track-skb-ksnoop", "vm-track-skb-bpftrace", "vm-track-skb-pwru"):
            if res.cmd(key):
                self.w("- %s: `%s`" % (key.replace("vm-track-", "VM ").replace("tracknat-", "native "),
                                       res.cmd(key)))
        self.w()
        for phase, what in (("tracknat", "the native rows"), ("track", "the VM part")):
            use = cpu_use(res, phase)
            if use:
                disturbed = float(use[0]) > 10 or float(use[1]) > 5
                self.w("%sWhile %s ran, other processes used %s %% of the machine's CPU time "
                       "(steal %s %%)%s" % ("**Disturbed:** " if disturbed else "", what, use[0], use[1],
                                            "; the spread shows it." if disturbed else ": quiet."))
                self.w()
        self.track_cost_table()
        self.track_attach_table()
        self.track_pwru()
        if res.has("track-verbose"):
            self.w("What `ksnoop -v` said of the skb glob (the untimed run):")
            self.w()
            self.w("```")
            for line in res.lines("track-verbose")[:12]:
                self.w(line)
            self.w("```")
            self.w()
        if res.has("track-kernel"):
            self.w("The guest kernel complained during table 8:")
            self.w()
            self.w("```")
            for line in res.lines("track-kernel")[:40]:
                self.w(line)
            self.w("```")
            self.w()

    def track_pwru(self):
        """What became of pwru, the nearest peer of --track over skbs."""
        res = self.res
        pkg = res.m("pwru")
        if res.of("track-attach", "skb-pwru"):
            self.w("pwru (Cilium's skb tracer, the nearest tool to `--track` over skbs) is Debian "
                   "trixie's package (`apt-cache policy pwru`: %s; bookworm has none), "
                   "run with bookworm's libpcap (`libpcap0.8`, the same soname; trixie's needs "
                   "glibc 2.38). `--filter-track-skb` with a pcap filter no packet here matches: "
                   "it attaches to every function of vmlinux that takes an skb and follows the "
                   "skbs its filter matched, as `--track` does." % pkg.removeprefix("deb "))
            self.w()
            if res.has("track-pwru"):
                self.w("What pwru printed while it attached (first run):")
                self.w()
                self.w("```")
                for line in res.lines("track-pwru")[:8]:
                    self.w(line)
                self.w("```")
                self.w()
            return
        if pkg.startswith("deb "):
            where = ("Debian packages it only from trixie on (`apt-cache policy pwru`: %s; "
                     "bookworm has none)" % pkg[4:])
        else:
            where = "Debian does not package it (`apt-cache policy pwru`: no candidate for %s)" % (
                pkg or "bookworm")
        self.w("pwru (Cilium's skb tracer, the nearest tool to `--track` over skbs) is not "
               "measured: %s; trixie's build needs trixie's libpcap (glibc 2.38), which does not "
               "run on this bookworm host that builds the VM's initramfs, and building it from "
               "source needs Go modules that cannot be fetched here.%s"
               % (where, (" This run: %s." % res.m("pwru_why")) if res.m("pwru_why") else ""))
        self.w()

    def track_cost_table(self):
        """(a): an untracked call against a filtered-out one, natively and in the VM."""
        res = self.res
        notes = []
        self.w("| where | variant | ns per call | added ns per call | events printed | ratio (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- | --- |")
        for table, where, fspec, tspec in (
                ("tracknat", "native, `tp:sys_enter`", res.m("filt_spec") or "tp:sys_enter(id == 12345)",
                 "--track r 'tp:sys_enter(struct pt_regs *r, id == 12345)'"),
                ("track", "VM %s, `do_sys_openat2`" % res.m("track_kernel", "trixie"),
                 "do_sys_openat2(dfd == 12345)",
                 "--track h 'do_sys_openat2(struct open_how *h, dfd == 12345)'")):
            if not res.has_table(table):
                continue
            a_f, a_u = med(padd(res, table, "filtered")), med(padd(res, table, "untracked"))
            t = self.target_track_idle(a_u, a_f, padd(res, table, "filtered"))
            rows = (("untraced", "untraced", DASH, DASH),
                    ("filtered", "ksnoop, filtered out (`%s`)" % fspec, DASH, "reference"),
                    ("untracked", "**ksnoop `%s`**, nothing tracked" % tspec,
                     "÷ filtered out: %s" % ratio(a_u, a_f), t))
            for v, label, rt, target in rows:
                st = stat(res, table, v, "ns_per_iter")
                if not st:
                    if res.of(table, v):
                        self.w("| %s | %s | failed: `%s` | | | | %s |"
                               % (where, label, errors_of(res, table, v) or "no result", target))
                    continue
                traced = v != "untraced"
                self.w("| %s | %s | %s | %s | %s | %s | %s |"
                       % (where, label, cell(st, 1), cell(padd(res, table, v), 1) if traced else DASH,
                          intmed(stat(res, table, v, "printed")) if traced else DASH, rt, target))
            self.verdict("`--track`: a call whose object is not tracked ≤ %s× a filtered-out call (%s)"
                         % (self.TRACK_IDLE_MAX, where),
                         "not tracked %s ns; filtered out %s ns" % (sgn(a_u), sgn(a_f)), t)
            if "**missed**" in t:
                notes.append("%s: a call whose object is not tracked costs %s ns more than a "
                             "filtered-out one. That is what `--track` adds to it: the bound "
                             "pointer taken from the call's words and one lookup in `tracked`, an "
                             "LRU hash (`track_call()` in `bpf/ksnoop.bpf.c`), made even while the "
                             "set is empty." % (where, fmt(a_u - a_f, 1)))
        self.w()
        for note in notes:
            self.w(note)
            self.w()

    def target_track_idle(self, a, filt, filt_stats):
        """A call whose object is not tracked: at most TRACK_IDLE_MAX times a
        filtered-out call's added cost."""
        limit = self.TRACK_IDLE_MAX
        if a is None or filt is None:
            return "not measured"
        if filt <= 0 or filt_stats.min <= 0:
            return ("cannot be judged: the filtered-out call's added cost, %s ns, is not above the "
                    "run-to-run noise (not tracked: %s ns)" % (cell(filt_stats, 1), sgn(a)))
        if a <= filt * limit:
            return "≤ %s× filtered out: **met** (%s×)" % (limit, ratio(a, filt))
        return ("≤ %s× filtered out: **missed** (%s×, %s %% over %s×)"
                % (limit, ratio(a, filt), pct_over(a, filt * limit), limit))

    def track_stat(self, variant, key):
        return stats(r.num(key) for r in self.res.of("track-attach", variant)
                     if r.fields.get(key, "") != "")

    def track_attach_table(self):
        """(b): attach time of the skb glob, ksnoop against bpftrace."""
        res = self.res
        if not (res.has_table("track-attach") or res.has_table("track-list")):
            return
        lst = next((r for r in res.of("track-list", "functions") if not r.failed), None)
        one = next((r for r in res.of("track-list", "ksnoop") if not r.failed), None)
        if one:
            self.w("The skb glob on %s: **%s functions** traced (%s programs, %s links, %s targets "
                   "with the free-path tracepoints); ftrace hooked %s functions, and bpftrace was "
                   "given %s of them (those not on the kprobe blacklist)."
                   % (res.m("track_kernel", "trixie"), one.fields.get("funcs", "?"),
                      one.fields.get("programs", "?"), one.fields.get("links", "?"),
                      one.fields.get("targets", "?"),
                      lst.fields.get("hooked", "?") if lst else "?",
                      lst.fields.get("bpftrace_probes", "?") if lst else "?"))
            self.w()
        self.w("| tracer | attached s | tracing s | detach s | whole run s | whole run ÷ bpftrace, ÷ pwru |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        total = {v: med(self.track_stat(v, "total_ms")) for v in ("skb-ksnoop", "skb-bpftrace", "skb-pwru")}
        for v, label in (("skb-ksnoop", "**ksnoop** `--track s '*(struct sk_buff *s)'`"),
                         ("skb-bpftrace", "bpftrace, a `kprobe:` on each of the same functions"),
                         ("skb-pwru", "pwru `--filter-track-skb`, every skb function of vmlinux")):
            st = self.track_stat(v, "total_ms")
            if not st:
                if res.of("track-attach", v):
                    self.w("| %s | failed: `%s` | | | | |" % (label, errors_of(res, "track-attach", v) or "no result"))
                continue
            if v == "skb-bpftrace":
                probes = med(self.track_stat(v, "probes"))
                label += " (%s probes)" % fmt(probes) if probes else ""
            if v == "skb-pwru":
                hooked, ignored = med(self.track_stat(v, "hooked")), med(self.track_stat(v, "ignored"))
                label += " (%s%s ignored)" % ("%s functions hooked, " % fmt(hooked) if hooked else "",
                                              fmt(ignored) if ignored is not None else "?")
            vs = DASH
            if v != "skb-bpftrace":
                vs = "%s, %s" % (ratio(st.median, total["skb-bpftrace"]),
                                 ratio(st.median, total["skb-pwru"]) if v == "skb-ksnoop" else DASH)
            self.w("| %s | %s | %s | %s | %s | %s |"
                   % (label, cell(self.track_stat(v, "attach_ms"), 2, 1000),
                      cell(self.track_stat(v, "trace_ms"), 2, 1000),
                      cell(self.track_stat(v, "detach_ms"), 2, 1000), cell(st, 2, 1000), vs))
        self.w()
        att = {v: med(self.track_stat(v, "attach_ms")) for v in total}

        def secs(v):
            return "%s s attached, %s s whole run" % (
                fmt(att[v] / 1000, 2) if att[v] is not None else "?",
                fmt(total[v] / 1000, 2) if total[v] is not None else "?")
        ka = att["skb-ksnoop"]
        if ka is not None:
            peers = [(name, att[v]) for name, v in (("bpftrace", "skb-bpftrace"), ("pwru", "skb-pwru"))
                     if att[v]]
            self.verdict("`--track s '*(struct sk_buff *s)'`: attach time over every skb function, "
                         "beside bpftrace and pwru (%s, VM; no target)" % res.m("track_kernel", "trixie"),
                         "ksnoop %s; bpftrace %s; pwru %s" % (secs("skb-ksnoop"), secs("skb-bpftrace"),
                                                              secs("skb-pwru")),
                         "; ".join("ksnoop attaches in %s× %s's time" % (ratio(ka, a), name) for name, a in peers)
                         or "no peer measured")

    def track_only(self):
        """Table 8 alone, for splice_track(): its section, its verdicts and
        its raw lines."""
        self.track()
        raw = [r.line for r in self.res.runs if is_track_run(r.table, r.variant)]
        return self.text(), self.verdicts, raw

    def complete_table(self):
        """Shell completion: one `ksnoop __complete` process per kind of word (target < 100 ms)."""
        res = self.res
        kinds = ("option", "function", "tp-category", "argument", "member", "usdt-probe")
        self.w("Shell completion, natively: one `ksnoop __complete WORD...` process per <Tab> "
               "(what `completions/ksnoop.bash` runs), one word of each kind, interleaved "
               "(the target: each under 100 ms):")
        self.w()
        self.commands((v, "complete-" + v) for v in kinds if res.cmd("complete-" + v))
        self.w()
        self.w("| word | wall ms | candidates | target |")
        self.w("| --- | --- | --- | --- |")
        worst = None
        for v in kinds:
            st = stat(res, "complete", v, "wall_us")
            if not st:
                if res.of("complete", v):
                    self.w("| %s | failed: `%s` | | |" % (v, errors_of(res, "complete", v) or "no result"))
                    worst = float("inf")
                continue
            worst = max(worst or 0, st.median)
            met = "met" if st.median < 100000 else "missed"
            self.w("| %s | %s | %s | < 100 ms: **%s** |"
                   % (v, cell(st, 1, 1000), fmt(med(stat(res, "complete", v, "lines"))), met))
        self.w()
        t = ("not measured" if worst is None else
             "< 100 ms: **%s**" % ("met" if worst < 100000 else "missed"))
        self.verdict("each `ksnoop __complete` < 100 ms (native)",
                     "slowest median %s ms" % (fmt((worst or 0) / 1000, 1) if worst != float("inf") else "failed"), t)

    # ---- tracers that did not exit, guest kernel trouble

    # ---- table 9: arm64

    ARM64_HEADING = "## 9. arm64: kernel-function cost per call (arm64 VM)"

    def arm64(self):
        """Table 9: table 1's kprobe rows in the arm64 VM (PARTS=arm64)."""
        res = self.res
        m = res.m
        if not res.has_table("arm64"):
            if m("arm64_rc", "skipped") not in ("skipped", "0", ""):
                self.w(self.ARM64_HEADING)
                self.w()
                self.w("Not measured: %s." % m("arm64_rc"))
                self.w()
            return
        self.w(self.ARM64_HEADING)
        self.w()
        if m("only") == "arm64":
            elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
            self.w(f"""Measured on its own by `bench/run --only-arm64` ({m("run_date")}, {elapsed:.1f}
minutes, {m("vm_rounds")} rounds{", --quick sizes" if m("quick") == "1" else ""}; tree at commit {m("commit")}),
not in the run the header describes.
""")
        info = (res.lines("arm64-info") or [""])[0].split()
        bt_ver = info[3].replace("_", " ") if len(info) > 3 else "?"
        guest = re.sub(r" ncpu.*", "", re.sub(r"^kernel ", "", m("arm64_info") or "6.1 arm64 cloud kernel"))
        tcg = ("a host thread per vCPU (`thread=multi`), as table 1" if m("arm64_tcg", "multi") == "multi"
               else "both vCPUs in one host thread (`thread=single`)")
        self.w(f"""Table 1's kprobe rows on the second architecture: Debian bookworm's
arm64 cloud kernel ({guest}) under `qemu-system-aarch64 -M virt -cpu max`,
software emulation of another instruction set (TCG, {tcg};
`tests/vm/run --arch arm64`, {m("arm64_boot") or "boot time not recorded"}). Everything in the guest is
arm64's: ksnoop cross-built by `make ARCH=arm64` (`{m("arm64_ksnoop")}`, sha256
{m("arm64_ks_sha")}), `ksb-loop` by `aarch64-linux-gnu-gcc -static`, and Debian's
arm64 bpftrace ({bt_ver}) and bash, fetched with `apt-get download` through the
arm64 VM's private apt configuration with the libraries their ELF headers
name (`readelf -d`: `ldd` cannot run an arm64 program here), put in the guest
with `--bin` and `--file`. What that was: {m("arm64_peers") or "not fetched"}.
The 6.1 arm64 kernel has no BPF
trampolines (fentry is refused), so both tracers attach kprobes. Emulating
aarch64 on x86-64 inflates every absolute number far more than table 1's
VM: **compare the ratios only**. The same loop as table 1
(`ksb-loop open {m("open_n")}`), tracers on CPU 0, the loop on CPU 1,
output on `/dev/null`, every traced run after an untraced run.

Commands (in the arm64 VM):
""")
        for v in ("untraced", "ksnoop-kprobe", "ksnoop-filtered-kprobe", "bpftrace-kprobe", "bare-kprobe"):
            if res.cmd("vm-arm64-" + v):
                self.w("- %s: `%s`" % (v, res.cmd("vm-arm64-" + v)))
        self.w()
        self.disturbance("arm64")

        def added(v):
            return med(padd(res, "arm64", v))

        a_ks, a_bt = added("ksnoop-kprobe"), added("bpftrace-kprobe")
        a_filt, a_bare = added("ksnoop-filtered-kprobe"), added("bare-kprobe")
        t_ks = self.target_arm64(a_ks, a_bt)
        groups = self.arm64_groups()
        if groups and a_ks is not None and (a_ks < stats(groups[0]).median) != (a_ks < a_bt):
            t_ks = ("unsettled: %s; in bpftrace's %d cheap rounds ksnoop is %s× (below the table)"
                    % (t_ks, len(groups[0]), ratio(a_ks, stats(groups[0]).median)))
        t_filt = self.target_filter(a_filt, a_bare, padd(res, "arm64", "bare-kprobe"))
        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost | ratio (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        rows = (("untraced", "untraced `open`+`close` loop", DASH, DASH),
                ("ksnoop-kprobe", "**ksnoop**, kprobe/kretprobe (`%s`)" % "do_sys_openat2(filename, return)",
                 "÷ bpftrace: %s" % ratio(a_ks, a_bt), t_ks),
                ("bpftrace-kprobe", "bpftrace, kprobe/kretprobe, the same values", DASH, "reference"),
                ("ksnoop-filtered-kprobe", "ksnoop, filtered out (`do_sys_openat2(dfd == 12345)`)",
                 "÷ bare kprobe: %s" % ratio(a_filt, a_bare), t_filt),
                ("bare-kprobe", "bare kprobe (bpftrace `kprobe {}`)", DASH, "reference"))
        for v, label, rt, target in rows:
            st = stat(res, "arm64", v, "ns_per_iter")
            if not st:
                if res.of("arm64", v):
                    self.w("| %s | failed: `%s` | | | | %s |"
                           % (label, errors_of(res, "arm64", v) or "no result", target))
                continue
            pl = DASH
            if v.startswith("ksnoop"):
                pl = "%s / %s" % (intmed(stat(res, "arm64", v, "printed")), intmed(stat(res, "arm64", v, "lost")))
            self.w("| %s | %s | %s | %s | %s | %s |"
                   % (label, cell(st), DASH if v == "untraced" else cell(padd(res, "arm64", v)), pl, rt, target))
        self.w()
        if a_ks is not None and a_bt is not None and a_bt > 0:
            k_ks, k_bt = med(padd(res, "kfunc", "ksnoop-kprobe")), med(padd(res, "kfunc", "bpftrace-kprobe"))
            x86 = (" Table 1 (x86-64, same loop and specs) has %s× for the same pair."
                   % ratio(k_ks, k_bt)) if k_ks is not None and k_bt else ""
            self.w("On arm64, ksnoop's traced call adds %s× what bpftrace's adds (kprobe and kretprobe "
                   "both, the same values printed).%s" % (ratio(a_ks, a_bt), x86))
            self.w()
        self.arm64_split(a_ks)
        self.loss_note("arm64", ("ksnoop-kprobe", "ksnoop-filtered-kprobe"))
        self.verdict("traced call < bpftrace (kprobe, arm64 VM)",
                     "ksnoop %s ns; bpftrace kprobe %s ns" % (sgn(a_ks), sgn(a_bt)), t_ks)
        self.verdict("filtered-out call ≤ 1.2× a bare kprobe (arm64 VM)",
                     "filtered out %s ns; bare kprobe %s ns" % (sgn(a_filt), sgn(a_bare)), t_filt)

    def arm64_groups(self):
        """bpftrace's added costs per round in two groups, (cheap, dear),
        when some rounds are above 3× its cheapest; else None."""
        added = sorted(r.num("ns_per_iter") - r.num("base") for r in self.res.of("arm64", "bpftrace-kprobe")
                       if not r.failed)
        if len(added) < 2 or added[0] <= 0 or added[-1] <= 3 * added[0]:
            return None
        low = [x for x in added if x <= 3 * added[0]]
        return low, added[len(low):]

    def arm64_split(self, a_ks):
        """The two groups of arm64_groups(), said with the ratio to each:
        a median over such rounds hides it."""
        groups = self.arm64_groups()
        if groups is None or a_ks is None:
            return
        low, high = groups
        added = low + high
        self.w("bpftrace's rounds fall into two groups: %d of %d added %s–%s ns per call (ksnoop's "
               "median is %s× their median), %d added %s–%s ns (%s×). The ratio above is the median "
               "over all rounds. Likely reason, not measured apart here: bpftrace's perf buffer "
               "wakes its reader for every event, an inter-processor interrupt to the other vCPU "
               "each time, whose cost under multi-threaded TCG depends on when the host runs that "
               "vCPU's thread (the machine was busy, see above); ksnoop's ring buffer wakes its "
               "reader once per sixteenth of the buffer or 10 ms (table 1's reading notes)."
               % (len(low), len(added), fmt(low[0]), fmt(low[-1]), ratio(a_ks, stats(low).median),
                  len(high), fmt(high[0]), fmt(high[-1]), ratio(a_ks, stats(high).median)))
        self.w()

    @staticmethod
    def target_arm64(a, bt):
        """arm64's traced call: less than bpftrace's (table 1's second half)."""
        if a is None or bt is None:
            return "not measured"
        if a < bt:
            return "< bpftrace: **met** (%s×)" % ratio(a, bt)
        return "< bpftrace: **missed** (%s×, %s %% over)" % (ratio(a, bt), pct_over(a, bt))

    def arm64_only(self):
        """Table 9 alone, for splice_arm64(): its section, its verdicts and
        its raw lines."""
        self.arm64()
        raw = [r.line for r in self.res.runs if is_arm64_run(r.table, r.variant)]
        return self.text(), self.verdicts, raw

    def trouble(self):
        res = self.res
        killed = ["%s %s (round %s)" % ("native" if r.table in ("startup-tp", "startup-attach") else "VM",
                                        r.variant, r.round)
                  for r in res.runs if r.table.startswith("startup-") and r.fields.get("killed", "").startswith("1")]
        if killed:
            self.w("**A tracer did not exit within 60 s of SIGINT** and was killed: %s." % "; ".join(killed))
            if res.has("hangs"):
                self.w("Where its threads were just before (state, wait channel, top of the kernel stack):")
                self.w()
                self.w("```")
                for line in res.lines("hangs")[:20]:
                    self.w(cut(line, 300))
                self.w("```")
            self.w()
        vm_rc = res.m("vm_rc", "0")
        vm_failed = vm_rc not in ("0", "skipped", "")
        if not (res.has("kernel") or vm_failed):
            return
        self.w("### The VM run did not go cleanly")
        self.w()
        if vm_failed:
            self.w("`tests/vm/run` ended with status %s (a script failed or the VM timed out); "
                   "tables 1 and 5 hold what was reported before that." % vm_rc)
        self.w()
        if res.has("kernel"):
            self.w("The guest kernel (Debian's stock 6.1 under TCG) reported trouble; its first lines:")
            self.w()
            self.w("```")
            for line in res.lines("kernel")[:60]:
                self.w(line)
            self.w("```")
            self.w()
        if res.has("waits"):
            self.w("Before some start-up runs an earlier tracer was still exiting: %d time(s)."
                   % len(res.lines("waits")))
            self.w()

    # ---- summary of targets

    def targets(self):
        self.w("## Targets at a glance")
        self.w()
        self.w("| target | measured (added ns are medians) | verdict |")
        self.w("| --- | --- | --- |")
        for line in self.verdicts:
            self.w(line)
        self.w()

    # ---- profiles

    def profiles(self):
        res = self.res
        if not any(res.has("prof." + p) for p in ("startup", "small", "large")):
            return
        self.w("""## Where ksnoop's time goes (perf, this run)

`perf record --call-graph dwarf` on the ksnoop process: the share of its
samples spent in each user-space function and everything it calls
("children"), then in the function itself ("self"). The consumer profiles
attach to ksnoop after it has started, so they hold only the printing.
""")
        titles = (
            ("filt", "A filtered-out tracepoint call (`ksnoop '%s'`): `perf record -C 1` on the "
                     "workload's CPU, kernel and user symbols by self time:" % res.m("filt_spec")),
            ("startup", "Start-up, `ksnoop -p PID 'tp:sys_enter(id)'` until its first event:"),
            ("small", "Printing small events (text, `tp:sys_enter(id)`), %s events:" % fmt(res.mnum("drain_n"))),
            ("large", "Printing large struct events (text, `tp:sys_enter(regs)`), a 2-second flood:"),
        )
        for name, title in titles:
            if not res.has("prof." + name):
                continue
            self.w(title)
            self.w()
            self.w("```")
            for line in res.lines("prof." + name)[:16]:
                self.w(line.lstrip(" "))
            self.w("```")
            self.w()

    # ---- findings: each shown only while this run's evidence holds

    def share(self, profile, symbol):
        """A symbol's "children" percentage in a perf listing, as printed, or "0"."""
        for line in self.res.lines(profile):
            words = line.split()
            if len(words) >= 4 and words[3] == symbol:
                return words[0].replace("%", "", 1)
        return "0"

    def finding(self, text):
        self.findings += 1
        self.w("%d. %s" % (self.findings, text))

    def findings_part(self):
        res = self.res
        sh_btfdump = self.share("prof.large", "btf_dump__new")
        sh_ksyms = self.share("prof.startup", "ksyms__load")
        sh_findbtf = self.share("prof.startup", "libbpf_find_kernel_btf")
        tl = med(derived(res, "tput-max", "text-large", self.printed_per_s))
        jl = med(derived(res, "tput-max", "json-large", self.printed_per_s))
        un = med(derived(res, "tput-max", "text-large", self.unaccounted))
        self.w("""## Findings

Found with this benchmark and the profiles above; each names the code and
the evidence from this run. bench/ only measures: none is fixed here.
""")
        if float(sh_btfdump) >= 20 or (tl is not None and jl is not None and tl * 20 < jl):
            ms = "%.2f" % (1000 / tl) if tl and tl > 0 else "?"
            self.finding(f"""**Text output of a struct behind a pointer rebuilds a BTF dumper for
   every event.** `ksnoop/output/print.c`, `printer__value()`, case `PRINT_DEREF`,
   calls `btfu_type_str()` (`ksnoop/lib/btf_util.c`) per event to spell the type
   in `regs = 0x... -> (struct pt_regs){{`; that creates and frees a whole
   `btf_dump` over vmlinux BTF (libbpf 1.1's `btf_dump__new()` walks every
   type of the kernel's BTF) to print the same constant string. Evidence:
   `btf_dump__new` is {sh_btfdump} % of the consumer's samples in the
   large-text profile; text prints {fmt(tl)} large events/s against
   {fmt(jl)}/s for JSON of the same events (table 4), i.e. about
   {ms} ms per event. The string depends only on the plan:
   compute it once when resolving (e.g. keep it in `struct value_desc`).
""")
        if un is not None and un > 1000:
            stopped = ""
            sp = intmed(stat(res, "kfunc", "ksnoop-fentry-stopped", "printed"))
            if sp != "?":
                stopped = ("\n   Also table 1, \"reader stopped\": of the %s records of a run (two per\n"
                           "   call), %s were printed and 0 reported lost." % (fmt(2 * res.mnum("open_n")), sp))
            self.finding(f"""**Events still in the ring buffer at exit are neither printed nor
   counted as lost.** `ksnoop/cmd/cmd_trace.c`, `run_loop()`: after SIGINT the
   final `ring_buffer__consume()` ends at the first clock check in
   `handle_event()` after 100 ms (it returns `-EAGAIN`), and the rest of
   the buffer is dropped without a word, so the summary
   `N events printed, M lost` undercounts. Evidence: table 4, text-large,
   live max: {fmt(un)} offered events are *unaccounted* (≈ one full 8 MiB
   buffer of 240-byte records); for the runs that keep up the count is 0.{stopped}
   Stopping promptly under a flood is fine; the summary should then count
   what it discarded.
""")
        if float(sh_ksyms) >= 10:
            self.finding(f"""**Start-up reads and sorts all of `/proc/kallsyms`, even for
   tracepoints.** `ksnoop/kernel/kernel.c`, `kernel__open()` always loads it;
   `ksnoop/kernel/ksyms.c`, `ksyms__load()` reads every line through the kernel's
   kallsyms seq_file, `malloc()`s every text symbol and `qsort()`s them by
   name, to look up a handful of functions. Evidence: `ksyms__load` is
   {sh_ksyms} % of ksnoop's samples in the start-up profile of a `tp:` spec,
   which needs no kernel symbol at all; start-up is {fmt(self.s_ks, 1)} ms against
   the 100 ms target (table 5). Loading kallsyms only for kernel-function
   specs, and then scanning it once for the wanted names instead of sorting,
   removes most of it.
""")
        if float(sh_findbtf) >= 2:
            self.finding(f"""**Each traced target makes libbpf parse vmlinux BTF again.**
   `ksnoop/attach/attach.c`, `attacher__add()` → `bpf_program__set_attach_target()`:
   libbpf 1.1 loads `/sys/kernel/btf/vmlinux` (`libbpf_find_kernel_btf`,
   {sh_findbtf} % of start-up samples here, for one target) for every skeleton
   instance, although ksnoop already holds that BTF; start-up grows with the
   number of specs. Resolving the BTF id once and passing it (or reusing one
   loaded `struct btf`) avoids it.
""")
        if self.filter_missed():
            self.finding(f"""**A filtered-out call costs {ratio(self.f_ks, self.f_b)}× a bare probe** (table 3b: +{fmt(self.f_ks - self.f_b)} ns per
   call on this machine). `bpf/ksnoop.bpf.c`: `capture()` runs
   `task_selected()` (a `bpf_get_current_pid_tgid()` call even with no
   filter), zeroes the argument array and stash key, and `tp_words()` reads
   each used argument with `bpf_probe_read_kernel()`, all before the
   predicate; the perf profile of such calls (above) shows the helper and
   the probe read next to the program itself.
""")
        if self.findings == 0:
            self.w("None in this run.")
            self.w()
        if self.kfunc_notes:
            self.w("""How the peers deliver events matters for table 1: bpftrace prints through
`perf_event_output()` into per-CPU perf buffers and is woken for every event;
ksnoop's BPF ring buffer wakes the reader once per sixteenth of the buffer
written, or when it last did 10 ms ago or more. bcc's
ksnoop formats nothing in BPF either, but uses a per-CPU perf buffer and
`fflush()`es stdout after every event (one `write()` each).
""")

    def raw(self):
        self.w()
        self.w("## Raw results")
        self.w()
        self.w("<details><summary>every round, as recorded (TABLE VARIANT ROUND key=value...)</summary>")
        self.w()
        self.w("```")
        for run in self.res.runs:
            self.w(run.line)
        self.w("```")
        self.w()
        self.w("</details>")


def is_tree_run(table, variant):
    """A raw result of table 7 (its runs, its shape, its CPU phases)."""
    return table in ("tree", "tree-shape") or (table == "cpu" and variant in ("setup3", "tree"))


def is_track_run(table, variant):
    """A raw result of table 8 (its runs, its function list, its CPU phases)."""
    return (table in ("track", "track-attach", "track-list", "tracknat")
            or (table == "cpu" and variant in ("setup4", "track", "setup5", "tracknat")))


def splice_track(old, section, verdicts, raw):
    """The report OLD with table 8 replaced by SECTION (inserted before
    "Targets at a glance" if it had none), its "`--track`" rows of the
    targets replaced by VERDICTS and its raw results by RAW."""
    return splice_part(old, Report.TRACK_HEADING, lambda x: x.startswith("| `--track"), is_track_run,
                       section, verdicts, raw)


def splice_tree(old, section, verdicts, raw):
    """The report OLD with table 7 replaced by SECTION (inserted before
    "Targets at a glance" if it had none), its "`--tree`" rows of the
    targets replaced by VERDICTS and its raw results by RAW."""
    return splice_part(old, Report.TREE_HEADING, lambda x: x.startswith("| `--tree`"), is_tree_run,
                       section, verdicts, raw)


def splice_part(old, heading, is_verdict, is_run, section, verdicts, raw,
                before=("## Targets at a glance", "## Raw results")):
    """The report OLD with the part under HEADING replaced by SECTION
    (inserted before "Targets at a glance" if it had none), its rows of the
    targets that start with VERDICT_PREFIX replaced by VERDICTS, and its raw
    results that IS_RUN(table, variant) selects by RAW."""
    lines = old.split("\n")

    def find(prefix, start=0):
        return next((i for i in range(start, len(lines)) if lines[i].startswith(prefix)), None)

    begin = find(heading)
    if begin is None:
        begin = end = next((i for i in map(find, before) if i is not None), len(lines))
    else:
        end = find("## ", begin + 1) or len(lines)
    lines[begin:end] = section.rstrip("\n").split("\n") + [""]
    at = find("## Targets at a glance")
    if at is not None:
        lines = [x for i, x in enumerate(lines) if i <= at or not is_verdict(x)]
        last = at
        for i in range(at + 1, len(lines)):
            if lines[i].startswith("|"):
                last = i
            elif last > at:
                break
        lines[last + 1:last + 1] = verdicts
    at = find("## Raw results")
    if at is not None:
        start = find("```", at)
        stop = find("```", start + 1) if start is not None else None
        if stop is not None:
            kept = [x for x in lines[start + 1:stop]
                    if len(x.split()) < 2 or not is_run(*x.split()[:2])]
            lines[start + 1:stop] = kept + raw
    return "\n".join(lines)


def is_arm64_run(table, variant):
    """A raw result of table 9 (its runs, its CPU phases)."""
    return table == "arm64" or (table == "cpu" and variant in ("setup-arm64", "arm64"))


ARM64_VERDICTS = ("(kprobe, arm64 VM)", "(arm64 VM)")


def ends_with(marks):
    """A target row whose first cell ends in one of MARKS."""
    return lambda x: x.startswith("|") and x.split(" | ")[0].endswith(marks)


def splice_arm64(old, section, verdicts, raw):
    """The report OLD with table 9 replaced by SECTION (inserted before
    "Targets at a glance" if it had none), its arm64 rows of the targets
    (those ending in "(arm64 VM)") replaced by VERDICTS and its raw
    results by RAW."""
    return splice_part(old, Report.ARM64_HEADING, ends_with(ARM64_VERDICTS), is_arm64_run,
                       section, verdicts, raw)


def is_record_run(table, variant):
    """A raw result of table 4b (its runs, its CPU phases)."""
    return table == "record" or (table == "cpu" and variant in ("setup-record", "record"))


def splice_record(old, section, verdicts, raw):
    """The report OLD with table 4b replaced by SECTION (inserted before
    table 5, or "Targets at a glance", if it had none), its rows of the
    targets (those ending in Report.RECORD_MARK) replaced by VERDICTS and
    its raw results by RAW."""
    return splice_part(old, Report.RECORD_HEADING, ends_with(Report.RECORD_MARK), is_record_run,
                       section, verdicts, raw,
                       before=("## 5. ", "## Targets at a glance", "## Raw results"))


def write_report(data, out):
    """Write the report of DATA (BenchData) to the file OUT; data of
    bench/run --only-tree replaces table 7 of an existing OUT in place,
    --only-arm64 table 9, --only-record table 4b."""
    if data.meta.get("only") == "tree" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_tree(f.read(), *Report(Results(data)).tree_only())
    elif data.meta.get("only") == "arm64" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_arm64(f.read(), *Report(Results(data)).arm64_only())
    elif data.meta.get("only") == "track" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_track(f.read(), *Report(Results(data)).track_only())
    elif data.meta.get("only") == "record" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_record(f.read(), *Report(Results(data)).recording_only())
    else:
        text = Report(Results(data)).write()
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(out + ".tmp", out)


def main():
    parser = argparse.ArgumentParser(description="Write docs/PERFORMANCE.md from bench/run's raw results.")
    parser.add_argument("workdir", help="the directory bench/run measured into (--keep keeps it)")
    parser.add_argument("--out", default="docs/PERFORMANCE.md", help="the report (default: %(default)s)")
    args = parser.parse_args()
    data = BenchData.load(args.workdir)
    if data is None:
        sys.exit("bench/report.py: %s has no %s (a directory kept by bench/run --keep?)"
                 % (args.workdir, BenchData.FILE))
    write_report(data, args.out)


if __name__ == "__main__":
    main()
