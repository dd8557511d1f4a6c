// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Input from outside, made hostile (issue #11): names with terminal escape
 * sequences in traced memory, comm, BTF and error messages, and BTF that a
 * compiler never writes -- typedef and pointer cycles, an anonymous struct
 * that contains itself, a fan-out of anonymous members, names whose offset
 * is not in the string section.  Each must give a clean error or bounded,
 * escaped output.  A walk that never ends is caught by the alarm in main().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "escape.h"
#include "log.h"
#include "print.h"
#include "resolve.h"
#include "spec.h"

#define FORGED	"\x1b[31m\nFORGED"

static struct btf *btf;
static int int_t;

static int new_btf(void **state)
{
	btf = btf__new_empty();
	if (!btf)
		return -1;
	int_t = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	return int_t > 0 ? 0 : -1;
}

static int free_btf(void **state)
{
	btf__free(btf);
	btf = NULL;
	return 0;
}

static void field(const char *name, int type, int byte_off)
{
	assert_int_equal(btf__add_field(btf, name, type, byte_off * 8, 0), 0);
}

/* Member I of struct ID gets a name offset past the string section. */
static void break_member_name(int id, int i)
{
	struct btf_type *t = (struct btf_type *)btf__type_by_id(btf, id);

	btf_members(t)[i].name_off = 0x7ffffff;
}

/* ---- rendering, captured with open_memstream ---- */

static char out[1 << 20];

static const char *render(enum report_format format, int type, const void *data, __u32 size)
{
	struct print_opts opts = { .format = format };
	struct value_desc vd = { .text = "v", .type_id = type, .obj_id = type,
				 .how = PRINT_VALUE, .size = size, .obj_size = size };
	struct ksnoop_value vh = { .status = KSNOOP_OK, .len = size };
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	printer__init(&p, f, &opts);
	printer__value(&p, btf, &vd, &vh, data, 1);
	printer__fini(&p);
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

/* No byte a terminal acts on: C0 (but none at all here), DEL, C1 raw or encoded. */
static void assert_inert(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	for (; *u; u++) {
		if (*u < 0x20 && *u != '\n')
			fail_msg("control byte 0x%02x in output: %s", *u, s);
		if (*u == 0x7f || (*u >= 0x80 && *u <= 0x9f))
			fail_msg("byte 0x%02x in output", *u);
		if (*u == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f)
			fail_msg("UTF-8 C1 control in output");
	}
}

static const char *json_str(const char *s, size_t n)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	json_write_string(f, s, n);
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

#define JSON_STR(lit) json_str(lit, sizeof(lit) - 1)

/* ---- escaping (item 1) ---- */

static void test_json_c1_and_bidi_escaped(void **state)
{
	/* U+009B (CSI) encoded, raw 0x9b, U+0085 (NEL), U+202E, U+2028. */
	assert_string_equal(JSON_STR("\xc2\x9b" "2J"), "\"\\u009b2J\"");
	assert_string_equal(JSON_STR("\x9b"), "\"\\\\x9b\"");
	assert_string_equal(JSON_STR("a\xc2\x85" "b"), "\"a\\u0085b\"");
	assert_string_equal(JSON_STR("\xe2\x80\xae"), "\"\\u202e\"");
	assert_string_equal(JSON_STR("\xe2\x80\xa8"), "\"\\u2028\"");
	/* Their neighbours are printable and pass: U+00A0, U+2030. */
	assert_string_equal(JSON_STR("\xc2\xa0\xe2\x80\xb0"), "\"\xc2\xa0\xe2\x80\xb0\"");
}

/* CP (U+0800 to U+FFFF) as its three UTF-8 bytes, NUL-terminated. */
static void utf8_3(__u32 cp, char *s)
{
	s[0] = (char)(0xe0 | cp >> 12);
	s[1] = (char)(0x80 | (cp >> 6 & 0x3f));
	s[2] = (char)(0x80 | (cp & 0x3f));
	s[3] = 0;
}

static const char *text_str(const char *s)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	text_write_escaped(f, s, strlen(s));
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

/*
 * Every bidi control and separator, each range to its last code point:
 * LRM/RLM, LS/PS, the embeddings and overrides, the isolates (an open RLI
 * reorders the rest of a line as an RLO does).  JSON escapes each as
 * \uXXXX; text escapes every non-ASCII byte.
 */
static void test_every_bidi_control_escaped(void **state)
{
	static const __u32 ranges[][2] = {
		{ 0x200e, 0x200f }, { 0x2028, 0x2029 }, { 0x202a, 0x202e }, { 0x2066, 0x2069 },
	};
	static const __u32 visible[] = { 0x2010, 0x2027, 0x202f, 0x2070 };
	char s[4], want[32];

	for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++)
		for (__u32 cp = ranges[r][0]; cp <= ranges[r][1]; cp++) {
			utf8_3(cp, s);
			snprintf(want, sizeof(want), "\"\\u%04x\"", cp);
			if (strcmp(json_str(s, 3), want))
				fail_msg("U+%04X in JSON: not %s", cp, want);
			snprintf(want, sizeof(want), "\\xe2\\x%02x\\x%02x",
				 (unsigned char)s[1], (unsigned char)s[2]);
			if (strcmp(text_str(s), want))
				fail_msg("U+%04X in text: not %s", cp, want);
		}
	/* Their printable neighbours pass JSON as they are. */
	for (size_t i = 0; i < sizeof(visible) / sizeof(visible[0]); i++) {
		utf8_3(visible[i], s);
		snprintf(want, sizeof(want), "\"%s\"", s);
		assert_string_equal(json_str(s, 3), want);
	}
}

/*
 * Unquoted text (comm, names, paths): '\' starts every escape, so it is
 * escaped too; a name holding the two characters \t and one holding a
 * TAB must not print the same.
 */
static void test_text_backslash_escaped(void **state)
{
	assert_string_equal(text_str("a\\tb"), "a\\\\tb");
	assert_string_equal(text_str("a\tb"), "a\\tb");
	assert_string_equal(text_str("\\x1b"), "\\\\x1b");
	assert_string_equal(text_str("\x1b"), "\\x1b");
}

static void test_text_string_escapes_c1(void **state)
{
	int arr = btf__add_array(btf, int_t, btf__add_int(btf, "char", 1, BTF_INT_SIGNED), 8);
	char s[8] = "\x1b\xc2\x9b\x9b\x7f" "x";

	assert_string_equal(render(REPORT_TEXT, arr, s, 8), "\"\\x1b\\xc2\\x9b\\x9b\\x7fx\"");
	assert_string_equal(render(REPORT_JSON, arr, s, 8), "\"\\u001b\\u009b\\\\x9b\\u007fx\"");
}

static void test_btf_names_escaped(void **state)
{
	int e = btf__add_enum(btf, "\x1b]0;title\x07", 4), st;
	uint32_t v[2] = { 1, 7 };

	assert_int_equal(btf__add_enum_value(btf, "\xc2\x9b" "2J", 7), 0);
	st = btf__add_struct(btf, "s", 8);
	field("\x1b[2J\nFAKE", int_t, 0);
	field("e", e, 4);
	assert_string_equal(render(REPORT_TEXT, st, v, 8),
			    "{\n        .\\x1b[2J\\nFAKE = 1,\n        .e = \\xc2\\x9b2J,\n    }");
	assert_string_equal(render(REPORT_JSON, st, v, 8),
			    "{\"\\u001b[2J\\nFAKE\":1,\"e\":\"\\u009b2J\"}");
	assert_inert(out);
}

static void test_deref_type_name_escaped(void **state)
{
	int st = btf__add_struct(btf, FORGED, 4);
	struct print_opts opts = { .format = REPORT_TEXT };
	struct value_desc vd = { .text = "p", .obj_id = st, .how = PRINT_DEREF,
				 .size = 4, .obj_size = 4 };
	struct ksnoop_value vh = { .status = KSNOOP_OK, .len = 4, .addr = 0x1000 };
	int zero = 0;
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f;

	field("x", int_t, 0);
	vd.type_id = btf__add_ptr(btf, st);
	btfu_type_str(btf, st, NULL, vd.obj_name, sizeof(vd.obj_name));
	f = open_memstream(&buf, &sz);
	assert_non_null(f);
	printer__init(&p, f, &opts);
	printer__value(&p, btf, &vd, &vh, &zero, 1);
	printer__fini(&p);
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	assert_string_equal(out, "0x1000 -> (struct \\x1b[31m\\nFORGED){}");
}

static void test_event_header_escapes_comm_and_name(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[64] = {};
	struct ksnoop_event ev = { .kind = KSNOOP_ENTRY, .tgid = 1, .tid = 2,
				   .comm = FORGED "\xc2\x9b" };
	struct print_opts opts = { .format = REPORT_TEXT };
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f;

	memset(&plan, 0, sizeof(plan));
	snprintf(plan.sig.name, sizeof(plan.sig.name), "prov\x1b:na\nme");
	plan.sig.btf = btf;
	plan.bpf.side[KSNOOP_ENTRY].enabled = 1;
	plan.bpf.side[KSNOOP_ENTRY].rec_size = sizeof(ev);
	memcpy(rec, &ev, sizeof(ev));
	f = open_memstream(&buf, &sz);
	assert_non_null(f);
	printer__init(&p, f, &opts);
	printer__event(&p, &plan, rec, sizeof(ev));
	printer__fini(&p);
	fclose(f);
	assert_non_null(strstr(buf, " \\x1b[31m\\nFORGED\\xc2\\x9b 1/2 -> prov\\x1b:na\\nme\n"));
	assert_int_equal(strchr(buf, '\n') - buf, (long)strlen(buf) - 1);
	assert_inert(buf);
	free(buf);
}

static void test_log_escapes_c1(void **state)
{
	char path[] = "/tmp/ksnoop-unit-XXXXXX", got[256] = "";
	int fd = mkstemp(path), saved = dup(2);
	FILE *f;

	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	log_error("'%s': %s", "a\x9b" "b\xc2\x9b" "c", FORGED);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	f = fdopen(fd, "r");
	rewind(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	unlink(path);
	assert_string_equal(got, "ksnoop: 'a\\x9bb\\xc2\\x9bc': \\x1b[31m\\nFORGED\n");
}

/* ---- hostile BTF (item 6) ---- */

static void test_typedef_cycle(void **state)
{
	__u32 a = btf__type_cnt(btf);
	char buf[128];
	int v = 5;

	/* typedef B A; typedef A B; */
	assert_int_equal(btf__add_typedef(btf, "A", a + 1), (int)a);
	assert_int_equal(btf__add_typedef(btf, "B", a), (int)a + 1);
	assert_int_equal(btfu_strip(btf, a), 0);
	assert_false(btfu_is_char(btf, a));
	assert_false(btfu_is_scalar(btf, a));
	assert_string_equal(render(REPORT_TEXT, a, &v, 4), "void");
	assert_string_equal(render(REPORT_JSON, a, &v, 4), "null");
	assert_string_equal(btfu_type_str(btf, a, NULL, buf, sizeof(buf)), "A");
}

static void test_pointer_cycle_is_not_spelled(void **state)
{
	__u32 p = btf__type_cnt(btf);
	char buf[128];

	assert_int_equal(btf__add_ptr(btf, p + 1), (int)p);
	assert_int_equal(btf__add_const(btf, p), (int)p + 1);
	snprintf(buf, sizeof(buf), "<type %u>", p);
	assert_string_equal(btfu_type_str(btf, p, NULL, out, sizeof(out)), buf);
}

/* struct outer { struct { int x; <this struct again>; }; } */
static int self_containing(void)
{
	__u32 anon = btf__type_cnt(btf);
	int outer;

	assert_int_equal(btf__add_struct(btf, NULL, 4), (int)anon);
	field("x", int_t, 0);
	field(NULL, anon, 0);
	outer = btf__add_struct(btf, "outer", 4);
	field(NULL, anon, 0);
	return outer;
}

/* int f(TYPE *o) */
static void add_func_taking(int type)
{
	int ptr = btf__add_ptr(btf, type), proto = btf__add_func_proto(btf, int_t);

	assert_int_equal(btf__add_func_param(btf, "o", ptr), 0);
	assert_true(btf__add_func(btf, "f", BTF_FUNC_GLOBAL, proto) > 0);
}

static int resolve(const char *text, struct ks_error *e)
{
	static const struct resolve_opts opts = {
		.max_bytes = KSNOOP_DEFAULT_VALUE_SIZE, .str_bytes = KSNOOP_DEFAULT_STR_SIZE,
	};
	static struct capture_plan plan;
	struct signature sig;
	struct spec spec;
	struct ks_error why;
	int err;

	assert_int_equal(spec__parse(text, SPEC_KFUNC, &spec, e), 0);
	assert_int_equal(signature__from_func(btf, btf__find_by_name_kind(btf, "f", BTF_KIND_FUNC),
					      &sig, &why), 0);
	err = resolver__resolve(&spec, &sig, &opts, &plan, e);
	spec__free(&spec);
	return err;
}

static void test_self_containing_anonymous_struct(void **state)
{
	int outer = self_containing();
	struct ks_error e;
	int v = 3;

	add_func_taking(outer);
	assert_int_equal(resolve("f(o->x)", &e), 0);
	assert_int_not_equal(resolve("f(o->nope)", &e), 0);
	assert_non_null(strstr(e.msg, "no member 'nope' in struct outer"));
	assert_non_null(strstr(render(REPORT_TEXT, outer, &v, 4),
			       "/* cut: its BTF nests deeper than 32"));
	render(REPORT_JSON, outer, &v, 4);
	assert_int_equal(out[0], '{');
	assert_int_equal(out[strlen(out) - 1], '}');
	assert_string_equal(btfu_type_str(btf, outer, NULL, out, sizeof(out)), "struct outer");
}

/*
 * Regression (fixed; found by fuzz_btf in CI): an anonymous struct whose
 * member is a named struct that contains itself.  btf_dump asks
 * btf__align_of() of the anonymous one when it spells it inline, and that
 * walks every member of every struct it meets, with no depth limit: the
 * process died of a stack overflow.  Now it is not spelled, and nothing
 * else about the value breaks.
 */
static void test_anonymous_struct_around_a_struct_containing_itself(void **state)
{
	__u32 named = btf__type_cnt(btf);
	int anon, ptr, v = 7;
	char want[32];

	assert_int_equal(btf__add_struct(btf, "loop", 4), (int)named);
	field("self", named, 0);
	anon = btf__add_struct(btf, NULL, 4);
	field("l", named, 0);
	ptr = btf__add_ptr(btf, anon);
	snprintf(want, sizeof(want), "<type %d>", ptr);
	assert_string_equal(btfu_type_str(btf, ptr, NULL, out, sizeof(out)), want);
	snprintf(want, sizeof(want), "<type %d>", anon);
	assert_string_equal(btfu_type_str(btf, anon, NULL, out, sizeof(out)), want);
	assert_string_equal(btfu_type_str(btf, named, NULL, out, sizeof(out)), "struct loop");
	render(REPORT_TEXT, anon, &v, 4);
	assert_non_null(strstr(out, "cut"));
}

/* Twenty levels of structs, each with four anonymous members of the next. */
static void test_anonymous_fan_out_is_bounded(void **state)
{
	int level, i, type = btf__add_struct(btf, NULL, 4);
	struct ks_error e;
	int v = 1;

	field("x", int_t, 0);
	for (level = 0; level < 20; level++) {
		int next = btf__add_struct(btf, level == 19 ? "top" : NULL, 4);

		for (i = 0; i < 4; i++)
			field(NULL, type, 0);
		type = next;
	}
	add_func_taking(type);
	/* 4^20 paths to search without a bound on visits. */
	assert_int_not_equal(resolve("f(o->nope)", &e), 0);
	assert_non_null(strstr(render(REPORT_TEXT, type, &v, 4), "cut"));
	assert_true(strlen(render(REPORT_JSON, type, &v, 4)) < sizeof(out) - 1);
}

static void test_invalid_member_name_is_anonymous(void **state)
{
	int e = btf__add_enum(btf, "e", 4), st, anon, ptr;
	uint32_t v[2] = { 9, 1 };
	char buf[128];

	assert_int_equal(btf__add_enum_value(btf, "ONE", 1), 0);
	((struct btf_enum *)btf_enum(btf__type_by_id(btf, e)))[0].name_off = 0x7ffffff;
	st = btf__add_struct(btf, "s", 8);
	field("a", int_t, 0);
	field("b", e, 4);
	break_member_name(st, 0);
	assert_string_equal(render(REPORT_JSON, st, v, 8), "{\"\":9,\"b\":1}");
	assert_string_equal(render(REPORT_TEXT, st, v, 8),
			    "{\n        . = 9,\n        .b = 1,\n    }");
	assert_string_equal(btfu_name(btf, 0x7ffffff), "");
	/* An int named by a bad offset is no char, and no crash. */
	((struct btf_type *)btf__type_by_id(btf, int_t))->name_off = 0x7ffffff;
	assert_false(btfu_is_char(btf, int_t));
	/* btf_dump would read the member names of an anonymous struct. */
	anon = btf__add_struct(btf, NULL, 4);
	field("m", int_t, 0);
	break_member_name(anon, 0);
	ptr = btf__add_ptr(btf, anon);
	snprintf(buf, sizeof(buf), "<type %d>", ptr);
	assert_string_equal(btfu_type_str(btf, ptr, NULL, out, sizeof(out)), buf);
}

/*
 * Regression (found by fuzz_btf once its seeds had bitfields at the end;
 * regressions/btf/anonymous-struct-member-of-a-0-byte-int): btf_dump pads
 * an anonymous struct it spells inline up to each member's alignment, and
 * an int of 0 bytes aligns to 0: SIGFPE.  Such a struct is not spelled.
 */
static void test_anonymous_struct_with_0_byte_member(void **state)
{
	int zero = btf__add_int(btf, "z", 4, 0), anon, ptr;
	char want[32];

	((struct btf_type *)btf__type_by_id(btf, zero))->size = 0;
	anon = btf__add_struct(btf, NULL, 12);
	field("a", int_t, 0);
	field("z", zero, 8);
	ptr = btf__add_ptr(btf, anon);
	snprintf(want, sizeof(want), "<type %d>", ptr);
	assert_string_equal(btfu_type_str(btf, ptr, NULL, out, sizeof(out)), want);
}

/* ---- reads inside the value (issue #34, item 15) ---- */

/*
 * VD's value, LEN bytes of DATA, rendered from a heap copy of exactly LEN
 * bytes: ASan reports a read past the value, whatever its BTF says.
 */
static const char *render_exact(enum report_format format, struct value_desc *vd,
				const void *data, __u32 len)
{
	struct print_opts opts = { .format = format, .zeros = true };
	struct ksnoop_value vh = { .status = KSNOOP_OK, .len = len };
	unsigned char *copy = malloc(len ? len : 1);
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_true(f && copy);
	memcpy(copy, data, len);
	vd->text = "v";
	vd->how = PRINT_VALUE;
	vd->size = len;
	if (!vd->obj_size)
		vd->obj_size = len;
	printer__init(&p, f, &opts);
	printer__value(&p, btf, vd, &vh, copy, 1);
	printer__fini(&p);
	fclose(f);
	free(copy);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

/* struct { int a:8; TYPE m:8; }, two bytes, the member's one the last. */
static const char *last_byte_bitfield(enum report_format format, int type)
{
	struct value_desc vd = {};
	int st = btf__add_struct(btf, "s", 2);
	unsigned char v[2] = { 1, 2 };

	assert_int_equal(btf__add_field(btf, "a", int_t, 0, 8), 0);
	assert_int_equal(btf__add_field(btf, "m", type, 8, 8), 0);
	vd.type_id = vd.obj_id = st;
	return render_exact(format, &vd, v, sizeof(v));
}

/*
 * Regression (found by fuzz_btf, regressions/btf/pointer-bitfield-of-1-byte):
 * BTF gave a pointer member a bitfield size of 8 bits at the end of the
 * value; the member list checked its one byte and the pointer's reader
 * loaded 8.  Only integers and enums have bitfields; the others print as
 * unknown, and a bitfield of a 16-byte integer reads its own bytes.
 */
static void test_pointer_float_int128_bitfields(void **state)
{
	int ptr = btf__add_ptr(btf, int_t), flt = btf__add_float(btf, "double", 8);
	int i128 = btf__add_int(btf, "__int128", 16, BTF_INT_SIGNED);

	assert_string_equal(last_byte_bitfield(REPORT_TEXT, ptr),
			    "{\n        .a = 1,\n        .m = /* ? */,\n    }");
	assert_string_equal(last_byte_bitfield(REPORT_JSON, ptr), "{\"a\":1,\"m\":null}");
	assert_string_equal(last_byte_bitfield(REPORT_TEXT, flt),
			    "{\n        .a = 1,\n        .m = /* ? */,\n    }");
	assert_string_equal(last_byte_bitfield(REPORT_JSON, i128), "{\"a\":1,\"m\":2}");
}

/*
 * BTF whose 'long' is 4 bytes has 4-byte pointers (libbpf's guess): a
 * pointer in the last 4 bytes of the value is read as 4, not 8.
 */
static void test_pointer_of_4_bytes_at_the_end(void **state)
{
	struct value_desc vd = {};
	uint32_t v[2] = { 7, 0x1234 };
	int ptr, st;

	assert_int_equal(btf__set_pointer_size(btf, 4), 0);
	ptr = btf__add_ptr(btf, int_t);
	st = btf__add_struct(btf, "s", 8);
	field("a", int_t, 0);
	field("p", ptr, 4);
	vd.type_id = vd.obj_id = st;
	assert_string_equal(render_exact(REPORT_JSON, &vd, v, 8), "{\"a\":7,\"p\":\"0x1234\"}");
	vd.fmt = FMT_SYM;
	vd.type_id = vd.obj_id = ptr;
	assert_string_equal(render_exact(REPORT_JSON, &vd, &v[1], 4), "\"0x1234\"");
	/* 7 bytes of a struct of 8: the pointer is not read at all. */
	vd.fmt = FMT_NONE;
	vd.type_id = vd.obj_id = st;
	vd.obj_size = 8;
	assert_string_equal(render_exact(REPORT_TEXT, &vd, v, 7),
			    "{\n        .a = 7,\n    } /* truncated at 7 of 8 bytes */");
}

/*
 * A bitfield value whose capture came back shorter than its bytes (a
 * record from a hostile or older BPF side) is truncated, not read on; so
 * is ":ip" on a value that is neither 4 bytes nor 16.
 */
static void test_short_bitfield_and_ip_values_are_not_read_past(void **state)
{
	struct value_desc vd = { .bit_off = 4, .bit_size = 12 };
	unsigned char v[16] = { 0xab, 0xcd };
	int u64 = btf__add_int(btf, "unsigned long", 8, 0);

	vd.type_id = vd.obj_id = int_t;
	/* 0xcda, 12 bits signed */
	assert_string_equal(render_exact(REPORT_TEXT, &vd, v, 2), "-806");
	assert_string_equal(render_exact(REPORT_TEXT, &vd, v, 1),
			    "/* truncated */ /* truncated at 1 of 2 bytes */");
	memset(&vd, 0, sizeof(vd));
	vd.fmt = FMT_IP;
	vd.type_id = vd.obj_id = u64;
	assert_string_equal(render_exact(REPORT_TEXT, &vd, v, 8), "/* ? */");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_json_c1_and_bidi_escaped, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_every_bidi_control_escaped, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_text_backslash_escaped, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_text_string_escapes_c1, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_btf_names_escaped, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_deref_type_name_escaped, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_event_header_escapes_comm_and_name, new_btf,
						free_btf),
		cmocka_unit_test_setup_teardown(test_log_escapes_c1, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_typedef_cycle, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_pointer_cycle_is_not_spelled, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_self_containing_anonymous_struct, new_btf,
						free_btf),
		cmocka_unit_test_setup_teardown(test_anonymous_fan_out_is_bounded, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_anonymous_struct_around_a_struct_containing_itself,
						new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_invalid_member_name_is_anonymous, new_btf,
						free_btf),
		cmocka_unit_test_setup_teardown(test_anonymous_struct_with_0_byte_member,
						new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_pointer_float_int128_bitfields,
						new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_pointer_of_4_bytes_at_the_end, new_btf,
						free_btf),
		cmocka_unit_test_setup_teardown(test_short_bitfield_and_ip_values_are_not_read_past,
						new_btf, free_btf),
	};

	/* A walk that never ends fails the run instead of hanging it. */
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
