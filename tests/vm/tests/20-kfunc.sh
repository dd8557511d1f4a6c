#!/bin/sh
# Kernel-function tracing on a stock kernel, in both attach modes, against
# real workloads: loopback ping, file opens, /proc reads, a module.
. /tests/lib.sh

tmp=$(mktemp -d)

echo hello > "$tmp/file-to-open"
kmod_load dummy
nl='
'
# How many ksnoop programs are left, once none are or after 15 s.
progs_gone() {
	_g=0
	while [ $_g -lt 300 ] && [ "$(ksnoop_progs)" != 0 ]; do sleep 0.05; _g=$((_g + 1)); done
	ksnoop_progs
}
# One ping gives two calls (request and reply); send more while ksnoop
# (-n 2) waits for them, if one is lost.
ping_until_done() {
	for _p in 1 2 3 4 5; do
		kill -0 "$KPID" 2>/dev/null || break
		ping -c 1 -s 56 127.0.0.1 >/dev/null 2>&1
		sleep 0.2
	done
}
# Three writes of 8 bytes by this shell.
write_three() {
	for _w in 1 2 3; do echo "write $_w" >"$tmp/written"; sleep 0.2; done
}

for mode in $(vm_modes); do
	T=$mode
	# --- entry argument from user memory, return value: opens by cat ---
	how=$( [ $mode = fentry ] && echo fentry/fexit || echo kprobe/kretprobe)
	ks_case <<-'CASE'
		NAME     ${T}_openat
		RUN      --mode $mode -n 4 -c cat 'do_sys_openat2(filename, dfd, return)'
		WORKLOAD cat "$tmp/file-to-open" >/dev/null
		WORKLOAD cat "$tmp/file-to-open" >/dev/null
		UNTIL    exit
		EXPECT   ${T}_mode_named: stderr "attached with $how"
		EXPECT   ${T}_count_status: exit 0
		EXPECT   ${T}_entry_events: count 2 '-> do_sys_openat2$'
		EXPECT   ${T}_return_events: count 2 '<- do_sys_openat2 \([0-9.]+ [nmu]?s\)$'
		EXPECT   ${T}_user_string: count 2 "^    filename = \"$tmp/file-to-open\"$"
		EXPECT   ${T}_negative_int_arg: count 2 '^    dfd = -100$'
		EXPECT   ${T}_return_fd: count 2 '^    return = 3$'
	CASE

	# --- member chains of depth 1..3 and '.' through an embedded struct ---
	ks_case <<-'CASE'
		NAME     ${T}_ip_output
		RUN      --mode $mode -n 2 -c ping \
		         'ip_output(skb->len, skb->sk->__sk_common.skc_family, skb->dev->name, skb)'
		WORKLOAD ping_until_done
		UNTIL    exit
		EXPECT   ${T}_events: count 2 '-> ip_output$'
		EXPECT   ${T}_chain_depth1: count 2 '^    skb->len = 84$'
		EXPECT   ${T}_chain_depth2_embedded: count 2 '^    skb->sk->__sk_common.skc_family = 2$'
		EXPECT   ${T}_struct_header: match '^    skb = 0x[0-9a-f]+ -> \(struct sk_buff\)\{$'
		EXPECT   ${T}_struct_field_len: count 2 '^        \.len = 84,$'
		EXPECT   ${T}_struct_field_sk: match '^        \.sk = 0x[0-9a-f]+,$'
	CASE

	# --- the README's first trace: ip_send_skb, reached by UDP (udp_send_skb
	# calls it; ping's raw socket does not: ip_push_pending_frames has it
	# inlined). 56 bytes of payload are 84 on the wire, 100 are 128.
	ks_case <<-'CASE'
		NAME     ${T}_ip_send_skb
		RUN      --mode $mode -c vmprog 'ip_send_skb(skb->len == 84, skb->len, skb->sk->sk_family, skb)'
		WORKLOAD vmprog udp 2 56
		WORKLOAD vmprog udp 1 100
		EXPECT   ${T}_ip_send_skb_events: count 2 '-> ip_send_skb$'
		EXPECT   ${T}_ip_send_skb_len: count 2 '^    skb->len = 84$'
		EXPECT   ${T}_ip_send_skb_alias: count 2 '^    skb->sk->sk_family = 2$'
		EXPECT   ${T}_ip_send_skb_struct: count 2 '^    skb = 0x[0-9a-f]+ -> \(struct sk_buff\)\{$'
	CASE
	# The device is set by ip_output: at ip_finish_output2 it is "lo".
	# The echo reply may be sent from ksoftirqd: one event or two.
	ks_case <<-'CASE'
		NAME     ${T}_dev_name
		RUN      --mode $mode -c ping 'ip_finish_output2(skb->len, skb->dev->name)'
		WORKLOAD ping -c 1 127.0.0.1 >/dev/null 2>&1
		EXPECT   match '^    skb->dev->name = "lo"$'
		EXPECT   ${T}_dev_name_only_lo: count 0 '^    skb->dev->name = [^"]'
	CASE

	# --- ksnoop leaves out its own calls: its output is written through
	# vfs_write, which would be an event to print in turn. With a return
	# predicate the entry is stashed: ksnoop's own never is.
	for case in 'entry:vfs_write(count)' 'stash:vfs_write(count, return > 0)'; do
		S=${T}_self_${case%%:*} spec=${case#*:}
		ks_case <<-'CASE'
			NAME     ${S}
			RUN      --mode $mode -j "$spec"
			WORKLOAD write_three
			EXPECT   ${S}_left_out: count 0 "\"pid\":$KPID,"
			EXPECT   ${S}_others_seen: count 3 "\"pid\":$$,.*\"count\":8[,}]"
		CASE
	done

	# --- kernel string (char *) through a struct: struct filename ---
	ks_case <<-'CASE'
		NAME     ${T}_kernel_string
		KFUNC    F do_filp_open do_file_open
		RUN      --mode $mode -n 1 -c cat "$F(pathname->name, pathname->refcnt)"
		WORKLOAD cat /proc/version >/dev/null
		UNTIL    exit
		EXPECT   count 1 '^    pathname->name = "/proc/version"$'
	CASE

	# --- a module function (split BTF): dummy's stats, from /proc/net/dev ---
	ks_case <<-'CASE'
		NAME     ${T}_module
		RUN      --mode $mode -n 1 -c cat 'dummy_get_stats64(dev->name, dev)'
		WORKLOAD cat /proc/net/dev >/dev/null
		UNTIL    exit
		EXPECT   ${T}_module_char_array: count 1 '^    dev->name = "(dummy0|kd0)"$'
		EXPECT   ${T}_module_struct: match '^        \.name = "(dummy0|kd0)",$'
	CASE

	# --- JSON, parsed by jq ---
	ks_case <<-'CASE'
		NAME     ${T}_json
		RUN      --mode $mode -j -n 4 -c cat 'do_sys_openat2(filename, how, return)'
		WORKLOAD cat "$tmp/file-to-open" >/dev/null
		WORKLOAD cat "$tmp/file-to-open" >/dev/null
		UNTIL    exit
		EXPECT   ${T}_json_parses: json
		EXPECT   ${T}_json_kinds: eq "entry${nl}return" "$(events "$OUT" | jq -r .kind | sort -u)"
		EXPECT   ${T}_json_filename: eq "$tmp/file-to-open" \
		         "$(events "$OUT" | jq -r 'select(.kind=="entry") | .values.filename' | sort -u)"
		EXPECT   ${T}_json_struct: eq object \
		         "$(events "$OUT" | jq -r 'select(.kind=="entry") | .values.how | type' | sort -u)"
		EXPECT   ${T}_json_return: eq 3 "$(events "$OUT" | jq -r 'select(.kind=="return") | .values.return' | sort -u)"
		EXPECT   ${T}_json_comm: eq cat "$(events "$OUT" | jq -r .comm | sort -u)"
	CASE

	# --- pid filter: two processes open files, one is traced ---
	sh -c 'while :; do cat /proc/version >/dev/null; done' & b1=$!
	sh -c 'while :; do cat /proc/version >/dev/null; done' & b2=$!
	ks_case <<-'CASE'
		NAME     ${T}_pid
		RUN      --mode $mode -j -n 10 -p "$b1" 'sched_fork(p->pid)'
		UNTIL    exit
		EXPECT   ${T}_pid_filter_count: eq 10 "$(events "$OUT" | wc -l)"
		EXPECT   ${T}_pid_filter_only: eq "$b1" "$(events "$OUT" | jq -r .pid | sort -u)"
	CASE
	kill -9 "$b1" "$b2" 2>/dev/null; wait "$b1" "$b2" 2>/dev/null

	# --- nothing left attached: after -n, SIGINT and SIGKILL ---
	expect_eq ${T}_nothing_left_after_count 0 "$(ksnoop_progs)"
	expect_eq ${T}_no_kprobe_events 0 "$(tracefs_lines kprobe_events)"
	ks_case <<-'CASE'
		NAME     ${T}_attach_sigint
		RUN      --mode $mode 'vfs_read' 'ip_output'
		WORKLOAD running=$(ksnoop_progs)
		EXPECT   ${T}_attached_while_running: eq 4 "$running"
		EXPECT   ${T}_sigint_status: exit 0
		EXPECT   ${T}_nothing_left_after_sigint: eq 0 "$(ksnoop_progs)"
	CASE
	# The kernel frees them after an RCU grace period: progs_gone waits for
	# that (bounded by count), not for a second.
	ks_case <<-'CASE'
		NAME     ${T}_attach_sigkill
		RUN      --mode $mode 'vfs_read(count)'
		WORKLOAD kill -KILL "$KPID"
		EXPECT   ${T}_sigkill_status: exit 137
		EXPECT   ${T}_nothing_left_after_sigkill: eq 0 "$(progs_gone)"
		EXPECT   ${T}_no_kprobe_events_after_sigkill: eq 0 "$(tracefs_lines kprobe_events)"
	CASE

	# --- all or nothing: a second function that cannot attach (a run that
	#     must fail: not a case, which fails when ksnoop does not attach) ---
	out=$(ksnoop --mode $mode vfs_read no_such_function_xyz 2>&1); rc=$?
	expect_eq ${T}_unknown_second_status 2 "$rc"
	expect_eq ${T}_nothing_left_after_failure 0 "$(ksnoop_progs)"
done

# The kernel's features, probed once and said in one -v line: 6.1 has
# kprobes but no kprobe.multi and no raw_tp cookies; 6.12 has everything
# on x86-64, and on arm64 all but kprobe.multi (Debian's arm64 6.12 has no
# fprobe: its function tracer lacks what fprobe needs there).
# (The stderr of the last kprobe_openat case above.)
line=$(grep '^ksnoop: kernel [^ ]*: fentry' "$tmp/kprobe_openat.err")
expect_eq features_said_once 1 "$(grep -c '^ksnoop: kernel [^ ]*: fentry' "$tmp/kprobe_openat.err")"
note "$line"
feature_case() {
	ks_case <<-CASE
		NAME     $1
		$2
		$3
		RUN      -n 2 -c cat 'do_sys_openat2(filename, return)'
		WORKLOAD cat "\$tmp/file-to-open" >/dev/null
		UNTIL    exit
		EXPECT   stderr '^ksnoop: kernel [^ ]*: $4; probed in [0-9.]+ ms\$'
	CASE
}
feature_case features_arm64_6_1 'ARCH aarch64' 'MAX_KERNEL 6.1' \
	'fentry no \(no BPF trampolines in this kernel.s build for its architecture, ENOTSUPP\), kprobes yes, kprobe_multi no, uprobe_sleepable (yes|no), tp_cookies no, ringbuf yes, kprobe_session no, uprobe_multi no, fsession no, uprobe_session no, raw_syscalls yes'
feature_case features_6_1 'ARCH x86_64' 'MAX_KERNEL 6.1' \
	'fentry yes, kprobes yes, kprobe_multi no, uprobe_sleepable (yes|no), tp_cookies no, ringbuf yes, kprobe_session no, uprobe_multi no, fsession no, uprobe_session no, raw_syscalls yes'
feature_case features_all 'ARCH x86_64' 'MIN_KERNEL 6.2' \
	'fentry yes, kprobes yes, kprobe_multi yes, uprobe_sleepable yes, tp_cookies yes, ringbuf yes, kprobe_session (yes|no), uprobe_multi yes, fsession (yes|no), uprobe_session (yes|no), raw_syscalls yes'
feature_case features_arm64_6_12 'ARCH aarch64' 'MIN_KERNEL 6.2
		MAX_KERNEL 6.12' \
	'fentry yes, kprobes yes, kprobe_multi no, uprobe_sleepable yes, tp_cookies yes, ringbuf yes, kprobe_session no, uprobe_multi yes, fsession no, uprobe_session no, raw_syscalls yes'

# A kernel without fentry (injected): kprobes are chosen before anything
# resolves; nothing fails first and nothing is resolved twice.
export KSNOOP_FEATURES=-fentry
ks_case <<'CASE'
NAME     no_fentry
RUN      -n 2 -c cat 'do_sys_openat2(filename, return)'
WORKLOAD cat "$tmp/file-to-open" >/dev/null
UNTIL    exit
EXPECT   no_fentry_kprobes: stderr 'attached with kprobe/kretprobe'
EXPECT   no_fentry_no_failed_attempt: eq "" "$(grep -E 'fentry/fexit failed|trying kprobes' "$ERR")"
EXPECT   no_fentry_resolved_once: eq 1 "$(grep -c ': function in vmlinux, ' "$ERR")"
EXPECT   no_fentry_return: count 1 '^    return = 3$'
EXPECT   no_fentry_said: stderr 'fentry no \(KSNOOP_FEATURES\)'
CASE
# --mode fentry where fentry is off: refused before loading anything (a
# run that must fail, so not a case).
out=$(ksnoop --mode fentry vfs_read 2>&1); rc=$?
expect_eq no_fentry_mode_fentry_status 1 "$rc"
expect_match no_fentry_mode_fentry_says '^ksnoop: --mode fentry: this kernel refuses fentry/fexit \(turned off by KSNOOP_FEATURES\); --mode kprobe works$' "$out"
unset KSNOOP_FEATURES
rm -rf "$tmp"
