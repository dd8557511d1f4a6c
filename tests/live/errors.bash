# Error messages as data: a table of ksnoop command lines, the exit status
# each must end with, and the exact one-line message each must print, kept
# in a golden file.  Sourced after helpers.bash by the live scripts of
# bad input (20-errors, 25-json-errors, 50-bad-input) and 30-tracepoint.
#
#   error_table [--json] GOLDEN <<'TABLE'
#   # NAME                STATUS  ARGS (shell words)
#   unknown_long_option   2       --bogus ip_send_skb
#   fentry_refused        1       KSNOOP_FEATURES=+fentry --duration 1 ip_send_skb
#   TABLE
#
# Each row runs `ksnoop ARGS` (the sanitizer build, bounded by `timeout`,
# stdin from /dev/null; leading NAME=VALUE words are its environment) and
# is one result, NAME, which passes when ksnoop
#   - exited with STATUS, within ET_TIMEOUT (10) s, with no sanitizer report;
#   - printed exactly one line: on stderr and nothing on stdout, or with
#     --json on stdout (a {"type":"error",...} object) and nothing on stderr;
#   - and that line is, byte for byte, the one GOLDEN holds for NAME.
# GOLDEN (tests/golden/SCRIPT/FILE) has one line a row, NAME, a tab, the
# message; the scratch directory's name in it reads $TMP, and a kernel
# address (0xffff and 12 hex digits: it moves with KASLR) 0xKADDR.  An
# entry of GOLDEN that no row made fails too (golden_used_FILE): a row
# renamed or dropped leaves no expectation behind unseen.
#
# ARGS are expanded when the row runs ("$(long a 200)", $'\n' ...), in
# the scratch directory $tmp: a file made there is ./NAME, so that the
# columns and lengths a message names do not depend on where $tmp is;
# a line ending in a backslash goes on on the next; '#' starts a comment
# line.  Rows run PARALLEL (4) at a time and report in the order written;
# ET_DIR/NAME.out, .err and .rc stay for what the script checks after.
#
# KSNOOP_UPDATE_GOLDEN=1 writes GOLDEN from this run instead of comparing
# (the status, one-line and sanitizer checks still run): only on purpose,
# reading the diff before committing it.

PARALLEL=${PARALLEL:-4}
ET_TIMEOUT=${ET_TIMEOUT:-10}

# _et_norm: a message as the golden file holds it.
_et_norm() {
	local line=$1
	[ -z "${tmp:-}" ] || line=${line//"$tmp"/'$TMP'}
	printf '%s' "$line" | sed -E 's/0xffff[0-9a-f]{12}/0xKADDR/g'
}

# _et_run N ARGS...: one row's ksnoop, its files ET_DIR/N.{out,err,rc}.
_et_run() {
	local n=$1 envs=()
	shift
	while [ $# -gt 0 ] && [[ $1 =~ ^[A-Z_][A-Z0-9_]*= ]]; do
		envs+=("$1")
		shift
	done
	cd "$tmp" || return
	ASAN_OPTIONS=$(san_opt asan "et-$n") UBSAN_OPTIONS=$(san_opt ubsan "et-$n") \
		env "${envs[@]}" timeout -k 2 "$ET_TIMEOUT" "$K" "$@" </dev/null \
		>"$ET_DIR/$n.out" 2>"$ET_DIR/$n.err"
	echo $? >"$ET_DIR/$n.rc"
}

# _et_line N: the one line the row printed where its mode prints it; why
# not, on stdout of a failing _et_line (status 1).
_et_line() {
	local n=$1 main=$ET_DIR/$1.err other=$ET_DIR/$1.out nl
	[ "$ET_JSON" = 1 ] && main=$ET_DIR/$n.out other=$ET_DIR/$n.err
	nl=$(tr -cd '\n' <"$main" | wc -c)
	if [ "$nl" != 1 ] || [ "$(wc -c <"$main")" -le 1 ]; then
		printf 'expected exactly one line on %s, got %s newline(s):\n%s' \
			"${main##*.}" "$nl" "$(cat -v "$main")"
		return 1
	fi
	if [ -s "$other" ]; then
		printf 'output on %s besides the error:\n%s' "${other##*.}" "$(head -5 "$other")"
		return 1
	fi
	if [ "$ET_JSON" = 1 ] && ! jq -e 'select(.type == "error") | .error | strings' "$main" >/dev/null 2>&1; then
		printf 'not a {"type":"error","error":STRING} object:\n%s' "$(cat -v "$main")"
		return 1
	fi
	head -1 "$main"
}

# _et_judge N NAME STATUS: one row's result.
_et_judge() {
	local n=$1 name=$2 want=$3 rc rep line want_line
	rc=$(cat "$ET_DIR/$n.rc")
	if rep=$(san_take "et-$n") || grep -qE 'Sanitizer|runtime error:' "$ET_DIR/$n.err"; then
		fail "$name" "sanitizer report (exit $rc): ${ET_ARGS[n]}
$rep$(head -30 "$ET_DIR/$n.err")"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		fail "$name" "no answer within $ET_TIMEOUT s (killed): ${ET_ARGS[n]}"
	elif [ "$rc" != "$want" ]; then
		fail "$name" "exit $rc, expected $want: ${ET_ARGS[n]}
$(head -5 "$ET_DIR/$n.err")$(head -5 "$ET_DIR/$n.out")"
	elif ! line=$(_et_line "$n"); then
		fail "$name" "${ET_ARGS[n]}: $line"
	else
		line=$(_et_norm "$line")
		if [ "${KSNOOP_UPDATE_GOLDEN:-}" = 1 ]; then
			printf '%s\t%s\n' "$name" "$line" >>"$ET_GOLDEN.new"
			pass "$name"
		elif ! want_line=$(_et_golden "$name"); then
			fail "$name" "no entry in ${ET_GOLDEN#"$ET_ROOT/"} (KSNOOP_UPDATE_GOLDEN=1 writes it); printed:
$line"
		elif [ "$line" != "$want_line" ]; then
			fail "$name" "${ET_ARGS[n]}
expected: $want_line
actual:   $line"
		else
			pass "$name"
		fi
	fi
}

# _et_golden NAME: the message GOLDEN holds for NAME; false if none.
_et_golden() {
	awk -F '\t' -v n="$1" '$1 == n { sub(/^[^\t]*\t/, ""); print; f = 1; exit } END { exit !f }' "$ET_GOLDEN"
}

error_table() {
	local json=0 golden raw row name want rest i names=() wants=()
	[ "$1" = --json ] && { json=1; shift; }
	golden=$1
	ET_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
	ET_GOLDEN=$ET_ROOT/$golden ET_JSON=$json
	scratch_dir
	ET_DIR=$tmp/errors-${golden##*/}
	mkdir -p "$ET_DIR"
	ET_ARGS=()
	rm -f "$ET_GOLDEN.new"
	[ "${KSNOOP_UPDATE_GOLDEN:-}" != 1 ] || mkdir -p "$(dirname "$ET_GOLDEN")"
	row=""
	while IFS= read -r raw; do
		case $raw in *\\) row="$row${raw%\\} "; continue ;; esac
		row=$row$raw
		row=${row#"${row%%[! 	]*}"}
		case $row in '' | '#'*) row=""; continue ;; esac
		read -r name want rest <<<"$row"
		row=""
		i=${#names[@]}
		names+=("$name") wants+=("$want")
		ET_ARGS[i]="ksnoop $rest"
		while [ "$(jobs -rp | wc -l)" -ge "$PARALLEL" ]; do wait -n; done
		eval "_et_run $i $rest" &
	done
	wait
	for i in "${!names[@]}"; do
		_et_judge "$i" "${names[i]}" "${wants[i]}"
		ln -sf "$i.out" "$ET_DIR/${names[i]}.out"
		ln -sf "$i.err" "$ET_DIR/${names[i]}.err"
		ln -sf "$i.rc" "$ET_DIR/${names[i]}.rc"
	done
	if [ "${KSNOOP_UPDATE_GOLDEN:-}" = 1 ]; then
		mv "$ET_GOLDEN.new" "$ET_GOLDEN"
		note "wrote $golden: ${#names[@]} rows"
		return 0
	fi
	local stale
	stale=$(cut -f1 "$ET_GOLDEN" 2>/dev/null | grep -vxF -f <(printf '%s\n' "${names[@]}"))
	if [ -z "$stale" ]; then
		pass "golden_used_${golden##*/}"
	else
		fail "golden_used_${golden##*/}" "entries of $golden that no row made:
$stale"
	fi
}
