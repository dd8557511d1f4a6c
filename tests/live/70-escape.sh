#!/bin/bash
# What traced programs and their files choose reaches the terminal escaped
# (issue #11): a comm with an escape sequence and a newline, traced through
# a tracepoint in text and JSON; a USDT provider and probe name with control
# bytes (the note of a copy of the test program, patched), in `info usdt`.
. "$(dirname "$0")/helpers.bash"
usdt_paths

scratch_dir

# Bytes a terminal acts on: C0 but newline, DEL, C1 raw and UTF-8 encoded.
raw_controls() {
	LC_ALL=C grep -c -P '[\x00-\x09\x0b-\x1f\x7f-\x9f]|\xc2[\x80-\x9f]' "$1"
}

# --- info usdt: provider "ksnoop_test" and probe "small", same lengths ---
if [ -x "$P" ]; then
	cp "$P" "$tmp/usdt_prog"
	perl -0777 -pi -e 's/ksnoop_test\0small\0/\e[31m\nFORGE\0\xc2\x9b2Jx\0/g' "$tmp/usdt_prog"
	"$K" info usdt "$tmp/usdt_prog" >"$tmp/i1" 2>"$tmp/ie1"
	expect_eq info_usdt_status 0 "$?"
	expect_eq info_usdt_no_raw_controls 0 "$(raw_controls "$tmp/i1")"
	expect_eq info_usdt_escaped 1 "$(grep -c '^\\x1b\[31m\\nFORGE \+\\xc2\\x9b2Jx ' "$tmp/i1")"
	expect_eq info_usdt_no_forged_line 0 "$(grep -c '^FORGE' "$tmp/i1")"
	"$K" -j info usdt "$tmp/usdt_prog" >"$tmp/i2" 2>"$tmp/ie2"
	expect_eq info_usdt_json_no_raw_controls 0 "$(raw_controls "$tmp/i2")"
	expect_eq info_usdt_json_provider "$(printf '\e[31m\nFORGE')" \
		"$(jq -r 'select(.name == "\u009b2Jx") | .provider' "$tmp/i2" 2>&1)"
	"$K" usdt "$tmp/usdt_prog:nope:*" >"$tmp/i3" 2>"$tmp/ie3"
	expect_eq usdt_error_status 2 "$?"
	expect_eq usdt_error_one_line 1 "$(wc -l <"$tmp/ie3")"
else
	fail info_usdt_escaped "missing $P (make build/usdt/usdt_prog)"
fi

needs_root tracepoint_comm_escaped

# --- tp: a program named ESC [ 3 1 m NEWLINE F and this run's pid (another
#     run at the same time has its own): its comm is that ---
forged=F$$
name=$'\e[31m\n'$forged
cp /bin/true "$tmp/$name"
spec="tp:sched_process_exec(p->comm == \"\\x1b[31m\\n$forged\", p->pid)"
start "$tmp/o1" "$tmp/e1" -n 2 "$spec" || fail attach "$(cat "$tmp/e1")"
"$tmp/$name"; "$tmp/$name"
finish
expect_eq text_exits_0 0 "$RC"
expect_eq text_events 2 "$(grep -c -- '-> tp:sched_process_exec$' "$tmp/o1")"
expect_eq text_no_raw_controls 0 "$(raw_controls "$tmp/o1")"
expect_eq text_no_forged_line 0 "$(grep -c "^$forged" "$tmp/o1")"
expect_eq text_comm_escaped 2 "$(grep -c " \\\\x1b\\[31m\\\\n$forged [0-9]*/[0-9]* -> " "$tmp/o1")"
expect_eq text_comm_value 2 "$(grep -c "^    p->comm = \"\\\\x1b\\[31m\\\\n$forged\"\$" "$tmp/o1")"

start "$tmp/o2" "$tmp/e2" -j -n 2 "$spec" || fail attach_json "$(cat "$tmp/e2")"
"$tmp/$name"; "$tmp/$name"
finish
expect_eq json_exits_0 0 "$RC"
expect_eq json_no_raw_controls 0 "$(raw_controls "$tmp/o2")"
if jq -e . "$tmp/o2" >/dev/null 2>&1; then pass json_parses; else fail json_parses "$(cat -v "$tmp/o2")"; fi
expect_eq json_comm "\"\\u001b[31m\\n$forged\"" "$(events "$tmp/o2" | jq -c .comm | sort -u)"

# --- a process of nobody's names itself 'x 1/1 -> ok' (prctl PR_SET_NAME):
#     root's text header shows it in quotes, never as a comm "x" followed by
#     pid and arrow fields; JSON's "comm" is the name as it is ---
spoof='x 1/1 -> ok'
missing=/nonexistent-ksnoop-escape-$$
chmod 755 "$tmp"
mkfifo "$tmp/cfifo"
# Waits for a line, renames itself, opens MISSING twice, waits for the end.
rename_and_open='import ctypes, os, sys
sys.stdin.readline()
ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0)
for _ in range(2):
    try:
        os.open(sys.argv[2], os.O_RDONLY)
    except OSError:
        pass
sys.stdin.read()'
# spoofed NAME KSNOOP-ARGS...: the renaming process traced (-p) by ksnoop.
spoofed() {
	local name=$1 pid
	shift
	"${NOBODY[@]}" /usr/bin/python3 -c "$rename_and_open" "$spoof" "$missing" <"$tmp/cfifo" >/dev/null 2>&1 &
	pid=$!
	exec 6>"$tmp/cfifo"
	start "$tmp/$name.out" "$tmp/$name.err" -p "$pid" "$@" 6>&- || fail "${name}_attach" "$(cat "$tmp/$name.err")"
	# (a process that died before reading: a failure below, not SIGPIPE here)
	trap '' PIPE
	echo go >&6
	trap - PIPE
	for _ in $(seq 100); do
		[ "$(grep -c -- "$missing" "$tmp/$name.out")" -ge 2 ] && break
		sleep 0.1
	done
	exec 6>&-
	wait "$pid" 2>/dev/null
	stop
	expect_eq "${name}_exits_0" 0 "$RC"
	SPOOF_PID=$pid
}
spoofed spoof_text 'tp:syscalls:sys_enter_openat(filename)'
expect_eq spoof_comm_quoted 2 \
	"$(grep -B1 "^    filename = \"$missing\"\$" "$tmp/spoof_text.out" |
	   grep -c "^[0-9:.]* cpu[0-9]* \"$spoof\" $SPOOF_PID/[0-9]* -> tp:syscalls:sys_enter_openat\$")"
expect_eq spoof_no_bare_comm 0 "$(grep -c " cpu[0-9]* $spoof " "$tmp/spoof_text.out")"
spoofed spoof_json -j 'tp:syscalls:sys_enter_openat(filename)'
expect_eq spoof_json_comm "\"$spoof\"" \
	"$(events "$tmp/spoof_json.out" | jq -c --arg m "$missing" 'select(.values.filename == $m) | .comm' | sort -u)"
