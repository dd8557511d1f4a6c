#!/bin/bash
# --track live, with tracepoints only: datagrams of a known size sent on
# loopback to a port nobody listens on, in a network namespace of their
# own (vmprog udp).  Each skb is tracked from the tracepoint where its
# predicate holds (net_dev_queue: 98 bytes with the Ethernet header),
# followed where it does not (netif_receive_skb: 84), and ends at
# skb:kfree_skb (dropped: no socket); a skb of another size that reuses a
# freed address is not reported.  Then --group (with --track-max: groups
# of objects pushed out of the set), and the refusals.
. "$(dirname "$0")/helpers.bash"

needs_root track
scratch_dir
V=${KSNOOP_USDT_DIR:?}/../vm/vmprog
if [ ! -x "$V" ] || ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
	fail track_workload "needs $V (make build/vm/vmprog), unshare and ip"
	exit 0
fi
# A copy named after this run: its comm is ours alone.
prog=kstrk$$
cp "$V" "$tmp/$prog"

# Three rounds: a datagram of 56 bytes (98 with its headers: tracked),
# then one of 20 (62: never), each dropped; the second reuses the first's
# freed skb, as a slab hands back what it was given last.
rounds() {
	unshare -n sh -c 'ip link set lo up && for i in 1 2 3; do "$0" udp 1 56 && "$0" udp 1 20 || exit 1; done' \
		"$tmp/$prog" || fail "${T}_workload" "$prog udp failed"
	sleep 0.3
}
# Each object's story in event order, "FIRST>LAST" (an address freed and
# used again starts a new one): what a story begins and ends with.
stories() {
	events "$1" | jq -r '"\(.object) \(.func) \(.freed)"' |
		awk '!($1 in first) { first[$1] = $2 } $3 == "true" { print first[$1] ">" $2; delete first[$1] }
		     END { for (o in first) print first[o] ">(not freed)" }' | joined
}
# The same traffic seen untracked: every skb queued, its address and size.
seen() { jq -r 'select(.type == "event") | "\(.values["skb:hex"]) \(.values["skb->len"])"' "$tmp/seen.out"; }

T=track
"$K" -v -j --duration 60 -c "$prog" "tp:net:net_dev_queue(skb:hex, skb->len)" >"$tmp/seen.out" 2>"$tmp/seen.err" &
seen_pid=$!
at_exit kill "$seen_pid"
# Until it traces (or has ended): polls bounded by count, 2000 of them.
for i in $(seq 2000); do
	grep -q 'Ctrl-C to stop' "$tmp/seen.err" && break
	kill -0 "$seen_pid" 2>/dev/null || break
	sleep 0.05
done
ks_case <<'CASE'
NAME     track
RUN      -j --duration 10 -c "$prog" --track s "tp:*(struct sk_buff *s, s->len == 98, s->len)"
WORKLOAD rounds
UNTIL    exit
EXPECT   track_three_freed: eq 3 "$(events "$OUT" | jq -r 'select(.freed == true) | .object' | wc -l)"
EXPECT   track_starts_where_it_holds: eq "98 98 98" "$(events "$OUT" | jq -r 'select(.func == "tp:net_dev_queue") | "\(.values["s->len"]) \(.tracked)"' | awk '$2 == "null" { print $1 }' | joined)"
EXPECT   track_continues_where_not: eq "84 84 84" "$(events "$OUT" | jq -r 'select(.func == "tp:netif_receive_skb" and .tracked == true) | .values["s->len"]' | joined)"
EXPECT   track_stories: eq "tp:net_dev_queue>tp:kfree_skb tp:net_dev_queue>tp:kfree_skb tp:net_dev_queue>tp:kfree_skb" "$(stories "$OUT")"
EXPECT   track_no_other_size: eq "" "$(events "$OUT" | jq -r '.values["s->len"] | select(. == 62 or . == 48 or . == 126 or . == 112)' | joined)"
EXPECT   track_summary: eq "3 3 0 0" "$(record summary "$OUT" | jq -r '"\(.objects_tracked) \(.objects_freed) \(.objects_alive) \(.objects_evicted)"')"
CASE
# The untracked run saw the freed addresses again, for skbs of another
# size: what the tracked run left out was there to leave out.
kill -INT "$seen_pid"
wait "$seen_pid"
tracked=$(events "$OUT" | jq -r .object | sort -u | joined)
reused=$(seen | awk -v t=" $tracked " '$2 != 98 && index(t, " " $1 " ") { n++ } END { print n + 0 }')
check track_address_reused [ "$reused" -gt 0 ]

T=track_text
ks_case <<'CASE'
NAME     track_text
RUN      --duration 8 -c "$prog" --track s "tp:net:net_dev_queue(struct sk_buff *s, s->len == 98, s->len)" "tp:net:netif_receive_skb(struct sk_buff *s, s->len == 98, s->len)"
WORKLOAD rounds
UNTIL    exit
EXPECT   track_text_queued: count 3 ' -> tp:net_dev_queue object 0x[0-9a-f]+$'
EXPECT   track_text_received: count 3 ' -> tp:netif_receive_skb object 0x[0-9a-f]+ \(tracked\)$'
EXPECT   track_text_freed: count 3 ' -> tp:kfree_skb object 0x[0-9a-f]+ \(freed\)$'
EXPECT   track_text_summary: stderr '; 3 objects tracked, 3 freed, 0 still tracked'
CASE

# Without --track, the same specs report the queued skbs alone.
T=track_without
ks_case <<'CASE'
NAME     track_without
RUN      --duration 8 -c "$prog" "tp:net:net_dev_queue(struct sk_buff *s, s->len == 98, s->len)" "tp:net:netif_receive_skb(struct sk_buff *s, s->len == 98, s->len)"
WORKLOAD rounds
UNTIL    exit
EXPECT   track_without_queued: count 3 ' -> tp:net_dev_queue$'
EXPECT   track_without_received: count 0 'netif_receive_skb'
CASE

# --group: each object's events together when it is freed, times since its first.
T=track_group
ks_case <<'CASE'
NAME     track_group
RUN      --duration 8 -c "$prog" --track s --group "tp:net:net_dev_queue(struct sk_buff *s, s->len == 98, s->len)" "tp:net:netif_receive_skb(struct sk_buff *s, s->len == 98, s->len)"
WORKLOAD rounds
UNTIL    exit
EXPECT   track_group_headers: count 3 '^object 0x[0-9a-f]+: 3 event\(s\) in [0-9.]+ [mun]?s, freed$'
EXPECT   track_group_order: eq "queue receive free queue receive free queue receive free" "$(grep -Eo 'tp:(net_dev_queue|netif_receive_skb|kfree_skb)' "$OUT" | sed 's/tp:net_dev_//; s/tp:netif_//; s/_skb//; s/tp:kfree/free/' | joined)"
EXPECT   track_group_since: count 9 ' object 0x[0-9a-f]+( \((tracked|freed)\))? \+[0-9.]+ [mun]?s$'
EXPECT   track_group_first: count 3 ' -> tp:net_dev_queue object 0x[0-9a-f]+ \+0 ns$'
CASE

# --group -n 2 (issue 45): one skb, queued, received and freed in one
# system call; -n stops the run at the second event, before the free is
# printed.  The group says what the summary counts: freed, not "not
# freed when tracing stopped" beside "1 freed".  Whether the free is
# seen at all races with the stop: the workload may not have freed the
# skb yet when ksnoop has read its second event and detached (s64, live
# suite at load 4-5 beside a CI: "not freed" in both).  Either way the
# header and the summary must agree; freed is what a quiet machine gives.
one_drop() {
	unshare -n sh -c 'ip link set lo up && "$0" udp 1 56' "$tmp/$prog" ||
		fail "${T}_workload" "$prog udp failed"
}
# group_n_agrees: "yes" when the group's header says what the summary counts.
group_n_agrees() {
	_h_freed=$(grep -cE '^object 0x[0-9a-f]+: 2 event\(s\) in [0-9.]+ [mun]?s, freed \(its free is not printed: tracing stopped\)$' "$OUT")
	_h_kept=$(grep -cE '^object 0x[0-9a-f]+: 2 event\(s\) in [0-9.]+ [mun]?s, not freed when tracing stopped$' "$OUT")
	if grep -q '; 1 objects tracked, 1 freed, 0 still tracked' "$ERR"; then
		[ "$_h_freed $_h_kept" = "1 0" ] && echo yes || echo "summary freed; headers freed $_h_freed, not freed $_h_kept"
	elif grep -q '; 1 objects tracked, 0 freed, 1 still tracked' "$ERR"; then
		[ "$_h_freed $_h_kept" = "0 1" ] && echo yes || echo "summary not freed; headers freed $_h_freed, not freed $_h_kept"
	else
		echo "no summary of one object: $(grep 'objects tracked' "$ERR")"
	fi
}
T=track_group_n
ks_case <<'CASE'
NAME     track_group_n
RUN      -n 2 -c "$prog" --track s --group "tp:net:net_dev_queue(struct sk_buff *s, s->len == 98, s->len)" "tp:net:netif_receive_skb(struct sk_buff *s, s->len == 98, s->len)"
WORKLOAD one_drop
UNTIL    exit
EXPECT   track_group_n_header: count 1 '^object 0x[0-9a-f]+: 2 event\(s\) in [0-9.]+ [mun]?s, (freed \(its free is not printed: tracing stopped\)|not freed when tracing stopped)$'
EXPECT   track_group_n_agrees: eq yes "$(group_n_agrees)"
CASE

T=track_group_json
ks_case <<'CASE'
NAME     track_group_json
RUN      -j --duration 8 -c "$prog" --track s --group "tp:net:net_dev_queue(struct sk_buff *s, s->len == 98, s->len)" "tp:net:netif_receive_skb(struct sk_buff *s, s->len == 98, s->len)"
WORKLOAD rounds
UNTIL    exit
EXPECT   track_group_json_since: eq "0 + f 0 + f 0 + f" "$(events "$OUT" | jq -r 'if .since_first_ns == 0 then "0" elif .freed then "f" elif .since_first_ns > 0 then "+" else "?" end' | joined)"
CASE

# --track-max 4 --group (issue 40): eight skbs alive at once, taken by a
# socket that reads them (no skb tracepoint reports that free), twenty
# rounds.  BPF's set pushes objects out without a free and later rounds'
# skbs come at their addresses again: every stay in the set is a group
# of its own (no fewer groups than objects tracked), some end "evicted",
# each group holds the events its line counts, all of its object.
queue_rounds() {
	unshare -n sh -c 'ip link set lo up && "$0" queue 8 20' "$tmp/$prog" ||
		fail "${T}_workload" "$prog queue failed"
}
QSPECS=("tp:net:net_dev_queue(struct sk_buff *s, s->len >= 642, s->len < 700, s->len)"
	"tp:net:netif_receive_skb(struct sk_buff *s, s->len >= 642, s->len < 700, s->len)")
# tracked_of ERR: the summary's objects tracked.
tracked_of() { sed -n 's/.*; \([0-9]*\) objects tracked,.*/\1/p' "$1"; }
# groups_bad: stdin "H ADDR N" per group and "E ADDR" per event; the
# groups whose events are not N events of ADDR.
groups_bad() {
	awk '$1 == "H" { if (h != "" && n != want) bad++; h = $2; want = $3; n = 0; next }
	     $1 == "E" { if ($2 != h) bad++; n++ }
	     END { if (h == "" || n != want) bad++; print bad + 0 }'
}
groups_text() {
	sed -En 's/^object (0x[0-9a-f]+): ([0-9]+) event\(s\) in .*/H \1 \2/p;
		 s/.* -> tp:[a-z_]+ object (0x[0-9a-f]+).*/E \1/p' "$1"
}
groups_json() {
	jq -r 'if .type == "object" then "H \(.object) \(.events)" elif .type == "event" then "E \(.object)" else empty end' "$1"
}
T=track_evicted
ks_case <<'CASE'
NAME     track_evicted
RUN      --duration 8 -c "$prog" --track s --track-max 4 --group "${QSPECS[@]}"
WORKLOAD queue_rounds
UNTIL    exit
EXPECT   track_evicted_stories: eq 1 "$([ "$(grep -c '^object 0x' "$OUT")" -ge "$(tracked_of "$ERR")" ] && echo 1)"
EXPECT   track_evicted_reused: eq 1 "$([ "$(grep -Eo '^object 0x[0-9a-f]+' "$OUT" | sort -u | wc -l)" -lt "$(tracked_of "$ERR")" ] && echo 1)"
EXPECT   track_evicted_said: eq 1 "$([ "$(grep -Ec '^object 0x[0-9a-f]+: 2 event\(s\) in [0-9.]+ [mun]?s, evicted$' "$OUT")" -ge 4 ] && echo 1)"
EXPECT   track_evicted_ends: eq 0 "$(grep '^object ' "$OUT" | grep -Evc ', (evicted|freed|not freed when tracing stopped)$')"
EXPECT   track_evicted_groups: eq 0 "$(groups_text "$OUT" | groups_bad)"
CASE

T=track_evicted_json
ks_case <<'CASE'
NAME     track_evicted_json
RUN      -j --duration 8 -c "$prog" --track s --track-max 4 --group "${QSPECS[@]}"
WORKLOAD queue_rounds
UNTIL    exit
EXPECT   track_evicted_json_stories: eq 1 "$([ "$(record object "$OUT" | wc -l)" -ge "$(record summary "$OUT" | jq .objects_tracked)" ] && echo 1)"
EXPECT   track_evicted_json_said: eq 1 "$([ "$(record object "$OUT" | jq -r .end | grep -c '^evicted$')" -ge 4 ] && echo 1)"
EXPECT   track_evicted_json_ends: eq "" "$(record object "$OUT" | jq -r .end | grep -Ev '^(evicted|freed|not_freed)$' | joined)"
EXPECT   track_evicted_json_span: eq 0 "$(record object "$OUT" | jq -c 'select((.span_ns | type) != "number" or .span_ns < 0)' | wc -l)"
EXPECT   track_evicted_json_groups: eq 0 "$(groups_json "$OUT" | groups_bad)"
CASE

# A group holds at most 1024 events: one process's pt_regs (its kernel
# stack) at each of its 1100 and more system calls prints as 1024 events
# (continues), then the rest when tracing stops, times still since the
# first.
many_calls() { "$tmp/$prog" sleep $(yes 0 | head -1100 | joined); }
T=track_continues
ks_case <<'CASE'
NAME     track_continues
RUN      -j --duration 6 -c "$prog" --track r --group "tp:raw_syscalls:sys_enter(struct pt_regs *r, id >= 0)"
WORKLOAD many_calls
UNTIL    exit
EXPECT   track_continues_first: eq "1024 continues" "$(record object "$OUT" | head -1 | jq -r '"\(.events) \(.end)"')"
EXPECT   track_continues_rest: eq "not_freed 1" "$(record object "$OUT" | tail -n +2 | jq -r 'if .events >= 76 then .end else "\(.events)" end' | joined) $(record object "$OUT" | jq -r .object | sort -u | wc -l)"
EXPECT   track_continues_since: eq 1 "$(events "$OUT" | sed -n 1025p | jq '.since_first_ns > 0 and .since_first_ns < 10000000000' | grep -c true)"
EXPECT   track_continues_groups: eq 0 "$(groups_json "$OUT" | groups_bad)"
CASE

# --track-max: six processes alive at once, each its own pt_regs (its
# kernel stack), in a set of two: the oldest are pushed out, counted.
six() {
	local i
	for i in 1 2 3 4 5 6; do "$tmp/$prog" sleep 300 & done
	wait
}
T=track_max
ks_case <<'CASE'
NAME     track_max
RUN      -j --duration 6 -c "$prog" --track r --track-max 2 "tp:raw_syscalls:sys_enter(struct pt_regs *r, id >= 0)"
WORKLOAD six
UNTIL    exit
EXPECT   track_max_objects: eq 6 "$(events "$OUT" | jq -r .object | sort -u | wc -l)"
EXPECT   track_max_alive: eq 2 "$(record summary "$OUT" | jq .objects_alive)"
EXPECT   track_max_evicted: eq 1 "$(record summary "$OUT" | jq '.objects_evicted >= 4 and .objects_evicted == .objects_tracked - .objects_freed - .objects_alive' | grep -c true)"
CASE

# --group at report time (issue 47): a recording of --track, reported with
# --group, prints what a live --track --group run printed for the same
# events, text and -j, byte for byte but for the times (each ksnoop's own
# BPF program reads the clock), the summary too: its object counters
# are kept in END (format 7); -n 2 as live -n 2 says (issue 45).
. "$(dirname "$0")/record.bash"
specs=("tp:net:net_dev_queue(struct sk_buff *s, s->len == 98, s->len)"
       "tp:net:netif_receive_skb(struct sk_buff *s, s->len == 98, s->len)")
T=track_group_report
bg "$tmp/glt" "$tmp/eglt" -c "$prog" --track s --group "${specs[@]}" && glt=$BGPID
bg "$tmp/glj" "$tmp/eglj" -j -c "$prog" --track s --group "${specs[@]}" && glj=$BGPID
bg "$tmp/grout" "$tmp/egr" record -o "$tmp/g.ksr" -c "$prog" --track s "${specs[@]}" && grec=$BGPID
rounds
end $glt $glj $grec
expect_match track_group_recorded "^ksnoop: 9 events recorded to $tmp/g.ksr" "$(cat "$tmp/egr")"
gnorm() {
	sed -E 's/^[0-9:.]+ cpu/TIME cpu/; s/ in [0-9.]+ [mun]?s, / in T, /; s/ \+[0-9.]+ [mun]?s$/ +T/
		s/"(time_ns|since_first_ns|span_ns)":[0-9]+/"\1":T/g'
}
ks report --group "$tmp/g.ksr" >"$tmp/grt" 2>"$tmp/egrt"
expect_eq track_group_report_status 0 "$?"
check track_group_report_text_as_live cmp <(gnorm <"$tmp/glt") <(gnorm <"$tmp/grt")
ks report -j --group "$tmp/g.ksr" >"$tmp/grj" 2>/dev/null
check track_group_report_json_as_live cmp <(gnorm <"$tmp/glj") <(gnorm <"$tmp/grj")
# The text summary (stderr, after the live run's attach notes); JSON's is compared above.
expect_eq track_group_report_summary_as_live "$(grep '^ksnoop: 9 events printed' "$tmp/eglt")" \
	"$(grep '^ksnoop: [0-9]* events printed' "$tmp/egrt")"
expect_match track_group_report_summary_objects '; 3 objects tracked, 3 freed, 0 still tracked$' \
	"$(cat "$tmp/egrt")"
expect_eq track_group_report_groups 3 "$(grep -cE '^object 0x[0-9a-f]+: 3 event\(s\) in [0-9.]+ [mun]?s, freed$' "$tmp/grt")"
# -n 2: the second event ends what prints; the free read after it says how the group ended.
expect_match track_group_report_n '^object 0x[0-9a-f]+: 2 event\(s\) in [0-9.]+ [mun]?s, freed \(its free is not printed: tracing stopped\)$' \
	"$(ks report --group -n 2 "$tmp/g.ksr" 2>/dev/null | head -n 1)"
# Without --group, the recording prints its events in order, as live --track.
expect_eq track_group_report_plain 0 "$(ks report "$tmp/g.ksr" 2>/dev/null | grep -c '^object ')"
refused track_group_report_count "--group prints each object's events together: not with --count" \
	report --group --count "$tmp/g.ksr"
refused track_group_record "record: --group chooses how a recording prints: give it to .ksnoop report." \
	record --group -o "$tmp/g2.ksr" --track s "${specs[@]}"

# What --track refuses, in one line each, exit 2.
refused track_unbound "--track s: 'tp:net:net_dev_queue\(skb->len\)' does not bind s by type" \
	--track s "tp:net:net_dev_queue(skb->len)"
refused track_not_pointer "--track n: 'tp:net:net_dev_queue\(unsigned int n\)' binds n as 'unsigned int', not a pointer" \
	--track n "tp:net:net_dev_queue(unsigned int n)"
refused track_two_types "--track s: 'tp:sock:inet_sock_set_state\(struct sock \*s\)' binds s as 'struct sock \*', another spec as 'struct sk_buff \*'" \
	--track s "tp:net:net_dev_queue(struct sk_buff *s)" "tp:sock:inet_sock_set_state(struct sock *s)"
refused track_syscall "--track s: 'sys:openat\(struct sk_buff \*s\)' is a system call" \
	--track s "sys:openat(struct sk_buff *s)"
refused track_count "--track prints an object's events: not with --count" \
	--count --track s "tp:net:net_dev_queue(struct sk_buff *s)"
refused track_group_alone "--untrack, --track-max and --group go with --track" \
	--group "tp:net:net_dev_queue(skb)"
refused track_max_range "--track-max: 0 is out of range" \
	--track s --track-max 0 "tp:net:net_dev_queue(struct sk_buff *s)"
