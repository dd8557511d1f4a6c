#!/bin/sh
# vm-timeout: 1800
# (281 s at load 1-4; 905 s and killed at 900 in s69's clean clone, 7.3,
# four guests and the live tests on two cores at load 7-8.)
# Call trees (--tree, issue #28): a session per task from the root's entry
# to its return; inner calls recorded with depth, duration and return;
# printed only when the root's return predicates hold; the first failing
# call marked.  Workload: busybox cat on 3 missing paths and 2 that exist
# (a successful open prints nothing), and mkdir (mode 0777) of an existing directory
# (EEXIST from filename_create) next to one that does not exist yet.
# The inner functions are in available_filter_functions on 6.1 and 6.12
# (link_path_walk and open_last_lookups are inlined on 6.1).
. /tests/lib.sh

tmp=$(mktemp -d)
mkdir -p "$tmp/there"

open_some() {
	cat /nope1 /nope2/x /nope3 /proc/version /proc/self/stat >/dev/null 2>&1
	for f in /nope1 /nope2/x /nope3 /proc/version /proc/self/stat; do
		cat "$f" >/dev/null 2>&1
	done
}

# maps_now: tree_buf and sessions, how many entries the tree's maps hold now.
maps_now() {
	tree_buf=$(bpftool -j map dump name tree_buf 2>/dev/null | jq length)
	sessions=$(bpftool -j map dump name sessions 2>/dev/null | jq length)
}
# kill_asleep: vmprog asleep (a session open), then SIGTERM: killed once it
# is vmprog asleep, not a second after it started (under TCG on a loaded
# host it may not have exec'ed by then).  Bounded by count.
kill_asleep() {
	vmprog sleep 20000 &
	_v=$!
	_i=0
	while [ $_i -lt 600 ] && ! { [ "$(cat /proc/$_v/comm 2>/dev/null)" = vmprog ] &&
		grep -q '^State:.*S' /proc/$_v/status 2>/dev/null; }; do
		sleep 0.05
		_i=$((_i + 1))
	done
	kill "$_v"
	wait "$_v" 2>/dev/null
}

# summary_lost ERR, outside_trees ERR: the summary's lost events; the calls
# that reached userspace outside a printed tree (-v).
summary_lost() { sed -n 's/.* events printed, \([0-9]*\) lost.*/\1/p' "$1"; }
outside_trees() { sed -n 's/.*--tree: \([0-9]*\) call(s) outside a printed tree.*/\1/p' "$1"; }
# flush_seen OUT ERR: close_range trees' records printed, outside a tree, or lost.
flush_seen() {
	_lost=$(summary_lost "$2") _outside=$(outside_trees "$2")
	echo $((${_lost:-0} + ${_outside:-0} + $(grep -c '→ filp_close' "$1") + \
		$(grep -c '<- __x64_sys_close_range' "$1")))
}

# The preempt count's bits in_task() takes for an interrupt's: 7.3's
# layout where the kernel counts interrupt disabling in it (its per-CPU
# local_interrupt_disable_state), else 6.x's.
if grep -q ' local_interrupt_disable_state$' /proc/kallsyms; then
	NOT_TASK=0x1f000100
else
	NOT_TASK=0xff0100
fi

# jq_count FILE FILTER: how many events FILTER selects ($open, $mkdirat:
# the case's OPEN and MKDIRAT).
jq_count() {
	jq -c --arg open "${OPEN:-}" --arg mkdirat "${MKDIRAT:-}" "select(.type == \"event\") | select($2)" "$1" 2>/dev/null | wc -l
}

# nothing_left_after NAME CASE: no program of CASE's run is left, checked
# only after a run: a case skipped on this kernel held no programs.
nothing_left_after() {
	if [ -e "$OUT" ]; then
		expect_eq "$1" "" "$(left_progs "$PROGS")"
	else
		skip "$1" "case $2 not run here"
	fi
}

# all_but_missed FILE WANT GOT: "yes" when GOT trees of WANT have the
# shape, or fewer by at most the calls FILE's summary counts as missed;
# else what was counted.  A missed call is the kernel's: the fentry
# trampoline skips a program's run on a CPU where a run of it is already
# in progress, and 7.3 (PREEMPT_LAZY) preempts a run on the guest's one
# CPU for another task that enters the same function (concurrent cats:
# s62 lost one tree's node so in CI, and a whole tree, its root's call
# unseen, in a run after it).  The summary says so.
all_but_missed() {
	_abm_m=$(record summary "$1" | jq -r '.missed // 0' | head -n 1)
	if [ "$3" -eq "$2" ] || { [ "$3" -lt "$2" ] && [ "$_abm_m" -gt 0 ] && [ $(($3 + _abm_m)) -ge "$2" ]; }; then
		echo yes
	else
		echo "$3 of $2, $_abm_m missed"
	fi
}

# The inner functions after do_filp_open, which 7.x calls do_file_open:
# each case looks it up (KFUNC OPEN) and traces "$OPEN(dfd,return)" first.
# 7.3 inlines walk_component (not in its kallsyms): the trees these cases
# assert are 6.x's, and KFUNC WALK skips them there with a NOTE.
INNER="path_openat(return) walk_component(return) lookup_fast(return) step_into(return) complete_walk may_open(return)"
# 7.3's: link_path_walk (inline on 6.1), lookup_slow, lookup_open and
# step_into_slowpath (new in 7.x) where 6.x has walk_component and step_into.
INNER73="path_openat(return) link_path_walk(return) lookup_fast(return) lookup_slow(return) lookup_open(return) step_into_slowpath(return) complete_walk may_open(return) terminate_walk"
# FAILS73: jq, the calls under path_openat that failed, in order: func,
# errno, first error.
FAILS73='[.calls[0].calls[0].calls[] | select(.values.return_errno) | [.func, .values.return_errno, (.first_error // false)]]'

for mode in fentry kprobe; do
	T=$mode
	# --- text: 7 failing opens (the first cat stops at nothing: it opens
	#     all 5 paths; then 5 cats, one path each; then one cat of 5 paths
	#     that exist and /nope4).  The successful opens' sessions are
	#     discarded in BPF: nothing of them reaches the ring buffer (the
	#     calls wait in BPF and are deleted at the root's return), and
	#     between them and the stop the maps are empty.  One ksnoop for
	#     what were two cases (open_enoent, discard): 2 starts fewer ---
	ks_case <<-'CASE'
		NAME     ${T}_open_enoent
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    WALK walk_component
		RUN      --mode $mode --tree -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER
		WORKLOAD open_some
		WORKLOAD cat /proc/version /proc/self/stat /proc/uptime /proc/loadavg /nope4 /proc/cpuinfo >/dev/null 2>&1
		WORKLOAD maps_now
		EXPECT   ${T}_trees: count 7 ' cat [0-9]+/[0-9]+ <- do_sys_openat2 \('
		EXPECT   ${T}_root_return: count 7 '^    return = -2 \(ENOENT\)$'
		EXPECT   ${T}_nope1: count 2 '^    filename = "/nope1"$'
		EXPECT   ${T}_nope2: count 2 '^    filename = "/nope2/x"$'
		EXPECT   ${T}_no_success: count 0 'filename = "/proc'
		EXPECT   ${T}_do_filp_open: count 7 "^  → $OPEN \([0-9.]+ [mun]?s\) = ERR_PTR\(-ENOENT\)  \[error\]$"
		EXPECT   ${T}_value_beneath: count 7 '^        dfd = -100$'
		EXPECT   ${T}_path_openat: count 7 '^    → path_openat \([0-9.]+ [mun]?s\) = ERR_PTR\(-ENOENT\)  \[error\]$'
		EXPECT   ${T}_first_error_last: count 5 '^      → step_into \([0-9.]+ [mun]?s\) = ERR_PTR\(-ENOENT\)  \[first error\]$'
		EXPECT   ${T}_walk_component: count 2 '^      → walk_component \([0-9.]+ [mun]?s\) = ERR_PTR\(-ENOENT\)  \[error\]$'
		EXPECT   ${T}_first_error_inner: count 2 '^        → step_into \([0-9.]+ [mun]?s\) = ERR_PTR\(-ENOENT\)  \[first error\]$'
		EXPECT   ${T}_one_first_error_each: count 7 '\[first error\]'
		EXPECT   ${T}_said: stderr '7 events printed, 0 lost'
		EXPECT   ${T}_tree_buf_empty: eq 0 "$tree_buf"
		EXPECT   ${T}_sessions_empty: eq 0 "$sessions"
		EXPECT   ${T}_discard_one_tree: count 1 '^    filename = "/nope4"$'
		EXPECT   ${T}_discard_nothing_reached: \
		         stderr '^ksnoop: --tree: 0 call\(s\) outside a printed tree reached userspace$'
	CASE
	nothing_left_after "${T}_nothing_left" "${T}_open_enoent"

	# --- JSON: the same trees as objects with nested "calls"; and many
	#     tasks in sessions at once (6 cats of /nope_task1-6 together):
	#     each tree is its own task's.  One ksnoop for what were two
	#     cases (json, tasks): 2 starts fewer ---
	NOTASK='(.values.filename | test("^/nope_task") | not)'
	ks_case <<-'CASE'
		NAME     ${T}_json
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    WALK walk_component
		RUN      --mode $mode -j --tree -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER
		WORKLOAD open_some
		WORKLOAD p=; for i in 1 2 3 4 5 6; do cat /nope_task$i 2>/dev/null & p="$p $!"; done; wait $p
		EXPECT   ${T}_json_trees: eq 6 "$(jq_count "$OUT" ".func == \"do_sys_openat2\" and .values.return_errno == \"ENOENT\" and $NOTASK")"
		EXPECT   ${T}_json_shape: eq 6 "$(jq_count "$OUT" "$NOTASK"' and .calls[0].func == $open and .calls[0].values.return_errno == "ENOENT" and .calls[0].values.dfd == -100 and .calls[0].calls[0].func == "path_openat" and (.calls | length) == 1')"
		EXPECT   ${T}_json_first_error: eq 6 "$(jq_count "$OUT" "$NOTASK"' and [.. | objects | select(.first_error == true) | .func] == ["step_into"]')"
		EXPECT   ${T}_json_durations: eq 6 "$(jq_count "$OUT" "$NOTASK"' and ([.. | objects | select(has("func") and (has("type") | not)) | .duration_ns > 0] | all)')"
		EXPECT   ${T}_json_nope2_walk: eq 2 "$(jq_count "$OUT" '.values.filename == "/nope2/x" and ([.calls[0].calls[0].calls[] | select(.func == "walk_component") | .calls[] | select(.first_error) | .func] == ["step_into"])')"
		EXPECT   ${T}_tasks_trees: eq 6 "$(jq_count "$OUT" '.values.filename | test("^/nope_task[1-6]$")')"
		EXPECT   ${T}_tasks_distinct: eq 6 "$(jq -c 'select(.type == "event" and (.values.filename | test("^/nope_task"))) | [.values.filename, .tid]' "$OUT" | sort -u | wc -l)"
		EXPECT   ${T}_tasks_shape: eq 6 "$(jq_count "$OUT" '(.values.filename | test("^/nope_task")) and .calls[0].func == $open and .calls[0].values.dfd == -100 and .calls[0].calls[0].func == "path_openat" and ([.. | objects | select(.first_error == true) | .func] == ["step_into"])')"
		EXPECT   ${T}_json_all: eq 12 "$(jq_count "$OUT" 'true')"
	CASE

	# --- -s: every inner return takes its stack; the first failing
	#     call's prints (step_into, called from path_openat's lookups) ---
	ks_case <<-'CASE'
		NAME     ${T}_stack
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    WALK walk_component
		RUN      --mode $mode -j -s --tree -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER
		WORKLOAD cat /nope1 2>/dev/null
		EXPECT   ${T}_stack_tree: eq 1 "$(jq_count "$OUT" '.values.filename == "/nope1"')"
		EXPECT   ${T}_stack_only_first: eq 1 "$(jq_count "$OUT" '[.. | objects | select(has("stack")) | .func] == ["step_into"]')"
		EXPECT   ${T}_stack_frames: eq 1 "$(jq_count "$OUT" '[.. | objects | select(.first_error == true) | .stack | map(test("^(path_openat|" + $open + ")\\+")) | any] == [true]')"
		EXPECT   ${T}_stack_no_tracer: eq 0 "$(grep -cE 'bpf_prog_|bpf_trampoline|kprobe_ftrace|kretprobe_trampoline' "$OUT")"
	CASE
	ks_case <<-'CASE'
		NAME     ${T}_stack_text
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    WALK walk_component
		RUN      --mode $mode -s --tree -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER
		WORKLOAD cat /nope1 2>/dev/null
		EXPECT   ${T}_stack_text_one: count 1 'stack = \['
		EXPECT   ${T}_stack_text_after_first: eq 1 "$(grep -A1 'first error' "$OUT" | grep -c 'stack = \[')"
	CASE

	# --- 7.3's path walk (issue 43): the same questions as the cases
	#     above, against 7.3's trees.  KFUNC STEP skips them with a NOTE
	#     on 6.x (step_into_slowpath is new); WALK's skip them on 7.3.
	#     A last component that is missing (/nope1, /nope3, /nope4):
	#     step_into_slowpath fails inside path_openat (open_last_lookups
	#     is inline), and path_openat's loop hands its ERR_PTR to
	#     link_path_walk again, which returns -2: the last failing
	#     callee, so the first error (tree__first_error()).  A missing
	#     directory (/nope2/x): step_into_slowpath under link_path_walk.
	#     Whether lookup_fast finds a negative dentry depends on the
	#     guest's file system: not asserted ---
	ks_case <<-'CASE'
		NAME     ${T}_open_enoent_73
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    STEP step_into_slowpath
		KFUNC    LPW link_path_walk
		RUN      --mode $mode --tree -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER73
		WORKLOAD open_some
		WORKLOAD cat /proc/version /proc/self/stat /proc/uptime /proc/loadavg /nope4 /proc/cpuinfo >/dev/null 2>&1
		WORKLOAD maps_now
		EXPECT   ${T}_73_trees: count 7 ' cat [0-9]+/[0-9]+ <- do_sys_openat2 \('
		EXPECT   ${T}_73_root_return: count 7 '^    return = -2 \(ENOENT\)$'
		EXPECT   ${T}_73_nope2: count 2 '^    filename = "/nope2/x"$'
		EXPECT   ${T}_73_no_success: count 0 'filename = "/proc'
		EXPECT   ${T}_73_do_file_open: count 7 "^  → $OPEN \([0-9.]+ [mun]?s\) = ERR_PTR\(-ENOENT\)  \[error\]$"
		EXPECT   ${T}_73_path_openat: count 7 '^    → path_openat \([0-9.]+ [mun]?s\) = ERR_PTR\(-ENOENT\)  \[error\]$'
		EXPECT   ${T}_73_last_step: count 5 '^      → step_into_slowpath \([0-9.]+ [mun]?s\) = ERR_PTR\(-ENOENT\)  \[error\]$'
		EXPECT   ${T}_73_last_first_error: count 5 '^      → link_path_walk \([0-9.]+ [mun]?s\) = -2 \(ENOENT\)  \[first error\]$'
		EXPECT   ${T}_73_dir_walk: count 2 '^      → link_path_walk \([0-9.]+ [mun]?s\) = -2 \(ENOENT\)  \[error\]$'
		EXPECT   ${T}_73_dir_first_error: count 2 '^        → step_into_slowpath \([0-9.]+ [mun]?s\) = ERR_PTR\(-ENOENT\)  \[first error\]$'
		EXPECT   ${T}_73_terminate: count 7 '^      → terminate_walk \('
		EXPECT   ${T}_73_one_first_error_each: count 7 '\[first error\]'
		EXPECT   ${T}_73_said: stderr '7 events printed, 0 lost'
		EXPECT   ${T}_73_tree_buf_empty: eq 0 "$tree_buf"
		EXPECT   ${T}_73_sessions_empty: eq 0 "$sessions"
		EXPECT   ${T}_73_discard_one_tree: count 1 '^    filename = "/nope4"$'
		EXPECT   ${T}_73_discard_nothing_reached: \
		         stderr '^ksnoop: --tree: 0 call\(s\) outside a printed tree reached userspace$'
	CASE
	nothing_left_after "${T}_73_nothing_left" "${T}_open_enoent_73"

	# --- JSON, 7.3: each tree's failing calls under path_openat, in
	#     order, with their marks; 6 cats at once, each tree its task's ---
	ks_case <<-'CASE'
		NAME     ${T}_json_73
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    STEP step_into_slowpath
		KFUNC    LPW link_path_walk
		RUN      --mode $mode -j --tree -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER73
		WORKLOAD open_some
		WORKLOAD p=; for i in 1 2 3 4 5 6; do cat /nope_task$i 2>/dev/null & p="$p $!"; done; wait $p
		EXPECT   ${T}_json_73_shape: eq yes "$(all_but_missed "$OUT" 12 "$(jq_count "$OUT" '.values.return_errno == "ENOENT" and (.calls | length) == 1 and .calls[0].func == $open and .calls[0].values.dfd == -100 and .calls[0].values.return_errno == "ENOENT" and .calls[0].calls[0].func == "path_openat" and .calls[0].calls[0].values.return_errno == "ENOENT" and (.calls[0].calls | length) == 1')")"
		EXPECT   ${T}_json_73_last: eq yes "$(all_but_missed "$OUT" 10 "$(jq_count "$OUT" '(.values.filename != "/nope2/x") and '"$FAILS73"' == [["step_into_slowpath","ENOENT",false],["link_path_walk","ENOENT",true]]')")"
		EXPECT   ${T}_json_73_dir: eq yes "$(all_but_missed "$OUT" 2 "$(jq_count "$OUT" '.values.filename == "/nope2/x" and '"$FAILS73"' == [["link_path_walk","ENOENT",false]] and ([.calls[0].calls[0].calls[] | select(.func == "link_path_walk") | .calls[] | select(.first_error) | .func] == ["step_into_slowpath"])')")"
		EXPECT   ${T}_json_73_one_first_error: eq yes "$(all_but_missed "$OUT" 12 "$(jq_count "$OUT" '[.. | objects | select(.first_error == true)] | length == 1')")"
		EXPECT   ${T}_json_73_tasks_distinct: eq yes "$(all_but_missed "$OUT" 6 "$(jq -c 'select(.type == "event" and (.values.filename | test("^/nope_task[1-6]$"))) | [.values.filename, .tid]' "$OUT" | sort -u | wc -l)")"
		EXPECT   ${T}_json_73_all: eq yes "$(all_but_missed "$OUT" 12 "$(jq_count "$OUT" 'true')")"
	CASE

	# --- -s, 7.3: the first failing call's stack (link_path_walk's,
	#     called from path_openat) and no other.  Only calls' "stack":
	#     terminate_walk's nd (struct nameidata) has a member "stack" ---
	ks_case <<-'CASE'
		NAME     ${T}_stack_73
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    STEP step_into_slowpath
		KFUNC    LPW link_path_walk
		RUN      --mode $mode -j -s --tree -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER73
		WORKLOAD cat /nope1 2>/dev/null
		EXPECT   ${T}_stack_73_tree: eq 1 "$(jq_count "$OUT" '.values.filename == "/nope1"')"
		EXPECT   ${T}_stack_73_only_first: eq 1 "$(jq_count "$OUT" '[.. | objects | select(has("func") and has("stack")) | .func] == ["link_path_walk"]')"
		EXPECT   ${T}_stack_73_frames: eq 1 "$(jq_count "$OUT" '[.. | objects | select(.first_error == true) | .stack | map(test("^path_openat\\+")) | any] == [true]')"
		EXPECT   ${T}_stack_73_no_tracer: eq 0 "$(grep -cE 'bpf_prog_|bpf_trampoline|kprobe_ftrace|kretprobe_trampoline' "$OUT")"
	CASE
	ks_case <<-'CASE'
		NAME     ${T}_stack_text_73
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    STEP step_into_slowpath
		KFUNC    LPW link_path_walk
		RUN      --mode $mode -s --tree -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER73
		WORKLOAD cat /nope1 2>/dev/null
		EXPECT   ${T}_stack_text_73_one: count 1 'stack = \['
		EXPECT   ${T}_stack_text_73_after_first: eq 1 "$(grep -A1 'first error' "$OUT" | grep -c 'stack = \[')"
	CASE

	# --- the limit, 7.3: the first 2 calls (do_file_open, path_openat)
	#     recorded, the rest counted: link_path_walk twice,
	#     step_into_slowpath and terminate_walk at least (lookup_fast and
	#     lookup_open as the dentry cache has it: 6 in s64's runs) ---
	ks_case <<-'CASE'
		NAME     ${T}_limit_73
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    STEP step_into_slowpath
		KFUNC    LPW link_path_walk
		RUN      --mode $mode -j --tree --tree-max-calls 2 -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER73
		WORKLOAD cat /nope1 2>/dev/null
		EXPECT   ${T}_limit_73_tree: eq 1 "$(jq_count "$OUT" '.values.filename == "/nope1"')"
		EXPECT   ${T}_limit_73_calls: eq 1 "$(jq_count "$OUT" '[.. | objects | select(has("func") and (has("type") | not)) | .func] == [$open, "path_openat"]')"
		EXPECT   ${T}_limit_73_counted: eq 1 "$(jq_count "$OUT" '.calls_not_recorded >= 4')"
	CASE

	# --- a root called inside its own session (a glob's do_filp_open
	#     inside do_sys_openat2) belongs to the outer session ---
	ks_case <<-'CASE'
		NAME     ${T}_nested
		RUN      --mode $mode -j --tree -c cat 'do_*open*(return < 0)' 'path_openat(return)'
		WORKLOAD open_some
		EXPECT   ${T}_nested_outer: eq 6 "$(jq_count "$OUT" '.func == "do_sys_openat2" and .values.return_errno == "ENOENT"')"
		EXPECT   ${T}_nested_only_outer: eq 6 "$(jq -c 'select(.type == "event")' "$OUT" | wc -l)"
		EXPECT   ${T}_nested_inner: eq 6 "$(jq_count "$OUT" '[.calls[].func] == ["path_openat"] and .calls[0].values.return_errno == "ENOENT"')"
	CASE

	# --- a task that exits inside a session (SIGTERM: get_signal() ends in
	#     do_group_exit() and never returns): its session and calls go ---
	ks_case <<-'CASE'
		NAME     ${T}_exit
		RUN      --mode $mode --tree -c vmprog get_signal mmput
		WORKLOAD kill_asleep
		WORKLOAD maps_now
		EXPECT   ${T}_exit_tree_buf_empty: eq 0 "$tree_buf"
		EXPECT   ${T}_exit_sessions_empty: eq 0 "$sessions"
		EXPECT   ${T}_exit_no_tree: count 0 '<- get_signal'
		EXPECT   ${T}_exit_said: stderr ', 1 trees dropped \(their task exited inside\)'
	CASE

	# --- mkdir of an existing directory: EEXIST first from filename_create
	#     (do_mkdirat is filename_mkdirat on 7.3: KFUNC).  From 6.15
	#     lookup_one_qstr_excl() returns the EEXIST itself (before, it
	#     returned the positive dentry and filename_create() made the
	#     error): a case per kernel range, each asserting its kernel's
	#     truth (one of the two runs) ---
	ks_case <<-'CASE'
		NAME     ${T}_mkdir_eexist
		MAX_KERNEL 6.14
		KFUNC    MKDIRAT do_mkdirat filename_mkdirat
		RUN      --mode $mode -j --tree -c mkdir "$MKDIRAT(mode, return < 0)" 'filename_create(return)' 'lookup_one_qstr_excl(return)'
		WORKLOAD mkdir "$tmp/there" 2>/dev/null; mkdir "$tmp/new_$mode" 2>/dev/null
		EXPECT   ${T}_mkdir_one_tree: eq 1 "$(jq_count "$OUT" '.func == $mkdirat')"
		EXPECT   ${T}_mkdir_values: eq 1 "$(jq_count "$OUT" '.values.mode == 511 and .values.return == -17 and .values.return_errno == "EEXIST"')"
		EXPECT   ${T}_mkdir_first_error: eq 1 "$(jq_count "$OUT" '.calls[0].func == "filename_create" and .calls[0].first_error == true and .calls[0].values.return_errno == "EEXIST"')"
	CASE
	ks_case <<-'CASE'
		NAME     ${T}_mkdir_eexist_excl
		MIN_KERNEL 6.15
		KFUNC    MKDIRAT do_mkdirat filename_mkdirat
		RUN      --mode $mode -j --tree -c mkdir "$MKDIRAT(mode, return < 0)" 'filename_create(return)' 'lookup_one_qstr_excl(return)'
		WORKLOAD mkdir "$tmp/there" 2>/dev/null; mkdir "$tmp/new_$mode" 2>/dev/null
		EXPECT   ${T}_mkdir_excl_one_tree: eq 1 "$(jq_count "$OUT" '.func == $mkdirat')"
		EXPECT   ${T}_mkdir_excl_values: eq 1 "$(jq_count "$OUT" '.values.mode == 511 and .values.return == -17 and .values.return_errno == "EEXIST"')"
		EXPECT   ${T}_mkdir_excl_first_error: eq 1 "$(jq_count "$OUT" '.calls[0].func == "filename_create" and .calls[0].values.return_errno == "EEXIST" and ([.. | objects | select(.first_error == true) | .func] == ["lookup_one_qstr_excl"])')"
	CASE

	# --- a tracepoint is a leaf at its place: vmprog's nanosleep of 20 ms
	#     arms its hrtimer inside do_nanosleep, once; the timer ticks that
	#     re-arm theirs in interrupts meanwhile (mode ABS) are not the
	#     task's calls and stay out (they were 11 misses in 60 runs) ---
	ks_case <<-'CASE'
		NAME     ${T}_tp_leaf
		RUN      --mode $mode -j --tree -c vmprog 'hrtimer_nanosleep(rqtp)' 'do_nanosleep(return)' 'tp:timer:hrtimer_start(mode)'
		WORKLOAD vmprog sleep 20
		EXPECT   ${T}_tp_leaf_tree: eq 1 "$(jq_count "$OUT" '.func == "hrtimer_nanosleep" and .values.rqtp == 20000000')"
		EXPECT   ${T}_tp_leaf_rel_once: eq 1 "$(jq_count "$OUT" '[.. | objects | select(.func == "tp:hrtimer_start" and (has("duration_ns") | not) and .values.mode == "HRTIMER_MODE_REL")] | length == 1')"
		EXPECT   ${T}_tp_leaf_place: eq 1 "$(jq_count "$OUT" '[.calls[] | select(.func == "do_nanosleep" and .values.return == 0) | .calls[] | select(.func == "tp:hrtimer_start" and (has("duration_ns") | not) and .values.mode == "HRTIMER_MODE_REL")] | length == 1')"
		EXPECT   ${T}_tp_leaf_bits: stderr "not the task.s: $NOT_TASK\$"
	CASE
	# Only the task's: no tick's ABS start, and the REL start inside
	# do_nanosleep.  On 7.3 (s59, s60) the tick's ABS starts (the
	# tick_nohz_handler's re-arm in hrtimer_interrupt under
	# sysvec_apic_timer_interrupt) were in the tree, in both modes, and
	# one at do_nanosleep's depth adopted the REL start (tree.c).  The
	# count was read right (__preempt_count; 0x1000002 at those starts,
	# printed from in_task() in a 7.3.4 guest), but with 6.x's bits:
	# 7.3 counts local_interrupt_disable() nesting in bits 16-23 and
	# moved HARDIRQ to 24-27, NMI to 28.  ksnoop now takes the bits from
	# the kernel (cmd_trace.c, preempt_not_task_bits(); -v prints them),
	# and the REL start's place and the bits are checked above on every
	# kernel.  With that fixed, one run of about 22 on 7.3 (s60, kprobe
	# mode) still had another start in the tree, not yet seen (the run's
	# JSON was not kept): so the whole list of starts is checked up to
	# 6.12 only; 7.x's case is the next one.
	ks_case <<-'CASE'
		NAME     ${T}_tp_leaf_only_task
		MAX_KERNEL 6.12
		RUN      --mode $mode -j --tree -c vmprog 'hrtimer_nanosleep(rqtp)' 'do_nanosleep(return)' 'tp:timer:hrtimer_start(mode)'
		WORKLOAD vmprog sleep 20
		EXPECT   ${T}_tp_leaf_only_task: eq HRTIMER_MODE_REL "$(jq -r 'select(.type == "event") | [.. | objects | select(.func == "tp:hrtimer_start") | .values.mode] | join(" ")' "$OUT" 2>&1)"
	CASE
	# 7.x: that other start is the scheduler arming its own timers in
	# __schedule(), in the task's context and so rightly in its tree.
	# 60 runs on 7.3 with each start's timer function (s65, host load 4;
	# none in 50 at load 1): 57 only the REL start; twice the deadline
	# server's dl_task_timer (HARD) after it inside do_nanosleep (its
	# schedule()); once hrtick (ABS_PINNED_HARD) as hrtimer_nanosleep's
	# own call before do_nanosleep: a preemption in hrtimer_nanosleep's
	# code (7.3 is PREEMPT_LAZY: an interrupt's return preempts), the
	# "depth 1" start s64 saw.  So every start but the scheduler's is
	# the task's one REL start with the sleeper's function; a tick's
	# (tick_nohz_handler, in an interrupt) would show here.
	ks_case <<-'CASE'
		NAME     ${T}_tp_leaf_only_task_7x
		MIN_KERNEL 6.13
		RUN      --mode $mode -j --tree -c vmprog 'hrtimer_nanosleep(rqtp)' 'do_nanosleep(return)' 'tp:timer:hrtimer_start(mode, hrtimer->function:sym)'
		WORKLOAD vmprog sleep 20
		EXPECT   ${T}_tp_leaf_only_task_7x: eq "HRTIMER_MODE_REL hrtimer_wakeup" "$(jq -r 'select(.type == "event") | [.. | objects | select(.func == "tp:hrtimer_start") | .values | "\(.mode) \(.["hrtimer->function:sym"].sym)" | select(test(" (hrtick|dl_task_timer|inactive_task_timer)$") | not)] | join(",")' "$OUT" 2>&1)"
	CASE

	# --- the limit on recorded calls: the first 2 of the 4 (do_filp_open,
	#     path_openat; not lookup_fast, step_into), the others counted ---
	ks_case <<-'CASE'
		NAME     ${T}_limit
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    WALK walk_component
		RUN      --mode $mode -j --tree --tree-max-calls 2 -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER
		WORKLOAD cat /nope1 2>/dev/null
		EXPECT   ${T}_limit_tree: eq 1 "$(jq_count "$OUT" '.values.filename == "/nope1"')"
		EXPECT   ${T}_limit_calls: eq 1 "$(jq_count "$OUT" '[.. | objects | select(has("func") and (has("type") | not))] | length == 2')"
		EXPECT   ${T}_limit_counted: eq 1 "$(jq_count "$OUT" '.calls_not_recorded == 2')"
	CASE

	# --- the limit between siblings: lookup_fast is recorded and
	#     returns, then step_into, called next by the same function (the
	#     same depth, the same slot of the session's entry times), is
	#     past the limit: its return is left out, not timed from
	#     lookup_fast's entry ---
	ks_case <<-'CASE'
		NAME     ${T}_limit_sibling
		KFUNC    OPEN do_filp_open do_file_open
		KFUNC    WALK walk_component
		RUN      --mode $mode -j --tree --tree-max-calls 3 -c cat 'do_sys_openat2(filename, return < 0)' "$OPEN(dfd,return)" $INNER
		WORKLOAD cat /nope1 2>/dev/null
		EXPECT   ${T}_limit_sibling_tree: eq 1 "$(jq_count "$OUT" '.values.filename == "/nope1"')"
		EXPECT   ${T}_limit_sibling_calls: eq 1 "$(jq_count "$OUT" '[.. | objects | select(has("func") and (has("type") | not)) | .func] == [$open, "path_openat", "lookup_fast"]')"
		EXPECT   ${T}_limit_sibling_counted: eq 1 "$(jq_count "$OUT" '.calls_not_recorded == 1')"
	CASE

	# --- exec inside a session: from the main thread the tid stays and the
	#     tree prints; from another thread the tid becomes the leader's pid
	#     (de_thread()), and the session is dropped at sched_process_exec
	#     with its calls, counted (they stayed in the maps for good: issue
	#     40, "tree_buf=10 sessions=10" after 10).  3 execs from the main
	#     thread, then 10 from others: 3 trees, 10 dropped.  The filename
	#     is read by getname, inline around getname_flags on 7.x (KFUNC).
	#     Only the 10 are dropped: the summary names one kind of drop.
	#     One ksnoop for what were two cases (exec_main, texec) ---
	ks_case <<-'CASE'
		NAME     ${T}_exec
		KFUNC    GETNAME getname getname_flags
		RUN      --mode $mode --tree -c vmprog '__x64_sys_execve(return)' "$GETNAME(return)" 'copy_string_kernel(return)'
		WORKLOAD vmprog execs 3
		WORKLOAD vmprog thread-execs 10; ran=$?
		WORKLOAD maps_now
		EXPECT   ${T}_exec_main_trees: count 3 ' vmprog [0-9]+/[0-9]+ <- __x64_sys_execve \('
		EXPECT   ${T}_exec_main_getname: count 3 "^  → $GETNAME \("
		EXPECT   ${T}_exec_main_none_dropped: eq 1 "$(grep -o 'trees dropped' "$ERR" | wc -l)"
		EXPECT   ${T}_texec_ran: eq 0 "$ran"
		EXPECT   ${T}_texec_tree_buf_empty: eq 0 "$tree_buf"
		EXPECT   ${T}_texec_sessions_empty: eq 0 "$sessions"
		EXPECT   ${T}_texec_no_tree: count 3 '<- __x64_sys_execve'
		EXPECT   ${T}_texec_said: stderr ', 10 trees dropped \(their thread called exec inside\)'
	CASE

	# --- a ring buffer too small for a tree (issue 41): 400 inner calls
	#     of ~96 bytes into 4 KiB at the root's return.  Every call is
	#     printed in the tree, reached userspace outside one (the root's
	#     record lost), or counted lost; so is the root ---
	ks_case <<-'CASE'
		NAME     ${T}_flush_lost
		RUN      --mode $mode --buffer 4096 --tree -c vmprog '__x64_sys_close_range(return)' 'filp_close(return)'
		WORKLOAD vmprog fds 400
		EXPECT   ${T}_flush_lost_filled: text '^[1-9]' "$(summary_lost "$ERR")"
		EXPECT   ${T}_flush_lost_all_counted: eq 401 "$(flush_seen "$OUT" "$ERR")"
		EXPECT   ${T}_flush_lost_none_unrecorded: eq 0 "$(cat "$OUT" "$ERR" | grep -c 'not recorded')"
	CASE
done

# --- refused: one line, exit 2 ---
refused() {	# NAME WANT_ERE ARGS...
	_name=$1 _want=$2
	shift 2
	ksnoop "$@" >"$tmp/$_name.out" 2>"$tmp/$_name.err"
	expect_eq "${_name}_exit" 2 "$?"
	expect_eq "${_name}_one_line" 1 "$(wc -l <"$tmp/$_name.err")"
	expect_eq "${_name}_said" 1 "$(grep -cE "$_want" "$tmp/$_name.err")"
}
refused tree_with_count '^ksnoop: --tree prints call trees: not with --count$' \
	--tree --count do_sys_openat2 do_filp_open
refused tree_with_hist '^ksnoop: --tree prints call trees: not with --hist$' \
	--tree --hist do_sys_openat2 do_filp_open
refused tree_usdt 'USDT probes cannot be in a call tree' --tree usdt /bin/busybox:a:b /bin/busybox:a:c
refused tree_tp_root "'tp:sched:sched_switch' is not a kernel or user function; a tree's ROOT must be a function" \
	--tree tp:sched:sched_switch do_filp_open
refused tree_sys "'sys:openat' is not a kernel or user function or tracepoint" --tree do_sys_openat2 sys:openat
refused tree_alone 'expected a ROOT function and at least one INNER' --tree do_sys_openat2
