// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The bare probe for bench/run's tracepoint table: a tp_btf program on
 * sys_enter that does nothing, attached the way ksnoop attaches its
 * tracepoint programs. What ksnoop adds on top of this for a call it
 * filters out is the cost of its own checks.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sys_enter")
int ksb_bare_tp(void *ctx)
{
	return 0;
}
