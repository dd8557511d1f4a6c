#!/bin/sh
# vm-timeout: 900
# Many functions at once: globs, selection by argument type, grouped
# programs with BPF cookies, the skip rules, nothing left behind.
. /tests/lib.sh

tmp=$(mktemp -d)
START_WAIT=240
# Functions ftrace has a callback on (grep -c prints 0 and fails on none).
enabled() { _n=$(grep -c . /sys/kernel/tracing/enabled_functions 2>/dev/null); echo "${_n:-0}"; }

# A ping through ip_*: at least 4 functions, ip_output and ip_finish_output
# among them, and the predicate held in every one (in BPF, per function).
if start "$tmp/o1" "$tmp/e1" -c ping 'ip_*(skb->len == 84, skb->len)'; then
	ping -c 2 127.0.0.1 >/dev/null 2>&1
	stop
	funcs=$(grep -oE ' -> [a-z0-9_.]+$' "$tmp/o1" | sort -u | wc -l)
	if [ "$funcs" -ge 4 ]; then pass ip_glob_functions; else fail ip_glob_functions "$funcs functions: $(head -40 "$tmp/o1")"; fi
	expect_match ip_glob_ip_output ' -> ip_output$' "$(cat "$tmp/o1")"
	expect_match ip_glob_ip_finish_output ' -> ip_finish_output$' "$(cat "$tmp/o1")"
	expect_eq ip_glob_predicate_everywhere 0 "$(grep -E '^    skb->len = ' "$tmp/o1" | grep -vc ' = 84$')"
	expect_match ip_glob_left_out_said 'left out' "$(cat "$tmp/e1")"
	expect_match ip_glob_summary 'function\(s\) match, [0-9]+ traced, [0-9]+ left out' "$(cat "$tmp/e1")"
	# kprobe.multi where the probe found it, not tried (and refused) where not.
	case $(uname -r) in
	6.1.*) expect_no_match ip_glob_multi_not_tried 'kprobe\.multi' "$(cat "$tmp/e1")" ;;
	*) expect_match ip_glob_multi 'one program, kprobe\.multi' "$(cat "$tmp/e1")" ;;
	esac
else
	fail ip_glob_attach "$(tail -5 "$tmp/e1")"
fi

# Without kprobe.multi (injected where the kernel has it): the same glob,
# a kprobe per function under one program, the predicate still in BPF.
export KSNOOP_FEATURES=-kprobe_multi
if start "$tmp/om" "$tmp/em" -c ping 'ip_*(skb->len == 84, skb->len)'; then
	ping -c 2 127.0.0.1 >/dev/null 2>&1
	stop
	expect_match no_multi_kprobe_each 'one program, [0-9]+ functions? with a kprobe each' "$(cat "$tmp/em")"
	expect_no_match no_multi_not_tried 'kprobe\.multi' "$(grep -v '^ksnoop: kernel [^ ]*: fentry' "$tmp/em")"
	expect_match no_multi_ip_output ' -> ip_output$' "$(cat "$tmp/om")"
	expect_eq no_multi_predicate_everywhere 0 "$(grep -E '^    skb->len = ' "$tmp/om" | grep -vc ' = 84$')"
else
	fail no_multi_attach "$(tail -5 "$tmp/em")"
fi
unset KSNOOP_FEATURES

# --mode fentry: a program per function; once attached, each keeps its
# links and programs open and nothing else (its maps and BTF were some
# 17 fds a function: 14 functions held 257 on 6.1; now about 75).
if start "$tmp/of" "$tmp/ef" --mode fentry -c ping 'ip_[fo]*(skb->len == 84, skb->len)'; then
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
if start "$tmp/o2" "$tmp/e2" -j -c ping 'ip_*(skb->len == 84)'; then
	ping -c 1 127.0.0.1 >/dev/null 2>&1
	stop
	expect_eq ip_glob_json_func_named 0 "$(events "$tmp/o2" | jq -r 'select(.func == null or (.func | startswith("ip_") | not)) | .func' | wc -l)"
	expect_match ip_glob_json_events '"func":"ip_output"' "$(cat "$tmp/o2")"
else
	fail ip_glob_json_attach "$(tail -5 "$tmp/e2")"
fi

# A return predicate in a group: the stash is keyed per function.
if start "$tmp/o3" "$tmp/e3" -c ping 'ip_*(skb->len, return == 0)'; then
	ping -c 1 127.0.0.1 >/dev/null 2>&1
	stop
	expect_match glob_return_pred_output ' <- ip_output \([0-9.]+ [nmu]?s\)$' "$(cat "$tmp/o3")"
	count_is glob_return_pred_holds 0 '^    return = -?[1-9]' "$tmp/o3" "$tmp/e3"
	count_is glob_return_pred_entry_values 0 '^    skb->len = /\*' "$tmp/o3" "$tmp/e3"
else
	fail glob_return_pred_attach "$(tail -5 "$tmp/e3")"
fi

# By argument type: every function taking a struct sk_buff *, wherever
# it sits, with s meaning that argument.  All of the kernel's (1,500 and
# more) where kprobe.multi attaches them at once; without it (Debian's
# 6.1) each needs a kprobe of its own, minutes under emulation: the ip*
# ones there.  At least 8 functions means the receive path too, and that
# runs in softirq, in ksoftirqd as often as in ping: no -c ping (only lo
# is up, and only the pings are 84 bytes long).
all='*'
case $(uname -r) in 6.1.*) all='ip*' ;; esac
if start "$tmp/o4" "$tmp/e4" "$all(struct sk_buff *s, s->len == 84, s->len)"; then
	ping -c 1 127.0.0.1 >/dev/null 2>&1
	stop
	funcs=$(grep -oE ' -> [a-z0-9_.]+$' "$tmp/o4" | sort -u | wc -l)
	if [ "$funcs" -ge 8 ]; then pass by_type_functions; else fail by_type_functions "$funcs functions: $(head -40 "$tmp/o4") $(tail -5 "$tmp/e4")"; fi
	expect_eq by_type_predicate_everywhere 0 "$(grep -E '^    s->len = ' "$tmp/o4" | grep -vc ' = 84$')"
	note "by type: $(grep -E 'function\(s\) match' "$tmp/e4")"
else
	fail by_type_attach "$(tail -5 "$tmp/e4")"
fi

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
# wrapper's struct pt_regs (clock_nanosleep is system call 230; vmprog is
# static glibc, whose nanosleep is clock_nanosleep on CLOCK_REALTIME).
if start "$tmp/o12" "$tmp/e12" -j -c vmprog '*_nanosleep'; then
	vmprog sleep 300
	stop
	expect_eq glob_values_scalars 1 "$(jq -c 'select(.func == "hrtimer_nanosleep" and .kind == "entry" and .values.rqtp == 300000000 and .values.clockid == 0)' "$tmp/o12" | wc -l)"
	expect_eq glob_values_struct 1 "$(jq -c 'select(.func == "__x64_sys_clock_nanosleep" and .kind == "entry" and .values.regs.orig_ax == 230 and .values.regs.di == 0)' "$tmp/o12" | wc -l)"
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
	sleep 1
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
# Named explicitly, a denied function still attaches.
if start "$tmp/o9" "$tmp/e9" --mode kprobe 'bpf_map_lookup_elem()'; then
	stop
	expect_eq explicit_denied_attaches 0 "$RC"
else
	fail explicit_denied_attach "$(tail -3 "$tmp/e9")"
fi
# A module's functions only: dummy:*.
kmod_load dummy
ksnoop info 'dummy:dummy_*' >"$tmp/o10" 2>"$tmp/e10"; rc=$?
expect_eq module_glob_info_exit 0 "$rc"
expect_match module_glob_info 'dummy: .*dummy_get_stats64\(struct net_device \*dev' "$(cat "$tmp/o10")"
expect_no_match module_glob_only_module '^[a-z_]+ [a-z_ *]*tcp_' "$(cat "$tmp/o10")"
rm -rf "$tmp"
