#!/usr/bin/env python3
"""Check a Chrome trace-event JSON document (ksnoop report --format=perfetto).

    trace_events.py TRACE.json [--events EVENTS.ndjson]

Exit 0 when TRACE.json keeps the format's rules, 1 (each broken rule a
line on stderr) when it does not.  The rules, as Perfetto's importer and
chrome://tracing read the format:

- one JSON object with a "traceEvents" list and "displayTimeUnit";
- every event has a name, a known phase, integer pid and tid, and a
  numeric ts (but "M");
- every thread an event is on was named ("M" thread_name) before, and
  its process ("M" process_name);
- on each track (pid, tid), "B" and "E" pair in LIFO order, the "E"
  naming the slice it ends, and nothing is left open at the end;
- on each track the timestamps of B, E, i and flow events never go
  back in the file's order; an "X" is written when it ends, so its end
  never goes back;
- the slices of a track (B/E pairs and X) nest by time: one that starts
  inside another ends inside it;
- a flow ("s", "t", "f") begins once, steps and ends with the same name,
  and nothing follows its end.

With --events (ksnoop report -j of the same recording, same options):
every "event" record there is one trace event on its thread's track
(B, E, X or i) of the same name, pid, tid and time (ts * 1000 ==
time_ns; an X by its end), and there is no other: counts and names.
A --tree event's calls (its "calls", at every depth, without a time of
their own) are each one trace event marked "ksnoop":{"tree":"call"} (E
or i) on the root's track, by name; the B that opens a tree's slice
(marked "tree", no record of its own) is no event of -j.

Several recordings merged (otherData "hosts": each one's "host" and
"pid_base", and "clock_offset_ns"): a track's pid and tid lie in one
host's space (the largest pid_base at or below them; each event's
"ksnoop" args name that host), and, with --events, a -j event's host,
pid, tid and wall_ns are its trace event's host, pid and tid less the
host's pid_base, and ts * 1000 + clock_offset_ns.
Python 3, standard library only.
"""
import collections
import decimal
import json
import sys

PHASES = set("BEXiIMstf")
errors = []


def err(msg):
    errors.append(msg)


def ns(v):
    """A ts (microseconds, parsed as Decimal) in ns, exact."""
    return int(decimal.Decimal(v) * 1000)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f, parse_float=decimal.Decimal)
    except (OSError, ValueError) as e:
        err(f"not valid JSON: {e}")
        return None
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        err("not an object with a traceEvents list")
        return None
    if doc.get("displayTimeUnit") not in ("ms", "ns"):
        err("displayTimeUnit is not 'ms' or 'ns'")
    return doc


class Hosts:
    """A merged document's hosts (otherData "hosts"), or one recording's none."""

    def __init__(self, doc):
        other = doc.get("otherData") if isinstance(doc.get("otherData"), dict) else {}
        hosts = other.get("hosts")
        self.merged = isinstance(hosts, list)
        self.offset = int(other.get("clock_offset_ns", 0)) if self.merged else 0
        self.bases = sorted((h["pid_base"], h["host"]) for h in hosts) if self.merged else []
        if self.merged and len({b for b, _ in self.bases}) != len(self.bases):
            err("otherData hosts: two hosts share a pid_base")

    def of(self, pid):
        """(host, pid_base) of a pid or tid as written; (None, 0) for one recording."""
        found = (None, 0)
        for base, name in self.bases:
            if base <= pid:
                found = (name, base)
        return found

    def key(self, e):
        """A trace event's (host, pid, tid) as recorded."""
        host, base = self.of(e["pid"])
        return host, e["pid"] - base, e["tid"] - base


def well_formed(i, e):
    if not isinstance(e, dict):
        err(f"event {i}: not an object")
        return False
    ok = isinstance(e.get("name"), str) and e.get("ph") in PHASES
    ok = ok and all(isinstance(e.get(k), int) and not isinstance(e.get(k), bool)
                    for k in ("pid", "tid"))
    if ok and e["ph"] != "M":
        ok = isinstance(e.get("ts"), (int, decimal.Decimal)) and e["ts"] >= 0
    if ok and e["ph"] == "X":
        ok = isinstance(e.get("dur"), (int, decimal.Decimal)) and e["dur"] >= 0
    if not ok:
        err(f"event {i}: name, ph, pid, tid or ts missing or wrong: {e}")
    return ok


def unfinished(e):
    a = e.get("args")
    return isinstance(a, dict) and isinstance(a.get("ksnoop"), dict) and "unfinished" in a["ksnoop"]


def nesting(track, slices):
    """Slices [(start, end, name)] of one track nest by time."""
    stack = []
    for s, t, name in sorted(slices, key=lambda x: (x[0], -x[1])):
        while stack and stack[-1][1] <= s:
            stack.pop()
        if stack and t > stack[-1][1]:
            err(f"track {track}: slice {name} [{s}, {t}] ns overlaps "
                f"{stack[-1][2]} [{stack[-1][0]}, {stack[-1][1]}] without nesting")
        stack.append((s, t, name))


def host_of_track(i, e, hosts):
    """A merged document's event: its pid and tid one host's, and its args say that host."""
    host = hosts.of(e["pid"])[0]
    if host is None or hosts.of(e["tid"])[0] != host:
        err(f"event {i}: pid {e['pid']} and tid {e['tid']} are not of one host's tracks")
        return
    a = e.get("args")
    k = a.get("ksnoop") if isinstance(a, dict) else None
    if e["ph"] == "M" and e["name"] == "process_name":
        if not str((a or {}).get("name", "")).startswith(host + ": "):
            err(f"event {i}: process {e['pid']} of host {host} named {(a or {}).get('name')}")
    elif isinstance(k, dict) and "host" in k and k["host"] != host:
        err(f"event {i}: on host {host}'s track, its args say host {k['host']}")
    elif e["ph"] in "BEXi" and e.get("cat") != "cpu" and not (isinstance(k, dict) and "host" in k):
        err(f"event {i}: on host {host}'s track without its host in args")


def check(events, hosts):
    threads, procs = set(), set()
    open_ = collections.defaultdict(list)
    last = {}
    slices = collections.defaultdict(list)
    flows = {}
    for i, e in enumerate(events):
        if not well_formed(i, e):
            continue
        track, ph = (e["pid"], e["tid"]), e["ph"]
        if hosts.merged:
            host_of_track(i, e, hosts)
        if ph == "M":
            name = (e.get("args") or {}).get("name")
            if not isinstance(name, str) or not name:
                err(f"event {i}: {e['name']} without args.name")
            if e["name"] == "thread_name":
                threads.add(track)
            elif e["name"] == "process_name":
                procs.add(e["pid"])
            continue
        if track not in threads:
            err(f"event {i}: thread {track} not named by an M thread_name event before")
        if e["pid"] not in procs:
            err(f"event {i}: process {e['pid']} not named by an M process_name event before")
        t = ns(e["ts"])
        when = t + ns(e["dur"]) if ph == "X" else t
        if when < last.get(track, 0):
            err(f"event {i}: time {when} ns goes back on track {track} (was {last[track]})")
        last[track] = max(when, last.get(track, 0))
        if ph == "B":
            open_[track].append((t, e["name"], e.get("cat")))
        elif ph == "E":
            if not open_[track]:
                err(f"event {i}: E of {e['name']} on track {track} closes nothing")
            else:
                s, name, cat = open_[track].pop()
                if name != e["name"] or cat != e.get("cat"):
                    err(f"event {i}: E of {e['name']} on track {track} closes {name} (not LIFO)")
                slices[track].append((s, t, name))
        elif ph == "X":
            slices[track].append((t, when, e["name"]))
        elif ph in "stf":
            key = (e.get("id"), e.get("cat"))
            state = flows.get(key)
            if ph == "s" and state is not None:
                err(f"event {i}: flow {key} begins twice")
            elif ph != "s" and (state is None or state[1]):
                err(f"event {i}: flow {key} step or end without an open flow")
            elif ph != "s" and state[0] != e["name"]:
                err(f"event {i}: flow {key} named {e['name']}, began as {state[0]}")
            flows[key] = (e["name"], ph == "f")
    for track, st in open_.items():
        for s, name, _ in st:
            err(f"track {track}: B of {name} at {s} ns never closed")
    for track, sl in slices.items():
        nesting(track, sl)


def tree_role(e):
    """A --tree trace event's "tree" mark (root, call), or None."""
    a = e.get("args")
    k = a.get("ksnoop") if isinstance(a, dict) else None
    return k.get("tree") if isinstance(k, dict) else None


def tree_calls(want, r, calls):
    """A -j tree event's calls, at every depth, counted by name on its track."""
    for c in calls if isinstance(calls, list) else []:
        want[(c["func"], r.get("host"), r["pid"], r["tid"], "call")] += 1
        tree_calls(want, r, c.get("calls"))


def compare(events, path, hosts):
    """Every -j event is one trace event on its thread's track, and no more."""
    want = collections.Counter()
    with open(path, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r.get("type") == "event":
                t = r["wall_ns"] - hosts.offset if hosts.merged else r["time_ns"]
                want[(r["func"], r.get("host"), r["pid"], r["tid"], t)] += 1
                tree_calls(want, r, r.get("calls"))
    have = collections.Counter()
    for e in events:
        if not isinstance(e, dict) or e.get("ph") not in ("B", "E", "X", "i") or \
           e.get("cat") in ("cpu", "object") or unfinished(e):
            continue
        role = tree_role(e)
        if e["ph"] == "B" and role:
            continue
        try:
            t = ns(e["ts"]) + (ns(e["dur"]) if e["ph"] == "X" else 0)
            have[(e["name"], *hosts.key(e), "call" if role == "call" else t)] += 1
        except (KeyError, TypeError, decimal.InvalidOperation):
            continue
    for k in sorted(set(want) | set(have), key=str):
        if want[k] != have[k]:
            err(f"-j has {want[k]} event(s) {k}, the trace {have[k]}")
    if sum(want.values()) != sum(have.values()):
        err(f"-j has {sum(want.values())} events, the trace {sum(have.values())}")


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--events"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    doc = load(argv[1])
    if doc is not None:
        hosts = Hosts(doc)
        check(doc["traceEvents"], hosts)
        if len(argv) == 4:
            compare(doc["traceEvents"], argv[3], hosts)
    for m in errors[:20]:
        print(f"trace_events: {m}", file=sys.stderr)
    if len(errors) > 20:
        print(f"trace_events: ... {len(errors) - 20} more", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
