#!/bin/bash
# Tracepoint mode, live on this kernel (root): tp_btf works here even
# though kprobes and fentry do not.  Each run of ksnoop is a case
# (ks_case, tests/lib/cases.sh); the errors are a table (ks_errors)
# whose exact messages are in tests/golden/30-tracepoint/.
. "$(dirname "$0")/helpers.bash"
golden=$(cd "$(dirname "$0")/../golden/30-tracepoint" && pwd)

needs_root tracepoints

scratch_dir

# A uniquely named program, so events are ours alone.
probe=kstp$$
cp /bin/true "$tmp/$probe"

# at_least MIN N: "yes", or why not (for EXPECT text '^yes$').
at_least() { if [ "${2:-0}" -ge "$1" ] 2>/dev/null; then echo yes; else echo "no: '$2' < $1"; fi; }
# Where raw_tp programs have BPF cookies (6.10 on), a glob's tracepoints
# share programs as kprobe globs do: the cookie says which one fired.
if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null |
	awk '/STRUCT .bpf_raw_tp_link. /{s=1; next} s && /^\[/{exit} s && /.cookie./{f=1} END{exit !f}'; then
	tp_cookies=1
else
	tp_cookies=0
fi

# --- exact count, comm filter, values ---
ks_case <<'CASE'
NAME     count
RUN      -n 3 -c "$probe" 'tp:sched_process_exec(p->comm, bprm->filename, bprm->argc, old_pid)'
WORKLOAD for i in 1 2 3 4 5; do "$tmp/$probe" a b; /bin/true; done
UNTIL    exit
EXPECT   count_exits_0: exit 0
EXPECT   count_exact: count 3 '-> tp:sched_process_exec'
EXPECT   comm_filter: count 3 " $probe [0-9]*/[0-9]* ->"
EXPECT   comm_value: count 3 "^    p->comm = \"$probe\"$"
EXPECT   string_from_kernel: count 3 "^    bprm->filename = \"$tmp/$probe\"$"
EXPECT   int_member: count 3 '^    bprm->argc = 3$'
EXPECT   summary: stderr '^ksnoop: 3 events printed, 0 lost$'
EXPECT   nothing_left_after_count: eq '' "$(left_progs "$PROGS")"
CASE

# --- JSON, parsed ---
run_two() { "$tmp/$probe" & p1=$!; wait $p1; "$tmp/$probe" & p2=$!; wait $p2; }
# Every map is created at the first try: libbpf's debug output (-d) names
# none it had to create again without BTF (a key type without a value
# type is refused by the kernel).
ks_case <<'CASE'
NAME     maps_first_try
RUN      -d -n 1 -c "$probe" 'tp:sched_process_exec(p->comm)'
WORKLOAD "$tmp/$probe" a
UNTIL    exit
EXPECT   maps_created: stderr "map '[a-z_]+': created successfully|Created map"
EXPECT   maps_no_retry: eq 0 "$(grep -c 'Retrying without BTF' "$ERR")"
CASE

# Start-up (docs/PERFORMANCE.md): libbpf loads with ksnoop's vmlinux BTF
# (attach/btf_lend.c), never parsing the file again itself (its debug
# line says when it does), and opens an object without the 21,000
# labels and the DWARF that only tools read (Makefile, ksnoop.min.bpf.o).
ks_case <<'CASE'
NAME     startup_one_parse
RUN      -d -n 1 -c "$probe" 'tp:sched_process_exec(p->comm)'
WORKLOAD "$tmp/$probe" a
UNTIL    exit
# A tracepoint's programs need none of it from libbpf (no CO-RE relocations:
# the kernel's fields come from ksnoop's own parse, klayout.c).
EXPECT   vmlinux_btf_lent: stderr "^ksnoop: vmlinux BTF: ksnoop's lent to libbpf 0 time\(s\), parsed for libbpf 0 time\(s\)$"
EXPECT   kernel_fields_found: stderr '^ksnoop: kernel fields: 1[01] of 12 found in vmlinux BTF'
EXPECT   no_core_relocations: eq 0 "$(grep -c 'CO-RE relocations' "$ERR")"
EXPECT   libbpf_parsed_no_vmlinux: eq 0 "$(grep -c 'loaded kernel BTF from' "$ERR")"
EXPECT   object_few_symbols: text '^yes$' "$(n=$(sed -n 's/.*looking for externs among \([0-9]*\) symbols.*/\1/p' "$ERR" | head -1); if [ -n "$n" ] && [ "$n" -le 1000 ]; then echo yes; else echo "no: '$n' symbols"; fi)"
CASE

ks_case <<'CASE'
NAME     json
RUN      -j -n 2 -c "$probe" 'tp:sched_process_exec(p->comm, bprm->filename, old_pid, p)'
WORKLOAD run_two
UNTIL    exit
EXPECT   json_parses: json
EXPECT   json_lines: eq 2 "$(events "$OUT" | wc -l)"
# The summary is the stream's last record, not text on stderr.
EXPECT   json_summary_last: eq '"summary" 2 0' "$(tail -1 "$OUT" | jq -r '"\(.type | tojson) \(.printed) \(.lost)"')"
EXPECT   json_nothing_else: eq 3 "$(wc -l < "$OUT")"
EXPECT   json_no_text_summary: eq 0 "$(grep -c 'events printed' "$ERR")"
EXPECT   json_func: eq tp:sched_process_exec "$(events "$OUT" | jq -r .func | sort -u)"
EXPECT   json_kind: eq entry "$(events "$OUT" | jq -r .kind | sort -u)"
EXPECT   json_pids: eq "$p1 $p2" "$(events "$OUT" | jq -r .pid | joined)"
EXPECT   json_old_pid_is_pid: eq "$p1 $p2" "$(events "$OUT" | jq -r '.values.old_pid' | joined)"
EXPECT   json_filename: eq "$tmp/$probe" "$(events "$OUT" | jq -r '.values["bprm->filename"]' | sort -u)"
EXPECT   json_struct_is_object: eq object "$(events "$OUT" | jq -r '.values.p | type' | sort -u)"
EXPECT   json_struct_member: eq "$p1 $p2" "$(events "$OUT" | jq -r '.values.p.pid' | joined)"
EXPECT   json_char_array_string: eq "$probe" "$(events "$OUT" | jq -r '.values.p.comm' | sort -u)"
EXPECT   json_keys: eq 'cgroup comm cpu func kind pid tid time_ns type values' \
                   "$(events "$OUT" | jq -r 'keys | join(" ")' | sort -u)"
CASE

# --- struct dump, field by field ---
ks_case <<'CASE'
NAME     struct
RUN      -n 1 -c "$probe" 'tp:sched_process_exec(bprm)'
WORKLOAD "$tmp/$probe" x y z
UNTIL    exit
EXPECT   struct_header: match '^    bprm = 0x[0-9a-f]+ -> \(struct linux_binprm\)\{$'
EXPECT   struct_argc: match '^        \.argc = 4,$'
EXPECT   struct_pointer_member: match '^        \.filename = 0x[0-9a-f]+,$'
EXPECT   struct_nested: match '^        \.rlim_stack = \{$'
EXPECT   struct_closed: match '^    \}$'
CASE

# --- string predicate, evaluated in BPF ---
ks_case <<'CASE'
NAME     string_predicate
RUN      -n 2 "tp:sched_process_exec(bprm->filename == \"$tmp/$probe\", old_pid)"
WORKLOAD /bin/true; "$tmp/$probe"; /bin/true; /bin/true; "$tmp/$probe"; /bin/true
UNTIL    exit
EXPECT   string_predicate: count 2 "^    bprm->filename = \"$tmp/$probe\"$"
EXPECT   string_predicate_only: count 2 '-> tp:'
CASE

# --- a comm predicate (char array) selects exactly the test's own execs;
#     SIGTERM once both are printed ends it with status 0 ---
ks_case <<'CASE'
NAME     comm_predicate
RUN      "tp:sched_process_exec(p->comm == \"$probe\", bprm->argc)"
WORKLOAD /bin/true; "$tmp/$probe" 1; /bin/true; "$tmp/$probe" 1 2; ls >/dev/null
WORKLOAD wait_lines "$OUT" 4; kill -TERM "$KPID"
UNTIL    exit
EXPECT   sigterm_exits_0: exit 0
EXPECT   comm_predicate: count 2 '-> tp:sched_process_exec$'
EXPECT   comm_predicate_values: eq '2 3' "$(sed -n 's/^    bprm->argc = //p' "$OUT" | joined)"
CASE

# --- an enumerator constant from BTF: TCP state changes on loopback ---
# python3 through a uniquely named link: its comm is ours alone.
py=kspy$$
tcp_connect() {
	timeout 20 "$tmp/$py" - <<'PY'
import socket
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
c = socket.create_connection(srv.getsockname()); s, _ = srv.accept()
c.close(); s.close(); srv.close()
PY
}
if command -v python3 >/dev/null; then
	ln -s "$(python3 -c 'import os, sys; print(os.path.realpath(sys.executable))')" "$tmp/$py"
	ks_case <<-'CASE'
	NAME     enum_predicate
	RUN      -c "$py" "tp:inet_sock_set_state(newstate == TCP_ESTABLISHED, oldstate)"
	WORKLOAD tcp_connect; wait_lines "$OUT" 6
	EXPECT   enum_predicate: count 2 '-> tp:inet_sock_set_state$'
	EXPECT   enum_values_printed: count 2 '^    newstate = 1$'
	EXPECT   enum_oldstate: match '^    oldstate = (2|3)$'
	CASE

	# --- a u8 * (skb->data): its address and the bytes it points at,
	#     escaped, NULs and all (a UDP datagram on loopback: Ethernet, IP,
	#     UDP, ours) ---
	ks_case <<-'CASE'
	NAME     u8_ptr
	RUN      -c "$py" --str-bytes 64 "tp:net_dev_queue(skb->data, skb->len == 54)"
	WORKLOAD timeout 20 "$tmp/$py" -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"ksnoop-u8\0\1\377", ("127.0.0.1", 9))'
	WORKLOAD wait_lines "$OUT" 2
	EXPECT   u8_ptr_bytes: match '^    skb->data = 0x[0-9a-f]+ -> "(\\x00){12}\\x08\\x00E.*ksnoop-u8\\x00\\x01\\xff'
	EXPECT   u8_ptr_once: count 1 '-> tp:net_dev_queue$'
	CASE
else
	fail enum_predicate "no python3 for a TCP connection"
fi

# --- --str-bytes on a kernel string: N - 1 characters fit, more are cut ---
len=${#tmp}
len=$((len + 1 + ${#probe}))	# "$tmp/$probe"
ks_case <<'CASE'
NAME     str_bytes_fit
RUN      -n 1 --str-bytes $((len + 1)) -c "$probe" 'tp:sched_process_exec(bprm->filename)'
WORKLOAD "$tmp/$probe"
UNTIL    exit
EXPECT   kernel_str_exact_fit_not_truncated: eq "    bprm->filename = \"$tmp/$probe\"" "$(grep filename "$OUT")"
CASE
ks_case <<'CASE'
NAME     str_bytes_cut
RUN      -n 1 --str-bytes $len -c "$probe" 'tp:sched_process_exec(bprm->filename)'
WORKLOAD "$tmp/$probe"
UNTIL    exit
EXPECT   kernel_str_truncated: eq "    bprm->filename = \"${tmp}/${probe%?}\"... /* truncated at $len bytes */" \
                                  "$(grep filename "$OUT")"
CASE

# --- pid filter: two busy processes, one traced; tid filter ---
busy() { bash -c 'while :; do read -t 0.01 < /dev/null; done' & }
ks_case <<'CASE'
NAME     pid_filter
BEFORE   busy; busy1=$!; busy; busy2=$!
RUN      -j -n 20 -p "$busy1" 'tp:sys_enter(id)'
UNTIL    exit
EXPECT   pid_filter_count: eq 20 "$(events "$OUT" | wc -l)"
EXPECT   pid_filter_only_target: eq "$busy1" "$(events "$OUT" | jq -r .pid | sort -u)"
CASE
kill -9 "$busy1" "$busy2" 2>/dev/null; wait "$busy1" "$busy2" 2>/dev/null
ks_case <<'CASE'
NAME     tid_filter
BEFORE   busy; busy3=$!
RUN      -j -n 5 --tid "$busy3" 'tp:sys_enter(id)'
UNTIL    exit
EXPECT   tid_filter_only: eq "$busy3" "$(events "$OUT" | jq -r .tid | sort -u)"
CASE
kill -9 "$busy3" 2>/dev/null; wait "$busy3" 2>/dev/null

# --- a flood into a tiny ring buffer: losses are counted and reported ---
ks_case <<'CASE'
NAME     flood
RUN      --buffer 4096 --duration 2 'tp:sys_enter(regs, id)'
WORKLOAD for i in $(seq 3000); do :; done; ls -R /usr/lib >/dev/null 2>&1
UNTIL    exit
EXPECT   flood_exits_0: exit 0
EXPECT   flood_lost_counted: text '^yes$' \
         "$(at_least 1 "$(sed -n 's/^ksnoop: [0-9]* events printed, \([0-9]*\) lost.*/\1/p' "$ERR")")"
EXPECT   flood_lost_reported_while_running: stderr 'warning: [0-9]+ events lost so far'
CASE

# --- duration, SIGINT, SIGKILL: clean exit, nothing left attached ---
ks_case <<'CASE'
NAME     duration
RUN      --duration 1 'tp:sched_process_exec'
UNTIL    exit
EXPECT   duration_exits_0: exit 0
EXPECT   nothing_left_after_duration: eq '' "$(left_progs "$PROGS")"
CASE
ks_case <<'CASE'
NAME     sigint
RUN      -c "$probe" 'tp:sched_process_exec(bprm->filename)'
WORKLOAD "$tmp/$probe"; wait_lines "$OUT" 2
EXPECT   sigint_exits_0: exit 0
EXPECT   sigint_output_flushed: count 1 "filename = \"$tmp/$probe\""
EXPECT   sigint_summary: stderr '^ksnoop: 1 events printed, 0 lost$'
EXPECT   nothing_left_after_sigint: eq '' "$(left_progs "$PROGS")"
CASE
ks_case <<'CASE'
NAME     sigkill
RUN      'tp:sched_switch'
WORKLOAD kill -KILL "$KPID"; wait "$KPID" 2>/dev/null
UNTIL    exit
EXPECT   attached_while_running: eq 1 "$(echo $PROGS | wc -w)"
EXPECT   nothing_left_after_sigkill: eq '' "$(left_progs "$PROGS")"
CASE

# --- ':signal': a signal number by its name, at the tracepoint of its sending ---
victim=kssig$$
cp /bin/sleep "$tmp/$victim"
# signal_child SIG: start the victim, wait until it runs as itself (before
# its exec it is a copy of this shell, named so), send it SIG, reap it.
signal_child() {
	local pid i
	"$tmp/$victim" 30 &
	pid=$!
	for i in $(seq 500); do
		[ "$(cat /proc/$pid/comm 2>/dev/null)" = "$victim" ] && break
		sleep 0.01
	done
	kill -"$1" "$pid"
	wait "$pid" 2>/dev/null
	return 0
}
ks_case <<'CASE'
NAME     signal_name
RUN      "tp:signal:signal_generate(sig:signal, task->comm == \"$victim\")"
WORKLOAD signal_child KILL
EXPECT   signal_name_kill: count 1 '^    sig:signal = SIGKILL$'
EXPECT   signal_name_only_kill: count 1 '^    sig:signal = '
CASE
ks_case <<'CASE'
NAME     signal_name_json
RUN      -j "tp:signal:signal_generate(sig:signal, task->comm == \"$victim\")"
WORKLOAD signal_child USR1
EXPECT   eq '"SIGUSR1"' "$(events "$OUT" | jq -c '.values["sig:signal"]')"
CASE
# A record file keeps the format: report prints the name too.
ks_case <<'CASE'
NAME     signal_name_recorded
RUN      record -o "$tmp/signal.ksr" "tp:signal:signal_generate(sig:signal, task->comm == \"$victim\")"
WORKLOAD signal_child TERM
EXPECT   eq 'SIGTERM' "$("$KSNOOP" report "$tmp/signal.ksr" 2>&1 | sed -n 's/^    sig:signal = //p')"
CASE

# --- 'VALUE >> N': a shift where values are printed (exit_code >> 8: the status) ---
exiter=ksexit$$
cp /bin/sh "$tmp/$exiter"
ks_case <<'CASE'
NAME     shift_exit_status
RUN      -c "$exiter" "tp:sched_process_exit(p->exit_code >> 8, p->exit_code)"
WORKLOAD "$tmp/$exiter" -c 'exit 3'
EXPECT   shift_exit_status_3: count 1 '^    p->exit_code >> 8 = 3$'
EXPECT   shift_exit_code_raw: count 1 '^    p->exit_code = 768$'
CASE
ks_case <<'CASE'
NAME     shift_exit_status_json
RUN      -j -c "$exiter" "tp:sched_process_exit(p->exit_code >> 8)"
WORKLOAD "$tmp/$exiter" -c 'exit 5'
EXPECT   eq 5 "$(events "$OUT" | jq -c '.values["p->exit_code >> 8"]')"
CASE
# A record file keeps the shift: report prints the status too.
ks_case <<'CASE'
NAME     shift_recorded
RUN      record -o "$tmp/shift.ksr" -c "$exiter" "tp:sched_process_exit(p->exit_code >> 8)"
WORKLOAD "$tmp/$exiter" -c 'exit 7'
EXPECT   eq '7' "$("$KSNOOP" report "$tmp/shift.ksr" 2>&1 | sed -n 's/^    p->exit_code >> 8 = //p')"
CASE

# --- stdout closed early: quiet, status 0 (a pipeline, not a case) ---
out=$( { ks 'tp:sched_switch(prev->comm)' 2>"$tmp/e9"; echo "rc=$?" >"$tmp/rc9"; } | head -1)
expect_match pipe_head_got_line '^[0-9:.]+ cpu' "$out"
expect_eq pipe_closed_status "rc=0" "$(cat "$tmp/rc9")"
# Only the line that says it traces: no complaint about the closed pipe.
expect_eq pipe_closed_quiet "ksnoop: tracing 1 target; Ctrl-C to stop" "$(cat "$tmp/e9")"

# --- -s: the kernel stack at the tracepoint, symbolised, tracer frames left out ---
ks_case <<'CASE'
NAME     stack
RUN      -s -n 1 -c "$probe" 'tp:sched_process_exec(old_pid)'
WORKLOAD "$tmp/$probe"
UNTIL    exit
EXPECT   stack_exits_0: exit 0
# exec() reaches the tracepoint through the exec path and a syscall.
EXPECT   stack_exec_path: match '^        (bprm_execve|exec_binprm|do_execveat_common|__x64_sys_execve)[+.]'
EXPECT   stack_syscall_entry: match '^        (do_syscall_64|entry_SYSCALL_64[a-z_]*)\+0x[0-9a-f]+,?$'
EXPECT   stack_no_tracer_frames: no_match 'bpf_prog_|bpf_trace_run|\[bpf\]'
CASE
ks_case <<'CASE'
NAME     stack_json
RUN      -j -s -n 1 -c "$probe" 'tp:sched_process_exec(old_pid)'
WORKLOAD "$tmp/$probe"
UNTIL    exit
EXPECT   stack_json_innermost_first: eq true \
         "$(events "$OUT" | jq -r '(.stack | length > 2) and (.stack[-1] | test("^entry_SYSCALL|^do_syscall"))')"
CASE

# --- --count: calls per function, summed in BPF, no events ---
ks_case <<'CASE'
NAME     count_calls
RUN      --count -c "$probe" 'tp:sched_process_exec' 'tp:sched_process_exit'
WORKLOAD for i in 1 2 3; do "$tmp/$probe"; done
EXPECT   count_exits_0: exit 0
EXPECT   count_header: eq '       CALLS  FUNCTION' "$(head -1 "$OUT")"
# Three execs; each exit of the program's one thread counts too.
EXPECT   count_exec: match '^ +3  tp:sched_process_exec$'
EXPECT   count_exit: match '^ +3  tp:sched_process_exit$'
EXPECT   count_no_events: no_match ' -> tp:'
EXPECT   count_summary: stderr '^ksnoop: 6 calls counted$'
CASE
# Tracepoints that share a program (a glob's, where raw_tp has cookies:
# sched_process_exit and _fork both take two arguments) are counted each by
# its own cookie, not all as the group's first.  A copy of sh under a name
# of ours forks a child once a run: 1 exec, 1 fork, 2 exits (child, itself).
forker=ksfork$$
cp /bin/sh "$tmp/$forker"
ks_case <<'CASE'
NAME     count_shared
RUN      --count -c "$forker" 'tp:sched_process_[ef][xo]*'
WORKLOAD for i in 1 2 3; do "$tmp/$forker" -c ': & wait'; done
EXPECT   count_shared_each: \
         eq "$(printf '%12s  %s\n' 3 tp:sched_process_exec 6 tp:sched_process_exit 3 tp:sched_process_fork)" \
            "$(grep ' tp:' "$OUT" | sort -k2)"
CASE
[ "$tp_cookies" = 0 ] ||
	expect_match count_shared_program 'sched_process_(exit|fork) and 1 more: one program, 2 tracepoints' "$(cat "$ERR")"
# Predicates hold before a call is counted.
ks_case <<'CASE'
NAME     count_json_pred
RUN      -j --count -c "$probe" "tp:sched_process_exec(bprm->argc == 2)"
WORKLOAD "$tmp/$probe"; "$tmp/$probe" x; "$tmp/$probe" y z
EXPECT   eq "$(printf '%s\n' '{"type":"count","func":"tp:sched_process_exec","count":1}' \
                  '{"type":"summary","counted":1,"not_printed":0,"not_counted":0,"unreadable":0,"stacks_not_taken":0,"not_followed":0,"missed":0}')" \
            "$(cat "$OUT")"
CASE
# With -s, per stack; --folded for flame graphs.
ks_case <<'CASE'
NAME     count_folded
RUN      --count -s --folded -c "$probe" 'tp:sched_process_exec'
WORKLOAD "$tmp/$probe"; "$tmp/$probe"
EXPECT   count_folded_line: match '^[a-zA-Z_0-9.]+(;[a-zA-Z_0-9.]+)*;tp:sched_process_exec 2$'
EXPECT   count_folded_syscall: match '^entry_SYSCALL_64[a-z_]*;do_syscall_64;'
CASE
# --interval: printed and reset each period: two periods printed (however
# long a loaded machine takes), then the end's.
periods() {
	local i=0
	while [ "$(grep -c 'CALLS  FUNCTION' "$OUT")" -lt 2 ] && [ $i -lt 600 ] && kill -0 "$KPID" 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
}
ks_case <<'CASE'
NAME     count_interval
RUN      --count --interval 1 'tp:sched_switch'
WORKLOAD periods
EXPECT   count_interval_periods: text '^yes$' "$(at_least 3 "$(grep -c 'CALLS  FUNCTION' "$OUT")")"
CASE

# --- --hist: a log2 histogram of one value per function, in BPF ---
ks_case <<'CASE'
NAME     hist
RUN      --hist -c "$probe" 'tp:sched_process_exec(bprm->argc)'
WORKLOAD "$tmp/$probe"; "$tmp/$probe" a; "$tmp/$probe" a b; "$tmp/$probe" a b c
# argc 1, 2, 3, 4: one in [1], two in [2, 4), one in [4, 8).
EXPECT   hist_header: eq 'tp:sched_process_exec: bprm->argc (4 calls)' "$(head -1 "$OUT")"
EXPECT   hist_one: match '^\[1\] +1 \|@+ *\|$'
EXPECT   hist_two_four: match '^\[2, 4\) +2 \|@{52}\|$'
EXPECT   hist_four_eight: match '^\[4, 8\) +1 \|@{26} {26}\|$'
# Percentiles off the buckets; the max exact (kept in BPF).
EXPECT   hist_percentiles: match '^p50 < 4  p90 < 8  p99 < 8  max = 4$'
CASE
ks_case <<'CASE'
NAME     hist_json
RUN      -j --hist -c "$probe" 'tp:sched_process_exec(bprm->argc, old_pid > 0)'
WORKLOAD "$tmp/$probe" a b c d e f g
EXPECT   eq '{"type":"hist","func":"tp:sched_process_exec","value":"bprm->argc","count":1,"buckets":[{"min":8,"max":15,"count":1}],"p50":15,"p90":15,"p99":15,"max":8}' \
            "$(record hist "$OUT")"
EXPECT   hist_json_summary: eq 1 "$(record summary "$OUT" | jq .counted)"
CASE

# --- ksnoop leaves out its own calls: printing an event is system calls,
# which would be events to print in turn (a loop that never idles).
# ksnoop runs by the probe's name, so -c keeps its calls and ours and
# nothing of the machine's (another process's flood of system calls
# would fill the ring buffer and lose ours) ---
mkdir "$tmp/self"
ln -s "$K" "$tmp/self/$probe"
KCMD=("$tmp/self/$probe")
ks_case <<'CASE'
NAME     self
RUN      -j -c "$probe" 'tp:sys_enter(id)'
WORKLOAD for i in 1 2 3; do "$tmp/$probe"; done
EXPECT   self_left_out: eq 0 "$(events "$OUT" | jq --argjson p "$KPID" 'select(.pid == $p) | .pid' | wc -l)"
EXPECT   self_others_seen: text '^yes$' \
         "$(at_least 3 "$(events "$OUT" | jq -r --arg c "$probe" 'select(.comm == $c) | .pid' | sort -u | wc -l)")"
CASE
KCMD=("$K")

# --- globs over tracepoints: one target per match, values that do not
# fit a match leave it out; TYPE NAME selects tracepoints by argument type ---
ks_case <<'CASE'
NAME     tp_glob
RUN      -c "$probe" 'tp:sched_process_ex*(p->pid)'
WORKLOAD "$tmp/$probe"; wait_lines "$OUT" 4
# (exec has 3 arguments and exit 2: a program each, cookies or not)
EXPECT   tp_glob_targets: eq 2 "$(echo $PROGS | wc -w)"
EXPECT   tp_glob_exits_0: exit 0
EXPECT   tp_glob_exec: count 1 '-> tp:sched_process_exec$'
EXPECT   tp_glob_exit: count 1 '-> tp:sched_process_exit$'
EXPECT   tp_glob_summary: stderr 'tp:sched_process_ex\*\(p->pid\): 2 tracepoint\(s\) match, 2 traced, 0 left out'
EXPECT   tp_glob_nothing_left: eq '' "$(left_progs "$PROGS")"
CASE
# A program per match: once attached, each keeps its link and program
# open, not its object's maps and BTF (some 16 fds a match before: 15 of
# the 35 sched_* tracepoints attached under a limit of 256).
n=$(ks info 'tp:sched_*' | wc -l)
ks_case <<'CASE'
NAME     tp_glob_few_fds_each
BEFORE   ulimit_was=$(ulimit -Sn); ulimit -Sn 256
RUN      --count --duration 1 'tp:sched_*'
WORKLOAD ulimit -Sn "$ulimit_was"
UNTIL    exit
EXPECT   stderr "tracing $n targets?;"
CASE
# -v says which instances test their first predicate before anything
# else (KSNOOP_PLAN_PREFILTER): a scalar does, a string compared does not.
ks_case <<'CASE'
NAME     prefilter_said
RUN      -v --duration 300ms 'tp:sys_enter(id == 99999, id)'
UNTIL    exit
EXPECT   prefilter_said: stderr '^ksnoop: 1 program instance\(s\) test their first predicate before anything else'
CASE
ks_case <<'CASE'
NAME     prefilter_not_said
RUN      -v --duration 300ms 'tp:sched_process_exec(p->comm == "no-such-name")'
UNTIL    exit
EXPECT   prefilter_not_said: eq 0 "$(grep -c 'test their first predicate' "$ERR")"
CASE
# sched_wake_idle_without_ipi has no 'p': left out, the others traced
# (... the 3 others take p alone: one program where raw_tp has cookies).
# The probe for raw_tp cookies agrees with the BTF.
ks_case <<'CASE'
NAME     tp_glob_left_out
RUN      --duration 1 'tp:sched_wak*(p->pid)'
UNTIL    exit
EXPECT   tp_glob_left_out: stderr "tp:sched_wak\\*\\(p->pid\\): 1 left out: 'p' is not an argument .* \\(first: tp:sched_wake_idle_without_ipi\\)$"
EXPECT   tp_glob_left_out_counted: stderr 'tracepoint\(s\) match, [1-9][0-9]* traced, 1 left out'
EXPECT   tp_cookies_probed: stderr "tp_cookies $([ "$tp_cookies" = 1 ] && echo yes || echo no),"
CASE
if [ "$tp_cookies" = 1 ]; then
	expect_match tp_glob_shared 'sched_wak[a-z_]+ and 2 more: one program, 3 tracepoints' "$(cat "$ERR")"
else
	expect_match tp_glob_program_each '3 glob matches in 3 program' "$(cat "$ERR")"
fi
ks_case <<'CASE'
NAME     tp_glob_left_out_vv
RUN      -v --duration 1 'tp:sched_wak*(p->pid)'
UNTIL    exit
EXPECT   stderr "tp:sched_wake_idle_without_ipi left out: 'p' is not an argument"
CASE
# A kernel without raw_tp cookies (injected) gets a program per tracepoint.
if [ "$tp_cookies" = 1 ]; then
	ks_case <<-'CASE'
	NAME     tp_glob_injected
	BEFORE   export KSNOOP_FEATURES=-tp_cookies
	RUN      --duration 1 'tp:sched_wak*(p->pid)'
	WORKLOAD unset KSNOOP_FEATURES
	UNTIL    exit
	EXPECT   tp_glob_injected_no_cookies: stderr '^ksnoop: 3 program instance\(s\) loaded'
	EXPECT   tp_glob_injected_one_parse: stderr "^ksnoop: vmlinux BTF: ksnoop's lent to libbpf 0 time\(s\), parsed for libbpf 0 time\(s\)$"
	EXPECT   tp_glob_injected_said: stderr 'tp_cookies no \(KSNOOP_FEATURES\)'
	CASE
fi

# Errors of globs and declarations (tp_decl_glob_reason: the reason given
# for a glob by type whose values fit none is one from a tracepoint that
# has the type (the string), not 'no argument of that type';
# pred_two_values: comparing two values is not a predicate, said where
# the second begins; tp_decl_named_*: one tracepoint named, with a
# declaration: its own errors); syscall_event*: syscall events are
# tp:syscalls:sys_enter_X / sys_exit_X (typed from tracefs:
# live/32-syscalls.sh); a name in that category that is neither says how
# they are named.
# NAME                       ARGS
ks_errors --in "$tmp" "$golden/errors" <<'TABLE'
tp_glob_none                 --duration 1 'tp:nosuch_*'
tp_glob_none_fit             --duration 1 'tp:sched_wake_idle*(p->pid)'
tp_decl_glob_reason          --duration 1 'tp:*(struct sk_buff *s, s->len > "x")'
pred_two_values              --duration 1 'tp:sched_switch(prev->pid == next->pid)'
tp_decl_named_unknown        --duration 1 'tp:sched_swtch(struct task_struct *t, t->pid)'
tp_decl_named_no_such_type   --duration 1 'tp:sched_switch(struct sk_buff *t, t->len)'
syscall_event                --duration 1 'tp:syscalls:openat(filename)'
syscall_event_glob           info 'tp:syscalls:open*'
TABLE

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
victim_at() { events "$OUT" | jq -c --arg f "tp:$1" --argjson v "$victim" 'select(.func == $f and .values["t->pid"] == $v) | .pid' | wc -l; }
ks_case <<'CASE'
NAME     tp_values_per_tp
BEFORE   "$tmp/victim/$vn" 30 & victim=$!
RUN      -j -c "$vn" 'tp:s[ic]*(struct task_struct *t, t->pid)'
WORKLOAD { "$tmp/killer/$vn" -USR1 "$victim"; wait "$victim"; } 2>/dev/null
EXPECT   tp_values_signal: eq 1 "$(victim_at signal_generate)"
EXPECT   tp_values_exit: eq 1 "$(victim_at sched_process_exit)"
EXPECT   tp_values_switch: text '^yes$' "$(at_least 1 "$(victim_at sched_switch)")"
EXPECT   tp_values_nothing_left: eq '' "$(left_progs "$PROGS")"
CASE
if [ "$tp_cookies" = 1 ]; then
	expect_match tp_values_shared_4 'and 2 more: one program, 3 tracepoints' "$(cat "$ERR")"
	expect_match tp_values_shared_5 'and 1 more: one program, 2 tracepoints' "$(cat "$ERR")"
	expect_fewer tp_values_fewer_programs "$(echo $PROGS | wc -w)" \
		"$(sed -n 's/.*tracepoint(s) match, \([0-9]*\) traced.*/\1/p' "$ERR")" "programs (tracepoints traced)"
fi
# Every tracepoint with a struct linux_binprm * argument: exec's.
ks_case <<'CASE'
NAME     tp_decl
RUN      -c "$probe" 'tp:*(struct linux_binprm *b, b->filename)'
WORKLOAD "$tmp/$probe"; wait_lines "$OUT" 2
EXPECT   tp_decl_event: count 1 "b->filename = \"$tmp/$probe\""
EXPECT   tp_decl_which: match '^[0-9:.]+ cpu[0-9]+ .* -> tp:sched_process_exec$'
CASE

# --- categories (tp:CATEGORY:NAME) are tracefs's: checked, and a glob ---
# ksnoop runs in a mount namespace of its own, with tracefs or without:
# each case runs on every machine, and the machine's mounts (another run's
# tracefs) are never touched.  Without tracefs, ksnoop mounts it in a mount
# namespace of its own and answers a category glob from it.  (info
# listings of this kernel: checked here, not as cases.)
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
# NAME                       ARGS
ks_errors --in "$tmp" "$golden/tracefs-errors" <<'TABLE'
tp_wrong_category            info 'tp:irq:sched_switch'
tp_wrong_category_glob       --duration 1 'tp:irq:sched_*'
TABLE
K=$host_k

# --- ksnoop's own calls are left out, and counted: on tp:sched_switch,
# which fires in the task switching out, with -c the name of a copy of
# ksnoop, every event selected is a switch from this ksnoop itself (it
# sleeps waiting for events after attaching): none printed, the summary
# says how many were left out; in JSON "own_left_out" ---
self=ksown$$
cp "$K" "$tmp/$self"
KCMD=("$tmp/$self")
ks_case <<'CASE'
NAME     own
RUN      -c "$self" 'tp:sched_switch(prev->pid)'
EXPECT   own_exits_0: exit 0
EXPECT   own_none_printed: count 0 '-> tp:sched_switch$'
EXPECT   own_counted_in_summary: \
         text "^ksnoop: 0 events printed, 0 lost, [1-9][0-9]* of ksnoop's own calls left out$" \
         "$(grep '^ksnoop: [0-9]* events printed' "$ERR")"
CASE
ks_case <<'CASE'
NAME     own_json
RUN      -j -c "$self" 'tp:sched_switch(prev->pid)'
EXPECT   own_json_exits_0: exit 0
EXPECT   own_json_summary: eq '0 true' "$(record summary "$OUT" | jq -r '"\(.printed) \(.own_left_out > 0)"')"
CASE
KCMD=("$K")

# --- one ring buffer, of --buffer's size, for every instance: the one
# made on a thread while vmlinux BTF is read (ksnoop/attach/ringbuf_ahead.c)
# is the one the programs write, not a second beside it ---
spawn "$tmp/rb.out" "$tmp/rb.err" --buffer 65536 -p $$ 'tp:sys_enter(id)' 'tp:sys_exit(ret)'
if wait_mark "$tmp/rb.err" 'Ctrl-C to stop'; then
	rings=""
	for id in $(held_ids "$KPID" map); do
		show=$(bpftool map show id "$id" 2>&1)
		case $show in *ringbuf*) rings="$rings $(printf '%s' "$show" | grep -o 'max_entries [0-9]*')" ;; esac
	done
	signal_and_wait INT 10
	expect_eq one_ring_buffer_of_its_size " max_entries 65536" "$rings"
	expect_eq one_ring_buffer_exits_0 0 "$RC"
else
	signal_and_wait INT 10
	fail one_ring_buffer_of_its_size "never said 'Ctrl-C to stop': $(tail -3 "$tmp/rb.err")"
fi
