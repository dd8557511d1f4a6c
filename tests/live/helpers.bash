# Helpers for the live tests (bash).  Every live script sources this file
# and gets the result helpers of tests/lib/report.sh (pass, fail, skip,
# check, expect_eq, expect_match, count_is, note ...), K (the ksnoop
# binary, from $KSNOOP) and:
#
#   ks ARGS...             run `ksnoop ARGS` with a time limit (KSNOOP_TIMEOUT,
#                          30 s; status 124 when it hung); a sanitizer report
#                          from the run fails the subtest sanitizer_report
#   start OUT ERR ARGS...  run `ksnoop -v ARGS` in the background, wait until
#                          it has attached; sets KPID and HELD (its programs)
#   finish                 wait (at most 10 s) for it to exit; sets RC
#                          ("timeout" if it had to be killed); checks for a
#                          sanitizer report as ks does
#   stop                   SIGINT it, then finish
#   held_progs PID         ids of the BPF programs PID holds (from its fds)
#   left_ids prog|link|map IDS
#                          which of IDS still exist ("" when all are gone);
#                          no ids, or bpftool failing, is never ""
#   left_progs IDS         left_ids prog IDS
#   san_tag / san_opt asan|ubsan TAG / san_take TAG
#                          sanitizer reports of one run, for scripts that
#                          start ksnoop themselves (see ks)
#   cleanup_pids           SIGKILL the script's background jobs still running
#
# Program ids make "nothing left attached" exact even while other tracers
# run on the machine.

# Results go to fd 7, so that a failure reported inside $(...) still reaches
# the runner.
{ true >&7; } 2>/dev/null || exec 7>&1
. "$(dirname "${BASH_SOURCE[0]}")/../lib/report.sh"
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

ks() {
	local tag rc
	tag=$(san_tag)
	ASAN_OPTIONS=$(san_opt asan "$tag") UBSAN_OPTIONS=$(san_opt ubsan "$tag") \
		timeout -k 2 "$KSNOOP_TIMEOUT" "$K" "$@"
	rc=$?
	san_check "$tag" "ksnoop $*"
	return $rc
}

# Only jobs still running: a PID that was waited for may belong to another
# process by now.
# needs_root NAME: go on as root; otherwise one SKIP NAME and leave the script.
needs_root() {
	[ "$(id -u)" = 0 ] && return 0
	skip "$1" "needs root"
	exit 0
}

# scratch_dir: $tmp, a directory removed on exit, when the ksnoops this
# script started are killed too.
scratch_dir() {
	tmp=$(mktemp -d)
	trap 'cleanup_pids; rm -rf "$tmp"' EXIT
}

cleanup_pids() {
	local p
	for p in $(jobs -rp); do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
}

held_progs() {
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u | tr '\n' ' '
}

left_ids() {
	local kind=$1 id out
	[ -n "$2" ] || { echo "none-recorded"; return; }
	command -v bpftool >/dev/null || { echo "no-bpftool"; return; }
	for id in $2; do
		if out=$(bpftool "$kind" show id "$id" 2>&1); then
			echo -n "$id "
		elif ! printf '%s\n' "$out" | grep -q 'No such file or directory'; then
			echo -n "bpftool-failed($id: $out) "
		fi
	done
}
left_progs() { left_ids prog "$1"; }

start() {
	local out=$1 err=$2 i
	shift 2
	# Emptied before the job starts: a file reused from an earlier start
	# would say "tracing" before this ksnoop has attached (as in vm/lib.sh).
	: >"$out"
	: >"$err"
	SAN_TAG=$(san_tag)
	KCMDLINE="ksnoop -v $*"
	ASAN_OPTIONS=$(san_opt asan "$SAN_TAG") UBSAN_OPTIONS=$(san_opt ubsan "$SAN_TAG") \
		"$K" -v "$@" >"$out" 2>"$err" &
	KPID=$!
	for i in $(seq 100); do
		if grep -q "tracing .* target" "$err" 2>/dev/null; then
			HELD=$(held_progs "$KPID")
			return 0
		fi
		# Exited already (a quick -n)? It may have attached first.
		if ! kill -0 "$KPID" 2>/dev/null; then
			grep -q "tracing .* target" "$err" 2>/dev/null
			return
		fi
		sleep 0.1
	done
	return 1
}

finish() {
	local i
	for i in $(seq 100); do
		kill -0 "$KPID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$KPID" 2>/dev/null; then
		kill -9 "$KPID" 2>/dev/null
		wait "$KPID" 2>/dev/null
		RC=timeout
	else
		wait "$KPID"; RC=$?
	fi
	san_check "$SAN_TAG" "$KCMDLINE"
}

stop() {
	sleep 0.3
	kill -INT "$KPID" 2>/dev/null
	finish
}
