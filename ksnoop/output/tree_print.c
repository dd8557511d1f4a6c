// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include "tree_print.h"

int tree_print__take(struct tree_print *tp, __u32 source, const struct capture_plan *plan,
		     const void *data, size_t size, print_plan_fn plan_of, void *ctx,
		     struct tree_session *s)
{
	const struct ksnoop_event *ev = data;
	int n, i, code;
	enum tree_ret ret;

	if (plan->bpf.tree == KSNOOP_TREE_INNER) {
		if (tree_pending__add(&tp->pending, tree_task_key(source, ev->tid), ev->session,
				      data, size))
			tp->unprinted++;
		return 0;
	}
	/* The root's plan says how many calls its sessions keep at most. */
	n = plan->bpf.tree_max_calls ? plan->bpf.tree_max_calls : 1;
	s->calls = calloc(n, sizeof(*s->calls));
	if (!s->calls) {
		tp->unprinted++;
		return 0;
	}
	n = tree_pending__take(&tp->pending, tree_task_key(source, ev->tid), ev->session,
			       s->calls, n);
	for (i = 0; i < n; i++) {
		const struct ksnoop_event *c = s->calls[i].rec;
		const struct capture_plan *cp = plan_of(ctx, c->func_id);

		s->calls[i].depth = c->depth;
		s->calls[i].leaf = c->kind == KSNOOP_ENTRY;
		s->calls[i].ret = cp ? printer__call_return(cp, c, s->calls[i].size,
							     &s->calls[i].code) : TREE_RET_NONE;
	}
	s->n = n;
	s->first = tree__assemble(s->calls, n);
	ret = printer__call_return(plan, data, size, &code);
	tree__first_error(s->calls, n, ret, code);
	return 1;
}

void tree_print__done(struct tree_session *s)
{
	int i;

	for (i = 0; i < s->n; i++)
		free((void *)s->calls[i].rec);
	free(s->calls);
	s->calls = NULL;
	s->n = 0;
}

int tree_print__event(struct tree_print *tp, __u32 source, struct printer *p,
		      const struct capture_plan *plan, const void *data, size_t size,
		      print_plan_fn plan_of, void *ctx)
{
	struct tree_session s;

	if (!tree_print__take(tp, source, plan, data, size, plan_of, ctx, &s))
		return 0;
	printer__tree(p, plan, data, size, s.calls, s.first, plan_of, ctx);
	tree_print__done(&s);
	return 1;
}

void tree_print__free(struct tree_print *tp)
{
	tree_pending__free(&tp->pending);
}
