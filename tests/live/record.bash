# Helpers of the record/report scripts (48-record*.sh): a live ksnoop and a
# recording of the same probes run side by side, then stopped together.
# Sourced after helpers.bash.

# bg OUT ERR ARGS...: ksnoop -v ARGS in the background until it says it
# traces (30 s at most: a loaded machine attaches slowly); its pid in BGPID.
bg() {
	spawn "$1" "$2" -v "${@:3}"
	BGPID=$KPID
	local i
	for i in $(seq 300); do
		grep -qs "tracing .* target" "$2" && return 0
		kill -0 "$BGPID" 2>/dev/null || break
		sleep 0.1
	done
	fail "attach_$(basename "$1")" "$(cat "$2")"
	return 1
}

# end PID...: SIGINT each (each drains its ring buffer before it exits),
# then wait for all; END_SETTLE seconds first if set.
end() {
	local p
	[ -z "${END_SETTLE:-}" ] || sleep "$END_SETTLE"
	for p in "$@"; do kill -INT "$p" 2>/dev/null; done
	for p in "$@"; do wait "$p" 2>/dev/null; done
}

# headers FILE: the event header lines of a text output.
headers() { grep -E '^[0-9]{2}:[0-9]{2}:' "$1"; }
