/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Per-CPU scratch: where what does not fit on the 512-byte BPF stack is
 * built, and `blank`, the zeroes new map elements start from.
 *
 * A CPU may run one of ksnoop's programs inside another: a hard interrupt,
 * a softirq or an NMI that fires a traced function or tracepoint while a
 * program runs (kprobes exclude each other per CPU, fentry, raw tracepoints
 * and uprobes do not), and, where the kernel preempts, another task's
 * program while a preempted one waits with migration disabled; a sleepable
 * USDT program sleeps in bpf_copy_from_user() with other tasks' programs
 * running on its CPU.  So a scratch buffer is no program's for its whole
 * run.  The large locals a short stretch of code needs (a string
 * predicate's bytes, a --by key) are in a frame taken for that stretch
 * only: locals_take() marks one of LOCALS_FRAMES frames of this CPU busy
 * with one atomic compare-and-swap, locals_give() frees it.  A nested
 * program takes another frame, whatever order the two end in; with none
 * free (more than LOCALS_FRAMES stretches in progress on one CPU: an NMI
 * inside a hard interrupt inside a softirq inside a task, or tasks
 * preempted in those few instructions), the caller reads nothing, as on a
 * fault.  No stretch sleeps: a user read that may need its page faulted in
 * gives the frame back first (pred.bpf.h, agg.bpf.h).
 *
 * What stays on the stack: the argument words and struct call, which live
 * through a whole program, sleeps included (a USDT program faults pages in
 * with them), so a frame would be held for as long as a task sleeps and
 * tasks asleep on one CPU could take every frame.
 *
 * Which programs can be preempted, 6.1 to 7.3 (issue #43): uprobe ones
 * (USDT, user functions and their returns, uprobe.multi, uprobe.session;
 * sleepable or not) run with migration disabled only, and the kernel lets
 * other tasks' runs of the same program come between their instructions
 * on that CPU (preempted: 7.3 is PREEMPT_LAZY; asleep paging user memory
 * in: every kernel).  fentry, fexit and fsession run with migration
 * disabled too, but the trampoline skips (counts as missed) a second run
 * of one program on a CPU.  kprobes and tracepoints run with preemption
 * disabled.  So nothing per CPU keeps a value across a point where a
 * program may be preempted or sleep: a frame is taken atomically, an
 * entry record is built in the call's own storage (stash.bpf.h), a
 * counter is added to atomically (plan.bpf.h), and `blank` is never
 * written.
 */
#ifndef KSNOOP_SCRATCH_BPF_H
#define KSNOOP_SCRATCH_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "ksnoop_cbpf.h"

/*
 * One record's worth of zero bytes, never written: the first bytes of a
 * new stash or tree_buf element (bpf_map_update_elem() copies a value in;
 * the record is then built in the element itself, stash.bpf.h).  Not per
 * CPU: nothing writes it, so one copy serves every CPU.  Userspace sizes
 * it to the largest such element before load.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
#ifdef KSNOOP_KPROBES_ONLY
	__type(key, __u32);
	__type(value, __u64);	/* a light skeleton creates it with its BTF as is */
#else
	/*
	 * Sizes, not BTF types: the value is sized before load, and a map
	 * with a key type but no value type is refused by the kernel (libbpf
	 * then creates it again without BTF: a failed syscall per instance).
	 */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 8);
#endif
} blank SEC(".maps");

/*
 * MAP's element under KEY, new or replacing what was there, its first
 * bytes `blank`'s zeroes, for a record to be built in place (stash_room(),
 * tree_rec_begin()); NULL: no room (the map is full, or it failed).
 */
static __always_inline void *new_elem(void *map, const void *key)
{
	__u32 zero = 0;
	void *zeroes = bpf_map_lookup_elem(&blank, &zero);

	if (!zeroes || bpf_map_update_elem(map, key, zeroes, BPF_ANY))
		return NULL;
	return bpf_map_lookup_elem(map, key);
}

/*
 * Frames per CPU: a task, a softirq, a hard interrupt and an NMI, each in
 * one stretch at a time.
 */
#define LOCALS_FRAMES	4

/*
 * --filter: the bytes of struct sk_buff from the first field the filter
 * reads to the end of the last, read at once (6.1 to 7.3: from len, at
 * about 112, to data, at about 216; the device is read apart, where it
 * is needed); a wider span reads field by field.
 */
#define FILTER_SKB_WINDOW	256

/* One frame: the locals of one stretch (they never overlap in a program). */
union locals {
	/* A string predicate's bytes: one more than the longest constant. */
	char pred_str[KSNOOP_MAX_PRED_STR + 1];
	/* --by: the key of this call. */
	struct ksnoop_by_key by;
	/*
	 * --filter: the frame its code runs over (the packet's first bytes,
	 * copied once, and the scratch words), and the skb's fields, read in
	 * one window.
	 */
	struct {
		struct ksnoop_cbpf_frame frame;
		__u8 skb[FILTER_SKB_WINDOW + 8];
	} filter;
};

struct locals_cpu {
	__u64 busy;	/* bit I: frame I is taken */
	union locals frame[LOCALS_FRAMES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct locals_cpu);
} locals SEC(".maps");

/* A free frame of this CPU, taken (*I: which, for locals_give()); NULL: none. */
static __always_inline union locals *locals_take(__u32 *i)
{
	__u32 zero = 0;
	struct locals_cpu *l = bpf_map_lookup_elem(&locals, &zero);
	__u64 busy;
	int f;

	if (!l)
		return NULL;
#pragma clang loop unroll(disable)
	for (f = 0; f < LOCALS_FRAMES; f++) {
		busy = *(volatile __u64 *)&l->busy;
		if (busy & (1ULL << f))
			continue;
		/* Lost to a nested program: this frame is its now, try the next. */
		if (__sync_val_compare_and_swap(&l->busy, busy, busy | (1ULL << f)) != busy)
			continue;
		*i = f;
		return &l->frame[f];
	}
	return NULL;
}

/* Frame I of this CPU is free again. */
static __always_inline void locals_give(__u32 i)
{
	__u32 zero = 0;
	struct locals_cpu *l = bpf_map_lookup_elem(&locals, &zero);

	if (l)
		__sync_fetch_and_and(&l->busy, ~(1ULL << i));
}

#endif /* KSNOOP_SCRATCH_BPF_H */
