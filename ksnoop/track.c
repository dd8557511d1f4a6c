// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --track (track.h): the specs that may track, the free paths and
 * clones known per type, and --group's events per object.
 *
 * Known free paths of struct sk_buff: the functions that free the
 * memory (__kfree_skb, kfree_skbmem) and the tracepoints the kernel
 * fires once the last reference is dropped (skb:kfree_skb,
 * skb:consume_skb).  Not kfree_skb_reason() or consume_skb() entered:
 * they drop a reference, and an skb still referenced elsewhere (a TCP
 * clone, a queue) lives on, so its tracking would end early.  Clones
 * and copies: skb_clone, skb_copy, __pskb_copy_fclone (pskb_copy() is
 * inline around it), skb_copy_expand.  Those the kernel lacks are left
 * out (-v says so).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "track.h"

static const struct track_known skb_known[] = {
	{ "tp:kfree_skb", false },
	{ "tp:consume_skb", false },
	{ "__kfree_skb", false },
	{ "kfree_skbmem", false },
	{ "skb_clone", true },
	{ "skb_copy", true },
	{ "__pskb_copy_fclone", true },
	{ "skb_copy_expand", true },
	{ NULL, false },
};

const struct track_known *track__known(const char *type)
{
	return !strcmp(type, "struct sk_buff *") ? skb_known : NULL;
}

/* SPEC's declaration of NAME, or NULL. */
static const struct spec_decl *decl_of(const struct spec *s, const char *name)
{
	int i;

	for (i = 0; i < s->ndecls; i++)
		if (!strcmp(s->decls[i].name, name))
			return &s->decls[i];
	return NULL;
}

int track__check_specs(const char *name, const struct spec *specs, int n, char *type,
		       size_t sz, struct ks_error *e)
{
	const char *first = NULL;
	int i;

	for (i = 0; i < n; i++) {
		const struct spec *s = &specs[i];
		const struct spec_decl *d = decl_of(s, name);
		size_t len;

		if (s->kind == SPEC_USDT || spec__is_syscall(s))
			return ks_fail(e, -EINVAL, "--track %s: '%s' is %s; objects are followed through kernel functions and tracepoints",
				       name, s->text, s->kind == SPEC_USDT ? "a USDT probe" :
				       "a system call (its arguments are user memory)");
		if (!d)
			return ks_fail(e, -EINVAL, "--track %s: '%s' does not bind %s by type; write it as \"%s(TYPE %s, ...)\", e.g. \"*(struct sk_buff *%s, ...)\"",
				       name, s->text, name, s->target, name, name);
		len = strlen(d->type);
		if (!len || d->type[len - 1] != '*')
			return ks_fail(e, -EINVAL, "--track %s: '%s' binds %s as '%s', not a pointer; an object is followed by its address",
				       name, s->text, name, d->type);
		if (first && strcmp(first, d->type))
			return ks_fail(e, -EINVAL, "--track %s: '%s' binds %s as '%s', another spec as '%s'; one object has one type",
				       name, s->text, name, d->type, first);
		first = d->type;
	}
	if (!first)
		return ks_fail(e, -EINVAL, "--track %s: no spec binds it", name);
	snprintf(type, sz, "%s", first);
	return 0;
}

int track__extra_spec(const char *func, const char *type, const char *name, bool clone,
		      char *buf, size_t sz)
{
	int n = snprintf(buf, sz, "%s(%s%s%s)", func, type, name, clone ? ", return:hex" : "");

	return n < 0 || (size_t)n >= sz ? -ENAMETOOLONG : 0;
}

/* ---- a run's targets ---- */

/* Is target TG what EXTRA, a free path's or a clone's spec, names? */
static bool same_target(const struct target *tg, const struct spec *extra)
{
	const char *colon = strrchr(extra->target, ':');
	const char *base = colon ? colon + 1 : extra->target;

	if (extra->kind == SPEC_TP)
		return !strncmp(tg->plan.sig.name, "tp:", 3) && !strcmp(tg->plan.sig.name + 3, base);
	return !strcmp(tg->plan.sig.name, base);
}

/*
 * TG's role and where its object is: the parameter the specs bind as
 * NAME.  A follower shows its calls' entries only: a return side would
 * report calls the set did not select.
 */
static int set_role(const struct track_run *tr, struct target *tg, __u8 role)
{
	struct ksnoop_plan *bp = &tg->plan.bpf;
	const struct signature *sig = &tg->plan.sig;
	int i;

	for (i = 0; i < sig->nparams; i++)
		if (sig->params[i].name && !strcmp(sig->params[i].name, tr->name))
			break;
	if (i == sig->nparams || sig->params[i].slot >= KSNOOP_MAX_ARGS) {
		log_error("--track %s: '%s' has no argument %s in a register or word ksnoop reads",
			  tr->name, sig->name, tr->name);
		return -EINVAL;
	}
	if ((role & KSNOOP_TRACK_ROLE_MASK) == KSNOOP_TRACK_FOLLOW &&
	    bp->side[KSNOOP_RETURN].enabled && !(role & KSNOOP_TRACK_CLONE)) {
		log_error("--track %s: '%s' shows values at the return; an object's events are the entries of the calls it passes (name entry values only)",
			  tr->name, tg->spec->text);
		return -EINVAL;
	}
	bp->track = role;
	bp->track_slot = sig->params[i].slot;
	bp->slot_mask |= 1u << bp->track_slot;	/* the programs read only the words it names */
	/* A clone's entry keeps its source for the return. */
	if (role & KSNOOP_TRACK_CLONE)
		bp->side[KSNOOP_ENTRY].enabled = 1;
	return 0;
}

int track_run__targets(struct track_run *tr, struct target_list *l, struct kernel *k,
		       const struct targets_cfg *cfg)
{
	int nspecs = l->n, i, j, err = 0;
	int extra_of[TRACK_MAX_EXTRA];

	for (j = 0; j < tr->n; j++) {
		extra_of[j] = -1;
		for (i = 0; i < nspecs; i++)
			if (same_target(&l->v[i], &tr->specs[j]))
				extra_of[j] = i;
	}
	for (i = 0; i < nspecs && !err; i++) {
		__u8 role = KSNOOP_TRACK_FOLLOW;

		for (j = 0; j < tr->n; j++)
			if (extra_of[j] == i)
				role = tr->clone[j] ? KSNOOP_TRACK_FOLLOW | KSNOOP_TRACK_CLONE :
						      KSNOOP_TRACK_FREE;
		err = set_role(tr, &l->v[i], role);
	}
	for (j = 0; j < tr->n && !err; j++) {
		int from = l->n;

		if (extra_of[j] >= 0)
			continue;
		err = targets__add(l, k, NULL, &tr->specs[j], 1, cfg);
		for (i = from; i < l->n && !err; i++)
			err = set_role(tr, &l->v[i], tr->clone[j] ?
				       KSNOOP_TRACK_WATCH | KSNOOP_TRACK_CLONE : KSNOOP_TRACK_FREE);
	}
	return err;
}

static int count_match(const struct target_match *m, void *ctx)
{
	if (!m->err && !m->refused && !m->denied)
		(*(int *)ctx)++;
	return 0;
}

/* Parse extra spec TEXT into the next slot; KNOWN: left out if the kernel lacks it. */
static int add_spec(struct track_run *tr, struct kernel *k, const char *text, bool clone,
		    bool known)
{
	struct spec *s = &tr->specs[tr->n];
	struct ks_error e;
	int n = 0, err;

	if (tr->n == TRACK_MAX_EXTRA) {
		log_error("--untrack: more than %d free paths and clones", TRACK_MAX_EXTRA);
		return -EINVAL;
	}
	err = spec__parse(text, SPEC_KFUNC, s, &e);
	if (err) {
		e.err = err;
		targets__log_error(text, &e);
		spec__free(s);
		return err;
	}
	if (known && (targets__for_each_match(k, s, count_match, &n, &e) || !n)) {
		log_info("--track: %s is not in this kernel (or cannot be traced): left out", text);
		spec__free(s);
		return 0;
	}
	tr->clone[tr->n++] = clone;
	return 0;
}

int track_run__extra_specs(struct track_run *tr, struct kernel *k, const char *const *untrack,
			   int n, bool kfuncs)
{
	const struct track_known *kn = track__known(tr->type);
	char text[SPEC_MAX_TYPE + 2 * SPEC_MAX_NAME];
	int i, err = 0;

	for (; kn && kn->func && !err; kn++) {
		if (strncmp(kn->func, "tp:", 3) && !kfuncs)
			continue;
		err = track__extra_spec(kn->func, tr->type, tr->name, kn->clone, text, sizeof(text));
		err = err ?: add_spec(tr, k, text, kn->clone, true);
	}
	for (i = 0; i < n && !err; i++) {
		err = track__extra_spec(untrack[i], tr->type, tr->name, false, text, sizeof(text));
		if (err)
			log_error("--untrack: '%s' is too long", untrack[i]);
		err = err ?: add_spec(tr, k, text, false, false);
	}
	if (!err && !tr->n)
		log_info("--track %s: no free path known for '%s' and no --untrack: a freed object's address may be reused by another, which is then followed too (until --track-max pushes it out)",
			 tr->name, tr->type);
	return err;
}

void track_run__free(struct track_run *tr)
{
	while (tr->n)
		spec__free(&tr->specs[--tr->n]);
}

/* ---- --group ---- */

int track_groups__find(const struct track_groups *g, __u64 addr)
{
	int i;

	for (i = g->n - 1; i >= 0; i--)
		if (g->v[i].addr == addr)
			return i;
	return -1;
}

static struct track_object *group_of(struct track_groups *g, __u64 addr, __u64 time_ns)
{
	int i = track_groups__find(g, addr);
	struct track_object *v;

	if (i >= 0)
		return &g->v[i];
	if (g->n == g->cap) {
		int cap = g->cap ? 2 * g->cap : 16;

		v = realloc(g->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		g->v = v;
		g->cap = cap;
	}
	v = &g->v[g->n++];
	memset(v, 0, sizeof(*v));
	v->addr = addr;
	v->first_ns = time_ns;
	return v;
}

int track_groups__add(struct track_groups *g, __u64 addr, __u64 time_ns, const void *rec,
		      size_t size)
{
	struct track_object *o = group_of(g, addr, time_ns);
	void *copy = o ? malloc(size) : NULL;

	if (!copy) {
		g->dropped++;
		return -ENOMEM;
	}
	if (o->n == o->cap) {
		int cap = o->cap ? 2 * o->cap : 8;
		struct track_event *ev = realloc(o->ev, cap * sizeof(*ev));

		if (!ev) {
			free(copy);
			g->dropped++;
			return -ENOMEM;
		}
		o->ev = ev;
		o->cap = cap;
	}
	memcpy(copy, rec, size);
	o->ev[o->n].rec = copy;
	o->ev[o->n++].size = size;
	return 0;
}

void track_groups__remove(struct track_groups *g, int i)
{
	int j;

	if (i < 0 || i >= g->n)
		return;
	for (j = 0; j < g->v[i].n; j++)
		free(g->v[i].ev[j].rec);
	free(g->v[i].ev);
	memmove(&g->v[i], &g->v[i + 1], (g->n - i - 1) * sizeof(g->v[0]));
	g->n--;
}

void track_groups__free(struct track_groups *g)
{
	while (g->n)
		track_groups__remove(g, g->n - 1);
	free(g->v);
	g->v = NULL;
	g->cap = 0;
}
