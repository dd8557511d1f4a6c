# Shell library for ksnoop VM test scripts: tests/vm/run puts it at
# /tests/lib.sh, next to /tests/report.sh (tests/lib/report.sh). A test
# script starts with
#
#     . /tests/lib.sh
#
# and reports named subtests; each becomes one result line on the host,
# "PASS vm/<script>/<subtest>" or "FAIL vm/<script>/<subtest>" followed by
# the reason. Works in busybox sh and bash, with or without set -eu: the
# helpers return 0 whether the subtest passed or not, so a script goes on
# after a failed subtest.
#
# From report.sh, shared with the live tests:
#   pass, fail, skip, check, check_fails, expect_eq, expect_match,
#   expect_no_match, count_is, note
# Here, for the VM:
#   kmod_path NAME                path of NAME.ko in the VM (for insmod)
#   kmod_load NAME                insmod NAME.ko unless already loaded
#   bpf_prog_count / bpf_link_count   how many BPF programs/links exist now
#   ksnoop_progs                  how many ksnoop programs are loaded now
#   tracefs_lines FILE            lines of /sys/kernel/tracing/FILE (0 if none)
#   held_ids, still_there         the BPF objects one ksnoop held, and which
#                                 of them are left after it exited (below)
#   start, wait_exit, finish, stop, wait_lines
#                                 ksnoop in the background (below)
#   record TYPE FILE / events FILE
#                                 the records of TYPE (events) in -j output,
#                                 one a line: stdout is one NDJSON stream of
#                                 events, notices and the summary
#
# Results go to fd 7 (the console, opened by /init) as protocol lines, and
# to $KSNOOP_VM_RESULTS so /init knows the script reported subtests.

. /tests/report.sh

kmod_path() {
	_ksvm_ko=$(find "/lib/modules/$(uname -r)" -name "$1.ko" 2>/dev/null | head -n 1)
	if [ -z "$_ksvm_ko" ]; then
		echo "kmod_path: module '$1' is not in the VM (tests/vm/run --module $1)" >&2
		return 1
	fi
	echo "$_ksvm_ko"
}

kmod_load() {
	grep -q "^$(echo "$1" | tr - _) " /proc/modules && return 0
	_ksvm_ko=$(kmod_path "$1") || return 1
	insmod "$_ksvm_ko"
}

bpf_prog_count() { bpftool -j prog list | jq length; }
bpf_link_count() { bpftool -j link list | jq length; }

record() { jq -c --arg t "$1" 'select(.type == $t)' "$2"; }
events() { record event "$1"; }

ksnoop_progs() { bpftool prog show 2>/dev/null | grep -c 'name ksnoop_'; }
tracefs_lines() { cat /sys/kernel/tracing/"$1" 2>/dev/null | wc -l; }

# ---- ksnoop helpers (POSIX sh, for the VM's busybox) ----
# The same names and arguments as tests/live/helpers.bash has for bash.
#   start OUT ERR ARGS...  run `ksnoop -v ARGS` in the background and wait
#                          (at most START_WAIT s, default 30) until it has
#                          attached; sets KPID, and PROGS, LINKS and MAPS
#                          (the ids it holds then)
#   wait_exit SECONDS      wait for KPID to exit; sets RC ("timeout" if it
#                          had to be killed)
#   finish                 wait_exit 20
#   stop                   SIGINT it, then finish
#   wait_lines FILE N [SECONDS]
#                          until FILE has N lines (at most SECONDS, 20)
#   held_ids PID prog|link|map
#                          the ids of the BPF objects PID holds (its fds)
#   still_there prog|link|map IDS
#                          those of IDS that still exist after up to 5 s
#                          (programs and maps are freed after an RCU grace
#                          period); no ids, or bpftool failing for another
#                          reason than "no such id", is never ""
held_ids() {
	grep -h "^$2_id:" /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -un | tr '\n' ' '
}

still_there() {
	[ -n "$2" ] || { echo none-recorded; return; }
	_ks_i=0
	while [ $_ks_i -lt 50 ]; do
		_ks_left=""
		for _ks_id in $2; do
			if _ks_o=$(bpftool "$1" show id "$_ks_id" 2>&1); then
				_ks_left="$_ks_left$_ks_id "
			elif ! echo "$_ks_o" | grep -q 'No such file or directory'; then
				_ks_left="$_ks_left bpftool-failed($_ks_id: $_ks_o) "
			fi
		done
		[ -z "$_ks_left" ] && break
		sleep 0.1
		_ks_i=$((_ks_i + 1))
	done
	echo "$_ks_left"
}

start() {
	_ks_out=$1; _ks_err=$2
	shift 2
	# Empty both files here, not in the background job: the job opens
	# them some time after it is started, and until then a file reused
	# from an earlier start still says "tracing", so the wait below would
	# return before this ksnoop has attached (the "zero events" flake).
	: >"$_ks_out"
	: >"$_ks_err"
	ksnoop -v "$@" >"$_ks_out" 2>"$_ks_err" &
	KPID=$!
	PROGS="" LINKS="" MAPS=""
	_ks_i=0
	while [ $_ks_i -lt $((${START_WAIT:-30} * 10)) ]; do
		if grep -q "tracing .* target" "$_ks_err" 2>/dev/null; then
			PROGS=$(held_ids "$KPID" prog)
			LINKS=$(held_ids "$KPID" link)
			MAPS=$(held_ids "$KPID" map)
			return 0
		fi
		# Exited already (a quick -n)? It may have attached first.
		if ! kill -0 "$KPID" 2>/dev/null; then
			grep -q "tracing .* target" "$_ks_err" 2>/dev/null
			return
		fi
		sleep 0.1
		_ks_i=$((_ks_i + 1))
	done
	return 1
}

wait_exit() {
	_ks_i=0
	while [ $_ks_i -lt $(($1 * 10)) ] && kill -0 "$KPID" 2>/dev/null; do
		sleep 0.1
		_ks_i=$((_ks_i + 1))
	done
	if kill -0 "$KPID" 2>/dev/null; then
		kill -9 "$KPID"; wait "$KPID" 2>/dev/null; RC=timeout
	else
		wait "$KPID"; RC=$?
	fi
}

finish() { wait_exit 20; }

stop() {
	sleep 0.5
	kill -INT "$KPID" 2>/dev/null
	finish
}

wait_lines() {
	_ks_i=0
	while [ $_ks_i -lt $((${3:-20} * 10)) ]; do
		[ "$(wc -l <"$1" 2>/dev/null || echo 0)" -ge "$2" ] && return 0
		sleep 0.1
		_ks_i=$((_ks_i + 1))
	done
	return 1
}
