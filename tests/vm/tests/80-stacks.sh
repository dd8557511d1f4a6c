#!/bin/sh
# -s: each event carries the kernel stack at its probe, symbolised, in both
# attach modes; at a function's entry the stack still shows its caller.
# --count: calls per function (and per stack) summed in BPF; --hist: a log2
# histogram of one value, or of call durations, in BPF.
. /tests/lib.sh

tmp=$(mktemp -d)
for mode in fentry kprobe; do
	T=$mode
	if start "$tmp/o1" "$tmp/e1" --mode $mode -s -c nc 'tcp_v4_connect(addr_len)'; then
		nc 127.0.0.1 1 </dev/null >/dev/null 2>&1
		stop
		count_is ${T}_stack_event 1 '^    addr_len = 16$' "$tmp/o1" "$tmp/e1"
		# connect(2) -> __sys_connect -> inet_stream_connect -> __inet_stream_connect -> tcp_v4_connect
		expect_match ${T}_stack_caller '^        __inet_stream_connect\+0x' "$(cat "$tmp/o1")"
		expect_match ${T}_stack_syscall '^        __sys_connect[a-z_]*\+0x' "$(cat "$tmp/o1")"
		expect_no_match ${T}_stack_no_tracer 'bpf_prog_|bpf_trampoline|ftrace_trampoline|kprobe_ftrace|\[bpf\]' "$(cat "$tmp/o1")"
		# The innermost frame shown is named: the tracer's own (unnamed) are left off.
		expect_match ${T}_stack_top_named '^ +[a-z_]' "$(awk '/stack = \[/ { getline; print; exit }' "$tmp/o1")"
	else
		fail ${T}_attach_stack "$(cat "$tmp/e1")"
	fi
	# A return predicate: the entry's stack is kept with the entry values.
	if start "$tmp/o2" "$tmp/e2" --mode $mode -s -j -c cat 'do_sys_openat2(filename, return < 0)'; then
		cat /nonexistent-$mode 2>/dev/null
		stop
		expect_eq ${T}_stack_stashed "true" \
			"$(jq -r 'select(.values.filename == "/nonexistent-'$mode'") | (.stack | map(test("^(do_sys_open|__x64_sys_openat|do_syscall_64)")) | any)' "$tmp/o2" | head -1)"
	else
		fail ${T}_attach_stack_stash "$(cat "$tmp/e2")"
	fi
	# --count on a glob, the busiest first; a ping of 3 goes through
	# ip_output 6 times (requests and replies; no -c ping: a reply may be
	# sent from ksoftirqd).
	if start "$tmp/o3" "$tmp/e3" --mode $mode --count 'ip_*(skb->len == 84)'; then
		ping -c 3 127.0.0.1 >/dev/null 2>&1
		stop
		expect_match ${T}_count_ip_output '^ +6  ip_output$' "$(cat "$tmp/o3")"
		first=$(sed -n 2p "$tmp/o3" | awk '{print $1}')
		max=$(tail -n +2 "$tmp/o3" | awk '{print $1}' | sort -n | tail -1)
		expect_eq ${T}_count_busiest_first "$max" "$first"
	else
		fail ${T}_attach_count "$(cat "$tmp/e3")"
	fi
	# --count -s --folded: the caller chain down to the function.
	if start "$tmp/o4" "$tmp/e4" --mode $mode --count -s --folded -c nc 'tcp_v4_connect'; then
		nc 127.0.0.1 1 </dev/null >/dev/null 2>&1
		stop
		expect_match ${T}_count_folded '__sys_connect;.*__inet_stream_connect;tcp_v4_connect 1$' "$(cat "$tmp/o4")"
	else
		fail ${T}_attach_count_folded "$(cat "$tmp/e4")"
	fi
	# --hist of an argument, and of the return value selected by an entry
	# predicate (stashed): dd reads 3 blocks of 4096 bytes from /dev/zero.
	if start "$tmp/o5" "$tmp/e5" --mode $mode --hist -c dd 'vfs_read(count)'; then
		dd if=/dev/zero of=/dev/null bs=4096 count=3 2>/dev/null
		stop
		expect_match ${T}_hist_arg '^\[4096, 8192\) +[3-9] \|@+ *\|$' "$(cat "$tmp/o5")"
	else
		fail ${T}_attach_hist "$(cat "$tmp/e5")"
	fi
	if start "$tmp/o6" "$tmp/e6" --mode $mode -j --hist -c dd 'vfs_read(count == 4096, return)'; then
		dd if=/dev/zero of=/dev/null bs=4096 count=3 2>/dev/null
		stop
		expect_eq ${T}_hist_return '{"type":"hist","func":"vfs_read","value":"return","count":3,"buckets":[{"min":4096,"max":8191,"count":3}]}
{"type":"summary","counted":3,"not_printed":0,"not_counted":0,"unreadable":0,"stacks_not_taken":0,"not_followed":0,"missed":0}' \
			"$(cat "$tmp/o6")"
	else
		fail ${T}_attach_hist_return "$(cat "$tmp/e6")"
	fi
	# --hist without a value: durations in ns, counted at the return;
	# three 300 ms sleeps all fall in [2^28, 2^29) ns.
	if start "$tmp/o7" "$tmp/e7" --mode $mode --hist -c vmprog hrtimer_nanosleep; then
		vmprog sleep 300 300 300
		stop
		expect_eq ${T}_hist_duration_header 'hrtimer_nanosleep: duration in ns (3 calls)' "$(head -1 "$tmp/o7")"
		expect_match ${T}_hist_duration_300ms '^\[268435456, 536870912\) +3 \|@{52}\|$' "$(cat "$tmp/o7")"
		expect_eq ${T}_hist_duration_one_bucket 1 "$(grep -c '^\[.* [1-9][0-9]* |' "$tmp/o7")"
		expect_match ${T}_hist_duration_summary '^ksnoop: 3 calls counted$' "$(cat "$tmp/e7")"
	else
		fail ${T}_attach_hist_duration "$(cat "$tmp/e7")"
	fi
	# Entry predicates select at the entry (the 20 ms sleep is left out),
	# return predicates at the return; JSON, exact totals.
	if start "$tmp/o8" "$tmp/e8" --mode $mode -j --hist -c vmprog \
		'hrtimer_nanosleep(rqtp > 100000000, return == 0)'; then
		vmprog sleep 300 20 300
		stop
		expect_eq ${T}_hist_duration_json '{"type":"hist","func":"hrtimer_nanosleep","value":"duration_ns","count":2,"buckets":[{"min":268435456,"max":536870911,"count":2}]}' \
			"$(record hist "$tmp/o8")"
	else
		fail ${T}_attach_hist_duration_json "$(cat "$tmp/e8")"
	fi
	# Per function of a glob: the 20 ms sleep in [2^24, 2^25) ns.
	if start "$tmp/o9" "$tmp/e9" --mode $mode -j --hist -c vmprog 'hrtimer_nanosleep*'; then
		vmprog sleep 20 300
		stop
		expect_eq ${T}_hist_duration_glob '2 [{"min":16777216,"max":33554431,"count":1},{"min":268435456,"max":536870911,"count":1}]' \
			"$(jq -c -r 'select(.func == "hrtimer_nanosleep") | "\(.count) \(.buckets)"' "$tmp/o9")"
	else
		fail ${T}_attach_hist_duration_glob "$(cat "$tmp/e9")"
	fi
done
# No return, no duration: a tracepoint is refused before anything attaches.
err=$(ksnoop --hist tp:sched_switch 2>&1 >/dev/null); rc=$?
expect_eq hist_duration_tracepoint_exit 2 "$rc"
expect_match hist_duration_tracepoint_says_why 'has no return' "$err"

rm -rf "$tmp"
