#!/bin/bash
# --count and --hist by a key (--by), histograms in units, linear, with
# percentiles: live on this machine (USDT, tracepoints, syscalls), as root.
# Every workload fires a known number of events under known names, pids
# and values, so the counts, labels and percentiles are checked exactly.
. "$(dirname "$0")/helpers.bash"
usdt_paths
S=$U/syscall_prog
usdt_programs

# --- usage errors: one line, exit 2 ---
refused by_needs_count "--by goes with --count, --hist or --stats" --by comm usdt "$P:ksnoop_test:value"
refused by_empty "--by '': a key is empty or longer than 255 characters" --count --by '' tp:sched_switch
# --by KEY,KEY...: at most 3 keys, each once, one of them a value; a key
# the spec does not capture refused as one key is.
refused by_parts_many "--by 'comm,pid,tid,cpu': at most 3 keys \\(KEY\\[,KEY\\[,KEY\\]\\]\\)" \
	--count --by comm,pid,tid,cpu tp:sched_switch
refused by_parts_twice "--by 'comm,pid,comm': 'comm' is given twice" --count --by comm,pid,comm tp:sched_switch
refused by_parts_two_values "--by 'arg0,arg1': one key may be a value the spec names; 'arg1' is a second" \
	--count --by arg0,arg1 usdt "$P:ksnoop_test:value(arg0, arg1)"
refused by_parts_not_named "--by 'arg3' is not comm, pid, tid, cpu or a value the spec names; name it in the spec, as in \"ksnoop_test:value\\(arg3\\)\"" \
	--count --by comm,arg3 usdt "$P:ksnoop_test:value(arg0)"
refused by_parts_repeated "--by given twice: give its keys once, separated by commas \\(--by comm,return\\)" \
	--count --by comm --by return "sys:openat(return < 0)"
# report keys a recording by --by with --count only yet (48-record-query).
refused by_parts_report "report: --by of a recording is done with --count and --hist only yet" report --stats --by comm,return /nonexistent
refused by_not_with_stack "--by and -s do not go together" --count -s --by comm tp:sched_switch
refused by_not_named "--by 'arg3' is not comm, pid, tid, cpu or a value the spec names; name it in the spec, as in \"ksnoop_test:value\(arg3\)\"" \
	--count --by arg3 usdt "$P:ksnoop_test:value(arg0)"
refused by_struct "--by counts by an integer or a string; '\*p' is struct task_struct" \
	--count --by '*p' 'tp:sched_process_exec(*p)'
refused by_format "':str' does not apply to 'arg0:str' \\(__s32\\)" \
	--count --by arg0 usdt "$P:ksnoop_test:value(arg0:str)"
refused hist_scale_word "--hist: 'log3' is not log2 or linear:MIN:MAX:STEP" --hist=log3 usdt "$P:ksnoop_test:value(arg0)"
refused hist_linear_fields "--hist: 'linear:0:10' is not linear:MIN:MAX:STEP" --hist=linear:0:10 usdt "$P:ksnoop_test:value(arg0)"
refused hist_linear_step "MAX must be above MIN by a whole number of STEPs" --hist=linear:0:10:3 usdt "$P:ksnoop_test:value(arg0)"
refused hist_linear_many "--hist=linear: 2000 buckets in 'linear:0:2000:1'; at most 1000" --hist=linear:0:2000:1 usdt "$P:ksnoop_test:value(arg0)"
refused hist_linear_number "--hist=linear: MIN 'x' is not an integer" --hist=linear:x:10:1 usdt "$P:ksnoop_test:value(arg0)"

needs_root aggregate
# Two names for one program: a task's comm is the name it was run by.
ln -s usdt_prog "$U/usdt_aaa"
ln -s usdt_prog "$U/usdt_bbb"

# --- --count --by comm: exactly 9 calls of usdt_aaa, 3 of usdt_bbb ---
ks_case <<'CASE'
NAME     by_comm
RUN      --count --by comm usdt "$P:ksnoop_test:value"
WORKLOAD "$U/usdt_aaa" values 7; "$U/usdt_bbb" values 3; "$U/usdt_aaa" values 2
EXPECT   by_comm_text: eq "$(printf '%s\n' '       CALLS  comm              FUNCTION' \
                                         '           9  usdt_aaa          ksnoop_test:value' \
                                         '           3  usdt_bbb          ksnoop_test:value')" "$(cat "$OUT")"
EXPECT   by_comm_summary: stderr '^ksnoop: 12 calls counted$'
CASE
ks_case <<'CASE'
NAME     by_comm_json
RUN      -j --count --by comm usdt "$P:ksnoop_test:value"
WORKLOAD "$U/usdt_bbb" values 4; "$U/usdt_aaa" values 1
EXPECT   eq "$(printf '%s\n' '{"type":"count","func":"ksnoop_test:value","by":"comm","key":"usdt_bbb","count":4}' \
                             '{"type":"count","func":"ksnoop_test:value","by":"comm","key":"usdt_aaa","count":1}' \
                             '{"type":"summary","counted":5,"not_printed":0,"not_counted":0,"unreadable":0,"stacks_not_taken":0,"not_followed":0,"missed":0}')" \
            "$(cat "$OUT")"
CASE

# --- --interval: each period's keys, then afresh ---
# usdt_bbb once usdt_aaa's period has been printed (and its counts reset),
# however late a loaded machine prints it.
aaa_printed() {
	local i=0
	until [ -n "$(record count "$OUT" 2>/dev/null | jq -r 'select(.key == "usdt_aaa") | .key')" ] || [ $i -ge 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
ks_case <<'CASE'
NAME     by_interval
RUN      -j --count --by comm --interval 300ms usdt "$P:ksnoop_test:value"
WORKLOAD "$U/usdt_aaa" values 3
WORKLOAD aaa_printed
WORKLOAD "$U/usdt_bbb" values 2
EXPECT   by_interval_totals: eq 'usdt_aaa 3 usdt_bbb 2' \
         "$(record count "$OUT" | jq -s -r 'group_by(.key)[] | "\(.[0].key) \(map(.count) | add)"' | joined)"
EXPECT   by_interval_periods: eq 2 "$(record count "$OUT" | jq -r .interval | sort -u | wc -l)"
CASE

# --- --by pid: two runs, their pids known ---
ks_case <<'CASE'
NAME     by_pid
RUN      -j --count --by pid usdt "$P:ksnoop_test:value"
WORKLOAD "$P" values 4 & p1=$!; wait $p1
WORKLOAD "$P" values 6 & p2=$!; wait $p2
EXPECT   eq "$p2 6 $p1 4" "$(record count "$OUT" | jq -r '"\(.key) \(.count)"' | joined)"
CASE

# --- --by cpu: a run kept on CPU 0 ---
if command -v taskset >/dev/null; then
	ks_case <<-'CASE'
	NAME     by_cpu
	RUN      -j --count --by cpu usdt "$P:ksnoop_test:value"
	WORKLOAD taskset -c 0 "$P" values 5
	EXPECT   eq 'cpu 0 5' "$(record count "$OUT" | jq -r '"\(.by) \(.key) \(.count)"' | joined)"
	CASE
fi

# --- a tracepoint run's counts are per CPU (agg.bpf.h), summed by
#     ksnoop: failed opens on CPU 0 (-2), good ones on CPU 1 (fd 3), so
#     the bounds come from two CPUs and compare as signed ---
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	ks_case <<-'CASE'
	NAME     stats_two_cpus
	RUN      -j --stats -c syscall_prog 'sys:openat(return)'
	WORKLOAD taskset -c 0 "$S" /nonexistent 3 /etc/hostname 0
	WORKLOAD taskset -c 1 "$S" /nonexistent 0 /etc/hostname 3
	EXPECT   eq '-2 3' "$(record stats "$OUT" | jq -r '"\(.min) \(.max)"')"
	CASE
else
	skip stats_two_cpus "needs taskset and two CPUs ($(nproc) here)"
fi

# --- --by tid: `threads` prints its second thread's tid first ---
# Each thread fires with its own tid as arg0: a key of each, both named.
ks_case <<'CASE'
NAME     by_tid
RUN      -j --count --by tid usdt "$P:ksnoop_test:tick(arg0)"
WORKLOAD "$P" threads 1 >"$tmp/threads.out" & p5=$!; wait $p5
EXPECT   by_tid_keys: eq "$(printf '%s\n' "$p5" "$(sed -n 's/^tid //p' "$tmp/threads.out")" | sort -n | joined)" \
                         "$(record count "$OUT" | jq -r .key | sort -n | joined)"
CASE

# --- --by VALUE: a string argument, and a signed integer ---
ks_case <<'CASE'
NAME     by_str
RUN      -j --count --by arg2:str usdt "$P:ksnoop_test:req(arg2:str)"
WORKLOAD "$P" fire 3; "$P" fire 2
EXPECT   by_value_str: eq '/req/0 2 /req/1 2 /req/2 1' "$(record count "$OUT" | jq -r '"\(.key) \(.count)"' | joined)"
EXPECT   by_value_str_name: eq arg2:str "$(record count "$OUT" | jq -r .by | sort -u)"
CASE
# More keys than a CPU has scratch frames (LOCALS_FRAMES in bpf/scratch.bpf.h):
# each call gives its frame back.
ks_case <<'CASE'
NAME     attach_by_str_many
RUN      -j --count --by arg2:str usdt "$P:ksnoop_test:req(arg2:str)"
WORKLOAD "$P" fire 20
EXPECT   by_value_str_every_call: eq "20 20" "$(record count "$OUT" | jq -s -r '"\(length) \(map(.count) | add)"')"
CASE
# arg1 is -i - 1: -1 twice, -2 and -3 once (ties in the key's byte order).
ks_case <<'CASE'
NAME     by_int
RUN      --count --by arg1 usdt "$P:ksnoop_test:req(arg1)"
WORKLOAD "$P" fire 3; "$P" fire 1
EXPECT   by_value_signed: eq "$(printf '%s\n' '       CALLS  arg1              FUNCTION' \
                                            '           2  -1                ksnoop_test:req' \
                                            '           1  -3                ksnoop_test:req' \
                                            '           1  -2                ksnoop_test:req')" "$(cat "$OUT")"
CASE

# --- --hist --by comm: 1..100 from one name, -2..1 from the other;
#     percentiles off the buckets, the max exact; --hist=linear: 1..100
#     in buckets of 10 from 0 to 100.  The whole text, golden:
#     tests/golden/41-aggregate/NAME (KS_GOLDEN_UPDATE=1 writes them) ---
golden=$(cd "$(dirname "$0")/../golden/41-aggregate" && pwd)
ks_case <<'CASE'
NAME     hist_by_comm
RUN      --hist --by comm usdt "$P:ksnoop_test:value(arg0)"
WORKLOAD "$U/usdt_aaa" values 100; "$U/usdt_bbb" signs 2
EXPECT   eq "$(ks_golden_file "$golden/hist_by_comm" "$OUT")" "$(cat "$OUT")"
CASE
ks_case <<'CASE'
NAME     hist_linear
RUN      --hist=linear:0:100:10 usdt "$P:ksnoop_test:value(arg0)"
WORKLOAD "$P" values 100
EXPECT   eq "$(ks_golden_file "$golden/hist_linear" "$OUT")" "$(cat "$OUT")"
CASE
# -30..29: ten below -20, eight buckets of five, ten at 20 and above;
# the 54th of 60 (p90) is among those above, whose bound is unknown (null);
# the max, kept in BPF, is exact.
ks_case <<'CASE'
NAME     hist_linear_json
RUN      -j --hist=linear:-20:20:5 usdt "$P:ksnoop_test:value(arg0)"
WORKLOAD "$P" signs 30
EXPECT   eq '{"type":"hist","func":"ksnoop_test:value","value":"arg0","count":60,"buckets":[{"min":null,"max":-21,"count":10},{"min":-20,"max":-16,"count":5},{"min":-15,"max":-11,"count":5},{"min":-10,"max":-6,"count":5},{"min":-5,"max":-1,"count":5},{"min":0,"max":4,"count":5},{"min":5,"max":9,"count":5},{"min":10,"max":14,"count":5},{"min":15,"max":19,"count":5},{"min":20,"max":null,"count":10}],"p50":-1,"p90":null,"p99":null,"max":29}' \
            "$(record hist "$OUT")"
CASE

# --- tracepoints: execs by two names, by comm and by a string the
#     tracepoint passes (the file run).  The tracepoint counts every exec
#     on the machine: names of this run's own (another suite runs
#     usdt_aaa too), and only their keys are read ---
ta=ksaaa$$ tb=ksbbb$$
ln -s usdt_prog "$U/$ta"
ln -s usdt_prog "$U/$tb"
ks_case <<'CASE'
NAME     tp_by_comm
RUN      -j --count --by comm tp:sched_process_exec
WORKLOAD for i in 1 2 3; do "$U/$ta" values 0; done; for i in 1 2; do "$U/$tb" values 0; done
EXPECT   eq "$ta 3 $tb 2" \
            "$(record count "$OUT" | jq -r --arg a "$ta" --arg b "$tb" 'select(.key == $a or .key == $b) | "\(.key) \(.count)"' | joined)"
CASE
ks_case <<'CASE'
NAME     tp_by_value
RUN      --count --by 'bprm->filename' 'tp:sched_process_exec(bprm->filename)'
WORKLOAD for i in 1 2 3; do "$U/usdt_aaa" values 0; done; "$U/usdt_bbb" values 0
EXPECT   tp_by_value_header: text '^       CALLS  bprm->filename    FUNCTION$' "$(head -1 "$OUT")"
EXPECT   tp_by_value_aaa: eq 1 "$(grep -cxF "           3  $U/usdt_aaa  tp:sched_process_exec" "$OUT")"
EXPECT   tp_by_value_bbb: eq 1 "$(grep -cxF "           1  $U/usdt_bbb  tp:sched_process_exec" "$OUT")"
CASE

# --- syscalls: failing opens per comm (counted at the return), and
#     per file name (at the entry) ---
if [ -x "$S" ]; then
	# (comms of this run's own, as above)
	sa=kssa$$ sb=kssb$$
	cp "$S" "$tmp/$sa"
	cp "$S" "$tmp/$sb"
	ks_case <<-'CASE'
	NAME     sys_by_comm
	RUN      -j --count --by comm 'sys:openat(return < 0)'
	WORKLOAD "$tmp/$sa" "$tmp/missing" 5 "$S" 1; "$tmp/$sb" "$tmp/missing" 3 "$S" 2
	EXPECT   eq "$sa 5 $sb 3" \
	            "$(record count "$OUT" | jq -r --arg a "$sa" --arg b "$sb" 'select(.key == $a or .key == $b) | "\(.key) \(.count)"' | joined)"
	CASE
	ks_case <<-'CASE'
	NAME     sys_by_value
	RUN      -j --count --by filename 'sys:openat(filename)'
	WORKLOAD "$tmp/$sa" "$tmp/missing-a" 4 "$tmp/missing-a" 0; "$tmp/$sb" "$tmp/missing-b" 2 "$tmp/missing-b" 0
	EXPECT   eq "$tmp/missing-a 4 $tmp/missing-b 2" \
	            "$(record count "$OUT" | jq -r --arg d "$tmp/missing" 'select(.key | startswith($d)) | "\(.key) \(.count)"' | joined)"
	CASE
	# A key prints as its value prints in an event: the errno's name
	# beside an error code (JSON: the number, and the name beside it).
	ks_case <<-'CASE'
	NAME     sys_by_return_named
	RUN      -c "$sa" --count --by return 'sys:openat(return < 0)'
	WORKLOAD "$tmp/$sa" "$tmp/missing" 6 "$S" 0
	EXPECT   eq '           6  -2 (ENOENT)       sys:openat' "$(grep -- '-2 (ENOENT)' "$OUT")"
	CASE
	ks_case <<-'CASE'
	NAME     sys_by_return_named_json
	RUN      -j -c "$sa" --count --by return 'sys:openat(return < 0)'
	WORKLOAD "$tmp/$sa" "$tmp/missing" 3 "$S" 0
	EXPECT   eq '-2 ENOENT 3' "$(record count "$OUT" | jq -r 'select(.key == -2) | "\(.key) \(.key_name) \(.count)"')"
	CASE
	# --by comm,return: failing opens per comm and errno, two errnos
	# (ENOENT: a missing file; ENOTDIR: a path through a regular file)
	# under two comms, each row exact; JSON: a field per key.
	ks_case <<-'CASE'
	NAME     sys_by_comm_return
	RUN      --count --by comm,return 'sys:openat(return < 0)'
	WORKLOAD "$tmp/$sa" "$tmp/missing" 3 "$S" 0; "$tmp/$sa" "$S/x" 2 "$S" 0; "$tmp/$sb" "$S/x" 4 "$S" 0; "$tmp/$sb" "$tmp/missing" 1 "$S" 0
	EXPECT   sys_by_comm_return_header: eq '       CALLS  comm              return            FUNCTION' "$(head -1 "$OUT")"
	EXPECT   sys_by_comm_return_rows: eq "$(printf '%12d  %-16s  %-16s  %s\n' 4 "$sb" '-20 (ENOTDIR)' sys:openat \
	                                            3 "$sa" '-2 (ENOENT)' sys:openat \
	                                            2 "$sa" '-20 (ENOTDIR)' sys:openat \
	                                            1 "$sb" '-2 (ENOENT)' sys:openat)" \
	            "$(grep -E "^ +[0-9]+  ($sa|$sb) " "$OUT")"
	CASE
	ks_case <<-'CASE'
	NAME     sys_by_return_comm_json
	RUN      -j --count --by return,comm 'sys:openat(return < 0)'
	WORKLOAD "$tmp/$sa" "$S/x" 2 "$S" 0; "$tmp/$sb" "$tmp/missing" 3 "$S" 0
	EXPECT   eq "-2 ENOENT $sb 3 -20 ENOTDIR $sa 2" \
	            "$(record count "$OUT" | jq -r --arg a "$sa" --arg b "$sb" 'select(.by == "return,comm" and (.key.comm == $a or .key.comm == $b)) | "\(.key.return) \(.key.return_name) \(.key.comm) \(.count)"' | joined)"
	CASE
	# --hist of a spec that names only predicates counts durations, and
	# says so (it once did silently), naming the spec that counts the value.
	ks_case <<-'CASE'
	NAME     hist_predicates_only_said
	RUN      --hist -c "$sa" 'sys:openat(return < 0)'
	WORKLOAD "$tmp/$sa" "$tmp/missing" 2 "$S" 0
	EXPECT   stderr "^ksnoop: --hist: 'sys:openat\\(return < 0\\)' names no value, only predicates: counting call durations \\(to count 'return', name it too: \"sys:openat\\(return < 0, return\\)\"\\)$"
	EXPECT   hist_predicates_only_durations: match '^sys:openat: duration \(2 calls\)$'
	CASE
	# An enumerator by name: a UDP datagram to a closed port is dropped
	# with SKB_DROP_REASON_NO_SOCKET (its value in the key, 3 or so).
	ks_case <<-'CASE'
	NAME     tp_by_enum_named
	MIN_KERNEL 6.0
	RUN      --count --by reason 'tp:kfree_skb(reason)'
	WORKLOAD for i in 1 2 3; do echo x >/dev/udp/127.0.0.1/9; done 2>/dev/null
	EXPECT   match '^ +[0-9]+  SKB_DROP_REASON_NO_SOCKET +tp:kfree_skb$'
	EXPECT   tp_by_enum_no_number: no_match '^ +[0-9]+  [0-9]+ +tp:kfree_skb$'
	CASE
else
	fail syscall_program "missing $S (make build/usdt/syscall_prog)"
fi
