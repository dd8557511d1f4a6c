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
