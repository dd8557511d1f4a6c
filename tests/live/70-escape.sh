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
	ks_errors "$(cd "$(dirname "$0")/../golden/70-escape" && pwd)/errors" <<'ROWS'
usdt_error usdt "$tmp/usdt_prog:nope:*"
ROWS
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
ks_case <<'CASE'
NAME     attach
RUN      -n 2 "$spec"
WORKLOAD "$tmp/$name"; "$tmp/$name"
UNTIL    exit
EXPECT   text_exits_0: exit 0
EXPECT   text_events: count 2 '-> tp:sched_process_exec$'
EXPECT   text_no_raw_controls: eq 0 "$(raw_controls "$OUT")"
EXPECT   text_no_forged_line: count 0 "^$forged"
EXPECT   text_comm_escaped: count 2 " \\\\x1b\\[31m\\\\n$forged [0-9]*/[0-9]* -> "
EXPECT   text_comm_value: count 2 "^    p->comm = \"\\\\x1b\\[31m\\\\n$forged\"\$"
CASE
ks_case <<'CASE'
NAME     attach_json
RUN      -j -n 2 "$spec"
WORKLOAD "$tmp/$name"; "$tmp/$name"
UNTIL    exit
EXPECT   json_exits_0: exit 0
EXPECT   json_no_raw_controls: eq 0 "$(raw_controls "$OUT")"
EXPECT   json_parses: json
EXPECT   json_comm: eq "\"\\u001b[31m\\n$forged\"" "$(events "$OUT" | jq -c .comm | sort -u)"
CASE

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
# spoof_begin: the renaming process, blocked until spoof_go opens the
# FIFO (after ksnoop started: ksnoop must not hold its writing end, or
# the process would never see the end of its input); its pid in SPOOF_PID.
spoof_begin() {
	"${NOBODY[@]}" /usr/bin/python3 -c "$rename_and_open" "$spoof" "$missing" <"$tmp/cfifo" >/dev/null 2>&1 &
	SPOOF_PID=$!
}
# spoof_go: let it rename itself and open MISSING twice; wait for both
# events (bounded by count), then for its end.
spoof_go() {
	exec 6>"$tmp/cfifo"
	# (a process that died before reading: a failure below, not SIGPIPE here)
	trap '' PIPE
	echo go >&6
	trap - PIPE
	for _ in $(seq 100); do
		[ "$(grep -c -- "$missing" "$OUT")" -ge 2 ] && break
		sleep 0.1
	done
	exec 6>&-
	wait "$SPOOF_PID" 2>/dev/null
}
ks_case <<'CASE'
NAME     spoof_text_attach
BEFORE   spoof_begin
RUN      -p "$SPOOF_PID" 'tp:syscalls:sys_enter_openat(filename)'
WORKLOAD spoof_go
EXPECT   spoof_text_exits_0: exit 0
EXPECT   spoof_comm_quoted: eq 2 "$(grep -B1 "^    filename = \"$missing\"\$" "$OUT" | \
           grep -c "^[0-9:.]* cpu[0-9]* \"$spoof\" $SPOOF_PID/[0-9]* -> tp:syscalls:sys_enter_openat\$")"
EXPECT   spoof_no_bare_comm: eq 0 "$(grep -c " cpu[0-9]* $spoof " "$OUT")"
CASE
ks_case <<'CASE'
NAME     spoof_json_attach
BEFORE   spoof_begin
RUN      -j -p "$SPOOF_PID" 'tp:syscalls:sys_enter_openat(filename)'
WORKLOAD spoof_go
EXPECT   spoof_json_exits_0: exit 0
EXPECT   spoof_json_comm: eq "\"$spoof\"" \
           "$(events "$OUT" | jq -c --arg m "$missing" 'select(.values.filename == $m) | .comm' | sort -u)"
CASE
