#!/bin/bash
# A user function's stacks and call trees, live on this machine (uprobes,
# tracepoints), as root.  tests/uprog/app.c's `app tree` (held on a pipe
# until ksnoop has attached with -p, so its maps are read at attach) calls
# tree_request(1), which succeeds, then tree_request(2), which fails with
# -ENOENT; each calls uf_add, uf_depth (recursing twice), prctl(PR_SET_NAME)
# (the kernel's tracepoint task:task_rename) and uf_lookup.
#   -s on a user function: its program's user stack (as a USDT probe's),
#     named from the file: uf_add, tree_request, main; --ustack beside it
#     adds no second copy.
#   --count -s (and --ustack): counts per user stack and process (the
#     uprobes' programs then not sleepable: they use the stack map), as
#     text, JSON and folded stacks (the function once, as the leaf).
#   --tree with a user function as ROOT: the user functions it calls and
#     the kernel's tracepoint in that task nest by depth, with their
#     values and returns; the root's return predicate prints only the
#     failing call's tree; uf_lookup's -ENOENT is its first failing call;
#     with -s that call's user stack.
#   --tree recorded and reported later: the same tree as text and -j, and
#     as a timeline (--format=perfetto): the root's slice opened first,
#     the calls nested in call order, trace_events.py's rules kept; the
#     recording merged with itself: a tree on each one's own tracks.
# (Kernel functions as INNER need kprobes or fentry: not on this kernel.)
. "$(dirname "$0")/helpers.bash"
usdt_paths
UP=${KSNOOP_UPROG_DIR:-$(dirname "$U")/uprog}
needs_root ufunc_tree
scratch_dir
chmod 755 "$tmp"
for b in gcc-O0 clang-O2; do
	if [ ! -x "$UP/app-$b" ]; then
		fail ufunc_tree_programs "missing $UP/app-$b (make build/uprog/app-$b)"
		exit 0
	fi
	cp "$UP/app-$b" "$tmp/"
done

# app_waits NAME: `app tree` of $A started, held on a pipe (its pid in $pid
# for RUN's -p; ksnoop must not hold the pipe: 6>&-); app_go lets it make
# its calls and waits (bounded, by count) for its "done".
app_waits() {
	local fifo=$tmp/fifo-$1
	done_file=$tmp/done-$1
	mkfifo "$fifo"
	"$A" tree <"$fifo" >"$done_file" 2>/dev/null &
	pid=$!
	exec 6>"$fifo"
}
# tree_timeline FILE: report --format=perfetto of FILE into FILE.json, and
# what trace_events.py says of it against report -j (nothing: valid).
tree_timeline() {
	ks report --format=perfetto "$1" >"$1.json" 2>/dev/null || echo "status $?"
	ks report -j "$1" >"$1.ndjson" 2>/dev/null
	python3 "$(dirname "$0")/trace_events.py" "$1.json" --events "$1.ndjson" 2>&1
}
# tree_timeline_twice FILE: the same of FILE merged with itself (two
# recordings: each one's tracks its own) into FILE.2.json.
tree_timeline_twice() {
	ks report --format=perfetto "$1" "$1" >"$1.2.json" 2>/dev/null || echo "status $?"
	ks report -j "$1" "$1" >"$1.2.ndjson" 2>/dev/null
	python3 "$(dirname "$0")/trace_events.py" "$1.2.json" --events "$1.2.ndjson" 2>&1
}
app_go() {
	echo go >&6
	exec 6>&-
	for _ in $(seq 200); do
		grep -q '^done$' "$done_file" && break
		sleep 0.05
	done
	wait "$pid" 2>/dev/null
}
# The functions of a JSON stack, without offsets and objects: "a b c".
frames() { jq -r '[.[] | sub("\\+0x[0-9a-f]+ \\(.*\\)$"; "")] | join(" ")'; }

for b in gcc-O0 clang-O2; do
	A=$tmp/app-$b
	T=${b/-/_}
	# --- the tree of the failing call only, text: nesting by indent ---
	ks_case <<'CASE'
NAME     ${T}_tree_text
BEFORE   app_waits ${T}_text
RUN      --tree -p "$pid" "u:$A:tree_request(x, return < 0)" "u:$A:uf_add(a, b, return)" "u:$A:uf_depth(n, return)" "u:$A:uf_lookup(key, return)" "tp:task:task_rename(comm:str)" 6>&-
WORKLOAD app_go
EXPECT   ${T}_tree_one: count 1 ' <- tree_request \('
EXPECT   ${T}_tree_root_values: eq 'x = 2,return = -2 (ENOENT)' "$(sed -n '/<- tree_request/,/→/p' "$OUT" | sed -n 's/^    \([a-z].*\)$/\1/p' | paste -sd,)"
EXPECT   ${T}_tree_add: count 1 '^  → uf_add \([0-9.]+ [mun]?s\) = 3$'
EXPECT   ${T}_tree_depth_nested: eq '  → uf_depth = 2,    → uf_depth = 1,      → uf_depth = 0' \
           "$(grep -E '→ uf_depth' "$OUT" | sed -E 's/ \([0-9.]+ [mun]?s\)//' | paste -sd,)"
EXPECT   ${T}_tree_depth_values: eq '        n = 2,            n = 1,                n = 0' "$(grep -E '^ +n = ' "$OUT" | paste -sd,)"
EXPECT   ${T}_tree_tracepoint_leaf: eq '  → tp:task_rename,        comm:str = "kstree-fail"' "$(grep -A1 '→ tp:task_rename' "$OUT" | paste -sd,)"
EXPECT   ${T}_tree_first_error: count 1 '^  → uf_lookup \([0-9.]+ [mun]?s\) = -2 \(ENOENT\)  \[first error\]$'
EXPECT   ${T}_tree_order: eq 'uf_add uf_depth uf_depth uf_depth tp:task_rename uf_lookup' "$(sed -n 's/^ *→ \([a-z_:]*\).*/\1/p' "$OUT" | paste -sd' ')"
EXPECT   ${T}_tree_no_success: count 0 'kstree-ok|x = 1$'
EXPECT   ${T}_tree_said: stderr '1 events printed, 0 lost'
EXPECT   ${T}_tree_nothing_reached: stderr '^ksnoop: --tree: 0 call\(s\) outside a printed tree reached userspace$'
EXPECT   ${T}_tree_nothing_left: eq "" "$(left_progs "$PROGS")"
CASE
	# --- JSON: the same tree as nested objects; -s: the first failing call's user stack ---
	ks_case <<'CASE'
NAME     ${T}_tree_json
BEFORE   app_waits ${T}_json
RUN      -j -s --tree -p "$pid" "u:$A:tree_request(x, return < 0)" "u:$A:uf_add(a, b, return)" "u:$A:uf_depth(n, return)" "u:$A:uf_lookup(key, return)" "tp:task:task_rename(comm:str)" 6>&-
WORKLOAD app_go
EXPECT   ${T}_json_one_tree: eq 1 "$(events "$OUT" | wc -l)"
EXPECT   ${T}_json_root: eq '2 -2 ENOENT' "$(events "$OUT" | jq -r '"\(.values.x) \(.values.return) \(.values.return_errno)"')"
EXPECT   ${T}_json_calls: eq 'uf_add uf_depth tp:task_rename uf_lookup' "$(events "$OUT" | jq -r '[.calls[].func] | join(" ")')"
EXPECT   ${T}_json_add_values: eq '{"a":2,"b":1,"return":3}' "$(events "$OUT" | jq -c '.calls[0].values')"
EXPECT   ${T}_json_recursion: eq '2=2 1=1 0=0' "$(events "$OUT" | jq -r '[.calls[1] | recurse(.calls[]) | "\(.values.n)=\(.values.return)"] | join(" ")')"
EXPECT   ${T}_json_tracepoint: eq '"kstree-fail"' "$(events "$OUT" | jq -c '.calls[2].values["comm:str"]')"
EXPECT   ${T}_json_first_error: eq '["uf_lookup"]' "$(events "$OUT" | jq -c '[.. | objects | select(.first_error == true) | .func]')"
EXPECT   ${T}_json_durations: eq true "$(events "$OUT" | jq '[.. | objects | select(has("duration_ns")) | .duration_ns > 0] | all')"
EXPECT   ${T}_json_stack_only_first: eq '["uf_lookup"]' "$(events "$OUT" | jq -c '[.. | objects | select(has("stack")) | .func]')"
EXPECT   ${T}_json_stack_user: eq 'tree_request main' "$(events "$OUT" | jq -c '.calls[3].stack[0:2]' | frames)"
CASE
	# --- recorded with --tree, reported later: the same tree (text and JSON) ---
	ks_case <<'CASE'
NAME     ${T}_tree_record
BEFORE   app_waits ${T}_record
RUN      record -o "$tmp/tree-$T.ksr" --tree -p "$pid" "u:$A:tree_request(x, return < 0)" "u:$A:uf_add(a, b, return)" "u:$A:uf_depth(n, return)" "u:$A:uf_lookup(key, return)" "tp:task:task_rename(comm:str)" 6>&-
WORKLOAD app_go
EXPECT   ${T}_record_said: stderr '^ksnoop: [0-9]+ events recorded to '
EXPECT   ${T}_record_text_tree: eq '  → uf_add = 3,  → uf_depth = 2,    → uf_depth = 1,      → uf_depth = 0,  → tp:task_rename,  → uf_lookup = -2 (ENOENT)  [first error]' \
           "$(ks report "$tmp/tree-$T.ksr" 2>/dev/null | grep -E '^ *→ ' | sed -E 's/ \([0-9.]+ [mun]?s\)//' | paste -sd,)"
EXPECT   ${T}_record_text_root: eq 'x = 2,return = -2 (ENOENT)' "$(ks report "$tmp/tree-$T.ksr" 2>/dev/null | sed -n '/<- tree_request/,/→/p' | sed -n 's/^    \([a-z].*\)$/\1/p' | paste -sd,)"
EXPECT   ${T}_record_one_tree: eq 1 "$(ks report -j "$tmp/tree-$T.ksr" 2>/dev/null | jq -c 'select(.calls)' | wc -l)"
EXPECT   ${T}_record_json_calls: eq 'uf_add uf_depth tp:task_rename uf_lookup' "$(ks report -j "$tmp/tree-$T.ksr" 2>/dev/null | jq -r 'select(.calls) | [.calls[].func] | join(" ")')"
EXPECT   ${T}_record_json_recursion: eq '2=2 1=1 0=0' "$(ks report -j "$tmp/tree-$T.ksr" 2>/dev/null | jq -r 'select(.calls) | [.calls[1] | recurse(.calls[]) | "\(.values.n)=\(.values.return)"] | join(" ")')"
EXPECT   ${T}_record_first_error: eq '["uf_lookup"]' "$(ks report -j "$tmp/tree-$T.ksr" 2>/dev/null | jq -c 'select(.calls) | [.. | objects | select(.first_error == true) | .func]')"
EXPECT   ${T}_record_merged_self: eq 'uf_add uf_depth tp:task_rename uf_lookup,uf_add uf_depth tp:task_rename uf_lookup' "$(ks report -j "$tmp/tree-$T.ksr" "$tmp/tree-$T.ksr" 2>/dev/null | jq -r 'select(.calls) | [.calls[].func] | join(" ")' | paste -sd,)"
EXPECT   ${T}_record_summary_tree: eq '0 0 0 0' "$(ks report -j "$tmp/tree-$T.ksr" 2>/dev/null | jq -r 'select(.type == "summary") | "\(.tree_calls_not_recorded) \(.trees_task_exited) \(.trees_thread_exec) \(.trees_not_started)"')"
EXPECT   ${T}_record_perfetto_valid: eq '' "$(tree_timeline "$tmp/tree-$T.ksr")"
EXPECT   ${T}_record_perfetto_nested: eq 'B:tree_request B:uf_add E:uf_add B:uf_depth B:uf_depth B:uf_depth E:uf_depth E:uf_depth E:uf_depth i:tp:task_rename B:uf_lookup E:uf_lookup E:tree_request' \
           "$(jq -r '[.traceEvents[] | select(.cat != "cpu" and .ph != "M") | "\(.ph):\(.name)"] | join(" ")' "$tmp/tree-$T.ksr.json")"
EXPECT   ${T}_record_perfetto_values: eq '0 1 2' "$(jq -r '[.traceEvents[] | select(.name == "uf_depth" and .ph == "E") | .args.n] | map(tostring) | join(" ")' "$tmp/tree-$T.ksr.json")"
EXPECT   ${T}_record_perfetto_first_error: eq 'uf_lookup' "$(jq -r '.traceEvents[] | select(.args.ksnoop.first_error == true) | .name' "$tmp/tree-$T.ksr.json")"
EXPECT   ${T}_record_perfetto_merged_valid: eq '' "$(tree_timeline_twice "$tmp/tree-$T.ksr")"
EXPECT   ${T}_record_perfetto_merged_trees: eq '2 2' "$(jq -r '[.traceEvents[] | select(.name == "tree_request" and .ph == "B" and .args.ksnoop.tree == "root") | .pid] | "\(length) \(unique | length)"' "$tmp/tree-$T.ksr.2.json")"
CASE
done

# --- a recording's END keeps the tree counters: 2 of each tree's 6 calls kept, so
#     4 dropped in each of the two sessions (the succeeding one's too) ---
A=$tmp/app-gcc-O0
ks_case <<'CASE'
NAME     tree_record_counters
BEFORE   app_waits record_counters
RUN      record -o "$tmp/tree-max.ksr" --tree --tree-max-calls 2 -p "$pid" "u:$A:tree_request(x, return < 0)" "u:$A:uf_add(a, b, return)" "u:$A:uf_depth(n, return)" "u:$A:uf_lookup(key, return)" "tp:task:task_rename(comm:str)" 6>&-
WORKLOAD app_go
EXPECT   tree_record_counters_kept: eq 2 "$(ks report -j "$tmp/tree-max.ksr" 2>/dev/null | jq -r 'select(.calls) | .calls | length')"
EXPECT   tree_record_counters_dropped: eq 8 "$(ks report -j "$tmp/tree-max.ksr" 2>/dev/null | jq -r 'select(.type == "summary") | .tree_calls_not_recorded')"
CASE

# --- -s on a user function: its user stack, named; --ustack adds no copy ---
ks_case <<'CASE'
NAME     stack_events
BEFORE   app_waits stack
RUN      -j -s --ustack -p "$pid" "u:$A:uf_add(a)" 6>&-
WORKLOAD app_go
EXPECT   stack_events_two: eq '1 2' "$(events "$OUT" | jq -r .values.a | paste -sd' ')"
EXPECT   stack_events_frames: eq 'uf_add tree_request main,uf_add tree_request main' "$(events "$OUT" | jq -c '.stack[0:3]' | frames | paste -sd,)"
EXPECT   stack_events_object: eq "\"$A\"" "$(events "$OUT" | jq -c '.stack[0] | capture("\\((?<o>.*)\\)$").o' | sort -u)"
EXPECT   stack_events_no_second_copy: eq 0 "$(events "$OUT" | jq -c 'select(has("ustack"))' | wc -l)"
CASE
ks_case <<'CASE'
NAME     stack_text
BEFORE   app_waits stack_text
RUN      -s -p "$pid" "u:$A:uf_lookup(key)" 6>&-
WORKLOAD app_go
EXPECT   stack_text_two: count 2 '^    stack = \[$'
EXPECT   stack_text_named: count 2 "^        uf_lookup\\+0x0 \\($A\\),$"
EXPECT   stack_text_caller: count 2 "^        tree_request\\+0x[0-9a-f]+ \\($A\\),$"
CASE

# --- --count -s: per user stack and process, not sleepable (the stack map) ---
ks_case <<'CASE'
NAME     count_stack
BEFORE   app_waits count
RUN      --count -s -p "$pid" "u:$A:uf_add" "u:$A:uf_depth" 6>&-
WORKLOAD app_go
EXPECT   count_stack_rows: count 2 '^uf_add: 1 call$'
EXPECT   count_stack_user: count 8 "^    -- pid $pid, user stack:\$"
EXPECT   count_stack_frames: eq 'uf_add+0x0 tree_request main' "$(grep -m1 -A4 '^uf_add: ' "$OUT" | sed -n 's/^    \([a-z_]*+0x[0-9a-f]*\) (.*)$/\1/p' | sed 's/+0x[1-9a-f][0-9a-f]*$//' | head -3 | paste -sd' ')"
# uf_depth(2) recursing: a stack per depth (0, 1, 2) and call of tree_request.
EXPECT   count_stack_depths: count 6 '^uf_depth: 1 call$'
EXPECT   count_stack_recursion_frames: count 6 "^    uf_depth\\+0x[1-9a-f][0-9a-f]* \\($A\\)\$"
EXPECT   count_stack_not_sleepable: stderr 'uf_add: counted by user stack \(the stack map: not sleepable\)'
EXPECT   count_stack_none_lost: no_match 'not taken'
CASE
ks_case <<'CASE'
NAME     count_stack_json
BEFORE   app_waits count_json
RUN      -j --count -s --ustack -p "$pid" "u:$A:uf_lookup" 6>&-
WORKLOAD app_go
EXPECT   count_json_rows: eq 2 "$(record count "$OUT" | wc -l)"
EXPECT   count_json_pid: eq "$pid" "$(record count "$OUT" | jq -r .pid | sort -u)"
EXPECT   count_json_frames: eq 'uf_lookup tree_request main' "$(record count "$OUT" | head -1 | jq -c '.ustack[0:3]' | frames)"
EXPECT   count_json_no_kernel_stack: eq 0 "$(record count "$OUT" | jq -c 'select(has("stack"))' | wc -l)"
CASE
ks_case <<'CASE'
NAME     count_folded
BEFORE   app_waits folded
RUN      --count -s --folded -p "$pid" "u:$A:uf_add" 6>&-
WORKLOAD app_go
EXPECT   count_folded_leaf_once: count 2 '^__libc_start_call_main;main;tree_request;uf_add 1$'
CASE
