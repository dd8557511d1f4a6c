/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The plan and the counters, which every library of ksnoop.bpf.c reads.
 *
 * `plan` is written by userspace into a frozen .rodata before load: the
 * verifier takes its values as constants, so what a plan does not use is
 * pruned from each program; `kfields` likewise says where the kernel
 * keeps what they read of its structures.  `counters` are what the summary prints: drops,
 * losses, skips (enum ksnoop_counter).  `gate` is open (1) only between
 * the moment every link of a run is attached and the moment it stops.
 */
#ifndef KSNOOP_PLAN_BPF_H
#define KSNOOP_PLAN_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"

const volatile struct ksnoop_plan plan = {};
/* The kernel's layout where the programs read its structures (include/ksnoop.h). */
const volatile struct ksnoop_kfields kfields = {};

/* Whether field F's place in the kernel is known. */
#define KFIELD_KNOWN(f)	((kfields.known >> (f)) & 1)
/* Field F of the kernel object at BASE: its address (KFIELD_KNOWN() first). */
#define KFIELD_AT(base, f)	((const void *)((const char *)(base) + kfields.off[(f)]))

/* The 64-bit field F of the kernel object at BASE; 0 where unknown or unreadable. */
static __always_inline __u64 kfield_u64(const void *base, enum ksnoop_kfield f)
{
	__u64 v = 0;

	if (KFIELD_KNOWN(f))
		bpf_probe_read_kernel(&v, sizeof(v), KFIELD_AT(base, f));
	return v;
}

/* The 32-bit field F of the kernel object at BASE; 0 where unknown or unreadable. */
static __always_inline __u32 kfield_u32(const void *base, enum ksnoop_kfield f)
{
	__u32 v = 0;

	if (KFIELD_KNOWN(f))
		bpf_probe_read_kernel(&v, sizeof(v), KFIELD_AT(base, f));
	return v;
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KSNOOP_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * One map for every instance of a run (userspace shares the first's).
 * Closed while the rest attaches, so that no call tree or tracked object
 * starts from a half-attached set (a free whose tracepoint is not yet
 * attached, a tree without its inner functions); closed again when the
 * run stops, so that counts, histograms and the summary are final before
 * the links detach (which takes seconds for hundreds of them).  The cost
 * is an array lookup (inlined by the verifier) per call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} gate SEC(".maps");

static __always_inline bool gate_open(void)
{
	__u32 zero = 0, *open = bpf_map_lookup_elem(&gate, &zero);

	return open && *open;
}

static __always_inline void count(__u32 counter)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &counter);

	/*
	 * Atomic: counters are shared by every instance of a run, and a
	 * preemptible program (uprobes; fentry on a preemptible kernel) may
	 * be preempted between a load and a store by another on its CPU.
	 */
	if (c)
		__sync_fetch_and_add(c, 1);
}

#endif /* KSNOOP_PLAN_BPF_H */
