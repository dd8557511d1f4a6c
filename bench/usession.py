#!/usr/bin/env python3
"""User functions: uprobe.session's slots against the stash, one run, native.

    bench/usession.py [--rounds R] [--calls N] [--ksnoop PATH]

Not part of bench/run: it prints the rows of docs/PERFORMANCE.md's table
11b (markdown) and the machine's load before and after.  As root, on a
kernel with uprobe.session (6.13 on).

`ksb-loop ufunc N` (bench/loop.c built with -g: ksb_ufunc(long seq, int
tag), typed from its DWARF) untraced, then traced by ksnoop with an entry
value reported with the return (the entry record waits for the return):

  kept       'u:BIN:ksb_ufunc(seq, return >= 0)': every call printed, its
             seq with its return
  filtered   'u:BIN:ksb_ufunc(seq < 0, seq, return >= 0)': no call kept
             (seq counts up from 0), each one's entry run and left

each through uprobe.session (the default where the kernel has it) and
through the stash (KSNOOP_FEATURES=-uprobe_session: a uprobe and a
uretprobe, the hash map).  Every round runs the four variants in an order
rotated by one; each traced run's added cost is against the untraced run
just before it; the ratio session / stash is taken round by round (the two
runs of one spec in one round) and its median reported.  Tracer on CPU 0,
the loop on CPU 1.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from proc import stats_on  # noqa: E402
from ufunc import READY_TIMEOUT, Tracer, loop_ns, med  # noqa: E402

SPECS = {
    "kept": "u:{bin}:ksb_ufunc(seq, return >= 0)",
    "filtered": "u:{bin}:ksb_ufunc(seq < 0, seq, return >= 0)",
}


def prog_ids(pid):
    """The ids of the BPF programs process PID holds (its fds' fdinfo)."""
    ids = set()
    for fd in os.listdir(f"/proc/{pid}/fdinfo"):
        try:
            with open(f"/proc/{pid}/fdinfo/{fd}") as f:
                ids.update(int(l.split()[1]) for l in f if l.startswith("prog_id:"))
        except OSError:
            pass
    return ids


def bpf_ns(pid):
    """The run time of the programs process PID holds, in ns (bpftool)."""
    ids = prog_ids(pid)
    progs = json.loads(subprocess.run(["bpftool", "-j", "prog", "show"], check=True,
                                      capture_output=True, text=True).stdout)
    return sum(p.get("run_time_ns", 0) for p in progs if p.get("id") in ids)


PATHS = {
    "session": "uprobe.session cookies",
    "stash": "in the stash (a hash map)",
}


def run_variant(a, work, loop, spec, path):
    env = dict(os.environ)
    env.pop("KSNOOP_FEATURES", None)
    if path == "stash":
        env["KSNOOP_FEATURES"] = "-uprobe_session"
    base = loop_ns(loop, a.calls)
    t = Tracer(work, f"{spec}-{path}", [a.ksnoop, "-v", SPECS[spec].format(bin=loop)],
               ["tracing"], env=env)
    fd = stats_on()
    try:
        ns0 = bpf_ns(t.proc.pid)
        traced = loop_ns(loop, a.calls)
        ns1 = bpf_ns(t.proc.pid)
    finally:
        os.close(fd)
    want = a.calls if spec == "kept" else 0
    # Every event printed before the stop: bounded by count, not by time.
    for _ in range(int(READY_TIMEOUT / 0.01)):
        if t.lines("<- ksb_ufunc") >= want:
            break
        subprocess.run(["sleep", "0.01"])
    t.stop()
    with open(t.err, errors="replace") as f:
        said = f.read()
    if PATHS[path] not in said:
        raise RuntimeError(f"{spec}/{path}: ksnoop -v did not say '{PATHS[path]}':\n{said}")
    return traced - base, base, t.lines("<- ksb_ufunc"), (ns1 - ns0) / a.calls


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--calls", type=int, default=20000)
    p.add_argument("--ksnoop", default=os.path.join(os.path.dirname(HERE), "build", "ksnoop"))
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="ksb-usession.")
    os.chmod(work, 0o755)
    loop = os.path.join(work, "ksb-loop")
    subprocess.run(["gcc", "-g", "-O2", "-static", "-Wall", "-Wextra", "-o", loop,
                    os.path.join(HERE, "loop.c")], check=True)
    variants = [(s, p) for s in SPECS for p in PATHS]
    res = {}
    load0 = " ".join(open("/proc/loadavg").read().split()[:3])
    try:
        for r in range(a.rounds):
            k = r % len(variants)
            for spec, path in variants[k:] + variants[:k]:
                res.setdefault((spec, path), []).append(run_variant(a, work, loop, spec, path))
    finally:
        load1 = " ".join(open("/proc/loadavg").read().split()[:3])
        shutil.rmtree(work)
    print(f"Machine: {os.cpu_count()} CPUs, {os.uname().release}, load average {load0} before, "
          f"{load1} after; {a.rounds} rounds of {a.calls} calls.\n")
    print("| spec | path | added ns per call (median, min–max) | session ÷ stash, added | "
          "BPF programs' ns per call (median, min–max) | session ÷ stash, BPF | events |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    base = med([r[1] for rows in res.values() for r in rows])
    print(f"| untraced | | {base[0]:.1f} ({base[1]:.1f}–{base[2]:.1f}) | — | — | — | — |")
    for spec in SPECS:
        ses, sta = res[(spec, "session")], res[(spec, "stash")]
        added = med([s[0] / x[0] for s, x in zip(ses, sta)])
        bpf = med([s[3] / x[3] for s, x in zip(ses, sta) if x[3] > 0])
        for path in PATHS:
            rows = res[(spec, path)]
            m, b = med([r[0] for r in rows]), med([r[3] for r in rows])
            ev = min(r[2] for r in rows)
            q = [f"**{x[0]:.2f}** ({x[1]:.2f}–{x[2]:.2f})" if path == "session" else "reference"
                 for x in (added, bpf)]
            print(f"| {spec} | {path} | {m[0]:,.0f} ({m[1]:,.0f}–{m[2]:,.0f}) | {q[0]} | "
                  f"{b[0]:,.0f} ({b[1]:,.0f}–{b[2]:,.0f}) | {q[1]} | {ev} of {a.calls} |")


if __name__ == "__main__":
    sys.exit(main())
