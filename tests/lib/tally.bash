# The reading side of the result protocol (tests/lib/report.sh writes
# it): the one parser of result lines, for the runners tests/run and
# tests/vm/run. Bash.
#
#   tally_parse SPELLING LINE split a protocol line into TALLY_KIND and
#                             TALLY_ARG; false for any other line
#   tally_take KIND ARG [PREFIX]
#                             print a result readably and count it; PREFIX/
#                             goes before the names (tests/vm/run's vm-6.1);
#                             false for a KIND that is not a result
#   tally_lines SPELLING      tally_parse and tally_take every line of stdin
#   tally_summary [--no-skipped]
#                             "N passed, N failed" (", N skipped" when any,
#                             unless --no-skipped: tests/vm/run's last line
#                             has always been without it)
#   tally_failures            "FAILED NAME" again for every failure, at the
#                             end, so that a log's tail names them
#   tally_ok                  true when nothing failed and something passed
#   tally_count KIND NAME     how many results of KIND (PASS, FAIL, SKIP or
#                             ANY) taken so far are named NAME, or under it
#                             when NAME ends in "/" (tests/run's floors: a
#                             result counts only once it reached this shell)
#
# SPELLING says which of the protocol's two spellings the input uses:
#
#   marker   @@KSNOOP-VM@@ KIND ARG
#                             as a test script writes it (report.sh) and as
#                             tests/vm/init adds to it on the console (BOOT,
#                             START, END, LOG, DONE); the marker may follow
#                             other text (a kernel message on the console)
#   printed  PASS NAME, FAIL NAME, SKIP NAME, NOTE NAME: TEXT, "    DETAIL"
#                             as a runner prints it (tests/vm/run's output,
#                             read again by tests/run)
#
# KIND "|" is a line of detail of the result before it. Marker lines come
# mixed with whatever else a script prints (ksnoop's indented values too),
# so the printed spelling is never looked for there.

tally_marker='@@KSNOOP-VM@@' # the same as report.sh's
tally_passed=0
tally_failed=0
tally_skipped=0
tally_results=() # "KIND NAME" of every result taken, for tally_count

tally_parse() {
	local line=${2%$'\r'}
	case $1:$line in
	marker:*"$tally_marker "*)
		line=${line#*"$tally_marker "}
		TALLY_KIND=${line%% *}
		TALLY_ARG=${line#"$TALLY_KIND"}
		TALLY_ARG=${TALLY_ARG# }
		;;
	"printed:PASS "* | "printed:FAIL "* | "printed:SKIP "* | "printed:NOTE "*)
		TALLY_KIND=${line%% *}
		TALLY_ARG=${line#* }
		;;
	"printed:    "*)
		TALLY_KIND='|'
		TALLY_ARG=${line#    }
		;;
	*) return 1 ;;
	esac
}

tally_take() {
	local name=${3:+$3/}$2
	case $1 in
	PASS) tally_passed=$((tally_passed + 1)); echo "PASS $name" ;;
	FAIL) tally_failed=$((tally_failed + 1)); echo "FAIL $name" ;;
	SKIP) tally_skipped=$((tally_skipped + 1)); echo "SKIP $name" ;;
	NOTE) echo "NOTE $name"; return 0 ;;
	'|') echo "    $2"; return 0 ;;
	*) return 1 ;;
	esac
	tally_results+=("$1 $name")
}

# Not in a pipe (tally_lines <FILE): the counts must stay in this shell.
tally_lines() {
	local line
	while IFS= read -r line; do
		if tally_parse "$1" "$line"; then
			tally_take "$TALLY_KIND" "$TALLY_ARG" || true
		fi
	done
}

tally_count() {
	local r n=0
	for r in "${tally_results[@]}"; do
		[ "$1" = ANY ] || [ "${r%% *}" = "$1" ] || continue
		case $2 in
		*/) [[ ${r#* } == "$2"* ]] && n=$((n + 1)) ;;
		*) [ "${r#* }" = "$2" ] && n=$((n + 1)) ;;
		esac
	done
	echo $n
}

tally_summary() {
	if [ "$tally_skipped" -gt 0 ] && [ "${1:-}" != --no-skipped ]; then
		echo "$tally_passed passed, $tally_failed failed, $tally_skipped skipped"
	else
		echo "$tally_passed passed, $tally_failed failed"
	fi
}

tally_failures() {
	local r
	for r in "${tally_results[@]}"; do
		[[ $r == "FAIL "* ]] && echo "FAILED ${r#FAIL }"
	done
	return 0
}

tally_ok() { [ "$tally_failed" -eq 0 ] && [ "$tally_passed" -gt 0 ]; }
