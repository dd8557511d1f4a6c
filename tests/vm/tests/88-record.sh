#!/bin/sh
# vm-timeout: 420
# record and report on kernel functions, both attach modes: a recording
# reports what live runs of the same probes printed at the same time (text
# and JSON), but for times and durations (each ksnoop's own programs read
# the clock): entry values with the return (stash), a string, a return
# code by name, a struct behind a pointer (function pointers named from the
# file's kallsyms), a kernel stack.  And recordings made on this machine's
# kernel print in the VM as they did here.
. /tests/lib.sh

tmp=$(mktemp -d)

# Times and durations are each process's own (a tree's calls' too), and
# so is the CPU: each ksnoop's program runs in a trampoline of its own
# (migration disabled per program, not across them), so a task moved
# between two of them is on cpu0 for one ksnoop and cpu1 for the next
# (stop 63's CI on 7.3: the live text cpu0, its JSON and the recording
# cpu1, for the same call).  The rest must be equal.
# A recording does not know how many kprobe.session entries waited in the
# stash (the live summary's session_in_stash, on 7.x in this VM: no
# cmpxchg16b), as it does not know ksnoop's own calls left out.  And each
# ksnoop counts its own programs' misses ("missed"): on the guest's one CPU
# a preempted run of one ksnoop's fentry program makes the trampoline skip
# another task's call for that ksnoop only (stop 60's CI: 1 in the
# recording, 0 live, the same tree printed).
norm() {
	sed -E 's/^[0-9:.]+ cpu[0-9]+ /TIME cpuN /; s/ \([0-9.]+ [nmu]?s\)/ (D)/g
		s/"time_ns":[0-9]+/"time_ns":T/g; s/"cpu":[0-9]+/"cpu":N/g
		s/"duration_ns":[0-9]+/"duration_ns":D/g
		s/,"session_in_stash":[0-9]+//; s/,"missed":[0-9]+//'
}

# same NAME ARGS...: a live text run, a live -j run and a recording of
# ARGS at once, around $WORKLOAD; the recording's report equals both.
# Not a ks_case: three ksnoops traced the same calls (a case runs one).
same() {
	name=$1
	shift
	start "$tmp/$name.lt" "$tmp/$name.elt" "$@" && lt=$KPID || { fail "${name}_attach" "$(cat "$tmp/$name.elt")"; return; }
	start "$tmp/$name.lj" "$tmp/$name.elj" -j "$@"; lj=$KPID
	start "$tmp/$name.ro" "$tmp/$name.er" record -o "$tmp/$name.ksr" "$@"; rec=$KPID
	sh -c "$WORKLOAD"
	sleep "$STOP_DELAY"
	kill -INT $lt $lj $rec 2>/dev/null
	wait $lt $lj $rec 2>/dev/null
	ksnoop report "$tmp/$name.ksr" >"$tmp/$name.rt" 2>"$tmp/$name.ert"
	expect_eq "${name}_report_status" 0 "$?"
	ksnoop report -j "$tmp/$name.ksr" >"$tmp/$name.rj" 2>/dev/null
	n=$(grep -c '"type":"event"' "$tmp/$name.lj")
	check "${name}_events" test "$n" -ge 1
	expect_eq "${name}_json_same" "$(norm <"$tmp/$name.lj")" "$(norm <"$tmp/$name.rj")"
	expect_eq "${name}_text_same" "$(norm <"$tmp/$name.lt")" "$(norm <"$tmp/$name.rt")"
	# A tree is its root's record and one per call in it.
	nrec=$(( n + $(events "$tmp/$name.lj" | jq '[.calls // [] | .. | objects | select(has("func"))] | length' | awk '{s += $1} END {print s + 0}') ))
	expect_match "${name}_recorded" "^ksnoop: $nrec events recorded to " "$(cat "$tmp/$name.er")"
}

for mode in fentry kprobe; do
	WORKLOAD="cat /nonexistent-rec-$mode 2>/dev/null; cat /nonexistent-rec-$mode 2>/dev/null"
	same ${mode}_stash --mode $mode -c cat 'do_sys_openat2(filename, how->flags, return < 0)'
	expect_eq ${mode}_stash_values "/nonexistent-rec-$mode -2 2" \
		"$(events "$tmp/${mode}_stash.rj" | jq -r '"\(.values.filename) \(.values.return)"' | sort | uniq -c |
		   awk '{print $2, $3, $1}')"
	expect_match ${mode}_stash_errno_text '^    return = -2 \(ENOENT\)$' "$(cat "$tmp/${mode}_stash.rt")"

	# --tree recorded: the report prints the trees the live runs printed.
	WORKLOAD="cat /nonexistent-tree-$mode 2>/dev/null"
	same ${mode}_tree --mode $mode --tree -c cat 'do_sys_openat2(filename, return < 0)' 'path_openat(return)'
	expect_eq ${mode}_tree_calls "path_openat ENOENT" \
		"$(events "$tmp/${mode}_tree.rj" | jq -r '.calls[] | "\(.func) \(.values.return_errno)"' | sort -u)"

	WORKLOAD="ping -c 2 127.0.0.1 >/dev/null 2>&1"
	same ${mode}_struct --mode $mode -c ping 'ip_output(skb->len, *skb)'
	expect_eq ${mode}_struct_len "84 84" \
		"$(events "$tmp/${mode}_struct.rj" | jq -r '.values["skb->len"]' | head -2 | tr '\n' ' ' | sed 's/ $//')"
	# A function pointer of the struct, named from the file's kallsyms.
	expect_match ${mode}_struct_fn_named '^        \.destructor = 0x[0-9a-f]+ <[a-z_]+' "$(cat "$tmp/${mode}_struct.rt")"

	WORKLOAD="nc 127.0.0.1 1 </dev/null >/dev/null 2>&1"
	same ${mode}_stack --mode $mode -s -c nc 'tcp_v4_connect(addr_len)'
	expect_match ${mode}_stack_caller '^        __inet_stream_connect\+0x' "$(cat "$tmp/${mode}_stack.rt")"
done

# Recordings made on another machine (tests/fixture/record: 6.18, another
# kernel, its own BTF) print here as they did there (tests/run copies them in).
if [ -d /tests/record ]; then
	for f in usdt tp tp-stack usdt-ustack; do
		expect_eq "fixture_${f}_text" "$(cat /tests/record/$f.txt)" \
			"$(TZ=UTC ksnoop report /tests/record/$f.ksr 2>/dev/null)"
		expect_eq "fixture_${f}_json" "$(cat /tests/record/$f.json)" \
			"$(TZ=UTC ksnoop report -j /tests/record/$f.ksr 2>/dev/null)"
	done
else
	skip fixture_reports "no /tests/record (tests/vm/run --file tests/fixture/record:/tests/record)"
fi

# A recording read with --info, then refused once damaged: one line, status 2.
info=$(ksnoop report -j --info "$tmp/kprobe_stack.ksr")
expect_eq info_kernel "$(uname -r)" "$(echo "$info" | jq -r .kernel)"
expect_eq info_entries "1" "$(echo "$info" | jq -r .entries)"
size=$(wc -c <"$tmp/kprobe_stack.ksr")
dd if=/dev/zero of="$tmp/kprobe_stack.ksr" bs=1 seek=40 count=8 conv=notrunc 2>/dev/null
ksnoop report "$tmp/kprobe_stack.ksr" >/dev/null 2>"$tmp/bad.err"
expect_eq damaged_status 2 "$?"
expect_match damaged_line "^ksnoop: report: '.*': block checksum does not match at byte 8$" "$(cat "$tmp/bad.err")"
check damaged_size_kept test "$size" -gt 100
rm -rf "$tmp"
