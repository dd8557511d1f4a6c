#!/bin/sh
# vm-timeout: 900
# Many functions at once: globs, selection by argument type, grouped
# programs with BPF cookies, the skip rules, nothing left behind.
. /tests/lib.sh

tmp=$(mktemp -d)
START_WAIT=240
# Functions ftrace has a callback on (grep -c prints 0 and fails on none).
# arm64's kprobes are breakpoints, not ftrace callbacks: there the kernel's
# list of kprobes counts them.
enabled() { _n=$(grep -c . /sys/kernel/tracing/enabled_functions 2>/dev/null); echo "${_n:-0}"; }
[ "$(uname -m)" != aarch64 ] ||
	enabled() { _n=$(grep -c . /sys/kernel/debug/kprobes/list 2>/dev/null); echo "${_n:-0}"; }
# The system call wrappers: their prefix, the 32-bit compat ones', and
# clock_nanosleep's number and first argument in struct pt_regs.
case $(uname -m) in
aarch64) SYS=__arm64_sys_ COMPAT=__arm64_compat_sys_
	NANOSLEEP_REGS='.values.regs.syscallno == 115 and .values.regs.regs[0] == 0' ;;
*) SYS=__x64_sys_ COMPAT=__ia32_compat_sys_
	NANOSLEEP_REGS='.values.regs.orig_ax == 230 and .values.regs.di == 0' ;;
esac

# at_least N FILE: "yes" when events of N functions or more are in FILE,
# else how many.
at_least() {
	_f=$(grep -oE ' -> [a-z0-9_.]+$' "$2" | sort -u | wc -l)
	if [ "$_f" -ge "$1" ]; then echo yes; else echo "$_f functions"; fi
}

# kprobe.multi where the probe found it, not tried (and refused) where not.
# multi_said ERR: yes (one program, kprobe.multi), other (a kprobe.multi
# line of another kind) or no (none).
multi_said() {
	if grep -q 'one program, kprobe\.multi' "$1"; then echo yes
	elif grep -q 'kprobe\.multi' "$1"; then echo other
	else echo no
	fi
}
# multi_want: whether a glob should attach with kprobe.multi here: yes on
# x86-64 from 6.2 on whatever the probe says (it is there), elsewhere as
# ksnoop -v's probe found it (arm64's 6.12 has no fprobe: no).
multi_want() {
	if [ "$(uname -m)" = x86_64 ] && _ks_kernel_at_least 6.2; then echo yes
	else vm_feature kprobe_multi
	fi
}
# A ping through ip_*: at least 4 functions, ip_output and ip_finish_output
# among them, and the predicate held in every one (in BPF, per function).
# The same run: kprobe.multi where the kernel has it, not tried (and
# refused) where not.
ks_case <<'CASE'
NAME     ip_glob
RUN      -c ping 'ip_*(skb->len == 84, skb->len)'
WORKLOAD ping -c 2 127.0.0.1 >/dev/null 2>&1
EXPECT   ip_glob_functions: eq yes "$(at_least 4 "$OUT")"
EXPECT   ip_glob_ip_output: match ' -> ip_output$'
EXPECT   ip_glob_ip_finish_output: match ' -> ip_finish_output$'
EXPECT   ip_glob_predicate_everywhere: eq 0 "$(grep -E '^    skb->len = ' "$OUT" | grep -vc ' = 84$')"
EXPECT   ip_glob_left_out_said: stderr 'left out'
EXPECT   ip_glob_summary: stderr 'function\(s\) match, [0-9]+ traced, [0-9]+ left out'
EXPECT   ip_glob_multi: eq "$(multi_want)" "$(multi_said "$ERR")"
CASE

# Without kprobe.multi (injected where the kernel has it): the same glob,
# a kprobe per function under one program, the predicate still in BPF.
export KSNOOP_FEATURES=-kprobe_multi
ks_case <<'CASE'
NAME     no_multi
RUN      -c ping 'ip_*(skb->len == 84, skb->len)'
WORKLOAD ping -c 2 127.0.0.1 >/dev/null 2>&1
EXPECT   no_multi_kprobe_each: stderr 'one program, [0-9]+ functions? with a kprobe each'
EXPECT   no_multi_not_tried: eq "" "$(grep -v '^ksnoop: kernel [^ ]*: fentry' "$ERR" | grep 'kprobe\.multi')"
EXPECT   no_multi_ip_output: match ' -> ip_output$'
EXPECT   no_multi_predicate_everywhere: eq 0 "$(grep -E '^    skb->len = ' "$OUT" | grep -vc ' = 84$')"
CASE
unset KSNOOP_FEATURES

# -v says the mode the targets took, per kind: in the default mode a
# glob's matches take kprobes while a single function takes fentry (it
# once said "attached with fentry/fexit" for all of them).
ks_case <<'CASE'
NAME     auto_mode_said
REQUIRES fentry kprobes
RUN      -c ping 'ip_[fo]*(skb->len == 84)' 'do_sys_openat2'
WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
EXPECT   auto_mode_said_per_kind: stderr '^ksnoop: attached with fentry/fexit \(1 function\), kprobe/kretprobe \([0-9]+ functions\)$'
CASE

# --mode fentry: a program per function; once attached, each keeps its
# links and programs open and nothing else (its maps and BTF were some
# 17 fds a function: 14 functions held 257 on 6.1; now about 75).  A
# kernel without fentry (arm64's 6.1) skips it, saying why (vm_modes).
ks_case <<'CASE'
NAME     fentry_glob
REQUIRES fentry
RUN      --mode fentry -c ping 'ip_[fo]*(skb->len == 84, skb->len)'
WORKLOAD fds=$(ls /proc/"$KPID"/fd | wc -l)
WORKLOAD n=$(sed -n 's/.*tracing \([0-9]*\) target.*/\1/p' "$ERR")
WORKLOAD ping -c 2 127.0.0.1 >/dev/null 2>&1
EXPECT   fentry_glob_attached: stderr 'attached with fentry/fexit'
EXPECT   fentry_glob_functions: eq 3 \
         "$(grep -oE ' -> (ip_output|ip_finish_output|ip_finish_output2)$' "$OUT" | sort -u | wc -l)"
EXPECT   fentry_glob_few_fds: eq yes \
         "$([ -n "$n" ] && [ "$n" -ge 3 ] && [ "$fds" -le $((24 + 5 * ${n:-0})) ] && echo yes || echo "$fds fds for ${n:-?} functions")"
EXPECT   fentry_glob_nothing_left: eq "" "$(still_there prog "$PROGS")"
EXPECT   fentry_glob_no_links_left: eq "" "$(still_there link "$LINKS")"
CASE

# The same glob in JSON: every event names its function.
ks_case <<'CASE'
NAME     ip_glob_json
RUN      -j -c ping 'ip_*(skb->len == 84)'
WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
EXPECT   ip_glob_json_func_named: eq 0 \
         "$(events "$OUT" | jq -r 'select(.func == null or (.func | startswith("ip_") | not)) | .func' | wc -l)"
EXPECT   ip_glob_json_events: match '"func":"ip_output"'
CASE

# A return predicate in a group: the stash is keyed per function.
ks_case <<'CASE'
NAME     glob_return_pred
RUN      -c ping 'ip_*(skb->len, return == 0)'
WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
EXPECT   glob_return_pred_output: match ' <- ip_output \([0-9.]+ [nmu]?s\)$'
EXPECT   glob_return_pred_holds: count 0 '^    return = -?[1-9]'
EXPECT   glob_return_pred_entry_values: count 0 '^    skb->len = /\*'
CASE

# By argument type: every function taking a struct sk_buff *, wherever
# it sits, with s meaning that argument.  All of the kernel's (1,500 and
# more) where kprobe.multi attaches them at once; without it (Debian's
# 6.1, arm64's 6.1 and 6.12) each needs a kprobe of its own, minutes under
# emulation: the ip* ones there.  At least 8 functions means the receive
# path too, and that runs in softirq, in ksoftirqd as often as in ping:
# no -c ping (only lo is up, and only the pings are 84 bytes long).
by_glob='ip*'
[ "$(vm_feature kprobe_multi)" != yes ] || by_glob='*'
ks_case <<'CASE'
NAME     by_type
RUN      "$by_glob(struct sk_buff *s, s->len == 84, s->len)"
WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
EXPECT   by_type_functions: eq yes "$(at_least 8 "$OUT")"
EXPECT   by_type_predicate_everywhere: eq 0 "$(grep -E '^    s->len = ' "$OUT" | grep -vc ' = 84$')"
CASE
note "by type $by_glob: $(grep -E 'function\(s\) match' "$ERR" 2>/dev/null)"

# at_least_n N WHAT: "yes" when the number WHAT is N or more, else WHAT.
at_least_n() { if [ "${2:-0}" -ge "$1" ] 2>/dev/null; then echo yes; else echo "${2:-none}"; fi; }
# tcp_*: 300 and more functions; the kernel's own count while it runs,
# nothing after.
# Every argument of every function, but one program for many signatures
# (a value's way and size are the function's own, read from a map): a
# handful of programs, not one per signature (176).
ks_case <<'CASE'
NAME     tcp_glob
BEFORE   before=$(enabled)
RUN      'tcp_*'
WORKLOAD during=$(enabled)
EXPECT   tcp_glob_300: eq yes "$(at_least_n 300 "$(grep -oE '[0-9]+ traced' "$ERR" | grep -oE '[0-9]+')")"
EXPECT   tcp_glob_enabled_functions: eq yes "$(at_least_n 300 $((during - before)))"
EXPECT   tcp_glob_nothing_after: eq "$before" "$(enabled)"
EXPECT   tcp_glob_few_programs: eq yes \
         "$(at_least_n "$(sed -nE 's/.* glob matches in ([0-9]+) program.*/\1/p' "$ERR")" 8)"
CASE
note "tcp_*: $(grep -E 'function\(s\) match|kprobe.multi refused|glob matches in|program instance|links detached' "$ERR" | tr '\n' ' ')"

# Functions of different signatures in one program, each value read as
# its own function says: hrtimer_nanosleep's scalars and the syscall
# wrapper's struct pt_regs (clock_nanosleep is system call 230, arm64's 115; vmprog is
# static glibc, whose nanosleep is clock_nanosleep on CLOCK_REALTIME).
# do_nanosleep, where it is not inlined: its struct (the timer still
# relative at entry: 300 ms), the task in it, then its enum.
entries() { jq -c "select($1)" "$OUT" | wc -l; }
ks_case <<'CASE'
NAME     glob_values
RUN      -j -c vmprog '*_nanosleep'
WORKLOAD vmprog sleep 300
EXPECT   glob_values_scalars: eq 1 \
         "$(entries '.func == "hrtimer_nanosleep" and .kind == "entry" and .values.rqtp == 300000000 and .values.clockid == 0')"
EXPECT   glob_values_struct: eq 1 "$(entries ".func == \"${SYS}clock_nanosleep\" and .kind == \"entry\" and $NANOSLEEP_REGS")"
EXPECT   glob_values_return: eq 1 \
         "$(entries '.func == "hrtimer_nanosleep" and .kind == "return" and .values.return == 0')"
EXPECT   glob_values_do_nanosleep: eq "$(entries '.func == "do_nanosleep" and .kind == "entry"')" \
         "$(entries '.func == "do_nanosleep" and .kind == "entry" and .values.t.timer._softexpires == 300000000 and (.values.t.task | startswith("0xff")) and .values.mode == "HRTIMER_MODE_REL"')"
CASE
note "nanosleep: $(grep -E 'glob matches in' "$ERR") $(events "$OUT" | jq -r '.func' | sort -u | tr '\n' ' ')"

# Nothing stays attached after SIGKILL either: every kprobe is a file.
# Gone once the kernel has closed its files: polled, bounded by count.
enabled_back() {
	_i=0
	while [ $_i -lt 300 ] && [ "$(enabled)" != "$1" ]; do sleep 0.05; _i=$((_i + 1)); done
	enabled
}
ks_case <<'CASE'
NAME     kill9
BEFORE   before=$(enabled)
RUN      'ip_*(skb->len == 84)'
WORKLOAD during=$(enabled)
WORKLOAD kill -9 "$KPID"
EXPECT   kill9_was_attached: eq yes "$([ "$during" -gt "$before" ] && echo yes || echo "before $before, during $during")"
EXPECT   kill9_nothing_after: eq "$before" "$(enabled_back "$before")"
CASE

# The skip and deny rules.  Refusals, not ks_cases (a case waits for
# ksnoop to attach), and not ks_errors rows: their lines count this
# kernel's functions, which no golden line can hold.
ksnoop 'bpf_map_*' >"$tmp/o6" 2>"$tmp/e6"; rc=$?
expect_eq denied_glob_exit 2 "$rc"
expect_match denied_glob_says_why 'none of them traceable.*recurse into the tracer' "$(cat "$tmp/e6")"
ksnoop 'nosuchfunc_*' >"$tmp/o7" 2>"$tmp/e7"; rc=$?
expect_eq no_match_exit 2 "$rc"
expect_match no_match_says 'no kernel function with BTF matches' "$(cat "$tmp/e7")"
ksnoop 'ip_rcv*(nosucharg)' >"$tmp/o8" 2>"$tmp/e8"; rc=$?
expect_eq values_fit_none_exit 2 "$rc"
expect_match values_fit_none_says "'nosucharg' is not an argument" "$(cat "$tmp/e8")"
# -v counts what a glob leaves out by reason, -vv lists each match once.
# No __ia32_compat_sys_* (arm64: __arm64_compat_sys_*) takes an skb; 6.1's
# vmlinux BTF names some of them twice, which once left them out (and said
# so) twice.
ksnoop -v "${COMPAT}*(struct sk_buff *s)" >/dev/null 2>"$tmp/e13"; rc=$?
expect_eq left_out_v_exit 2 "$rc"
n=$(sed -n 's/.*matches \([0-9]*\) function(s), none of them traceable.*/\1/p' "$tmp/e13")
expect_match left_out_v_counted "${COMPAT}\\*\\(struct sk_buff \\*s\\): [1-9][0-9]* left out: no argument of type struct sk_buff \\* \\(first: ${COMPAT}[a-z0-9_]+\\)$" "$(cat "$tmp/e13")"
expect_eq left_out_v_adds_up "$n" \
	"$(sed -n 's/.*): \([0-9]*\) left out: .*/\1/p; s/.*: \([0-9]*\) more left out for .*/\1/p' "$tmp/e13" | awk '{ s += $1 } END { print s }')"
expect_eq left_out_v_none_listed 0 "$(grep -c 'compat_sys_[a-z0-9_]* left out' "$tmp/e13")"
ksnoop -vv "${COMPAT}*(struct sk_buff *s)" >/dev/null 2>"$tmp/e14"
grep 'compat_sys_[a-z0-9_]* left out: ' "$tmp/e14" >"$tmp/each14"
expect_eq left_out_vv_every_match "$n" "$(wc -l <"$tmp/each14")"
expect_eq left_out_vv_each_once "" "$(sort "$tmp/each14" | uniq -d | head -3)"
# Named explicitly, a denied function still attaches.
ks_case <<'CASE'
NAME     explicit_denied_attaches
RUN      --mode kprobe 'bpf_map_lookup_elem()'
EXPECT   exit 0
CASE
# A module's functions only: dummy:*.
kmod_load dummy
ksnoop info 'dummy:dummy_*' >"$tmp/o10" 2>"$tmp/e10"; rc=$?
expect_eq module_glob_info_exit 0 "$rc"
expect_match module_glob_info 'dummy: .*dummy_get_stats64\(struct net_device \*dev' "$(cat "$tmp/o10")"
expect_no_match module_glob_only_module '^[a-z_]+ [a-z_ *]*tcp_' "$(cat "$tmp/o10")"
rm -rf "$tmp"
