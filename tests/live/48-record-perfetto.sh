#!/bin/bash
# report --format=perfetto, live on this machine, as root: recordings of
# user functions (entry and return: B/E slices, uf_depth's recursion
# nested), system calls whose entry values go with the return (X slices),
# a tracepoint and USDT probes (instants), from a program named with
# quotes and control characters, turned into Chrome trace-event JSON that
# trace_events.py checks against the format's rules and against report -j
# of the same file and options (every event there, by name, thread and
# time); the filters, -n, a file cut short; refusals.  First the checker
# itself: it must reject files broken one way each.
. "$(dirname "$0")/helpers.bash"
. "$(dirname "$0")/record.bash"
usdt_programs
UP=${KSNOOP_UPROG_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/build/uprog}
CHECK=$(cd "$(dirname "$0")" && pwd)/trace_events.py
golden=$(cd "$(dirname "$0")/../golden/48-record-perfetto" && pwd)

# --- the checker rejects what breaks the format's rules ---
M='{"name":"process_name","ph":"M","pid":1,"tid":1,"args":{"name":"p"}},
{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"t"}}'
doc() { printf '{"traceEvents":[%s,\n%s\n],"displayTimeUnit":"ns"}\n' "$M" "$1" >"$tmp/$2.json"; }
doc '{"name":"f","cat":"call","ph":"B","ts":1.000,"pid":1,"tid":1},
{"name":"g","cat":"call","ph":"B","ts":2.000,"pid":1,"tid":1},
{"name":"g","cat":"call","ph":"E","ts":3.000,"pid":1,"tid":1},
{"name":"h","cat":"call","ph":"X","ts":3.200,"dur":0.500,"pid":1,"tid":1},
{"name":"f","cat":"call","ph":"E","ts":4.000,"pid":1,"tid":1},
{"name":"e","cat":"event","ph":"i","s":"t","ts":5.000,"pid":1,"tid":1}' good
printf '{"type":"event","func":"f","pid":1,"tid":1,"time_ns":1000}\n{"type":"event","func":"g","pid":1,"tid":1,"time_ns":2000}
{"type":"event","func":"g","pid":1,"tid":1,"time_ns":3000}\n{"type":"event","func":"f","pid":1,"tid":1,"time_ns":4000}
{"type":"event","func":"h","pid":1,"tid":1,"time_ns":3700}\n{"type":"event","func":"e","pid":1,"tid":1,"time_ns":5000}\n' >"$tmp/good.ndjson"
doc '{"name":"f","cat":"call","ph":"B","ts":1.000,"pid":1,"tid":1}' unclosed
doc '{"name":"f","cat":"call","ph":"B","ts":1.000,"pid":1,"tid":1},
{"name":"g","cat":"call","ph":"B","ts":2.000,"pid":1,"tid":1},
{"name":"f","cat":"call","ph":"E","ts":3.000,"pid":1,"tid":1},
{"name":"g","cat":"call","ph":"E","ts":4.000,"pid":1,"tid":1}' not_lifo
doc '{"name":"e","cat":"event","ph":"i","s":"t","ts":2.000,"pid":1,"tid":1},
{"name":"e","cat":"event","ph":"i","s":"t","ts":1.000,"pid":1,"tid":1}' time_back
doc '{"name":"f","cat":"call","ph":"B","ts":1.000,"pid":1,"tid":1},
{"name":"f","cat":"call","ph":"E","ts":3.000,"pid":1,"tid":1},
{"name":"h","cat":"call","ph":"X","ts":2.000,"dur":2.000,"pid":1,"tid":1}' overlap
doc '{"name":"e","cat":"event","ph":"i","s":"t","ts":1.000,"pid":1,"tid":2}' unnamed_thread
head -c 120 "$tmp/good.json" >"$tmp/not_json.json"
# Two recordings merged: a thread of host b (pid_base 8388608) in a process of host a.
printf '{"traceEvents":[%s],"displayTimeUnit":"ns","otherData":{"clock_offset_ns":0,"hosts":[%s]}}\n' \
	'{"name":"process_name","ph":"M","pid":1,"tid":8388609,"args":{"name":"a: p (1)"}}' \
	'{"host":"a","pid_base":0},{"host":"b","pid_base":8388608}' >"$tmp/mixed_hosts.json"
python3 "$CHECK" "$tmp/good.json" --events "$tmp/good.ndjson" 2>"$tmp/cerr"
expect_eq checker_accepts_good 0 "$?"
for c in unclosed:'never closed' not_lifo:'not LIFO' time_back:'goes back' overlap:'without nesting' \
	 unnamed_thread:'not named' not_json:'not valid JSON' mixed_hosts:"not of one host's tracks"; do
	python3 "$CHECK" "$tmp/${c%%:*}.json" 2>"$tmp/cerr"
	expect_eq "checker_rejects_${c%%:*}" 1 "$?"
	expect_match "checker_says_${c%%:*}" "${c#*:}" "$(cat "$tmp/cerr")"
done
# An event of -j missing from the trace (or one too many).
head -n 5 "$tmp/good.ndjson" >"$tmp/short.ndjson"
python3 "$CHECK" "$tmp/good.json" --events "$tmp/short.ndjson" 2>"$tmp/cerr"
expect_eq checker_rejects_count 1 "$?"
expect_match checker_says_count "-j has 5 events, the trace 6" "$(cat "$tmp/cerr")"

# --- refusals: the one line of the golden file ---
: >"$tmp/x.ksr"
KS_GOLDEN_VARS=tmp ks_errors "$golden/errors" <<'ROWS'
perfetto_count        report --format=perfetto --count "$tmp/x.ksr"
perfetto_stats        report --format=perfetto --stats "$tmp/x.ksr"
perfetto_pair         report --format=perfetto --pair "$tmp/x.ksr"
perfetto_depth        report --format=perfetto --depth 1 "$tmp/x.ksr"
perfetto_info         report --format=perfetto --info "$tmp/x.ksr"
perfetto_live         --format=perfetto tp:sched_process_exec
perfetto_unknown      report --format=chrome "$tmp/x.ksr"
ROWS

needs_root record_perfetto
if [ ! -x "$UP/app-gcc-O0" ]; then
	fail ufunc_program "missing $UP/app-gcc-O0 (make build/uprog/app-gcc-O0)"
	exit 0
fi
umask 022
# The program under a name a JSON writer must escape: a quote, a backslash, a control byte.
comm=$(printf 'ks"\\\001%s' $$)
app=$tmp/$comm
cp "$UP/app-gcc-O0" "$app"

# timeline NAME FILE [REPORT OPTIONS...]: the trace and -j of the same, checked.
timeline() {
	local name=$1 f=$2
	shift 2
	ks report --format=perfetto "$f" "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"
	expect_eq "${name}_status" 0 "$?"
	ks report -j "$f" "$@" >"$tmp/$name.ndjson" 2>/dev/null
	python3 "$CHECK" "$tmp/$name.json" --events "$tmp/$name.ndjson" 2>"$tmp/$name.check"
	expect_eq "${name}_valid" "" "$(cat "$tmp/$name.check")"
}
# q NAME JQ: jq over the trace NAME's thread tracks (not the CPUs'), raw, joined by spaces.
q() { jq -r "[.traceEvents[] | select(.cat != \"cpu\") | $2] | map(tostring) | join(\" \")" "$tmp/$1.json"; }
# qall NAME JQ: the same over every track.
qall() { jq -r "[.traceEvents[] | $2] | map(tostring) | join(\" \")" "$tmp/$1.json"; }

# --- user functions, system calls, a tracepoint: one recording of one run ---
bg "$tmp/ro" "$tmp/er" record -o "$tmp/u.ksr" -c "$comm" "u:$app:uf_depth" \
	"u:$app:uf_thread_work(tag, return)" "sys:openat(filename, return >= 0)" \
	"tp:sched_process_exec(bprm->filename)" && rec=$BGPID
"$app" 1 >/dev/null 2>&1
end $rec
expect_match ufunc_recorded "^ksnoop: [0-9]+ events recorded to $tmp/u.ksr" "$(cat "$tmp/er")"
timeline all "$tmp/u.ksr"
pid=$(jq -r 'select(.func == "tp:sched_process_exec") | .pid' "$tmp/all.ndjson" | head -n 1)
# uf_depth(3) recursing: four B, then four E, on the main thread, nested.
expect_eq uf_depth_nested "B B B B E E E E" "$(q all "select(.name == \"uf_depth\" and .tid == $pid) | .ph")"
expect_eq uf_depth_entry_args "3 2 1 0" "$(q all 'select(.name == "uf_depth" and .ph == "B") | .args.n')"
expect_eq uf_depth_return_args "0 1 2 3" "$(q all 'select(.name == "uf_depth" and .ph == "E") | .args.return')"
# Three threads, a track each, their calls B/E there, named from the comm.
expect_eq threads_tracks 3 "$(q all 'select(.name == "uf_thread_work" and .ph == "B") | .tid' | tr ' ' '\n' | sort -u | wc -l)"
expect_eq threads_not_main "" "$(q all "select(.name == \"uf_thread_work\" and .tid == $pid) | .ph")"
# The entry values went with the return (a predicate on it): X, its end the return's time.
expect_match sys_complete '^X( X)*$' "$(q all 'select(.name == "sys:openat") | .ph')"
expect_eq sys_duration "$(jq -r 'select(.func == "sys:openat") | .duration_ns' "$tmp/all.ndjson" | paste -sd ' ')" \
	"$(q all 'select(.name == "sys:openat") | .args.ksnoop.duration_ns')"
# The tracepoint: an instant with its value.
expect_eq tp_instant "i $app" "$(q all 'select(.name == "tp:sched_process_exec") | .ph, .args["bprm->filename"]')"
# Names: the comm as it is, escaped by the writer (jq decodes it back).
expect_eq thread_named "$comm" "$(jq -r ".traceEvents[] | select(.ph == \"M\" and .name == \"thread_name\" and .tid == $pid) | .args.name" "$tmp/all.json")"
expect_eq process_named "$comm" "$(jq -r ".traceEvents[] | select(.ph == \"M\" and .name == \"process_name\" and .pid == $pid) | .args.name" "$tmp/all.json")"
# A track per CPU: every event again, on the "CPUs" process.
expect_eq cpu_tracks "$(grep -c '"type":"event"' "$tmp/all.ndjson")" \
	"$(qall all 'select(.pid == 4194304 and .ph == "i") | .name' | wc -w)"
expect_eq cpus_named CPUs "$(jq -r '.traceEvents[] | select(.ph == "M" and .name == "process_name" and .pid == 4194304) | .args.name' "$tmp/all.json")"
expect_eq other_data '0 0 false' "$(jq -r '.otherData | "\(.unfinished) \(.lost) \(.cut)"' "$tmp/all.json")"
# Deterministic: the same file, the same bytes.
check deterministic cmp "$tmp/all.json" <(ks report --format=perfetto "$tmp/u.ksr" 2>/dev/null)

# --- the filters of report apply ---
timeline spec "$tmp/u.ksr" uf_depth
expect_eq spec_only_uf_depth "uf_depth" "$(q spec 'select(.ph != "M") | .name' | tr ' ' '\n' | sort -u | paste -sd ' ')"
timeline tid "$tmp/u.ksr" --tid "$pid"
expect_eq tid_one_track "$pid" "$(q tid 'select(.ph != "M" and .pid != 4194304) | .tid' | tr ' ' '\n' | sort -u | paste -sd ' ')"
timeline comm_none "$tmp/u.ksr" -c nobody_here
expect_eq comm_none_empty 0 "$(jq '.otherData.events' "$tmp/comm_none.json")"
# -n 3: the first three, the calls open then closed as unfinished.
timeline first3 "$tmp/u.ksr" -n 3
expect_eq first3_events 3 "$(jq '.otherData.events' "$tmp/first3.json")"
# --until inside uf_depth's recursion (its last entry's wall time, as text
# prints it): the calls open there close as unfinished, still valid.
hms=$(TZ=UTC ks report "$tmp/u.ksr" 2>/dev/null | grep -E '^[0-9:.]+ cpu[0-9]+ .* -> uf_depth$' | sed -n 4p | cut -d' ' -f1)
expect_match until_time '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}$' "$hms"
TZ=UTC timeline until "$tmp/u.ksr" --until "$hms"
expect_match until_unfinished '^[1-4]$' "$(jq '.otherData.unfinished' "$tmp/until.json")"
expect_eq until_marked "$(jq '.otherData.unfinished' "$tmp/until.json")" \
	"$(q until 'select(.ph == "E" and .args.ksnoop.unfinished != null) | .name' | wc -w)"
timeline since "$tmp/u.ksr" --since 1ns

# --- a USDT recording: instants with their values ---
bg "$tmp/uo" "$tmp/eu" record -o "$tmp/usdt.ksr" usdt "$P:ksnoop_test:req(arg0, arg2:str)" && rec=$BGPID
"$P" fire 3 >/dev/null
end $rec
timeline usdt "$tmp/usdt.ksr"
expect_eq usdt_instants "0 1 2" "$(q usdt 'select(.name == "ksnoop_test:req" and .ph == "i" and .cat == "event") | .args.arg0')"
expect_eq usdt_strings "/req/0 /req/1 /req/2" "$(q usdt 'select(.name == "ksnoop_test:req" and .cat == "event") | .args["arg2:str"]')"

# --- a file cut short: a whole document of what was read, "cut" in otherData ---
size=$(stat -c %s "$tmp/u.ksr")
head -c $((size - 8)) "$tmp/u.ksr" >"$tmp/cut.ksr"
ks report --format=perfetto "$tmp/cut.ksr" >"$tmp/cut.json" 2>"$tmp/cut.err"
expect_eq cut_status 0 "$?"
python3 "$CHECK" "$tmp/cut.json" 2>"$tmp/cut.check"
expect_eq cut_valid "" "$(cat "$tmp/cut.check")"
expect_eq cut_marked true "$(jq '.otherData.cut' "$tmp/cut.json")"
expect_match cut_said "is cut short" "$(cat "$tmp/cut.err")"
