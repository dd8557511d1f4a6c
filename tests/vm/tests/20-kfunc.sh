#!/bin/sh
# Kernel-function tracing on a stock kernel, in both attach modes, against
# real workloads: loopback ping, file opens, /proc reads, a module.
. /tests/lib.sh

tmp=$(mktemp -d)

echo hello > "$tmp/file-to-open"
kmod_load dummy

for mode in fentry kprobe; do
	T=$mode
	# --- entry argument from user memory, return value: opens by cat ---
	if start "$tmp/o1" "$tmp/e1" --mode $mode -n 4 -c cat \
		'do_sys_openat2(filename, dfd, return)'; then
		cat "$tmp/file-to-open" >/dev/null
		cat "$tmp/file-to-open" >/dev/null
		finish
		expect_match ${T}_mode_named "attached with $( [ $mode = fentry ] && echo fentry/fexit || echo kprobe/kretprobe)" "$(cat "$tmp/e1")"
		expect_eq ${T}_count_status 0 "$RC"
		count_is ${T}_entry_events 2 '-> do_sys_openat2$' "$tmp/o1"
		count_is ${T}_return_events 2 '<- do_sys_openat2 \([0-9.]+ [nmu]?s\)$' "$tmp/o1"
		count_is ${T}_user_string 2 "^    filename = \"$tmp/file-to-open\"$" "$tmp/o1"
		count_is ${T}_negative_int_arg 2 '^    dfd = -100$' "$tmp/o1"
		count_is ${T}_return_fd 2 '^    return = 3$' "$tmp/o1"
	else
		fail ${T}_attach_openat "$(cat "$tmp/e1")"
	fi

	# --- member chains of depth 1..3 and '.' through an embedded struct ---
	if start "$tmp/o2" "$tmp/e2" --mode $mode -n 2 -c ping \
		'ip_output(skb->len, skb->sk->__sk_common.skc_family, skb->dev->name, skb)'; then
		# One ping gives two calls (request and reply); send more if one is lost.
		for _p in 1 2 3 4 5; do
			kill -0 "$KPID" 2>/dev/null || break
			ping -c 1 -s 56 127.0.0.1 >/dev/null 2>&1
			sleep 0.2
		done
		finish
		count_is ${T}_events 2 '-> ip_output$' "$tmp/o2"
		count_is ${T}_chain_depth1 2 '^    skb->len = 84$' "$tmp/o2"
		count_is ${T}_chain_depth2_embedded 2 '^    skb->sk->__sk_common.skc_family = 2$' "$tmp/o2"
		expect_match ${T}_struct_header '^    skb = 0x[0-9a-f]+ -> \(struct sk_buff\)\{$' "$(cat "$tmp/o2")"
		count_is ${T}_struct_field_len 2 '^        \.len = 84,$' "$tmp/o2"
		expect_match ${T}_struct_field_sk '^        \.sk = 0x[0-9a-f]+,$' "$(cat "$tmp/o2")"
	else
		fail ${T}_attach_ip_output "$(cat "$tmp/e2")"
	fi

	# --- the README's first trace: ip_send_skb, reached by UDP (udp_send_skb
	# calls it; ping's raw socket does not: ip_push_pending_frames has it
	# inlined). 56 bytes of payload are 84 on the wire, 100 are 128.
	if start "$tmp/o6s" "$tmp/e6s" --mode $mode -c vmprog \
		'ip_send_skb(skb->len == 84, skb->len, skb->sk->sk_family, skb)'; then
		vmprog udp 2 56
		vmprog udp 1 100
		stop
		count_is ${T}_ip_send_skb_events 2 '-> ip_send_skb$' "$tmp/o6s" "$tmp/e6s"
		count_is ${T}_ip_send_skb_len 2 '^    skb->len = 84$' "$tmp/o6s"
		count_is ${T}_ip_send_skb_alias 2 '^    skb->sk->sk_family = 2$' "$tmp/o6s"
		count_is ${T}_ip_send_skb_struct 2 '^    skb = 0x[0-9a-f]+ -> \(struct sk_buff\)\{$' "$tmp/o6s"
	else
		fail ${T}_attach_ip_send_skb "$(cat "$tmp/e6s")"
	fi
	# The device is set by ip_output: at ip_finish_output2 it is "lo".
	if start "$tmp/o6d" "$tmp/e6d" --mode $mode -c ping 'ip_finish_output2(skb->len, skb->dev->name)'; then
		ping -c 1 127.0.0.1 >/dev/null 2>&1
		stop
		# The echo reply may be sent from ksoftirqd: one event or two.
		expect_match ${T}_dev_name '^    skb->dev->name = "lo"$' "$(cat "$tmp/o6d")"
		count_is ${T}_dev_name_only_lo 0 '^    skb->dev->name = [^"]' "$tmp/o6d" "$tmp/e6d"
	else
		fail ${T}_attach_finish_output2 "$(cat "$tmp/e6d")"
	fi

	# --- ksnoop leaves out its own calls: its output is written through
	# vfs_write, which would be an event to print in turn. With a return
	# predicate the entry is stashed: ksnoop's own never is.
	for case in 'entry:vfs_write(count)' 'stash:vfs_write(count, return > 0)'; do
		S=${T}_self_${case%%:*} spec=${case#*:}
		if start "$tmp/o6w" "$tmp/e6w" --mode $mode -j "$spec"; then
			for _w in 1 2 3; do echo "write $_w" >"$tmp/written"; sleep 0.2; done
			stop
			count_is ${S}_left_out 0 "\"pid\":$KPID," "$tmp/o6w" "$tmp/e6w"
			count_is ${S}_others_seen 3 "\"pid\":$$,.*\"count\":8[,}]" "$tmp/o6w" "$tmp/e6w"
		else
			fail ${S}_attach "$(cat "$tmp/e6w")"
		fi
	done

	# --- kernel string (char *) through a struct: struct filename ---
	if start "$tmp/o3" "$tmp/e3" --mode $mode -n 1 -c cat \
		'do_filp_open(pathname->name, pathname->refcnt)'; then
		cat /proc/version >/dev/null
		finish
		count_is ${T}_kernel_string 1 '^    pathname->name = "/proc/version"$' "$tmp/o3"
	else
		fail ${T}_attach_do_filp_open "$(cat "$tmp/e3")"
	fi

	# --- a module function (split BTF): dummy's stats, from /proc/net/dev ---
	if start "$tmp/o4" "$tmp/e4" --mode $mode -n 1 -c cat 'dummy_get_stats64(dev->name, dev)'; then
		cat /proc/net/dev >/dev/null
		finish
		count_is ${T}_module_char_array 1 '^    dev->name = "(dummy0|kd0)"$' "$tmp/o4" "$tmp/e4"
		expect_match ${T}_module_struct '^        \.name = "(dummy0|kd0)",$' "$(cat "$tmp/o4")"
	else
		fail ${T}_attach_module "$(cat "$tmp/e4")"
	fi

	# --- JSON, parsed by jq ---
	if start "$tmp/o5" "$tmp/e5" --mode $mode -j -n 4 -c cat \
		'do_sys_openat2(filename, how, return)'; then
		cat "$tmp/file-to-open" >/dev/null
		cat "$tmp/file-to-open" >/dev/null
		finish
		if jq -e . "$tmp/o5" >/dev/null 2>&1; then pass ${T}_json_parses; else fail ${T}_json_parses "$(cat "$tmp/o5")"; fi
		expect_eq ${T}_json_kinds "entry
return" "$(events "$tmp/o5" | jq -r .kind | sort -u)"
		expect_eq ${T}_json_filename "$tmp/file-to-open" "$(jq -r 'select(.kind=="entry") | .values.filename' "$tmp/o5" | sort -u)"
		expect_eq ${T}_json_struct "object" "$(jq -r 'select(.kind=="entry") | .values.how | type' "$tmp/o5" | sort -u)"
		expect_eq ${T}_json_return "3" "$(jq -r 'select(.kind=="return") | .values.return' "$tmp/o5" | sort -u)"
		expect_eq ${T}_json_comm "cat" "$(events "$tmp/o5" | jq -r .comm | sort -u)"
	else
		fail ${T}_attach_json "$(cat "$tmp/e5")"
	fi

	# --- pid filter: two processes open files, one is traced ---
	sh -c 'while :; do cat /proc/version >/dev/null; done' & b1=$!
	sh -c 'while :; do cat /proc/version >/dev/null; done' & b2=$!
	if start "$tmp/o6" "$tmp/e6" --mode $mode -j -n 10 -p "$b1" 'sched_fork(p->pid)'; then
		finish
		expect_eq ${T}_pid_filter_count 10 "$(events "$tmp/o6" | wc -l)"
		expect_eq ${T}_pid_filter_only "$b1" "$(events "$tmp/o6" | jq -r .pid | sort -u)"
	else
		fail ${T}_attach_pid "$(cat "$tmp/e6")"
	fi
	kill -9 "$b1" "$b2" 2>/dev/null; wait "$b1" "$b2" 2>/dev/null

	# --- nothing left attached: after -n, SIGINT and SIGKILL ---
	expect_eq ${T}_nothing_left_after_count 0 "$(ksnoop_progs)"
	expect_eq ${T}_no_kprobe_events 0 "$(tracefs_lines kprobe_events)"
	if start "$tmp/o7" "$tmp/e7" --mode $mode 'vfs_read' 'ip_output'; then
		expect_eq ${T}_attached_while_running 4 "$(ksnoop_progs)"
		kill -INT "$KPID"
		finish
		expect_eq ${T}_sigint_status 0 "$RC"
		expect_eq ${T}_nothing_left_after_sigint 0 "$(ksnoop_progs)"
	else
		fail ${T}_attach_sigint "$(cat "$tmp/e7")"
	fi
	if start "$tmp/o8" "$tmp/e8" --mode $mode 'vfs_read(count)'; then
		kill -KILL "$KPID"; wait "$KPID" 2>/dev/null
		sleep 1
		expect_eq ${T}_nothing_left_after_sigkill 0 "$(ksnoop_progs)"
		expect_eq ${T}_no_kprobe_events_after_sigkill 0 "$(tracefs_lines kprobe_events)"
	else
		fail ${T}_attach_sigkill "$(cat "$tmp/e8")"
	fi

	# --- all or nothing: a second function that cannot attach ---
	out=$(ksnoop --mode $mode vfs_read no_such_function_xyz 2>&1); rc=$?
	expect_eq ${T}_unknown_second_status 2 "$rc"
	expect_eq ${T}_nothing_left_after_failure 0 "$(ksnoop_progs)"
done

# The kernel's features, probed once and said in one -v line: 6.1 has
# kprobes but no kprobe.multi and no raw_tp cookies; 6.12 has everything.
line=$(grep '^ksnoop: kernel [^ ]*: fentry' "$tmp/e1")
expect_eq features_said_once 1 "$(grep -c '^ksnoop: kernel [^ ]*: fentry' "$tmp/e1")"
case $(uname -r) in
6.1.*) expect_match features_6_1 ': fentry yes, kprobes yes, kprobe_multi no, uprobe_sleepable (yes|no), tp_cookies no, ringbuf yes; probed in [0-9.]+ ms$' "$line" ;;
*) expect_match features_all ': fentry yes, kprobes yes, kprobe_multi yes, uprobe_sleepable yes, tp_cookies yes, ringbuf yes; probed in [0-9.]+ ms$' "$line" ;;
esac
note "$line"

# A kernel without fentry (injected): kprobes are chosen before anything
# resolves; nothing fails first and nothing is resolved twice.
export KSNOOP_FEATURES=-fentry
if start "$tmp/o9" "$tmp/e9" -n 2 -c cat 'do_sys_openat2(filename, return)'; then
	cat "$tmp/file-to-open" >/dev/null
	finish
	expect_match no_fentry_kprobes "attached with kprobe/kretprobe" "$(cat "$tmp/e9")"
	expect_no_match no_fentry_no_failed_attempt 'fentry/fexit failed|trying kprobes' "$(cat "$tmp/e9")"
	expect_eq no_fentry_resolved_once 1 "$(grep -c ': function in vmlinux, ' "$tmp/e9")"
	count_is no_fentry_return 1 '^    return = 3$' "$tmp/o9"
	expect_match no_fentry_said 'fentry no \(KSNOOP_FEATURES\)' "$(cat "$tmp/e9")"
else
	fail no_fentry_attach "$(cat "$tmp/e9")"
fi
# --mode fentry where fentry is off: refused before loading anything.
out=$(ksnoop --mode fentry vfs_read 2>&1); rc=$?
expect_eq no_fentry_mode_fentry_status 1 "$rc"
expect_match no_fentry_mode_fentry_says '^ksnoop: --mode fentry: this kernel refuses fentry/fexit \(turned off by KSNOOP_FEATURES\); --mode kprobe works$' "$out"
unset KSNOOP_FEATURES
rm -rf "$tmp"
