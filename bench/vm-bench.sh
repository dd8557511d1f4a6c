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
# STARTUP_ROUNDS, TREE_N, TREE_DIRS, TRACK_ATTACH_ROUNDS and PARTS: "kfunc" (table 1, cost per
# call: bench/run boots multi-threaded TCG for it), "startup" (table 5 and
# the sample output: the workload opens files while each tracer attaches,
# which is kernel text patched under a running vCPU, so bench/run boots it
# with the tests' thread=single), "tree" (table 7, --tree's cost per
# call, multi-threaded TCG as table 1), "track" (table 8, --track: cost
# per call and attach time over every skb function; bench/run boots it on
# 6.12 with thread=single, hundreds of functions being patched) and/or
# "arm64" (table 9, table 1's kprobe rows in the arm64 VM: tests/vm/run
# --arch arm64, where bench/run puts arm64 builds of ksnoop, ksb-loop, bash
# and Debian's bpftrace) and/or "session" (table 10, kprobe.session's slots
# against the stash, table 1's loop, multi-threaded TCG). Tracers run on CPU 0 (taskset) and
# the workload on CPU 1 (-C 1), so that the scheduler cannot put them on
# one CPU in some runs and not in others. Every traced run is preceded by an untraced run of the same loop
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
TREE_ROUNDS=$ROUNDS
ARM64_ROUNDS=$ROUNDS
ROUNDS_SESSION=$ROUNDS
TRACK_ROUNDS=$ROUNDS
W=/tmp/ksb
mkdir -p "$W"
F=$W/target-file
echo hello >"$F"
NCPU=$(grep -c '^processor' /proc/cpuinfo)
SPEC='do_sys_openat2(filename, return)'
PRED='do_sys_openat2(dfd == 12345)'
RET_ONLY='do_sys_openat2(return)'
# Table 10: a predicate on return keeps the entry values until the return
# (one event per call, both values in it): the path kprobe.session serves.
KEPT='do_sys_openat2(filename, return >= 0)'
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

summary() { # the "ksnoop: N events printed, M lost[, K captured but not printed ...]"
	# line -> "printed=N lost=M[ unprinted=K]"
	sed -n -e 's/^ksnoop: \([0-9]*\) events printed, \([0-9]*\) lost, \([0-9]*\) captured but not printed.*/printed=\1 lost=\2 unprinted=\3/p' \
		-e 't' -e 's/^ksnoop: \([0-9]*\) events printed, \([0-9]*\) lost.*/printed=\1 lost=\2/p' "$W/err" | tail -n 1
}
# the same line's calls not followed (stash full, or no session slot),
# calls missed (the probe fired inside a BPF program) and entries kept in
# the stash under the cookie (the kernel refused kprobe.session's task
# storage): " not_followed=N missed=M in_stash=K"
followed() {
	local line
	line=$(grep '^ksnoop: [0-9]* events printed' "$W/err" | tail -n 1)
	printf ' not_followed=%s missed=%s in_stash=%s' \
		"$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) calls not followed.*/\1/p' | grep . || echo 0)" \
		"$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) calls missed.*/\1/p' | grep . || echo 0)" \
		"$(printf '%s\n' "$line" | sed -n 's/.* \([0-9]*\) entries kept in the stash.*/\1/p' | grep . || echo 0)"
}

# prog_stats PID: the run time (ns) and run count of the BPF programs PID
# holds, summed from its fds' fdinfo (run_time_ns, run_cnt: counted while
# kernel.bpf_stats_enabled is 1): "NS RUNS" (%.0f: busybox awk's %d wraps
# at 2^31, about two seconds of run time)
prog_stats() {
	cat "/proc/$1/fdinfo/"* 2>/dev/null |
		awk '/^run_time_ns:/ { t += $2 } /^run_cnt:/ { c += $2 } END { printf "%.0f %.0f", t, c }'
}

# bg_tracer VARIANT READY-FUNC CMD...: run CMD on CPU 0 in the background with
# stdout on /dev/null, wait until READY-FUNC says it is attached, run the
# workload, stop CMD with SIGINT; prints the workload's result line, or
# error=... With STOPPED=1 the tracer is stopped (SIGSTOP) while the
# workload runs: only the BPF side of tracing is measured.  With
# PROG_STATS=1 the line adds the tracer's BPF programs' own run time and
# runs during the workload (prog_ns=, prog_runs=; prog_stats()).
bg_tracer() {
	local variant=$1 ready=$2 pid out rc p0 p1 stats=""
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
	[ "${PROG_STATS:-0}" = 1 ] && p0=$(prog_stats "$pid")
	# WORK: the workload's arguments (table 7's openat loop), else table 1's
	out=$($LOOPCMD ${WORK:-open $OPEN_N $F})
	if [ "${PROG_STATS:-0}" = 1 ]; then
		p1=$(prog_stats "$pid")
		stats=" prog_ns=$((${p1% *} - ${p0% *})) prog_runs=$((${p1#* } - ${p0#* }))"
	fi
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
	echo "$out $(summary) rc=$rc$stats"
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
	# Table 10: kprobe.session's slots against the stash (forced): table 1's
	# spec as issue #43 names it, and the spec whose entry values wait ($KEPT)
	ksnoop-session) bg_tracer "$1" ksnoop_ready ksnoop -v --mode kprobe "$SPEC" ;;
	ksnoop-stash) bg_tracer "$1" ksnoop_ready env KSNOOP_FEATURES=-kprobe_session \
		ksnoop -v --mode kprobe "$SPEC" ;;
	kept-session) bg_tracer "$1" ksnoop_ready ksnoop -v --mode kprobe "$KEPT" ;;
	kept-stash) bg_tracer "$1" ksnoop_ready env KSNOOP_FEATURES=-kprobe_session \
		ksnoop -v --mode kprobe "$KEPT" ;;
	kept-session-stopped) STOPPED=1 bg_tracer "$1" ksnoop_ready ksnoop -v --mode kprobe \
		--buffer $((64 << 20)) "$KEPT" ;;
	kept-stash-stopped) STOPPED=1 bg_tracer "$1" ksnoop_ready env KSNOOP_FEATURES=-kprobe_session \
		ksnoop -v --mode kprobe --buffer $((64 << 20)) "$KEPT" ;;
	# and fsession's (7.0 on) against fentry/fexit with the stash, fentry mode
	fkept-session) bg_tracer "$1" ksnoop_ready ksnoop -v --mode fentry "$KEPT" ;;
	fkept-stash) bg_tracer "$1" ksnoop_ready env KSNOOP_FEATURES=-fsession \
		ksnoop -v --mode fentry "$KEPT" ;;
	fkept-session-stopped) STOPPED=1 bg_tracer "$1" ksnoop_ready ksnoop -v --mode fentry \
		--buffer $((64 << 20)) "$KEPT" ;;
	fkept-stash-stopped) STOPPED=1 bg_tracer "$1" ksnoop_ready env KSNOOP_FEATURES=-fsession \
		ksnoop -v --mode fentry --buffer $((64 << 20)) "$KEPT" ;;
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

# ---- 7. call trees (--tree): ns per call ------------------------------------
# (a) An inner function called outside any session: --tree with a root the
# loop never calls (do_mkdirat) and do_sys_openat2 as INNER, on table 1's
# open+close loop, against today's filtered-out call of the same function.
# (b) A whole error tree against the same calls as plain events: openat()
# of a missing file under TREE_DIRS directories (each component a
# walk_component, lookup_fast and step_into: 3 * TREE_DIRS + 13 inner
# calls on 6.1), so each call fails (ENOENT) and makes one tree; the same
# specs without --tree print one event per call. fentry mode, output to /dev/null, every traced run after an
# untraced run of its own loop (base=). Events and trees go through a
# 64 MiB buffer, so that none is lost (a lost event costs less than a
# printed one, and would flatter either side).
TREE_BUF=$((64 << 20))
TREE_INNER_IDLE='do_sys_openat2'
TREE_IDLE_ROOT='do_mkdirat(return < 0)'
TREE_ROOT='do_sys_openat2(return < 0)'
TREE_EV_ROOT='do_sys_openat2(return)'
TREE_INNER=('do_filp_open(return)' 'path_openat(return)' 'walk_component(return)'
	'lookup_fast(return)' 'step_into(return)')
deep=$W/deep
for ((i = 1; i <= ${TREE_DIRS:-12}; i++)); do deep=$deep/d$i; done
mkdir -p "$deep"
DEEP=$deep/missing
DEEP_WORK="openat ${TREE_N:-$OPEN_N} $DEEP"
OPEN_WORK="open $OPEN_N $F"

run_tree() {
	case $1 in
	untraced-open) $LOOPCMD $OPEN_WORK ;;
	untraced-deep) $LOOPCMD $DEEP_WORK ;;
	filtered) WORK=$OPEN_WORK bg_tracer "$1" ksnoop_ready ksnoop -v --mode fentry "$PRED" ;;
	inner-idle) WORK=$OPEN_WORK bg_tracer "$1" ksnoop_ready \
		ksnoop -v --mode fentry --tree "$TREE_IDLE_ROOT" "$TREE_INNER_IDLE" ;;
	events) WORK=$DEEP_WORK bg_tracer "$1" ksnoop_ready \
		ksnoop -v --mode fentry --buffer "$TREE_BUF" "$TREE_EV_ROOT" "${TREE_INNER[@]}" ;;
	events-timed) WORK=$DEEP_WORK bg_tracer "$1" ksnoop_ready \
		ksnoop -v --mode fentry --buffer "$TREE_BUF" -L 1ns "$TREE_EV_ROOT" "${TREE_INNER[@]}" ;;
	tree) WORK=$DEEP_WORK bg_tracer "$1" ksnoop_ready \
		ksnoop -v --mode fentry --buffer "$TREE_BUF" --tree "$TREE_ROOT" "${TREE_INNER[@]}" ;;
	esac
}

# shape_run FILE SPEC...: ksnoop -j -c ksb-loop SPEC... (fentry) while the
# deep loop makes two failing opens (its untimed one and one timed); its
# output in FILE, its stderr in $W/err; false if it did not attach.
shape_run() {
	local file=$1 pid
	shift
	: >"$W/err"
	$T0 ksnoop -v -j --mode fentry -c ksb-loop "$@" >"$file" 2>"$W/err" &
	pid=$!
	if ! wait_for ksnoop_ready "$pid" 120; then
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 1
	fi
	$LOOPCMD openat 1 "$DEEP" >/dev/null
	kill -INT "$pid"
	wait "$pid" 2>/dev/null
	return 0
}

# One tree as JSON, its inner calls counted (per function) and its depth;
# the same specs without --tree, their events per failing open counted;
# the tree as text, for the report.
tree_shape() {
	local fields ev pid
	why() { echo "$1:$(tail -n 2 "$W/err" | tr -s ' \n\t' '___' | cut -c1-150)"; }
	if ! shape_run "$W/tree.json" --tree "$TREE_ROOT" "${TREE_INNER[@]}"; then
		result tree-shape tree 0 "error=$(why did_not_attach)"
		return
	fi
	jq -c 'select(.type == "event")' "$W/tree.json" | tail -n 1 >"$W/one.json"
	if [ ! -s "$W/one.json" ]; then
		result tree-shape tree 0 "error=$(why no_tree)"
		return
	fi
	fields=$(jq -r '
		def inner: (.calls // [])[] | (., inner);
		def depth: if (.calls // []) == [] then 0 else 1 + ([.calls[] | depth] | max) end;
		"calls=\([inner] | length) depth=\(depth) not_recorded=\(.calls_not_recorded // 0) "
		+ "return=\(.values.return_errno // .values.return) "
		+ ([inner | .func] | group_by(.) | map("fn_\(.[0])=\(length)") | join(" "))' "$W/one.json")
	ev=error
	if shape_run "$W/events.json" "$TREE_EV_ROOT" "${TREE_INNER[@]}"; then
		# the events after the first open's root: the second (timed) open's,
		# the one the tree above is of (the first walks a cold dcache)
		ev=$(jq -s '[.[] | select(.type == "event") | .func] |
			(index("do_sys_openat2") // -1) as $i | if $i < 0 then "none" else length - $i - 1 end' "$W/events.json")
	fi
	result tree-shape tree 0 "dirs=${TREE_DIRS:-12} $fields events_per_open=$ev"
	ksnoop --mode fentry -c ksb-loop --tree "$TREE_ROOT" "${TREE_INNER[@]}" >"$W/tree.txt" 2>/dev/null &
	pid=$!
	sleep "$SAMPLE_WAIT"
	$LOOPCMD openat 0 "$DEEP" >/dev/null
	sleep 1
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	awk '/<- do_sys_openat2/ { p = 1 } p && n < 80 { print; n++ }' "$W/tree.txt" |
		while IFS= read -r l; do note "TREESAMPLE $l"; done
}

TREE_VARIANTS=(untraced-open filtered inner-idle untraced-deep events events-timed tree)
base_of() { case $1 in filtered | inner-idle) echo untraced-open ;; *) echo untraced-deep ;; esac; }
case " ${PARTS:-kfunc startup} " in *" tree "*) ;; *) TREE_ROUNDS=0 ;; esac
if [ "$TREE_ROUNDS" -gt 0 ]; then
	cmdline tree-untraced-open "$LOOPCMD $OPEN_WORK"
	cmdline tree-untraced-deep "$LOOPCMD $DEEP_WORK   # ${TREE_DIRS:-12} directories, then a missing file"
	cmdline tree-filtered "$T0 ksnoop -v --mode fentry '$PRED' >/dev/null"
	cmdline tree-inner-idle "$T0 ksnoop -v --mode fentry --tree '$TREE_IDLE_ROOT' $TREE_INNER_IDLE >/dev/null"
	cmdline tree-events "$T0 ksnoop -v --mode fentry --buffer $TREE_BUF '$TREE_EV_ROOT' $(printf "'%s' " "${TREE_INNER[@]}")>/dev/null"
	cmdline tree-events-timed "$T0 ksnoop -v --mode fentry --buffer $TREE_BUF -L 1ns '$TREE_EV_ROOT' $(printf "'%s' " "${TREE_INNER[@]}")>/dev/null"
	cmdline tree-tree "$T0 ksnoop -v --mode fentry --buffer $TREE_BUF --tree '$TREE_ROOT' $(printf "'%s' " "${TREE_INNER[@]}")>/dev/null"
	SAMPLE_WAIT=4
	tree_shape
fi
n=${#TREE_VARIANTS[@]}
for ((r = 0; r < TREE_ROUNDS; r++)); do
	for ((k = 0; k < n; k++)); do
		v=${TREE_VARIANTS[$(((k + r) % n))]}
		base=
		case $v in untraced-*) ;; *) base="base=$(run_tree "$(base_of "$v")" | sed -n 's/^ns_per_iter=\([0-9.]*\).*/\1/p')" ;; esac
		out=$(run_tree "$v")
		result tree "$v" "$r" "$out $base"
	done
done

# ---- 9. arm64: ns per open+close under kprobes -----------------------------
# Table 1's kprobe rows on arm64 (6.1's arm64 build has no BPF trampolines:
# fentry is refused, kprobe is the mode): ksnoop printing the call against
# bpftrace printing the same values, and each one's bare probe: ksnoop's
# filtered-out call (entry probe, predicate false, nothing sent) and
# bpftrace's empty kprobe {}.
ARM64_VARIANTS=(untraced ksnoop-kprobe ksnoop-filtered-kprobe bpftrace-kprobe bare-kprobe)
case " ${PARTS:-kfunc startup} " in *" arm64 "*) ;; *) ARM64_ROUNDS=0 ;; esac
if [ "$ARM64_ROUNDS" -gt 0 ]; then
	cmdline arm64-untraced "$LOOPCMD open $OPEN_N $F"
	cmdline arm64-ksnoop-kprobe "$T0 ksnoop -v --mode kprobe '$SPEC' >/dev/null"
	cmdline arm64-ksnoop-filtered-kprobe "$T0 ksnoop -v --mode kprobe '$PRED' >/dev/null"
	cmdline arm64-bpftrace-kprobe "$T0 bpftrace -e '$BT_KPROBE' -c '$LOOPCMD -o RES open $OPEN_N $F' >/dev/null"
	cmdline arm64-bare-kprobe "$T0 bpftrace -e '$BT_BARE_KPROBE' -c '$LOOPCMD -o RES open $OPEN_N $F' >/dev/null"
	note "INFO arm64 $(uname -m) bpftrace $(bpftrace --version 2>&1 | head -n 1 | tr -s ' \t' '__')"
fi
n=${#ARM64_VARIANTS[@]}
for ((r = 0; r < ARM64_ROUNDS; r++)); do
	for ((k = 0; k < n; k++)); do
		v=${ARM64_VARIANTS[$(((k + r) % n))]}
		base=
		[ "$v" != untraced ] && base="base=$(untraced)"
		out=$(run_kfunc "$v")
		result arm64 "$v" "$r" "$out $base"
	done
done

# ---- 8. object tracking (--track): cost per call, attach time ---------------
# (a) A call whose object is not tracked: --track with a spec that binds
# do_sys_openat2's struct open_how * by type and whose predicate never
# holds (dfd == 12345), so nothing is ever tracked and every call costs
# the predicate and one hash lookup, against today's filtered-out call of
# the same function (no --track), on table 1's open+close loop, fentry.
# (b) Attach time over every function that takes an skb: a whole run of
# `ksnoop -v --track s '*(struct sk_buff *s)'` (start, "tracing N
# target(s)", one second of tracing, SIGINT, exited) against bpftrace
# with a kprobe on each of the same functions: the list is read from
# tracefs's enabled_functions while an untimed ksnoop run is attached
# (the functions ftrace hooked; the kprobe blacklist left out), one
# program `kprobe:F1,kprobe:F2,... { }` in a file; bpftrace runs a command
# once it has attached (its mark), as in bench/vm-globs.sh.
TRACK_PRED='do_sys_openat2(struct open_how *h, dfd == 12345)'
TRACK_SKB='*(struct sk_buff *s)'
TRACK_BT=$W/skb.bt
TRACK_BT_MAX=4096  # bpftrace refuses more than 512 probes unless BPFTRACE_MAX_PROBES says so
ms() { # T0 T1 ($EPOCHREALTIME): milliseconds between
	local a=${1//[.,]/} b=${2//[.,]/}
	echo $(((10#$b - 10#$a) / 1000))
}
oneline() { tail -n 2 "$1" 2>/dev/null | tr -s ' \n\t' '___' | cut -c1-150; }
printf 'echo "$EPOCHREALTIME" >%s\nsleep 1\necho "$EPOCHREALTIME" >>%s\n' "$W/ready" "$W/ready" >"$W/mark"

run_track() {
	case $1 in
	untraced) $LOOPCMD $OPEN_WORK ;;
	filtered) WORK=$OPEN_WORK bg_tracer "$1" ksnoop_ready ksnoop -v --mode fentry "$PRED" ;;
	untracked) WORK=$OPEN_WORK bg_tracer "$1" ksnoop_ready ksnoop -v --mode fentry --track h "$TRACK_PRED" ;;
	esac
}

# track_skb_ksnoop [LIST]: one whole run; with LIST, the hooked functions
# (enabled_functions) are written there while it is attached.
track_skb_ksnoop() {
	local t0 t1 t2 t3 pid i rc
	: >"$W/err"
	t0=$EPOCHREALTIME
	$T0 ksnoop -v --track s "$TRACK_SKB" >/dev/null 2>"$W/err" &
	pid=$!
	for ((i = 0; i < 12000; i++)); do
		grep -q 'tracing .* target' "$W/err" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	t1=$EPOCHREALTIME
	if ! grep -q 'tracing .* target' "$W/err"; then
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		echo "error=did_not_attach:$(oneline "$W/err")"
		return
	fi
	[ -n "${1:-}" ] && awk '{ print $1 }' /sys/kernel/tracing/enabled_functions | sort -u >"$1"
	sleep 1
	t2=$EPOCHREALTIME
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	t3=$EPOCHREALTIME
	echo "attach_ms=$(ms "$t0" "$t1") trace_ms=$(ms "$t1" "$t2") detach_ms=$(ms "$t2" "$t3")" \
		"total_ms=$(ms "$t0" "$t3") rc=$rc" \
		"funcs=$(sed -n 's/.* \([0-9]*\) traced.*/\1/p' "$W/err" | head -n 1)" \
		"targets=$(sed -n 's/^ksnoop: tracing \([0-9]*\) target.*/\1/p' "$W/err")" \
		"programs=$(sed -n 's/.* glob matches in \([0-9]*\) program.*/\1/p' "$W/err" | head -n 1)" \
		"links=$(sed -n 's/.*; \([0-9]*\) links;.*/\1/p' "$W/err")"
	[ -n "${1:-}" ] && grep -E 'traced|program|links|tracing' "$W/err" | head -n 12 |
		while IFS= read -r l; do note "TRACKV $l"; done
}

track_skb_bpftrace() {
	local t0 t3 rc=0 t1 t2
	rm -f "$W/ready"
	t0=$EPOCHREALTIME
	# a kprobe per function: a perf event (a file descriptor) each, past
	# the default limit of 1024 open files
	(ulimit -n 65536 && BPFTRACE_MAX_PROBES=$TRACK_BT_MAX exec timeout 600 $T0 bpftrace \
		-c "/usr/bin/bash $W/mark" "$TRACK_BT") >"$W/btout" 2>"$W/err" || rc=$?
	t3=$EPOCHREALTIME
	t1=$(sed -n 1p "$W/ready" 2>/dev/null)
	t2=$(sed -n 2p "$W/ready" 2>/dev/null)
	if [ "$rc" != 0 ] || [ -z "$t1" ] || [ -z "$t2" ]; then
		echo "error=bpftrace_rc_$rc:$(oneline "$W/err")"
		return
	fi
	echo "attach_ms=$(ms "$t0" "$t1") trace_ms=$(ms "$t1" "$t2") detach_ms=$(ms "$t2" "$t3")" \
		"total_ms=$(ms "$t0" "$t3") rc=$rc" \
		"probes=$(cat "$W/btout" "$W/err" | sed -n 's/^Attaching \([0-9]*\) probe.*/\1/p' | head -n 1)"
}

# track_skb_pwru [first]: the same for pwru --filter-track-skb (Debian
# trixie's package, when bench/run could give it: /usr/bin/pwru), a pcap
# filter no packet here matches, every skb function of vmlinux
# (kprobe.multi); attached at its "Listening for events".
track_skb_pwru() {
	local t0 t1 t2 t3 pid i rc hooked
	: >"$W/err"
	t0=$EPOCHREALTIME
	$T0 pwru --filter-track-skb "$PWRU_FILTER" >"$W/err" 2>&1 &
	pid=$!
	for ((i = 0; i < 12000; i++)); do
		grep -q 'Listening for events' "$W/err" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	t1=$EPOCHREALTIME
	if ! grep -q 'Listening for events' "$W/err"; then
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		echo "error=did_not_attach:$(oneline "$W/err")"
		return
	fi
	# the functions it hooked (its progress bar counts its kprobe.multi links)
	hooked=$(grep -c . /sys/kernel/tracing/enabled_functions)
	sleep 1
	t2=$EPOCHREALTIME
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	t3=$EPOCHREALTIME
	echo "attach_ms=$(ms "$t0" "$t1") trace_ms=$(ms "$t1" "$t2") detach_ms=$(ms "$t2" "$t3")" \
		"total_ms=$(ms "$t0" "$t3") rc=$rc" \
		"ignored=$(sed -n 's/.*Attached (ignored \([0-9]*\)).*/\1/p' "$W/err" | head -n 1)" \
		"hooked=$hooked"
	[ -n "${1:-}" ] && tr '\r' '\n' <"$W/err" | grep -v -E '^[[:space:]]*$|[0-9]+ / [0-9]+' | head -n 8 |
		while IFS= read -r l; do note "TRACKP $l"; done
}
PWRU_FILTER='host 10.99.99.99'
PWRU_VARIANT=
command -v pwru >/dev/null 2>&1 && PWRU_VARIANT=skb-pwru

case " ${PARTS:-kfunc startup} " in *" track "*) ;; *) TRACK_ROUNDS=0 ;; esac
if [ "$TRACK_ROUNDS" -gt 0 ]; then
	cmdline track-untraced "$LOOPCMD $OPEN_WORK"
	cmdline track-filtered "$T0 ksnoop -v --mode fentry '$PRED' >/dev/null"
	cmdline track-untracked "$T0 ksnoop -v --mode fentry --track h '$TRACK_PRED' >/dev/null"
	cmdline track-skb-ksnoop "$T0 ksnoop -v --track s '$TRACK_SKB' >/dev/null"
	[ -n "$PWRU_VARIANT" ] && cmdline track-skb-pwru "$T0 pwru --filter-track-skb '$PWRU_FILTER'"
	cmdline track-skb-bpftrace "ulimit -n 65536; BPFTRACE_MAX_PROBES=$TRACK_BT_MAX $T0 bpftrace -c MARK skb.bt   # skb.bt: 'kprobe:F1,kprobe:F2,... { }', the functions ksnoop hooked"
	# the function list, from an untimed run (its numbers kept as table track-list)
	out=$(track_skb_ksnoop "$W/skb.funcs")
	result track-list ksnoop 0 "$out"
	bl=/sys/kernel/debug/kprobes/blacklist
	: >"$TRACK_BT"
	if [ -s "$W/skb.funcs" ]; then
		{ [ -r $bl ] && awk '{ print $2 }' $bl | sort -u; } >"$W/bl" 2>/dev/null
		grep -vxF -f "$W/bl" "$W/skb.funcs" >"$W/skb.bt-funcs"
		[ -s "$W/skb.bt-funcs" ] &&
			awk '{ printf("%skprobe:%s", (NR > 1 ? ",\n" : ""), $1) } END { print " { }" }' "$W/skb.bt-funcs" >"$TRACK_BT"
		result track-list functions 0 "hooked=$(wc -l <"$W/skb.funcs") blacklist=$(wc -l <"$W/bl") bpftrace_probes=$(wc -l <"$W/skb.bt-funcs")"
	fi
fi
n=3
TRACK_VARIANTS=(untraced filtered untracked)
for ((r = 0; r < TRACK_ROUNDS; r++)); do
	for ((k = 0; k < n; k++)); do
		v=${TRACK_VARIANTS[$(((k + r) % n))]}
		base=
		[ "$v" != untraced ] && base="base=$(run_track untraced | sed -n 's/^ns_per_iter=\([0-9.]*\).*/\1/p')"
		out=$(run_track "$v")
		result track "$v" "$r" "$out $base"
	done
done
for ((r = 0; r < ${TRACK_ATTACH_ROUNDS:-0} && TRACK_ROUNDS > 0; r++)); do
	order=(skb-ksnoop skb-bpftrace $PWRU_VARIANT)
	k=$((r % ${#order[@]}))
	order="${order[*]:k} ${order[*]:0:k}"
	for v in $order; do
		case $v in
		skb-ksnoop) out=$(track_skb_ksnoop) ;;
		skb-bpftrace) if [ -s "$TRACK_BT" ]; then out=$(track_skb_bpftrace); else out="error=no_function_list"; fi ;;
		skb-pwru) out=$(track_skb_pwru "$([ "$r" = 0 ] && echo first)") ;;
		esac
		result track-attach "$v" "$r" "$out"
	done
done

# ---- 10. session cookies: ns per open+close, kprobe.session against the stash
# (fkept-*: fsession against fentry/fexit with the stash, KSNOOP_FEATURES=-fsession)
# In kprobe mode, where the kernel has kprobe.session, an entry record that
# waits for the return waits in the task's session slots;
# KSNOOP_FEATURES=-kprobe_session forces the stash's hash map, in the same
# rounds.  ksnoop-*: table 1's spec as issue #43 names it ($SPEC: the entry
# and the return are two events, nothing waits, unless the filename faults
# at entry); kept-*: $KEPT, whose entry values wait for the return's
# predicate.  The -stopped rows stop the tracer (SIGSTOP) while the loop
# runs: the BPF side alone.  Each traced row says where ksnoop -v said the
# entry values waited (keep=session|stash; none: it said nothing, nothing
# waits), how many entries the summary says waited in the stash under the
# cookie instead (in_stash=: the kernel refused the task storage), and the
# INFO line whether the kernel has kprobe.session.  kernel.bpf_stats_enabled
# is 1 for these rounds (each run of a program reads the clock twice more,
# in every row alike): each traced row says its BPF programs' own run time
# during the loop (prog_ns=, prog_runs=), which the guest's load and the
# host's do not stretch as they stretch the loop's wall-clock time.
SESSION_VARIANTS=(untraced ksnoop-session ksnoop-stash kept-session kept-stash kept-session-stopped
	kept-stash-stopped fkept-session fkept-stash fkept-session-stopped fkept-stash-stopped)
SESSION_ROUNDS=$ROUNDS_SESSION
KVER=$(uname -r | cut -d. -f1,2)
case " ${PARTS:-kfunc startup} " in *" session "*) ;; *) SESSION_ROUNDS=0 ;; esac
if [ "$SESSION_ROUNDS" -gt 0 ]; then
	cmdline session-ksnoop-session "$T0 ksnoop -v --mode kprobe '$SPEC' >/dev/null"
	cmdline session-untraced "$LOOPCMD open $OPEN_N $F"
	cmdline session-ksnoop-stash "$T0 env KSNOOP_FEATURES=-kprobe_session ksnoop -v --mode kprobe '$SPEC' >/dev/null"
	cmdline session-kept-session "$T0 ksnoop -v --mode kprobe '$KEPT' >/dev/null"
	cmdline session-kept-stash "$T0 env KSNOOP_FEATURES=-kprobe_session ksnoop -v --mode kprobe '$KEPT' >/dev/null"
	cmdline session-kept-session-stopped "$T0 ksnoop -v --mode kprobe --buffer $((64 << 20)) '$KEPT' >/dev/null   # SIGSTOP while the loop runs"
	cmdline session-kept-stash-stopped "$T0 env KSNOOP_FEATURES=-kprobe_session ksnoop -v --mode kprobe --buffer $((64 << 20)) '$KEPT' >/dev/null   # SIGSTOP while the loop runs"
	cmdline session-fkept-session "$T0 ksnoop -v --mode fentry '$KEPT' >/dev/null"
	cmdline session-fkept-stash "$T0 env KSNOOP_FEATURES=-fsession ksnoop -v --mode fentry '$KEPT' >/dev/null"
	cmdline session-fkept-session-stopped "$T0 ksnoop -v --mode fentry --buffer $((64 << 20)) '$KEPT' >/dev/null   # SIGSTOP while the loop runs"
	cmdline session-fkept-stash-stopped "$T0 env KSNOOP_FEATURES=-fsession ksnoop -v --mode fentry --buffer $((64 << 20)) '$KEPT' >/dev/null   # SIGSTOP while the loop runs"
	note "INFO session $(ksnoop -v --mode kprobe --duration 0.1 "$SPEC" 2>&1 >/dev/null | grep -o 'kprobe_session [^,;]*' | tr ' ' '_')"
	note "INFO fsession $(ksnoop -v --mode fentry --duration 0.1 "$SPEC" 2>&1 >/dev/null | grep -o 'fsession [^,;]*' | tr ' ' '_')"
fi
n=${#SESSION_VARIANTS[@]}
if [ "$SESSION_ROUNDS" -gt 0 ]; then
	echo 1 >/proc/sys/kernel/bpf_stats_enabled || note "INFO bpf_stats_enabled could not be set"
	export PROG_STATS=1
fi
for ((r = 0; r < SESSION_ROUNDS; r++)); do
	for ((k = 0; k < n; k++)); do
		v=${SESSION_VARIANTS[$(((k + r) % n))]}
		base=
		[ "$v" != untraced ] && base="base=$(untraced)"
		out=$(run_kfunc "$v")
		# where the entry record waited, as this run's ksnoop -v said
		keep=
		grep -q 'wait for the return in \(kprobe.session\|fsession\)' "$W/err" 2>/dev/null && keep=" keep=session"
		grep -q 'wait for the return in the stash' "$W/err" 2>/dev/null && keep=" keep=stash"
		[ "$v" != untraced ] && keep="$keep$(followed)"
		[ "$v" = untraced ] && keep=
		result session "$v" "$r" "$out$keep $base kernel=$KVER"
	done
done
if [ "$SESSION_ROUNDS" -gt 0 ]; then
	unset PROG_STATS
	echo 0 >/proc/sys/kernel/bpf_stats_enabled
fi

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
