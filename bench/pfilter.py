#!/usr/bin/env python3
"""The cost of --filter EXPR per traced packet (issue #48): a pcap-filter
expression (libpcap's classic BPF, translated into eBPF inside ksnoop's
program) against a typed predicate that rejects the same packets, and
against no filter.

    bench/pfilter.py [--rounds R] [--calls N] --loop KSB_LOOP KSNOOP

KSB_LOOP is bench/loop.c built as bench/run builds it (gcc -O2 -static);
run as root. The workload is `ksb-loop udp N PORT` on CPU 1 in a network
namespace of its own (loopback only): N one-byte datagrams, each through
tp:net:net_dev_queue once. Each traced variant runs ksnoop -c ksb-loop on
CPU 0 (events to /dev/null), then the workload, then SIGINT; every traced
run is preceded by an untraced run (its neighbour). Variants, in an order
rotated by one each round:

    typed-reject    tp:net:net_dev_queue(skb->len == 1)
    filter-reject   --filter 'udp port 1' tp:net:net_dev_queue(skb->len)
    filter-early    --filter arp tp:net:net_dev_queue(skb->len)
    filter-accept   --filter udp tp:net:net_dev_queue(skb->len)
    typed-accept    tp:net:net_dev_queue(skb->len != 1)

Two measures per run: *added* = the workload's ns per send less its
untraced neighbour's (wall clock: load shows in it), and *prog* =
the kernel's own run_time_ns / run_cnt of ksnoop's BPF programs
(counted while a BPF_ENABLE_STATS fd is open, as bench/usession.py does;
read from /proc/PID/fdinfo of ksnoop's program fds before and after the
workload): the time inside
the program per call, far less sensitive to other load. Prints each run,
then medians with min-max. Not run by bench/run: bench/pfilter.md holds
what it measured, copied into PERFORMANCE.md by perf_report."""

import argparse
import glob
import os
import re
import signal
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from proc import stats_on  # noqa: E402

READY_POLLS = 3000      # 0.02 s each: a minute for ksnoop to attach
PORT = 5999             # the workload's own namespace: no one else's port
TP = "tp:net:net_dev_queue"
VARIANTS = {
    "typed-reject": ["%s(skb->len == 1)" % TP],
    "filter-reject": ["--filter", "udp port 1", "%s(skb->len)" % TP],
    "filter-early": ["--filter", "arp", "%s(skb->len)" % TP],
    "filter-accept": ["--filter", "udp", "%s(skb->len)" % TP],
    "typed-accept": ["%s(skb->len != 1)" % TP],
}


def workload(loop, n):
    """ns per send of `ksb-loop udp N PORT` on CPU 1, in a new netns."""
    out = subprocess.run(["unshare", "-n", "sh", "-c", 'ip link set lo up && exec "$@"', "sh",
                          "taskset", "-c", "1", loop, "udp", str(n), str(PORT)],
                         capture_output=True, text=True, check=True).stdout
    return float(re.search(r"ns_per_iter=([0-9.]+)", out).group(1))


def prog_stats(pid):
    """{prog_id: (run_time_ns, run_cnt)} of the BPF programs PID holds."""
    progs = {}
    for fd in glob.glob("/proc/%d/fdinfo/*" % pid):
        try:
            text = open(fd).read()
        except OSError:
            continue
        m = re.search(r"^prog_id:\s*(\d+)", text, re.M)
        if not m or not re.search(r"^prog_type:", text, re.M):
            continue        # not a program's fd (a link's names its prog_id too)
        t = re.search(r"^run_time_ns:\s*(\d+)", text, re.M)
        c = re.search(r"^run_cnt:\s*(\d+)", text, re.M)
        progs[int(m.group(1))] = (int(t.group(1)) if t else 0, int(c.group(1)) if c else 0)
    return progs


def xlated(prog_id):
    """Instructions of program PROG_ID as the verifier left them."""
    out = subprocess.run(["bpftool", "prog", "show", "id", str(prog_id)],
                         capture_output=True, text=True).stdout
    m = re.search(r"xlated (\d+)B", out)
    return int(m.group(1)) // 8 if m else 0


def traced(ksnoop, loop, args, n, err_path):
    """One traced run: (ns per send, prog ns per run or None, runs per
    send, instructions of the program that ran, events printed, lost)."""
    cmd = ["taskset", "-c", "0", ksnoop, "-v", "-c", "ksb-loop"] + args
    stats = stats_on()
    with open(err_path, "w+") as err:
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        for _ in range(READY_POLLS):
            time.sleep(0.02)
            err.seek(0)
            if "tracing" in err.read() or p.poll() is not None:
                break
        before = prog_stats(p.pid)
        ns = workload(loop, n)
        after = prog_stats(p.pid)
        busy = {i: after[i][1] - before.get(i, (0, 0))[1] for i in after}
        insns = xlated(max(busy, key=busy.get)) if busy else 0     # while it is loaded
        time.sleep(0.3)
        p.send_signal(signal.SIGINT)
        p.wait()
        err.seek(0)
        text = err.read()
    os.close(stats)
    ran = {i: (after[i][0] - before.get(i, (0, 0))[0], after[i][1] - before.get(i, (0, 0))[1])
           for i in after}
    ran = {i: v for i, v in ran.items() if v[1] > 0}
    t = sum(v[0] for v in ran.values())
    c = sum(v[1] for v in ran.values())
    # The closing line; "N events lost so far" lines come before it.
    ev = re.search(r"(\d+) events printed", text)
    lost = re.search(r"events printed, (\d+) lost", text)
    # Another process that sets kernel.bpf_stats_enabled to 0 stops the
    # counting for everyone (the sysctl drops the count this fd raised):
    # time and count stop together, so their ratio holds while enough ran.
    return (ns, t / c if c >= n // 10 else None, c / n, insns,
            int(ev.group(1)) if ev else 0, int(lost.group(1)) if lost else 0)


def cell(xs, f="%.0f"):
    return (f + " (" + f + "-" + f + ")") % (statistics.median(xs), min(xs), max(xs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--calls", type=int, default=500000)
    ap.add_argument("--loop", required=True)
    ap.add_argument("--variants", default=",".join(VARIANTS),
                    help="comma-separated, of: " + ", ".join(VARIANTS))
    ap.add_argument("ksnoop")
    o = ap.parse_args()
    err_path = "/dev/shm/ksnoop-pfilter-%d.err" % os.getpid()
    names = o.variants.split(",")
    if not names or any(v not in VARIANTS for v in names):
        ap.error("--variants: one or more of " + ", ".join(VARIANTS))
    added, prog, base = {}, {}, []
    try:
        for r in range(o.rounds):
            for i in range(len(names)):
                v = names[(i + r) % len(names)]
                b = workload(o.loop, o.calls)
                ns, pns, per, insns, ev, lost = traced(o.ksnoop, o.loop, VARIANTS[v], o.calls, err_path)
                base.append(b)
                added.setdefault(v, []).append(ns - b)
                if pns is not None:
                    prog.setdefault(v, []).append((r, pns))
                print("%d %s base=%.0f traced=%.0f added=%.0f prog_ns=%s runs/send=%.2f "
                      "xlated_insns=%d events=%d lost=%d"
                      % (r, v, b, ns, ns - b, "-" if pns is None else "%.1f" % pns, per, insns, ev, lost),
                      flush=True)
            print("# load", open("/proc/loadavg").read().split()[:3], flush=True)
    finally:
        if os.path.exists(err_path):
            os.unlink(err_path)
    print("untraced: %s ns/send, %d runs" % (cell(base), len(base)))
    for v in names:
        ps = [x for _, x in prog.get(v, [])]
        print("%s: added %s ns/send, %d rounds; prog %s ns/run, %d rounds counted"
              % (v, cell(added[v]), len(added[v]), cell(ps, "%.1f") if ps else "-", len(ps)))
    typed = dict(prog.get("typed-reject", []))
    fr = [x / typed[r] for r, x in prog.get("filter-reject", []) if r in typed]
    if fr:
        print("filter-reject / typed-reject, prog ns, same round: %s, %d rounds" % (cell(fr, "%.2f"), len(fr)))


if __name__ == "__main__":
    main()
