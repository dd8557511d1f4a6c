// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bare probes for bench/run's tracepoint tables: tp_btf programs on
 * sys_enter, attached the way ksnoop attaches its tracepoint programs.
 * Built once per KSB_BARE:
 *
 *   0 (bare.bpf.o)        returns at once: what ksnoop adds on top of
 *                         this for a call it filters out is the cost of
 *                         its own checks (table 3b)
 *   1 (bare-event.bpf.o)  one 16-byte record a call into a 16 MiB ring
 *                         buffer (bpftrace 0.27's printf of one value;
 *                         no wake-up, ksb-bare's reader polls every
 *                         10 ms): the least a tracer that sends each call
 *                         to user space pays (table 3's floor)
 *   2 (bare-stack.bpf.o)  the same record with the kernel stack's id
 *                         (bpf_get_stackid(), as bpftrace's kstack): -s's
 *                         floor (table 3c)
 *   3 (bare-count.bpf.o)  one add to a per-CPU array: --count's and
 *                         --hist's floor (table 3c)
 *
 * Every task's calls but the reader's own (ksb-bare's pid, set before
 * the load: its polls would feed themselves), as a tracer that selects
 * by pid tests one (bpf_get_current_pid_tgid()).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#ifndef KSB_BARE
#define KSB_BARE 0
#endif

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#if KSB_BARE != 0
const volatile __u32 self_tgid = 0;
#endif

#if KSB_BARE == 1 || KSB_BARE == 2
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} events SEC(".maps");
#endif

#if KSB_BARE == 2
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 127 * sizeof(__u64));
} stacks SEC(".maps");
#endif

#if KSB_BARE == 3
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");
#endif

SEC("tp_btf/sys_enter")
int ksb_bare_tp(__u64 *ctx)
{
#if KSB_BARE != 0
	if (bpf_get_current_pid_tgid() >> 32 == self_tgid)
		return 0;
#endif
#if KSB_BARE == 1 || KSB_BARE == 2
	__u64 rec[2] = { 1, ctx[1] };

#if KSB_BARE == 2
	rec[1] = bpf_get_stackid(ctx, &stacks, 0);
#endif
	bpf_ringbuf_output(&events, rec, sizeof(rec), BPF_RB_NO_WAKEUP);
#elif KSB_BARE == 3
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&counts, &zero);

	if (n)
		*n += 1;
#endif
	return 0;
}
