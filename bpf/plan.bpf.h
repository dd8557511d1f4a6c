/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The plan and the counters, which every library of ksnoop.bpf.c reads.
 *
 * `plan` is written by userspace into a frozen .rodata before load: the
 * verifier takes its values as constants, so what a plan does not use is
 * pruned from each program.  `counters` are what the summary prints: drops,
 * losses, skips (enum ksnoop_counter).
 */
#ifndef KSNOOP_PLAN_BPF_H
#define KSNOOP_PLAN_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"

const volatile struct ksnoop_plan plan = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KSNOOP_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

static __always_inline void count(__u32 counter)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &counter);

	if (c)
		*c += 1;
}

#endif /* KSNOOP_PLAN_BPF_H */
