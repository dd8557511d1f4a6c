// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --track (track.h): the specs that may track, the free paths and
 * clones known per type, and --group's events per object.
 *
 * Known free paths of struct sk_buff: the functions that free the
 * memory (__kfree_skb, kfree_skbmem, and napi_skb_cache_put, where the
 * NAPI paths put it back in the per-CPU cache: 7.x's UDP receive frees
 * through skb_attempt_defer_free() there, with no tracepoint and no
 * kfree_skbmem) and the tracepoints the kernel fires once the last
 * reference is dropped (skb:kfree_skb, skb:consume_skb).  Not kfree_skb_reason() or consume_skb() entered:
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
	{ "napi_skb_cache_put", false },
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

void track_groups__init(struct track_groups *g, int max)
{
	memset(g, 0, sizeof(*g));
	g->max = max > 0 ? max : 0;
}

/* Addresses are aligned: the multiplication spreads their high bits down. */
static unsigned int bucket_of(const struct track_groups *g, __u64 addr)
{
	return (addr * 0x9e3779b97f4a7c15ULL) >> (64 - g->bits);
}

struct track_object *track_groups__find(const struct track_groups *g, __u64 addr)
{
	struct track_object *o;

	if (!g->bits)
		return NULL;
	for (o = g->buckets[bucket_of(g, addr)]; o; o = o->next_in_bucket)
		if (o->addr == addr)
			return o;
	return NULL;
}

/* Is story A older than B?  Numbers wrap; 0 (none) is neither. */
static bool story_older(__u32 a, __u32 b)
{
	return a && b && (__s32)(a - b) < 0;
}

struct track_object *track_groups__ended_by(const struct track_groups *g, __u64 addr,
					    __u32 story)
{
	struct track_object *o = track_groups__find(g, addr);

	if (o)
		return o->story == story || story_older(story, o->story) ? NULL : o;
	if (g->max && g->n >= g->max)
		return g->first[TRACK_BY_LAST];
	return NULL;
}

/* One bucket per open group, at least: double them, every group moves. */
static int grow_buckets(struct track_groups *g)
{
	unsigned int bits = g->bits ? g->bits + 1 : 6, i;
	struct track_object **old = g->buckets, *o, *next;
	unsigned int nold = g->bits ? 1u << g->bits : 0;

	if (bits > 30)
		return 0;	/* past 2^30 groups: longer chains, still correct */
	g->buckets = calloc(1u << bits, sizeof(*g->buckets));
	if (!g->buckets) {
		g->buckets = old;
		return -ENOMEM;
	}
	g->bits = bits;
	for (i = 0; i < nold; i++) {
		for (o = old[i]; o; o = next) {
			unsigned int b = bucket_of(g, o->addr);

			next = o->next_in_bucket;
			o->next_in_bucket = g->buckets[b];
			g->buckets[b] = o;
		}
	}
	free(old);
	return 0;
}

static void list_append(struct track_groups *g, struct track_object *o, int l)
{
	o->next[l] = NULL;
	o->prev[l] = g->last[l];
	if (g->last[l])
		g->last[l]->next[l] = o;
	else
		g->first[l] = o;
	g->last[l] = o;
}

static void list_unlink(struct track_groups *g, struct track_object *o, int l)
{
	if (o->prev[l])
		o->prev[l]->next[l] = o->next[l];
	else
		g->first[l] = o->next[l];
	if (o->next[l])
		o->next[l]->prev[l] = o->prev[l];
	else
		g->last[l] = o->prev[l];
}

static struct track_object *open_group(struct track_groups *g, __u64 addr, __u32 story,
				       __u64 time_ns)
{
	struct track_object *o;
	unsigned int b;

	if ((unsigned int)g->n >= (g->bits ? 1u << g->bits : 0) && grow_buckets(g))
		return NULL;
	o = calloc(1, sizeof(*o));
	if (!o)
		return NULL;
	o->addr = addr;
	o->story = story;
	o->first_ns = time_ns;
	b = bucket_of(g, addr);
	o->next_in_bucket = g->buckets[b];
	g->buckets[b] = o;
	list_append(g, o, TRACK_BY_FIRST);
	list_append(g, o, TRACK_BY_LAST);
	g->n++;
	return o;
}

static int keep_event(struct track_groups *g, struct track_object *o, const void *rec,
		      size_t size)
{
	void *copy;

	if (o->n == o->cap) {
		int cap = o->cap ? 2 * o->cap : 8;
		struct track_event *ev = realloc(o->ev, cap * sizeof(*ev));

		if (!ev)
			return -ENOMEM;
		o->ev = ev;
		o->cap = cap;
	}
	copy = malloc(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec, size);
	o->ev[o->n].rec = copy;
	o->ev[o->n++].size = size;
	g->held_bytes += size;
	return 0;
}

int track_groups__add(struct track_groups *g, __u64 addr, __u32 story, __u64 time_ns,
		      const void *rec, size_t size)
{
	struct track_object *o = track_groups__find(g, addr);

	if (o && o->story != story)
		return -ESTALE;
	if (!o)
		o = open_group(g, addr, story, time_ns);
	if (!o || keep_event(g, o, rec, size)) {
		g->dropped++;
		return -ENOMEM;
	}
	o->last_ns = time_ns;
	/* The most recently active last: the bound pushes out the first. */
	list_unlink(g, o, TRACK_BY_LAST);
	list_append(g, o, TRACK_BY_LAST);
	return 0;
}

struct track_object *track_groups__oldest(const struct track_groups *g)
{
	return g->first[TRACK_BY_FIRST];
}

bool track_groups__print_now(const struct track_groups *g, const struct track_object *o)
{
	return o->n >= TRACK_GROUP_MAX_EVENTS || g->held_bytes > TRACK_GROUPS_MAX_BYTES;
}

void track_groups__clear(struct track_groups *g, struct track_object *o)
{
	o->printed += o->n;
	while (o->n) {
		o->n--;
		g->held_bytes -= o->ev[o->n].size;
		free(o->ev[o->n].rec);
	}
}

void track_groups__remove(struct track_groups *g, struct track_object *o)
{
	struct track_object **p;

	if (!o || !g->bits)
		return;
	for (p = &g->buckets[bucket_of(g, o->addr)]; *p && *p != o; p = &(*p)->next_in_bucket)
		;
	if (!*p)
		return;
	*p = o->next_in_bucket;
	list_unlink(g, o, TRACK_BY_FIRST);
	list_unlink(g, o, TRACK_BY_LAST);
	g->n--;
	track_groups__clear(g, o);
	free(o->ev);
	free(o);
}

void track_groups__free(struct track_groups *g)
{
	while (g->first[TRACK_BY_FIRST])
		track_groups__remove(g, g->first[TRACK_BY_FIRST]);
	free(g->buckets);
	g->buckets = NULL;
	g->bits = 0;
}
