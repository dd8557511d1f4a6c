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
# The task goes to sleep (TASK_INTERRUPTIBLE, bit 0; the predicate leaves
# out a switch by preemption or at exit).  "TIME COMM PID/TID -> FUNC"
# with no cpu, then NAME=VALUE: the comm and pid the header names, the
# state, and the task
# itself as its first 4 members that are not zero and not nested, then
# "..." (a task_struct has hundreds).
line='^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} '"$probe"' ([0-9]+)/\1 -> tp:sched_switch'
line+=' prev->comm="'"$probe"'" prev->pid=\1 prev_state=[0-9]+'
line+=' prev=0x[0-9a-f]+->\{(\.[a-z_0-9]+=[^ {},]+, ){3}\.[a-z_0-9]+=[^ {},]+ \.\.\.\}$'
ks_case <<'CASE'
NAME     switch
RUN      --oneline -n 2 -c "$probe" \
         'tp:sched_switch(prev->comm, prev->pid, prev_state & 1 == 1, prev_state, prev)'
WORKLOAD "$tmp/$probe" 0.05; "$tmp/$probe" 0.05; "$tmp/$probe" 0.05
UNTIL    exit
EXPECT   switch_exit: exit 0
EXPECT   switch_one_line_each: eq 2 "$(wc -l <"$OUT")"
EXPECT   switch_line_shape: count 2 "$line"
EXPECT   switch_sleeping: eq 'yes yes' \
         "$(sed -n 's/.* prev_state=\([0-9]*\) .*/\1/p' "$OUT" | awk '{ print ($1 % 2 == 1) ? "yes" : $1 }' | joined)"
EXPECT   switch_summary: stderr '^ksnoop: 2 events printed, 0 lost$'
CASE

# --- -s: the stack ends the line, folded, outermost first ---
# A sleep reaches schedule from a system call: entry first, __schedule last.
ks_case <<'CASE'
NAME     switch_stack
RUN      --oneline -s -n 1 -c "$probe" 'tp:sched_switch(prev_state & 1 == 1, prev_state)'
WORKLOAD "$tmp/$probe" 0.05; "$tmp/$probe" 0.05
UNTIL    exit
EXPECT   switch_stack_one_line: eq 1 "$(wc -l <"$OUT")"
EXPECT   switch_stack_folded: \
         match ' prev_state=[0-9]+ stack=entry_SYSCALL_64[^ ;]*;([^;]+;)+__schedule\+0x[0-9a-f]+(;__traceiter_sched_switch\+0x[0-9a-f]+)?$'
CASE

# --- --depth: structs nested deeper than N are {...} ---
# The whole task_struct (a line per member): depth 1 shows its own
# members and cuts every struct inside it; depth 2 shows those and cuts
# theirs; depth 0 cuts the task itself.
ks_case <<'CASE'
NAME     depth0
RUN      --depth 0 -n 1 -c "$probe" 'tp:sched_switch(prev)'
WORKLOAD "$tmp/$probe" 0.05; "$tmp/$probe" 0.05
UNTIL    exit
EXPECT   depth0_cut: match '^    prev = 0x[0-9a-f]+ -> \(struct task_struct\)\{\.\.\.\}$'
EXPECT   depth0_one_value: eq 2 "$(wc -l <"$OUT")"
CASE
# Depth 1: members at 8 spaces, nested ones cut there, nothing deeper.
ks_case <<'CASE'
NAME     depth1
RUN      --depth 1 -n 1 -c "$probe" 'tp:sched_switch(prev)'
WORKLOAD "$tmp/$probe" 0.05; "$tmp/$probe" 0.05
UNTIL    exit
EXPECT   depth1_member: match '^        \.pid = [0-9]+,$'
EXPECT   depth1_nested_cut: match '^        \.se = \{\.\.\.\},$'
EXPECT   depth1_nothing_deeper: count 0 '^            '
CASE
# Depth 2: the members of se (struct sched_entity) at 12 spaces, its
# nested structs cut there, nothing at 16.
ks_case <<'CASE'
NAME     depth2
RUN      --depth 2 -n 1 -c "$probe" 'tp:sched_switch(prev)'
WORKLOAD "$tmp/$probe" 0.05; "$tmp/$probe" 0.05
UNTIL    exit
EXPECT   depth2_nested_shown: match '^            \.load = \{\.\.\.\},$'
EXPECT   depth2_scalar_shown: match '^            \.sum_exec_runtime = [1-9][0-9]*,$'
EXPECT   depth2_nothing_deeper: count 0 '^                '
CASE
expect_fewer depth_cuts_lines "$(wc -l <"$tmp/depth1.out")" "$(wc -l <"$tmp/depth2.out")"

# --- USDT on one line: a struct from the program's BTF, values known ---
# fire(i) passes &r (id i, flags 5, path "/srv/a", size 1 << 40) and i;
# a zero id is left out as in the multi-line form.
pfx='^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} usdt_prog ([0-9]+)/\1 -> ksnoop_test:obj arg0:struct req \*=0x[0-9a-f]+->'
ks_case <<'CASE'
NAME     usdt_obj
RUN      --oneline usdt "$P:ksnoop_test:obj(arg0:struct req *, arg1)"
WORKLOAD "$P" fire 3
EXPECT   usdt_exit: exit 0
EXPECT   usdt_lines: eq 3 "$(wc -l <"$OUT")"
EXPECT   usdt_line_0: count 1 "$pfx"'\{\.flags=5, \.path="/srv/a", \.size=1099511627776\} arg1=0$'
EXPECT   usdt_line_1: count 1 "$pfx"'\{\.id=1, \.flags=5, \.path="/srv/a", \.size=1099511627776\} arg1=1$'
EXPECT   usdt_line_2: count 1 "$pfx"'\{\.id=2, \.flags=5, \.path="/srv/a", \.size=1099511627776\} arg1=2$'
CASE

# --- a string from the traced program stays escaped on one line ---
ks_case <<'CASE'
NAME     usdt_req
RUN      --oneline usdt "$P:ksnoop_test:req(arg0, arg1, arg2:str)"
WORKLOAD "$P" fire 2
EXPECT   usdt_req_values: eq 'arg0=0 arg1=-1 arg2:str="/req/0"|arg0=1 arg1=-2 arg2:str="/req/1"' \
         "$(sed 's/.* -> ksnoop_test:req //' "$OUT" | paste -sd'|')"
CASE

# --- a system call: entry and return, a line each, the duration on the
#     return's; with a predicate on the return, the entry values there ---
opener=ksoc$$
cp /bin/cat "$tmp/$opener"
hdr='^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} '"$opener"' ([0-9]+)/\1 '
ks_case <<'CASE'
NAME     sys_openat
RUN      --oneline -n 2 -c "$opener" 'sys:openat(filename, return)'
WORKLOAD "$tmp/$opener" /etc/hostname >/dev/null 2>&1
UNTIL    exit
EXPECT   sys_entry_line: match "$hdr"'-> sys:openat filename="[^"]+"$'
EXPECT   sys_return_line: match "$hdr"'<- sys:openat \([0-9.]+ [mun]?s\) return=[0-9]+$'
EXPECT   sys_two_lines: eq 2 "$(wc -l <"$OUT")"
CASE
# (the file named in a predicate: cat opens others that fail, locales)
ks_case <<'CASE'
NAME     sys_openat_fail
RUN      --oneline -n 1 -c "$opener" "sys:openat(filename == \"$tmp/no such file\", filename, return < 0)"
WORKLOAD "$tmp/$opener" "$tmp/no such file" >/dev/null 2>&1
UNTIL    exit
EXPECT   sys_failed_open_one_line: \
         match "$hdr"'<- sys:openat \([0-9.]+ [mun]?s\) filename="'"$tmp"'/no such file" return=-2 \(ENOENT\)$'
EXPECT   sys_failed_open_lines: eq 1 "$(wc -l <"$OUT")"
CASE

# --- what a traced program chooses stays escaped on one line: a program
#     named ESC [ 3 1 m NEWLINE F<pid>, its comm in the header and a value ---
forged=F$$
name=$'\e[31m\n'$forged
cp /bin/true "$tmp/$name"
ks_case <<'CASE'
NAME     forged
RUN      --oneline -n 1 "tp:sched_process_exec(p->comm == \"\\x1b[31m\\n$forged\", p->comm, bprm->filename)"
WORKLOAD "$tmp/$name"
UNTIL    exit
EXPECT   forged_one_line: eq 1 "$(wc -l <"$OUT")"
EXPECT   forged_no_raw_controls: eq 0 "$(LC_ALL=C grep -c -P '[\x00-\x09\x0b-\x1f\x7f]' "$OUT")"
EXPECT   forged_escaped: \
         match '^[0-9:.]+ \\x1b\[31m\\n'"$forged"' [0-9]+/[0-9]+ -> tp:sched_process_exec p->comm="\\x1b\[31m\\n'"$forged"'" bprm->filename="'"$tmp"'/\\x1b\[31m\\n'"$forged"'"$'
EXPECT   nothing_left: eq '' "$(left_progs "$PROGS")"
CASE
