// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"

__u32 btfu_strip(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t))) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

bool btfu_is_char(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	return t && btf_is_int(t) && t->size == 1 &&
	       (strcmp(btf__name_by_offset(btf, t->name_off), "char") == 0 ||
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

const char *btfu_type_str(const struct btf *btf, __u32 id, const char *name,
			  char *buf, size_t sz)
{
	struct strbuf sb = { .buf = buf, .sz = sz };
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = name ? name : "");
	struct btf_dump *d;

	buf[0] = 0;
	if (id == 0) {
		snprintf(buf, sz, name && *name ? "void %s" : "void", name);
		return buf;
	}
	d = btf_dump__new(btf, strbuf_printf, &sb, NULL);
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
