// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include "group_print.h"

/* How a group ended, as text and JSON say it (enum track_end). */
static const char *const group_end[][2] = {
	[TRACK_END_FREED] = { "freed", "freed" },
	[TRACK_END_EVICTED] = { "evicted", "evicted" },
	[TRACK_END_STOPPED] = { "not freed when tracing stopped", "not_freed" },
	[TRACK_END_CONTINUES] = { "continues", "continues" },
	[TRACK_END_FREED_UNPRINTED] = { "freed (its free is not printed: tracing stopped)", "freed" },
};

/* One record of a group, its time since the group's first START. */
static void group_record(struct printer *p, const void *rec, size_t size, __u64 start,
			 print_plan_fn plan_of, void *ctx)
{
	const struct ksnoop_event *ev = rec;
	const struct capture_plan *plan = plan_of(ctx, ev->func_id);

	if (!plan)
		return;
	p->group_start_ns = start;
	printer__event(p, plan, rec, size);
	p->group_start_ns = 0;
}

/*
 * Object O's events, printed together after a line (JSON: a record) that
 * says whose and how it ended; then the group goes (but a group that
 * continues: its events).
 */
static void print_group(struct group_print *gp, struct printer *p, struct track_object *o,
			enum track_end end, print_plan_fn plan_of, void *ctx)
{
	int j;

	printer__object(p, o->addr, o->n, o->last_ns - o->first_ns, group_end[end][0],
			group_end[end][1]);
	for (j = 0; j < o->n; j++)
		group_record(p, o->ev[j].rec, o->ev[j].size, o->first_ns, plan_of, ctx);
	if (end == TRACK_END_CONTINUES)
		track_groups__clear(&gp->groups, o);
	else
		track_groups__remove(&gp->groups, o);
}

void group_print__init(struct group_print *gp, int max)
{
	track_groups__init(&gp->groups, max);
	gp->unprinted = 0;
}

/*
 * A story the event ends (evicted) prints first; a late event of a story
 * that ended (a CPU read it before BPF's set dropped it) is a group alone.
 */
void group_print__event(struct group_print *gp, struct printer *p, const void *data, size_t size,
			print_plan_fn plan_of, void *ctx)
{
	const struct ksnoop_event *ev = data;
	struct track_object *o;
	int err;

	while ((o = track_groups__ended_by(&gp->groups, ev->object, ev->session)))
		print_group(gp, p, o, TRACK_END_EVICTED, plan_of, ctx);
	err = track_groups__add(&gp->groups, ev->object, ev->session, ev->time_ns, data, size);
	if (err == -ESTALE) {
		printer__object(p, ev->object, 1, 0, group_end[TRACK_END_EVICTED][0],
				group_end[TRACK_END_EVICTED][1]);
		group_record(p, data, size, ev->time_ns, plan_of, ctx);
		return;
	}
	if (err) {
		gp->unprinted++;
		return;
	}
	o = track_groups__find(&gp->groups, ev->object);
	if (ev->flags & KSNOOP_EV_FREED)
		print_group(gp, p, o, TRACK_END_FREED, plan_of, ctx);
	else if (track_groups__print_now(&gp->groups, o))
		print_group(gp, p, o, TRACK_END_CONTINUES, plan_of, ctx);
}

void group_print__freed_unprinted(struct group_print *gp, const struct ksnoop_event *ev)
{
	struct track_object *o = track_groups__find(&gp->groups, ev->object);

	if (o && o->story == ev->session)
		o->freed = true;
}

bool group_print__end_one(struct group_print *gp, struct printer *p, print_plan_fn plan_of,
			  void *ctx)
{
	struct track_object *o = track_groups__oldest(&gp->groups);

	if (!o)
		return false;
	print_group(gp, p, o, o->freed ? TRACK_END_FREED_UNPRINTED : TRACK_END_STOPPED, plan_of,
		    ctx);
	return true;
}

void group_print__free(struct group_print *gp)
{
	track_groups__free(&gp->groups);
}
