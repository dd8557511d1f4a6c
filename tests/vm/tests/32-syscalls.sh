#!/bin/sh
# System calls from tracefs (tp:syscalls:..., sys:NAME) on each kernel:
# the same specs and output as live/32-syscalls.sh natively.  Needs
# syscall_prog (tests/usdt/syscall_prog.c) in the VM.
. /tests/lib.sh

tmp=$(mktemp -d)
missing=$tmp/missing-file
existing=$tmp/existing-file
: >"$existing"
if ! command -v syscall_prog >/dev/null; then
	fail syscall_program "syscall_prog is not in the VM (--bin build/usdt/syscall_prog)"
	exit 0
fi

expect_eq info_enter "tp:syscalls:sys_enter_openat(int dfd, const char *filename, int flags, umode_t mode);" \
	"$(ksnoop info tp:syscalls:sys_enter_openat 2>&1)"
expect_eq info_pair "long int sys:openat(int dfd, const char *filename, int flags, umode_t mode);" \
	"$(ksnoop info sys:openat 2>&1)"

if start "$tmp/o1" "$tmp/e1" -c syscall_prog 'sys:openat(filename, return < 0)'; then
	syscall_prog "$missing" 3 "$existing" 2 >/dev/null 2>&1
	stop
	expect_eq pair_exit_status 0 "$RC"
	# The dynamic loader's own failed opens (search paths the VM lacks)
	# come too: every event a -2, three of them ours.
	expect_eq pair_name 3 "$(grep -c "^    filename = \"$missing\"" "$tmp/o1")"
	expect_eq pair_enoent "$(grep -c -- '<- sys:openat' "$tmp/o1")" "$(grep -c '^    return = -2 (ENOENT)$' "$tmp/o1")"
	expect_eq pair_never_existing 0 "$(grep -c "$existing" "$tmp/o1")"
else
	fail pair_attach "$(cat "$tmp/e1")"
fi

if start "$tmp/o2" "$tmp/e2" -c syscall_prog 'tp:syscalls:sys_exit_openat(ret < 0)'; then
	syscall_prog "$missing" 3 "$existing" 2 >/dev/null 2>&1
	stop
	# The same failed opens as sys:openat's above.
	expect_eq exit_event_enoent "$(grep -c -- '<- sys:openat' "$tmp/o1")" "$(grep -c '^    ret = -2 (ENOENT)$' "$tmp/o2")"
	expect_eq exit_event_only_failures "$(grep -c '^    ret = -2 (ENOENT)$' "$tmp/o2")" \
		"$(grep -c -- '-> tp:syscalls:sys_exit_openat$' "$tmp/o2")"
else
	fail exit_event_attach "$(cat "$tmp/e2")"
fi

if start "$tmp/o3" "$tmp/e3" -c syscall_prog \
	'sys:connect(((struct sockaddr_in *)uservaddr)->sin_port:be, ((struct sockaddr_in *)uservaddr)->sin_addr:ip, return)'; then
	syscall_prog "$missing" 0 "$existing" 0 9 >/dev/null 2>&1
	stop
	expect_eq connect_port 1 "$(grep -c '^    ((struct sockaddr_in \*)uservaddr)->sin_port:be = 9$' "$tmp/o3")"
	expect_eq connect_addr 1 "$(grep -c '^    ((struct sockaddr_in \*)uservaddr)->sin_addr:ip = 127.0.0.1$' "$tmp/o3")"
	expect_eq connect_refused 1 "$(grep -c '^    return = -111 (ECONNREFUSED)$' "$tmp/o3")"
else
	fail connect_attach "$(cat "$tmp/e3")"
fi
rm -rf "$tmp"
