/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-CPU scratch: where what does not fit on the 512-byte BPF stack is
 * built.
 */
#ifndef KSNOOP_SCRATCH_BPF_H
#define KSNOOP_SCRATCH_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/*
 * One record: where the stash builds an entry before storing it, and where
 * --tree finds the first bytes of a new tree_buf element; userspace sizes
 * it to the record before load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__uint(value_size, 8);
} scratch SEC(".maps");

#endif /* KSNOOP_SCRATCH_BPF_H */
