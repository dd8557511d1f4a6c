#!/bin/bash
# Output that fits a terminal: --oneline (an event a line, structs
# shortened), --depth N (nested values cut), on tracepoints and USDT.
. "$(dirname "$0")/helpers.bash"

# --- usage errors first: no privileges needed ---
# With -j the error is a record on stdout.
out=$(ks -j --oneline tp:sched_switch 2>&1); rc=$?
error_is oneline_json 2 '^\{"type":"error","error":"--oneline is a text format; -j writes an event a line already"\}$' "$rc" "$out"
out=$(ks --depth 1 -j tp:sched_switch 2>&1); rc=$?
error_is depth_json 2 '^\{"type":"error","error":"--depth cuts text; -j keeps every member' "$rc" "$out"
expect_error oneline_count 2 "--count prints no events: --oneline does not apply" \
	--count --oneline tp:sched_switch
expect_error depth_hist 2 "--hist prints no events: --depth does not apply" \
	--hist --depth 2 tp:sched_switch
expect_error depth_not_number 2 "--depth: 'x' is not a number" --depth x tp:sched_switch
expect_error depth_too_deep 2 "--depth: 33 is out of range \\(0 to 32\\)" --depth 33 tp:sched_switch

needs_root oneline
usdt_programs

# A uniquely named program that sleeps: its sched_switch events are ours.
probe=ksol$$
cp /bin/sleep "$tmp/$probe"

# --- tp:sched_switch on one line: named values, a struct shortened ---
start "$tmp/o1" "$tmp/e1" --oneline -n 2 -c "$probe" \
	'tp:sched_switch(prev->comm, prev->pid, prev_state & 1 == 1, prev_state, prev)' ||
	fail attach_sched_switch "$(cat "$tmp/e1")"
"$tmp/$probe" 0.05; "$tmp/$probe" 0.05; "$tmp/$probe" 0.05
finish
expect_eq switch_exit 0 "$RC"
expect_eq switch_one_line_each 2 "$(wc -l <"$tmp/o1")"
# The task goes to sleep (TASK_INTERRUPTIBLE, bit 0; the predicate leaves
# out a switch by preemption or at exit).  "TIME COMM PID/TID -> FUNC"
# with no cpu, then NAME=VALUE: the comm and pid the header names, the
# state, and the task
# itself as its first 4 members that are not zero and not nested, then
# "..." (a task_struct has hundreds).
line='^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} '"$probe"' ([0-9]+)/\1 -> tp:sched_switch'
line+=' prev->comm="'"$probe"'" prev->pid=\1 prev_state=[0-9]+'
line+=' prev=0x[0-9a-f]+->\{(\.[a-z_0-9]+=[^ {},]+, ){3}\.[a-z_0-9]+=[^ {},]+ \.\.\.\}$'
expect_eq switch_line_shape 2 "$(grep -cE "$line" "$tmp/o1")"
expect_eq switch_sleeping 'yes yes' \
	"$(sed -n 's/.* prev_state=\([0-9]*\) .*/\1/p' "$tmp/o1" | awk '{ print ($1 % 2 == 1) ? "yes" : $1 }' | joined)"
expect_match switch_summary '^ksnoop: 2 events printed, 0 lost$' "$(cat "$tmp/e1")"

# --- -s: the stack ends the line, folded, outermost first ---
start "$tmp/o2" "$tmp/e2" --oneline -s -n 1 -c "$probe" 'tp:sched_switch(prev_state & 1 == 1, prev_state)' ||
	fail attach_switch_stack "$(cat "$tmp/e2")"
"$tmp/$probe" 0.05; "$tmp/$probe" 0.05
finish
expect_eq switch_stack_one_line 1 "$(wc -l <"$tmp/o2")"
# A sleep reaches schedule from a system call: entry first, __schedule last.
expect_match switch_stack_folded \
	" prev_state=[0-9]+ stack=entry_SYSCALL_64[^ ;]*;([^;]+;)+__schedule\+0x[0-9a-f]+(;__traceiter_sched_switch\+0x[0-9a-f]+)?$" "$(cat "$tmp/o2")"

# --- --depth: structs nested deeper than N are {...} ---
# The whole task_struct (a line per member): depth 1 shows its own
# members and cuts every struct inside it; depth 2 shows those and cuts
# theirs; depth 0 cuts the task itself.
for d in 0 1 2; do
	start "$tmp/d$d" "$tmp/ed$d" --depth $d -n 1 -c "$probe" 'tp:sched_switch(prev)' ||
		fail attach_depth_$d "$(cat "$tmp/ed$d")"
	"$tmp/$probe" 0.05; "$tmp/$probe" 0.05
	finish
done
expect_match depth0_cut '^    prev = 0x[0-9a-f]+ -> \(struct task_struct\)\{\.\.\.\}$' "$(cat "$tmp/d0")"
expect_eq depth0_one_value 2 "$(wc -l <"$tmp/d0")"
# Depth 1: members at 8 spaces, nested ones cut there, nothing deeper.
expect_match depth1_member '^        \.pid = [0-9]+,$' "$(cat "$tmp/d1")"
expect_match depth1_nested_cut '^        \.se = \{\.\.\.\},$' "$(cat "$tmp/d1")"
expect_eq depth1_nothing_deeper 0 "$(grep -c '^            ' "$tmp/d1")"
# Depth 2: the members of se (struct sched_entity) at 12 spaces, its
# nested structs cut there, nothing at 16.
expect_match depth2_nested_shown '^            \.load = \{\.\.\.\},$' "$(cat "$tmp/d2")"
expect_match depth2_scalar_shown '^            \.sum_exec_runtime = [1-9][0-9]*,$' "$(cat "$tmp/d2")"
expect_eq depth2_nothing_deeper 0 "$(grep -c '^                ' "$tmp/d2")"
expect_fewer depth_cuts_lines "$(wc -l <"$tmp/d1")" "$(wc -l <"$tmp/d2")"

# --- USDT on one line: a struct from the program's BTF, values known ---
# fire(i) passes &r (id i, flags 5, path "/srv/a", size 1 << 40) and i;
# a zero id is left out as in the multi-line form.
start "$tmp/o3" "$tmp/e3" --oneline usdt "$P:ksnoop_test:obj(arg0:struct req *, arg1)" ||
	fail attach_usdt_obj "$(cat "$tmp/e3")"
"$P" fire 3
stop
expect_eq usdt_exit 0 "$RC"
expect_eq usdt_lines 3 "$(wc -l <"$tmp/o3")"
pfx='^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} usdt_prog ([0-9]+)/\1 -> ksnoop_test:obj arg0:struct req \*=0x[0-9a-f]+->'
expect_eq usdt_line_0 1 "$(grep -cE "$pfx"'\{\.flags=5, \.path="/srv/a", \.size=1099511627776\} arg1=0$' "$tmp/o3")"
expect_eq usdt_line_1 1 "$(grep -cE "$pfx"'\{\.id=1, \.flags=5, \.path="/srv/a", \.size=1099511627776\} arg1=1$' "$tmp/o3")"
expect_eq usdt_line_2 1 "$(grep -cE "$pfx"'\{\.id=2, \.flags=5, \.path="/srv/a", \.size=1099511627776\} arg1=2$' "$tmp/o3")"

# --- a string from the traced program stays escaped on one line ---
start "$tmp/o4" "$tmp/e4" --oneline usdt "$P:ksnoop_test:req(arg0, arg1, arg2:str)" ||
	fail attach_usdt_req "$(cat "$tmp/e4")"
"$P" fire 2
stop
expect_eq usdt_req_values 'arg0=0 arg1=-1 arg2:str="/req/0"|arg0=1 arg1=-2 arg2:str="/req/1"' \
	"$(sed 's/.* -> ksnoop_test:req //' "$tmp/o4" | paste -sd'|')"

# --- a system call: entry and return, a line each, the duration on the
#     return's; with a predicate on the return, the entry values there ---
opener=ksoc$$
cp /bin/cat "$tmp/$opener"
start "$tmp/o5" "$tmp/e5" --oneline -n 2 -c "$opener" 'sys:openat(filename, return)' ||
	fail attach_sys_openat "$(cat "$tmp/e5")"
"$tmp/$opener" /etc/hostname >/dev/null 2>&1
finish
hdr='^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} '"$opener"' ([0-9]+)/\1 '
expect_match sys_entry_line "$hdr"'-> sys:openat filename="[^"]+"$' "$(cat "$tmp/o5")"
expect_match sys_return_line "$hdr"'<- sys:openat \([0-9.]+ [mun]?s\) return=[0-9]+$' "$(cat "$tmp/o5")"
expect_eq sys_two_lines 2 "$(wc -l <"$tmp/o5")"
# (the file named in a predicate: cat opens others that fail, locales)
start "$tmp/o6" "$tmp/e6" --oneline -n 1 -c "$opener" \
	"sys:openat(filename == \"$tmp/no such file\", filename, return < 0)" ||
	fail attach_sys_openat_fail "$(cat "$tmp/e6")"
"$tmp/$opener" "$tmp/no such file" >/dev/null 2>&1
finish
expect_match sys_failed_open_one_line \
	"$hdr"'<- sys:openat \([0-9.]+ [mun]?s\) filename="'"$tmp"'/no such file" return=-2 \(ENOENT\)$' "$(cat "$tmp/o6")"
expect_eq sys_failed_open_lines 1 "$(wc -l <"$tmp/o6")"

# --- what a traced program chooses stays escaped on one line: a program
#     named ESC [ 3 1 m NEWLINE F<pid>, its comm in the header and a value ---
forged=F$$
name=$'\e[31m\n'$forged
cp /bin/true "$tmp/$name"
start "$tmp/o7" "$tmp/e7" --oneline -n 1 \
	"tp:sched_process_exec(p->comm == \"\\x1b[31m\\n$forged\", p->comm, bprm->filename)" ||
	fail attach_forged "$(cat "$tmp/e7")"
"$tmp/$name"
finish
expect_eq forged_one_line 1 "$(wc -l <"$tmp/o7")"
expect_eq forged_no_raw_controls 0 "$(LC_ALL=C grep -c -P '[\x00-\x09\x0b-\x1f\x7f]' "$tmp/o7")"
expect_match forged_escaped \
	'^[0-9:.]+ \\x1b\[31m\\n'"$forged"' [0-9]+/[0-9]+ -> tp:sched_process_exec p->comm="\\x1b\[31m\\n'"$forged"'" bprm->filename="'"$tmp"'/\\x1b\[31m\\n'"$forged"'"$' \
	"$(cat "$tmp/o7")"
expect_eq nothing_left "" "$(left_progs "$PROGS")"
