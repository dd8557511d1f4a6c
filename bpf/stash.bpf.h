/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The stash: entry records kept until the return (KSNOOP_SIDE_STASH, and
 * KSNOOP_SIDE_RETRY's held-back entries), and entry times
 * (KSNOOP_SIDE_TIMED), both keyed per task and call frame (call_key()).
 * Every entry replaces or clears its key, every return clears it.
 *
 * An entry record is built where it is kept: in the call's own stash
 * element (stash_room()) or session slot (session_room()), never in a
 * per-CPU buffer copied from afterwards.  uprobe programs (USDT, user
 * functions and their returns, uprobe.multi, uprobe.session; sleepable
 * or not) run with migration disabled only, so another task's run of the
 * same program can come between two of their instructions on one CPU
 * (preempted, or asleep in bpf_copy_from_user()), and nothing in the
 * kernel stops it: a record built in a per-CPU buffer was then the next
 * task's by the time it was kept (issue #43: a thread's return with
 * another thread's entry value, on 7.3).  A call's own element is
 * written by that task alone.
 */
#ifndef KSNOOP_STASH_BPF_H
#define KSNOOP_STASH_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "plan.bpf.h"
#include "ringbuf.bpf.h"
#include "scratch.bpf.h"
#include "words.bpf.h"
#include "call.bpf.h"
#include "value.bpf.h"

/*
 * Entry records kept until the return.  The value size is the entry
 * record's, set by userspace before load; elements are allocated as calls
 * come, not preallocated for the worst case.  A record is built in its
 * element (stash_room()).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_STASH_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
#ifdef KSNOOP_KPROBES_ONLY
	__type(key, struct ksnoop_stash_key);
	__type(value, __u64);	/* a light skeleton creates it with its BTF as is */
#else
	/* Sizes, not BTF types, as blank's (scratch.bpf.h). */
	__uint(key_size, sizeof(struct ksnoop_stash_key));
	__uint(value_size, 8);
#endif
} stash SEC(".maps");

/*
 * When each call in flight began (KSNOOP_SIDE_TIMED), keyed like the stash.
 * Only plans that print a return side without a stash have it (userspace
 * shrinks it to one element otherwise); allocated as calls come.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_STASH_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ksnoop_stash_key);
	__type(value, __u64);
} entry_times SEC(".maps");

/* Forget what an earlier call left under KEY (its return was never seen). */
static __always_inline void stash_clear(struct ksnoop_stash_key *key)
{
	if (bpf_map_lookup_elem(&stash, key))
		bpf_map_delete_elem(&stash, key);
}

/*
 * Entry: KEY's element, new (its bytes `blank`'s zeroes, scratch.bpf.h) or
 * replacing what an earlier call left, for this call's record to be built
 * in; NULL: the stash is full (counted, the key cleared).  Only this task
 * writes it: its return, or a later entry of the same frame, comes after.
 */
static __always_inline void *stash_room(struct ksnoop_stash_key *key)
{
	void *rec = new_elem(&stash, key);

	if (!rec) {
		count(KSNOOP_CNT_STASH_DROP);
		stash_clear(key);
	}
	return rec;
}

/* kprobe.session: entry records in the task's slots (or, failing those, the stash). */
#include "session.bpf.h"

/* Emit the entry record stashed because of a user fault (KSNOOP_SIDE_RETRY). */
static __always_inline void emit_retried_entry(struct ksnoop_stash_key *key,
					       const struct ksnoop_func_values *fv)
{
	const volatile struct ksnoop_side_plan *entry = &plan.side[KSNOOP_ENTRY];
	void *stashed = bpf_map_lookup_elem(&stash, key), *rec;

	if (!stashed)
		return;
	rec = bpf_ringbuf_reserve(&events, entry->rec_size, 0);
	if (!rec) {
		count(KSNOOP_CNT_LOST);
		bpf_map_delete_elem(&stash, key);
		return;
	}
	bpf_probe_read_kernel(rec, entry->rec_size, stashed);
	bpf_map_delete_elem(&stash, key);
	reread_user_faults(rec, entry, fv, KSNOOP_MAX_VALUES);
	submit(rec, entry->rec_size, bpf_ktime_get_ns());
}

/*
 * Keep a copy of ring-buffer record REC under KEY (a ring buffer's memory
 * is no map value for bpf_map_update_elem() on older kernels: copied into
 * the element); false if it could not be kept.
 */
static __always_inline bool stash_record(struct ksnoop_stash_key *key, void *rec, __u32 size)
{
	void *kept = stash_room(key);

	if (!kept)
		return false;
	if (bpf_probe_read_kernel(kept, size, rec)) {
		stash_clear(key);
		return false;
	}
	return true;
}

/*
 * Entry, KSNOOP_SIDE_STASH: the record is built in the stash, for the
 * return; under a session (kprobe.session, fsession, uprobe.session) in
 * the task's next session slot.
 */
static __always_inline void stash_entry(void *ctx, enum word_source ws,
					const volatile struct ksnoop_side_plan *side,
					const __u64 *words, struct call *c)
{
	void *rec = c->cookie ? session_room(c, side->rec_size) : stash_room(&c->key);

	if (!rec)
		return;
	fill_header(rec, KSNOOP_ENTRY, c);
	fill_values(ctx, ws, KSNOOP_ENTRY, rec, side, c->fv, words, 0);
}

/* Return, KSNOOP_SIDE_UNSTASH: the entry record for this call; NULL: none. */
static __always_inline void *stash_take(struct call *c)
{
	return c->cookie ? session_take(c) : bpf_map_lookup_elem(&stash, &c->key);
}

/* Return: the record stash_take() gave is done with (a session's is free already). */
static __always_inline void stash_forget(struct call *c)
{
	if (!c->cookie || (*c->cookie & SESSION_IN_STASH))
		bpf_map_delete_elem(&stash, &c->key);
}

/* Entry, KSNOOP_SIDE_TIMED: when this call began, for its return. */
static __always_inline void entry_time_keep(struct ksnoop_stash_key *key, __u64 now)
{
	if (bpf_map_update_elem(&entry_times, key, &now, BPF_ANY)) {
		count(KSNOOP_CNT_STASH_DROP);
		bpf_map_delete_elem(&entry_times, key);
	}
}

/* Entry, KSNOOP_SIDE_TIMED, a call not selected: no stale time for its return. */
static __always_inline void entry_time_clear(struct ksnoop_stash_key *key)
{
	/* A lookup takes no lock; a delete does, even of nothing. */
	if (bpf_map_lookup_elem(&entry_times, key))
		bpf_map_delete_elem(&entry_times, key);
}

/* Return, KSNOOP_SIDE_TIMED: when this call began (0: not seen); the key goes. */
static __always_inline __u64 entry_time_take(struct ksnoop_stash_key *key)
{
	__u64 *t = bpf_map_lookup_elem(&entry_times, key), start;

	if (!t)
		return 0;
	start = *t;
	bpf_map_delete_elem(&entry_times, key);
	return start;
}

/*
 * A call's entry time, where its return finds it: an inner function of a
 * tree in its session's slot for its depth (c->tree_start, tree.bpf.h:
 * no map operation), any other call in entry_times.
 */
static __always_inline void call_time_keep(struct call *c, __u64 now)
{
	if (c->tree_start)
		*c->tree_start = now;
	else
		entry_time_keep(&c->key, now);
}

static __always_inline void call_time_clear(struct call *c)
{
	if (c->tree_start)
		*c->tree_start = 0;
	else
		entry_time_clear(&c->key);
}

static __always_inline __u64 call_time_take(struct call *c)
{
	__u64 start;

	if (!c->tree_start)
		return entry_time_take(&c->key);
	start = *c->tree_start;
	*c->tree_start = 0;
	return start;
}

#endif /* KSNOOP_STASH_BPF_H */
