#!/bin/bash
# User functions against hostile DWARF (issue 44): programs whose files
# nobody owns, run as nobody, and ksnoop (the ASan build) as root.  Types
# that contain themselves, a struct holding itself, a reference out of
# range, 80 typedefs deep (written by build/san/test_dwarf --write-hostile
# from tests/uprog/types.c's binaries): ksnoop refuses with one line naming
# the file, exit 2 (golden/66-ufunc-hostile/errors).  Debug information it
# must not read: compressed sections claiming 1 TB, a .gnu_debuglink whose
# file is a FIFO nobody made (opening it would block) or a link to
# /dev/zero (reading it would not end), a build-id debug file of 2 GB
# (sparse): ksnoop says where it looked and why each was left, traces the
# program untyped (arg0..arg5) while nobody runs it, stays under 512 MB,
# ends at SIGINT with status 0 and leaves nothing attached.  The time
# limits (KSNOOP_TIMEOUT, STOP_WAIT) only catch a hang.
. "$(dirname "$0")/helpers.bash"
usdt_paths
needs_root ufunc_hostile
UP=${KSNOOP_UPROG_DIR:-$(dirname "$U")/uprog}
gen=${KSNOOP_UNIT_DIR:-$(dirname "$K")}/test_dwarf
golden=$(cd "$(dirname "$0")/../golden/66-ufunc-hostile" && pwd)
scratch_dir
H=$tmp/h
mkdir -p "$H"
chmod 755 "$tmp"
if ! "$gen" --write-hostile "$H" >"$tmp/gen.out" 2>&1; then
	fail hostile_written "$gen: $(head -c 2000 "$tmp/gen.out")"
	exit 0
fi
pass hostile_written

# The debug information found by name, as nobody would lay it out: a
# stripped copy whose .gnu_debuglink names types.debug, which is a FIFO
# beside it and a link to /dev/zero in .debug/ (gdb's first two places).
T=$UP/types-gcc-O0-dwarf5
objcopy --strip-debug "$T" "$H/stripped"
cp "$T" "$H/types.debug"
objcopy --add-gnu-debuglink="$H/types.debug" "$H/stripped" "$H/debuglink"
rm -f "$H/types.debug" "$H/stripped"
chown -R 65534:65534 "$H"
"${NOBODY[@]}" mkfifo "$H/types.debug"
"${NOBODY[@]}" mkdir "$H/.debug"
"${NOBODY[@]}" ln -s /dev/zero "$H/.debug/types.debug"

# A build-id of its own (the bytes of the note replaced) whose debug file
# under /usr/lib/debug is 2 GB, sparse; removed at exit.
objcopy --strip-debug "$T" "$H/buildid"
old=$(readelf -n "$H/buildid" | awk '/Build ID:/ { print $3 }')
new=$(od -An -tx1 -N $((${#old} / 2)) /dev/urandom | tr -d ' \n')
python3 - "$H/buildid" "$old" "$new" <<'PY'
import sys
path, old, new = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
data = open(path, "rb").read()
assert len(old) >= 8 and data.count(old) == 1, "build-id not found once"
open(path, "wb").write(data.replace(old, new))
PY
huge=/usr/lib/debug/.build-id/${new:0:2}/${new:2}.debug
mkdir -p "$(dirname "$huge")"
AT_EXIT+=("rm -f '$huge'; rmdir '$(dirname "$huge")' 2>/dev/null")
truncate -s 2G "$huge"
chown 65534:65534 "$H/buildid"
expect_eq buildid_replaced "$new" "$(readelf -n "$H/buildid" | awk '/Build ID:/ { print $3 }')"

# --- refused: one line naming the file, exit 2, bounded ---
(cd "$H" && ks_errors "$golden/errors") <<'ROWS'
cycle              u:./cycle:node_visit
cycle_info         info u:./cycle:node_visit
self_struct        u:./self_struct:bits_sum
self_struct_info   info u:./self_struct:bits_sum
out_of_range       u:./out_of_range:node_visit
out_of_range_info  info u:./out_of_range:node_visit
deep               u:./deep:node_visit
deep_info          info u:./deep:node_visit
ROWS
# A glob lists the function, refused with the reason, instead.
out=$(cd "$H" && ks info 'u:./deep:node_*' 2>&1)
expect_match deep_glob_refused_said "^long node_visit\\(.*\\); /\\* cannot be traced: './deep': DIE 0x[0-9a-f]+: types nested deeper than 64 \\*/$" "$out"

# --- not read: traced untyped while nobody runs the program ---
# kb FIELD PID: FIELD of /proc/PID/status, in kB.
kb() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$2/status" 2>/dev/null; }
# run_as_nobody FILE: FILE run by nobody with three arguments (node_visit's
# depth is argc, 4), then its event awaited; HWM is ksnoop's peak memory.
run_as_nobody() {
	"${NOBODY[@]}" "$1" a b c
	wait_lines "$OUT" 1 30
	HWM=$(kb VmHWM "$KPID")
}
under() { [ -n "$2" ] && [ "$2" -lt "$1" ] && echo true || echo "${2:-no value} kB"; }

for f in inflate debuglink buildid; do
	F=$H/$f
	ks_case <<'CASE'
NAME      ${f}_traced
RUN       -j "u:$F:node_visit(arg2)"
WORKLOAD  run_as_nobody "$F"
STOP_WAIT 5
EXPECT    ${f}_untyped_value: eq 4 "$(events "$OUT" | jq -r '.values.arg2')"
EXPECT    ${f}_memory_bounded: eq true "$(under 524288 "$HWM")"
EXPECT    ${f}_sigint_exit_0: exit 0
EXPECT    ${f}_nothing_left_attached: eq "" "$(left_progs "$PROGS")"
CASE
	note "$f: ksnoop (ASan) peak memory ${HWM:-?} kB"
done
expect_match inflate_said "no debug info \\('$H/inflate': debug sections inflate to more than [0-9]+ MB\\)" "$(cat "$tmp/inflate_traced.err")"
expect_match debuglink_fifo_said "$H/types.debug \\(not a regular file\\), $H/.debug/types.debug \\(not a regular file\\)" "$(cat "$tmp/debuglink_traced.err")"
expect_match buildid_huge_said "$huge \\(larger than [0-9]+ MB\\)" "$(cat "$tmp/buildid_traced.err")"
