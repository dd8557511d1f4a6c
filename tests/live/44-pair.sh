#!/bin/bash
# --pair: the latency between two events paired by a key, live on this
# machine (USDT, tracepoints).  `usdt_prog pairs N` fires start(0..N-1),
# sleeps 20 ms, then done(N-1..0): every pair takes at least 20 ms, in the
# reverse order.  Latencies are checked against that lower bound only.
. "$(dirname "$0")/helpers.bash"
usdt_paths
usdt_programs

# --- usage errors: one line, exit 2 ---
refused pair_two_specs "--pair: expected two specs, START and END; 1 given" \
	--pair usdt "$P:ksnoop_test:start(arg0)"
refused pair_not_count "--pair measures latencies: not with --count" \
	--pair --count usdt "$P:ksnoop_test:start(arg0)" "$P:ksnoop_test:done(arg0)"
refused pair_not_function "--pair: 'sys:openat' is not a tracepoint or USDT probe" \
	--pair tp:sched_wakeup sys:openat
refused pair_one_key "--pair pairs by one value; 'arg1' is a second" \
	--pair usdt "$P:ksnoop_test:start(arg0)" "$P:ksnoop_test:req(arg0, arg1)"
refused pair_not_tree "--pair does not go with --tree or --track" \
	--pair --tree tp:sched_wakeup tp:sched_switch
refused pair_not_recorded "record: --pair is not recorded yet" \
	record -o "$tmp/pair.rec" --pair tp:sched_wakeup tp:sched_switch
# report --pair pairs a recording's events (48-record compares them with a
# live run) by one value each spec names: this recording's req names two.
refused pair_of_recording "^ksnoop: report: --pair pairs by one value; 'ksnoop_test:req' recorded 'arg0' and 'arg2:str'$" \
	report --pair "$(dirname "$0")/../fixture/record/usdt.ksr"
refused pair_of_recording_stats "^ksnoop: report: --pair pairs by one value; 'ksnoop_test:req' recorded 'arg0' and 'arg2:str'$" \
	report --pair --stats "$(dirname "$0")/../fixture/record/usdt.ksr"
# report --pair: its events, or --stats; --hist of the latencies not yet.
refused report_pair_hist "^ksnoop: report: --pair of a recording is done with its events and --stats only yet$" \
	report --pair --hist "$(dirname "$0")/../fixture/record/usdt.ksr"

needs_root pair
# A helper: are there lines on stdin, each a number of at least $1 ("null", a
# missing latency, is none)?
all_at_least() { awk -v m="$1" 'BEGIN { ok = 1; n = 0 } { n++; if ($1 !~ /^[0-9]+$/ || $1 + 0 < m) ok = 0 } END { print (ok && n) ? "yes" : "no" }'; }

# --- by id: each done pairs with its own start ---
ks_case <<'CASE'
NAME     pair_by_id
RUN      -j --pair usdt "$P:ksnoop_test:start(arg0)" "$P:ksnoop_test:done(arg0)"
WORKLOAD "$P" pairs 3
EXPECT   pair_by_id_ends: eq '2 1 0' "$(events "$OUT" | jq -r '.values.arg0' | joined)"
EXPECT   pair_by_id_func: eq 'ksnoop_test:done' "$(events "$OUT" | jq -r .func | sort -u)"
EXPECT   pair_by_id_at_least_20ms: eq yes "$(events "$OUT" | jq -r .duration_ns | all_at_least 20000000)"
EXPECT   pair_by_id_summary: eq '0 0' "$(record summary "$OUT" | jq -r '"\(.starts_not_paired) \(.key_unreadable)"')"
CASE

# --- by thread (no value named): the latest start wins, the first done
#     takes it; the two dones after it have no start left ---
ks_case <<'CASE'
NAME     pair_by_thread
RUN      -j --pair usdt "$P:ksnoop_test:start" "$P:ksnoop_test:done"
WORKLOAD "$P" pairs 3
EXPECT   pair_by_thread_one: eq 2 "$(events "$OUT" | jq -r '.values.arg0' | joined)"
EXPECT   pair_by_thread_at_least_20ms: eq yes "$(events "$OUT" | jq -r .duration_ns | all_at_least 20000000)"
CASE

# --- -L: the END events at least that late (all of them here) ---
ks_case <<'CASE'
NAME     pair_min_latency
RUN      -j --pair -L 5ms usdt "$P:ksnoop_test:start(arg0)" "$P:ksnoop_test:done(arg0)"
WORKLOAD "$P" pairs 2
EXPECT   pair_min_latency_events: eq '1 0' "$(events "$OUT" | jq -r '.values.arg0' | joined)"
EXPECT   pair_min_latency_at_least: eq yes "$(events "$OUT" | jq -r .duration_ns | all_at_least 20000000)"
CASE

# --- --stats and --hist of the latencies ---
ks_case <<'CASE'
NAME     pair_stats
RUN      -j --pair --stats usdt "$P:ksnoop_test:start(arg0)" "$P:ksnoop_test:done(arg0)"
WORKLOAD "$P" pairs 4
EXPECT   pair_stats_row: eq 'ksnoop_test:done latency_ns 4' "$(record stats "$OUT" | jq -r '"\(.func) \(.value) \(.count)"')"
EXPECT   pair_stats_min: eq yes "$(record stats "$OUT" | jq -r .min | all_at_least 20000000)"
EXPECT   pair_stats_order: eq true "$(record stats "$OUT" | jq '.min <= .avg and .avg <= .max and .sum >= 4 * .min')"
CASE
ks_case <<'CASE'
NAME     pair_hist
RUN      -j --pair --hist usdt "$P:ksnoop_test:start(arg0)" "$P:ksnoop_test:done(arg0)"
WORKLOAD "$P" pairs 3
EXPECT   pair_hist_count: eq 'latency_ns 3' "$(record hist "$OUT" | jq -r '"\(.value) \(.count)"')"
EXPECT   pair_hist_buckets: eq yes "$(record hist "$OUT" | jq -r '.buckets[].max' | all_at_least 20000000)"
CASE

# --- the pair map is bounded (KSNOOP_PAIR_ENTRIES, 16,384): 16 STARTs
#     more than it holds are not kept, counted; the others pair ---
ks_case <<'CASE'
NAME     pair_map_full
RUN      -j --pair --stats usdt "$P:ksnoop_test:start(arg0)" "$P:ksnoop_test:done(arg0)"
WORKLOAD "$P" pairs 16400
EXPECT   pair_full_paired: eq 16384 "$(record stats "$OUT" | jq -r .count)"
EXPECT   pair_full_counted: eq 16 "$(record summary "$OUT" | jq -r .starts_not_paired)"
CASE

# --- tracepoints: wakeup to switch by pid (runqlat's pairing); this
#     program's sleeps wake it up, and the machine's other tasks too ---
ks_case <<'CASE'
NAME     pair_tracepoints
RUN      -j --pair --stats "tp:sched_wakeup(p->pid)" "tp:sched_switch(next->pid)"
WORKLOAD "$P" pairs 2
EXPECT   pair_tp_counted: eq true "$(record stats "$OUT" | jq '.func == "tp:sched_switch" and .count > 0 and .min <= .max')"
CASE

# --- block I/O: issue to completion by request (biolatency, the README's
#     example).  Our own reads, each past the page cache (O_DIRECT) and
#     waited for, are 64 requests at least; the machine's other I/O may
#     add more.  The file is written and flushed first, so that the reads
#     reach the device.  On a file system with no block device (tmpfs),
#     nothing to pair: a SKIP with a NOTE. ---
dd if=/dev/urandom of="$tmp/blk" bs=4k count=64 conv=fsync 2>/dev/null
if [ "$(stat -f -c %T "$tmp")" = tmpfs ] || ! dd if="$tmp/blk" of=/dev/null bs=4k iflag=direct 2>/dev/null; then
	note "pair_block: $tmp has no block device behind it (or refuses O_DIRECT): no block requests of ours to pair"
	skip pair_block_counted
	skip pair_block_hist
else
	ks_case <<-'CASE'
	NAME     pair_block
	RUN      -j --pair --stats "tp:block_rq_issue(rq)" "tp:block_rq_complete(rq)"
	WORKLOAD dd if="$tmp/blk" of=/dev/null bs=4k iflag=direct 2>/dev/null
	EXPECT   pair_block_counted: eq true "$(record stats "$OUT" | jq '.func == "tp:block_rq_complete" and .value == "latency_ns" and .count >= 64 and .min > 0 and .min <= .max')"
	CASE
	ks_case <<-'CASE'
	NAME     pair_block_hist
	RUN      -j --pair --hist "tp:block_rq_issue(rq)" "tp:block_rq_complete(rq)"
	WORKLOAD dd if="$tmp/blk" of=/dev/null bs=4k iflag=direct 2>/dev/null
	EXPECT   eq true "$(record hist "$OUT" | jq '.func == "tp:block_rq_complete" and .value == "latency_ns" and .count >= 64')"
	CASE
fi
