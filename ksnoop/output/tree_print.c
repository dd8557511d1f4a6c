// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include "tree_print.h"

int tree_print__event(struct tree_print *tp, struct printer *p,
		      const struct capture_plan *plan, const void *data, size_t size,
		      print_plan_fn plan_of, void *ctx)
{
	const struct ksnoop_event *ev = data;
	struct tree_call *calls;
	int n, i, first, code;
	enum tree_ret ret;

	if (plan->bpf.tree == KSNOOP_TREE_INNER) {
		if (tree_pending__add(&tp->pending, ev->tid, ev->session, data, size))
			tp->unprinted++;
		return 0;
	}
	/* The root's plan says how many calls its sessions keep at most. */
	n = plan->bpf.tree_max_calls ? plan->bpf.tree_max_calls : 1;
	calls = calloc(n, sizeof(*calls));
	if (!calls) {
		tp->unprinted++;
		return 0;
	}
	n = tree_pending__take(&tp->pending, ev->tid, ev->session, calls, n);
	for (i = 0; i < n; i++) {
		const struct ksnoop_event *c = calls[i].rec;
		const struct capture_plan *cp = plan_of(ctx, c->func_id);

		calls[i].depth = c->depth;
		calls[i].ret = cp ? printer__call_return(cp, c, calls[i].size, &calls[i].code) :
				    TREE_RET_NONE;
	}
	first = tree__assemble(calls, n);
	ret = printer__call_return(plan, data, size, &code);
	tree__first_error(calls, n, ret, code);
	printer__tree(p, plan, data, size, calls, first, plan_of, ctx);
	for (i = 0; i < n; i++)
		free((void *)calls[i].rec);
	free(calls);
	return 1;
}

void tree_print__free(struct tree_print *tp)
{
	tree_pending__free(&tp->pending);
}
