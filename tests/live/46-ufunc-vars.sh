#!/bin/bash
# A user function's variables (@NAME, @tls:NAME), live on this machine:
# tests/uprog/vars.c built by gcc and clang at -O0 and -O2, PIE and not,
# read at uv_work's entry: a global long, a struct global's int, string
# and (through a pointer global) array element, a __thread int and a
# __thread struct's members in three threads, each its own.  Every value
# is checked against what the program printed before the call; predicates
# on a variable filter in BPF; what cannot be read is refused in one line.
. "$(dirname "$0")/helpers.bash"
usdt_paths
UP=${KSNOOP_UPROG_DIR:-$(dirname "$U")/uprog}
scratch_dir
mkdir -p "$tmp/u"
BUILDS="gcc-O0-pie gcc-O0-nopie gcc-O2-pie gcc-O2-nopie clang-O0-pie clang-O0-nopie clang-O2-pie clang-O2-nopie"
for b in $BUILDS; do
	if [ ! -x "$UP/vars-$b" ]; then
		fail uvars_programs "missing $UP/vars-$b (make build/uprog/vars-$b)"
		exit 0
	fi
	cp "$UP/vars-$b" "$tmp/u/"
done
chmod 755 "$tmp" "$tmp/u"
U=$tmp/u
V=$U/vars-gcc-O0-pie
objcopy --strip-debug "$V" "$U/vars-nodebug"

# --- refused in one line, exit 2 (golden/46-ufunc-vars/errors) ---
golden=$(cd "$(dirname "$0")/../golden/46-ufunc-vars" && pwd)
(cd "$U" && ks_errors "$golden/errors") <<'ROWS'
no_such_variable     'u:./vars-gcc-O0-pie:uv_work(@uv_nope)'
tls_without_tls      'u:./vars-gcc-O0-pie:uv_work(@uv_tls_id)'
global_as_tls        'u:./vars-gcc-O0-pie:uv_work(@tls:uv_counter)'
kernel_function      'vfs_read(@uv_counter)'
no_name              'u:./vars-gcc-O0-pie:uv_work(@)'
no_tls_name          'u:./vars-gcc-O0-pie:uv_work(@tls:)'
probe_inside         'u:./vars-gcc-O0-pie:uv_work+1(@uv_counter)'
library_tls          'u:libc:malloc(@tls:errno)'
no_such_member       'u:./vars-gcc-O0-pie:uv_work(@uv_config.nope)'
ROWS
# Without DWARF: refused, where it looked named (a build-id path: not golden).
out=$(cd "$U" && ks 'u:./vars-nodebug:uv_work(@uv_counter)' 2>&1; echo "rc=$?")
expect_match no_debug_info "^ksnoop: spec 'u:./vars-nodebug:uv_work\\(@uv_counter\\)': column 26: '@uv_counter': './vars-nodebug' has no debug info, which its variables are typed from \\('./vars-nodebug': no debug information: no .debug_info in the file, /usr/lib/debug/.build-id/" "$out"
expect_match no_debug_info_rc '^rc=2$' "$out"

needs_root uvars_tracing

# What the program printed before each call, as jq prints the values below.
printed() {
	sed -n 's/^call \([0-9]*\) counter=\([0-9]*\) cfg.level=\([0-9]*\) cfg.name=\([^ ]*\) cfg.lim2=\([0-9]*\) tls.id=\([0-9]*\) tls.req=\([0-9]*\) tls.tag=\([^ ]*\) .*/\1 \2 \3 \4 \5 \6 \7 \8/p' "$1" | sort
}
traced() {
	events "$1" | jq -r 'select(.func == "uv_work" and .kind == "entry") | [.values[] | tostring] | join(" ")' | sort
}

for b in $BUILDS; do
	B=$U/vars-$b
	T=${b//-/_}
	ks_case <<'CASE'
NAME     ${T}_vars
RUN      -j "u:$B:uv_work(arg, @uv_counter, @uv_config.level, @uv_config.name:str, @uv_cfgp->limits[2], @tls:uv_tls_id, @tls:uv_tls_state.req_id, @tls:uv_tls_state.tag, return)"
WORKLOAD "$B" 2 > "$tmp/$T.printed"
EXPECT   ${T}_vars_as_printed: eq "$(printed "$tmp/$T.printed")" "$(traced "$OUT")"
EXPECT   ${T}_vars_all_calls: eq 8 "$(traced "$OUT" | wc -l)"
EXPECT   ${T}_vars_threads_apart: eq '100,101,102,103' "$(events "$OUT" | jq -r 'select(.kind == "entry") | .values["@tls:uv_tls_id"]' | sort -u | paste -sd,)"
EXPECT   ${T}_vars_return: eq '0,2,4,6' "$(events "$OUT" | jq -r 'select(.kind == "return") | .values.return' | sort -u | paste -sd,)"
CASE
done

# Predicates on variables, in BPF: one thread's TLS value, a global's.
for b in gcc-O2-pie clang-O0-nopie; do
	B=$U/vars-$b
	T=${b//-/_}
	ks_case <<'CASE'
NAME     ${T}_var_preds
RUN      -j "u:$B:uv_work(arg, @tls:uv_tls_id == 102, @uv_counter > 41, @tls:uv_tls_state.tag)"
WORKLOAD "$B" 2 >/dev/null
EXPECT   ${T}_var_pred_filtered: eq '2 thr-2' "$(events "$OUT" | jq -r '"\(.values.arg) \(.values["@tls:uv_tls_state.tag"])"' | paste -sd,)"
CASE
done
