#!/bin/sh
# vm-timeout: 300
# Attaching, honestly (issue 45), on a kernel that traces functions:
# - a glob that needs more file descriptors than the hard limit (6.1
#   has no kprobe.multi: some 350 tcp_* functions with a kprobe each, a
#   perf event and a link) is refused at once, naming the number, not
#   after attaching until the descriptors ran out, and never tried again
#   in another attach mode ("fentry was refused too");
# - a stop while that glob attaches a kprobe at a time says how far it
#   got ("stopped while attaching (N of M)"), without -v.
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
rm -rf "$tmp"
