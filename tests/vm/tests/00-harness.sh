#!/bin/sh
# Self-test of the VM harness: the kernel facts ksnoop's tests rely on.
. /tests/lib.sh

check btf_vmlinux test -s /sys/kernel/btf/vmlinux

dummy=$(kmod_path dummy) || dummy=missing
check insmod_dummy insmod "$dummy"
check btf_module test -e /sys/kernel/btf/dummy
check modprobe_veth modprobe veth

check bpftool_prog_list bpftool prog list
expect_eq bpftool_json "0" "$(bpftool -j prog list | jq 'map(select(.type == "kprobe")) | length')"
expect_eq jq "1" "$(echo '{"a":1}' | jq .a)"
check ping_lo ping -c 1 -W 2 127.0.0.1

kev=/sys/kernel/tracing/kprobe_events
if echo 'p:ksnoop_vm_selftest ip_send_skb' >>"$kev" 2>/dev/null; then
	expect_match kprobe_created 'ksnoop_vm_selftest' "$(cat "$kev")"
	check kprobe_removed sh -c "echo '-:ksnoop_vm_selftest' >>$kev"
	expect_no_match kprobe_gone 'ksnoop_vm_selftest' "$(cat "$kev")"
else
	fail kprobe_created "cannot write $kev"
fi
check tracefs_available_filter_functions grep -qx 'ip_send_skb' /sys/kernel/tracing/available_filter_functions

# Live kernel text patching (what every fentry and kprobe attach and detach
# does) while other CPUs run the patched functions: qemu's multi-threaded TCG
# got this wrong (a stale int3 executed: an oops and a panic within seconds
# on 6.12, a hung guest on 6.1; tests/vm/boot.bash). 10 s of toggling the
# function tracer on two hot functions under two loops that call them; the
# guest must live and the tracer must toggle.
t=/sys/kernel/tracing
(while :; do cat /proc/version >/dev/null; done) &
opener1=$!
(while :; do head -c 1 /etc/passwd >/dev/null; done) &
opener2=$!
toggles=0
if echo do_sys_openat2 >$t/set_ftrace_filter && echo vfs_read >>$t/set_ftrace_filter; then
	t0=$(date +%s)
	while [ $(($(date +%s) - t0)) -lt 10 ]; do
		echo function >$t/current_tracer && echo nop >$t/current_tracer || break
		toggles=$((toggles + 1))
	done
fi
kill "$opener1" "$opener2"
wait "$opener1" "$opener2" 2>/dev/null
echo >$t/set_ftrace_filter
check text_patching_survives test "$toggles" -ge 1
note "text patching: $toggles function-tracer toggles in 10 s"
