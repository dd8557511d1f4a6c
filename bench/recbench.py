#!/usr/bin/env python3
"""ksnoop's own CPU per event printing text, printing JSON and recording,
on a small and a struct event, and `ksnoop report`'s events per second
over the recordings (issue #47's benchmark rows).

    bench/recbench.py [--rounds R] [--small N] [--struct N] [--perf N]
                      --loop KSB_LOOP KSNOOP

KSB_LOOP is bench/loop.c built with -g (gcc -O2 -g -static: the struct
event's type comes from its DWARF); run as root. Every round runs each
kind once per event, in an order rotated by one each round:

  small   usdt 'LOOP:ksb:tick(arg0, arg1:str, arg2)' (bench/reccost.py's
          event), `ksb-loop usdt N`
  struct  'u:LOOP:ksb_ustruct(p->seq, p)' (a struct ksb_payload dumped
          from the DWARF), `ksb-loop ustruct N`

  text    ksnoop -c ksb-loop SPEC > /dev/null
  text-tmpfs  the same > /dev/shm/FILE (what json pays for its file)
  json    ksnoop -c ksb-loop -j SPEC > /dev/shm/FILE (its closing counts
          are its last line, on stdout)
  record  ksnoop -c ksb-loop record -o /dev/shm/FILE SPEC

ksnoop on CPU 0, the workload on CPU 1, then SIGINT. CPU = user + system
time from wait4(), less the same command run with no events (start-up,
attach, detach); per event = that over the events ksnoop handled (its
closing line). After each recording, on CPU 0 and over that file:
`ksnoop report FILE` (text), `ksnoop report FILE 'SPEC(pred)'` (a
predicate that keeps the second half) and `ksnoop report --hist FILE
'SPEC(value)'`, each to /dev/null: events/s = the file's events over the
report's own CPU time (wait4). Bytes per event: the file over the
events, and less the idle run's file (header, types, plans) too.

With --perf N (and perf(1) there), a system-call flood beside it:
`ksb-loop syscall N` on CPU 1, stopped until the recorder is ready, and
`ksnoop -p PID record -o FILE 'sys:getppid'` against `perf trace record
-o FILE -p PID` (started disabled, enabled through --control; perf
trace record cannot pick one system call: it
records raw_syscalls:sys_enter and sys_exit, every call of the pid; the
workload makes N getppid() calls and a few dozen others): each
recorder's CPU per call kept (less its idle run, N = 0) and bytes per
call kept (perf's kept and lost records from `perf report --stats`).

Prints each run, the load after each round, then medians with min-max.
Not run by bench/run: bench/recbench.md holds what it measured, copied
into PERFORMANCE.md after table 4c by perf_report."""

import argparse
import os
import re
import select
import shutil
import signal
import statistics
import subprocess
import time

READY_POLLS = 3000      # 0.02 s each: a minute for the recorder to attach


def specs(loop, n=0):
    """Each event: (workload mode, live spec, report predicate spec that
    keeps the second half of N events, --hist spec)."""
    return {
        "small": ("usdt", "%s:ksb:tick(arg0, arg1:str, arg2)" % loop,
                  "ksb:tick(arg0 >= %d)" % (n // 2), "ksb:tick(arg0)"),
        "struct": ("ustruct", "u:%s:ksb_ustruct(p->seq, p)" % loop,
                   "ksb_ustruct(p->seq >= %d)" % (n // 2), "ksb_ustruct(p->seq)"),
    }


def traced(args, workload, err_path, stdout=subprocess.DEVNULL):
    """Start ARGS on CPU 0 (stderr to ERR_PATH), wait for "tracing" on
    its stderr, run WORKLOAD (if any) on CPU 1, SIGINT: (rusage, stderr)."""
    with open(err_path, "w+") as err:
        p = subprocess.Popen(["taskset", "-c", "0"] + args, stdout=stdout, stderr=err)
        for _ in range(READY_POLLS):
            time.sleep(0.02)
            err.seek(0)
            if "tracing" in err.read() or p.poll() is not None:
                break
        if workload:
            subprocess.run(["taskset", "-c", "1"] + workload, stdout=subprocess.DEVNULL)
        time.sleep(0.3)
        os.kill(p.pid, signal.SIGINT)
        _, _, ru = os.wait4(p.pid, 0)
        p.returncode = 0
        err.seek(0)
        return ru, err.read()


def cpu(ru):
    return ru.ru_utime + ru.ru_stime


def run(ksnoop, loop, event, kind, n, out):
    """One traced run: (CPU seconds, events handled, events lost, file bytes)."""
    mode, spec = specs(loop)[event][:2]
    args = [ksnoop, "-v", "-c", "ksb-loop"]
    if kind == "json":
        args += ["-j"]
    if kind == "record":
        args += ["record", "-o", out, "--force"]
    if event == "small":
        args += ["usdt"]
    args += [spec]
    workload = [loop, mode, str(n)] if n else None
    if kind in ("json", "text-tmpfs"):
        # JSON's closing counts are its last line, on stdout: both go to tmpfs
        with open(out + ".out", "w+") as f:
            ru, text = traced(args, workload, out + ".err", stdout=f)
            size = os.fstat(f.fileno()).st_size
            if kind == "json":
                f.seek(max(0, size - 4096))
                text = f.read().rstrip("\n").split("\n")[-1]
                ev = re.search(r'"printed":(\d+)', text)
                lost = re.search(r'"lost":(\d+)', text)
                text = "%s events printed, %s lost" % (ev.group(1) if ev else 0, lost.group(1) if lost else 0)
        os.unlink(out + ".out")
    else:
        ru, text = traced(args, workload, out + ".err")
    ev = re.search(r"(\d+) events (printed|recorded)", text)
    lost = re.search(r"(\d+) lost", text)
    size = os.path.getsize(out) if kind == "record" and os.path.exists(out) else 0
    return cpu(ru), int(ev.group(1)) if ev else 0, int(lost.group(1)) if lost else 0, size


def report(ksnoop, args):
    """`ksnoop report ARGS` on CPU 0, output to /dev/null: CPU seconds."""
    p = subprocess.Popen(["taskset", "-c", "0", ksnoop, "report"] + args,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        raise SystemExit("recbench: ksnoop report %s: exit status %d" % (" ".join(args), status >> 8))
    return cpu(ru)


def perf_enable(p, out):
    """Enable perf P through its control FIFO OUT.ctl, wait for OUT.ack."""
    ack = os.open(out + ".ack", os.O_RDONLY | os.O_NONBLOCK)
    for _ in range(READY_POLLS):
        try:
            ctl = os.open(out + ".ctl", os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:
            if p.poll() is not None:
                raise SystemExit("recbench: perf trace record exited before it was enabled")
            time.sleep(0.02)
    os.write(ctl, b"enable\n")
    got = b""
    for _ in range(READY_POLLS):
        r, _, _ = select.select([ack], [], [], 0.02)
        if r:
            got += os.read(ack, 64)
            if b"ack" in got:
                break
    os.close(ctl)
    os.close(ack)


def flood(ksnoop, loop, kind, n, out):
    """The syscall flood, one process's system calls recorded: ksnoop's
    'sys:getppid' or perf trace record (every system call of the pid:
    raw_syscalls:sys_enter and sys_exit), while `ksb-loop syscall N`,
    stopped until the recorder is ready, runs on CPU 1: (CPU seconds,
    file bytes, calls kept, calls lost; perf's from `perf report --stats`:
    its records over two)."""
    child = os.fork()
    if child == 0:
        os.kill(os.getpid(), signal.SIGSTOP)
        os.execvp("taskset", ["taskset", "-c", "1", loop, "syscall", str(n)])
    os.waitpid(child, os.WUNTRACED)
    if kind == "ksnoop":
        args = [ksnoop, "-v", "-p", str(child), "record", "-o", out, "--force", "sys:getppid"]
    else:
        # perf -q says nothing when it is ready: it starts disabled and
        # acknowledges "enable" on its control FIFOs
        for f in (out + ".ctl", out + ".ack"):
            if os.path.exists(f):
                os.unlink(f)
            os.mkfifo(f)
        args = ["perf", "trace", "record", "-q", "-o", out, "-D", "-1",
                "--control", "fifo:%s.ctl,%s.ack" % (out, out), "-p", str(child)]
    with open(out + ".err", "w+") as err:
        p = subprocess.Popen(["taskset", "-c", "0"] + args, stdout=subprocess.DEVNULL, stderr=err)
        if kind == "perf":
            perf_enable(p, out)
        for _ in range(READY_POLLS):
            if kind == "perf":
                break
            time.sleep(0.02)
            err.seek(0)
            if "tracing" in err.read() or p.poll() is not None:
                break
        os.kill(child, signal.SIGCONT)
        os.waitpid(child, 0)
        time.sleep(0.3)
        os.kill(p.pid, signal.SIGINT)
        _, _, ru = os.wait4(p.pid, 0)
        p.returncode = 0
        err.seek(0)
        text = err.read()
    size = os.path.getsize(out) if os.path.exists(out) else 0
    for f in (out + ".ctl", out + ".ack"):
        if os.path.exists(f):
            os.unlink(f)
    if kind == "ksnoop":
        ev = re.search(r"(\d+) events recorded", text)
        lost = re.search(r"(\d+) lost", text)
        # two events a call: the entry and the return
        return cpu(ru), size, int(ev.group(1)) // 2 if ev else 0, int(lost.group(1)) // 2 if lost else 0
    # perf's own count: records kept (two a call, enter and exit), and lost
    st = subprocess.run(["perf", "report", "-i", out, "--stats"], capture_output=True, text=True).stdout
    kept = re.search(r"Aggregated stats:.*?SAMPLE events:\s+(\d+)", st, re.S)
    lost = sum(int(x) for x in re.findall(r"^\s*LOST_SAMPLES events:\s+(\d+)\s*$", st, re.M))
    return cpu(ru), size, int(kept.group(1)) // 2 if kept else 0, lost // 2


def med(xs):
    return "%.0f (%.0f-%.0f)" % (statistics.median(xs), min(xs), max(xs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--small", type=int, default=1000000, help="small events a run")
    ap.add_argument("--struct", type=int, default=200000, help="struct events a run")
    ap.add_argument("--perf", type=int, default=0, help="getppid calls a flood run (0: no flood)")
    ap.add_argument("--loop", required=True)
    ap.add_argument("ksnoop")
    o = ap.parse_args()
    ks = o.ksnoop
    base = "/dev/shm/ksnoop-recbench-%d" % os.getpid()
    n = {"small": o.small, "struct": o.struct}
    items = [(e, k) for e in ("small", "struct") for k in ("text", "text-tmpfs", "json", "record")]
    if o.perf and shutil.which("perf"):
        items += [("flood", "ksnoop"), ("flood", "perf")]
    per, bpe, net, rep, lostf = {}, {}, {}, {}, {}
    for r in range(o.rounds):
        for i in range(len(items)):
            e, k = items[(i + r) % len(items)]
            out = "%s-%s.%s" % (base, e, "ksr" if k != "perf" else "data")
            if e == "flood":
                c, size, ev, lost = flood(ks, o.loop, k, o.perf, out)
                idle, isize, _, _ = flood(ks, o.loop, k, 0, out + ".idle")
                ns = (c - idle) * 1e9 / max(ev, 1)
                per.setdefault((e, k), []).append(ns)
                lostf.setdefault((e, k), []).append(100.0 * lost / max(ev + lost, 1))
                bpe.setdefault((e, k), []).append(size / max(ev, 1))
                net.setdefault((e, k), []).append((size - isize) / max(ev, 1))
                print("%d flood %s cpu=%.3f idle=%.3f calls=%d kept=%d lost=%d ns/call=%.0f bytes/call=%.2f net=%.2f"
                      % (r, k, c, idle, o.perf, ev, lost, ns, size / max(ev, 1), (size - isize) / max(ev, 1)),
                      flush=True)
                continue
            c, ev, lost, size = run(ks, o.loop, e, k, n[e], out)
            idle, _, _, isize = run(ks, o.loop, e, k, 0, out + ".idle")
            ns = (c - idle) * 1e9 / max(ev, 1)
            per.setdefault((e, k), []).append(ns)
            lostf.setdefault((e, k), []).append(100.0 * lost / max(ev + lost, 1))
            line = ("%d %s %s cpu=%.3f idle=%.3f offered=%d events=%d lost=%d ns/event=%.0f"
                    % (r, e, k, c, idle, n[e], ev, lost, ns))
            if k == "record":
                bpe.setdefault((e, k), []).append(size / max(ev, 1))
                net.setdefault((e, k), []).append((size - isize) / max(ev, 1))
                _, _, pred, hist = specs(o.loop, n[e])[e]
                for rk, args in (("report", [out]), ("pred", [out, pred]), ("hist", ["--hist", out, hist])):
                    rc = report(ks, args)
                    rep.setdefault((e, rk), []).append(ev / rc if rc > 0 else 0)
                    line += " %s=%.0f/s" % (rk, ev / rc if rc > 0 else 0)
                line += " bytes/event=%.2f net=%.2f" % (size / max(ev, 1), (size - isize) / max(ev, 1))
            print(line, flush=True)
        print("# load", " ".join(open("/proc/loadavg").read().split()[:3]), flush=True)
    for f in os.listdir("/dev/shm"):
        if f.startswith(os.path.basename(base)):
            os.unlink(os.path.join("/dev/shm", f))
    print("# medians (min-max) of %d rounds" % o.rounds)
    for (e, k), xs in per.items():
        print("%s %s: %s ns/event, %s %% lost%s" % (e, k, med(xs), med(lostf[(e, k)]), ", %.2f bytes/event, %.2f less the idle run's file"
                                       % (statistics.median(bpe[(e, k)]), statistics.median(net[(e, k)]))
                                       if (e, k) in bpe else ""))
    for (e, k), xs in rep.items():
        print("%s report %s: %s events/s of report CPU" % (e, k, med(xs)))


if __name__ == "__main__":
    main()
