"""bench/session.py: one bench/run: its options, sizes and tools, the work
directory, and what it has measured so far (report.BenchData)."""

import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from report import BenchData, Run

TASKSET_TRACER = ("taskset", "-c", "0")   # tracers on CPU 0, workloads on CPU 1


def say(text):
    print("bench: " + text, file=sys.stderr, flush=True)


@dataclass
class Options:
    """bench/run's command line."""
    rounds: int = 5
    vm_rounds: int = 7          # the emulated VM is noisier: more rounds there
    glob_rounds: int = 3        # each tcp_* run on 6.1 takes most of a minute under TCG
    quick: bool = False
    native: bool = True
    vm: bool = True
    profile: bool = True
    globs: bool = True
    tree: bool = True           # table 7, --tree in the VM (a boot of its own)
    only_tree: bool = False     # --only-tree: the report's table 7 is replaced in place
    only_kfunc: bool = False    # --only-kfunc: the report's table 1 is replaced in place
    arm64: bool = True          # table 9, the arm64 VM (a boot of its own)
    only_arm64: bool = False    # --only-arm64: the report's table 9 is replaced in place
    track: bool = True          # table 8, --track in the VM (6.12, a boot of its own)
    only_track: bool = False    # --only-track: the report's table 8 is replaced in place
    track_native: bool = True   # table 8's native tracepoint rows (off with --no-native)
    record: bool = True         # table 4b, recording against printing (native)
    only_record: bool = False   # --only-record: the report's table 4b is replaced in place
    session: bool = True        # table 10, kprobe.session against the stash (7.3 and 6.12 VMs)
    only_session: bool = False  # --only-session: the report's table 10 is replaced in place
    glob_vm: bool = True        # table 6's VM part (--no-vm turns it off, info stays)
    only_native: bool = False   # --only-native: the VM tables of the existing report stay
    sid: str = "/var/cache/ksnoop-sid"   # the native bpftrace's sid chroot ("": the system's)
    glob_kernels: tuple = ("bookworm", "trixie")
    out: str = "docs/PERFORMANCE.md"
    keep: bool = False
    report_from: str = ""


@dataclass
class Sizes:
    """Loops long enough that the timer and start-up do not matter, short
    enough for the whole run to stay near 15 minutes."""
    tp_n: int = 500000          # syscalls per tracepoint run
    usdt_n: int = 200000        # USDT probe hits per run
    open_n: int = 30000         # open+close per kernel-function run (in the VM, ~20-60 us each)
    flood_secs: int = 3         # live throughput runs
    drain_n: int = 2000000      # events printed from a pre-filled buffer
    filt_n: int = 3000000       # syscalls per run, filtered-out against bare probe
    fixed_rate: int = 1000000   # the paced offered rate, events per second
    sys_n: int = 300000         # openat calls per system-call-pair run
    tree_n: int = 2000          # failing deep openat() per table-7 run (~50 traced calls each)

    @classmethod
    def quick(cls):
        return cls(tp_n=200000, usdt_n=50000, open_n=5000, flood_secs=2,
                   drain_n=300000, filt_n=1000000, sys_n=100000, tree_n=500)


@dataclass
class Tools:
    """The programs measured and the workloads, as paths."""
    ksnoop: Path                # a private copy: a rebuild during the run cannot mix versions
    ksnoop_src: Path            # the binary it was copied from
    bpftrace: Path              # the system's (bookworm, 0.17): the VMs' peer without --sid
    bcc_ksnoop: Path            # the system's (bookworm, 0.26): the VMs' peer without --sid
    loop: Path                  # bench/loop.c, static
    startup: Path               # bench/startup.c, static
    bt: tuple = ()              # the native bpftrace's argv: sid's 0.27 through chroot, or (bpftrace,)
    bt_shown: str = "bpftrace"  # how the report's command lines name it
    bcc: tuple = ()             # bcc's ksnoop natively: sid's 0.37 through chroot, or (bcc_ksnoop,)
    sid: Path = None            # the sid chroot whose bpftrace (0.27) the x86-64 VMs get too, or None

    def loop_cmd(self, *args):
        """ksb-loop on CPU 1 (-C 1) with ARGS."""
        return [self.loop, "-C", "1", *args]


class CpuMeter:
    """How much CPU did other processes take while a part was measured?
    /proc/stat busy ticks minus this process's own (its reaped children
    included), and steal time (the hypervisor running something else).
    Kernel threads doing work for our runs count as "other", so a few %
    is normal."""

    def __init__(self):
        self.hz = os.sysconf("SC_CLK_TCK")
        self.ncpu = len(os.sched_getaffinity(0))
        self.mark = self.now()

    @staticmethod
    def now():
        with open("/proc/stat") as f:
            cpu = [int(x) for x in f.readline().split()[1:]]
        with open("/proc/self/stat") as f:
            own = [int(x) for x in f.read().rpartition(")")[2].split()[11:15]]
        busy = cpu[0] + cpu[1] + cpu[2] + cpu[5] + cpu[6]   # user nice system irq softirq
        return busy, cpu[7], sum(own), time.time()

    def since_mark(self):
        """The fields of the time since the last mark; marks now."""
        now = self.now()
        (b0, s0, o0, t0), (b1, s1, o1, t1) = self.mark, now
        self.mark = now
        return {"busy_ticks": str(b1 - b0), "steal_ticks": str(s1 - s0),
                "own_ticks": str(o1 - o0), "usecs": str(int((t1 - t0) * 1e6)),
                "hz": str(self.hz), "ncpu": str(self.ncpu)}


@dataclass
class Session:
    root: Path
    work: Path
    opts: Options
    sizes: Sizes
    tools: Tools = None
    data: BenchData = field(default_factory=BenchData)
    cpu: CpuMeter = field(default_factory=CpuMeter)

    def path(self, name):
        return self.work / name

    def result(self, table, variant, rnd, fields):
        """Record one run; FIELDS' values become text, as printed."""
        self.data.runs.append(Run(table, variant, rnd, {k: str(v) for k, v in fields.items()}))

    def command(self, key, text):
        """Record a command line as run (the first for a key stays)."""
        self.data.commands.setdefault(key, text)

    def listing(self, name, lines):
        self.data.listings[name] = list(lines)

    def phase(self, name):
        """Account the CPU time since the last phase to NAME."""
        self.result("cpu", name, 0, self.cpu.since_mark())


def rotate(items, rnd):
    """ITEMS rotated left by RND: every round starts with another variant."""
    items = list(items)
    k = rnd % len(items)
    return items[k:] + items[:k]
