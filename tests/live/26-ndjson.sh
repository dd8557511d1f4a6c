#!/bin/bash
# With -j stdout is one NDJSON stream (issue #26): every command and every
# notice, each line one JSON object whose first key is "type", from the
# set the man page documents, and nothing else on stdout; nothing on
# stderr either (a notice is a record, not a text line).  Each run's
# stdout goes through a JSON parser line by line.
. "$(dirname "$0")/helpers.bash"

needs_root tracepoints
usdt_paths
FORMS=$U/usdt_forms
usdt_programs

TYPES="event object count hist stats info lost summary warning error"

# check_stream: stdin is -j output.  Writes every record but the events
# (for the checks that follow), then "#types T..." (the types seen, sorted),
# "#events N", and "#bad WHY" for each line that is not one JSON object
# with a documented "type" first (at most 5).
check_stream() {
	python3 -c '
import json, sys
types = set(sys.argv[1].split())
seen, bad, events = set(), [], 0
for n, raw in enumerate(sys.stdin.buffer, 1):
    try:
        o = json.loads(raw)
    except ValueError:
        bad.append("line %d is not JSON: %r" % (n, raw[:100]))
        continue
    if not isinstance(o, dict) or not o or next(iter(o)) != "type":
        bad.append("line %d has no \"type\" first: %r" % (n, raw[:100]))
    elif o["type"] not in types:
        bad.append("line %d: type %r is not documented" % (n, o["type"]))
    elif not raw.endswith(b"\n"):
        bad.append("line %d is cut short" % n)
    else:
        seen.add(o["type"])
        if o["type"] == "event":
            events += 1
        else:
            sys.stdout.write(raw.decode())
print("#types " + " ".join(sorted(seen)))
print("#events %d" % events)
for b in bad[:5]:
    print("#bad " + b)
' "$TYPES"
}

# stream NAME STATUS WANT ARGS...: `ksnoop -j ARGS` exits STATUS, its
# stdout is typed NDJSON holding the types WANT (sorted) and nothing else,
# its stderr is empty.  The records but events are in $tmp/NAME.
stream() {
	local name=$1 want_rc=$2 want=$3 rc got
	shift 3
	ks -j "$@" 2>"$tmp/$name.err" | check_stream >"$tmp/$name"
	rc=${PIPESTATUS[0]}
	got=$(sed -n 's/^#types //p' "$tmp/$name")
	if [ "$rc" = "$want_rc" ] && [ "$got" = "$want" ] && ! grep -q '^#bad' "$tmp/$name" &&
	   [ ! -s "$tmp/$name.err" ]; then
		pass "$name"
	else
		fail "$name" "ksnoop -j $*: exit $rc (want $want_rc), types '$got' (want '$want');
$(grep '^#bad' "$tmp/$name")
stderr: $(head -c 600 "$tmp/$name.err")"
	fi
}
# of NAME: the records of NAME but events; events NAME: how many events.
of() { grep -v '^#' "$tmp/$1"; }
nevents() { sed -n 's/^#events //p' "$tmp/$1"; }

# A process that makes system calls as fast as it can (yes writes 8 KiB
# to /dev/null a call): events of our own, through -p.
yes >/dev/null &
WPID=$!
AT_EXIT+=("kill $WPID 2>/dev/null")

# --- events, and the summary last ---
stream events 0 "event summary" -n 3 -p "$WPID" 'tp:sys_enter(id)'
expect_eq events_three 3 "$(nevents events)"
expect_eq events_summary_keys "lost missed not_counted not_followed not_printed printed stacks_not_taken type unreadable" \
	"$(of events | jq -r 'select(.type == "summary") | keys | join(" ")')"
expect_eq events_summary_printed 3 "$(of events | jq -r 'select(.type == "summary") | .printed')"

# --- --count, per stack, per period; --hist ---
stream count 0 "count summary" --count --duration 0.5 -p "$WPID" tp:sys_enter
expect_eq count_row "tp:sys_enter true" \
	"$(of count | jq -r 'select(.type == "count") | "\(.func) \(.count > 0)"')"
expect_eq count_summary_keys "counted missed not_counted not_followed not_printed stacks_not_taken type unreadable" \
	"$(of count | jq -r 'select(.type == "summary") | keys | join(" ")')"
stream count_stacks 0 "count summary" --count -s --duration 0.5 -p "$WPID" tp:sys_enter
expect_eq count_stacks_arrays true \
	"$(of count_stacks | jq -s '[.[] | select(.type == "count") | .stack | type == "array"] | length > 0 and all')"
stream count_interval 0 "count summary" --count --interval 300ms --duration 1 -p "$WPID" tp:sys_enter
expect_eq count_interval_numbered "1 2 3" \
	"$(of count_interval | jq -r 'select(.type == "count") | .interval' | head -3 | joined)"
stream hist 0 "hist summary" --hist --duration 0.5 -p "$WPID" 'tp:sys_enter(id)'
expect_eq hist_buckets true "$(of hist | jq 'select(.type == "hist") | .buckets | length > 0')"
stream stats 0 "stats summary" --stats --duration 0.5 -p "$WPID" 'tp:sys_enter(id)'
expect_eq stats_row true \
	"$(of stats | jq 'select(.type == "stats") | .count > 0 and .min <= .max and .avg >= .min and .avg <= .max')"

# --- a flood into a ring buffer of one page: the lost-events notice and
#     the summary's losses are records, not text on stderr ---
#     Half a second is shorter than the notices' interval (a second): the
#     last notice comes before the summary, with the summary's count, on a
#     machine of any speed.
stream lost 0 "event lost summary" --buffer 4096 --duration 0.5 -p "$WPID" 'tp:sys_enter(regs, id)'
expect_eq lost_counted true "$(of lost | jq 'select(.type == "summary") | .lost > 0')"
expect_eq lost_notice_counts true "$(of lost | jq -s '[.[] | select(.type == "lost") | .lost > 0] | all')"
expect_eq lost_notice_is_final true \
	"$(of lost | jq -s '([.[] | select(.type == "lost")] | last | .lost) == (.[-1] | select(.type == "summary") | .lost)')"

# --- report: a recording's events and summary, its --count, its --info,
#     a file cut short (the warning a record) and a bad file (the error) ---
fx=$(cd "$(dirname "$0")/../fixture/record" && pwd)
stream report 0 "event summary" report "$fx/usdt.ksr"
expect_eq report_events 4 "$(nevents report)"
stream report_count 0 "count summary" report --count "$fx/usdt.ksr"
stream report_info 0 info report --info "$fx/usdt.ksr"
expect_eq report_info_kind recording "$(of report_info | jq -r .kind)"
head -c $(($(stat -c %s "$fx/tp.ksr") - 10)) "$fx/tp.ksr" >"$tmp/cut.ksr"
stream report_cut 0 "event warning" report "$tmp/cut.ksr"
printf 'KSNOOPR\n' >"$tmp/bad.ksr"
stream report_bad 2 error report "$tmp/bad.ksr"

# --- info of every target kind this kernel has natively (module functions:
#     the VM tests), as many records as text lines ---
stream info_tp 0 info info tp:sched_switch
expect_eq info_tp_record "tracepoint tp:sched_switch 4 true" \
	"$(of info_tp | jq -r '"\(.kind) \(.name) \(.params | length) \(.traceable)"')"
stream info_tp_glob 0 info info 'tp:sched_process_*'
expect_eq info_tp_glob_all "$(ks info 'tp:sched_process_*' | wc -l)" "$(of info_tp_glob | wc -l)"
stream info_func 0 info info vfs_read
expect_eq info_func_record "func vfs_read null ssize_t file,buf,count,pos true" \
	"$(of info_func | jq -r '"\(.kind) \(.name) \(.module) \(.return) \([.params[].name] | join(",")) \(.traceable)"')"
stream info_func_glob 0 info info 'tcp_*'
text=$(ks info 'tcp_*' 2>/dev/null)
expect_eq info_func_glob_all "$(printf '%s\n' "$text" | wc -l)" "$(of info_func_glob | wc -l)"
expect_eq info_func_glob_untraceable "$(printf '%s\n' "$text" | grep -c 'cannot be traced')" \
	"$(of info_func_glob | jq -r 'select(.traceable == false and (.why | length > 0)) | .name' | wc -l)"
stream info_usdt 0 info info usdt "$P"
expect_eq info_usdt_probes 12 "$(of info_usdt | jq -r 'select(.kind == "usdt") | .name' | wc -l)"
"$P" spin 300 >/dev/null &  # killed below; long enough for any load
spid=$!
sleep 0.3
stream info_usdt_pid 0 info -p "$spid" info usdt
expect_match info_usdt_pid_lib 'libksnoop_usdt|ksnoop_test' "$(of info_usdt_pid | jq -r '.provider')"

# --- USDT events, and a warning (call sites left out) ---
stream usdt_events 0 "event summary" -n 2 -p "$spid" usdt "$P:ksnoop_test:tick(arg0)"
expect_eq usdt_events_two 2 "$(nevents usdt_events)"
kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
if [ -x "$FORMS" ]; then
	cp "$FORMS" "$tmp/usdt_forms"
	stream warning 0 "summary warning" --duration 0.3 usdt "$tmp/usdt_forms:ksnoop_forms:mixed(arg3)"
	expect_match warning_text "2 of the 3 call sites of ksnoop_forms:mixed left out" \
		"$(of warning | jq -r 'select(.type == "warning") | .warning')"
else
	fail warning "no $FORMS (make build/usdt/usdt_forms)"
fi

# --- errors: one record, the usual exit status ---
stream error_info 2 error info no_such_fn
stream error_spec 2 error 'tp:sched_switch('
stream error_option 2 error --pid x tp:sched_switch
expect_match error_record "^spec 'tp:sched_switch\\(': column 17: " "$(of error_spec | jq -r .error)"

# --- text is untouched: the notices stay on stderr, nothing on stdout ---
out=$(ks --count --duration 0.5 -p "$WPID" tp:sys_enter 2>"$tmp/text.err" | grep -c '^{')
expect_eq text_no_records 0 "$out"
expect_match text_summary_on_stderr '^ksnoop: [0-9]+ calls counted$' "$(cat "$tmp/text.err")"
