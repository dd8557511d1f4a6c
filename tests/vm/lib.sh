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
#   start, finish, stop           ksnoop in the background (below)
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

# ---- ksnoop helpers (POSIX sh, for the VM's busybox) ----
#   start OUT ERR ARGS...  run `ksnoop -v ARGS` in the background and wait
#                          (at most START_WAIT s, default 30) until it has
#                          attached; sets KPID
#   finish                 wait (at most 20 s) for it to exit; sets RC
#   stop                   SIGINT it, then finish
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
	_ks_i=0
	while [ $_ks_i -lt $((${START_WAIT:-30} * 10)) ]; do
		grep -q "tracing .* target" "$_ks_err" 2>/dev/null && return 0
		if ! kill -0 "$KPID" 2>/dev/null; then
			grep -q "tracing .* target" "$_ks_err" 2>/dev/null
			return
		fi
		sleep 0.1
		_ks_i=$((_ks_i + 1))
	done
	return 1
}

finish() {
	_ks_i=0
	while [ $_ks_i -lt 200 ] && kill -0 "$KPID" 2>/dev/null; do
		sleep 0.1
		_ks_i=$((_ks_i + 1))
	done
	if kill -0 "$KPID" 2>/dev/null; then
		kill -9 "$KPID"; wait "$KPID" 2>/dev/null; RC=timeout
	else
		wait "$KPID"; RC=$?
	fi
}

stop() {
	sleep 0.5
	kill -INT "$KPID" 2>/dev/null
	finish
}
