# Helpers for the live tests (bash).  Every live script sources this file
# and gets the result helpers of tests/lib/report.sh (pass, fail, skip,
# check, expect_eq, expect_match, count_is, note ...), K (the ksnoop
# binary, from $KSNOOP) and:
#
#   ks ARGS...             run `ksnoop ARGS` with a time limit (KSNOOP_TIMEOUT,
#                          30 s; status 124 when it hung); a sanitizer report
#                          from the run fails the subtest sanitizer_report
#   ks_case, ks_errors, start, stop, finish, wait_exit, read_held, held_ids,
#   left_ids, still_there, left_progs, wait_lines, record, events
#                          from tests/lib/cases.sh, shared with the VM: ksnoop
#                          in the background, a test case as data, refusals
#                          checked against a golden file, and the records of
#                          -j output
#   spawn OUT ERR ARGS...  (replaces cases.sh's) run `ksnoop ARGS` (through
#                          KCMD, "$K" unless a leak checker comes first) in
#                          the background, its sanitizer reports under SAN_TAG;
#                          sets KPID; finish then checks for a report as ks does
#   ks_row_run TAG ARGS... / ks_row_sanitizer TAG
#                          (replace cases.sh's) a ks_errors row's run, bounded
#                          as ks is, and its sanitizer reports under TAG
#   signal_and_wait SIG SECONDS
#                          signal KPID, then wait_exit SECONDS
#   pid_of PATTERN         the pid of the process whose command line starts
#                          PATTERN, once it has started (by count); empty if none
#   wait_mark FILE TEXT    until TEXT is in FILE or ksnoop (KPID) ended; by count
#   wait_writing PID POLLS [ALIVE...]
#                          until PID is blocked writing to a full pipe (its
#                          reader not reading), at most POLLS polls of 0.05 s;
#                          not if PID or one of ALIVE ended
#   sanitizer_clean NAME ERRFILE
#                          pass NAME if the last spawn made no sanitizer
#                          report (in its log, or in ERRFILE outside tests/run)
#   expect_error NAME STATUS REGEX ARGS...
#                          `ks ARGS` exits STATUS with one line on stderr
#                          matching REGEX
#   error_is NAME STATUS REGEX RC STDERR [COMMAND]
#                          the same judgement of a run made otherwise
#   joined                 the lines of stdin on one, spaced ("a\nb\n": "a b")
#   printed_total OUT ERR  N of the run's summary: "ksnoop: N events printed"
#                          in ERR (text), or {"type":"summary","printed":N}
#                          in OUT (-j); empty when there is none
#   san_tag / san_opt asan|ubsan TAG / san_take TAG
#                          sanitizer reports of one run, for scripts that
#                          start ksnoop themselves (see ks)
#   needs_root NAME        go on as root; otherwise SKIP NAME and exit
#   usdt_paths             U, P, L and E: the USDT test programs' directory,
#                          usdt_prog, libksnoop_usdt.so and usdt_edge, as
#                          built (KSNOOP_USDT_DIR or build/usdt)
#   usdt_programs          usdt_paths, then copies of them of the script's
#                          own in $tmp/usdt (U, P, L and E name those); FAIL
#                          and exit without usdt_prog
#   private_ksnoop tracefs|no-tracefs
#                          a wrapper for $K (K=$(private_ksnoop ...) ks ...)
#                          that runs ksnoop in a mount namespace of its own,
#                          with tracefs mounted there, or with no tracefs and
#                          no debugfs; the machine's mounts are not touched
#   sema_value PID         usdt_prog's `guarded` semaphore in process PID
#                          (at SEMA_VADDR, when set, as sema_vaddr prints)
#   scratch_dir            $tmp, removed on exit after cleanup_pids and what
#                          at_exit added
#   at_exit CMD ARGS...    run CMD on exit (before $tmp is removed)
#   cleanup_pids           SIGKILL the script's background jobs still running
#
# Program ids make "nothing left attached" exact even while other tracers
# run on the machine.

# Results go to fd 7, so that a failure reported inside $(...) still reaches
# the runner.
{ true >&7; } 2>/dev/null || exec 7>&1
. "$(dirname "${BASH_SOURCE[0]}")/../lib/report.sh"
# start waits for ksnoop's "tracing" mark, finish for its exit: these limits
# only bound a hang, and a run that attaches returns as soon as it has.  On
# a busy machine (two suites at once, load 10) attaching PostgreSQL's 60
# probes took 19 s, above cases.sh's 10.
START_WAIT=${START_WAIT:-60}
KS_WAIT=${KS_WAIT:-60}
# cases.sh's waits (tests/lib/kswait.c), built beside vmprog for the guests.
KSWAIT=${KSWAIT:-$(dirname "${KSNOOP_PLAIN:-${KSNOOP:-.}}")/vm/kswait}
[ -x "$KSWAIT" ] || { echo "helpers.bash: no $KSWAIT (make test-bins)" >&2; exit 1; }
. "$(dirname "${BASH_SOURCE[0]}")/../lib/cases.sh"
K=${KSNOOP:?KSNOOP must name the ksnoop binary}
KSNOOP_TIMEOUT=${KSNOOP_TIMEOUT:-30}

# tests/run gives each script a directory for sanitizer logs; each run here
# gets its own log_path in it, so a report names the run that made it.
SAN_DIR=${KSNOOP_SAN_DIR:-}
san_tag() { echo "run$BASHPID-$RANDOM$RANDOM"; }
san_opt() {
	local cur
	if [ "$1" = asan ]; then cur=${ASAN_OPTIONS:-}; else cur=${UBSAN_OPTIONS:-}; fi
	if [ -n "$SAN_DIR" ]; then
		echo "${cur:+$cur:}log_path=$SAN_DIR/$2-$1"
	else
		echo "$cur"
	fi
}
# san_take TAG: print and remove the reports of run TAG; false if none.
san_take() {
	local f found=1
	[ -n "$SAN_DIR" ] || return 1
	for f in "$SAN_DIR/$1"-*; do
		[ -f "$f" ] || continue
		head -40 "$f"
		rm -f "$f"
		found=0
	done
	return $found
}
san_check() {
	local rep
	if rep=$(san_take "$1"); then
		fail sanitizer_report "$2
$rep"
	fi
}

# cases.sh's hooks for ks_errors' rows, and ks: a run's sanitizer
# reports under TAG.
ks_row_run() {
	local tag=$1
	shift
	ASAN_OPTIONS=$(san_opt asan "$tag") UBSAN_OPTIONS=$(san_opt ubsan "$tag") \
		timeout -k 2 "$KSNOOP_TIMEOUT" "$K" "$@"
}
ks_row_sanitizer() { san_take "$1"; }

ks() {
	local tag rc
	tag=$(san_tag)
	ks_row_run "$tag" "$@"
	rc=$?
	san_check "$tag" "ksnoop $*"
	return $rc
}

# "${NOBODY[@]}" CMD...: CMD as user nobody, no groups, no capabilities.
if command -v setpriv >/dev/null; then
	NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
else
	NOBODY=(su nobody -s /bin/sh -c '"$0" "$@"' --)
fi

# needs_root NAME: go on as root; otherwise one SKIP NAME and leave the script.
needs_root() {
	[ "$(id -u)" = 0 ] && return 0
	skip "$1" "needs root"
	exit 0
}

# usdt_paths: the USDT test programs as built (make build/usdt/usdt_prog),
# in KSNOOP_USDT_DIR or the build tree.
usdt_paths() {
	local root
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	U=${KSNOOP_USDT_DIR:-$root/build/usdt}
	U=$(cd "$U" 2>/dev/null && pwd || echo "$U")
	P=$U/usdt_prog
	L=$U/libksnoop_usdt.so
	E=$U/usdt_edge
}

# ustack_program NAME: as root (else a SKIP of NAME and exit), a copy of
# ustack_prog in a world-readable scratch directory: $prog, and $missing,
# the file it opens (and fails to: none exists).
ustack_program() {
	usdt_paths
	needs_root "$1"
	if [ ! -x "$U/ustack_prog" ]; then
		fail ustack_program "missing $U/ustack_prog (make build/usdt/ustack_prog)"
		exit 0
	fi
	scratch_dir
	chmod 755 "$tmp"
	prog=$tmp/ustack_prog
	cp "$U/ustack_prog" "$prog"
	missing=$tmp/missing-file
}

# usdt_programs: copies of the USDT test programs, the script's own.
# Uprobes and semaphores belong to a file: another run tracing the build's
# programs at the same time (two suites on one machine) can neither add
# events to ours nor set our semaphore.  usdt_prog finds the library beside
# it ($ORIGIN).  Without usdt_prog, one FAIL usdt_programs and leave the
# script.
usdt_programs() {
	usdt_paths
	if [ ! -x "$P" ]; then
		fail usdt_programs "missing $P (make build/usdt/usdt_prog)"
		exit 0
	fi
	scratch_dir
	mkdir -p "$tmp/usdt"
	cp "$P" "$L" "$tmp/usdt/"
	if [ -x "$E" ]; then cp "$E" "$tmp/usdt/"; fi
	chmod 755 "$tmp" "$tmp/usdt"
	U=$tmp/usdt
	P=$U/usdt_prog
	L=$U/libksnoop_usdt.so
	E=$U/usdt_edge
}

# private_ksnoop tracefs|no-tracefs: a script that runs $K in a mount
# namespace of its own, with tracefs mounted there, or with every tracefs
# and debugfs (which mounts tracefs when its tracing/ is read) unmounted
# there.  The machine's mounts stay as they are: two runs at once cannot
# unmount each other's tracefs.  Status 125 when the namespace cannot be set.
private_ksnoop() {
	local w=$tmp/ksnoop-$1 setup
	if [ "$1" = tracefs ]; then
		setup='mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing || exit 125'
	else
		setup='for m in $(awk '\''$3 == "tracefs" || $3 == "debugfs" { print $2 }'\'' /proc/self/mounts | sort -r); do umount -l "$m" || exit 125; done'
	fi
	printf '#!/bin/bash\nexec unshare -m --propagation private sh -c %q %q "$@"\n' \
		"$setup"'; exec "$0" "$@"' "$K" >"$w"
	chmod 755 "$w"
	echo "$w"
}

# sema_vaddr: the address of usdt_prog's `guarded` semaphore in $P.
sema_vaddr() { ks -j info usdt "$P" | jq -r 'select(.name == "guarded") | .semaphore'; }
# sema_value PID: its value in process PID (where $P is mapped there plus
# sema_vaddr); nothing while $P is not mapped.
sema_value() {
	local base vaddr
	base=$(awk -v p="$P" '$6 == p { split($1, a, "-"); print a[1]; exit }' "/proc/$1/maps" 2>/dev/null)
	[ -n "$base" ] || return 0
	vaddr=${SEMA_VADDR:-$(sema_vaddr)}
	dd if="/proc/$1/mem" bs=1 count=2 skip=$((0x$base + vaddr)) 2>/dev/null | od -An -tu2 | tr -d ' '
}

# scratch_dir: $tmp, a directory removed on exit, when the ksnoops this
# script started are killed and what at_exit added is run, in that order.
# Once per script: a second call keeps the first directory.
AT_EXIT=()
at_exit() { AT_EXIT+=("$(printf '%q ' "$@")"); }
scratch_dir() {
	[ -n "${tmp:-}" ] && return 0
	tmp=$(mktemp -d)
	trap '_on_exit' EXIT
}
_on_exit() {
	local c
	cleanup_pids
	for c in "${AT_EXIT[@]}"; do eval "$c"; done
	rm -rf "$tmp"
}

# Only jobs still running: a PID that was waited for may belong to another
# process by now.
cleanup_pids() {
	local p
	for p in $(jobs -rp); do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
}

error_is() {
	local name=$1 want=$2 re=$3 rc=$4 err=$5 what=${6:-}
	if [ "$rc" != "$want" ]; then
		fail "$name" "exit $rc, expected $want${what:+: $what}
$err"
	elif [ "$(printf '%s\n' "$err" | wc -l)" != 1 ]; then
		fail "$name" "expected one line on stderr, got:
$err"
	elif ! has_line "$re" "$err"; then
		fail "$name" "stderr does not match /$re/:
$err"
	else
		pass "$name"
	fi
}

expect_error() {
	local name=$1 want=$2 re=$3 err rc
	shift 3
	err=$(ks "$@" 2>&1 >/dev/null); rc=$?
	error_is "$name" "$want" "$re" "$rc" "$err" "ksnoop $*"
}

# refused NAME REGEX ARGS...: a usage error: exit 2, one line on stderr
# matching REGEX, each its own result (NAME_status, _one_line, _message).
refused() {
	local name=$1 re=$2 err rc
	shift 2
	err=$(ks "$@" 2>&1 >/dev/null); rc=$?
	expect_eq "${name}_status" 2 "$rc"
	expect_eq "${name}_one_line" 1 "$(printf '%s\n' "$err" | wc -l)"
	expect_match "${name}_message" "$re" "$err"
}

joined() { tr '\n' ' ' | sed 's/ $//'; }
printed_total() {
	local n
	n=$(sed -n 's/^ksnoop: \([0-9]*\) events printed.*/\1/p' "$2")
	[ -n "$n" ] || n=$(grep -h '^{"type":"summary"' "$1" 2>/dev/null | jq -r '.printed // empty')
	printf '%s\n' "$n"
}

KCMD=("$K")
spawn() {
	local out=$1 err=$2
	shift 2
	SAN_TAG=$(san_tag)
	KCMDLINE="ksnoop $*"
	ASAN_OPTIONS=$(san_opt asan "$SAN_TAG") UBSAN_OPTIONS=$(san_opt ubsan "$SAN_TAG") \
		"${KCMD[@]}" "$@" >"$out" 2>"$err" &
	KPID=$!
}

ks_after_run() { san_check "$SAN_TAG" "$KCMDLINE"; }

signal_and_wait() {
	kill -"$1" "$KPID"
	wait_exit "$2"
} 2>/dev/null

pid_of() {
	local i=0 p=
	while [ $i -lt 2000 ] && [ -z "$p" ]; do
		p=$(pgrep -f "^$1" | head -1)
		[ -n "$p" ] || sleep 0.05
		i=$((i + 1))
	done
	echo "$p"
}

# Bounded by a count of polls (6000, minutes), not by a time the mark
# should come in: under load 'tp:*' alone took more than 15 s to resolve,
# and a signal sent "15 s or the mark" met the wrong phase.
wait_mark() {
	local i=0
	while [ $i -lt 6000 ] && ! grep -q "$2" "$1" 2>/dev/null; do
		kill -0 "$KPID" 2>/dev/null || break
		sleep 0.05
		i=$((i + 1))
	done
	grep -q "$2" "$1" 2>/dev/null
}

# The event a slow-reader test needs, rather than a second or two in which
# the pipe should have filled.
wait_writing() {
	local i=0 pid=$1 polls=$2
	shift 2
	while [ $i -lt "$polls" ]; do
		case $(cat "/proc/$pid/wchan" 2>/dev/null) in *pipe_write*) return 0 ;; esac
		kill -0 "$pid" "$@" 2>/dev/null || return 1
		sleep 0.05
		i=$((i + 1))
	done
	return 1
}

sanitizer_clean() {
	local rep
	if rep=$(san_take "$SAN_TAG"); then
		fail "$1" "$rep"
	else
		expect_no_match "$1" 'Sanitizer|runtime error' "$(cat "$2")"
	fi
}
