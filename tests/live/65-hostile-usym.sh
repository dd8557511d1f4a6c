#!/bin/bash
# The user stack symbolizer (-s on USDT) against a hostile traced process
# (issue 25): usdt_hostile, run as nobody, maps ELF files it crafted and
# fakes a frame-pointer chain into them; ksnoop runs as root.  Whatever
# the file, ksnoop prints the event in bounded time and memory, ends at
# SIGINT within 10 s with status 0 and leaves nothing attached; it never
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

# stop_within NAME: SIGINT ends ksnoop within 10 s, status 0, nothing left
# (the fuse case below; the others say it as ks_case STOP_WAIT 10).  The
# bound is for a ksnoop that would wait on its symbolizer, which the fuse
# case's child, stuck for good, would hold forever: 2 s was too little
# for a loaded machine's exit (s60's CI: a detach of a sleepable uprobe
# waits on an RCU grace period, no progress to see meanwhile).
stop_within() {
	local links=$LINKS progs=$PROGS
	kill -INT "$KPID" 2>/dev/null
	wait_exit 10
	expect_eq "$1"_sigint_exit_0 0 "$RC"
	san_check "$SAN_TAG" "$KCMDLINE"
	expect_eq "$1"_no_link_left "" "$(still_there link "$links")"
	expect_eq "$1"_no_prog_left "" "$(still_there prog "$progs")"
}

# fire KIND N: KIND fired N times as nobody; IN_TIME is "yes" when the N
# events came within 10 s, MEM ksnoop's peak memory growth meanwhile and
# CHILD_MEM its child's peak (kB).
fire() {
	local hwm0 c
	hwm0=$(kb VmHWM "$KPID")
	"${NOBODY[@]}" "$H" "$1" "$tmp/h" "$2" >/dev/null
	IN_TIME=$(wait_hits "$OUT" "$2" 10 && echo yes || echo "$(hits "$OUT") of $2 events after 10 s")
	MEM=$(($(kb VmHWM "$KPID") - hwm0))
	c=$(kid | head -1)
	CHILD_MEM=${c:+$(kb VmHWM "$c")}
}
# under LIMIT KB: "true" when KB (a peak memory growth) is below LIMIT.
under() { [ -n "$2" ] && [ "$2" -lt "$1" ] && echo true || echo "${2:-no child}: ${3:-kB}"; }

# --- 20,000 functions whose string table has no NUL: read once, named;
#     ksnoop grows by less than 64 MB, its child stays under 512 MB ---
ks_case <<'CASE'
NAME      nonul_attach
RUN       -s usdt "$PROBE"
WORKLOAD  fire nonul 3
STOP_WAIT 10
EXPECT    nonul_printed_in_time: eq yes "$IN_TIME"
EXPECT    nonul_memory_bounded: eq true "$(under 65536 "$MEM")"
EXPECT    nonul_child_memory_bounded: eq true "$(under 524288 "$CHILD_MEM")"
EXPECT    nonul_sigint_exit_0: exit 0
EXPECT    nonul_no_link_left: eq "" "$(still_there link "$LINKS")"
EXPECT    nonul_no_prog_left: eq "" "$(still_there prog "$PROGS")"
EXPECT    nonul_named_cut: match "^        A{255}\\+0x0 \\($tmp/h/nonul.so\\),\$"
CASE
rm -f "$tmp/h/nonul.so"
# --- 100 headers over one table; 1,000 over a 48 MB hole: refused ---
ks_case <<'CASE'
NAME      overlap_attach
RUN       -s usdt "$PROBE"
WORKLOAD  fire overlap 3
STOP_WAIT 10
EXPECT    overlap_printed_in_time: eq yes "$IN_TIME"
EXPECT    overlap_memory_bounded: eq true "$(under 65536 "$MEM")"
EXPECT    overlap_child_memory_bounded: eq true "$(under 524288 "$CHILD_MEM")"
EXPECT    overlap_sigint_exit_0: exit 0
EXPECT    overlap_no_link_left: eq "" "$(still_there link "$LINKS")"
EXPECT    overlap_no_prog_left: eq "" "$(still_there prog "$PROGS")"
EXPECT    overlap_unnamed: match "^        0x[0-9a-f]+ \\($tmp/h/overlap.so\\+0x1100\\),\$"
CASE
rm -f "$tmp/h/overlap.so"
ks_case <<'CASE'
NAME      sparse_attach
RUN       -s usdt "$PROBE"
WORKLOAD  fire sparse 3
STOP_WAIT 10
EXPECT    sparse_printed_in_time: eq yes "$IN_TIME"
EXPECT    sparse_memory_bounded: eq true "$(under 65536 "$MEM")"
EXPECT    sparse_child_memory_bounded: eq true "$(under 524288 "$CHILD_MEM")"
EXPECT    sparse_sigint_exit_0: exit 0
EXPECT    sparse_no_link_left: eq "" "$(still_there link "$LINKS")"
EXPECT    sparse_no_prog_left: eq "" "$(still_there prog "$PROGS")"
CASE
rm -f "$tmp/h/sparse.so"

# --- the file cut to 4 KB while ksnoop may be reading it: no SIGBUS ---
ks_case <<'CASE'
NAME      truncate_attach
RUN       -s usdt "$PROBE"
WORKLOAD  "${NOBODY[@]}" "$H" truncate "$tmp/h" 1 >/dev/null
WORKLOAD  wait_hits "$OUT" 3 10
WORKLOAD  alive=$(kill -0 "$KPID" 2>/dev/null && echo true || echo "ksnoop gone: $(tail -3 "$ERR")")
STOP_WAIT 10
EXPECT    truncate_events: eq 3 "$(hits "$OUT")"
EXPECT    truncate_alive: eq true "$alive"
EXPECT    truncate_sigint_exit_0: exit 0
EXPECT    truncate_no_link_left: eq "" "$(still_there link "$LINKS")"
EXPECT    truncate_no_prog_left: eq "" "$(still_there prog "$PROGS")"
CASE
rm -f "$tmp/h/truncate.so"

# --- a deleted file's "X (deleted)" made a symlink to a root-only FIFO,
#     the file unmapped after ksnoop read the maps: the FIFO is never
#     opened (a writer blocked on it would get through at any open) ---
mkdir -m 700 "$tmp/root"
mkfifo -m 600 "$tmp/root/fifo"
( exec 3>"$tmp/root/fifo"; echo opened >"$tmp/root/opened" ) &
writer=$!
# deleted_go: the hostile program's first event, then the unmapping, then
# its second event (each bounded by count).
deleted_go() {
	local hostile
	"${NOBODY[@]}" "$H" deleted "$tmp/h" "$tmp/root/fifo" >/dev/null &
	hostile=$!
	FIRST=$(wait_hits "$OUT" 1 10 && echo yes || echo "no event")
	touch "$tmp/h/go"
	wait "$hostile"
	SECOND=$(wait_hits "$OUT" 2 10 && echo yes || echo "$(hits "$OUT") events")
	sleep 0.5
}
ks_case <<'CASE'
NAME      deleted_attach
RUN       -s usdt "$PROBE"
WORKLOAD  deleted_go
STOP_WAIT 10
EXPECT    deleted_first_event: eq yes "$FIRST"
EXPECT    deleted_second_event: eq yes "$SECOND"
EXPECT    deleted_unnamed: match "^        0x[0-9a-f]+ \\($tmp/h/deleted.so \\(deleted\\)\\+0x1100\\),\$"
EXPECT    deleted_fifo_not_opened: eq "" "$(cat "$tmp/root/opened" 2>/dev/null)"
EXPECT    deleted_sigint_exit_0: exit 0
EXPECT    deleted_no_link_left: eq "" "$(still_there link "$LINKS")"
EXPECT    deleted_no_prog_left: eq "" "$(still_there prog "$PROGS")"
CASE
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
for i in $(seq 100); do kill -0 "$KPID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$KPID" 2>/dev/null; then
	fail fuse_sigint_exit_0 "still running 10 s after SIGINT: $(grep State "/proc/$KPID/status")"
	kill "$fs"	# what it waits on fails now: it can die
	wait_exit 5
else
	wait_exit 1
	expect_eq fuse_sigint_exit_0 0 "$RC"
fi
san_check "$SAN_TAG" "$KCMDLINE"
expect_eq fuse_no_link_left "" "$(still_there link "$links")"
expect_eq fuse_no_prog_left "" "$(still_there prog "$progs")"
