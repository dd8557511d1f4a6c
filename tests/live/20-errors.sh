#!/bin/bash
# Bad input: one line on stderr naming the problem, exit 2 (usage/spec) or
# 1 (runtime), never a crash.
. "$(dirname "$0")/helpers.bash"

expect_error unknown_function 2 "unknown kernel function 'ip_send_skbb' \(did you mean 'ip_send_skb'\?\)" info ip_send_skbb
expect_error unknown_function_trace 2 "unknown kernel function 'no_such_function_xyz'" no_such_function_xyz
expect_error unknown_tracepoint 2 "unknown tracepoint 'sched_process_exe' \(did you mean 'tp:sched_process_exec'\?\)" tp:sched_process_exe
expect_error unknown_option 2 "unknown option '--bogus'" --bogus info ip_send_skb
expect_error option_needs_value 2 "needs a value" info ip_send_skb --pid
expect_error bad_pid 2 "--pid: 'abc' is not a number" -p abc ip_send_skb
expect_error negative_count 2 "--max-events: '-1' is not a number" -n -1 ip_send_skb
expect_error folded_alone 2 "--folded goes with --count" --folded tp:sched_switch
expect_error interval_alone 2 "--interval goes with --count or --hist" --interval 1 tp:sched_switch
expect_error hist_with_count 2 "--hist and --count are two output modes; give one" --hist --count 'tp:sys_enter(id)'
expect_error count_with_hist 2 "--count and --hist are two output modes; give one" --count --hist 'tp:sys_enter(id)'
expect_error hist_with_stack 2 "--hist counts by a value: not with -s" --hist -s 'tp:sys_enter(id)'
expect_error hist_with_max_events 2 "--hist prints no events: -n/--max-events does not apply" --hist -n 3 'tp:sys_enter(id)'
expect_error hist_two_values 2 "--hist counts by one value; 'args' is a second" --hist 'tp:sys_enter(id, args)'
expect_error hist_no_value 2 "--hist without a value counts call durations, and a tracepoint has no return; name the numeric value to count by, as in \"tp:sys_enter\(id\)\"$" --hist tp:sys_enter
expect_error count_with_max_events 2 "--count prints no events: -n/--max-events does not apply" --count -n 3 tp:sched_switch
expect_error bad_mode 2 "--mode: 'uprobe' is not one of fentry, kprobe" --mode uprobe ip_send_skb
expect_error buffer_not_pow2 2 "--buffer: 5000 is not a power of 2" --buffer 5000 ip_send_skb
expect_error no_command 2 "expected a command or a SPEC" -v
expect_error info_no_args 2 "info: expected at least one" info
expect_error missing_paren 2 "column 21: missing '\)'" "ip_send_skb(skb->len"
expect_error trailing_junk 2 "column 18: unexpected 'x' after the spec" "ip_send_skb(skb) x"
expect_error bad_operator 2 "column 22: '=' is not an operator; use '=='" "ip_send_skb(skb->len = 3)"
expect_error unknown_arg 2 "column 13: 'sbk' is not an argument of ip_send_skb \(arguments: net, skb\)" "ip_send_skb(sbk)"
expect_error unknown_member 2 "column 18: no member 'lenx' in struct sk_buff" "ip_send_skb(skb->lenx)"
expect_error arrow_on_scalar 2 "column 21: '->' on a value of type unsigned int" "ip_send_skb(skb->len->x)"
expect_error dot_on_pointer 2 "column 16: '.' on a pointer \(struct sk_buff \*\); use '->'" "ip_send_skb(skb.len)"
expect_error index_on_scalar 2 "index on a value of type unsigned int" "ip_send_skb(skb->len[1])"
expect_error return_on_tracepoint 2 "'return': tp:sched_process_exec has no return value" "tp:sched_process_exec(return)"
expect_error unterminated_string 2 "unterminated string constant" 'ip_send_skb(skb->len == "abc)'
expect_error constant_out_of_range 2 "constant 70000 does not fit 'skb->mac_len'" "ip_send_skb(skb->mac_len == 70000)"
expect_error negative_unsigned 2 "negative constant -1 compared with 'skb->len', which is unsigned" "ip_send_skb(skb->len == -1)"
expect_error unknown_enumerator 2 "column 65: unknown enumerator 'TCP_NOPE'" "tp:inet_sock_set_state(newstate == TCP_ESTABLISHED, oldstate == TCP_NOPE)"
expect_error enumerator_out_of_range 2 "enumerator 'IPPROTO_MPTCP' \(262\) does not fit" "ip_send_skb(skb->sk->__sk_common.skc_state == IPPROTO_MPTCP)"
expect_error constant_too_big_for_u8 2 "column 62: constant 300 does not fit" "ip_send_skb(skb->len == 1, skb->sk->__sk_common.skc_state == 300)"
expect_error predicate_on_bitfield_range 2 "constant 2 does not fit 'skb->cloned'" "ip_send_skb(skb->cloned == 2)"
expect_error predicate_on_struct 2 "predicates compare integers" "ip_send_skb(skb->cb == 1)"

# info looks a spec up as tracing does (targets.c): a spec that names
# nothing is the same error, in the same words, with the same status.
same_error() {
	local name=$1 re=$2 spec=$3 info_err trace_err info_rc trace_rc
	info_err=$(ks info "$spec" 2>&1 >/dev/null); info_rc=$?
	trace_err=$(ks --duration 1 "$spec" 2>&1 >/dev/null); trace_rc=$?
	error_is "info_$name" 2 "$re" "$info_rc" "$info_err" "ksnoop info $spec"
	expect_eq "info_trace_same_$name" "$trace_rc: $trace_err" "$info_rc: $info_err"
}
same_error unknown_module "^ksnoop: spec 'nosuchmod_zz:foo\\*': no module 'nosuchmod_zz' with BTF" 'nosuchmod_zz:foo*'
same_error glob_matches_nothing "^ksnoop: spec 'ksnoop_nosuch_zz\\*': no kernel function with BTF matches 'ksnoop_nosuch_zz\\*'$" 'ksnoop_nosuch_zz*'
same_error module_glob_matches_nothing "no kernel function with BTF matches 'ksnoop_nosuch_zz\\*' in vmlinux$" 'vmlinux:ksnoop_nosuch_zz*'
same_error unknown_tracepoint "^ksnoop: spec 'tp:sched_process_exe': unknown tracepoint 'sched_process_exe' \\(did you mean 'tp:sched_process_exec'\\?\\)$" 'tp:sched_process_exe'
same_error tracepoint_glob_matches_nothing "no tracepoint matches 'tp:ksnoop_nosuch_zz\\*'$" 'tp:ksnoop_nosuch_zz*'
same_error unknown_function "unknown kernel function 'ip_send_skbb' \\(did you mean 'ip_send_skb'\\?\\)$" 'ip_send_skbb'
same_error spec_syntax "^ksnoop: spec 'ip_send_skb x': column 13: unexpected 'x' after the spec$" 'ip_send_skb x'

# This kernel has no kprobes and refuses fentry: say so and what works,
# known from the probed features before anything attaches.
# (Bounded: on a kernel that can trace, this ends and fails, never hangs.)
if [ "$(id -u)" = 0 ]; then
	expect_error no_kprobes_no_fentry 1 "cannot trace kernel functions on this kernel: fentry/fexit are refused \(.+\) and kprobes are not available.*tracepoints \(tp:NAME\) and USDT probes still work" -n 1 --duration 1 ip_send_skb
	# A glob: the same error, not a trace of nothing.
	expect_error glob_no_kprobes_no_fentry 1 "cannot trace kernel functions on this kernel: fentry/fexit are refused \(.+\) and kprobes are not available" --duration 1 'ip_send_s*'
	expect_error glob_nothing_attached_kprobe 1 "cannot trace kernel functions on this kernel: kprobes are not available" --mode kprobe --duration 1 'ip_send_s*'
	expect_error mode_fentry_refused 1 "^ksnoop: --mode fentry: this kernel refuses fentry/fexit \(.+\); tracepoints \(tp:NAME\) and USDT probes still work$" --mode fentry --duration 1 ip_send_skb
	# A kernel said to have fentry (injected) that refuses the function
	# itself: the per-function fallback to kprobes, then what is missing.
	KSNOOP_FEATURES=+fentry expect_error fentry_refused_falls_back 1 "fentry was refused \(failed to load fentry/fexit programs for 'ip_send_skb': .*\) and kprobes are not available" --duration 1 ip_send_skb
	KSNOOP_FEATURES=+fentry expect_error glob_nothing_attached 1 "cannot trace kernel functions on this kernel: fentry was refused \(none of the [0-9]+ function\(s\) matched could be attached: .*kprobes are not available" --duration 1 'ip_send_s*'
	# -v: one line describing the kernel, every feature named; an injected one marked.
	out=$(ks -v --duration 0.1 ip_send_skb 2>&1 >/dev/null)
	expect_match kernel_features_line "^ksnoop: kernel [^ ]+: fentry no \(.+\), kprobes no, kprobe_multi (yes|no), uprobe_sleepable (yes|no), tp_cookies (yes|no), ringbuf yes; probed in [0-9.]+ ms$" "$out"
	expect_eq kernel_features_once 1 "$(grep -c '^ksnoop: kernel [^ ]*: fentry' <<<"$out")"
	# No kernel function traced: fentry and kprobe.multi are not asked.
	out=$(ks -v --duration 0.1 tp:sched_process_free 2>&1 >/dev/null)
	expect_match kernel_features_tp_only "^ksnoop: kernel [^ ]+: fentry not probed, kprobes no, kprobe_multi not probed, uprobe_sleepable (yes|no), tp_cookies (yes|no), ringbuf yes; probed in [0-9.]+ ms$" "$out"
	out=$(KSNOOP_FEATURES=-uprobe_sleepable,+kprobes ks -v --mode nope tp:sched_process_free 2>&1 >/dev/null)
	expect_no_match kernel_features_not_before_options '^ksnoop: kernel [^ ]*: fentry' "$out"
	out=$(KSNOOP_FEATURES=-uprobe_sleepable ks -v --duration 0.1 tp:sched_process_free 2>&1 >/dev/null)
	expect_match kernel_features_injected_marked 'uprobe_sleepable no \(KSNOOP_FEATURES\)' "$out"
	KSNOOP_FEATURES=-ringbuf expect_error no_ringbuf 1 "^ksnoop: this kernel has no BPF ring buffer" --duration 1 tp:sched_process_free
	# --hist of a tracepoint without a value: the example it gives names
	# a number the tracepoint has (an argument, or a member of the struct
	# one points to; it once said "(arg0)", which tracepoints refuse),
	# and that example runs.
	for tp in tp:sched_process_exec tp:sched_process_exit tp:sched:sched_switch; do
		name=hist_example_${tp##*:}
		err=$(ks --hist "$tp" 2>&1 >/dev/null); rc=$?
		error_is "$name" 2 "name the numeric value to count by, as in \"$tp\([a-z_]+(->[a-z_]+)?\)\"$" "$rc" "$err" "ksnoop --hist $tp"
		example=$(sed -n 's/.*, as in "\(.*\)"$/\1/p' <<<"$err")
		out=$( (for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.1; /bin/true; done) >/dev/null &
			ks --hist --duration 1.5 "$example" 2>/dev/null); rc=$?
		expect_eq "${name}_runs" "0 ${example/tp:sched:/tp:}" "$rc $(sed -n 's/^\(tp:[a-z_]*\): \([^ ]*\) (.*/\1(\2)/p' <<<"$out" | head -1)"
	done
	expect_eq hist_example_exec_argument "tp:sched_process_exec(old_pid)" \
		"$(ks --hist tp:sched_process_exec 2>&1 | sed -n 's/.*, as in "\(.*\)"$/\1/p')"
	KSNOOP_FEATURES=-fentry,nope expect_error features_env_refused 2 "^ksnoop: KSNOOP_FEATURES: 'nope' is not \[\+\|-\]NAME, NAME one of fentry, kprobes" --duration 1 tp:sched_process_free
else
	skip no_kprobes_no_fentry "needs root"
fi

out=$(ks --help); rc=$?
expect_eq help_status 0 "$rc"
expect_match help_grammar '^SPEC +:= ' "$out"
out=$(ks -V)
expect_match version '^ksnoop [0-9]+\.[0-9]+\.[0-9]+$' "$out"
