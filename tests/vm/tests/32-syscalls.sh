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

# The dynamic loader's own failed opens (search paths the VM lacks) come
# too: every event a -2, three of them ours.
ks_case <<'CASE'
NAME     pair
RUN      -c syscall_prog 'sys:openat(filename, return < 0)'
WORKLOAD syscall_prog "$missing" 3 "$existing" 2 >/dev/null 2>&1
EXPECT   pair_exit_status: exit 0
EXPECT   pair_name: count 3 "^    filename = \"$missing\""
EXPECT   pair_enoent: eq "$(grep -c -- '<- sys:openat' "$OUT")" "$(grep -c '^    return = -2 (ENOENT)$' "$OUT")"
EXPECT   pair_never_existing: count 0 "$existing"
CASE
pair_out=$OUT

# The same failed opens as sys:openat's above.
ks_case <<'CASE'
NAME     exit_event
RUN      -c syscall_prog 'tp:syscalls:sys_exit_openat(ret < 0)'
WORKLOAD syscall_prog "$missing" 3 "$existing" 2 >/dev/null 2>&1
EXPECT   exit_event_enoent: eq "$(grep -c -- '<- sys:openat' "$pair_out")" "$(grep -c '^    ret = -2 (ENOENT)$' "$OUT")"
EXPECT   exit_event_only_failures: eq "$(grep -c '^    ret = -2 (ENOENT)$' "$OUT")" \
         "$(grep -c -- '-> tp:syscalls:sys_exit_openat$' "$OUT")"
CASE

ks_case <<'CASE'
NAME     connect
RUN      -c syscall_prog \
         'sys:connect(((struct sockaddr_in *)uservaddr)->sin_port:be, ((struct sockaddr_in *)uservaddr)->sin_addr:ip, return)'
WORKLOAD syscall_prog "$missing" 0 "$existing" 0 9 >/dev/null 2>&1
EXPECT   connect_port: count 1 '^    \(\(struct sockaddr_in \*\)uservaddr\)->sin_port:be = 9$'
EXPECT   connect_addr: count 1 '^    \(\(struct sockaddr_in \*\)uservaddr\)->sin_addr:ip = 127.0.0.1$'
EXPECT   connect_refused: count 1 '^    return = -111 \(ECONNREFUSED\)$'
CASE
rm -rf "$tmp"
