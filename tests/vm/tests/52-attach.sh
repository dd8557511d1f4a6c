#!/bin/sh
# vm-timeout: 600
# Attaching, honestly (issue 45), on a kernel that traces functions:
# - a glob that needs more file descriptors than the hard limit (6.1
#   has no kprobe.multi: some 350 tcp_* functions with a kprobe each, a
#   perf event and a link) is refused at once, naming the number, not
#   after attaching until the descriptors ran out, and never tried again
#   in another attach mode ("fentry was refused too");
# - a stop while that glob attaches a kprobe at a time says how far it
#   got ("stopped while attaching (N of M)"), without -v;
# - a Ctrl-C once it traces prints the counts and the summary before the
#   links are detached (6.1's --count "tcp_*" printed its table 14.8 s
#   after the Ctrl-C, the time its kprobes took to go).
# kprobe.multi is taken away so that 6.12 goes the same way.
. /tests/lib.sh

tmp=$(mktemp -d)

(ulimit -n 200; KSNOOP_FEATURES=-kprobe_multi exec ksnoop -v 'tcp_*(sk)') >"$tmp/f.out" 2>"$tmp/f.err"
expect_eq fd_limit_refused_status 1 "$?"
expect_match fd_limit_refused_names_need 'ksnoop: [0-9]+ targets need about [0-9]+ file descriptors, more than the hard limit of 200 \(ulimit -Hn\): raise it \(a kprobe is two' "$(cat "$tmp/f.err")"
expect_no_match fd_limit_no_mode_retry 'trying kprobes|fentry was refused too|fentry/fexit failed' "$(cat "$tmp/f.err")"
expect_no_match fd_limit_nothing_attached 'one program|attaching kprobes' "$(cat "$tmp/f.err")"

# The signal goes at "attaching kprobes: N of M", which -v prints each
# second of the loop (a mark, not a clock); a run that attached
# everything first has nothing to cut (said).
KSNOOP_FEATURES=-kprobe_multi ksnoop -v --mode kprobe 'tcp_*(sk)' >"$tmp/g.out" 2>"$tmp/g.err" &
KPID=$!
i=0
while [ $i -lt 600 ] && ! grep -q -e 'attaching kprobes: ' -e 'tracing .* target' "$tmp/g.err"; do
	sleep 0.1
	i=$((i + 1))
done
if grep -q 'attaching kprobes: ' "$tmp/g.err"; then
	kill -INT "$KPID"
	wait_exit 60
	expect_eq stopped_attaching_status 0 "$RC"
	expect_match stopped_attaching_says_how_far '^ksnoop: stopped while attaching \([0-9]+ of [0-9]+\)$' "$(cat "$tmp/g.err")"
	expect_no_match stopped_attaching_no_tracing_line 'tracing [0-9]+ target' "$(cat "$tmp/g.err")"
else
	note "every kprobe attached before a signal could be sent"
	expect_match stopped_attaching_one_by_one 'with a kprobe each' "$(cat "$tmp/g.err")"
	kill -INT "$KPID"
	wait_exit 60
fi

# Results before detaching: one file for both streams keeps their order;
# -v says when the links are detached.  The signal goes once it traces (a
# mark), after a connect of ours that tcp_* counts.
KSNOOP_FEATURES=-kprobe_multi ksnoop -v --mode kprobe --count 'tcp_*' >"$tmp/r.all" 2>&1 &
KPID=$!
i=0
while [ $i -lt 1800 ] && kill -0 "$KPID" 2>/dev/null && ! grep -q 'tracing .* target' "$tmp/r.all"; do
	sleep 0.1
	i=$((i + 1))
done
if grep -q 'tracing .* target' "$tmp/r.all"; then
	nc 127.0.0.1 1 </dev/null >/dev/null 2>&1
	kill -INT "$KPID"
	wait_exit 300
	expect_eq results_first_status 0 "$RC"
	table=$(grep -nE -m1 '^ +CALLS +FUNCTION$' "$tmp/r.all" | cut -d: -f1)
	summary=$(grep -nE -m1 '^ksnoop: [0-9]+ calls counted' "$tmp/r.all" | cut -d: -f1)
	detached=$(grep -nE -m1 '^ksnoop: [0-9]+ links detached in ' "$tmp/r.all" | cut -d: -f1)
	if [ -n "$table" ] && [ -n "$summary" ] && [ -n "$detached" ] &&
	   [ "$table" -lt "$detached" ] && [ "$summary" -lt "$detached" ]; then
		pass results_before_detaching
	else
		fail results_before_detaching "table at line ${table:-none}, summary ${summary:-none}, detached ${detached:-none}: $(tail -5 "$tmp/r.all")"
	fi
	note "results first: $(grep -E 'links detached in|calls counted' "$tmp/r.all" | tr '\n' ' ')"
else
	fail results_before_detaching "never traced: $(tail -3 "$tmp/r.all")"
	kill -9 "$KPID" 2>/dev/null
fi
rm -rf "$tmp"
