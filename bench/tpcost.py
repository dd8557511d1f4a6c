#!/usr/bin/env python3
"""The BPF program's own time per run, ksnoop against bpftrace 0.27, for
PERFORMANCE.md's tables 3 and 3c (issue #46): a tracepoint event, --count
and --hist per call. Wall clock is load's plaything on a shared machine;
the kernel's run_time_ns / run_cnt of each tracer's programs is not.

    bench/tpcost.py [--sid DIR] [--rounds R] [--calls N] [--only V,...]
                    [--before KSNOOP_OLD] --loop KSB_LOOP KSNOOP

As root. KSB_LOOP is bench/loop.c built static (gcc -O2 -static) and
inside nothing: the workload `ksb-loop syscall N` (N getppid() calls) runs
held on CPU 1 until its tracer is ready; the tracer runs on CPU 0 and
selects the workload's pid (ksnoop -p PID, bpftrace `pid == PID`), with
bench/native.py's specs and bpftrace programs. bpftrace is Debian sid's,
run in the chroot DIR (bench/sid-chroot) in a mount namespace of its own.
While a BPF_ENABLE_STATS fd is open, each run reads run_time_ns and
run_cnt of the tracer's program fds (its /proc/PID/fdinfo) before and
after the workload. The programs run for every task's system calls
(others' are filtered out by pid at the start): runs= says how many runs
there were per workload call, other= the ns per run measured over IDLE_S
before the workload (others' runs only), and prog = (delta time - others'
runs x other) / N, the ns per workload call. Variants (--only): event, count, hist; in each round ksnoop (and
--before's binary) then bpftrace. Prints each run, then the median and
min-max per variant and tool, and its ratio to bpftrace's median."""

import argparse
import glob
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proc import stats_on  # noqa: E402

READY_S = 60
IDLE_S = 1.0        # before the workload: other tasks' runs, to subtract
POLL_S = 0.05
BT_FILTER = "tracepoint:raw_syscalls:sys_enter /pid == %d"
VARIANTS = {
    "event": (["tp:sys_enter(id)"],
              BT_FILTER + r'/ { printf("-> sys_enter id=%%ld\n", args->id); }'),
    "count": (["--count", "tp:sys_enter(id == 110)"],
              BT_FILTER + " && args->id == 110/ { @calls = count(); }"),
    "hist": (["--hist", "tp:sys_enter(id == 110, id)"],
             BT_FILTER + " && args->id == 110/ { @ids = hist(args->id); }"),
}


def prog_stats(pid):
    """(run_time_ns, run_cnt) summed over the BPF programs PID holds."""
    t = c = 0
    for fd in glob.glob("/proc/%d/fdinfo/*" % pid):
        try:
            with open(fd) as f:
                text = f.read()
        except OSError:
            continue
        if "prog_type:" not in text:
            continue
        rt = re.search(r"^run_time_ns:\s*(\d+)", text, re.M)
        rc = re.search(r"^run_cnt:\s*(\d+)", text, re.M)
        if rt and rc:
            t += int(rt.group(1))
            c += int(rc.group(1))
    return t, c


def in_chroot(sid, argv):
    """ARGV in the sid chroot, /proc /sys /dev bound in and tracefs mounted
    (bpftrace reads its event list there) in a private mount namespace."""
    script = ('set -e; for d in proc sys dev; do mount --rbind /$d "$0/$d"; done; '
              'mountpoint -q "$0/sys/kernel/tracing" || mount -t tracefs nodev "$0/sys/kernel/tracing"; '
              'exec chroot "$0" "$@"')
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, sid] + argv


def one_run(a, tool, variant, work):
    held = subprocess.Popen(["sh", "-c", 'read -r _ && exec "$@"', "sh", "taskset", "-c", "1",
                             a.loop, "syscall", str(a.calls)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    ks_args, bt_prog = VARIANTS[variant]
    log = os.path.join(work, "%s-%s.log" % (tool, variant))
    if tool != "bpftrace":
        argv = ["taskset", "-c", "0", a.ksnoop if tool == "ksnoop" else a.before, "-v", "-p",
                str(held.pid)] + ks_args
        ready = re.compile(r"tracing .* target")
        out = subprocess.DEVNULL
        err = open(log, "w")
    else:
        argv = ["taskset", "-c", "0"] + in_chroot(a.sid, ["bpftrace", "-e", bt_prog % held.pid])
        ready = re.compile(r"Attached \d+ probe")
        out = err = open(log, "w")
    tr = subprocess.Popen(argv, stdout=out, stderr=err)
    try:
        end = time.monotonic() + READY_S
        while not ready.search(open(log).read(65536)):
            if tr.poll() is not None or time.monotonic() > end:
                raise RuntimeError("%s %s did not attach: %s" % (tool, variant, open(log).read()[-300:]))
            time.sleep(POLL_S)
        # taskset execs the tracer: its pid is the tracer's. Other tasks'
        # runs, each filtered out by pid, for IDLE_S first: their cost.
        i0, n0 = prog_stats(tr.pid)
        time.sleep(IDLE_S)
        t0, c0 = prog_stats(tr.pid)
        held.stdin.write(b"go\n")
        held.stdin.close()
        res = held.stdout.read().decode()
        held.wait()
        t1, c1 = prog_stats(tr.pid)
    finally:
        if held.poll() is None:
            held.kill()
            held.wait()
        tr.send_signal(signal.SIGINT)
        try:
            tr.wait(120)
        except subprocess.TimeoutExpired:
            tr.kill()
            tr.wait()
        err.close()
    other = (t0 - i0) / (c0 - n0) if c0 > n0 else 0.0
    dc = c1 - c0
    prog = (t1 - t0 - max(dc - a.calls, 0) * other) / a.calls
    return prog, dc / a.calls, other, res.strip()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sid", default="/var/cache/ksnoop-sid")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--calls", type=int, default=1000000)
    p.add_argument("--loop", required=True)
    p.add_argument("--only", default=",".join(VARIANTS))
    p.add_argument("--before", help="another ksnoop binary (the one before a change), measured too")
    p.add_argument("ksnoop")
    a = p.parse_args()
    a.ksnoop = os.path.abspath(a.ksnoop)
    a.loop = os.path.abspath(a.loop)
    tools = ["ksnoop", "bpftrace"]
    if a.before:
        a.before = os.path.abspath(a.before)
        tools.insert(0, "before")
    with open("/proc/loadavg") as f:
        print("load before:", f.read().split()[0])
    fd = stats_on()
    work = tempfile.mkdtemp(prefix="ksb-tpcost.")
    res = {}
    try:
        for r in range(a.rounds):
            for variant in a.only.split(","):
                for tool in tools:
                    prog, runs, other, out = one_run(a, tool, variant, work)
                    res.setdefault((variant, tool), []).append(prog)
                    print("round=%d %s %s prog=%.1f ns runs=%.3f other=%.1f ns %s"
                          % (r, variant, tool, prog, runs, other, out), flush=True)
    finally:
        os.close(fd)
        shutil.rmtree(work, ignore_errors=True)
    with open("/proc/loadavg") as f:
        print("load after:", f.read().split()[0])
    for variant in a.only.split(","):
        b = statistics.median(res[(variant, "bpftrace")])
        for tool in tools:
            r = res[(variant, tool)]
            print("%-6s %-8s prog %6.1f ns per run (%.1f-%.1f)  %.2fx bpftrace's"
                  % (variant, tool, statistics.median(r), min(r), max(r), statistics.median(r) / b))


if __name__ == "__main__":
    main()
