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

# ks_case's gates (ARCH, MIN_KERNEL, MAX_KERNEL, REQUIRES, KFUNC) under
# busybox sh: a case that does not hold here is a SKIP of each result and
# a NOTE naming the kernel, runs nothing, and one that holds runs; a gate
# that is wrong itself fails.  gated CASE... prints the results and notes
# the case gave (not counted: fd 7 is this pipe).
tmp=$(mktemp -d)
# The kernel's release as an ERE: 6.12's has a '+' (6.12.117+deb13-...).
krel=$(uname -r | sed 's/[.+]/\\&/g')
gated() {
	(KSNOOP_VM_RESULTS= ks_case) 7>&1 | tee "$tmp/gated.log" |
		sed -nE 's/^@@KSNOOP-VM@@ (PASS|FAIL|SKIP|NOTE) /\1 /p'
}
r=$(gated <<'CASE'
NAME     gate_future
MIN_KERNEL 99.0
RUN      -n 1 vfs_read
EXPECT   gate_future_a: exit 0
EXPECT   exit 0
CASE
)
expect_eq gate_min_kernel_skips "SKIP harness/gate_future_a
SKIP harness/gate_future
NOTE harness: case gate_future not run: kernel $(uname -r) is older than 99.0" "$r"
expect_eq gate_skip_runs_nothing no "$([ -e "$tmp/gate_future.out" ] && echo yes || echo no)"
r=$(gated <<'CASE'
NAME     gate_past
MAX_KERNEL 5.4
RUN      -n 1 vfs_read
EXPECT   exit 0
CASE
)
expect_match gate_max_kernel_skips "^NOTE harness: case gate_past not run: kernel $krel is newer than 5\\.4$" "$r"
r=$(gated <<'CASE'
NAME     gate_arch
ARCH     riscv64|s390x
RUN      -n 1 vfs_read
EXPECT   exit 0
CASE
)
expect_match gate_arch_skips "^NOTE harness: case gate_arch not run: the machine is $(uname -m), not riscv64 s390x$" "$r"
r=$(export KSNOOP_FEATURES=-kprobes; gated <<'CASE'
NAME     gate_feature
REQUIRES ringbuf kprobe
RUN      -n 1 vfs_read
EXPECT   exit 0
CASE
)
expect_match gate_requires_skips '^NOTE harness: case gate_feature not run: no kprobe: kernel .*kprobes no \(KSNOOP_FEATURES\)' "$r"
r=$(gated <<'CASE'
NAME     gate_kfunc
KFUNC    F ksnoop_no_such_function ksnoop_nor_this
RUN      -n 1 "$F"
EXPECT   exit 0
CASE
)
expect_match gate_kfunc_skips "^NOTE harness: case gate_kfunc not run: kernel $krel has none of ksnoop_no_such_function ksnoop_nor_this" "$r"
r=$(gated <<'CASE'
NAME     gate_bad
REQUIRES fentri
RUN      -n 1 vfs_read
EXPECT   exit 0
CASE
)
expect_match gate_unknown_feature_fails '^FAIL harness/gate_bad$' "$r"
r=$(gated <<'CASE'
NAME     gate_held
ARCH     x86_64|aarch64
MIN_KERNEL 6.1
MAX_KERNEL 99.0
REQUIRES kprobes ringbuf
KFUNC    F ksnoop_no_such_function do_sys_openat2 vfs_read
RUN      -n 1 -c cat "$F(filename)"
WORKLOAD cat /proc/version >/dev/null
UNTIL    exit
EXPECT   gate_held_func: eq do_sys_openat2 "$F"
EXPECT   gate_held_ran: match '-> do_sys_openat2$'
CASE
)
if [ "$r" = "PASS harness/gate_held_func
PASS harness/gate_held_ran" ]; then
	pass gate_all_held_runs
else
	fail gate_all_held_runs "$(cat "$tmp/gated.log")"
fi
rm -rf "$tmp"
