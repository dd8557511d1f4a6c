"""bench/native.py: the tables measured on this machine (2, 3, 3b, 3c, 3d,
4, 4b, 5, 5b, 6's ksnoop info) and the perf profile.

Tracers on CPU 0, the workload on CPU 1, in every table: the scheduler
cannot then put both on one CPU in some runs and not in others. Every
traced run is preceded by an untraced run of the same loop (base=): the
added cost is taken against that neighbour. A run's fields are what the
workload printed (key=value), ksnoop's summary (printed=, lost=) and
rc=; a failed run has error=WHY:END-OF-STDERR instead.
"""

import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

import proc
from proc import HeldWorkload, Tracer
from report import parse_fields
from session import TASKSET_TRACER, rotate, say

BPFTRACE_LIMIT_S = 300      # a bpftrace run that has not ended by then hangs
BULK_LIMIT_S = 120
STARTUP_LIMIT_S = 60        # ksb-startup -t: exec to first event, at most
DRAIN_LIMIT_S = 120         # -n ends a drain run; if events went missing it would wait for ever
DRAIN_BUFFER = 256 << 20

# ---- 3. tracepoint, 3b. filtered out against a bare probe, 3c. aggregation
TP_SPEC = "tp:sys_enter(id)"
BT_TP = r'tracepoint:raw_syscalls:sys_enter /pid == cpid/ { printf("-> sys_enter id=%ld\n", args->id); }'
# The bare probe is bench/bare.bpf.c (a tp_btf program that returns at once)
# loaded by bench/bare.c; ksnoop's predicate never holds.
FILT_SPEC = "tp:sys_enter(id == 12345)"
# Each call of the loop passes the predicate: per event, -s adds a kernel
# stack to each record, --count and --hist record nothing (a map update in
# BPF); against the same spec filtered out, and bpftrace's kstack, count()
# and hist() with the same filter. ksnoop on the held workload's pid (-p),
# bpftrace on its child's (-c, /pid == cpid/).
AGG_SPEC = "tp:sys_enter(id == 110)"            # getppid on x86-64
AGG_HIST_SPEC = "tp:sys_enter(id == 110, id)"
AGG_FILT_SPEC = "tp:sys_enter(id == 12345)"
BT_AGG_FILTER = "tracepoint:raw_syscalls:sys_enter /pid == cpid && args->id == 110/"
BT_STACK = BT_AGG_FILTER + r' { printf("%s\n", kstack); }'
BT_COUNT = BT_AGG_FILTER + " { @calls = count(); }"
BT_HIST = BT_AGG_FILTER + " { @ids = hist(args->id); }"
AGG_KSNOOP = {
    "ksnoop-filtered": [AGG_FILT_SPEC],
    "ksnoop-stack": ["-s", AGG_SPEC],
    "ksnoop-count": ["--count", AGG_SPEC],
    "ksnoop-hist": ["--hist", AGG_HIST_SPEC],
}
AGG_BPFTRACE = {"bpftrace-kstack": BT_STACK, "bpftrace-count": BT_COUNT, "bpftrace-hist": BT_HIST}
AGG_VARIANTS = ["untraced", "ksnoop-filtered", "ksnoop-stack", "bpftrace-kstack", "ksnoop-count",
                "bpftrace-count", "ksnoop-hist", "bpftrace-hist"]

# ---- 3d. a system call pair: the entry values with the return, one event per call
# ksb-loop openat on a path that does not exist (in the work directory):
# each call fails with ENOENT, one system call per iteration. ksnoop's
# sys: attaches syscalls:sys_enter_openat and sys_exit_openat and stashes
# the entry by task; bpftrace does the same by hand (a map keyed by tid).
# ksnoop on the held workload's pid (-p), bpftrace on its child's (-c).
# sys:openat(filename, return) prints an entry and a return event per
# call; with a predicate on return (true for every call here) the entry's
# values are kept and printed with the return, one event per call, as
# bpftrace's program prints one line.
SYS_SPEC = "sys:openat(filename, return)"
SYS_PRED_SPEC = "sys:openat(filename, return < 0)"
SYS_KSNOOP = {"ksnoop": [SYS_SPEC], "ksnoop-pred": [SYS_PRED_SPEC]}
SYS_VARIANTS = ["untraced", "ksnoop", "ksnoop-pred", "bpftrace"]
SYS_MISSING = "no-such-file"
BT_SYS = (r'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @f[tid] = args->filename; } '
          r'tracepoint:syscalls:sys_exit_openat /@f[tid]/ '
          r'{ printf("%s %d\n", str(@f[tid]), args->ret); delete(@f[tid]); }')

# ---- 2. USDT
# The ksnoop row is measured only when `ksnoop info usdt BIN` lists the
# probe and a one-event trial of `ksnoop usdt` prints it.
USDT_TRIES = 100


def usdt_probe(loop):
    return "%s:ksb:tick" % loop


def bt_usdt(loop):
    return r'usdt:%s { printf("-> ksb:tick arg0=%%ld arg1=%%s arg2=%%lu\n", arg0, str(arg1), arg2); }' \
        % usdt_probe(loop)


def bt_usdt_bare(loop):
    return "usdt:%s { }" % usdt_probe(loop)


def ks_usdt_spec(loop):
    return "%s(arg0, arg1:str, arg2)" % usdt_probe(loop)


# ---- 4. consumer throughput: generator (ksb-loop flood) on CPU 1, ksnoop on CPU 0
TPUT_SMALL = "tp:sys_enter(id)"
TPUT_LARGE = "tp:sys_enter(regs)"
TPUT_ARGS = {
    "text-small": [TPUT_SMALL], "json-small": ["-j", TPUT_SMALL],
    "text-large": [TPUT_LARGE], "json-large": ["-j", TPUT_LARGE],
}
TPUT_ORDER = ["text-small:max", "json-small:max", "text-large:max", "json-large:max",
              "text-small:fixed", "json-small:fixed", "text-large:fixed", "json-large:fixed",
              "text-small:drain", "json-small:drain"]

# ---- 5. start-up; 5b. bulk USDT attach: every hotspot probe of the JVM
BT_TP_SU = r'tracepoint:raw_syscalls:sys_enter /pid == {PID}/ { printf("-> sys_enter id=%ld\n", args->id); }'
JVM_LIB = Path("/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so")
BULK_ALL = "%s:hotspot:*" % JVM_LIB
BULK_ONE = "%s:hotspot:thread__start" % JVM_LIB
BT_BULK = "usdt:%s:hotspot:* { } interval:s:1 { exit(); }" % JVM_LIB

# ---- 6. ksnoop info: 1,000 functions spread over the kernel's names
INFO_EVERY = 37
INFO_MAX = 1000


def record_commands(s):
    """Every native command line, for the report (as bench/run ran them)."""
    z, loop, bt = s.sizes, s.tools.loop, s.tools.bt_shown

    def bt_loop(args):
        return "-c 'ksb-loop -C 1 -o RES %s' >/dev/null" % args

    cmds = [
        ("tp-untraced", "ksb-loop -C 1 syscall %d" % z.tp_n),
        ("tp-ksnoop", "taskset -c 0 ksnoop -v -p PID '%s' >/dev/null   # PID: the ksb-loop process" % TP_SPEC),
        ("tp-bpftrace", "taskset -c 0 %s -e '%s' %s" % (bt, BT_TP, bt_loop("syscall %d" % z.tp_n))),
        ("tpfilt-untraced", "ksb-loop -C 1 syscall %d" % z.filt_n),
        ("tpfilt-bare", "taskset -c 0 ksb-bare bare.bpf.o   # bench/bare.c loading bench/bare.bpf.c: "
                        'SEC("tp_btf/sys_enter") { return 0; }'),
        ("tpfilt-ksnoop-filtered", "taskset -c 0 ksnoop -v '%s' >/dev/null" % FILT_SPEC),
        ("tpfilt-bare-event", "taskset -c 0 ksb-bare bare-event.bpf.o   # bench/bare.bpf.c, KSB_BARE=1: "
                              "one 16-byte bpf_ringbuf_output() a call, read every 10 ms"),
        ("tpfilt-bare-stack", "taskset -c 0 ksb-bare bare-stack.bpf.o   # KSB_BARE=2: the same record "
                              "with bpf_get_stackid() of the kernel stack"),
        ("tpfilt-bare-count", "taskset -c 0 ksb-bare bare-count.bpf.o   # KSB_BARE=3: one add to a "
                              "per-CPU array a call"),
        ("agg-untraced", "ksb-loop -C 1 syscall %d" % z.tp_n),
    ]
    for v, args in AGG_KSNOOP.items():
        cmds.append(("agg-" + v, "taskset -c 0 ksnoop -v -p PID %s >/dev/null"
                     % " ".join(a if a.startswith("-") else "'%s'" % a for a in args)))
    for v, prog in AGG_BPFTRACE.items():
        cmds.append(("agg-" + v, "taskset -c 0 %s -e '%s' %s" % (bt, prog, bt_loop("syscall %d" % z.tp_n))))
    sys_loop = "openat %d WORK/%s" % (z.sys_n, SYS_MISSING)
    cmds += [
        ("sys-untraced", "ksb-loop -C 1 %s   # WORK: bench/run's work directory; the file does not exist"
         % sys_loop),
        ("sys-ksnoop", "taskset -c 0 ksnoop -v -p PID '%s' >/dev/null   # PID: the ksb-loop process" % SYS_SPEC),
        ("sys-ksnoop-pred", "taskset -c 0 ksnoop -v -p PID '%s' >/dev/null" % SYS_PRED_SPEC),
        ("sys-bpftrace", "taskset -c 0 %s -e '%s' %s" % (bt, BT_SYS, bt_loop(sys_loop))),
    ]
    usdt_loop = "usdt %d" % z.usdt_n
    cmds += [
        ("usdt-untraced", "ksb-loop -C 1 " + usdt_loop),
        ("usdt-bpftrace", "taskset -c 0 %s -e '%s' %s"
         % (bt, bt_usdt(loop).replace(str(loop), "ksb-loop"), bt_loop(usdt_loop))),
        ("usdt-bpftrace-bare", "taskset -c 0 %s -e '%s' %s"
         % (bt, bt_usdt_bare(loop).replace(str(loop), "ksb-loop"), bt_loop(usdt_loop))),
        ("usdt-ksnoop", "taskset -c 0 ksnoop -v usdt '%s' >/dev/null"
         % ks_usdt_spec(loop).replace(str(loop), "ksb-loop")),
    ]
    for v, args in TPUT_ARGS.items():
        flags = "-j " if args[0] == "-j" else ""
        cmds.append(("tput-" + v, "taskset -c 0 ksnoop -v -p PID %s'%s' | SINK   # SINK: bench/run reads "
                     "stdout in 1 MiB reads, keeps its end (-j's summary record)" % (flags, args[-1])))
    cmds += [
        ("tput-gen-max", "ksb-loop -C 1 flood %d" % z.flood_secs),
        ("tput-gen-fixed", "ksb-loop -C 1 flood %d %d" % (z.flood_secs, z.fixed_rate)),
        ("tput-drain", "taskset -c 0 ksnoop -v --buffer %d -n %d -p PID SPEC | SINK   # SIGSTOPped while "
                       "'ksb-loop syscall %d' runs, then SIGCONT; timed until it exits"
         % (DRAIN_BUFFER, z.drain_n, z.drain_n)),
        ("su-attach-ksnoop", "ksb-startup -a 'tracing ' -w none -- ksnoop -v -p PID '%s'   "
                             "# until ksnoop's stderr says 'tracing'" % TP_SPEC),
        ("su-tp-ksnoop", "ksnoop -p PID '%s'" % TP_SPEC),
        ("su-tp-bpftrace", "%s -e '%s'" % (bt, BT_TP_SU.replace("{PID}", "PID"))),
        ("bulk-ksnoop-all", "ksnoop usdt --duration 1 '%s'" % BULK_ALL),
        ("bulk-ksnoop-one", "ksnoop usdt --duration 1 '%s'" % BULK_ONE),
        ("bulk-bpftrace-all", "%s -e '%s'" % (bt, BT_BULK)),
    ]
    for key, text in cmds:
        s.command(key, text)


# ---- building blocks ------------------------------------------------------------

@dataclass
class Traced:
    """A traced run's parts: the workload's fields, ksnoop's summary, its
    exit status and the seconds from release to its exit; or an error."""
    output: dict = field(default_factory=dict)
    summary: dict = field(default_factory=dict)
    rc: int = 0
    wall: float = 0.0
    error: str = ""

    def fields(self, wall=False):
        if self.error:
            return {"error": self.error}
        timing = {"wall": "%.4f" % self.wall} if wall else {}
        return {**self.output, **self.summary, **timing, "rc": self.rc}


def base(s, *loop_args):
    """The untraced neighbour: ns per iteration of the same loop, as base=."""
    return {"base": proc.ns_per_iter(proc.output(s.tools.loop_cmd(*loop_args)))}


def untraced(s, *loop_args):
    return parse_fields(proc.output(s.tools.loop_cmd(*loop_args)))


def ksnoop_around(s, out, kargs, workload, sink=False):
    """A held workload, ksnoop -p attached to it on CPU 0, the workload
    released, ksnoop stopped.  SINK: its stdout read (for -j's summary
    record), not sent to /dev/null."""
    held = HeldWorkload(workload, s.path(out))
    tracer = Tracer.start([*TASKSET_TRACER, s.tools.ksnoop, "-v", "-p", held.pid, *kargs],
                          s.path("ksnoop.err"), sink)
    if not tracer.wait_ready():
        tracer.kill()
        held.kill()
        return Traced(error=tracer.failure("ksnoop_did_not_attach"))
    t0 = time.monotonic()
    held.release()
    rc = tracer.stop()
    return Traced(parse_fields(held.output()), tracer.summary(), rc, time.monotonic() - t0)


def tracer_around_loop(s, tracer_argv, err, loop_args, why="did_not_attach"):
    """A tracer on CPU 0 until it says it is tracing, the loop on CPU 1,
    then SIGINT (the tracer traces every process: no -p)."""
    tracer = Tracer.start([*TASKSET_TRACER, *tracer_argv], s.path(err))
    if not tracer.wait_ready():
        tracer.kill()
        return Traced(error=tracer.failure(why))
    out = proc.output(s.tools.loop_cmd(*loop_args))
    rc = tracer.stop()
    return Traced(parse_fields(out), proc.summary_fields(tracer.err), rc)


def bpftrace_loop(s, prog, res, *loop_args):
    """bpftrace runs the loop itself (-c), after attaching; the loop's
    fields from the file it wrote (-o)."""
    res = s.path(res)
    res.unlink(missing_ok=True)
    child = " ".join(str(a) for a in s.tools.loop_cmd("-o", res, *loop_args))
    with open(s.path("bt.err"), "w") as err:
        proc.run([*TASKSET_TRACER, *s.tools.bt, "-e", prog, "-c", child],
                 limit=BPFTRACE_LIMIT_S, stderr=err)
    text = proc.file_text(res)
    if not text:
        return {"error": "bpftrace_failed:" + proc.oneline(s.path("bt.err"))}
    return parse_fields(text)


# ---- 3. tracepoint: ns per syscall -------------------------------------------------

def loop_variant(s, table, v, r, loop_args, ksnoop, bpftrace):
    """One run of TABLE: the loop untraced, under ksnoop -p with
    KSNOOP[V]'s arguments (held, then released) or under bpftrace -c
    running BPFTRACE[V]; traced runs with base=."""
    if v == "untraced":
        s.result(table, v, r, untraced(s, *loop_args))
        return
    b = base(s, *loop_args)
    if v in ksnoop:
        fields = ksnoop_around(s, table + ".out", ksnoop[v], s.tools.loop_cmd(*loop_args)).fields()
    else:
        fields = bpftrace_loop(s, bpftrace[v], table + ".res", *loop_args)
    s.result(table, v, r, fields if "error" in fields else {**fields, **b})


def tp_variant(s, v, r):
    loop_variant(s, "tp", v, r, ["syscall", s.sizes.tp_n], {"ksnoop": [TP_SPEC]}, {"bpftrace": BT_TP})


# ---- 3b. tracepoint: a filtered-out call against a bare probe ----------------------

# bench/bare.bpf.c built with KSB_BARE = 0, 1, 2, 3: the bare probe, and
# the floors of an event, an event with the kernel stack, a count.
BARE_OBJS = ("bare.bpf.o", "bare-event.bpf.o", "bare-stack.bpf.o", "bare-count.bpf.o")


def build_bare(s):
    """bench/bare.c and bare.bpf.c (clang and libbpf's headers, ksnoop's
    own build dependencies); False if they do not build."""
    arch = proc.output(["gcc", "-print-multiarch"]).strip()
    libbpf = proc.output(["pkg-config", "--cflags", "--libs", "libbpf"], stderr=subprocess.DEVNULL)
    steps = [["clang", "-O2", "-g", "-target", "bpf", "-I/usr/include/" + arch, "-DKSB_BARE=%d" % i,
              "-c", "bench/bare.bpf.c", "-o", s.path(obj)] for i, obj in enumerate(BARE_OBJS)]
    steps.append(["gcc", "-O2", "-Wall", "-Wextra", "bench/bare.c", "-o", s.path("ksb-bare"),
                  *(libbpf.split() or ["-lbpf"])])
    with open(s.path("bare.build"), "w") as log:
        return all(proc.run(step, stderr=log) == 0 for step in steps)


def filt_variant(s, v, r):
    n = s.sizes.filt_n
    if v == "untraced":
        s.result("tpfilt", v, r, untraced(s, "syscall", n))
        return
    b = base(s, "syscall", n)
    tracer = {"bare": [s.path("ksb-bare"), s.path("bare.bpf.o")],
              "bare-event": [s.path("ksb-bare"), s.path("bare-event.bpf.o")],
              "bare-stack": [s.path("ksb-bare"), s.path("bare-stack.bpf.o")],
              "bare-count": [s.path("ksb-bare"), s.path("bare-count.bpf.o")],
              "ksnoop-filtered": [s.tools.ksnoop, "-v", FILT_SPEC]}[v]
    t = tracer_around_loop(s, tracer, "bg.err", ["syscall", n])
    s.result("tpfilt", v, r, {"error": t.error} if t.error else {**t.output, **t.summary, **b})


# ---- 3c. stacks, counts and histograms: ns per syscall ------------------------------

def agg_variant(s, v, r):
    loop_variant(s, "agg", v, r, ["syscall", s.sizes.tp_n], AGG_KSNOOP, AGG_BPFTRACE)


# ---- 3d. a system call pair: ns per openat -------------------------------------------

def sys_variant(s, v, r):
    loop_variant(s, "sys", v, r, ["openat", s.sizes.sys_n, s.path(SYS_MISSING)], SYS_KSNOOP,
                 {"bpftrace": BT_SYS})


# ---- 2. USDT: ns per probe hit ------------------------------------------------------

def ksnoop_has_usdt(s):
    """Does `ksnoop info usdt` list ksb:tick, and a one-event trial print it?"""
    info = proc.output([s.tools.ksnoop, "info", "usdt", s.tools.loop], stderr=subprocess.DEVNULL)
    if not re.search(r"^ksb +tick ", info, re.M):
        return False
    trial = s.path("usdt.try")
    with open(trial, "w") as out, open(s.path("usdt.try.err"), "w") as err:
        p = proc.spawn([s.tools.ksnoop, "-n", "1", "usdt", ks_usdt_spec(s.tools.loop)],
                       stdout=out, stderr=err)
    for _ in range(USDT_TRIES):
        if "ksb:tick" in proc.file_text(trial) or not proc.alive(p):
            break
        proc.run([s.tools.loop, "usdt", "1"])
        time.sleep(proc.POLL_S)
    proc.kill(p)
    return "ksb:tick" in proc.file_text(trial)


def usdt_variant(s, v, r):
    n, loop = s.sizes.usdt_n, s.tools.loop
    if v == "untraced":
        s.result("usdt", v, r, untraced(s, "usdt", n))
        return
    b = base(s, "usdt", n)
    if v == "ksnoop":
        fields = tracer_around_loop(s, [s.tools.ksnoop, "-v", "usdt", ks_usdt_spec(loop)], "ks.err",
                                    ["usdt", n], why="ksnoop_did_not_attach").fields()
    else:
        prog = bt_usdt(loop) if v == "bpftrace" else bt_usdt_bare(loop)
        fields = bpftrace_loop(s, prog, "usdt.res", "usdt", n)
    s.result("usdt", v, r, fields if "error" in fields else {**fields, **b})


# ---- 4. consumer throughput -----------------------------------------------------------

def tput_live(s, v, r, rate):
    """ksnoop printing what the generator offers: as fast as it can (rate
    0) or paced."""
    table = "tput-max" if rate == 0 else "tput-fixed"
    t = ksnoop_around(s, "gen.out", TPUT_ARGS[v], s.tools.loop_cmd("flood", s.sizes.flood_secs, rate),
                      sink=True)
    s.result(table, v, r, t.fields(wall=True))


def tput_drain(s, v, r):
    """Fill a big buffer while ksnoop is stopped, then time how long it
    takes to print DRAIN_N events (-n, then it exits)."""
    n = s.sizes.drain_n
    held = HeldWorkload(s.tools.loop_cmd("syscall", n), s.path("gen.out"))
    tracer = Tracer.start([*TASKSET_TRACER, s.tools.ksnoop, "-v", "--buffer", DRAIN_BUFFER, "-n", n,
                           "-p", held.pid, *TPUT_ARGS[v]], s.path("drain.err"), sink=True)
    if not tracer.wait_ready():
        tracer.kill()
        held.kill()
        s.result("tput-drain", v, r, {"error": tracer.failure("ksnoop_did_not_attach")})
        return
    tracer.signal(signal.SIGSTOP)
    held.release()
    t0 = time.monotonic()
    tracer.signal(signal.SIGCONT)
    rc = proc.reap(tracer.proc) if proc.wait_exit(tracer.proc, DRAIN_LIMIT_S) else tracer.stop()
    wall = time.monotonic() - t0
    s.result("tput-drain", v, r, {**tracer.summary(), "wall": "%.4f" % wall, "rc": rc})


def measure_throughput(s):
    for r in range(s.opts.rounds):
        for item in rotate(TPUT_ORDER, r):
            v, mode = item.split(":")
            if mode == "drain":
                tput_drain(s, v, r)
            else:
                tput_live(s, v, r, 0 if mode == "max" else s.sizes.fixed_rate)


# ---- 5. start-up, native: tracepoint spec ------------------------------------------------

def attach_breakdown(err_text):
    """Where exec -> attached went, from the arrival times (+MS) of ksnoop
    -v's lines: resolved (spec parsed, BTF read), loaded + attached."""
    fields = {}
    for n, line in enumerate(err_text.splitlines()):
        words = line.split()
        if n == 0:
            fields["resolved_ms"] = words[0].removeprefix("+") if words else ""
        if " loaded in " not in line:
            continue
        fields["loaded_ms"] = words[0].removeprefix("+")
        for i in range(len(words) - 1):
            after = words[i + 2] if i + 2 < len(words) else ""
            if words[i + 1] == "in" and words[i] in ("loaded", "attached"):
                fields["load_s" if words[i] == "loaded" else "attach_s"] = after
    return fields


def startup_attach(s, r):
    """Exec to attached: until ksnoop -v says "tracing" on stderr (no
    time(1), no event)."""
    err = s.path("sua.err")
    out = proc.output([s.tools.startup, "-a", "tracing ", "-w", "none", "-t", STARTUP_LIMIT_S, "-e", err,
                       "--", s.tools.ksnoop, "-v", "-p", "{PID}", TP_SPEC], limit=3 * STARTUP_LIMIT_S)
    if not re.match(r"attached_ms=[0-9]", out):
        s.result("startup-attach", "ksnoop", r, {"error": "not_attached:" + proc.oneline(err)})
        return
    s.result("startup-attach", "ksnoop", r, {**parse_fields(out), **attach_breakdown(proc.file_text(err))})


def startup_native(s, v, r):
    """Exec to first event printed and peak RSS (ksb-startup)."""
    if v == "attach":
        startup_attach(s, r)
        return
    tracer = {"ksnoop": [s.tools.ksnoop, "-p", "{PID}", TP_SPEC],
              "bpftrace": [*s.tools.bt, "-e", BT_TP_SU]}[v]
    err = s.path("su.err")
    out = proc.output([s.tools.startup, "-m", "sys_enter", "-w", "syscall", "-t", STARTUP_LIMIT_S,
                       "-r", s.path("rss"), "-e", err, "--", *tracer], limit=3 * STARTUP_LIMIT_S)
    if out.startswith("startup_ms=-") or not out.strip():
        s.result("startup-tp", v, r, {"error": "no_event:" + proc.oneline(err)})
    else:
        s.result("startup-tp", v, r, parse_fields(out))


# ---- 5b. bulk USDT attach -------------------------------------------------------------

def bulk_variant(s, v, r):
    """Wall time of a whole one-second run: attach, one second, detach, exit."""
    argv = {"ksnoop-all": [s.tools.ksnoop, "usdt", "--duration", "1", BULK_ALL],
            "ksnoop-one": [s.tools.ksnoop, "usdt", "--duration", "1", BULK_ONE],
            "bpftrace-all": [*s.tools.bt, "-e", BT_BULK]}[v]
    t0 = time.monotonic()
    with open(s.path("bulk.err"), "w") as err:
        rc = proc.run(argv, limit=BULK_LIMIT_S, stderr=err)
    if rc == 0:
        s.result("usdt-bulk", v, r, {"wall_ms": int((time.monotonic() - t0) * 1000)})
    else:
        s.result("usdt-bulk", v, r, {"error": "rc_%d:%s" % (rc, proc.oneline(s.path("bulk.err")))})


# ---- tables 2, 3, 4, 5 in rounds --------------------------------------------------------

def measure(s):
    """Every native table, interleaved; True if the bare probe built (the
    profile's filtered-out part needs it)."""
    usdt_variants = ["untraced", "bpftrace-bare", "bpftrace"]
    s.data.features["ksnoop-usdt"] = ksnoop_has_usdt(s)
    if s.data.features["ksnoop-usdt"]:
        usdt_variants.append("ksnoop")
    else:
        say("ksnoop cannot trace USDT probes yet: ksnoop USDT row not measured")
    filt_variants = []
    if build_bare(s):
        filt_variants = ["untraced", "bare", "ksnoop-filtered", "bare-event", "bare-stack", "bare-count"]
    else:
        say("cannot build the bare tp_btf probe (clang, libbpf-dev): " + proc.oneline(s.path("bare.build")))
    say("native: tracepoint, USDT, start-up (%d rounds)" % s.opts.rounds)
    s.phase("setup")
    for r in range(s.opts.rounds):
        measure_round(s, r, filt_variants, usdt_variants)
    if not JVM_LIB.exists():
        say("no %s (openjdk-17-jre-headless): bulk USDT attach not measured" % JVM_LIB)
    s.phase("native")
    say("native: consumer throughput (%d rounds)" % s.opts.rounds)
    measure_throughput(s)
    s.phase("tput")
    return bool(filt_variants)


def measure_round(s, r, filt_variants, usdt_variants):
    for v in rotate(["untraced", "ksnoop", "bpftrace"], r):
        tp_variant(s, v, r)
    for v in rotate(filt_variants, r) if filt_variants else []:
        filt_variant(s, v, r)
    for v in rotate(AGG_VARIANTS, r):
        agg_variant(s, v, r)
    for v in rotate(SYS_VARIANTS, r):
        sys_variant(s, v, r)
    for v in rotate(usdt_variants, r):
        usdt_variant(s, v, r)
    for v in rotate(["ksnoop", "bpftrace", "attach"], r):
        startup_native(s, v, r)
    if JVM_LIB.exists():
        for v in rotate(["ksnoop-all", "ksnoop-one", "bpftrace-all"], r):
            bulk_variant(s, v, r)


# ---- 8. --track: an untracked call against a filtered-out one (tracepoint) ----------

TRACK_SPEC = "tp:sys_enter(struct pt_regs *r, id == 12345)"   # binds r by type, never holds
TRACK_ARGS = ["--track", "r", TRACK_SPEC]


def track_variant(s, v, r):
    """Table 8's native row: the getppid() loop untraced, under today's
    filtered-out tp:sys_enter (table 3b's spec) or under --track with the
    same predicate and a pointer bound by type (nothing is ever tracked)."""
    n = s.sizes.filt_n
    if v == "untraced":
        s.result("tracknat", v, r, untraced(s, "syscall", n))
        return
    b = base(s, "syscall", n)
    extra = TRACK_ARGS if v == "untracked" else [FILT_SPEC]
    t = tracer_around_loop(s, [s.tools.ksnoop, "-v", *extra], "bg.err", ["syscall", n])
    s.result("tracknat", v, r, {"error": t.error} if t.error else {**t.output, **t.summary, **b})


def measure_track(s):
    """Table 8's native rows, interleaved (o.rounds rounds)."""
    say("native: --track, an untracked tp:sys_enter call against a filtered-out one (%d rounds)"
        % s.opts.rounds)
    s.phase("setup5")
    n = s.sizes.filt_n
    s.command("tracknat-untraced", "ksb-loop -C 1 syscall %d" % n)
    s.command("tracknat-filtered", "taskset -c 0 ksnoop -v '%s' >/dev/null" % FILT_SPEC)
    s.command("tracknat-untracked", "taskset -c 0 ksnoop -v --track r '%s' >/dev/null" % TRACK_SPEC)
    for r in range(s.opts.rounds):
        for v in rotate(["untraced", "filtered", "untracked"], r):
            track_variant(s, v, r)
    s.phase("tracknat")


# ---- profile: where ksnoop's time goes (perf) ---------------------------------------------

PERF_LIMIT_S = 600
PERF_SYM = re.compile(r"^ +[0-9.]+% +[0-9.]+% +\[\.\]")
PERF_SYM_SKIP = re.compile(r"_start|__libc_start|\] main$|0x0000")
PERF_SELF = re.compile(r"^ +[0-9.]+% ")
PERF_SELF_SKIP = re.compile(r"\] 0x[0-9a-f]+$")
PERF_FILT_LINES = 14


def perf_syms(s, data):
    """User-space symbols of the ksnoop process by "children" share."""
    text = proc.output(["perf", "report", "-i", s.path(data), "--comm", "ksnoop", "--children",
                        "--sort", "sym", "--stdio", "-g", "none"], limit=PERF_LIMIT_S,
                       stderr=subprocess.DEVNULL)
    return [line for line in text.splitlines() if PERF_SYM.search(line) and not PERF_SYM_SKIP.search(line)]


def profile_consumer(s, name):
    """perf attached to a running ksnoop (after it has started), so only
    the printing is in the profile."""
    if name == "small":
        held = HeldWorkload(s.tools.loop_cmd("syscall", s.sizes.drain_n), s.path("gen.out"))
        kargs = ["--buffer", DRAIN_BUFFER, "-p", held.pid, TPUT_SMALL]
    else:
        held = HeldWorkload(s.tools.loop_cmd("flood", 2), s.path("gen.out"))
        kargs = ["-p", held.pid, TPUT_LARGE]
    tracer = Tracer.start([*TASKSET_TRACER, s.tools.ksnoop, "-v", *kargs], s.path("prof.err"))
    if not tracer.wait_ready():
        tracer.kill()
        held.kill()
        return
    perf = proc.spawn(["perf", "record", "-q", "-F", "999", "--call-graph", "dwarf,16384",
                       "-o", s.path("perf." + name), "-p", tracer.proc.pid])
    time.sleep(0.5)
    held.release()
    time.sleep(0.5)
    tracer.stop()
    proc.wait_exit(perf, 60)
    proc.kill(perf)
    s.listing("prof." + name, perf_syms(s, "perf." + name))


def profile_filtered(s):
    """A filtered-out tracepoint call: perf on the workload's CPU, kernel
    and user symbols by self time."""
    tracer = Tracer.start([*TASKSET_TRACER, s.tools.ksnoop, "-v", FILT_SPEC], s.path("bg.err"))
    if tracer.wait_ready():
        proc.run(["perf", "record", "-q", "-C", "1", "-o", s.path("perf.filt"), "--",
                  *s.tools.loop_cmd("syscall", s.sizes.filt_n)], limit=PERF_LIMIT_S)
        text = proc.output(["perf", "report", "-i", s.path("perf.filt"), "--sort", "sym", "--stdio"],
                           limit=PERF_LIMIT_S, stderr=subprocess.DEVNULL)
        lines = [line for line in text.splitlines()
                 if PERF_SELF.search(line) and not PERF_SELF_SKIP.search(line)]
        s.listing("prof.filt", lines[:PERF_FILT_LINES])
    tracer.stop()


def profile(s, with_filtered):
    say("profile: ksnoop start-up and consumer under perf")
    proc.run(["perf", "record", "-q", "-F", "4999", "--call-graph", "dwarf,16384",
              "-o", s.path("perf.startup"), "--", s.tools.startup, "-m", "sys_enter", "-w", "syscall",
              "-t", STARTUP_LIMIT_S, "-e", "/dev/null", "--", s.tools.ksnoop, "-p", "{PID}", TP_SPEC],
             limit=PERF_LIMIT_S)
    s.listing("prof.startup", perf_syms(s, "perf.startup"))
    profile_consumer(s, "small")
    profile_consumer(s, "large")
    if with_filtered:
        profile_filtered(s)
    s.phase("profile")


# ---- 6. ksnoop info of one function and of 1,000 ----------------------------------------

def info_functions(s):
    """1,000 functions spread over the kernel's names (every 37th, sorted)."""
    text = proc.output([s.tools.ksnoop, "info", "*"], stderr=subprocess.DEVNULL)
    names = []
    for n, line in enumerate(text.splitlines(), 1):
        name = re.sub(r".*[ *]", "", line.split("(", 1)[0])
        if name.strip() and n % INFO_EVERY == 0:
            names.append(name)
    return names[:INFO_MAX]


def info_variant(s, v, r, funcs):
    """`ksnoop info` of one function or of 1,000, or bcc's of the same one."""
    argv = {"one": [s.tools.ksnoop, "info", funcs[0]],
            "many": [s.tools.ksnoop, "info", *funcs],
            "bcc-one": [*s.tools.bcc, "info", funcs[0]]}[v]
    t0 = time.monotonic()
    with open(s.path("info.err"), "w") as err:
        rc = proc.run(argv, stderr=err)
    if rc == 0:
        s.result("info", v, r, {"wall_ms": int((time.monotonic() - t0) * 1000),
                                "funcs": len(funcs) if v == "many" else 1})
    else:
        s.result("info", v, r, {"error": "rc_%d:%s" % (rc, proc.oneline(s.path("info.err")))})


def measure_info(s):
    funcs = info_functions(s)
    if not funcs:
        say("ksnoop info '*' listed nothing: info not measured")
        return
    say("native: ksnoop info of %d functions against one, and bcc's ksnoop info of one (%d rounds)"
        % (len(funcs), s.opts.rounds))
    s.command("info-one", "ksnoop info " + funcs[0])
    s.command("info-many", "ksnoop info FUNC... (%d functions: every 37th of 'ksnoop info \"*\"')" % len(funcs))
    s.command("info-bcc-one", "%s info %s   # bcc's ksnoop (libbpf-tools)"
              % ("chroot SID ksnoop" if s.tools.sid else s.tools.bcc_ksnoop, funcs[0]))
    for r in range(s.opts.rounds):
        for v in rotate(["one", "many", "bcc-one"], r):
            info_variant(s, v, r, funcs)


# ---- 6b. every tracepoint listed: ksnoop info 'tp:*' against bpftrace -l -----------------

# Both listers run the same way: in a mount namespace of their own where
# tracefs is mounted (bpftrace reads its event list there; ksnoop reads BTF),
# timed inside it, their output counted through a pipe.
TP_LIST_SH = ('mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing '
              '|| exit 3; t0=$(date +%s%N); n=$("$@" 2>/dev/null | wc -l); t1=$(date +%s%N); '
              'echo "wall_us=$(( (t1 - t0) / 1000 )) lines=$n"')


def tp_list_variant(s, v, r):
    """One listing of every tracepoint, by ksnoop or by bpftrace."""
    argv = {"ksnoop": [s.tools.ksnoop, "info", "tp:*"],
            "bpftrace": [*s.tools.bt, "-l", "tracepoint:*"]}[v]
    out = proc.output(["unshare", "-m", "--propagation", "private", "sh", "-c", TP_LIST_SH,
                       "sh", *argv], stderr=subprocess.DEVNULL)
    fields = parse_fields(out)
    if not fields.get("lines") or fields["lines"] == "0":
        fields = {"error": "listed_nothing:" + (out.strip() or "no_output")}
    s.result("tplist", v, r, fields)


def measure_tp_list(s):
    variants = ["ksnoop"] + (["bpftrace"] if s.tools.bt else [])
    say("native: ksnoop info 'tp:*' against bpftrace -l 'tracepoint:*' (%d rounds)" % s.opts.rounds)
    s.command("tplist-ksnoop", "ksnoop info 'tp:*'")
    s.command("tplist-bpftrace", "%s -l 'tracepoint:*'" % s.tools.bt_shown)
    for r in range(s.opts.rounds):
        for v in rotate(variants, r):
            tp_list_variant(s, v, r)



# ---- 6c. shell completion: `ksnoop __complete WORD...`, one process per <Tab> ------------

# What a <Tab> asks, one of each kind; the words after "ksnoop", the last
# one under the cursor.  The target: each answers in under 100 ms.
COMPLETE_TARGET_MS = 100


def complete_words(s):
    return {"option": ["--mo"],
            "function": ["ip_send_s"],
            "tp-category": ["tp:sch"],
            "argument": ["ip_send_skb(sk"],
            "member": ["ip_send_skb(skb->le"],
            "usdt-probe": ["usdt", str(s.tools.loop) + ":"]}


def complete_variant(s, v, r, words):
    """One completion: wall time of the process, and how many candidates it printed."""
    t0 = time.monotonic()
    with open(s.path("complete.err"), "w") as err:
        p = subprocess.run([s.tools.ksnoop, "__complete", *words], stdout=subprocess.PIPE,
                           stderr=err, text=True)
    wall_us = int((time.monotonic() - t0) * 1e6)
    n = len(p.stdout.splitlines())
    if p.returncode or not n:
        s.result("complete", v, r, {"error": "rc_%d_lines_%d:%s" % (p.returncode, n,
                                                                  proc.oneline(s.path("complete.err")))})
    else:
        s.result("complete", v, r, {"wall_us": wall_us, "lines": n})


def measure_complete(s):
    words = complete_words(s)
    say("native: ksnoop __complete, one of each kind (%d rounds)" % s.opts.rounds)
    for v, w in words.items():
        s.command("complete-" + v, "ksnoop __complete " + " ".join(w))
    for r in range(s.opts.rounds):
        for v in rotate(list(words), r):
            complete_variant(s, v, r, words[v])


# ---- 4b. recording against printing: the paced generator, text to /dev/null or record -o FILE

# The same spec and generator as table 4's small event; ksnoop on CPU 0,
# stdout on /dev/null (text) or the recording on tmpfs (record), then
# `ksnoop report FILE >/dev/null` timed on CPU 0. Rate 0: unpaced.
REC_SPEC = TPUT_SMALL
REC_RATES = (100000, 300000, 600000, 1000000, 1500000, 2000000, 3000000, 0)
REC_DIR = Path("/dev/shm")          # tmpfs: the disk's speed is not measured
REC_SUMMARY = re.compile(r"^ksnoop: ([0-9]*) events recorded to .* \(([0-9]*) bytes\), ([0-9]*) lost", re.M)
REPORT_LIMIT_S = 120
REC_LARGE_PART = 4      # large events drained: a quarter of drain_n (2,000,000 of them overflow 256 MiB)


def rec_name(v, rate):
    """A table-4b variant: KIND@RATE (max: unpaced)."""
    return "%s@%s" % (v, rate or "max")


def rec_report(s, path):
    """`ksnoop report PATH >/dev/null`, timed: its fields."""
    err = s.path("report.err")
    t0 = time.monotonic()
    with open(err, "w") as f:
        rc = proc.run([*TASKSET_TRACER, s.tools.ksnoop, "report", path], limit=REPORT_LIMIT_S, stderr=f)
    wall = time.monotonic() - t0
    found = proc.SUMMARY.findall(proc.file_text(err))
    return {"report_s": "%.4f" % wall, "report_printed": found[-1][0] if found else "", "report_rc": rc}


def rec_variant(s, v, r, rate):
    """One run at RATE: ksnoop printing (text) or recording (record)."""
    path = REC_DIR / ("ksnoop-bench-%d.ksr" % os.getpid())
    path.unlink(missing_ok=True)
    head = [s.tools.ksnoop, "-v"] if v == "text" else [s.tools.ksnoop, "record", "-v", "-o", path]
    held = HeldWorkload(s.tools.loop_cmd("flood", s.sizes.flood_secs, rate), s.path("gen.out"))
    argv = [*TASKSET_TRACER, *head, "-p", held.pid, REC_SPEC]
    s.command("record-" + v, " ".join(str(a) for a in argv).replace(str(held.pid), "PID"))
    tracer = Tracer.start(argv, s.path("rec.err"))
    if not tracer.wait_ready():
        tracer.kill()
        held.kill()
        s.result("record", rec_name(v, rate), r, {"error": tracer.failure("ksnoop_did_not_attach")})
        return
    t0 = time.monotonic()
    held.release()
    rc = tracer.stop()
    t = Traced(parse_fields(held.output()), tracer.summary(), rc, time.monotonic() - t0)
    if v == "record":
        found = REC_SUMMARY.findall(proc.file_text(s.path("rec.err")))
        if found:
            t.summary = {"printed": found[-1][0], "bytes": found[-1][1], "lost": found[-1][2]}
            t.summary.update(rec_report(s, path))
    path.unlink(missing_ok=True)
    s.result("record", rec_name(v, rate), r, t.fields(wall=True))


def rec_drain(s, v, r, size):
    """Capacity, as table 4's drain: ksnoop (printing or recording, 256
    MiB buffer, -n N) stopped while N events fill the buffer, then
    continued; seconds from SIGCONT to its exit. A recording is then
    reported, timed. SIZE: small (REC_SPEC) or large (TPUT_LARGE)."""
    n = s.sizes.drain_n if size == "small" else s.sizes.drain_n // REC_LARGE_PART
    path = REC_DIR / ("ksnoop-bench-%d.ksr" % os.getpid())
    path.unlink(missing_ok=True)
    head = [s.tools.ksnoop, "-v"] if v == "text" else [s.tools.ksnoop, "record", "-v", "-o", path]
    held = HeldWorkload(s.tools.loop_cmd("syscall", n), s.path("gen.out"))
    spec = REC_SPEC if size == "small" else TPUT_LARGE
    name = "%s@drain-%s" % (v, size)
    argv = [*TASKSET_TRACER, *head, "--buffer", DRAIN_BUFFER, "-n", n, "-p", held.pid, spec]
    s.command("record-drain-%s-%s" % (v, size), " ".join(str(a) for a in argv).replace(str(held.pid), "PID"))
    tracer = Tracer.start(argv, s.path("drain.err"))
    if not tracer.wait_ready():
        tracer.kill()
        held.kill()
        s.result("record", name, r, {"error": tracer.failure("ksnoop_did_not_attach")})
        return
    tracer.signal(signal.SIGSTOP)
    held.release()
    t0 = time.monotonic()
    tracer.signal(signal.SIGCONT)
    rc = proc.reap(tracer.proc) if proc.wait_exit(tracer.proc, DRAIN_LIMIT_S) else tracer.stop()
    fields = {"wall": "%.4f" % (time.monotonic() - t0), "rc": rc, **tracer.summary()}
    found = REC_SUMMARY.findall(proc.file_text(s.path("drain.err")))
    if v == "record" and found:
        fields.update({"printed": found[-1][0], "bytes": found[-1][1], "lost": found[-1][2]})
        fields.update(rec_report(s, path))
    path.unlink(missing_ok=True)
    s.result("record", name, r, fields)


def measure_record(s):
    """Table 4b: every rate, both kinds, in rounds (order rotated)."""
    say("native: recording against printing (%d rounds)" % s.opts.rounds)
    s.phase("setup-record")
    items = [(v, rate) for rate in (*REC_RATES, "small", "large") for v in ("text", "record")]
    for r in range(s.opts.rounds):
        for v, rate in rotate(items, r):
            if rate in ("small", "large"):
                rec_drain(s, v, r, rate)
            else:
                rec_variant(s, v, r, rate)
    s.phase("record")
