#!/bin/bash
# A USDT probe's variables (@NAME, @tls:NAME), live on this machine:
# tests/uprog/usdtvars.c, PIE executables by gcc -O2 and clang -O0 with
# a probe at two call sites, and the shared library they load with a
# probe of its own.  Each hit changes a global long, a struct global and
# a __thread long (three threads, each its own); every value read at the
# probe is checked against what the program printed before it, through
# the executable's load bias at either site and the library's at its
# own; a predicate on a variable filters in BPF; a recording prints the
# same values; what cannot be read is refused in one line.
. "$(dirname "$0")/helpers.bash"
UP=${KSNOOP_UPROG_DIR:-$(cd "$(dirname "$0")/../.." && pwd)/build/uprog}
scratch_dir
mkdir -p "$tmp/u"
for f in usdtvars-gcc-O2 usdtvars-clang-O0 libusdtvars.so; do
	if [ ! -e "$UP/$f" ]; then
		fail usdtvars_programs "missing $UP/$f (make build/uprog/$f)"
		exit 0
	fi
	cp "$UP/$f" "$tmp/u/"
done
chmod 755 "$tmp" "$tmp/u"
U=$tmp/u
objcopy --strip-debug "$U/usdtvars-gcc-O2" "$U/usdtvars-nodebug"

# --- refused in one line, exit 2 (golden/42-usdt-vars/errors) ---
golden=$(cd "$(dirname "$0")/../golden/42-usdt-vars" && pwd)
(cd "$U" && ks_errors "$golden/errors") <<'ROWS'
no_such_variable     usdt './usdtvars-gcc-O2:uvapp:hit(@uv_nope)'
tls_without_tls      usdt './usdtvars-gcc-O2:uvapp:hit(@uv_tls)'
global_as_tls        usdt './usdtvars-gcc-O2:uvapp:hit(@tls:uv_counter)'
library_tls          usdt './libusdtvars.so:uvlib:hit(arg0, @tls:uvl_tls)'
no_name              usdt './usdtvars-gcc-O2:uvapp:hit(@)'
no_tls_name          usdt './usdtvars-gcc-O2:uvapp:hit(@tls:)'
no_such_member       usdt './usdtvars-gcc-O2:uvapp:hit(@uv_state.nope)'
not_a_cast           usdt './usdtvars-gcc-O2:uvapp:hit(@uv_counter:u32)'
tracepoint           'tp:sched_process_exec(@uv_counter)'
ROWS
# Without DWARF: refused, where it looked named (a build-id path: not golden).
out=$(cd "$U" && ks usdt './usdtvars-nodebug:uvapp:hit(@uv_counter)' 2>&1; echo "rc=$?")
expect_match no_debug_info "^ksnoop: spec './usdtvars-nodebug:uvapp:hit\\(@uv_counter\\)': column 30: '@uv_counter': './usdtvars-nodebug' has no debug info, which its variables are typed from \\(" "$out"
expect_match no_debug_info_rc '^rc=2$' "$out"
expect_eq no_debug_info_one_line 2 "$(printf '%s\n' "$out" | wc -l)"

needs_root usdtvars_tracing

# What the program printed before each hit: "ARG COUNTER ID TAG TLS LIB".
printed() {
	sed -n 's/^hit \([0-9]*\) counter=\([0-9]*\) state.id=\([0-9]*\) state.tag=\([^ ]*\) tls=\([0-9]*\) lib.counter=\([0-9]*\)$/\1 \2 \3 \4 \5 \6/p' "$1" | sort
}
traced() {
	events "$1" | jq -r '[.values[] | tostring] | join(" ")' | sort
}

for b in gcc-O2 clang-O0; do
	B=$U/usdtvars-$b
	T=${b//-/_}
	ks_case <<'CASE'
NAME     ${T}_usdt_vars
RUN      -j usdt "$B:uvapp:hit(arg0, @uv_counter, @uv_state.id, @uv_state.tag, @tls:uv_tls)"
WORKLOAD "$B" 3 > "$tmp/$T.printed"
EXPECT   ${T}_usdt_vars_as_printed: eq "$(printed "$tmp/$T.printed" | cut -d' ' -f1-5)" "$(traced "$OUT")"
EXPECT   ${T}_usdt_vars_all_hits: eq 9 "$(traced "$OUT" | wc -l)"
EXPECT   ${T}_usdt_vars_both_sites: eq '0,1,2' "$(events "$OUT" | jq -r '.values.arg0' | sort -u | paste -sd,)"
EXPECT   ${T}_usdt_vars_threads_apart: eq '1001,2002,7' "$(events "$OUT" | jq -r '.values["@tls:uv_tls"]' | sort -u | paste -sd,)"
EXPECT   ${T}_usdt_vars_own_attach: stderr 'call site\(s\) attached by ksnoop \(its variables'"'"' load bias is the site'"'"'s\)'
# @tls reads the saved thread pointer: the kernel's fields looked up for it (klayout.c)
EXPECT   ${T}_usdt_vars_kernel_fields: stderr '^ksnoop: kernel fields: 1[01] of 12 found in vmlinux BTF'
# ... from one parse of vmlinux BTF, made for the run (ksnoop's own reads none for USDT)
EXPECT   ${T}_usdt_vars_one_parse: stderr "^ksnoop: vmlinux BTF: ksnoop's lent to libbpf 0 time\\(s\\), parsed for libbpf 1 time\\(s\\)$"
CASE
done

# The library's probe: its global through the library's load bias.
B=$U/usdtvars-gcc-O2
ks_case <<'CASE'
NAME     lib_usdt_vars
RUN      -j usdt "$U/libusdtvars.so:uvlib:hit(arg0, @uvl_counter)"
WORKLOAD "$B" 2 > "$tmp/lib.printed"
EXPECT   lib_usdt_vars_as_printed: eq "$(printed "$tmp/lib.printed" | awk '{ print $1, $6 }' | sort)" "$(traced "$OUT")"
EXPECT   lib_usdt_vars_all_hits: eq 6 "$(traced "$OUT" | wc -l)"
CASE

# A predicate on a variable, in BPF: only the hits past a count.
ks_case <<'CASE'
NAME     usdt_var_pred
RUN      -j usdt "$B:uvapp:hit(arg0, @uv_counter > 46, @tls:uv_tls == 2002)"
WORKLOAD "$B" 3 >/dev/null
EXPECT   usdt_var_pred_filtered: eq '2,2' "$(events "$OUT" | jq -r '.values.arg0' | paste -sd,)"
CASE

# --- record, then report: the same values, the struct from the record's BTF ---
ks_case <<'CASE'
NAME     usdt_vars_record
RUN      record -o "$tmp/v.rec" usdt "$B:uvapp:hit(arg0, @uv_counter, @uv_state, @tls:uv_tls)"
WORKLOAD "$B" 2 > "$tmp/rec.printed"
EXPECT   usdt_vars_record_exit: exit 0
CASE
ks report -j "$tmp/v.rec" > "$tmp/v.json" 2>&1
expect_eq usdt_vars_report_as_printed "$(printed "$tmp/rec.printed" | cut -d' ' -f1-5)" \
	"$(events "$tmp/v.json" | jq -r '[.values.arg0, .values["@uv_counter"], .values["@uv_state"].id, .values["@uv_state"].tag, .values["@tls:uv_tls"]] | map(tostring) | join(" ")' | sort)"
out=$(ks report "$tmp/v.rec" 2>&1)
expect_match usdt_vars_report_struct '^    @uv_state = \{$' "$out"
expect_match usdt_vars_report_member '^        \.tag = "tag-[0-9]+",$' "$out"
