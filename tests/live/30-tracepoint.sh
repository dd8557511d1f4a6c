#!/bin/bash
# Tracepoint mode, live on this kernel (root): tp_btf works here even
# though kprobes and fentry do not.
. "$(dirname "$0")/helpers.bash"

needs_root tracepoints

scratch_dir

# A uniquely named program, so events are ours alone.
probe=kstp$$
cp /bin/true "$tmp/$probe"



# --- exact count, comm filter, values ---
start "$tmp/o1" "$tmp/e1" -n 3 -c "$probe" \
	'tp:sched_process_exec(p->comm, bprm->filename, bprm->argc, old_pid)' ||
	fail attach "$(cat "$tmp/e1")"
for i in 1 2 3 4 5; do "$tmp/$probe" a b; /bin/true; done
finish
expect_eq count_exits_0 0 "$RC"
expect_eq count_exact 3 "$(grep -c -- "-> tp:sched_process_exec" "$tmp/o1")"
expect_eq comm_filter 3 "$(grep -c " $probe [0-9]*/[0-9]* ->" "$tmp/o1")"
expect_eq comm_value 3 "$(grep -c "^    p->comm = \"$probe\"$" "$tmp/o1")"
expect_eq string_from_kernel 3 "$(grep -c "^    bprm->filename = \"$tmp/$probe\"$" "$tmp/o1")"
expect_eq int_member 3 "$(grep -c '^    bprm->argc = 3$' "$tmp/o1")"
expect_match summary '^ksnoop: 3 events printed, 0 lost$' "$(cat "$tmp/e1")"
expect_eq nothing_left_after_count "" "$(left_progs "$PROGS")"

# --- JSON, parsed ---
start "$tmp/o2" "$tmp/e2" -j -n 2 -c "$probe" \
	'tp:sched_process_exec(p->comm, bprm->filename, old_pid, p)' ||
	fail attach_json "$(cat "$tmp/e2")"
"$tmp/$probe" & p1=$!; wait $p1
"$tmp/$probe" & p2=$!; wait $p2
finish
if jq -e . "$tmp/o2" >/dev/null 2>&1; then pass json_parses; else fail json_parses "$(cat "$tmp/o2")"; fi
expect_eq json_lines 2 "$(events "$tmp/o2" | wc -l)"
# The summary is the stream's last record, not text on stderr.
expect_eq json_summary_last '"summary" 2 0' "$(tail -1 "$tmp/o2" | jq -r '"\(.type | tojson) \(.printed) \(.lost)"')"
expect_eq json_nothing_else 3 "$(wc -l < "$tmp/o2")"
expect_no_match json_no_text_summary 'events printed' "$(cat "$tmp/e2")"
expect_eq json_func "tp:sched_process_exec" "$(events "$tmp/o2" | jq -r .func | sort -u)"
expect_eq json_kind "entry" "$(events "$tmp/o2" | jq -r .kind | sort -u)"
expect_eq json_pids "$p1 $p2" "$(events "$tmp/o2" | jq -r .pid | joined)"
expect_eq json_old_pid_is_pid "$p1 $p2" "$(events "$tmp/o2" | jq -r '.values.old_pid' | joined)"
expect_eq json_filename "$tmp/$probe" "$(events "$tmp/o2" | jq -r '.values["bprm->filename"]' | sort -u)"
expect_eq json_struct_is_object "object" "$(events "$tmp/o2" | jq -r '.values.p | type' | sort -u)"
expect_eq json_struct_member "$p1 $p2" "$(events "$tmp/o2" | jq -r '.values.p.pid' | joined)"
expect_eq json_char_array_string "$probe" "$(events "$tmp/o2" | jq -r '.values.p.comm' | sort -u)"
expect_eq json_keys "comm cpu func kind pid tid time_ns type values" \
	"$(events "$tmp/o2" | jq -r 'keys | join(" ")' | sort -u)"

# --- struct dump, field by field ---
start "$tmp/o3" "$tmp/e3" -n 1 -c "$probe" 'tp:sched_process_exec(bprm)' ||
	fail attach_struct "$(cat "$tmp/e3")"
"$tmp/$probe" x y z
finish
expect_match struct_header '^    bprm = 0x[0-9a-f]+ -> \(struct linux_binprm\)\{$' "$(cat "$tmp/o3")"
expect_match struct_argc '^        \.argc = 4,$' "$(cat "$tmp/o3")"
expect_match struct_pointer_member '^        \.filename = 0x[0-9a-f]+,$' "$(cat "$tmp/o3")"
expect_match struct_nested '^        \.rlim_stack = \{$' "$(cat "$tmp/o3")"
expect_match struct_closed '^    \}$' "$(cat "$tmp/o3")"

# --- string predicate, evaluated in BPF ---
start "$tmp/o4" "$tmp/e4" -n 2 "tp:sched_process_exec(bprm->filename == \"$tmp/$probe\", old_pid)" ||
	fail attach_pred "$(cat "$tmp/e4")"
/bin/true; "$tmp/$probe"; /bin/true; /bin/true; "$tmp/$probe"; /bin/true
finish
expect_eq string_predicate 2 "$(grep -c "^    bprm->filename = \"$tmp/$probe\"$" "$tmp/o4")"
expect_eq string_predicate_only 2 "$(grep -c -- '-> tp:' "$tmp/o4")"

# --- a comm predicate (char array) selects exactly the test's own execs ---
start "$tmp/o12" "$tmp/e12" "tp:sched_process_exec(p->comm == \"$probe\", bprm->argc)" ||
	fail attach_comm_pred "$(cat "$tmp/e12")"
/bin/true; "$tmp/$probe" 1; /bin/true; "$tmp/$probe" 1 2; ls >/dev/null
sleep 0.3
kill -TERM "$KPID"
finish
expect_eq sigterm_exits_0 0 "$RC"
expect_eq comm_predicate 2 "$(grep -c -- '-> tp:sched_process_exec$' "$tmp/o12")"
expect_eq comm_predicate_values "2 3" "$(sed -n 's/^    bprm->argc = //p' "$tmp/o12" | joined)"

# --- an enumerator constant from BTF: TCP state changes on loopback ---
# python3 through a uniquely named link: its comm is ours alone.
if command -v python3 >/dev/null; then
	py=kspy$$
	ln -s "$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')" "$tmp/$py"
	start "$tmp/o13" "$tmp/e13" -c "$py" "tp:inet_sock_set_state(newstate == TCP_ESTABLISHED, oldstate)" ||
		fail attach_enum_pred "$(cat "$tmp/e13")"
	timeout 20 "$tmp/$py" - <<'PY'
import socket
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
c = socket.create_connection(srv.getsockname()); s, _ = srv.accept()
c.close(); s.close(); srv.close()
PY
	sleep 0.3
	kill -INT "$KPID"; finish
	expect_eq enum_predicate 2 "$(grep -c -- '-> tp:inet_sock_set_state$' "$tmp/o13")"
	expect_eq enum_values_printed 2 "$(grep -c '^    newstate = 1$' "$tmp/o13")"
	expect_match enum_oldstate "^    oldstate = (2|3)$" "$(cat "$tmp/o13")"
else
	fail enum_predicate "no python3 for a TCP connection"
fi

# --- a u8 * (skb->data): its address and the bytes it points at, escaped,
#     NULs and all (a UDP datagram on loopback: Ethernet, IP, UDP, ours) ---
if command -v python3 >/dev/null; then
	start "$tmp/o14" "$tmp/e14" -c "$py" --str-bytes 64 "tp:net_dev_queue(skb->data, skb->len == 54)" ||
		fail attach_u8_ptr "$(cat "$tmp/e14")"
	timeout 20 "$tmp/$py" -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"ksnoop-u8\0\1\377", ("127.0.0.1", 9))'
	sleep 0.3
	kill -INT "$KPID"; finish
	expect_match u8_ptr_bytes \
		'^    skb->data = 0x[0-9a-f]+ -> "(\\x00){12}\\x08\\x00E.*ksnoop-u8\\x00\\x01\\xff' "$(cat "$tmp/o14")"
	expect_eq u8_ptr_once 1 "$(grep -c -- '-> tp:net_dev_queue$' "$tmp/o14")"
fi

# --- --str-bytes on a kernel string: N - 1 characters fit, more are cut ---
len=${#tmp}
len=$((len + 1 + ${#probe}))	# "$tmp/$probe"
for n in $((len + 1)) "$len"; do
	start "$tmp/s$n" "$tmp/se$n" -n 1 --str-bytes "$n" -c "$probe" 'tp:sched_process_exec(bprm->filename)' ||
		fail "attach_str_bytes_$n" "$(cat "$tmp/se$n")"
	"$tmp/$probe"
	finish
done
expect_eq kernel_str_exact_fit_not_truncated "    bprm->filename = \"$tmp/$probe\"" \
	"$(grep filename "$tmp/s$((len + 1))")"
expect_eq kernel_str_truncated "    bprm->filename = \"${tmp}/${probe%?}\"... /* truncated at $len bytes */" \
	"$(grep filename "$tmp/s$len")"

# --- pid filter: two busy processes, one traced ---
bash -c 'while :; do read -t 0.01 < /dev/null; done' & busy1=$!
bash -c 'while :; do read -t 0.01 < /dev/null; done' & busy2=$!
start "$tmp/o5" "$tmp/e5" -j -n 20 -p "$busy1" 'tp:sys_enter(id)' ||
	fail attach_pid "$(cat "$tmp/e5")"
finish
kill -9 "$busy1" "$busy2" 2>/dev/null; wait "$busy1" "$busy2" 2>/dev/null
expect_eq pid_filter_count 20 "$(events "$tmp/o5" | wc -l)"
expect_eq pid_filter_only_target "$busy1" "$(events "$tmp/o5" | jq -r .pid | sort -u)"

# --- tid filter ---
bash -c 'while :; do read -t 0.01 < /dev/null; done' & busy3=$!
start "$tmp/o10" "$tmp/e10" -j -n 5 --tid "$busy3" 'tp:sys_enter(id)' ||
	fail attach_tid "$(cat "$tmp/e10")"
finish
kill -9 "$busy3" 2>/dev/null; wait "$busy3" 2>/dev/null
expect_eq tid_filter_only "$busy3" "$(events "$tmp/o10" | jq -r .tid | sort -u)"

# --- a flood into a tiny ring buffer: losses are counted and reported ---
start "$tmp/o11" "$tmp/e11" --buffer 4096 --duration 2 'tp:sys_enter(regs, id)' ||
	fail attach_flood "$(cat "$tmp/e11")"
for i in $(seq 3000); do :; done; ls -R /usr/lib >/dev/null 2>&1
finish
expect_eq flood_exits_0 0 "$RC"
lost=$(sed -n 's/^ksnoop: [0-9]* events printed, \([0-9]*\) lost.*/\1/p' "$tmp/e11")
if [ -n "$lost" ] && [ "$lost" -gt 0 ]; then pass flood_lost_counted; else fail flood_lost_counted "$(cat "$tmp/e11")"; fi
expect_match flood_lost_reported_while_running 'warning: [0-9]+ events lost so far' "$(cat "$tmp/e11")"

# --- duration, SIGINT, SIGKILL: clean exit, nothing left attached ---
start "$tmp/o6" "$tmp/e6" --duration 1 'tp:sched_process_exec' ||
	fail attach_duration "$(cat "$tmp/e6")"
finish
expect_eq duration_exits_0 0 "$RC"
expect_eq nothing_left_after_duration "" "$(left_progs "$PROGS")"

start "$tmp/o7" "$tmp/e7" -c "$probe" 'tp:sched_process_exec(bprm->filename)' ||
	fail attach_sigint "$(cat "$tmp/e7")"
"$tmp/$probe"
sleep 0.3
kill -INT "$KPID"
finish
expect_eq sigint_exits_0 0 "$RC"
expect_eq sigint_output_flushed 1 "$(grep -c "filename = \"$tmp/$probe\"" "$tmp/o7")"
expect_match sigint_summary '^ksnoop: 1 events printed, 0 lost$' "$(cat "$tmp/e7")"
expect_eq nothing_left_after_sigint "" "$(left_progs "$PROGS")"

start "$tmp/o8" "$tmp/e8" 'tp:sched_switch' || fail attach_sigkill "$(cat "$tmp/e8")"
expect_eq attached_while_running 1 "$(echo $PROGS | wc -w)"
kill -KILL "$KPID"; wait "$KPID" 2>/dev/null
finish
sleep 0.5
expect_eq nothing_left_after_sigkill "" "$(left_progs "$PROGS")"

# --- stdout closed early: quiet, status 0 ---
out=$( { ks 'tp:sched_switch(prev->comm)' 2>"$tmp/e9"; echo "rc=$?" >"$tmp/rc9"; } | head -1)
expect_match pipe_head_got_line '^[0-9:.]+ cpu' "$out"
expect_eq pipe_closed_status "rc=0" "$(cat "$tmp/rc9")"
expect_eq pipe_closed_quiet "" "$(cat "$tmp/e9")"

# --- -s: the kernel stack at the tracepoint, symbolised, tracer frames left out ---
start "$tmp/o13" "$tmp/e13" -s -n 1 -c "$probe" 'tp:sched_process_exec(old_pid)' ||
	fail attach_stack "$(cat "$tmp/e13")"
"$tmp/$probe"
finish
expect_eq stack_exits_0 0 "$RC"
# exec() reaches the tracepoint through the exec path and a syscall.
expect_match stack_exec_path '^        (bprm_execve|exec_binprm|do_execveat_common|__x64_sys_execve)[+.]' "$(cat "$tmp/o13")"
expect_match stack_syscall_entry '^        (do_syscall_64|entry_SYSCALL_64[a-z_]*)\+0x[0-9a-f]+,?$' "$(cat "$tmp/o13")"
expect_no_match stack_no_tracer_frames 'bpf_prog_|bpf_trace_run|\[bpf\]' "$(cat "$tmp/o13")"
start "$tmp/o14" "$tmp/e14" -j -s -n 1 -c "$probe" 'tp:sched_process_exec(old_pid)' ||
	fail attach_stack_json "$(cat "$tmp/e14")"
"$tmp/$probe"
finish
expect_eq stack_json_innermost_first "true" \
	"$(events "$tmp/o14" | jq -r '(.stack | length > 2) and (.stack[-1] | test("^entry_SYSCALL|^do_syscall"))')"

# Where raw_tp programs have BPF cookies (6.10 on), a glob's tracepoints
# share programs as kprobe globs do: the cookie says which one fired.
if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	awk '/STRUCT .bpf_raw_tp_link. /{s=1; next} s && /^\[/{exit} s && /.cookie./{f=1} END{exit !f}'; then
	tp_cookies=1
else
	tp_cookies=0
fi

# --- --count: calls per function, summed in BPF, no events ---
start "$tmp/o15" "$tmp/e15" --count -c "$probe" 'tp:sched_process_exec' 'tp:sched_process_exit' ||
	fail attach_count "$(cat "$tmp/e15")"
for i in 1 2 3; do "$tmp/$probe"; done
stop
expect_eq count_exits_0 0 "$RC"
expect_eq count_header '       CALLS  FUNCTION' "$(head -1 "$tmp/o15")"
# Three execs; each exit of the program's one thread counts too.
expect_match count_exec '^ +3  tp:sched_process_exec$' "$(cat "$tmp/o15")"
expect_match count_exit '^ +3  tp:sched_process_exit$' "$(cat "$tmp/o15")"
expect_no_match count_no_events ' -> tp:' "$(cat "$tmp/o15")"
expect_match count_summary '^ksnoop: 6 calls counted$' "$(cat "$tmp/e15")"
# Tracepoints that share a program (a glob's, where raw_tp has cookies:
# sched_process_exit and _fork both take two arguments) are counted each by
# its own cookie, not all as the group's first.  A copy of sh under a name
# of ours forks a child once a run: 1 exec, 1 fork, 2 exits (child, itself).
forker=ksfork$$
cp /bin/sh "$tmp/$forker"
start "$tmp/o25" "$tmp/e25" --count -c "$forker" 'tp:sched_process_[ef][xo]*' ||
	fail attach_count_shared "$(cat "$tmp/e25")"
for i in 1 2 3; do "$tmp/$forker" -c ': & wait'; done
stop
if [ "$tp_cookies" = 1 ]; then
	expect_match count_shared_program 'sched_process_(exit|fork) and 1 more: one program, 2 tracepoints' "$(cat "$tmp/e25")"
fi
expect_eq count_shared_each "$(printf '%12s  %s\n' 3 tp:sched_process_exec 6 tp:sched_process_exit 3 tp:sched_process_fork)" \
	"$(grep ' tp:' "$tmp/o25" | sort -k2)"
# Predicates hold before a call is counted.
start "$tmp/o16" "$tmp/e16" -j --count -c "$probe" "tp:sched_process_exec(bprm->argc == 2)" ||
	fail attach_count_pred "$(cat "$tmp/e16")"
"$tmp/$probe"; "$tmp/$probe" x; "$tmp/$probe" y z
stop
expect_eq count_json_pred '{"type":"count","func":"tp:sched_process_exec","count":1}
{"type":"summary","counted":1,"not_printed":0,"not_counted":0,"unreadable":0,"stacks_not_taken":0,"not_followed":0,"missed":0}' "$(cat "$tmp/o16")"
# With -s, per stack; --folded for flame graphs.
start "$tmp/o17" "$tmp/e17" --count -s --folded -c "$probe" 'tp:sched_process_exec' ||
	fail attach_count_folded "$(cat "$tmp/e17")"
"$tmp/$probe"; "$tmp/$probe"
stop
expect_match count_folded_line '^[a-zA-Z_0-9.]+(;[a-zA-Z_0-9.]+)*;tp:sched_process_exec 2$' "$(cat "$tmp/o17")"
expect_match count_folded_syscall '^entry_SYSCALL_64[a-z_]*;do_syscall_64;' "$(cat "$tmp/o17")"
# --interval: printed and reset each period.
start "$tmp/o18" "$tmp/e18" --count --interval 1 'tp:sched_switch' ||
	fail attach_count_interval "$(cat "$tmp/e18")"
# Two periods printed (however long a loaded machine takes), then the end's.
i=0
while [ "$(grep -c 'CALLS  FUNCTION' "$tmp/o18")" -lt 2 ] && [ $i -lt 600 ] && kill -0 "$KPID" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
stop
if [ "$(grep -c 'CALLS  FUNCTION' "$tmp/o18")" -ge 3 ]; then pass count_interval_periods
else fail count_interval_periods "$(cat "$tmp/o18")"; fi

# --- --hist: a log2 histogram of one value per function, in BPF ---
start "$tmp/o19" "$tmp/e19" --hist -c "$probe" 'tp:sched_process_exec(bprm->argc)' ||
	fail attach_hist "$(cat "$tmp/e19")"
"$tmp/$probe"; "$tmp/$probe" a; "$tmp/$probe" a b; "$tmp/$probe" a b c
stop
# argc 1, 2, 3, 4: one in [1], two in [2, 4), one in [4, 8).
expect_eq hist_header 'tp:sched_process_exec: bprm->argc (4 calls)' "$(head -1 "$tmp/o19")"
expect_match hist_one '^\[1\] +1 \|@+ *\|$' "$(cat "$tmp/o19")"
expect_match hist_two_four '^\[2, 4\) +2 \|@{52}\|$' "$(cat "$tmp/o19")"
expect_match hist_four_eight '^\[4, 8\) +1 \|@{26} {26}\|$' "$(cat "$tmp/o19")"
# Percentiles off the buckets; the max exact (kept in BPF).
expect_match hist_percentiles '^p50 < 4  p90 < 8  p99 < 8  max = 4$' "$(cat "$tmp/o19")"
start "$tmp/o20" "$tmp/e20" -j --hist -c "$probe" 'tp:sched_process_exec(bprm->argc, old_pid > 0)' ||
	fail attach_hist_json "$(cat "$tmp/e20")"
"$tmp/$probe" a b c d e f g
stop
expect_eq hist_json '{"type":"hist","func":"tp:sched_process_exec","value":"bprm->argc","count":1,"buckets":[{"min":8,"max":15,"count":1}],"p50":15,"p90":15,"p99":15,"max":8}' "$(record hist "$tmp/o20")"
expect_eq hist_json_summary '1' "$(record summary "$tmp/o20" | jq .counted)"

# --- ksnoop leaves out its own calls: printing an event is system calls,
# which would be events to print in turn (a loop that never idles).
# ksnoop runs by the probe's name, so -c keeps its calls and ours and
# nothing of the machine's (another process's flood of system calls
# would fill the ring buffer and lose ours) ---
mkdir "$tmp/self"
ln -s "$K" "$tmp/self/$probe"
KCMD=("$tmp/self/$probe")
start "$tmp/o21" "$tmp/e21" -j -c "$probe" 'tp:sys_enter(id)' || fail attach_self "$(cat "$tmp/e21")"
KCMD=("$K")
for i in 1 2 3; do "$tmp/$probe"; done
stop
expect_eq self_left_out 0 "$(events "$tmp/o21" | jq --argjson p "$KPID" 'select(.pid == $p) | .pid' | wc -l)"
if [ "$(events "$tmp/o21" | jq -r --arg c "$probe" 'select(.comm == $c) | .pid' | sort -u | wc -l)" -ge 3 ]; then
	pass self_others_seen
else
	fail self_others_seen "$(events "$tmp/o21" | jq -r .comm | sort | uniq -c | sort -rn | head)"
fi

# --- globs over tracepoints: one target per match, values that do not
# fit a match leave it out; TYPE NAME selects tracepoints by argument type ---
start "$tmp/o22" "$tmp/e22" -c "$probe" 'tp:sched_process_ex*(p->pid)' ||
	fail attach_tp_glob "$(cat "$tmp/e22")"
# (exec has 3 arguments and exit 2: a program each, cookies or not)
expect_eq tp_glob_targets 2 "$(echo $PROGS | wc -w)"
"$tmp/$probe"
stop
expect_eq tp_glob_exits_0 0 "$RC"
expect_eq tp_glob_exec 1 "$(grep -c -- "-> tp:sched_process_exec$" "$tmp/o22")"
expect_eq tp_glob_exit 1 "$(grep -c -- "-> tp:sched_process_exit$" "$tmp/o22")"
expect_match tp_glob_summary 'tp:sched_process_ex\*\(p->pid\): 2 tracepoint\(s\) match, 2 traced, 0 left out' "$(cat "$tmp/e22")"
expect_eq tp_glob_nothing_left "" "$(left_progs "$PROGS")"
# A program per match: once attached, each keeps its link and program
# open, not its object's maps and BTF (some 16 fds a match before: 15 of
# the 35 sched_* tracepoints attached under a limit of 256).
n=$(ks info 'tp:sched_*' | wc -l)
out=$( (ulimit -n 256; ks -v --count --duration 1 'tp:sched_*' 2>&1 >/dev/null) )
expect_match tp_glob_few_fds_each "tracing $n target\(s\)" "$out"
# sched_wake_idle_without_ipi has no 'p': left out, the others traced.
out=$(ks -v --duration 1 'tp:sched_wak*(p->pid)' 2>&1 >/dev/null)
expect_match tp_glob_left_out "tp:sched_wak\\*\\(p->pid\\): 1 left out: 'p' is not an argument .* \\(first: tp:sched_wake_idle_without_ipi\\)$" "$out"
out2=$(ks -vv --duration 1 'tp:sched_wak*(p->pid)' 2>&1 >/dev/null)
expect_match tp_glob_left_out_vv "tp:sched_wake_idle_without_ipi left out: 'p' is not an argument" "$out2"
expect_match tp_glob_left_out_counted 'tracepoint\(s\) match, [1-9][0-9]* traced, 1 left out' "$out"
# ... the 3 others take p alone: one program where raw_tp has cookies
if [ "$tp_cookies" = 1 ]; then
	expect_match tp_glob_shared 'sched_wak[a-z_]+ and 2 more: one program, 3 tracepoints' "$out"
else
	expect_match tp_glob_program_each '3 glob matches in 3 program' "$out"
fi
# The probe for raw_tp cookies agrees with the BTF, and a kernel without
# them (injected) gets a program per tracepoint.
expect_match tp_cookies_probed "tp_cookies $([ "$tp_cookies" = 1 ] && echo yes || echo no)," "$out"
if [ "$tp_cookies" = 1 ]; then
	out=$(KSNOOP_FEATURES=-tp_cookies ks -v --duration 1 'tp:sched_wak*(p->pid)' 2>&1 >/dev/null)
	expect_match tp_glob_injected_no_cookies '^ksnoop: 3 program instance\(s\) loaded' "$out"
	expect_match tp_glob_injected_said 'tp_cookies no \(KSNOOP_FEATURES\)' "$out"
fi
expect_error tp_glob_none 2 "^ksnoop: spec 'tp:nosuch_\*': no tracepoint matches 'tp:nosuch_\*'$" \
	--duration 1 'tp:nosuch_*'
expect_error tp_glob_none_fit 2 "matches 1 tracepoint\(s\), none of them traceable with these values \(tp:sched_wake_idle_without_ipi: 'p' is not an argument" \
	--duration 1 'tp:sched_wake_idle*(p->pid)'
# Tracepoints whose plans differ in where their values are share programs,
# by their number of arguments, where raw_tp has cookies: signal_generate
# (the task third of 5) with sched_compute_energy_tp (first), sched_switch
# (second of 4) with sched_stick_numa and sched_swap_numa (first). Each
# must read its own (values by cookie): the victim's pid is seen where the
# victim is the task.
# The victim and the kill that signals it run by one name of this run's
# own, and -c keeps only their events: the machine's flood of context
# switches (another suite's) cannot fill the ring buffer and lose them.
vn=ksv$$
mkdir "$tmp/victim" "$tmp/killer"
ln -s "$(command -v sleep)" "$tmp/victim/$vn"
ln -s "$(type -P kill)" "$tmp/killer/$vn"
"$tmp/victim/$vn" 30 &
victim=$!
start "$tmp/o24" "$tmp/e24" -j -c "$vn" 'tp:s[ic]*(struct task_struct *t, t->pid)' ||
	fail attach_tp_values_per_tp "$(cat "$tmp/e24")"
{ "$tmp/killer/$vn" -USR1 "$victim"; wait "$victim"; } 2>/dev/null
stop
victim_at() { events "$tmp/o24" | jq -c --arg f "tp:$1" --argjson v "$victim" 'select(.func == $f and .values["t->pid"] == $v) | .pid' | wc -l; }
expect_eq tp_values_signal 1 "$(victim_at signal_generate)"
expect_eq tp_values_exit 1 "$(victim_at sched_process_exit)"
if [ "$(victim_at sched_switch)" -ge 1 ]; then pass tp_values_switch; else fail tp_values_switch "$(grep -c sched_switch "$tmp/o24") sched_switch events, none with t->pid $victim"; fi
if [ "$tp_cookies" = 1 ]; then
	expect_match tp_values_shared_4 'and 2 more: one program, 3 tracepoints' "$(cat "$tmp/e24")"
	expect_match tp_values_shared_5 'and 1 more: one program, 2 tracepoints' "$(cat "$tmp/e24")"
	expect_fewer tp_values_fewer_programs "$(echo $PROGS | wc -w)" \
		"$(sed -n 's/.*tracepoint(s) match, \([0-9]*\) traced.*/\1/p' "$tmp/e24")" "programs (tracepoints traced)"
fi
expect_eq tp_values_nothing_left "" "$(left_progs "$PROGS")"
# A glob by type whose values fit none: the reason given is one from a
# tracepoint that has the type (the string), not 'no argument of that type'.
expect_error tp_decl_glob_reason 2 "none of them traceable with these values \(tp:[a-z0-9_]+: string constant compared with 's->len' of type unsigned int" \
	--duration 1 'tp:*(struct sk_buff *s, s->len > "x")'
# Comparing two values is not a predicate: said where the second begins.
expect_error pred_two_values 2 "^ksnoop: spec 'tp:sched_switch\(prev->pid == next->pid\)': column 30: a predicate compares a value with a constant" \
	--duration 1 'tp:sched_switch(prev->pid == next->pid)'
# Every tracepoint with a struct linux_binprm * argument: exec's.
start "$tmp/o23" "$tmp/e23" -c "$probe" 'tp:*(struct linux_binprm *b, b->filename)' ||
	fail attach_tp_decl "$(cat "$tmp/e23")"
"$tmp/$probe"
stop
expect_eq tp_decl_event 1 "$(grep -c "b->filename = \"$tmp/$probe\"" "$tmp/o23")"
expect_match tp_decl_which '^[0-9:.]+ cpu[0-9]+ .* -> tp:sched_process_exec$' "$(cat "$tmp/o23")"
# One tracepoint named, with a declaration: its own errors.
expect_error tp_decl_named_unknown 2 "unknown tracepoint 'sched_swtch' \(did you mean 'tp:sched_switch'\?\)$" \
	--duration 1 'tp:sched_swtch(struct task_struct *t, t->pid)'
expect_error tp_decl_named_no_such_type 2 "^ksnoop: spec 'tp:sched_switch\(struct sk_buff \*t, t->len\)': tp:sched_switch: no argument of type struct sk_buff \*$" \
	--duration 1 'tp:sched_switch(struct sk_buff *t, t->len)'

# --- categories (tp:CATEGORY:NAME) are tracefs's: checked, and a glob ---
# ksnoop runs in a mount namespace of its own, with tracefs or without:
# each case runs on every machine, and the machine's mounts (another run's
# tracefs) are never touched.  Without tracefs, ksnoop mounts it in a mount
# namespace of its own and answers a category glob from it.
out=$(K=$(private_ksnoop no-tracefs) ks -v info 'tp:sched:sched_switc*' 2>"$tmp/notracefs.err"); rc=$?
expect_eq tp_category_glob_needs_tracefs "0 tp:sched_switch" "$rc $(printf '%s\n' "$out" | sed -n 's/(.*//p' | joined)"
expect_match tracefs_mounted_for_itself '^ksnoop: tracefs: mounted on /sys/kernel/tracing for ksnoop alone$' \
	"$(cat "$tmp/notracefs.err")"
host_k=$K
K=$(private_ksnoop tracefs)
sched_events=$(unshare -m --propagation private sh -c \
	'mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing; ls /sys/kernel/tracing/events/sched')
out=$(ks info 'tp:sched:sched_process_ex*' 2>&1)
expect_eq tp_category_glob "tp:sched_process_exec
tp:sched_process_exit" "$(sed 's/(.*//' <<<"$out")"
out=$(ks info 'tp:sched:*' 2>&1)
expect_match tp_category_has_switch '^tp:sched_switch\(' "$out"
expect_no_match tp_category_only_its_own '^tp:(sys_enter|sched_update_nr_running_tp)\(' "$out"
expect_eq tp_category_all_in_tracefs "" "$(sed 's/^tp:\([a-z0-9_]*\)(.*/\1/' <<<"$out" | while read -r n; do grep -qx "$n" <<<"$sched_events" || echo "$n"; done)"
out=$(ks info 'tp:sch?d:sched_switch' 2>&1)
expect_match tp_category_itself_a_glob '^tp:sched_switch\(' "$out"
expect_error tp_wrong_category 2 "^ksnoop: spec 'tp:irq:sched_switch': tracepoint 'sched_switch' is in category 'sched', not 'irq'$" \
	info 'tp:irq:sched_switch'
expect_error tp_wrong_category_glob 2 "^ksnoop: spec 'tp:irq:sched_\*': no tracepoint matches 'tp:irq:sched_\*'$" \
	--duration 1 'tp:irq:sched_*'
K=$host_k

# --- syscall events are tp:syscalls:sys_enter_X / sys_exit_X (typed from
# tracefs: live/32-syscalls.sh); a name in that category that is neither
# says how they are named ---
expect_error syscall_event 2 "^ksnoop: spec 'tp:syscalls:openat\(filename\)': unknown tracepoint 'syscalls:openat': a system call's events are tp:syscalls:sys_enter_NAME and tp:syscalls:sys_exit_NAME; sys:NAME traces both as one call$" \
	--duration 1 'tp:syscalls:openat(filename)'
expect_error syscall_event_glob 2 "^ksnoop: spec 'tp:syscalls:open\*': no tracepoint matches 'tp:syscalls:open\*': a system call's events are tp:syscalls:sys_enter_NAME and tp:syscalls:sys_exit_NAME; sys:NAME traces both as one call$" \
	info 'tp:syscalls:open*'

# --- ksnoop's own calls are left out, and counted: on tp:sched_switch,
# which fires in the task switching out, with -c the name of a copy of
# ksnoop, every event selected is a switch from this ksnoop itself (it
# sleeps waiting for events after attaching): none printed, the summary
# says how many were left out; in JSON "own_left_out" ---
self=ksown$$
cp "$K" "$tmp/$self"
KCMD=("$tmp/$self")
start "$tmp/o30" "$tmp/e30" -c "$self" 'tp:sched_switch(prev->pid)' || fail attach_own "$(cat "$tmp/e30")"
stop
expect_eq own_exits_0 0 "$RC"
expect_eq own_none_printed 0 "$(grep -c -- '-> tp:sched_switch$' "$tmp/o30")"
expect_match own_counted_in_summary "^ksnoop: 0 events printed, 0 lost, [1-9][0-9]* of ksnoop's own calls left out$" \
	"$(grep '^ksnoop: [0-9]* events printed' "$tmp/e30")"
start "$tmp/o31" "$tmp/e31" -j -c "$self" 'tp:sched_switch(prev->pid)' || fail attach_own_json "$(cat "$tmp/e31")"
stop
expect_eq own_json_exits_0 0 "$RC"
expect_eq own_json_summary "0 true" \
	"$(record summary "$tmp/o31" | jq -r '"\(.printed) \(.own_left_out > 0)"')"
KCMD=("$K")
