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
Table 8, --track (PARTS=track), boots Debian's 6.12 with thread=single:
its attach-time runs patch hundreds of functions.

The scripts in the guest print one line per result on the host:
"NOTE vm/vm-bench: RESULT TABLE VARIANT ROUND key=value...", and CMD,
SAMPLE, KERNEL, HANG, INFO and "waiting for" lines beside them.
"""

import os
import re
import subprocess
import sys
from dataclasses import dataclass

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
    track_rc: str = "skipped"
    track_tcg: str = ""
    track_boot: str = ""
    pwru: str = ""              # packaged("pwru")
    track_info: str = ""
    pwru_why: str = ""          # why pwru was not run, if it was not


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


def bench_args(s, part, extra=()):
    """tests/vm/run's arguments; table 7 (PARTS=tree) runs ksnoop alone,
    so its initramfs goes without the peers (bpftrace is ~200 MB)."""
    t = s.tools
    peers = [] if part == "tree" else [
        "--bin", "%s:bcc-ksnoop" % t.bcc_ksnoop, "--bin", "%s:bpftrace" % t.bpftrace,
        "--bin", t.startup, "--bin", "/usr/bin/time:time"]
    if part == "track":     # table 8: 6.12, bpftrace its only peer
        peers = ["--kernel", TRACK_KERNEL, "--bin", "%s:bpftrace" % t.bpftrace]
    return [*BENCH_TIMEOUT, "--bin", "%s:ksnoop" % t.ksnoop, *peers, "--bin", t.loop,
            "--bin", "/bin/bash:bash", *extra,
            "--file", "%s:/tests/bench.conf" % s.path("bench.conf"), "bench/vm-bench.sh"]


def show_failure(log):
    """The kernel's trouble lines and the end of a failed run's log."""
    lines = log.read_text(errors="replace").splitlines()
    for line in [x for x in lines if TROUBLE.search(x)][:5] + lines[-5:]:
        print(line, file=sys.stderr)


def run_part(s, part, tcg, extra=()):
    """One boot running PARTS=PART (EXTRA: more tests/vm/run arguments),
    run once more if it fails; its status and log."""
    s.path("bench.conf").write_text(bench_conf(s, part))
    log = s.path("vm-%s.log" % part)
    env = {**os.environ, "KSNOOP_VM_TCG_THREAD": tcg}
    for attempt in (1, 2):
        rc = watched(log, [str(a) for a in bench_args(s, part, extra)], env)
        if rc == 0 or attempt == 2:
            break
        say("the VM run of %s failed (status %d, thread=%s); running it again. Its log ends:"
            % (part, rc, tcg))
        show_failure(log)
        log.rename(s.path("vm-%s.failed.log" % part))
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


def measure(s):
    """Tables 1 and 5: two boots of bench/vm-bench.sh."""
    say("VM: kernel functions (%d rounds; qemu under software emulation)" % s.opts.vm_rounds)
    s.phase("setup2")
    forced = os.environ.get("KSNOOP_VM_TCG_THREAD", "")
    outcome = VmOutcome(rc="0", vm_tcg=forced or "multi", su_tcg=forced or "single")
    logs = []
    for part, tcg in (("kfunc", outcome.vm_tcg), ("startup", outcome.su_tcg)):
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
            "--bin", "%s:ksnoop" % t.ksnoop, "--bin", "%s:bpftrace" % t.bpftrace,
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
