// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Strategy: how the values a spec resolved to are captured.  The names are
 * offsets by now (resolve_chain.c); what is left is where and when each
 * side copies them, one function per strategy:
 *
 *   stash     entry values reported with the return (a predicate on
 *             'return', a minimum duration): the entry record waits in
 *             the stash map for its return (see ksnoop.h)
 *   re-read   a kernel function's entry value in user memory not paged
 *             in yet is read again at the return (KSNOOP_SIDE_RETRY)
 *   timing    a return that prints knows its call's duration; -L keeps
 *             only calls that long
 *   stack     -s: the stack at the probe, one more value per side
 *   count     --count: a call counts once, on one side, recording nothing
 *   hist      --hist: counted by the log2 of one value, or of durations
 *
 * Then each side's record is laid out: 8-aligned value slots behind the
 * event header.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "resolve_int.h"

/* Lay out values FROM.. of SIDE behind OFF: 8-aligned value slots. */
static int layout_values(struct rctx *r, struct ksnoop_side_plan *side, int from, __u64 off)
{
	int i;

	for (i = from; i < side->nvalues; i++) {
		side->values[i].rec_off = off;
		off += sizeof(struct ksnoop_value) + ((side->values[i].acc.size + 7) & ~7u);
	}
	if (off > KSNOOP_MAX_RECORD)
		return rctx__fail(r, 0, "the values of one event add up to %llu bytes, more than %d; lower --max-bytes or --str-bytes",
				  (unsigned long long)off, KSNOOP_MAX_RECORD);
	side->rec_size = off;
	return 0;
}

static int layout_side(struct rctx *r, struct ksnoop_side_plan *side)
{
	return layout_values(r, side, 0, sizeof(struct ksnoop_event));
}

/* ---- stack ---- */

/*
 * -s: the stack at the probe, as one more value of KIND's side; filled by
 * bpf_get_stack() after the predicates hold, printed by the printer as the
 * event's stack rather than as a value.
 */
static int add_stack(struct rctx *r, struct capture_plan *plan, int kind, bool user)
{
	struct ksnoop_side_plan *side = &plan->bpf.side[kind];
	struct value_desc *vd;
	int n = plan->nvalues[kind];

	if (n >= KSNOOP_MAX_VALUES)
		return rctx__fail(r, 0, "more than %d values on one side, with the stack", KSNOOP_MAX_VALUES - 1);
	vd = &plan->values[kind][n];
	memset(vd, 0, sizeof(*vd));
	vd->text = user ? "ustack" : "stack";
	vd->how = user ? PRINT_USTACK : PRINT_STACK;
	vd->size = vd->obj_size = KSNOOP_STACK_DEPTH * 8;
	memset(&side->values[n], 0, sizeof(side->values[n]));
	side->values[n].acc.src = user ? KSNOOP_SRC_USTACK : KSNOOP_SRC_STACK;
	side->values[n].acc.size = vd->size;
	side->nvalues = ++plan->nvalues[kind];
	return 0;
}

/*
 * A user function's -s is its program's stack, as a USDT probe's: the
 * user stack, which --ustack would only repeat.
 */
static bool ufunc_stack(const struct rctx *r)
{
	return r->spec->kind == SPEC_UFUNC && (r->opts->stack || r->opts->ustack);
}

/* Every side that emits events gets the stack (a stashed entry carries its own). */
static int add_stacks(struct rctx *r, bool stash)
{
	bool ufunc = r->spec->kind == SPEC_UFUNC;
	int k, err;

	/*
	 * --count -s counts by stack id in a stack map, which the USDT
	 * program, sleepable so that it can fault user memory in, may not
	 * use.  A user function's counting programs are not sleepable.
	 */
	if (r->opts->stack && r->opts->output == OUTPUT_COUNT && r->opts->user_space && !ufunc)
		return rctx__fail(r, 0, "--count -s: USDT probes run sleepable programs, which may not use the stack map it counts by; -s alone shows each event's user stack");
	if ((!r->opts->stack && !r->opts->ustack) || r->opts->output != OUTPUT_EVENTS)
		return 0;
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		if (!r->plan->bpf.side[k].enabled)
			continue;
		/* --tree: the stack where a call returns (whether it failed shows there) */
		if (r->opts->tree ? k == KSNOOP_ENTRY : stash && k == KSNOOP_RETURN)
			continue;
		err = r->opts->stack ? add_stack(r, r->plan, k, false) : 0;
		err = err ?: (r->opts->ustack && !(ufunc && r->opts->stack) ?
			      add_stack(r, r->plan, k, true) : 0);
		if (err)
			return err;
	}
	return 0;
}

/* ---- stash ---- */

/*
 * A user function's entry predicate selects the whole call: its return
 * prints only where the entry's predicates held, with the entry values,
 * in one event.  (A kernel function's return prints whatever its entry's
 * predicates said: see capture_entry_call().)
 */
static bool ufunc_call_selected(const struct rctx *r, const struct wants *w)
{
	return r->spec->kind == SPEC_UFUNC && w->entry_pred && w->return_values &&
	       r->opts->output == OUTPUT_EVENTS;
}

/* --netns selects a kernel function's whole call at its entry: its return is stashed. */
static bool netns_call_selected(const struct rctx *r)
{
	return r->opts->netns_ino && r->plan->bpf.side[KSNOOP_RETURN].enabled &&
	       r->opts->output == OUTPUT_EVENTS;
}

/*
 * A predicate on 'return' or a minimum duration, with entry values:
 * report the entry values only when the return says so.  Entry values
 * are what they were at entry (fexit would see the argument words, but
 * not what they pointed to), so in both attach modes the entry record is
 * stashed and completed on return (see ksnoop.h).  --hist of the return
 * value: entry predicates select at the return too.
 */
static bool wants_stash(const struct rctx *r, const struct wants *w)
{
	bool hist_of_return = w->hist_item >= 0 &&
			      spec_item__is_return(&r->spec->items[w->hist_item]);

	/* --pair: tracepoints and USDT probes, one side; the pair map keeps the time. */
	if (!w->entry_values || r->opts->pair_start)
		return false;
	return w->return_pred || r->opts->min_duration_ns || hist_of_return || r->opts->tree ||
	       ufunc_call_selected(r, w) || netns_call_selected(r);
}

/*
 * Turn a laid-out entry side into a stash, and put its values in front of
 * the return side's: same offsets, so the return record can take the entry
 * record's bytes as they are; the return values follow.
 */
static int stash_entry_side(struct rctx *r, struct capture_plan *plan)
{
	struct ksnoop_side_plan *e = &plan->bpf.side[KSNOOP_ENTRY];
	struct ksnoop_side_plan *x = &plan->bpf.side[KSNOOP_RETURN];
	int ne = plan->nvalues[KSNOOP_ENTRY], nx = plan->nvalues[KSNOOP_RETURN], i, ret;

	if (ne + nx > KSNOOP_MAX_VALUES)
		return rctx__fail(r, 0, "more than %d values in one event", KSNOOP_MAX_VALUES);
	/* Return values move behind the entry values. */
	for (i = nx - 1; i >= 0; i--) {
		x->values[ne + i] = x->values[i];
		plan->values[KSNOOP_RETURN][ne + i] = plan->values[KSNOOP_RETURN][i];
	}
	for (i = 0; i < ne; i++) {
		x->values[i] = e->values[i];
		plan->values[KSNOOP_RETURN][i] = plan->values[KSNOOP_ENTRY][i];
	}
	if (e->rec_size > KSNOOP_MAX_STASH_RECORD)
		return rctx__fail(r, 0, "the entry values kept for the return add up to %u bytes, more than %d; lower --max-bytes or --str-bytes",
				  e->rec_size, KSNOOP_MAX_STASH_RECORD);
	x->nvalues = ne + nx;
	ret = layout_values(r, x, ne, e->rec_size);
	if (ret)
		return ret;
	plan->nvalues[KSNOOP_RETURN] = ne + nx;
	x->nstashed = ne;
	x->stash_size = e->rec_size;
	x->flags |= KSNOOP_SIDE_UNSTASH;
	x->enabled = 1;
	e->flags |= KSNOOP_SIDE_STASH;
	/* The entry side emits nothing itself: its values print on return. */
	plan->nvalues[KSNOOP_ENTRY] = 0;
	return 0;
}

/* Entry values reported with the return: the entry side is the stash. */
static int lay_out_stashed(struct rctx *r)
{
	int ret = layout_side(r, &r->plan->bpf.side[KSNOOP_ENTRY]);

	return ret ?: stash_entry_side(r, r->plan);
}

/* Each side its own events. */
static int lay_out_sides(struct rctx *r)
{
	int k, ret;

	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		ret = layout_side(r, &r->plan->bpf.side[k]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- re-read ---- */

/*
 * Kernel functions: an entry value read from memory may be user memory the
 * task has not touched yet; if that read faults, the return side reads it
 * again (see KSNOOP_SIDE_RETRY).  Needs a return side, so not tracepoints;
 * USDT programs fault the page in themselves.  With a stash, the return
 * side already reads faulted entry values again; counted calls record
 * nothing, so there is nothing to read again.
 */
static void mark_retry(struct capture_plan *plan)
{
	struct ksnoop_side_plan *e = &plan->bpf.side[KSNOOP_ENTRY];
	int i;

	/* The record is copied into a stash element: as large as a stashed one. */
	if (!plan->sig.has_return || e->rec_size > KSNOOP_MAX_STASH_RECORD)
		return;
	for (i = 0; i < e->nvalues; i++) {
		if (!(e->values[i].acc.flags & KSNOOP_VAL_REG) &&
		    e->values[i].acc.src != KSNOOP_SRC_STACK &&
		    e->values[i].acc.src != KSNOOP_SRC_USTACK) {
			e->flags |= KSNOOP_SIDE_RETRY;
			plan->bpf.side[KSNOOP_RETURN].flags |= KSNOOP_SIDE_RETRY;
			return;
		}
	}
}

/* ---- timing ---- */

/*
 * A return side that prints knows each call's duration: from the stashed
 * entry record's time, or, without a stash, from the time the entry side
 * keeps for it (KSNOOP_SIDE_TIMED).  Calls traced on entry alone keep no
 * time.
 */
static void mark_timed(struct capture_plan *plan)
{
	struct ksnoop_side_plan *x = &plan->bpf.side[KSNOOP_RETURN];

	if (!plan->sig.has_return || !x->enabled || (x->flags & KSNOOP_SIDE_UNSTASH))
		return;
	plan->bpf.side[KSNOOP_ENTRY].flags |= KSNOOP_SIDE_TIMED;
	x->flags |= KSNOOP_SIDE_TIMED;
}

/*
 * --min-duration without entry values to carry: the entry side only keeps
 * the time, and every event is a return.
 */
static void report_on_return(struct capture_plan *plan)
{
	plan->bpf.side[KSNOOP_ENTRY].enabled = 0;
	plan->bpf.side[KSNOOP_RETURN].enabled = 1;
}

/* ---- count and hist ---- */

/*
 * --count, --hist: a call counts once, where it began (or at its return,
 * for a return predicate or a minimum duration, which the stash keeps).
 */
static void count_once(struct capture_plan *plan, bool stash)
{
	if (!stash && plan->bpf.side[KSNOOP_ENTRY].enabled)
		plan->bpf.side[KSNOOP_RETURN].enabled = 0;
}

/* An integer or an enum, not a bool or a char: a number to count by. */
static bool is_number(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	if (t && btf_is_int(t))
		return t->size <= 8 && !(btf_int_encoding(t) & BTF_INT_BOOL) &&
		       !btfu_is_char(btf, id);
	return t && btf_is_any_enum(t);
}

/* The first named number among struct T's own members, or NULL. */
static const char *number_member(const struct btf *btf, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btfu_name(btf, m->name_off);

		if (*name && !btf_member_bitfield_size(t, i) && is_number(btf, m->type))
			return name;
	}
	return NULL;
}

/*
 * What --hist could count a tracepoint or USDT probe by, as an example
 * (empty: nothing to offer): its first argument that is a number
 * ("old_pid"), else a number in the struct its first struct pointer
 * points to ("p->__state").
 */
static void hist_example(const struct signature *sig, char *buf, size_t sz)
{
	const struct btf *btf = sig->btf;
	int i;

	buf[0] = 0;
	for (i = 0; i < sig->nparams; i++)
		if (sig->params[i].slot < KSNOOP_MAX_ARGS && is_number(btf, sig->params[i].type_id)) {
			snprintf(buf, sz, "%s", sig->params[i].name);
			return;
		}
	for (i = 0; i < sig->nparams; i++) {
		const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, sig->params[i].type_id));
		const char *member;

		if (sig->params[i].slot >= KSNOOP_MAX_ARGS || !btfu_is_struct_ptr(btf, sig->params[i].type_id))
			continue;
		t = btf__type_by_id(btf, btfu_strip(btf, t->type));
		member = t && btf_is_struct(t) ? number_member(btf, t) : NULL;
		if (member) {
			snprintf(buf, sz, "%s->%s", sig->params[i].name, member);
			return;
		}
	}
}

int strategy__check_durations(struct rctx *r)
{
	const char *what = r->opts->user_space ? "a USDT probe" : "a tracepoint";
	const char *target = r->plan->sig.name;
	int len = strlen(target);
	char example[2 * SPEC_MAX_NAME];

	if (r->plan->sig.has_return)
		return 0;
	/* As the spec named it (a category, a binary), but a glob's one match. */
	if (!r->spec->is_glob && !r->spec->ndecls) {
		target = r->spec->text;
		len = strcspn(target, "(");
		while (len && target[len - 1] == ' ')
			len--;
	}
	hist_example(&r->plan->sig, example, sizeof(example));
	if (!example[0])
		return rctx__fail(r, 0, "%s without a value counts call durations, and %s has no return; name the numeric value to count by (an argument, or a member of one)",
				  rctx__value_option(r), what);
	return rctx__fail(r, 0, "%s without a value counts call durations, and %s has no return; name the numeric value to count by, as in \"%.*s(%s)\"",
			  rctx__value_option(r), what, len, target, example);
}

/*
 * --hist without a value: the calls' durations, counted at the return
 * (entry predicates select at the entry, return predicates at the
 * return); the entry side keeps the time of the calls it selects and
 * nothing is recorded on either side.
 */
static int hist_durations(struct rctx *r)
{
	struct capture_plan *plan = r->plan;
	int k, ret = strategy__check_durations(r);

	if (ret)
		return ret;
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		plan->nvalues[k] = 0;
		plan->bpf.side[k].nvalues = 0;
		plan->bpf.side[k].enabled = 1;
	}
	snprintf(plan->hist_text, sizeof(plan->hist_text), "duration_ns");
	snprintf(plan->hist_label, sizeof(plan->hist_label), "duration");
	return lay_out_sides(r);
}

/*
 * --hist: read IT as a predicate reads its value (width, signedness,
 * bitfield), on the side that counts: its own, which must be that side.
 */
static int hist_value(struct rctx *r, const struct spec_item *it, bool stash)
{
	struct ksnoop_pred_plan *pp = &r->plan->bpf.hist;
	int side = spec_item__is_return(it) ? KSNOOP_RETURN : KSNOOP_ENTRY;
	struct chain c;
	int width, err;

	if (side == KSNOOP_ENTRY && stash)
		return rctx__fail(r, it->base_pos, "%s of an entry value with a predicate on 'return' is not supported yet",
				  rctx__value_option(r));
	memset(pp, 0, sizeof(*pp));
	err = chain__walk(r, it, &c);
	if (err)
		return err;
	if (it->fmt)
		return rctx__fail(r, it->fmt_pos, "%s counts by the number itself: '%s' takes no format (leave out ':%s')",
				  rctx__value_option(r), it->text, spec_format__str(it->fmt));
	if (it->shift)
		return rctx__fail(r, it->shift_pos, "%s counts by the number itself: '%s' takes no shift",
				  rctx__value_option(r), it->text);
	if (!btfu_is_scalar(r->btf, c.type_id))
		return rctx__fail(r, it->base_pos, "%s counts by a number; '%s' is %s",
				  rctx__value_option(r), it->text, rctx__type_str(r, c.type_id));
	width = pred__width(r, &c, pp);
	if (c.bit_size && width > 8)
		return rctx__fail(r, it->base_pos, "'%s': a bitfield across more than 8 bytes", it->text);
	if (width <= 0 || width > 8)
		return rctx__fail(r, it->base_pos, "%s counts by a number of at most 8 bytes; '%s' is %d",
				  rctx__value_option(r), it->text, width);
	pred__access(&c, pp, width);
	pp->is_signed = btfu_is_signed(r->btf, c.type_id);
	snprintf(r->plan->hist_text, sizeof(r->plan->hist_text), "%s", it->text);
	snprintf(r->plan->hist_label, sizeof(r->plan->hist_label), "%s", it->text);
	return 0;
}

/* ---- by ---- */

/* --by's VALUE part, as written (NULL: none is a value). */
static const char *by_value_text(const struct rctx *r, struct spec_by *by)
{
	struct ks_error e;

	if (!r->opts->by || spec__parse_by(r->opts->by, by, &e) || by->value < 0)
		return NULL;
	return by->part[by->value];
}

/* BY is IT's text, with its ":FORMAT" or without. */
static bool same_text(const char *by, const struct spec_item *it)
{
	size_t n = strlen(it->text), f;

	if (!strcmp(by, it->text))
		return true;
	if (!it->fmt)
		return false;
	f = strlen(spec_format__str(it->fmt)) + 1;
	return n > f && strlen(by) == n - f && !strncmp(by, it->text, n - f);
}

/*
 * --by VALUE names an item of the spec: as written, or as the parser
 * spells it ("skb -> len" is "skb->len"), its format (":str") given or
 * left out.
 */
bool strategy__is_by_item(const struct rctx *r, const struct spec_item *it)
{
	char text[SPEC_MAX_NAME * 2 + 8];
	struct spec_by parts;
	const char *by = by_value_text(r, &parts);
	struct ks_error e;
	struct spec s;
	bool same;

	if (!by)
		return false;
	if (same_text(by, it))
		return true;
	snprintf(text, sizeof(text), "by(%s)", by);
	same = spec__parse(text, SPEC_KFUNC, &s, &e) == 0 && s.nitems == 1 &&
	       !s.items[0].has_pred && same_text(s.items[0].text, it);
	spec__free(&s);
	return same;
}

/* A string key: the one a char pointer (or :str) points to, or a char array's bytes. */
static int by_string(struct rctx *r, const struct spec_item *it, struct chain *c)
{
	const struct btf_type *t = btf__type_by_id(r->btf, btfu_strip(r->btf, c->type_id));
	bool is_ptr = btfu_is_char_ptr(r->btf, c->type_id) ||
		      (it->fmt == FMT_STR && t && !btf_is_array(t));
	__s64 asz;
	int err;

	if (is_ptr) {
		err = chain__push_deref(r, c, it->base_pos);
		if (err)
			return err;
		c->acc.flags |= KSNOOP_VAL_STR;
		c->acc.size = KSNOOP_BY_SIZE;
	} else {
		if (c->in_reg)
			return rctx__fail(r, it->base_pos, "--by '%s': an array passed by value", it->text);
		asz = btf__resolve_size(r->btf, c->type_id);
		c->acc.size = asz < KSNOOP_BY_SIZE - 1 ? asz : KSNOOP_BY_SIZE - 1;
	}
	r->plan->bpf.by_value.acc = c->acc;
	r->plan->bpf.by = KSNOOP_BY_STR;
	return 0;
}

/*
 * An integer key: read as a predicate reads its value, printed as an
 * event prints it (by_desc: enumerators, errno names, ':sym', ':ip' ...).
 */
static int by_integer(struct rctx *r, const struct spec_item *it, struct chain *c)
{
	struct ksnoop_pred_plan *pp = &r->plan->bpf.by_value;
	struct value_desc *vd = &r->plan->by_desc;
	int width = pred__width(r, c, pp);
	struct chain shown = *c;
	int err;

	if (width <= 0 || width > 8)
		return rctx__fail(r, it->base_pos, "--by counts by an integer of at most 8 bytes or a string; '%s' is %s",
				  it->text, rctx__type_str(r, c->type_id));
	err = value__from_chain(r, &shown, it, it->text, it->base_pos, vd);
	if (err)
		return err;
	/* A pointer that an event would follow: the key is its address. */
	if (vd->how != PRINT_VALUE && it->fmt)
		return rctx__fail(r, it->fmt_pos, "--by '%s': a key is the pointer itself; ':%s' reads what it points to",
				  it->text, spec_format__str(it->fmt));
	if (vd->how != PRINT_VALUE) {
		vd->how = PRINT_VALUE;
		vd->obj_id = vd->type_id;
		vd->size = vd->obj_size = width;
	}
	vd->bit_off = 0;
	pred__access(c, pp, width);
	pp->is_signed = btfu_is_signed(r->btf, c->type_id);
	r->plan->bpf.by = KSNOOP_BY_INT;
	return 0;
}

/*
 * The side that counts: the return's, for durations and for what the
 * stash carries there; else the entry's (count_once()).
 */
static int counting_side(const struct capture_plan *plan)
{
	return plan->bpf.side[KSNOOP_RETURN].enabled ? KSNOOP_RETURN : KSNOOP_ENTRY;
}

/* --by VALUE: the item the spec names, an integer or a string on the counting side. */
static int by_value(struct rctx *r, const char *by)
{
	const struct spec_item *it = NULL;
	struct chain c;
	int i, err;

	for (i = 0; i < r->spec->nitems && !it; i++)
		if (strategy__is_by_item(r, &r->spec->items[i]))
			it = &r->spec->items[i];
	if (!it)
		return rctx__fail(r, 0, "--by '%s' is not comm, pid, tid, cpu or a value the spec names; name it in the spec, as in \"%s(%s)\"",
				  by, r->plan->sig.name, by);
	if ((spec_item__is_return(it) ? KSNOOP_RETURN : KSNOOP_ENTRY) != counting_side(r->plan))
		return rctx__fail(r, it->base_pos, "--by '%s': calls are counted at their %s, where '%s' is not read; not supported yet",
				  it->text, counting_side(r->plan) == KSNOOP_RETURN ? "return" : "entry",
				  it->text);
	if (it->shift)
		return rctx__fail(r, it->shift_pos, "--by '%s': keys are the values as read; a shift is not supported there",
				  it->text);
	memset(&r->plan->bpf.by_value, 0, sizeof(r->plan->bpf.by_value));
	err = chain__walk(r, it, &c);
	if (err)
		return err;
	if (it->fmt == FMT_TUPLE)
		return by__tuple(r, it, &c);
	if (it->fmt == FMT_STRV)
		return rctx__fail(r, it->fmt_pos, "--by '%s': a list of strings is no key; count by one of them (argv[1])",
				  it->text);
	/* ':hex', ':be', ':ip', ':sym': a number, printed so. */
	if (it->fmt == FMT_STR || (it->fmt == FMT_NONE && (btfu_is_char_ptr(r->btf, c.type_id) ||
							  btfu_is_char_array(r->btf, c.type_id))))
		return by_string(r, it, &c);
	if (!btfu_is_scalar(r->btf, c.type_id))
		return rctx__fail(r, it->base_pos, "--by counts by an integer or a string; '%s' is %s",
				  it->text, rctx__type_str(r, c.type_id));
	return by_integer(r, it, &c);
}

/*
 * --by's parts into the plan, each at its offset in the key: the VALUE
 * first (its room is the same whatever its kind), then the words, so that
 * the key's layout does not depend on the order given (only the columns do).
 */
static int by_parts(struct rctx *r, struct ksnoop_plan *bp)
{
	struct spec_by by;
	struct ks_error e;
	__u8 off = 0;
	int i, err;

	if (spec__parse_by(r->opts->by, &by, &e))
		return rctx__fail(r, 0, "%s", e.msg);
	if (by.value >= 0) {
		err = by_value(r, by.part[by.value]);
		if (err)
			return err;
		bp->by_part[by.value] = bp->by;
		off = KSNOOP_BY_SIZE;
	}
	for (i = 0; i < by.n; i++) {
		if (by.word[i] == KSNOOP_BY_NONE)
			continue;
		bp->by_part[i] = by.word[i];
		bp->by_off[i] = off;
		off += by.word[i] == KSNOOP_BY_COMM ? KSNOOP_COMM_LEN : sizeof(__u64);
	}
	return 0;
}

/* --by and --hist=linear, into the program's plan. */
static int count_key(struct rctx *r)
{
	struct ksnoop_plan *bp = &r->plan->bpf;

	if (r->opts->output == OUTPUT_HIST && r->opts->hist_step) {
		bp->hist_linear = 1;
		bp->hist_min = r->opts->hist_min;
		bp->hist_step = r->opts->hist_step;
		bp->hist_nbuckets = r->opts->hist_nbuckets;
	}
	if (!r->opts->by || r->opts->output == OUTPUT_EVENTS)
		return 0;
	return by_parts(r, bp);
}

/* The program's output (ksnoop.h): the mode, as specific as BPF must be. */
static __u8 program_output(const struct rctx *r, const struct wants *w)
{
	const struct resolve_opts *opts = r->opts;

	switch (opts->output) {
	case OUTPUT_COUNT:
		/* A user function counts by its user stack (KSNOOP_PLAN_COUNT_USTACK). */
		return opts->stack && r->spec->kind != SPEC_UFUNC ? KSNOOP_OUT_COUNT_STACKS :
		       KSNOOP_OUT_COUNT;
	case OUTPUT_HIST:
	case OUTPUT_STATS:
		return w->hist_item < 0 ? KSNOOP_OUT_HIST_DURATION : KSNOOP_OUT_HIST;
	case OUTPUT_EVENTS:
		break;
	}
	return KSNOOP_OUT_EVENTS;
}

/* ---- the choice ---- */

/* Values captured (and printed, or counted): every strategy but durations. */
static int capture_values(struct rctx *r, const struct wants *w)
{
	bool stash = wants_stash(r, w), counted = r->opts->output != OUTPUT_EVENTS;
	int ret;

	if ((r->opts->min_duration_ns || r->opts->tree) && !stash && !r->opts->pair_start)
		report_on_return(r->plan);
	ret = add_stacks(r, stash);
	if (!ret && w->hist_item >= 0)
		ret = hist_value(r, &r->spec->items[w->hist_item], stash);
	if (ret)
		return ret;
	if (counted)
		count_once(r->plan, stash);
	if (stash)
		return lay_out_stashed(r);
	ret = lay_out_sides(r);
	if (!ret && !counted)
		mark_retry(r->plan);
	return ret;
}

/* --pair --hist/--stats: the latencies alone; the events keep no values. */
static int pair_durations(struct rctx *r)
{
	struct capture_plan *plan = r->plan;
	int k;

	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		plan->nvalues[k] = 0;
		plan->bpf.side[k].nvalues = 0;
		plan->bpf.side[k].enabled = 0;
	}
	plan->bpf.side[KSNOOP_ENTRY].enabled = 1;
	return lay_out_sides(r);
}

/*
 * --pair: this spec's role, and its key: the value it names, read as
 * --hist reads its value (plan.hist), or the thread's id.
 */
static int pair_key(struct rctx *r, const struct wants *w)
{
	struct ksnoop_plan *bp = &r->plan->bpf;
	int ret = 0;

	bp->pair = r->spec == r->opts->pair_start ? KSNOOP_PAIR_START : KSNOOP_PAIR_END;
	if (w->pair_item < 0)
		bp->flags |= KSNOOP_PLAN_PAIR_TID;
	else
		ret = hist_value(r, &r->spec->items[w->pair_item], false);
	snprintf(r->plan->hist_text, sizeof(r->plan->hist_text), "latency_ns");
	snprintf(r->plan->hist_label, sizeof(r->plan->hist_label), "latency");
	return ret;
}

int strategy__choose(struct rctx *r, const struct wants *w)
{
	int ret;

	if (r->opts->pair_start && output_by_value(r->opts->output))
		ret = pair_durations(r);
	else if (output_by_value(r->opts->output) && w->hist_item < 0)
		ret = hist_durations(r);
	else
		ret = capture_values(r, w);
	if (ret)
		return ret;
	r->plan->bpf.output = program_output(r, w);
	if (r->opts->output == OUTPUT_COUNT && (r->opts->ustack || ufunc_stack(r)))
		r->plan->bpf.flags |= KSNOOP_PLAN_COUNT_USTACK;
	if (r->opts->output == OUTPUT_STATS)
		r->plan->bpf.flags |= KSNOOP_PLAN_STATS;
	if (r->opts->pair_start) {
		ret = pair_key(r, w);
		if (ret)
			return ret;
	}
	mark_timed(r->plan);
	return count_key(r);
}

static __u32 larger_side(const struct ksnoop_plan *bp)
{
	__u32 entry = bp->side[KSNOOP_ENTRY].rec_size, ret = bp->side[KSNOOP_RETURN].rec_size;

	return ret > entry ? ret : entry;
}

int resolver__tree_sizes(struct capture_plan **plans, int n, int *bad, struct ks_error *e)
{
	__u32 max = 0, size;
	int i;

	for (i = 0; i < n; i++) {
		if (plans[i]->bpf.tree != KSNOOP_TREE_INNER)
			continue;
		size = larger_side(&plans[i]->bpf);
		if (size > KSNOOP_TREE_REC_MAX) {
			*bad = i;
			return ks_fail(e, -EINVAL, "a call's record is %u bytes, more than %d; name fewer values, or lower --max-bytes or --str-bytes",
				       size, KSNOOP_TREE_REC_MAX);
		}
		if (size > max)
			max = size;
	}
	for (i = 0; i < n; i++)
		if (plans[i]->bpf.tree)
			plans[i]->bpf.tree_rec_size = (max + 7) & ~7u;
	return 0;
}
