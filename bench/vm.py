"""bench/vm.py: the tables measured in the test VM (tests/vm/run).

Table 1, cost per call, needs the tracer's reader and the workload on two
CPUs at once, as on hardware: multi-threaded TCG, a host thread per vCPU
(with one for both, the tests' thread=single, the vCPUs take turns and the
reader's work is timed as the workload's). Multi-threaded TCG can crash or
hang the guest when kernel text is patched under a running vCPU
(tests/vm/boot.bash): table 1 attaches and detaches only with the
workload stopped, and a run the guest lost is run once more. Table 5 runs
the workload while each tracer attaches: a boot of its own with
thread=single, which also prints the samples. Table 6's tcp_* runs
(bench/vm-globs.sh) boot once per kernel, thread=single. Table 7, --tree's
cost per call (PARTS=tree), boots once more, multi-threaded as table 1.
Table 9 (PARTS=arm64) boots the arm64 VM (tests/vm/run --arch arm64,
multi-threaded TCG as table 1) with arm64 builds of everything it runs:
ksnoop (make ARCH=arm64), ksb-loop (aarch64-linux-gnu-gcc -static), and
Debian bookworm's arm64 bash and bpftrace, fetched with apt-get download
through the arm64 VM's private apt configuration (scripts/trixie-apt, as
tests/vm/kernel.bash) with the shared libraries their ELF headers name.
Table 8, --track (PARTS=track), boots Debian's 6.12 with thread=single:
its attach-time runs patch hundreds of functions. Table 10, kprobe.session's
slots against the stash (PARTS=session), boots trixie-backports' 7.3, then
trixie's 6.12, multi-threaded TCG as table 1, ksnoop alone in the guest.

The scripts in the guest print one line per result on the host:
"NOTE vm/vm-bench: RESULT TABLE VARIANT ROUND key=value...", and CMD,
SAMPLE, KERNEL, HANG, INFO and "waiting for" lines beside them.
"""

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import proc
from report import Run
from session import say

VM_RUN = "tests/vm/run"
VM_SILENCE_S = 300          # every measurement writes a line within seconds: a guest
                            # that says nothing this long has hung
WATCH_S = 5                 # how often the log's size is looked at
STOP_GRACE_S = 5
BENCH_TIMEOUT = ["--timeout", "1300", "--script-timeout", "1200"]
GLOBS_TIMEOUT = ["--timeout", "1600", "--script-timeout", "1500"]
GLOBS_LIMIT_S = 1900        # tests/vm/run's own --timeout, and time to stop
TROUBLE = re.compile(r"Oops|Kernel panic|general protection|BUG:|timed out|soft lockup|the guest hung")

BENCH_NOTE = re.compile(r"^NOTE vm[-0-9.]*/vm-bench: (.*)")
TRACK_KERNEL = "trixie"    # table 8 (--track): Debian's 6.12
TREE_DIRS = 12              # table 7: directories above the missing file: 3 inner calls each, 49 in all
GLOBS_NOTE = re.compile(r"^NOTE vm[-0-9.]*/vm-globs: (.*)")
BOOTED = re.compile(r"^vm: (booted in [0-9.]* s)")
SESSION_KERNELS = ("trixie-backports", "trixie")   # table 10: 7.3 (the target's kernel), then 6.12
SESSION_APT = (("KSNOOP_BACKPORTS_APT_DIR", "build/apt-trixie-backports"), ("KSNOOP_APT_DIR", "build/apt"))


@dataclass
class VmOutcome:
    """What the VM parts leave for the report's header."""
    rc: str = "skipped"         # the VM run's status, "skipped" without one
    info: str = ""              # INFO: the guest kernel and CPUs
    boot: str = ""              # "booted in N s"
    vm_tcg: str = ""
    su_tcg: str = ""
    glob_rc: str = "skipped"
    tree_rc: str = "skipped"
    tree_tcg: str = ""
    tree_boot: str = ""
    retsnoop: str = ""          # retsnoop_packaged()
    arm64_rc: str = "skipped"   # table 9's VM run
    arm64_tcg: str = ""
    arm64_boot: str = ""
    arm64_info: str = ""        # the arm64 guest's kernel and CPUs
    arm64_peers: str = ""       # what arm64_peers() fetched, or why it could not
    track_rc: str = "skipped"
    track_tcg: str = ""
    track_boot: str = ""
    pwru: str = ""              # packaged("pwru")
    track_info: str = ""
    pwru_why: str = ""          # why pwru was not run, if it was not
    session_rc: str = "skipped"  # table 10: "0", or which boots failed
    session_tcg: str = ""
    session: dict = field(default_factory=dict)   # per guest kernel (7.3 ...): release, boot, uname, info

    def session_meta(self):
        """Table 10's meta: session_kernels (the guest kernels, in the
        order booted) and per kernel K session_{release,boot,uname,info}_K."""
        meta = {"session_rc": self.session_rc, "session_tcg": self.session_tcg,
                "session_kernels": " ".join(self.session)}
        for k, about in self.session.items():
            meta.update(("session_%s_%s" % (key, k), value) for key, value in about.items())
        return meta


def watched(log, args, env):
    """tests/vm/run ARGS in a session of its own, its output in LOG,
    stopped (the whole process group) when LOG has not grown for
    VM_SILENCE_S; its status."""
    with open(log, "w") as out:
        vm = proc.spawn([VM_RUN, *args], stdout=out, stderr=subprocess.STDOUT, env=env,
                        start_new_session=True)
    size, quiet = 0, 0
    while not proc.wait_exit(vm, WATCH_S):
        now = log.stat().st_size
        quiet = 0 if now != size else quiet + WATCH_S
        size = now
        if quiet >= VM_SILENCE_S:
            with open(log, "a") as out:
                out.write("bench: no output from the VM for %d s: stopped (the guest hung)\n" % VM_SILENCE_S)
            proc.stop_group(vm, STOP_GRACE_S)
            break
    return proc.reap(vm)


def bench_conf(s, part):
    """/tests/bench.conf for bench/vm-bench.sh (shell assignments)."""
    r = s.opts.vm_rounds
    return ("ROUNDS=%d\nOPEN_N=%d\nSTARTUP_ROUNDS=%d\nTREE_N=%d\nTREE_DIRS=%d\n"
            "TRACK_ATTACH_ROUNDS=%d\nPARTS=%s\n"
            % (r, s.sizes.open_n, r, s.sizes.tree_n, TREE_DIRS, s.opts.glob_rounds + 1, part))


# sid's peers in an x86-64 guest (bpftrace 0.27): each program, every
# library ldd lists for it in the chroot and the chroot's own loader under
# SID_GUEST, each run by a script at /usr/bin/NAME.  bpftrace's clang
# writes the program's object to /dev/fd/N, which the guest's /dev lacks.
# bcc's ksnoop stays bookworm's (libbpf-tools 0.26) in the guest: sid's
# 0.37 (ksnoop-libbpf) carried in the same way does not load on table 1's
# 6.1 (s66: the verifier refuses its kprobe_return, "R4 unbounded memory
# access" at `ip = func_stack->ips[stack_depth]`); on 6.12 it loads.
SID_GUEST = "/opt/sid"
SID_PEERS = {"bpftrace": "usr/bin/bpftrace"}
SID_WRAPPER = """#!/bin/sh
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
exec %(d)s/lib/ld-linux-x86-64.so.2 --library-path %(d)s/lib %(d)s/%%s "$@"
""" % {"d": SID_GUEST}
LDD_PATH = re.compile(r"(?:=>\s*)?(/\S+)\s+\(0x")


def sid_wrapper(s, name):
    """Where sid_bundle() writes the script that runs the peer NAME; it
    exists once that peer went into a guest."""
    return s.path("sid-%s.sh" % name)


def sid_bundle(s):
    """The sid chroot's peers for the guest, made once per run: (the
    directory for SID_GUEST, {name: the script for /usr/bin/NAME}).  None
    without a chroot (--no-sid) or where ldd there names no loader: the
    system's peers go in, and the report's header says which."""
    sid = s.tools.sid
    bundle, failed = s.path("sid-peers"), s.path("sid-peers.failed")
    wrappers = {name: sid_wrapper(s, name) for name in SID_PEERS}
    if sid is None or failed.is_file():
        return None
    if all(w.is_file() for w in wrappers.values()):
        return bundle, wrappers
    (bundle / "lib").mkdir(parents=True, exist_ok=True)
    libs = set()
    for name, path in SID_PEERS.items():
        shutil.copyfile(sid / path, bundle / name)
        (bundle / name).chmod(0o755)
        listed = proc.output(["chroot", str(sid), "ldd", "/" + path], limit=60)
        found = [m.group(1) for m in map(LDD_PATH.search, listed.splitlines()) if m]
        if not any(x.endswith("/ld-linux-x86-64.so.2") for x in found):
            say("ldd of the sid chroot's %s named no loader: the VMs get the system's peers" % path)
            failed.write_text(listed)
            return None
        libs.update(found)
    for lib in sorted(libs):
        dest = bundle / "lib" / os.path.basename(lib)
        shutil.copyfile((sid / lib.lstrip("/")).resolve(), dest)
        dest.chmod(0o755)
    for name, w in wrappers.items():
        w.write_text(SID_WRAPPER % name)
        w.chmod(0o755)
    size = sum(f.stat().st_size for f in bundle.rglob("*") if f.is_file())
    say("VM peers: the sid chroot's %s with %d libraries and its loader, %d MB, at %s in the guest"
        % (" and ".join(SID_PEERS.values()), len(libs), size >> 20, SID_GUEST))
    return bundle, wrappers


def peer_args(s, *names):
    """tests/vm/run's arguments that put the peers NAMES (bpftrace,
    bcc-ksnoop) into an x86-64 guest: sid's (the same as natively) where
    the run has the chroot and SID_PEERS names it, else the system's."""
    sid = sid_bundle(s)
    system = {"bpftrace": s.tools.bpftrace, "bcc-ksnoop": s.tools.bcc_ksnoop}
    args = [] if sid is None else ["--file", "%s:%s" % (sid[0], SID_GUEST)]
    for n in names:
        args += ["--bin", "%s:%s" % (sid[1][n] if sid and n in sid[1] else system[n], n)]
    return args


def bench_args(s, part, extra=()):
    """tests/vm/run's arguments; table 7 (PARTS=tree) runs ksnoop alone,
    and table 10 (PARTS=session) run ksnoop alone, so their initramfs goes
    without the peers (bpftrace is ~200 MB)."""
    t = s.tools
    peers = [] if part in ("tree", "session") else [
        *peer_args(s, "bcc-ksnoop", "bpftrace"),
        "--bin", t.startup, "--bin", "/usr/bin/time:time"]
    if part == "track":     # table 8: 6.12, bpftrace its only peer
        peers = ["--kernel", TRACK_KERNEL, *peer_args(s, "bpftrace")]
    return [*BENCH_TIMEOUT, "--bin", "%s:ksnoop" % t.ksnoop, *peers, "--bin", t.loop,
            "--bin", "/bin/bash:bash", *extra,
            "--file", "%s:/tests/bench.conf" % s.path("bench.conf"), "bench/vm-bench.sh"]


def show_failure(log):
    """The kernel's trouble lines and the end of a failed run's log."""
    lines = log.read_text(errors="replace").splitlines()
    for line in [x for x in lines if TROUBLE.search(x)][:5] + lines[-5:]:
        print(line, file=sys.stderr)


def run_part(s, part, tcg, extra=(), args=None, env=None, name=None):
    """One boot running PARTS=PART (tests/vm/run ARGS, default
    bench_args() with EXTRA, more tests/vm/run arguments; ENV more
    environment), run once more if it fails; its status and log (vm-NAME.log,
    NAME default PART)."""
    s.path("bench.conf").write_text(bench_conf(s, part))
    name = name or part
    log = s.path("vm-%s.log" % name)
    env = {**os.environ, **(env or {}), "KSNOOP_VM_TCG_THREAD": tcg}
    for attempt in (1, 2):
        rc = watched(log, [str(a) for a in args or bench_args(s, part, extra)], env)
        if rc == 0 or attempt == 2:
            break
        say("the VM run of %s failed (status %d, thread=%s); running it again. Its log ends:"
            % (part, rc, tcg))
        show_failure(log)
        log.rename(s.path("vm-%s.failed.log" % name))
    return rc, log.read_text(errors="replace")


def vm_notes(text, pattern):
    """(the note, its first word, the rest) of each line of TEXT that
    PATTERN matches."""
    for line in text.splitlines():
        note = pattern.match(line)
        if note:
            kind, _, rest = note.group(1).partition(" ")
            yield note.group(1), kind, rest


def take_result(s, kind, rest):
    """A RESULT line into the runs; False for any other."""
    if kind != "RESULT" or len(rest.split()) < 3:
        return False
    s.data.runs.append(Run.from_line(rest))
    return True


def record_bench_log(s, text, outcome):
    """The RESULT, CMD, SAMPLE, KERNEL, waiting, HANG and INFO lines."""
    listings = {"samples": [], "kernel": [], "waits": [], "hangs": []}
    booted = next(filter(None, map(BOOTED.match, text.splitlines())), None)
    if booted and not outcome.boot:
        outcome.boot = booted.group(1)
    for note, kind, rest in vm_notes(text, BENCH_NOTE):
        if take_result(s, kind, rest):
            continue
        if kind == "CMD" and " " in rest:
            key, _, cmd = rest.partition(" ")
            s.command("vm-" + key, cmd)
        elif kind in ("SAMPLE", "KERNEL", "HANG"):
            listings[{"SAMPLE": "samples", "KERNEL": "kernel", "HANG": "hangs"}[kind]].append(rest)
        elif kind == "INFO":
            outcome.info = rest
        elif note.startswith("waiting for "):
            listings["waits"].append(note)
    for name, lines in listings.items():
        s.listing(name, lines)


def measure(s, parts=("kfunc", "startup")):
    """Tables 1 and 5: a boot of bench/vm-bench.sh per part of PARTS
    (--only-kfunc: table 1's alone)."""
    say("VM: kernel functions (%d rounds; qemu under software emulation)" % s.opts.vm_rounds)
    s.phase("setup2")
    forced = os.environ.get("KSNOOP_VM_TCG_THREAD", "")
    outcome = VmOutcome(rc="0", vm_tcg=forced or "multi", su_tcg=forced or "single")
    logs = []
    for part, tcg in ((p, outcome.vm_tcg if p == "kfunc" else outcome.su_tcg) for p in parts):
        rc, text = run_part(s, part, tcg)
        logs.append(text)
        if rc != 0:
            outcome.rc = str(rc)
    text = "".join(logs)
    s.path("vm.log").write_text(text)
    record_bench_log(s, text, outcome)
    s.phase("vm")
    if outcome.rc != "0":
        say("the VM run failed (status %s); its log:" % outcome.rc)
        print("\n".join(text.splitlines()[-30:]), file=sys.stderr)
    return outcome


def record_tree_log(s, text, outcome):
    """Table 7's RESULT and CMD lines; its TREESAMPLE (one tree as text)
    and KERNEL lines as the listings "tree-sample" and "tree-kernel"."""
    booted = next(filter(None, map(BOOTED.match, text.splitlines())), None)
    if booted:
        outcome.tree_boot = booted.group(1)
    sample, kernel = [], []
    for _, kind, rest in vm_notes(text, BENCH_NOTE):
        if take_result(s, kind, rest):
            continue
        if kind == "CMD" and " " in rest:
            key, _, cmd = rest.partition(" ")
            s.command("vm-" + key, cmd)
        elif kind == "TREESAMPLE":
            sample.append(rest)
        elif kind == "KERNEL":
            kernel.append(rest)
        elif kind == "INFO" and not outcome.info:
            outcome.info = rest
    s.listing("tree-sample", sample)
    s.listing("tree-kernel", kernel)


def retsnoop_packaged():
    """Does Debian package retsnoop (table 7's peer)? "deb VERSION (RELEASE)",
    or which releases were asked and had none: bookworm through this
    machine's apt, trixie through the private apt configuration that
    KSNOOP_APT_DIR names (scripts/trixie-apt), when it is set."""
    asks = [("bookworm", ["apt-cache", "policy", "retsnoop"])]
    apt_dir = os.environ.get("KSNOOP_APT_DIR", "")
    if apt_dir and os.path.isdir(apt_dir):
        asks.append(("trixie", ["scripts/trixie-apt", apt_dir, "apt-cache", "policy", "retsnoop"]))
    for release, argv in asks:
        text = proc.output(argv, limit=120, stderr=subprocess.DEVNULL)
        found = re.search(r"Candidate: (\S+)", text)
        if found and found.group(1) != "(none)":
            return "deb %s (%s)" % (found.group(1), release)
    return " and ".join(r for r, _ in asks)


def measure_tree(s, outcome):
    """Table 7: a boot of bench/vm-bench.sh with PARTS=tree, multi-threaded
    TCG as table 1 (the reader runs beside the workload)."""
    say("VM: --tree, an inner call outside a session and a whole error tree (%d rounds)"
        % s.opts.vm_rounds)
    s.phase("setup3")
    outcome.tree_tcg = os.environ.get("KSNOOP_VM_TCG_THREAD", "") or "multi"
    outcome.retsnoop = retsnoop_packaged()
    rc, text = run_part(s, "tree", outcome.tree_tcg)
    outcome.tree_rc = str(rc)
    record_tree_log(s, text, outcome)
    s.phase("tree")
    if rc != 0:
        say("the --tree VM run failed (status %d); its log ends:" % rc)
        print("\n".join(text.splitlines()[-30:]), file=sys.stderr)


def packaged(name):
    """Does Debian package NAME? "deb VERSION (RELEASE)", or which releases
    were asked and had none (as retsnoop_packaged())."""
    asks = [("bookworm", ["apt-cache", "policy", name])]
    apt_dir = os.environ.get("KSNOOP_APT_DIR", "")
    if apt_dir and os.path.isdir(apt_dir):
        asks.append(("trixie", ["scripts/trixie-apt", apt_dir, "apt-cache", "policy", name]))
    for release, argv in asks:
        text = proc.output(argv, limit=120, stderr=subprocess.DEVNULL)
        found = re.search(r"Candidate: (\S+)", text)
        if found and found.group(1) != "(none)":
            return "deb %s (%s)" % (found.group(1), release)
    return " and ".join(r for r, _ in asks)


def record_track_log(s, text, outcome):
    """Table 8's RESULT and CMD lines; its TRACKV lines (ksnoop -v on the
    skb glob) and KERNEL lines as the listings "track-verbose" and
    "track-kernel"."""
    booted = next(filter(None, map(BOOTED.match, text.splitlines())), None)
    if booted:
        outcome.track_boot = booted.group(1)
    verbose, kernel, pwru = [], [], []
    for _, kind, rest in vm_notes(text, BENCH_NOTE):
        if take_result(s, kind, rest):
            continue
        if kind == "CMD" and " " in rest:
            key, _, cmd = rest.partition(" ")
            s.command("vm-" + key, cmd)
        elif kind == "TRACKV":
            verbose.append(rest)
        elif kind == "TRACKP":
            pwru.append(rest)
        elif kind == "KERNEL":
            kernel.append(rest)
        elif kind == "INFO":
            outcome.track_info = rest
    s.listing("track-verbose", verbose)
    s.listing("track-kernel", kernel)
    s.listing("track-pwru", pwru)


def fetch_pwru(s, outcome):
    """Debian trixie's pwru (a Go binary that needs libpcap.so.0.8, which
    bookworm's libpcap0.8 gives: bench/run installs it), downloaded through
    the private trixie apt of KSNOOP_APT_DIR into the work directory; its
    path, or None with the reason in outcome.pwru_why."""
    apt_dir = os.environ.get("KSNOOP_APT_DIR", "")
    if not (apt_dir and os.path.isdir(apt_dir)):
        outcome.pwru_why = "no trixie apt (KSNOOP_APT_DIR unset)"
        return None
    where = s.path("pwru")
    where.mkdir(exist_ok=True)
    with open(s.path("pwru.log"), "w") as log:
        ok = proc.run(["sh", "-c", 'cd "$1" && "$2" "$3" apt-get download pwru', "sh", where,
                       os.path.abspath("scripts/trixie-apt"), apt_dir],
                      limit=300, stdout=log, stderr=subprocess.STDOUT) == 0
        debs = sorted(where.glob("pwru_*.deb"))
        ok = ok and debs and proc.run(["dpkg-deb", "-x", debs[-1], where / "x"], limit=120,
                                      stdout=log, stderr=subprocess.STDOUT) == 0
    binary = where / "x" / "usr" / "bin" / "pwru"
    if not ok or not binary.is_file():
        outcome.pwru_why = "apt-get download pwru failed: " + proc.oneline(s.path("pwru.log"))
        return None
    if proc.run([binary, "--help"], limit=30, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) not in (0, 2):
        outcome.pwru_why = "trixie's pwru does not run on this host (libpcap.so.0.8: package libpcap0.8)"
        return None
    outcome.pwru = "%s, run from %s" % (outcome.pwru, debs[-1].name)
    return binary


def measure_track(s, outcome):
    """Table 8: a boot of bench/vm-bench.sh with PARTS=track on 6.12,
    thread=single (the skb glob patches hundreds of functions)."""
    say("VM (%s): --track, an untracked call against a filtered-out one (%d rounds); "
        "attach time over every skb function, ksnoop and bpftrace" % (TRACK_KERNEL, s.opts.vm_rounds))
    s.phase("setup4")
    outcome.track_tcg = os.environ.get("KSNOOP_VM_TCG_THREAD", "") or "single"
    outcome.pwru = packaged("pwru")
    pwru = fetch_pwru(s, outcome)
    rc, text = run_part(s, "track", outcome.track_tcg, ["--bin", "%s:pwru" % pwru] if pwru else [])
    outcome.track_rc = str(rc)
    record_track_log(s, text, outcome)
    s.phase("track")
    if rc != 0:
        say("the --track VM run failed (status %d); its log ends:" % rc)
        print("\n".join(text.splitlines()[-30:]), file=sys.stderr)


def globs_args(s, kernel):
    t = s.tools
    return ["--kernel", kernel, *GLOBS_TIMEOUT,
            "--bin", "%s:ksnoop" % t.ksnoop, *peer_args(s, "bpftrace"),
            "--bin", "/bin/bash:bash", "--bin", t.loop,
            "--file", "%s:/tests/bench.conf" % s.path("glob.conf"), "bench/vm-globs.sh"]


def measure_globs(s, outcome):
    """Table 6's tcp_* and per-call runs, one boot per kernel."""
    o = s.opts
    s.path("glob.conf").write_text("GLOB_ROUNDS=%d\nCALL_ROUNDS=%d\nOPEN_N=%d\n"
                                   % (o.glob_rounds, o.vm_rounds, s.sizes.open_n))
    if not o.glob_vm:
        return
    outcome.glob_rc = "0"
    for kernel in o.glob_kernels:
        say("VM (%s): tcp_* against one function, ksnoop and bpftrace (%d rounds); a glob per call, "
            "fentry against kprobe (%d rounds)" % (kernel, o.glob_rounds, o.vm_rounds))
        log = s.path("vm-globs-%s.log" % kernel)
        with open(log, "w") as out:
            rc = proc.run([VM_RUN, *globs_args(s, kernel)], limit=GLOBS_LIMIT_S, stdout=out,
                          stderr=subprocess.STDOUT)
        record_globs_log(s, log.read_text(errors="replace"))
        if rc != 0:
            say("the %s VM run failed (status %d); its log:" % (kernel, rc))
            print("\n".join(log.read_text(errors="replace").splitlines()[-20:]), file=sys.stderr)
            outcome.glob_rc = str(rc)


def record_globs_log(s, text):
    cmds = set()
    for _, kind, rest in vm_notes(text, GLOBS_NOTE):
        if not take_result(s, kind, rest) and kind == "CMD" and " " in rest:
            cmds.add(rest)
    for key, _, cmd in sorted(c.partition(" ") for c in cmds):
        s.command("vm-" + key, cmd)


# ---- table 9: arm64 ----------------------------------------------------------------

EM_AARCH64 = 183
ARM64_PEERS = ("bpftrace", "bash")      # Debian bookworm's arm64 builds, dynamically linked
ARM64_GUEST_HAS = ("libc6", "gcc-12-base")   # in the arm64 guest already (tests/vm/kernel.bash), or no library
ARM64_LIBDIRS = ("usr/lib/aarch64-linux-gnu", "lib/aarch64-linux-gnu")
ARM64_NOTE = re.compile(r"^NOTE vm-arm64[-0-9.]*/vm-bench: (.*)")   # tests/vm/run --arch arm64's label
NEEDED = re.compile(r"\(NEEDED\)\s+Shared library: \[([^]]+)\]")
APT_LIMIT_S = 600
TRIXIE_APT = Path(__file__).resolve().parent.parent / "scripts/trixie-apt"


def elf_machine(path):
    """e_machine of the ELF file at PATH, or None."""
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError:
        return None
    return int.from_bytes(head[18:20], "little") if len(head) == 20 and head[:4] == b"\x7fELF" else None


def arm64_ksnoop(s):
    """The arm64 ksnoop: KSNOOP_ARM64, else build-arm64/ksnoop (make
    ARCH=arm64), copied into the work directory; None if there is none."""
    src = os.environ.get("KSNOOP_ARM64") or "build-arm64/ksnoop"
    if elf_machine(src) != EM_AARCH64:
        say("%s is not an arm64 program (make ARCH=arm64, or set KSNOOP_ARM64): no table 9" % src)
        return None, src
    dest = s.path("arm64/ksnoop")
    dest.parent.mkdir(exist_ok=True)
    shutil.copy2(src, dest)
    return dest, src


def arm64_loop(s, ksnoop_src):
    """bench/loop.c for aarch64, static; <sys/sdt.h> from the arm64 sysroot
    that make ARCH=arm64 unpacked beside ksnoop (scripts/arm64-sysroot)."""
    sdt = Path(ksnoop_src).resolve().parent / "sysroot/usr/include/aarch64-linux-gnu"
    loop = s.path("arm64/ksb-loop")
    if proc.run(["aarch64-linux-gnu-gcc", "-O2", "-static", "-Wall", "-Wextra", "-isystem", sdt,
                 "-o", loop, "bench/loop.c"], stderr=None) != 0:
        say("cannot build bench/loop.c for arm64 (aarch64-linux-gnu-gcc, %s/sys/sdt.h): no table 9" % sdt)
        return None
    return loop


def arm64_apt(*args, cwd=None):
    """scripts/trixie-apt with the arm64 VM's private configuration
    (tests/vm/kernel.bash's: KSNOOP_ARM64_APT_DIR, else the VM cache's
    apt-bookworm-arm64), in CWD; its output, "" if it could not run."""
    cache = os.environ.get("KSNOOP_VM_CACHE") or os.path.expanduser("~/.cache/ksnoop/vm")
    aptdir = os.environ.get("KSNOOP_ARM64_APT_DIR") or os.path.join(cache, "apt-bookworm-arm64")
    os.makedirs(aptdir, exist_ok=True)
    env = {**os.environ, "KSNOOP_APT_RELEASE": "bookworm", "KSNOOP_APT_ARCH": "arm64"}
    try:
        done = subprocess.run([str(TRIXIE_APT), aptdir, *args], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=APT_LIMIT_S,
                              check=False)
    except (subprocess.TimeoutExpired, OSError):
        return ""
    return done.stdout.decode(errors="replace")


def needed(path):
    text = proc.output(["readelf", "-d", path], limit=60, stderr=subprocess.DEVNULL)
    return NEEDED.findall(text)


def arm64_peers(s, outcome):
    """Debian's arm64 bpftrace and bash with their libraries: the packages
    and what they depend on (apt-cache depends --recurse) downloaded and
    unpacked; then, from the programs' ELF headers (readelf -d: ldd cannot
    run an arm64 program here), each shared library they need, found in
    the unpacked packages, copied under its soname into one directory for
    the guest's /usr/lib/aarch64-linux-gnu. (bpftrace, bash, that
    directory), or None with outcome.arm64_peers saying why."""
    def fail(why):
        outcome.arm64_peers = why
        say("arm64 bpftrace: %s; table 9 goes without bpftrace" % why)
        return None
    arm64_apt("update")
    deps = arm64_apt("apt-cache", "depends", "--recurse", "--no-recommends", "--no-suggests",
                     "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances", *ARM64_PEERS)
    pkgs = sorted({w for w in deps.splitlines() if w and not w.startswith((" ", "<"))} - set(ARM64_GUEST_HAS))
    if not set(ARM64_PEERS) <= set(pkgs):
        return fail("apt-cache depends found no arm64 %s" % " ".join(ARM64_PEERS))
    debs, root = s.path("arm64/debs"), s.path("arm64/root")
    debs.mkdir(parents=True, exist_ok=True)
    arm64_apt("apt-get", "-q", "download", *pkgs, cwd=debs)
    got = sorted(debs.glob("*_arm64.deb")) + sorted(debs.glob("*_all.deb"))
    for deb in got:
        if proc.run(["dpkg-deb", "-x", deb, root]) != 0:
            return fail("dpkg-deb -x %s failed" % deb.name)
    bpftrace, bash = root / "usr/bin/bpftrace", root / "bin/bash"
    if not (elf_machine(bpftrace) == EM_AARCH64 and elf_machine(bash) == EM_AARCH64):
        return fail("apt-get download of %s gave no arm64 bpftrace and bash (%d packages)"
                    % (" ".join(pkgs), len(got)))
    libdir = s.path("arm64/lib")
    libdir.mkdir(exist_ok=True)
    todo, seen, guest = [bpftrace, bash], set(), []
    while todo:
        for soname in needed(todo.pop()):
            if soname in seen:
                continue
            seen.add(soname)
            found = next((root / d / soname for d in ARM64_LIBDIRS if (root / d / soname).exists()), None)
            if found is None:
                guest.append(soname)     # libc6's: the guest has them
                continue
            shutil.copyfile(found.resolve(), libdir / soname)
            todo.append(libdir / soname)
    size = sum(f.stat().st_size for f in libdir.iterdir()) + bpftrace.stat().st_size
    outcome.arm64_peers = ("%d packages (apt-get download, bookworm arm64): bpftrace, bash and %d libraries, "
                           "%d MB; from the guest's libc6: %s"
                           % (len(got), len(seen) - len(guest), size >> 20, " ".join(sorted(guest))))
    say("arm64 peers: " + outcome.arm64_peers)
    return bpftrace, bash, libdir


def arm64_args(s, ksnoop, loop, peers):
    args = ["--arch", "arm64", *BENCH_TIMEOUT, "--bin", "%s:ksnoop" % ksnoop, "--bin", "%s:ksb-loop" % loop]
    if peers:
        bpftrace, bash, libdir = peers
        args += ["--bin", "%s:bpftrace" % bpftrace, "--bin", "%s:bash" % bash,
                 "--file", "%s:/usr/lib/aarch64-linux-gnu" % libdir]
    return [*args, "--file", "%s:/tests/bench.conf" % s.path("bench.conf"), "bench/vm-bench.sh"]


def record_arm64_log(s, text, outcome):
    """Table 9's RESULT and CMD lines; its INFO lines (the arm64 guest's
    kernel, bpftrace's version there). The script prints every table's
    command lines: only table 9's are kept."""
    booted = next(filter(None, map(BOOTED.match, text.splitlines())), None)
    if booted:
        outcome.arm64_boot = booted.group(1)
    for _, kind, rest in vm_notes(text, ARM64_NOTE):
        if take_result(s, kind, rest):
            continue
        if kind == "CMD" and rest.startswith("arm64-") and " " in rest:
            key, _, cmd = rest.partition(" ")
            s.command("vm-" + key, cmd)
        elif kind == "INFO" and rest.startswith("arm64 "):
            s.listing("arm64-info", [rest])
        elif kind == "INFO":
            outcome.arm64_info = rest


def measure_arm64(s, outcome):
    """Table 9: a boot of the arm64 VM running bench/vm-bench.sh with
    PARTS=arm64, multi-threaded TCG as table 1."""
    ksnoop, src = arm64_ksnoop(s)
    loop = ksnoop and arm64_loop(s, src)
    if not loop:
        outcome.arm64_rc = "no arm64 ksnoop or ksb-loop (make ARCH=arm64, or KSNOOP_ARM64=path)"
        return
    s.command("arm64-ksnoop", src)
    peers = arm64_peers(s, outcome)
    say("VM (arm64): kernel functions by kprobe, ksnoop against bpftrace (%d rounds; qemu-system-aarch64, TCG)"
        % s.opts.vm_rounds)
    s.phase("setup-arm64")
    outcome.arm64_tcg = os.environ.get("KSNOOP_VM_TCG_THREAD", "") or "multi"
    rc, text = run_part(s, "arm64", outcome.arm64_tcg, args=arm64_args(s, ksnoop, loop, peers))
    outcome.arm64_rc = str(rc) if rc == 0 else "tests/vm/run status %d" % rc
    record_arm64_log(s, text, outcome)
    s.phase("arm64")
    if rc != 0:
        say("the arm64 VM run failed (status %d); its log ends:" % rc)
        print("\n".join(text.splitlines()[-30:]), file=sys.stderr)


# ---- table 10: kprobe.session's slots against the stash ---------------------------

def session_env():
    """The private apt configurations tests/run gives tests/vm/run (7.3 is
    trixie-backports' kernel): the environment's, else build/'s when there."""
    env = {}
    for var, default in SESSION_APT:
        where = os.environ.get(var) or (os.path.abspath(default) if os.path.isdir(default) else "")
        if where:
            env[var] = where
    return env


def record_session_log(s, text, outcome, release):
    """Table 10's RESULT and CMD lines of one boot (the rows carry
    kernel=MAJOR.MINOR); its INFO lines (the guest kernel, and whether
    ksnoop -v found kprobe.session there) into outcome.session; the
    guest kernel's label (MAJOR.MINOR)."""
    booted = next(filter(None, map(BOOTED.match, text.splitlines())), None)
    about = {"release": release, "boot": booted.group(1) if booted else ""}
    for _, kind, rest in vm_notes(text, BENCH_NOTE):
        if take_result(s, kind, rest):
            continue
        if kind == "CMD" and rest.startswith("session-") and " " in rest:
            key, _, cmd = rest.partition(" ")
            s.command("vm-" + key, cmd)
        elif kind == "INFO" and rest.startswith("session "):
            # "kprobe_session_yes", "kprobe_session_no_(KSNOOP_FEATURES)" ...: yes, no ...
            said = rest.partition(" ")[2].removeprefix("kprobe_session_").split(";")[0]
            about["info"] = said.replace("_", " ") or "not said"
        elif kind == "INFO" and rest.startswith("kernel "):
            about["uname"] = rest.split()[1]
    uname = about.get("uname", "")
    rows = [r.fields.get("kernel") for r in s.data.runs if r.table == "session"]
    label = ".".join(uname.split(".")[:2]) if uname else (rows[-1] if rows else release)
    outcome.session[label] = about
    return label


def measure_session(s, outcome):
    """Table 10: bench/vm-bench.sh with PARTS=session, a boot of 7.3, then
    one of 6.12, multi-threaded TCG as table 1."""
    outcome.session_tcg = os.environ.get("KSNOOP_VM_TCG_THREAD", "") or "multi"
    failed = []
    for release in SESSION_KERNELS:
        say("VM (%s): kprobe.session's slots against the stash, printing and stopped (%d rounds)"
            % (release, s.opts.vm_rounds))
        s.phase("setup-session-" + release)
        rc, text = run_part(s, "session", outcome.session_tcg, ["--kernel", release], env=session_env(),
                            name="session-" + release)
        label = record_session_log(s, text, outcome, release)
        outcome.session[label]["load"] = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        s.phase("session-" + release)
        if rc != 0:
            failed.append("%s: tests/vm/run status %d" % (release, rc))
            say("the %s session VM run failed (status %d); its log ends:" % (release, rc))
            print("\n".join(text.splitlines()[-30:]), file=sys.stderr)
    outcome.session_rc = "; ".join(failed) or "0"
