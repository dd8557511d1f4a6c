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
