#!/bin/bash
# Several recordings merged by wall time, live on this machine, as root:
# two recordings of the same system calls, one of them made in a UTS
# namespace with a host name of its own (unshare --uts), reported as one
# stream: every event of both, in wall-time order, each marked with its
# host (text: after the time; JSON: "host" and "wall_ns"); --count rows
# the sum of the files'; SPECs, --since/--until over the merge; one file
# alone prints as before (no host column); a version 4 file's host is its
# file name; --format=perfetto of both: one timeline, each host's pids on
# tracks of their own.  record --count and record --hist: a plain report prints what
# live --count/--hist runs beside them printed.  Bad files among several:
# one line naming the file, exit 2, nothing on stdout.
. "$(dirname "$0")/helpers.bash"
. "$(dirname "$0")/record.bash"
usdt_paths
S=$U/syscall_prog
scratch_dir
needs_root record_merge
if [ ! -x "$S" ]; then
	fail syscall_program "missing $S (make build/usdt/syscall_prog)"
	exit 0
fi
umask 022
prog=kssm$$
cp "$S" "$tmp/$prog"
missing=$tmp/missing-file
existing=$tmp/existing-file
: >"$existing"
N=3 M=2
hostb=ksmerge-b$$
hosta=$(uname -n)


spec='sys:openat(filename, return)'
bg "$tmp/oa" "$tmp/ea" record -o "$tmp/a.ksr" -c "$prog" "$spec" && ra=$BGPID
# b: the same calls, recorded in a namespace whose host name is hostb.
saved=("${KCMD[@]}")
KCMD=(unshare --uts -- sh -c 'hostname "$0" && exec "$@"' "$hostb" "${saved[@]}")
bg "$tmp/ob" "$tmp/eb" record -o "$tmp/b.ksr" -c "$prog" "$spec" && rb=$BGPID
KCMD=("${saved[@]}")
# record --count and --hist beside live runs of the same calls.
bg "$tmp/lc" "$tmp/elc" -c "$prog" --count --by return 'sys:openat(return)' && lc=$BGPID
bg "$tmp/oc" "$tmp/ec" record -o "$tmp/c.ksr" -c "$prog" --count --by return 'sys:openat(return)' && rc=$BGPID
bg "$tmp/lh" "$tmp/elh" -c "$prog" -j --hist=linear:-4:4:2 'sys:openat(return)' && lh=$BGPID
bg "$tmp/oh" "$tmp/eh" record -o "$tmp/h.ksr" -c "$prog" --hist=linear:-4:4:2 'sys:openat(return)' && rh=$BGPID
"$tmp/$prog" "$missing" $N "$existing" $M >/dev/null 2>&1
"$tmp/$prog" "$missing" $N "$existing" $M >/dev/null 2>&1
end $ra $rb $lc $rc $lh $rh

# --- the merge ---
ks report "$tmp/a.ksr" >"$tmp/a.txt" 2>/dev/null
ks report "$tmp/b.ksr" >"$tmp/b.txt" 2>/dev/null
na=$(headers "$tmp/a.txt" | wc -l)
nb=$(headers "$tmp/b.txt" | wc -l)
check recorded_both test "$na" -gt 0 -a "$nb" -gt 0
ks report "$tmp/a.ksr" "$tmp/b.ksr" >"$tmp/m.txt" 2>"$tmp/em"
expect_eq merge_status 0 "$?"
expect_eq merge_events $((na + nb)) "$(headers "$tmp/m.txt" | wc -l)"
expect_eq merge_host_a "$na" "$(headers "$tmp/m.txt" | awk -v h="$hosta" '$2 == h' | wc -l)"
expect_eq merge_host_b "$nb" "$(headers "$tmp/m.txt" | awk -v h="$hostb" '$2 == h' | wc -l)"
expect_eq merge_summary "ksnoop: $((na + nb)) events printed, 0 lost" "$(cat "$tmp/em")"
# One file alone: no host column (the golden suite checks its bytes).
expect_eq single_no_host "$na" "$(headers "$tmp/a.txt" | awk '$2 ~ /^cpu[0-9]+$/' | wc -l)"
# Without the host, the merge's lines are each file's, interleaved.
expect_eq merge_lines_a "$(headers "$tmp/a.txt")" \
	"$(headers "$tmp/m.txt" | awk -v h="$hosta" '$2 == h { $2 = ""; sub(/  /, " "); print }')"

ks report -j "$tmp/a.ksr" "$tmp/b.ksr" >"$tmp/m.json" 2>/dev/null
ev='select(.type == "event")'
expect_eq json_hosts "$(printf '%s\n' "$hosta" "$hostb" | sort)" \
	"$(jq -r "$ev | .host" "$tmp/m.json" | sort -u)"
expect_eq json_host_b_events "$nb" "$(jq -r "$ev | select(.host == \"$hostb\") | .kind" "$tmp/m.json" | wc -l)"
# In wall-time order, and interleaved: both hosts saw the same calls.
expect_eq json_wall_order true "$(jq -s "[.[] | $ev | .wall_ns] | . == sort" "$tmp/m.json")"
check json_interleaved test "$(jq -r "$ev | .host" "$tmp/m.json" | uniq | wc -l)" -gt 2
# wall_ns is the event's time and its file's clock offset.
expect_eq json_wall_ns true "$(jq -s "[.[] | $ev | select(.host == \"$hostb\")] | length > 0 and all(.wall_ns > .time_ns)" "$tmp/m.json")"

# --format=perfetto: one document, the events by wall time, each host's
# tracks its own (trace_events.py against -j of the merge); both hosts
# recorded the same processes, so a pid is two processes there, named by
# their hosts.
CHECK=$(cd "$(dirname "$0")" && pwd)/trace_events.py
ks report --format=perfetto "$tmp/a.ksr" "$tmp/b.ksr" >"$tmp/m.pf" 2>"$tmp/epf"
expect_eq perfetto_status 0 "$?"
python3 "$CHECK" "$tmp/m.pf" --events "$tmp/m.json" 2>"$tmp/pf.check"
expect_eq perfetto_valid "" "$(cat "$tmp/pf.check")"
expect_eq perfetto_events $((na + nb)) "$(jq '.otherData.events' "$tmp/m.pf")"
expect_eq perfetto_hosts "$hosta 0 $hostb 8388608" "$(jq -r '[.otherData.hosts[] | .host, .pid_base] | join(" ")' "$tmp/m.pf")"
expect_eq perfetto_wall_order true "$(jq '[.traceEvents[] | select(.cat == "cpu") | .ts] | . == sort' "$tmp/m.pf")"
pid=$(jq -r "$ev | .pid" "$tmp/m.json" | head -n 1)
# pfproc SUFFIX: the trace's processes whose names end in SUFFIX, "NAME PID" a line, sorted.
pfproc() {
	jq -r --arg s "$1" '.traceEvents[] | select(.ph == "M" and .name == "process_name" and (.args.name | endswith($s))) | "\(.args.name)|\(.pid)"' "$tmp/m.pf" | sort
}
expect_eq perfetto_pid_named "$(printf '%s\n' "$hosta: $prog ($pid)" "$hostb: $prog ($pid)" | sort)" \
	"$(pfproc " ($pid)" | cut -d'|' -f1)"
expect_eq perfetto_pid_two_tracks 2 "$(pfproc " ($pid)" | cut -d'|' -f2 | sort -u | wc -l)"
expect_eq perfetto_cpus_named "$(printf '%s\n' "$hosta: CPUs" "$hostb: CPUs" | sort)" \
	"$(pfproc ": CPUs" | cut -d'|' -f1)"
expect_eq perfetto_cpus_two_tracks 2 "$(pfproc ": CPUs" | cut -d'|' -f2 | sort -u | wc -l)"

# --count: one row per target, the files' calls added up.
ca=$(ks report -j --count "$tmp/a.ksr" 2>/dev/null | jq -r 'select(.type == "count") | .count')
cb=$(ks report -j --count "$tmp/b.ksr" 2>/dev/null | jq -r 'select(.type == "count") | .count')
expect_eq merge_count "$((ca + cb))" \
	"$(ks report -j --count "$tmp/a.ksr" "$tmp/b.ksr" 2>/dev/null | jq -r 'select(.type == "count") | .count')"
# SPECs over the merge: the failing opens of both hosts.
ks report "$tmp/a.ksr" "$tmp/b.ksr" 'sys:openat(return == -2)' >"$tmp/q.txt" 2>/dev/null
expect_eq merge_query $((4 * N)) "$(headers "$tmp/q.txt" | wc -l)"
expect_eq merge_query_b $((2 * N)) "$(headers "$tmp/q.txt" | awk -v h="$hostb" '$2 == h' | wc -l)"
expect_eq merge_count_by "$(printf '%s\n' $((4 * N)))" \
	"$(ks report -j --count --by return "$tmp/a.ksr" "$tmp/b.ksr" 'sys:openat(return < 0)' 2>/dev/null | jq -r 'select(.type == "count") | .count')"
# --since/--until: one window for both files.
expect_eq merge_until_far $((na + nb)) "$(ks report --until 1000s "$tmp/a.ksr" "$tmp/b.ksr" 2>/dev/null | headers /dev/stdin | wc -l)"
expect_eq merge_since_far 0 "$(ks report --since 1000s "$tmp/a.ksr" "$tmp/b.ksr" 2>/dev/null | headers /dev/stdin | wc -l)"
# A version 4 file (this machine's USDT fixture): its host is its name as given.
fx=$(cd "$(dirname "$0")/../fixture/record" && pwd)
nu=$(ks report -j "$fx/usdt.ksr" 2>/dev/null | jq -r "$ev | .kind" | wc -l)
expect_eq merge_old_host "$nu" \
	"$(ks report -j "$fx/usdt.ksr" "$tmp/a.ksr" 2>/dev/null | jq -r "$ev | select(.host == \"$fx/usdt.ksr\") | .kind" | wc -l)"
# Each event prints through its own file's plans: a's after usdt's targets are still sys:openat.
expect_eq merge_own_plans sys:openat \
	"$(ks report -j "$fx/usdt.ksr" "$tmp/a.ksr" 2>/dev/null | jq -r "$ev | select(.host == \"$hosta\") | .func" | sort -u)"
expect_match info_host "^    host = $hostb$" "$(ks report --info "$tmp/b.ksr")"

# --- record --count, record --hist: a plain report prints the live table ---
check record_count_identical cmp "$tmp/lc" <(ks report "$tmp/c.ksr" 2>/dev/null)
expect_match record_count_enoent "^ +$((2 * N))  -2 \(ENOENT\) +sys:openat$" "$(ks report "$tmp/c.ksr" 2>/dev/null)"
expect_eq record_count_summary "$(grep ' calls counted$' "$tmp/elc")" "$(ks report "$tmp/c.ksr" 2>&1 >/dev/null)"
check record_hist_identical cmp "$tmp/lh" <(ks report -j "$tmp/h.ksr" 2>/dev/null)
expect_match record_count_info '^    output = count$' "$(ks report --info "$tmp/c.ksr")"
# Report's own option wins: the events.
expect_eq record_count_events_asked $((2 * N)) \
	"$(ks report --count "$tmp/c.ksr" 'sys:openat(return == -2)' 2>/dev/null | awk '/sys:openat/ { print $1 }')"

# --- bad files among several: one line, exit 2, nothing printed ---
printf 'KSNOOPR\nxxxxxxxxxxxxxxxxxxxxxxxx' >"$tmp/garbage.ksr"
cp "$tmp/a.ksr" "$tmp/a copy.ksr"
golden=$(cd "$(dirname "$0")/../golden/48-record-merge" && pwd)
KS_GOLDEN_VARS=tmp ks_errors "$golden/errors" <<'ROWS'
bad_second            report "$tmp/a.ksr" "$tmp/garbage.ksr"
missing_second        report "$tmp/a.ksr" "$tmp/missing.ksr"
stdin_merged          report - "$tmp/a.ksr"
info_of_two           report --info "$tmp/a.ksr" "$tmp/b.ksr"
stats_of_two          report --stats "$tmp/a.ksr" "$tmp/b.ksr"
spec_in_neither       report "$tmp/a.ksr" "$tmp/b.ksr" 'sys:close'
tables_differ         report "$tmp/a.ksr" "$tmp/c.ksr"
ROWS
expect_eq bad_second_nothing_printed "" "$(ks report "$tmp/a.ksr" "$tmp/garbage.ksr" 2>/dev/null)"
expect_eq name_with_space $((2 * na)) "$(ks report "$tmp/a.ksr" "$tmp/a copy.ksr" 2>/dev/null | headers /dev/stdin | wc -l)"
