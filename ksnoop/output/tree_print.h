/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --tree, live and from a recording alike: an inner call's record waits
 * for its session's root, whose record comes right after its calls (BPF
 * sends a session only if the root's return predicates held) and prints
 * the tree (print.h, printer__tree()).
 */
#ifndef KSNOOP_TREE_PRINT_H
#define KSNOOP_TREE_PRINT_H

#include "print.h"
#include "tree.h"

struct tree_print {
	struct tree_pending pending;
	__u64 unprinted;	/* records that could not be kept or printed */
};

/* A session ended by its root's record: its calls assembled (tree.h). */
struct tree_session {
	struct tree_call *calls;	/* the records, in the order they came */
	int n;
	int first;			/* the root's first callee (-1: none) */
};

/*
 * The engine under every output of a tree: take the record DATA of PLAN
 * (plan->bpf.tree set), of recording SOURCE (of several merged; else 0:
 * two hosts' tids are not one task).  An inner call's is kept: 0.  A root's: 1, its
 * session's calls into S, assembled, the first failing one marked, for
 * the caller to draw and give back with tree_print__done(); 0 without
 * memory (counted in unprinted).
 */
int tree_print__take(struct tree_print *tp, __u32 source, const struct capture_plan *plan,
		     const void *data, size_t size, print_plan_fn plan_of, void *ctx,
		     struct tree_session *s);
void tree_print__done(struct tree_session *s);

/*
 * Take the record DATA of PLAN, a tree's root or inner call (plan->bpf.tree
 * set), of recording SOURCE: 1 if it was a root and its tree printed
 * through P, 0 if kept.
 * PLAN_OF(CTX, id) gives the plans of the inner calls.
 */
int tree_print__event(struct tree_print *tp, __u32 source, struct printer *p,
		      const struct capture_plan *plan, const void *data, size_t size,
		      print_plan_fn plan_of, void *ctx);
void tree_print__free(struct tree_print *tp);

#endif
