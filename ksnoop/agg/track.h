/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --track NAME: one kernel object followed across traced calls (issue
 * #29).  NAME is a parameter every spec binds by type ("struct sk_buff
 * *s"); BPF keeps the set of objects followed (ksnoop.h, enum
 * ksnoop_track_role).  Here, what needs no kernel: which specs may
 * track, which functions and tracepoints end (or copy) an object of a
 * type, and --group's events waiting per object until it is freed
 * (pure: unit-tested, tests/unit/test_track.c); then the targets a run
 * adds for them and each target's role (track_run, over targets.h).
 */
#ifndef KSNOOP_TRACK_H
#define KSNOOP_TRACK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "ks_error.h"
#include "spec.h"
#include "targets.h"

/* --untrack FUNC: at most this many. */
#define TRACK_MAX_UNTRACK	8
/* Specs a run adds for free paths and clones: the known ones and --untrack's. */
#define TRACK_MAX_EXTRA		(TRACK_MAX_UNTRACK + 8)

/* A function or tracepoint that ends or copies an object of a known type. */
struct track_known {
	const char *func;	/* as a spec names it: "__kfree_skb", "tp:kfree_skb" */
	bool clone;		/* returns a copy of its object; else frees it */
};

/*
 * The free paths and clones known for TYPE ("struct sk_buff *"), ending
 * with a NULL func; NULL: none known (--untrack names them).
 */
const struct track_known *track__known(const char *type);

/*
 * Every spec of SPECS[0..N) binds NAME by type, the same pointer type in
 * all of them, and is a kernel function or a tracepoint: 0 with the type
 * in TYPE (SZ bytes), or -EINVAL with E saying which spec does not.
 */
int track__check_specs(const char *name, const struct spec *specs, int n, char *type,
		       size_t sz, struct ks_error *e);

/*
 * The spec a free path or clone FUNC is traced with, into BUF: its object
 * bound as NAME of TYPE; a clone also shows what it returns (hex).
 */
int track__extra_spec(const char *func, const char *type, const char *name, bool clone,
		      char *buf, size_t sz);

/* ---- a run's targets ---- */

/* What a --track run follows, and the specs of its free paths and clones. */
struct track_run {
	const char *name;		/* --track NAME */
	char type[SPEC_MAX_TYPE];	/* its type, as the specs spell it */
	struct spec specs[TRACK_MAX_EXTRA];
	bool clone[TRACK_MAX_EXTRA];
	int n;
};

/*
 * The specs of the free paths and clones known for TR's type that the
 * kernel K has (functions only if KFUNCS: the run traces functions), and
 * of --untrack's UNTRACK[0..N); 0, or a negative errno, reported.
 */
int track_run__extra_specs(struct track_run *tr, struct kernel *k, const char *const *untrack,
			   int n, bool kfuncs);

/*
 * Every target of L its role and object's word (ksnoop.h): the specs'
 * follow; their matches that are a free path or a clone take that role;
 * the other extra specs' targets are added to L (CFG).  0, or a negative
 * errno, reported.
 */
int track_run__targets(struct track_run *tr, struct target_list *l, struct kernel *k,
		       const struct targets_cfg *cfg);
void track_run__free(struct track_run *tr);

/* ---- --group: each object's events together ---- */

/*
 * Events held per open group at most, and bytes of records across all of
 * them (64 MiB: some 400 000 events of 160 bytes); past either, a group
 * that gets an event prints as it stands ("continues") and goes on
 * holding none, so neither one long-lived object nor --track-max open
 * groups can take all memory.
 */
#define TRACK_GROUP_MAX_EVENTS	1024
#define TRACK_GROUPS_MAX_BYTES	(64u << 20)

struct track_event {
	void *rec;
	size_t size;
};

/* How a group ended: what its header says. */
enum track_end {
	TRACK_END_FREED,	/* its free path reported it */
	/*
	 * It left BPF's set without a free (ksnoop.h): a new story began at
	 * its address, or more than --track-max groups were open.
	 */
	TRACK_END_EVICTED,
	TRACK_END_STOPPED,	/* open when tracing stopped */
	TRACK_END_CONTINUES,	/* past a bound above: printed, still open */
	TRACK_END_FREED_UNPRINTED,	/* freed, but past -n or the stop: not printed */
};

/* The lists every open group is on: by its first event, by its last. */
enum { TRACK_BY_FIRST, TRACK_BY_LAST, TRACK_NR_LISTS };

/* One object's stay in BPF's set (its story) and the events held for it. */
struct track_object {
	__u64 addr;
	__u32 story;		/* BPF's number for the stay (ksnoop.h); 0: none */
	__u64 first_ns;		/* its first event's time */
	__u64 last_ns;		/* its last event's */
	int printed;		/* events printed before (TRACK_END_CONTINUES) */
	bool freed;		/* its free came after the stop (not printed) */
	struct track_event *ev;
	int n, cap;
	struct track_object *next_in_bucket;
	struct track_object *prev[TRACK_NR_LISTS], *next[TRACK_NR_LISTS];
};

/*
 * The open groups: at most one per address, found by a hash of it, and
 * at most max (BPF's set holds --track-max objects: when more groups
 * are open, one of them has left it).
 */
struct track_groups {
	struct track_object **buckets;
	unsigned int bits;	/* 1 << bits buckets (0: none yet) */
	struct track_object *first[TRACK_NR_LISTS], *last[TRACK_NR_LISTS];
	int n;
	int max;		/* 0: no bound */
	size_t held_bytes;	/* of the records every group holds */
	__u64 dropped;		/* events not kept (out of memory) */
};

/* No group open, at most MAX at once (0: no bound). */
void track_groups__init(struct track_groups *g, int max);
/* The open group of object ADDR, or NULL. */
struct track_object *track_groups__find(const struct track_groups *g, __u64 addr);
/*
 * The group an event of ADDR's story STORY ends (print it evicted and
 * remove it, then ask again), or NULL: ADDR's group of an older story
 * (BPF dropped that object without a free: its address is another's
 * now), or, if the event opens a group while max are open, the one
 * whose last event is the oldest (as BPF's LRU set pushes out).
 */
struct track_object *track_groups__ended_by(const struct track_groups *g, __u64 addr,
					    __u32 story);
/*
 * Keep a copy of record REC (SIZE bytes) of ADDR's story STORY at
 * TIME_NS, in its group or a new one; 0, -ESTALE (a late event of a
 * story already ended: ADDR's group is a newer one; nothing kept) or
 * -ENOMEM (counted in dropped).
 */
int track_groups__add(struct track_groups *g, __u64 addr, __u32 story, __u64 time_ns,
		      const void *rec, size_t size);
/* The open group whose first event is the oldest, or NULL. */
struct track_object *track_groups__oldest(const struct track_groups *g);
/* Does O, which just got an event, print now (continues)?  The bounds above. */
bool track_groups__print_now(const struct track_groups *g, const struct track_object *o);
/* Group O's events go (they were printed); it stays open. */
void track_groups__clear(struct track_groups *g, struct track_object *o);
/* Group O goes (it was printed). */
void track_groups__remove(struct track_groups *g, struct track_object *o);
void track_groups__free(struct track_groups *g);

#endif
