#!/bin/bash
# vm-timeout: 1200
#
# Kernel-function benchmarks, run inside the test VM by bench/run (through
# tests/vm/run, which puts the programs given with --bin in /usr/bin):
#
#   ksnoop        the ksnoop under test
#   bcc-ksnoop    bcc's libbpf-tools ksnoop (/usr/sbin/ksnoop on the host)
#   bpftrace      Debian's bpftrace
#   ksb-loop      bench/loop.c, static
#   ksb-startup   bench/startup.c, static
#   time          GNU time (/usr/bin/time -v: peak RSS)
#
# /tests/bench.conf (written by bench/run) sets ROUNDS, OPEN_N,
# STARTUP_ROUNDS and PARTS: "kfunc" (table 1, cost per call: bench/run
# boots multi-threaded TCG for it) and/or "startup" (table 5 and the sample
# output: the workload opens files while each tracer attaches, which is
# kernel text patched under a running vCPU, so bench/run boots it with the
# tests' thread=single). Tracers run on CPU 0 (taskset) and the workload on CPU 1 (-C 1),
# so that the scheduler cannot put them on one CPU in some runs and not in
# others. Every traced run is preceded by an untraced run of the same loop
# ("base=", ns per call): the added cost is taken against that neighbour.
# Every result is one line on the host:
#
#   NOTE vm/vm-bench: RESULT <table> <variant> <round> key=value...
#
# so bench/run can parse it. Failures are "RESULT ... error=<why>".
. /tests/lib.sh
. /tests/bench.conf

set -u
export LC_ALL=C
W=/tmp/ksb
mkdir -p "$W"
F=$W/target-file
echo hello >"$F"
NCPU=$(grep -c '^processor' /proc/cpuinfo)
SPEC='do_sys_openat2(filename, return)'
PRED='do_sys_openat2(dfd == 12345)'
RET_ONLY='do_sys_openat2(return)'
# bpftrace: the same values, printed the way ksnoop prints them. The
# filename is a user pointer: uptr() makes bpftrace read user memory (plain
# str(arg1) prints an empty string on this kernel).
BT_KPROBE='kprobe:do_sys_openat2 { printf("-> do_sys_openat2 filename=%s\n", str(uptr(arg1))); } kretprobe:do_sys_openat2 { printf("<- do_sys_openat2 return=%d\n", retval); }'
BT_KFUNC='kfunc:do_sys_openat2 { printf("-> do_sys_openat2 filename=%s\n", str(uptr(args->filename))); } kretfunc:do_sys_openat2 { printf("<- do_sys_openat2 return=%d\n", retval); }'
BT_BARE_KPROBE='kprobe:do_sys_openat2 { }'
BT_BARE_KFUNC='kfunc:do_sys_openat2 { }'

result() { note "RESULT $*"; }

# If the guest kernel gets into trouble (soft lockup, RCU stall, a BUG or
# WARNING), say so once, with the kernel's own lines, while it still can.
(
	seen=$(dmesg | wc -l)
	while sleep 5; do
		new=$(dmesg | tail -n +"$((seen + 1))")
		if printf '%s\n' "$new" | grep -q -E 'soft lockup|rcu.*stall|BUG:|WARNING:|hung_task|Oops'; then
			printf '%s\n' "$new" | grep -v -E '^\[ *[0-9.]+\] *$' | head -n 150 |
				while IFS= read -r l; do note "KERNEL $l"; done
			exit 0
		fi
	done
) &
watcher=$!
T0='taskset -c 0'
LOOPCMD="ksb-loop -C 1"
untraced() { $LOOPCMD open "$OPEN_N" "$F" | sed -n 's/^ns_per_iter=\([0-9.]*\).*/\1/p'; }

# Print the command lines once, exactly as run, for the report.
cmdline() { note "CMD $1 $2"; }

# wait_for COND_FUNCTION PID SECONDS: poll until COND succeeds or PID dies
wait_for() {
	local cond=$1 pid=$2 limit=$3 i=0
	while [ "$i" -lt $((limit * 20)) ]; do
		"$cond" "$pid" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}
ksnoop_ready() { grep -q 'tracing .* target' "$W/err" 2>/dev/null; }
# bcc's ksnoop says nothing when it is attached (its header goes to stdout,
# /dev/null here). It is ready when its two kprobe perf events and one
# perf-buffer event per CPU are open: it attaches, then opens the buffer,
# then polls.
bcc_ready() {
	local n
	n=$(ls -l "/proc/$1/fd" 2>/dev/null | grep -c 'perf_event')
	[ "$n" -ge $((2 + NCPU)) ]
}

summary() { # the "ksnoop: N events printed, M lost" line -> "printed=N lost=M"
	sed -n 's/^ksnoop: \([0-9]*\) events printed, \([0-9]*\) lost.*/printed=\1 lost=\2/p' "$W/err" | tail -n 1
}

# bg_tracer VARIANT READY-FUNC CMD...: run CMD on CPU 0 in the background with
# stdout on /dev/null, wait until READY-FUNC says it is attached, run the
# workload, stop CMD with SIGINT; prints the workload's result line, or
# error=... With STOPPED=1 the tracer is stopped (SIGSTOP) while the
# workload runs: only the BPF side of tracing is measured.
bg_tracer() {
	local variant=$1 ready=$2 pid out rc
	shift 2
	: >"$W/err"
	$T0 "$@" >/dev/null 2>"$W/err" &
	pid=$!
	if ! wait_for "$ready" "$pid" 120; then
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		echo "error=did_not_attach:$(tail -n 2 "$W/err" | tr -s ' \n\t' '___' | cut -c1-150)"
		return
	fi
	[ "${STOPPED:-0}" = 1 ] && kill -STOP "$pid"
	out=$($LOOPCMD open "$OPEN_N" "$F")
	[ "${STOPPED:-0}" = 1 ] && kill -CONT "$pid"
	kill -INT "$pid"
	# bcc's ksnoop and ksnoop drain their buffers: allow time for it
	local i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
	if kill -0 "$pid" 2>/dev/null; then
		kill -9 "$pid"
		echo "$out stop=killed"
	fi
	wait "$pid" 2>/dev/null
	rc=$?
	echo "$out $(summary) rc=$rc"
}

# bt_run PROGRAM: bpftrace runs the workload itself (-c), after attaching
bt_run() {
	local rc
	rm -f "$W/res"
	$T0 bpftrace -e "$1" -c "$LOOPCMD -o $W/res open $OPEN_N $F" >/dev/null 2>"$W/err"
	rc=$?
	if [ -s "$W/res" ]; then
		echo "$(cat "$W/res") rc=$rc"
	else
		echo "error=bpftrace_failed:$(tail -n 2 "$W/err" | tr -s ' \n\t' '___' | cut -c1-150)"
	fi
}

run_kfunc() {
	case $1 in
	untraced) echo "$($LOOPCMD open "$OPEN_N" "$F")" ;;
	ksnoop-fentry) bg_tracer "$1" ksnoop_ready ksnoop -v --mode fentry "$SPEC" ;;
	ksnoop-fentry-stopped) STOPPED=1 bg_tracer "$1" ksnoop_ready ksnoop -v --mode fentry --buffer $((64 << 20)) "$SPEC" ;;
	ksnoop-return-only) bg_tracer "$1" ksnoop_ready ksnoop -v --mode fentry "$RET_ONLY" ;;
	ksnoop-kprobe) bg_tracer "$1" ksnoop_ready ksnoop -v --mode kprobe "$SPEC" ;;
	bcc-ksnoop) bg_tracer "$1" bcc_ready bcc-ksnoop trace "$SPEC" ;;
	bpftrace-kprobe) bt_run "$BT_KPROBE" ;;
	bpftrace-kfunc) bt_run "$BT_KFUNC" ;;
	ksnoop-filtered-fentry) bg_tracer "$1" ksnoop_ready ksnoop -v --mode fentry "$PRED" ;;
	ksnoop-filtered-kprobe) bg_tracer "$1" ksnoop_ready ksnoop -v --mode kprobe "$PRED" ;;
	bare-kprobe) bt_run "$BT_BARE_KPROBE" ;;
	bare-kfunc) bt_run "$BT_BARE_KFUNC" ;;
	esac
}

KFUNC_VARIANTS=(untraced ksnoop-fentry ksnoop-kprobe bcc-ksnoop bpftrace-kprobe
	bpftrace-kfunc ksnoop-filtered-fentry ksnoop-filtered-kprobe bare-kprobe bare-kfunc
	ksnoop-return-only ksnoop-fentry-stopped)

cmdline untraced "$LOOPCMD open $OPEN_N $F"
cmdline ksnoop-fentry "$T0 ksnoop -v --mode fentry '$SPEC' >/dev/null"
cmdline ksnoop-kprobe "$T0 ksnoop -v --mode kprobe '$SPEC' >/dev/null"
cmdline bcc-ksnoop "$T0 bcc-ksnoop trace '$SPEC' >/dev/null"
cmdline bpftrace-kprobe "$T0 bpftrace -e '$BT_KPROBE' -c '$LOOPCMD -o RES open $OPEN_N $F' >/dev/null"
cmdline bpftrace-kfunc "$T0 bpftrace -e '$BT_KFUNC' -c '$LOOPCMD -o RES open $OPEN_N $F' >/dev/null"
cmdline ksnoop-filtered-fentry "$T0 ksnoop -v --mode fentry '$PRED' >/dev/null"
cmdline ksnoop-filtered-kprobe "$T0 ksnoop -v --mode kprobe '$PRED' >/dev/null"
cmdline bare-kprobe "$T0 bpftrace -e '$BT_BARE_KPROBE' -c '$LOOPCMD -o RES open $OPEN_N $F' >/dev/null"
cmdline bare-kfunc "$T0 bpftrace -e '$BT_BARE_KFUNC' -c '$LOOPCMD -o RES open $OPEN_N $F' >/dev/null"
cmdline ksnoop-return-only "$T0 ksnoop -v --mode fentry '$RET_ONLY' >/dev/null"
cmdline ksnoop-fentry-stopped "$T0 ksnoop -v --mode fentry --buffer $((64 << 20)) '$SPEC' >/dev/null   # SIGSTOP while the loop runs"

# One sample of bcc's and bpftrace's output, to show what each captures.
sample_output() {
	local name=$1
	shift
	"$@" >"$W/sample" 2>/dev/null &
	local pid=$!
	sleep "$SAMPLE_WAIT"
	ksb-loop open 2 "$F" >/dev/null
	sleep 1
	kill -INT "$pid" 2>/dev/null
	sleep 1
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	# from the line before the first mention of the target file (ksnoop's
	# header), else from the first event (bcc's ksnoop prints no file name)
	awk -v f="$F" -v name="$name" '
		{ line[NR] = $0 }
		index($0, f) && !s { s = NR > 1 ? NR - 1 : 1 }
		/do_sys_openat2/ && !e { e = NR }
		END { if (!s) s = e; if (!s) exit; for (i = s; i < s + 5 && i <= NR; i++) print line[i] }
	' "$W/sample" | while IFS= read -r l; do
		note "SAMPLE $name $l"
	done
}

# ---- 1. kernel function: ns per open+close --------------------------------
n=${#KFUNC_VARIANTS[@]}
case " ${PARTS:-kfunc startup} " in *" kfunc "*) ;; *) ROUNDS=0 ;; esac
for ((r = 0; r < ROUNDS; r++)); do
	for ((k = 0; k < n; k++)); do
		v=${KFUNC_VARIANTS[$(((k + r) % n))]}
		base=
		[ "$v" != untraced ] && base="base=$(untraced)"
		out=$(run_kfunc "$v")
		result kfunc "$v" "$r" "$out $base"
	done
done

# ---- 5. start-up and peak RSS, kernel-function spec ------------------------
# ksb-startup opens $F every millisecond and times exec -> first event line.
startup_one() {
	local variant=$1 marker=$2 out i
	shift 2
	# nothing of an earlier tracer may still be detaching
	for ((i = 0; i < 600; i++)); do
		left=$(pidof bpftrace ksnoop bcc-ksnoop) || break
		[ "$i" = 0 ] && note "waiting for pid(s) $left (an earlier tracer) to exit"
		sleep 0.1
	done
	out=$(ksb-startup -m "$marker" -w open -f "$F" -t 120 -r "$W/rss" -e "$W/err" -- "$@" 2>"$W/su.diag")
	result startup-kfunc "$variant" "$r" "$out"
	# a tracer that ignored SIGINT: where its threads were (bench/startup.c)
	grep '^hang: ' "$W/su.diag" | head -n 20 | while IFS= read -r l; do note "HANG $variant round $r: ${l#hang: }"; done
}
STARTUP_VARIANTS=(ksnoop ksnoop-kprobe bcc-ksnoop bpftrace)
cmdline su-ksnoop "ksnoop '$SPEC'"
cmdline su-ksnoop-kprobe "ksnoop --mode kprobe '$SPEC'"
cmdline su-bcc-ksnoop "bcc-ksnoop trace '$SPEC'"
cmdline su-bpftrace "bpftrace -e '$BT_KPROBE'"
case " ${PARTS:-kfunc startup} " in *" startup "*) ;; *) STARTUP_ROUNDS=0 ;; esac
for ((r = 0; r < STARTUP_ROUNDS; r++)); do
	for ((k = 0; k < ${#STARTUP_VARIANTS[@]}; k++)); do
		v=${STARTUP_VARIANTS[$(((k + r) % ${#STARTUP_VARIANTS[@]}))]}
		case $v in
		ksnoop) startup_one "$v" do_sys_openat2 ksnoop "$SPEC" ;;
		ksnoop-kprobe) startup_one "$v" do_sys_openat2 ksnoop --mode kprobe "$SPEC" ;;
		bcc-ksnoop) startup_one "$v" 'do_sys_openat2(' bcc-ksnoop trace "$SPEC" ;;
		bpftrace) startup_one "$v" do_sys_openat2 bpftrace -e "$BT_KPROBE" ;;
		esac
	done
done

# What each tracer prints for one open (for the report).
SAMPLE_WAIT=4
if [ "$STARTUP_ROUNDS" -gt 0 ]; then
	sample_output ksnoop ksnoop "$SPEC"
	sample_output bcc-ksnoop bcc-ksnoop trace "$SPEC"
	sample_output bpftrace bpftrace -e "$BT_KPROBE"
fi
note "INFO kernel $(uname -r) ncpu $NCPU"
kill "$watcher" 2>/dev/null
exit 0
