#!/usr/bin/env python3
"""User functions (u:BINARY:FUNC), ksnoop against bpftrace 0.27, one run.

    bench/ufunc.py --sid DIR [--rounds R] [--calls N] [--ksnoop PATH] [--many PATH]

Not part of bench/run yet: it prints the rows of docs/PERFORMANCE.md's
"User functions" table (markdown) and the machine's load before and after.
As root.  bpftrace is Debian sid's (0.27), run in the chroot
bench/sid-chroot makes (DIR), in a mount namespace of its own with /proc,
/sys and /dev bound in (gone when it exits).  Both tracers trace the same
file: the work directory is inside the chroot.

Rows, every round running every variant once in an order rotated by one:

  per call   ksb-loop ufunc N (bench/loop.c built with -g: ksb_ufunc(long
             seq, int tag), typed from its DWARF), untraced, then traced
             printing both arguments: `ksnoop 'u:BIN:ksb_ufunc(seq, tag)'`
             and bpftrace `uprobe:BIN:ksb_ufunc { print(args) }`; each
             traced run's added cost is against the untraced run just
             before it; tracers on CPU 0, the loop on CPU 1.
  attach     tests/uprog's `many` (1,000 functions mf_0000..mf_0999):
             `ksnoop -v 'u:BIN:mf_*'` (one uprobe.multi link),
             KSNOOP_FEATURES=-uprobe_multi (a uprobe each) and bpftrace
             `uprobe:BIN:mf_*`: exec until it says it is tracing, then
             SIGINT until it has exited (detach).
"""
import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
READY_TIMEOUT = 120.0   # a tracer that never says it is ready: a hang, not a row
STOP_TIMEOUT = 900.0    # 2,000 uprobe links took 230 s to detach here
POLL = 0.002


def in_chroot(sid, argv):
    """argv run in the sid chroot, /proc /sys /dev bound in a private mount namespace."""
    script = ('set -e; for d in proc sys dev; do mount --rbind /$d "$0/$d"; done; '
              'exec chroot "$0" "$@"')
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", script, sid] + argv


def wait_text(path, texts, proc, timeout=READY_TIMEOUT):
    """Until the file PATH holds one of TEXTS; the time it took, or raise."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        with open(path, errors="replace") as f:
            data = f.read()
        if any(t in data for t in texts):
            return time.monotonic()
        if proc.poll() is not None:
            raise RuntimeError(f"tracer exited ({proc.returncode}): {data[-500:]}")
        time.sleep(POLL)
    raise RuntimeError(f"no {texts} in {path} after {timeout} s")


class Tracer:
    """A tracer on CPU 0, its stdout and stderr in files, ready when a text appears."""

    def __init__(self, work, name, argv, ready, env=None):
        self.out = os.path.join(work, name + ".out")
        self.err = os.path.join(work, name + ".err")
        self.t_exec = time.monotonic()
        with open(self.out, "w") as o, open(self.err, "w") as e:
            self.proc = subprocess.Popen(["taskset", "-c", "0"] + argv, stdout=o, stderr=e,
                                         env=env, start_new_session=True)
        self.t_ready = wait_text(self.err, ready, self.proc)

    def stop(self):
        t0 = time.monotonic()
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            raise RuntimeError(f"{self.out}: not ended by SIGINT")
        return time.monotonic() - t0

    def lines(self, text):
        with open(self.out, errors="replace") as f:
            return sum(1 for line in f if text in line)


def loop_ns(loop, calls):
    out = subprocess.run([loop, "-C", "1", "ufunc", str(calls)], check=True,
                         capture_output=True, text=True).stdout
    return float(out.split()[0].split("=")[1])


def per_call(a, work, sid_work, loop, res):
    inner = os.path.join(sid_work, os.path.basename(loop))
    variants = {
        "ksnoop": lambda: Tracer(work, "k", [a.ksnoop, "-v", f"u:{loop}:ksb_ufunc(seq, tag)"],
                                 ["tracing"]),
        "bpftrace": lambda: Tracer(work, "b", in_chroot(a.sid, [
            "bpftrace", "-e", f"uprobe:{inner}:ksb_ufunc {{ print(args); }}"]), ["Attached"]),
    }
    marks = {"ksnoop": "-> ksb_ufunc", "bpftrace": ".seq"}
    names = list(variants)
    for r in range(a.rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            base = loop_ns(loop, a.calls)
            t = variants[name]()
            traced = loop_ns(loop, a.calls)
            # Every event printed before the stop: bounded by count, not by time.
            for _ in range(int(READY_TIMEOUT / 0.01)):
                if t.lines(marks[name]) >= a.calls:
                    break
                time.sleep(0.01)
            t.stop()
            res.setdefault(("call", name), []).append((traced - base, base, t.lines(marks[name])))


def attach(a, work, sid_work, many, res):
    inner = os.path.join(sid_work, os.path.basename(many))
    env_each = dict(os.environ, KSNOOP_FEATURES="-uprobe_multi")
    variants = {
        "ksnoop (uprobe.multi)": lambda: Tracer(work, "km", [a.ksnoop, "-v", f"u:{many}:mf_*"],
                                                ["tracing"]),
        "ksnoop (a uprobe each)": lambda: Tracer(work, "ke", [a.ksnoop, "-v", f"u:{many}:mf_*"],
                                                 ["tracing"], env=env_each),
        "bpftrace": lambda: Tracer(work, "bm", in_chroot(a.sid, [
            "bpftrace", "-e", f"uprobe:{inner}:mf_* {{ @n = count(); }}"]), ["Attached"]),
    }
    names = list(variants)
    for r in range(a.attach_rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            t = variants[name]()
            up = t.t_ready - t.t_exec
            down = t.stop()
            with open(t.err, errors="replace") as f:
                said = [l.strip() for l in f if "attach" in l.lower()][-1:]
            res.setdefault(("attach", name), []).append((up, down, said))


def med(xs):
    return statistics.median(xs), min(xs), max(xs)


def report(a, res, load0, load1):
    print(f"Machine: {os.cpu_count()} CPUs, load average {load0} before, {load1} after; "
          f"{a.rounds} rounds of {a.calls} calls, {a.attach_rounds} of attaching.\n")
    print("| per call, ksb_ufunc(seq, tag) printed | added ns/call (median, min–max) | events | ratio |")
    print("| --- | --- | --- | --- |")
    base = med([b for _, b, _ in res[("call", "ksnoop")] + res[("call", "bpftrace")]])
    print(f"| untraced | {base[0]:.1f} ns/call ({base[1]:.1f}–{base[2]:.1f}) | | |")
    kb = med([c for c, _, _ in res[("call", "bpftrace")]])[0]
    for name in ("ksnoop", "bpftrace"):
        m = med([c for c, _, _ in res[("call", name)]])
        ev = min(e for _, _, e in res[("call", name)])
        print(f"| {name} | {m[0]:.0f} ({m[1]:.0f}–{m[2]:.0f}) | ≥ {ev} of {a.calls} | "
              f"{m[0] / kb:.2f}× |")
    print()
    print("| 1,000 functions of `many` | exec → tracing, s | SIGINT → exit, s | says |")
    print("| --- | --- | --- | --- |")
    for (kind, name), rows in res.items():
        if kind != "attach":
            continue
        up, down = med([u for u, _, _ in rows]), med([d for _, d, _ in rows])
        print(f"| {name} | {up[0]:.2f} ({up[1]:.2f}–{up[2]:.2f}) | "
              f"{down[0]:.2f} ({down[1]:.2f}–{down[2]:.2f}) | {rows[-1][2][0] if rows[-1][2] else ''} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sid", required=True, help="the chroot bench/sid-chroot made")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--calls", type=int, default=20000)
    p.add_argument("--attach-rounds", type=int, default=1,
                   help="rounds of the attach rows (a uprobe each: minutes to detach)")
    p.add_argument("--ksnoop", default=os.path.join(ROOT, "build", "ksnoop"))
    p.add_argument("--many", default=os.path.join(ROOT, "build", "uprog", "many"))
    a = p.parse_args()
    a.sid = os.path.abspath(a.sid)
    sid_work = tempfile.mkdtemp(prefix="ksb-ufunc.", dir=os.path.join(a.sid, "tmp"))
    work = sid_work
    sid_work = "/" + os.path.relpath(sid_work, a.sid)
    loop = os.path.join(work, "ksb-loop")
    subprocess.run(["gcc", "-g", "-O2", "-static", "-Wall", "-Wextra", "-o", loop,
                    os.path.join(HERE, "loop.c")], check=True)
    many = os.path.join(work, "many")
    shutil.copy(a.many, many)
    res = {}
    load0 = open("/proc/loadavg").read().split()[:3]
    try:
        per_call(a, work, sid_work, loop, res)
        attach(a, work, sid_work, many, res)
    finally:
        load1 = open("/proc/loadavg").read().split()[:3]
    report(a, res, " ".join(load0), " ".join(load1))
    shutil.rmtree(work)


if __name__ == "__main__":
    sys.exit(main())
