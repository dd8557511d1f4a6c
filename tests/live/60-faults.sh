#!/bin/bash
# Faults, live on this kernel (root): ksnoop killed by SIGINT, SIGTERM and
# SIGKILL in the middle of a flood leaves nothing behind (programs, links,
# tracefs events, USDT semaphores); a traced process that exits; stdout
# closed early; a ring buffer overrun; no privileges; and no leaks over a
# whole session (LeakSanitizer, or valgrind where LSan cannot run).
#
# "Nothing left" is checked by id: the programs and links ksnoop held (read
# from its /proc/PID/fdinfo) must be gone, so other tracers running on the
# machine at the same time cannot make this test pass or fail.
. "$(dirname "$0")/helpers.bash"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

needs_root faults
usdt_programs
scratch_dir
chmod 755 "$tmp"
# (usdt_programs made copies of the USDT programs: uprobes belong to a
# file, so other tests tracing build/usdt/usdt_prog at the same time
# cannot touch our semaphore.)

# Seconds an interrupted ksnoop may take to exit under a flood.
EXIT_BOUND_S=3
# Growth of resident memory allowed over a 3 s overrun, in kB.
RSS_BOUND_KB=16384

# Seconds ksnoop may take to attach (a leak checker may run it).
START_WAIT=15

now_ms() { date +%s%3N; }

# tracefs probe events ksnoop PID (through libbpf, whose legacy events are
# named libbpf_PID_...) could have created; an unreadable tracefs is never
# "no events".  Read where tracefs is mounted in a mount namespace of our
# own: the machine's mounts are not touched (another run may use them).
tracefs_events() {
	unshare -m --propagation private sh -c '
		t=/sys/kernel/tracing
		mountpoint -q $t || mount -t tracefs nodev $t 2>/dev/null
		found=0
		for f in $t/kprobe_events $t/uprobe_events; do
			[ -r $f ] || continue
			found=1
			grep "libbpf_$0_" $f
		done
		[ "$found" = 1 ] || echo tracefs-unreadable' "$1"
}

# nothing_left NAME ERRFILE: the programs, links and maps ksnoop held are
# gone, no tracefs events, no sanitizer report.  An empty list of ids fails.
nothing_left() {
	local name=$1 err=$2
	expect_eq "${name}_no_programs_left" "" "$(still_there prog "$PROGS")"
	expect_eq "${name}_no_links_left" "" "$(still_there link "$LINKS")"
	expect_eq "${name}_no_maps_left" "" "$(still_there map "$MAPS")"
	expect_eq "${name}_no_tracefs_events" "" "$(tracefs_events "$KPID")"
	sanitizer_clean "${name}_no_sanitizer_report" "$err"
}

# A flood of syscalls: one read and one write per byte.
flood() {
	dd if=/dev/zero of=/dev/null bs=1 2>/dev/null &
	FLOOD=$!
}
stop_flood() { { kill -9 "$FLOOD"; wait "$FLOOD"; } 2>/dev/null; }

# The semaphore of usdt_prog's `guarded` probe: its address once.
SEMA_VADDR=$(sema_vaddr)
# sema_settles PID VALUE: the semaphore reaches VALUE within 3 s (also
# waits for the program to be mapped).
sema_settles() {
	local i v
	for i in $(seq 30); do
		v=$(sema_value "$1")
		[ "$v" = "$2" ] && break
		sleep 0.1
	done
	echo "$v"
}

expect_no_match tracefs_readable tracefs-unreadable "$(tracefs_events $$)"

# ==== 1. SIGINT, SIGTERM, SIGKILL in the middle of a tracepoint flood ====
flood
for sig in INT TERM KILL; do
	T=tp_sig${sig,,}
	if ! start "$tmp/$T.out" "$tmp/$T.err" 'tp:sys_enter(regs, id)'; then
		fail "${T}_attach" "$(cat "$tmp/$T.err")"
		continue
	fi
	wait_lines "$tmp/$T.out" 20 || fail "${T}_events_flow" "no events: $(cat "$tmp/$T.err")"
	t0=$(now_ms)
	signal_and_wait "$sig" 30
	ms=$(($(now_ms) - t0))
	if [ "$sig" = KILL ]; then
		expect_eq "${T}_status" 137 "$RC"
	else
		expect_eq "${T}_status" 0 "$RC"
		expect_match "${T}_summary" '^ksnoop: [0-9]+ events printed, [0-9]+ lost' "$(cat "$tmp/$T.err")"
		if [ "$ms" -le $((EXIT_BOUND_S * 1000)) ]; then
			pass "${T}_exits_promptly"
		else
			fail "${T}_exits_promptly" "took $ms ms to exit after SIG$sig under the flood (bound: ${EXIT_BOUND_S} s); $(tail -1 "$tmp/$T.err")"
		fi
	fi
	nothing_left "$T" "$tmp/$T.err"
done
stop_flood

# ==== 1b. a signal while ksnoop is still attaching a dozen targets ====
SPECS=('tp:sched_switch(prev->pid)' 'tp:sched_wakeup(p->pid)' 'tp:sched_process_exec(old_pid)'
	'tp:sched_process_exit(group_dead)' 'tp:sched_process_fork(child->pid)' 'tp:sys_enter(id)'
	'tp:sys_exit(ret)' 'tp:task_newtask(clone_flags)' 'tp:task_rename(comm)'
	'tp:signal_generate(sig)' 'tp:signal_deliver(sig)' 'tp:sched_waking(p->pid)')
for sig in INT KILL; do
	T=attach_sig${sig,,}
	spawn /dev/null "$tmp/$T.err" "${SPECS[@]}"
	all_progs="" all_links="" sent=0 ms=0
	# Collect every id it holds, as it attaches; signal at the first link
	# (so that there are links to check), while the others still attach.
	# (stderr: bash's "Killed" notice for the job.)
	for i in $(seq 1000); do
		kill -0 "$KPID" 2>/dev/null || break
		all_progs="$all_progs $(held_ids "$KPID" prog)"
		l=$(held_ids "$KPID" link)
		all_links="$all_links $l"
		if [ "$sent" = 0 ] && [ -n "$l" ]; then
			linked=$(echo $l | wc -w)
			t0=$(now_ms)
			kill -"$sig" "$KPID" 2>/dev/null
			sent=1
		fi
		sleep 0.01
	done 2>/dev/null
	{ wait_exit 10; } 2>/dev/null
	[ "$sent" = 1 ] && ms=$(($(now_ms) - t0))
	PROGS=$(printf '%s\n' $all_progs | sort -un | tr '\n' ' ')
	LINKS=$(printf '%s\n' $all_links | sort -un | tr '\n' ' ')
	if [ "$sent" = 0 ]; then
		fail "${T}_interrupted" "ksnoop ended before holding a link: $(cat "$tmp/$T.err")"
		continue
	fi
	note "SIG$sig after $linked of ${#SPECS[@]} targets were attached"
	if [ "$sig" = KILL ]; then
		expect_eq "${T}_status" 137 "$RC"
	else
		expect_match "${T}_status" '^(0|130)$' "$RC"
		if [ "$ms" -le $((EXIT_BOUND_S * 1000)) ]; then pass "${T}_exits_promptly"; else fail "${T}_exits_promptly" "$ms ms"; fi
	fi
	expect_eq "${T}_no_programs_left" "" "$(still_there prog "$PROGS")"
	expect_eq "${T}_no_links_left" "" "$(still_there link "$LINKS")"
	sanitizer_clean "${T}_no_sanitizer_report" "$tmp/$T.err"
done

# ==== 2. the same for USDT: the semaphore goes back to 0 ====
"$P" guarded 60 >/dev/null &
gp=$!
expect_eq usdt_semaphore_zero_before 0 "$(sema_settles "$gp" 0)"
for sig in INT TERM KILL; do
	T=usdt_sig${sig,,}
	if ! start "$tmp/$T.out" "$tmp/$T.err" usdt "$P:ksnoop_test:guarded(arg0)"; then
		fail "${T}_attach" "$(cat "$tmp/$T.err")"
		continue
	fi
	expect_eq "${T}_semaphore_set" 1 "$(sema_settles "$gp" 1)"
	wait_lines "$tmp/$T.out" 20 || fail "${T}_events_flow" "no events: $(cat "$tmp/$T.err")"
	signal_and_wait "$sig" 30
	expect_eq "${T}_status" "$([ "$sig" = KILL ] && echo 137 || echo 0)" "$RC"
	expect_eq "${T}_semaphore_back_to_0" 0 "$(sema_settles "$gp" 0)"
	nothing_left "$T" "$tmp/$T.err"
done
{ kill -9 "$gp"; wait "$gp"; } 2>/dev/null

# ==== 3. the traced process exits in the middle of the trace ====
# Each target waits on a FIFO until ksnoop (-p PID) has attached, then
# works for a moment and exits.
# target_exit NAME FIFO PID MIN REGEX ARGS...: `ksnoop -p PID ARGS`; PID
# starts when FIFO is written and exits; at least MIN lines match REGEX.
target_exit() {
	local name=$1 go=$2 pid=$3 min=$4 re=$5 n
	shift 5
	if start "$tmp/$name.out" "$tmp/$name.err" -p "$pid" "$@"; then
		echo go >"$go"
		wait "$pid" 2>/dev/null
		sleep 0.3
		# Carrying on and stopping at -p's exit are both fine; status 0 either way.
		signal_and_wait INT 10
		expect_eq "${name}_status" 0 "$RC"
		n=$(grep -c -- "$re" "$tmp/$name.out")
		if [ "$n" -ge "$min" ]; then
			pass "${name}_events"
		else
			fail "${name}_events" "$n events, expected at least $min: $(cat "$tmp/$name.err")"
		fi
		nothing_left "$name" "$tmp/$name.err"
	else
		fail "${name}_attach" "$(cat "$tmp/$name.err")"
		echo go >"$go"
	fi
}
mkfifo "$tmp/go1" "$tmp/go2"
bash -c 'read -r _ <"$0"; for i in $(seq 10); do sleep 0.05; done' "$tmp/go1" &
target_exit tp_target_exit "$tmp/go1" $! 1 '-> tp:sys_enter$' 'tp:sys_enter(id)'
# usdt_prog spin 1: `tick` every 10 ms for a second, then exit.
bash -c 'read -r _ <"$0"; exec "$1" spin 1' "$tmp/go2" "$P" &
target_exit usdt_target_exit "$tmp/go2" $! 50 '-> ksnoop_test:tick$' usdt "$P:ksnoop_test:tick(arg0)"

# ==== 4. stdout closed early: `ksnoop ... | head -1` ====
# Under a flood, as a user would type it.
flood
t0=$(now_ms)
out=$( { ks 'tp:sys_enter(id)' 2>"$tmp/head1.err"; echo $? >"$tmp/head1.rc"; } | head -1)
ms=$(($(now_ms) - t0))
stop_flood
expect_match head_flood_got_a_line '^[0-9:.]+ cpu[0-9]+ ' "$out"
expect_eq head_flood_status 0 "$(cat "$tmp/head1.rc")"
# Only the line that says it traces: no complaint about the closed pipe.
expect_eq head_flood_quiet "ksnoop: tracing 1 target; Ctrl-C to stop" "$(cat "$tmp/head1.err")"
if [ "$ms" -le 10000 ]; then pass head_flood_ends_promptly; else fail head_flood_ends_promptly "took $ms ms"; fi

# Through a FIFO, to know the process and what it held: USDT, JSON.
mkfifo "$tmp/fifo"
head -1 <"$tmp/fifo" >"$tmp/head2.out" &
hp=$!
spawn "$tmp/fifo" "$tmp/head2.err" -j usdt "$P:ksnoop_test:tick(arg0)"
for i in $(seq 100); do
	[ -n "$(held_ids "$KPID" link)" ] && break
	sleep 0.1
done
read_held
"$P" spin 1 >/dev/null &
wait_exit 15
wait "$hp"
expect_eq head_usdt_status 0 "$RC"
expect_eq head_usdt_quiet "" "$(cat "$tmp/head2.err")"
expect_eq head_usdt_one_json_line "ksnoop_test:tick" "$(jq -r .func "$tmp/head2.out" 2>&1)"
nothing_left head_usdt "$tmp/head2.err"

# ==== 5. ring buffer overrun: losses counted, memory bounded ====
# ASan's quarantine keeps freed memory for a while; switch it off here so
# the resident size is ksnoop's own.
flood
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0 \
	start "$tmp/ovr.out" "$tmp/ovr.err" --buffer 4096 'tp:sys_enter(regs, id)' ||
	fail overrun_attach "$(cat "$tmp/ovr.err")"
sleep 0.5
rss=()
for i in $(seq 15); do
	rss+=("$(awk '/^VmRSS:/ {print $2}' "/proc/$KPID/status" 2>/dev/null)")
	sleep 0.2
done
kill -INT "$KPID"
wait_exit 30
stop_flood
expect_eq overrun_status 0 "$RC"
lost=$(sed -n 's/^ksnoop: [0-9]* events printed, \([0-9]*\) lost.*/\1/p' "$tmp/ovr.err")
if [ -n "$lost" ] && [ "$lost" -gt 0 ]; then pass overrun_lost_counted; else fail overrun_lost_counted "$(tail -3 "$tmp/ovr.err")"; fi
expect_match overrun_reported_while_running 'warning: [0-9]+ events lost so far' "$(cat "$tmp/ovr.err")"
max=0
for r in "${rss[@]}"; do [ -n "$r" ] && [ "$r" -gt "$max" ] && max=$r; done
growth=$((max - ${rss[0]:-0}))
if [ -n "${rss[0]}" ] && [ "$growth" -le "$RSS_BOUND_KB" ]; then
	pass overrun_memory_bounded
else
	fail overrun_memory_bounded "VmRSS grew by $growth kB (bound $RSS_BOUND_KB kB): ${rss[*]}"
fi
sanitizer_clean overrun_no_sanitizer_report "$tmp/ovr.err"

# ==== 6. under a flood, text keeps up with JSON ====
# Printing a struct in text must not cost much more than in JSON; a
# printer that rebuilds per-BTF state for every event loses nearly all.
# rate ARGS...: events printed in 2 s, timed from the moment it attached.
# Of the output only the last line is kept: with -j, the summary.
rate() {
	local n i
	: >"$tmp/rate.last"
	start >(tail -n 1 >"$tmp/rate.last") "$tmp/rate.err" "$@" 'tp:sys_enter(regs, id)' ||
		fail "rate_attach$*" "$(cat "$tmp/rate.err")"
	sleep 2
	kill -INT "$KPID"
	wait_exit 30
	sanitizer_clean "rate${*}_no_sanitizer_report" "$tmp/rate.err"
	for i in $(seq 50); do [ -s "$tmp/rate.last" ] && break; sleep 0.1; done
	n=$(printed_total "$tmp/rate.last" "$tmp/rate.err")
	echo "${n:-0}"
}
flood
rate -j >"$tmp/rate.json"
rate >"$tmp/rate.text"
json=$(cat "$tmp/rate.json") text=$(cat "$tmp/rate.text")
stop_flood
note "flood, 2 s each: $json events printed as JSON, $text as text"
if [ "$json" -gt 0 ] && [ $((text * 10)) -ge "$json" ]; then
	pass text_keeps_up_with_json
else
	fail text_keeps_up_with_json "in 2 s of flood: $text events printed as text, $json as JSON (text must reach a tenth)"
fi

# ==== 7. without privileges: one line naming them, exit 1 ====
cp "$K" "$tmp/ksnoop"
chmod -R a+rX "$tmp"
# Run as user nobody, no groups, no capabilities (NOBODY: helpers.bash).
unpriv() {
	local name=$1 err rc
	shift
	err=$(cd "$tmp" && timeout -k 2 20 "${NOBODY[@]}" "$tmp/ksnoop" "$@" 2>&1 >/dev/null); rc=$?
	# One line that names the privileges needed.
	error_is "$name" 1 'root|CAP_BPF and CAP_PERFMON' "$rc" "$err" "as nobody: ksnoop $*"
}
unpriv unprivileged_tracepoint 'tp:sched_switch(prev->pid)'
unpriv unprivileged_usdt usdt "$P:ksnoop_test:tick"
unpriv unprivileged_kernel_function 'ip_send_skb(skb->len)'
# With exactly the two capabilities, tracepoints work as any user.
if setpriv --help 2>&1 | grep -q -- --ambient-caps; then
	out=$(cd "$tmp" && timeout -k 2 20 setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon \
		"$tmp/ksnoop" -n 2 'tp:sched_switch(prev->pid)' 2>&1 >/dev/null); rc=$?
	if [ "$rc" = 0 ]; then
		pass cap_bpf_and_cap_perfmon_are_enough
	else
		fail cap_bpf_and_cap_perfmon_are_enough "exit $rc: $out"
	fi
else
	skip cap_bpf_and_cap_perfmon_are_enough "setpriv has no --ambient-caps"
fi

# ==== 8. leaks over a whole session ====
# First make sure LeakSanitizer works here at all: a program that leaks.
# KSNOOP_LEAK_CHECK=valgrind forces the fallback (to test it).
lsan_works=0
printf '#include <stdlib.h>\nvoid *volatile keep;\nint main(void) { keep = malloc(77); keep = 0; return 0; }\n' >"$tmp/leak.c"
if cc -fsanitize=address -g -o "$tmp/leak" "$tmp/leak.c" 2>/dev/null &&
	ASAN_OPTIONS=detect_leaks=1 "$tmp/leak" 2>&1 | grep -q 'ERROR: LeakSanitizer: detected memory leaks'; then
	lsan_works=1
	pass leak_checker_detects_a_leak
fi
[ "${KSNOOP_LEAK_CHECK:-}" = valgrind ] && lsan_works=0
PLAIN=${KSNOOP_PLAIN:-$(dirname "$K")/../ksnoop}

# session NAME ARGS...: a ksnoop session under a leak checker; the caller
# makes events and then calls session_end.
session() {
	SNAME=$1
	shift
	if [ "$lsan_works" = 1 ]; then
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1 start "$tmp/$SNAME.out" "$tmp/$SNAME.err" "$@"
	else
		KCMD=(valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect
		      --show-leak-kinds=definite,indirect "$PLAIN")
		start "$tmp/$SNAME.out" "$tmp/$SNAME.err" "$@"
		KCMD=("$K")
	fi || fail "${SNAME}_attach" "$(cat "$tmp/$SNAME.err")"
}
# session_end MIN: once MIN events are out (at most 10 s), SIGINT; then
# the status, the count and the leak checker's verdict.
session_end() {
	local min=$1 printed rep
	wait_lines "$tmp/$SNAME.out" "$min"
	kill -INT "$KPID" 2>/dev/null
	wait_exit 60
	expect_eq "${SNAME}_status" 0 "$RC"
	printed=$(printed_total "$tmp/$SNAME.out" "$tmp/$SNAME.err")
	if [ -n "$printed" ] && [ "$printed" -ge "$min" ]; then
		pass "${SNAME}_events"
	else
		fail "${SNAME}_events" "expected at least $min events: $(tail -3 "$tmp/$SNAME.err")"
	fi
	if rep=$(san_take "$SAN_TAG"); then
		fail "${SNAME}_no_leaks" "$rep"
	else
		expect_no_match "${SNAME}_no_leaks" 'LeakSanitizer|definitely lost|indirectly lost|Sanitizer|runtime error' \
			"$(cat "$tmp/$SNAME.err")"
	fi
}
if [ "$lsan_works" = 0 ]; then
	if command -v valgrind >/dev/null && [ -x "$PLAIN" ]; then
		note "checking leaks with valgrind on $PLAIN (LeakSanitizer is not used)"
	else
		fail leak_checker "neither LeakSanitizer nor valgrind (with $PLAIN) can run here"
	fi
fi
if [ "$lsan_works" = 1 ] || { command -v valgrind >/dev/null && [ -x "$PLAIN" ]; }; then
	# Thousands of events, text, values and predicates.
	flood
	session leak_tracepoint 'tp:sys_enter(id, id != 9999)'
	sleep 2
	session_end 1000
	stop_flood
	# Structs printed as JSON and text, strings, casts, a predicate.
	session leak_usdt_json -j usdt "$P:ksnoop_test:req(arg0, arg1 <= -3, arg2:str)" \
		"$P:ksnoop_test:obj(arg0:struct req *, arg1)" "$P:ksnoop_test:wide"
	"$P" fire 400 >/dev/null
	session_end 1000
	session leak_struct_text 'tp:sched_process_exec(bprm, p->comm)'
	for i in $(seq 20); do /bin/true; done
	session_end 20
fi
