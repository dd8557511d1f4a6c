/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --track: objects followed across calls by address, each with a story
 * number; they join where the predicates hold (or through a clone of a
 * tracked one) and leave where they are freed.
 */
#ifndef KSNOOP_TRACK_BPF_H
#define KSNOOP_TRACK_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "plan.bpf.h"
#include "words.bpf.h"
#include "read.bpf.h"
#include "call.bpf.h"

/*
 * The objects followed (ksnoop.h, enum ksnoop_track_role), shared by
 * every instance of a run; an LRU of --track-max objects (userspace sets
 * the size), so objects never seen freed cannot fill it: the oldest go,
 * and userspace counts them at exit (added - freed - still here).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, KSNOOP_TRACK_DEFAULT_ENTRIES);
	__type(key, __u64);
	__type(value, struct ksnoop_track_obj);
} tracked SEC(".maps");

/*
 * KSNOOP_TRACK_CLONE: a tracked source, from the entry of a clone to its
 * return, keyed like the stash (kretprobes cannot see arguments).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_STASH_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ksnoop_stash_key);
	__type(value, __u64);
} track_clones SEC(".maps");

/* The next story's number (ksnoop_track_obj), one for every instance. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);	/* 64 bits: clang 14 returns no 32-bit fetch-and-add's value */
} track_stories SEC(".maps");

/* A story's number: never 0 (none), unique until 2^32 joinings. */
static __always_inline __u32 track_new_story(void)
{
	__u32 zero = 0, story;
	__u64 *next = bpf_map_lookup_elem(&track_stories, &zero);

	if (!next)
		return 0;
	story = __sync_fetch_and_add(next, 1) + 1;
	return story ?: __sync_fetch_and_add(next, 1) + 1;
}

/* The object in the plan's argument word (0: none there). */
static __always_inline __u64 track_object(const __u64 *words)
{
	__u32 slot = plan.track_slot;

	if (slot >= KSNOOP_MAX_ARGS || slot_unread(words, slot))
		return 0;
	return words[slot];
}

/*
 * OBJ joins the set with a new story, if it is not in it; its story (0:
 * it could not join).  CPUs adding one object at once: one adds it
 * (BPF_NOEXIST), the others find it there; neither is lost.
 */
static __always_inline __u32 track_add(__u64 obj)
{
	struct ksnoop_track_obj o = { .since_ns = bpf_ktime_get_ns() }, *have;
	long err;

	have = bpf_map_lookup_elem(&tracked, &obj);
	if (have)
		return have->story;
	o.story = track_new_story();
	err = bpf_map_update_elem(&tracked, &obj, &o, BPF_NOEXIST);
	if (!err) {
		count(KSNOOP_CNT_TRACK_ADDED);
		return o.story;
	}
	if (err != -17) {	/* -EEXIST: another CPU added it */
		count(KSNOOP_CNT_TRACK_FAILED);
		return 0;
	}
	have = bpf_map_lookup_elem(&tracked, &obj);
	return have ? have->story : 0;
}

/*
 * Does this call report, HELD saying whether its predicates held?  A
 * follower: if they held, its object joins the set; if not, it reports
 * only a tracked object (the one lookup an untracked call pays).  A free
 * path: only a tracked object, which leaves the set here; of CPUs
 * freeing one object at once, the one whose delete took it reports.
 */
static __always_inline bool track_call(const __u64 *words, bool held, struct call *c)
{
	__u32 role = plan.track & KSNOOP_TRACK_ROLE_MASK;
	__u64 obj = track_object(words);
	struct ksnoop_track_obj *o;

	if (role != KSNOOP_TRACK_FOLLOW)
		held = false;
	if (!obj || is_err_ptr(obj))
		return held;
	c->object = obj;
	c->track_flags = KSNOOP_EV_OBJECT;
	if (held) {
		c->session = track_add(obj);
		return true;
	}
	o = bpf_map_lookup_elem(&tracked, &obj);
	if (!o)
		return false;
	/* Read before the delete: the element may be another's right after. */
	c->session = o->story;
	if (role != KSNOOP_TRACK_FREE) {
		c->track_flags |= KSNOOP_EV_TRACKED;
		return true;
	}
	if (bpf_map_delete_elem(&tracked, &obj))
		return false;
	count(KSNOOP_CNT_TRACK_FREED);
	c->track_flags |= KSNOOP_EV_FREED;
	return true;
}

/*
 * A clone's entry (its WORDS read, its target in C): a tracked source is
 * kept for the return, under the call's key; then the entry goes on as
 * its role says.
 */
static __always_inline void track_clone_entry(void *ctx, enum word_source ws, const __u64 *words,
					      const struct call *c)
{
	struct ksnoop_stash_key key;
	__u64 src = track_object(words);

	call_key(ctx, ws, KSNOOP_ENTRY, c->func_id, &key);
	if (!src || !bpf_map_lookup_elem(&tracked, &src)) {
		if (bpf_map_lookup_elem(&track_clones, &key))
			bpf_map_delete_elem(&track_clones, &key);
		return;
	}
	if (bpf_map_update_elem(&track_clones, &key, &src, BPF_ANY))
		count(KSNOOP_CNT_TRACK_FAILED);
}

#endif /* KSNOOP_TRACK_BPF_H */
