#!/bin/sh
# User functions through uprobe.session against the stash: where the
# kernel has uprobe.session (6.13 on), a user function whose return
# reports entry values keeps its entry record in the task's session slots
# (in the test VMs, whose CPU has no cmpxchg16b, 7.x refuses the task
# storage: the record waits in the stash under the cookie, counted as
# session_in_stash); KSNOOP_FEATURES=-uprobe_session forces the
# uprobe/uretprobe pair and the stash.  Both paths must print the same
# for the same calls of tests/uprog/app.c (in the VM as /usr/bin/app):
# entry values, uf_depth's recursion, three threads.  Kernels without
# uprobe.session (6.1, 6.12) skip the session case with a NOTE.
. /tests/lib.sh

if ! command -v app >/dev/null; then
	fail ufunc_session_program "app is not in the VM (--bin build/uprog/app-gcc-O0:app)"
	exit 0
fi
A=$(command -v app)
tmp=$(mktemp -d)

# The events of -j output FILE without what differs between runs, sorted.
# On 7.x, the main thread's only: in the 7.3 VM one of the three threads'
# calls of uf_thread_work goes unreported in about 1 run of 3, on both
# paths alike (issue #43).  Not the uprobes: a tracefs uprobe on the same
# function saw every entry and return in those runs, and the programs'
# run_cnt (kernel.bpf_stats_enabled) was 3 entries and 3 returns (6
# uprobe.session runs) every time, nothing lost or dropped in the summary,
# sometimes an entry left in the stash.  The kernel gives a uprobe program
# (BPF_PROG_TYPE_KPROBE) whose stack is 64 bytes or more a per-CPU private
# stack (x86-64 JIT, 6.13 on), although a uprobe program runs preemptible
# (7.x is PREEMPT_LAZY; sleepable ones sleep): two threads' runs on one CPU
# then share one stack.  An instrumented build oopsed there, a NULL read
# through a pointer the verifier had checked, reloaded from r9 (the
# private frame) in ksnoop_usession_return.  A never-taken tail call turns
# the private stack off, but sleepable programs may not use a prog array
# (6.18: "Sleepable programs can only use array, hash, ringbuf and local
# storage maps"), so threads here are a NOTE, not a comparison.
case $(uname -r) in
[7-9].*) only=' main '; note "kernel $(uname -r): threads' calls not compared (uprobe programs share a per-CPU private stack: issue #43)" ;;
*) only=. ;;
esac
calls() {
	events "$1" | jq -r '"\(.func) \(if .tid == .pid then "main" else "thread" end) \(.values | tojson)"' |
		grep -e "$only" | sort
}
WANT='uf_add main {"a":40,"b":2,"return":42}
uf_depth main {"n":0,"return":0}
uf_depth main {"n":1,"return":1}
uf_depth main {"n":2,"return":2}
uf_depth main {"n":3,"return":3}
uf_thread_work thread {"tag":1,"return":10}
uf_thread_work thread {"tag":2,"return":20}
uf_thread_work thread {"tag":3,"return":30}'
WANT=$(printf '%s\n' "$WANT" | grep -e "$only")

for path in session stash; do
	P=$path
	if [ $path = stash ]; then
		export KSNOOP_FEATURES=-uprobe_session
		said='in the stash \(a hash map\): uprobe_session turned off by KSNOOP_FEATURES'
		need=
	else
		unset KSNOOP_FEATURES
		said='in uprobe\.session cookies'
		need=uprobe_session
	fi
	ks_case <<-'CASE'
		NAME     ${P}_ufunc
		REQUIRES $need
		RUN      -j "u:$A:uf_add(a, b, return >= 0)" "u:$A:uf_depth(n, return >= 0)" "u:$A:uf_thread_work(tag, return > 0)"
		WORKLOAD app 1
		EXPECT   ${P}_ufunc_path: stderr "entry values wait for the return $said"
		EXPECT   ${P}_ufunc_values: eq "$WANT" "$(calls "$OUT")"
		EXPECT   ${P}_ufunc_kept: eq 0 "$(record summary "$OUT" | jq -r '.not_followed')"
	CASE
	if [ -s "$OUT" ]; then
		calls "$OUT" > "$tmp/$P"
		[ "$only" = . ] || note "kernel $(uname -r), $P: $(events "$OUT" | jq -c 'select(.tid != .pid and .func == "uf_thread_work")' | wc -l) of 3 threads' calls reported"
		[ $P = session ] && note "kernel $(uname -r): uprobe.session entries kept in the stash (task storage refused): $(record summary "$OUT" | jq -r '.session_in_stash // 0')"
	fi
done
unset KSNOOP_FEATURES
if [ -s "$tmp/session" ] && [ -s "$tmp/stash" ]; then
	expect_eq same_ufunc "$(cat "$tmp/stash")" "$(cat "$tmp/session")"
else
	skip same_ufunc "kernel $(uname -r): no uprobe.session run to compare"
fi
