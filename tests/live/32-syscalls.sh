#!/bin/bash
# System calls, live on this kernel (root): typed from tracefs's format
# files, attached as the syscalls:sys_enter_NAME / sys_exit_NAME perf
# tracepoints, which work here though kprobes and fentry do not.
# tp:syscalls:... is one event; sys:NAME pairs them (entry values with the
# return, one event per call).  syscall_prog makes the calls directly:
# openat of a missing file N times (ENOENT) and of an existing one M
# times, then one connect to 127.0.0.1:PORT (refused).
. "$(dirname "$0")/helpers.bash"

usdt_paths
S=$U/syscall_prog

# --- errors: one line, exit 2, as for any spec (no root needed for these
# where tracefs is readable; as root it is mounted for ksnoop alone) ---
needs_root syscalls
if [ ! -x "$S" ]; then
	fail syscall_program "missing $S (make build/usdt/syscall_prog)"
	exit 0
fi
scratch_dir
# A copy named after this run: -c selects our calls alone.
prog=kssys$$
cp "$S" "$tmp/$prog"
missing=$tmp/missing-file
existing=$tmp/existing-file
: >"$existing"
N=3 M=2

refused missing_syscall "unknown system call 'opennat' \(did you mean 'sys:openat'\?\)" \
	'sys:opennat(filename)'
refused missing_event "unknown system call 'opennat' \(did you mean 'tp:syscalls:sys_enter_openat'\?\)" \
	'tp:syscalls:sys_enter_opennat'
refused misspelt_argument \
	"'filenme' is not an argument of sys:openat \(arguments: dfd, filename, flags, mode\)" \
	'sys:openat(filenme)'
refused misspelt_event_argument \
	"'filenme' is not an argument of tp:syscalls:sys_enter_openat \(arguments: dfd, filename, flags, mode\)" \
	'tp:syscalls:sys_enter_openat(filenme)'
refused glob_matches_none "no system call matches 'sys:nosuch\*'" 'sys:nosuch*'
# Nothing in the messages assumes one architecture's syscall wrappers.
expect_no_match no_arch_names '__x64_sys|__arm64_sys' \
	"$(ks 'sys:opennat' 2>&1; ks 'tp:syscalls:sys_enter_opennat' 2>&1)"

# Without tracefs and without the privilege to mount it: one line saying
# how, the machine's failure (exit 1).  In a mount namespace without
# tracefs (the machine's own may have it), as nobody.
PLAIN=${KSNOOP_PLAIN:-$(dirname "$K")/../ksnoop}
err=$(cd / && timeout -k 2 20 unshare -m --propagation private sh -c \
	'for m in $(awk '\''$3 == "tracefs" || $3 == "debugfs" { print $2 }'\'' /proc/self/mounts | sort -r); do umount -l "$m" || exit 125; done; exec "$@"' \
	sh "${NOBODY[@]}" "$PLAIN" info sys:openat 2>&1 >/dev/null); rc=$?
error_is no_tracefs_no_mount 1 "^ksnoop: spec 'sys:openat': system calls are described in tracefs, which is not mounted and cannot be mounted here \(mount -t tracefs tracefs /sys/kernel/tracing\)$" \
	"$rc" "$err" "as nobody without tracefs"

# --- info: typed prototypes, text and JSON ---
out=$(ks info tp:syscalls:sys_enter_openat 2>&1)
expect_eq info_enter "tp:syscalls:sys_enter_openat(int dfd, const char *filename, int flags, umode_t mode);" "$out"
expect_eq info_exit "tp:syscalls:sys_exit_openat(long int ret);" "$(ks info tp:syscalls:sys_exit_openat 2>&1)"
expect_eq info_pair "long int sys:openat(int dfd, const char *filename, int flags, umode_t mode);" \
	"$(ks info sys:openat 2>&1)"
expect_match info_struct_pointer 'struct sockaddr \*uservaddr' "$(ks info sys:connect 2>&1)"
out=$(ks -j info tp:syscalls:sys_enter_openat 2>/dev/null)
expect_eq info_json_filename "const char *" "$(printf '%s\n' "$out" | jq -r '.params[] | select(.name == "filename") | .type')"
expect_eq info_glob "tp:syscalls:sys_enter_open tp:syscalls:sys_enter_openat" \
	"$(ks info 'tp:syscalls:sys_enter_open*' 2>&1 | sed -n 's/^\(tp:syscalls:sys_enter_open\(at\)\?\)(.*/\1/p' | joined)"
# The system's mounts stay as they were.
expect_eq mounts_unchanged "$(grep -c tracefs /proc/self/mounts)" \
	"$(ks info sys:openat >/dev/null 2>&1; grep -c tracefs /proc/self/mounts)"

# run_prog NAME ARGS...: ksnoop ARGS while syscall_prog makes its calls.
run_prog() {
	local name=$1
	shift
	start "$tmp/$name.out" "$tmp/$name.err" -c "$prog" "$@" || fail "${name}_attach" "$(cat "$tmp/$name.err")"
	"$tmp/$prog" "$missing" $N "$existing" $M 9 >/dev/null 2>&1 &
	PROG_PID=$!
	wait $PROG_PID
	stop
	expect_eq "${name}_exits_0" 0 "$RC"
	sanitizer_clean "${name}_sanitizers" "$tmp/$name.err"
}

# --- sys:openat(filename, return < 0): the failing opens, exactly ---
run_prog pair 'sys:openat(filename, return < 0)'
o=$(cat "$tmp/pair.out")
expect_eq pair_events $N "$(grep -c -- "<- sys:openat" <<<"$o")"
expect_eq pair_failing_name $N "$(grep -c "^    filename = \"$missing\"" <<<"$o")"
expect_eq pair_never_existing 0 "$(grep -c "$existing" <<<"$o")"
# A return code that is an errno is named (an argument never is).
expect_eq pair_enoent $N "$(grep -c '^    return = -2 (ENOENT)$' <<<"$o")"
expect_eq pair_durations $N "$(grep -Ec -- '<- sys:openat \([0-9.]+ [nuµm]?s\)' <<<"$o")"
expect_eq pair_no_entries 0 "$(grep -c -- '-> sys:openat' <<<"$o")"

# --- -p: the program's own process (it waits for its go) ---
start "$tmp/pid.out" "$tmp/pid.err" -p $$ 'sys:openat(filename, return < 0)' ||
	fail pid_attach "$(cat "$tmp/pid.err")"
"$tmp/$prog" "$missing" $N "$existing" $M >/dev/null 2>&1
: <"$missing-of-the-shell" 2>/dev/null
stop
expect_eq pid_exits_0 0 "$RC"
expect_eq pid_only_ours 1 "$(grep -c -- "<- sys:openat" "$tmp/pid.out")"
expect_eq pid_name 1 "$(grep -c "filename = \"$missing-of-the-shell\"" "$tmp/pid.out")"

# --- the single events ---
run_prog enter 'tp:syscalls:sys_enter_openat(filename)'
expect_eq enter_missing $N "$(grep -c "^    filename = \"$missing\"$" "$tmp/enter.out")"
expect_eq enter_existing $M "$(grep -c "^    filename = \"$existing\"$" "$tmp/enter.out")"
run_prog exit 'tp:syscalls:sys_exit_openat(ret < 0)'
expect_eq exit_enoent $N "$(grep -c '^    ret = -2 (ENOENT)$' "$tmp/exit.out")"
expect_eq exit_only_failures $N "$(grep -c -- '-> tp:syscalls:sys_exit_openat' "$tmp/exit.out")"

# --- return codes named, and nothing else: a successful open's fd, a
# negative argument (AT_FDCWD, -100), ret on the entry event's side ---
run_prog named -j 'sys:openat(dfd, filename, return)' 'tp:syscalls:sys_exit_openat(ret)'
fds=$(events "$tmp/named.out" | jq -r 'select(.func == "sys:openat" and .kind == "return" and .values.return >= 0) | .values | keys | join(",")')
expect_eq named_fd_seen 1 "$(( $(grep -c . <<<"$fds") >= M ))"
expect_eq named_fd_plain "" "$(grep -v '^return$' <<<"$fds")"
expect_eq named_arg_plain "" "$(events "$tmp/named.out" | jq -r '.values | keys[] | select(test("errno") and . != "return_errno" and . != "ret_errno")' | sort -u)"
expect_eq named_dfd "-100" "$(events "$tmp/named.out" | jq -r 'select(.values.filename == "'"$missing"'") | .values.dfd' | sort -u)"
expect_eq named_exit_ret "$N ENOENT" \
	"$(events "$tmp/named.out" | jq -r 'select(.func == "tp:syscalls:sys_exit_openat" and .values.ret == -2) | .values.ret_errno' | sort | uniq -c | sed 's/^ *//')"
run_prog named_text 'sys:openat(dfd, filename, return)'
expect_eq named_text_dfd "$(grep -c '^    filename = ' "$tmp/named_text.out")" "$(grep -c '^    dfd = -100$' "$tmp/named_text.out")"
expect_eq named_text_fd "" "$(grep -E '^    return = [0-9]+ \(' "$tmp/named_text.out")"

# --- globs ---
run_prog glob_events 'tp:syscalls:sys_enter_opena*(filename)'
expect_eq glob_events_missing $N "$(grep -c "^    filename = \"$missing\"$" "$tmp/glob_events.out")"
run_prog glob_pair --count 'sys:opena*(return < 0)'
expect_match glob_pair_count "^ +$N +sys:openat$" "$(cat "$tmp/glob_pair.out")"

# --- --hist of durations, -L ---
run_prog hist --hist 'sys:openat(return < 0)'
expect_match hist_header "^sys:openat: duration \($N calls\)$" "$(cat "$tmp/hist.out")"
run_prog min_duration -L 1ns 'sys:openat(filename, return < 0)'
expect_eq min_duration_all $N "$(grep -c "filename = \"$missing\"" "$tmp/min_duration.out")"

# --- a struct pointer argument, cast and formatted ---
run_prog connect 'sys:connect(((struct sockaddr_in *)uservaddr)->sin_port:be, ((struct sockaddr_in *)uservaddr)->sin_addr:ip, return)'
expect_eq connect_port 1 "$(grep -c '^    ((struct sockaddr_in \*)uservaddr)->sin_port:be = 9$' "$tmp/connect.out")"
expect_eq connect_addr 1 "$(grep -c '^    ((struct sockaddr_in \*)uservaddr)->sin_addr:ip = 127.0.0.1$' "$tmp/connect.out")"
expect_eq connect_refused 1 "$(grep -c '^    return = -111 (ECONNREFUSED)$' "$tmp/connect.out")"

# --- -j: NDJSON that parses ---
run_prog json -j 'sys:openat(filename, return < 0)'
if jq -e . "$tmp/json.out" >/dev/null 2>&1; then pass json_parses; else fail json_parses "$(cat "$tmp/json.out")"; fi
expect_eq json_events $N "$(events "$tmp/json.out" | wc -l)"
expect_eq json_filename "$missing" "$(events "$tmp/json.out" | jq -r '.values.filename' | sort -u)"
expect_eq json_return "-2" "$(events "$tmp/json.out" | jq -r '.values.return' | sort -u)"
# JSON keeps the number and names it beside: "return_errno".
expect_eq json_return_errno "$N number ENOENT" \
	"$(events "$tmp/json.out" | jq -r '"\(.values.return | type) \(.values.return_errno)"' | sort | uniq -c | sed 's/^ *//')"
expect_eq json_kind "return" "$(events "$tmp/json.out" | jq -r '.kind' | sort -u)"
expect_eq json_summary summary "$(tail -1 "$tmp/json.out" | jq -r .type)"

expect_eq nothing_left "" "$(left_progs "$PROGS")"
