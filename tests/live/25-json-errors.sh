#!/bin/bash
# With -j an error is one JSON object on stdout ({"type":"error","error":...}), with the
# same exit status as in text; without -j it stays one line on stderr.
. "$(dirname "$0")/helpers.bash"
K=${KSNOOP:?KSNOOP must name the ksnoop binary}

json_error() {
	local name=$1 want_rc=$2 re=$3 out err rc
	shift 3
	out=$(timeout 20 "$K" "$@" 2>/dev/null); rc=$?
	err=$(timeout 20 "$K" "$@" 2>&1 >/dev/null)
	if [ "$rc" = "$want_rc" ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
	   printf '%s\n' "$out" | jq -er 'select(.type == "error") | .error' 2>/dev/null | grep -Eq -- "$re" &&
	   [ -z "$(printf '%s' "$err" | grep -v 'Sanitizer' )" ]; then
		pass "$name"
	else
		fail "$name" "exit $rc (want $want_rc), stdout: $out, stderr: $err"
	fi
}
json_error bad_option_value 2 "^--pid: 'x' is not a number$" -j --pid x tp:sched_switch
json_error folded_json 2 "^--folded is a text format; -j and --folded do not go together$" --count -s --folded -j tp:sched_switch
json_error option_before_j 2 "^--max-events: '0x' is not a number$" --max-events 0x --json tp:sched_switch
json_error short_cluster 2 "^--mode: 'nope' is not one of fentry, kprobe$" -vj --mode nope tp:sched_switch
json_error spec_column 2 "^spec 'tp:sched_switch\\(': column 17: " -j 'tp:sched_switch('
json_error control_bytes_escaped 2 'no_such_fn' -j info "no_such_fn"$'\e'"x"

# Without -j: text on stderr, nothing on stdout.
out=$(timeout 20 "$K" --pid x tp:sched_switch 2>/dev/null); rc=$?
expect_eq text_error_status 2 "$rc"
expect_eq text_error_stdout_empty "" "$out"
