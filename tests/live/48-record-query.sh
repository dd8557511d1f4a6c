#!/bin/bash
# Questions asked of a recording at report time, live on this machine
# (system calls, USDT, tracepoints), as root: `ksnoop report FILE SPEC...`
# keeps exactly the events whose recorded values satisfy the SPECs'
# predicates (syscall_prog's failing opens; usdt_prog's requests; our own
# exec among every exec of the machine), and report --count --by prints
# what live --count --by runs printed for the same events, run beside the
# recording.  --since/--until select by offset and by wall time, -L by
# duration; a predicate on a value not recorded is refused in one line.
. "$(dirname "$0")/helpers.bash"
. "$(dirname "$0")/record.bash"
usdt_paths
S=$U/syscall_prog
UP=${KSNOOP_UPROG_DIR:-$(dirname "$U")/uprog}
usdt_programs
needs_root record_query
if [ ! -x "$S" ]; then
	fail syscall_program "missing $S (make build/usdt/syscall_prog)"
	exit 0
fi
umask 022
# A copy named after this run: -c and the comm predicate select our calls alone.
prog=kssq$$
cp "$S" "$tmp/$prog"
missing=$tmp/missing-file
existing=$tmp/existing-file
: >"$existing"
N=3 M=2


# --- system calls: a recording beside live --count --by runs of the same calls ---
bg "$tmp/ct" "$tmp/ect" -c "$prog" --count --by return 'sys:openat(return)' && ct=$BGPID
bg "$tmp/cj" "$tmp/ecj" -c "$prog" -j --count --by return 'sys:openat(return)' && cj=$BGPID
bg "$tmp/cc" "$tmp/ecc" -c "$prog" --count --by comm,return 'sys:openat(return < 0)' && cc=$BGPID
bg "$tmp/ht" "$tmp/eht" -c "$prog" --hist 'sys:openat(return)' && ht=$BGPID
bg "$tmp/hj" "$tmp/ehj" -c "$prog" -j --hist 'sys:openat(return)' && hj=$BGPID
bg "$tmp/hl" "$tmp/ehl" -c "$prog" --hist=linear:-4:4:2 --by comm 'sys:openat(return)' && hl=$BGPID
bg "$tmp/ro" "$tmp/er" record -o "$tmp/s.ksr" -c "$prog" 'sys:openat(filename, return)' && rec=$BGPID
"$tmp/$prog" "$missing" $N "$existing" $M 9 >/dev/null 2>&1
end $ct $cj $cc $ht $hj $hl $rec
expect_match sys_recorded "^ksnoop: [0-9]+ events recorded to $tmp/s.ksr" "$(cat "$tmp/er")"

# Exactly the failing opens: N returns of -2, nothing else.
ks report "$tmp/s.ksr" 'sys:openat(return == -2)' >"$tmp/q" 2>"$tmp/eq"
expect_eq sys_query_status 0 "$?"
expect_eq sys_query_events $N "$(headers "$tmp/q" | grep -c '<- sys:openat')"
expect_eq sys_query_only_returns $N "$(headers "$tmp/q" | wc -l)"
expect_eq sys_query_enoent $N "$(grep -c '^    return = -2 (ENOENT)$' "$tmp/q")"
expect_eq sys_query_summary "ksnoop: $N events printed, 0 lost" "$(cat "$tmp/eq")"
# Entry values: the opens of the existing file (its N failing ones are not).
expect_eq sys_query_filename $M \
	"$(ks report "$tmp/s.ksr" "sys:openat(filename == \"$existing\")" 2>/dev/null | grep -c '^    filename = ')"
# A glob, and -c at report time: the same failing opens.
expect_eq sys_query_glob $N \
	"$(ks report -c "$prog" "$tmp/s.ksr" 'sys:open*(return < 0)' 2>/dev/null | grep -c '<- sys:openat')"
expect_eq sys_query_other_comm 0 \
	"$(ks report -c other "$tmp/s.ksr" 'sys:openat(return < 0)' 2>/dev/null | grep -c '<- sys:openat')"

# --count --by at report time: what the live runs printed, byte for byte.
ks report --count --by return "$tmp/s.ksr" >"$tmp/rct" 2>"$tmp/erct"
check sys_count_by_text_identical cmp "$tmp/ct" "$tmp/rct"
expect_match sys_count_by_enoent "^ +$N  -2 \(ENOENT\) +sys:openat$" "$(cat "$tmp/rct")"
expect_eq sys_count_by_summary "$(grep ' calls counted$' "$tmp/ect")" "$(cat "$tmp/erct")"
check sys_count_by_json_identical cmp "$tmp/cj" <(ks report -j --count --by return "$tmp/s.ksr" 2>/dev/null)
check sys_count_by_pred_identical cmp "$tmp/cc" \
	<(ks report --count --by comm,return "$tmp/s.ksr" 'sys:openat(return < 0)' 2>/dev/null)

# --hist at report time: of the value the SPEC names, as the live runs printed it.
ks report --hist "$tmp/s.ksr" 'sys:openat(return)' >"$tmp/rht" 2>"$tmp/erht"
check sys_hist_text_identical cmp "$tmp/ht" "$tmp/rht"
expect_eq sys_hist_summary "$(grep ' calls counted$' "$tmp/eht")" "$(cat "$tmp/erht")"
check sys_hist_json_identical cmp "$tmp/hj" <(ks report -j --hist "$tmp/s.ksr" 'sys:openat(return)' 2>/dev/null)
check sys_hist_linear_by_identical cmp "$tmp/hl" \
	<(ks report --hist=linear:-4:4:2 --by comm "$tmp/s.ksr" 'sys:openat(return)' 2>/dev/null)
expect_match sys_hist_enoent_bucket "^\(\.\.\., 0\) +$N \|" "$(cat "$tmp/rht")"
# Of durations where the SPEC names no value: one per return (each run times its own calls).
expect_eq sys_hist_durations "$(ks report "$tmp/s.ksr" 2>/dev/null | grep -c '<- sys:openat')" \
	"$(ks report -j --hist "$tmp/s.ksr" 'sys:openat()' 2>/dev/null | jq -r 'select(.type == "hist" and .value == "duration_ns") | .count')"

# -L: the calls at least that long, their returns alone.
total_returns=$(ks report "$tmp/s.ksr" 2>/dev/null | grep -c '<- sys:openat')
expect_eq sys_min_duration_all "$total_returns" \
	"$(ks report -L 1ns "$tmp/s.ksr" 2>/dev/null | headers /dev/stdin | grep -c '<- sys:openat')"
expect_eq sys_min_duration_none 0 \
	"$(ks report -L 1000s "$tmp/s.ksr" 2>/dev/null | headers /dev/stdin | wc -l)"

# --since/--until: offsets from the start, then wall times as the events print them.
TZ=UTC ks report "$tmp/s.ksr" >"$tmp/all" 2>/dev/null
total=$(headers "$tmp/all" | wc -l)
expect_eq window_until_far "$total" "$(TZ=UTC ks report --until 1000s "$tmp/s.ksr" 2>/dev/null | headers /dev/stdin | wc -l)"
expect_eq window_since_far 0 "$(TZ=UTC ks report --since 1000s "$tmp/s.ksr" 2>/dev/null | headers /dev/stdin | wc -l)"
start=$(ks report --info "$tmp/s.ksr" | sed -n 's/^    start = //p')
expect_eq window_since_start "$total" "$(ks report --since "$start" "$tmp/s.ksr" 2>/dev/null | headers /dev/stdin | wc -l)"
expect_eq window_until_start 0 "$(ks report --until "$start" "$tmp/s.ksr" 2>/dev/null | headers /dev/stdin | wc -l)"
# The first event K printed in a later microsecond than the one before it:
# --since its printed time keeps it and every later one, none before.
k=$(headers "$tmp/all" | cut -d' ' -f1 | awk 'NR > 1 && $0 != prev { print NR; exit } { prev = $0 }')
if [ -n "$k" ]; then
	at=$(headers "$tmp/all" | sed -n "${k}p" | cut -d' ' -f1)
	TZ=UTC ks report --since "$at" "$tmp/s.ksr" >"$tmp/since" 2>/dev/null
	expect_eq window_since_wall "$(headers "$tmp/all" | tail -n +"$k")" "$(headers "$tmp/since")"
	TZ=UTC ks report --until "$at" "$tmp/s.ksr" >"$tmp/until" 2>/dev/null
	expect_eq window_until_wall_first "$(headers "$tmp/all" | head -1)" "$(headers "$tmp/until" | head -1)"
	check window_until_wall_before test "$(headers "$tmp/until" | wc -l)" -lt "$total"
else
	fail window_since_wall "every event in one microsecond: $(headers "$tmp/all" | head -3)"
fi

# --- USDT: the requests asked for by value ---
bg "$tmp/ut" "$tmp/eut" --count --by arg0 usdt "$P:ksnoop_test:req(arg0, arg2:str)" && ut=$BGPID
bg "$tmp/o" "$tmp/eur" record -o "$tmp/u.ksr" usdt "$P:ksnoop_test:req(arg0, arg2:str)" "$P:ksnoop_test:small" && rec=$BGPID
"$P" fire 4 >/dev/null
end $ut $rec
ks report "$tmp/u.ksr" 'ksnoop_test:req(arg0 == 1)' >"$tmp/uq" 2>/dev/null
expect_eq usdt_query_one 1 "$(headers "$tmp/uq" | wc -l)"
expect_eq usdt_query_value '    arg0 = 1' "$(grep '^    arg0 = ' "$tmp/uq")"
expect_eq usdt_query_string '    arg2:str = "/req/2"' \
	"$(ks report "$tmp/u.ksr" "$P:ksnoop_test:r*(arg2:str == \"/req/2\")" 2>/dev/null | grep '^    arg2:str')"
check usdt_count_by_identical cmp "$tmp/ut" <(ks report --count --by arg0 "$tmp/u.ksr" 'ksnoop_test:req' 2>/dev/null)

# --- tracepoints: our exec among the machine's, by a char array's value ---
bg "$tmp/o" "$tmp/etr" record -o "$tmp/t.ksr" 'tp:sched_process_exec(p->comm, p->pid)' && rec=$BGPID
"$tmp/$prog" "$missing" 1 "$existing" 1 >/dev/null 2>&1
"$tmp/$prog" "$missing" 1 "$existing" 1 >/dev/null 2>&1
end $rec
ks report "$tmp/t.ksr" "tp:sched_*(p->comm == \"$prog\")" >"$tmp/tq" 2>/dev/null
expect_eq tp_query_ours 2 "$(headers "$tmp/tq" | wc -l)"
expect_eq tp_query_comm 2 "$(grep -c "^    p->comm = \"$prog\"$" "$tmp/tq")"

# --- members inside a recorded struct's bytes: usdt_prog's obj probe dumps
# a struct req (id 0..3, flags 5, path "/srv/a", size 1 << 40); types'
# node_visit and bits_sum dump a struct node and a struct bits, all zero
# but their name: 2-D arrays, anonymous members, enums, bitfields ---
req='arg0:struct req *'
# Live --hist and --by on the members, beside the recording of the struct.
bg "$tmp/mh" "$tmp/emh" --hist usdt "$P:ksnoop_test:obj($req->id)" && mh=$BGPID
bg "$tmp/mb" "$tmp/emb" --count --by "$req->id" usdt "$P:ksnoop_test:obj($req->id)" && mb=$BGPID
bg "$tmp/ms" "$tmp/ems" --count --by "$req->path" usdt "$P:ksnoop_test:obj($req->path)" && ms=$BGPID
bg "$tmp/o" "$tmp/emr" record -o "$tmp/m.ksr" usdt "$P:ksnoop_test:obj(arg0:struct req *, arg1)" && rec=$BGPID
"$P" fire 4 >/dev/null
end $mh $mb $ms $rec
obj_kept() { ks report "$tmp/m.ksr" "ksnoop_test:obj($1)" 2>/dev/null | headers /dev/stdin | wc -l; }
expect_eq member_int_ge 2 "$(obj_kept "$req->id >= 2")"
expect_eq member_int_eq 1 "$(obj_kept "$req->id == 3")"
expect_eq member_string 4 "$(obj_kept "$req->path == \"/srv/a\"")"
expect_eq member_string_other 0 "$(obj_kept "$req->path == \"/srv\"")"
expect_eq member_index 4 "$(obj_kept "$req->path[1] == 's'")"
expect_eq member_mask 4 "$(obj_kept "$req->flags & 4")"
expect_eq member_wide 4 "$(obj_kept "$req->size == 0x10000000000")"
expect_eq member_and_value 1 "$(obj_kept "$req->id < 2, arg1 == 1")"
# --hist and --by on a member: ids 0..3, one each; flags 5 and path "/srv/a" in all four.
ks report --hist "$tmp/m.ksr" "ksnoop_test:obj($req->id)" >"$tmp/rmh" 2>"$tmp/ermh"
expect_eq member_hist_buckets "$(printf '[0] 1\n[1] 1\n[2, 4) 2')" \
	"$(grep '^\[' "$tmp/rmh" | sed 's/ *|.*//; s/  */ /g')"
expect_eq member_hist_summary 'ksnoop: 4 calls counted' "$(cat "$tmp/ermh")"
check member_hist_identical cmp "$tmp/mh" "$tmp/rmh"
expect_eq member_hist_linear "$(printf '0 1\n1 1\n2 1\n3 1')" \
	"$(ks report -j --hist=linear:0:4:1 "$tmp/m.ksr" "ksnoop_test:obj($req->id)" 2>/dev/null |
	   jq -r 'select(.type == "hist") | .buckets[] | "\(.min) \(.count)"')"
ks report --count --by "$req->id" "$tmp/m.ksr" >"$tmp/rmb" 2>/dev/null
expect_eq member_by_int "$(printf '1 0\n1 1\n1 2\n1 3')" \
	"$(awk '$NF == "ksnoop_test:obj" { print $1, $2 }' "$tmp/rmb" | sort -k2n)"
check member_by_int_identical cmp "$tmp/mb" "$tmp/rmb"
ks report --count --by "$req->path" "$tmp/m.ksr" >"$tmp/rms" 2>/dev/null
expect_match member_by_string '^ +4  /srv/a +ksnoop_test:obj$' "$(cat "$tmp/rms")"
check member_by_string_identical cmp "$tmp/ms" "$tmp/rms"
expect_match member_by_flags_comm '^ +4  5 +usdt_prog +ksnoop_test:obj$' \
	"$(ks report --count --by "$req->flags,comm" "$tmp/m.ksr" 2>/dev/null)"
T=$UP/types-gcc-O0-dwarf5
bg "$tmp/o" "$tmp/ety" record -o "$tmp/y.ksr" "u:$T:node_visit(n, depth)" "u:$T:bits_sum(b, c)" && rec=$BGPID
"$T"; "$T" a; "$T" a b
end $rec
y_kept() { ks report "$tmp/y.ksr" "$1" 2>/dev/null | headers /dev/stdin | wc -l; }
expect_eq member_enum 3 "$(y_kept 'node_visit(n->color == RED)')"
expect_eq member_enum_other 0 "$(y_kept 'node_visit(n->color == BLUE)')"
expect_eq member_matrix 3 "$(y_kept 'node_visit(n->matrix[1][2] == 0)')"
expect_eq member_anonymous 2 "$(y_kept 'node_visit(n->lo == 0, depth >= 2)')"
expect_eq member_bitfield_signed 3 "$(y_kept 'bits_sum(b->c == 0)')"
expect_eq member_bitfield_wide 3 "$(y_kept 'bits_sum(b->wide <= 0)')"
expect_eq member_bitfield_flag 0 "$(y_kept 'bits_sum(b->flag != 0)')"
# --by on an enum member names its enumerator, as --by on a recorded enum does.
expect_match member_by_enum '^ +3  RED +node_visit$' \
	"$(ks report --count --by 'n->color' "$tmp/y.ksr" node_visit 2>/dev/null)"

# --- refusals: one line each, exit 2 ---
golden=$(cd "$(dirname "$0")/../golden/48-record-query" && pwd)
KS_GOLDEN_VARS=tmp ks_errors "$golden/errors" <<'ROWS'
not_recorded          report "$tmp/s.ksr" 'sys:openat(flags == 0)'
no_such_target        report "$tmp/s.ksr" 'sys:close(return < 0)'
two_sides             report "$tmp/s.ksr" 'sys:openat(filename == "x", return < 0)'
string_order          report "$tmp/s.ksr" 'sys:openat(filename < "x")'
not_a_number          report "$tmp/s.ksr" 'sys:openat(return == "x")'
bad_spec              report "$tmp/s.ksr" 'sys:openat(return ==)'
by_not_recorded       report --count --by flags "$tmp/s.ksr"
hist_two_values       report --hist "$tmp/s.ksr" 'sys:openat(filename, return)'
hist_not_recorded     report --hist "$tmp/s.ksr" 'sys:openat(flags)'
hist_not_a_number     report --hist "$tmp/s.ksr" 'sys:openat(filename)'
bad_since             report --since yesterday "$tmp/s.ksr"
since_year_9999       report --since 9999-01-01T00:00:00Z "$tmp/s.ksr"
until_before_since    report --since 2s --until 1s "$tmp/s.ksr"
info_with_spec        report --info "$tmp/s.ksr" sys:openat
since_without_report  --since 1s tp:sched_process_exec
member_through_pointer report "$tmp/y.ksr" 'node_visit(n->next->hits == 0)'
member_missing        report "$tmp/y.ksr" 'node_visit(n->nope == 0)'
member_index_beyond   report "$tmp/y.ksr" 'node_visit(n->matrix[2][0] == 0)'
member_dot_on_pointer report "$tmp/y.ksr" 'node_visit(n.id == 0)'
member_not_comparable report "$tmp/y.ksr" 'node_visit(n->matrix == 0)'
member_of_a_number    report "$tmp/y.ksr" 'node_visit(depth.x == 0)'
hist_member_through_pointer report --hist "$tmp/y.ksr" 'node_visit(n->next->hits)'
hist_member_missing   report --hist "$tmp/y.ksr" 'node_visit(n->nope)'
hist_member_not_number report --hist "$tmp/y.ksr" 'node_visit(n->matrix)'
by_member_through_pointer report --count --by 'n->next->hits' "$tmp/y.ksr" node_visit
by_member_missing     report --count --by 'n->nope' "$tmp/y.ksr" node_visit
by_member_not_a_key   report --count --by 'n->matrix' "$tmp/y.ksr" node_visit
ROWS
