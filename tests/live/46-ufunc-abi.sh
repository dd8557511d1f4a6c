#!/bin/bash
# User functions whose machine-level shape a plain uprobe gets wrong, live
# on this machine: a Go program's functions (a uretprobe corrupts Go's
# stacks: the return refused, the entry traced), an IFUNC (the uprobe
# would sit on its resolver: refused naming the implementations, which are
# traced from the debug file's symbols), an entry predicate selecting the
# whole call (the return of a call it rejects is not printed), and a
# glob whose every function is refused saying so.
. "$(dirname "$0")/helpers.bash"
usdt_paths
UP=${KSNOOP_UPROG_DIR:-$(dirname "$U")/uprog}
scratch_dir
mkdir -p "$tmp/u"
if [ ! -x "$UP/app-gcc-O0" ]; then
	fail ufunc_abi_programs "missing $UP/app-gcc-O0 (make build/uprog/app-gcc-O0)"
	exit 0
fi
cp "$UP/app-gcc-O0" "$tmp/u/"
chmod 755 "$tmp" "$tmp/u"
U=$tmp/u
A=$U/app-gcc-O0
# A "Go program": ours, with the section only Go's linker writes.
echo "go1.22 ksnoop-test" > "$tmp/buildinfo"
objcopy --add-section .go.buildinfo="$tmp/buildinfo" "$A" "$U/app-go"
G=$U/app-go

# --- refused in one line, exit 2 ---
out=$(ks "u:$G:uf_add(a, return)" 2>&1; echo "rc=$?")
expect_match go_return_refused "^ksnoop: spec 'u:$G:uf_add\\(a, return\\)': column [0-9]+: '$G' is a Go program: a uretprobe corrupts a goroutine's stack \\(Go moves and walks its stacks\\), so no return of its functions is traced; their entry is \\(leave out 'return'\\)\$" "$out"
expect_match go_return_rc '^rc=2$' "$out"
expect_eq go_return_one_line 2 "$(printf '%s\n' "$out" | wc -l)"
out=$(ks "u:$G:uf_*(return)" 2>&1; echo "rc=$?")
expect_match go_glob_return_refused "is a Go program: a uretprobe corrupts" "$out"
expect_match go_glob_return_rc '^rc=2$' "$out"
out=$(ks u:libc:strlen 2>&1; echo "rc=$?")
expect_match ifunc_refused "^ksnoop: spec 'u:libc:strlen': 'strlen' is an IFUNC in '/[^']*libc\\.so[.0-9]*': its resolver runs once, at load, and picks the implementation calls go to; trace that implementation: __strlen_[a-z0-9_]+(, __strlen_[a-z0-9_]+)*\$" "$out"
expect_match ifunc_rc '^rc=2$' "$out"
out=$(ks info u:libc:strlen 2>&1)
expect_match ifunc_info_candidates "'strlen' is an IFUNC .*: __strlen_sse2, " "$out"
out=$(ks info 'u:libc:__strlen_*' 2>&1)
expect_match ifunc_impl_listed '^long __strlen_sse2\(unsigned long arg0, ' "$out"
# Every function of a glob refused: said so, not "no debug info".
out=$(ks info "u:$A:uf_byval*" 2>&1)
expect_match glob_all_refused_said "^ksnoop: warning: u:$A:uf_byval\\*: 1 function\\(s\\) in $A, all 1 refused \\('$A': 'uf_byval': parameter 1 'p' is a struct passed by value: not traced\\)\$" "$out"
expect_eq glob_all_refused_not_unread 0 "$(printf '%s\n' "$out" | grep -c 'no debug info read yet')"
out=$(ks info "u:$A:uf_[bz]*" 2>&1)
expect_match glob_some_refused_said "^ksnoop: warning: u:$A:uf_\\[bz\\]\\*: 2 function\\(s\\) in $A, 1 refused; types from $A\$" "$out"

needs_root ufunc_abi_tracing

# A Go program's entries: traced, typed; no return, not even by default.
ks_case <<'CASE'
NAME     go_entry
RUN      -j -c app-go "u:$G:uf_add(a, b)" "u:$G:uf_zero"
WORKLOAD "$G" 1
EXPECT   go_entry_values: eq 'entry 40 2' "$(events "$OUT" | jq -r 'select(.func == "uf_add") | "\(.kind) \(.values.a) \(.values.b)"')"
EXPECT   go_default_entry_only: eq 'entry' "$(events "$OUT" | jq -r 'select(.func == "uf_zero") | .kind')"
EXPECT   go_no_return: eq 0 "$(events "$OUT" | jq -r 'select(.kind == "return") | .func' | wc -l)"
CASE

# An entry predicate selects the call: one event, entry values with the
# return, for x == 3; nothing of uf_fail(4).
ks_case <<'CASE'
NAME     entry_pred_whole_call
RUN      -c app-gcc-O0 "u:$A:uf_fail(x, x == 3, return)"
WORKLOAD "$A" 1
EXPECT   entry_pred_lines: eq "$(printf '%s\n' '<- uf_fail' '    x = 3' '    return = -22 (EINVAL)')" "$(sed -n -e 's/^[0-9:.]* cpu[0-9]* app-gcc-O0 [0-9]*\/[0-9]* \(<- uf_fail\) (.*)$/\1/p' -e '/^    /p' "$OUT")"
EXPECT   entry_pred_no_entry_event: count 0 ' -> uf_fail'
EXPECT   entry_pred_rejected_return: count 0 'return = 4$'
CASE
ks_case <<'CASE'
NAME     entry_pred_json
RUN      -j -c app-gcc-O0 "u:$A:uf_fail(x, x == 3, return)" "u:$A:uf_add(a, a > 100, return)"
WORKLOAD "$A" 1
EXPECT   entry_pred_json_events: eq '{"func":"uf_fail","kind":"return","values":{"x":3,"return":-22,"return_errno":"EINVAL"}}' "$(events "$OUT" | jq -c '{func, kind, values}')"
CASE

# The implementation an IFUNC picked, traced from libc6-dbg's symbols: the
# call uf_name(7, "hello-ufunc") made, once, with its length.
ks_case <<'CASE'
NAME     ifunc_implementation
RUN      -j -c app-gcc-O0 'u:libc:__strlen_*(arg0:str == "hello-ufunc", return)'
WORKLOAD "$A" 1
EXPECT   ifunc_impl_call: eq '"hello-ufunc" 11' "$(events "$OUT" | jq -r 'select(.func | startswith("__strlen_")) | "\(.values["arg0:str"] | tojson) \(.values.return)"')"
CASE
