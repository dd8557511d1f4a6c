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
case $(uname -r) in
6.1.*) MULTI=ip_glob_multi_not_tried MULTI_WANT=no ;;
*) MULTI=ip_glob_multi MULTI_WANT=yes ;;
esac
# A ping through ip_*: at least 4 functions, ip_output and ip_finish_output
# among them, and the predicate held in every one (in BPF, per function).
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
EXPECT   $MULTI: eq $MULTI_WANT "$(multi_said "$ERR")"
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

# --mode fentry: a program per function; once attached, each keeps its
# links and programs open and nothing else (its maps and BTF were some
# 17 fds a function: 14 functions held 257 on 6.1; now about 75).  A
# kernel without fentry (arm64's 6.1) skips it, saying why (vm_modes).
case $(vm_modes) in
fentry*) fentry=yes ;;
*) fentry=no ;;
esac
if [ "$fentry" = no ]; then
	:
elif start "$tmp/of" "$tmp/ef" --mode fentry -c ping 'ip_[fo]*(skb->len == 84, skb->len)'; then
	fds=$(ls /proc/"$KPID"/fd | wc -l)
	n=$(sed -n 's/.*tracing \([0-9]*\) target.*/\1/p' "$tmp/ef")
	ping -c 2 127.0.0.1 >/dev/null 2>&1
	stop
	expect_match fentry_glob_attached 'attached with fentry/fexit' "$(cat "$tmp/ef")"
	expect_eq fentry_glob_functions 3 "$(grep -oE ' -> (ip_output|ip_finish_output|ip_finish_output2)$' "$tmp/of" | sort -u | wc -l)"
	if [ -n "$n" ] && [ "$n" -ge 3 ] && [ "$fds" -le $((24 + 5 * n)) ]; then pass fentry_glob_few_fds
	else fail fentry_glob_few_fds "$fds fds for ${n:-?} functions"; fi
	expect_eq fentry_glob_nothing_left "" "$(still_there prog "$PROGS")"
	expect_eq fentry_glob_no_links_left "" "$(still_there link "$LINKS")"
else
	fail fentry_glob_attach "$(tail -5 "$tmp/ef")"
fi

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
# 6.1) each needs a kprobe of its own, minutes under emulation: the ip*
# ones there.  At least 8 functions means the receive path too, and that
# runs in softirq, in ksoftirqd as often as in ping: no -c ping (only lo
# is up, and only the pings are 84 bytes long).
all='*'
case $(uname -r) in 6.1.*) all='ip*' ;; esac
ks_case <<'CASE'
NAME     by_type
RUN      "$all(struct sk_buff *s, s->len == 84, s->len)"
WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
EXPECT   by_type_functions: eq yes "$(at_least 8 "$OUT")"
EXPECT   by_type_predicate_everywhere: eq 0 "$(grep -E '^    s->len = ' "$OUT" | grep -vc ' = 84$')"
CASE
note "by type: $(grep -E 'function\(s\) match' "$ERR")"

# tcp_*: 300 and more functions; the kernel's own count while it runs,
# nothing after.
before=$(enabled)
if start "$tmp/o5" "$tmp/e5" 'tcp_*'; then
	during=$(enabled)
	stop
	after=$(enabled)
	n=$(grep -oE '[0-9]+ traced' "$tmp/e5" | grep -oE '[0-9]+')
	if [ "${n:-0}" -ge 300 ]; then pass tcp_glob_300; else fail tcp_glob_300 "$(grep -E 'match' "$tmp/e5")"; fi
	if [ $((during - before)) -ge 300 ]; then pass tcp_glob_enabled_functions; else fail tcp_glob_enabled_functions "before $before, during $during"; fi
	expect_eq tcp_glob_nothing_after "$before" "$after"
	# Every argument of every function, but one program for many
	# signatures (a value's way and size are the function's own, read
	# from a map): a handful of programs, not one per signature (176).
	progs=$(sed -nE 's/.* glob matches in ([0-9]+) program.*/\1/p' "$tmp/e5")
	if [ "${progs:-999}" -le 8 ]; then pass tcp_glob_few_programs; else fail tcp_glob_few_programs "${progs:-?} programs: $(grep -E 'glob matches in' "$tmp/e5")"; fi
	note "tcp_*: $(grep -E 'function\(s\) match|kprobe.multi refused|glob matches in|program instance|links detached' "$tmp/e5" | tr '\n' ' ')"
else
	fail tcp_glob_attach "$(tail -5 "$tmp/e5")"
fi

# Functions of different signatures in one program, each value read as
# its own function says: hrtimer_nanosleep's scalars and the syscall
# wrapper's struct pt_regs (clock_nanosleep is system call 230, arm64's 115; vmprog is
# static glibc, whose nanosleep is clock_nanosleep on CLOCK_REALTIME).
if start "$tmp/o12" "$tmp/e12" -j -c vmprog '*_nanosleep'; then
	vmprog sleep 300
	stop
	expect_eq glob_values_scalars 1 "$(jq -c 'select(.func == "hrtimer_nanosleep" and .kind == "entry" and .values.rqtp == 300000000 and .values.clockid == 0)' "$tmp/o12" | wc -l)"
	expect_eq glob_values_struct 1 "$(jq -c "select(.func == \"${SYS}clock_nanosleep\" and .kind == \"entry\" and $NANOSLEEP_REGS)" "$tmp/o12" | wc -l)"
	expect_eq glob_values_return 1 "$(jq -c 'select(.func == "hrtimer_nanosleep" and .kind == "return" and .values.return == 0)' "$tmp/o12" | wc -l)"
	# do_nanosleep, where it is not inlined: its struct (the timer still
	# relative at entry: 300 ms), the task in it, then its enum.
	if grep -q '"func":"do_nanosleep"' "$tmp/o12"; then
		expect_eq glob_values_do_nanosleep 1 "$(jq -c 'select(.func == "do_nanosleep" and .kind == "entry" and .values.t.timer._softexpires == 300000000 and (.values.t.task | startswith("0xff")) and .values.mode == "HRTIMER_MODE_REL")' "$tmp/o12" | wc -l)"
	fi
	note "nanosleep: $(grep -E 'glob matches in' "$tmp/e12") $(events "$tmp/o12" | jq -r '.func' | sort -u | tr '\n' ' ')"
else
	fail glob_values_attach "$(tail -5 "$tmp/e12")"
fi

# Nothing stays attached after SIGKILL either: every kprobe is a file.
before=$(enabled)
if start "$tmp/o11" "$tmp/e11" 'ip_*(skb->len == 84)'; then
	during=$(enabled)
	kill -9 "$KPID"; wait "$KPID" 2>/dev/null
	# Gone once the kernel has closed its files: polled, bounded by count.
	i=0
	while [ $i -lt 300 ] && [ "$(enabled)" != "$before" ]; do sleep 0.05; i=$((i + 1)); done
	if [ "$during" -gt "$before" ]; then pass kill9_was_attached; else fail kill9_was_attached "before $before, during $during"; fi
	expect_eq kill9_nothing_after "$before" "$(enabled)"
else
	fail kill9_attach "$(tail -5 "$tmp/e11")"
fi

# The skip and deny rules.
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
