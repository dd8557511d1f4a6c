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
expect_eq info_every_probe 15 "$(printf '%s\n' "$out" | grep -c '^ksnoop_forms ')"
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

# --- refused, each with the one line of the golden file (run beside the
#     programs, so that a column does not depend on where $tmp is): a
#     probe with such an argument, named, is exit 1 (libbpf refuses to
#     attach to it, as to PostgreSQL's "NBuffers(%rip)"); a 5-argument site
#     names arg4, no site arg7: the widest site's arguments; a "%rip"
#     symbol defined twice (two statics): which is meant is not known;
#     a program whose probes are all in its library ---
golden=$(cd "$(dirname "$0")/../golden/42-usdt-forms" && pwd)
(cd "$tmp" && ks_errors "$golden/errors") <<'ROWS'
struct_probe_named       usdt './usdt_forms:ksnoop_forms:bystruct(arg1)'
float_probe_named        usdt './usdt_forms:ksnoop_forms:real(arg0)'
arg_at_no_site           usdt './usdt_forms:ksnoop_forms:mixed(arg7)'
glob_none_fits           usdt './usdt_forms:*:n*(arg1)'
duplicate_symbol_refused usdt ./usdt_forms:ksnoop_forms:dupsym
info_no_probes           info usdt ./usdt_libonly
ROWS

# --- info usdt -p: a program whose probes are all in its library ---
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
ks_case <<'CASE'
NAME     attach_plain
RUN      usdt "$F:ksnoop_forms:plain(arg0, arg1)"
WORKLOAD "$F" fire 3
EXPECT   plain_status: exit 0
EXPECT   plain_exact_count: count 3 '-> ksnoop_forms:plain$'
EXPECT   plain_args: eq "0 2 4" "$(grep '^    arg1 = ' "$OUT" | sed 's/.* = //' | joined)"
CASE

# --- call sites passing 3, 1 and 5 arguments: each call once, its own ---
ks_case <<'CASE'
NAME     attach_mixed
RUN      -j usdt "$F:ksnoop_forms:mixed"
WORKLOAD "$F" fire 2
EXPECT   mixed_status: exit 0
EXPECT   mixed_each_call_once: count 6 '"func":"ksnoop_forms:mixed"'
EXPECT   mixed_own_arguments: eq "0,1,2 10 100,101,102,103,104 1,2,3 11 101,102,103,104,105" \
           "$(events "$OUT" | jq -r '[.values[]] | map(tostring) | join(",")' 2>&1 | joined)"
CASE

# --- arg3 exists at one site: traced there, the others left out, said ---
ks_case <<'CASE'
NAME     attach_mixed_arg3
RUN      usdt "$F:ksnoop_forms:mixed(arg3)"
WORKLOAD "$F" fire 2
EXPECT   mixed_arg3_status: exit 0
EXPECT   mixed_arg3_values: eq "103 104" "$(grep '^    arg3 = ' "$OUT" | sed 's/.* = //' | joined)"
EXPECT   mixed_arg3_events: count 2 '-> ksnoop_forms:mixed$'
EXPECT   mixed_arg3_warns: stderr \
           "^ksnoop: warning: spec '.*:ksnoop_forms:mixed\(arg3\)': 2 of the 3 call sites of ksnoop_forms:mixed left out: 'arg3' is not an argument of ksnoop_forms:mixed \(arguments: arg0(, arg1, arg2)?\) \(-v lists them\)$"
EXPECT   mixed_arg3_verbose_site: stderr \
           "ksnoop_forms:mixed left out at 1 of its 3 call sites \(1 argument\(s\) there\): 'arg3' is not an argument"
CASE

# --- a glob naming arg1: the probes and sites without one left out ---
# (-vv: the case's -v and one more, so that every probe left out is listed)
ks_case <<'CASE'
NAME     attach_glob_arg1
RUN      -v -j usdt "$F:*:*(arg1)"
WORKLOAD "$F" fire 1
EXPECT   glob_arg1_status: exit 0
EXPECT   glob_arg1_events: eq "ksnoop_forms:indexed=100 ksnoop_forms:mixed=1 ksnoop_forms:mixed=101 ksnoop_forms:plain=0 ksnoop_forms:ripsym=2000 ksnoop_forms:scaled2=0" \
           "$(events "$OUT" | jq -r '"\(.func)=\(.values.arg1)"' 2>&1 | sort | joined)"
EXPECT   glob_arg1_counted: stderr '\*:\*\(arg1\): 15 probe\(s\) match, 8 traced, 7 left out$'
EXPECT   glob_arg1_none_why: stderr "ksnoop_forms:none left out: 'arg1' is not an argument of ksnoop_forms:none \(no arguments\)"
EXPECT   glob_arg1_struct_why: stderr "ksnoop_forms:bystruct left out: arg1 is at '[^']+', a 16-byte value"
EXPECT   glob_arg1_nothing_left: eq "" "$(left_progs "$PROGS")"
CASE
# -v alone: the 7 left out counted by reason (6 listed, then "1 more"), none by name.
ks_case <<'CASE'
NAME     attach_glob_arg1_v
RUN      --duration 1 usdt "$F:*:*(arg1)"
UNTIL    exit
EXPECT   glob_arg1_reason_counted: stderr \
           "\*:\*\(arg1\): [1-3] left out: 'arg1' is not an argument of ksnoop_forms:[a-z_]+ \(no arguments\) \(first: ksnoop_forms:[a-z_]+\)$"
EXPECT   glob_arg1_reasons_add_up: eq 7 \
           "$(sed -n 's/.*(arg1): \([0-9]*\) \(more \)\{0,1\}left out[: ].*/\1/p' "$ERR" | awk '{ s += $1 } END { print s }')"
EXPECT   glob_arg1_none_listed_at_v: eq 0 "$(grep -Ec 'ksnoop_forms:[a-z_]+ left out' "$ERR")"
CASE

# --- locations libbpf 1.5 refuses, attached by ksnoop and read right ---
# A global from the instruction pointer (PostgreSQL's "NBuffers(%rip)",
# with an offset before or after the symbol) and a scaled index
# ("-4@-8(%rax,%rdi,4)"); a constant and registers at the same sites.
ks_case <<'CASE'
NAME     attach_own
RUN      -j usdt "$F:ksnoop_forms:ripsym" "$F:ksnoop_forms:indexed"
WORKLOAD "$F" fire 5
EXPECT   own_status: exit 0
EXPECT   own_said: stderr 'ksnoop_forms:ripsym: 1 call site\(s\) attached by ksnoop'
EXPECT   own_rip_values: eq "1000,2000,3000,0,-7 1001,2001,3001,1,-7 1002,2002,3002,2,-7 1003,2003,3003,3,-7 1004,2004,3004,4,-7" \
           "$(events "$OUT" | jq -r 'select(.func == "ksnoop_forms:ripsym") | [.values[]] | map(tostring) | join(",")' 2>&1 | joined)"
EXPECT   own_index_values: eq "102,100,0,-1 103,101,1,-2 104,102,2,-3 105,103,3,-4 102,100,0,-1" \
           "$(events "$OUT" | jq -r 'select(.func == "ksnoop_forms:indexed") | [.values[]] | map(tostring) | join(",")' 2>&1 | joined)"
EXPECT   own_nothing_left: eq "" "$(left_progs "$PROGS")"
CASE

# --- notes as prelink leaves them: site and base 0x1000 below where the
#     file has them (.stapsdt.base's address); libbpf's sites and ksnoop's
#     own are moved by the difference alike, and so is the load bias of
#     a variable (@NAME). ---
site=$(readelf -n "$F" 2>/dev/null | awk '/Name: prelinked$/ { getline; sub(/,$/, "", $2); print $2; exit }')
expect_match info_prelinked_note_below '^0x[0-9a-f]+$' "$site"
out=$(ks -j info usdt "$F" 2>&1)
expect_eq info_prelinked_site_moved "$(printf '0x%x' $((site + 0x1000)))" \
	"$(printf '%s\n' "$out" | jq -r 'select(.name == "prelinked") | .address' 2>&1)"
ks_case <<'CASE'
NAME     attach_prelinked
RUN      -j usdt "$F:ksnoop_forms:prelinked" "$F:ksnoop_forms:prelinked_rip"
WORKLOAD "$F" prelinked 3
EXPECT   prelinked_status: exit 0
EXPECT   prelinked_own_said: stderr 'ksnoop_forms:prelinked_rip: 1 call site\(s\) attached by ksnoop'
EXPECT   prelinked_libbpf_values: eq "0,-9 1,-9 2,-9" \
           "$(events "$OUT" | jq -r 'select(.func == "ksnoop_forms:prelinked") | [.values[]] | map(tostring) | join(",")' 2>&1 | joined)"
EXPECT   prelinked_own_values: eq "5000,0 5001,1 5002,2" \
           "$(events "$OUT" | jq -r 'select(.func == "ksnoop_forms:prelinked_rip") | [.values[]] | map(tostring) | join(",")' 2>&1 | joined)"
EXPECT   prelinked_nothing_left: eq "" "$(left_progs "$PROGS")"
CASE
ks_case <<'CASE'
NAME     attach_prelinked_var
RUN      -j usdt "$F:ksnoop_forms:prelinked(arg0, @ksnoop_counter)"
WORKLOAD "$F" prelinked 2
EXPECT   prelinked_var_values: eq "0,5000 1,5001" \
           "$(events "$OUT" | jq -r '[.values[]] | map(tostring) | join(",")' 2>&1 | joined)"
CASE

# A predicate on such an argument.
ks_case <<'CASE'
NAME     attach_own_pred
RUN      -j usdt "$F:ksnoop_forms:ripsym(arg0, arg0 == 1003)"
WORKLOAD "$F" fire 6
EXPECT   own_pred_values: eq "1003" "$(events "$OUT" | jq -r '.values.arg0' 2>&1 | joined)"
CASE

# --- registers r10 and r11 and a scale of 2, at a site ksnoop attaches ---
ks_case <<'CASE'
NAME     attach_scaled2
RUN      -j usdt "$F:ksnoop_forms:scaled2"
WORKLOAD "$F" fire 5
EXPECT   scaled2_status: exit 0
EXPECT   scaled2_values: eq "-300,0,401 401,1,-502 -502,2,603 603,3,-704 -300,0,401" \
           "$(events "$OUT" | jq -r '[.values[]] | map(tostring) | join(",")' 2>&1 | joined)"
CASE

# --- an argument in memory the traced program never touched, or where
#     nothing is mapped (issue 40): read, or said unreadable, never 0.
#     The traced side runs as nobody. ---
# cold_values FUNC FIELD: FIELD of FUNC's events, on one line.
cold_values() { events "$OUT" | jq -r --arg f "ksnoop_forms:$1" "select(.func == \$f) | .values.arg0$2" 2>&1 | joined; }
ks_case <<'CASE'
NAME     attach_cold_8
RUN      -j usdt "$F:ksnoop_forms:cold" "$F:ksnoop_forms:unmapped"
WORKLOAD "${NOBODY[@]}" "$F" cold >"$tmp/c8" 2>&1
EXPECT   cold_status: exit 0
EXPECT   cold_page_was_cold: text '^cold page present before 0 ' "$(cat "$tmp/c8")"
EXPECT   cold_value: eq 55 "$(cold_values cold '')"
EXPECT   unmapped_unreadable: eq "could not read memory" "$(cold_values unmapped .error)"
EXPECT   unmapped_address_said: text '^0x[0-9a-f]{6,}$' "$(cold_values unmapped .addr)"
CASE
# Where the program may not fault the page in: unreadable, not 0.
ks_case <<'CASE'
NAME     attach_cold_9
BEFORE   export KSNOOP_FEATURES=-uprobe_sleepable
RUN      -j usdt "$F:ksnoop_forms:cold" "$F:ksnoop_forms:unmapped"
WORKLOAD unset KSNOOP_FEATURES
WORKLOAD "${NOBODY[@]}" "$F" cold >"$tmp/c9" 2>&1
EXPECT   cold_nosleep_status: exit 0
EXPECT   cold_nosleep_page_was_cold: text '^cold page present before 0 ' "$(cat "$tmp/c9")"
EXPECT   cold_nosleep_unreadable: eq "could not read memory could not read memory" \
           "$(events "$OUT" | jq -r '.values.arg0.error' 2>&1 | joined)"
CASE
# Text, a predicate and a histogram on the unreadable value.
ks_case <<'CASE'
NAME     attach_unmapped_text
RUN      usdt "$F:ksnoop_forms:unmapped"
WORKLOAD "${NOBODY[@]}" "$F" cold >/dev/null 2>&1
EXPECT   unmapped_text: match '^    arg0 = 0x[0-9a-f]+ /\* could not read memory \*/$'
CASE
ks_case <<'CASE'
NAME     attach_unmapped_pred
RUN      -j usdt "$F:ksnoop_forms:unmapped(arg0 == 0)" "$F:ksnoop_forms:cold(arg0 == 55)"
WORKLOAD "${NOBODY[@]}" "$F" cold >/dev/null 2>&1
EXPECT   unmapped_pred_not_zero: eq "ksnoop_forms:cold" "$(events "$OUT" | jq -r '.func' 2>&1 | joined)"
CASE
ks_case <<'CASE'
NAME     attach_unmapped_hist
RUN      -j --hist usdt "$F:ksnoop_forms:unmapped(arg0)"
WORKLOAD "${NOBODY[@]}" "$F" cold >/dev/null 2>&1
EXPECT   unmapped_hist_counted: eq 1 "$(record summary "$OUT" | jq -r '.unreadable' 2>&1)"
EXPECT   unmapped_nothing_left: eq "" "$(left_progs "$PROGS")"
CASE
