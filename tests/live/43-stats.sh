#!/bin/bash
# --stats: count, sum, min, max and average of one value per function (and
# --by key), summed in BPF; live on this machine (USDT).  The workloads
# fire known values (`values N`: 1..N, `downs N`: N-1 down to -N), so
# every number is checked exactly against what the program did; the
# smallest comes last, so a min that is only the first value shows.
. "$(dirname "$0")/helpers.bash"
usdt_paths
usdt_programs

# --- usage errors: one line, exit 2 ---
refused stats_and_hist "--hist and --stats are two output modes; give one" \
	--hist --stats usdt "$P:ksnoop_test:value(arg0)"
refused stats_not_with_stack "--stats counts by a value: not with -s" \
	--stats -s usdt "$P:ksnoop_test:value(arg0)"
refused stats_one_value "--stats counts by one value; 'arg1' is a second" \
	--stats usdt "$P:ksnoop_test:req(arg0, arg1)"
refused stats_durations_need_return "--stats without a value counts call durations" \
	--stats usdt "$P:ksnoop_test:value"
refused stats_format "--stats counts by the number itself: 'arg2:str' takes no format" \
	--stats usdt "$P:ksnoop_test:req(arg2:str)"
refused stats_no_events "--stats prints no events: -n/--max-events does not apply" \
	--stats -n 3 usdt "$P:ksnoop_test:value(arg0)"
# report --stats of a recording (48-record compares it with a live run):
# one value per spec, as live.
refused stats_of_recording "^ksnoop: report: --stats counts by one value; 'ksnoop_test:req' recorded 'arg0' and 'arg2:str'$" \
	report --stats "$(dirname "$0")/../fixture/record/usdt.ksr"

needs_root stats
ln -s usdt_prog "$U/usdt_aaa"
ln -s usdt_prog "$U/usdt_bbb"

# --- 1..100: 100 calls, sum 5050, min 1, max 100, average 50.5 ---
ks_case <<'CASE'
NAME     stats_text
RUN      --stats usdt "$P:ksnoop_test:value(arg0)"
WORKLOAD "$P" values 100
EXPECT   eq "$(printf '%s\n' '       CALLS            SUM            MIN            MAX            AVG  FUNCTION(VALUE)' \
                             '         100           5050              1            100           50.5  ksnoop_test:value(arg0)')" \
            "$(cat "$OUT")"
CASE

# --- a signed value: 1..-2 sums to -2, its average below zero ---
ks_case <<'CASE'
NAME     stats_signed_json
RUN      -j --stats usdt "$P:ksnoop_test:value(arg0)"
WORKLOAD "$P" downs 2
EXPECT   eq '{"type":"stats","func":"ksnoop_test:value","value":"arg0","count":4,"sum":-2,"min":-2,"max":1,"avg":-0.5}' \
            "$(record stats "$OUT")"
CASE

# --- per key: usdt_aaa 1..10, usdt_bbb 2..-3, each its own row ---
ks_case <<'CASE'
NAME     stats_by_comm
RUN      -j --stats --by comm usdt "$P:ksnoop_test:value(arg0)"
WORKLOAD "$U/usdt_aaa" values 10; "$U/usdt_bbb" downs 3
EXPECT   eq 'usdt_aaa 10 55 1 10 5.5 usdt_bbb 6 -3 -3 2 -0.5' \
            "$(record stats "$OUT" | jq -r '"\(.key) \(.count) \(.sum) \(.min) \(.max) \(.avg)"' | joined)"
CASE
