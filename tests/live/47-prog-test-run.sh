#!/bin/bash
# The capture program without a workload: prog_test_run (prog_test_run.c)
# loads ksnoop's BPF object through its skeleton with a plan in .rodata,
# runs the raw tracepoint program with BPF_PROG_TEST_RUN on argument words
# of its own, and checks the ring buffer's record: header, values
# (a word, a user string, a user chain, NULL, an error pointer), a false
# predicate, ksnoop's own calls, -p.  As root; where the kernel refuses
# (no BPF_PROG_TEST_RUN for raw_tp, or no BPF for this user) a SKIP says so.
. "$(dirname "$0")/helpers.bash"

needs_root prog_test_run
# The binary sits beside the sanitizer build tests/run gives as $KSNOOP.
bin=${KSNOOP_LIVE_DIR:-$(dirname "$(dirname "$K")")/live}/prog_test_run
if [ ! -x "$bin" ]; then
	fail prog_test_run_built "no $bin (make $bin)"
	exit 0
fi
scratch_dir
tag=$(san_tag)
ASAN_OPTIONS=$(san_opt asan "$tag") UBSAN_OPTIONS=$(san_opt ubsan "$tag") \
	timeout -k 2 "$KSNOOP_TIMEOUT" "$bin" >"$tmp/out" 2>"$tmp/err"
rc=$?
san_check "$tag" "$bin"
n=0
while read -r kind name why; do
	n=$((n + 1))
	case $kind in
	PASS) pass "$name" ;;
	SKIP) skip "${name%:}" "$why"; note "BPF_PROG_TEST_RUN: ${name%:}: $why" ;;
	*) fail "${name%:}" "$why
$(tail -20 "$tmp/err")" ;;
	esac
done <"$tmp/out"
# The binary decides the results; it must have said some and ended well.
[ "$n" -gt 0 ] || fail prog_test_run_results "no results (exit $rc):
$(tail -20 "$tmp/err")"
expect_eq prog_test_run_exit 0 "$rc"
