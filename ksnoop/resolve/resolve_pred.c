// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A walked chain as a predicate: the constant it is compared with, made
 * to fit the value's width and signedness (integers, enumerators, NULL,
 * strings, IPv4 addresses, masks, ":be"), so that the BPF side compares
 * 64-bit words and nothing else.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "resolve_int.h"

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
	    !(it->fmt == FMT_STR && value__is_byte_array(btf, c->type_id)))
		return rctx__fail(r, k->pos, "string constant compared with '%s' of type %s; strings compare only with char arrays and char pointers",
				  it->text, rctx__type_str(r, c->type_id));
	if (it->op != KSNOOP_OP_EQ && it->op != KSNOOP_OP_NE)
		return rctx__fail(r, it->op_pos, "strings compare only with '==' and '!='");
	if (!is_ptr && it->str_len)
		return rctx__fail(r, it->str_len_pos, "':str(%s)' on '%s', an array: its size bounds it already",
				  it->str_len, it->text);
	if (c->in_reg && !is_ptr)
		return rctx__fail(r, it->base_pos, "'%s': array passed by value", it->text);
	if (is_ptr) {
		err = chain__push_deref(r, c, it->base_pos);
		if (!err)
			err = value__str_len(r, it, &c->acc);
		if (err)
			return err;
		c->acc.flags |= KSNOOP_VAL_STR;
	} else {
		__s64 asz = btf__resolve_size(btf, c->type_id);

		c->acc.size = asz < KSNOOP_MAX_PRED_STR ? asz : KSNOOP_MAX_PRED_STR;
		if (strlen(k->str) + 1 > (size_t)asz && strlen(k->str) >= (size_t)asz)
			return rctx__fail(r, k->pos, "string \"%s\" is longer than %s", k->str,
					  rctx__type_str(r, c->type_id));
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
int pred__width(const struct rctx *r, const struct chain *c, struct ksnoop_pred_plan *pp)
{
	if (!c->bit_size)
		return btf__resolve_size(r->btf, c->type_id);
	pp->bit_off = c->bit_off;
	pp->bit_size = c->bit_size;
	return (c->bit_off + c->bit_size + 7) / 8;
}

/* ... and the access to it: the register word itself, or WIDTH bytes. */
void pred__access(struct chain *c, struct ksnoop_pred_plan *pp, int width)
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
		return rctx__fail(r, it->op_pos, "addresses compare with '==' and '!=' only");
	if (size != 4 || (t && btf_is_ptr(t)))
		return rctx__fail(r, it->cst.pos, "'%s' is not a 4-byte IPv4 address: only those compare with an address",
				  it->text);
	if (inet_pton(AF_INET, it->cst.str, &a) != 1)
		return rctx__fail(r, it->cst.pos, "\"%s\" is not an IPv4 address (a.b.c.d)", it->cst.str);
	memcpy(&v, &a, sizeof(v));
	pred__access(c, pp, 4);
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
			return rctx__fail(r, k->pos, "NULL compared with '%s', which is not a pointer (%s)",
					  it->text, rctx__type_str(r, c->type_id));
		*imm = 0;
		*sgn = false;
		return 0;
	}
	if (find_enumerator(btf, c->type_id, k->str, &sv, &ambiguous, &uenum))
		return rctx__fail(r, k->pos, "unknown enumerator '%s'", k->str);
	if (ambiguous)
		return rctx__fail(r, k->pos, "enumerator '%s' has different values in different enums",
				  k->str);
	*imm = (__u64)sv;
	/* An unsigned enum64 value above INT64_MAX is not negative. */
	if (uenum && !*sgn) {
		if (!fits(sv, bits, false))
			return rctx__fail(r, k->pos, "enumerator '%s' (%llu) does not fit %s",
					  k->str, (unsigned long long)*imm, rctx__type_str(r, c->type_id));
		return 0;
	}
	if (sv < 0 && !*sgn)
		return rctx__fail(r, k->pos, "enumerator '%s' (%lld) is negative; '%s' is unsigned",
				  k->str, (long long)sv, it->text);
	if (!fits(sv, bits, *sgn))
		return rctx__fail(r, k->pos, "enumerator '%s' (%lld) does not fit %s",
				  k->str, (long long)sv, rctx__type_str(r, c->type_id));
	return 0;
}

/*
 * What a constant must fit, for messages: the type, and for a bitfield its
 * width too ("__u8, a 3-bit field": the type alone would allow 8).
 */
static const char *fit_str(struct rctx *r, const struct chain *c, char *buf, size_t sz)
{
	if (!c->bit_size)
		return rctx__type_str(r, c->type_id);
	snprintf(buf, sz, "%s, a %u-bit field", rctx__type_str(r, c->type_id), c->bit_size);
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
			return rctx__fail(r, k->pos, "constant %s%llu does not fit '%s' (%s)",
					  k->neg ? "-" : "", (unsigned long long)k->mag, it->text,
					  fit_str(r, c, fit, sizeof(fit)));
		*imm = k->neg ? (__u64)(-(__s64)(k->mag - 1) - 1) : k->mag;
		return 0;
	}
	if (k->neg)
		return rctx__fail(r, k->pos, "negative constant -%llu compared with '%s', which is unsigned (%s)",
				  (unsigned long long)k->mag, it->text, rctx__type_str(r, c->type_id));
	if (bits < 64 && k->mag >> bits)
		return rctx__fail(r, k->pos, "constant %llu does not fit '%s' (%s)",
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
		return rctx__fail(r, it->mask_pos, "'&' on '%s' (%s): masks apply to integers and enums",
				  it->text, rctx__type_str(r, c->type_id));
	if (bits < 64 && it->mask >> bits)
		return rctx__fail(r, it->mask_pos, "mask 0x%llx does not fit '%s' (%d bits)",
				  (unsigned long long)it->mask, it->text, bits);
	pp->mask = it->mask;
	return 0;
}

/*
 * 'return < 0' where a kernel function returns a pointer: is it an error
 * pointer (IS_ERR(): at least -4095, unsigned), and 'return >= 0' is it
 * not one (NULL included; 'return == NULL' picks NULL).  A pointer is
 * unsigned, so '< 0' held never: a glob's '*open*(return < 0)' left out
 * every function returning one.  '<= 0' and '> 0' would need NULL on the
 * other side of one comparison: refused, with what to say instead.
 */
static bool compares_err_ptr(const struct rctx *r, const struct spec_item *it,
			     const struct chain *c)
{
	const struct btf_type *t = btf__type_by_id(r->btf, btfu_strip(r->btf, c->type_id));

	return t && btf_is_ptr(t) && it->cst.kind == CONST_INT && it->cst.mag == 0 &&
	       !it->has_mask && !it->fmt && it->op != KSNOOP_OP_EQ && it->op != KSNOOP_OP_NE &&
	       value__is_error_code(r, c, it->base);
}

static int pred_err_ptr(struct rctx *r, const struct spec_item *it, struct chain *c,
			struct ksnoop_pred_plan *pp, int width)
{
	if (it->op == KSNOOP_OP_LE || it->op == KSNOOP_OP_GT)
		return rctx__fail(r, it->op_pos, "'%s' is a pointer: '< 0' is an error pointer (ERR_PTR), '>= 0' is not one, '== NULL' is NULL; '%s' mixes them",
				  it->text, it->op == KSNOOP_OP_LE ? "<= 0" : "> 0");
	pred__access(c, pp, width);
	pp->op = it->op == KSNOOP_OP_LT ? KSNOOP_OP_GE : KSNOOP_OP_LT;
	pp->is_signed = 0;
	pp->imm = (__u64)-KSNOOP_MAX_ERRNO;
	return 0;
}

/*
 * A number compared with a number: the constant made to fit the value's
 * width and signedness (a bitfield's bits, a mask's), swapped for ":be".
 */
static int pred_number(struct rctx *r, const struct spec_item *it, struct chain *c,
		       struct ksnoop_pred_plan *pp)
{
	int err, width, bits;
	__u64 imm = 0;
	bool sgn;

	if (btfu_is_char_array(r->btf, c->type_id))
		return rctx__fail(r, it->op_pos, "'%s' is a char array (%s): it compares with a string, as in %s == \"...\"",
				  it->text, rctx__type_str(r, c->type_id), it->text);
	if (!btfu_is_scalar(r->btf, c->type_id))
		return rctx__fail(r, it->op_pos, "'%s' has type %s; predicates compare numbers (integers, enums, chars, bools, pointers) and strings (char arrays, char pointers)",
				  it->text, rctx__type_str(r, c->type_id));
	/* A bitfield: read the bytes that hold it, compare its bits. */
	width = pred__width(r, c, pp);
	bits = c->bit_size ? (int)c->bit_size : 8 * width;
	sgn = btfu_is_signed(r->btf, c->type_id);
	if (c->bit_size && width > 8)
		return rctx__fail(r, it->op_pos, "'%s': a bitfield across more than 8 bytes cannot be compared",
				  it->text);
	if (compares_err_ptr(r, it, c))
		return pred_err_ptr(r, it, c, pp, width);
	if (it->has_mask) {
		err = pred_mask(r, it, c, bits, pp);
		if (err)
			return err;
		/* The masked value is a set of bits: compared unsigned. */
		sgn = false;
	}
	err = it->cst.kind == CONST_NAME ? pred_name(r, it, c, bits, &sgn, &imm) :
					   pred_int(r, it, c, bits, sgn, &imm);
	if (err)
		return err;
	if (it->has_mask && (imm & ~pp->mask) && it->op == KSNOOP_OP_EQ)
		return rctx__fail(r, it->cst.pos, "'%s & 0x%llx' can never equal 0x%llx: bits outside the mask",
				  it->text, (unsigned long long)pp->mask, (unsigned long long)imm);
	/* ":be": compare the bytes as they are, so the constant is swapped. */
	if (it->fmt == FMT_BE) {
		imm = bswap_width(imm, width);
		pp->mask = bswap_width(pp->mask, width);
		sgn = false;
	}
	pred__access(c, pp, width);
	pp->is_signed = sgn;
	pp->imm = imm;
	return 0;
}

int pred__make(struct rctx *r, const struct spec_item *it, struct ksnoop_pred_plan *pp)
{
	struct chain c;
	int err;

	memset(pp, 0, sizeof(*pp));
	err = chain__walk(r, it, &c);
	if (!err)
		err = value__check_format(r, it, &c);
	if (err)
		return err;
	pp->op = it->op;
	if (it->fmt == FMT_TUPLE)
		return rctx__fail(r, it->op_pos, "':tuple' is printed, not compared; compare the fields it is made of (skb->protocol, sk->__sk_common.skc_num ...)");
	if (it->fmt == FMT_STRV)
		return rctx__fail(r, it->op_pos, "':strv' is printed, not compared; compare one string (argv[1] == \"-l\")");
	if (it->cst.kind == CONST_STR && it->has_mask)
		return rctx__fail(r, it->mask_pos, "'&' on '%s', compared with a string: masks apply to integers and enums",
				  it->text);
	if (it->cst.kind == CONST_STR && it->fmt == FMT_IP)
		return pred_ip(r, it, &c, pp);
	if (it->cst.kind == CONST_STR)
		return pred_string(r, it, &c, pp);
	if (it->fmt == FMT_BE && it->op != KSNOOP_OP_EQ && it->op != KSNOOP_OP_NE)
		return rctx__fail(r, it->op_pos, "':be' values compare with '==' and '!=' only: their bytes are not in host order");
	/* r->btf from here: a cast may have added types. */
	return pred_number(r, it, &c, pp);
}
