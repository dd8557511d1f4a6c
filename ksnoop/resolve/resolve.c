// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The resolver: a spec and a signature in, a capture plan out, in two
 * phases (resolve_int.h maps the files).  First names become offsets:
 * each item of the spec (or, without a value list, each argument and the
 * return value) is walked through BTF into a value or a predicate of its
 * side.  Then the strategy decides how those values are captured (stash,
 * re-read, timing, stack, count or hist) and lays out the records.  Last,
 * the argument words the programs read.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "resolve_int.h"

int rctx__fail(struct rctx *r, int pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ks_vfail_at(r->err, -EINVAL, pos, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

const char *rctx__type_str(struct rctx *r, __u32 id)
{
	return btfu_type_str(r->btf, id, NULL, r->tbuf, sizeof(r->tbuf));
}

/* ---- names to values and predicates ---- */

/* The value on KIND's side written as TEXT, or -1. */
static int value_index(const struct capture_plan *plan, int kind, const char *text)
{
	int i;

	for (i = 0; i < plan->nvalues[kind]; i++)
		if (strcmp(plan->values[kind][i].text, text) == 0)
			return i;
	return -1;
}

static int add_value(struct rctx *r, int kind, const struct spec_item *it, const char *text,
		     int pos)
{
	struct capture_plan *plan = r->plan;
	struct ksnoop_side_plan *side = &plan->bpf.side[kind];
	struct chain c;
	int n = plan->nvalues[kind], err;

	if (n >= KSNOOP_MAX_VALUES)
		return rctx__fail(r, pos, "more than %d values on one side", KSNOOP_MAX_VALUES);
	err = chain__walk(r, it, &c);
	if (err)
		return err;
	err = value__from_chain(r, &c, it, text, pos, &plan->values[kind][n]);
	if (err)
		return err;
	side->values[n].acc = c.acc;
	side->nvalues = ++plan->nvalues[kind];
	side->enabled = 1;
	return 0;
}

static int add_pred(struct rctx *r, int kind, const struct spec_item *it)
{
	struct ksnoop_side_plan *side = &r->plan->bpf.side[kind];
	int err;

	if (side->npreds >= KSNOOP_MAX_PREDS)
		return rctx__fail(r, it->op_pos, "more than %d predicates", KSNOOP_MAX_PREDS);
	err = pred__make(r, it, &side->preds[side->npreds]);
	if (!err)
		side->npreds++;
	return err;
}

/* One item: its predicate, if it has one, and its value (shown once). */
static int resolve_item(struct rctx *r, const struct spec_item *it)
{
	int kind = spec_item__is_return(it) ? KSNOOP_RETURN : KSNOOP_ENTRY;
	int err = it->has_pred ? add_pred(r, kind, it) : 0;

	if (err || value_index(r->plan, kind, it->text) >= 0)
		return err;
	return add_value(r, kind, it, it->text, it->base_pos);
}

/* --hist: the one item that is a value and no predicate (-1: none, durations). */
static int pick_hist_item(struct rctx *r, struct wants *w)
{
	int i;

	for (i = 0; i < r->spec->nitems; i++) {
		if (r->spec->items[i].has_pred || strategy__is_by_item(r, &r->spec->items[i]))
			continue;
		if (w->hist_item >= 0)
			return rctx__fail(r, r->spec->items[i].base_pos,
					  "%s counts by one value; '%s' is a second (make it a predicate)",
					  rctx__value_option(r), r->spec->items[i].text);
		w->hist_item = i;
	}
	return w->hist_item < 0 ? strategy__check_durations(r) : 0;
}

/*
 * --pair: the one value that is not a predicate is the key (read on the
 * entry: tracepoints and USDT probes have nothing else); none: the thread.
 */
static int pick_pair_item(struct rctx *r, struct wants *w)
{
	int i;

	for (i = 0; i < r->spec->nitems; i++) {
		if (r->spec->items[i].has_pred || strategy__is_by_item(r, &r->spec->items[i]))
			continue;
		if (w->pair_item >= 0)
			return rctx__fail(r, r->spec->items[i].base_pos,
					  "--pair pairs by one value; '%s' is a second (make it a predicate)",
					  r->spec->items[i].text);
		w->pair_item = i;
	}
	return 0;
}

/* The spec's value list: "f()" traces the calls themselves, with no values. */
static int resolve_items(struct rctx *r, struct wants *w)
{
	const struct spec *spec = r->spec;
	int i, err = 0;

	if (spec->nitems == 0)
		r->plan->bpf.side[KSNOOP_ENTRY].enabled = 1;
	for (i = 0; i < spec->nitems; i++) {
		if (spec_item__is_return(&spec->items[i])) {
			w->return_pred |= spec->items[i].has_pred;
			w->return_values |= !spec->items[i].has_pred;
		} else {
			w->entry_values = true;
			w->entry_pred |= spec->items[i].has_pred;
		}
	}
	if (r->opts->pair_start)
		err = pick_pair_item(r, w);
	else if (output_by_value(r->opts->output))
		err = pick_hist_item(r, w);
	for (i = 0; i < spec->nitems && !err; i++)
		err = resolve_item(r, &spec->items[i]);
	return err;
}

/* No value list: every argument a word holds, on entry. */
static int default_entry_values(struct rctx *r)
{
	const struct signature *sig = r->sig;
	int i, err;

	for (i = 0; i < sig->nparams; i++) {
		struct spec_item it = { .base = (char *)sig->params[i].name };

		if (sig->params[i].slot >= KSNOOP_MAX_ARGS)
			break;
		/* A struct passed by value spans words: leave it out. */
		if (btf__resolve_size(sig->btf, sig->params[i].type_id) > 8)
			continue;
		err = add_value(r, KSNOOP_ENTRY, &it, sig->params[i].name, 0);
		if (err)
			return err;
	}
	r->plan->bpf.side[KSNOOP_ENTRY].enabled = 1;
	return 0;
}

/* No value list: a function's return, with its value unless void. */
static int default_return_value(struct rctx *r)
{
	struct spec_item it = { .base = "return" };

	if (!r->sig->has_return)
		return 0;
	r->plan->bpf.side[KSNOOP_RETURN].enabled = 1;
	return r->sig->ret_type ? add_value(r, KSNOOP_RETURN, &it, "return", 0) : 0;
}

/* No value list; --hist then counts durations, and needs no values. */
static int resolve_defaults(struct rctx *r, struct wants *w)
{
	int err;

	if (output_by_value(r->opts->output))
		return 0;
	err = default_entry_values(r);
	if (!err)
		err = default_return_value(r);
	w->entry_values = r->plan->nvalues[KSNOOP_ENTRY] > 0;
	return err;
}

/* ---- the plan ---- */

/* An empty plan for SIG (the plan keeps its own copy, which r points to). */
static int plan_begin(struct rctx *r, const struct signature *sig)
{
	struct capture_plan *plan = r->plan;
	__u8 nslots = sig->nslots < KSNOOP_MAX_ARGS ? sig->nslots : KSNOOP_MAX_ARGS;

	memset(plan, 0, sizeof(*plan));
	ks_clear(r->err);
	plan->sig = *sig;
	r->sig = &plan->sig;
	plan->bpf.ret_slot = nslots;
	plan->bpf.nslots = nslots;
	if (r->opts->min_duration_ns && !sig->has_return && !r->opts->pair_start)
		return rctx__fail(r, 0, "--min-duration needs a function's return; tracepoints and USDT probes have none");
	plan->bpf.min_duration_ns = r->opts->min_duration_ns;
	return 0;
}

/* The argument words ACC reads: its source, and a ":str(LEN)"'s length. */
static __u32 access_slots(const struct ksnoop_access *acc)
{
	__u32 mask = acc->src == KSNOOP_SRC_ARG ? 1u << acc->slot : 0;

	if (acc->flags & KSNOOP_VAL_STR_LEN)
		mask |= 1u << acc->len_slot;
	return mask;
}

/* Which argument words the programs must read. */
static void compute_slot_mask(struct ksnoop_plan *bp)
{
	int k, i;

	bp->slot_mask = 0;
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		const struct ksnoop_side_plan *sd = &bp->side[k];

		for (i = 0; i < sd->nvalues; i++)
			bp->slot_mask |= access_slots(&sd->values[i].acc);
		for (i = 0; i < sd->npreds; i++)
			bp->slot_mask |= access_slots(&sd->preds[i].acc);
	}
	/* --by VALUE: its item is a value too, but durations keep no values. */
	if (bp->by >= KSNOOP_BY_INT &&
	    bp->by_value.acc.src == KSNOOP_SRC_ARG)
		bp->slot_mask |= 1u << bp->by_value.acc.slot;
	/* --pair: its key, the same (latencies keep no values either). */
	if (bp->pair && !(bp->flags & KSNOOP_PLAN_PAIR_TID) && bp->hist.acc.src == KSNOOP_SRC_ARG)
		bp->slot_mask |= 1u << bp->hist.acc.slot;
}

static bool reads_uvar(const struct ksnoop_access *acc)
{
	return acc->src == KSNOOP_SRC_UGLOBAL || acc->src == KSNOOP_SRC_UTLS;
}

/*
 * A user function's variables (@NAME, @tls:NAME): the probe needs where
 * it is in the file (its IP less that is the load bias) and where the TLS
 * block is.  Only its entry has the bias (a return's IP is the caller's).
 */
static int plan_uvars(struct rctx *r, struct ksnoop_plan *bp)
{
	bool uses = reads_uvar(&bp->hist.acc) || reads_uvar(&bp->by_value.acc);
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		const struct ksnoop_side_plan *sd = &bp->side[k];
		bool side = false;

		for (i = 0; i < sd->nvalues; i++)
			side |= reads_uvar(&sd->values[i].acc);
		for (i = 0; i < sd->npreds; i++)
			side |= reads_uvar(&sd->preds[i].acc);
		if (side && k == KSNOOP_RETURN)
			return rctx__fail(r, 0, "%s: a variable (@NAME) would be read at the return, where the file's load bias is not known: only at the entry",
					  r->sig->name);
		uses |= side;
	}
	if (!uses)
		return 0;
	bp->flags |= KSNOOP_PLAN_UVARS;
	bp->uvar_ip = r->sig->uvar_ip;
	bp->uvar_tls_delta = r->sig->uvar_tls_delta;
	bp->uvar_rseq_off = r->sig->uvar_rseq_off;
	return 0;
}

int resolver__resolve(const struct spec *spec, const struct signature *sig,
		      const struct resolve_opts *opts, struct capture_plan *plan,
		      struct ks_error *err)
{
	struct rctx r = { .spec = spec, .sig = sig, .opts = opts, .err = err, .plan = plan,
			  .btf = sig->btf };
	struct wants w = { .hist_item = -1, .pair_item = -1 };
	int ret;

	ret = plan_begin(&r, sig);
	if (!ret)
		ret = spec->has_list ? resolve_items(&r, &w) : resolve_defaults(&r, &w);
	if (!ret)
		ret = value__filter(&r);
	if (!ret)
		ret = pred__netns(&r, &w);
	if (!ret)
		ret = value__packet(&r, &w);
	if (!ret)
		ret = strategy__choose(&r, &w);
	if (!ret)
		ret = value__filter_side(&r);
	if (!ret)
		ret = plan_uvars(&r, &plan->bpf);
	if (ret)
		return ret;
	compute_slot_mask(&plan->bpf);
	/* --filter reads its skb's word at the entry. */
	if (plan->filter.enabled)
		plan->bpf.slot_mask |= 1u << plan->filter.skb.slot;
	return 0;
}

void resolver__release(struct capture_plan *plan)
{
	btf__free(plan->ext_btf);
	plan->ext_btf = NULL;
}
