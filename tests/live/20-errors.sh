#!/bin/bash
# Bad input: one line on stderr naming the problem, exit 2 (usage/spec) or
# 1 (runtime), never a crash.  The messages are tables (ks_errors, tests/lib/cases.sh): the
# exact line of each row is in tests/golden/20-errors/errors, and in
# root-errors for what needs root.
. "$(dirname "$0")/helpers.bash"
golden=$(cd "$(dirname "$0")/../golden/20-errors" && pwd)
scratch_dir

# info looks a spec up as tracing does (targets.c): a spec that names
# nothing is the same error, in the same words, with the same status
# (info_NAME rows here, info_trace_same_NAME below).
# NAME                           ARGS
ks_errors --in "$tmp" "$golden/errors" <<'TABLE'
unknown_function                 info ip_send_skbb
unknown_function_trace           no_such_function_xyz
unknown_tracepoint               tp:sched_process_exe
unknown_option                   --bogus info ip_send_skb
option_needs_value               info ip_send_skb --pid
bad_pid                          -p abc ip_send_skb
negative_count                   -n -1 ip_send_skb
folded_alone                     --folded tp:sched_switch
interval_alone                   --interval 1 tp:sched_switch
hist_with_count                  --hist --count 'tp:sys_enter(id)'
count_with_hist                  --count --hist 'tp:sys_enter(id)'
hist_with_stack                  --hist -s 'tp:sys_enter(id)'
hist_with_max_events             --hist -n 3 'tp:sys_enter(id)'
hist_two_values                  --hist 'tp:sys_enter(id, args)'
hist_no_value                    --hist tp:sys_enter
count_with_max_events            --count -n 3 tp:sched_switch
bad_mode                         --mode uprobe ip_send_skb
buffer_not_pow2                  --buffer 5000 ip_send_skb
no_command                       -v
info_no_args                     info
missing_paren                    "ip_send_skb(skb->len"
trailing_junk                    "ip_send_skb(skb) x"
bad_operator                     "ip_send_skb(skb->len = 3)"
unknown_arg                      "ip_send_skb(sbk)"
unknown_member                   "ip_send_skb(skb->lenx)"
arrow_on_scalar                  "ip_send_skb(skb->len->x)"
dot_on_pointer                   "ip_send_skb(skb.len)"
index_on_scalar                  "ip_send_skb(skb->len[1])"
return_on_tracepoint             "tp:sched_process_exec(return)"
unterminated_string              'ip_send_skb(skb->len == "abc)'
constant_out_of_range            "ip_send_skb(skb->mac_len == 70000)"
negative_unsigned                "ip_send_skb(skb->len == -1)"
unknown_enumerator               "tp:inet_sock_set_state(newstate == TCP_ESTABLISHED, oldstate == TCP_NOPE)"
enumerator_out_of_range          "ip_send_skb(skb->sk->__sk_common.skc_state == IPPROTO_MPTCP)"
constant_too_big_for_u8          "ip_send_skb(skb->len == 1, skb->sk->__sk_common.skc_state == 300)"
predicate_on_bitfield_range      "ip_send_skb(skb->cloned == 2)"
predicate_on_struct              "ip_send_skb(skb->cb == 1)"
predicate_string_with_number     "tp:sched_switch(prev->comm == 5)"
predicate_on_struct_value        "tp:sched_switch(prev->se == 1)"
info_unknown_module              info 'nosuchmod_zz:foo*'
info_glob_matches_nothing        info 'ksnoop_nosuch_zz*'
info_module_glob_matches_nothing info 'vmlinux:ksnoop_nosuch_zz*'
info_unknown_tracepoint          info tp:sched_process_exe
info_tracepoint_glob_matches_nothing \
                                 info 'tp:ksnoop_nosuch_zz*'
info_unknown_function            info ip_send_skbb
info_spec_syntax                 info 'ip_send_skb x'
# A function of a program or library, written as a kernel target or a
# USDT probe: pointed to u:BINARY:FUNC.
usdt_function_not_probe          usdt /bin/bash:readline
library_as_module                libc:getaddrinfo
library_file_as_module           libc.so.6:getaddrinfo
path_as_function                 /bin/bash:readline
# An option holding one value, given twice: refused, not the last taken.
repeated_max_events              -n 1 -n 2 tp:sched_switch
repeated_min_duration            -L 1ms --min-duration 2ms sys:read
repeated_pid                     -p 1 -p 1 tp:sched_switch
repeated_by                      --count --by comm --by pid tp:sched_switch
repeated_hist                    --hist --hist=log2 'tp:sys_enter(id)'
# A process or thread that is not there: refused before anything is loaded.
pid_not_there                    --duration 1 -p 2147483647 tp:sched_switch
tid_not_there                    --duration 1 --tid 2147483647 tp:sched_switch
TABLE

# same_error NAME SPEC: tracing SPEC fails as its info row did.
same_error() {
	local name=$1 spec=$2 info_err trace_err info_rc trace_rc
	info_err=$(cat "$ROWS_DIR/info_$name.err"); info_rc=$(cat "$ROWS_DIR/info_$name.rc")
	trace_err=$(ks --duration 1 "$spec" 2>&1 >/dev/null); trace_rc=$?
	expect_eq "info_trace_same_$name" "$trace_rc: $trace_err" "$info_rc: $info_err"
}
same_error unknown_module 'nosuchmod_zz:foo*'
same_error glob_matches_nothing 'ksnoop_nosuch_zz*'
same_error module_glob_matches_nothing 'vmlinux:ksnoop_nosuch_zz*'
same_error unknown_tracepoint tp:sched_process_exe
same_error tracepoint_glob_matches_nothing 'tp:ksnoop_nosuch_zz*'
same_error unknown_function ip_send_skbb
same_error spec_syntax 'ip_send_skb x'

# This kernel has no kprobes and refuses fentry: say so and what works,
# known from the probed features before anything attaches.
# (Bounded: on a kernel that can trace, this ends and fails, never hangs.)
# A glob gives the same error, not a trace of nothing.  A kernel said to
# have fentry (injected) that refuses the function itself: the
# per-function fallback to kprobes, then what is missing.  --hist of a
# tracepoint without a value: the example it gives names a number the
# tracepoint has (an argument, or a member of the struct one points to;
# it once said "(arg0)", which tracepoints refuse); below, that it runs.
if [ "$(id -u)" = 0 ]; then
	ks_errors --in "$tmp" "$golden/root-errors" <<-'TABLE'
	# NAME                           ARGS
	no_kprobes_no_fentry             -n 1 --duration 1 ip_send_skb
	glob_no_kprobes_no_fentry        --duration 1 'ip_send_s*'
	glob_nothing_attached_kprobe     --mode kprobe --duration 1 'ip_send_s*'
	mode_fentry_refused              --mode fentry --duration 1 ip_send_skb
	fentry_refused_falls_back        KSNOOP_FEATURES=+fentry --duration 1 ip_send_skb
	glob_nothing_attached            KSNOOP_FEATURES=+fentry --duration 1 'ip_send_s*'
	no_ringbuf                       KSNOOP_FEATURES=-ringbuf --duration 1 tp:sched_process_free
	features_env_refused             KSNOOP_FEATURES=-fentry,nope --duration 1 tp:sched_process_free
	hist_example_sched_process_exec  --hist tp:sched_process_exec
	hist_example_sched_process_exit  --hist tp:sched_process_exit
	hist_example_sched_switch        --hist tp:sched:sched_switch
	TABLE
	for tp in tp:sched_process_exec tp:sched_process_exit tp:sched:sched_switch; do
		name=hist_example_${tp##*:}
		example=$(sed -n 's/.*, as in "\(.*\)"$/\1/p' "$ROWS_DIR/$name.err")
		out=$( (for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.1; /bin/true; done) >/dev/null &
			ks --hist --duration 1.5 "$example" 2>/dev/null); rc=$?
		expect_eq "${name}_runs" "0 ${example/tp:sched:/tp:}" "$rc $(sed -n 's/^\(tp:[a-z_]*\): \([^ ]*\) (.*/\1(\2)/p' <<<"$out" | head -1)"
	done
	expect_eq hist_example_exec_argument "tp:sched_process_exec(old_pid)" \
		"$(sed -n 's/.*, as in "\(.*\)"$/\1/p' "$ROWS_DIR/hist_example_sched_process_exec.err")"
	# -v: one line describing the kernel, every feature named; an injected one marked.
	out=$(ks -v --duration 0.1 ip_send_skb 2>&1 >/dev/null)
	expect_match kernel_features_line "^ksnoop: kernel [^ ]+: fentry no \(.+\), kprobes no, kprobe_multi (yes|no), uprobe_sleepable (yes|no), tp_cookies (yes|no), ringbuf yes, kprobe_session no, uprobe_multi (yes|no), fsession no, uprobe_session (yes|no), raw_syscalls (yes|no); probed in [0-9.]+ ms$" "$out"
	expect_eq kernel_features_once 1 "$(grep -c '^ksnoop: kernel [^ ]*: fentry' <<<"$out")"
	# uprobe.session (6.13 on) is probed by an attach to a missing file: found here.
	if _ks_kernel_at_least 6.13; then
		expect_match kernel_features_uprobe_session 'uprobe_session yes,' "$out"
	else
		note "kernel $(uname -r): no uprobe.session before 6.13"
	fi
	# The raw_syscalls tracepoints: every kernel with syscall tracepoints, as this one.
	expect_match kernel_features_raw_syscalls 'raw_syscalls yes;' "$out"
	# No kernel function traced: fentry and kprobe.multi are not asked.
	out=$(ks -v --duration 0.1 tp:sched_process_free 2>&1 >/dev/null)
	expect_match kernel_features_tp_only "^ksnoop: kernel [^ ]+: fentry not probed, kprobes no, kprobe_multi not probed, uprobe_sleepable (yes|no), tp_cookies (yes|no), ringbuf yes, kprobe_session not probed, uprobe_multi (yes|no), fsession not probed, uprobe_session (yes|no), raw_syscalls (yes|no); probed in [0-9.]+ ms$" "$out"
	out=$(KSNOOP_FEATURES=-uprobe_sleepable,+kprobes ks -v --mode nope tp:sched_process_free 2>&1 >/dev/null)
	expect_no_match kernel_features_not_before_options '^ksnoop: kernel [^ ]*: fentry' "$out"
	out=$(KSNOOP_FEATURES=-uprobe_sleepable ks -v --duration 0.1 tp:sched_process_free 2>&1 >/dev/null)
	expect_match kernel_features_injected_marked 'uprobe_sleepable no \(KSNOOP_FEATURES\)' "$out"
else
	skip no_kprobes_no_fentry "needs root"
fi

out=$(ks --help); rc=$?
expect_eq help_status 0 "$rc"
expect_match help_grammar '^SPEC +:= ' "$out"
out=$(ks -V)
expect_match version '^ksnoop [0-9]+\.[0-9]+\.[0-9]+$' "$out"
