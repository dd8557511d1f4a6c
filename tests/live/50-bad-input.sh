#!/bin/bash
# The bad-input matrix: malformed command lines, specs and files, as a
# table (ks_errors): each row gives exit status 2 and exactly one line on
# stderr, the one tests/golden/50-bad-input/errors holds for it, nothing on
# stdout and no sanitizer report (this runs the ASan + UBSan build with
# leak detection, so an error path that leaks fails too).
#
# Rows run four at a time: most read the kernel's BTF and kallsyms, which
# takes a moment each; results are reported in the order written here.
. "$(dirname "$0")/helpers.bash"
golden=$(cd "$(dirname "$0")/../golden/50-bad-input" && pwd)
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

# NAME                             ARGS
KSNOOP_TIMEOUT=10 ks_errors --in "$tmp" "$golden/errors" <<'TABLE'
# ================= command line =================
unknown_long_option                --bogus ip_send_skb
unknown_short_option               -x ip_send_skb
option_without_value               ip_send_skb --pid
short_option_without_value         ip_send_skb -n
flag_given_a_value                 --json=1 ip_send_skb
nothing_to_do                      -v -z
no_arguments
trace_without_spec                 trace
usdt_without_spec                  usdt
info_without_target                info
info_usdt_without_binary           info usdt

# ================= bad numbers, every numeric option =================
pid_not_a_number                   -p abc ip_send_skb
pid_zero                           -p 0 ip_send_skb
pid_negative                       -p -5 ip_send_skb
pid_too_large                      -p 2147483648 ip_send_skb
pid_beyond_64_bits                 -p 99999999999999999999 ip_send_skb
pid_hex                            -p 0x10 ip_send_skb
pid_empty                          --pid= ip_send_skb
pid_trailing_space                 -p '5 ' ip_send_skb
pid_with_newline                   -p $'1\n2' ip_send_skb
tid_not_a_number                   --tid abc ip_send_skb
tid_zero                           --tid 0 ip_send_skb
count_zero                         -n 0 ip_send_skb
count_negative                     -n -1 ip_send_skb
count_negative_after_space         -n ' -1' ip_send_skb
count_exponent                     -n 1e3 ip_send_skb
count_beyond_64_bits               -n 18446744073709551616 ip_send_skb
duration_zero                      --duration 0 ip_send_skb
duration_bad_unit                  --duration 1.5x ip_send_skb
duration_hours                     --duration 10h ip_send_skb
duration_too_long                  --duration 31536001 ip_send_skb
duration_empty                     --duration '' ip_send_skb
max_bytes_zero                     --max-bytes 0 ip_send_skb
max_bytes_too_large                --max-bytes 32769 ip_send_skb
str_bytes_one                      --str-bytes 1 ip_send_skb
str_bytes_not_a_number             --str-bytes x ip_send_skb
buffer_not_power_of_2              --buffer 5000 ip_send_skb
buffer_too_small                   --buffer 2048 ip_send_skb
buffer_too_large                   --buffer 2147483648 ip_send_skb
buffer_suffix                      --buffer 4k ip_send_skb
mode_unknown                       --mode uprobe ip_send_skb
mode_empty                         --mode '' ip_send_skb
comm_empty                         -c '' ip_send_skb
comm_too_long                      -c 0123456789abcdef ip_send_skb

# ================= spec syntax: kernel functions and tracepoints =================
unbalanced_open                    "ip_send_skb(skb->len"
unbalanced_close                   "ip_send_skb(skb))"
close_without_open                 "ip_send_skb)"
nested_open                        "ip_send_skb((skb)"
paren_unclosed                     "ip_send_skb(((skb)"
empty_spec                         ""
blank_spec                         "   "
empty_function_name                "()"
empty_tracepoint_name              "tp:"
empty_tracepoint_name_with_list    "tp:(p)"
empty_item                         "ip_send_skb(,skb)"
trailing_comma                     "ip_send_skb(skb,)"
empty_member                       "ip_send_skb(skb->)"
empty_index                        "tp:sched_process_exec(p->comm[])"
unclosed_index                     "tp:sched_process_exec(p->comm[1)"
negative_index                     "tp:sched_process_exec(p->comm[-1])"
index_too_large                    "tp:sched_process_exec(p->comm[2147483648])"
index_out_of_bounds                "tp:sched_process_exec(p->comm[16])"
overlong_function_name             "$L200"
# NAME@ADDRESS: one of the functions of a name, by its kallsyms address.
address_missing                    "ip_send_skb@(skb)"
address_not_hex                    "ip_send_skb@xyz"
address_on_glob                    "ip_*@ffff"
address_of_none                    info ip_send_skb@1234
name_of_128_is_not_too_long        "$(long b 128)"
overlong_tracepoint_name           "tp:$L200"
overlong_argument_name             "ip_send_skb($L200)"
overlong_member_name               "ip_send_skb(skb->$L200)"
overlong_enumerator                "ip_send_skb(skb->len == $(long A 200))"
overlong_string                    "do_sys_openat2(filename == \"$(long s 80)\")"
string_of_64                       "do_sys_openat2(filename == \"$(long s 64)\")"
unterminated_string                'do_sys_openat2(filename == "abc)'
unterminated_char                  "tp:sched_process_exec(old_pid == 'x)"
empty_char                         "tp:sched_process_exec(old_pid == '')"
two_chars_in_char                  "tp:sched_process_exec(old_pid == 'ab')"
unknown_escape                     'do_sys_openat2(filename == "\q")'
hex_escape_without_digits          'do_sys_openat2(filename == "\x")'
nul_escape_in_string               'do_sys_openat2(filename == "a\0b")'
nul_hex_escape_in_string           'do_sys_openat2(filename == "a\x00b")'
# A NUL cannot be passed in an argument: the kernel ends the string there,
# as bash does with $'...\0...'.  What ksnoop then sees is a cut spec.
nul_in_argument_cuts_it            $'tp:sched_process_exec(p->comm\0)'
non_ascii_in_name                  $'tp:sched_process_ex\xc3\xa9c'
non_ascii_in_member                $'ip_send_skb(skb->l\xc3\xa9n)'
non_ascii_first                    $'\xc3\xa9t\xc3\xa9'
invalid_utf8_byte                  $'ip_send_skb(skb\xff)'
control_byte                       $'ip_send_skb(skb\x01)'
newline_in_spec                    $'ip_send_skb(skb\n)'
newline_at_end_of_spec             $'ip_send_skb\n'
newline_in_string_constant         $'ip_send_skb(skb->len == "a\nb")'
carriage_return_in_spec            $'tp:sched_switch(prev\r)'
assignment_not_comparison          "ip_send_skb(skb->len = 3)"
triple_equals                      "tp:sched_process_exec(old_pid === 3)"
unknown_operator                   "tp:sched_process_exec(old_pid <> 3)"
bang_alone                         "tp:sched_process_exec(old_pid ! 3)"
missing_constant                   "tp:sched_process_exec(old_pid == )"
chained_comparison                 "tp:sched_process_exec(old_pid == 3 == 4)"
float_constant                     "ip_send_skb(skb->len == 1.5)"
bad_octal_digit                    "ip_send_skb(skb->len == 08)"
binary_literal                     "ip_send_skb(skb->len == 0b101)"
hex_bad_digit                      "ip_send_skb(skb->len == 0x1g)"
plus_sign                          "ip_send_skb(skb->len == +1)"
double_minus                       "ip_send_skb(skb->len == --1)"
number_beyond_64_bits              "ip_send_skb(skb->len == 99999999999999999999999)"
too_many_values                    "tp:sched_process_exec($(printf 'p,%.0s' {1..16})p)"

# ================= spec meaning (BTF) =================
unknown_function                   no_such_function_xyz
unknown_function_suggests          ip_send_skbb
unknown_tracepoint                 tp:sched_process_exe
unknown_argument                   "ip_send_skb(sbk)"
no_arguments_at_all                "schedule(x)"
unknown_member                     "ip_send_skb(skb->lenx)"
arrow_through_int                  "ip_send_skb(skb->len->x)"
arrow_through_pid_t                "tp:sched_process_exec(old_pid->x)"
arrow_through_char_array           "tp:sched_process_exec(p->comm->x)"
dot_on_int                         "tp:sched_process_exec(old_pid.x)"
dot_on_pointer                     "ip_send_skb(skb.len)"
dot_after_int_member               "ip_send_skb(skb->len.x)"
deref_of_int                       "tp:sched_process_exec(*old_pid)"
double_deref_of_struct_pointer     "tp:sched_process_exec(**p)"
index_on_int                       "tp:sched_process_exec(old_pid[0])"
too_many_dereferences              "tp:sched_process_exec(p$(printf -- '->real_parent%.0s' {1..8})->pid)"
too_many_predicates                "tp:sched_process_exec($(printf 'old_pid>1,%.0s' {1..8})old_pid>1)"
return_of_tracepoint               "tp:sched_process_exec(return)"
return_of_void_function            "schedule(return)"
predicate_on_array                 "ip_send_skb(skb->cb == 1)"
signed_constant_too_large          "tp:sched_process_exec(old_pid == 2147483648)"
signed_constant_too_small          "tp:sched_process_exec(old_pid == -2147483649)"
u64_max_into_int                   "tp:sched_process_exec(old_pid == 18446744073709551615)"
negative_for_unsigned              "ip_send_skb(skb->len == -1)"
u16_overflow                       "ip_send_skb(skb->mac_len == 70000)"
u32_overflow                       "ip_send_skb(skb->len == 4294967296)"
string_against_int                 'tp:sched_process_exec(old_pid == "x")'
string_longer_than_array           'tp:sched_process_exec(p->comm == "0123456789abcdefghij")'
string_ordered                     'tp:sched_process_exec(p->comm < "a")'
null_against_int                   "tp:sched_process_exec(p->pid == NULL)"
unknown_enumerator                 "tp:sched_process_exec(p->pid == FOO_BAR_NOT_ENUM)"

# ================= USDT: specs and files =================
usdt_missing_binary                usdt /nonexistent/app:p:n
usdt_directory                     usdt /tmp:p:n
usdt_not_elf                       usdt "./text:p:n"
usdt_empty_file                    usdt "./empty:p:n"
usdt_device                        usdt /dev/null:p:n
usdt_fifo                          usdt "./fifo:p:n"
usdt_elf_magic_only                usdt "./magic-only:p:n"
usdt_truncated_elf_100_bytes       usdt "./trunc-100:ksnoop_test:req"
usdt_truncated_elf_half            usdt "./trunc-half:ksnoop_test:req"
usdt_truncated_elf_end             usdt "./trunc-end:ksnoop_test:req"
usdt_no_probes                     usdt "./noprobes:p:n"
usdt_no_such_probe                 usdt "./prog:ksnoop_test:nope"
usdt_no_provider_part              usdt "./prog:nope"
usdt_empty_provider                usdt "./prog::req"
usdt_empty_name                    usdt "./prog:ksnoop_test:"
usdt_empty_binary                  usdt ":ksnoop_test:req"
usdt_overlong_provider             usdt "./prog:$L200:req"
usdt_overlong_probe_name           usdt "./prog:ksnoop_test:$L200"
usdt_overlong_path                 usdt "$(printf '/a%.0s' {1..2100}):p:n"
usdt_path_with_newline             usdt $'/tmp/a\nb:p:n'
usdt_unknown_argument              usdt "./prog:ksnoop_test:req(arg9)"
usdt_empty_cast                    usdt "./prog:ksnoop_test:req(arg0:)"
usdt_unknown_type                  usdt "./prog:ksnoop_test:obj(arg0:struct nope *)"
usdt_unparsable_type               usdt "./prog:ksnoop_test:obj(arg0:struct req x)"
usdt_overlong_type                 usdt "./prog:ksnoop_test:req(arg0:$L200)"
usdt_unknown_member                usdt "./prog:ksnoop_test:obj(arg0:struct req *->nope)"
usdt_arrow_through_int             usdt "./prog:ksnoop_test:req(arg0->x)"
usdt_s8_out_of_range               usdt "./prog:ksnoop_test:small(arg0 == 128)"
usdt_negative_for_u8               usdt "./prog:ksnoop_test:small(arg1 == -1)"
usdt_return                        usdt "./prog:ksnoop_test:req(return)"
usdt_overlong_string               usdt "./prog:ksnoop_test:req(arg2:str == \"$L200\")"
usdt_missing_paren                 usdt "./prog:ksnoop_test:req(arg2:str"
usdt_btf_file_missing              --btf /nonexistent/types.btf usdt "./prog:ksnoop_test:obj(arg0:struct req *)"
# --btf FILE that is not BTF says so (libbpf's "Unknown error 4001",
# EIO and ENODATA were what it said once).
usdt_btf_file_not_btf              --btf "./text" usdt "./prog:ksnoop_test:obj(arg0:struct req *)"
usdt_btf_file_empty                --btf ./empty usdt "./prog:ksnoop_test:obj(arg0:struct req *)"
usdt_btf_file_elf_without_btf      --btf ./noprobes usdt "./prog:ksnoop_test:obj(arg0:struct req *)"
usdt_btf_file_directory            --btf . usdt "./prog:ksnoop_test:obj(arg0:struct req *)"
info_usdt_missing                  info usdt /nonexistent/app
info_usdt_not_elf                  info usdt "./text"
info_usdt_fifo                     info usdt "./fifo"
info_usdt_truncated                info usdt "./trunc-half"
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
note "$(ls "$ROWS_DIR" | grep -c "\.rc$") error rows"
