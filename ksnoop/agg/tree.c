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
	/*
	 * A call adopts every call before it still without a caller and
	 * deeper, back to one of its depth or less.  A tracepoint's event
	 * (a leaf) adopts nothing and bounds no one's callees: where depths
	 * are consistent nothing deeper can come before it uncaught; where
	 * one is not (s64: a 7.3 guest gave a timer start inside
	 * do_nanosleep the depth of do_nanosleep itself), the calls after
	 * it still find their caller.
	 */
	for (i = 0; i < n; i++)
		for (j = i - 1; j >= 0 && !calls[i].leaf; j--)
			if (calls[j].parent < 0 && calls[j].depth > calls[i].depth)
				calls[j].parent = i;
			else if (calls[j].depth <= calls[i].depth && calls[j].parent < 0 &&
				 !calls[j].leaf)
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

/* Fibonacci hashing of a task's key into a table of 2^bits slots. */
static __u32 task_slot(__u64 task, int cap)
{
	return (__u32)((task * 0x9e3779b97f4a7c15ull) >> 32) & (cap - 1);
}

/* TASK's slot in P, or NULL (a slot is taken while it has a buffer, v). */
static struct tree_task *find_task(const struct tree_pending *p, __u64 task)
{
	__u32 i;

	if (!p->cap)
		return NULL;
	for (i = task_slot(task, p->cap); p->tasks[i].v; i = (i + 1) & (p->cap - 1))
		if (p->tasks[i].task == task)
			return &p->tasks[i];
	return NULL;
}

/* Drop task T's records (counted as dropped when COUNTED). */
static void task_clear(struct tree_pending *p, struct tree_task *t, bool counted)
{
	int i;

	for (i = 0; i < t->n; i++) {
		p->bytes -= t->v[i].size;
		free(t->v[i].rec);
	}
	if (counted)
		p->dropped += t->n;
	p->n -= t->n;
	t->n = 0;
}

/*
 * Room for one more task: at half full the table is rebuilt with only the
 * tasks that have records kept (the others' slots go), at least four
 * times their number, so a rebuild comes after a quarter of the table's
 * slots were taken again: as many tasks as come and go, O(1) a record.
 */
static int grow(struct tree_pending *p)
{
	struct tree_task *old = p->tasks;
	int old_cap = p->cap, cap = 64, live = 0, i;

	if (p->cap && p->used + 1 <= p->cap / 2)
		return 0;
	for (i = 0; i < old_cap; i++)
		live += old[i].n > 0;
	while (4 * (live + 1) > cap)
		cap *= 2;
	p->tasks = calloc(cap, sizeof(*p->tasks));
	if (!p->tasks) {
		p->tasks = old;
		return -ENOMEM;
	}
	p->cap = cap;
	p->used = 0;
	for (i = 0; i < old_cap; i++) {
		__u32 j;

		if (!old[i].n) {
			free(old[i].v);
			continue;
		}
		for (j = task_slot(old[i].task, cap); p->tasks[j].v; j = (j + 1) & (cap - 1))
			;
		p->tasks[j] = old[i];
		p->used++;
	}
	free(old);
	return 0;
}

/* TASK's slot, made if it has none; NULL: out of memory. */
static struct tree_task *task_of(struct tree_pending *p, __u64 task)
{
	struct tree_task *t = find_task(p, task);
	__u32 i;

	if (t)
		return t;
	if (grow(p))
		return NULL;
	for (i = task_slot(task, p->cap); p->tasks[i].v; i = (i + 1) & (p->cap - 1))
		;
	t = &p->tasks[i];
	t->v = calloc(4, sizeof(*t->v));
	if (!t->v)
		return NULL;
	t->task = task;
	t->cap = 4;
	t->n = 0;
	p->used++;
	return t;
}

int tree_pending__add(struct tree_pending *p, __u64 task, __u32 session,
		      const void *rec, size_t size)
{
	struct tree_task *t = task_of(p, task);
	void *copy;

	if (!t)
		return -ENOMEM;
	/* A record of a new session: the task's older one ended unprinted. */
	if (t->n && t->session != session)
		task_clear(p, t, true);
	t->session = session;
	if (p->n >= TREE_PENDING_MAX || size > TREE_PENDING_MAX_BYTES - p->bytes) {
		p->dropped++;
		return -ENOSPC;
	}
	if (t->n == t->cap) {
		struct tree_pending_rec *v = realloc(t->v, 2 * t->cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap *= 2;
	}
	copy = malloc(size);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec, size);
	t->v[t->n++] = (struct tree_pending_rec){ copy, size };
	p->n++;
	p->bytes += size;
	return 0;
}

int tree_pending__take(struct tree_pending *p, __u64 task, __u32 session,
		       struct tree_call *calls, int max)
{
	struct tree_task *t = find_task(p, task);
	int i, taken = 0;

	if (!t || t->session != session) {
		if (t)
			task_clear(p, t, true);
		return 0;
	}
	for (i = 0; i < t->n && taken < max; i++, taken++) {
		memset(&calls[taken], 0, sizeof(calls[taken]));
		calls[taken].rec = t->v[i].rec;
		calls[taken].size = t->v[i].size;
		calls[taken].parent = -1;
		p->bytes -= t->v[i].size;
	}
	/* Past MAX: freed and counted; the taken ones are the caller's now. */
	for (; i < t->n; i++) {
		p->bytes -= t->v[i].size;
		free(t->v[i].rec);
		p->dropped++;
	}
	p->n -= t->n;
	t->n = 0;
	return taken;
}

void tree_pending__free(struct tree_pending *p)
{
	int i;

	for (i = 0; i < p->cap; i++) {
		task_clear(p, &p->tasks[i], false);
		free(p->tasks[i].v);
	}
	free(p->tasks);
	memset(p, 0, sizeof(*p));
}
