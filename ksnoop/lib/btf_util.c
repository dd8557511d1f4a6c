// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

bool btfu_is_byte_ptr(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));

	if (!t || !btf_is_ptr(t) || btfu_is_char(btf, t->type))
		return false;
	t = btf__type_by_id(btf, btfu_strip(btf, t->type));
	return t && btf_is_int(t) && t->size == 1;
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
 * Whether btf__align_of() ends on type ID: btf_dump asks it of every
 * anonymous struct it spells inline (is it packed?), and it follows
 * qualifiers, typedefs, array elements and every member of every struct
 * it meets, named or not, with no depth limit: a struct that contains
 * itself took it down the stack until the process died.  The same edges,
 * bounded by depth (a cycle) and by VISITS (a hostile fan-out).
 */
static bool align_walk_ends(const struct btf *btf, __u32 id, int depth, int *visits)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int i;

	if (!t || depth > BTFU_MAX_DEPTH || ++*visits > BTFU_MAX_VISITS)
		return false;
	if (btf_is_mod(t) || btf_is_typedef(t))
		return align_walk_ends(btf, t->type, depth + 1, visits);
	if (btf_is_array(t))
		return align_walk_ends(btf, btf_array(t)->type, depth + 1, visits);
	if (btf_is_composite(t))
		for (i = 0; i < btf_vlen(t); i++)
			if (!align_walk_ends(btf, btf_members(t)[i].type, depth + 1, visits))
				return false;
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
	int i, vlen, align_visits;

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
		align_visits = 0;
		if (!align_walk_ends(btf, id, 0, &align_visits))
			return false;
		for (i = 0; i < vlen; i++)
			/* btf_dump pads to it: 0 (an int of 0 bytes) divided by zero. */
			if (btf__align_of(btf, btf_members(t)[i].type) <= 0 ||
			    !btf__name_by_offset(btf, btf_members(t)[i].name_off) ||
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

/*
 * Setting up a btf_dump walks every type of its BTF (vmlinux: 150,000 and
 * more), which costs more than spelling one type: `ksnoop info` of 1,000
 * functions spent 80 % of its time there.  The kernel's BTFs live as long
 * as their kbtf, which says so (btfu_keep_dump), so they keep one dump
 * each; other BTFs (a cast's, a binary's, the tests') get one per call.
 */
struct kept_dump {
	const struct btf *btf;
	struct btf_dump *d;	/* made at the first use */
};

static struct kept_dump *kept;
static int nkept;
static struct strbuf kept_sb;	/* where the kept dumps write, set per call */

int btfu_keep_dump(const struct btf *btf)
{
	struct kept_dump *k = realloc(kept, (nkept + 1) * sizeof(*k));

	if (!k)
		return -ENOMEM;
	kept = k;
	kept[nkept++] = (struct kept_dump){ .btf = btf };
	return 0;
}

void btfu_drop_dump(const struct btf *btf)
{
	int i;

	for (i = 0; i < nkept; i++) {
		if (kept[i].btf != btf)
			continue;
		btf_dump__free(kept[i].d);
		kept[i] = kept[--nkept];
		if (!nkept) {
			free(kept);
			kept = NULL;
		}
		return;
	}
}

/* BTF's kept dump writing into SB, or NULL: then the caller makes one. */
static struct btf_dump *kept_dump(const struct btf *btf, const struct strbuf *sb)
{
	int i;

	for (i = 0; i < nkept; i++) {
		if (kept[i].btf != btf)
			continue;
		if (!kept[i].d)
			kept[i].d = btf_dump__new(btf, strbuf_printf, &kept_sb, NULL);
		kept_sb = *sb;
		return kept[i].d;
	}
	return NULL;
}

const char *btfu_type_str(const struct btf *btf, __u32 id, const char *name,
			  char *buf, size_t sz)
{
	int visits = 0;

	struct strbuf sb = { .buf = buf, .sz = sz };
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = name ? name : "");
	struct btf_dump *d, *own = NULL;

	buf[0] = 0;
	if (id == 0) {
		snprintf(buf, sz, name && *name ? "void %s" : "void", name);
		return buf;
	}
	if (!decl_spellable(btf, id, 0, &visits)) {
		snprintf(buf, sz, "<type %u>", id);
		return buf;
	}
	d = kept_dump(btf, &sb);
	if (!d)
		d = own = btf_dump__new(btf, strbuf_printf, &sb, NULL);
	if (!d) {
		snprintf(buf, sz, "<type %u>", id);
		return buf;
	}
	if (btf_dump__emit_type_decl(d, id, &opts))
		snprintf(buf, sz, "<type %u>", id);
	btf_dump__free(own);
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

/*
 * C's integer spellings: "unsigned long" is gcc's "long unsigned int" in
 * BTF, so integers are matched by what their words mean, not by name.
 */
struct int_words {
	int size;
	int sign;		/* -1 unsigned, 0 as written ("char"), 1 signed */
	bool chr, boolean;
};

static bool int_words(const char *s, struct int_words *iw)
{
	int longs = 0, shorts = 0, n = 0;
	bool has_int = false;

	memset(iw, 0, sizeof(*iw));
	while (*s) {
		size_t len = strcspn(s, " ");

		if (len == 8 && !strncmp(s, "unsigned", len))
			iw->sign = -1;
		else if (len == 6 && !strncmp(s, "signed", len))
			iw->sign = 1;
		else if (len == 4 && !strncmp(s, "char", len))
			iw->chr = true;
		else if (len == 5 && !strncmp(s, "short", len))
			shorts++;
		else if (len == 4 && !strncmp(s, "long", len))
			longs++;
		else if (len == 3 && !strncmp(s, "int", len))
			has_int = true;
		else if (len == 5 && !strncmp(s, "_Bool", len))
			iw->boolean = true;
		else
			return false;
		n++;
		s += len;
		while (*s == ' ')
			s++;
	}
	if (!n || longs > 2 || shorts > 1 || (shorts && longs) ||
	    ((iw->chr || iw->boolean) && (shorts || longs || has_int)))
		return false;
	iw->size = iw->chr || iw->boolean ? 1 : shorts ? 2 : longs ? 8 : 4;
	if (!iw->chr && !iw->boolean && !iw->sign)
		iw->sign = 1;
	return true;
}

static int find_int(const struct btf *btf, const struct int_words *want)
{
	__u32 id, n = btf__type_cnt(btf);
	struct int_words iw;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (t && btf_is_int(t) && t->size == (__u32)want->size &&
		    int_words(btfu_name(btf, t->name_off), &iw) &&
		    iw.sign == want->sign && iw.chr == want->chr && iw.boolean == want->boolean)
			return id;
	}
	return -ENOENT;
}

/* TEXT's type name, without qualifiers and '*'s, into NAME; 0 or -EINVAL. */
static int type_name_of(const char *text, char *name, size_t sz, int *nptrs)
{
	const char *p = text, *star = strchr(text, '*');
	size_t n;

	*nptrs = 0;
	for (const char *s = star; s && *s; s++) {
		if (*s == '*')
			++*nptrs;
		else if (*s != ' ')
			return -EINVAL;
	}
	/* Qualifiers change nothing that is read or printed. */
	for (;;) {
		if (!strncmp(p, "const ", 6))
			p += 6;
		else if (!strncmp(p, "volatile ", 9))
			p += 9;
		else
			break;
	}
	n = star ? (size_t)(star - p) : strlen(p);
	while (n && p[n - 1] == ' ')
		n--;
	if (!n || n >= sz || (star && star < p))
		return -EINVAL;
	memcpy(name, p, n);
	name[n] = 0;
	return 0;
}

int btfu_find_type(const struct btf *btf, const char *text, __u32 *id, int *nptrs)
{
	char name[256];
	struct int_words iw;
	int kind = 0, ret = -ENOENT;

	if (type_name_of(text, name, sizeof(name), nptrs))
		return -EINVAL;
	if (!strncmp(name, "struct ", 7))
		kind = BTF_KIND_STRUCT;
	else if (!strncmp(name, "union ", 6))
		kind = BTF_KIND_UNION;
	else if (!strncmp(name, "enum ", 5))
		kind = BTF_KIND_ENUM;
	if (kind) {
		const char *tag = strchr(name, ' ') + 1;

		if (strchr(tag, ' '))
			return -EINVAL;
		ret = btf__find_by_name_kind(btf, tag, kind);
		if (ret < 0 && kind == BTF_KIND_ENUM)
			ret = btf__find_by_name_kind(btf, tag, BTF_KIND_ENUM64);
		/* A struct only declared here is still a type one can point to. */
		if (ret < 0 && kind != BTF_KIND_ENUM)
			ret = btf__find_by_name_kind(btf, tag, BTF_KIND_FWD);
	} else if (!strcmp(name, "void")) {
		ret = 0;
	} else if (int_words(name, &iw)) {
		ret = find_int(btf, &iw);
	} else if (strchr(name, ' ')) {
		return -EINVAL;
	} else {
		ret = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
		if (ret < 0)
			ret = btf__find_by_name_kind(btf, name, BTF_KIND_INT);
		/* "sock *" for "struct sock *": kernel engineers often drop it. */
		if (ret < 0)
			ret = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
		if (ret < 0)
			ret = btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
	}
	if (ret < 0)
		return -ENOENT;
	*id = ret;
	return 0;
}

/* "u8" ... "s64", "__u8" ... "__s64", "uint8_t" ... "int64_t": bytes and signedness. */
static bool fixed_width_int(const char *name, int *size, bool *is_signed)
{
	char sign, *end;
	unsigned long bits;

	if (!strncmp(name, "__", 2))
		name += 2;
	if (!strncmp(name, "uint", 4) || !strncmp(name, "int", 3)) {
		sign = *name == 'u' ? 'u' : 's';
		name += sign == 'u' ? 4 : 3;
	} else if (*name == 'u' || *name == 's') {
		sign = *name++;
	} else {
		return false;
	}
	if (!isdigit((unsigned char)*name))
		return false;
	bits = strtoul(name, &end, 10);
	if ((strcmp(end, "") && strcmp(end, "_t")) || (bits != 8 && bits != 16 && bits != 32 && bits != 64))
		return false;
	*size = bits / 8;
	*is_signed = sign == 's';
	return true;
}

/* gcc's names, as kernel BTF spells them: [signed][size]. */
static const char *const c_int_names[2][9] = {
	{ [2] = "short unsigned int", [4] = "unsigned int", [8] = "long unsigned int" },
	{ [2] = "short int", [4] = "int", [8] = "long int" },
};

int btfu_add_base_type(struct btf *btf, const char *text)
{
	char name[256];
	struct int_words iw;
	bool is_signed;
	int nptrs, size;

	if (type_name_of(text, name, sizeof(name), &nptrs))
		return -EINVAL;
	if (fixed_width_int(name, &size, &is_signed))
		return btf__add_int(btf, name, size, is_signed ? BTF_INT_SIGNED : 0);
	if (!int_words(name, &iw))
		return -ENOENT;
	if (iw.boolean)
		return btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL);
	/* x86-64's char is signed; "char" names it (btfu_is_char()). */
	if (iw.chr)
		return btf__add_int(btf, iw.sign < 0 ? "unsigned char" : iw.sign ? "signed char" : "char",
				    1, iw.sign < 0 ? 0 : BTF_INT_SIGNED);
	return btf__add_int(btf, c_int_names[iw.sign > 0][iw.size], iw.size,
			    iw.sign > 0 ? BTF_INT_SIGNED : 0);
}

int btfu_find_ptr(const struct btf *btf, __u32 id)
{
	__u32 i, n = btf__type_cnt(btf);

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);

		if (t && btf_is_ptr(t) && t->type == id)
			return i;
	}
	return -ENOENT;
}

bool btfu_same_type(const struct btf *btf, __u32 id, __u32 want, int nptrs)
{
	const struct btf_type *t;

	for (; nptrs > 0; nptrs--) {
		t = btf__type_by_id(btf, btfu_strip(btf, id));
		if (!t || !btf_is_ptr(t))
			return false;
		id = t->type;
	}
	t = btf__type_by_id(btf, btfu_strip(btf, id));
	if (t && btf_is_ptr(t))
		return false;
	return btfu_strip(btf, id) == btfu_strip(btf, want);
}
