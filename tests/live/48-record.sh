#!/bin/bash
# record and report, live on this machine (USDT and tracepoints), as root:
# a recording reports what a live run of the same probes printed at the
# same time, byte for byte but for the times (each ksnoop's own BPF program
# reads the clock when it runs, a few microseconds apart); a file cut
# anywhere reports the events of its complete blocks and says where it
# ends; files that are not recordings are refused in one line.
. "$(dirname "$0")/helpers.bash"
usdt_programs

# --- refusals (no privileges needed) ---
: >"$tmp/exists"
expect_error record_needs_output 2 "^ksnoop: record: expected -o FILE \(-o - for stdout\)$" record tp:sched_process_exec
expect_error record_exists 2 "^ksnoop: record: '$tmp/exists' exists; --force overwrites it$" \
	record -o "$tmp/exists" tp:sched_process_exec
expect_error record_zeros 2 "^ksnoop: record: -z chooses how a recording prints: give -z to \`ksnoop report\`$" \
	record -z -o "$tmp/x" tp:sched_process_exec
expect_error record_tree 2 "^ksnoop: record: --tree is not recorded yet$" record --tree -o "$tmp/x" f g
expect_error record_count 2 "^ksnoop: record: --count counts in BPF and records nothing: record the events, then \`ksnoop report --count FILE\`$" record --count -o "$tmp/x" f
expect_error record_hist 2 "^ksnoop: record: --hist is not recorded yet$" record --hist -o "$tmp/x" f
expect_error record_ustack 2 "^ksnoop: record: user stacks \(--ustack, a USDT probe's -s\) are not recorded yet$" \
	record --ustack -o "$tmp/x" tp:sched_process_exec
expect_error record_no_such_tp 2 "unknown tracepoint 'nope_nope'" record -o "$tmp/nope.ksr" tp:nope_nope
check record_no_file_left_behind test ! -e "$tmp/nope.ksr"
expect_error output_without_record 2 "^ksnoop: -o goes with record$" -o "$tmp/x" tp:sched_process_exec
expect_error info_without_report 2 "^ksnoop: --info goes with report" --info info tp:sched_process_exec
expect_error report_two_files 2 "^ksnoop: report: expected one FILE \(- for stdin\)$" report a b
expect_error report_missing 2 "^ksnoop: report: cannot open '/nonexistent': No such file or directory$" report /nonexistent
expect_error report_not_a_recording 2 "^ksnoop: report: '$tmp/exists' is not a ksnoop recording \(too short\)$" \
	report "$tmp/exists"
printf 'KSNOOPR\nxxxxxxxxxxxxxxxxxxxxxxxx' >"$tmp/garbage"
expect_error report_bad_block 2 "^ksnoop: report: '$tmp/garbage': unknown block type at byte 8$" report "$tmp/garbage"

# Recordings made on this machine's 6.18 kernel print as they did then
# (vm/tests/88-record.sh checks the same on 6.1 and 6.12): no BTF, no root.
fx=$(cd "$(dirname "$0")/../fixture/record" && pwd)
for f in usdt tp tp-stack; do
	expect_eq "fixture_${f}_text" "$(cat "$fx/$f.txt")" "$(TZ=UTC "${NOBODY[@]}" "$K" report "$fx/$f.ksr" 2>/dev/null)"
	expect_eq "fixture_${f}_json" "$(cat "$fx/$f.json")" "$(TZ=UTC ks report -j "$fx/$f.ksr" 2>/dev/null)"
done

needs_root record_live

# bg OUT ERR ARGS...: ksnoop in the background until it says it traces; its pid in BGPID.
bg() {
	spawn "$1" "$2" -v "${@:3}"
	BGPID=$KPID
	local i
	for i in $(seq 100); do
		grep -q "tracing .* target" "$2" && return 0
		kill -0 "$BGPID" 2>/dev/null || break
		sleep 0.1
	done
	fail "attach_$(basename "$1")" "$(cat "$2")"
	return 1
}
# end PID...: SIGINT each, then wait for all.
end() {
	local p
	sleep 0.3
	for p in "$@"; do kill -INT "$p" 2>/dev/null; done
	for p in "$@"; do wait "$p" 2>/dev/null; done
}
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
expect_eq count_summary "$(tail -1 "$tmp/ect")" "$(cat "$tmp/erct")"
check count_json_identical cmp "$tmp/cj" <(ks report -j --count "$tmp/c.ksr" 2>/dev/null)
expect_error report_hist 2 "^ksnoop: report: --hist of a recording is not done yet$" report --hist "$tmp/c.ksr"

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
bg "$tmp/o" "$tmp/ef" record --force -n 1 -o "$tmp/exists" usdt "$P:ksnoop_test:small" && p1=$BGPID
"$P" fire 1 >/dev/null
end $p1
expect_eq record_force 1 "$(ks report -j "$tmp/exists" 2>/dev/null | grep -c '"type":"event"')"

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
expect_eq full_disk_line "ksnoop: record: writing failed after 4096 bytes: File too large; the file holds what was written before" \
	"$(cat "$tmp/efull")"
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
