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
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "rec_query.h"
#include "spec.h"

/* One predicate, bound to a recorded value of one target. */
struct rq_pred {
	int kind, idx;		/* the value: plan.values[kind][idx] */
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

static const char *target_name(const struct recfile_target *t)
{
	return t->label[0] ? t->label : t->plan.sig.name;
}

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
	const char *name = target_name(t), *at;
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
static int int_const(const struct spec_item *it, const struct value_desc *vd,
		     const struct btf *btf, const char *tname, __u64 *imm, struct ks_error *e)
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
	if (c->kind == CONST_NAME && enumerator(btf, vd->type_id, c->str, imm))
		return 0;
	return ks_fail(e, -EINVAL, "report: '%s' of '%s' compares with %s%s%s, which is not a number or an enumerator of its type",
		       it->text, tname, c->kind == CONST_STR ? "\"" : "'", c->str,
		       c->kind == CONST_STR ? "\"" : "'");
}

/* Predicate IT bound to target T's recorded value, into PR; -EINVAL with E. */
static int bind_pred(const struct spec_item *it, const struct recfile_target *t,
		     const struct btf *btf, struct rq_pred *pr, struct ks_error *e)
{
	const struct capture_plan *p = &t->plan;
	const struct value_desc *vd;

	if (!rec_query__value(p, it->text, &pr->kind, &pr->idx))
		return ks_fail(e, -EINVAL, "report: '%s' of '%s' was not recorded; the predicates of a report compare recorded values only",
			       it->text, target_name(t));
	vd = &p->values[pr->kind][pr->idx];
	pr->op = it->op;
	pr->mask = it->has_mask ? it->mask : 0;
	pr->shift = vd->shift;
	if ((vd->how == PRINT_STRING ||
	     (vd->how == PRINT_VALUE && btfu_is_char_array(btf, vd->type_id))) &&
	    it->cst.kind == CONST_STR) {
		pr->is_str = true;
		pr->str = it->cst.str;
		if (pr->op != KSNOOP_OP_EQ && pr->op != KSNOOP_OP_NE)
			return ks_fail(e, -EINVAL, "report: '%s' of '%s' is a string: == or != only",
				       it->text, target_name(t));
		return 0;
	}
	if (vd->how != PRINT_VALUE || vd->fmt == FMT_TUPLE || vd->size > 8 ||
	    !btfu_is_scalar(btf, vd->type_id))
		return ks_fail(e, -EINVAL, "report: '%s' of '%s' is not a number or a string a predicate can compare",
			       it->text, target_name(t));
	pr->is_signed = btfu_is_signed(btf, vd->type_id);
	return int_const(it, vd, btf, target_name(t), &pr->imm, e);
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
			if (qt->side >= 0 && qt->side != pr->kind)
				return ks_fail(e, -EINVAL, "report: the predicates of '%s' read '%s' of its entry and '%s' of its return, two events in this recording",
					       target_name(t),
					       pr->kind == KSNOOP_ENTRY ? s->items[j].text : qt->side_text,
					       pr->kind == KSNOOP_ENTRY ? qt->side_text : s->items[j].text);
			qt->side_text = s->items[j].text;
			qt->side = pr->kind;
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

bool rec_query__int(const struct capture_plan *plan, int kind, int idx, const void *rec,
		    bool is_signed, __u64 *v)
{
	const struct value_desc *vd = &plan->values[kind][idx];
	const struct ksnoop_value *vh;
	__u64 u = 0;

	if (((const struct ksnoop_event *)rec)->kind != kind || vd->size > 8 || !vd->size)
		return false;
	vh = (const void *)((const char *)rec + plan->bpf.side[kind].values[idx].rec_off);
	if ((vh->status & KSNOOP_STATUS_MASK) != KSNOOP_OK || vh->len < vd->size)
		return false;
	memcpy(&u, vh + 1, vd->size);
	if (vd->bit_size) {
		u = (u >> vd->bit_off) & (vd->bit_size < 64 ? (1ULL << vd->bit_size) - 1 : ~0ULL);
		if (is_signed && vd->bit_size < 64 && (u >> (vd->bit_size - 1)) & 1)
			u |= ~0ULL << vd->bit_size;
	} else if (is_signed && vd->size < 8 && (u >> (8 * vd->size - 1)) & 1) {
		u |= ~0ULL << (8 * vd->size);
	}
	*v = u;
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

/* A recorded string (its bytes up to the first NUL, within len) against PR's. */
static bool str_holds(const struct capture_plan *plan, const struct rq_pred *pr, const void *rec)
{
	const struct ksnoop_value *vh;
	const char *data;
	size_t n, want = strlen(pr->str);
	bool eq;

	if (((const struct ksnoop_event *)rec)->kind != pr->kind)
		return false;
	vh = (const void *)((const char *)rec + plan->bpf.side[pr->kind].values[pr->idx].rec_off);
	if ((vh->status & KSNOOP_STATUS_MASK) != KSNOOP_OK)
		return false;
	data = (const char *)(vh + 1);
	n = strnlen(data, vh->len);
	eq = n == want && !memcmp(data, pr->str, n);
	return pr->op == KSNOOP_OP_EQ ? eq : !eq;
}

static bool pred_holds(const struct capture_plan *plan, const struct rq_pred *pr, const void *rec)
{
	__u64 v;

	if (pr->is_str)
		return str_holds(plan, pr, rec);
	if (!rec_query__int(plan, pr->kind, pr->idx, rec, pr->is_signed, &v))
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
