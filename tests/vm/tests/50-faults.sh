#!/bin/sh
# vm-timeout: 240
# SIGINT, SIGTERM and SIGKILL of ksnoop while it traces a hot kernel
# function, in both attach modes: nothing may be left behind.  The
# programs, links and maps ksnoop held (from its /proc/PID/fdinfo) must be
# gone, no ksnoop program may exist, and tracefs must have no kprobe or
# uprobe events (libbpf attaches through perf events, never through
# tracefs).
. /tests/lib.sh

tmp=$(mktemp -d)

# held_ids PID prog|link|map: the ids PID holds.
held_ids() {
	grep -h "^$2_id:" /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -un | tr '\n' ' '
}

# still_there prog|link|map IDS: those of IDS that still exist after up
# to 5 s (programs and maps are freed after an RCU grace period).  No ids,
# or bpftool failing for another reason than "no such id", is never "".
still_there() {
	[ -n "$2" ] || { echo none-recorded; return; }
	_i=0
	while [ $_i -lt 50 ]; do
		_left=""
		for _id in $2; do
			if _o=$(bpftool "$1" show id "$_id" 2>&1); then
				_left="$_left$_id "
			elif ! echo "$_o" | grep -q 'No such file or directory'; then
				_left="$_left bpftool-failed($_id: $_o) "
			fi
		done
		[ -z "$_left" ] && break
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "$_left"
}

# start OUT ERR ARGS...: ksnoop -v in the background, wait until attached;
# sets KPID, PROGS, LINKS and MAPS.
start() {
	_out=$1; _err=$2
	shift 2
	: >"$_out"	# emptied first: see start() in lib.sh
	: >"$_err"
	ksnoop -v "$@" >"$_out" 2>"$_err" &
	KPID=$!
	_i=0
	while [ $_i -lt 300 ]; do
		if grep -q "tracing .* target" "$_err" 2>/dev/null; then
			PROGS=$(held_ids "$KPID" prog)
			LINKS=$(held_ids "$KPID" link)
			MAPS=$(held_ids "$KPID" map)
			return 0
		fi
		kill -0 "$KPID" 2>/dev/null || return 1
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

# wait_exit: at most 60 s for KPID; sets RC.
wait_exit() {
	_i=0
	while [ $_i -lt 600 ] && kill -0 "$KPID" 2>/dev/null; do
		sleep 0.1
		_i=$((_i + 1))
	done
	if kill -0 "$KPID" 2>/dev/null; then
		kill -9 "$KPID"; wait "$KPID" 2>/dev/null; RC=timeout
	else
		wait "$KPID"; RC=$?
	fi
}

# wait_lines FILE N: until FILE has N lines (at most 20 s).
wait_lines() {
	_i=0
	while [ $_i -lt 200 ]; do
		[ "$(wc -l <"$1")" -ge "$2" ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

ksnoop_progs() { bpftool prog show 2>/dev/null | grep -c 'name ksnoop_'; }
tracefs_lines() { cat /sys/kernel/tracing/"$1" 2>/dev/null | wc -l; }

# Hot functions: a loop of reads and failing opens.  (A dd with bs=1 is
# too much for an emulated CPU: the guest soft-locks.)
sh -c 'while :; do cat /nonexistent 2>/dev/null; cat /proc/version >/dev/null; done' &
loop=$!

for mode in fentry kprobe; do
	for sig in INT TERM KILL; do
		T=${mode}_sig$(echo "$sig" | tr A-Z a-z)
		# Entry and return on one function, a stash (kprobe mode) on another.
		if ! start "$tmp/$T.out" "$tmp/$T.err" --mode "$mode" \
			'vfs_read(count, return)' 'do_sys_openat2(filename, return < 0)'; then
			fail "${T}_attach" "$(cat "$tmp/$T.err")"
			continue
		fi
		if ! wait_lines "$tmp/$T.out" 10; then
			fail "${T}_events_flow" "no events: $(cat "$tmp/$T.err")"
		fi
		if [ -z "$PROGS" ] || [ -z "$LINKS" ] || [ -z "$MAPS" ]; then
			fail "${T}_held" "progs '$PROGS' links '$LINKS' maps '$MAPS'"
		fi
		kill -"$sig" "$KPID"
		wait_exit
		if [ "$sig" = KILL ]; then
			expect_eq "${T}_status" 137 "$RC"
		else
			expect_eq "${T}_status" 0 "$RC"
			expect_match "${T}_summary" '^ksnoop: [0-9]+ events printed, [0-9]+ lost' "$(cat "$tmp/$T.err")"
		fi
		expect_eq "${T}_no_programs_left" "" "$(still_there prog "$PROGS")"
		expect_eq "${T}_no_links_left" "" "$(still_there link "$LINKS")"
		expect_eq "${T}_no_maps_left" "" "$(still_there map "$MAPS")"
		expect_eq "${T}_no_ksnoop_programs" 0 "$(ksnoop_progs)"
		expect_eq "${T}_no_kprobe_events" 0 "$(tracefs_lines kprobe_events)"
		expect_eq "${T}_no_uprobe_events" 0 "$(tracefs_lines uprobe_events)"
	done
done
kill -9 "$loop" 2>/dev/null
wait "$loop" 2>/dev/null
rm -rf "$tmp"
