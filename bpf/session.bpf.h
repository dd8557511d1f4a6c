/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * kprobe.session: one program runs at a call's entry and at its return,
 * and the kernel keeps a 64-bit cookie for that call in between.  A
 * cookie cannot hold an entry record, so the record waits in the task's
 * own storage, in a ring of KSNOOP_SESSION_SLOTS slots (ksnoop.h), and
 * the cookie holds its slot's sequence number.  What the stash does with
 * a hash map keyed by task and call frame (an allocation, a locked
 * insert, a lookup and a locked delete per call) is here a lookup in the
 * task's storage cache and two copies.
 *
 * The same cases hold as for the stash: a task's slots are its own
 * (threads cannot mix), a nested or recursive call takes the next slot,
 * a call in flight when tracing started gets no return run (its entry
 * never ran), and an entry whose return never comes only leaves a slot
 * that a later call takes over.  An entry that returns non-zero has no
 * return run: calls not kept cost no second run.
 *
 * Where the task's storage cannot be had, the record goes to the stash
 * under a key the cookie holds (the entry's time, its top bit set):
 * correct, at the stash's cost, and counted (KSNOOP_CNT_SESSION_STASHED,
 * said in the summary).  7.x allocates task storage with kmalloc_nolock(),
 * which needs the CPU's cmpxchg16b: in a test VM without it
 * (tests/vm/boot.bash, KSNOOP_VM_CX16=off) every entry takes this way.
 *
 * The kfuncs took no argument until fsession (7.0) gave them the context;
 * both are declared, weak, and libbpf resolves the one whose prototype
 * is the kernel's (a "___" suffix is ignored in its name).
 */
#ifndef KSNOOP_SESSION_BPF_H
#define KSNOOP_SESSION_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "plan.bpf.h"
#include "scratch.bpf.h"
#include "call.bpf.h"

extern bool bpf_session_is_return___ctx(void *ctx) __ksym __weak;
extern bool bpf_session_is_return___void(void) __ksym __weak;
extern __u64 *bpf_session_cookie___ctx(void *ctx) __ksym __weak;
extern __u64 *bpf_session_cookie___void(void) __ksym __weak;

#ifndef BPF_LOCAL_STORAGE_GET_F_CREATE
#define BPF_LOCAL_STORAGE_GET_F_CREATE 1
#endif

/* A cookie that names a stash entry (its time), not a slot. */
#define SESSION_IN_STASH (1ULL << 63)

/* Each task's entry records of calls in flight (created only for KEEP_SESSION). */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ksnoop_session_slots);
} session_slots SEC(".maps");

static __always_inline bool session_is_return(void *ctx)
{
	if (bpf_ksym_exists(bpf_session_is_return___ctx))
		return bpf_session_is_return___ctx(ctx);
	if (bpf_ksym_exists(bpf_session_is_return___void))
		return bpf_session_is_return___void();
	return false;
}

/* The call's cookie; NULL where the kernel has no session kfuncs. */
static __always_inline __u64 *session_cookie(void *ctx)
{
	if (bpf_ksym_exists(bpf_session_cookie___ctx))
		return bpf_session_cookie___ctx(ctx);
	if (bpf_ksym_exists(bpf_session_cookie___void))
		return bpf_session_cookie___void();
	return NULL;
}

/* The stash's key for a call whose cookie is SEQ (SESSION_IN_STASH). */
static __always_inline void session_stash_key(struct call *c, __u64 seq)
{
	c->key.tid = (__u32)bpf_get_current_pid_tgid();
	c->key.func_id = c->func_id;
	c->key.frame = seq;
}

/*
 * Entry: room for this call's record (SIZE bytes) in the task's next
 * slot, named in the call's cookie, or where the task's storage cannot be
 * had, in the stash under a key the cookie holds; NULL (the cookie left
 * 0): nowhere.  The record is built there, after: only this task's
 * programs write its slots, and its return runs once the entry is done.
 */
static __always_inline void *session_room(struct call *c, __u32 size)
{
	struct ksnoop_session_slots *s;
	void *rec;
	__u64 seq;
	__u32 i;

	if (size > KSNOOP_SESSION_REC_MAX)
		return NULL;
	s = bpf_task_storage_get(&session_slots, bpf_get_current_task_btf(), NULL,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!s) {
		seq = bpf_ktime_get_ns() | SESSION_IN_STASH;
		session_stash_key(c, seq);
		rec = stash_room(&c->key);
		if (!rec)
			return NULL;
		count(KSNOOP_CNT_SESSION_STASHED);
		*c->cookie = seq;
		return rec;
	}
	seq = ++s->next;
	i = seq & (KSNOOP_SESSION_SLOTS - 1);
	s->slot[i].seq = seq;
	*c->cookie = seq;
	return s->slot[i].rec;
}

/*
 * Return: the entry record the call's cookie names, its slot freed (the
 * pointer stays good for this run: only this task's entries write it);
 * NULL if the entry was not kept, or a later call took its slot (counted).
 */
static __always_inline void *session_take(struct call *c)
{
	struct ksnoop_session_slots *s;
	__u64 seq = *c->cookie;
	__u32 i = seq & (KSNOOP_SESSION_SLOTS - 1);

	if (!seq)
		return NULL;
	if (seq & SESSION_IN_STASH) {
		session_stash_key(c, seq);
		return bpf_map_lookup_elem(&stash, &c->key);
	}
	s = bpf_task_storage_get(&session_slots, bpf_get_current_task_btf(), NULL, 0);
	if (!s || s->slot[i].seq != seq) {
		count(KSNOOP_CNT_STASH_DROP);
		return NULL;
	}
	s->slot[i].seq = 0;
	return s->slot[i].rec;
}

#endif /* KSNOOP_SESSION_BPF_H */
