/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel-shaped BTF for the unit tests and fuzzers (no privileges, no
 * kernel).  Types that C can say are compiled: tests/fixture/types.h,
 * made BTF by gcc and pahole (the Makefile's $(BUILD)/fixture/types.btf,
 * in KSNOOP_FIXTURE_DIR), loaded with fx_fixture() and looked up by name
 * (fx_named, fx_member_type, fx_find_ints).  What C cannot say (broken or
 * hostile BTF, tracepoint stubs, one name with two values) is built in
 * memory: the C integer types, members, prototypes, functions and the
 * btf_trace_* typedefs tracepoints are described by.  Every helper
 * returns what libbpf returned (a type id, 0, or a negative errno); the
 * caller checks it its own way (cmocka assertion, abort()).
 */
#ifndef KSNOOP_BTF_FIXTURE_H
#define KSNOOP_BTF_FIXTURE_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>

/* The integer types of C on x86-64, as the kernel's BTF names them. */
struct fx_ints {
	int char_t, uchar_t, short_t, ushort_t, int_t, uint_t, long_t, ulong_t, bool_t;
};

#ifdef KSNOOP_FIXTURE_DIR
/* The fixture BTF compiled from tests/fixture/NAME.c (types, kernel);
 * NULL and errno set when it cannot be read. */
static inline struct btf *fx_fixture(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.btf", KSNOOP_FIXTURE_DIR, name);
	return btf__parse(path, NULL);
}
#endif

/* The id of the type of KIND named NAME, or a negative errno. */
static inline int fx_named(const struct btf *btf, const char *name, int kind)
{
	return btf__find_by_name_kind(btf, name, kind);
}

/* The type id of member MEMBER of struct SNAME, or -ENOENT. */
static inline int fx_member_type(const struct btf *btf, const char *sname, const char *member)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m;
	int i;

	if (!t)
		return -ENOENT;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return m->type;
	return -ENOENT;
}

/* The integer types of a compiled BTF, by gcc's names ("long unsigned
 * int", as the kernel's BTF has them); 0, or -ENOENT. */
static inline int fx_find_ints(const struct btf *btf, struct fx_ints *t)
{
	t->char_t = fx_named(btf, "char", BTF_KIND_INT);
	t->uchar_t = fx_named(btf, "unsigned char", BTF_KIND_INT);
	t->short_t = fx_named(btf, "short int", BTF_KIND_INT);
	t->ushort_t = fx_named(btf, "short unsigned int", BTF_KIND_INT);
	t->int_t = fx_named(btf, "int", BTF_KIND_INT);
	t->uint_t = fx_named(btf, "unsigned int", BTF_KIND_INT);
	t->long_t = fx_named(btf, "long int", BTF_KIND_INT);
	t->ulong_t = fx_named(btf, "long unsigned int", BTF_KIND_INT);
	t->bool_t = fx_named(btf, "_Bool", BTF_KIND_INT);
	if (t->char_t < 0 || t->uchar_t < 0 || t->short_t < 0 || t->ushort_t < 0 ||
	    t->int_t < 0 || t->uint_t < 0 || t->long_t < 0 || t->ulong_t < 0 || t->bool_t < 0)
		return -ENOENT;
	return 0;
}

/* Add them; 0, or the first negative errno. */
static inline int fx_add_ints(struct btf *btf, struct fx_ints *t)
{
	t->char_t = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	t->uchar_t = btf__add_int(btf, "unsigned char", 1, 0);
	t->short_t = btf__add_int(btf, "short", 2, BTF_INT_SIGNED);
	t->ushort_t = btf__add_int(btf, "unsigned short", 2, 0);
	t->int_t = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	t->uint_t = btf__add_int(btf, "unsigned int", 4, 0);
	t->long_t = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	t->ulong_t = btf__add_int(btf, "unsigned long", 8, 0);
	t->bool_t = btf__add_int(btf, "_Bool", 1, BTF_INT_BOOL);
	if (t->char_t < 0 || t->uchar_t < 0 || t->short_t < 0 || t->ushort_t < 0 ||
	    t->int_t < 0 || t->uint_t < 0 || t->long_t < 0 || t->ulong_t < 0 || t->bool_t < 0)
		return -ENOMEM;
	return 0;
}

/*
 * A FUNC_PROTO returning RET with parameters given as (name, type) pairs
 * ending with a NULL name; a "..." name adds the variadic marker.  Returns
 * its id, or a negative errno.
 */
static inline int fx_vproto(struct btf *btf, int ret, va_list ap)
{
	int id = btf__add_func_proto(btf, ret), err;
	const char *name;

	while (id > 0 && (name = va_arg(ap, const char *))) {
		int type = va_arg(ap, int);

		err = strcmp(name, "...") ? btf__add_func_param(btf, name, type) :
					    btf__add_func_param(btf, NULL, 0);
		if (err)
			return err;
	}
	return id;
}

static inline int fx_proto(struct btf *btf, int ret, ...)
{
	va_list ap;
	int id;

	va_start(ap, ret);
	id = fx_vproto(btf, ret, ap);
	va_end(ap);
	return id;
}

static inline int fx_func(struct btf *btf, const char *name, int proto_id)
{
	return btf__add_func(btf, name, BTF_FUNC_GLOBAL, proto_id);
}

/* typedef void (*btf_trace_EVENT)(void *, ...): the proto has no names. */
static inline int fx_trace_typedef(struct btf *btf, const char *event, int proto_id)
{
	char name[128];
	int ptr = btf__add_ptr(btf, proto_id);

	if (ptr < 0)
		return ptr;
	snprintf(name, sizeof(name), "btf_trace_%s", event);
	return btf__add_typedef(btf, name, ptr);
}

#endif
