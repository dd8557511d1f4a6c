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
 * is kept for printing, so a `u32` still prints as one.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "resolve.h"

/* ---- value chains ---- */

struct chain {
	__u32 type_id;		/* declared type of the current value */
	bool in_reg;		/* the value is the source word itself */
	struct ksnoop_access acc;
	__u32 bit_off;		/* of a bitfield member, within its first byte */
	__u32 bit_size;
};

struct rctx {
	const struct spec *spec;
	const struct signature *sig;
	const struct resolve_opts *opts;
	struct ks_error *err;
	struct capture_plan *plan;
	/* Where types are: the signature's BTF, or plan->ext_btf over it. */
	const struct btf *btf;
	char tbuf[160];
};

static int rfail(struct rctx *r, int pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int rfail(struct rctx *r, int pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ks_vfail_at(r->err, -EINVAL, pos, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *tstr(struct rctx *r, __u32 id)
{
	return btfu_type_str(r->btf, id, NULL, r->tbuf, sizeof(r->tbuf));
}

/*
 * Start a new dereference level: load the pointer we are at (c->type_id),
 * add 0.  Where the BTF tags user pointers, note whether this one is.
 */
static int push_deref(struct rctx *r, struct chain *c, int pos)
{
	if (c->acc.nsteps >= KSNOOP_MAX_DEREFS)
		return rfail(r, pos, "more than %d pointer dereferences in one value",
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

static int find_member(const struct btf *btf, __u32 id, const char *name,
		       __u32 *type_id, __u32 *bit_off, __u32 *bit_size)
{
	int visits = 0;

	return find_member_in(btf, id, name, 0, &visits, type_id, bit_off, bit_size);
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
		return rfail(r, st->pos, "'%s' is ambiguous in %s: %s", st->member,
			     tstr(r, btfu_strip(r->btf, c->type_id)), list);
	}
	*mtype = as.hits[0].type_id;
	*bit_off = as.hits[0].bit_off;
	*bit_size = as.hits[0].bit_size;
	note_alias(r->plan, "'%s' is %s in %s", st->member, as.hits[0].path,
		   tstr(r, btfu_strip(r->btf, c->type_id)));
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
		return rfail(r, st->pos, "'%s%s' applied to a bitfield", op, st->member);
	if (st->kind == STEP_ARROW) {
		const struct btf_type *pt = NULL;

		if (t && btf_is_ptr(t))
			pt = btf__type_by_id(btf, btfu_strip(btf, t->type));
		if (!pt || !btf_is_composite(pt)) {
			if (t && btf_is_composite(t))
				return rfail(r, st->op_pos, "'->' on a %s, which is not a pointer; use '.'",
					     tstr(r, c->type_id));
			return rfail(r, st->op_pos, "'->' on a value of type %s, which is not a pointer to a struct or union",
				     tstr(r, c->type_id));
		}
		err = push_deref(r, c, st->pos);
		if (err)
			return err;
		c->type_id = t->type;
	} else {
		if (t && btf_is_ptr(t))
			return rfail(r, st->op_pos, "'.' on a pointer (%s); use '->'",
				     tstr(r, c->type_id));
		if (!t || !btf_is_composite(t))
			return rfail(r, st->op_pos, "'.' on a value of type %s, which is not a struct or union",
				     tstr(r, c->type_id));
		if (c->in_reg)
			return rfail(r, st->op_pos, "'.' on a struct passed by value is not supported");
	}
	if (find_member(btf, c->type_id, st->member, &mtype, &bit_off, &bit_size)) {
		err = find_alias(r, c, st, &mtype, &bit_off, &bit_size);
		if (err == -ENOENT)
			return rfail(r, st->pos, "no member '%s' in %s", st->member,
				     tstr(r, btfu_strip(btf, c->type_id)));
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
		return rfail(r, pos, "%s applied to a bitfield", star ? "'*'" : "index");
	if (t && btf_is_array(t) && !star) {
		const struct btf_array *a = btf_array(t);

		if (c->in_reg)
			return rfail(r, pos, "index on an array passed by value");
		if (a->nelems && index >= a->nelems)
			return rfail(r, pos, "index %lld is out of bounds for %s",
				     (long long)index, tstr(r, c->type_id));
		esize = btf__resolve_size(btf, a->type);
		if (esize < 0)
			return rfail(r, pos, "array element has no size");
		c->acc.steps[c->acc.nsteps - 1] += index * esize;
		c->type_id = a->type;
		return 0;
	}
	if (!t || !btf_is_ptr(t))
		return rfail(r, pos, "%s on a value of type %s, which is %s",
			     star ? "'*'" : "index", tstr(r, c->type_id),
			     star ? "not a pointer" : "neither an array nor a pointer");
	esize = btf__resolve_size(btf, t->type);
	if (esize <= 0)
		return rfail(r, pos, "%s through %s: the pointed-to type has no size",
			     star ? "'*'" : "index", tstr(r, c->type_id));
	err = push_deref(r, c, pos);
	if (err)
		return err;
	c->acc.steps[c->acc.nsteps - 1] += index * esize;
	c->type_id = t->type;
	return 0;
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
			return rfail(r, it->base_pos, "'return': %s has no return value", sig->name);
		if (!sig->ret_type)
			return rfail(r, it->base_pos, "'return': %s returns void", sig->name);
		c->acc.src = KSNOOP_SRC_RET;
		c->type_id = sig->ret_type;
		return 0;
	}
	for (i = 0; i < sig->nparams; i++) {
		if (strcmp(sig->params[i].name, it->base) == 0) {
			if (sig->params[i].slot >= KSNOOP_MAX_ARGS)
				return rfail(r, it->base_pos, "argument '%s' is beyond the %d words that can be captured",
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
		return rfail(r, it->base_pos, "'%s' is not an argument of %s (%s%s)",
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
		return rfail(r, pos, "cannot make a pointer type to %s", tstr(r, id));
	*out = ret;
	return 0;
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
		return rfail(r, st->op_pos, "a bitfield cannot be cast");
	err = btfu_find_type(r->btf, st->type, &id, &nptrs);
	if (err == -EINVAL)
		return rfail(r, st->pos, "'%s' is not a type name", st->type);
	if (err)
		return rfail(r, st->pos, "no type '%s' in %s", st->type,
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
		return rfail(r, st->pos, "cast to %s: only integers, enums and pointers are cast to; for a struct, cast a pointer ((%s *)p)->member",
			     tstr(r, id), tstr(r, id));
	if (!btfu_is_scalar(r->btf, c->type_id))
		return rfail(r, st->op_pos, "cast of a value of type %s: only integers, enums and pointers are cast",
			     tstr(r, c->type_id));
	to_size = btf__resolve_size(r->btf, id);
	from_size = btf__resolve_size(r->btf, c->type_id);
	if (!c->in_reg && to_size > from_size)
		return rfail(r, st->pos, "cast to %s reads %lld bytes of a %lld-byte value",
			     tstr(r, id), (long long)to_size, (long long)from_size);
	c->type_id = id;
	return 0;
}

static int chain_walk(struct rctx *r, const struct spec_item *it, struct chain *c)
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

/* Turn a walked chain into what to copy and how to print it. */
/* An array of 1-byte integers (char, u8, __u8 ...): bytes as a string or in hex. */
static bool is_byte_array(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));
	const struct btf_type *et;

	if (!t || !btf_is_array(t))
		return false;
	et = btf__type_by_id(btf, btfu_strip(btf, btf_array(t)->type));
	return et && btf_is_int(et) && et->size == 1;
}

/* Whether IT's ":FORMAT" fits the value the chain reached. */
static int check_format(struct rctx *r, const struct spec_item *it, const struct chain *c)
{
	const struct btf *btf = r->btf;
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, c->type_id));
	bool ptr = t && btf_is_ptr(t), word_int = t && btf_is_int(t) && t->size == 8;
	__s64 size = btf__resolve_size(btf, c->type_id), psize = 0;
	const char *f = spec_format__str(it->fmt);

	if (!it->fmt)
		return 0;
	if (c->bit_size && it->fmt != FMT_HEX)
		return rfail(r, it->fmt_pos, "':%s' on '%s', a bitfield", f, it->text);
	if (ptr)
		psize = btf__resolve_size(btf, t->type);
	switch (it->fmt) {
	case FMT_HEX:
		if (btfu_is_scalar(btf, c->type_id) || is_byte_array(btf, c->type_id))
			return 0;
		break;
	case FMT_BE:
		if (t && (btf_is_any_enum(t) || (btf_is_int(t) && !(btf_int_encoding(t) & BTF_INT_BOOL))) &&
		    (size == 1 || size == 2 || size == 4 || size == 8))
			return 0;
		break;
	case FMT_IP: {
		__s64 addr = size == 4 || size == 16 ? size : ptr && (psize == 4 || psize == 16) ? psize : 0;

		/* The whole address or none: --max-bytes bounds every value. */
		if (addr > r->opts->max_bytes)
			return rfail(r, it->fmt_pos, "':ip' on '%s' reads a %lld-byte address, more than --max-bytes (%u)",
				     it->text, (long long)addr, r->opts->max_bytes);
		if (addr)
			return 0;
		return rfail(r, it->fmt_pos, "':ip' on '%s' (%s): an address is 4 bytes (IPv4) or 16 (IPv6), or a pointer to one",
			     it->text, tstr(r, c->type_id));
	}
	case FMT_SYM:
		if (r->opts->user_space)
			return rfail(r, it->fmt_pos, "':sym' names kernel code; '%s' is a user-space value",
				     it->text);
		if (ptr || word_int)
			return 0;
		break;
	case FMT_STR:
		if (ptr || word_int || is_byte_array(btf, c->type_id))
			return 0;
		break;
	case FMT_NONE:
		return 0;
	}
	return rfail(r, it->fmt_pos, "':%s' does not apply to '%s' (%s); it takes %s", f, it->text,
		     tstr(r, c->type_id),
		     it->fmt == FMT_HEX ? "an integer, enum, pointer or byte array" :
		     it->fmt == FMT_BE ? "an integer or enum of 1, 2, 4 or 8 bytes" :
		     it->fmt == FMT_SYM ? "a pointer or 64-bit integer" :
		     "a pointer, a 64-bit integer or a byte array");
}

/* ":str" and ":ip" through a pointer: the bytes it points to. */
static int finish_format(struct rctx *r, struct chain *c, const struct spec_item *it,
			 int pos, struct value_desc *vd)
{
	const struct btf *btf = r->btf;
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, c->type_id));
	__s64 size;
	int err;

	if (it->fmt == FMT_STR && is_byte_array(btf, c->type_id)) {
		if (c->in_reg)
			return rfail(r, pos, "'%s': array passed by value", it->text);
		size = btf__resolve_size(btf, c->type_id);
		vd->how = PRINT_STRING;
		vd->size = vd->obj_size = size < r->opts->max_bytes ? size : r->opts->max_bytes;
		c->acc.size = vd->size;
		return 0;
	}
	err = push_deref(r, c, pos);
	if (err)
		return err;
	if (it->fmt == FMT_STR) {
		c->acc.flags |= KSNOOP_VAL_STR;
		c->acc.size = r->opts->str_bytes;
		vd->how = PRINT_STRING;
		vd->size = vd->obj_size = c->acc.size;
		return 0;
	}
	vd->how = PRINT_DEREF;
	vd->obj_id = t->type;
	vd->obj_size = vd->size = c->acc.size = btf__resolve_size(btf, t->type);
	return 0;
}

static int chain_finish_value(struct rctx *r, struct chain *c, const struct spec_item *it,
			      const char *text, int pos, struct value_desc *vd)
{
	const struct btf *btf = r->btf;
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, c->type_id));
	__s64 size;
	int err;

	memset(vd, 0, sizeof(*vd));
	vd->text = text;
	vd->type_id = c->type_id;
	vd->obj_id = c->type_id;
	vd->how = PRINT_VALUE;
	vd->fmt = it->fmt;

	err = check_format(r, it, c);
	if (err)
		return err;
	if (it->fmt == FMT_STR || (it->fmt == FMT_IP && t && btf_is_ptr(t)))
		return finish_format(r, c, it, pos, vd);
	/* ":hex" and ":sym" show a pointer itself, not what it points to. */
	if (it->fmt == FMT_HEX || it->fmt == FMT_SYM)
		goto plain;

	if (btfu_is_char_ptr(btf, c->type_id)) {
		err = push_deref(r, c, pos);
		if (err)
			return err;
		c->acc.flags |= KSNOOP_VAL_STR;
		c->acc.size = r->opts->str_bytes;
		vd->how = PRINT_STRING;
		vd->size = vd->obj_size = c->acc.size;
		return 0;
	}
	if (btfu_is_struct_ptr(btf, c->type_id)) {
		__s64 psize = btf__resolve_size(btf, t->type);

		/* A pointer to an incomplete type prints as an address. */
		if (psize > 0) {
			err = push_deref(r, c, pos);
			if (err)
				return err;
			vd->how = PRINT_DEREF;
			vd->obj_id = t->type;
			/* Spelled here, not per event: a btf_dump is costly to set up. */
			btfu_type_str(btf, t->type, NULL, vd->obj_name, sizeof(vd->obj_name));
			vd->obj_size = psize;
			vd->size = psize < r->opts->max_bytes ? psize : r->opts->max_bytes;
			c->acc.size = vd->size;
			return 0;
		}
	}
plain:
	size = btf__resolve_size(btf, c->type_id);
	if (size <= 0)
		return rfail(r, pos, "'%s' has type %s, which has no size", text,
			     tstr(r, c->type_id));
	if (c->in_reg) {
		if (size > 8)
			return rfail(r, pos, "'%s': a struct passed by value cannot be captured yet", text);
		c->acc.flags |= KSNOOP_VAL_REG;
		c->acc.size = 8;
		vd->size = vd->obj_size = size;
		return 0;
	}
	if (c->bit_size) {
		vd->bit_off = c->bit_off;
		vd->bit_size = c->bit_size;
		size = (c->bit_off + c->bit_size + 7) / 8;
	}
	vd->obj_size = size;
	vd->size = size < r->opts->max_bytes ? size : r->opts->max_bytes;
	c->acc.size = vd->size;
	return 0;
}

/* Find enumerator NAME: in the value's own enum first, then in any enum. */
static int find_enumerator(const struct btf *btf, __u32 type_id, const char *name,
			   __s64 *val, bool *found_ambiguous, bool *is_unsigned)
{
	__u32 n = btf__type_cnt(btf), id, start;
	const struct btf_type *own = btf__type_by_id(btf, btfu_strip(btf, type_id));
	bool found = false;
	__s64 v = 0;

	*found_ambiguous = false;
	for (start = 0; start < 2; start++) {
		for (id = 1; id < n; id++) {
			const struct btf_type *t = start == 0 ? own : btf__type_by_id(btf, id);
			int i, vlen;

			if (!t || !btf_is_any_enum(t))
				goto next;
			vlen = btf_vlen(t);
			for (i = 0; i < vlen; i++) {
				const char *en;
				__s64 ev = btfu_enumerator(btf, t, i, &en);

				if (strcmp(en, name))
					continue;
				/* An unsigned 64-bit enum may hold values above INT64_MAX. */
				*is_unsigned = !btf_kflag(t) && btf_is_enum64(t);
				if (found && ev != v)
					*found_ambiguous = true;
				found = true;
				v = ev;
			}
next:
			if (start == 0) {
				if (found) {
					*val = v;
					return 0;
				}
				break;
			}
		}
	}
	if (!found)
		return -ENOENT;
	*val = v;
	return 0;
}

/* A string constant, against a char array or the string a char * points to. */
static int pred_string(struct rctx *r, const struct spec_item *it, struct chain *c,
		       struct ksnoop_pred_plan *pp)
{
	const struct btf *btf = r->btf;
	const struct spec_const *k = &it->cst;
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, c->type_id));
	bool as_str = it->fmt == FMT_STR && t && !btf_is_array(t);
	bool is_ptr = btfu_is_char_ptr(btf, c->type_id) || as_str;
	int err;

	if (!is_ptr && !btfu_is_char_array(btf, c->type_id) &&
	    !(it->fmt == FMT_STR && is_byte_array(btf, c->type_id)))
		return rfail(r, k->pos, "string constant compared with '%s' of type %s; strings compare only with char arrays and char pointers",
			     it->text, tstr(r, c->type_id));
	if (it->op != KSNOOP_OP_EQ && it->op != KSNOOP_OP_NE)
		return rfail(r, it->op_pos, "strings compare only with '==' and '!='");
	if (c->in_reg && !is_ptr)
		return rfail(r, it->base_pos, "'%s': array passed by value", it->text);
	if (is_ptr) {
		err = push_deref(r, c, it->base_pos);
		if (err)
			return err;
		c->acc.flags |= KSNOOP_VAL_STR;
	} else {
		__s64 asz = btf__resolve_size(btf, c->type_id);

		c->acc.size = asz < KSNOOP_MAX_PRED_STR ? asz : KSNOOP_MAX_PRED_STR;
		if (strlen(k->str) + 1 > (size_t)asz && strlen(k->str) >= (size_t)asz)
			return rfail(r, k->pos, "string \"%s\" is longer than %s", k->str,
				     tstr(r, c->type_id));
	}
	/* The parser keeps constants below KSNOOP_MAX_PRED_STR bytes. */
	pp->acc = c->acc;
	pp->is_str = 1;
	memcpy(pp->str, k->str, strlen(k->str) + 1);
	return 0;
}

/*
 * A scalar a predicate (or --hist) reads: its width in bytes (a bitfield's:
 * the bytes that hold it, its bits noted in PP) ...
 */
static int scalar_width(const struct rctx *r, const struct chain *c, struct ksnoop_pred_plan *pp)
{
	if (!c->bit_size)
		return btf__resolve_size(r->btf, c->type_id);
	pp->bit_off = c->bit_off;
	pp->bit_size = c->bit_size;
	return (c->bit_off + c->bit_size + 7) / 8;
}

/* ... and the access to it: the register word itself, or WIDTH bytes. */
static void scalar_access(struct chain *c, struct ksnoop_pred_plan *pp, int width)
{
	if (c->in_reg) {
		c->acc.flags |= KSNOOP_VAL_REG;
		c->acc.size = 8;
	} else {
		c->acc.size = width;
	}
	pp->acc = c->acc;
	pp->width = width;
}

/* ':ip' == "10.0.0.1": the four address bytes, as the value holds them. */
static int pred_ip(struct rctx *r, const struct spec_item *it, struct chain *c,
		   struct ksnoop_pred_plan *pp)
{
	const struct btf_type *t = btf__type_by_id(r->btf, btfu_strip(r->btf, c->type_id));
	__s64 size = btf__resolve_size(r->btf, c->type_id);
	struct in_addr a;
	__u32 v;

	if (it->op != KSNOOP_OP_EQ && it->op != KSNOOP_OP_NE)
		return rfail(r, it->op_pos, "addresses compare with '==' and '!=' only");
	if (size != 4 || (t && btf_is_ptr(t)))
		return rfail(r, it->cst.pos, "'%s' is not a 4-byte IPv4 address: only those compare with an address",
			     it->text);
	if (inet_pton(AF_INET, it->cst.str, &a) != 1)
		return rfail(r, it->cst.pos, "\"%s\" is not an IPv4 address (a.b.c.d)", it->cst.str);
	memcpy(&v, &a, sizeof(v));
	scalar_access(c, pp, 4);
	pp->imm = v;
	return 0;
}

static __u64 bswap_width(__u64 v, int width)
{
	switch (width) {
	case 2: return __builtin_bswap16((__u16)v);
	case 4: return __builtin_bswap32((__u32)v);
	case 8: return __builtin_bswap64(v);
	}
	return v;
}

/* Does SV fit BITS bits of the given signedness? */
static bool fits(__s64 sv, int bits, bool sgn)
{
	__s64 lim;

	if (bits >= 64)
		return true;
	if (!sgn)
		return !((__u64)sv >> bits);
	lim = 1LL << (bits - 1);
	return sv >= -lim && sv < lim;
}

/* NULL or an enumerator, as the value's width and signedness hold it. */
static int pred_name(struct rctx *r, const struct spec_item *it, const struct chain *c,
		     int bits, bool *sgn, __u64 *imm)
{
	const struct btf *btf = r->btf;
	const struct spec_const *k = &it->cst;
	bool ambiguous, uenum = false;
	__s64 sv;

	if (strcmp(k->str, "NULL") == 0) {
		const struct btf_type *vt = btf__type_by_id(btf, btfu_strip(btf, c->type_id));

		if (!vt || !btf_is_ptr(vt))
			return rfail(r, k->pos, "NULL compared with '%s', which is not a pointer (%s)",
				     it->text, tstr(r, c->type_id));
		*imm = 0;
		*sgn = false;
		return 0;
	}
	if (find_enumerator(btf, c->type_id, k->str, &sv, &ambiguous, &uenum))
		return rfail(r, k->pos, "unknown enumerator '%s'", k->str);
	if (ambiguous)
		return rfail(r, k->pos, "enumerator '%s' has different values in different enums",
			     k->str);
	*imm = (__u64)sv;
	/* An unsigned enum64 value above INT64_MAX is not negative. */
	if (uenum && !*sgn) {
		if (!fits(sv, bits, false))
			return rfail(r, k->pos, "enumerator '%s' (%llu) does not fit %s",
				     k->str, (unsigned long long)*imm, tstr(r, c->type_id));
		return 0;
	}
	if (sv < 0 && !*sgn)
		return rfail(r, k->pos, "enumerator '%s' (%lld) is negative; '%s' is unsigned",
			     k->str, (long long)sv, it->text);
	if (!fits(sv, bits, *sgn))
		return rfail(r, k->pos, "enumerator '%s' (%lld) does not fit %s",
			     k->str, (long long)sv, tstr(r, c->type_id));
	return 0;
}

/*
 * What a constant must fit, for messages: the type, and for a bitfield its
 * width too ("__u8, a 3-bit field": the type alone would allow 8).
 */
static const char *fit_str(struct rctx *r, const struct chain *c, char *buf, size_t sz)
{
	if (!c->bit_size)
		return tstr(r, c->type_id);
	snprintf(buf, sz, "%s, a %u-bit field", tstr(r, c->type_id), c->bit_size);
	return buf;
}

/* An integer constant: it must fit the value's width and signedness. */
static int pred_int(struct rctx *r, const struct spec_item *it, const struct chain *c,
		    int bits, bool sgn, __u64 *imm)
{
	const struct spec_const *k = &it->cst;
	char fit[KS_ERROR_MSG_MAX];

	if (sgn) {
		__u64 lim = bits >= 64 ? (1ULL << 63) : (1ULL << (bits - 1));

		if ((k->neg && k->mag > lim) || (!k->neg && k->mag >= lim))
			return rfail(r, k->pos, "constant %s%llu does not fit '%s' (%s)",
				     k->neg ? "-" : "", (unsigned long long)k->mag, it->text,
				     fit_str(r, c, fit, sizeof(fit)));
		*imm = k->neg ? (__u64)(-(__s64)(k->mag - 1) - 1) : k->mag;
		return 0;
	}
	if (k->neg)
		return rfail(r, k->pos, "negative constant -%llu compared with '%s', which is unsigned (%s)",
			     (unsigned long long)k->mag, it->text, tstr(r, c->type_id));
	if (bits < 64 && k->mag >> bits)
		return rfail(r, k->pos, "constant %llu does not fit '%s' (%s)",
			     (unsigned long long)k->mag, it->text, fit_str(r, c, fit, sizeof(fit)));
	*imm = k->mag;
	return 0;
}

/* "VALUE & MASK": an integer or enum, and a mask that fits it. */
static int pred_mask(struct rctx *r, const struct spec_item *it, const struct chain *c,
		     int bits, struct ksnoop_pred_plan *pp)
{
	const struct btf_type *t = btf__type_by_id(r->btf, btfu_strip(r->btf, c->type_id));

	if (!t || btf_is_ptr(t))
		return rfail(r, it->mask_pos, "'&' on '%s' (%s): masks apply to integers and enums",
			     it->text, tstr(r, c->type_id));
	if (bits < 64 && it->mask >> bits)
		return rfail(r, it->mask_pos, "mask 0x%llx does not fit '%s' (%d bits)",
			     (unsigned long long)it->mask, it->text, bits);
	pp->mask = it->mask;
	return 0;
}

static int make_pred(struct rctx *r, const struct spec_item *it, struct ksnoop_pred_plan *pp)
{
	const struct btf *btf = r->btf;
	struct chain c;
	__u64 imm = 0;
	int err, width, bits;
	bool sgn;

	memset(pp, 0, sizeof(*pp));
	err = chain_walk(r, it, &c);
	if (!err)
		err = check_format(r, it, &c);
	if (err)
		return err;
	btf = r->btf;	/* a cast may have added types */
	pp->op = it->op;
	if (it->cst.kind == CONST_STR && it->has_mask)
		return rfail(r, it->mask_pos, "'&' on '%s', compared with a string: masks apply to integers and enums",
			     it->text);
	if (it->cst.kind == CONST_STR && it->fmt == FMT_IP)
		return pred_ip(r, it, &c, pp);
	if (it->cst.kind == CONST_STR)
		return pred_string(r, it, &c, pp);
	if (it->fmt == FMT_BE && it->op != KSNOOP_OP_EQ && it->op != KSNOOP_OP_NE)
		return rfail(r, it->op_pos, "':be' values compare with '==' and '!=' only: their bytes are not in host order");

	if (!btfu_is_scalar(btf, c.type_id))
		return rfail(r, it->op_pos, "'%s' has type %s; predicates compare integers, enums, chars, bools and pointers",
			     it->text, tstr(r, c.type_id));
	/* A bitfield: read the bytes that hold it, compare its bits. */
	width = scalar_width(r, &c, pp);
	bits = c.bit_size ? (int)c.bit_size : 8 * width;
	sgn = btfu_is_signed(btf, c.type_id);
	if (c.bit_size && width > 8)
		return rfail(r, it->op_pos, "'%s': a bitfield across more than 8 bytes cannot be compared",
			     it->text);
	if (it->has_mask) {
		err = pred_mask(r, it, &c, bits, pp);
		if (err)
			return err;
		/* The masked value is a set of bits: compared unsigned. */
		sgn = false;
	}
	err = it->cst.kind == CONST_NAME ? pred_name(r, it, &c, bits, &sgn, &imm) :
					   pred_int(r, it, &c, bits, sgn, &imm);
	if (err)
		return err;
	if (it->has_mask && (imm & ~pp->mask) && it->op == KSNOOP_OP_EQ)
		return rfail(r, it->cst.pos, "'%s & 0x%llx' can never equal 0x%llx: bits outside the mask",
			     it->text, (unsigned long long)pp->mask, (unsigned long long)imm);
	/* ":be": compare the bytes as they are, so the constant is swapped. */
	if (it->fmt == FMT_BE) {
		imm = bswap_width(imm, width);
		pp->mask = bswap_width(pp->mask, width);
		sgn = false;
	}
	scalar_access(&c, pp, width);
	pp->is_signed = sgn;
	pp->imm = imm;
	return 0;
}

/* Lay out values FROM.. of SIDE behind OFF: 8-aligned value slots. */
static int layout_values(struct rctx *r, struct ksnoop_side_plan *side, int from, __u64 off)
{
	int i;

	for (i = from; i < side->nvalues; i++) {
		side->values[i].rec_off = off;
		off += sizeof(struct ksnoop_value) + ((side->values[i].acc.size + 7) & ~7u);
	}
	if (off > KSNOOP_MAX_RECORD)
		return rfail(r, 0, "the values of one event add up to %llu bytes, more than %d; lower --max-bytes or --str-bytes",
			     (unsigned long long)off, KSNOOP_MAX_RECORD);
	side->rec_size = off;
	return 0;
}

static int layout_side(struct rctx *r, struct ksnoop_side_plan *side)
{
	return layout_values(r, side, 0, sizeof(struct ksnoop_event));
}

/* The value on KIND's side written as TEXT, or -1. */
static int value_index(const struct capture_plan *plan, int kind, const char *text)
{
	int i;

	for (i = 0; i < plan->nvalues[kind]; i++)
		if (strcmp(plan->values[kind][i].text, text) == 0)
			return i;
	return -1;
}

static int add_value(struct rctx *r, struct capture_plan *plan, int kind,
		     const struct spec_item *it, const char *text, int pos)
{
	struct ksnoop_side_plan *side = &plan->bpf.side[kind];
	struct chain c;
	int n = plan->nvalues[kind], err;

	if (n >= KSNOOP_MAX_VALUES)
		return rfail(r, pos, "more than %d values on one side", KSNOOP_MAX_VALUES);
	err = chain_walk(r, it, &c);
	if (err)
		return err;
	err = chain_finish_value(r, &c, it, text, pos, &plan->values[kind][n]);
	if (err)
		return err;
	side->values[n].acc = c.acc;
	side->nvalues = ++plan->nvalues[kind];
	side->enabled = 1;
	return 0;
}

/*
 * -s: the stack at the probe, as one more value of KIND's side; filled by
 * bpf_get_stack() after the predicates hold, printed by the printer as the
 * event's stack rather than as a value.
 */
static int add_stack(struct rctx *r, struct capture_plan *plan, int kind)
{
	struct ksnoop_side_plan *side = &plan->bpf.side[kind];
	struct value_desc *vd;
	int n = plan->nvalues[kind];

	if (n >= KSNOOP_MAX_VALUES)
		return rfail(r, 0, "more than %d values on one side, with the stack", KSNOOP_MAX_VALUES - 1);
	vd = &plan->values[kind][n];
	memset(vd, 0, sizeof(*vd));
	vd->text = "stack";
	vd->how = PRINT_STACK;
	vd->size = vd->obj_size = KSNOOP_STACK_DEPTH * 8;
	memset(&side->values[n], 0, sizeof(side->values[n]));
	side->values[n].acc.src = KSNOOP_SRC_STACK;
	side->values[n].acc.size = vd->size;
	side->nvalues = ++plan->nvalues[kind];
	return 0;
}

/* Every side that emits events gets the stack (a stashed entry carries its own). */
static int add_stacks(struct rctx *r, struct capture_plan *plan, bool stash)
{
	int k, err;

	/*
	 * --count -s counts by stack id in a stack map, which the USDT
	 * program, sleepable so that it can fault user memory in, may not use.
	 */
	if (r->opts->stack && r->opts->output == OUTPUT_COUNT && r->opts->user_space)
		return rfail(r, 0, "--count -s: USDT probes run sleepable programs, which may not use the stack map it counts by; -s alone shows each event's user stack");
	if (!r->opts->stack || r->opts->output != OUTPUT_EVENTS)
		return 0;
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		if (!plan->bpf.side[k].enabled || (stash && k == KSNOOP_RETURN))
			continue;
		err = add_stack(r, plan, k);
		if (err)
			return err;
	}
	return 0;
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
		return rfail(r, 0, "more than %d values in one event", KSNOOP_MAX_VALUES);
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
		return rfail(r, 0, "the entry values kept for the return add up to %u bytes, more than %d; lower --max-bytes or --str-bytes",
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

/*
 * Kernel functions: an entry value read from memory may be user memory the
 * task has not touched yet; if that read faults, the return side reads it
 * again (see KSNOOP_SIDE_RETRY).  Needs a return side, so not tracepoints;
 * USDT programs fault the page in themselves.  With a stash, the return
 * side already reads faulted entry values again.
 */
static void mark_retry(struct capture_plan *plan)
{
	struct ksnoop_side_plan *e = &plan->bpf.side[KSNOOP_ENTRY];
	int i;

	/* The record is copied through the per-CPU scratch buffer. */
	if (!plan->sig.has_return || e->rec_size > KSNOOP_MAX_STASH_RECORD)
		return;
	for (i = 0; i < e->nvalues; i++) {
		if (!(e->values[i].acc.flags & KSNOOP_VAL_REG) &&
		    e->values[i].acc.src != KSNOOP_SRC_STACK) {
			e->flags |= KSNOOP_SIDE_RETRY;
			plan->bpf.side[KSNOOP_RETURN].flags |= KSNOOP_SIDE_RETRY;
			return;
		}
	}
}

/* Entry values reported with the return: the entry side is the stash. */
static int lay_out_stashed(struct rctx *r, struct capture_plan *plan)
{
	int ret = layout_side(r, &plan->bpf.side[KSNOOP_ENTRY]);

	return ret ?: stash_entry_side(r, plan);
}

/* Each side its own events; entry values faulted in user memory retried. */
static int lay_out_sides(struct rctx *r, struct capture_plan *plan)
{
	int k, ret;

	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		ret = layout_side(r, &plan->bpf.side[k]);
		if (ret)
			return ret;
	}
	mark_retry(plan);
	return 0;
}

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

/* Which argument words the programs must read. */
static void compute_slot_mask(struct ksnoop_plan *bp)
{
	int k, i;

	bp->slot_mask = 0;
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		const struct ksnoop_side_plan *sd = &bp->side[k];

		for (i = 0; i < sd->nvalues; i++)
			if (sd->values[i].acc.src == KSNOOP_SRC_ARG)
				bp->slot_mask |= 1u << sd->values[i].acc.slot;
		for (i = 0; i < sd->npreds; i++)
			if (sd->preds[i].acc.src == KSNOOP_SRC_ARG)
				bp->slot_mask |= 1u << sd->preds[i].acc.slot;
	}
}

/* --hist: the one item that is a value and no predicate (-1: none, durations). */
static int hist_value_item(struct rctx *r)
{
	int i, found = -1;

	for (i = 0; i < r->spec->nitems; i++) {
		if (r->spec->items[i].has_pred)
			continue;
		if (found >= 0)
			return rfail(r, r->spec->items[i].base_pos,
				     "--hist counts by one value; '%s' is a second (make it a predicate)",
				     r->spec->items[i].text);
		found = i;
	}
	return found;
}

/*
 * --hist without a value: the calls' durations, counted at the return
 * (entry predicates select at the entry, return predicates at the
 * return); the entry side keeps the time of the calls it selects and
 * nothing is recorded on either side.
 */
static int make_hist_duration(struct rctx *r, struct capture_plan *plan)
{
	int k;

	if (!plan->sig.has_return)
		return rfail(r, 0, "--hist without a value counts call durations, and %s has no return; name the numeric value to count by, as in \"%s(arg0)\"",
			     r->opts->user_space ? "a USDT probe" : "a tracepoint", plan->sig.name);
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		plan->nvalues[k] = 0;
		plan->bpf.side[k].nvalues = 0;
		plan->bpf.side[k].enabled = 1;
	}
	snprintf(plan->hist_text, sizeof(plan->hist_text), "duration_ns");
	snprintf(plan->hist_label, sizeof(plan->hist_label), "duration in ns");
	plan->bpf.output = KSNOOP_OUT_HIST_DURATION;
	return lay_out_sides(r, plan);
}

/*
 * --hist: read IT as a predicate reads its value (width, signedness,
 * bitfield), on the side that counts: its own, which must be that side.
 */
static int make_hist(struct rctx *r, const struct spec_item *it, bool stash)
{
	struct ksnoop_pred_plan *pp = &r->plan->bpf.hist;
	int side = spec_item__is_return(it) ? KSNOOP_RETURN : KSNOOP_ENTRY;
	struct chain c;
	int width, err;

	if (side == KSNOOP_ENTRY && stash)
		return rfail(r, it->base_pos, "--hist of an entry value with a predicate on 'return' is not supported yet");
	memset(pp, 0, sizeof(*pp));
	err = chain_walk(r, it, &c);
	if (err)
		return err;
	if (it->fmt)
		return rfail(r, it->fmt_pos, "--hist counts by the number itself: '%s' takes no format (leave out ':%s')",
			     it->text, spec_format__str(it->fmt));
	if (!btfu_is_scalar(r->btf, c.type_id))
		return rfail(r, it->base_pos, "--hist counts by a number; '%s' is %s",
			     it->text, tstr(r, c.type_id));
	width = scalar_width(r, &c, pp);
	if (c.bit_size && width > 8)
		return rfail(r, it->base_pos, "'%s': a bitfield across more than 8 bytes", it->text);
	if (width <= 0 || width > 8)
		return rfail(r, it->base_pos, "--hist counts by a number of at most 8 bytes; '%s' is %d",
			     it->text, width);
	scalar_access(&c, pp, width);
	pp->is_signed = btfu_is_signed(r->btf, c.type_id);
	snprintf(r->plan->hist_text, sizeof(r->plan->hist_text), "%s", it->text);
	snprintf(r->plan->hist_label, sizeof(r->plan->hist_label), "%s", it->text);
	r->plan->bpf.output = KSNOOP_OUT_HIST;
	return 0;
}

int resolver__resolve(const struct spec *spec, const struct signature *sig,
		      const struct resolve_opts *opts, struct capture_plan *plan,
		      struct ks_error *err)
{
	struct rctx r = { .spec = spec, .sig = sig, .opts = opts, .err = err, .plan = plan,
			  .btf = sig->btf };
	bool return_pred = false, entry_values = false, stash;
	__u64 min_ns = opts->min_duration_ns;
	int i, ret, hist_item = -1;

	memset(plan, 0, sizeof(*plan));
	ks_clear(err);
	plan->sig = *sig;
	/* Point r at the plan's copy, which outlives the caller's. */
	r.sig = &plan->sig;
	plan->bpf.ret_slot = sig->nslots < KSNOOP_MAX_ARGS ? sig->nslots : KSNOOP_MAX_ARGS;
	plan->bpf.nslots = sig->nslots < KSNOOP_MAX_ARGS ? sig->nslots : KSNOOP_MAX_ARGS;
	if (min_ns && !sig->has_return)
		return rfail(&r, 0, "--min-duration needs a function's return; tracepoints and USDT probes have none");
	plan->bpf.min_duration_ns = min_ns;

	if (!spec->has_list && opts->output == OUTPUT_HIST) {
		ret = make_hist_duration(&r, plan);
		goto done;
	}
	if (!spec->has_list) {
		for (i = 0; i < sig->nparams; i++) {
			struct spec_item it = { .base = (char *)sig->params[i].name };

			if (sig->params[i].slot >= KSNOOP_MAX_ARGS)
				break;
			/* A struct passed by value spans words: leave it out. */
			if (btf__resolve_size(sig->btf, sig->params[i].type_id) > 8)
				continue;
			ret = add_value(&r, plan, KSNOOP_ENTRY, &it, sig->params[i].name, 0);
			if (ret)
				return ret;
		}
		plan->bpf.side[KSNOOP_ENTRY].enabled = 1;
		if (sig->has_return) {
			plan->bpf.side[KSNOOP_RETURN].enabled = 1;
			if (sig->ret_type) {
				struct spec_item it = { .base = "return" };

				ret = add_value(&r, plan, KSNOOP_RETURN, &it, "return", 0);
				if (ret)
					return ret;
			}
		}
		entry_values = plan->nvalues[KSNOOP_ENTRY] > 0;
		goto stash_or_not;
	}

	/* "f()": the calls themselves, with no values. */
	if (spec->nitems == 0)
		plan->bpf.side[KSNOOP_ENTRY].enabled = 1;
	for (i = 0; i < spec->nitems; i++) {
		if (spec_item__is_return(&spec->items[i]))
			return_pred |= spec->items[i].has_pred;
		else
			entry_values = true;
	}
	/* --hist: the one value counted by (none: the durations). */
	if (opts->output == OUTPUT_HIST) {
		hist_item = hist_value_item(&r);
		if (hist_item < -1)
			return -EINVAL;
		if (hist_item < 0 && !sig->has_return)
			return make_hist_duration(&r, plan);
	}
	for (i = 0; i < spec->nitems; i++) {
		const struct spec_item *it = &spec->items[i];
		int kind = spec_item__is_return(it) ? KSNOOP_RETURN : KSNOOP_ENTRY;
		struct ksnoop_side_plan *side = &plan->bpf.side[kind];

		if (it->has_pred) {
			if (side->npreds >= KSNOOP_MAX_PREDS)
				return rfail(&r, it->op_pos, "more than %d predicates", KSNOOP_MAX_PREDS);
			ret = make_pred(&r, it, &side->preds[side->npreds]);
			if (ret)
				return ret;
			side->npreds++;
		}
		/* A value named twice (as a predicate and as a value): shown once. */
		if (value_index(plan, kind, it->text) >= 0)
			continue;
		ret = add_value(&r, plan, kind, it, it->text, it->base_pos);
		if (ret)
			return ret;
	}

	if (opts->output == OUTPUT_HIST && hist_item < 0) {
		ret = make_hist_duration(&r, plan);
		goto done;
	}

stash_or_not:
	/*
	 * A predicate on 'return' or a minimum duration, with entry values:
	 * report the entry values only when the return says so.  Entry values
	 * are what they were at entry (fexit would see the argument words,
	 * but not what they pointed to), so in both attach modes the entry
	 * record is stashed and completed on return (see ksnoop.h).  --hist of
	 * the return value: entry predicates select at the return too.
	 */
	stash = (return_pred || min_ns) && entry_values;
	if (hist_item >= 0 && spec_item__is_return(&spec->items[hist_item]) && entry_values)
		stash = true;
	if (min_ns && !stash)
		report_on_return(plan);
	ret = add_stacks(&r, plan, stash);
	if (ret)
		return ret;
	if (hist_item >= 0) {
		ret = make_hist(&r, &spec->items[hist_item], stash);
		if (ret)
			return ret;
	}
	/* --count: a call counts once, where it began (or at its return, for
	 * a return predicate or a minimum duration, which the stash keeps). */
	if (opts->output != OUTPUT_EVENTS && !stash && plan->bpf.side[KSNOOP_ENTRY].enabled)
		plan->bpf.side[KSNOOP_RETURN].enabled = 0;
	ret = stash ? lay_out_stashed(&r, plan) : lay_out_sides(&r, plan);
	if (ret)
		return ret;
	/* Counted calls record nothing: nothing to read again at the return. */
	if (opts->output == OUTPUT_COUNT)
		plan->bpf.output = opts->stack ? KSNOOP_OUT_COUNT_STACKS : KSNOOP_OUT_COUNT;
	if (opts->output != OUTPUT_EVENTS)
		for (i = 0; i < KSNOOP_NR_KINDS; i++)
			plan->bpf.side[i].flags &= ~KSNOOP_SIDE_RETRY;
done:
	if (ret)
		return ret;
	mark_timed(plan);
	compute_slot_mask(&plan->bpf);
	return 0;
}

void resolver__release(struct capture_plan *plan)
{
	btf__free(plan->ext_btf);
	plan->ext_btf = NULL;
}

/*
 * A kprobe group's functions may differ in their values alone
 * (KSNOOP_PLAN_FUNC_VALUES), each reached as its own plan says, when no
 * side stashes (a return record mirrors the entry record it completes)
 * and none takes the stack (bpf_get_stack() needs its room fixed).  Not
 * USDT probes (user memory only): their programs read arguments through
 * libbpf's per-site specs, and their groups share values too.
 */
bool resolver__takes_stack(const struct ksnoop_plan *bp)
{
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++)
		for (i = 0; i < bp->side[k].nvalues && i < KSNOOP_MAX_VALUES; i++)
			if (bp->side[k].values[i].acc.src == KSNOOP_SRC_STACK)
				return true;
	return false;
}

static bool values_may_vary(const struct ksnoop_plan *bp)
{
	int k;

	if (bp->flags & (KSNOOP_PLAN_USER_MEM | KSNOOP_PLAN_USDT_SIG))
		return false;
	for (k = 0; k < KSNOOP_NR_KINDS; k++)
		if (bp->side[k].flags & (KSNOOP_SIDE_STASH | KSNOOP_SIDE_UNSTASH))
			return false;
	return !resolver__takes_stack(bp);
}

/*
 * The BPF half of a plan as a kprobe program of a group sees it: func_id
 * comes from the cookie, the words to read from slot_mask (a kprobe reads
 * registers, so how many words the function has does not matter), and
 * ret_slot is fexit's.  Where values may vary, neither they nor the
 * record's layout nor the words they read are the program's.
 */
static void program_of(const struct capture_plan *plan, struct ksnoop_plan *bp)
{
	int k;

	*bp = plan->bpf;
	bp->func_id = 0;
	bp->nslots = 0;
	bp->ret_slot = 0;
	if (!values_may_vary(bp))
		return;
	bp->slot_mask = 0;
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		bp->side[k].nvalues = 0;
		bp->side[k].rec_size = 0;
		memset(bp->side[k].values, 0, sizeof(bp->side[k].values));
	}
}

/* Each value's room in a shared layout: at least a register's 8 bytes. */
static __u32 value_room(const struct ksnoop_side_plan *side, int i)
{
	return side->values[i].acc.size > 8 ? side->values[i].acc.size : 8;
}

/* Lay SIDE's values out by their rooms; the record's size. */
static __u64 lay_out_rooms(struct ksnoop_side_plan *side)
{
	__u64 off = sizeof(struct ksnoop_event);
	int i;

	for (i = 0; i < side->nvalues; i++) {
		side->values[i].rec_off = off;
		off += sizeof(struct ksnoop_value) + ((side->values[i].acc.size + 7) & ~7u);
	}
	side->rec_size = off;
	return off;
}

/*
 * Widen GROUP's rooms to PLAN's values; false if a record would grow past
 * KSNOOP_MAX_GROUP_RECORD (unless it is already past it: the lead's own).
 */
static bool widen_rooms(struct ksnoop_plan *group, const struct ksnoop_plan *plan)
{
	struct ksnoop_plan g = *group;
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		struct ksnoop_side_plan *gs = &g.side[k];
		const struct ksnoop_side_plan *ps = &plan->side[k];
		__u32 was = group->side[k].rec_size;

		for (i = 0; i < ps->nvalues; i++) {
			__u32 room = value_room(ps, i);

			if (room > gs->values[i].acc.size)
				gs->values[i].acc.size = room;
		}
		if (ps->nvalues > gs->nvalues)
			gs->nvalues = ps->nvalues;
		if (lay_out_rooms(gs) > was && gs->rec_size > KSNOOP_MAX_GROUP_RECORD && was)
			return false;
	}
	g.slot_mask |= plan->slot_mask;
	*group = g;
	return true;
}

/* The printer reads each member's records by the group's layout. */
static void use_layout(struct ksnoop_plan *member, const struct ksnoop_plan *group)
{
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		for (i = 0; i < member->side[k].nvalues; i++)
			member->side[k].values[i].rec_off = group->side[k].values[i].rec_off;
		member->side[k].rec_size = group->side[k].rec_size;
	}
}

int resolver__group(struct capture_plan **plans, int n, struct ksnoop_plan *group)
{
	int i, k, m = 1;

	*group = plans[0]->bpf;
	group->func_id = 0;
	group->ret_slot = 0;
	group->flags |= KSNOOP_PLAN_COOKIE;
	/* A group of one keeps its values in the program: no map lookup per call. */
	if (n > 1 && values_may_vary(group)) {
		group->flags |= KSNOOP_PLAN_FUNC_VALUES;
		for (k = 0; k < KSNOOP_NR_KINDS; k++) {
			group->side[k].nvalues = 0;
			group->side[k].rec_size = 0;	/* none yet: the lead always fits */
			memset(group->side[k].values, 0, sizeof(group->side[k].values));
		}
		group->slot_mask = 0;
		widen_rooms(group, &plans[0]->bpf);
		while (m < n && widen_rooms(group, &plans[m]->bpf))
			m++;
		for (i = 0; i < m; i++)
			use_layout(&plans[i]->bpf, group);
	} else {
		m = n;
	}
	/* Members differ in how many words they take: read those in use. */
	group->nslots = 0;
	for (i = 0; i < KSNOOP_MAX_ARGS; i++)
		if (group->slot_mask & (1u << i))
			group->nslots = i + 1;
	return m;
}

void resolver__func_values(const struct capture_plan *plan, struct ksnoop_func_values *fv)
{
	int k, i;

	memset(fv, 0, sizeof(*fv));
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		fv->nvalues[k] = plan->bpf.side[k].nvalues;
		for (i = 0; i < plan->bpf.side[k].nvalues; i++)
			fv->acc[k][i] = plan->bpf.side[k].values[i].acc;
	}
}

__u64 resolver__program_hash(const struct capture_plan *plan)
{
	struct ksnoop_plan bp;
	const unsigned char *b = (const unsigned char *)&bp;
	__u64 h = 0xcbf29ce484222325ULL;	/* FNV-1a */
	size_t i;

	program_of(plan, &bp);
	for (i = 0; i < sizeof(bp); i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

bool resolver__same_program(const struct capture_plan *a, const struct capture_plan *b)
{
	struct ksnoop_plan x, y;

	program_of(a, &x);
	program_of(b, &y);
	return memcmp(&x, &y, sizeof(x)) == 0;
}
