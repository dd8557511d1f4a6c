/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --pair: the latency between two events paired by a key (a block
 * request from issue to completion, a pid from wakeup to switch, a USDT
 * start to its done).  The START program keeps the time under the key
 * (the value its spec names, read as --hist reads its value, in
 * plan.hist; or the thread's id); the END program takes it back and the
 * call goes on as a return with a known start: a duration for --hist,
 * --stats and -L, in the event's header for events.  One map for both
 * programs, bounded: a START that finds it full is counted, an END with
 * no START (before attaching, or dropped) is no event.  A START that
 * repeats a key replaces its time: the latest start wins.
 */
#ifndef KSNOOP_PAIR_BPF_H
#define KSNOOP_PAIR_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "plan.bpf.h"
#include "call.bpf.h"
#include "read.bpf.h"
#include "pred.bpf.h"
#include "task.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	/* Preallocated: sleepable USDT programs on 6.1 may use no other hash map. */
	__uint(max_entries, KSNOOP_PAIR_ENTRIES);
	__type(key, __u64);
	__type(value, __u64);
} pair_starts SEC(".maps");

/* This event's pairing key into *KEY: -1 if it cannot be read (counted). */
static __always_inline int pair_key(const __u64 *words, __u64 *key)
{
	__u32 tgid, tid;

	if (plan.flags & KSNOOP_PLAN_PAIR_TID) {
		task_ids(&tgid, &tid);
		*key = tid;
		return 0;
	}
	if (src_unread(words, &plan.hist.acc) ||
	    pred_scalar(&plan.hist, src_word(words, &plan.hist.acc), key)) {
		count(KSNOOP_CNT_PAIR_UNREAD);
		return -1;
	}
	return 0;
}

/*
 * A selected event of a pair: START keeps its time and reports nothing
 * (false); END takes its START's time into C->start and reports (true)
 * only if there was one.
 */
static __always_inline bool pair_event(struct call *c, const __u64 *words)
{
	__u64 key, now = bpf_ktime_get_ns(), *t;

	if (pair_key(words, &key))
		return false;
	if (plan.pair == KSNOOP_PAIR_START) {
		if (bpf_map_update_elem(&pair_starts, &key, &now, BPF_ANY))
			count(KSNOOP_CNT_PAIR_FULL);
		return false;
	}
	t = bpf_map_lookup_elem(&pair_starts, &key);
	if (!t)
		return false;
	c->start = *t;
	bpf_map_delete_elem(&pair_starts, &key);
	c->now = now;
	return c->start && c->start <= now;
}

#endif /* KSNOOP_PAIR_BPF_H */
