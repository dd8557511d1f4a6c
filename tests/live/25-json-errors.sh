#!/bin/bash
# With -j an error is one JSON object on stdout ({"type":"error","error":...}), with the
# same exit status as in text; without -j it stays one line on stderr.  A
# table (errors.bash --json): each row's exact object is in
# tests/golden/25-json-errors/errors.
. "$(dirname "$0")/helpers.bash"
. "$(dirname "$0")/errors.bash"
ET_TIMEOUT=20

# NAME                   STATUS  ARGS
error_table --json tests/golden/25-json-errors/errors <<'TABLE'
bad_option_value         2  -j --pid x tp:sched_switch
folded_json              2  --count -s --folded -j tp:sched_switch
option_before_j          2  --max-events 0x --json tp:sched_switch
short_cluster            2  -vj --mode nope tp:sched_switch
spec_column              2  -j 'tp:sched_switch('
control_bytes_escaped    2  -j info "no_such_fn"$'\e'"x"
TABLE

# Without -j: text on stderr, nothing on stdout.
out=$(ks --pid x tp:sched_switch 2>/dev/null); rc=$?
expect_eq text_error_status 2 "$rc"
expect_eq text_error_stdout_empty "" "$out"
