// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Grouping: which resolved plans one program can serve (told apart by BPF
 * cookies), and the record layout a group whose functions differ in
 * their values alone shares.  Runs after resolution, on finished plans;
 * the attacher decides when to ask.
 */
#include <string.h>
#include "resolve.h"

/*
 * A kprobe group's functions may differ in their values alone
 * (KSNOOP_PLAN_FUNC_VALUES), each reached as its own plan says, when no
 * side stashes (a return record mirrors the entry record it completes)
 * and none takes the stack (bpf_get_stack() needs its room fixed).  Not
 * USDT probes (user memory only): their programs read arguments through
 * libbpf's per-site specs, and their groups share values too.
 *
 * System calls (sys:) may vary with a stash too: their group's entry and
 * return layouts give each stashed value the same room (align_stashed()),
 * so a return record still takes the entry record's bytes as they are,
 * and each call's func_values say how many of its values are stashed.
 * 'sys:*' printed is then one program per side (112 before: a plan and
 * record size each), on the raw_syscalls tracepoints.
 */
bool resolver__takes_stack(const struct ksnoop_plan *bp)
{
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++)
		for (i = 0; i < bp->side[k].nvalues && i < KSNOOP_MAX_VALUES; i++)
			if (bp->side[k].values[i].acc.src == KSNOOP_SRC_STACK ||
			    bp->side[k].values[i].acc.src == KSNOOP_SRC_USTACK)
				return true;
	return false;
}

bool resolver__takes_user_stack(const struct ksnoop_plan *bp)
{
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++)
		for (i = 0; i < bp->side[k].nvalues && i < KSNOOP_MAX_VALUES; i++)
			if (bp->side[k].values[i].acc.src == KSNOOP_SRC_USTACK ||
			    (bp->side[k].values[i].acc.src == KSNOOP_SRC_STACK &&
			     (bp->flags & KSNOOP_PLAN_USER_MEM)))
				return true;
	return false;
}

static bool values_may_vary(const struct ksnoop_plan *bp, bool syscall)
{
	int k;

	if ((bp->flags & KSNOOP_PLAN_USDT_SIG) || (!syscall && (bp->flags & KSNOOP_PLAN_USER_MEM)))
		return false;
	for (k = 0; k < KSNOOP_NR_KINDS; k++)
		if (!syscall && (bp->side[k].flags & (KSNOOP_SIDE_STASH | KSNOOP_SIDE_UNSTASH)))
			return false;
	return !resolver__takes_stack(bp);
}

/*
 * Does the program copy values into records?  --count and --hist only
 * count (ksnoop.bpf.c: no record, no stash), unless a stash, a retry, a
 * --pair, a --tree or --track uses them: their values and layout are then
 * none of the program's, and the words they read only the predicates'.
 */
static bool records_values(const struct ksnoop_plan *bp)
{
	int k;

	if (bp->output == KSNOOP_OUT_EVENTS || bp->pair || bp->tree || bp->track)
		return true;
	for (k = 0; k < KSNOOP_NR_KINDS; k++)
		if (bp->side[k].flags & (KSNOOP_SIDE_STASH | KSNOOP_SIDE_UNSTASH | KSNOOP_SIDE_RETRY))
			return true;
	return false;
}

static void drop_values(struct ksnoop_plan *bp)
{
	int k;

	bp->slot_mask = 0;
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		bp->side[k].nvalues = 0;
		bp->side[k].rec_size = 0;
		bp->side[k].nstashed = 0;
		bp->side[k].stash_size = 0;
		memset(bp->side[k].values, 0, sizeof(bp->side[k].values));
	}
}

/*
 * The BPF half of a plan as a kprobe program of a group sees it: func_id
 * comes from the cookie, the words to read from slot_mask (a kprobe reads
 * registers, so how many words the function has does not matter), and
 * ret_slot is fexit's.  Where values may vary, or are not recorded,
 * neither they nor the record's layout nor the words they read are the
 * program's.
 */
static void program_of(const struct capture_plan *plan, struct ksnoop_plan *bp)
{
	bool syscall = plan->sig.syscall == SIG_SYSCALL_PAIR;

	*bp = plan->bpf;
	bp->func_id = 0;
	bp->nslots = 0;
	bp->ret_slot = 0;
	/* A system call's entry values that may fault: a group reads them again for all. */
	if (syscall && values_may_vary(bp, syscall)) {
		bp->side[KSNOOP_ENTRY].flags &= ~KSNOOP_SIDE_RETRY;
		bp->side[KSNOOP_RETURN].flags &= ~KSNOOP_SIDE_RETRY;
	}
	if (values_may_vary(bp, syscall) || !records_values(bp))
		drop_values(bp);
}

/* Each value's room in a shared layout: at least a register's 8 bytes. */
static __u32 value_room(const struct ksnoop_side_plan *side, int i)
{
	return side->values[i].acc.size > 8 ? side->values[i].acc.size : 8;
}

/* Lay SIDE's values out by their rooms; the record's size. */
static __u64 lay_out_rooms(struct ksnoop_side_plan *side)
{
	__u64 off = sizeof(struct ksnoop_event);
	int i;

	for (i = 0; i < side->nvalues; i++) {
		side->values[i].rec_off = off;
		off += sizeof(struct ksnoop_value) + ((side->values[i].acc.size + 7) & ~7u);
	}
	side->rec_size = off;
	return off;
}

/*
 * A stash's group: the entry's values are the return's first ones, each
 * with the same room on both sides (the most either needs), so that they
 * sit at the same offsets; the return copies the whole entry record.
 */
static void align_stashed(struct ksnoop_plan *g)
{
	struct ksnoop_side_plan *e = &g->side[KSNOOP_ENTRY], *x = &g->side[KSNOOP_RETURN];
	int i;

	if (!(e->flags & KSNOOP_SIDE_STASH))
		return;
	for (i = 0; i < e->nvalues && i < KSNOOP_MAX_VALUES; i++) {
		if (x->values[i].acc.size > e->values[i].acc.size)
			e->values[i].acc.size = x->values[i].acc.size;
		x->values[i].acc.size = e->values[i].acc.size;
	}
	if (e->nvalues > x->nvalues)
		x->nvalues = e->nvalues;
	x->nstashed = e->nvalues;
}

/*
 * Widen GROUP's rooms to PLAN's values; false if a record would grow past
 * KSNOOP_MAX_GROUP_RECORD (unless it is already past it: the lead's own).
 */
static bool widen_rooms(struct ksnoop_plan *group, const struct ksnoop_plan *plan)
{
	struct ksnoop_plan g = *group;
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		struct ksnoop_side_plan *gs = &g.side[k];
		const struct ksnoop_side_plan *ps = &plan->side[k];

		for (i = 0; i < ps->nvalues; i++) {
			__u32 room = value_room(ps, i);

			if (room > gs->values[i].acc.size)
				gs->values[i].acc.size = room;
		}
		if (ps->nvalues > gs->nvalues)
			gs->nvalues = ps->nvalues;
	}
	align_stashed(&g);
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		struct ksnoop_side_plan *gs = &g.side[k];
		__u32 was = group->side[k].rec_size;

		if (lay_out_rooms(gs) > was && gs->rec_size > KSNOOP_MAX_GROUP_RECORD && was)
			return false;
	}
	g.slot_mask |= plan->slot_mask;
	*group = g;
	return true;
}

/* The printer reads each member's records by the group's layout. */
static void use_layout(struct ksnoop_plan *member, const struct ksnoop_plan *group)
{
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		for (i = 0; i < member->side[k].nvalues; i++)
			member->side[k].values[i].rec_off = group->side[k].values[i].rec_off;
		member->side[k].rec_size = group->side[k].rec_size;
	}
}

int resolver__group(struct capture_plan **plans, int n, struct ksnoop_plan *group)
{
	int i, k, m = 1;

	*group = plans[0]->bpf;
	group->func_id = 0;
	group->ret_slot = 0;
	group->flags |= KSNOOP_PLAN_COOKIE;
	/* A group of one keeps its values in the program: no map lookup per call. */
	if (n > 1 && values_may_vary(group, plans[0]->sig.syscall == SIG_SYSCALL_PAIR)) {
		group->flags |= KSNOOP_PLAN_FUNC_VALUES;
		for (k = 0; k < KSNOOP_NR_KINDS; k++) {
			group->side[k].nvalues = 0;
			group->side[k].rec_size = 0;	/* none yet: the lead always fits */
			memset(group->side[k].values, 0, sizeof(group->side[k].values));
		}
		group->slot_mask = 0;
		widen_rooms(group, &plans[0]->bpf);
		while (m < n && widen_rooms(group, &plans[m]->bpf))
			m++;
		for (i = 0; i < m; i++) {
			use_layout(&plans[i]->bpf, group);
			for (k = 0; k < KSNOOP_NR_KINDS; k++)
				group->side[k].flags |= plans[i]->bpf.side[k].flags & KSNOOP_SIDE_RETRY;
		}
		/* A stash's: the return copies the entry record, as laid out here. */
		if (group->side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_STASH)
			group->side[KSNOOP_RETURN].stash_size = group->side[KSNOOP_ENTRY].rec_size;
	} else {
		m = n;
	}
	/* Members differ in how many words they take: read those in use. */
	group->nslots = 0;
	for (i = 0; i < KSNOOP_MAX_ARGS; i++)
		if (group->slot_mask & (1u << i))
			group->nslots = i + 1;
	return m;
}

void resolver__func_values(const struct capture_plan *plan, struct ksnoop_func_values *fv)
{
	int k, i;

	memset(fv, 0, sizeof(*fv));
	fv->nstashed = plan->bpf.side[KSNOOP_RETURN].nstashed;
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		fv->nvalues[k] = plan->bpf.side[k].nvalues;
		for (i = 0; i < plan->bpf.side[k].nvalues; i++)
			fv->acc[k][i] = plan->bpf.side[k].values[i].acc;
	}
}

__u64 resolver__program_hash(const struct capture_plan *plan)
{
	struct ksnoop_plan bp;
	const unsigned char *b = (const unsigned char *)&bp;
	__u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	program_of(plan, &bp);
	for (i = 0; i < sizeof(bp); i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	/* --filter: which skb is judged is the program's too. */
	b = (const unsigned char *)&plan->filter;
	for (i = 0; i < sizeof(plan->filter); i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

bool resolver__same_program(const struct capture_plan *a, const struct capture_plan *b)
{
	struct ksnoop_plan x, y;

	program_of(a, &x);
	program_of(b, &y);
	return memcmp(&x, &y, sizeof(x)) == 0 &&
	       memcmp(&a->filter, &b->filter, sizeof(a->filter)) == 0;
}
