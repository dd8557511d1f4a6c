#!/bin/sh
# Durations: every return event whose entry was seen carries the call's
# duration (in the text header, "duration_ns" in JSON), in both attach
# modes; -L keeps only calls at least that long, decided in BPF at the
# return, with the entry values reported in the return event.  Workload:
# vmprog sleep MS... (one nanosleep each: the kernel's hrtimer_nanosleep).
. /tests/lib.sh

tmp=$(mktemp -d)
# A copy of vmprog under a name of its own: its exec renames the task.
unseen=ksunseen
cp "$(command -v vmprog)" "$tmp/$unseen"

# jq_count FILE FILTER: how many events FILTER selects.
jq_count() {
	jq -c "select($2)" "$1" 2>/dev/null | wc -l
}

for mode in fentry kprobe; do
	T=$mode
	# --- -L 150ms on sleeps of 50, 300 and 50 ms: one call, the long one,
	#     its entry value and duration in the return event ---
	if start "$tmp/o1" "$tmp/e1" --mode $mode -j -c vmprog -L 150ms 'hrtimer_nanosleep(rqtp)'; then
		vmprog sleep 50 300 50
		stop
		count_is ${T}_min_duration_one_event 1 '"func":"hrtimer_nanosleep"' "$tmp/o1" "$tmp/e1"
		expect_eq ${T}_min_duration_long_call 1 \
			"$(jq_count "$tmp/o1" '.kind == "return" and .values.rqtp == 300000000')"
		expect_eq ${T}_min_duration_at_least_300ms 1 \
			"$(jq_count "$tmp/o1" '.duration_ns >= 300000000 and .duration_ns < 3000000000')"
	else
		fail ${T}_attach_min_duration "$(cat "$tmp/e1")"
	fi

	# --- text, every argument: the header says how long; a 1 ms sleep is
	#     left out; the entry values come with the return ---
	if start "$tmp/o2" "$tmp/e2" --mode $mode -c vmprog -L 50ms hrtimer_nanosleep; then
		vmprog sleep 200 1
		stop
		count_is ${T}_text_one_event 1 'hrtimer_nanosleep' "$tmp/o2" "$tmp/e2"
		count_is ${T}_text_duration_in_header 1 \
			' <- hrtimer_nanosleep \((2[0-9][0-9]|[3-9][0-9][0-9])\.[0-9]{3} ms\)$' "$tmp/o2" "$tmp/e2"
		count_is ${T}_text_entry_value_on_return 1 '^    rqtp = 200000000$' "$tmp/o2" "$tmp/e2"
		count_is ${T}_text_return_value 1 '^    return = 0$' "$tmp/o2" "$tmp/e2"
	else
		fail ${T}_attach_text "$(cat "$tmp/e2")"
	fi

	# --- no -L: every return has a duration, no entry has one ---
	if start "$tmp/o3" "$tmp/e3" --mode $mode -j -c vmprog 'hrtimer_nanosleep(rqtp, return)'; then
		vmprog sleep 20 1
		stop
		expect_eq ${T}_entries 2 "$(jq_count "$tmp/o3" '.kind == "entry"')"
		expect_eq ${T}_entries_without_duration 0 "$(jq_count "$tmp/o3" '.kind == "entry" and has("duration_ns")')"
		expect_eq ${T}_returns_with_duration 2 \
			"$(jq_count "$tmp/o3" '.kind == "return" and .duration_ns >= 1000000 and .duration_ns < 3000000000')"
		expect_eq ${T}_the_20ms_call 1 "$(jq_count "$tmp/o3" '.kind == "return" and .duration_ns >= 20000000')"
	else
		fail ${T}_attach_plain "$(cat "$tmp/e3")"
	fi

	# --- only the return printed: the entry side runs just to keep the time ---
	if start "$tmp/o4" "$tmp/e4" --mode $mode -c vmprog -L 100ms 'hrtimer_nanosleep(return)'; then
		vmprog sleep 10 150 10
		stop
		count_is ${T}_return_only_one_event 1 \
			' <- hrtimer_nanosleep \((1[5-9][0-9]|[2-9][0-9][0-9])\.[0-9]{3} ms\)$' "$tmp/o4" "$tmp/e4"
		count_is ${T}_return_only_no_entry 0 ' -> hrtimer_nanosleep' "$tmp/o4" "$tmp/e4"
	else
		fail ${T}_attach_return_only "$(cat "$tmp/e4")"
	fi

	# --- a return whose entry was not seen: begin_new_exec renames the
	#     task, so under -c NEWNAME its entry (comm "sh") is filtered out
	#     and its return (comm NEWNAME) is not.  It has no duration, and -L
	#     never keeps it (measured from 0 it would look 50 years long);
	#     the sleep in the same run is the control that -L keeps calls ---
	if start "$tmp/o5" "$tmp/e5" --mode $mode -j -c "$unseen" \
		'begin_new_exec(return)' 'hrtimer_nanosleep(return)'; then
		"$tmp/$unseen" sleep 20
		stop
		expect_eq ${T}_unseen_entry_return_printed 1 \
			"$(jq_count "$tmp/o5" '.func == "begin_new_exec" and .kind == "return"')"
		expect_eq ${T}_unseen_entry_no_duration 0 \
			"$(jq_count "$tmp/o5" '.func == "begin_new_exec" and has("duration_ns")')"
		expect_eq ${T}_unseen_entry_seen_call_timed 1 \
			"$(jq_count "$tmp/o5" '.func == "hrtimer_nanosleep" and .duration_ns >= 20000000')"
	else
		fail ${T}_attach_unseen_entry "$(cat "$tmp/e5")"
	fi
	if start "$tmp/o6" "$tmp/e6" --mode $mode -j -c "$unseen" -L 1ms \
		'begin_new_exec(return)' 'hrtimer_nanosleep(return)'; then
		"$tmp/$unseen" sleep 20
		stop
		expect_eq ${T}_min_duration_unseen_entry_left_out 0 \
			"$(jq_count "$tmp/o6" '.func == "begin_new_exec"')"
		expect_eq ${T}_min_duration_seen_call_kept 1 \
			"$(jq_count "$tmp/o6" '.func == "hrtimer_nanosleep" and .duration_ns >= 20000000')"
	else
		fail ${T}_attach_min_duration_unseen "$(cat "$tmp/e6")"
	fi
done

# Tracepoints have no return: -L is refused, one line, exit 2.
err=$(ksnoop -L 10ms tp:sched_process_exec 2>&1 >/dev/null); rc=$?
expect_eq min_duration_tracepoint_status 2 "$rc"
expect_match min_duration_tracepoint_message 'is a tracepoint, which has no return' "$err"
rm -rf "$tmp"
