#!/bin/bash
# The bad-input matrix: malformed command lines, specs and files.  Each must
# give exit status 2 and exactly one line on stderr naming the problem,
# nothing on stdout and no sanitizer report (this runs the ASan + UBSan
# build with leak detection, so an error path that leaks fails too).
#
# Cases run four at a time: most read the kernel's BTF and kallsyms, which
# takes a moment each; results are reported in the order written here.
. "$(dirname "$0")/helpers.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
P=${KSNOOP_USDT_DIR:-$root/build/usdt}/usdt_prog

scratch_dir
PARALLEL=4

ncases=0
names=()
kinds=()
regexes=()

# launch KIND NAME REGEX ARGS...: run ksnoop ARGS in the background.
launch() {
	local n=$ncases
	kinds[n]=$1 names[n]=$2 regexes[n]=$3
	shift 3
	while [ "$(jobs -rp | wc -l)" -ge "$PARALLEL" ]; do wait -n; done
	(
		ASAN_OPTIONS=$(san_opt asan "case$n") UBSAN_OPTIONS=$(san_opt ubsan "case$n") \
			timeout -k 2 10 "$K" "$@" </dev/null >"$tmp/$n.out" 2>"$tmp/$n.err"
		echo $? >"$tmp/$n.rc"
	) &
	ncases=$((ncases + 1))
}

# bad NAME REGEX ARGS...: exit 2, one stderr line matching REGEX.
bad() { launch bad "$@"; }
# accepted NAME ARGS...: parsed and resolved: the run gets as far as
# attaching (exit 0, or 1 where this kernel cannot trace functions).
accepted() { local name=$1; shift; launch accepted "$name" "" "$@"; }

report() {
	local n=$1 name=${names[$1]} re=${regexes[$1]} rc err nl rep
	rc=$(cat "$tmp/$n.rc")
	rep=$(san_take "case$n")
	err=$(cat "$tmp/$n.err")
	nl=$(tr -cd '\n' <"$tmp/$n.err" | wc -c)
	if [ -n "$rep" ] || grep -qE 'Sanitizer|runtime error:' "$tmp/$n.err"; then
		fail "$name" "sanitizer report (exit $rc):
$rep$(head -30 "$tmp/$n.err")"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		fail "$name" "no answer within 10 s (killed)"
	elif [ "${kinds[n]}" = accepted ]; then
		if [ "$rc" = 0 ] || { [ "$rc" = 1 ] &&
			grep -qE 'cannot trace kernel functions|needs root' "$tmp/$n.err"; }; then
			pass "$name"
		else
			fail "$name" "exit $rc; a valid spec was refused:
$err"
		fi
	elif [ "$rc" != 2 ]; then
		fail "$name" "exit $rc, expected 2:
$err"
	elif [ "$nl" != 1 ] || [ "$(wc -c <"$tmp/$n.err")" -le 1 ]; then
		fail "$name" "expected exactly one line on stderr, got $nl newline(s):
$(cat -v "$tmp/$n.err")"
	elif ! printf '%s\n' "$err" | grep -Eq -- "$re"; then
		fail "$name" "stderr does not match /$re/:
$err"
	elif [ -s "$tmp/$n.out" ]; then
		fail "$name" "output on stdout besides the error:
$(head -5 "$tmp/$n.out")"
	else
		pass "$name"
	fi
}

long() { printf "%${2}s" "" | tr ' ' "$1"; }
L200=$(long a 200)

# --- files for the USDT cases ---
echo "not elf" >"$tmp/text"
: >"$tmp/empty"
mkfifo "$tmp/fifo"
printf '\177ELF\2\1\1' >"$tmp/magic-only"
if [ -f "$P" ]; then
	size=$(stat -c %s "$P")
	head -c 100 "$P" >"$tmp/trunc-100"
	head -c $((size / 2)) "$P" >"$tmp/trunc-half"
	head -c $((size - 64)) "$P" >"$tmp/trunc-end"
	cp "$P" "$tmp/prog"
else
	fail usdt_program "missing $P (make build/usdt/usdt_prog)"
	cp /bin/true "$tmp/prog"
fi
cp /bin/true "$tmp/noprobes"
strip -R .note.stapsdt "$tmp/noprobes" 2>/dev/null

# ================= command line =================
bad unknown_long_option "unknown option '--bogus'" --bogus ip_send_skb
bad unknown_short_option "unknown option '-x'" -x ip_send_skb
bad option_without_value "option '--pid' needs a value" ip_send_skb --pid
bad short_option_without_value "option '-n' needs a value" ip_send_skb -n
bad flag_given_a_value "'--json'" --json=1 ip_send_skb
bad nothing_to_do "expected a command or a SPEC" -v -z
bad no_arguments "expected a command or a SPEC"
bad trace_without_spec "expected at least one SPEC" trace
bad usdt_without_spec "expected at least one BINARY:PROVIDER:NAME" usdt
bad info_without_target "info: expected at least one" info
bad info_usdt_without_binary "info usdt: expected a BINARY" info usdt

# ================= bad numbers, every numeric option =================
bad pid_not_a_number "--pid: 'abc' is not a number" -p abc ip_send_skb
bad pid_zero "--pid: 0 is out of range" -p 0 ip_send_skb
bad pid_negative "--pid: '-5' is not a number" -p -5 ip_send_skb
bad pid_too_large "--pid: 2147483648 is out of range" -p 2147483648 ip_send_skb
bad pid_beyond_64_bits "--pid: .*(not a number|out of range)" -p 99999999999999999999 ip_send_skb
bad pid_hex "--pid: '0x10' is not a number" -p 0x10 ip_send_skb
bad pid_empty "--pid: '' is not a number" --pid= ip_send_skb
bad pid_trailing_space "--pid: '5 ' is not a number" -p '5 ' ip_send_skb
bad pid_with_newline "--pid: .*not a number" -p $'1\n2' ip_send_skb
bad tid_not_a_number "--tid: 'abc' is not a number" --tid abc ip_send_skb
bad tid_zero "--tid: 0 is out of range" --tid 0 ip_send_skb
bad count_zero "--max-events: 0 is out of range" -n 0 ip_send_skb
bad count_negative "--max-events: '-1' is not a number" -n -1 ip_send_skb
bad count_negative_after_space "--max-events: ' -1' is not a number" -n ' -1' ip_send_skb
bad count_exponent "--max-events: '1e3' is not a number" -n 1e3 ip_send_skb
bad count_beyond_64_bits "--max-events: .*(not a number|out of range)" -n 18446744073709551616 ip_send_skb
bad duration_zero "--duration: '0' is no time at all" --duration 0 ip_send_skb
bad duration_bad_unit "--duration: '1.5x': unknown unit 'x' \\(ns, us, ms, s\\)" --duration 1.5x ip_send_skb
bad duration_hours "--duration: '10h': unknown unit 'h'" --duration 10h ip_send_skb
bad duration_too_long "--duration: '31536001' is longer than a year" --duration 31536001 ip_send_skb
bad duration_empty "--duration: '' is not a time" --duration '' ip_send_skb
bad max_bytes_zero "--max-bytes: 0 is out of range" --max-bytes 0 ip_send_skb
bad max_bytes_too_large "--max-bytes: 32769 is out of range" --max-bytes 32769 ip_send_skb
bad str_bytes_one "--str-bytes: 1 is out of range" --str-bytes 1 ip_send_skb
bad str_bytes_not_a_number "--str-bytes: 'x' is not a number" --str-bytes x ip_send_skb
bad buffer_not_power_of_2 "--buffer: 5000 is not a power of 2" --buffer 5000 ip_send_skb
bad buffer_too_small "--buffer: 2048 is out of range" --buffer 2048 ip_send_skb
bad buffer_too_large "--buffer: 2147483648 is out of range" --buffer 2147483648 ip_send_skb
bad buffer_suffix "--buffer: '4k' is not a number" --buffer 4k ip_send_skb
bad mode_unknown "--mode: 'uprobe' is not one of fentry, kprobe" --mode uprobe ip_send_skb
bad mode_empty "--mode: '' is not one of fentry, kprobe" --mode '' ip_send_skb
bad comm_empty "--comm: '' must be 1 to 15 characters" -c '' ip_send_skb
bad comm_too_long "--comm: '0123456789abcdef' must be 1 to 15 characters" -c 0123456789abcdef ip_send_skb

# ================= spec syntax: kernel functions and tracepoints =================
bad unbalanced_open "column 21: missing '\)'" "ip_send_skb(skb->len"
bad unbalanced_close "column 17: unexpected '\)' after the spec" "ip_send_skb(skb))"
bad close_without_open "column 12: unexpected '\)' after the spec" "ip_send_skb)"
bad nested_open "column 18: missing '\)'" "ip_send_skb((skb)"
bad paren_unclosed "column 19: expected '\)' to match the '\(' at column 13" "ip_send_skb(((skb)"
bad empty_spec "column 1: expected a function name, found end of spec" ""
bad blank_spec "expected a function name, found end of spec" "   "
bad empty_function_name "column 1: expected a function name, found '\('" "()"
bad empty_tracepoint_name "column 4: expected a tracepoint name, found end of spec" "tp:"
bad empty_tracepoint_name_with_list "column 4: expected a tracepoint name, found '\('" "tp:(p)"
bad empty_item "column 13: expected a value .*found ','" "ip_send_skb(,skb)"
bad trailing_comma "column 17: expected a value .*found '\)'" "ip_send_skb(skb,)"
bad empty_member "column 18: expected a member name, found '\)'" "ip_send_skb(skb->)"
bad empty_index "expected an index, found '\]'" "tp:sched_process_exec(p->comm[])"
bad unclosed_index "expected '\]', found '\)'" "tp:sched_process_exec(p->comm[1)"
bad negative_index "expected an index, found '-'" "tp:sched_process_exec(p->comm[-1])"
bad index_too_large "index 2147483648 is too large" "tp:sched_process_exec(p->comm[2147483648])"
bad index_out_of_bounds "index 16 is out of bounds for char\[16\]" "tp:sched_process_exec(p->comm[16])"
bad overlong_function_name "column 1: name is too long" "$L200"
# NAME@ADDRESS: one of the functions of a name, by its kallsyms address.
bad address_missing "column 13: expected a hex address after '@' \(as 'ksnoop info ip_send_skb' lists them\)" "ip_send_skb@(skb)"
bad address_not_hex "column 13: expected a hex address after '@'" "ip_send_skb@xyz"
bad address_on_glob "column 5: '@ADDRESS' picks one function of a name; a glob names many" "ip_*@ffff"
bad address_of_none "spec 'ip_send_skb@1234': column 12: no function 'ip_send_skb' at 0x1234; kallsyms has it at 0x[0-9a-f]+$" info ip_send_skb@1234
bad name_of_128_is_not_too_long "unknown kernel function '$(long b 128)'" "$(long b 128)"
bad overlong_tracepoint_name "column 4: name is too long" "tp:$L200"
bad overlong_argument_name "column 13: .* is longer than 128 characters" "ip_send_skb($L200)"
bad overlong_member_name "column 18: a member name is longer than 128 characters" "ip_send_skb(skb->$L200)"
bad overlong_enumerator "constant is longer than 128 characters" "ip_send_skb(skb->len == $(long A 200))"
bad overlong_string "string constant longer than 63 bytes" "do_sys_openat2(filename == \"$(long s 80)\")"
bad string_of_64 "string constant longer than 63 bytes" "do_sys_openat2(filename == \"$(long s 64)\")"
bad unterminated_string "unterminated string constant" 'do_sys_openat2(filename == "abc)'
bad unterminated_char "unterminated character literal" "tp:sched_process_exec(old_pid == 'x)"
bad empty_char "empty character literal" "tp:sched_process_exec(old_pid == '')"
bad two_chars_in_char "character literal" "tp:sched_process_exec(old_pid == 'ab')"
bad unknown_escape "unknown escape '\\\\q'" 'do_sys_openat2(filename == "\q")'
bad hex_escape_without_digits "expected hex digits after '\\\\x'" 'do_sys_openat2(filename == "\x")'
bad nul_escape_in_string "NUL inside a string constant" 'do_sys_openat2(filename == "a\0b")'
bad nul_hex_escape_in_string "NUL inside a string constant" 'do_sys_openat2(filename == "a\x00b")'
# A NUL cannot be passed in an argument: the kernel ends the string there,
# as bash does with $'...\0...'.  What ksnoop then sees is a cut spec.
bad nul_in_argument_cuts_it "column 30: missing '\)'" $'tp:sched_process_exec(p->comm\0)'
bad non_ascii_in_name "unexpected byte 0xc3 after the spec" $'tp:sched_process_ex\xc3\xa9c'
bad non_ascii_in_member "expected ',' or '\)', found byte 0xc3" $'ip_send_skb(skb->l\xc3\xa9n)'
bad non_ascii_first "column 1: expected a function name, found byte 0xc3" $'\xc3\xa9t\xc3\xa9'
bad invalid_utf8_byte "found byte 0xff" $'ip_send_skb(skb\xff)'
bad control_byte "found byte 0x01" $'ip_send_skb(skb\x01)'
bad newline_in_spec "found byte 0x0a" $'ip_send_skb(skb\n)'
bad newline_at_end_of_spec "unexpected byte 0x0a after the spec" $'ip_send_skb\n'
bad newline_in_string_constant "string constant compared with 'skb->len'" $'ip_send_skb(skb->len == "a\nb")'
bad carriage_return_in_spec "found byte 0x0d" $'tp:sched_switch(prev\r)'
bad assignment_not_comparison "'=' is not an operator; use '=='" "ip_send_skb(skb->len = 3)"
bad triple_equals "expected a constant, found '='" "tp:sched_process_exec(old_pid === 3)"
bad unknown_operator "expected a constant, found '>'" "tp:sched_process_exec(old_pid <> 3)"
bad bang_alone "unknown operator" "tp:sched_process_exec(old_pid ! 3)"
bad missing_constant "expected a constant, found '\)'" "tp:sched_process_exec(old_pid == )"
bad chained_comparison "expected ',' or '\)', found '='" "tp:sched_process_exec(old_pid == 3 == 4)"
bad float_constant "found '\.'" "ip_send_skb(skb->len == 1.5)"
bad bad_octal_digit "bad digit '8' in number" "ip_send_skb(skb->len == 08)"
bad binary_literal "bad digit 'b' in number" "ip_send_skb(skb->len == 0b101)"
bad hex_bad_digit "bad digit 'g' in number" "ip_send_skb(skb->len == 0x1g)"
bad plus_sign "expected a constant, found '\+'" "ip_send_skb(skb->len == +1)"
bad double_minus "expected a number after '-'" "ip_send_skb(skb->len == --1)"
bad number_beyond_64_bits "number '99999999999999999999999' does not fit in 64 bits" \
	"ip_send_skb(skb->len == 99999999999999999999999)"
bad too_many_values "more than 16 values" "tp:sched_process_exec($(printf 'p,%.0s' {1..16})p)"

# ================= spec meaning (BTF) =================
bad unknown_function "unknown kernel function 'no_such_function_xyz'" no_such_function_xyz
bad unknown_function_suggests "unknown kernel function 'ip_send_skbb' \(did you mean 'ip_send_skb'\?\)" ip_send_skbb
bad unknown_tracepoint "unknown tracepoint 'sched_process_exe' \(did you mean 'tp:sched_process_exec'\?\)" tp:sched_process_exe
bad unknown_argument "column 13: 'sbk' is not an argument of ip_send_skb \(arguments: net, skb\)" "ip_send_skb(sbk)"
bad no_arguments_at_all "'x' is not an argument of schedule \(no arguments\)" "schedule(x)"
bad unknown_member "column 18: no member 'lenx' in struct sk_buff" "ip_send_skb(skb->lenx)"
bad arrow_through_int "column 21: '->' on a value of type unsigned int" "ip_send_skb(skb->len->x)"
bad arrow_through_pid_t "'->' on a value of type pid_t, which is not a pointer" "tp:sched_process_exec(old_pid->x)"
bad arrow_through_char_array "'->' on a value of type char\[16\]" "tp:sched_process_exec(p->comm->x)"
bad dot_on_int "'\.' on a value of type pid_t, which is not a struct or union" "tp:sched_process_exec(old_pid.x)"
bad dot_on_pointer "column 16: '\.' on a pointer \(struct sk_buff \*\); use '->'" "ip_send_skb(skb.len)"
bad dot_after_int_member "'\.' on a value of type unsigned int" "ip_send_skb(skb->len.x)"
bad deref_of_int "'\*' on a value of type pid_t, which is not a pointer" "tp:sched_process_exec(*old_pid)"
bad double_deref_of_struct_pointer "'\*' on a value of type struct task_struct, which is not a pointer" "tp:sched_process_exec(**p)"
bad index_on_int "index on a value of type pid_t" "tp:sched_process_exec(old_pid[0])"
bad too_many_dereferences "more than 8 pointer dereferences" \
	"tp:sched_process_exec(p$(printf -- '->real_parent%.0s' {1..8})->pid)"
bad too_many_predicates "more than 8 predicates" "tp:sched_process_exec($(printf 'old_pid>1,%.0s' {1..8})old_pid>1)"
bad return_of_tracepoint "'return': tp:sched_process_exec has no return value" "tp:sched_process_exec(return)"
bad return_of_void_function "'return': schedule returns void" "schedule(return)"
bad predicate_on_array "'skb->cb' has type char\[48\]; predicates compare integers" "ip_send_skb(skb->cb == 1)"
bad signed_constant_too_large "constant 2147483648 does not fit 'old_pid' \(pid_t\)" "tp:sched_process_exec(old_pid == 2147483648)"
bad signed_constant_too_small "constant -2147483649 does not fit 'old_pid'" "tp:sched_process_exec(old_pid == -2147483649)"
bad u64_max_into_int "constant 18446744073709551615 does not fit 'old_pid'" "tp:sched_process_exec(old_pid == 18446744073709551615)"
bad negative_for_unsigned "negative constant -1 compared with 'skb->len', which is unsigned" "ip_send_skb(skb->len == -1)"
bad u16_overflow "constant 70000 does not fit 'skb->mac_len'" "ip_send_skb(skb->mac_len == 70000)"
bad u32_overflow "constant 4294967296 does not fit 'skb->len'" "ip_send_skb(skb->len == 4294967296)"
bad string_against_int "string constant compared with 'old_pid'" 'tp:sched_process_exec(old_pid == "x")'
bad string_longer_than_array "is longer than char\[16\]" 'tp:sched_process_exec(p->comm == "0123456789abcdefghij")'
bad string_ordered "strings compare only with '==' and '!='" 'tp:sched_process_exec(p->comm < "a")'
bad null_against_int "NULL compared with 'p->pid', which is not a pointer" "tp:sched_process_exec(p->pid == NULL)"
bad unknown_enumerator "unknown enumerator 'FOO_BAR_NOT_ENUM'" "tp:sched_process_exec(p->pid == FOO_BAR_NOT_ENUM)"
# Boundaries on the right side: these must be accepted.
accepted string_of_31_accepted -n 1 --duration 1 "do_sys_openat2(filename == \"$(long s 31)\")"
accepted int_limits_accepted -n 1 --duration 1 "do_sys_openat2(dfd == 2147483647, dfd == -2147483648)"
accepted u16_max_accepted -n 1 --duration 1 "ip_send_skb(skb->mac_len == 65535)"
accepted unsigned_enum64_enumerator_accepted -n 1 --duration 1 "security_file_ioctl(arg == PERF_CONTEXT_KERNEL)"

# ================= USDT: specs and files =================
bad usdt_missing_binary "'/nonexistent/app': No such file or directory" usdt /nonexistent/app:p:n
bad usdt_directory "'/tmp' is a directory" usdt /tmp:p:n
bad usdt_not_elf "is not an ELF file" usdt "$tmp/text:p:n"
bad usdt_empty_file "is not an ELF file" usdt "$tmp/empty:p:n"
bad usdt_device "is not an ELF file|not a regular file" usdt /dev/null:p:n
bad usdt_fifo "not a regular file|is a FIFO|is not an ELF file" usdt "$tmp/fifo:p:n"
bad usdt_elf_magic_only "is not an ELF file|truncated|malformed" usdt "$tmp/magic-only:p:n"
bad usdt_truncated_elf_100_bytes "truncated|malformed|corrupt" usdt "$tmp/trunc-100:ksnoop_test:req"
bad usdt_truncated_elf_half "truncated|malformed|corrupt" usdt "$tmp/trunc-half:ksnoop_test:req"
bad usdt_truncated_elf_end "truncated|malformed|corrupt" usdt "$tmp/trunc-end:ksnoop_test:req"
bad usdt_no_probes "has no USDT probes" usdt "$tmp/noprobes:p:n"
bad usdt_no_such_probe "no USDT probe 'ksnoop_test:nope'" usdt "$tmp/prog:ksnoop_test:nope"
bad usdt_no_provider_part "expected BINARY:PROVIDER:NAME" usdt "$tmp/prog:nope"
bad usdt_empty_provider "expected BINARY:PROVIDER:NAME" usdt "$tmp/prog::req"
bad usdt_empty_name "expected BINARY:PROVIDER:NAME" usdt "$tmp/prog:ksnoop_test:"
bad usdt_empty_binary "expected BINARY:PROVIDER:NAME" usdt ":ksnoop_test:req"
bad usdt_overlong_provider "provider.*(too long|longer than)" usdt "$tmp/prog:$L200:req"
bad usdt_overlong_probe_name "name.*(too long|longer than)" usdt "$tmp/prog:ksnoop_test:$L200"
bad usdt_overlong_path "name is too long" usdt "$(printf '/a%.0s' {1..2100}):p:n"
bad usdt_path_with_newline "No such file or directory" usdt $'/tmp/a\nb:p:n'
bad usdt_unknown_argument "'arg9' is not an argument of ksnoop_test:req \(arguments: arg0, arg1, arg2\)" \
	usdt "$tmp/prog:ksnoop_test:req(arg9)"
bad usdt_empty_cast "expected a type or 'str' after ':'" usdt "$tmp/prog:ksnoop_test:req(arg0:)"
bad usdt_unknown_type "no type 'struct nope \*'" usdt "$tmp/prog:ksnoop_test:obj(arg0:struct nope *)"
bad usdt_unparsable_type "'struct req x' is not a type name" usdt "$tmp/prog:ksnoop_test:obj(arg0:struct req x)"
bad usdt_overlong_type "type name is too long" usdt "$tmp/prog:ksnoop_test:req(arg0:$L200)"
bad usdt_unknown_member "no member 'nope' in struct req" usdt "$tmp/prog:ksnoop_test:obj(arg0:struct req *->nope)"
bad usdt_arrow_through_int "'->' on a value of type __s32" usdt "$tmp/prog:ksnoop_test:req(arg0->x)"
bad usdt_s8_out_of_range "constant 128 does not fit 'arg0' \(__s8\)" usdt "$tmp/prog:ksnoop_test:small(arg0 == 128)"
bad usdt_negative_for_u8 "negative constant -1 compared with 'arg1'" usdt "$tmp/prog:ksnoop_test:small(arg1 == -1)"
bad usdt_return "'return': ksnoop_test:req has no return value" usdt "$tmp/prog:ksnoop_test:req(return)"
bad usdt_overlong_string "string constant longer than 63 bytes" usdt "$tmp/prog:ksnoop_test:req(arg2:str == \"$L200\")"
bad usdt_missing_paren "missing '\)'" usdt "$tmp/prog:ksnoop_test:req(arg2:str"
bad usdt_btf_file_missing "'/nonexistent/types.btf'" \
	--btf /nonexistent/types.btf usdt "$tmp/prog:ksnoop_test:obj(arg0:struct req *)"
bad usdt_btf_file_not_btf "'$tmp/text'" --btf "$tmp/text" usdt "$tmp/prog:ksnoop_test:obj(arg0:struct req *)"
bad info_usdt_missing "'/nonexistent/app': No such file or directory" info usdt /nonexistent/app
bad info_usdt_not_elf "is not an ELF file" info usdt "$tmp/text"
bad info_usdt_fifo "not a regular file|is a FIFO|is not an ELF file" info usdt "$tmp/fifo"
bad info_usdt_truncated "truncated|malformed|corrupt" info usdt "$tmp/trunc-half"

wait
for ((i = 0; i < ncases; i++)); do
	report "$i"
done
note "$ncases cases"
