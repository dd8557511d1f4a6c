#!/bin/bash
# Times on the command line: --duration takes fractions and units (0.5 was
# refused once), -L/--min-duration needs a unit and a function's return, so
# tracepoints and USDT probes are refused with one line, exit 2.  Return
# events carry durations only in the VM (kernel functions: tests/vm/tests/
# 75-durations.sh); here, a tracepoint event has none.
. "$(dirname "$0")/helpers.bash"
usdt_paths

refused min_duration_needs_unit "--min-duration: '150' needs a unit \(ns, us, ms, s\)" -L 150 ip_send_skb
refused min_duration_bad_unit "--min-duration: '3m': unknown unit 'm'" --min-duration 3m ip_send_skb
refused min_duration_zero "--min-duration: '0ms' is no time at all" -L 0ms ip_send_skb
refused duration_bad_unit "--duration: '1x': unknown unit 'x'" --duration 1x tp:sched_process_exec
refused duration_negative "--duration: '-1' is not a time" --duration -1 tp:sched_process_exec
refused duration_too_fine "--duration: '1.5ns' is finer than a nanosecond" --duration 1.5ns tp:sched_process_exec
refused min_duration_tracepoint \
	"--min-duration: 'tp:sched_process_exec' is a tracepoint, which has no return and so no duration; only kernel functions and system calls \\(sys:NAME\\) have one" \
	-L 50ms tp:sched_process_exec
refused min_duration_tracepoint_among_functions "'tp:sched_switch' is a tracepoint" \
	-L 50ms ip_send_skb tp:sched_switch
refused min_duration_usdt \
	"--min-duration: '$E:ksnoop_edge:mixed' is a USDT probe, which has no return and so no duration" \
	-L 1ms usdt "$E:ksnoop_edge:mixed"

# -j: the refusal is JSON on stdout, same status.
out=$(ks -j -L 50ms tp:sched_process_exec 2>/dev/null); rc=$?
expect_eq min_duration_json_status 2 "$rc"
expect_match min_duration_json_error '^\{"type":"error","error":"--min-duration: .*is a tracepoint, which has no return' "$out"

needs_root durations
scratch_dir

# --duration with a fraction and with a unit: the run ends after about that.
for d in 0.5 500ms; do
	name=duration_${d//./_}
	t0=$(date +%s%N)
	ks --duration "$d" tp:sched_process_exec >/dev/null 2>"$tmp/err"; rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	expect_eq "${name}_exits_0" 0 "$rc"
	# At least the time asked; at most a few seconds more (start-up, drain).
	if [ "$ms" -ge 500 ] && [ "$ms" -lt 5000 ]; then
		pass "${name}_length"
	else
		fail "${name}_length" "ran ${ms} ms: $(cat "$tmp/err")"
	fi
done

# Tracepoints have no return side: no duration in their events.
# A program named after this run: another run's execs do not count.
probe=ksdur$$
cp /bin/true "$tmp/$probe"
ks_case <<'CASE'
NAME     tp_event
RUN      -j -n 1 --duration 10 -c "$probe" tp:sched_process_exec
WORKLOAD "$tmp/$probe"
UNTIL    exit
EXPECT   tp_event_printed: count 1 '"kind":"entry"'
EXPECT   tp_event_has_no_duration: count 0 duration_ns
CASE
