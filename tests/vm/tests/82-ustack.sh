#!/bin/sh
# --ustack at a kernel function, in both attach modes: the user stack of
# the task that called it, named from its program's symbols.  ustack_prog
# (tests/usdt/ustack_prog.c, frame pointers kept) opens a missing file
# from main -> outer_fn -> inner_fn and lingers until the event (or count)
# is printed, so that its maps are still there; its dynamic loader's
# failing opens are left out by the predicate on the file name.
. /tests/lib.sh

if ! command -v ustack_prog >/dev/null; then
	fail ustack_program "ustack_prog is not in the VM (--bin build/usdt/ustack_prog)"
	exit 0
fi
tmp=$(mktemp -d)
# linger_until_printed MISSING: ustack_prog opens MISSING once and waits
# on its stdin until ksnoop has printed a line (bounded by wait_lines),
# so that its maps are there when its frames are named (an event is
# written in one write: its first line comes with its last).  A fixed 3 s
# linger was not enough under load on 6.12 (frames in hex, the program
# gone), for events and counts alike.  A helper, not
# WORKLOAD lines: a fifo held open across the steps.
linger_until_printed() {
	rm -f "$tmp/go"
	mkfifo "$tmp/go"
	ustack_prog "$1" 1 <"$tmp/go" &
	_up=$!
	exec 8>"$tmp/go"
	echo go >&8
	wait_lines "$OUT" 1 60
	echo done >&8
	exec 8>&-
	wait "$_up"
}
for mode in fentry kprobe; do
	T=$mode
	ks_case <<-'CASE'
		NAME     ${T}_ustack
		RUN      --mode $mode -s --ustack -c ustack_prog "do_sys_openat2(filename == \"/nonexistent-ustack-$mode\", return < 0)"
		WORKLOAD linger_until_printed /nonexistent-ustack-$mode
		EXPECT   ${T}_ustack_event: count 1 '^    filename = "/nonexistent-ustack-'$mode'"$'
		EXPECT   ${T}_ustack_frames: eq 'inner_fn outer_fn main' \
		         "$(sed -n '/^    ustack = \[$/,/^    \]$/p' "$OUT" | sed -n '2,4p' | \
		            sed 's/^ *\([a-z_]*\)+0x[0-9a-f]* (\/usr\/bin\/ustack_prog),$/\1/' | tr '\n' ' ' | sed 's/ $//')"
		EXPECT   ${T}_ustack_after_kernel: eq 'stack ustack' \
		         "$(sed -n 's/^    \(u\{0,1\}stack\) = \[$/\1/p' "$OUT" | tr '\n' ' ' | sed 's/ $//')"
		EXPECT   ${T}_kernel_stack_caller: match '^        (do_sys_open|__x64_sys_openat|do_syscall_64)[a-z_0-9]*\+0x'
	CASE
	ks_case <<-'CASE'
		NAME     ${T}_ustack_json
		RUN      --mode $mode -j --ustack -c ustack_prog "do_sys_openat2(filename == \"/nonexistent-ustack-j$mode\", return < 0)"
		WORKLOAD linger_until_printed /nonexistent-ustack-j$mode
		EXPECT   eq '["inner_fn","outer_fn","main"]' \
		         "$(jq -c 'select(.type == "event") | .ustack[0:3] | map(sub("\\+0x[0-9a-f]+ \\(/usr/bin/ustack_prog\\)$"; ""))' "$OUT" | head -1)"
	CASE
	# --count per user stack, folded below the kernel's; printed every
	# 300 ms, while the program lingers (its frames are named then): it
	# waits until the count is printed, not a fixed 3 s (6.12 under load
	# printed it after the program had gone: frames in hex).
	ks_case <<-'CASE'
		NAME     ${T}_ustack_folded
		RUN      --mode $mode --count -s --ustack --folded --interval 300ms -c ustack_prog "do_sys_openat2(filename == \"/nonexistent-ustack-f$mode\", return < 0)"
		WORKLOAD linger_until_printed /nonexistent-ustack-f$mode
		EXPECT   match '^([^;]*;)*main;outer_fn;inner_fn;[^ ]*do_syscall_64[^ ]*;do_sys_openat2 1$'
	CASE
done
rm -rf "$tmp"
