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

# The raw_syscalls path (a sys: glob of more than KSNOOP_SYS_RAW_MIN
# calls; 0: any glob): the arguments from the task's registers, where
# this architecture passes them (x86-64 di si dx..., arm64 orig_x0 x1...),
# and the number told apart per call.
export KSNOOP_SYS_RAW_MIN=0
ks_case <<'CASE'
NAME     raw_pair
RUN      -c syscall_prog 'sys:opena*(dfd, filename, flags, return < 0)'
WORKLOAD syscall_prog "$missing" 3 "$existing" 2 >/dev/null 2>&1
EXPECT   raw_pair_exit_status: exit 0
EXPECT   raw_pair_raw: stderr '^ksnoop: sys: [1-9][0-9]* system call\(s\) on raw_syscalls'
EXPECT   raw_pair_name: count 3 "^    filename = \"$missing\""
EXPECT   raw_pair_dfd: eq "$(grep -c '^    filename = ' "$OUT")" "$(grep -c '^    dfd = -100$' "$OUT")"
EXPECT   raw_pair_enoent: eq "$(grep -c -- '<- sys:openat' "$pair_out")" "$(grep -c '^    return = -2 (ENOENT)$' "$OUT")"
EXPECT   raw_pair_never_existing: count 0 "$existing"
CASE
unset KSNOOP_SYS_RAW_MIN
# Every call counted on raw_syscalls: syscall_prog's 3 getpid exactly,
# and (x86-64) none of the 4 it makes as a 32-bit task (int 0x80: ia32
# number 20, writev's in the 64-bit table).
ks_case <<'CASE'
NAME     raw_count
RUN      -c syscall_prog --count 'sys:*'
WORKLOAD syscall_prog "$missing" 3 "$existing" 2 9 3 4 >/dev/null 2>&1
TIMEOUT  600
EXPECT   raw_count_exit_status: exit 0
EXPECT   raw_count_raw: stderr '^ksnoop: sys: [1-9][0-9]* system call\(s\) on raw_syscalls'
EXPECT   raw_count_getpid: match '^ +3 +sys:getpid$'
EXPECT   raw_count_connect: match '^ +1 +sys:connect$'
EXPECT   raw_count_no_compat: no_match 'sys:writev$'
CASE
# Every call printed on raw_syscalls: one program whatever each call's
# values (func_values per number), and with -L each call's entry values
# kept in the stash for its return, as many as it has.  The verifier of
# each kernel takes the per-call values and the retried user reads.
ks_case <<'CASE'
NAME     raw_printed
RUN      -c syscall_prog 'sys:*'
WORKLOAD syscall_prog "$missing" 3 "$existing" 2 >/dev/null 2>&1
TIMEOUT  600
EXPECT   raw_printed_exit_status: exit 0
EXPECT   raw_printed_raw: stderr '^ksnoop: sys: [1-9][0-9]* system call\(s\) on raw_syscalls \(.*\), [0-9]+ on their own events \(0 of a glob of more programs'
EXPECT   raw_printed_name: count 3 "^    filename = \"$missing\"$"
EXPECT   raw_printed_enoent: match '^    return = -2 \(ENOENT\)$'
CASE
ks_case <<'CASE'
NAME     raw_stashed
RUN      -c syscall_prog -L 1ns 'sys:*'
WORKLOAD syscall_prog "$missing" 3 "$existing" 2 >/dev/null 2>&1
TIMEOUT  600
EXPECT   raw_stashed_exit_status: exit 0
EXPECT   raw_stashed_raw: stderr '^ksnoop: sys: [1-9][0-9]* system call\(s\) on raw_syscalls \(.*\), [0-9]+ on their own events \(0 of a glob of more programs'
EXPECT   raw_stashed_name: count 3 "^    filename = \"$missing\"$"
EXPECT   raw_stashed_one_event: eq 0 "$(grep -c -- '^.* -> sys:openat$' "$OUT")"
EXPECT   raw_stashed_with_return: eq 3 "$(awk -v f="    filename = \"$missing\"" '$0 == f { m = 1 } /^    return = -2 \(ENOENT\)$/ { n += m; m = 0 } /^[^ ]/ { m = 0 } END { print n + 0 }' "$OUT")"
CASE
rm -rf "$tmp"
