#!/bin/bash
# The user stack symbolizer (-s on USDT) against a hostile traced process
# (issue 25): usdt_hostile, run as nobody, maps ELF files it crafted and
# fakes a frame-pointer chain into them; ksnoop runs as root.  Whatever
# the file, ksnoop prints the event in bounded time and memory, ends at
# SIGINT within 2 s with status 0 and leaves nothing attached; it never
# opens what a path in the maps leads to; a file on a FUSE mount that
# stops answering does not hold it.
. "$(dirname "$0")/helpers.bash"
usdt_paths
needs_root hostile_usym

H=$U/usdt_hostile
if [ ! -x "$H" ]; then
	fail usdt_hostile "missing $H (make build/usdt/usdt_hostile)"
	exit 0
fi
scratch_dir
# The script's own copy: no other run's events in ours.
mkdir -p "$tmp/bin" "$tmp/h"
cp "$H" "$tmp/bin/"
H=$tmp/bin/usdt_hostile
chmod 755 "$tmp" "$tmp/bin"
chown 65534:65534 "$tmp/h"
PROBE=$H:ksnoop_hostile:hit

# kb FIELD PID: FIELD of /proc/PID/status, in kB (0 when gone).
kb() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/status" 2>/dev/null || echo 0; }
# The children of ksnoop (its symbolizer and the ones killed before).
kid() { pgrep -P "$KPID"; }
hits() { grep -c -- '-> ksnoop_hostile:hit$' "$1" 2>/dev/null; }

# wait_hits FILE N SECONDS: until FILE has N events (at most SECONDS).
wait_hits() {
	local i
	for i in $(seq $(($3 * 10))); do
		[ "$(hits "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# stop_within NAME: SIGINT ends ksnoop within 2 s, status 0, nothing left.
stop_within() {
	local links=$LINKS progs=$PROGS
	kill -INT "$KPID" 2>/dev/null
	wait_exit 2
	expect_eq "$1"_sigint_exit_0 0 "$RC"
	san_check "$SAN_TAG" "$KCMDLINE"
	expect_eq "$1"_no_link_left "" "$(still_there link "$links")"
	expect_eq "$1"_no_prog_left "" "$(still_there prog "$progs")"
}

# crafted NAME KIND N: KIND fired N times as nobody; N events within 10 s,
# ksnoop's peak memory up by less than 64 MB, its child's under 512 MB.
crafted() {
	local name=$1 o=$tmp/o-$1 e=$tmp/e-$1 hwm0
	start "$o" "$e" -s usdt "$PROBE" || { fail "$name"_attach "$(cat "$e")"; return; }
	hwm0=$(kb VmHWM "$KPID")
	"${NOBODY[@]}" "$H" "$2" "$tmp/h" "$3" >/dev/null
	if wait_hits "$o" "$3" 10; then
		pass "$name"_printed_in_time
	else
		fail "$name"_printed_in_time "$(hits "$o") of $3 events after 10 s"
	fi
	expect_eq "$name"_memory_bounded true \
		"$([ $(($(kb VmHWM "$KPID") - hwm0)) -lt 65536 ] && echo true || echo "VmHWM $hwm0 -> $(kb VmHWM "$KPID") kB")"
	expect_eq "$name"_child_memory_bounded true \
		"$(c=$(kid | head -1); [ -n "$c" ] && [ "$(kb VmHWM "$c")" -lt 524288 ] && echo true || echo "child ${c:-none}: $(kb VmHWM "${c:-0}") kB")"
	stop_within "$name"
	rm -f "$tmp/h/$2.so"
}

# --- 20,000 functions whose string table has no NUL: read once, named ---
crafted nonul nonul 3
expect_match nonul_named_cut "^        A{255}\\+0x0 \\($tmp/h/nonul.so\\),\$" "$(cat "$tmp/o-nonul")"
# --- 100 headers over one table; 1,000 over a 48 MB hole: refused ---
crafted overlap overlap 3
expect_match overlap_unnamed "^        0x[0-9a-f]+ \\($tmp/h/overlap.so\\+0x1100\\),\$" "$(cat "$tmp/o-overlap")"
crafted sparse sparse 3

# --- the file cut to 4 KB while ksnoop may be reading it: no SIGBUS ---
start "$tmp/o-trunc" "$tmp/e-trunc" -s usdt "$PROBE" || fail truncate_attach "$(cat "$tmp/e-trunc")"
"${NOBODY[@]}" "$H" truncate "$tmp/h" 1 >/dev/null
wait_hits "$tmp/o-trunc" 3 10 >/dev/null
expect_eq truncate_events 3 "$(hits "$tmp/o-trunc")"
expect_eq truncate_alive true "$(kill -0 "$KPID" 2>/dev/null && echo true || echo "ksnoop gone: $(tail -3 "$tmp/e-trunc")")"
stop_within truncate
rm -f "$tmp/h/truncate.so"

# --- a deleted file's "X (deleted)" made a symlink to a root-only FIFO,
#     the file unmapped after ksnoop read the maps: the FIFO is never
#     opened (a writer blocked on it would get through at any open) ---
mkdir -m 700 "$tmp/root"
mkfifo -m 600 "$tmp/root/fifo"
( exec 3>"$tmp/root/fifo"; echo opened >"$tmp/root/opened" ) &
writer=$!
start "$tmp/o-del" "$tmp/e-del" -s usdt "$PROBE" || fail deleted_attach "$(cat "$tmp/e-del")"
"${NOBODY[@]}" "$H" deleted "$tmp/h" "$tmp/root/fifo" >/dev/null &
hostile=$!
wait_hits "$tmp/o-del" 1 10 >/dev/null || fail deleted_first_event "no event"
touch "$tmp/h/go"
wait "$hostile"
wait_hits "$tmp/o-del" 2 10 >/dev/null || fail deleted_second_event "$(hits "$tmp/o-del") events"
expect_match deleted_unnamed "^        0x[0-9a-f]+ \\($tmp/h/deleted.so \\(deleted\\)\\+0x1100\\),\$" "$(cat "$tmp/o-del")"
sleep 0.5
expect_eq deleted_fifo_not_opened "" "$(cat "$tmp/root/opened" 2>/dev/null)"
stop_within deleted
kill "$writer" 2>/dev/null

# --- a file on FUSE whose server stops answering (fuse_stall: the traced
#     process's open answered, ksnoop's not): the symbolizer's child
#     sleeps uninterruptibly, holding no BPF object; ksnoop prints the
#     event, gives the file up, names the next frames by offset, and ends
#     at SIGINT ---
FS=$U/fuse_stall
mkdir "$tmp/mnt"
chmod 755 "$tmp/mnt"
"$FS" "$tmp/mnt" /bin/true >"$tmp/fs.out" 2>&1 &
fs=$!
at_exit umount -l "$tmp/mnt"	# the server, a job, is killed before
for i in $(seq 50); do grep -q mounted "$tmp/fs.out" && break; sleep 0.1; done
if ! grep -q mounted "$tmp/fs.out"; then
	fail fuse_mount "$(cat "$tmp/fs.out")"
	exit 0
fi
start "$tmp/o-fuse" "$tmp/e-fuse" -s usdt "$PROBE" || fail fuse_attach "$(cat "$tmp/e-fuse")"
links=$LINKS progs=$PROGS
"${NOBODY[@]}" "$H" file "$tmp/mnt/evil.so" 2 >/dev/null &
if wait_hits "$tmp/o-fuse" 2 10; then pass fuse_printed_in_time; else
	fail fuse_printed_in_time "$(hits "$tmp/o-fuse") of 2 events after 10 s"; fi
expect_match fuse_file_given_up "^        0x[0-9a-f]+ \\($tmp/mnt/evil.so\\+0x1300\\),?\$" "$(cat "$tmp/o-fuse")"
stuck=""
for c in $(kid); do [ "$(awk '$1 == "State:" { print $2 }' "/proc/$c/status")" = D ] && stuck=$c; done
expect_eq fuse_child_stuck true "$([ -n "$stuck" ] && echo true || echo "no child of ksnoop in D state")"
# The stuck child and the one started after it (once links existed): no
# BPF object, nothing but /dev/null and the socket (and the file read;
# a sanitizer build keeps ksnoop's stderr for its reports).
kids=$(kid | wc -w)
expect_eq fuse_children_hold_no_bpf "2 children" "$(for c in $(kid); do held_ids "$c" link; held_ids "$c" prog
	ls -l "/proc/$c/fd" | grep -Ev "^total|/dev/null\$|socket:|evil.so\$|$tmp/e-fuse\$"; done; echo "$kids children")"
kill -INT "$KPID"
for i in $(seq 20); do kill -0 "$KPID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$KPID" 2>/dev/null; then
	fail fuse_sigint_exit_0 "still running 2 s after SIGINT: $(grep State "/proc/$KPID/status")"
	kill "$fs"	# what it waits on fails now: it can die
	wait_exit 5
else
	wait_exit 1
	expect_eq fuse_sigint_exit_0 0 "$RC"
fi
san_check "$SAN_TAG" "$KCMDLINE"
expect_eq fuse_no_link_left "" "$(still_there link "$links")"
expect_eq fuse_no_prog_left "" "$(still_there prog "$progs")"
