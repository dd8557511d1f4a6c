#!/bin/bash
# --ustack: the user stack of the task a kernel event ran in, live on this
# kernel (root) at system calls and syscall tracepoints.  ustack_prog
# calls openat of a missing file from main -> outer_fn -> inner_fn, with
# frame pointers: the stack must name exactly those, innermost first,
# after the kernel's (-s), in text and JSON; named through the same
# symbolizer as USDT's -s (live/65-hostile-usym.sh covers its hostile
# inputs), here for a process of another, unprivileged user too; and
# a process that exits, or execs another program, before its events are
# printed; --count by user stack, as text, JSON and folded stacks, a
# symbol holding ";" one folded frame.
. "$(dirname "$0")/helpers.bash"

ustack_program ustack
N=2

refused usdt_refused "^ksnoop: --ustack: a USDT probe's stack \(-s\) is its program's user stack already$" \
	--ustack usdt "$prog:nosuch:probe"
refused hist_refused "^ksnoop: --hist counts by a value: not with --ustack$" --ustack --hist 'sys:openat'

# Each case: BEFORE prog_waits (ustack_prog started, waiting on a pipe,
# its pid in $pid for RUN's -p; USER_AS=nobody: unprivileged), RUN's
# ksnoop must not hold the pipe open (6>&-: the prog waits for its end),
# WORKLOAD prog_go [-x|-c] lets the prog make its N calls and waits for
# the N events (at most 10 s; -c: counts, printed at exit only), then
# for the end of the pipe (-x: it exits at once, before ksnoop prints).
prog_waits() {
	local fifo=$tmp/fifo-$1
	mkfifo "$fifo"
	if [ "${USER_AS:-}" = nobody ]; then
		"${NOBODY[@]}" "$prog" "$missing" $N ${PROG_MODE:-} <"$fifo" >/dev/null 2>&1 &
	else
		"$prog" "$missing" $N ${PROG_MODE:-} <"$fifo" >/dev/null 2>&1 &
	fi
	pid=$!
	exec 6>"$fifo"
}
prog_go() {
	echo go >&6
	[ "${1:-}" = -x ] && exec 6>&-
	[ "${1:-}" = -c ] && sleep 1
	for _ in $(seq $([ "${1:-}" = -c ] && echo 0 || echo 100)); do
		[ "$(grep -c '^{"type":"event"\|<- sys:openat\|-> tp:syscalls' "$OUT")" -ge $N ] && break
		sleep 0.1
	done
	exec 6>&-
	wait "$pid" 2>/dev/null
}
# user_frames FILE: the first three frames of the first user stack, by name.
user_frames() {
	sed -n '/^    ustack = \[$/,/^    \]$/{/^        /p}' "$1" | head -3 |
		sed "s/^ *//; s/,\$//; s|^\([a-z_]*\)+0x[0-9a-f]* ($prog)\$|\1|" | joined
}
first() { grep -m1 "^{\"type\":\"$1\"" "$OUT"; }
prog_frame="^        ([a-z_]+\+0x[0-9a-f]+ \($prog\)|0x[0-9a-f]+ \($prog\+0x[0-9a-f]+\)),?$"

# --- text: kernel stack, then the user stack, exactly inner_fn, outer_fn, main ---
ks_case <<'CASE'
NAME     text
BEFORE   prog_waits text
RUN      -s --ustack "sys:openat(filename, return < 0)" -p "$pid" 6>&-
WORKLOAD prog_go
EXPECT   text_exits_0: exit 0
EXPECT   text_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   text_events: count $N '<- sys:openat'
EXPECT   text_user_frames: eq 'inner_fn outer_fn main' "$(user_frames "$OUT")"
EXPECT   text_each_event_has_both: eq "$N $N" "$(grep -c '^    stack = \[$' "$OUT") $(grep -c '^    ustack = \[$' "$OUT")"
# Kernel frames first (as -s prints them), then the user stack.
EXPECT   text_kernel_then_user: eq 'stack ustack' "$(sed -n 's/^    \(u\{0,1\}stack\) = \[$/\1/p' "$OUT" | head -2 | joined)"
EXPECT   text_kernel_frames: match '^        (do_syscall_64|entry_SYSCALL_64[a-z_]*)\+0x[0-9a-f]+,?$'
EXPECT   text_no_user_in_kernel: eq '' "$(sed -n '/^    stack = \[$/,/^    \]$/p' "$OUT" | grep -E 'inner_fn|outer_fn')"
CASE

# --- JSON: "ustack" an array of its own beside "stack"; --ustack alone: no "stack" ---
ks_case <<'CASE'
NAME     json
BEFORE   prog_waits json
RUN      -j --ustack "sys:openat(filename, return < 0)" -p "$pid" 6>&-
WORKLOAD prog_go
EXPECT   json_exits_0: exit 0
EXPECT   json_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   json_user_frames: eq '["inner_fn","outer_fn","main"]' \
         "$(first event | jq -c '.ustack[0:3] | map(sub("\\+0x[0-9a-f]+ \\(.*\\)$"; ""))')"
EXPECT   json_object: eq "\"$prog\"" "$(first event | jq -c '.ustack[0] | capture("\\((?<o>.*)\\)$").o')"
# main's caller, in glibc (stripped): named from libc6-dbg's debug file by build-id.
EXPECT   json_libc_frame_named: text '^__libc_start_call_main\+0x[0-9a-f]+ \(.*/libc\.so\.6\)$' \
         "$(first event | jq -r '.ustack[]')"
EXPECT   json_no_kernel_stack_without_s: eq false "$(first event | jq -c 'has("stack")')"
EXPECT   json_return: eq -2 "$(first event | jq -c '.values.return')"
CASE

# --- a syscall tracepoint, and a process of another user (nobody) ---
ks_case <<'CASE'
NAME     tp
BEFORE   USER_AS=nobody prog_waits tp
RUN      --ustack "tp:syscalls:sys_enter_openat(filename)" -p "$pid" 6>&-
WORKLOAD prog_go
EXPECT   tp_exits_0: exit 0
EXPECT   tp_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   tp_events: count $N '-> tp:syscalls:sys_enter_openat$'
EXPECT   tp_user_frames: eq 'inner_fn outer_fn main' "$(user_frames "$OUT")"
CASE

# --- the process exits before its events are printed: with -p its maps
# were read at attach, so each of its frames still names the program
# (by symbol, or by offset where its file could no longer be opened) ---
ks_case <<'CASE'
NAME     gone
BEFORE   prog_waits gone
RUN      --ustack "sys:openat(return < 0)" -p "$pid" 6>&-
WORKLOAD prog_go -x
EXPECT   gone_exits_0: exit 0
EXPECT   gone_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   gone_events: count $N '<- sys:openat'
EXPECT   gone_frames_name_program: eq 3 \
         "$(sed -n '/^    ustack = \[$/,/^    \]$/{/^        /p}' "$OUT" | head -3 | grep -cE "$prog_frame")"
CASE

# --- the process becomes another program (exec: the same pid, other maps)
# right after its calls: its frames are still named from the maps read at
# attach (by symbol, or by offset once the mapped file is no longer its
# own), never from cat's (whose own failing opens the file name leaves out) ---
ks_case <<'CASE'
NAME     execd
BEFORE   PROG_MODE=exec prog_waits execd
RUN      --ustack "sys:openat(filename == \"$missing\", return < 0)" -p "$pid" 6>&-
WORKLOAD prog_go
EXPECT   execd_exits_0: exit 0
EXPECT   execd_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   execd_events: count $N '<- sys:openat'
EXPECT   execd_frames_name_program: eq $((3 * N)) \
         "$(sed -n '/^    ustack = \[$/,/^    \]$/{/^        /p}' "$OUT" | grep -cE "$prog_frame")"
EXPECT   execd_not_cat: eq '' "$(sed -n '/^    ustack = \[$/,/^    \]$/p' "$OUT" | grep -E 'cat|/usr/bin')"
CASE

# --- --count: per kernel and user stack; folded with the user frames below ---
ks_case <<'CASE'
NAME     count
BEFORE   prog_waits count
RUN      --count -s --ustack "sys:openat(return < 0)" -p "$pid" 6>&-
WORKLOAD prog_go -c
EXPECT   count_exits_0: exit 0
EXPECT   count_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   count_header: eq "sys:openat: $N calls" "$(head -1 "$OUT")"
EXPECT   count_pid_line: match '^    -- pid [0-9]+, user stack:$'
EXPECT   count_user_frames: eq 'inner_fn outer_fn main' \
         "$(sed -n '/^    -- pid/,$p' "$OUT" | sed -n '2,4p' | sed "s/^ *//; s|^\([a-z_]*\)+0x[0-9a-f]* ($prog)\$|\1|" | joined)"
EXPECT   count_kernel_first: text '^    (do_syscall_64|entry_SYSCALL_64[a-z_]*)\+0x' "$(sed '/^    -- pid/,$d' "$OUT")"
CASE
ks_case <<'CASE'
NAME     folded
BEFORE   prog_waits folded
RUN      --count -s --ustack --folded "sys:openat(return < 0)" -p "$pid" 6>&-
WORKLOAD prog_go -c
EXPECT   folded_exits_0: exit 0
EXPECT   folded_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   folded_line: match "^__libc_start_call_main;main;outer_fn;inner_fn;[^ ]*(entry_SYSCALL_64|do_syscall_64)[^ ]*;sys:openat $N\$"
EXPECT   folded_one_line: eq 1 "$(grep -c . "$OUT")"
CASE
# A process of nobody's whose frame is the symbol "evil;fake;frame" (an
# asm label): ';' only ever separates frames, so it is one frame, ','s.
ks_case <<'CASE'
NAME     evil
BEFORE   PROG_MODE=evil USER_AS=nobody prog_waits evil
RUN      --count --ustack --folded "sys:openat(return < 0)" -p "$pid" 6>&-
WORKLOAD prog_go -c
EXPECT   evil_exits_0: exit 0
EXPECT   evil_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   folded_semicolon_one_frame: match "^__libc_start_call_main;main;evil,fake,frame;outer_fn;inner_fn;sys:openat $N\$"
EXPECT   folded_semicolon_not_split: eq '1 0' "$(grep -c . "$OUT") $(grep -c 'evil;fake' "$OUT")"
CASE
ks_case <<'CASE'
NAME     countj
BEFORE   prog_waits countj
RUN      -j --count --ustack "sys:openat(return < 0)" -p "$pid" 6>&-
WORKLOAD prog_go -c
EXPECT   countj_exits_0: exit 0
EXPECT   countj_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   count_json: eq '["inner_fn","outer_fn","main"]' \
         "$(first count | jq -c '.ustack[0:3] | map(sub("\\+0x[0-9a-f]+ \\(.*\\)$"; ""))')"
EXPECT   count_json_no_kernel_stack: eq "false $N" "$(first count | jq -r '"\(has("stack")) \(.count)"')"
CASE
