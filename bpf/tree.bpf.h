/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --tree: call-tree sessions, one per task, with the calls kept until the
 * root returns (then flushed to the ring buffer, or dropped); bounded,
 * emptied on exit and exec, every drop counted.
 */
#ifndef KSNOOP_TREE_BPF_H
#define KSNOOP_TREE_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "plan.bpf.h"
#include "ringbuf.bpf.h"
#include "scratch.bpf.h"
#include "call.bpf.h"

/*
 * One session per task in a call tree (ksnoop.h, enum ksnoop_tree_role),
 * shared by every instance of a run.  Keyed by the kernel's tid: only the
 * task itself reads or writes its element.  Not an LRU: an evicted session
 * would drop its tree uncounted and leave its calls in tree_buf for good.
 * A session ends at its root's return, at its task's exit or exec
 * (ksnoop_tree_exit, ksnoop_tree_exec), or when its tid turns up in
 * another task; a root that finds the map full opens none, counted.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_TREE_SESSIONS);
	__type(key, __u32);
	__type(value, struct ksnoop_tree_session);
} sessions SEC(".maps");

/*
 * A session's calls until its root returns (ksnoop.h); shared like
 * sessions.  With --tree userspace preallocates it and sizes its values
 * to the largest inner record; unused, it stays empty.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_TREE_BUF_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ksnoop_tree_buf_key);
	__type(value, struct ksnoop_tree_rec);
} tree_buf SEC(".maps");

/*
 * The kernel's in_task(): not in a hard interrupt, an NMI or a softirq
 * being served (a task's own calls with softirqs only disabled are its).
 * The CPU's preempt count is read where userspace found it (kallsyms and
 * BTF: a per-CPU variable on 6.1 and from 6.15, a member of pcpu_hot from
 * 6.2 to 6.14), as per_cpu_ptr() does; typed ksyms would not load where
 * the kernel keeps BTF for the variable but no address.  Which bits mean
 * "not the task's" depends on the kernel (7.3 moved HARDIRQ and NMI up
 * by 8 bits): userspace says, in plan.preempt_not_task.  Its low 32 bits
 * hold them all (7.3's count is a long).
 */
static __always_inline bool in_task(void)
{
	__u64 off;
	__u32 count;

	if (!plan.per_cpu_offset_addr)
		return true;
	if (bpf_probe_read_kernel(&off, sizeof(off), (void *)(plan.per_cpu_offset_addr +
				  8 * (__u64)bpf_get_smp_processor_id())) ||
	    bpf_probe_read_kernel(&count, sizeof(count), (void *)(plan.preempt_count_addr + off)))
		return true;
	return !(count & plan.preempt_not_task);
}

/* bpf_loop()'s context at a session's end: whose calls, and emit or drop. */
struct tree_flush {
	__u32 tid;
	__u32 emit;
};

static long tree_flush_one(__u32 i, void *ctx)
{
	struct tree_flush *f = ctx;
	struct ksnoop_tree_buf_key key = { .tid = f->tid, .index = i };
	struct ksnoop_tree_rec *t = bpf_map_lookup_elem(&tree_buf, &key);
	__u32 size;

	if (!t)
		return 0;
	size = t->size;
	if (f->emit && size >= sizeof(struct ksnoop_event) && size <= plan.tree_rec_size &&
	    bpf_ringbuf_output(&events, t->rec, size, BPF_RB_NO_WAKEUP))
		count(KSNOOP_CNT_LOST);
	bpf_map_delete_elem(&tree_buf, &key);
	return 0;
}

/* TID's session's N calls to the ring buffer (EMIT, the root's return), or gone. */
static __always_inline void tree_flush(__u32 tid, __u32 n, bool emit)
{
	struct tree_flush f = { .tid = tid, .emit = emit };

	if (n)
		bpf_loop(n < KSNOOP_TREE_BUF_ENTRIES ? n : KSNOOP_TREE_BUF_ENTRIES,
			 tree_flush_one, &f, 0);
}

/*
 * TID's session S is dropped (WHY: its task exited or exec'd): its calls
 * waiting in tree_buf go with it, and the tree is counted.
 */
static __always_inline void tree_drop(__u32 tid, struct ksnoop_tree_session *s,
				      enum ksnoop_counter why)
{
	tree_flush(tid, (__u32)s->kept, false);
	bpf_map_delete_elem(&sessions, &tid);
	count(why);
}

/*
 * The current task's session, or NULL.  A session left by a task that
 * exited inside it (its root never returned) is not a new task's of the
 * same tid: it goes.
 */
static __always_inline struct ksnoop_tree_session *tree_session(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ksnoop_tree_session *s = bpf_map_lookup_elem(&sessions, &tid);

	/* An interrupt's calls are not the task's, whose session it interrupted. */
	if (s && !in_task())
		return NULL;
	if (s && s->task != bpf_get_current_task()) {
		tree_drop(tid, s, KSNOOP_CNT_TREE_EXIT);
		return NULL;
	}
	return s;
}

/*
 * A session's counts change atomically: a hard interrupt taken while its
 * task is in it runs the session's programs on the same CPU (and counts)
 * in the middle of the task's.
 */
static __always_inline bool tree_full(struct ksnoop_tree_session *s, __u32 depth)
{
	if (depth <= KSNOOP_TREE_MAX_DEPTH && s->calls < s->limit) {
		__sync_fetch_and_add(&s->calls, 1);
		return false;
	}
	__sync_fetch_and_add(&s->dropped, 1);
	count(KSNOOP_CNT_TREE_DROP);
	return true;
}

/*
 * Where the inner call at DEPTH keeps its entry time (NULL: too deep).
 * The bound is tested here, on the register that indexes: the compiler
 * would otherwise merge it with tree_full()'s, and the verifier lose it.
 */
static __always_inline __u64 *tree_start_slot(struct ksnoop_tree_session *s, __u32 depth)
{
	barrier_var(depth);
	if (depth > KSNOOP_TREE_MAX_DEPTH)
		return NULL;
	return &s->start[depth];
}

/*
 * An inner function's entry: false (nothing more to do) outside a session
 * (the one lookup a call outside pays), or past the session's limits; C
 * gets the slot its entry time goes in.  A call the session does not
 * record leaves its slot at 0 (tree_open(), or its last return's take):
 * its return is left out.
 */
static __always_inline bool tree_inner_enter(struct call *c)
{
	struct ksnoop_tree_session *s = tree_session();
	__u32 depth;

	if (!s)
		return false;
	/* An interrupt's calls in between leave the depth as they found it. */
	depth = s->depth + 1;
	__sync_fetch_and_add(&s->depth, 1);
	if (tree_full(s, depth))
		return false;
	c->tree_start = tree_start_slot(s, depth);
	return c->tree_start;
}

/*
 * An inner tracepoint (no return: a leaf of the tree at its place): false
 * outside a session or past its limits; C gets its depth and session.
 */
static __always_inline bool tree_inner_event(struct call *c)
{
	struct ksnoop_tree_session *s = tree_session();

	if (!s)
		return false;
	c->depth = s->depth + 1;
	if (tree_full(s, c->depth))
		return false;
	c->session = s->id;
	c->tree = s;
	return true;
}

/* An inner function's return: false outside a session; C gets its depth. */
static __always_inline bool tree_inner_leave(struct call *c)
{
	struct ksnoop_tree_session *s = tree_session();

	if (!s)
		return false;
	c->depth = s->depth;
	if (c->depth)
		__sync_fetch_and_add(&s->depth, -1);
	c->session = s->id;
	c->tree = s;
	c->tree_start = c->depth ? tree_start_slot(s, c->depth) : NULL;
	return c->tree_start;
}

/*
 * An inner call's record, built in place in its tree_buf element (NULL:
 * not recorded, and counted).  Its index is taken first, atomically, and
 * the record is not built in a per-CPU buffer and copied: a hard
 * interrupt taken while the task is in its session runs the session's
 * programs too (a timer's tp:timer:hrtimer_start, say), on this CPU, and
 * would take the same index, or build its record in the same buffer, in
 * between.  The element is not a record (size 0) until tree_rec_keep().
 */
static __always_inline void *tree_rec_begin(const volatile struct ksnoop_side_plan *side,
					    struct call *c)
{
	struct ksnoop_tree_session *s = c->tree;
	struct ksnoop_tree_buf_key key;
	struct ksnoop_tree_rec *t;

	if (!c->now)
		c->now = bpf_ktime_get_ns();
	if (!s)
		return NULL;
	key.tid = (__u32)bpf_get_current_pid_tgid();
	key.index = __sync_fetch_and_add(&s->kept, 1);
	t = new_elem(&tree_buf, &key);
	if (!t) {
		__sync_fetch_and_add(&s->dropped, 1);
		count(KSNOOP_CNT_TREE_DROP);
		return NULL;
	}
	t->size = 0;
	c->tree_rec = t;
	return t->rec;
}

/* The record tree_rec_begin() gave C is complete. */
static __always_inline void tree_rec_keep(const volatile struct ksnoop_side_plan *side,
					  struct call *c)
{
	if (c->tree_rec)
		c->tree_rec->size = side->rec_size;
}

/* The root's entry, inside a session already: a nested root call, the outer one's. */
static __always_inline bool tree_root_nested(void)
{
	struct ksnoop_tree_session *s = tree_session();

	if (!s)
		return false;
	s->nested++;
	return true;
}

/*
 * The root's entry, selected: the task's session starts, from `blank`'s
 * zeroes (too large for the stack), filled in place: until its task is
 * set it is no session of this task's (tree_session()), and an interrupt
 * in between does not look (in_task()).
 */
static __always_inline void tree_open(struct call *c)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ksnoop_tree_session *s = new_elem(&sessions, &tid);

	if (!s) {
		count(KSNOOP_CNT_TREE_NO_ROOM);
		return;
	}
	s->id = (__u32)(c->now ?: bpf_ktime_get_ns());
	s->limit = plan.tree_max_calls;
	s->task = bpf_get_current_task();
}

/*
 * The root's return: false if this call opened no session (not selected)
 * or is a nested one; else the session ends, its id in C.
 */
static __always_inline bool tree_close(struct call *c)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ksnoop_tree_session *s = tree_session();

	if (!s)
		return false;
	if (s->nested) {
		s->nested--;
		return false;
	}
	c->session = s->id;
	c->depth = s->dropped < 0xffff ? s->dropped : 0xffff;
	c->tree_kept = s->kept;
	bpf_map_delete_elem(&sessions, &tid);
	return true;
}

#endif /* KSNOOP_TREE_BPF_H */
