// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --tree: a session's calls made into a tree, and the first failing call.
 *
 * BPF reports every inner call of a session at its return, with its depth
 * below the root; the records therefore come in post-order (a callee
 * returns before its caller), and a call's caller is the next record at a
 * lower depth.  The first failing call follows retsnoop's rule: the error
 * the root returned, followed down through the callees that returned it
 * too, to the innermost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tree.h"

int tree__assemble(struct tree_call *calls, int n)
{
	int i, j, first = -1;

	for (i = 0; i < n; i++)
		calls[i].parent = calls[i].first_child = calls[i].next_sibling = -1;
	/* A call adopts every call before it still without a caller and deeper. */
	for (i = 0; i < n; i++)
		for (j = i - 1; j >= 0; j--)
			if (calls[j].parent < 0 && calls[j].depth > calls[i].depth)
				calls[j].parent = i;
			else if (calls[j].depth <= calls[i].depth && calls[j].parent < 0)
				break;
	/* Callees listed from the last back: each goes in front. */
	for (i = n - 1; i >= 0; i--) {
		int *head = calls[i].parent < 0 ? &first : &calls[calls[i].parent].first_child;

		calls[i].next_sibling = *head;
		*head = i;
	}
	return first;
}

static bool same_error(const struct tree_call *c, enum tree_ret ret, int code)
{
	if (!tree_ret__is_error(c->ret))
		return false;
	/* A NULL or an errno pointer may stand for the other's error. */
	if (c->ret != ret)
		return true;
	return ret == TREE_RET_NULL || c->code == code;
}

int tree__first_error(struct tree_call *calls, int n, enum tree_ret root_ret, int root_code)
{
	enum tree_ret ret = root_ret;
	int code = root_code, cur = -1, i, found;

	if (!tree_ret__is_error(root_ret))
		return -1;
	for (;;) {
		found = -1;
		/* The last callee of CUR that returned its error. */
		for (i = n - 1; i >= 0 && found < 0; i--)
			if (calls[i].parent == cur && same_error(&calls[i], ret, code))
				found = i;
		if (found < 0)
			break;
		cur = found;
		ret = calls[cur].ret;
		code = calls[cur].code;
	}
	if (cur >= 0)
		calls[cur].first_error = true;
	return cur;
}

/* TID's records of sessions other than SESSION go (those sessions ended unprinted). */
static void drop_older(struct tree_pending *p, __u32 tid, __u32 session)
{
	int i, kept = 0;

	for (i = 0; i < p->n; i++) {
		if (p->v[i].tid == tid && p->v[i].session != session) {
			free(p->v[i].rec);
			p->dropped++;
		} else {
			p->v[kept++] = p->v[i];
		}
	}
	p->n = kept;
}

int tree_pending__add(struct tree_pending *p, __u32 tid, __u32 session,
		      const void *rec, size_t size)
{
	struct tree_pending_rec *v;
	void *copy;

	/* The common case, records of one session in a row, costs no scan. */
	if (p->n && (tid != p->last_tid || session != p->last_session))
		drop_older(p, tid, session);
	p->last_tid = tid;
	p->last_session = session;
	if (p->n >= TREE_PENDING_MAX) {
		p->dropped++;
		return -ENOSPC;
	}
	if (p->n == p->cap) {
		int cap = p->cap ? p->cap * 2 : 64;

		v = realloc(p->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		p->v = v;
		p->cap = cap;
	}
	copy = malloc(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec, size);
	p->v[p->n++] = (struct tree_pending_rec){ tid, session, copy, size };
	return 0;
}

int tree_pending__take(struct tree_pending *p, __u32 tid, __u32 session,
		       struct tree_call *calls, int max)
{
	int i, kept = 0, taken = 0;

	for (i = 0; i < p->n; i++) {
		struct tree_pending_rec *r = &p->v[i];

		if (r->tid != tid) {
			p->v[kept++] = *r;
		} else if (r->session == session && taken < max) {
			memset(&calls[taken], 0, sizeof(calls[taken]));
			calls[taken].rec = r->rec;
			calls[taken].size = r->size;
			calls[taken].parent = -1;
			taken++;
		} else {
			free(r->rec);
			p->dropped++;
		}
	}
	p->n = kept;
	return taken;
}

void tree_pending__free(struct tree_pending *p)
{
	int i;

	for (i = 0; i < p->n; i++)
		free(p->v[i].rec);
	free(p->v);
	memset(p, 0, sizeof(*p));
}
