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
refused by_needs_count "--by goes with --count or --hist" --by comm usdt "$P:ksnoop_test:value"
refused by_empty "--by: '' is empty or longer than 255 characters" --count --by '' tp:sched_switch
refused by_not_with_stack "--by and -s do not go together" --count -s --by comm tp:sched_switch
refused by_not_named "--by 'arg3' is not comm, pid, tid, cpu or a value the spec names; name it in the spec, as in \"ksnoop_test:value\(arg3\)\"" \
	--count --by arg3 usdt "$P:ksnoop_test:value(arg0)"
refused by_struct "--by counts by an integer or a string; '\*p' is struct task_struct" \
	--count --by '*p' 'tp:sched_process_exec(*p)'
refused by_format "--by 'arg0:hex' takes no format but :str" \
	--count --by arg0 usdt "$P:ksnoop_test:value(arg0:hex)"
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
start "$tmp/c1" "$tmp/e1" --count --by comm usdt "$P:ksnoop_test:value" || fail attach_by_comm "$(cat "$tmp/e1")"
"$U/usdt_aaa" values 7
"$U/usdt_bbb" values 3
"$U/usdt_aaa" values 2
stop
expect_eq by_comm_text "       CALLS  comm              FUNCTION
           9  usdt_aaa          ksnoop_test:value
           3  usdt_bbb          ksnoop_test:value" "$(cat "$tmp/c1")"
expect_match by_comm_summary '^ksnoop: 12 calls counted$' "$(cat "$tmp/e1")"

start "$tmp/c2" "$tmp/e2" -j --count --by comm usdt "$P:ksnoop_test:value" || fail attach_by_comm_json "$(cat "$tmp/e2")"
"$U/usdt_bbb" values 4
"$U/usdt_aaa" values 1
stop
expect_eq by_comm_json '{"type":"count","func":"ksnoop_test:value","by":"comm","key":"usdt_bbb","count":4}
{"type":"count","func":"ksnoop_test:value","by":"comm","key":"usdt_aaa","count":1}
{"type":"summary","counted":5,"not_printed":0,"not_counted":0,"unreadable":0,"stacks_not_taken":0,"not_followed":0,"missed":0}' \
	"$(cat "$tmp/c2")"

# --- --interval: each period's keys, then afresh ---
start "$tmp/c8" "$tmp/e8" -j --count --by comm --interval 300ms usdt "$P:ksnoop_test:value" ||
	fail attach_by_interval "$(cat "$tmp/e8")"
"$U/usdt_aaa" values 3
# usdt_bbb once usdt_aaa's period has been printed (and its counts reset),
# however late a loaded machine prints it.
i=0
until [ -n "$(record count "$tmp/c8" 2>/dev/null | jq -r 'select(.key == "usdt_aaa") | .key')" ] || [ $i -ge 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
"$U/usdt_bbb" values 2
stop
expect_eq by_interval_totals "usdt_aaa 3 usdt_bbb 2" \
	"$(record count "$tmp/c8" | jq -s -r 'group_by(.key)[] | "\(.[0].key) \(map(.count) | add)"' | joined)"
expect_eq by_interval_periods 2 \
	"$(record count "$tmp/c8" | jq -r .interval | sort -u | wc -l)"

# --- --by pid: two runs, their pids known ---
start "$tmp/c3" "$tmp/e3" -j --count --by pid usdt "$P:ksnoop_test:value" || fail attach_by_pid "$(cat "$tmp/e3")"
"$P" values 4 & p1=$!
wait $p1
"$P" values 6 & p2=$!
wait $p2
stop
expect_eq by_pid "$p2 6 $p1 4" "$(record count "$tmp/c3" | jq -r '"\(.key) \(.count)"' | joined)"

# --- --by cpu: a run kept on CPU 0 ---
if command -v taskset >/dev/null; then
	start "$tmp/c4" "$tmp/e4" -j --count --by cpu usdt "$P:ksnoop_test:value" || fail attach_by_cpu "$(cat "$tmp/e4")"
	taskset -c 0 "$P" values 5
	stop
	expect_eq by_cpu "cpu 0 5" "$(record count "$tmp/c4" | jq -r '"\(.by) \(.key) \(.count)"' | joined)"
fi

# --- --by tid: `threads` prints its second thread's tid first ---
start "$tmp/c5" "$tmp/e5" -j --count --by tid usdt "$P:ksnoop_test:tick(arg0)" || fail attach_by_tid "$(cat "$tmp/e5")"
"$P" threads 1 >"$tmp/threads.out" & p5=$!
wait $p5
stop
t2=$(sed -n 's/^tid //p' "$tmp/threads.out")
# Each thread fires with its own tid as arg0: a key of each, both named.
expect_eq by_tid_keys "$(printf '%s\n' "$p5" "$t2" | sort -n | joined)" \
	"$(record count "$tmp/c5" | jq -r .key | sort -n | joined)"

# --- --by VALUE: a string argument, and a signed integer ---
start "$tmp/c6" "$tmp/e6" -j --count --by arg2:str usdt "$P:ksnoop_test:req(arg2:str)" || fail attach_by_str "$(cat "$tmp/e6")"
"$P" fire 3
"$P" fire 2
stop
expect_eq by_value_str "/req/0 2 /req/1 2 /req/2 1" \
	"$(record count "$tmp/c6" | jq -r '"\(.key) \(.count)"' | joined)"
expect_eq by_value_str_name "arg2:str" "$(record count "$tmp/c6" | jq -r .by | sort -u)"
# More keys than a CPU has scratch frames (LOCALS_FRAMES in bpf/scratch.bpf.h):
# each call gives its frame back.
start "$tmp/c6b" "$tmp/e6b" -j --count --by arg2:str usdt "$P:ksnoop_test:req(arg2:str)" ||
	fail attach_by_str_many "$(cat "$tmp/e6b")"
"$P" fire 20
stop
expect_eq by_value_str_every_call "20 20" "$(record count "$tmp/c6b" | jq -s -r '"\(length) \(map(.count) | add)"')"
start "$tmp/c7" "$tmp/e7" --count --by arg1 usdt "$P:ksnoop_test:req(arg1)" || fail attach_by_int "$(cat "$tmp/e7")"
"$P" fire 3
"$P" fire 1
stop
# arg1 is -i - 1: -1 twice, -2 and -3 once (ties in the key's byte order).
expect_eq by_value_signed "       CALLS  arg1              FUNCTION
           2  -1                ksnoop_test:req
           1  -3                ksnoop_test:req
           1  -2                ksnoop_test:req" "$(cat "$tmp/c7")"

# --- --hist --by comm: 1..100 from one name, -2..1 from the other;
#     percentiles off the buckets, the max exact ---
start "$tmp/h1" "$tmp/f1" --hist --by comm usdt "$P:ksnoop_test:value(arg0)" || fail attach_hist_by_comm "$(cat "$tmp/f1")"
"$U/usdt_aaa" values 100
"$U/usdt_bbb" signs 2
stop
expect_eq hist_by_comm "ksnoop_test:value [comm usdt_aaa]: arg0 (100 calls)
[1]                               1 |@@                                                  |
[2, 4)                            2 |@@@                                                 |
[4, 8)                            4 |@@@@@@                                              |
[8, 16)                           8 |@@@@@@@@@@@@                                        |
[16, 32)                         16 |@@@@@@@@@@@@@@@@@@@@@@@                             |
[32, 64)                         32 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@       |
[64, 128)                        37 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
p50 < 64  p90 < 128  p99 < 128  max = 100

ksnoop_test:value [comm usdt_bbb]: arg0 (4 calls)
(..., 0)                          2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[0]                               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
[1]                               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |
p50 < 0  p90 = 1  p99 = 1  max = 1" "$(cat "$tmp/h1")"

# --- --hist=linear: 1..100 in buckets of 10 from 0 to 100, JSON too ---
start "$tmp/h2" "$tmp/f2" --hist=linear:0:100:10 usdt "$P:ksnoop_test:value(arg0)" || fail attach_hist_linear "$(cat "$tmp/f2")"
"$P" values 100
stop
expect_eq hist_linear "ksnoop_test:value: arg0 (100 calls)
[0, 10)                           9 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@     |
[10, 20)                         10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[20, 30)                         10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[30, 40)                         10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[40, 50)                         10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[50, 60)                         10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[60, 70)                         10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[70, 80)                         10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[80, 90)                         10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[90, 100)                        10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|
[100, ...)                        1 |@@@@@@                                              |
p50 < 60  p90 < 100  p99 < 100  max = 100" "$(cat "$tmp/h2")"
start "$tmp/h3" "$tmp/f3" -j --hist=linear:-20:20:5 usdt "$P:ksnoop_test:value(arg0)" || fail attach_hist_linear_json "$(cat "$tmp/f3")"
"$P" signs 30
stop
# -30..29: ten below -20, eight buckets of five, ten at 20 and above;
# the 54th of 60 (p90) is among those above, whose bound is unknown (null);
# the max, kept in BPF, is exact.
expect_eq hist_linear_json '{"type":"hist","func":"ksnoop_test:value","value":"arg0","count":60,"buckets":[{"min":null,"max":-21,"count":10},{"min":-20,"max":-16,"count":5},{"min":-15,"max":-11,"count":5},{"min":-10,"max":-6,"count":5},{"min":-5,"max":-1,"count":5},{"min":0,"max":4,"count":5},{"min":5,"max":9,"count":5},{"min":10,"max":14,"count":5},{"min":15,"max":19,"count":5},{"min":20,"max":null,"count":10}],"p50":-1,"p90":null,"p99":null,"max":29}' \
	"$(record hist "$tmp/h3")"

# --- tracepoints: execs by two names, by comm and by a string the
#     tracepoint passes (the file run).  The tracepoint counts every exec
#     on the machine: names of this run's own (another suite runs
#     usdt_aaa too), and only their keys are read ---
ta=ksaaa$$ tb=ksbbb$$
ln -s usdt_prog "$U/$ta"
ln -s usdt_prog "$U/$tb"
start "$tmp/t1" "$tmp/g1" -j --count --by comm tp:sched_process_exec || fail attach_tp_by_comm "$(cat "$tmp/g1")"
for i in 1 2 3; do "$U/$ta" values 0; done
for i in 1 2; do "$U/$tb" values 0; done
stop
expect_eq tp_by_comm "$ta 3 $tb 2" \
	"$(record count "$tmp/t1" | jq -r --arg a "$ta" --arg b "$tb" 'select(.key == $a or .key == $b) | "\(.key) \(.count)"' | joined)"
start "$tmp/t2" "$tmp/g2" --count --by 'bprm->filename' 'tp:sched_process_exec(bprm->filename)' ||
	fail attach_tp_by_value "$(cat "$tmp/g2")"
for i in 1 2 3; do "$U/usdt_aaa" values 0; done
"$U/usdt_bbb" values 0
stop
expect_match tp_by_value_header '^       CALLS  bprm->filename    FUNCTION$' "$(head -1 "$tmp/t2")"
expect_eq tp_by_value_aaa 1 "$(grep -cxF "           3  $U/usdt_aaa  tp:sched_process_exec" "$tmp/t2")"
expect_eq tp_by_value_bbb 1 "$(grep -cxF "           1  $U/usdt_bbb  tp:sched_process_exec" "$tmp/t2")"

# --- syscalls: failing opens per comm (counted at the return), and
#     per file name (at the entry) ---
if [ -x "$S" ]; then
	# (comms of this run's own, as above)
	sa=kssa$$ sb=kssb$$
	cp "$S" "$tmp/$sa"
	cp "$S" "$tmp/$sb"
	start "$tmp/s1" "$tmp/r1" -j --count --by comm 'sys:openat(return < 0)' || fail attach_sys_by_comm "$(cat "$tmp/r1")"
	"$tmp/$sa" "$tmp/missing" 5 "$S" 1
	"$tmp/$sb" "$tmp/missing" 3 "$S" 2
	stop
	expect_eq sys_by_comm "$sa 5 $sb 3" \
		"$(record count "$tmp/s1" | jq -r --arg a "$sa" --arg b "$sb" 'select(.key == $a or .key == $b) | "\(.key) \(.count)"' | joined)"
	start "$tmp/s2" "$tmp/r2" -j --count --by filename 'sys:openat(filename)' || fail attach_sys_by_value "$(cat "$tmp/r2")"
	"$tmp/$sa" "$tmp/missing-a" 4 "$tmp/missing-a" 0
	"$tmp/$sb" "$tmp/missing-b" 2 "$tmp/missing-b" 0
	stop
	expect_eq sys_by_value "$tmp/missing-a 4 $tmp/missing-b 2" \
		"$(record count "$tmp/s2" | jq -r --arg d "$tmp/missing" 'select(.key | startswith($d)) | "\(.key) \(.count)"' | joined)"
else
	fail syscall_program "missing $S (make build/usdt/syscall_prog)"
fi
