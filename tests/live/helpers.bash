# Helpers for the live tests (bash), on top of the result protocol of
# tests/vm/lib.sh.  A script sources this file, sets K (the ksnoop binary)
# and uses:
#
#   start OUT ERR ARGS...  run `ksnoop -v ARGS` in the background, wait until
#                          it has attached; sets KPID and HELD (its programs)
#   finish                 wait (at most 10 s) for it to exit; sets RC
#   stop                   SIGINT it, then finish
#   held_progs PID         ids of the BPF programs PID holds (from its fds)
#   left_progs IDS         which of IDS still exist ("" when all are gone)
#
# Program ids make "nothing left attached" exact even while other tracers
# run on the machine.
. "$(dirname "${BASH_SOURCE[0]}")/../vm/lib.sh"

pids=()
cleanup_pids() {
	local p
	for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
}

held_progs() {
	grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{print $2}' | sort -u | tr '\n' ' '
}

left_progs() {
	local id
	[ -n "$1" ] || { echo "none-recorded"; return; }
	for id in $1; do bpftool prog show id "$id" >/dev/null 2>&1 && echo -n "$id "; done
}

start() {
	local out=$1 err=$2 i
	shift 2
	# Emptied before the job starts: a file reused from an earlier start
	# would say "tracing" before this ksnoop has attached (see vm/lib.sh).
	: >"$out"
	: >"$err"
	"$K" -v "$@" >"$out" 2>"$err" &
	KPID=$!
	pids+=("$KPID")
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
	if kill -9 "$KPID" 2>/dev/null; then
		wait "$KPID" 2>/dev/null
		RC=timeout
		return
	fi
	wait "$KPID"; RC=$?
}

stop() {
	sleep 0.3
	kill -INT "$KPID" 2>/dev/null
	finish
}
