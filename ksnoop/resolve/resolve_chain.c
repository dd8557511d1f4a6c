// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * From names to offsets.
 *
 * A value such as `skb->sk->__sk_common.skc_family` is walked through BTF
 * the way a C compiler would: `->` loads a pointer and adds the member's
 * offset, `.` and `[n]` on an array only add.  The result is a list of
 * offsets where every step but the first begins with a pointer load (see
 * struct ksnoop_access); the BPF side follows it without knowing any type.
 *
 * Layout questions look through typedefs and qualifiers; the declared type
 * is kept for printing, so a `u32` still prints as one.  What the walked
 * chain becomes is resolve_value.c's (a value) or resolve_pred.c's (a
 * predicate).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "resolve_int.h"

/*
 * Start a new dereference level: load the pointer we are at (c->type_id),
 * add 0.  Where the BTF tags user pointers, note whether this one is.
 */
int chain__push_deref(struct rctx *r, struct chain *c, int pos)
{
	if (c->acc.nsteps >= KSNOOP_MAX_DEREFS)
		return rctx__fail(r, pos, "more than %d pointer dereferences in one value",
				  KSNOOP_MAX_DEREFS);
	if (r->sig->user_tags) {
		c->acc.flags |= KSNOOP_VAL_TAGGED;
		if (btfu_is_user_ptr(r->btf, c->type_id))
			c->acc.user_mask |= 1u << c->acc.nsteps;
	}
	c->acc.steps[c->acc.nsteps++] = 0;
	c->in_reg = false;
	return 0;
}

/*
 * Find member NAME in composite type ID, looking inside anonymous structs
 * and unions, at most BTFU_MAX_DEPTH of them deep and BTFU_MAX_VISITS in
 * all: an anonymous struct may contain itself in BTF from a file.  Returns
 * 0 and sets the member's type and bit offset.
 */
static int find_member_in(const struct btf *btf, __u32 id, const char *name, int depth,
			  int *visits, __u32 *type_id, __u32 *bit_off, __u32 *bit_size)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));
	const struct btf_member *m;
	int i, vlen;

	if (!t || !btf_is_composite(t) || depth > BTFU_MAX_DEPTH || ++*visits > BTFU_MAX_VISITS)
		return -ENOENT;
	m = btf_members(t);
	vlen = btf_vlen(t);
	for (i = 0; i < vlen; i++, m++) {
		const char *mname = btfu_name(btf, m->name_off);
		__u32 off = btf_member_bit_offset(t, i);

		if (*mname) {
			if (strcmp(mname, name) == 0) {
				*type_id = m->type;
				*bit_off = off;
				*bit_size = btf_member_bitfield_size(t, i);
				return 0;
			}
			continue;
		}
		/* Anonymous struct or union: its members are ours. */
		if (find_member_in(btf, m->type, name, depth + 1, visits,
				   type_id, bit_off, bit_size) == 0) {
			*bit_off += off;
			return 0;
		}
	}
	return -ENOENT;
}

int chain__find_member(const struct btf *btf, __u32 id, const char *name,
		       __u32 *type_id, __u32 *bit_off, __u32 *bit_size)
{
	int visits = 0;

	return find_member_in(btf, id, name, 0, &visits, type_id, bit_off, bit_size);
}

int resolver__member(const struct btf *btf, __u32 id, const char *name, __u32 *type_id,
		     __u32 *bit_off, __u32 *bit_size)
{
	return chain__find_member(btf, id, name, type_id, bit_off, bit_size);
}

int resolver__member_offset(const struct btf *btf, __u32 id, const char *name, __u32 *bit_off)
{
	__u32 type_id, bit_size;

	return chain__find_member(btf, id, name, &type_id, bit_off, &bit_size);
}

/*
 * Member aliases.  The kernel's headers name many members through macros
 * (`#define sk_prot __sk_common.skc_prot`, `#define inet_daddr
 * sk.__sk_common.skc_daddr`) or through structs embedded by value (a
 * tcp_sock holds an inet_connection_sock holds an inet_sock holds a sock).
 * A name not found directly is looked for through embedded structs, as
 * itself and, for the sock_common convention (sk_X, inet_X, tw_X ... all
 * become skc_X), as skc_X.  Exactly one candidate resolves; several are
 * listed in the error.
 */
#define ALIAS_MAX_DEPTH	4	/* embedded structs followed, like real chains */
#define ALIAS_MAX_HITS	8

struct member_hit {
	__u32 type_id, bit_off, bit_size;
	char path[128];		/* "__sk_common.skc_prot" */
};

struct alias_search {
	const struct btf *btf;
	const char *name;
	struct member_hit hits[ALIAS_MAX_HITS];
	int nhits;
	int visits;
};

/*
 * DEPTH counts named embedded structs (ALIAS_MAX_DEPTH), NEST every level
 * including anonymous ones (BTFU_MAX_DEPTH: BTF may nest without end).
 */
static void find_embedded(struct alias_search *as, __u32 id, int depth, int nest,
			  const char *prefix, __u32 base_off)
{
	const struct btf_type *t = btf__type_by_id(as->btf, btfu_strip(as->btf, id));
	const struct btf_member *m;
	int i, vlen;

	if (!t || !btf_is_composite(t) || depth > ALIAS_MAX_DEPTH || nest > BTFU_MAX_DEPTH ||
	    ++as->visits > BTFU_MAX_VISITS)
		return;
	m = btf_members(t);
	vlen = btf_vlen(t);
	for (i = 0; i < vlen && as->nhits < ALIAS_MAX_HITS; i++, m++) {
		const char *mname = btfu_name(as->btf, m->name_off);
		const struct btf_type *mt = btf__type_by_id(as->btf, btfu_strip(as->btf, m->type));
		__u32 off = base_off + btf_member_bit_offset(t, i);
		char path[128];

		snprintf(path, sizeof(path), "%s%s%s", prefix, *mname && *prefix ? "." : "", mname);
		/* Only through an embedded struct: a direct member was found before. */
		if (*mname && depth > 0 && strcmp(mname, as->name) == 0) {
			struct member_hit *h = &as->hits[as->nhits++];

			h->type_id = m->type;
			h->bit_off = off;
			h->bit_size = btf_member_bitfield_size(t, i);
			snprintf(h->path, sizeof(h->path), "%s", path);
			continue;
		}
		if (mt && btf_is_composite(mt))
			find_embedded(as, m->type, *mname ? depth + 1 : depth, nest + 1, path, off);
	}
}

/* Say once (a predicate and a value walk the same chain) what a name became. */
static void note_alias(struct capture_plan *plan, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note_alias(struct capture_plan *plan, const char *fmt, ...)
{
	char buf[sizeof(plan->aliases[0])];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (i = 0; i < plan->naliases; i++)
		if (strcmp(plan->aliases[i], buf) == 0)
			return;
	if (plan->naliases < PLAN_MAX_ALIASES)
		memcpy(plan->aliases[plan->naliases++], buf, sizeof(buf));
}

static int find_alias(struct rctx *r, struct chain *c, const struct spec_step *st,
		      __u32 *mtype, __u32 *bit_off, __u32 *bit_size)
{
	struct alias_search as = { .btf = r->btf, .name = st->member };
	const char *us = strchr(st->member, '_');
	char skc[SPEC_MAX_NAME + 8], list[200] = "";
	size_t n = 0;
	int i;

	find_embedded(&as, c->type_id, 0, 0, "", 0);
	if (!as.nhits && us && us != st->member && us[1]) {
		snprintf(skc, sizeof(skc), "skc_%s", us + 1);
		as.name = skc;
		as.visits = 0;
		find_embedded(&as, c->type_id, 0, 0, "", 0);
	}
	if (!as.nhits)
		return -ENOENT;
	if (as.nhits > 1) {
		for (i = 0; i < as.nhits && n < sizeof(list); i++)
			n += snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", as.hits[i].path);
		return rctx__fail(r, st->pos, "'%s' is ambiguous in %s: %s", st->member,
				  rctx__type_str(r, btfu_strip(r->btf, c->type_id)), list);
	}
	*mtype = as.hits[0].type_id;
	*bit_off = as.hits[0].bit_off;
	*bit_size = as.hits[0].bit_size;
	note_alias(r->plan, "'%s' is %s in %s", st->member, as.hits[0].path,
		   rctx__type_str(r, btfu_strip(r->btf, c->type_id)));
	return 0;
}

static int step_member(struct rctx *r, struct chain *c, const struct spec_step *st)
{
	const struct btf *btf = r->btf;
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, c->type_id));
	__u32 mtype, bit_off, bit_size;
	const char *op = st->kind == STEP_ARROW ? "->" : ".";
	int err;

	if (c->bit_size)
		return rctx__fail(r, st->pos, "'%s%s' applied to a bitfield", op, st->member);
	if (st->kind == STEP_ARROW) {
		const struct btf_type *pt = NULL;

		if (t && btf_is_ptr(t))
			pt = btf__type_by_id(btf, btfu_strip(btf, t->type));
		if (!pt || !btf_is_composite(pt)) {
			if (t && btf_is_composite(t))
				return rctx__fail(r, st->op_pos, "'->' on a %s, which is not a pointer; use '.'",
						  rctx__type_str(r, c->type_id));
			return rctx__fail(r, st->op_pos, "'->' on a value of type %s, which is not a pointer to a struct or union",
					  rctx__type_str(r, c->type_id));
		}
		err = chain__push_deref(r, c, st->pos);
		if (err)
			return err;
		c->type_id = t->type;
	} else {
		if (t && btf_is_ptr(t))
			return rctx__fail(r, st->op_pos, "'.' on a pointer (%s); use '->'",
					  rctx__type_str(r, c->type_id));
		if (!t || !btf_is_composite(t))
			return rctx__fail(r, st->op_pos, "'.' on a value of type %s, which is not a struct or union",
					  rctx__type_str(r, c->type_id));
		if (c->in_reg)
			return rctx__fail(r, st->op_pos, "'.' on a struct passed by value is not supported");
	}
	if (chain__find_member(btf, c->type_id, st->member, &mtype, &bit_off, &bit_size)) {
		err = find_alias(r, c, st, &mtype, &bit_off, &bit_size);
		if (err == -ENOENT)
			return rctx__fail(r, st->pos, "no member '%s' in %s", st->member,
					  rctx__type_str(r, btfu_strip(btf, c->type_id)));
		if (err)
			return err;
	}
	c->acc.steps[c->acc.nsteps - 1] += bit_off / 8;
	c->bit_off = bit_size ? bit_off % 8 : 0;
	c->bit_size = bit_size;
	c->type_id = mtype;
	return 0;
}

static int step_index(struct rctx *r, struct chain *c, __s64 index, int pos, bool star)
{
	const struct btf *btf = r->btf;
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, c->type_id));
	__s64 esize;
	int err;

	if (c->bit_size)
		return rctx__fail(r, pos, "%s applied to a bitfield", star ? "'*'" : "index");
	if (t && btf_is_array(t) && !star) {
		const struct btf_array *a = btf_array(t);

		if (c->in_reg)
			return rctx__fail(r, pos, "index on an array passed by value");
		if (a->nelems && index >= a->nelems)
			return rctx__fail(r, pos, "index %lld is out of bounds for %s",
					  (long long)index, rctx__type_str(r, c->type_id));
		esize = btf__resolve_size(btf, a->type);
		if (esize < 0)
			return rctx__fail(r, pos, "array element has no size");
		c->acc.steps[c->acc.nsteps - 1] += index * esize;
		c->type_id = a->type;
		return 0;
	}
	if (!t || !btf_is_ptr(t))
		return rctx__fail(r, pos, "%s on a value of type %s, which is %s",
				  star ? "'*'" : "index", rctx__type_str(r, c->type_id),
				  star ? "not a pointer" : "neither an array nor a pointer");
	esize = btf__resolve_size(btf, t->type);
	if (esize <= 0)
		return rctx__fail(r, pos, "%s through %s: the pointed-to type has no size",
				  star ? "'*'" : "index", rctx__type_str(r, c->type_id));
	err = chain__push_deref(r, c, pos);
	if (err)
		return err;
	c->acc.steps[c->acc.nsteps - 1] += index * esize;
	c->type_id = t->type;
	return 0;
}

/*
 * A variable of a user function's file (@NAME, @tls:NAME): its address is
 * a base word the probe computes (the load bias, the TLS block) plus its
 * link-time address or TLS offset, one read as through a pointer to it.
 */
static int chain_start_var(struct rctx *r, const struct spec_item *it, struct chain *c)
{
	const struct signature *sig = r->sig;
	int i, err;

	for (i = 0; i < sig->nvars; i++) {
		const struct sig_var *v = &sig->vars[i];

		if (strcmp(v->name, it->base))
			continue;
		c->acc.src = v->tls ? KSNOOP_SRC_UTLS : KSNOOP_SRC_UGLOBAL;
		c->type_id = v->type_id;
		err = chain__push_deref(r, c, it->base_pos);
		if (err)
			return err;
		c->acc.steps[c->acc.nsteps - 1] = (__s64)v->addr;
		return 0;
	}
	return rctx__fail(r, it->base_pos, "'%s': variables (@NAME, @tls:NAME) are read at a user function's entry from its file's debug info; %s has none of that name",
			  it->base, sig->name);
}

/* The argument or return value an item starts from. */
static int chain_start(struct rctx *r, const struct spec_item *it, struct chain *c)
{
	const struct signature *sig = r->sig;
	int i;

	memset(c, 0, sizeof(*c));
	c->in_reg = true;
	if (spec_item__is_return(it)) {
		if (!sig->has_return)
			return rctx__fail(r, it->base_pos, "'return': %s has no return value", sig->name);
		if (!sig->ret_type)
			return rctx__fail(r, it->base_pos, "'return': %s returns void", sig->name);
		c->acc.src = KSNOOP_SRC_RET;
		c->type_id = sig->ret_type;
		return 0;
	}
	if (it->base[0] == '@')
		return chain_start_var(r, it, c);
	for (i = 0; i < sig->nparams; i++) {
		if (strcmp(sig->params[i].name, it->base) == 0) {
			if (sig->params[i].slot >= KSNOOP_MAX_ARGS)
				return rctx__fail(r, it->base_pos, "argument '%s' is beyond the %d words that can be captured",
						  it->base, KSNOOP_MAX_ARGS);
			c->acc.src = KSNOOP_SRC_ARG;
			c->acc.slot = sig->params[i].slot;
			c->type_id = sig->params[i].type_id;
			return 0;
		}
	}
	{
		char list[200] = "";
		size_t n = 0;

		for (i = 0; i < sig->nparams && n < sizeof(list); i++)
			n += snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
				      sig->params[i].name);
		return rctx__fail(r, it->base_pos, "'%s' is not an argument of %s (%s%s)",
				  it->base, sig->name, sig->nparams ? "arguments: " : "no arguments",
				  list);
	}
}

/*
 * A BTF of the plan's own, where casts add the pointer types BTF lacks:
 * split over the signature's BTF when that is a base (vmlinux, a binary
 * without .BTF); over its base, with a copy of its types under the same
 * ids, when it is split itself (a module, a binary's .BTF plus ours).
 * libbpf gets a split BTF over a split BTF wrong for names (its string
 * offsets start at the middle BTF's own length), so one level it is.
 */
static struct btf *plan_btf(struct rctx *r)
{
	const struct btf *base = btf__base_btf(r->btf);
	__u32 id, n = btf__type_cnt(r->btf);
	struct btf *ext;

	if (r->plan->ext_btf)
		return r->plan->ext_btf;
	if (base && btf__base_btf(base))
		return NULL;
	ext = btf__new_empty_split((struct btf *)(base ? base : r->btf));
	if (!ext)
		return NULL;
	for (id = base ? btf__type_cnt(base) : n; id < n; id++) {
		if (btf__add_type(ext, r->btf, btf__type_by_id(r->btf, id)) != (int)id) {
			btf__free(ext);
			return NULL;
		}
	}
	r->plan->ext_btf = ext;
	r->plan->sig.btf = ext;
	r->btf = ext;
	return ext;
}

/* A pointer type to ID: BTF has one for almost every type. */
static int pointer_to(struct rctx *r, __u32 id, __u32 *out, int pos)
{
	struct btf *ext;
	int ret = btfu_find_ptr(r->btf, id);

	if (ret > 0) {
		*out = ret;
		return 0;
	}
	ext = plan_btf(r);
	ret = ext ? btf__add_ptr(ext, id) : -ENOMEM;
	if (ret < 0)
		return rctx__fail(r, pos, "cannot make a pointer type to %s", rctx__type_str(r, id));
	*out = ret;
	return 0;
}

/*
 * A C base type the BTF lacks (a program without .BTF has none at all):
 * made in the plan's BTF, so that `(char **)arg1` needs no --btf.
 * -ENOENT if TYPE names none.
 */
static int add_base_type(struct rctx *r, const struct spec_step *st, __u32 *id, int *nptrs)
{
	struct btf *ext = plan_btf(r);
	int ret;

	if (!ext)
		return -ENOENT;
	ret = btfu_add_base_type(ext, st->type);
	if (ret == -ENOENT || ret == -EINVAL)
		return ret;
	if (ret < 0)
		return rctx__fail(r, st->pos, "cannot make type '%s' in BTF", st->type);
	return btfu_find_type(r->btf, st->type, id, nptrs);
}

/*
 * (TYPE)VALUE: the same bytes seen as another type.  Integers, enums and
 * pointers cast to one another; a value in memory is read at its own
 * width or narrower (x86-64 is little-endian, so narrowing keeps the low
 * bytes, as C's conversion does), never wider.
 */
static int step_cast(struct rctx *r, struct chain *c, const struct spec_step *st)
{
	const struct btf_type *to;
	__s64 to_size, from_size;
	__u32 id;
	int nptrs, err;

	if (c->bit_size)
		return rctx__fail(r, st->op_pos, "a bitfield cannot be cast");
	err = btfu_find_type(r->btf, st->type, &id, &nptrs);
	if (err == -ENOENT)
		err = add_base_type(r, st, &id, &nptrs);
	if (err == -EINVAL)
		return rctx__fail(r, st->pos, "'%s' is not a type name", st->type);
	if (err)
		return rctx__fail(r, st->pos, "no type '%s' in %s", st->type,
				  r->opts->types_where ? r->opts->types_where : "the BTF");
	/* USDT's argN:TYPE: an argument is a word, "struct req" points to one. */
	if (st->usdt_word && !nptrs)
		nptrs = 1;
	while (nptrs--) {
		err = pointer_to(r, id, &id, st->pos);
		if (err)
			return err;
	}
	to = btf__type_by_id(r->btf, btfu_strip(r->btf, id));
	if (!id || !to || !btfu_is_scalar(r->btf, id))
		return rctx__fail(r, st->pos, "cast to %s: only integers, enums and pointers are cast to; for a struct, cast a pointer ((%s *)p)->member",
				  rctx__type_str(r, id), rctx__type_str(r, id));
	if (!btfu_is_scalar(r->btf, c->type_id))
		return rctx__fail(r, st->op_pos, "cast of a value of type %s: only integers, enums and pointers are cast",
				  rctx__type_str(r, c->type_id));
	to_size = btf__resolve_size(r->btf, id);
	from_size = btf__resolve_size(r->btf, c->type_id);
	if (!c->in_reg && to_size > from_size)
		return rctx__fail(r, st->pos, "cast to %s reads %lld bytes of a %lld-byte value",
				  rctx__type_str(r, id), (long long)to_size, (long long)from_size);
	c->type_id = id;
	return 0;
}

int chain__walk(struct rctx *r, const struct spec_item *it, struct chain *c)
{
	int i, err;

	err = chain_start(r, it, c);
	if (err)
		return err;
	for (i = 0; i < it->nsteps && !err; i++) {
		const struct spec_step *st = &it->steps[i];

		switch (st->kind) {
		case STEP_INDEX:
			err = step_index(r, c, st->index, st->pos, false);
			break;
		case STEP_DEREF:
			err = step_index(r, c, 0, st->pos, true);
			break;
		case STEP_CAST:
			err = step_cast(r, c, st);
			break;
		case STEP_ARROW:
		case STEP_DOT:
			err = step_member(r, c, st);
			break;
		}
	}
	return err;
}
