#!/bin/bash
# User functions (u:BINARY:FUNC), live on this machine (uprobes work here),
# as root: tests/uprog/app.c built by gcc and clang at -O0 and -O2, its
# functions traced with their entry values, returns, recursion, threads,
# strings on pages not touched yet, predicates, -p, globs, +OFFSET,
# 0xADDRESS, a libc function found by the library's name, -L, --count
# --by, record and report; bad specs refused in one line.
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

# --- info (no privileges needed) ---
out=$(ks info "u:$A" 2>&1)
expect_match info_list_header '^ADDRESS +SIZE +FUNCTION$' "$out"
expect_match info_list_function '^0x[0-9a-f]{16} +[0-9]+  uf_add$' "$out"
expect_eq info_list_static 1 "$(printf '%s\n' "$out" | grep -c ' uf_static$')"
out=$(ks info "u:$A:uf_s*" 2>&1)
expect_match info_prototype '^long uf_six\(unsigned long arg0, unsigned long arg1, unsigned long arg2, unsigned long arg3, unsigned long arg4, unsigned long arg5\);$' "$out"
expect_match info_untyped_said 'no debug info read yet' "$out"
expect_eq info_glob_count 2 "$(printf '%s\n' "$out" | grep -c '^long uf_s')"
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
RUN      -j "u:$A:uf_add(arg0, arg1, return)" "u:$A:uf_six(arg0, arg5, return)" "u:$A:uf_zero" "u:$A:uf_name(arg0, arg1:str)"
WORKLOAD "$A" 1
EXPECT   ${T}_add_entry: eq '40 2' "$(events "$OUT" | jq -r 'select(.func == "uf_add" and .kind == "entry") | "\(.values.arg0) \(.values.arg1)"')"
EXPECT   ${T}_add_return: eq 42 "$(events "$OUT" | jq -r 'select(.func == "uf_add" and .kind == "return") | .values.return')"
EXPECT   ${T}_six_args: eq '1 6' "$(events "$OUT" | jq -r 'select(.func == "uf_six" and .kind == "entry") | "\(.values.arg0) \(.values.arg5)"')"
EXPECT   ${T}_six_return: eq 21 "$(events "$OUT" | jq -r 'select(.func == "uf_six" and .kind == "return") | .values.return')"
EXPECT   ${T}_no_args_return: eq 7 "$(events "$OUT" | jq -r 'select(.func == "uf_zero" and .kind == "return") | .values.return')"
EXPECT   ${T}_str: eq '7 hello-ufunc,8 fresh-page-string' "$(events "$OUT" | jq -r 'select(.func == "uf_name") | [.values[] | tostring] | join(" ")' | paste -sd,)"
CASE
	# Recursion: each return with its own call's entry value (the stash keyed
	# by the stack pointer), threads each with their own.
	ks_case <<'CASE'
NAME     ${T}_frames
RUN      -j "u:$A:uf_depth(arg0, return > 0)" "u:$A:uf_thread_work(arg0, return)" "u:$A:uf_lookup(arg0, return < 0)" "u:$A:uf_fail(arg0, (int)return < 0)"
WORKLOAD "$A" 1
EXPECT   ${T}_recursion_pairs: eq '1=1,2=2,3=3' "$(events "$OUT" | jq -r 'select(.func == "uf_depth") | "\(.values.arg0)=\(.values.return)"' | sort | paste -sd,)"
EXPECT   ${T}_recursion_returns_only: eq 3 "$(events "$OUT" | jq -r 'select(.func == "uf_depth" and .kind == "return") | .func' | wc -l)"
EXPECT   ${T}_thread_values: eq '1 10,2 20,3 30' "$(events "$OUT" | jq -r 'select(.func == "uf_thread_work" and .kind == "entry") | .values.arg0' | sort | while read -r v; do events "$OUT" | jq -r --argjson v "$v" 'select(.func == "uf_thread_work" and .kind == "entry" and .values.arg0 == $v) | .tid' | while read -r tid; do printf '%s %s\n' "$v" "$(events "$OUT" | jq -r --argjson t "$tid" 'select(.func == "uf_thread_work" and .kind == "return" and .tid == $t) | .values.return')"; done; done | paste -sd,)"
EXPECT   ${T}_threads_apart: eq 3 "$(events "$OUT" | jq -r 'select(.func == "uf_thread_work") | .tid' | sort -u | wc -l)"
EXPECT   ${T}_return_negative: eq '200=-2' "$(events "$OUT" | jq -r 'select(.func == "uf_lookup") | "\(.values.arg0)=\(.values.return)"' | paste -sd,)"
EXPECT   ${T}_int_return_cast: eq '3=-22=EINVAL' "$(events "$OUT" | jq -r 'select(.func == "uf_fail") | [.values[] | tostring] | join("=")' | paste -sd,)"
EXPECT   ${T}_nothing_left_attached: eq "" "$(left_progs "$PROGS")"
CASE
done
A=$U/app-gcc-O0

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
EXPECT   glob_each_function: eq 'uf_add=1 uf_depth=4 uf_fail=2 uf_lookup=2 uf_name=2 uf_six=1 uf_static=1 uf_thread_work=3 uf_zero=1' \
           "$(events "$OUT" | jq -r 'select(.kind == "return") | .func' | sort | uniq -c | awk '{ printf "%s%s=%s", sep, $2, $1; sep = " " }')"
EXPECT   glob_static_return: eq 42 "$(events "$OUT" | jq -r 'select(.func == "uf_static") | .values.return')"
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
RUN      -j -c app-gcc-O0 "u:libc:getpid(return)"
WORKLOAD "$A" 1
EXPECT   libc_found_by_name: stderr 'user function getpid at 0x[0-9a-f]+ \(file offset 0x[0-9a-f]+\) in /.*/libc\.so'
EXPECT   libc_getpid_called: eq 1 "$(events "$OUT" | jq -r 'select(.kind == "return") | .pid' | wc -l)"
EXPECT   libc_getpid_returns_pid: eq "" "$(events "$OUT" | jq -r 'select(.kind == "return" and .values.return != .pid) | .pid')"
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
