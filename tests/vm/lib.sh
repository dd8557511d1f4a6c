# Shell library for ksnoop VM test scripts: tests/vm/run puts it at
# /tests/lib.sh. A test script starts with
#
#     . /tests/lib.sh
#
# and reports named subtests; each becomes one result line on the host,
# "PASS vm/<script>/<subtest>" or "FAIL vm/<script>/<subtest>" followed by
# the reason. Works in busybox sh and bash, with or without set -eu: the
# helpers return 0 whether the subtest passed or not, so a script goes on
# after a failed subtest.
#
#   pass NAME                     record a pass
#   fail NAME [WHY...]            record a failure, WHY shown on the host
#   skip NAME [WHY...]            record a skip (not counted)
#   check NAME CMD [ARG...]       pass if CMD exits 0, else fail with its output
#   check_fails NAME CMD [ARG...] pass if CMD exits non-zero, else fail
#   expect_eq NAME EXPECTED ACTUAL
#   expect_match NAME REGEX TEXT  pass if a line of TEXT matches ERE REGEX
#   expect_no_match NAME REGEX TEXT
#   note TEXT...                  a line the host always prints (benchmarks)
#   kmod_path NAME                path of NAME.ko in the VM (for insmod)
#   kmod_load NAME                insmod NAME.ko unless already loaded
#   bpf_prog_count / bpf_link_count   how many BPF programs/links exist now
#
# Results go to fd 7 (the console, opened by /init) as protocol lines, and
# to $KSNOOP_VM_RESULTS so /init knows the script reported subtests.

KSNOOP_TEST=${KSNOOP_TEST:-$(basename "$0" .sh)}
_ksvm_marker='@@KSNOOP-VM@@'
if { true >&7; } 2>/dev/null; then _ksvm_fd=7; else _ksvm_fd=1; fi

# Most output shown for one failure; the rest is cut, keeping the end.
_KSVM_DETAIL_LINES=80

_ksvm_name() { printf '%s' "$1" | tr -s ' \t\n' '___'; }

# _ksvm_result KIND NAME [DETAIL...]
_ksvm_result() {
	_ksvm_kind=$1
	_ksvm_sub=$(_ksvm_name "${2:-unnamed}")
	if [ $# -ge 2 ]; then shift 2; else shift $#; fi
	[ -n "${KSNOOP_VM_RESULTS:-}" ] &&
		echo "$_ksvm_kind $_ksvm_sub" >>"$KSNOOP_VM_RESULTS"
	{
		echo "$_ksvm_marker $_ksvm_kind $KSNOOP_TEST/$_ksvm_sub"
		if [ $# -gt 0 ]; then
			printf '%s\n' "$*" | tail -n "$_KSVM_DETAIL_LINES" |
				sed "s/^/$_ksvm_marker | /"
		fi
	} >&"$_ksvm_fd"
	return 0
}

pass() { _ksvm_result PASS "$@"; }
fail() { _ksvm_result FAIL "$@"; }
skip() { _ksvm_result SKIP "$@"; }

note() {
	echo "$_ksvm_marker NOTE $KSNOOP_TEST: $*" >&"$_ksvm_fd"
	return 0
}

check() {
	_ksvm_cn=$1
	shift
	if _ksvm_out=$("$@" 2>&1); then
		pass "$_ksvm_cn"
	else
		fail "$_ksvm_cn" "command failed (exit $?): $*${_ksvm_out:+
$_ksvm_out}"
	fi
}

check_fails() {
	_ksvm_cn=$1
	shift
	if _ksvm_out=$("$@" 2>&1); then
		fail "$_ksvm_cn" "command succeeded but should have failed: $*${_ksvm_out:+
$_ksvm_out}"
	else
		pass "$_ksvm_cn"
	fi
}

expect_eq() {
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected: '$2'
actual:   '$3'"
	fi
}

expect_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		pass "$1"
	else
		fail "$1" "no line matches /$2/ in:
$3"
	fi
}

expect_no_match() {
	if printf '%s\n' "$3" | grep -Eq -- "$2"; then
		fail "$1" "a line matches /$2/ in:
$3"
	else
		pass "$1"
	fi
}

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
#   count_is NAME N ERE FILE [ERRFILE]
#                          pass if exactly N lines of FILE match ERE, else
#                          fail showing FILE (and ERRFILE)
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

count_is() {
	_ks_n=$(grep -cE -- "$3" "$4")
	if [ "$_ks_n" = "$2" ]; then
		pass "$1"
	else
		fail "$1" "expected $2 lines matching /$3/, found $_ks_n in:
$(head -60 "$4")
--- stderr:
$(cat "${5:-/dev/null}" 2>/dev/null)"
	fi
}
