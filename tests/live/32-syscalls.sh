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

# Each case runs ksnoop -c $prog while syscall_prog makes its calls
# (run_calls); NAME_exits_0 and NAME_sanitizers (stderr) are its first two
# results.
run_calls() { "$tmp/$prog" "$missing" $N "$existing" $M 9 >/dev/null 2>&1 & PROG_PID=$!; wait $PROG_PID; }

# --- sys:openat(filename, return < 0): the failing opens, exactly ---
ks_case <<'CASE'
NAME     pair
RUN      -c "$prog" 'sys:openat(filename, return < 0)'
WORKLOAD run_calls
EXPECT   pair_exits_0: exit 0
EXPECT   pair_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   pair_events: count $N '<- sys:openat'
EXPECT   pair_failing_name: count $N "^    filename = \"$missing\""
EXPECT   pair_never_existing: count 0 "$existing"
# A return code that is an errno is named (an argument never is).
EXPECT   pair_enoent: count $N '^    return = -2 \(ENOENT\)$'
EXPECT   pair_durations: count $N '<- sys:openat \([0-9.]+ [nuµm]?s\)'
EXPECT   pair_no_entries: count 0 '-> sys:openat'
CASE

# --- -p: the program's own process (it waits for its go) ---
ks_case <<'CASE'
NAME     pid
RUN      -p $$ 'sys:openat(filename, return < 0)'
WORKLOAD "$tmp/$prog" "$missing" $N "$existing" $M >/dev/null 2>&1
WORKLOAD { : <"$missing-of-the-shell"; } 2>/dev/null
EXPECT   pid_exits_0: exit 0
EXPECT   pid_only_ours: count 1 '<- sys:openat'
EXPECT   pid_name: count 1 "filename = \"$missing-of-the-shell\""
CASE

# --- the single events ---
ks_case <<'CASE'
NAME     enter
RUN      -c "$prog" 'tp:syscalls:sys_enter_openat(filename)'
WORKLOAD run_calls
EXPECT   enter_exits_0: exit 0
EXPECT   enter_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   enter_missing: count $N "^    filename = \"$missing\"$"
EXPECT   enter_existing: count $M "^    filename = \"$existing\"$"
CASE
ks_case <<'CASE'
NAME     exit
RUN      -c "$prog" 'tp:syscalls:sys_exit_openat(ret < 0)'
WORKLOAD run_calls
EXPECT   exit_exits_0: exit 0
EXPECT   exit_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   exit_enoent: count $N '^    ret = -2 \(ENOENT\)$'
EXPECT   exit_only_failures: count $N '-> tp:syscalls:sys_exit_openat'
CASE

# --- return codes named, and nothing else: a successful open's fd, a
# negative argument (AT_FDCWD, -100), ret on the entry event's side ---
returned_keys() { events "$OUT" | jq -r 'select(.func == "sys:openat" and .kind == "return" and .values.return >= 0) | .values | keys | join(",")'; }
ks_case <<'CASE'
NAME     named
RUN      -c "$prog" -j 'sys:openat(dfd, filename, return)' 'tp:syscalls:sys_exit_openat(ret)'
WORKLOAD run_calls
EXPECT   named_exits_0: exit 0
EXPECT   named_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   named_fd_seen: eq 1 "$(( $(returned_keys | grep -c .) >= M ))"
EXPECT   named_fd_plain: eq '' "$(returned_keys | grep -v '^return$')"
EXPECT   named_arg_plain: eq '' "$(events "$OUT" | jq -r '.values | keys[] | select(test("errno") and . != "return_errno" and . != "ret_errno")' | sort -u)"
EXPECT   named_dfd: eq -100 "$(events "$OUT" | jq -r 'select(.values.filename == "'"$missing"'") | .values.dfd' | sort -u)"
EXPECT   named_exit_ret: eq "$N ENOENT" \
         "$(events "$OUT" | jq -r 'select(.func == "tp:syscalls:sys_exit_openat" and .values.ret == -2) | .values.ret_errno' | sort | uniq -c | sed 's/^ *//')"
CASE
ks_case <<'CASE'
NAME     named_text
RUN      -c "$prog" 'sys:openat(dfd, filename, return)'
WORKLOAD run_calls
EXPECT   named_text_exits_0: exit 0
EXPECT   named_text_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   named_text_dfd: eq "$(grep -c '^    filename = ' "$OUT")" "$(grep -c '^    dfd = -100$' "$OUT")"
EXPECT   named_text_fd: no_match '^    return = [0-9]+ \('
CASE

# --- globs ---
ks_case <<'CASE'
NAME     glob_events
RUN      -c "$prog" 'tp:syscalls:sys_enter_opena*(filename)'
WORKLOAD run_calls
EXPECT   glob_events_exits_0: exit 0
EXPECT   glob_events_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   glob_events_missing: count $N "^    filename = \"$missing\"$"
CASE
ks_case <<'CASE'
NAME     glob_pair
RUN      -c "$prog" --count 'sys:opena*(return < 0)'
WORKLOAD run_calls
EXPECT   glob_pair_exits_0: exit 0
EXPECT   glob_pair_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   glob_pair_count: match "^ +$N +sys:openat$"
CASE

# --- every system call: 'sys:*' (a glob of more than 16 calls) attaches
# on the raw_syscalls tracepoints, one program and one link for --count,
# each call told by its number; a Ctrl-C prints the table, then detaches
# the link and program.  KSNOOP_FEATURES=-raw_syscalls attaches each
# call's own event (360 links here, a program per number of argument
# words) and must count the same calls.  syscall_prog makes N failing
# and M good openat, a connect, 3 getpid and, on x86-64, 4 getpid as a
# 32-bit task (int 0x80: the ia32 number 20, writev's in the 64-bit
# table), which neither path sees. ---
NSYS=$(ks info 'sys:*' 2>/dev/null | grep -c '^.* sys:')
nprogs() { echo $PROGS | wc -w; }
run_counted() { "$tmp/$prog" "$missing" $N "$existing" $M 9 3 4 >/dev/null 2>&1 & PROG_PID=$!; wait $PROG_PID; }
count_table() { grep -E '^ +[0-9]+ +sys:[a-z0-9_]+$' "$1"; }
# The table of one case, kept for the next: "kept" if it has rows.
keep_table() { count_table "$1" >"$2"; [ -s "$2" ] && echo kept; }
ks_case <<'CASE'
NAME     all_count
RUN      -c "$prog" --count 'sys:*'
WORKLOAD run_counted
TIMEOUT  240
EXPECT   all_count_exits_0: exit 0
EXPECT   all_count_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   all_count_listed: eq 1 "$(( NSYS > 100 ))"
EXPECT   all_count_every_call: stderr "^ksnoop: tracing $NSYS targets;"
EXPECT   all_count_raw: stderr "^ksnoop: sys: [0-9]+ system call\(s\) on raw_syscalls"
EXPECT   all_count_getpid: match "^ +3 +sys:getpid$"
EXPECT   all_count_compat_left_out: no_match "sys:writev$"
EXPECT   all_count_connect: match "^ +1 +sys:connect$"
# Counted, no values: one program, one link (the exit side is not attached).
EXPECT   all_count_one_program: eq 1 "$(nprogs)"
EXPECT   all_count_one_link: eq 1 "$(echo $LINKS | wc -w)"
EXPECT   all_count_progs_gone: eq '' "$(left_progs "$PROGS")"
EXPECT   all_count_links_gone: eq '' "$(still_there link "$LINKS")"
EXPECT   all_count_kept: eq kept "$(keep_table "$OUT" "$tmp/raw.table")"
CASE
export KSNOOP_FEATURES=-raw_syscalls
ks_case <<'CASE'
NAME     all_count_own
RUN      -c "$prog" --count 'sys:*'
WORKLOAD run_counted
TIMEOUT  240
EXPECT   all_count_own_exits_0: exit 0
EXPECT   all_count_own_said: stderr "raw_syscalls no \(KSNOOP_FEATURES\)"
# Counted, no values: a program (and its unused exit twin) per number of
# argument words, 0 to 6; a program a call held 2 x NSYS.
EXPECT   all_count_own_shared: eq 1 "$(( $(nprogs) >= 1 && $(nprogs) <= 14 ))"
EXPECT   all_count_own_same_table: eq "$(cat "$tmp/raw.table")" "$(count_table "$OUT")"
EXPECT   all_count_own_progs_gone: eq '' "$(left_progs "$PROGS")"
EXPECT   all_count_own_links_gone: eq '' "$(still_there link "$LINKS")"
CASE
unset KSNOOP_FEATURES
# -p: the shell's own calls alone (the program it runs is another process).
ks_case <<'CASE'
NAME     all_count_pid
RUN      -p $$ --count 'sys:*'
WORKLOAD run_counted
WORKLOAD { : <"$missing-of-the-shell"; } 2>/dev/null
TIMEOUT  240
EXPECT   all_count_pid_exits_0: exit 0
EXPECT   all_count_pid_raw: stderr "^ksnoop: sys: [0-9]+ system call\(s\) on raw_syscalls"
EXPECT   all_count_pid_openat: match "^ +[0-9]+ +sys:openat$"
EXPECT   all_count_pid_not_the_child: no_match "sys:(connect|socket)$"
CASE
# A glob printed on raw_syscalls (KSNOOP_SYS_RAW_MIN=0: any glob goes
# there) prints what its calls' own events print: the failing opens,
# their names and returns, byte for byte but for the time, CPU and ids.
printed() { sed -E 's/^[0-9:.]+ +//; s/^cpu[0-9]+ +[^ ]+ +[0-9]+\/[0-9]+ +//; s/ \([0-9.]+ [nuµm]?s\)$//' "$1"; }
keep_printed() { printed "$1" >"$2"; [ -s "$2" ] && echo kept; }
export KSNOOP_SYS_RAW_MIN=0
ks_case <<'CASE'
NAME     raw_printed
RUN      -c "$prog" 'sys:open*(filename, return < 0)'
WORKLOAD run_calls
EXPECT   raw_printed_exits_0: exit 0
EXPECT   raw_printed_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   raw_printed_raw: stderr "^ksnoop: sys: [1-9][0-9]* system call\(s\) on raw_syscalls \(a glob of more than 0 calls in at most [0-9]+ programs\), 0 on their own events"
EXPECT   raw_printed_failing_opens: count $N "^    filename = \"$missing\"$"
EXPECT   raw_printed_enoent: count $N '^    return = -2 \(ENOENT\)$'
EXPECT   raw_printed_kept: eq kept "$(keep_printed "$OUT" "$tmp/raw.printed")"
CASE
unset KSNOOP_SYS_RAW_MIN
export KSNOOP_FEATURES=-raw_syscalls
ks_case <<'CASE'
NAME     own_printed
RUN      -c "$prog" 'sys:open*(filename, return < 0)'
WORKLOAD run_calls
EXPECT   own_printed_exits_0: exit 0
EXPECT   own_printed_failing_opens: count $N "^    filename = \"$missing\"$"
EXPECT   own_printed_same: eq "$(cat "$tmp/raw.printed")" "$(printed "$OUT")"
CASE
unset KSNOOP_FEATURES
# Every call printed, -L: each call's entry values wait in the stash for
# its return, as many as it has.  On raw_syscalls that is one program per
# side for the calls with arguments and one for those without (their
# values per call in func_values), where each call's own events needed a
# program per plan (112 here); the opens print the same either way.
opens() { printed "$1" | awk '/^<- sys:/ { keep = /^<- sys:openat$/ } keep'; }
keep_opens() { opens "$1" >"$2"; [ -s "$2" ] && echo kept; }
ks_case <<'CASE'
NAME     all_printed
RUN      -c "$prog" -L 1ns 'sys:*'
WORKLOAD run_calls
TIMEOUT  240
EXPECT   all_printed_exits_0: exit 0
EXPECT   all_printed_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   all_printed_raw: stderr "^ksnoop: sys: [1-9][0-9]* system call\(s\) on raw_syscalls \(.*\), [0-9]+ on their own events \(0 of a glob of more programs"
EXPECT   all_printed_few_programs: eq 1 "$(( $(nprogs) >= 2 && $(nprogs) <= 4 ))"
EXPECT   all_printed_few_links: eq 1 "$(( $(echo $LINKS | wc -w) <= 4 ))"
EXPECT   all_printed_failing_opens: count $N "^    filename = \"$missing\"$"
EXPECT   all_printed_progs_gone: eq '' "$(left_progs "$PROGS")"
EXPECT   all_printed_links_gone: eq '' "$(still_there link "$LINKS")"
EXPECT   all_printed_kept: eq kept "$(keep_opens "$OUT" "$tmp/raw.opens")"
CASE
export KSNOOP_FEATURES=-raw_syscalls
ks_case <<'CASE'
NAME     all_printed_own
RUN      -c "$prog" -L 1ns 'sys:*'
WORKLOAD run_calls
TIMEOUT  240
EXPECT   all_printed_own_exits_0: exit 0
EXPECT   all_printed_own_same: eq "$(cat "$tmp/raw.opens")" "$(opens "$OUT")"
CASE
unset KSNOOP_FEATURES
# Bad KSNOOP_SYS_RAW_MIN: one line, exit 2.
out=$(KSNOOP_SYS_RAW_MIN=many ks --count 'sys:*' 2>&1); rc=$?
error_is sys_raw_min_bad 2 "^ksnoop: KSNOOP_SYS_RAW_MIN: 'many' is not a number of calls \(0 or more\)$" "$rc" "$out" "KSNOOP_SYS_RAW_MIN=many"
# Events: a program per plan (values differ: fewer share), every link gone.
NAT=$(ks info 'sys:*at' 2>/dev/null | grep -c '^.* sys:')
ks_case <<'CASE'
NAME     at_events
RUN      -c "$prog" 'sys:*at'
WORKLOAD run_calls
TIMEOUT  120
EXPECT   at_events_exits_0: exit 0
EXPECT   at_events_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   at_events_every_call: stderr "^ksnoop: tracing $NAT targets;"
EXPECT   at_events_failing_opens: count $N "^    filename = \"$missing\""
EXPECT   at_events_fewer_programs: eq 1 "$(( $(nprogs) < 2 * NAT ))"
EXPECT   at_events_progs_gone: eq '' "$(left_progs "$PROGS")"
EXPECT   at_events_links_gone: eq '' "$(still_there link "$LINKS")"
CASE

# --- --hist of durations, -L ---
ks_case <<'CASE'
NAME     hist
RUN      -c "$prog" --hist 'sys:openat(return < 0)'
WORKLOAD run_calls
EXPECT   hist_exits_0: exit 0
EXPECT   hist_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   hist_header: match "^sys:openat: duration \\($N calls\\)$"
CASE
ks_case <<'CASE'
NAME     min_duration
RUN      -c "$prog" -L 1ns 'sys:openat(filename, return < 0)'
WORKLOAD run_calls
EXPECT   min_duration_exits_0: exit 0
EXPECT   min_duration_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   min_duration_all: count $N "filename = \"$missing\""
CASE

# --- a struct pointer argument, cast and formatted ---
ks_case <<'CASE'
NAME     connect
RUN      -c "$prog" 'sys:connect(((struct sockaddr_in *)uservaddr)->sin_port:be, ((struct sockaddr_in *)uservaddr)->sin_addr:ip, return)'
WORKLOAD run_calls
EXPECT   connect_exits_0: exit 0
EXPECT   connect_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   connect_port: count 1 '^    \(\(struct sockaddr_in \*\)uservaddr\)->sin_port:be = 9$'
EXPECT   connect_addr: count 1 '^    \(\(struct sockaddr_in \*\)uservaddr\)->sin_addr:ip = 127\.0\.0\.1$'
EXPECT   connect_refused: count 1 '^    return = -111 \(ECONNREFUSED\)$'
CASE

# --- -j: NDJSON that parses ---
ks_case <<'CASE'
NAME     json
RUN      -c "$prog" -j 'sys:openat(filename, return < 0)'
WORKLOAD run_calls
EXPECT   json_exits_0: exit 0
EXPECT   json_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   json_parses: json
EXPECT   json_events: eq $N "$(events "$OUT" | wc -l)"
EXPECT   json_filename: eq "$missing" "$(events "$OUT" | jq -r '.values.filename' | sort -u)"
EXPECT   json_return: eq -2 "$(events "$OUT" | jq -r '.values.return' | sort -u)"
# JSON keeps the number and names it beside: "return_errno".
EXPECT   json_return_errno: eq "$N number ENOENT" \
         "$(events "$OUT" | jq -r '"\(.values.return | type) \(.values.return_errno)"' | sort | uniq -c | sed 's/^ *//')"
EXPECT   json_kind: eq return "$(events "$OUT" | jq -r '.kind' | sort -u)"
EXPECT   json_summary: eq summary "$(tail -1 "$OUT" | jq -r .type)"
EXPECT   nothing_left: eq '' "$(left_progs "$PROGS")"
CASE

# --- ':strv': execve's argv as a list of strings (execsnoop).  An env of
# our own name makes the calls (-c selects them): an argument with a
# newline, a quote and a control byte, an empty one; 25 arguments (20 are
# kept); one of 300 bytes (255 are kept). ---
execer=ksexec$$
cp "$(command -v env)" "$tmp/$execer"
long=$(printf 'x%.0s' $(seq 300))
run_execs() {
	"$tmp/$execer" -- /bin/true a $'b\n"c\x01' '' d
	"$tmp/$execer" -- /bin/true $(seq 25)
	"$tmp/$execer" -- /bin/true "$long" y
}
strv_many='"/bin/true"'
for i in $(seq 19); do strv_many="$strv_many, \"$i\""; done
strv_want=$(printf '%s\n' \
	'    argv:strv = ["/bin/true", "a", "b\n\"c\x01", "", "d"]' \
	"    argv:strv = [$strv_many ...] /* truncated after 20 strings */" \
	"    argv:strv = [\"/bin/true\", \"${long:0:255}\"..., \"y\"] /* 1 cut at 255 bytes */")
ks_case <<'CASE'
NAME     strv
RUN      -c "$execer" 'sys:execve(filename, argv:strv)'
WORKLOAD run_execs
EXPECT   strv_exits_0: exit 0
EXPECT   strv_sanitizers: eq '' "$(grep -E 'Sanitizer|runtime error' "$ERR")"
EXPECT   strv_lists: eq "$strv_want" "$(grep -F 'argv:strv = ' "$OUT")"
EXPECT   strv_filename: count 3 '^    filename = "/bin/true"$'
CASE
ks_case <<'CASE'
NAME     strv_json
RUN      -j -c "$execer" 'sys:execve(argv:strv)'
WORKLOAD run_execs
EXPECT   strv_json_parses: json
EXPECT   strv_json_first: eq '["/bin/true","a","b\n\"c\u0001","","d"]' "$(events "$OUT" | jq -c '.values["argv:strv"]' | head -1)"
EXPECT   strv_json_counts: eq '5 20 3' "$(events "$OUT" | jq -r '.values["argv:strv"] | length' | joined)"
EXPECT   strv_json_truncated: eq 'null strings bytes' "$(events "$OUT" | jq -r '.values["argv:strv_truncated"]' | joined)"
CASE
# A record file keeps the format: report prints the same lists.
ks_case <<'CASE'
NAME     strv_recorded
RUN      record -o "$tmp/strv.ksr" -c "$execer" 'sys:execve(filename, argv:strv)'
WORKLOAD run_execs
EXPECT   strv_recorded_lists: eq "$strv_want" "$("$KSNOOP" report "$tmp/strv.ksr" 2>/dev/null | grep -F 'argv:strv = ')"
EXPECT   strv_recorded_json: eq '5 20 3' "$("$KSNOOP" report -j "$tmp/strv.ksr" 2>/dev/null | jq -r 'select(.type == "event") | .values["argv:strv"] | length' | joined)"
CASE
