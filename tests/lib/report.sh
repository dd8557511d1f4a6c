# The writing side of the result protocol: what a test script uses to
# report named subtests. Sourced by tests/vm/lib.sh (in the VM it is
# /tests/report.sh), tests/live/helpers.bash and tests/fuzz/run; the
# runners read the lines back with tests/lib/tally.bash.
#
#   pass NAME                     record a pass
#   fail NAME [WHY...]            record a failure, WHY shown under it
#                                 and, under bash, the caller's file and
#                                 line ("at 30-tracepoint.sh:120")
#   skip NAME [WHY...]            record a skip (not a pass, not a failure)
#   check NAME CMD [ARG...]       pass if CMD exits 0, else fail with its output
#   check_fails NAME CMD [ARG...] pass if CMD exits non-zero, else fail
#   expect_eq NAME EXPECTED ACTUAL
#   expect_match NAME REGEX TEXT  pass if a line of TEXT matches ERE REGEX
#   expect_no_match NAME REGEX TEXT
#   count_is NAME N ERE FILE [ERRFILE]
#                                 pass if exactly N lines of FILE match ERE,
#                                 else fail showing FILE (and ERRFILE)
#   expect_fewer NAME N M WHAT    pass if the number N is below M (WHAT says
#                                 what was counted, for the failure)
#   note TEXT...                  a line the runner always prints
#
# The protocol: one line per result, "@@KSNOOP-VM@@ KIND SCRIPT/SUBTEST",
# KIND being PASS, FAIL or SKIP; each line of detail after it as
# "@@KSNOOP-VM@@ | TEXT"; a note as "@@KSNOOP-VM@@ NOTE SCRIPT: TEXT".
# SCRIPT is $KSNOOP_TEST (default: this script's basename). The runner
# prints them as "PASS NAME", "    TEXT" and so on, and ends with
# "N passed, N failed" (tally.bash). The marker keeps a result apart from
# anything else the script prints; tests/vm/init adds its own keywords on
# the console (BOOT, START, END, LOG, DONE).
#
# Results go to fd 7 when it is open (the VM's console; the live runner's
# stdout even from inside $(...)), else to stdout, and, when
# $KSNOOP_VM_RESULTS names a file, a line there too, so /init knows the
# script reported subtests. POSIX sh: busybox sh and bash, with or without
# set -eu; every helper returns 0, so a script goes on after a failure.

KSNOOP_TEST=${KSNOOP_TEST:-$(basename "$0" .sh)}
_ksr_marker='@@KSNOOP-VM@@'
if { true >&7; } 2>/dev/null; then _ksr_fd=7; else _ksr_fd=1; fi

# Most output shown for one failure; the rest is cut, keeping the end.
_KSR_DETAIL_LINES=80

# _ksr_result KIND NAME [DETAIL...]: NAME's runs of blanks become one '_'
# each.  Most names have none, and take no process: a result is written
# thousands of times a run, and a fork in a guest under TCG costs tens of
# ms of its CPU.
_ksr_result() {
	_ksr_kind=$1
	_ksr_sub=${2:-unnamed}
	case $_ksr_sub in
	*[' 	
']*) _ksr_sub=$(printf '%s' "$_ksr_sub" | tr -s ' \t\n' '___') ;;
	esac
	if [ $# -ge 2 ]; then shift 2; else shift $#; fi
	[ -n "${KSNOOP_VM_RESULTS:-}" ] &&
		echo "$_ksr_kind $_ksr_sub" >>"$KSNOOP_VM_RESULTS"
	{
		echo "$_ksr_marker $_ksr_kind $KSNOOP_TEST/$_ksr_sub"
		if [ $# -gt 0 ]; then
			printf '%s\n' "$*" | tail -n "$_KSR_DETAIL_LINES" |
				sed "s/^/$_ksr_marker | /"
		fi
	} >&"$_ksr_fd"
	return 0
}

# _ksr_where: where the failing test is, as "at FILE:LINE": the first
# caller outside these libraries (report.sh, cases.sh, the live helpers).
# Bash only (caller); busybox sh has no call stack, and a failure there
# names its case.
if [ -n "${BASH_VERSION:-}" ]; then
	eval '_ksr_where() {
		local i=0 c file
		while c=$(caller $i); do
			file=${c#* * }
			case $file in
			*/lib/report.sh | */lib/cases.sh | */helpers.bash) ;;
			*) echo "at ${file##*/}:${c%% *}"; return ;;
			esac
			i=$((i + 1))
		done
	}'
else
	_ksr_where() { :; }
fi

pass() { _ksr_result PASS "$@"; }
fail() {
	_ksr_at=$(_ksr_where)
	_ksr_fn=${1:-unnamed}
	if [ $# -ge 1 ]; then shift; fi
	_ksr_fd_text="$*${*:+${_ksr_at:+
}}$_ksr_at"
	if [ -n "$_ksr_fd_text" ]; then
		_ksr_result FAIL "$_ksr_fn" "$_ksr_fd_text"
	else
		_ksr_result FAIL "$_ksr_fn"
	fi
}
skip() { _ksr_result SKIP "$@"; }

note() {
	echo "$_ksr_marker NOTE $KSNOOP_TEST: $*" >&"$_ksr_fd"
	return 0
}

check() {
	_ksr_cn=$1
	shift
	if _ksr_out=$("$@" 2>&1); then
		pass "$_ksr_cn"
	else
		fail "$_ksr_cn" "command failed (exit $?): $*${_ksr_out:+
$_ksr_out}"
	fi
}

check_fails() {
	_ksr_cn=$1
	shift
	if _ksr_out=$("$@" 2>&1); then
		fail "$_ksr_cn" "command succeeded but should have failed: $*${_ksr_out:+
$_ksr_out}"
	else
		pass "$_ksr_cn"
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

# has_line ERE TEXT: a line of TEXT matches ERE.  Not `printf | grep -q`:
# grep -q leaves at the first match, a longer TEXT's printf then dies of
# SIGPIPE, and under `set -o pipefail` the match reads as none (whether
# printf was done first is the scheduler's: a failure on a busy machine).
has_line() {
	grep -Eq -- "$1" <<EOF
$2
EOF
}

expect_match() {
	if has_line "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "no line matches /$2/ in:
$3"
	fi
}

expect_no_match() {
	if has_line "$2" "$3"; then
		fail "$1" "a line matches /$2/ in:
$3"
	else
		pass "$1"
	fi
}

expect_fewer() {
	if [ "$2" -lt "${3:-0}" ] 2>/dev/null; then
		pass "$1"
	else
		fail "$1" "expected fewer than ${3:-?}: $2 $4"
	fi
}

count_is() {
	_ksr_n=$(grep -cE -- "$3" "$4")
	if [ "$_ksr_n" = "$2" ]; then
		pass "$1"
	else
		fail "$1" "expected $2 lines matching /$3/, found $_ksr_n in:
$(head -60 "$4")
--- stderr:
$(cat "${5:-/dev/null}" 2>/dev/null)"
	fi
}
