// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One BTF walker for every output format.
 *
 * libbpf's btf_dump__dump_type_data() would do for text, but the libbpf we
 * build against (1.1) prints char arrays as lists of characters and has no
 * other form; a network engineer wants `dev->name = "lo"`, and a script
 * wants {"name":"lo"}.  So the walk over the bytes is ours.  It says what
 * it meets (a header, a struct, a member, an integer, a string, a cut, an
 * error pointer ...) and the format's methods (report.h's report_ops, in
 * report_text.c and report_json.c) and the writer say how; nothing here
 * knows which format it writes.  libbpf's btf_dump still spells the types
 * (btfu_type_str).
 *
 * Text skips members that are zero unless asked (as btf_dump and the kernel's
 * BTF show do); a format with every_member always has every member, so a
 * script can rely on keys.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "escape.h"
#include "print.h"
#include "tuple.h"
#include "writer.h"

/*
 * Values printed for one captured value, at most.  A real value is at most
 * KSNOOP_MAX_VALUE_BYTES and prints as fewer values than it has bytes; BTF
 * from a file can describe empty structs of empty structs that would print
 * forever.
 */
#define PRINT_MAX_NODES	65536

/*
 * Work per captured value, in steps: a member or element visited (printed
 * or left out), an enumerator compared, a member laid out or compared for
 * one use.  Nodes alone do not bound it: text skips zero members without
 * printing them, and BTF from a record file or a binary's .BTF can put
 * 65535 members in every struct.  A real value costs about a step a byte
 * (sk_buff, 232 bytes: a few hundred; 32 KiB of u8: 32768), so BASE plus
 * PER_BYTE for each captured byte is far above any of them and keeps the
 * work linear in what was captured (a step is tens of nanoseconds: a
 * 32 KiB value stops within about 0.1 s).  Past it the value is cut, and
 * says so.
 */
#define PRINT_STEPS_BASE	16384
#define PRINT_STEPS_PER_BYTE	64

/*
 * Steps to find a union's struct_groups (skip_struct_groups()), once per
 * type: the kernel's have two members of a few dozen; past this the rest
 * of the union's named structs are printed rather than compared.
 */
#define LAYOUT_GROUP_STEPS	(1 << 18)
/*
 * Candidates whose fingerprint matches a named struct's that are compared
 * member by member: more than one is a 64-bit collision, which hostile
 * BTF may contrive; a group not found prints twice, nothing is lost.
 */
#define LAYOUT_GROUP_TRIES	4

/*
 * Enums with more enumerators than this get an index, sorted by value
 * (found by binary search), built once per type; smaller ones are
 * scanned.  A value typed as an array of one-byte enums with 65535
 * enumerators scanned them all at each element.
 */
#define ENUM_SCAN_MAX		8
/* Enumerators indexed in all, per printer (16 bytes each: 4 MB). */
#define ENUM_INDEX_MAX		(1 << 18)

/*
 * A struct's or union's members as printing needs them: name, offset and
 * resolved type, found once per type rather than once per event (walking
 * each member's type through BTF was a third of the time to print a
 * struct-sized value).  Cached per printer by (BTF, type id), with a bound
 * on the members kept in all: past it, a layout is built for one use.
 */
struct member_layout {
	const char *name;		/* into the BTF */
	size_t name_len;
	char *key;			/* the name escaped for the writer's format, or NULL */
	size_t key_len;
	const struct btf_type *t;	/* the type, no typedef or modifier */
	__u32 sid;			/* its id */
	__u32 bit_off, bit_size;	/* offset in the struct; bitfield width or 0 */
	__s64 tsize;			/* the type's size */
	__s64 msize;			/* bytes the member spans (a bitfield's few) */
};

/* An enumerator by value: its value and index in the enum. */
struct enum_entry {
	__s64 v;
	__u32 i;
};

/* A struct's or union's members, or an enum's index (sorted by value, then index). */
struct struct_layout {
	const struct btf *btf;		/* NULL: a free slot */
	__u32 sid;
	__u32 n;
	struct member_layout *m;	/* a struct or union: its N members */
	struct enum_entry *e;		/* an enum: its N named enumerators */
};

#define LAYOUT_SLOTS		1024	/* power of two; half may fill */
#define LAYOUT_MAX_MEMBERS	65536	/* members cached in all (~3 MB) */

struct layout_cache {
	struct struct_layout slots[LAYOUT_SLOTS];
	size_t used, members, enumerators;
};

struct walk {
	struct writer *wr;
	const struct print_opts *opts;
	struct layout_cache **layouts;	/* the printer's, made on first use */
	const struct btf *btf;
	const struct report_ops *ops;	/* the format's */
	bool zeros;		/* zero members shown too (-z, or every_member) */
	bool truncated;		/* some member lay beyond the copied bytes */
	bool cut;		/* BTF nested deeper or wider than we print */
	bool worked_out;	/* ... or the value's steps ran out (cut too) */
	__u64 steps, max_steps;	/* work done for the value, and allowed */
	__u64 type_steps;	/* work done once per type (cached), beside it */
	int depth;		/* of nested values, up to BTFU_MAX_DEPTH */
	int nodes;		/* values printed, up to PRINT_MAX_NODES */
	/*
	 * --depth and --oneline: structs, unions and arrays open around the
	 * value as printed (anonymous ones flattened in are not), and how
	 * many may be (INT_MAX: all).  One deeper prints as {...}, and on
	 * one line is left out.
	 */
	int shown, max_shown;
	bool oneline;
	int room;		/* --oneline: members the open struct may still show */
	bool more;		/* --oneline: the open struct left some out */
};

/* A struct, union or array that is not a string: one level more, printed. */
static bool nests(const struct btf *btf, const struct btf_type *t)
{
	return t && (btf_is_composite(t) ||
		     (btf_is_array(t) && !btfu_is_char(btf, btf_array(t)->type)));
}

/* Whether one more level fits; if not, the output says it was cut. */
static bool walk_enter(struct walk *w)
{
	if (w->depth >= BTFU_MAX_DEPTH || w->nodes >= PRINT_MAX_NODES) {
		w->cut = true;
		return false;
	}
	w->depth++;
	w->nodes++;
	return true;
}

/* N steps more; false (and the value cut) when it has none left. */
static bool walk_step(struct walk *w, __u64 n)
{
	w->steps += n;
	if (w->steps > w->max_steps) {
		w->cut = w->worked_out = true;
		return false;
	}
	return true;
}

void printer__init(struct printer *p, FILE *out, const struct print_opts *opts)
{
	p->out = out;
	p->opts = *opts;
	p->ops = report__ops(opts->format);
	p->layouts = NULL;
	p->steps = 0;
	p->value_cut = PRINT_NOT_CUT;
	memset(p->labels, 0, sizeof(p->labels));
	p->perfetto = NULL;
	report__writer_init(&p->wr, out, p->ops);
	writer__set_oneline(&p->wr, opts->oneline);
}

static void free_members(struct member_layout *m, __u32 n);

void printer__fini(struct printer *p)
{
	size_t i;

	if (!p->layouts)
		return;
	for (i = 0; i < LAYOUT_SLOTS; i++) {
		free_members(p->layouts->slots[i].m, p->layouts->slots[i].n);
		free(p->layouts->slots[i].e);
	}
	free(p->layouts);
	p->layouts = NULL;
}

static bool all_zero(const unsigned char *d, size_t n)
{
	while (n--)
		if (*d++)
			return false;
	return true;
}

static __u64 load_uint(const void *data, size_t size)
{
	__u64 v = 0;

	memcpy(&v, data, size > 8 ? 8 : size);	/* little-endian */
	return v;
}

static __u64 bitfield_value(const unsigned char *data, __u32 bit_off, __u32 bit_size)
{
	__u64 v = load_uint(data, (bit_off + bit_size + 7) / 8) >> bit_off;

	return v & (bit_size >= 64 ? ~0ULL : ((1ULL << bit_size) - 1));
}

static void emit_int(struct walk *w, const struct btf_type *t, __s64 size, const void *data,
		     __u32 bit_off, __u32 bit_size)
{
	__u8 enc = btf_int_encoding(t);
	__u64 v;

	/* Hostile BTF may size an int 12 bytes: only 16 is an integer type. */
	if (size > 8 && size != 16) {
		writer__null(w->wr, "/* ? */");
		return;
	}
	if (size > 8 && !bit_size) {
		w->ops->int128(w->wr, load_uint((const char *)data + 8, 8), load_uint(data, 8));
		return;
	}
	if (bit_size) {
		v = bitfield_value(data, bit_off, bit_size);
		if ((enc & BTF_INT_SIGNED) && bit_size < 64 && (v >> (bit_size - 1)))
			v |= ~0ULL << bit_size;
	} else {
		v = load_uint(data, size);
		if ((enc & BTF_INT_SIGNED) && size && size < 8 && (v >> (8 * size - 1)))
			v |= ~0ULL << (8 * size);
	}
	if (enc & BTF_INT_BOOL)
		writer__bool(w->wr, v);
	else if (enc & BTF_INT_SIGNED)
		writer__int(w->wr, (__s64)v);
	else
		writer__uint(w->wr, v);
}

static void emit_char(struct walk *w, const void *data)
{
	w->ops->character(w->wr, *(const unsigned char *)data);
}

static const struct struct_layout *cached_enum_index(struct walk *w, const struct btf_type *t,
						     __u32 sid);

/* The first enumerator of enum T (type SID) with value V and a name; NULL: none. */
static const char *enum_name(struct walk *w, const struct btf_type *t, __u32 sid, __s64 v)
{
	const struct struct_layout *sl;
	int i, vlen = btf_vlen(t);
	const char *name;

	if (vlen > ENUM_SCAN_MAX && (sl = cached_enum_index(w, t, sid))) {
		size_t lo = 0, hi = sl->n, mid;

		walk_step(w, 1);
		while (lo < hi) {
			mid = lo + (hi - lo) / 2;
			if (sl->e[mid].v < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == sl->n || sl->e[lo].v != v)
			return NULL;
		btfu_enumerator(w->btf, t, sl->e[lo].i, &name);
		return name;
	}
	for (i = 0; i < vlen && walk_step(w, 1); i++)
		if (btfu_enumerator(w->btf, t, i, &name) == v && *name)
			return name;
	return NULL;
}

static void emit_enum(struct walk *w, const struct btf_type *t, __u32 sid, __s64 size,
		      const void *data, __u32 bit_off, __u32 bit_size)
{
	__u32 bits = bit_size ? bit_size : 8 * t->size;
	__s64 v = bit_size ? (__s64)bitfield_value(data, bit_off, bit_size) :
			     (__s64)load_uint(data, size);
	const char *name;

	if (btf_kflag(t) && bits && bits < 64 && ((__u64)v >> (bits - 1)))
		v |= (__s64)(~0ULL << bits);
	name = enum_name(w, t, sid, v);
	if (name)
		writer__name(w->wr, name);
	else if (btf_kflag(t))
		writer__int(w->wr, v);
	else
		writer__uint(w->wr, v);
}

/*
 * A pointer: its address.  A function pointer also names its function
 * (the format's func_ptr: "0xffffffff81a2b3c0 <sock_wfree>" in text).
 * SIZE is the BTF's pointer size: 4 in BTF whose 'long' is 4 bytes.
 */
static void emit_ptr(struct walk *w, const struct btf_type *t, __s64 size, const void *data)
{
	const struct btf_type *pt = btf__type_by_id(w->btf, btfu_strip(w->btf, t->type));
	__u64 v = load_uint(data, size);
	char sym[160];

	if (!v) {
		writer__null(w->wr, "NULL");
		return;
	}
	if (!pt || !btf_is_func_proto(pt) || !w->opts->symbolize ||
	    w->opts->symbolize(w->opts->sym_ctx, v, sym, sizeof(sym))) {
		writer__hex(w->wr, v);
		return;
	}
	w->ops->func_ptr(w->wr, v, sym);
}

static void emit_float(struct walk *w, __s64 size, const void *data)
{
	char buf[40];
	double d;
	float f;

	if (size != 4 && size != 8) {
		writer__null(w->wr, "/* float */");
		return;
	}
	if (size == 4) {
		memcpy(&f, data, 4);
		d = f;
	} else {
		memcpy(&d, data, 8);
	}
	snprintf(buf, sizeof(buf), size == 4 ? "%.9g" : "%.17g", d);
	/* NULL: a format without NaN or infinity writes no value (writer__raw()). */
	writer__raw(w->wr, buf, isfinite(d) ? buf : NULL);
}

static void emit(struct walk *w, __u32 id, const unsigned char *data, size_t avail,
		 int level, __u32 bit_off, __u32 bit_size);

static void emit_array(struct walk *w, const struct btf_type *t, const unsigned char *data,
		       size_t avail, int level)
{
	const struct btf_array *a = btf_array(t);
	__s64 esize = btf__resolve_size(w->btf, a->type);
	const struct btf_type *et = btf__type_by_id(w->btf, btfu_strip(w->btf, a->type));
	bool rows = et && (btf_is_composite(et) || btf_is_array(et));
	__u32 i, n = a->nelems;

	if (btfu_is_char(w->btf, a->type)) {
		size_t len = n < avail ? n : avail;

		/*
		 * Up to the last non-zero byte, not the first NUL: a char
		 * array may hold more than a C string (sockaddr's sa_data
		 * holds a port and an address), and those bytes are shown,
		 * escaped, never cut silently.
		 */
		while (len && !data[len - 1])
			len--;
		writer__string(w->wr, (const char *)data, len);
		return;
	}
	w->shown++;
	writer__begin_array(w->wr, rows ? WRITER_ROWS : WRITER_STRUCT, level);
	for (i = 0; i < n && esize > 0 && !w->cut && walk_step(w, 1); i++) {
		if ((size_t)(i + 1) * esize > avail) {
			w->truncated = true;
			break;
		}
		if (w->oneline && i == PRINT_ONELINE_MEMBERS) {
			writer__ellipsis(w->wr);
			break;
		}
		emit(w, a->type, data + i * esize, esize, level + 1, 0, 0);
	}
	writer__end_array(w->wr);
	w->shown--;
}

static void emit_kind(struct walk *w, const struct btf_type *t, __u32 sid, __s64 size,
		      const unsigned char *data, size_t avail, int level,
		      __u32 bit_off, __u32 bit_size);

/* A value whose type is resolved already: T is type SID (no typedef or modifier), SIZE bytes. */
static void emit_resolved(struct walk *w, const struct btf_type *t, __u32 sid, __s64 size,
			  const unsigned char *data, size_t avail, int level,
			  __u32 bit_off, __u32 bit_size)
{
	if (!t || sid == 0) {
		writer__null(w->wr, "void");
		return;
	}
	if (!walk_enter(w)) {
		writer__null(w->wr, "/* ... */");
		return;
	}
	emit_kind(w, t, sid, size, data, avail, level, bit_off, bit_size);
	w->depth--;
}

static void emit(struct walk *w, __u32 id, const unsigned char *data, size_t avail,
		 int level, __u32 bit_off, __u32 bit_size)
{
	__u32 sid = btfu_strip(w->btf, id);

	emit_resolved(w, btf__type_by_id(w->btf, sid), sid, btf__resolve_size(w->btf, sid),
		      data, avail, level, bit_off, bit_size);
}

/*
 * Member names compared this far at most: the kernel's KSYM_NAME_LEN, so
 * no name it loads is longer, while BTF from a file may hold one name of
 * megabytes that every member repeats.
 */
#define LAYOUT_NAME_MAX		512

/*
 * True when structs A and B have the same members (names, types, offsets):
 * the kernel's struct_group() puts one struct twice into a union, anonymous
 * and named (sk_buff's 'headers'), over the same bytes.
 */
static bool same_members(const struct btf *btf, const struct btf_type *a,
			 const struct btf_type *b)
{
	const struct btf_member *ma = btf_members(a), *mb = btf_members(b);
	__u32 i, n = btf_vlen(a);

	if (a->size != b->size || n != btf_vlen(b) || n == 0)
		return false;
	for (i = 0; i < n; i++, ma++, mb++)
		if (btf_member_bit_offset(a, i) != btf_member_bit_offset(b, i) ||
		    btf_member_bitfield_size(a, i) != btf_member_bitfield_size(b, i) ||
		    btfu_strip(btf, ma->type) != btfu_strip(btf, mb->type) ||
		    (ma->name_off != mb->name_off &&
		     strncmp(btfu_name(btf, ma->name_off), btfu_name(btf, mb->name_off),
			     LAYOUT_NAME_MAX)))
			return false;
	return true;
}

static __u64 fp_mix(__u64 h, __u64 v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

/* What same_members() compares, hashed: equal structs, equal fingerprints. */
static __u64 members_fingerprint(const struct btf *btf, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	__u32 i, n = btf_vlen(t);
	__u64 h = fp_mix(t->size, n);

	for (i = 0; i < n; i++, m++) {
		const char *name = btfu_name(btf, m->name_off);
		size_t k, len = strnlen(name, LAYOUT_NAME_MAX);

		h = fp_mix(h, btf_member_bit_offset(t, i));
		h = fp_mix(h, btf_member_bitfield_size(t, i));
		h = fp_mix(h, btfu_strip(btf, m->type));
		for (k = 0; k < len; k++)
			h = (h ^ (unsigned char)name[k]) * 0x100000001b3ULL;
		h = fp_mix(h, len);
	}
	return h;
}

/* A union's struct member: its index, type and fingerprint. */
struct group_cand {
	__u64 fp;
	__u32 sid;
	__u32 idx;
};

static int cand_by_sid(const void *a, const void *b)
{
	const struct group_cand *x = a, *y = b;

	if (x->sid != y->sid)
		return x->sid < y->sid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cand_by_fp(const void *a, const void *b)
{
	const struct group_cand *x = a, *y = b;

	if (x->fp != y->fp)
		return x->fp < y->fp ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The first of ANON[N] (sorted by fingerprint) with fingerprint FP, or N. */
static __u32 first_with_fp(const struct group_cand *anon, __u32 n, __u64 fp)
{
	__u32 lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (anon[mid].fp < fp)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && anon[lo].fp == fp ? lo : n;
}

/*
 * A union's named struct member that repeats an anonymous sibling member by
 * member (a struct_group) is left out (msize -1): its members are printed
 * once, through the anonymous struct, as the code names them.
 *
 * Comparing every named member with every anonymous one, member by member,
 * was cubic (a union of N of each, N members apiece: minutes for a record
 * file of a kilobyte).  Each distinct struct is fingerprinted once, the
 * anonymous ones sorted by fingerprint, and each distinct named struct
 * compared in full only with the few whose fingerprint it shares: linear
 * in the BTF the union refers to, and within LAYOUT_GROUP_STEPS.  Returns
 * the steps taken.
 */
static __u64 skip_struct_groups(const struct btf *btf, const struct btf_type *t,
				struct member_layout *m)
{
	__u32 i, j, k, tries, n = btf_vlen(t), nc = 0, na = 0;
	struct group_cand *c, *anon;
	__u64 steps = n;

	c = calloc(2 * (size_t)(n ? n : 1), sizeof(*c));
	if (!c)
		return steps;
	anon = c + n;
	for (i = 0; i < n; i++)
		if (m[i].t && btf_is_struct(m[i].t) && btf_vlen(m[i].t))
			c[nc++] = (struct group_cand){ .sid = m[i].sid, .idx = i };
	/* One fingerprint per distinct struct. */
	qsort(c, nc, sizeof(*c), cand_by_sid);
	for (i = 0; i < nc; i = j) {
		steps += btf_vlen(m[c[i].idx].t);
		if (steps > LAYOUT_GROUP_STEPS)
			goto out;
		c[i].fp = members_fingerprint(btf, m[c[i].idx].t);
		for (j = i + 1; j < nc && c[j].sid == c[i].sid; j++)
			c[j].fp = c[i].fp;
	}
	for (i = 0; i < nc; i++)
		if (!m[c[i].idx].name_len)
			anon[na++] = c[i];
	qsort(anon, na, sizeof(*anon), cand_by_fp);
	/* Each distinct named struct against the anonymous ones that share its fingerprint. */
	for (i = 0; i < nc; i = j) {
		const struct btf_type *nt = m[c[i].idx].t;
		bool named = false, group = false;

		for (j = i; j < nc && c[j].sid == c[i].sid; j++)
			named |= m[c[j].idx].name_len != 0;
		if (!named)
			continue;
		for (k = first_with_fp(anon, na, c[i].fp), tries = 0;
		     k < na && anon[k].fp == c[i].fp && tries < LAYOUT_GROUP_TRIES && !group;
		     k++, tries++) {
			steps += btf_vlen(nt);
			if (steps > LAYOUT_GROUP_STEPS)
				goto out;
			group = anon[k].sid == c[i].sid ||
				same_members(btf, nt, m[anon[k].idx].t);
		}
		for (k = i; group && k < j; k++)
			if (m[c[k].idx].name_len)
				m[c[k].idx].msize = -1;
	}
out:
	free(c);
	return steps;
}

/* T's members into M (btf_vlen(T) of them), their names escaped for W; the steps it took. */
static __u64 layout_members(struct walk *w, const struct btf_type *t, struct member_layout *m)
{
	const struct btf_member *bm = btf_members(t);
	const struct btf *btf = w->btf;
	__u32 i, vlen = btf_vlen(t);
	__u64 steps = vlen;

	for (i = 0; i < vlen; i++, bm++, m++) {
		m->name = btfu_name(btf, bm->name_off);
		m->name_len = strlen(m->name);
		m->key = m->name_len ? writer__escape_name(w->wr, m->name, &m->key_len) : NULL;
		m->sid = btfu_strip(btf, bm->type);
		m->t = btf__type_by_id(btf, m->sid);
		m->tsize = btf__resolve_size(btf, m->sid);
		m->bit_off = btf_member_bit_offset(t, i);
		m->bit_size = btf_member_bitfield_size(t, i);
		m->msize = m->bit_size ? (m->bit_off % 8 + m->bit_size + 7) / 8 : m->tsize;
	}
	if (btf_is_union(t))
		steps += skip_struct_groups(btf, t, m - vlen);
	return steps;
}

static void free_members(struct member_layout *m, __u32 n)
{
	__u32 i;

	for (i = 0; m && i < n; i++)
		free(m[i].key);
	free(m);
}

static size_t layout_slot(const struct btf *btf, __u32 sid)
{
	return ((uintptr_t)btf / 64 * 31 + sid * 2654435761u) & (LAYOUT_SLOTS - 1);
}

/*
 * The cache's slot for type SID of W's BTF: its layout, or the free slot
 * where it goes (at most half are used: there is one).  NULL: no cache.
 */
static struct struct_layout *layout_slot_of(struct walk *w, __u32 sid)
{
	struct layout_cache *lc = *w->layouts;
	struct struct_layout *sl;
	size_t i;

	if (!lc && !(lc = *w->layouts = calloc(1, sizeof(*lc))))
		return NULL;
	for (i = layout_slot(w->btf, sid);; i = (i + 1) & (LAYOUT_SLOTS - 1)) {
		sl = &lc->slots[i];
		if (sl->btf == w->btf && sl->sid == sid)
			return sl;
		if (!sl->btf)
			return sl;
	}
}

/*
 * The cached layout of struct or union T (type SID), or NULL when the cache
 * is full or cannot be made: the caller builds one for this use alone.
 */
static const struct struct_layout *cached_layout(struct walk *w, const struct btf_type *t,
						 __u32 sid)
{
	struct struct_layout *sl = layout_slot_of(w, sid);
	struct layout_cache *lc = *w->layouts;

	if (!sl || sl->btf)
		return sl;
	if (lc->used >= LAYOUT_SLOTS / 2 || lc->members + btf_vlen(t) > LAYOUT_MAX_MEMBERS)
		return NULL;
	sl->n = btf_vlen(t);
	sl->m = calloc(sl->n ? sl->n : 1, sizeof(*sl->m));
	if (!sl->m)
		return NULL;
	w->type_steps += layout_members(w, t, sl->m);
	sl->btf = w->btf;
	sl->sid = sid;
	lc->used++;
	lc->members += sl->n;
	return sl;
}

static int entry_by_value(const void *a, const void *b)
{
	const struct enum_entry *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The index of enum T (type SID): its named enumerators sorted by value,
 * then by index, so the first of a value is the one a scan would find.
 * NULL when the cache is full or cannot be made: the caller scans.
 */
static const struct struct_layout *cached_enum_index(struct walk *w, const struct btf_type *t,
						     __u32 sid)
{
	struct struct_layout *sl = layout_slot_of(w, sid);
	struct layout_cache *lc = *w->layouts;
	__u32 i, vlen = btf_vlen(t);
	const char *name;

	if (!sl || sl->btf)
		return sl && sl->e ? sl : NULL;
	if (lc->used >= LAYOUT_SLOTS / 2 || lc->enumerators + vlen > ENUM_INDEX_MAX)
		return NULL;
	sl->e = calloc(vlen ? vlen : 1, sizeof(*sl->e));
	if (!sl->e)
		return NULL;
	sl->n = 0;
	for (i = 0; i < vlen; i++) {
		__s64 v = btfu_enumerator(w->btf, t, i, &name);

		if (*name)
			sl->e[sl->n++] = (struct enum_entry){ .v = v, .i = i };
	}
	qsort(sl->e, sl->n, sizeof(*sl->e), entry_by_value);
	w->type_steps += vlen;
	sl->btf = w->btf;
	sl->sid = sid;
	lc->used++;
	lc->enumerators += vlen;
	return sl;
}

static void emit_member_list(struct walk *w, const struct member_layout *m, __u32 n,
			     const unsigned char *data, size_t avail, int level);

/* Members of struct or union T (type SID); anonymous members are flattened in. */
static void emit_members(struct walk *w, const struct btf_type *t, __u32 sid,
			 const unsigned char *data, size_t avail, int level)
{
	const struct struct_layout *sl = cached_layout(w, t, sid);
	struct member_layout *m;

	if (sl) {
		emit_member_list(w, sl->m, sl->n, data, avail, level);
		return;
	}
	m = calloc(btf_vlen(t) ? btf_vlen(t) : 1, sizeof(*m));
	if (!m) {
		writer__null(w->wr, "/* out of memory */");
		return;
	}
	/* Built for this use alone: the value's work. */
	walk_step(w, layout_members(w, t, m));
	emit_member_list(w, m, btf_vlen(t), data, avail, level);
	free_members(m, btf_vlen(t));
}

/*
 * --oneline: whether the open struct shows a member of type T, one of its
 * first PRINT_ONELINE_MEMBERS within the depth; if not, it says "...".
 */
static bool oneline_room(struct walk *w, const struct btf_type *t)
{
	if (w->room <= 0 || (nests(w->btf, t) && w->shown >= w->max_shown)) {
		w->more = true;
		return false;
	}
	w->room--;
	return true;
}

static void emit_member_list(struct walk *w, const struct member_layout *m, __u32 n,
			     const unsigned char *data, size_t avail, int level)
{
	__u32 i;

	for (i = 0; i < n && !w->cut && walk_step(w, 1); i++, m++) {
		__u32 off = m->bit_off, bsz = m->bit_size;

		if (m->msize < 0)
			continue;
		if ((size_t)(off / 8 + m->msize) > avail) {
			w->truncated = true;
			break;
		}
		if (!m->name_len && m->t && btf_is_composite(m->t)) {
			if (walk_enter(w)) {
				emit_members(w, m->t, m->sid, data + off / 8, avail - off / 8, level);
				w->depth--;
			}
			continue;
		}
		/* Text leaves out zeros, and markers that hold no bytes at all. */
		if (!w->ops->every_member && (m->msize == 0 ||
				 (!w->zeros &&
				  (bsz ? !bitfield_value(data + off / 8, off % 8, bsz) :
					 all_zero(data + off / 8, m->msize)))))
			continue;
		if (w->oneline && !oneline_room(w, m->t))
			continue;
		if (m->key)
			writer__key_escaped(w->wr, m->key, m->key_len);
		else
			writer__key_n(w->wr, m->name, m->name_len);
		emit_resolved(w, m->t, m->sid, m->tsize, data + off / 8, avail - off / 8, level + 1,
			      bsz ? off % 8 : 0, bsz);
	}
}

/*
 * Whether the bytes a scalar's reader loads lie inside the AVAIL bytes of
 * the value, whatever the BTF claims: each reader loads at most SIZE bytes
 * (the type's, a pointer's the BTF's pointer size), a bitfield's reader
 * its few.  Only integers and enums have bitfields: the kernel refuses BTF
 * with others, and a pointer "bitfield" of one byte was once read as 8.
 */
static bool scalar_fits(struct walk *w, const struct btf_type *t, __s64 size, size_t avail,
			__u32 bit_off, __u32 bit_size)
{
	if (bit_size && !btf_is_int(t) && !btf_is_any_enum(t)) {
		writer__null(w->wr, "/* ? */");
		return false;
	}
	if (!bit_size && size < 0) {
		writer__null(w->wr, "/* ? */");
		return false;
	}
	if ((bit_size ? (bit_off + (__u64)bit_size + 7) / 8 : (__u64)size) > avail) {
		w->truncated = true;
		writer__null(w->wr, "/* truncated */");
		return false;
	}
	return true;
}

/* A struct or union T (type SID), its members one level deeper. */
static void emit_struct(struct walk *w, const struct btf_type *t, __u32 sid,
			const unsigned char *data, size_t avail, int level)
{
	int room = w->room;
	bool more = w->more;

	w->shown++;
	w->room = PRINT_ONELINE_MEMBERS;
	w->more = false;
	writer__begin_object(w->wr, WRITER_STRUCT, level);
	emit_members(w, t, sid, data, avail, level);
	if (w->oneline && w->more)
		writer__ellipsis(w->wr);
	writer__end_object(w->wr);
	w->room = room;
	w->more = more;
	w->shown--;
}

static void emit_kind(struct walk *w, const struct btf_type *t, __u32 sid, __s64 size,
		      const unsigned char *data, size_t avail, int level,
		      __u32 bit_off, __u32 bit_size)
{
	if (!btf_is_composite(t) && !btf_is_array(t) &&
	    !scalar_fits(w, t, size, avail, bit_off, bit_size))
		return;
	if (w->shown >= w->max_shown && nests(w->btf, t)) {
		writer__null(w->wr, "{...}");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		if (!bit_size && size == 1 && btfu_is_char(w->btf, sid))
			emit_char(w, data);
		else
			emit_int(w, t, size, data, bit_off, bit_size);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		emit_enum(w, t, sid, size, data, bit_off, bit_size);
		break;
	case BTF_KIND_PTR:
		emit_ptr(w, t, size, data);
		break;
	case BTF_KIND_FLOAT:
		emit_float(w, size, data);
		break;
	case BTF_KIND_ARRAY:
		emit_array(w, t, data, avail, level);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		emit_struct(w, t, sid, data, avail, level);
		break;
	default:
		writer__null(w->wr, "/* ? */");
	}
}

/* "VALUE >> N": the integer shifted as C shifts its type; in hex with :hex. */
static void emit_shifted(struct walk *w, const struct value_desc *vd, const void *data,
			 size_t avail)
{
	__s64 size = btf__resolve_size(w->btf, vd->type_id);
	bool is_signed = btfu_is_signed(w->btf, vd->type_id);
	__u64 u;

	if (vd->bit_size)
		size = (vd->bit_off + vd->bit_size + 7) / 8;
	if (size <= 0 || size > 8 || (size_t)size > avail) {
		writer__null(w->wr, "/* ? */");
		return;
	}
	u = vd->bit_size ? bitfield_value(data, vd->bit_off, vd->bit_size) : load_uint(data, size);
	if (vd->bit_size)
		size = 0;	/* a bitfield's value is its bits: no sign to extend */
	if (is_signed && size && size < 8 && (u >> (8 * size - 1)))
		u |= ~0ULL << (8 * size);
	if (vd->fmt == FMT_HEX)
		writer__hex(w->wr, u >> vd->shift);
	else if (is_signed)
		writer__int(w->wr, (__s64)u >> vd->shift);
	else
		writer__uint(w->wr, u >> vd->shift);
}

/*
 * ":signal": 1 to 31 by glibc's names (sigabbrev_np(), the kernel's
 * numbers on x86 and arm64), 32 to 64 as the kernel's real-time signals
 * SIGRT_N (strace's spelling: glibc's SIGRTMIN moves with the threads
 * library), anything else as the number.
 */
#define SIG_KERNEL_RTMIN	32
#define SIG_KERNEL_RTMAX	64

static void emit_signal(struct walk *w, __u32 id, const void *data, __s64 size)
{
	__u64 u = load_uint(data, size);
	__s64 v = (__s64)u;
	const char *abbrev;
	char name[32];

	if (btfu_is_signed(w->btf, id) && size < 8 && (u >> (8 * size - 1)))
		v = (__s64)(u | ~0ULL << (8 * size));
	abbrev = v > 0 && v < SIG_KERNEL_RTMIN ? sigabbrev_np((int)v) : NULL;
	if (abbrev)
		snprintf(name, sizeof(name), "SIG%s", abbrev);
	else if (v >= SIG_KERNEL_RTMIN && v <= SIG_KERNEL_RTMAX)
		snprintf(name, sizeof(name), "SIGRT_%d", (int)(v - SIG_KERNEL_RTMIN));
	else {
		writer__int(w->wr, v);
		if (v)
			writer__comment(w->wr, "no such signal");
		return;
	}
	writer__name(w->wr, name);
}

/*
 * A value with a ":FORMAT" (the resolver checked that it fits): ":hex" an
 * integer, pointer or byte array in hex, ":be" a big-endian integer in host
 * order, ":ip" 4 or 16 bytes as an address, ":sym" a kernel address by
 * name.  Bytes short of the value (a failed or truncated read) print as
 * unknown.
 */
static void emit_formatted(struct walk *w, const struct value_desc *vd, __u32 id,
			   const unsigned char *data, size_t avail)
{
	const struct btf_type *t = btf__type_by_id(w->btf, btfu_strip(w->btf, id));
	__s64 size = btf__resolve_size(w->btf, id);
	char text[64], sym[160];
	print_symbolize_fn symbolize;
	__u64 v = 0;

	if (vd->bit_size)
		size = (vd->bit_off + vd->bit_size + 7) / 8;
	if (!t || size <= 0 || (size_t)size > avail) {
		writer__null(w->wr, "/* ? */");
		return;
	}
	switch (vd->fmt) {
	case FMT_HEX:
		if (btf_is_array(t)) {
			char hex[2 * 64 + 1];
			__s64 i, n = size < 64 ? size : 64;

			for (i = 0; i < n; i++)
				snprintf(hex + 2 * i, 3, "%02x", data[i]);
			writer__name(w->wr, hex);
			if (n < size)
				writer__comment(w->wr, "first %lld of %lld bytes", (long long)n,
						(long long)size);
			return;
		}
		v = vd->bit_size ? bitfield_value(data, vd->bit_off, vd->bit_size) :
				   load_uint(data, size);
		writer__hex(w->wr, v);
		return;
	case FMT_BE:
		for (__s64 i = 0; i < size; i++)
			v = v << 8 | data[i];
		if (btfu_is_signed(w->btf, id) && size < 8 && (v >> (8 * size - 1)))
			v |= ~0ULL << (8 * size);
		if (btfu_is_signed(w->btf, id))
			writer__int(w->wr, (__s64)v);
		else
			writer__uint(w->wr, v);
		return;
	case FMT_IP:
		/* An IPv6 address is read as 16 bytes: only if the value has them. */
		if ((size != 4 && size != 16) ||
		    !inet_ntop(size == 4 ? AF_INET : AF_INET6, data, text, sizeof(text))) {
			writer__null(w->wr, "/* ? */");
			return;
		}
		writer__name(w->wr, text);
		return;
	case FMT_SYM:
		v = load_uint(data, size);	/* a pointer may be 4 bytes in BTF from a file */
		symbolize = w->opts->symbolize_any ? w->opts->symbolize_any : w->opts->symbolize;
		if (!v) {
			writer__null(w->wr, "NULL");
		} else if (symbolize && !symbolize(w->opts->sym_ctx, v, sym, sizeof(sym))) {
			w->ops->addr_sym(w->wr, v, sym);
		} else {
			writer__hex(w->wr, v);
			writer__comment(w->wr, "no symbol");
		}
		return;
	case FMT_SIGNAL:
		emit_signal(w, id, data, size);
		return;
	case FMT_STR:
	case FMT_STRV:		/* PRINT_STRV: print_strv() */
	case FMT_TUPLE:		/* PRINT_*_TUPLE: print_tuple() */
	case FMT_TCPSTATE:	/* the resolver made it the kernel's enum */
	case FMT_NONE:
	case FMT_NR:
		break;
	}
	writer__null(w->wr, "/* ? */");
}

/*
 * An errno's name: glibc's for those user space sees (1 to 133 on Linux,
 * strerrorname_np()), the kernel's own for those it keeps to itself
 * (include/linux/errno.h: a syscall restarted, a driver's probe put off,
 * NFS's); NULL when neither has one.
 */
static const char *errno_name(int err)
{
	static const char *const kernel_only[] = {
		"ERESTARTSYS", "ERESTARTNOINTR", "ERESTARTNOHAND", "ENOIOCTLCMD",
		"ERESTART_RESTARTBLOCK", "EPROBE_DEFER", "EOPENSTALE", "ENOPARAM",
		NULL, "EBADHANDLE", "ENOTSYNC", "EBADCOOKIE", "ENOTSUPP", "ETOOSMALL",
		"ESERVERFAULT", "EBADTYPE", "EJUKEBOX", "EIOCBQUEUED", "ERECALLCONFLICT",
		"ENOGRACE",
	};
	size_t n = sizeof(kernel_only) / sizeof(kernel_only[0]);

	if (err >= 512 && (size_t)(err - 512) < n)
		return kernel_only[err - 512];
	return err > 0 && err < 512 ? strerrorname_np(err) : NULL;
}

/*
 * The errno a return code holds (vd->errno_names): 1 to 4095, or 0 for
 * none.  An error pointer comes from BPF as a status (KSNOOP_ERR_PTR, the
 * pointer in addr: never read); a value printed as itself (an int, a
 * pointer to nothing known) in its bytes.
 */
static int return_errno(const struct value_desc *vd, const struct ksnoop_value *vh,
			const void *data)
{
	size_t avail = vh->len < vd->size ? vh->len : vd->size;
	__u32 st = vh->status & KSNOOP_STATUS_MASK;
	__s64 v;

	if (!vd->errno_names)
		return 0;
	if (st == KSNOOP_ERR_PTR)
		v = (__s64)vh->addr;
	else if (st == KSNOOP_OK && vd->how == PRINT_VALUE && (avail == 4 || avail == 8))
		v = avail == 4 ? (__s32)load_uint(data, 4) : (__s64)load_uint(data, 8);
	else
		return 0;
	return v < 0 && v >= -KSNOOP_MAX_ERRNO ? (int)-v : 0;
}

/*
 * A return code that is an error: an int (-2) or a pointer (an ERR_PTR),
 * its errno's name with it as the format puts it.
 */
static void print_error_code(struct printer *p, const struct btf *btf,
			     const struct value_desc *vd, int err)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, vd->type_id));

	p->ops->error_code(&p->wr, err, errno_name(err), t && btf_is_ptr(t));
}

/*
 * Beside a return code that is an error with a name, the name ("errno"),
 * for a format that puts it there (text has it in the value).
 */
static void print_errno_beside(struct printer *p, const struct value_desc *vd,
			       const struct ksnoop_value *vh, const void *data)
{
	const char *name;

	if (!vd->errno_names || !(name = errno_name(return_errno(vd, vh, data))))
		return;
	p->ops->beside(&p->wr, vd->text, "errno", name);
}

/*
 * Beside a value a limit cut short: "work limit" (or "BTF limit": nested
 * too deep, too many values); text says so in a comment after the value.
 */
static void print_cut_beside(struct printer *p, const struct value_desc *vd)
{
	if (p->value_cut == PRINT_NOT_CUT)
		return;
	p->ops->beside(&p->wr, vd->text, "cut",
		       p->value_cut == PRINT_CUT_WORK ? "work limit" : "BTF limit");
}

static const char *status_reason(__u32 status)
{
	switch (status & KSNOOP_STATUS_MASK) {
	case KSNOOP_FAULT: return "could not read memory";
	case KSNOOP_NULL: return "NULL pointer along the chain";
	default: return "unknown capture status";
	}
}

/* A value that could not be captured: why, and where from if known. */
static void print_failure(struct printer *p, const struct ksnoop_value *vh)
{
	const char *why = status_reason(vh->status);
	bool err_ptr = (vh->status & KSNOOP_STATUS_MASK) == KSNOOP_ERR_PTR;
	char reason[64];

	/* An error pointer before the value: its errno says all its address would. */
	if (err_ptr) {
		/* Unsigned: a record file's ERR_PTR may hold any address (INT64_MIN too). */
		int err = (int)(0 - vh->addr);
		const char *name = errno_name(err);

		if (name)
			snprintf(reason, sizeof(reason), "ERR_PTR(-%s) along the chain", name);
		else
			snprintf(reason, sizeof(reason), "ERR_PTR(-%d) along the chain", err);
		why = reason;
	}
	p->ops->failure(&p->wr, why, vh->addr, err_ptr);
}

/* ':tuple': the captured fields parsed (tuple.c), then written. */
static void print_tuple(struct writer *wr, const struct value_desc *vd, const void *data,
			size_t avail, int level)
{
	struct tuple t;

	if (vd->how == PRINT_SKB_TUPLE)
		tuple__from_skb(data, avail, &t);
	else
		tuple__from_sock(data, avail, &t);
	tuple__write(wr, &t, level);
}

/*
 * ':strv': the kept strings of a struct ksnoop_strv as a list, each
 * escaped, "..." after one cut at KSNOOP_STRV_STR bytes, an unreadable
 * one (or pointer) as any unreadable memory prints.  The record may come
 * from a file: N and every length are bounded by the AVAIL bytes.
 */
static void print_strv(struct printer *p, const struct ksnoop_value *vh, const void *data,
		       size_t avail)
{
	const size_t hdr = offsetof(struct ksnoop_strv, bytes);
	const struct ksnoop_strv *sv = data;
	size_t off = 0, room = avail > hdr ? avail - hdr : 0, len;
	unsigned int i, n, cut = 0;

	if (avail < hdr) {
		writer__null(&p->wr, "/* truncated */");
		return;
	}
	n = sv->n < KSNOOP_STRV_MAX ? sv->n : KSNOOP_STRV_MAX;
	writer__begin_array(&p->wr, WRITER_STRUCT, 0);
	for (i = 0; i < n && off <= room; i++) {
		if ((sv->st[i] & KSNOOP_STATUS_MASK) == KSNOOP_FAULT) {
			p->ops->failure(&p->wr, status_reason(KSNOOP_FAULT), sv->ptr[i], false);
			continue;
		}
		len = sv->len[i] < room - off ? sv->len[i] : room - off;
		writer__string(&p->wr, sv->bytes + off, strnlen(sv->bytes + off, len));
		if ((sv->st[i] & KSNOOP_STATUS_MASK) == KSNOOP_TRUNCATED) {
			writer__text(&p->wr, "...");
			cut++;
		}
		off += len;
	}
	if (sv->flags & KSNOOP_STRV_UNREAD)
		p->ops->failure(&p->wr, status_reason(KSNOOP_FAULT), vh->addr + 8ULL * n, false);
	if (sv->flags & KSNOOP_STRV_MORE)
		writer__ellipsis(&p->wr);
	writer__end_array(&p->wr);
	if (sv->flags & KSNOOP_STRV_MORE)
		writer__comment(&p->wr, "truncated after %u strings", n);
	if (cut)
		writer__comment(&p->wr, "%u cut at %u bytes", cut, KSNOOP_STRV_STR - 1);
}

/* ':strv' cut by a bound, beside it: "strings" (more of them), "bytes" (a long one). */
static void print_strv_beside(struct printer *p, const struct value_desc *vd,
			      const struct ksnoop_value *vh, const void *data)
{
	const struct ksnoop_strv *sv = data;
	size_t avail = vh->len < vd->size ? vh->len : vd->size;
	bool more, cut = false;
	unsigned int i;

	if (vd->how != PRINT_STRV || avail < offsetof(struct ksnoop_strv, bytes) ||
	    (vh->status & KSNOOP_STATUS_MASK) != KSNOOP_TRUNCATED)
		return;
	more = sv->flags & KSNOOP_STRV_MORE;
	for (i = 0; i < sv->n && i < KSNOOP_STRV_MAX; i++)
		cut |= (sv->st[i] & KSNOOP_STATUS_MASK) == KSNOOP_TRUNCATED;
	if (more || cut)
		p->ops->beside(&p->wr, vd->text, "truncated",
			       more && cut ? "strings, bytes" : more ? "strings" : "bytes");
}

/* Structs, unions and arrays shown around a value, at most (every_member: all). */
static int print_max_depth(const struct print_opts *o, bool every_member)
{
	if (every_member)
		return INT_MAX;
	if (o->limit_depth)
		return o->max_depth;
	return o->oneline ? 1 : INT_MAX;
}

void printer__value(struct printer *p, const struct btf *btf,
		    const struct value_desc *vd, const struct ksnoop_value *vh,
		    const void *data, int level)
{
	struct walk w = {
		.wr = &p->wr, .opts = &p->opts, .layouts = &p->layouts, .btf = btf, .ops = p->ops,
		.zeros = p->opts.zeros, .max_shown = print_max_depth(&p->opts, p->ops->every_member),
		.oneline = p->opts.oneline && !p->ops->every_member,
	};
	size_t avail = vh->len < vd->size ? vh->len : vd->size;
	__u32 st = vh->status & KSNOOP_STATUS_MASK;
	int err = return_errno(vd, vh, data);

	w.max_steps = PRINT_STEPS_BASE + PRINT_STEPS_PER_BYTE * (__u64)avail;
	p->value_cut = PRINT_NOT_CUT;
	if (err) {
		print_error_code(p, btf, vd, err);
		return;
	}
	/* A returned pointer that is NULL is just that, not a failed read. */
	if (st == KSNOOP_NULL && vd->errno_names) {
		writer__null(&p->wr, "NULL");
		return;
	}
	if (st != KSNOOP_OK && st != KSNOOP_TRUNCATED) {
		print_failure(p, vh);
		return;
	}
	switch (vd->how) {
	case PRINT_STACK:
	case PRINT_USTACK:
		/* printer__event() prints stacks; here only a placeholder. */
		writer__null(&p->wr, "/* stack */");
		return;
	case PRINT_SKB_PACKET:
		/* --pcap's packets go to its file (print_values() leaves them out). */
		writer__null(&p->wr, "/* packet */");
		return;
	case PRINT_STRING:
		writer__string(&p->wr, data, strnlen(data, avail));
		if (st == KSNOOP_TRUNCATED) {
			writer__text(&p->wr, "...");
			writer__comment(&p->wr, "truncated at %u bytes", vd->size);
		}
		break;
	case PRINT_STRV:
		print_strv(p, vh, data, avail);
		break;
	case PRINT_BYTES:
		p->ops->pointer_to(p, vh->addr, btf, NULL);
		writer__string(&p->wr, data, avail);
		break;
	case PRINT_DEREF:
		if (vd->fmt) {
			emit_formatted(&w, vd, vd->obj_id, data, avail);
			break;
		}
		p->ops->pointer_to(p, vh->addr, btf, vd);
		emit(&w, vd->obj_id, data, avail, level, 0, 0);
		break;
	case PRINT_SKB_TUPLE:
	case PRINT_SOCK_TUPLE:
		print_tuple(&p->wr, vd, data, avail, level);
		break;
	case PRINT_VALUE:
		if (vd->shift) {
			emit_shifted(&w, vd, data, avail);
			break;
		}
		if (vd->fmt) {
			emit_formatted(&w, vd, vd->type_id, data, avail);
			break;
		}
		emit(&w, vd->type_id, data, avail, level, vd->bit_off, vd->bit_size);
		break;
	}
	if (vd->how != PRINT_STRING && vd->how != PRINT_BYTES && vd->how != PRINT_STRV &&
	    (w.truncated || vd->obj_size > avail))
		writer__comment(&p->wr, "truncated at %zu of %u bytes", avail, vd->obj_size);
	p->steps += w.steps + w.type_steps;
	if (w.worked_out) {
		writer__comment(&p->wr, "output cut: work limit (%llu steps for %zu bytes)",
				(unsigned long long)w.max_steps, avail);
		p->value_cut = PRINT_CUT_WORK;
	} else if (w.cut) {
		writer__comment(&p->wr, "cut: its BTF nests deeper than %d or holds more than %d values",
				BTFU_MAX_DEPTH, PRINT_MAX_NODES);
		p->value_cut = PRINT_CUT_SHAPE;
	}
	/* An entry value whose user memory was paged in only by the return. */
	if (vh->status & KSNOOP_ST_AT_RETURN)
		writer__comment(&p->wr, "read at return");
}

/*
 * The key's text is the event's text for the value, written by
 * printer__value() itself: one formatter for both.  The name beside a
 * JSON key is that text where it names the number (an enumerator, a
 * symbol, an address), the errno's name for an error code.
 */
void printer__key(const struct print_opts *opts, const struct btf *btf,
		  const struct value_desc *vd, __u64 num, char *text, size_t text_sz,
		  char *name, size_t name_sz)
{
	struct print_opts o = *opts;
	struct ksnoop_value vh = { .status = KSNOOP_OK, .len = sizeof(num) };
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, vd->type_id));
	struct printer p;
	FILE *f;
	int err;

	text[0] = name[0] = 0;
	o.format = REPORT_TEXT;
	o.oneline = true;
	f = fmemopen(text, text_sz, "w");
	if (!f)
		return;
	printer__init(&p, f, &o);
	printer__value(&p, btf, vd, &vh, &num, 0);
	writer__flush(&p.wr);
	printer__fini(&p);
	fclose(f);
	text[text_sz - 1] = 0;
	err = return_errno(vd, &vh, &num);
	if (err && errno_name(err))
		snprintf(name, name_sz, "%s", errno_name(err));
	else if ((vd->fmt == FMT_SYM || vd->fmt == FMT_IP || (t && btf_is_any_enum(t))) &&
		 !isdigit((unsigned char)text[0]) && text[0] != '-')
		snprintf(name, name_sz, "%s", text);
}

/* A frame of the tracer's own (a BPF program, a trampoline), not the kernel's path. */
static bool tracer_frame(const char *sym)
{
	static const char *const prefixes[] = {
		"bpf_prog_", "bpf_trampoline_", "ftrace_trampoline", "bpf_trace_run", "__bpf_trace_",
		"__bpf_prog_enter", "kprobe_ftrace_handler", "kprobe_perf_func",
		"kprobe_dispatcher", "trace_call_bpf", "fprobe_", "rethook_",
	};
	size_t i, n = strlen(sym);

	if (n > 6 && strcmp(sym + n - 6, " [bpf]") == 0)
		return true;
	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (strncmp(sym, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

__u32 printer__stack_top(print_symbolize_fn symbolize, void *ctx, const __u64 *ips, __u32 n)
{
	char sym[192];
	__u32 i;

	/* No names (a recording without kallsyms): no tracer frame to tell apart, all shown. */
	if (!symbolize)
		return 0;
	for (i = 0; i < n; i++)
		if (!symbolize(ctx, ips[i], sym, sizeof(sym)) && !tracer_frame(sym))
			break;
	return i;
}

/* A frame's name into SYM, or its address in hex. */
static void frame_name(const struct printer *p, bool user, __u32 pid, __u64 ip,
		       char *sym, size_t sz)
{
	if (user ? p->opts.usymbolize &&
		   !p->opts.usymbolize(p->opts.usym_ctx, pid, ip, sym, sz) :
		   p->opts.symbolize && !p->opts.symbolize(p->opts.sym_ctx, ip, sym, sz))
		return;
	snprintf(sym, sz, "0x%llx", (unsigned long long)ip);
}

/*
 * --oneline: the stack as the line's last item, folded as flame graphs
 * take it, outermost first: " stack=main+0x1c (/app);f+0x8 (/app)".
 * Each frame is escaped, and a ';' in one (a path may hold it) becomes
 * ',', so that ';' only ever separates frames; no frame at all is "-".
 */
static void print_stack_folded(struct printer *p, const char *key, const __u64 *ips,
			       __u32 first, __u32 n, bool user, __u32 pid)
{
	struct obuf *ob = writer__obuf(&p->wr);
	char sym[512];
	__u32 i, end = n;

	writer__key(&p->wr, key);
	/* A user stack ends at the first 0 (printer__stack() says why). */
	for (i = first; user && i < n; i++)
		if (!ips[i]) {
			end = i;
			break;
		}
	if (end == first)
		obuf__write(ob, "-", 1);
	for (i = end; i-- > first;) {
		char *semi;

		frame_name(p, user, pid, ips[i], sym, sizeof(sym));
		while ((semi = strchr(sym, ';')))
			*semi = ',';
		text_escape(ob, sym, strlen(sym));
		if (i > first)
			obuf__putc(ob, ';');
	}
}

_Static_assert(sizeof(((struct print_label *)0)->text) >= OBUF_MAX_PIECE,
	       "a label's text is an obuf (obuf.h)");
_Static_assert(PRINT_LABELS == 32, "label_slot() takes 5 bits");

/* A slot for S (N bytes): its first and last 8 bytes and length, mixed. */
static size_t label_slot(const char *s, size_t n)
{
	__u64 a = 0, b = 0;

	if (n >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
	} else {
		memcpy(&a, s, n);
	}
	a ^= (b << 29 | b >> 35) ^ n;
	return (a * 0x9e3779b97f4a7c15ULL) >> 59;	/* 5 bits: PRINT_LABELS */
}

/*
 * Events come hundreds of thousands a second from a few tasks and
 * functions: escaping comm and function name byte by byte on every event
 * was a third of printing one (with the values' names, which the faster
 * escaper takes: a label costs as much as escaping a short name).  A slot is
 * taken for S only when its bytes and escaper are S's: exact.
 */
const struct print_label *printer__label(struct printer *p, const char *s, size_t n,
					 void (*escape)(struct obuf *b, const char *s, size_t n))
{
	struct print_label *l;

	if (n > PRINT_LABEL_RAW)
		return NULL;
	l = &p->labels[label_slot(s, n)];
	if (!l->used || l->raw_len != n || l->escape != escape || memcmp(l->raw, s, n)) {
		/* Never flushed: S escapes to at most sizeof(l->text) bytes. */
		struct obuf b = OBUF_INIT(NULL, l->text);

		escape(&b, s, n);
		memcpy(l->raw, s, n);
		l->raw_len = n;
		l->len = b.len;
		l->escape = escape;
		l->used = true;
	}
	return l;
}

/*
 * An event's values (and stacks): text, "NAME = VALUE" lines at LEVEL;
 * or the "values" object of report_json.c.  FLAGS: PRINT_VALUES_* (print.h).
 */
static void print_values(struct printer *p, const struct capture_plan *plan, const void *rec,
			 int kind, int level, unsigned int flags)
{
	const struct ksnoop_event *ev = rec;
	const struct ksnoop_side_plan *side = &plan->bpf.side[kind];
	const struct ksnoop_value *stack = NULL, *ustack = NULL;
	struct writer *wr = &p->wr;
	int i;

	writer__begin_object(wr, WRITER_LINES, level);
	for (i = 0; i < plan->nvalues[kind]; i++) {
		const struct ksnoop_value *vh =
			(const void *)((const char *)rec + side->values[i].rec_off);

		if ((flags & PRINT_VALUES_NO_RETURN) && side->values[i].acc.src == KSNOOP_SRC_RET)
			continue;
		if ((flags & PRINT_VALUES_NO_STACKS) && (plan->values[kind][i].how == PRINT_STACK ||
						   plan->values[kind][i].how == PRINT_USTACK))
			continue;
		/* --pcap's packet goes to the file (pcapng.h), not to the output. */
		if (plan->values[kind][i].how == PRINT_SKB_PACKET)
			continue;
		if (plan->values[kind][i].how == PRINT_STACK) {
			stack = vh;
			continue;
		}
		if (plan->values[kind][i].how == PRINT_USTACK) {
			ustack = vh;
			continue;
		}
		writer__key(wr, plan->values[kind][i].text);
		printer__value(p, plan->sig.btf, &plan->values[kind][i], vh, vh + 1, level + 1);
		print_errno_beside(p, &plan->values[kind][i], vh, vh + 1);
		print_strv_beside(p, &plan->values[kind][i], vh, vh + 1);
		print_cut_beside(p, &plan->values[kind][i]);
	}
	/* USDT's stack is the program's; a syscall's reads are, its stack is the kernel's. */
	p->ops->values_end(p, stack, ustack,
			   (plan->bpf.flags & KSNOOP_PLAN_USER_MEM) && plan->sig.syscall == SIG_NOT_SYSCALL,
			   ev->tgid);
}

/*
 * -s: the stack at the probe, innermost first, each return address named
 * from kallsyms (symbol+0xoff [module]) or in hex; a USDT probe's (USER)
 * from the objects process PID has mapped.  Text: one frame a line under
 * "stack:", or an array beside "values" (the format's values_end says
 * where).  --ustack: the same for
 * the task's user stack under KEY "ustack".
 */
void printer__stack(struct printer *p, const char *key, const struct ksnoop_value *vh,
		    bool user, __u32 pid)
{
	struct writer *wr = &p->wr;
	const __u64 *ips = (const __u64 *)(vh + 1);
	__u32 n = vh->len / 8, i;
	char sym[512];

	if (n > KSNOOP_STACK_DEPTH)
		n = KSNOOP_STACK_DEPTH;
	if (wr->oneline && (vh->status & KSNOOP_STATUS_MASK) == KSNOOP_OK) {
		print_stack_folded(p, key, ips, user ? 0 : printer__stack_top(p->opts.symbolize,
									 p->opts.sym_ctx, ips, n),
				   n, user, pid);
		return;
	}
	writer__key(wr, key);
	if ((vh->status & KSNOOP_STATUS_MASK) != KSNOOP_OK) {
		writer__null(wr, "/* could not be taken */");
		return;
	}
	writer__begin_array(wr, WRITER_ROWS, 1);
	if (user) {
		/*
		 * No tracer frames on top: the first is the probe's own address.
		 * Frame pointers walked through code built without them lead
		 * anywhere; a return address of 0 is where the walk went
		 * wrong (or the stack ended): nothing after it is a frame.
		 */
		__u32 named = 0;

		for (i = 0; i < n && ips[i]; i++) {
			if (p->opts.usymbolize &&
			    !p->opts.usymbolize(p->opts.usym_ctx, pid, ips[i], sym, sizeof(sym))) {
				writer__name(wr, sym);
				named++;
			} else {
				writer__hex(wr, ips[i]);
			}
		}
		
/* Its maps are read at its first stack: one that exited before has none. */
		/* `report` names none: a recording keeps no process's maps. */
		if (i && !p->opts.usymbolize)
			writer__comment(wr, "not named: a recording keeps no process's maps");
		else if (i && !named)
			writer__comment(wr, "none named: process %u was gone before its maps were read,"
					" or maps none of these", pid);
		writer__end_array(wr);
		return;
	}
	for (i = printer__stack_top(p->opts.symbolize, p->opts.sym_ctx, ips, n); i < n; i++) {
		bool named = p->opts.symbolize &&
			     !p->opts.symbolize(p->opts.sym_ctx, ips[i], sym, sizeof(sym));

		/*
		 * Below the top, a traced caller's fentry/fexit trampoline, and
		 * the frame after it (the caller's own call into it, at its
		 * first instructions: the caller is the frame before): not
		 * the kernel's path, and not there without ksnoop.
		 */
		if (named && tracer_frame(sym)) {
			if (strncmp(sym, "bpf_trampoline_", 15) == 0)
				i++;
			continue;
		}
		if (named)
			writer__name(wr, sym);
		else
			writer__hex(wr, ips[i]);
	}
	writer__end_array(wr);
}

/* An event's (or a tree's root's) header. */
static void begin_event(struct printer *p, const struct capture_plan *plan,
			const struct ksnoop_event *ev)
{
	char comm[KSNOOP_COMM_LEN + 1];

	memcpy(comm, ev->comm, KSNOOP_COMM_LEN);
	comm[KSNOOP_COMM_LEN] = 0;
	p->ops->event_begin(p, plan, ev, comm);
}

void printer__event(struct printer *p, const struct capture_plan *plan,
		    const void *rec, size_t size)
{
	const struct ksnoop_event *ev = rec;
	int kind;

	if (size < sizeof(*ev) || ev->kind >= KSNOOP_NR_KINDS)
		return;
	kind = ev->kind;
	if (size < plan->bpf.side[kind].rec_size)
		return;
	/* The event gathers in the writer's buffer and goes out in one write. */
	begin_event(p, plan, ev);
	print_values(p, plan, rec, kind, 0, 0);
	p->ops->event_end(p, plan, rec, kind);
	writer__flush(&p->wr);
}

void printer__object(struct printer *p, __u64 addr, int n, __u64 span_ns, const char *end,
		     const char *end_word)
{
	p->ops->object_end(p, addr, n, span_ns, end, end_word);
	writer__flush(&p->wr);
}

/* ---- --tree ---- */

/* The value of PLAN's return record REC that is the return value (-1: none). */
int printer__return_index(const struct capture_plan *plan)
{
	const struct ksnoop_side_plan *side = &plan->bpf.side[KSNOOP_RETURN];
	int i;

	for (i = 0; i < plan->nvalues[KSNOOP_RETURN]; i++)
		if (side->values[i].acc.src == KSNOOP_SRC_RET)
			return i;
	return -1;
}

static bool returns_pointer(const struct capture_plan *plan, const struct value_desc *vd)
{
	const struct btf_type *t = btf__type_by_id(plan->sig.btf, btfu_strip(plan->sig.btf, vd->type_id));

	return t && btf_is_ptr(t);
}

enum tree_ret printer__call_return(const struct capture_plan *plan, const void *rec, size_t size,
				   int *code)
{
	const struct ksnoop_side_plan *side = &plan->bpf.side[KSNOOP_RETURN];
	int i = printer__return_index(plan), err;
	const struct value_desc *vd;
	const struct ksnoop_value *vh;
	__u32 st;

	*code = 0;
	if (size < sizeof(struct ksnoop_event) || ((const struct ksnoop_event *)rec)->kind != KSNOOP_RETURN)
		return TREE_RET_NONE;
	if (i < 0 || size < side->rec_size || side->values[i].rec_off + sizeof(*vh) > size)
		return TREE_RET_NONE;
	vd = &plan->values[KSNOOP_RETURN][i];
	vh = (const void *)((const char *)rec + side->values[i].rec_off);
	st = vh->status & KSNOOP_STATUS_MASK;
	if (st == KSNOOP_NULL)
		return TREE_RET_NULL;
	err = return_errno(vd, vh, vh + 1);
	if (err) {
		*code = err;
		return TREE_RET_ERRNO;
	}
	if (st == KSNOOP_OK && vd->how == PRINT_VALUE && vh->len >= 8 &&
	    returns_pointer(plan, vd) && load_uint(vh + 1, 8) == 0)
		return TREE_RET_NULL;
	return TREE_RET_OK;
}

/* The calls from FIRST on, siblings, each with its values and its own calls, at LEVEL. */
static void print_calls(struct printer *p, print_plan_fn plan_of, void *ctx,
			const struct tree_call *calls, int first, int level)
{
	const struct report_ops *ops = p->ops;
	int i;

	for (i = first; i >= 0; i = calls[i].next_sibling) {
		const struct ksnoop_event *ev = calls[i].rec;
		const struct capture_plan *plan = plan_of(ctx, ev->func_id);
		unsigned int flags;

		if (!plan || ev->kind >= KSNOOP_NR_KINDS ||
		    calls[i].size < plan->bpf.side[ev->kind].rec_size)
			continue;
		flags = ops->call_begin(p, plan, &calls[i], level);
		/* -s: the stack of the first failing call only. */
		print_values(p, plan, calls[i].rec, ev->kind, level,
			     flags | (calls[i].first_error ? 0 : PRINT_VALUES_NO_STACKS));
		ops->call_values_end(p, &calls[i]);
		ops->calls_begin(p);
		print_calls(p, plan_of, ctx, calls, calls[i].first_child, level + 1);
		ops->calls_end(p);
		ops->call_end(p);
	}
}

void printer__tree(struct printer *p, const struct capture_plan *root, const void *rec, size_t size,
		   const struct tree_call *calls, int first, print_plan_fn plan_of, void *ctx)
{
	const struct ksnoop_event *ev = rec;

	if (size < sizeof(*ev) || ev->kind != KSNOOP_RETURN ||
	    size < root->bpf.side[KSNOOP_RETURN].rec_size)
		return;
	begin_event(p, root, ev);
	print_values(p, root, rec, KSNOOP_RETURN, 0, 0);
	p->ops->tree_begin(p, ev->dropped);
	p->ops->calls_begin(p);
	print_calls(p, plan_of, ctx, calls, first, 1);
	p->ops->calls_end(p);
	p->ops->tree_end(p, ev->dropped);
	writer__flush(&p->wr);
}
