#!/bin/bash
# record and report, live on this machine (USDT and tracepoints), as root:
# a recording reports what a live run of the same probes printed at the
# same time, byte for byte but for the times (each ksnoop's own BPF program
# reads the clock when it runs, a few microseconds apart); a file cut
# anywhere reports the events of its complete blocks and says where it
# ends; files that are not recordings are refused in one line.  A
# recording is 0600, and --force in a directory others can write replaces
# only a regular file of ours.
. "$(dirname "$0")/helpers.bash"
. "$(dirname "$0")/record.bash"
# Each ksnoop stopped 0.3 s after the workload: its last events read.
END_SETTLE=0.3
usdt_paths
S=$U/syscall_prog
usdt_programs

# --- refusals (no privileges needed): the one line of the golden file ---
: >"$tmp/exists"
printf 'KSNOOPR\nxxxxxxxxxxxxxxxxxxxxxxxx' >"$tmp/garbage"
golden=$(cd "$(dirname "$0")/../golden/48-record" && pwd)
KS_GOLDEN_VARS=tmp ks_errors "$golden/errors" <<'ROWS'
record_needs_output   record tp:sched_process_exec
record_exists         record -o "$tmp/exists" tp:sched_process_exec
record_zeros          record -z -o "$tmp/x" tp:sched_process_exec
record_tree           record --tree -o "$tmp/x" do_sys_openat2
report_tree           report --tree "$tmp/exists"
record_stats          record --stats -o "$tmp/x" f
record_interval       record --count --interval 1s -o "$tmp/x" f
record_no_such_tp     record -o "$tmp/nope.ksr" tp:nope_nope
output_without_record -o "$tmp/x" tp:sched_process_exec
info_without_report   --info info tp:sched_process_exec
report_no_file        report
report_missing        report /nonexistent
report_not_a_recording report "$tmp/exists"
report_bad_block      report "$tmp/garbage"
ROWS
check record_no_file_left_behind test ! -e "$tmp/nope.ksr"

# Recordings made on this machine's 6.18 kernel print as they did then
# (vm/tests/88-record.sh checks the same on 6.1 and 6.12): no BTF, no root.
fx=$(cd "$(dirname "$0")/../fixture/record" && pwd)
for f in usdt tp tp-stack usdt-ustack; do
	expect_eq "fixture_${f}_text" "$(cat "$fx/$f.txt")" "$(TZ=UTC "${NOBODY[@]}" "$K" report "$fx/$f.ksr" 2>/dev/null)"
	expect_eq "fixture_${f}_json" "$(cat "$fx/$f.json")" "$(TZ=UTC ks report -j "$fx/$f.ksr" 2>/dev/null)"
done
# --depth N at report time: a struct nested deeper than N prints as {...}.
expect_eq fixture_tp_depth_1 "$(sed '/^        \.rlim_stack = {$/,/^        },$/c\        .rlim_stack = {...},' "$fx/tp.txt")" \
	"$(TZ=UTC ks report --depth 1 "$fx/tp.ksr" 2>/dev/null)"

needs_root record_live
# The mode a file would get from the umask alone: 0644.
umask 022

notime() { sed -E 's/^[0-9:.]+ cpu/TIME cpu/; s/^\{"type":"event","time_ns":[0-9]+,/{"type":"event","time_ns":T,/'; }

# --- USDT: two live runs (text, JSON) and a recording of the same events ---
specs=("$P:ksnoop_test:small" "$P:ksnoop_test:wide" "$P:ksnoop_test:req(arg0, arg1, arg2:str)"
       "$P:ksnoop_test:chain(arg0:struct node *->next->id, arg0:struct node *->next->next->id, arg0:struct node *)")
bg "$tmp/lt" "$tmp/elt" usdt "${specs[@]}" && lt=$BGPID
bg "$tmp/lj" "$tmp/elj" -j usdt "${specs[@]}" && lj=$BGPID
bg "$tmp/rout" "$tmp/er" record -o "$tmp/u.ksr" usdt "${specs[@]}" && rec=$BGPID
"$P" fire 3 >/dev/null
end $lt $lj $rec
expect_match usdt_recorded "^ksnoop: 12 events recorded to $tmp/u.ksr \([0-9]+ bytes\), 0 lost$" "$(cat "$tmp/er")"
expect_eq usdt_record_stdout_empty "" "$(cat "$tmp/rout")"
ks report -j "$tmp/u.ksr" >"$tmp/rj" 2>"$tmp/erj"
expect_eq usdt_report_status 0 "$?"
check usdt_json_identical cmp <(notime <"$tmp/lj") <(notime <"$tmp/rj")
expect_eq usdt_json_events 12 "$(grep -c '"type":"event"' "$tmp/rj")"
ks report "$tmp/u.ksr" >"$tmp/rt" 2>"$tmp/ert"
check usdt_text_identical cmp <(notime <"$tmp/lt") <(notime <"$tmp/rt")
expect_eq usdt_text_summary "ksnoop: 12 events printed, 0 lost" "$(cat "$tmp/ert")"
expect_match usdt_text_values '^    arg0:struct node \*->next->id = 2$' "$(cat "$tmp/rt")"
# Wall-clock text: the recording's clock reading, to the microsecond.
expect_eq usdt_text_times "$(cut -c1-12 "$tmp/lt" | grep -c '^[0-9][0-9]:')" \
	"$(cut -c1-12 "$tmp/rt" | grep -c '^[0-9][0-9]:')"

# --count at report time: what live --count runs of the same probes counted.
cspecs=("$P:ksnoop_test:small" "$P:ksnoop_test:req(arg0 >= 2)")
bg "$tmp/ct" "$tmp/ect" --count usdt "${cspecs[@]}" && ct=$BGPID
bg "$tmp/cj" "$tmp/ecj" -j --count usdt "${cspecs[@]}" && cj=$BGPID
bg "$tmp/o" "$tmp/ecr" record -o "$tmp/c.ksr" usdt "${cspecs[@]}" && rec=$BGPID
"$P" fire 5 >/dev/null
end $ct $cj $rec
ks report --count "$tmp/c.ksr" >"$tmp/rct" 2>"$tmp/erct"
check count_text_identical cmp "$tmp/ct" "$tmp/rct"
expect_match count_text_rows '^ +5  ksnoop_test:small$' "$(cat "$tmp/rct")"
expect_match count_text_pred '^ +3  ksnoop_test:req$' "$(cat "$tmp/rct")"
# The live run's summary (printed before its links detach) is report's whole stderr.
expect_eq count_summary "$(grep ' calls counted$' "$tmp/ect")" "$(cat "$tmp/erct")"
check count_json_identical cmp "$tmp/cj" <(ks report -j --count "$tmp/c.ksr" 2>/dev/null)
KS_GOLDEN_VARS=tmp ks_errors "$golden/errors-count" <<'ROWS'
report_stats_by       report --stats --by comm "$tmp/c.ksr"
ROWS

# --stats at report time: what live --stats runs of the same calls summed
# (1..20, then 1 down to -2: count 24, sum 208, min -2, max 20).
sspec="$P:ksnoop_test:value(arg0)"
bg "$tmp/st" "$tmp/est" --stats usdt "$sspec" && st=$BGPID
bg "$tmp/sj" "$tmp/esj" -j --stats usdt "$sspec" && sj=$BGPID
bg "$tmp/o" "$tmp/esr" record -o "$tmp/s.ksr" usdt "$sspec" && rec=$BGPID
"$P" values 20 >/dev/null
"$P" downs 2 >/dev/null
end $st $sj $rec
ks report --stats "$tmp/s.ksr" >"$tmp/rst" 2>"$tmp/erst"
expect_eq stats_report_status 0 "$?"
check stats_text_identical cmp "$tmp/st" "$tmp/rst"
expect_eq stats_summary "$(grep ' calls counted$' "$tmp/est")" "$(cat "$tmp/erst")"
check stats_json_identical cmp "$tmp/sj" <(ks report -j --stats "$tmp/s.ksr" 2>/dev/null)
expect_eq stats_json_values '24 208 -2 20' \
	"$(ks report -j --stats "$tmp/s.ksr" 2>/dev/null | jq -r 'select(.type == "stats") | "\(.count) \(.sum) \(.min) \(.max)"')"

# --pair --stats at report time: a recording of START and END (usdt_prog
# pairs 4: each done 20 ms or more after its start) paired by arg0 as a live
# --pair --stats pairs them: the same row (times differ by the programs'
# own clock readings), each latency at least 20 ms, the same summary.
pspecs=("$P:ksnoop_test:start(arg0)" "$P:ksnoop_test:done(arg0)")
bg "$tmp/pj" "$tmp/epj" -j --pair --stats usdt "${pspecs[@]}" && pj=$BGPID
bg "$tmp/o" "$tmp/epr" record -o "$tmp/p.ksr" usdt "${pspecs[@]}" && rec=$BGPID
"$P" pairs 4 >/dev/null
end $pj $rec
ks report -j --pair --stats "$tmp/p.ksr" >"$tmp/rpj" 2>"$tmp/erpj"
expect_eq pair_report_status 0 "$?"
row='select(.type == "stats") | "\(.func) \(.value) \(.count)"'
expect_eq pair_row_as_live "$(jq -r "$row" "$tmp/pj")" "$(jq -r "$row" "$tmp/rpj")"
expect_eq pair_row 'ksnoop_test:done latency_ns 4' "$(jq -r "$row" "$tmp/rpj")"
expect_eq pair_min_at_least_20ms true "$(jq 'select(.type == "stats") | .min >= 20000000' "$tmp/rpj")"
summ='select(.type == "summary") | "\(.counted) \(.starts_not_paired) \(.key_unreadable)"'
expect_eq pair_summary_as_live "$(jq -r "$summ" "$tmp/pj")" "$(jq -r "$summ" "$tmp/rpj")"

# --pair's events at report time: a recording of START and END prints each
# END with its latency since its START, as the live --pair runs (text and
# JSON) printed them at the same time: the same lines but for the times
# and latencies (each program reads its own clock).  usdt_prog pairs 3:
# done 2, 1, 0, each paired by arg0 with its own start.
bg "$tmp/plt" "$tmp/eplt" --pair usdt "${pspecs[@]}" && plt=$BGPID
bg "$tmp/plj" "$tmp/eplj" -j --pair usdt "${pspecs[@]}" && plj=$BGPID
bg "$tmp/o" "$tmp/epr2" record -o "$tmp/pe.ksr" usdt "${pspecs[@]}" && rec=$BGPID
"$P" pairs 3 >/dev/null
wait_lines "$tmp/plt" 6 && wait_lines "$tmp/plj" 3
end $plt $plj $rec
nolat() { notime | sed -E 's/^(TIME cpu.*) \([0-9.]+ [mun]?s\)$/\1 (LATENCY)/'; }
ks report --pair "$tmp/pe.ksr" >"$tmp/rplt" 2>"$tmp/erplt"
expect_eq pair_events_status 0 "$?"
check pair_events_text_as_live cmp <(nolat <"$tmp/plt") <(nolat <"$tmp/rplt")
expect_eq pair_events_text_lines 3 "$(grep -Ec '^[0-9:.]+ cpu[0-9]+ usdt_prog [0-9/]+ -> ksnoop_test:done \([0-9.]+ ms\)$' "$tmp/rplt")"
expect_eq pair_events_text_summary_as_live "$(grep "events printed" "$tmp/eplt")" "$(cat "$tmp/erplt")"
ks report -j --pair "$tmp/pe.ksr" >"$tmp/rplj" 2>"$tmp/erplj"
expect_eq pair_events_json_status 0 "$?"
pev='select(.type == "event") | del(.time_ns, .duration_ns)'
expect_eq pair_events_json_as_live "$(jq -c "$pev" "$tmp/plj")" "$(jq -c "$pev" "$tmp/rplj")"
expect_eq pair_events_json_ends '2 1 0' "$(events "$tmp/rplj" | jq -r '.values.arg0' | joined)"
expect_eq pair_events_json_at_least_20ms true \
	"$(events "$tmp/rplj" | jq -s 'length == 3 and all(.duration_ns >= 20000000)')"
expect_eq pair_events_json_summary_as_live "$(record summary "$tmp/plj")" "$(record summary "$tmp/rplj")"
# -L at report time: the END events at least that late.  done(1)'s latency
# is above done(2)'s and below done(0)'s (its done fired after done(2)'s,
# its start before start(2); done(0) the other way round), whatever the
# load: with it as -L, done 1 and 0 print, done 2 does not.
lat1=$(events "$tmp/rplj" | jq -r 'select(.values.arg0 == 1) | .duration_ns')
expect_eq pair_events_min_latency '1 0' \
	"$(ks report -j --pair -L "${lat1}ns" "$tmp/pe.ksr" 2>/dev/null | events | jq -r '.values.arg0' | joined)"
expect_eq pair_events_min_latency_text 2 \
	"$(ks report --pair -L "${lat1}ns" "$tmp/pe.ksr" 2>/dev/null | grep -c 'ksnoop_test:done')"
expect_eq pair_events_min_latency_summary 2 \
	"$(ks report -j --pair -L "${lat1}ns" "$tmp/pe.ksr" 2>/dev/null | record summary | jq -r .printed)"
# Specs that name no value pair by thread, live and at report time, although
# the recording printed their arguments (a USDT probe's, all of them): the
# latest start wins, the first done takes it, the two dones after it have
# no start left.  Keyed by the recorded arg0 instead, all three would pair.
tspecs=("$P:ksnoop_test:start" "$P:ksnoop_test:done")
bg "$tmp/ptj" "$tmp/eptj" -j --pair usdt "${tspecs[@]}" && ptj=$BGPID
bg "$tmp/o" "$tmp/eptr" record -o "$tmp/pt.ksr" usdt "${tspecs[@]}" && rec=$BGPID
"$P" pairs 3 >/dev/null
wait_lines "$tmp/ptj" 1
end $ptj $rec
ks report -j --pair "$tmp/pt.ksr" >"$tmp/rptj" 2>"$tmp/erptj"
expect_eq pair_thread_status 0 "$?"
expect_eq pair_thread_as_live "$(jq -c "$pev" "$tmp/ptj")" "$(jq -c "$pev" "$tmp/rptj")"
expect_eq pair_thread_one 2 "$(events "$tmp/rptj" | jq -r '.values.arg0' | joined)"
expect_eq pair_thread_stats 1 "$(ks report -j --pair --stats "$tmp/pt.ksr" 2>/dev/null | record stats | jq -r .count)"

# Filters and -n at report time, as they would have been live.
expect_eq report_n 2 "$(ks report -j -n 2 "$tmp/u.ksr" 2>/dev/null | grep -c '"type":"event"')"
expect_eq report_n_summary 2 "$(ks report -j -n 2 "$tmp/u.ksr" 2>/dev/null | jq -r 'select(.type == "summary") | .printed')"
expect_eq report_comm 12 "$(ks report -j -c usdt_prog "$tmp/u.ksr" 2>/dev/null | grep -c '"type":"event"')"
expect_eq report_comm_other 0 "$(ks report -j -c nope "$tmp/u.ksr" 2>/dev/null | grep -c '"type":"event"')"
pid=$(jq -r 'select(.type == "event") | .pid' "$tmp/rj" | head -1)
expect_eq report_pid 12 "$(ks report -j -p "$pid" "$tmp/u.ksr" 2>/dev/null | grep -c '"type":"event"')"
expect_eq report_tid_other 0 "$(ks report -j --tid 1 "$tmp/u.ksr" 2>/dev/null | grep -c '"type":"event"')"
expect_eq report_stdin 12 "$(ks report -j - <"$tmp/u.ksr" 2>/dev/null | grep -c '"type":"event"')"
expect_eq report_oneline "$(grep -c . <(ks report --oneline "$tmp/u.ksr" 2>/dev/null))" 12

# --info: what the file holds.
info=$(ks report -j --info "$tmp/u.ksr")
expect_eq info_events "info recording 12 0 4" \
	"$(jq -r '"\(.type) \(.kind) \(.entries) \(.returns) \(.targets | length)"' <<<"$info")"
expect_eq info_spec "${specs[2]}" "$(jq -r '.specs[2]' <<<"$info")"
expect_eq info_size "$(stat -c %s "$tmp/u.ksr")" "$(jq -r .size <<<"$info")"
expect_eq info_kernel "$(uname -r) $(uname -m) 0" "$(jq -r '"\(.kernel) \(.machine) \(.lost)"' <<<"$info")"
expect_match info_text '^    targets = \[$' "$(ks report --info "$tmp/u.ksr")"

# -o - writes the file to stdout; --force overwrites.
bg "$tmp/pipe.ksr" "$tmp/ep" record -n 4 -o - usdt "$P:ksnoop_test:small" && p1=$BGPID
"$P" fire 4 >/dev/null
end $p1
expect_eq record_stdout 4 "$(ks report -j - <"$tmp/pipe.ksr" 2>/dev/null | grep -c '"type":"event"')"
# --force replaces the file by a new one: its other hard links keep the old bytes.
echo old >"$tmp/exists"
chmod 644 "$tmp/exists"
ln "$tmp/exists" "$tmp/exists-link"
bg "$tmp/o" "$tmp/ef" record --force -n 1 -o "$tmp/exists" usdt "$P:ksnoop_test:small" && p1=$BGPID
"$P" fire 1 >/dev/null
end $p1
expect_eq record_force 1 "$(ks report -j "$tmp/exists" 2>/dev/null | grep -c '"type":"event"')"
expect_eq record_force_mode_0600 600 "$(stat -c %a "$tmp/exists")"
expect_eq record_force_other_link_kept "old" "$(cat "$tmp/exists-link")"
# A run that fails before it records leaves the file it would have replaced.
KS_GOLDEN_VARS=tmp ks_errors "$golden/errors-force" <<'ROWS'
record_force_failed_keeps record --force -o "$tmp/exists-link" tp:nope_nope
ROWS
expect_eq record_force_failed_kept "old" "$(cat "$tmp/exists-link")"
expect_eq record_force_failed_no_temp "exists exists-link" "$(cd "$tmp" && ls -d exists* | joined)"

# --- recordings are 0600 (every captured value, and kallsyms addresses
#     that kptr_restrict hides from other users), whatever the umask ---
expect_eq record_mode_0600 600 "$(stat -c %a "$tmp/u.ksr")"

# --- -o in a directory others can write (sticky, like /tmp), where nobody
#     planted a symbolic link to root's file, a FIFO and a 0666 file of
#     its own: --force refuses each in one line (exit 1), promptly (the
#     FIFO must not block), and leaves all of them as they were ---
sh_dir=$tmp/shared
mkdir -m 1777 "$sh_dir"
echo secret >"$tmp/victim"
chmod 600 "$tmp/victim"
"${NOBODY[@]}" ln -s "$tmp/victim" "$sh_dir/link"
"${NOBODY[@]}" mkfifo "$sh_dir/fifo"
"${NOBODY[@]}" sh -c 'echo theirs >"$1"; chmod 666 "$1"' - "$sh_dir/theirs"
expect_eq hostile_planted "symbolic link fifo nobody" "$(stat -c %F "$sh_dir/link") $(stat -c %F "$sh_dir/fifo") $(stat -c %U "$sh_dir/theirs")"
# Were one accepted, the run ends by itself: -c matches nothing,
# --duration.  Without --force each is refused as existing (O_EXCL
# follows no link, opens no FIFO).
quiet=(-c ksrec_none --duration 2 tp:sched_process_exec)
KSNOOP_TIMEOUT=10 KS_GOLDEN_VARS="sh_dir tmp" ks_errors "$golden/errors-hostile" <<'ROWS'
force_symlink_refused     record --force -o "$sh_dir/link" "${quiet[@]}"
force_fifo_refused        record --force -o "$sh_dir/fifo" "${quiet[@]}"
force_others_file_refused record --force -o "$sh_dir/theirs" "${quiet[@]}"
fifo_exists               record -o "$sh_dir/fifo" "${quiet[@]}"
symlink_exists            record -o "$sh_dir/link" "${quiet[@]}"
ROWS
expect_eq hostile_victim_untouched "secret root 600" "$(cat "$tmp/victim") $(stat -c '%U %a' "$tmp/victim")"
expect_eq hostile_theirs_untouched "theirs nobody 666" "$(cat "$sh_dir/theirs") $(stat -c '%U %a' "$sh_dir/theirs")"
expect_eq hostile_link_fifo_kept "link fifo" "$(test -L "$sh_dir/link" && echo link) $(test -p "$sh_dir/fifo" && echo fifo)"
expect_eq hostile_nothing_added "fifo link theirs" "$(ls "$sh_dir" | joined)"

# --- report --tid: the thread, not the process (usdt_prog threads: the
#     main thread and a second one each fire tick with their own tid) ---
bg "$tmp/o" "$tmp/eth" record -n 40 -o "$tmp/th.ksr" usdt "$P:ksnoop_test:tick" && rec=$BGPID
"$P" threads 1 >"$tmp/threads.out"
for i in $(seq 100); do kill -0 "$rec" 2>/dev/null || break; sleep 0.1; done
end $rec
t2=$(sed -n 's/^tid //p' "$tmp/threads.out")
ks report -j "$tmp/th.ksr" >"$tmp/thj" 2>/dev/null
thpid=$(jq -r 'select(.type == "event") | .pid' "$tmp/thj" | sort -u)
expect_eq tid_two_threads_recorded "2 1" \
	"$(jq -r 'select(.type == "event") | .tid' "$tmp/thj" | sort -u | wc -l) $(grep -c . <<<"$thpid")"
for t in "$t2" "$thpid"; do
	want=$(jq -r --argjson t "$t" 'select(.type == "event" and .tid == $t) | .tid' "$tmp/thj" | grep -c .)
	got=$(ks report -j --tid "$t" "$tmp/th.ksr" 2>/dev/null | jq -r 'select(.type == "event") | .tid' |
		sort | uniq -c | awk '{ print $1, $2 }' | joined)
	expect_eq "report_tid_$([ "$t" = "$thpid" ] && echo main || echo second)" "$want $t" "$got"
done

# --- returns alone: sys:openat(filename, return < 0) stashes each entry and
#     records the failing returns (syscall_prog: N of them) ---
sprog=ksrec_sys$$
cp "$S" "$tmp/$sprog"
N=5
bg "$tmp/o" "$tmp/esys" record -c "$sprog" -o "$tmp/sys.ksr" 'sys:openat(filename, return < 0)' && rec=$BGPID
"$tmp/$sprog" "$tmp/missing" $N "$tmp/victim" 2 >/dev/null 2>&1
end $rec
info=$(ks report -j --info "$tmp/sys.ksr")
expect_eq sys_returns_only "0 $N" "$(jq -r '"\(.entries) \(.returns)"' <<<"$info")"
# The span runs from the first record to the last (time_ns: too wide for jq's doubles).
times=$(ks report -j "$tmp/sys.ksr" 2>/dev/null | sed -n 's/^{"type":"event","time_ns":\([0-9]*\),.*/\1/p')
expect_eq sys_times $N "$(grep -c . <<<"$times")"
expect_eq info_span_returns_only "$(($(tail -1 <<<"$times") - $(head -1 <<<"$times")))" "$(jq -r .span_ns <<<"$info")"
check info_span_not_zero test "$(jq -r .span_ns <<<"$info")" -gt 0
# --count counts each call once, at its return when the entry was stashed.
expect_eq sys_count_counted $N "$(ks report -j --count "$tmp/sys.ksr" 2>/dev/null | jq -r 'select(.type == "summary") | .counted')"
expect_match sys_count_row "^ +$N  sys:openat$" "$(ks report --count "$tmp/sys.ksr" 2>/dev/null)"

# --- a full disk (here RLIMIT_FSIZE, its signal ignored: writes fail with
#     EFBIG): the recording stops with one line and status 1, and the file
#     reports the events of its complete blocks ---
( trap '' XFSZ; ulimit -f 4; exec "$K" record -o "$tmp/full.ksr" usdt "$P:ksnoop_test:req(arg0, arg1, arg2:str)" ) \
	>/dev/null 2>"$tmp/efull" &
fpid=$!
for i in $(seq 100); do grep -q . "$tmp/full.ksr" 2>/dev/null && break; sleep 0.1; done
sleep 0.5
"$P" fire 3 >/dev/null
sleep 0.5
"$P" fire 3000 >/dev/null
for i in $(seq 50); do kill -0 $fpid 2>/dev/null || break; sleep 0.1; done
kill -INT $fpid 2>/dev/null
wait $fpid
expect_eq full_disk_status 1 "$?"
# Its one line after the ready line ("tracing 1 target").
expect_eq full_disk_line "ksnoop: record: writing failed after 4096 bytes: File too large; the file holds what was written before" \
	"$(grep -v '^ksnoop: tracing 1 target; Ctrl-C to stop$' "$tmp/efull")"
ks report -j "$tmp/full.ksr" >"$tmp/fullj" 2>/dev/null
expect_eq full_disk_report_status 0 "$?"
expect_eq full_disk_first_events "0 1 2" "$(jq -r 'select(.type == "event") | .values.arg0' "$tmp/fullj" | head -3 | joined)"
expect_match full_disk_cut '"warning":"report: .* is cut short: its last complete block ends at byte [0-9]+ \(of 4096 read\)' \
	"$(cat "$tmp/fullj")"

# --- a tracepoint: a struct behind a pointer, strings, the kernel stack ---
cp /bin/true "$tmp/ksrec_exec"
tspec="tp:sched_process_exec(p->comm, bprm->filename, bprm->argc, *bprm)"
bg "$tmp/tl" "$tmp/etl" -s -c ksrec_exec "$tspec" && lt=$BGPID
bg "$tmp/tj" "$tmp/etj" -j -s -c ksrec_exec "$tspec" && lj=$BGPID
bg "$tmp/o" "$tmp/etr" record -s -c ksrec_exec -o "$tmp/t.ksr" "$tspec" && rec=$BGPID
for i in 1 2 3; do "$tmp/ksrec_exec"; sleep 0.2; done
end $lt $lj $rec
ks report -j "$tmp/t.ksr" >"$tmp/trj" 2>/dev/null
check tp_json_identical cmp <(notime <"$tmp/tj") <(notime <"$tmp/trj")
expect_eq tp_json_events 3 "$(grep -c '"type":"event"' "$tmp/trj")"
expect_eq tp_json_stack_named "ok" "$(jq -r 'select(.type == "event") | .stack[0]' "$tmp/trj" | grep -q '^[a-z_]' && echo ok)"
ks report "$tmp/t.ksr" >"$tmp/trt" 2>/dev/null
check tp_text_identical cmp <(notime <"$tmp/tl") <(notime <"$tmp/trt")
expect_match tp_text_filename "^    bprm->filename = \"$tmp/ksrec_exec\"$" "$(cat "$tmp/trt")"

# --- the same recording without its KSYMS block: the stack's addresses
#     print as addresses, never named from this machine's /proc/kallsyms
#     (on another machine that is another kernel; here it would be right) ---
off=8 size=$(stat -c %s "$tmp/t.ksr")
: >"$tmp/nok.ksr"
head -c 8 "$tmp/t.ksr" >"$tmp/nok.ksr"
while [ "$off" -lt "$size" ]; do
	type=$(od -An -tu4 -j "$off" -N4 "$tmp/t.ksr" | tr -d ' ')
	stored=$(od -An -tu4 -j $((off + 8)) -N4 "$tmp/t.ksr" | tr -d ' ')
	[ $((type & 0xffff)) = 4 ] || tail -c +$((off + 1)) "$tmp/t.ksr" | head -c $((16 + stored)) >>"$tmp/nok.ksr"
	off=$((off + 16 + stored))
done
check no_ksyms_block_removed test "$(stat -c %s "$tmp/nok.ksr")" -lt "$size"
ks report -j "$tmp/nok.ksr" >"$tmp/nokj" 2>/dev/null
expect_eq no_ksyms_report_status 0 "$?"
named=$(jq -r 'select(.type == "event") | .stack[]' "$tmp/trj")
raw=$(jq -r 'select(.type == "event") | .stack[]' "$tmp/nokj")
# Every frame, the tracer's own at the top too (only a name tells those apart).
check no_ksyms_frames test "$(grep -c . <<<"$raw")" -ge "$(grep -c . <<<"$named")" -a -n "$named"
expect_eq no_ksyms_addresses_only "" "$(grep -v '^0xffff[0-9a-f]*$' <<<"$raw")"
check with_ksyms_named test -z "$(grep '^0x' <<<"$named")"

# --- a file cut short: the events of its complete blocks, and where it ends ---
# Block ends, from the headers: 8 bytes of magic, then 16-byte headers
# (type, raw length, stored length, CRC-32) each before its stored bytes.
ends=()
size=$(stat -c %s "$tmp/t.ksr")
off=8
while [ "$off" -lt "$size" ]; do
	stored=$(od -An -tu4 -j $((off + 8)) -N4 "$tmp/t.ksr" | tr -d ' ')
	off=$((off + 16 + stored))
	ends+=("$off")
done
expect_eq block_walk_ends_at_size "$size" "${ends[-1]}"
# Events blocks are the batches the loop wrote: several, one per exec here.
nblocks=${#ends[@]}
check several_event_blocks test "$nblocks" -ge 6
cut_ok=0 cut_bad=""
prev=0
cuts=("${ends[@]}")
for ((c = 4096; c < size; c += 4096)); do cuts+=("$c"); done
for c in "${cuts[@]}"; do
	[ "$c" -ge "$size" ] && continue
	head -c "$c" "$tmp/t.ksr" >"$tmp/cut"
	ks report -j "$tmp/cut" >"$tmp/out" 2>/dev/null
	rc=$?
	grep '"type":"event"' "$tmp/out" >"$tmp/cj"
	grep -v '"type":"event"' "$tmp/out" >"$tmp/ce"
	n=$(grep -c . "$tmp/cj")
	# Before the plans end nothing can print: a bad file (2).  After,
	# the cut file's events are the whole file's first N, byte for byte.
	if [ "$c" -lt "${ends[2]}" ]; then
		[ "$rc" = 2 ] && [ "$n" = 0 ] && grep -q "file ends before its plans at byte" "$tmp/ce" ||
			cut_bad+=" $c(rc=$rc n=$n $(head -c 200 "$tmp/ce"))"
	elif [ "$rc" != 0 ] || ! cmp -s "$tmp/cj" <(head -n "$n" "$tmp/trj") ||
		! grep -q "is cut short: its last complete block ends at byte [0-9]* (of $c read)" "$tmp/ce"; then
		cut_bad+=" $c(rc=$rc n=$n $(head -c 200 "$tmp/ce"))"
	else
		cut_ok=$((cut_ok + 1))
	fi
done
expect_eq cut_files_report_prefix "" "$cut_bad"
check cut_files_many test "$cut_ok" -ge 100
# At each block's end exactly, the events of the blocks before it (all of them at the last).
n_at_ends=""
for c in "${ends[@]}"; do
	[ "$c" -ge "$size" ] && continue
	head -c "$c" "$tmp/t.ksr" >"$tmp/cut"
	n_at_ends+="$(ks report -j "$tmp/cut" 2>/dev/null | grep -c '"type":"event"') "
done
expect_match cut_at_block_ends_grow '^(0 )+1 2 3 $' "$n_at_ends"
