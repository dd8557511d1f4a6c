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

usdt_paths
needs_root ustack
S=$U/ustack_prog
if [ ! -x "$S" ]; then
	fail ustack_program "missing $S (make build/usdt/ustack_prog)"
	exit 0
fi
scratch_dir
chmod 755 "$tmp"
prog=$tmp/ustack_prog
cp "$S" "$prog"
missing=$tmp/missing-file
N=2

refused usdt_refused "^ksnoop: --ustack: a USDT probe's stack \(-s\) is its program's user stack already$" \
	--ustack usdt "$prog:nosuch:probe"
refused hist_refused "^ksnoop: --hist counts by a value: not with --ustack$" --ustack --hist 'sys:openat'

# traced NAME [-x] KSNOOP-ARGS...: ustack_prog waits on a pipe, ksnoop
# traces its pid (@PID in ARGS), the prog makes its N calls and waits for
# the end of the pipe (-x: it exits at once, before ksnoop prints).
# USER: run the prog as that ("nobody": unprivileged).
traced() {
	local name=$1 exits=0 a args=() fifo=$tmp/fifo-$1 pid
	shift
	[ "$1" = -x ] && { exits=1; shift; }
	mkfifo "$fifo"
	if [ "${USER_AS:-}" = nobody ]; then
		"${NOBODY[@]}" "$prog" "$missing" $N ${PROG_MODE:-} <"$fifo" >/dev/null 2>&1 &
	else
		"$prog" "$missing" $N ${PROG_MODE:-} <"$fifo" >/dev/null 2>&1 &
	fi
	pid=$!
	exec 6>"$fifo"
	for a in "$@"; do args+=("${a//@PID/$pid}"); done
	# ksnoop must not hold the pipe open: the prog waits for its end.
	start "$tmp/$name.out" "$tmp/$name.err" "${args[@]}" 6>&- || fail "${name}_attach" "$(cat "$tmp/$name.err")"
	echo go >&6
	[ $exits = 1 ] && exec 6>&-
	# The N events, printed while the prog waits (at most 10 s); counts
	# (COUNTS=1) are printed at exit only.
	[ "${COUNTS:-}" = 1 ] && sleep 1
	for _ in $(seq $([ "${COUNTS:-}" = 1 ] && echo 0 || echo 100)); do
		[ "$(grep -c '^{"type":"event"\|<- sys:openat\|-> tp:syscalls' "$tmp/$name.out")" -ge $N ] && break
		sleep 0.1
	done
	exec 6>&-
	wait "$pid" 2>/dev/null
	stop
	expect_eq "${name}_exits_0" 0 "$RC"
	sanitizer_clean "${name}_sanitizers" "$tmp/$name.err"
}

# --- text: kernel stack, then the user stack, exactly inner_fn, outer_fn, main ---
traced text -s --ustack "sys:openat(filename, return < 0)" -p @PID
o=$tmp/text.out
expect_eq text_events $N "$(grep -c '<- sys:openat' "$o")"
expect_eq text_user_frames "inner_fn outer_fn main" \
	"$(sed -n '/^    ustack = \[$/,/^    \]$/{/^        /p}' "$o" | head -3 |
	   sed "s/^ *//; s/,\$//; s|^\([a-z_]*\)+0x[0-9a-f]* ($prog)\$|\1|" | joined)"
expect_eq text_each_event_has_both "$N $N" \
	"$(grep -c '^    stack = \[$' "$o") $(grep -c '^    ustack = \[$' "$o")"
# Kernel frames first (as -s prints them), then the user stack.
expect_eq text_kernel_then_user "stack ustack" \
	"$(sed -n 's/^    \(u\{0,1\}stack\) = \[$/\1/p' "$o" | head -2 | joined)"
expect_match text_kernel_frames '^        (do_syscall_64|entry_SYSCALL_64[a-z_]*)\+0x[0-9a-f]+,?$' "$(cat "$o")"
expect_no_match text_no_user_in_kernel 'inner_fn|outer_fn' "$(sed -n '/^    stack = \[$/,/^    \]$/p' "$o")"

# --- JSON: "ustack" an array of its own beside "stack"; --ustack alone: no "stack" ---
traced json -j --ustack "sys:openat(filename, return < 0)" -p @PID
expect_eq json_user_frames '["inner_fn","outer_fn","main"]' \
	"$(grep -m1 '^{"type":"event"' "$tmp/json.out" | jq -c '.ustack[0:3] | map(sub("\\+0x[0-9a-f]+ \\(.*\\)$"; ""))')"
expect_eq json_object "\"$prog\"" \
	"$(grep -m1 '^{"type":"event"' "$tmp/json.out" | jq -c '.ustack[0] | capture("\\((?<o>.*)\\)$").o')"
expect_eq json_no_kernel_stack_without_s "false" \
	"$(grep -m1 '^{"type":"event"' "$tmp/json.out" | jq -c 'has("stack")')"
expect_eq json_return "-2" "$(grep -m1 '^{"type":"event"' "$tmp/json.out" | jq -c '.values.return')"

# --- a syscall tracepoint, and a process of another user (nobody) ---
USER_AS=nobody traced tp --ustack "tp:syscalls:sys_enter_openat(filename)" -p @PID
expect_eq tp_events $N "$(grep -c -- '-> tp:syscalls:sys_enter_openat$' "$tmp/tp.out")"
expect_eq tp_user_frames "inner_fn outer_fn main" \
	"$(sed -n '/^    ustack = \[$/,/^    \]$/{/^        /p}' "$tmp/tp.out" | head -3 |
	   sed "s/^ *//; s/,\$//; s|^\([a-z_]*\)+0x[0-9a-f]* ($prog)\$|\1|" | joined)"

# --- the process exits before its events are printed: with -p its maps
# were read at attach, so each of its frames still names the program
# (by symbol, or by offset where its file could no longer be opened) ---
traced gone -x --ustack "sys:openat(return < 0)" -p @PID
expect_eq gone_events $N "$(grep -c '<- sys:openat' "$tmp/gone.out")"
expect_eq gone_frames_name_program 3 \
	"$(sed -n '/^    ustack = \[$/,/^    \]$/{/^        /p}' "$tmp/gone.out" | head -3 |
	   grep -cE "^        ([a-z_]+\+0x[0-9a-f]+ \($prog\)|0x[0-9a-f]+ \($prog\+0x[0-9a-f]+\)),?$")"

# --- the process becomes another program (exec: the same pid, other maps)
# right after its calls: its frames are still named from the maps read at
# attach (by symbol, or by offset once the mapped file is no longer its
# own), never from cat's (whose own failing opens the file name leaves out) ---
PROG_MODE=exec traced execd --ustack "sys:openat(filename == \"$missing\", return < 0)" -p @PID
expect_eq execd_events $N "$(grep -c '<- sys:openat' "$tmp/execd.out")"
expect_eq execd_frames_name_program $((3 * N)) \
	"$(sed -n '/^    ustack = \[$/,/^    \]$/{/^        /p}' "$tmp/execd.out" |
	   grep -cE "^        ([a-z_]+\+0x[0-9a-f]+ \($prog\)|0x[0-9a-f]+ \($prog\+0x[0-9a-f]+\)),?$")"
expect_no_match execd_not_cat 'cat|/usr/bin' "$(sed -n '/^    ustack = \[$/,/^    \]$/p' "$tmp/execd.out")"

# --- --count: per kernel and user stack; folded with the user frames below ---
COUNTS=1 traced count --count -s --ustack "sys:openat(return < 0)" -p @PID
o=$tmp/count.out
expect_eq count_header "sys:openat: $N calls" "$(head -1 "$o")"
expect_match count_pid_line '^    -- pid [0-9]+, user stack:$' "$(cat "$o")"
expect_eq count_user_frames "inner_fn outer_fn main" \
	"$(sed -n '/^    -- pid/,$p' "$o" | sed -n '2,4p' |
	   sed "s/^ *//; s|^\([a-z_]*\)+0x[0-9a-f]* ($prog)\$|\1|" | joined)"
expect_match count_kernel_first '^    (do_syscall_64|entry_SYSCALL_64[a-z_]*)\+0x' "$(sed '/^    -- pid/,$d' "$o")"
COUNTS=1 traced folded --count -s --ustack --folded "sys:openat(return < 0)" -p @PID
expect_match folded_line "^(libc\.so\.6\+0x[0-9a-f]+;)*main;outer_fn;inner_fn;[^ ]*(entry_SYSCALL_64|do_syscall_64)[^ ]*;sys:openat $N\$" \
	"$(cat "$tmp/folded.out")"
expect_eq folded_one_line 1 "$(grep -c . "$tmp/folded.out")"
# A process of nobody's whose frame is the symbol "evil;fake;frame" (an
# asm label): ';' only ever separates frames, so it is one frame, ','s.
PROG_MODE=evil USER_AS=nobody COUNTS=1 traced evil --count --ustack --folded "sys:openat(return < 0)" -p @PID
expect_match folded_semicolon_one_frame "^(libc\.so\.6\+0x[0-9a-f]+;)*main;evil,fake,frame;outer_fn;inner_fn;sys:openat $N\$" \
	"$(cat "$tmp/evil.out")"
expect_eq folded_semicolon_not_split "1 0" "$(grep -c . "$tmp/evil.out") $(grep -c 'evil;fake' "$tmp/evil.out")"
COUNTS=1 traced countj -j --count --ustack "sys:openat(return < 0)" -p @PID
expect_eq count_json '["inner_fn","outer_fn","main"]' \
	"$(grep -m1 '^{"type":"count"' "$tmp/countj.out" | jq -c '.ustack[0:3] | map(sub("\\+0x[0-9a-f]+ \\(.*\\)$"; ""))')"
expect_eq count_json_no_kernel_stack "false $N" \
	"$(grep -m1 '^{"type":"count"' "$tmp/countj.out" | jq -r '"\(has("stack")) \(.count)"')"
