// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the DWARF -> BTF converter (ksnoop/dwarf/dwarf_btf.c).
 *
 * tests/uprog/types.c built by gcc and clang at -O0 and -O2, DWARF 5 and
 * 4 (build/uprog/, Makefile): each binary's types converted and compared
 * with the BTF `pahole -J` makes of the same binary (sizes, member names,
 * offsets, bitfield sizes, enum values); prototypes, a global and a TLS
 * variable against the ELF symbol table; what is refused.  types.cc: C++.
 * Separate debug files found by build-id and by .gnu_debuglink (made with
 * objcopy in a temporary tree), a wrong CRC refused, no debug anywhere
 * named, a .BTF section the only types; glibc through Debian's libc6-dbg.
 * Hostile DWARF: a binary's own DWARF patched in memory (a typedef that is
 * its own type, a struct that contains itself, a reference out of range,
 * a compressed section that claims to inflate to a terabyte, types nested
 * too deep); fuzz_dwarf's regression inputs.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <bpf/btf.h>
#include "dwarf_btf.h"

#ifndef KSNOOP_UPROG_DIR
#error "KSNOOP_UPROG_DIR: the Makefile passes build/uprog's path"
#endif

static const char *const c_variants[] = {
	"types-gcc-O0-dwarf5", "types-gcc-O2-dwarf5", "types-gcc-O0-dwarf4", "types-gcc-O2-dwarf4",
	"types-clang-O0-dwarf5", "types-clang-O2-dwarf5", "types-clang-O0-dwarf4",
	"types-clang-O2-dwarf4",
};
static const char *const cc_variants[] = {
	"typescc-g++-O0", "typescc-g++-O2", "typescc-clang++-O0", "typescc-clang++-O2",
};

static void uprog_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", KSNOOP_UPROG_DIR, name);
}

static struct dwbtf *open_ok(const char *path, const char *root)
{
	struct ks_error e = { 0 };
	struct dwbtf *d = NULL;
	int err = dwbtf__open(path, root, &d, &e);

	if (err)
		fail_msg("dwbtf__open(%s): %d %s", path, err, e.msg);
	return d;
}

static __u32 func_ok(struct dwbtf *d, const char *name)
{
	struct ks_error e = { 0 };
	__u32 id = 0;
	int err = dwbtf__func(d, name, &id, &e);

	if (err)
		fail_msg("dwbtf__func(%s): %d %s", name, err, e.msg);
	return id;
}

static __u32 var_ok(struct dwbtf *d, const char *name, __u64 *addr, bool *tls)
{
	struct ks_error e = { 0 };
	__u32 id = 0;
	int err = dwbtf__var(d, name, &id, addr, tls, &e);

	if (err)
		fail_msg("dwbtf__var(%s): %d %s", name, err, e.msg);
	return id;
}

/* ---- against pahole --------------------------------------------------- */

static const struct btf_type *skip_mods(const struct btf *btf, __u32 *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);

	for (int i = 0; t && i < 32 && (btf_is_mod(t) || btf_is_typedef(t)); i++) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

static const char *name_of(const struct btf *btf, const struct btf_type *t)
{
	return btf__name_by_offset(btf, t->name_off) ?: "";
}

static void compare_types(const struct btf *a, __u32 ia, const struct btf *b, __u32 ib,
			  const char *where, int depth);

static void compare_members(const struct btf *a, const struct btf_type *ta,
			    const struct btf *b, const struct btf_type *tb, const char *where,
			    int depth)
{
	const struct btf_member *ma = btf_members(ta), *mb = btf_members(tb);
	char sub[256];

	assert_int_equal(btf_vlen(ta), btf_vlen(tb));
	for (int i = 0; i < btf_vlen(ta); i++) {
		const char *na = btf__name_by_offset(a, ma[i].name_off) ?: "";
		const char *nb = btf__name_by_offset(b, mb[i].name_off) ?: "";

		snprintf(sub, sizeof(sub), "%s.%s", where, na[0] ? na : "(anon)");
		if (strcmp(na, nb) || btf_member_bit_offset(ta, i) != btf_member_bit_offset(tb, i) ||
		    btf_member_bitfield_size(ta, i) != btf_member_bitfield_size(tb, i))
			fail_msg("%s: ours '%s' at bit %u size %u, pahole's '%s' at bit %u size %u",
				 sub, na, btf_member_bit_offset(ta, i),
				 btf_member_bitfield_size(ta, i), nb, btf_member_bit_offset(tb, i),
				 btf_member_bitfield_size(tb, i));
		compare_types(a, ma[i].type, b, mb[i].type, sub, depth + 1);
	}
}

static void compare_enums(const struct btf *a, const struct btf_type *ta, const struct btf *b,
			  const struct btf_type *tb, const char *where)
{
	assert_int_equal(btf_vlen(ta), btf_vlen(tb));
	for (int i = 0; i < btf_vlen(ta); i++) {
		const char *na, *nb;
		__u64 va, vb;

		if (btf_is_enum(ta)) {
			na = btf__name_by_offset(a, btf_enum(ta)[i].name_off);
			va = (__u64)(__s64)btf_enum(ta)[i].val;
		} else {
			na = btf__name_by_offset(a, btf_enum64(ta)[i].name_off);
			va = btf_enum64_value(&btf_enum64(ta)[i]);
		}
		if (btf_is_enum(tb)) {
			nb = btf__name_by_offset(b, btf_enum(tb)[i].name_off);
			vb = (__u64)(__s64)btf_enum(tb)[i].val;
		} else {
			nb = btf__name_by_offset(b, btf_enum64(tb)[i].name_off);
			vb = btf_enum64_value(&btf_enum64(tb)[i]);
		}
		if (strcmp(na, nb) || va != vb)
			fail_msg("%s: ours %s = %llu, pahole's %s = %llu", where, na,
				 (unsigned long long)va, nb, (unsigned long long)vb);
	}
}

/* An array's elements, all dimensions multiplied; *ID becomes their type. */
static __u64 flat_elems(const struct btf *btf, __u32 *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);
	__u64 n = 1;

	while (t && btf_is_array(t)) {
		n *= btf_array(t)->nelems;
		*id = btf_array(t)->type;
		t = btf__type_by_id(btf, *id);
	}
	return n;
}

/* Two types the same shape: sizes, kinds, members, values, recursively. */
static void compare_types(const struct btf *a, __u32 ia, const struct btf *b, __u32 ib,
			  const char *where, int depth)
{
	const struct btf_type *ta = skip_mods(a, &ia), *tb = skip_mods(b, &ib);

	if (depth > 8 || (!ia && !ib))
		return;
	assert_non_null(ta);
	assert_non_null(tb);
	if (btf_kind(ta) != btf_kind(tb) && !(btf_is_any_enum(ta) && btf_is_any_enum(tb)))
		fail_msg("%s: ours kind %u, pahole's %u", where, btf_kind(ta), btf_kind(tb));
	if (btf_is_ptr(ta) || btf_is_func_proto(ta) || btf_is_fwd(ta))
		return;		/* what they point at is compared where it is named */
	if (btf__resolve_size(a, ia) != btf__resolve_size(b, ib))
		fail_msg("%s: ours %lld bytes, pahole's %lld", where,
			 (long long)btf__resolve_size(a, ia), (long long)btf__resolve_size(b, ib));
	if (btf_is_composite(ta))
		compare_members(a, ta, b, tb, where, depth);
	else if (btf_is_any_enum(ta))
		compare_enums(a, ta, b, tb, where);
	else if (btf_is_array(ta)) {
		/* pahole 1.24 flattens int[2][3] into int[6]; we keep the dimensions. */
		__u32 ea = ia, eb = ib;
		__u64 na = flat_elems(a, &ea), nb = flat_elems(b, &eb);

		if (na != nb)
			fail_msg("%s: ours %llu elements, pahole's %llu", where,
				 (unsigned long long)na, (unsigned long long)nb);
		compare_types(a, ea, b, eb, where, depth + 1);
	} else if (btf_is_int(ta) && btf_int_encoding(ta) != btf_int_encoding(tb) &&
		   !(btf_int_encoding(ta) & BTF_INT_CHAR))	/* pahole 1.24 drops char's flag */
		fail_msg("%s: ours int encoding %u, pahole's %u", where, btf_int_encoding(ta),
			 btf_int_encoding(tb));
}

/* Every type types.c names, found in both and the same. */
static const struct {
	const char *name;
	int kind;
} named_types[] = {
	{ "bits", BTF_KIND_STRUCT }, { "node", BTF_KIND_STRUCT }, { "packet", BTF_KIND_STRUCT },
	{ "holder", BTF_KIND_STRUCT }, { "word", BTF_KIND_UNION }, { "color", BTF_KIND_ENUM },
	{ "sign", BTF_KIND_ENUM }, { "small", BTF_KIND_ENUM }, { "big", BTF_KIND_ENUM64 },
	{ "u32_t", BTF_KIND_TYPEDEF }, { "id_t2", BTF_KIND_TYPEDEF },
	{ "visit_fn", BTF_KIND_TYPEDEF }, { "opaque", BTF_KIND_FWD },
};

static void test_against_pahole(void **state)
{
	char path[PATH_MAX], btf_path[PATH_MAX + 8];
	const char *funcs[] = { "node_visit", "bits_sum", "main" };
	const char *vars[] = { "g_node", "g_holder", "g_packet", "g_word" };
	__u64 addr;
	bool tls;

	for (size_t v = 0; v < sizeof(c_variants) / sizeof(c_variants[0]); v++) {
		struct dwbtf *d;
		struct btf *ref, *ours;

		uprog_path(path, sizeof(path), c_variants[v]);
		snprintf(btf_path, sizeof(btf_path), "%s.btf", path);
		ref = btf__parse(btf_path, NULL);
		if (!ref)
			fail_msg("%s: pahole's BTF missing (pahole is a dependency: make deps)",
				 btf_path);
		d = open_ok(path, NULL);
		for (size_t i = 0; i < 3; i++)
			func_ok(d, funcs[i]);
		for (size_t i = 0; i < 4; i++)
			var_ok(d, vars[i], &addr, &tls);
		ours = dwbtf__btf(d);
		for (size_t i = 0; i < sizeof(named_types) / sizeof(named_types[0]); i++) {
			int kind = named_types[i].kind;
			int ia = btf__find_by_name_kind(ours, named_types[i].name, kind);
			int ib = btf__find_by_name_kind(ref, named_types[i].name, kind);
			char where[128];

			snprintf(where, sizeof(where), "%s: %s", c_variants[v], named_types[i].name);
			if (ia <= 0 || ib <= 0)
				fail_msg("%s (kind %d): ours %d, pahole's %d", where, kind, ia, ib);
			compare_types(ours, ia, ref, ib, where, 0);
		}
		btf__free(ref);
		dwbtf__close(d);
	}
}

/* ---- prototypes, variables, what is refused -------------------------- */

static const struct btf_param *proto_of(const struct btf *btf, __u32 func_id, int *n,
					__u32 *ret)
{
	const struct btf_type *f = btf__type_by_id(btf, func_id), *p;

	assert_true(btf_is_func(f));
	p = btf__type_by_id(btf, f->type);
	assert_true(btf_is_func_proto(p));
	*n = btf_vlen(p);
	*ret = p->type;
	return btf_params(p);
}

static const char *param_name(const struct btf *btf, const struct btf_param *p)
{
	return btf__name_by_offset(btf, p->name_off) ?: "";
}

/* The struct/union/enum a parameter points at (through const), by name. */
static const char *pointee(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = skip_mods(btf, &id);	/* this: Conn *const */

	if (!t || !btf_is_ptr(t))
		return "(not a pointer)";
	id = t->type;
	t = skip_mods(btf, &id);
	return t ? name_of(btf, t) : "(void)";
}

static void test_prototypes(void **state)
{
	char path[PATH_MAX];

	for (size_t v = 0; v < sizeof(c_variants) / sizeof(c_variants[0]); v++) {
		const struct btf_param *ps;
		struct dwbtf *d;
		const struct btf *btf;
		__u32 ret, id;
		int n;

		uprog_path(path, sizeof(path), c_variants[v]);
		d = open_ok(path, NULL);
		btf = dwbtf__btf(d);
		ps = proto_of(btf, func_ok(d, "node_visit"), &n, &ret);
		assert_int_equal(n, 3);
		assert_string_equal(param_name(btf, &ps[0]), "n");
		assert_string_equal(pointee(btf, ps[0].type), "node");
		assert_string_equal(param_name(btf, &ps[1]), "ctx");
		assert_true(btf_is_ptr(btf__type_by_id(btf, ps[1].type)));
		assert_int_equal(btf__type_by_id(btf, ps[1].type)->type, 0);	/* void * */
		assert_string_equal(param_name(btf, &ps[2]), "depth");
		assert_int_equal(btf__resolve_size(btf, ps[2].type), 8);
		assert_string_equal(name_of(btf, btf__type_by_id(btf, ret)), "int");

		ps = proto_of(btf, func_ok(d, "bits_sum"), &n, &ret);
		assert_int_equal(n, 3);
		assert_string_equal(pointee(btf, ps[0].type), "bits");
		assert_string_equal(param_name(btf, &ps[1]), "c");
		id = ps[1].type;
		assert_true(btf_is_enum(skip_mods(btf, &id)));
		assert_int_equal(btf__resolve_size(btf, ps[2].type), 1);
		assert_int_equal(btf__resolve_size(btf, ret), 8);
		dwbtf__close(d);
	}
}

/* NAME's value and section in the binary's symbol table. */
static bool elf_symbol(const char *path, const char *name, __u64 *value, bool *tls)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	bool found = false;
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf *elf;

	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			gelf_getsym(data, i, &sym);
			if (strcmp(elf_strptr(elf, sh.sh_link, sym.st_name) ?: "", name))
				continue;
			*value = sym.st_value;
			*tls = GELF_ST_TYPE(sym.st_info) == STT_TLS;
			found = true;
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return found;
}

static void test_variables(void **state)
{
	char path[PATH_MAX];

	for (size_t v = 0; v < sizeof(c_variants) / sizeof(c_variants[0]); v++) {
		__u64 addr, sym_addr;
		bool tls, sym_tls;
		struct dwbtf *d;
		__u32 id;

		uprog_path(path, sizeof(path), c_variants[v]);
		d = open_ok(path, NULL);
		id = var_ok(d, "g_counter", &addr, &tls);
		assert_true(elf_symbol(path, "g_counter", &sym_addr, &sym_tls));
		assert_false(tls);
		assert_int_equal(addr, sym_addr);
		assert_int_equal(btf__resolve_size(dwbtf__btf(d), id), 8);

		id = var_ok(d, "tls_counter", &addr, &tls);
		assert_true(elf_symbol(path, "tls_counter", &sym_addr, &sym_tls));
		assert_true(sym_tls);
		assert_true(tls);
		assert_int_equal(addr, sym_addr);	/* its offset in the TLS block */
		assert_int_equal(btf__resolve_size(dwbtf__btf(d), id), sizeof(long));
		dwbtf__close(d);
	}
}

static void expect_refused(struct dwbtf *d, const char *func, int err, const char *text)
{
	struct ks_error e = { 0 };
	__u32 id;

	assert_int_equal(dwbtf__func(d, func, &id, &e), err);
	assert_int_equal(e.err, err);
	if (!strstr(e.msg, text) || !strstr(e.msg, func) || strchr(e.msg, '\n'))
		fail_msg("%s: '%s' is not one line naming it and saying '%s'", func, e.msg, text);
}

/* What member MEMBER of struct SNAME points at, through const. */
static const char *member_pointee(const struct btf *btf, const char *sname, const char *member)
{
	int id = btf__find_by_name_kind(btf, sname, BTF_KIND_STRUCT);
	const struct btf_type *t = btf__type_by_id(btf, id);

	assert_true(id > 0);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, btf_members(t)[i].name_off), member))
			return pointee(btf, btf_members(t)[i].type);
	fail_msg("no member %s in struct %s", member, sname);
	return NULL;
}

static void test_refused(void **state)
{
	char path[PATH_MAX];

	for (size_t v = 0; v < sizeof(c_variants) / sizeof(c_variants[0]); v++) {
		struct dwbtf *d;

		uprog_path(path, sizeof(path), c_variants[v]);
		d = open_ok(path, NULL);
		expect_refused(d, "by_value", -EINVAL, "struct passed by value");
		expect_refused(d, "log_fmt", -EINVAL, "variadic");
		expect_refused(d, "twice", -ENOENT, "inlined everywhere");
		expect_refused(d, "no_such_function", -ENOENT, "no function");
		/*
		 * A refusal leaves the converter usable: log_fmt's `const char *`
		 * was queued when the variadic tail refused it, and is struct
		 * node's `name` too; it must point at char, not stay a void *.
		 */
		func_ok(d, "node_visit");
		assert_string_equal(member_pointee(dwbtf__btf(d), "node", "name"), "char");
		dwbtf__close(d);
	}
}

static int find_name(const char *name, __u64 addr, void *ctx)
{
	return strcmp(name, ctx) ? 0 : addr ? 1 : -1;
}

static void test_cxx(void **state)
{
	char path[PATH_MAX];
	__u64 addr, sym_addr;
	bool tls, sym_tls;

	for (size_t v = 0; v < sizeof(cc_variants) / sizeof(cc_variants[0]); v++) {
		const struct btf_param *ps;
		const struct btf_type *t;
		const struct btf *btf;
		struct dwbtf *d;
		__u32 ret, id, f;
		int n;

		uprog_path(path, sizeof(path), cc_variants[v]);
		d = open_ok(path, NULL);
		btf = dwbtf__btf(d);
		f = func_ok(d, "shop::Conn::read");
		assert_string_equal(name_of(btf, btf__type_by_id(btf, f)), "shop::Conn::read");
		/* The mangled name finds the same function. */
		assert_int_equal(func_ok(d, "_ZN4shop4Conn4readEPcm"), f);
		ps = proto_of(btf, f, &n, &ret);
		assert_int_equal(n, 3);
		assert_string_equal(param_name(btf, &ps[0]), "this");
		assert_string_equal(pointee(btf, ps[0].type), "Conn");
		assert_string_equal(param_name(btf, &ps[1]), "buf");
		assert_string_equal(param_name(btf, &ps[2]), "len");
		id = btf__find_by_name_kind(btf, "Conn", BTF_KIND_STRUCT);
		t = btf__type_by_id(btf, id);
		assert_int_equal(t->size, 16);
		assert_int_equal(btf_vlen(t), 4);	/* the static member is not one */
		assert_string_equal(btf__name_by_offset(btf, btf_members(t)[2].name_off), "bytes");
		assert_int_equal(btf_member_bit_offset(t, 2), 64);
		assert_int_equal(btf_member_bitfield_size(t, 2), 48);
		assert_int_equal(btf_member_bit_offset(t, 3), 112);
		assert_int_equal(btf_member_bitfield_size(t, 3), 16);
		/* References are pointers. */
		ps = proto_of(btf, func_ok(d, "shop::touch"), &n, &ret);
		assert_int_equal(n, 2);
		assert_string_equal(pointee(btf, ps[0].type), "Conn");
		assert_string_equal(pointee(btf, ps[1].type), "Conn");
		assert_int_equal(dwbtf__each_func(d, find_name, "shop::Conn::read"), 1);
		/* A static data member: its qualified name, at its symbol's address. */
		var_ok(d, "shop::Conn::instances", &addr, &tls);
		assert_true(elf_symbol(path, "_ZN4shop4Conn9instancesE", &sym_addr, &sym_tls));
		assert_false(tls);
		assert_int_equal(addr, sym_addr);
		dwbtf__close(d);
	}
}

/* ---- where the debug information is found ---------------------------- */

static void run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("'%s' failed", cmd);
}

struct tree {
	char dir[64];
	char bin[PATH_MAX], debug[PATH_MAX], root[PATH_MAX];
};

/* DIR/bin stripped of its DWARF, DIR/bin.debug its debug file; ROOT empty. */
static void make_tree(struct tree *t, bool debuglink)
{
	char src[PATH_MAX];

	strcpy(t->dir, "/tmp/ksnoop-dwarf-XXXXXX");
	assert_non_null(mkdtemp(t->dir));
	uprog_path(src, sizeof(src), "types-gcc-O2-dwarf5");
	snprintf(t->bin, sizeof(t->bin), "%s/bin", t->dir);
	snprintf(t->debug, sizeof(t->debug), "%s/bin.debug", t->dir);
	snprintf(t->root, sizeof(t->root), "%s/root", t->dir);
	run("mkdir -p '%s' && objcopy --only-keep-debug '%s' '%s'", t->root, src, t->debug);
	run("objcopy --strip-debug %s%s%s '%s' '%s'", debuglink ? "--add-gnu-debuglink='" : "",
	    debuglink ? t->debug : "", debuglink ? "'" : "", src, t->bin);
}

static void remove_tree(struct tree *t)
{
	run("rm -rf '%s'", t->dir);
}

static void test_by_build_id(void **state)
{
	char idpath[PATH_MAX + 64], id[128];
	struct tree t;
	struct dwbtf *d;
	FILE *p;

	make_tree(&t, false);
	snprintf(idpath, sizeof(idpath),
		 "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", t.bin);
	p = popen(idpath, "r");
	assert_non_null(fgets(id, sizeof(id), p));
	pclose(p);
	id[strcspn(id, "\n")] = 0;
	assert_true(strlen(id) > 2);
	run("mkdir -p '%s/.build-id/%.2s' && mv '%s' '%s/.build-id/%.2s/%s.debug'", t.root, id,
	    t.debug, t.root, id, id + 2);
	d = open_ok(t.bin, t.root);
	assert_non_null(strstr(dwbtf__source(d), "/.build-id/"));
	assert_non_null(strstr(dwbtf__source(d), id + 2));
	func_ok(d, "node_visit");
	dwbtf__close(d);
	remove_tree(&t);
}

static void test_by_debuglink(void **state)
{
	struct ks_error e = { 0 };
	struct dwbtf *d;
	struct tree t;

	make_tree(&t, true);
	d = open_ok(t.bin, t.root);
	assert_string_equal(dwbtf__source(d), t.debug);
	func_ok(d, "bits_sum");
	dwbtf__close(d);
	/* One byte more: the CRC no longer matches, and the file is refused. */
	run("printf x >> '%s'", t.debug);
	assert_int_equal(dwbtf__open(t.bin, t.root, &d, &e), -ENOENT);
	assert_null(d);
	if (!strstr(e.msg, "CRC") || !strstr(e.msg, t.debug))
		fail_msg("wrong CRC not named: %s", e.msg);
	remove_tree(&t);
}

static void test_no_debug_anywhere(void **state)
{
	struct ks_error e = { 0 };
	struct dwbtf *d;
	struct tree t;
	const char *places[] = { "no .debug_info", "/.build-id/", ".debug", "no .gnu_debuglink",
				 "no .BTF" };

	make_tree(&t, false);
	run("rm -f '%s'", t.debug);
	assert_int_equal(dwbtf__open(t.bin, t.root, &d, &e), -ENOENT);
	assert_null(d);
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		if (!strstr(e.msg, places[i]))
			fail_msg("'%s' does not say '%s'", e.msg, places[i]);
	assert_non_null(strstr(e.msg, t.root));
	assert_null(strchr(e.msg, '\n'));
	remove_tree(&t);
}

/* No DWARF anywhere but a .BTF section (pahole -J): functions from it. */
static void test_btf_section(void **state)
{
	struct ks_error e = { 0 };
	char src[PATH_MAX];
	struct dwbtf *d;
	struct tree t;
	__u64 addr;
	__u32 id;
	bool tls;

	make_tree(&t, false);
	uprog_path(src, sizeof(src), "types-gcc-O2-dwarf5");
	run("rm -f '%s' && cp '%s' '%s' && pahole -J '%s' && objcopy --strip-debug '%s'", t.debug,
	    src, t.bin, t.bin, t.bin);
	d = open_ok(t.bin, t.root);
	assert_non_null(strstr(dwbtf__source(d), "(.BTF)"));
	id = func_ok(d, "node_visit");
	assert_string_equal(name_of(dwbtf__btf(d), btf__type_by_id(dwbtf__btf(d), id)),
			    "node_visit");
	assert_int_equal(dwbtf__var(d, "g_counter", &id, &addr, &tls, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "only .BTF"));
	assert_int_equal(dwbtf__func(d, "no_such_function", &id, &e), -ENOENT);
	dwbtf__close(d);
	remove_tree(&t);
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *ctx)
{
	if (strstr(info->dlpi_name, "/libc.so.6")) {
		snprintf(ctx, PATH_MAX, "%s", info->dlpi_name);
		return 1;
	}
	return 0;
}

/* Debian's libc6-dbg: found by build-id; malloc is __libc_malloc there; assembly is left out. */
static void test_glibc(void **state)
{
	char libc[PATH_MAX] = "";
	const struct btf_param *ps;
	const struct btf *btf;
	struct dwbtf *d;
	__u32 ret, id;
	int n;

	assert_int_equal(dl_iterate_phdr(find_libc, libc), 1);
	d = open_ok(libc, NULL);
	if (!strstr(dwbtf__source(d), "/usr/lib/debug/.build-id/"))
		fail_msg("libc's DWARF came from %s (is libc6-dbg installed? make deps)",
			 dwbtf__source(d));
	btf = dwbtf__btf(d);
	ps = proto_of(btf, func_ok(d, "malloc"), &n, &ret);
	assert_int_equal(n, 1);
	assert_true(param_name(btf, &ps[0])[0] != 0);
	assert_int_equal(btf__resolve_size(btf, ps[0].type), 8);
	id = ps[0].type;
	assert_true(btf_is_int(skip_mods(btf, &id)));
	assert_true(btf_is_ptr(btf__type_by_id(btf, ret)));
	/*
	 * getpid is a system call wrapper written in assembly: gas's unit
	 * names it with no type and no parameters, which is not its
	 * prototype ("void getpid(void)"): not a function of the index.
	 */
	expect_refused(d, "getpid", -ENOENT, "no function 'getpid'");
	dwbtf__close(d);
}

/* ---- hostile DWARF --------------------------------------------------- */

struct image {
	char *buf;
	size_t size;
	Elf *elf;
	Dwarf *dw;
};

static void image_load_raw(struct image *im, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	uprog_path(path, sizeof(path), name);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0 && !fstat(fd, &st));
	im->size = st.st_size;
	im->buf = malloc(im->size);
	assert_int_equal(pread(fd, im->buf, im->size, 0), (ssize_t)im->size);
	close(fd);
	elf_version(EV_CURRENT);
	im->elf = elf_memory(im->buf, im->size);
	im->dw = NULL;
}

/* The same, with libdw on it (which inflates compressed sections in place). */
static void image_load(struct image *im, const char *name)
{
	image_load_raw(im, name);
	im->dw = dwarf_begin_elf(im->elf, DWARF_C_READ, NULL);
	assert_non_null(im->dw);
}

static void image_free(struct image *im)
{
	if (im->dw)
		dwarf_end(im->dw);
	elf_end(im->elf);
	free(im->buf);
}

/* The DIE of tag TAG named NAME, in the first CU. */
static bool find_die(struct image *im, int tag, const char *name, Dwarf_Die *out)
{
	Dwarf_Off next;
	Dwarf_Die cu;
	size_t hs;

	assert_int_equal(dwarf_nextcu(im->dw, 0, &next, &hs, NULL, NULL, NULL), 0);
	assert_non_null(dwarf_offdie(im->dw, hs, &cu));
	assert_int_equal(dwarf_child(&cu, out), 0);
	do {
		const char *n = dwarf_diename(out);

		if (dwarf_tag(out) == tag && n && !strcmp(n, name))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

/*
 * Overwrite DIE's DW_AT_type (a ref4: its bytes are in the image, which
 * libelf reads in place) with the CU-relative offset TARGET.
 */
static void set_type_ref(struct image *im, Dwarf_Die *die, __u32 target)
{
	Dwarf_Attribute a;

	assert_non_null(dwarf_attr(die, DW_AT_type, &a));
	assert_int_equal(a.form, DW_FORM_ref4);
	assert_true((char *)a.valp >= im->buf && (char *)a.valp + 4 <= im->buf + im->size);
	memcpy(a.valp, &target, 4);
}

/* What a ref4 to DIE holds: its offset from the start of its CU. */
static __u32 cu_offset(Dwarf_Die *die)
{
	return dwarf_cuoffset(die);
}

static void expect_open_mem_fails(struct image *im, bool at_open, const char *var, int err,
				  const char *text)
{
	struct ks_error e = { 0 };
	struct dwbtf *d = NULL;
	__u64 addr;
	__u32 id;
	bool tls;
	int got;

	got = dwbtf__open_mem(im->buf, im->size, "hostile", &d, &e);
	if (!at_open) {
		assert_int_equal(got, 0);
		got = dwbtf__var(d, var, &id, &addr, &tls, &e);
	}
	if (got != err || !strstr(e.msg, text) || !strstr(e.msg, "'hostile'"))
		fail_msg("got %d '%s', expected %d and '%s' naming the file", got, e.msg, err, text);
	dwbtf__close(d);
}

static void test_hostile_cycles(void **state)
{
	struct image im;
	Dwarf_Die td, st, m;

	/* A typedef that is its own type. */
	image_load(&im, "types-gcc-O0-dwarf5");
	assert_true(find_die(&im, DW_TAG_typedef, "id_t2", &td));
	set_type_ref(&im, &td, cu_offset(&td));
	expect_open_mem_fails(&im, false, "g_id", -ELOOP, "contains itself");
	image_free(&im);

	/* struct bits { ...; struct bits tail; }: itself by value. */
	image_load(&im, "types-gcc-O0-dwarf5");
	assert_true(find_die(&im, DW_TAG_structure_type, "bits", &st));
	assert_int_equal(dwarf_child(&st, &m), 0);
	set_type_ref(&im, &m, cu_offset(&st));
	expect_open_mem_fails(&im, false, "g_holder", -ELOOP, "contains itself");
	image_free(&im);

	/* A reference past the end of the CU. */
	image_load(&im, "types-gcc-O0-dwarf5");
	assert_true(find_die(&im, DW_TAG_typedef, "id_t2", &td));
	set_type_ref(&im, &td, 0x7ffffff0);
	expect_open_mem_fails(&im, false, "g_id", -ENOEXEC, "out of range");
	image_free(&im);
}

static void test_hostile_depth(void **state)
{
	struct image im;

	/* deep_t: 80 typedefs on top of each other (types.c), over the limit. */
	image_load(&im, "types-clang-O2-dwarf5");
	expect_open_mem_fails(&im, false, "g_deep", -E2BIG, "nested deeper than");
	image_free(&im);
}

static void test_hostile_inflate(void **state)
{
	struct image im;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool patched = false;

	/* types-*-gz: compressed debug sections; one claims 1 TB inflated. */
	image_load_raw(&im, "types-gcc-O0-gz");
	while ((scn = elf_nextscn(im.elf, scn)) && !patched) {
		assert_non_null(gelf_getshdr(scn, &sh));
		if (sh.sh_flags & SHF_COMPRESSED) {
			Elf64_Chdr *ch = (Elf64_Chdr *)(im.buf + sh.sh_offset);

			ch->ch_size = 1ULL << 40;
			patched = true;
		}
	}
	assert_true(patched);
	expect_open_mem_fails(&im, true, NULL, -E2BIG, "inflate to more than");
	image_free(&im);
}

/*
 * tests/live/66-ufunc-hostile.sh: the same shapes as files, each reached
 * from a function's parameter (what `u:FILE:FUNC(...)` converts), for
 * ksnoop as root against files nobody owns.  Each NAME written into DIR:
 *   cycle         node_visit's depth: a typedef that is its own type
 *   self_struct   bits_sum's b: struct bits holding itself by value
 *   out_of_range  node_visit's depth: a reference past the end of the CU
 *   deep          node_visit's depth: deep80_t, 80 typedefs (clang -O2)
 *   inflate       compressed sections, one claiming 1 TB inflated
 */
static void param_of(struct image *im, const char *func, const char *param, Dwarf_Die *out)
{
	Dwarf_Die fn;

	assert_true(find_die(im, DW_TAG_subprogram, func, &fn));
	assert_int_equal(dwarf_child(&fn, out), 0);
	do {
		const char *n = dwarf_diename(out);

		if (dwarf_tag(out) == DW_TAG_formal_parameter && n && !strcmp(n, param))
			return;
	} while (dwarf_siblingof(out, out) == 0);
	fail_msg("no parameter %s of %s", param, func);
}

static void image_write(struct image *im, const char *dir, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, im->buf, im->size), (ssize_t)im->size);
	close(fd);
	image_free(im);
}

static void write_hostile(const char *dir)
{
	struct image im;
	Dwarf_Die p, td, st, m;

	image_load(&im, "types-gcc-O0-dwarf5");
	param_of(&im, "node_visit", "depth", &p);
	assert_true(find_die(&im, DW_TAG_typedef, "id_t2", &td));
	set_type_ref(&im, &td, cu_offset(&td));
	set_type_ref(&im, &p, cu_offset(&td));
	image_write(&im, dir, "cycle");

	image_load(&im, "types-gcc-O0-dwarf5");
	assert_true(find_die(&im, DW_TAG_structure_type, "bits", &st));
	assert_int_equal(dwarf_child(&st, &m), 0);
	set_type_ref(&im, &m, cu_offset(&st));
	image_write(&im, dir, "self_struct");

	image_load(&im, "types-gcc-O0-dwarf5");
	param_of(&im, "node_visit", "depth", &p);
	set_type_ref(&im, &p, 0x7ffffff0);
	image_write(&im, dir, "out_of_range");

	image_load(&im, "types-clang-O2-dwarf5");
	param_of(&im, "node_visit", "depth", &p);
	assert_true(find_die(&im, DW_TAG_typedef, "deep80_t", &td));
	set_type_ref(&im, &p, cu_offset(&td));
	image_write(&im, dir, "deep");

	image_load_raw(&im, "types-gcc-O0-gz");
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(im.elf, scn));) {
		GElf_Shdr sh;

		assert_non_null(gelf_getshdr(scn, &sh));
		if (sh.sh_flags & SHF_COMPRESSED) {
			((Elf64_Chdr *)(im.buf + sh.sh_offset))->ch_size = 1ULL << 40;
			break;
		}
	}
	image_write(&im, dir, "inflate");
}

static int names_nonempty(const char *name, __u64 addr, void *ctx)
{
	assert_true(name && name[0]);
	return 0;
}

/*
 * What fuzz_dwarf found (tests/fuzz/regressions/dwarf/), here too so that
 * the unit suite and the mutation check see them: each file opened from
 * memory, its functions listed and converted; every failure one line
 * naming the file.  "no-functions-or-variables": qsort() of a NULL table;
 * "name-of-no-string-form": -ENOMEM without a message; "empty-function-
 * name": a function called "" listed.
 */
static void test_fuzz_regressions(void **state)
{
	static const char *const files[] = { "no-functions-or-variables",
					     "name-of-no-string-form", "empty-function-name" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[PATH_MAX], *buf;
		struct ks_error e = { 0 };
		struct dwbtf *d = NULL;
		struct stat st;
		int fd, err;

		snprintf(path, sizeof(path), "%s/dwarf/%s", KSNOOP_FUZZ_REGRESSIONS, files[i]);
		fd = open(path, O_RDONLY);
		assert_true(fd >= 0 && !fstat(fd, &st));
		buf = malloc(st.st_size);
		assert_int_equal(pread(fd, buf, st.st_size, 0), st.st_size);
		close(fd);
		err = dwbtf__open_mem(buf, st.st_size, "regression", &d, &e);
		free(buf);
		if (err) {
			if (e.err != err || !strstr(e.msg, "'regression'") || strchr(e.msg, '\n'))
				fail_msg("%s: %d '%s' is not one line naming the file", files[i], err,
					 e.msg);
			continue;
		}
		assert_int_equal(dwbtf__each_func(d, names_nonempty, NULL), 0);
		dwbtf__close(d);
	}
}

static void test_not_elf(void **state)
{
	struct ks_error e = { 0 };
	struct dwbtf *d;

	assert_int_equal(dwbtf__open_mem("not an ELF file", 15, "junk", &d, &e), -ENOEXEC);
	assert_null(d);
	assert_non_null(strstr(e.msg, "'junk'"));
	assert_int_equal(dwbtf__open("/nonexistent/ksnoop", NULL, &d, &e), -ENOENT);
	assert_int_equal(dwbtf__open("/dev/null", NULL, &d, &e), -ENOEXEC);
	assert_non_null(strstr(e.msg, "/dev/null"));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_pahole),
		cmocka_unit_test(test_prototypes),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_cxx),
		cmocka_unit_test(test_by_build_id),
		cmocka_unit_test(test_by_debuglink),
		cmocka_unit_test(test_no_debug_anywhere),
		cmocka_unit_test(test_btf_section),
		cmocka_unit_test(test_glibc),
		cmocka_unit_test(test_hostile_cycles),
		cmocka_unit_test(test_hostile_depth),
		cmocka_unit_test(test_hostile_inflate),
		cmocka_unit_test(test_fuzz_regressions),
		cmocka_unit_test(test_not_elf),
	};

	if (argc == 3 && strcmp(argv[1], "--write-hostile") == 0) {
		write_hostile(argv[2]);
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
