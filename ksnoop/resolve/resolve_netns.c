// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --netns: a predicate on the network namespace of the call's packet or
 * socket, added to the spec's own: the first struct sk_buff * argument's
 * device's namespace (skb->dev->nd_net.net->ns.inum, as pwru reads it),
 * else the first socket's (sk->__sk_common.skc_net.net->ns.inum).  The
 * chain is walked through the running kernel's BTF like any value the
 * user writes, so its offsets are that kernel's (what CO-RE would
 * relocate), and BPF reads it with the predicates, before anything is
 * copied: a skb without a device (or a NULL along the way) is left out.
 */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "resolve_int.h"

/* The chain from the argument to the namespace's inode number, as the spec language writes it. */
static const struct spec_step skb_chain[] = {
	{ .kind = STEP_ARROW, .member = "dev" },
	{ .kind = STEP_ARROW, .member = "nd_net" },
	{ .kind = STEP_DOT, .member = "net" },
	{ .kind = STEP_ARROW, .member = "ns" },
	{ .kind = STEP_DOT, .member = "inum" },
};

/* A tcp_sock * or inet_sock * is a struct sock first: cast, then its common part. */
static const struct spec_step sock_chain[] = {
	{ .kind = STEP_CAST, .type = "struct sock *" },
	{ .kind = STEP_ARROW, .member = "__sk_common" },
	{ .kind = STEP_DOT, .member = "skc_net" },
	{ .kind = STEP_DOT, .member = "net" },
	{ .kind = STEP_ARROW, .member = "ns" },
	{ .kind = STEP_DOT, .member = "inum" },
};

/* Whether parameter I is a struct sock * itself (no cast needed to reach __sk_common). */
static bool is_sock_ptr(const struct rctx *r, int i)
{
	const struct btf *btf = r->sig->btf;
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, r->sig->params[i].type_id));

	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, btfu_strip(btf, t->type));
	return t && btf_is_struct(t) && !strcmp(btf__name_by_offset(btf, t->name_off), "sock");
}

int pred__netns(struct rctx *r, struct wants *w)
{
	struct ksnoop_side_plan *side = &r->plan->bpf.side[KSNOOP_ENTRY];
	const struct spec_step *steps;
	struct spec_item it;
	bool is_sock = false;
	int i, n, err;

	if (!r->opts->netns_ino)
		return 0;
	i = r->opts->user_space ? -1 : value__skb_or_sock_param(r->sig, &is_sock);
	if (i < 0)
		return rctx__fail(r, 0, "--netns: %s has no struct sk_buff * or struct sock * argument",
				  r->sig->name);
	if (side->npreds >= KSNOOP_MAX_PREDS)
		return rctx__fail(r, 0, "more than %d predicates, with --netns's", KSNOOP_MAX_PREDS - 1);
	steps = is_sock ? sock_chain : skb_chain;
	n = is_sock ? sizeof(sock_chain) / sizeof(sock_chain[0]) :
		      sizeof(skb_chain) / sizeof(skb_chain[0]);
	memset(&it, 0, sizeof(it));
	it.base = (char *)r->sig->params[i].name;
	it.text = is_sock ? "sk->__sk_common.skc_net.net->ns.inum" : "skb->dev->nd_net.net->ns.inum";
	/* A struct sock * as it is; a tcp_sock * or inet_sock * cast to one. */
	if (is_sock && is_sock_ptr(r, i)) {
		steps++;
		n--;
	}
	memcpy(it.steps, steps, n * sizeof(steps[0]));
	it.nsteps = n;
	it.has_pred = true;
	it.op = KSNOOP_OP_EQ;
	it.cst.kind = CONST_INT;
	it.cst.mag = r->opts->netns_ino;
	err = pred__make(r, &it, &side->preds[side->npreds]);
	if (err)
		return ks_prefix(r->err, "--netns: ");
	side->npreds++;
	side->enabled = 1;
	/* The call is selected at its entry: a return printed carries its entry (stashed). */
	w->entry_pred = true;
	w->entry_values = true;
	return 0;
}
