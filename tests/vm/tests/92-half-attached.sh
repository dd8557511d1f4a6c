#!/bin/sh
# Nothing before every link is attached, on fentry's two paths (the gate of
# plan.bpf.h; issue 43): ksnoop is stopped (SIGSTOP) once the link of its
# first target, do_sys_openat2, is in the kernel and before its last
# target's is; a call of ours opens a file and ends meanwhile; continued,
# ksnoop reports none of it, and reports the same call made once it traces
# (so the spec does catch it).  fsession (7.0 on: fentry and fexit as one
# program with a cookie; it reads the gate since 95a96ff) and fentry/fexit
# with the stash (KSNOOP_FEATURES=-fsession: every kernel with fentry)
# alike.  Stopped too late (-v said "attached in": the gate may be open)
# or too early (no link yet), a run is tried again, five times at most.
# The other targets are there to make attaching take long enough to stop
# it in between.  live/62-stop does the same natively with tracepoints.
# Needs vmprog (open-threads).
. /tests/lib.sh

tmp=$(mktemp -d)

# tracing_links: how many fentry/fexit/fsession links ksnoop ($KPID) holds.
tracing_links() {
	grep -l '^link_type:[[:space:]]*tracing' /proc/"$KPID"/fdinfo/* 2>/dev/null | wc -l
}

# wait_mark FILE ERE: until FILE has a line ERE matches (30 s at most).
wait_mark() {
	i=0
	while [ $i -lt 3000 ] && ! grep -Eq "$2" "$1" 2>/dev/null; do
		kill -0 "$KPID" 2>/dev/null || break
		usleep 10000
		i=$((i + 1))
	done
	grep -Eq "$2" "$1" 2>/dev/null
}

# opened NAME: how many events of do_sys_openat2 opening $tmp/NAME ksnoop printed.
opened() {
	events "$tmp/h.out" 2>/dev/null |
		jq -c "select(.func == \"do_sys_openat2\" and .values.filename == \"$tmp/$1\")" 2>/dev/null | wc -l
}

# half_attached P: the case on the path the environment chose, results P_...
half_attached() {
	P=$1
	half_done=
	for try in 1 2 3 4 5; do
		: >"$tmp/h.out"
		: >"$tmp/h.err"
		spawn "$tmp/h.out" "$tmp/h.err" -v -j --mode fentry -c vmprog \
			'do_sys_openat2(filename, return >= 0)' 'vfs_read(count, return >= 0)' \
			'vfs_write(count, return >= 0)' 'filp_close(return >= 0)' \
			'vfs_getattr(return >= 0)' 'vfs_fsync_range(return >= 0)'
		i=0
		while [ $i -lt 3000 ] && [ "$(tracing_links)" -eq 0 ] && kill -0 "$KPID" 2>/dev/null; do
			usleep 10000
			i=$((i + 1))
		done
		kill -STOP "$KPID" 2>/dev/null
		i=0
		while [ $i -lt 100 ] && [ "$(cut -d' ' -f3 /proc/"$KPID"/stat 2>/dev/null)" != T ]; do
			usleep 10000
			i=$((i + 1))
		done
		if grep -q 'attached in ' "$tmp/h.err" || [ "$(tracing_links)" -eq 0 ]; then
			note "${P}_half_attached: try $try stopped ksnoop with $(tracing_links) links: $(grep -c 'attached in ' "$tmp/h.err") 'attached in'"
			kill -CONT "$KPID" 2>/dev/null
			kill -INT "$KPID" 2>/dev/null
			finish
			continue
		fi
		vmprog open-threads 1 1 "$tmp/before"
		kill -CONT "$KPID"
		if wait_mark "$tmp/h.err" 'tracing .* target'; then
			vmprog open-threads 1 1 "$tmp/after"
			# Until its event is printed: bounded by count.
			i=0
			while [ $i -lt 200 ] && [ "$(opened after)" -eq 0 ]; do
				usleep 50000
				i=$((i + 1))
			done
		fi
		kill -INT "$KPID"
		finish
		half_done=1
		break
	done
	if [ -n "$half_done" ]; then
		expect_eq "${P}_half_attached_nothing_before" 0 "$(opened before)"
		expect_eq "${P}_half_attached_seen_after" 1 "$(opened after)"
		check "${P}_half_attached_path" grep -Eq "entry values wait for the return $2" "$tmp/h.err"
	else
		skip "${P}_half_attached_nothing_before" "never stopped while attaching, five times"
		skip "${P}_half_attached_seen_after" "never stopped while attaching, five times"
		skip "${P}_half_attached_path" "never stopped while attaching, five times"
	fi
}

: >"$tmp/before"
: >"$tmp/after"
features=$(ksnoop -v --mode fentry --duration 0.1 'do_sys_openat2(filename, return >= 0)' 2>&1 >/dev/null)
if printf '%s\n' "$features" | grep -q 'fsession yes'; then
	unset KSNOOP_FEATURES
	half_attached fsession 'in fsession cookies'
else
	note "kernel $(uname -r): no fsession ($(printf '%s\n' "$features" | grep -o 'fsession no[^;,]*')): its case not run"
	skip fsession_half_attached "kernel $(uname -r) has no fsession"
fi
if printf '%s\n' "$features" | grep -q 'fentry yes'; then
	export KSNOOP_FEATURES=-fsession
	half_attached fstash 'in the stash'
	unset KSNOOP_FEATURES
else
	note "kernel $(uname -r): no fentry: $(printf '%s\n' "$features" | grep -o 'fentry no[^;,]*')"
	skip fstash_half_attached "kernel $(uname -r) has no fentry"
fi
rm -rf "$tmp"
