#!/usr/bin/env python3
"""ksnoop's own CPU per event, printing text against recording (issue #46),
for one or more ksnoop binaries side by side.

    bench/reccost.py [--rounds R] [--events N] --loop KSB_LOOP KSNOOP...

KSB_LOOP is bench/loop.c built as bench/run builds it (gcc -O2 -static);
run as root. Every round runs each binary printing and recording once, in
an order rotated by one each round: `ksnoop -c ksb-loop usdt
'LOOP:ksb:tick(arg0, arg1:str, arg2)'` on CPU 0 (text to /dev/null, or
`record -o /dev/shm/...`), `ksb-loop usdt N` on CPU 1 as fast as it goes,
then SIGINT. CPU = user + system time from wait4(), less the same command
run with no events (start-up, attach, detach); per event = that over the
events ksnoop handled (its closing line). Prints each run, then medians
with min-max. Not run by bench/run: bench/reccost.md holds what it
measured, copied into PERFORMANCE.md's table 4b by perf_report."""

import argparse
import os
import re
import signal
import statistics
import subprocess
import time

READY_POLLS = 3000      # 0.02 s each: a minute for ksnoop to attach


def run(ksnoop, loop, kind, n, out):
    """One run: (CPU seconds, events handled, events lost, file bytes)."""
    spec = "%s:ksb:tick(arg0, arg1:str, arg2)" % loop
    args = ["taskset", "-c", "0", ksnoop, "-v", "-c", "ksb-loop"]
    if kind == "record":
        args += ["record", "-o", out, "--force"]
    args += ["usdt", spec]
    with open(out + ".err", "w+") as err:
        p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
        for _ in range(READY_POLLS):
            time.sleep(0.02)
            err.seek(0)
            if "tracing" in err.read() or p.poll() is not None:
                break
        if n:
            subprocess.run(["taskset", "-c", "1", loop, "usdt", str(n)], stdout=subprocess.DEVNULL)
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        _, _, ru = os.wait4(p.pid, 0)
        err.seek(0)
        text = err.read()
    ev = re.search(r"(\d+) events (printed|recorded)", text)
    lost = re.search(r"(\d+) lost", text)
    size = os.path.getsize(out) if kind == "record" and os.path.exists(out) else 0
    return (ru.ru_utime + ru.ru_stime, int(ev.group(1)) if ev else 0,
            int(lost.group(1)) if lost else 0, size)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--events", type=int, default=2000000)
    ap.add_argument("--loop", required=True)
    ap.add_argument("ksnoop", nargs="+")
    o = ap.parse_args()
    out = "/dev/shm/ksnoop-reccost-%d.ksr" % os.getpid()
    items = [(b, k) for k in ("print", "record") for b in o.ksnoop]
    per = {}
    for r in range(o.rounds):
        for i in range(len(items)):
            b, k = items[(i + r) % len(items)]
            cpu, ev, lost, size = run(b, o.loop, k, o.events, out)
            idle, _, _, _ = run(b, o.loop, k, 0, out)
            ns = (cpu - idle) * 1e9 / max(ev, 1)
            per.setdefault((b, k), []).append(ns)
            print("%d %s %s cpu=%.3f idle=%.3f events=%d lost=%d ns/event=%.0f bytes/event=%.2f"
                  % (r, b, k, cpu, idle, ev, lost, ns, size / max(ev, 1)), flush=True)
        print("# load", open("/proc/loadavg").read().split()[:3], flush=True)
    for f in (out, out + ".err"):
        if os.path.exists(f):
            os.unlink(f)
    for (b, k), xs in per.items():
        print("%s %s: %.0f (%.0f-%.0f) ns/event, %d rounds"
              % (b, k, statistics.median(xs), min(xs), max(xs), len(xs)))


if __name__ == "__main__":
    main()
