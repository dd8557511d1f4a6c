#!/bin/bash
# A recording whose BTF is hostile (issue 40 item 1), reported as nobody:
# a union of 1000 named and 1000 anonymous structs of 1000 ints (finding
# its struct_groups was cubic: minutes for a file of a kilobyte), and
# 32 KiB of one-byte enums with 65535 enumerators (each element scanned
# them all).  `ksnoop report` prints both in bounded work: the union cut
# with a note (text: a comment; JSON: "u_cut"), every enum named.  The
# recording comes from the unit test that builds the same shapes
# (build/san/test_print_bound --write-recording FILE).  The time limit only
# catches a hang; nothing here depends on how fast the machine is.
. "$(dirname "$0")/helpers.bash"
scratch_dir
gen=${KSNOOP_UNIT_DIR:-$(dirname "$K")}/test_print_bound

if ! "$gen" --write-recording "$tmp/hostile.ksr" >"$tmp/gen.out" 2>&1; then
	fail recording_written "$gen: $(head -c 2000 "$tmp/gen.out")"
	exit 0
fi
pass recording_written
# Readable by nobody, whatever mode the writer gives recordings.
chmod 755 "$tmp"
chmod 644 "$tmp/hostile.ksr"

# report FORMAT-ARGS...: as nobody, bounded; stdout in $tmp/out, stderr in $tmp/err, status in RC.
report() {
	TZ=UTC timeout -k 2 120 "${NOBODY[@]}" "$K" report -n 1 "$@" "$tmp/hostile.ksr" \
		>"$tmp/out" 2>"$tmp/err"
	RC=$?
}

# has NAME ERE: a line of $tmp/out matches ERE (the output is large: only its head is shown).
has() {
	if grep -Eq -- "$2" "$tmp/out"; then
		pass "$1"
	else
		fail "$1" "no line matches /$2/ in: $(head -c 1500 "$tmp/out")"
	fi
}

report
expect_eq text_exit 0 "$RC"
expect_match text_summary '^ksnoop: 1 events printed' "$(cat "$tmp/err")"
has text_union_cut_with_note '^    u = \{\} /\* output cut: work limit \([0-9]+ steps for 4000 bytes\) \*/$'
has text_enums_all_named '^    e = \[e0, e1, e2, .*, e254, e255\]$'
expect_eq text_one_cut 1 "$(grep -c 'cut' "$tmp/out")"
expect_fewer text_bounded "$(wc -c <"$tmp/out")" 1048576 "bytes of text"

report -j
expect_eq json_exit 0 "$RC"
has json_union_cut_said '"u_cut":"(work|BTF) limit"'
check json_parses jq -se 'map(select(.type == "event")) | length == 1 and .[0].values.e[32767] == "e255" and (.[0].values | has("e_cut") | not)' "$tmp/out"
expect_fewer json_bounded "$(wc -c <"$tmp/out")" $((8 << 20)) "bytes of JSON"
