#!/bin/bash
# A real program traced by its functions (issue 44): mini-httpd, built
# with -g from Debian bookworm's source package by tests/uprog/debian-build
# (cached under the build directory: built once), serves real requests
# (curl) while ksnoop traces strdecode(), which gets each request's path,
# and add_headers(), which gets its status and the bytes it sends, typed
# from the binary's DWARF.  What ksnoop saw, request by request (each is
# its own forked process), must be what the server wrote in its own
# access log.  Where Debian's archive is out of reach the results are
# SKIPs and a NOTE says why; a build that fails fails.
. "$(dirname "$0")/helpers.bash"
usdt_paths
needs_root ufunc_debian
root=$(cd "$(dirname "$0")/../.." && pwd)
DEB=${KSNOOP_DEBSRC_DIR:-$(dirname "$U")/debsrc}
RESULTS="typed_said values_match_log statuses bytes nothing_left_attached"

"$root/tests/uprog/debian-build" "$DEB" 2>"${TMPDIR:-/tmp}/ufunc-debian.$$"
rc=$?
why=$(cat "${TMPDIR:-/tmp}/ufunc-debian.$$")
rm -f "${TMPDIR:-/tmp}/ufunc-debian.$$"
case $rc in
0) pass debian_built ;;
3)
	note "mini-httpd not built on $(uname -n): $why"
	for r in debian_built $RESULTS; do skip "$r" "Debian's source archive out of reach"; done
	exit 0
	;;
*)
	fail debian_built "$why"
	exit 0
	;;
esac

scratch_dir
mkdir -p "$tmp/bin" "$tmp/www/sub"
# The script's own copy: uprobes are per file, so no other run's requests.
cp "$DEB/mini_httpd" "$tmp/bin/"
M=$tmp/bin/mini_httpd
echo 'hello from ksnoop' >"$tmp/www/index.html"
head -c 12345 /dev/urandom >"$tmp/www/blob.bin"
echo 'nested' >"$tmp/www/sub/page.txt"
chmod -R a+rX "$tmp"
LOG=$tmp/access.log
PATHS="/index.html /blob.bin /missing.html /sub/page.txt /"

# serve: the server up on a free port (it forks a process a request and
# logs each), then each path asked for once, then the events awaited.
server_up() {
	local p
	for p in $(shuf -i 20000-60000 -n 20); do
		"$M" -p "$p" -d "$tmp/www" -l "$LOG" -i "$tmp/mh.pid" -u nobody \
			>"$tmp/mh.out" 2>&1 </dev/null
		wait_lines "$tmp/mh.pid" 1 10 2>/dev/null || continue
		PORT=$p
		AT_EXIT+=("kill $(cat "$tmp/mh.pid") 2>/dev/null")
		# A server that lost the bind race exits: try another port.
		curl -s -o /dev/null "http://127.0.0.1:$p/index.html" && return 0
		rm -f "$tmp/mh.pid" "$LOG"
	done
	return 1
}
serve() {
	local p n=0
	for p in $PATHS; do
		curl -s -o /dev/null "http://127.0.0.1:$PORT$p"
		n=$((n + 2))
	done
	wait_lines "$OUT" "$n" 30
}

# log_requests: "PATH STATUS BYTES" a request, from the server's own log
# (its lines after the first check's), in order.
log_requests() {
	tail -n +"$(($(wc -l <"$LOG.before") + 1))" "$LOG" |
		sed -E 's/^[^"]*"[A-Z]+ ([^ "]*) [^"]*" ([0-9]+) ([0-9-]+) .*/\1 \2 \3/'
}
# traced_requests: the same from ksnoop's events: each request's process
# (in the order it came) gave strdecode() the path and add_headers() the
# status and the bytes (-1: none, which the log writes as -).
traced_requests() {
	events "$OUT" | jq -rs 'sort_by(.time_ns) | group_by(.pid) | sort_by(.[0].time_ns) | .[] |
		(map(select(.func == "strdecode"))[0].values["from:str"]) as $p |
		(map(select(.func == "add_headers"))[0].values) as $v |
		"\($p) \($v.s) \(if $v.b < 0 then "-" else $v.b end)"'
}

if ! server_up; then
	fail served "mini_httpd did not serve: $(head -c 500 "$tmp/mh.out")"
	exit 0
fi
# The request made to check the server is in the log before ksnoop ran.
cp "$LOG" "$LOG.before"

ks_case <<'CASE'
NAME     served
RUN      -j "u:$M:strdecode(from:str)" "u:$M:add_headers(s, b)"
WORKLOAD serve
EXPECT   typed_said: stderr "user function add_headers .*; types from $M\$"
EXPECT   values_match_log: eq "$(log_requests)" "$(traced_requests)"
EXPECT   statuses: eq '200 200 404 200 200' "$(traced_requests | awk '{ print $2 }' | paste -sd' ')"
EXPECT   bytes: eq "18 12345 - 7 18" "$(traced_requests | awk '{ print $3 }' | paste -sd' ')"
EXPECT   nothing_left_attached: eq "" "$(left_progs "$PROGS")"
CASE
