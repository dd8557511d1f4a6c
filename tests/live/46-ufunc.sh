#!/bin/bash
# User functions (u:BINARY:FUNC), live on this machine (uprobes work here),
# as root: tests/uprog/app.c built by gcc and clang at -O0 and -O2, its
# functions typed from their DWARF (parameters by name, members through a
# struct pointer, a signed int return, 8 arguments: two on the stack)
# traced with their entry values, returns, recursion, threads, strings on
# pages not touched yet, predicates; a copy without debug info (untyped:
# arg0..arg5) with -p, globs, +OFFSET, 0xADDRESS, -L, --count --by, record
# and report; libc's functions found by the library's name and typed from
# libc6-dbg; bad specs and what the ABI puts out of reach refused in one line.
. "$(dirname "$0")/helpers.bash"
usdt_paths
UP=${KSNOOP_UPROG_DIR:-$(dirname "$U")/uprog}
scratch_dir
mkdir -p "$tmp/u"
for b in gcc-O0 gcc-O2 clang-O0 clang-O2; do
	if [ ! -x "$UP/app-$b" ]; then
		fail ufunc_programs "missing $UP/app-$b (make build/uprog/app-$b)"
		exit 0
	fi
	cp "$UP/app-$b" "$tmp/u/"
done
chmod 755 "$tmp" "$tmp/u"
U=$tmp/u
A=$U/app-gcc-O0
# Untyped: the same program without its debug info (nothing under /usr/lib/debug has it).
N=$U/app-nodebug
objcopy --strip-debug "$A" "$N"

# --- info (no privileges needed) ---
out=$(ks info "u:$A" 2>&1)
expect_match info_list_header '^ADDRESS +SIZE +FUNCTION$' "$out"
expect_match info_list_function '^0x[0-9a-f]{16} +[0-9]+  uf_add$' "$out"
expect_eq info_list_static 1 "$(printf '%s\n' "$out" | grep -c ' uf_static$')"
out=$(ks info "u:$N:uf_s*" 2>&1)
expect_match info_prototype '^long uf_six\(unsigned long arg0, unsigned long arg1, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5\);$' "$out"
expect_match info_untyped_said "no debug info \\('$N': no debug information: no .debug_info in the file, /usr/lib/debug/.build-id/" "$out"
expect_eq info_glob_count 2 "$(printf '%s\n' "$out" | grep -c '^long uf_s')"
# Typed from DWARF: C prototypes, each compiler's spelling of the types.
out=$(ks info "u:$A:uf_*" 2>&1)
expect_match info_typed_six '^long int uf_six\(long int a, long int b, long int c, long int d, long int e, long int f\);$' "$out"
expect_match info_typed_req '^int uf_req\(const struct req \*r\);$' "$out"
expect_match info_typed_eight '^long int uf_eight\(long int a, .*, long int g, long int h\);$' "$out"
expect_match info_typed_name '^size_t uf_name\(int id, const char \*name\);$' "$out"
expect_match info_typed_where "types from $A\$" "$out"
expect_match info_byval_refused "^long uf_byval\\(unsigned long arg0, .*/\\* cannot be traced: .*'uf_byval': parameter 1 'p' is a struct passed by value" "$out"
out=$(ks info "u:$U/app-clang-O2:uf_[rf]*" 2>&1)
expect_match info_clang_req '^int uf_req\(const struct req \*r\);$' "$out"
expect_match info_clang_fail '^int uf_fail\(int x\);$' "$out"
out=$(ks info u:libc:malloc u:libc:fopen 2>&1)
expect_match info_libc_malloc '^void \*malloc\(size_t bytes\);$' "$out"
expect_match info_libc_fopen '^FILE \*fopen\(const char \*filename, const char \*mode\);$' "$out"
expect_match info_libc_debug_file 'types from /usr/lib/debug/\.build-id/' "$out"
# getpid is a system call wrapper in assembly: gas's DWARF gives it no type; untyped, not "void getpid(void)".
out=$(ks info u:libc:getpid 2>&1)
expect_match info_libc_asm_untyped '^long getpid\(unsigned long arg0, ' "$out"
# Stripped, its DWARF in a separate file named by .gnu_debuglink: the
# functions listed from the debug info (size unknown: 0), typed too.
objcopy --only-keep-debug "$A" "$U/app-split.debug"
cp "$A" "$U/app-split"
strip -s "$U/app-split"
objcopy --add-gnu-debuglink="$U/app-split.debug" "$U/app-split"
out=$(ks info "u:$U/app-split" 2>&1)
expect_match info_stripped_from_dwarf '^0x[0-9a-f]{16} +0  uf_add$' "$out"
expect_eq info_stripped_same_functions "$(ks info "u:$A" | awk '$3 ~ /^uf_/ { print $1, $3 }' | sort)" \
	"$(printf '%s\n' "$out" | awk '$3 ~ /^uf_/ { print $1, $3 }' | sort)"
out=$(ks -j info "u:$A" 2>&1)
expect_eq info_json_function '"uf_add"' "$(printf '%s\n' "$out" | jq -c 'select(.name == "uf_add") | .name' 2>/dev/null)"

# --- bad specs: one line, exit 2 (golden/46-ufunc/errors) ---
golden=$(cd "$(dirname "$0")/../golden/46-ufunc" && pwd)
echo "not elf" > "$U/text"
cp "$A" "$U/stripped"; strip -s "$U/stripped"
objcopy -R .dynsym -R .symtab "$U/stripped" "$U/nosyms" 2>/dev/null
(cd "$U" && ks_errors "$golden/errors") <<'ROWS'
no_such_binary     u:/nonexistent/app:f
directory          u:/tmp:f
not_elf            u:./text:f
no_such_function   u:./app-gcc-O0:uf_nope
glob_matches_none  'u:./app-gcc-O0:nope_*'
no_such_library    u:libksnoop_nope:f
no_address         u:./app-gcc-O0:0x7
offset_past_end    u:./app-gcc-O0:uf_zero+4096
offset_on_glob     'u:./app-gcc-O0:uf_*+4'
no_function_given  u:./app-gcc-O0
unknown_value      'u:./app-gcc-O0:uf_add(nope)'
info_no_such_file  info u:/nonexistent/app
info_not_elf       info u:./text
info_stripped      info u:./stripped
byval_refused      u:./app-gcc-O0:uf_byval
stack_refused      -s u:./app-gcc-O0:uf_add
count_ustack_refused --count --ustack u:./app-gcc-O0:uf_add
ROWS

needs_root ufunc_tracing

# --- every build: entry values, returns, recursion, threads, strings,
#     predicates; jq pairs each call's values ---
for b in gcc-O0 gcc-O2 clang-O0 clang-O2; do
	A=$U/app-$b
	T=${b/-/_}
	ks_case <<'CASE'
NAME     ${T}_calls
RUN      -j "u:$A:uf_add(a, b, return)" "u:$A:uf_six(a, f, return)" "u:$A:uf_zero" "u:$A:uf_name(id, name:str)"
WORKLOAD "$A" 1
EXPECT   ${T}_add_entry: eq '40 2' "$(events "$OUT" | jq -r 'select(.func == "uf_add" and .kind == "entry") | "\(.values.a) \(.values.b)"')"
EXPECT   ${T}_add_return: eq 42 "$(events "$OUT" | jq -r 'select(.func == "uf_add" and .kind == "return") | .values.return')"
EXPECT   ${T}_six_args: eq '1 6' "$(events "$OUT" | jq -r 'select(.func == "uf_six" and .kind == "entry") | "\(.values.a) \(.values.f)"')"
EXPECT   ${T}_six_return: eq 21 "$(events "$OUT" | jq -r 'select(.func == "uf_six" and .kind == "return") | .values.return')"
EXPECT   ${T}_no_args_return: eq 7 "$(events "$OUT" | jq -r 'select(.func == "uf_zero" and .kind == "return") | .values.return')"
EXPECT   ${T}_str: eq '7 hello-ufunc,8 fresh-page-string' "$(events "$OUT" | jq -r 'select(.func == "uf_name") | [.values[] | tostring] | join(" ")' | paste -sd,)"
EXPECT   ${T}_typed_said: stderr "user function uf_add .*; types from $A\$"
CASE
	# Recursion: each return with its own call's entry value (the stash keyed
	# by the stack pointer), threads each with their own.  uf_fail returns
	# int: signed from its DWARF, `return < 0` without a cast.
	ks_case <<'CASE'
NAME     ${T}_frames
RUN      -j "u:$A:uf_depth(n, return > 0)" "u:$A:uf_thread_work(tag, return)" "u:$A:uf_lookup(key, return < 0)" "u:$A:uf_fail(x, return < 0)"
WORKLOAD "$A" 1
EXPECT   ${T}_recursion_pairs: eq '1=1,2=2,3=3' "$(events "$OUT" | jq -r 'select(.func == "uf_depth") | "\(.values.n)=\(.values.return)"' | sort | paste -sd,)"
EXPECT   ${T}_recursion_returns_only: eq 3 "$(events "$OUT" | jq -r 'select(.func == "uf_depth" and .kind == "return") | .func' | wc -l)"
EXPECT   ${T}_thread_values: eq '1 10,2 20,3 30' "$(events "$OUT" | jq -r 'select(.func == "uf_thread_work" and .kind == "entry") | .values.tag' | sort | while read -r v; do events "$OUT" | jq -r --argjson v "$v" 'select(.func == "uf_thread_work" and .kind == "entry" and .values.tag == $v) | .tid' | while read -r tid; do printf '%s %s\n' "$v" "$(events "$OUT" | jq -r --argjson t "$tid" 'select(.func == "uf_thread_work" and .kind == "return" and .tid == $t) | .values.return')"; done; done | paste -sd,)"
EXPECT   ${T}_threads_apart: eq 3 "$(events "$OUT" | jq -r 'select(.func == "uf_thread_work") | .tid' | sort -u | wc -l)"
EXPECT   ${T}_return_negative: eq '200=-2' "$(events "$OUT" | jq -r 'select(.func == "uf_lookup") | "\(.values.key)=\(.values.return)"' | paste -sd,)"
EXPECT   ${T}_int_return_signed: eq '3=-22=EINVAL' "$(events "$OUT" | jq -r 'select(.func == "uf_fail") | [.values[] | tostring] | join("=")' | paste -sd,)"
EXPECT   ${T}_nothing_left_attached: eq "" "$(left_progs "$PROGS")"
CASE
	# A struct by pointer (members, a string through it, a chain of two),
	# and 8 arguments: x86-64 passes g and h on the (user) stack.
	ks_case <<'CASE'
NAME     ${T}_typed
RUN      -j "u:$A:uf_req(r->path:str, r->id, r->flags, r->next->path:str, r->id == 17, return)" "u:$A:uf_eight(a, f, g, h, return)"
WORKLOAD "$A" 1
EXPECT   ${T}_struct_members: eq '/srv/req-path 17 3 inner' "$(events "$OUT" | jq -r 'select(.func == "uf_req" and .kind == "entry") | [.values[] | tostring] | join(" ")')"
EXPECT   ${T}_struct_return: eq 17 "$(events "$OUT" | jq -r 'select(.func == "uf_req" and .kind == "return") | .values.return')"
EXPECT   ${T}_stack_args: eq '1 6 7 8' "$(events "$OUT" | jq -r 'select(.func == "uf_eight" and .kind == "entry") | "\(.values.a) \(.values.f) \(.values.g) \(.values.h)"')"
EXPECT   ${T}_eight_return: eq 36 "$(events "$OUT" | jq -r 'select(.func == "uf_eight" and .kind == "return") | .values.return')"
CASE
done
# Untyped (no debug info): arg0..arg5 as integers, an int return needs its cast.
ks_case <<'CASE'
NAME     untyped_calls
RUN      -j "u:$N:uf_add(arg0, arg1, return)" "u:$N:uf_fail(arg0, (int)return < 0)"
WORKLOAD "$N" 1
EXPECT   untyped_add: eq '40 2 42' "$(events "$OUT" | jq -r 'select(.func == "uf_add") | [.values[] | tostring] | join(" ")' | paste -sd' ')"
EXPECT   untyped_int_return_cast: eq '3=-22=EINVAL' "$(events "$OUT" | jq -r 'select(.func == "uf_fail") | [.values[] | tostring] | join("=")' | paste -sd,)"
EXPECT   untyped_said: stderr "user function uf_add .*; no debug info \\('$N': no debug information"
CASE
A=$N

# --- -p: one process of two running the same program ---
ks_case <<'CASE'
NAME     ufunc_pid
BEFORE   "$A" spin 4 & sp1=$!
BEFORE   "$A" spin 4 & sp2=$!
RUN      -j -n 6 -p "$sp1" "u:$A:uf_add(arg0, return)"
WORKLOAD wait "$sp1" "$sp2" 2>/dev/null
UNTIL    exit
EXPECT   pid_filter_count: eq 6 "$(events "$OUT" | wc -l)"
EXPECT   pid_filter_only: eq "$sp1" "$(events "$OUT" | jq -r .pid | sort -u)"
CASE

# --- a glob: every function it matches, each with its own events ---
ks_case <<'CASE'
NAME     ufunc_glob
RUN      -j "u:$A:uf_*(return)"
WORKLOAD "$A" 1
EXPECT   glob_each_function: eq 'uf_add=1 uf_byval=1 uf_depth=4 uf_eight=1 uf_fail=2 uf_lookup=2 uf_name=2 uf_req=1 uf_six=1 uf_static=1 uf_thread_work=3 uf_zero=1' \
           "$(events "$OUT" | jq -r 'select(.kind == "return") | .func' | sort | uniq -c | awk '{ printf "%s%s=%s", sep, $2, $1; sep = " " }')"
EXPECT   glob_static_return: eq 42 "$(events "$OUT" | jq -r 'select(.func == "uf_static") | .values.return')"
CASE

# --- a glob typed from DWARF: the function passing a struct by value is
#     left out and counted, the others traced ---
G=$U/app-gcc-O0
ks_case <<'CASE'
NAME     ufunc_glob_typed
RUN      -j "u:$G:uf_*(return)"
WORKLOAD "$G" 1
EXPECT   glob_typed_each: eq 'uf_add=1 uf_depth=4 uf_eight=1 uf_fail=2 uf_lookup=2 uf_name=2 uf_req=1 uf_six=1 uf_static=1 uf_thread_work=3 uf_zero=1' \
           "$(events "$OUT" | jq -r 'select(.kind == "return") | .func' | sort | uniq -c | awk '{ printf "%s%s=%s", sep, $2, $1; sep = " " }')"
EXPECT   glob_typed_left_out: stderr 'uf_\*\(return\): 13 function\(s\) match, 12 traced, 1 left out'
CASE

# --- +OFFSET (the second instruction: the uprobe needs an instruction's
#     start) and 0xADDRESS ---
off=$(objdump -d --no-show-raw-insn "$A" | awk '/<uf_add>:$/ { f = 1; next } f && /^ +[0-9a-f]+:/ { n++; if (n == 2) { sub(":", "", $1); print $1; exit } }')
start=$(nm "$A" | awk '$3 == "uf_add" { print $1 }')
off=$(printf '0x%x' $((0x$off - 0x$start)))
six=$(printf '0x%x' "0x$(nm "$A" | awk '$3 == "uf_six" { print $1 }')")
ks_case <<'CASE'
NAME     ufunc_offset
RUN      "u:$A:uf_add+$off(arg0)" "u:$A:$six(arg5, return)"
WORKLOAD "$A" 1
EXPECT   offset_entry_only: count 1 "^.* -> uf_add\\+$off\$"
EXPECT   offset_no_return: count 0 '<- uf_add'
EXPECT   offset_arg0: count 1 '^    arg0 = 40$'
EXPECT   address_entry: count 1 '^    arg5 = 6$'
EXPECT   address_return: count 1 '^    return = 21$'
CASE

# --- a pointer the traced program chose is read as its memory only: a
#     kernel address (the kernel's text, from kallsyms) is a fault, never
#     a read of the kernel ---
ktext=$(awk '$3 == "_text" { print "0x" $1; exit }' /proc/kallsyms)
kdec=$(printf '%u' "$ktext")
ks_case <<'CASE'
NAME     ufunc_user_memory
RUN      -j "u:$A:uf_peek(arg0, *(unsigned long *)arg0, arg0:str)"
WORKLOAD "$A" peek "$ktext"
EXPECT   kernel_address_passed: count 1 "\"arg0\":$kdec[,}]"
EXPECT   kernel_address_not_read: eq 'could not read memory,could not read memory' "$(events "$OUT" | jq -r '[.values[] | objects | .error] | join(",")')"
CASE

# --- a libc function, the library found by name as the loader finds it ---
ks_case <<'CASE'
NAME     ufunc_libc
RUN      -j -c app-nodebug "u:libc:getpid(return)"
WORKLOAD "$A" 1
EXPECT   libc_found_by_name: stderr 'user function getpid at 0x[0-9a-f]+ \(file offset 0x[0-9a-f]+\) in /.*/libc\.so'
EXPECT   libc_getpid_called: eq 1 "$(events "$OUT" | jq -r 'select(.kind == "return") | .pid' | wc -l)"
EXPECT   libc_getpid_returns_pid: eq "" "$(events "$OUT" | jq -r 'select(.kind == "return" and .values.return != .pid) | .pid')"
CASE

# --- glibc's own functions, typed from libc6-dbg's build-id debug file:
#     malloc is __libc_malloc in DWARF (found by the symbol's address) and
#     named as asked; the values are what the program passed ---
cp "$G" "$U/kslibc$$"
ks_case <<'CASE'
NAME     ufunc_libc_typed
RUN      -j -c "kslibc$$" "u:libc:malloc(bytes, return)" "u:libc:fopen(filename:str, mode:str, return)"
WORKLOAD "$U/kslibc$$" libc 12345 "$tmp/no-such-dir/ksnoop-fopen"
EXPECT   libc_malloc_size: eq 1 "$(events "$OUT" | jq -r 'select(.func == "malloc" and .kind == "entry" and .values.bytes == 12345) | .pid' | wc -l)"
EXPECT   libc_malloc_returns: eq 1 "$(events "$OUT" | jq -r 'select(.func == "malloc" and .kind == "return" and (.values.return | type) == "string") | .pid' | head -1 | wc -l)"
EXPECT   libc_named_as_asked: eq '' "$(events "$OUT" | jq -r 'select(.func != "malloc" and .func != "fopen") | .func')"
EXPECT   libc_fopen_args: eq "$tmp/no-such-dir/ksnoop-fopen r" "$(events "$OUT" | jq -r 'select(.func == "fopen" and .kind == "entry") | "\(.values["filename:str"]) \(.values["mode:str"])"')"
EXPECT   libc_fopen_null: text 'NULL' "$(events "$OUT" | jq -c 'select(.func == "fopen" and .kind == "return") | .values.return')"
EXPECT   libc_typed_said: stderr 'user function malloc .*; types from /usr/lib/debug/\.build-id/'
CASE

# --- -p: the library as that process maps it ---
ks_case <<'CASE'
NAME     ufunc_libc_pid
BEFORE   "$A" spin 4 & sp3=$!
RUN      -j -n 3 -p "$sp3" "u:libc:getpid(return)"
WORKLOAD wait "$sp3" 2>/dev/null
UNTIL    exit
EXPECT   libc_in_maps: stderr 'user function getpid at 0x[0-9a-f]+ .* in /.*/libc\.so[.0-9]* \(device' 
EXPECT   libc_pid_returns: eq "$sp3" "$(events "$OUT" | jq -r '.values.return' | sort -u)"
CASE

# --- -L, --oneline, --count --by ---
ks_case <<'CASE'
NAME     ufunc_min_duration
RUN      -L 1ns --oneline "u:$A:uf_add(arg0, return)" "u:$A:uf_six(arg5)"
WORKLOAD "$A" 1
EXPECT   min_duration_with_entry_values: count 1 ' <- uf_add \(.*\) arg0=40 return=42$'
EXPECT   min_duration_no_entry_events: count 0 ' -> '
EXPECT   min_duration_six: count 1 ' <- uf_six .* arg5=6$'
CASE
ks_case <<'CASE'
NAME     ufunc_count_by
RUN      --count --by arg0 "u:$A:uf_fail(arg0)"
WORKLOAD "$A" 2
EXPECT   count_by_arg0_3: count 1 '^ +2 +3 +uf_fail$'
EXPECT   count_by_arg0_4: count 1 '^ +2 +4 +uf_fail$'
CASE

# --- record, then report: the same values ---
ks_case <<'CASE'
NAME     ufunc_record
RUN      record -o "$tmp/u.rec" "u:$A:uf_add(arg0, return)"
WORKLOAD "$A" 1
EXPECT   record_exit: exit 0
CASE
out=$(ks report "$tmp/u.rec" 2>&1)
expect_eq report_entry 1 "$(printf '%s\n' "$out" | grep -c '^    arg0 = 40$')"
expect_eq report_return 1 "$(printf '%s\n' "$out" | grep -c '^    return = 42$')"

# --- record, then report, typed: the struct printed from the record's own BTF ---
ks_case <<'CASE'
NAME     ufunc_record_typed
RUN      record -o "$tmp/ut.rec" "u:$G:uf_req(r, r->path:str, return)"
WORKLOAD "$G" 1
EXPECT   record_typed_exit: exit 0
CASE
out=$(ks report "$tmp/ut.rec" 2>&1)
expect_match report_typed_struct '^    r = 0x[0-9a-f]+ -> \(const struct req\)\{$' "$out"
expect_match report_typed_member '^        \.id = 17,$' "$out"
expect_match report_typed_str '^    r->path:str = "/srv/req-path"$' "$out"
expect_match report_typed_return '^    return = 17$' "$out"
