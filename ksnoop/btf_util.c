// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"

const char *btfu_name(const struct btf *btf, __u32 off)
{
	const char *name = btf__name_by_offset(btf, off);

	return name ? name : "";
}

__u32 btfu_strip(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int depth = 0;

	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		if (++depth > BTFU_MAX_DEPTH)
			return 0;
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

bool btfu_is_char(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	return t && btf_is_int(t) && t->size == 1 &&
	       (strcmp(btfu_name(btf, t->name_off), "char") == 0 ||
		(btf_int_encoding(t) & BTF_INT_CHAR));
}

bool btfu_is_char_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	return t && btf_is_ptr(t) && btfu_is_char(btf, t->type);
}

bool btfu_is_char_array(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	return t && btf_is_array(t) && btfu_is_char(btf, btf_array(t)->type);
}

bool btfu_is_struct_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, btfu_strip(btf, t->type));
	return t && btf_is_composite(t);
}

bool btfu_is_scalar(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	if (!t)
		return false;
	if (btf_is_int(t))
		return t->size <= 8;
	return btf_is_any_enum(t) || btf_is_ptr(t);
}

bool btfu_is_signed(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	if (!t)
		return false;
	if (btf_is_int(t))
		return btf_int_encoding(t) & BTF_INT_SIGNED;
	if (btf_is_any_enum(t))
		return btf_kflag(t);
	return false;
}

struct strbuf {
	char *buf;
	size_t sz, len;
};

static void strbuf_printf(void *ctx, const char *fmt, va_list ap)
{
	struct strbuf *sb = ctx;
	int n;

	if (sb->len >= sb->sz)
		return;
	n = vsnprintf(sb->buf + sb->len, sb->sz - sb->len, fmt, ap);
	if (n > 0)
		sb->len = sb->len + n < sb->sz ? sb->len + n : sb->sz - 1;
}

/*
 * btf_dump fills the gaps between members (and to the end) with padding
 * lines, counting on members in order and inside the struct: hostile BTF
 * without that makes its loop run for minutes.
 */
static bool members_laid_out(const struct btf *btf, const struct btf_type *t)
{
	__u64 end = 0, size_bits = 8ULL * t->size;
	int i, vlen = btf_vlen(t);

	for (i = 0; i < vlen; i++) {
		__u32 off = btf_member_bit_offset(t, i), bsz = btf_member_bitfield_size(t, i);
		__s64 msize = btf__resolve_size(btf, btf_members(t)[i].type);
		__u64 mend;

		if (msize < 0)
			return false;
		mend = off + (bsz ? bsz : 8ULL * msize);
		if (mend > size_bits || (btf_is_struct(t) && off < end && !bsz))
			return false;
		end = mend > end ? mend : end;
	}
	return true;
}

/*
 * Whether btf_dump can spell type ID: it follows pointers, qualifiers,
 * arrays, prototypes and the members of anonymous structs (which it
 * spells inline) and reads every name on the way, with neither a depth
 * limit nor a check of the name.  Walk the same edges first, bounded.
 */
static bool decl_spellable(const struct btf *btf, __u32 id, int depth, int *visits)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int i, vlen;

	if (id == 0)
		return true;
	if (!t || depth > BTFU_MAX_DEPTH || ++*visits > BTFU_MAX_VISITS ||
	    !btf__name_by_offset(btf, t->name_off))
		return false;
	vlen = btf_vlen(t);
	if (btf_is_ptr(t) || btf_is_mod(t) || btf_is_func(t))
		return decl_spellable(btf, t->type, depth + 1, visits);
	if (btf_is_array(t))
		return decl_spellable(btf, btf_array(t)->type, depth + 1, visits);
	if (btf_is_func_proto(t)) {
		for (i = 0; i < vlen; i++)
			if (!decl_spellable(btf, btf_params(t)[i].type, depth + 1, visits))
				return false;
		return decl_spellable(btf, t->type, depth + 1, visits);
	}
	if (btf_is_composite(t) && !*btfu_name(btf, t->name_off)) {
		/*
		 * Spelled inline, padding included: btf_dump writes a line
		 * per word of a gap, so a huge struct or a member far past
		 * its end would take minutes.  Real ones are small.
		 */
		if (t->size > BTFU_MAX_INLINE_SIZE)
			return false;
		/* Every word of padding counts: nested ones add up. */
		*visits += t->size / 8;
		if (*visits > BTFU_MAX_VISITS)
			return false;
		if (!members_laid_out(btf, t))
			return false;
		for (i = 0; i < vlen; i++)
			if (!btf__name_by_offset(btf, btf_members(t)[i].name_off) ||
			    !decl_spellable(btf, btf_members(t)[i].type, depth + 1, visits))
				return false;
	}
	if (btf_is_any_enum(t) && !*btfu_name(btf, t->name_off)) {
		for (i = 0; i < vlen; i++)
			if (!btf__name_by_offset(btf, btf_is_enum(t) ? btf_enum(t)[i].name_off :
								       btf_enum64(t)[i].name_off))
				return false;
	}
	return true;
}

static bool ref_ok(__u32 ref, __u32 n)
{
	return ref < n;
}

/* Whether every type T refers to exists. */
static bool type_refs_ok(const struct btf_type *t, __u32 n)
{
	int i, vlen = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_ARRAY:
		return ref_ok(btf_array(t)->type, n) && ref_ok(btf_array(t)->index_type, n);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; i < vlen; i++)
			if (!ref_ok(btf_members(t)[i].type, n))
				return false;
		return true;
	case BTF_KIND_FUNC_PROTO:
		for (i = 0; i < vlen; i++)
			if (!ref_ok(btf_params(t)[i].type, n))
				return false;
		return ref_ok(t->type, n);
	case BTF_KIND_DATASEC:
		for (i = 0; i < vlen; i++)
			if (!ref_ok(btf_var_secinfos(t)[i].type, n))
				return false;
		return true;
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_VAR: case BTF_KIND_DECL_TAG: case BTF_KIND_TYPE_TAG:
		return ref_ok(t->type, n);
	default:
		return true;
	}
}

bool btfu_refs_valid(const struct btf *btf)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++)
		if (!type_refs_ok(btf__type_by_id(btf, id), n))
			return false;
	return true;
}

const char *btfu_type_str(const struct btf *btf, __u32 id, const char *name,
			  char *buf, size_t sz)
{
	int visits = 0;

	struct strbuf sb = { .buf = buf, .sz = sz };
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = name ? name : "");
	struct btf_dump *d;

	buf[0] = 0;
	if (id == 0) {
		snprintf(buf, sz, name && *name ? "void %s" : "void", name);
		return buf;
	}
	d = decl_spellable(btf, id, 0, &visits) ? btf_dump__new(btf, strbuf_printf, &sb, NULL) : NULL;
	if (!d) {
		snprintf(buf, sz, "<type %u>", id);
		return buf;
	}
	if (btf_dump__emit_type_decl(d, id, &opts))
		snprintf(buf, sz, "<type %u>", id);
	btf_dump__free(d);
	return buf;
}

/* A TYPE_TAG "user" in the modifiers of ID (the pointee of a pointer). */
static bool tagged_user(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int depth;

	for (depth = 0; t && btf_is_mod(t) && depth < BTFU_MAX_DEPTH; depth++) {
		if (btf_kind(t) == BTF_KIND_TYPE_TAG &&
		    strcmp(btf__name_by_offset(btf, t->name_off) ?: "", "user") == 0)
			return true;
		t = btf__type_by_id(btf, t->type);
	}
	return false;
}

bool btfu_is_user_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	return t && btf_is_ptr(t) && tagged_user(btf, t->type);
}

bool btfu_has_user_tags(const struct btf *btf)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_kind(t) == BTF_KIND_TYPE_TAG &&
		    strcmp(btf__name_by_offset(btf, t->name_off) ?: "", "user") == 0)
			return true;
	}
	return false;
}

__s64 btfu_enumerator(const struct btf *btf, const struct btf_type *t, int i, const char **name)
{
	if (btf_is_enum(t)) {
		*name = btfu_name(btf, btf_enum(t)[i].name_off);
		return btf_kflag(t) ? (__s64)btf_enum(t)[i].val : (__s64)(__u32)btf_enum(t)[i].val;
	}
	*name = btfu_name(btf, btf_enum64(t)[i].name_off);
	return (__s64)btf_enum64_value(&btf_enum64(t)[i]);
}
