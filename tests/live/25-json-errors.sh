#!/bin/bash
# With -j an error is one JSON object on stdout ({"type":"error","error":...}), with the
# same exit status as in text; without -j it stays one line on stderr.  A
# table (ks_errors --json, tests/lib/cases.sh): each row's exact object is in
# tests/golden/25-json-errors/errors.
. "$(dirname "$0")/helpers.bash"
golden=$(cd "$(dirname "$0")/../golden/25-json-errors" && pwd)
scratch_dir

# NAME                   ARGS
KSNOOP_TIMEOUT=20 ks_errors --json --in "$tmp" "$golden/errors" <<'TABLE'
bad_option_value         -j --pid x tp:sched_switch
folded_json              --count -s --folded -j tp:sched_switch
option_before_j          --max-events 0x --json tp:sched_switch
short_cluster            -vj --mode nope tp:sched_switch
spec_column              -j 'tp:sched_switch('
control_bytes_escaped    -j info "no_such_fn"$'\e'"x"
TABLE

# Without -j: text on stderr, nothing on stdout.
out=$(ks --pid x tp:sched_switch 2>/dev/null); rc=$?
expect_eq text_error_status 2 "$rc"
expect_eq text_error_stdout_empty "" "$out"
