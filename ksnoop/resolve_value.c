// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A walked chain as a value: how many bytes to copy from where it ends
 * (a pointer to a struct: its object; a char pointer or ":str": the
 * string; a bitfield: the bytes that hold it) and how userspace prints
 * them (struct value_desc), with the ":FORMAT" the item asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "resolve_int.h"

/* An array of 1-byte integers (char, u8, __u8 ...): bytes as a string or in hex. */
bool value__is_byte_array(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));
	const struct btf_type *et;

	if (!t || !btf_is_array(t))
		return false;
	et = btf__type_by_id(btf, btfu_strip(btf, btf_array(t)->type));
	return et && btf_is_int(et) && et->size == 1;
}

/* Whether IT's ":FORMAT" fits the value the chain reached. */
int value__check_format(struct rctx *r, const struct spec_item *it, const struct chain *c)
{
	const struct btf *btf = r->btf;
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, c->type_id));
	bool ptr = t && btf_is_ptr(t), word_int = t && btf_is_int(t) && t->size == 8;
	__s64 size = btf__resolve_size(btf, c->type_id), psize = 0;
	const char *f = spec_format__str(it->fmt);

	if (!it->fmt)
		return 0;
	if (c->bit_size && it->fmt != FMT_HEX)
		return rctx__fail(r, it->fmt_pos, "':%s' on '%s', a bitfield", f, it->text);
	if (ptr)
		psize = btf__resolve_size(btf, t->type);
	switch (it->fmt) {
	case FMT_HEX:
		if (btfu_is_scalar(btf, c->type_id) || value__is_byte_array(btf, c->type_id))
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
			return rctx__fail(r, it->fmt_pos, "':ip' on '%s' reads a %lld-byte address, more than --max-bytes (%u)",
					  it->text, (long long)addr, r->opts->max_bytes);
		if (addr)
			return 0;
		return rctx__fail(r, it->fmt_pos, "':ip' on '%s' (%s): an address is 4 bytes (IPv4) or 16 (IPv6), or a pointer to one",
				  it->text, rctx__type_str(r, c->type_id));
	}
	case FMT_SYM:
		if (r->opts->user_space)
			return rctx__fail(r, it->fmt_pos, "':sym' names kernel code; '%s' is a user-space value",
					  it->text);
		if (ptr || word_int)
			return 0;
		break;
	case FMT_STR:
		if (ptr || word_int || value__is_byte_array(btf, c->type_id))
			return 0;
		break;
	case FMT_NONE:
		return 0;
	}
	return rctx__fail(r, it->fmt_pos, "':%s' does not apply to '%s' (%s); it takes %s", f, it->text,
			  rctx__type_str(r, c->type_id),
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

	if (it->fmt == FMT_STR && value__is_byte_array(btf, c->type_id)) {
		if (c->in_reg)
			return rctx__fail(r, pos, "'%s': array passed by value", it->text);
		size = btf__resolve_size(btf, c->type_id);
		vd->how = PRINT_STRING;
		vd->size = vd->obj_size = size < r->opts->max_bytes ? size : r->opts->max_bytes;
		c->acc.size = vd->size;
		return 0;
	}
	err = chain__push_deref(r, c, pos);
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

int value__from_chain(struct rctx *r, struct chain *c, const struct spec_item *it,
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

	err = value__check_format(r, it, c);
	if (err)
		return err;
	if (it->fmt == FMT_STR || (it->fmt == FMT_IP && t && btf_is_ptr(t)))
		return finish_format(r, c, it, pos, vd);
	/* ":hex" and ":sym" show a pointer itself, not what it points to. */
	if (it->fmt == FMT_HEX || it->fmt == FMT_SYM)
		goto plain;

	if (btfu_is_char_ptr(btf, c->type_id)) {
		err = chain__push_deref(r, c, pos);
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
			err = chain__push_deref(r, c, pos);
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
		return rctx__fail(r, pos, "'%s' has type %s, which has no size", text,
				  rctx__type_str(r, c->type_id));
	if (c->in_reg) {
		if (size > 8)
			return rctx__fail(r, pos, "'%s': a struct passed by value cannot be captured yet", text);
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
