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

struct track_event {
	void *rec;
	size_t size;
};

struct track_object {
	__u64 addr;
	__u64 first_ns;		/* its first event's time */
	struct track_event *ev;
	int n, cap;
};

/* The objects with events waiting, in the order of their first event. */
struct track_groups {
	struct track_object *v;
	int n, cap;
	__u64 dropped;		/* events not kept (out of memory) */
};

/*
 * Keep a copy of record REC (SIZE bytes) of object ADDR at TIME_NS;
 * 0, or -ENOMEM (counted in dropped).
 */
int track_groups__add(struct track_groups *g, __u64 addr, __u64 time_ns, const void *rec,
		      size_t size);
/* The index of object ADDR's group, or -1. */
int track_groups__find(const struct track_groups *g, __u64 addr);
/* Group I's events go (they were printed); the others keep their order. */
void track_groups__remove(struct track_groups *g, int i);
void track_groups__free(struct track_groups *g);

#endif
