#!/bin/bash
# USDT notes as compilers write them (issue #25): structs passed by value
# and doubles ("16@%rax", "24@8(%rsp)", "8f@%rax") leave their probe out,
# not the file; one probe whose call sites pass 3, 1 and 5 arguments is
# reported once per call, with its own site's arguments; a glob leaves out
# the probes its values do not fit; `-p PID info usdt PROG` lists the
# probes of PROG's libraries.  Runs on copies of tests/usdt/usdt_forms and
# usdt_libonly of the script's own.
. "$(dirname "$0")/helpers.bash"
usdt_paths
scratch_dir
for f in usdt_forms usdt_libonly libksnoop_usdt.so; do
	if [ ! -x "$U/$f" ]; then
		fail usdt_forms_programs "missing $U/$f (make build/usdt/$f)"
		exit 0
	fi
	cp "$U/$f" "$tmp/"
done
chmod 755 "$tmp"
F=$tmp/usdt_forms
LO=$tmp/usdt_libonly

# --- the notes hold what gcc writes for structs and a double ---
notes=$(readelf -n "$F" 2>&1)
expect_match notes_have_struct_args 'Arguments: -4@%edi 16@%r[a-z0-9]+ 24@8\(%rsp\) ' "$notes"
expect_match notes_have_float_arg 'Arguments: -4@%edi 8f@' "$notes"

# --- info: every probe listed, the unreadable arguments said why ---
out=$(ks info usdt "$F" 2>&1); rc=$?
expect_eq info_status 0 "$rc"
expect_eq info_every_probe 13 "$(printf '%s\n' "$out" | grep -c '^ksnoop_forms ')"
expect_match info_struct_args \
	'^ksnoop_forms +bystruct .* arg0:s32@%edi arg1:u128@\S+ arg2:u192@8\(%rsp\) arg3:s32@\S+  # not readable by libbpf: arg1, a 16-byte value \(a struct or __int128 passed by value\); arg2, a 24-byte value \(a struct passed by value\)$' \
	"$out"
expect_match info_float_arg \
	'^ksnoop_forms +real .* arg1:f64@\S+  # not readable by libbpf: arg1, a floating-point value$' "$out"
expect_match info_readable_plain '^ksnoop_forms +plain .* arg0:s32@\S+ arg1:s32@\S+$' "$out"
# Locations libbpf 1.5 refuses and ksnoop reads: not marked.
expect_match info_rip_symbol \
	'^ksnoop_forms +ripsym .* arg0:s32@ksnoop_counter\(%rip\) arg1:s32@40\+ksnoop_stats\(%rip\) arg2:s32@ksnoop_stats\+44\(%rip\) arg3:u64@%[a-z0-9]+ arg4:s32@\$-7$' \
	"$out"
expect_match info_scaled_index \
	'^ksnoop_forms +indexed .* arg0:s32@\(%[a-z0-9]+,%[a-z0-9]+,4\) arg1:s32@-8\(%[a-z0-9]+,%[a-z0-9]+,4\) arg2:u64@%[a-z0-9]+ arg3:s64@8\(%[a-z0-9]+,%[a-z0-9]+,8\)$' \
	"$out"
out=$(ks -j info usdt "$F" 2>&1)
expect_eq info_json_struct "16 a 16-byte value (a struct or __int128 passed by value)" \
	"$(printf '%s\n' "$out" | jq -r 'select(.name == "bystruct") | .args[1] | "\(.size) \(.unreadable)"' 2>&1)"
expect_eq info_json_float "true a floating-point value" \
	"$(printf '%s\n' "$out" | jq -r 'select(.name == "real") | .args[1] | "\(.float) \(.unreadable)"' 2>&1)"
expect_eq info_json_readable "null" \
	"$(printf '%s\n' "$out" | jq -r 'select(.name == "plain") | .args[1].unreadable' 2>&1)"

# --- a probe with such an argument, named: one line, exit 1 (libbpf
#     refuses to attach to it, as to PostgreSQL's "NBuffers(%rip)") ---
expect_error struct_probe_named 1 \
	"USDT probe ksnoop_forms:bystruct: arg1 is at '[^']+', a 16-byte value \(a struct or __int128 passed by value\), which libbpf cannot read" \
	usdt "$F:ksnoop_forms:bystruct(arg1)"
expect_error float_probe_named 1 \
	"USDT probe ksnoop_forms:real: arg1 is at '[^']+', a floating-point value, which libbpf cannot read" \
	usdt "$F:ksnoop_forms:real(arg0)"
# A 5-argument site names arg4, no site arg7: the widest site's arguments.
expect_error arg_at_no_site 2 \
	"'arg7' is not an argument of ksnoop_forms:mixed \(arguments: arg0, arg1, arg2, arg3, arg4\)" \
	usdt "$F:ksnoop_forms:mixed(arg7)"
expect_error glob_none_fits 2 \
	"none of the 1 USDT probe\(s\) it matches is traceable with these values \(ksnoop_forms:none: 'arg1' is not an argument of ksnoop_forms:none \(no arguments\)\)" \
	usdt "$F:*:n*(arg1)"

# --- info usdt -p: a program whose probes are all in its library ---
out=$(ks info usdt "$LO" 2>&1); rc=$?
expect_eq info_no_probes_status 2 "$rc"
expect_match info_no_probes_says "'$LO' has no USDT probes" "$out"
"$LO" 3 & lo=$!
for _ in $(seq 50); do grep -q libksnoop_usdt "/proc/$lo/maps" 2>/dev/null && break; sleep 0.1; done
out=$(ks -p "$lo" info usdt "$LO" 2>"$tmp/ie"); rc=$?
expect_eq info_pid_library_status 0 "$rc"
expect_match info_pid_library_listed '^ksnoop_lib +hit ' "$out"
expect_eq info_pid_library_no_error "" "$(cat "$tmp/ie")"
# The library named too: listed once, not again from the maps.
out=$(ks -p "$lo" info usdt "$tmp/libksnoop_usdt.so" 2>&1); rc=$?
expect_eq info_pid_named_library_status 0 "$rc"
expect_eq info_pid_named_library_once 1 "$(printf '%s\n' "$out" | grep -cE "^ksnoop_lib +hit ")"
kill "$lo" 2>/dev/null; wait "$lo" 2>/dev/null

needs_root usdt_forms_tracing

# --- the other probes of a file with struct arguments stay traceable ---
start "$tmp/o1" "$tmp/e1" usdt "$F:ksnoop_forms:plain(arg0, arg1)" || fail attach_plain "$(cat "$tmp/e1")"
"$F" fire 3
stop
expect_eq plain_status 0 "$RC"
expect_eq plain_exact_count 3 "$(grep -c -- '-> ksnoop_forms:plain$' "$tmp/o1")"
expect_eq plain_args "0 2 4" "$(grep '^    arg1 = ' "$tmp/o1" | sed 's/.* = //' | joined)"

# --- call sites passing 3, 1 and 5 arguments: each call once, its own ---
start "$tmp/o2" "$tmp/e2" -j usdt "$F:ksnoop_forms:mixed" || fail attach_mixed "$(cat "$tmp/e2")"
"$F" fire 2
stop
expect_eq mixed_status 0 "$RC"
expect_eq mixed_each_call_once 6 "$(grep -c '"func":"ksnoop_forms:mixed"' "$tmp/o2")"
expect_eq mixed_own_arguments \
	"0,1,2 10 100,101,102,103,104 1,2,3 11 101,102,103,104,105" \
	"$(events "$tmp/o2" | jq -r '[.values[]] | map(tostring) | join(",")' 2>&1 | joined)"

# --- arg3 exists at one site: traced there, the others left out, said ---
start "$tmp/o3" "$tmp/e3" usdt "$F:ksnoop_forms:mixed(arg3)" || fail attach_mixed_arg3 "$(cat "$tmp/e3")"
"$F" fire 2
stop
expect_eq mixed_arg3_status 0 "$RC"
expect_eq mixed_arg3_values "103 104" "$(grep '^    arg3 = ' "$tmp/o3" | sed 's/.* = //' | joined)"
expect_eq mixed_arg3_events 2 "$(grep -c -- '-> ksnoop_forms:mixed$' "$tmp/o3")"
expect_match mixed_arg3_warns \
	"^ksnoop: warning: spec '.*:ksnoop_forms:mixed\(arg3\)': 2 of the 3 call sites of ksnoop_forms:mixed left out: 'arg3' is not an argument of ksnoop_forms:mixed \(arguments: arg0(, arg1, arg2)?\) \(-v lists them\)$" \
	"$(cat "$tmp/e3")"
expect_match mixed_arg3_verbose_site \
	"ksnoop_forms:mixed left out at 1 of its 3 call sites \(1 argument\(s\) there\): 'arg3' is not an argument" \
	"$(cat "$tmp/e3")"

# --- a glob naming arg1: the probes and sites without one left out ---
# (-vv: start's -v and one more, so that every probe left out is listed)
start "$tmp/o4" "$tmp/e4" -v -j usdt "$F:*:*(arg1)" || fail attach_glob_arg1 "$(cat "$tmp/e4")"
"$F" fire 1
stop
expect_eq glob_arg1_status 0 "$RC"
expect_eq glob_arg1_events "ksnoop_forms:indexed=100 ksnoop_forms:mixed=1 ksnoop_forms:mixed=101 ksnoop_forms:plain=0 ksnoop_forms:ripsym=2000 ksnoop_forms:scaled2=0" \
	"$(events "$tmp/o4" | jq -r '"\(.func)=\(.values.arg1)"' 2>&1 | sort | joined)"
expect_match glob_arg1_counted '\*:\*\(arg1\): 13 probe\(s\) match, 6 traced, 7 left out$' "$(cat "$tmp/e4")"
expect_match glob_arg1_none_why \
	"ksnoop_forms:none left out: 'arg1' is not an argument of ksnoop_forms:none \(no arguments\)" "$(cat "$tmp/e4")"
expect_match glob_arg1_struct_why \
	"ksnoop_forms:bystruct left out: arg1 is at '[^']+', a 16-byte value" "$(cat "$tmp/e4")"
expect_eq glob_arg1_nothing_left "" "$(left_progs "$PROGS")"
# -v alone: the 7 left out counted by reason (6 listed, then "1 more"), none by name.
out=$(ks -v --duration 1 usdt "$F:*:*(arg1)" 2>&1 >/dev/null)
expect_match glob_arg1_reason_counted \
	"\*:\*\(arg1\): [1-3] left out: 'arg1' is not an argument of ksnoop_forms:[a-z_]+ \(no arguments\) \(first: ksnoop_forms:[a-z_]+\)$" "$out"
expect_eq glob_arg1_reasons_add_up 7 \
	"$(echo "$out" | sed -n 's/.*(arg1): \([0-9]*\) \(more \)\{0,1\}left out[: ].*/\1/p' | awk "{ s += \$1 } END { print s }")"
expect_no_match glob_arg1_none_listed_at_v 'ksnoop_forms:[a-z_]+ left out' "$out"

# --- locations libbpf 1.5 refuses, attached by ksnoop and read right ---
# A global from the instruction pointer (PostgreSQL's "NBuffers(%rip)",
# with an offset before or after the symbol) and a scaled index
# ("-4@-8(%rax,%rdi,4)"); a constant and registers at the same sites.
start "$tmp/o5" "$tmp/e5" -j usdt "$F:ksnoop_forms:ripsym" "$F:ksnoop_forms:indexed" ||
	fail attach_own "$(cat "$tmp/e5")"
"$F" fire 5
stop
expect_eq own_status 0 "$RC"
expect_match own_said 'ksnoop_forms:ripsym: 1 call site\(s\) attached by ksnoop' "$(cat "$tmp/e5")"
expect_eq own_rip_values \
	"1000,2000,3000,0,-7 1001,2001,3001,1,-7 1002,2002,3002,2,-7 1003,2003,3003,3,-7 1004,2004,3004,4,-7" \
	"$(events "$tmp/o5" | jq -r 'select(.func == "ksnoop_forms:ripsym") | [.values[]] | map(tostring) | join(",")' 2>&1 | joined)"
expect_eq own_index_values \
	"102,100,0,-1 103,101,1,-2 104,102,2,-3 105,103,3,-4 102,100,0,-1" \
	"$(events "$tmp/o5" | jq -r 'select(.func == "ksnoop_forms:indexed") | [.values[]] | map(tostring) | join(",")' 2>&1 | joined)"
expect_eq own_nothing_left "" "$(left_progs "$PROGS")"

# A predicate on such an argument.
start "$tmp/o6" "$tmp/e6" -j usdt "$F:ksnoop_forms:ripsym(arg0, arg0 == 1003)" ||
	fail attach_own_pred "$(cat "$tmp/e6")"
"$F" fire 6
stop
expect_eq own_pred_values "1003" "$(events "$tmp/o6" | jq -r '.values.arg0' 2>&1 | joined)"

# --- registers r10 and r11 and a scale of 2, at a site ksnoop attaches ---
start "$tmp/o7" "$tmp/e7" -j usdt "$F:ksnoop_forms:scaled2" || fail attach_scaled2 "$(cat "$tmp/e7")"
"$F" fire 5
stop
expect_eq scaled2_status 0 "$RC"
expect_eq scaled2_values \
	"-300,0,401 401,1,-502 -502,2,603 603,3,-704 -300,0,401" \
	"$(events "$tmp/o7" | jq -r '[.values[]] | map(tostring) | join(",")' 2>&1 | joined)"

# --- a "%rip" symbol defined twice (two statics): which is meant is not known ---
expect_error duplicate_symbol_refused 2 \
	"'[^']*usdt_forms' has two symbols 'ksnoop_dup' at different addresses" \
	usdt "$F:ksnoop_forms:dupsym"

# --- an argument in memory the traced program never touched, or where
#     nothing is mapped (issue 40): read, or said unreadable, never 0.
#     The traced side runs as nobody. ---
cold_run() {	# cold_run N [KSNOOP_FEATURES]: events in o$N, the program's output in c$N
	KSNOOP_FEATURES=${2:-} start "$tmp/o$1" "$tmp/e$1" -j usdt "$F:ksnoop_forms:cold" \
		"$F:ksnoop_forms:unmapped" || fail "attach_cold_$1" "$(cat "$tmp/e$1")"
	"${NOBODY[@]}" "$F" cold >"$tmp/c$1" 2>&1
	stop
}
cold_run 8
expect_eq cold_status 0 "$RC"
expect_match cold_page_was_cold '^cold page present before 0 ' "$(cat "$tmp/c8")"
expect_eq cold_value 55 \
	"$(events "$tmp/o8" | jq -r 'select(.func == "ksnoop_forms:cold") | .values.arg0' 2>&1 | joined)"
expect_eq unmapped_unreadable "could not read memory" \
	"$(events "$tmp/o8" | jq -r 'select(.func == "ksnoop_forms:unmapped") | .values.arg0.error' 2>&1 | joined)"
expect_match unmapped_address_said '^0x[0-9a-f]{6,}$' \
	"$(events "$tmp/o8" | jq -r 'select(.func == "ksnoop_forms:unmapped") | .values.arg0.addr' 2>&1)"
# Where the program may not fault the page in: unreadable, not 0.
cold_run 9 -uprobe_sleepable
expect_eq cold_nosleep_status 0 "$RC"
expect_match cold_nosleep_page_was_cold '^cold page present before 0 ' "$(cat "$tmp/c9")"
expect_eq cold_nosleep_unreadable "could not read memory could not read memory" \
	"$(events "$tmp/o9" | jq -r '.values.arg0.error' 2>&1 | joined)"
# Text, a predicate and a histogram on the unreadable value.
start "$tmp/o10" "$tmp/e10" usdt "$F:ksnoop_forms:unmapped" || fail attach_unmapped_text "$(cat "$tmp/e10")"
"${NOBODY[@]}" "$F" cold >/dev/null 2>&1
stop
expect_match unmapped_text '^    arg0 = 0x[0-9a-f]+ /\* could not read memory \*/$' "$(cat "$tmp/o10")"
start "$tmp/o11" "$tmp/e11" -j usdt "$F:ksnoop_forms:unmapped(arg0 == 0)" "$F:ksnoop_forms:cold(arg0 == 55)" ||
	fail attach_unmapped_pred "$(cat "$tmp/e11")"
"${NOBODY[@]}" "$F" cold >/dev/null 2>&1
stop
expect_eq unmapped_pred_not_zero "ksnoop_forms:cold" "$(events "$tmp/o11" | jq -r '.func' 2>&1 | joined)"
start "$tmp/o12" "$tmp/e12" -j --hist usdt "$F:ksnoop_forms:unmapped(arg0)" ||
	fail attach_unmapped_hist "$(cat "$tmp/e12")"
"${NOBODY[@]}" "$F" cold >/dev/null 2>&1
stop
expect_eq unmapped_hist_counted 1 "$(record summary "$tmp/o12" | jq -r '.unreadable' 2>&1)"
expect_eq unmapped_nothing_left "" "$(left_progs "$PROGS")"
