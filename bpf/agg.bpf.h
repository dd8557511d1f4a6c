/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Aggregation in BPF: --count (per function, per stack), --hist of a value
 * or of durations (log2 or linear buckets, with the max), and --by's keys;
 * no record at all.
 */
#ifndef KSNOOP_AGG_BPF_H
#define KSNOOP_AGG_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "ksnoop_tuple_key.h"
#include "plan.bpf.h"
#include "words.bpf.h"
#include "read.bpf.h"
#include "call.bpf.h"
#include "task.bpf.h"
#include "value.bpf.h"
#include "pred.bpf.h"
#include "scratch.bpf.h"

/*
 * --count, --hist, --stats: a count_val per key.  Per CPU where the run
 * has no uprobe program (KSNOOP_PLAN_COUNTS_PERCPU; userspace makes the
 * map BPF_MAP_TYPE_PERCPU_HASH, not preallocated, and sums the CPUs'):
 * no cache line goes from CPU to CPU, and a CPU's value is added to with
 * plain instructions, no `lock`.  That is safe where no other run can
 * come between a program's load and its store on that CPU: kprobes and
 * tracepoints run with preemption disabled, and the kernel skips a run
 * of a program nested in another run of it on one CPU (bpf_prog_active
 * for kprobes, the program's own `active` count for tracepoints and
 * fentry's trampolines, which are preemptible); a key is one function's,
 * whose calls one program counts.  A uprobe program may be preempted by
 * another task's run of it on the same CPU (scratch.bpf.h): a run with
 * one keeps one value per key, added to atomically.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_COUNT_ENTRIES);
	__type(key, struct ksnoop_count_key);
	__type(value, struct ksnoop_count_val);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, KSNOOP_STACK_ENTRIES);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, KSNOOP_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* log2 bucket: 0 for 0, k for [2^(k-1), 2^k). */
static __always_inline __s32 log2_bucket(__u64 v)
{
	__s32 b = 1;

	if (!v)
		return 0;
	if (v >> 32) { b += 32; v >>= 32; }
	if (v >> 16) { b += 16; v >>= 16; }
	if (v >> 8) { b += 8; v >>= 8; }
	if (v >> 4) { b += 4; v >>= 4; }
	if (v >> 2) { b += 2; v >>= 2; }
	if (v >> 1) { b += 1; }
	return b;
}

/*
 * --by: the counts per (function, key, bucket), keys as they come; only
 * when --by is given (userspace does not create it otherwise).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_BY_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ksnoop_by_key);
	__type(value, struct ksnoop_count_val);
} by_counts SEC(".maps");

/*
 * --hist=linear: bucket -1 below hist_min, k for [min + k * step,
 * min + (k + 1) * step), hist_nbuckets at or above the last.
 */
static __always_inline __s32 linear_bucket(__u64 v, bool is_signed)
{
	__u64 off;

	if (is_signed ? (__s64)v < plan.hist_min :
	    plan.hist_min >= 0 && v < (__u64)plan.hist_min)
		return -1;
	off = v - (__u64)plan.hist_min;
	if (off / plan.hist_step >= plan.hist_nbuckets)
		return plan.hist_nbuckets;
	return off / plan.hist_step;
}

/* The histogram's bucket of V: log2 or linear (plan.hist_linear). */
static __always_inline __s32 hist_bucket(__u64 v, bool is_signed)
{
	if (plan.hist_linear)
		return linear_bucket(v, is_signed);
	return is_signed && (__s64)v < 0 ? -1 : log2_bucket(v);
}

/*
 * What --by's VALUE part is made of, found before a scratch frame is taken
 * for it (walk() and pred_scalar() may page memory in, and sleep): an
 * integer, or where the value is (a string, a ':tuple').
 */
struct by_src {
	__u64 num;
	__u64 addr;
	bool user;
};

/* -1: the value could not be read; 0 too when no part is a value. */
static __always_inline int by_source(const __u64 *words, struct by_src *s)
{
	const volatile struct ksnoop_pred_plan *p = &plan.by_value;

	if (plan.by == KSNOOP_BY_NONE)
		return 0;
	if (src_unread(words, &p->acc))
		return -1;
	if (plan.by == KSNOOP_BY_INT)
		return pred_scalar(p, src_word(words, &p->acc), &s->num);
	if (walk(&p->acc, src_word(words, &p->acc), &s->addr, &s->user) != KSNOOP_OK)
		return -1;
	/* A user address is no skb or sock. */
	return plan.by != KSNOOP_BY_STR && s->user ? -1 : 0;
}

/* KSNOOP_BY_STR: the bytes a char pointer's string, or a char array, gives the key. */
static __always_inline __u32 by_str_size(const volatile struct ksnoop_pred_plan *p)
{
	if (p->acc.flags & KSNOOP_VAL_STR)
		return KSNOOP_BY_SIZE;
	return p->acc.size < KSNOOP_BY_SIZE - 1 ? p->acc.size : KSNOOP_BY_SIZE - 1;
}

/*
 * --by's VALUE part into KEY (zeroed), from S: a number, a flow (the tuple
 * with what varies per packet zeroed), or a string's bytes (never paged in
 * here: a frame is held).  -1: not read.
 */
static __always_inline int by_value_part(const struct by_src *s, __u8 *key)
{
	const volatile struct ksnoop_pred_plan *p = &plan.by_value;
	__u32 size = by_str_size(p);

	switch (plan.by) {
	case KSNOOP_BY_SKB_TUPLE:
		if (copy_skb_tuple(&p->acc, s->addr, (struct ksnoop_skb_tuple *)key) != KSNOOP_OK)
			return -1;
		ksnoop_skb_tuple_key((struct ksnoop_skb_tuple *)key);
		return 0;
	case KSNOOP_BY_SOCK_TUPLE:
		if (copy_sock_tuple(&p->acc, s->addr, (struct ksnoop_sock_tuple *)key) != KSNOOP_OK)
			return -1;
		ksnoop_sock_tuple_key((struct ksnoop_sock_tuple *)key);
		return 0;
	case KSNOOP_BY_STR:
		if (p->acc.flags & KSNOOP_VAL_STR ? read_str_now(key, size, s->addr, s->user) < 0 :
		    read_mem_now(key, size, s->addr, s->user) != 0)
			return -1;
		return 0;
	default:
		*(__u64 *)key = s->num;
		return 0;
	}
}

/* Part KIND of --by's key into KEY: the task's comm, ids or CPU, or the VALUE part. */
static __always_inline int by_part(__u8 kind, const struct by_src *s, __u8 *key)
{
	__u32 tgid, tid;

	switch (kind) {
	case KSNOOP_BY_COMM:
		bpf_get_current_comm(key, KSNOOP_COMM_LEN);
		return 0;
	case KSNOOP_BY_PID:
	case KSNOOP_BY_TID:
		task_ids(&tgid, &tid);
		*(__u64 *)key = kind == KSNOOP_BY_PID ? tgid : tid;
		return 0;
	case KSNOOP_BY_CPU:
		*(__u64 *)key = bpf_get_smp_processor_id();
		return 0;
	case KSNOOP_BY_CGROUP:
		*(__u64 *)key = bpf_get_current_cgroup_id();
		return 0;
	default:
		return by_value_part(s, key);
	}
}

/*
 * --by: the key of this call into KEY (zeroed), each part at its offset
 * in the order given (plan.by_part, plan.by_off); -1: one not read.
 */
static __always_inline int by_key(const struct by_src *s, __u8 *key)
{
	__u32 room;
	int i;

	for (i = 0; i < KSNOOP_BY_PARTS; i++) {
		if (plan.by_part[i] == KSNOOP_BY_NONE)
			break;
		/* The offsets are the resolver's: bounded here for the verifier too. */
		room = plan.by_part[i] >= KSNOOP_BY_INT && plan.by_part[i] != KSNOOP_BY_CGROUP ?
		       KSNOOP_BY_SIZE : KSNOOP_COMM_LEN;
		if (plan.by_off[i] > KSNOOP_BY_KEY_SIZE - room)
			return -1;
		if (by_part(plan.by_part[i], s, key + plan.by_off[i]))
			return -1;
	}
	return 0;
}

/* --hist, --stats: whether V is above (LOWER: below) BOUND. */
static __always_inline bool beyond(__u64 bound, __u64 v, bool is_signed, bool lower)
{
	if (lower)
		return is_signed ? (__s64)v < (__s64)bound : v < bound;
	return is_signed ? (__s64)v > (__s64)bound : v > bound;
}

/*
 * --hist, --stats: *BOUND = V if V is beyond it (LOWER: below, else
 * above), in one atomic step; a CPU that raced another looks again
 * (KSNOOP_MAX_CAS_TRIES times: each failure means the bound moved on
 * meanwhile).
 */
static __always_inline void keep_bound(__u64 *bound, __u64 v, bool is_signed, bool lower)
{
	__u64 old;
	int i;

	for (i = 0; i < KSNOOP_MAX_CAS_TRIES; i++) {
		old = *(volatile __u64 *)bound;
		if (!beyond(old, v, is_signed, lower))
			return;
		if (__sync_val_compare_and_swap(bound, old, v) == old)
			return;
	}
}

/*
 * One more in MAP at KEY (made if new), and for --hist (--stats) V its
 * max and min if beyond them, and its sum; a full map is counted.  Per
 * CPU (KSNOOP_PLAN_COUNTS_PERCPU), a key made on another CPU is zero on
 * this one until its first call here.
 */
static __always_inline void add_one(void *map, const void *key, __u64 v)
{
	struct ksnoop_count_val one = { .count = 1, .max = v, .min = v, .sum = v };
	bool is_signed = plan.output == KSNOOP_OUT_HIST && plan.hist.is_signed;
	bool values = plan.output == KSNOOP_OUT_HIST || plan.output == KSNOOP_OUT_HIST_DURATION;
	struct ksnoop_count_val *n = bpf_map_lookup_elem(map, key);

	if (!n) {
		if (bpf_map_update_elem(map, key, &one, BPF_NOEXIST) == 0)
			return;
		/* Another CPU added it meanwhile, or the map is full. */
		n = bpf_map_lookup_elem(map, key);
		if (!n) {
			count(KSNOOP_CNT_COUNT_FULL);
			return;
		}
	}
	if (plan.flags & KSNOOP_PLAN_COUNTS_PERCPU) {
		if (values) {
			if (!n->count || beyond(n->max, v, is_signed, false))
				n->max = v;
			if (!n->count || beyond(n->min, v, is_signed, true))
				n->min = v;
			n->sum += v;
		}
		n->count++;
		return;
	}
	__sync_fetch_and_add(&n->count, 1);
	if (values) {
		keep_bound(&n->max, v, is_signed, false);
		keep_bound(&n->min, v, is_signed, true);
		__sync_fetch_and_add(&n->sum, v);
	}
}

/* --hist's bucket of V, or with --stats the one row every value is summed in. */
static __always_inline __s32 value_sub(__u64 v, bool is_signed)
{
	if (plan.flags & KSNOOP_PLAN_STATS)
		return 0;
	return hist_bucket(v, is_signed);
}

/*
 * --by: one more for (function, bucket SUB, S's key), of value V, the key
 * built in a scratch frame; as by_key() says.
 */
static __always_inline int count_by_key(const struct call *c, __s32 sub, __u64 v,
					const struct by_src *s)
{
	union locals *l;
	__u32 f;
	int err;

	l = locals_take(&f);
	if (!l)
		return -1;
	__builtin_memset(&l->by, 0, sizeof(l->by));
	l->by.func_id = c->func_id;
	l->by.sub = sub;
	err = by_key(s, l->by.key);
	if (!err)
		add_one(&by_counts, &l->by, v);
	locals_give(f);
	return err;
}

/* --by: one more for (function, bucket SUB, this call's key), of value V. */
static __always_inline void count_by(const struct call *c, __s32 sub, __u64 v,
				     const __u64 *words)
{
	struct by_src s = {};
	int err = by_source(words, &s);

	/* Paged in first, where it may need to be: no frame is held while it sleeps. */
	if (!err && plan.by == KSNOOP_BY_STR && may_fault_in(s.user))
		fault_in(s.addr, by_str_size(&plan.by_value));
	if (!err)
		err = count_by_key(c, sub, v, &s);
	if (err)
		count(KSNOOP_CNT_HIST_UNREAD);
}

/* bpf_get_stackid() with BPF_F_USER_STACK: no user stack (a kernel thread's). */
#define STACKID_NO_USER_STACK	(-14)	/* -EFAULT */

/* --count: one more call of C's function (and of its stack), no record at all. */
static __always_inline void count_call(void *ctx, enum word_source ws, const struct call *c,
				       const __u64 *words)
{
	struct ksnoop_count_key key = { .func_id = c->func_id, .sub = -1, .usub = -1 };
	__u64 v = 0;
	__u32 tid;

	if (plan.output == KSNOOP_OUT_HIST_DURATION) {
		/* A return whose entry was not seen (or not selected): no call. */
		if (!c->start || c->now < c->start)
			return;
		v = c->now - c->start;
		key.sub = value_sub(v, false);
	} else if (plan.output == KSNOOP_OUT_HIST) {
		/* A value that cannot be read is no bucket: counted as a fault. */
		if (src_unread(words, &plan.hist.acc) ||
		    pred_scalar(&plan.hist, src_word(words, &plan.hist.acc), &v)) {
			count(KSNOOP_CNT_HIST_UNREAD);
			return;
		}
		key.sub = value_sub(v, plan.hist.is_signed);
	} else if (ws != WORDS_USDT && ws != WORDS_UREGS && ws != WORDS_UREGS_COUNT &&
		   plan.output == KSNOOP_OUT_COUNT_STACKS) {
		/*
		 * Not in the USDT or sleepable uprobe programs at all (ws is
		 * known when it is compiled): a sleepable program may not use
		 * a stack map.  A user function's -s is its user stack, below.
		 */
		key.sub = bpf_get_stackid(ctx, &stacks, 0);
		if (key.sub < 0) {
			count(KSNOOP_CNT_STACK_LOST);
			key.sub = -1;
		}
	}
	/*
	 * --count --ustack: and per user stack, of its process (a user
	 * function's -s too: the resolver asks for it so).
	 */
	if (ws != WORDS_USDT && ws != WORDS_UREGS && (plan.flags & KSNOOP_PLAN_COUNT_USTACK)) {
		key.usub = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		if (key.usub < 0 && key.usub != STACKID_NO_USER_STACK)
			count(KSNOOP_CNT_STACK_LOST);
		if (key.usub < 0)
			key.usub = -1;
		task_ids(&key.tgid, &tid);
	}
	if (plan.by_part[0]) {
		count_by(c, key.sub, v, words);
		return;
	}
	add_one(&counts, &key, v);
}

#endif /* KSNOOP_AGG_BPF_H */
