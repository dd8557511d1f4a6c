#!/bin/bash
# The bad-input matrix: malformed command lines, specs and files, as a
# table (errors.bash): each row gives exit status 2 and exactly one line on
# stderr, the one tests/golden/50-bad-input/errors holds for it, nothing on
# stdout and no sanitizer report (this runs the ASan + UBSan build with
# leak detection, so an error path that leaks fails too).
#
# Rows run four at a time: most read the kernel's BTF and kallsyms, which
# takes a moment each; results are reported in the order written here.
. "$(dirname "$0")/helpers.bash"
. "$(dirname "$0")/errors.bash"
root=$(cd "$(dirname "$0")/../.." && pwd)
P=${KSNOOP_USDT_DIR:-$root/build/usdt}/usdt_prog

scratch_dir

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

# NAME                             STATUS  ARGS
error_table tests/golden/50-bad-input/errors <<'TABLE'
# ================= command line =================
unknown_long_option                2  --bogus ip_send_skb
unknown_short_option               2  -x ip_send_skb
option_without_value               2  ip_send_skb --pid
short_option_without_value         2  ip_send_skb -n
flag_given_a_value                 2  --json=1 ip_send_skb
nothing_to_do                      2  -v -z
no_arguments                       2
trace_without_spec                 2  trace
usdt_without_spec                  2  usdt
info_without_target                2  info
info_usdt_without_binary           2  info usdt

# ================= bad numbers, every numeric option =================
pid_not_a_number                   2  -p abc ip_send_skb
pid_zero                           2  -p 0 ip_send_skb
pid_negative                       2  -p -5 ip_send_skb
pid_too_large                      2  -p 2147483648 ip_send_skb
pid_beyond_64_bits                 2  -p 99999999999999999999 ip_send_skb
pid_hex                            2  -p 0x10 ip_send_skb
pid_empty                          2  --pid= ip_send_skb
pid_trailing_space                 2  -p '5 ' ip_send_skb
pid_with_newline                   2  -p $'1\n2' ip_send_skb
tid_not_a_number                   2  --tid abc ip_send_skb
tid_zero                           2  --tid 0 ip_send_skb
count_zero                         2  -n 0 ip_send_skb
count_negative                     2  -n -1 ip_send_skb
count_negative_after_space         2  -n ' -1' ip_send_skb
count_exponent                     2  -n 1e3 ip_send_skb
count_beyond_64_bits               2  -n 18446744073709551616 ip_send_skb
duration_zero                      2  --duration 0 ip_send_skb
duration_bad_unit                  2  --duration 1.5x ip_send_skb
duration_hours                     2  --duration 10h ip_send_skb
duration_too_long                  2  --duration 31536001 ip_send_skb
duration_empty                     2  --duration '' ip_send_skb
max_bytes_zero                     2  --max-bytes 0 ip_send_skb
max_bytes_too_large                2  --max-bytes 32769 ip_send_skb
str_bytes_one                      2  --str-bytes 1 ip_send_skb
str_bytes_not_a_number             2  --str-bytes x ip_send_skb
buffer_not_power_of_2              2  --buffer 5000 ip_send_skb
buffer_too_small                   2  --buffer 2048 ip_send_skb
buffer_too_large                   2  --buffer 2147483648 ip_send_skb
buffer_suffix                      2  --buffer 4k ip_send_skb
mode_unknown                       2  --mode uprobe ip_send_skb
mode_empty                         2  --mode '' ip_send_skb
comm_empty                         2  -c '' ip_send_skb
comm_too_long                      2  -c 0123456789abcdef ip_send_skb

# ================= spec syntax: kernel functions and tracepoints =================
unbalanced_open                    2  "ip_send_skb(skb->len"
unbalanced_close                   2  "ip_send_skb(skb))"
close_without_open                 2  "ip_send_skb)"
nested_open                        2  "ip_send_skb((skb)"
paren_unclosed                     2  "ip_send_skb(((skb)"
empty_spec                         2  ""
blank_spec                         2  "   "
empty_function_name                2  "()"
empty_tracepoint_name              2  "tp:"
empty_tracepoint_name_with_list    2  "tp:(p)"
empty_item                         2  "ip_send_skb(,skb)"
trailing_comma                     2  "ip_send_skb(skb,)"
empty_member                       2  "ip_send_skb(skb->)"
empty_index                        2  "tp:sched_process_exec(p->comm[])"
unclosed_index                     2  "tp:sched_process_exec(p->comm[1)"
negative_index                     2  "tp:sched_process_exec(p->comm[-1])"
index_too_large                    2  "tp:sched_process_exec(p->comm[2147483648])"
index_out_of_bounds                2  "tp:sched_process_exec(p->comm[16])"
overlong_function_name             2  "$L200"
# NAME@ADDRESS: one of the functions of a name, by its kallsyms address.
address_missing                    2  "ip_send_skb@(skb)"
address_not_hex                    2  "ip_send_skb@xyz"
address_on_glob                    2  "ip_*@ffff"
address_of_none                    2  info ip_send_skb@1234
name_of_128_is_not_too_long        2  "$(long b 128)"
overlong_tracepoint_name           2  "tp:$L200"
overlong_argument_name             2  "ip_send_skb($L200)"
overlong_member_name               2  "ip_send_skb(skb->$L200)"
overlong_enumerator                2  "ip_send_skb(skb->len == $(long A 200))"
overlong_string                    2  "do_sys_openat2(filename == \"$(long s 80)\")"
string_of_64                       2  "do_sys_openat2(filename == \"$(long s 64)\")"
unterminated_string                2  'do_sys_openat2(filename == "abc)'
unterminated_char                  2  "tp:sched_process_exec(old_pid == 'x)"
empty_char                         2  "tp:sched_process_exec(old_pid == '')"
two_chars_in_char                  2  "tp:sched_process_exec(old_pid == 'ab')"
unknown_escape                     2  'do_sys_openat2(filename == "\q")'
hex_escape_without_digits          2  'do_sys_openat2(filename == "\x")'
nul_escape_in_string               2  'do_sys_openat2(filename == "a\0b")'
nul_hex_escape_in_string           2  'do_sys_openat2(filename == "a\x00b")'
# A NUL cannot be passed in an argument: the kernel ends the string there,
# as bash does with $'...\0...'.  What ksnoop then sees is a cut spec.
nul_in_argument_cuts_it            2  $'tp:sched_process_exec(p->comm\0)'
non_ascii_in_name                  2  $'tp:sched_process_ex\xc3\xa9c'
non_ascii_in_member                2  $'ip_send_skb(skb->l\xc3\xa9n)'
non_ascii_first                    2  $'\xc3\xa9t\xc3\xa9'
invalid_utf8_byte                  2  $'ip_send_skb(skb\xff)'
control_byte                       2  $'ip_send_skb(skb\x01)'
newline_in_spec                    2  $'ip_send_skb(skb\n)'
newline_at_end_of_spec             2  $'ip_send_skb\n'
newline_in_string_constant         2  $'ip_send_skb(skb->len == "a\nb")'
carriage_return_in_spec            2  $'tp:sched_switch(prev\r)'
assignment_not_comparison          2  "ip_send_skb(skb->len = 3)"
triple_equals                      2  "tp:sched_process_exec(old_pid === 3)"
unknown_operator                   2  "tp:sched_process_exec(old_pid <> 3)"
bang_alone                         2  "tp:sched_process_exec(old_pid ! 3)"
missing_constant                   2  "tp:sched_process_exec(old_pid == )"
chained_comparison                 2  "tp:sched_process_exec(old_pid == 3 == 4)"
float_constant                     2  "ip_send_skb(skb->len == 1.5)"
bad_octal_digit                    2  "ip_send_skb(skb->len == 08)"
binary_literal                     2  "ip_send_skb(skb->len == 0b101)"
hex_bad_digit                      2  "ip_send_skb(skb->len == 0x1g)"
plus_sign                          2  "ip_send_skb(skb->len == +1)"
double_minus                       2  "ip_send_skb(skb->len == --1)"
number_beyond_64_bits              2   "ip_send_skb(skb->len == 99999999999999999999999)"
too_many_values                    2  "tp:sched_process_exec($(printf 'p,%.0s' {1..16})p)"

# ================= spec meaning (BTF) =================
unknown_function                   2  no_such_function_xyz
unknown_function_suggests          2  ip_send_skbb
unknown_tracepoint                 2  tp:sched_process_exe
unknown_argument                   2  "ip_send_skb(sbk)"
no_arguments_at_all                2  "schedule(x)"
unknown_member                     2  "ip_send_skb(skb->lenx)"
arrow_through_int                  2  "ip_send_skb(skb->len->x)"
arrow_through_pid_t                2  "tp:sched_process_exec(old_pid->x)"
arrow_through_char_array           2  "tp:sched_process_exec(p->comm->x)"
dot_on_int                         2  "tp:sched_process_exec(old_pid.x)"
dot_on_pointer                     2  "ip_send_skb(skb.len)"
dot_after_int_member               2  "ip_send_skb(skb->len.x)"
deref_of_int                       2  "tp:sched_process_exec(*old_pid)"
double_deref_of_struct_pointer     2  "tp:sched_process_exec(**p)"
index_on_int                       2  "tp:sched_process_exec(old_pid[0])"
too_many_dereferences              2   "tp:sched_process_exec(p$(printf -- '->real_parent%.0s' {1..8})->pid)"
too_many_predicates                2  "tp:sched_process_exec($(printf 'old_pid>1,%.0s' {1..8})old_pid>1)"
return_of_tracepoint               2  "tp:sched_process_exec(return)"
return_of_void_function            2  "schedule(return)"
predicate_on_array                 2  "ip_send_skb(skb->cb == 1)"
signed_constant_too_large          2  "tp:sched_process_exec(old_pid == 2147483648)"
signed_constant_too_small          2  "tp:sched_process_exec(old_pid == -2147483649)"
u64_max_into_int                   2  "tp:sched_process_exec(old_pid == 18446744073709551615)"
negative_for_unsigned              2  "ip_send_skb(skb->len == -1)"
u16_overflow                       2  "ip_send_skb(skb->mac_len == 70000)"
u32_overflow                       2  "ip_send_skb(skb->len == 4294967296)"
string_against_int                 2  'tp:sched_process_exec(old_pid == "x")'
string_longer_than_array           2  'tp:sched_process_exec(p->comm == "0123456789abcdefghij")'
string_ordered                     2  'tp:sched_process_exec(p->comm < "a")'
null_against_int                   2  "tp:sched_process_exec(p->pid == NULL)"
unknown_enumerator                 2  "tp:sched_process_exec(p->pid == FOO_BAR_NOT_ENUM)"

# ================= USDT: specs and files =================
usdt_missing_binary                2  usdt /nonexistent/app:p:n
usdt_directory                     2  usdt /tmp:p:n
usdt_not_elf                       2  usdt "./text:p:n"
usdt_empty_file                    2  usdt "./empty:p:n"
usdt_device                        2  usdt /dev/null:p:n
usdt_fifo                          2  usdt "./fifo:p:n"
usdt_elf_magic_only                2  usdt "./magic-only:p:n"
usdt_truncated_elf_100_bytes       2  usdt "./trunc-100:ksnoop_test:req"
usdt_truncated_elf_half            2  usdt "./trunc-half:ksnoop_test:req"
usdt_truncated_elf_end             2  usdt "./trunc-end:ksnoop_test:req"
usdt_no_probes                     2  usdt "./noprobes:p:n"
usdt_no_such_probe                 2  usdt "./prog:ksnoop_test:nope"
usdt_no_provider_part              2  usdt "./prog:nope"
usdt_empty_provider                2  usdt "./prog::req"
usdt_empty_name                    2  usdt "./prog:ksnoop_test:"
usdt_empty_binary                  2  usdt ":ksnoop_test:req"
usdt_overlong_provider             2  usdt "./prog:$L200:req"
usdt_overlong_probe_name           2  usdt "./prog:ksnoop_test:$L200"
usdt_overlong_path                 2  usdt "$(printf '/a%.0s' {1..2100}):p:n"
usdt_path_with_newline             2  usdt $'/tmp/a\nb:p:n'
usdt_unknown_argument              2   usdt "./prog:ksnoop_test:req(arg9)"
usdt_empty_cast                    2  usdt "./prog:ksnoop_test:req(arg0:)"
usdt_unknown_type                  2  usdt "./prog:ksnoop_test:obj(arg0:struct nope *)"
usdt_unparsable_type               2  usdt "./prog:ksnoop_test:obj(arg0:struct req x)"
usdt_overlong_type                 2  usdt "./prog:ksnoop_test:req(arg0:$L200)"
usdt_unknown_member                2  usdt "./prog:ksnoop_test:obj(arg0:struct req *->nope)"
usdt_arrow_through_int             2  usdt "./prog:ksnoop_test:req(arg0->x)"
usdt_s8_out_of_range               2  usdt "./prog:ksnoop_test:small(arg0 == 128)"
usdt_negative_for_u8               2  usdt "./prog:ksnoop_test:small(arg1 == -1)"
usdt_return                        2  usdt "./prog:ksnoop_test:req(return)"
usdt_overlong_string               2  usdt "./prog:ksnoop_test:req(arg2:str == \"$L200\")"
usdt_missing_paren                 2  usdt "./prog:ksnoop_test:req(arg2:str"
usdt_btf_file_missing              2  --btf /nonexistent/types.btf usdt "./prog:ksnoop_test:obj(arg0:struct req *)"
# --btf FILE that is not BTF says so (libbpf's "Unknown error 4001",
# EIO and ENODATA were what it said once).
usdt_btf_file_not_btf              2  --btf "./text" usdt "./prog:ksnoop_test:obj(arg0:struct req *)"
usdt_btf_file_empty                2  --btf ./empty usdt "./prog:ksnoop_test:obj(arg0:struct req *)"
usdt_btf_file_elf_without_btf      2  --btf ./noprobes usdt "./prog:ksnoop_test:obj(arg0:struct req *)"
usdt_btf_file_directory            2  --btf . usdt "./prog:ksnoop_test:obj(arg0:struct req *)"
info_usdt_missing                  2  info usdt /nonexistent/app
info_usdt_not_elf                  2  info usdt "./text"
info_usdt_fifo                     2  info usdt "./fifo"
info_usdt_truncated                2  info usdt "./trunc-half"
TABLE

# Boundaries on the right side: these must be accepted, parsed and
# resolved: the run gets as far as attaching (exit 0, or 1 where this
# kernel cannot trace functions).
accepted() {
	local name=$1 err rc
	shift
	err=$(ks "$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" = 0 ] || { [ "$rc" = 1 ] &&
		grep -qE 'cannot trace kernel functions|needs root' <<<"$err"; }; then
		pass "$name"
	else
		fail "$name" "exit $rc; a valid spec was refused: ksnoop $*
$err"
	fi
}
accepted string_of_31_accepted -n 1 --duration 1 "do_sys_openat2(filename == \"$(long s 31)\")"
accepted int_limits_accepted -n 1 --duration 1 "do_sys_openat2(dfd == 2147483647, dfd == -2147483648)"
accepted u16_max_accepted -n 1 --duration 1 "ip_send_skb(skb->mac_len == 65535)"
accepted unsigned_enum64_enumerator_accepted -n 1 --duration 1 "security_file_ioctl(arg == PERF_CONTEXT_KERNEL)"
note "$(ls "$ET_DIR" | grep -c "^[0-9]*\.rc$") error rows"
