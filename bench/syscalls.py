#!/usr/bin/env python3
"""Every system call (sys:*): attaching and detaching, ksnoop against bpftrace 0.27.

    bench/syscalls.py [--sid DIR] [--rounds R] [--ksnoop PATH] [--before PATH]

Not part of bench/run yet: it prints the rows of docs/PERFORMANCE.md's
"Every system call" table (markdown) and the machine's load before and
after.  As root.  bpftrace is Debian sid's (0.27), run in the chroot
bench/sid-chroot makes (DIR), as bench/ufunc.py runs it.

Each row: exec until the tracer says it is tracing (ksnoop -v's
"tracing" line, bpftrace's "Attached N probes"), then SIGINT until it
has exited (detach, and the results printed before it); every round
runs every variant once, in an order rotated by one.  Nothing is
printed per call: ksnoop -c and bpftrace's filter name a command that
never runs, and the --count rows count every call (a table at exit).

  ksnoop --count 'sys:*'          entries: one raw_syscalls link (360
                                  perf links before s56)
  --before PATH: the same with another ksnoop (the one before a change),
                                  interleaved with the others
  ksnoop -c NONE 'sys:*'          entry and exit, values printed: 2
                                  raw_syscalls links (720 perf links
                                  before s59)
  ksnoop -c NONE -L 1ns 'sys:*'   entry values kept for the return:
                                  4 links (2 programs)
  --before: all three again with the other ksnoop
  bpftrace sys_enter_* count()    360 probes
  bpftrace syscalls:* (comm)      720 probes, counted where comm matches

Without --sid the bpftrace rows are left out.
"""
import argparse
import os
import statistics
import tempfile

from ufunc import Tracer, in_chroot

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
NONE = "ksb-nocomm"  # at most 15 characters: a comm
# -v's "tracing N targets" line ("tracing" alone is in the tracefs line too)
READY = ["ksnoop: tracing "]


def variants(a):
    bt = lambda name, prog: (lambda: Tracer(a.work, name, in_chroot(a.sid, ["bpftrace", "-e", prog]),
                                            ["Attached"]))
    v = {
        "ksnoop --count 'sys:*'": lambda: Tracer(a.work, "kc", [a.ksnoop, "-v", "--count", "sys:*"],
                                                 READY),
        "ksnoop 'sys:*' (entry and exit)": lambda: Tracer(a.work, "ke", [a.ksnoop, "-v", "-c", NONE,
                                                                         "sys:*"], READY),
        "bpftrace sys_enter_* count()": bt("bc", "tracepoint:syscalls:sys_enter_* { @[probe] = count(); }"),
        "bpftrace syscalls:* (entry and exit)": bt("be", "tracepoint:syscalls:* /comm == \"%s\"/ "
                                                   "{ @[probe] = count(); }" % NONE),
    }
    v["ksnoop -L 1ns 'sys:*' (entry values kept for the return)"] = \
        lambda: Tracer(a.work, "kl", [a.ksnoop, "-v", "-c", NONE, "-L", "1ns", "sys:*"], READY)
    if a.before:
        v["ksnoop --count 'sys:*' (before)"] = lambda: Tracer(a.work, "kb", [a.before, "-v", "--count",
                                                                            "sys:*"], READY)
        v["ksnoop 'sys:*' (entry and exit, before)"] = \
            lambda: Tracer(a.work, "keb", [a.before, "-v", "-c", NONE, "sys:*"], READY)
        v["ksnoop -L 1ns 'sys:*' (before)"] = \
            lambda: Tracer(a.work, "klb", [a.before, "-v", "-c", NONE, "-L", "1ns", "sys:*"], READY)
    if not a.sid:
        v = {k: f for k, f in v.items() if not k.startswith("bpftrace")}
    return v


def said(path):
    """ksnoop -v's lines on instances, links and detaching; bpftrace's probe count."""
    with open(path, errors="replace") as f:
        return [l.strip().replace("ksnoop: ", "") for l in f
                if "loaded in" in l or "detached in" in l or "Attached" in l or "raw_syscalls (" in l]


def run(a):
    v = variants(a)
    names = list(v)
    res = {}
    for r in range(a.rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t = v[name]()
            up = t.t_ready - t.t_exec
            down = t.stop()
            res.setdefault(name, []).append((up, down, said(t.err)))
    return res


def med(xs):
    return statistics.median(xs), min(xs), max(xs)


def report(a, res, load0, load1):
    print(f"Machine: {os.cpu_count()} CPUs, load average {load0} before, {load1} after; "
          f"{a.rounds} rounds.\n")
    print("| every system call | exec → tracing, s | SIGINT → exit, s | says (last round) |")
    print("| --- | --- | --- | --- |")
    for name, rows in res.items():
        up, down = med([u for u, _, _ in rows]), med([d for _, d, _ in rows])
        print(f"| {name} | {up[0]:.2f} ({up[1]:.2f}–{up[2]:.2f}) | "
              f"{down[0]:.2f} ({down[1]:.2f}–{down[2]:.2f}) | {'; '.join(rows[-1][2])} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sid", help="the chroot bench/sid-chroot made (none: no bpftrace rows)")
    p.add_argument("--before", help="another ksnoop, measured beside (the one before a change)")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--ksnoop", default=os.path.join(ROOT, "build", "ksnoop"))
    a = p.parse_args()
    if a.sid:
        a.sid = os.path.abspath(a.sid)
        a.work = os.path.join(a.sid, "tmp")
    else:
        a.work = tempfile.mkdtemp(prefix="ksb-syscalls-")
    load0 = " ".join(open("/proc/loadavg").read().split()[:3])
    res = run(a)
    load1 = " ".join(open("/proc/loadavg").read().split()[:3])
    report(a, res, load0, load1)


if __name__ == "__main__":
    main()
