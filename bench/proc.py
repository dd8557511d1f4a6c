"""bench/proc.py: the processes bench/run starts, and how it stops them.

Every program runs from an argument list (no shell string), with a time
limit; whatever is still running when bench/run ends is killed by
kill_all(), so that an interrupted run leaves nothing behind. A tracer's
stderr goes to a file in the work directory: bench/run polls it for
ksnoop -v's "tracing" line, and --keep keeps it.
"""

import ctypes
import json
import os
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

POLL_S = 0.05            # how often a wait looks again
READY_S = 30             # a tracer attaches within this, or has failed
STOP_GRACE_S = 60        # after SIGINT a tracer drains and exits within this
WORKLOAD_LIMIT_S = 600   # no workload of ours runs this long unless hung
TIMEOUT_STATUS = 124     # timeout(1)'s exit status for a program it stopped
NOT_FOUND_STATUS = 127   # the shell's, for a program that cannot be run

READY = re.compile(r"tracing .* target")
SUMMARY = re.compile(r"^ksnoop: ([0-9]*) events printed, ([0-9]*) lost", re.M)
NS_PER_ITER = re.compile(r"^ns_per_iter=([0-9.]*)", re.M)

_started = set()  # Popen objects not yet reaped


def spawn(argv, *, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
          stderr=subprocess.DEVNULL, **kwargs):
    """Start ARGV (its words turned into text) in the background."""
    proc = subprocess.Popen([str(a) for a in argv], stdin=stdin, stdout=stdout,
                            stderr=stderr, **kwargs)
    _started.add(proc)
    return proc


def status(returncode):
    """A Popen return code as the shell reports it (128 + signal)."""
    return 128 - returncode if returncode < 0 else returncode


def reap(proc, timeout=None):
    """Wait for PROC (TimeoutExpired after TIMEOUT s); its shell status."""
    rc = proc.wait(timeout)
    _started.discard(proc)
    return status(rc)


def alive(proc):
    return proc.poll() is None


def kill(proc):
    """SIGKILL and reap; nothing if it has exited."""
    if alive(proc):
        proc.kill()
    return reap(proc)


def kill_all():
    """Kill every process started here that still runs (bench/run's end)."""
    for proc in list(_started):
        kill(proc)


def run(argv, *, limit=WORKLOAD_LIMIT_S, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, **kwargs):
    """Run ARGV to its end; SIGTERM after LIMIT s and SIGKILL 10 s later,
    as timeout -k 10 does. Its shell status (124 when stopped, 127 when
    it cannot be run)."""
    try:
        proc = spawn(argv, stdout=stdout, stderr=stderr, **kwargs)
    except OSError:
        return NOT_FOUND_STATUS
    try:
        return reap(proc, limit)
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            reap(proc, 10)
        except subprocess.TimeoutExpired:
            kill(proc)
        return TIMEOUT_STATUS


def output(argv, *, limit=WORKLOAD_LIMIT_S, stderr=None):
    """ARGV's stdout as text ("" if it cannot run or did not finish within
    LIMIT s); its stderr goes to ours unless STDERR says otherwise. Its
    status is not looked at: a failure shows as output without the
    expected fields."""
    try:
        done = subprocess.run([str(a) for a in argv], stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=stderr, timeout=limit,
                              check=False)
    except (subprocess.TimeoutExpired, OSError):
        return ""
    return done.stdout.decode(errors="replace")


def wait_exit(proc, seconds):
    """True once PROC has exited, False if it still runs after SECONDS."""
    try:
        proc.wait(seconds)
        return True
    except subprocess.TimeoutExpired:
        return False


def file_text(path):
    try:
        return Path(path).read_text(errors="replace")
    except FileNotFoundError:
        return ""


def oneline(path, lines=2):
    """The last LINES lines of a file as one word (blanks -> "_", 160
    characters at most): an error reason inside a key=value field."""
    text = file_text(path)
    tail = "".join(text.splitlines(keepends=True)[-lines:])
    return re.sub("_+", "_", re.sub("[ \n\t]", "_", tail))[:160]


def summary_fields(path, tail=""):
    """ksnoop's "N events printed, M lost" (its last) as fields, or {}:
    from stderr (PATH), or with -j from the summary record that ends its
    stdout (TAIL, the end of what it printed)."""
    found = SUMMARY.findall(file_text(path))
    if found:
        printed, lost = found[-1]
        return {"printed": printed, "lost": lost}
    lines = tail.rstrip("\n").rsplit("\n", 1)
    try:
        rec = json.loads(lines[-1])
    except ValueError:
        return {}
    if not isinstance(rec, dict) or rec.get("type") != "summary":
        return {}
    return {"printed": str(rec.get("printed", "")), "lost": str(rec.get("lost", ""))}


class TailSink:
    """A tracer's stdout read and thrown away as it comes, in big reads,
    keeping only its last bytes (where -j puts the summary record): the
    same cost for text and JSON runs, and no file that grows with the run."""

    KEEP = 1 << 16

    def __init__(self, pipe):
        self._pipe = pipe
        self._tail = b""
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        fd = self._pipe.fileno()
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            self._tail = (self._tail + chunk)[-self.KEEP:]
        self._pipe.close()

    def text(self, timeout=10):
        self._thread.join(timeout)
        return self._tail.decode("utf-8", "replace")


def ns_per_iter(text):
    """The ns_per_iter value of a ksb-loop result line, or ""."""
    found = NS_PER_ITER.search(text)
    return found.group(1) if found else ""


@dataclass
class Tracer:
    """A tracer in the background: stdout discarded (or, with SINK, read
    and discarded but for its end), stderr into a file."""
    proc: subprocess.Popen
    err: Path
    sink: "TailSink | None" = None

    @classmethod
    def start(cls, argv, err, sink=False):
        with open(err, "w") as f:
            if not sink:
                return cls(spawn(argv, stderr=f), Path(err))
            p = spawn(argv, stdout=subprocess.PIPE, stderr=f)
            return cls(p, Path(err), TailSink(p.stdout))

    def summary(self):
        """Its closing "printed, lost" as fields, or {}."""
        return summary_fields(self.err, self.sink.text() if self.sink else "")

    def wait_ready(self, limit=READY_S):
        """True once stderr says "tracing ... target"; False if it exits
        first or LIMIT s pass."""
        end = time.monotonic() + limit
        while time.monotonic() < end:
            if READY.search(file_text(self.err)):
                return True
            if not alive(self.proc):
                return False
            time.sleep(POLL_S)
        return False

    def signal(self, sig):
        if alive(self.proc):
            self.proc.send_signal(sig)

    def stop(self, grace=STOP_GRACE_S):
        """SIGINT, then SIGKILL if it still runs after GRACE s; its status."""
        self.signal(signal.SIGINT)
        if not wait_exit(self.proc, grace):
            self.proc.kill()
        return reap(self.proc)

    def kill(self):
        return kill(self.proc)

    def failure(self, why):
        """An error field's value: WHY and the end of its stderr."""
        return "%s:%s" % (why, oneline(self.err))


class HeldWorkload:
    """A workload started blocked (a shell reading its stdin, then exec),
    so that its pid is known to ksnoop -p before it runs; release() lets
    it run. Its stdout and stderr go to OUT."""

    HOLD = 'read -r _ && exec "$@"'   # killed before release (EOF): never runs

    def __init__(self, argv, out):
        self.out = Path(out)
        with open(out, "w") as f:
            self.proc = spawn(["sh", "-c", self.HOLD, "sh", *argv], stdin=subprocess.PIPE,
                              stdout=f, stderr=subprocess.STDOUT)

    @property
    def pid(self):
        return self.proc.pid

    def release(self):
        """Let it run, and wait for its end."""
        try:
            self.proc.stdin.write(b"go\n")
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            reap(self.proc, WORKLOAD_LIMIT_S)
        except subprocess.TimeoutExpired:
            kill(self.proc)

    def kill(self):
        kill(self.proc)
        self.proc.stdin.close()

    def output(self):
        return file_text(self.out)


def stop_group(proc, grace):
    """SIGTERM to PROC's process group (its session: start_new_session),
    SIGKILL to what is left of it GRACE s later."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        if sig == signal.SIGTERM:
            time.sleep(grace)


BPF_ENABLE_STATS = 32     # the bpf() command; its attribute 0: BPF_STATS_RUN_TIME
NR_BPF = {"x86_64": 321, "aarch64": 280}


def stats_on():
    """BPF programs' run time counted while the fd this returns is open."""
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(16)
    fd = libc.syscall(NR_BPF[os.uname().machine], BPF_ENABLE_STATS, attr, 16)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "BPF_ENABLE_STATS")
    return fd
