// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Report-time questions (rec_query.h): the live spec language over a
 * recording's values.  Each SPEC is parsed once, matched against the
 * recorded targets' names, and each of its predicates bound to the
 * recorded value of the same text on each matched target; an event then
 * costs a lookup by its func_id and a comparison per predicate.  The
 * recorded bytes are untrusted, but recfile__next() has checked each
 * record against its plan (offsets, lengths) before we read it.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "rec_query.h"
#include "resolve.h"
#include "spec.h"

/* One predicate, bound to a recorded value of one target. */
struct rq_pred {
	struct rec_loc loc;	/* the value, or a member of it */
	bool is_str;
	bool is_signed;
	enum ksnoop_op op;
	__u64 imm;		/* integers: the constant, sign-extended */
	__u64 mask;		/* "VALUE & MASK" (0: none) */
	unsigned int shift;	/* "VALUE >> N": the value shifted as printed */
	const char *str;	/* strings: the constant (the spec's) */
};

/* What a target must satisfy: the predicates of the first spec naming it. */
struct rq_target {
	bool named;
	int side;		/* the side its predicates read (-1: none) */
	const char *side_text;	/* the first predicate's value there */
	bool has_list;		/* the spec named values: */
	int nvalues;		/* those without a predicate */
	const char *value;	/* the first of them */
	int npreds;
	struct rq_pred *preds;	/* the spec's predicates: only named targets hold them */
};

struct rec_query {
	const struct recfile *r;
	int ntargets;
	struct rq_target *t;	/* per func_id */
	int nspecs;
	struct spec *specs;
	bool *matched;	/* rec_query__new_some(): per SPEC, named a target here */
};

/*
 * Whether SPEC names target T: the text before its '(' as a glob over the
 * target's name ("sys:openat", "tp:sched_*", "ksnoop_test:req", a
 * function), or what the recording's names leave out of it: a
 * tracepoint's category (tp:sched:sched_switch), a USDT probe's binary
 * (./app:p:n), a user function's binary (u:./app:f), a kernel function's
 * module (vmlinux:f).
 */
static bool names_target(const struct spec *s, const char *pattern, const struct recfile_target *t)
{
	const char *name = recfile_target__name(t), *at;
	char buf[SPEC_MAX_NAME + 32];

	if (!fnmatch(pattern, name, 0))
		return true;
	if (s->kind == SPEC_TP && strncmp(s->target, "sys:", 4) &&
	    (at = strrchr(s->target, ':'))) {
		snprintf(buf, sizeof(buf), "tp:%s", at + 1);
		return !fnmatch(buf, name, 0);
	}
	if (s->kind == SPEC_USDT) {
		/* BINARY:PROVIDER:NAME: its last two parts */
		at = strrchr(s->target, ':');
		while (at && at > s->target && at[-1] != ':')
			at--;
		return at && at > s->target && !fnmatch(at, name, 0);
	}
	return (s->kind == SPEC_UFUNC || s->module) && !fnmatch(s->target, name, 0);
}

bool rec_query__value(const struct capture_plan *p, const char *text, int *kind, int *idx)
{
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++)
		for (i = 0; i < p->nvalues[k]; i++)
			if (p->values[k][i].text && !strcmp(p->values[k][i].text, text)) {
				*kind = k;
				*idx = i;
				return true;
			}
	return false;
}

/*
 * Members inside recorded bytes.  A struct recorded whole (a pointer's
 * pointee dumped, a struct passed by value) holds its members' bytes: a
 * report may ask about them although the recording named only the
 * struct.  The rest of the text after the recorded prefix is walked in
 * the file's BTF (the resolver's member lookup, anonymous members
 * included) to an offset, a size and a bitfield inside those bytes.  A
 * pointer inside them is an address, not what it points to: a '->' or an
 * index through it is refused.
 */
#define RQ_MAX_STEPS	BTFU_MAX_DEPTH	/* members and indexes after the prefix */

struct member_walk {
	const struct btf *btf;
	const char *text, *tname;	/* for messages, */
	const char *opt;		/* asked for by (NULL, "": a predicate) */
	const char *prefix;		/* the recorded value's text */
	size_t at;			/* TEXT up to here is walked */
	bool deref;			/* the prefix's pointee is in the bytes: */
	__u32 obj_id;			/* its type */
	__u32 type_id;
	__u64 off;			/* bytes from the start of the recorded bytes */
	__u32 bit_off, bit_size;
	__u32 limit;			/* bytes the plan records */
	struct ks_error *e;
};

/* The recorded value whose text TEXT starts with, followed by a step. */
static bool recorded_prefix(const struct capture_plan *p, const char *text, int *kind, int *idx,
			    size_t *at)
{
	size_t best = 0, n;
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++)
		for (i = 0; i < p->nvalues[k]; i++) {
			const char *vt = p->values[k][i].text;
			size_t skip = 0;

			if (!vt)
				continue;
			n = strlen(vt);
			if (text[0] == '(' && !strncmp(text + 1, vt, n) && text[n + 1] == ')')
				skip = 2;	/* "(*p)->x": the prefix ends in a '*' or a cast */
			else if (strncmp(text, vt, n))
				continue;
			n += skip;
			if (n > best && (text[n] == '.' || text[n] == '[' ||
					 (text[n] == '-' && text[n + 1] == '>'))) {
				best = n;
				*kind = k;
				*idx = i;
			}
		}
	*at = best;
	return best > 0;
}

/* -EINVAL, E saying FMT of W after "report: " and the option that asked. */
__attribute__((format(printf, 2, 3)))
static int walk_err(const struct member_walk *w, const char *fmt, ...)
{
	char msg[KS_ERROR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (w->opt && *w->opt)
		return ks_fail(w->e, -EINVAL, "report: %s: %s", w->opt, msg);
	return ks_fail(w->e, -EINVAL, "report: %s", msg);
}

static int walk_fail(struct member_walk *w, const char *fmt, const char *what)
{
	return walk_err(w, fmt, w->text, w->tname, w->prefix, (int)w->at, w->text, what);
}

/* '->NAME' or '.NAME' at W's place: into the member. */
static int walk_member(struct member_walk *w, bool arrow)
{
	const struct btf_type *t = btf__type_by_id(w->btf, btfu_strip(w->btf, w->type_id));
	const char *name = w->text + w->at + (arrow ? 2 : 1);
	size_t len = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789");
	__u32 mtype, bit_off, bit_size;
	char mname[SPEC_MAX_NAME], tbuf[128];

	if (arrow && t && btf_is_ptr(t) && w->deref) {
		w->deref = false;
		w->type_id = w->obj_id;	/* the pointee as recorded */
		t = btf__type_by_id(w->btf, btfu_strip(w->btf, w->type_id));
	} else if (arrow && t && btf_is_ptr(t)) {
		return walk_fail(w, "'%s' of '%s' was not recorded: '%s' was, and '%.*s' is a pointer whose target was not%s", "");
	}
	if (t && btf_is_ptr(t) && !arrow)
		return walk_fail(w, "'%s' of '%s' was not recorded: '%s' was, and '%.*s' is a pointer: '->'%s, not '.'", "");
	if (!t || !btf_is_composite(t) || w->bit_size)
		return walk_fail(w, "'%s' of '%s' was not recorded: '%s' was, and '%.*s' is %s, not a struct or union",
				 btfu_type_str(w->btf, w->type_id, NULL, tbuf, sizeof(tbuf)));
	if (!len || len >= sizeof(mname))
		return walk_fail(w, "'%s' of '%s': '%s' was recorded, and '%.*s' is followed by %s, not a member name",
				 "something else");
	snprintf(mname, sizeof(mname), "%.*s", (int)len, name);
	if (resolver__member(w->btf, w->type_id, mname, &mtype, &bit_off, &bit_size))
		return walk_err(w, "'%s' of '%s': no member '%s' in %s",
				w->text, w->tname, mname,
				btfu_type_str(w->btf, btfu_strip(w->btf, w->type_id), NULL, tbuf, sizeof(tbuf)));
	w->off += bit_off / 8;
	w->bit_off = bit_size ? bit_off % 8 : 0;
	w->bit_size = bit_size;
	w->type_id = mtype;
	w->at = name + len - w->text;
	return 0;
}

/* '[N]' at W's place: into the element of an array in the bytes. */
static int walk_index(struct member_walk *w)
{
	const struct btf_type *t = btf__type_by_id(w->btf, btfu_strip(w->btf, w->type_id));
	const char *s = w->text + w->at + 1;
	unsigned long long index = 0;
	__s64 esize;
	char tbuf[128];

	if (t && btf_is_ptr(t) && !w->bit_size)
		return walk_fail(w, "'%s' of '%s' was not recorded: '%s' was, and '%.*s' is a pointer whose target was not%s", "");
	if (!t || !btf_is_array(t) || w->bit_size)
		return walk_fail(w, "'%s' of '%s' was not recorded: '%s' was, and '%.*s' is %s, not an array",
				 btfu_type_str(w->btf, w->type_id, NULL, tbuf, sizeof(tbuf)));
	for (; *s >= '0' && *s <= '9' && index <= w->limit; s++)
		index = index * 10 + (*s - '0');
	esize = btf__resolve_size(w->btf, btf_array(t)->type);
	if (*s != ']' || index >= btf_array(t)->nelems || esize <= 0 || index > w->limit ||
	    index * esize > w->limit)
		return walk_err(w, "'%s' of '%s': the index is beyond %s",
				w->text, w->tname, btfu_type_str(w->btf, w->type_id, NULL, tbuf, sizeof(tbuf)));
	w->off += index * esize;
	w->type_id = btf_array(t)->type;
	w->at = s + 1 - w->text;
	return 0;
}

/* The rest of W's text, step by step, then its size within W's limit. */
static int walk_rest(struct member_walk *w, struct rec_loc *loc)
{
	int steps, err = 0;
	__s64 size;

	for (steps = 0; w->text[w->at] && !err; steps++) {
		const char *s = w->text + w->at;

		if (steps >= RQ_MAX_STEPS)
			return walk_err(w, "'%s' of '%s': more than %d members deep",
					w->text, w->tname, RQ_MAX_STEPS);
		if (s[0] == '-' && s[1] == '>')
			err = walk_member(w, true);
		else if (s[0] == '.')
			err = walk_member(w, false);
		else if (s[0] == '[')
			err = walk_index(w);
		else
			return walk_err(w, "'%s' of '%s' was not recorded: '%s' was, but '%s' is not a member of it",
					w->text, w->tname, w->prefix, s);
		if (!err && w->off > w->limit)
			break;
	}
	if (err)
		return err;
	size = w->bit_size ? (w->bit_off + w->bit_size + 7) / 8 : btf__resolve_size(w->btf, w->type_id);
	if (size <= 0 || w->off + size > w->limit || w->bit_off + w->bit_size > 64)
		return walk_err(w, "'%s' of '%s' lies beyond the %u bytes recorded of '%s'",
				w->text, w->tname, w->limit, w->prefix);
	loc->member = true;
	loc->type_id = w->type_id;
	loc->off = w->off;
	loc->size = size;
	loc->bit_off = w->bit_off;
	loc->bit_size = w->bit_size;
	return 0;
}

int rec_query__locate(const struct capture_plan *p, const struct btf *btf, const char *text,
		      const char *tname, const char *opt, struct rec_loc *loc, struct ks_error *e)
{
	const struct value_desc *vd;
	struct member_walk w = { .btf = btf, .text = text, .tname = tname, .opt = opt, .e = e };

	memset(loc, 0, sizeof(*loc));
	if (rec_query__value(p, text, &loc->kind, &loc->idx)) {
		rec_query__value_loc(p, loc->kind, loc->idx, loc);
		return 0;
	}
	if (!recorded_prefix(p, text, &loc->kind, &loc->idx, &w.at))
		return -ENOENT;
	vd = &p->values[loc->kind][loc->idx];
	w.prefix = vd->text;
	if ((vd->how != PRINT_VALUE && vd->how != PRINT_DEREF) || vd->fmt || vd->bit_size)
		return walk_err(&w, "'%s' of '%s' was not recorded: '%s' was, but not as a struct whose members it holds",
				text, tname, vd->text);
	w.deref = vd->how == PRINT_DEREF;
	w.obj_id = vd->obj_id;
	w.type_id = vd->type_id;
	w.limit = vd->size;
	return walk_rest(&w, loc);
}

/*
 * An enumerator NAME of the enum TYPE_ID is (through typedefs), as the
 * enum's values read (btfu_enumerator: a 4-byte enum without the signed
 * flag is unsigned); false: none.
 */
static bool enumerator(const struct btf *btf, __u32 type_id, const char *name, __u64 *v)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, type_id));
	int i;

	if (!t || !btf_is_any_enum(t))
		return false;
	for (i = 0; i < btf_vlen(t); i++) {
		const char *en;
		__s64 ev = btfu_enumerator(btf, t, i, &en);

		if (!strcmp(en, name)) {
			*v = (__u64)ev;
			return true;
		}
	}
	return false;
}

/* The constant of IT as an integer for VD's type; -EINVAL with E. */
static int int_const(const struct spec_item *it, __u32 type_id, const struct btf *btf, const char *tname, __u64 *imm, struct ks_error *e)
{
	const struct spec_const *c = &it->cst;

	if (c->kind == CONST_INT) {
		*imm = c->neg ? -c->mag : c->mag;
		return 0;
	}
	if (c->kind == CONST_NAME && !strcmp(c->str, "NULL")) {
		*imm = 0;
		return 0;
	}
	if (c->kind == CONST_NAME && enumerator(btf, type_id, c->str, imm))
		return 0;
	return ks_fail(e, -EINVAL, "report: '%s' of '%s' compares with %s%s%s, which is not a number or an enumerator of its type",
		       it->text, tname, c->kind == CONST_STR ? "\"" : "'", c->str,
		       c->kind == CONST_STR ? "\"" : "'");
}

void rec_query__value_loc(const struct capture_plan *p, int kind, int idx, struct rec_loc *loc)
{
	const struct value_desc *vd = &p->values[kind][idx];

	*loc = (struct rec_loc){ .kind = kind, .idx = idx, .type_id = vd->type_id,
				 .size = vd->size, .bit_off = vd->bit_off,
				 .bit_size = vd->bit_size };
}

/* A member: a char array is a string, a scalar of at most 8 bytes a number. */
enum rec_loc_form rec_query__loc_form(const struct capture_plan *p, const struct btf *btf,
				      const struct rec_loc *loc)
{
	const struct value_desc *vd = &p->values[loc->kind][loc->idx];

	if (loc->member)
		return btfu_is_char_array(btf, loc->type_id) ? REC_LOC_STR :
		       loc->size <= 8 && btfu_is_scalar(btf, loc->type_id) ? REC_LOC_INT :
		       REC_LOC_OTHER;
	if (vd->how == PRINT_STRING ||
	    (vd->how == PRINT_VALUE && btfu_is_char_array(btf, vd->type_id)))
		return REC_LOC_STR;
	if (vd->how != PRINT_VALUE || vd->fmt == FMT_TUPLE || vd->size > 8 ||
	    !btfu_is_scalar(btf, vd->type_id))
		return REC_LOC_OTHER;
	return REC_LOC_INT;
}

/* Predicate IT bound to target T's recorded value, into PR; -EINVAL with E. */
static int bind_pred(const struct spec_item *it, const struct recfile_target *t,
		     const struct btf *btf, struct rq_pred *pr, struct ks_error *e)
{
	const struct capture_plan *p = &t->plan;
	const char *name = recfile_target__name(t);
	const struct value_desc *vd;
	enum rec_loc_form form;
	int err;

	err = rec_query__locate(p, btf, it->text, name, NULL, &pr->loc, e);
	if (err == -ENOENT)
		return ks_fail(e, -EINVAL, "report: '%s' of '%s' was not recorded; the predicates of a report compare recorded values only",
			       it->text, name);
	if (err)
		return err;
	vd = &p->values[pr->loc.kind][pr->loc.idx];
	pr->op = it->op;
	pr->mask = it->has_mask ? it->mask : 0;
	pr->shift = pr->loc.member ? it->shift : vd->shift;
	form = rec_query__loc_form(p, btf, &pr->loc);
	if (form == REC_LOC_STR && it->cst.kind == CONST_STR) {
		pr->is_str = true;
		pr->str = it->cst.str;
		if (pr->op != KSNOOP_OP_EQ && pr->op != KSNOOP_OP_NE)
			return ks_fail(e, -EINVAL, "report: '%s' of '%s' is a string: == or != only",
				       it->text, name);
		return 0;
	}
	if (form != REC_LOC_INT)
		return ks_fail(e, -EINVAL, "report: '%s' of '%s' is not a number or a string a predicate can compare",
			       it->text, name);
	pr->is_signed = btfu_is_signed(btf, pr->loc.type_id);
	return int_const(it, pr->loc.type_id, btf, name, &pr->imm, e);
}

/* Spec S (its targets by PATTERN) into Q: 1 if it named a target. */
static int bind_spec(struct rec_query *q, const struct spec *s, const char *pattern,
		     struct ks_error *e)
{
	const struct btf *btf = recfile__btf(q->r);
	int i, j, named = 0, ret;

	for (i = 0; i < q->ntargets; i++) {
		const struct recfile_target *t = recfile__target(q->r, i);
		struct rq_target *qt = &q->t[i];

		if (qt->named || !names_target(s, pattern, t))
			continue;
		named = 1;
		qt->named = true;
		qt->side = -1;
		qt->has_list = s->has_list;
		qt->preds = calloc(s->nitems ?: 1, sizeof(*qt->preds));
		if (!qt->preds)
			return ks_fail(e, -ENOMEM, "out of memory");
		for (j = 0; j < s->nitems; j++) {
			struct rq_pred *pr = &qt->preds[qt->npreds];

			if (!s->items[j].has_pred) {
				if (!qt->nvalues++)
					qt->value = s->items[j].text;
				continue;
			}
			ret = bind_pred(&s->items[j], t, btf, pr, e);
			if (ret)
				return ret;
			if (qt->side >= 0 && qt->side != pr->loc.kind)
				return ks_fail(e, -EINVAL, "report: the predicates of '%s' read '%s' of its entry and '%s' of its return, two events in this recording",
					       recfile_target__name(t),
					       pr->loc.kind == KSNOOP_ENTRY ? s->items[j].text : qt->side_text,
					       pr->loc.kind == KSNOOP_ENTRY ? qt->side_text : s->items[j].text);
			qt->side_text = s->items[j].text;
			qt->side = pr->loc.kind;
			qt->npreds++;
		}
	}
	return named;
}

/* The text before a spec's '(' (its targets), trimmed; NULL: no memory. */
static char *spec_pattern(const struct spec *s)
{
	const char *t = s->text, *end;

	while (*t == ' ' || *t == '\t')
		t++;
	end = t + strcspn(t, "(");
	while (end > t && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return strndup(t, end - t);
}

static int add_spec(struct rec_query *q, const char *text, struct ks_error *e)
{
	enum spec_kind kind = recfile__meta(q->r)->kind == RECFILE_USDT ? SPEC_USDT : SPEC_KFUNC;
	struct spec *s = &q->specs[q->nspecs++];
	char *pattern;
	int ret;

	ret = spec__parse(text, kind, s, e);
	if (ret == -EINVAL) {
		char msg[KS_ERROR_MSG_MAX];

		snprintf(msg, sizeof(msg), "%s", e->msg);
		return ks_fail(e, ret, "report: spec '%.100s%s': column %d: %s", text,
			       strlen(text) > 100 ? "..." : "", e->pos, msg);
	}
	if (ret)
		return ks_fail(e, ret, "out of memory");
	if (s->ndecls)
		return ks_fail(e, -EINVAL, "report: spec '%s': TYPE NAME was bound when recording; name the value as recorded",
			       text);
	pattern = spec_pattern(s);
	if (!pattern)
		return ks_fail(e, -ENOMEM, "out of memory");
	ret = bind_spec(q, s, pattern, e);
	free(pattern);
	if (q->matched && ret >= 0) {	/* one of several recordings: another may have it */
		q->matched[q->nspecs - 1] = ret > 0;
		return 0;
	}
	if (!ret)
		return ks_fail(e, -EINVAL, "report: spec '%s' names no target of the recording (ksnoop report --info lists them)",
			       text);
	return ret < 0 ? ret : 0;
}

static struct rec_query *query_new(const struct recfile *r, char *const *specs, int n,
				   bool *matched, struct ks_error *e)
{
	struct rec_query *q = calloc(1, sizeof(*q));
	int i;

	if (!q) {
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	q->r = r;
	q->matched = matched;
	q->ntargets = recfile__ntargets(r);
	q->t = calloc(q->ntargets ?: 1, sizeof(*q->t));
	q->specs = calloc(n ?: 1, sizeof(*q->specs));
	if (!q->t || !q->specs) {
		ks_fail(e, -ENOMEM, "out of memory");
		rec_query__free(q);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (add_spec(q, specs[i], e)) {
			rec_query__free(q);
			return NULL;
		}
	}
	return q;
}

struct rec_query *rec_query__new(const struct recfile *r, char *const *specs, int n,
				 struct ks_error *e)
{
	return query_new(r, specs, n, NULL, e);
}

struct rec_query *rec_query__new_some(const struct recfile *r, char *const *specs, int n,
				      bool *matched, struct ks_error *e)
{
	return query_new(r, specs, n, matched, e);
}

void rec_query__free(struct rec_query *q)
{
	int i;

	if (!q)
		return;
	for (i = 0; i < q->nspecs; i++)
		spec__free(&q->specs[i]);
	for (i = 0; i < q->ntargets && q->t; i++)
		free(q->t[i].preds);
	free(q->specs);
	free(q->t);
	free(q);
}

/* LOC's recorded value in REC, or NULL when REC is of the other kind. */
static const struct ksnoop_value *value_at(const struct capture_plan *plan,
					   const struct rec_loc *loc, const void *rec)
{
	if (((const struct ksnoop_event *)rec)->kind != loc->kind)
		return NULL;
	return (const void *)((const char *)rec + plan->bpf.side[loc->kind].values[loc->idx].rec_off);
}

/*
 * The bytes of LOC's value in REC, when they hold all of LOC: its own
 * bytes read whole (KSNOOP_OK), a member's wherever the record has them
 * (a struct cut at the size limit still holds its first members).
 */
static const char *loc_bytes(const struct capture_plan *plan, const struct rec_loc *loc,
			     const void *rec)
{
	const struct ksnoop_value *vh = value_at(plan, loc, rec);
	__u32 status;

	if (!vh)
		return NULL;
	status = vh->status & KSNOOP_STATUS_MASK;
	if (!(status == KSNOOP_OK || (loc->member && status == KSNOOP_TRUNCATED)) ||
	    vh->len < loc->size || vh->len - loc->size < loc->off)
		return NULL;
	return (const char *)(vh + 1) + loc->off;
}

bool rec_query__loc_int(const struct capture_plan *plan, const struct rec_loc *loc,
			const void *rec, bool is_signed, __u64 *v)
{
	const char *data = loc_bytes(plan, loc, rec);
	__u64 u = 0;

	if (!data || loc->size > 8 || !loc->size)
		return false;
	memcpy(&u, data, loc->size);
	if (loc->bit_size) {
		u = (u >> loc->bit_off) & (loc->bit_size < 64 ? (1ULL << loc->bit_size) - 1 : ~0ULL);
		if (is_signed && loc->bit_size < 64 && (u >> (loc->bit_size - 1)) & 1)
			u |= ~0ULL << loc->bit_size;
	} else if (is_signed && loc->size < 8 && (u >> (8 * loc->size - 1)) & 1) {
		u |= ~0ULL << (8 * loc->size);
	}
	*v = u;
	return true;
}

bool rec_query__loc_str(const struct capture_plan *plan, const struct rec_loc *loc,
			const void *rec, const char **data, size_t *len)
{
	const struct ksnoop_value *vh;

	if (loc->member) {
		*data = loc_bytes(plan, loc, rec);
		if (!*data)
			return false;
		*len = strnlen(*data, loc->size);
		return true;
	}
	vh = value_at(plan, loc, rec);
	if (!vh || (vh->status & KSNOOP_STATUS_MASK) != KSNOOP_OK)
		return false;
	*data = (const char *)(vh + 1);
	*len = strnlen(*data, vh->len);
	return true;
}

static bool compare(enum ksnoop_op op, __u64 a, __u64 b, bool is_signed)
{
	int c = is_signed ? ((__s64)a > (__s64)b) - ((__s64)a < (__s64)b) : (a > b) - (a < b);

	switch (op) {
	case KSNOOP_OP_EQ: return c == 0;
	case KSNOOP_OP_NE: return c != 0;
	case KSNOOP_OP_LT: return c < 0;
	case KSNOOP_OP_LE: return c <= 0;
	case KSNOOP_OP_GT: return c > 0;
	case KSNOOP_OP_GE: return c >= 0;
	}
	return false;
}

/*
 * A recorded string (its bytes up to the first NUL, within len; a
 * member's within its array) against PR's.
 */
static bool str_holds(const struct capture_plan *plan, const struct rq_pred *pr, const void *rec)
{
	const char *data;
	size_t n, want = strlen(pr->str);
	bool eq;

	if (!rec_query__loc_str(plan, &pr->loc, rec, &data, &n))
		return false;
	eq = n == want && !memcmp(data, pr->str, n);
	return pr->op == KSNOOP_OP_EQ ? eq : !eq;
}

static bool pred_holds(const struct capture_plan *plan, const struct rq_pred *pr, const void *rec)
{
	__u64 v;

	if (pr->is_str)
		return str_holds(plan, pr, rec);
	if (!rec_query__loc_int(plan, &pr->loc, rec, pr->is_signed, &v))
		return false;
	if (pr->shift)
		v = pr->is_signed ? (__u64)((__s64)v >> pr->shift) : v >> pr->shift;
	if (pr->mask)
		return compare(pr->op, v & pr->mask, pr->imm, false);
	return compare(pr->op, v, pr->imm, pr->is_signed);
}

bool rec_query__names(const struct rec_query *q, __u32 func_id)
{
	return func_id < (__u32)q->ntargets && q->t[func_id].named;
}

int rec_query__values(const struct rec_query *q, __u32 func_id, const char **first)
{
	const struct rq_target *qt;

	if (!q || func_id >= (__u32)q->ntargets || !q->t[func_id].named || !q->t[func_id].has_list)
		return -1;
	qt = &q->t[func_id];
	*first = qt->value;
	return qt->nvalues;
}

int rec_query__side(const struct rec_query *q, __u32 func_id)
{
	return q && func_id < (__u32)q->ntargets && q->t[func_id].named ? q->t[func_id].side : -1;
}

bool rec_query__keep(const struct rec_query *q, const void *rec)
{
	const struct ksnoop_event *ev = rec;
	const struct rq_target *qt;
	const struct capture_plan *plan;
	int i;

	if (!q)
		return true;
	if (ev->func_id >= (__u32)q->ntargets || !q->t[ev->func_id].named)
		return false;
	qt = &q->t[ev->func_id];
	plan = &recfile__target(q->r, ev->func_id)->plan;
	for (i = 0; i < qt->npreds; i++)
		if (!pred_holds(plan, &qt->preds[i], rec))
			return false;
	return true;
}
