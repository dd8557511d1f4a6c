/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --track --group, live and from a recording alike: an object's events
 * wait (track.h's groups) until it is freed, its story ends (evicted),
 * its group is too large (continues) or the run ends, and then print
 * together after a line that says whose and how it ended, each with the
 * time since the group's first (print.h, printer__object()).
 */
#ifndef KSNOOP_GROUP_PRINT_H
#define KSNOOP_GROUP_PRINT_H

#include "print.h"
#include "track.h"

struct group_print {
	struct track_groups groups;
	__u64 unprinted;	/* records that could not be kept */
};

/* At most MAX open groups (BPF's set of objects: past it one left it). */
void group_print__init(struct group_print *gp, int max);
/*
 * Record DATA (SIZE bytes) of an object (KSNOOP_EV_OBJECT): kept in its
 * group, printed through P when the group ends.  PLAN_OF(CTX, id) gives
 * each record's plan.
 */
void group_print__event(struct group_print *gp, struct printer *p, const void *data, size_t size,
			print_plan_fn plan_of, void *ctx);
/* A free past what is printed (-n, a stop): its open group says it was freed. */
void group_print__freed_unprinted(struct group_print *gp, const struct ksnoop_event *ev);
/* The end: the oldest open group printed (not freed while traced); false: none left. */
bool group_print__end_one(struct group_print *gp, struct printer *p, print_plan_fn plan_of,
			  void *ctx);
void group_print__free(struct group_print *gp);

#endif
