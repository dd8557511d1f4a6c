// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the printer (ksnoop/output/print.c).
 *
 * Raw bytes and a BTF built in memory go in; the text or JSON that comes out
 * (captured with open_memstream) is compared with the exact expected string.
 * The printer knows nothing of capture, so descriptors and records are
 * written by hand here, not produced by the resolver.
 *
 * Tests marked "Regression (fixed)" guard bugs these tests found.
 * until ksnoop/output/print.c is fixed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "../include/btf_fixture.h"
#include "../fixture/types.h"
#include "escape.h"
#include "writer.h"
#include "print.h"

/* The record header: every record's values start after it. */
#define HDR ((__u32)sizeof(struct ksnoop_event))

/* ---- the BTF ---- */

/*
 * Compiled from tests/fixture/types.h (gcc -g, pahole -J): struct outer's
 * offsets are the compiler's, and the bytes of a struct flags written by
 * hand below must match the compiler's bitfields.
 */
#define BIG_N	FX_BIG_N

static struct btf *btf;

static struct {
	struct fx_ints ints;	/* char_t ... bool_t, from btf_fixture.h */
	int schar_t, int128_t, double_t, float_t, u8_t, u32_t;
	int color, signed_enum, big64;
	int int_ptr, char_arr16, char_arr4, u8_arr4, u8_arr16, int_arr2, int_arr_big, char_arr_big;
	int fn_ptr, inner, pair, pair_ptr, outer, flags, with_pairs, grouped;
} T;

/* Offsets in struct outer. */
enum {
	OUTER_A = offsetof(struct outer, a), OUTER_INNER = offsetof(struct outer, inner),
	OUTER_ARR = offsetof(struct outer, arr), OUTER_NEXT = offsetof(struct outer, next),
	OUTER_U = offsetof(struct outer, u), OUTER_SIZE = sizeof(struct outer),
};

/* The id of member M of struct print_types, or of the struct or enum NAME. */
#define MEMBER(m)	fx_member_type(btf, "print_types", #m)
#define STRUCT(name)	fx_named(btf, name, BTF_KIND_STRUCT)

static int build_btf(void **state)
{
	btf = fx_fixture("types");
	if (!btf || fx_find_ints(btf, &T.ints))
		return -1;
	T.schar_t = MEMBER(schar);
	T.int128_t = MEMBER(int128);
	T.double_t = MEMBER(dbl);
	T.float_t = MEMBER(flt);
	T.u8_t = fx_named(btf, "u8", BTF_KIND_TYPEDEF);
	T.u32_t = fx_named(btf, "u32", BTF_KIND_TYPEDEF);
	T.color = fx_named(btf, "color", BTF_KIND_ENUM);
	T.signed_enum = MEMBER(se);
	T.big64 = MEMBER(b64);
	T.int_ptr = MEMBER(int_ptr);
	T.char_arr16 = fx_member_type(btf, "inner", "name");
	T.char_arr4 = MEMBER(char_arr4);
	T.u8_arr4 = MEMBER(u8_arr4);
	T.u8_arr16 = MEMBER(u8_arr16);
	T.int_arr2 = fx_member_type(btf, "outer", "arr");
	T.int_arr_big = MEMBER(int_arr_big);
	T.char_arr_big = MEMBER(char_arr_big);
	T.fn_ptr = MEMBER(fn);
	T.inner = STRUCT("inner");
	T.pair = STRUCT("pair");
	T.pair_ptr = fx_member_type(btf, "outer", "next");
	T.outer = STRUCT("outer");
	T.flags = STRUCT("flags");
	T.with_pairs = STRUCT("with_pairs");
	T.grouped = STRUCT("grouped");
	/* Every id found (a negative errno otherwise). */
	for (const int *id = &T.schar_t; id <= &T.grouped; id++)
		if (*id <= 0)
			return -1;
	return 0;
}

static int free_btf(void **state)
{
	btf__free(btf);
	btf = NULL;
	return 0;
}

/* ---- helpers ---- */

/*
 * Printed output, copied to a static buffer so that a failing assertion
 * (which leaves the test by longjmp) does not leak the memstream's buffer.
 */
static char out[65536];

static FILE *out_open(char **buf, size_t *sz)
{
	FILE *f = open_memstream(buf, sz);

	assert_non_null(f);
	return f;
}

/* BUF is only valid after fclose(), hence the pointer to it. */
static const char *out_close(FILE *f, char **buf)
{
	fclose(f);
	snprintf(out, sizeof(out), "%s", *buf);
	free(*buf);
	return out;
}

struct value {
	enum report_format format;
	bool zeros;
	int level;
	struct value_desc vd;
	struct ksnoop_value vh;
	print_symbolize_fn symbolize;
	print_symbolize_fn symbolize_any;
};

static const char *render_value(const struct value *v, const void *data)
{
	struct print_opts opts = {
		.format = v->format, .zeros = v->zeros, .symbolize = v->symbolize,
		.symbolize_any = v->symbolize_any,
	};
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = out_open(&buf, &sz);

	printer__init(&p, f, &opts);
	printer__value(&p, btf, &v->vd, &v->vh, data, v->level);
	printer__fini(&p);
	return out_close(f, &buf);
}

/* V prints as TEXT in text and as JSON in JSON (V is left in JSON). */
static void renders_as(struct value *v, const void *data, const char *text, const char *json)
{
	v->format = REPORT_TEXT;
	assert_string_equal(render_value(v, data), text);
	v->format = REPORT_JSON;
	assert_string_equal(render_value(v, data), json);
}

/* TYPE's SIZE bytes at DATA, captured whole, in FORMAT. */
static const char *render(enum report_format format, int type, const void *data, __u32 size)
{
	struct value v = {
		.format = format,
		.vd = { .text = "v", .type_id = type, .obj_id = type, .how = PRINT_VALUE,
			.size = size, .obj_size = size },
		.vh = { .status = KSNOOP_OK, .len = size },
	};

	return render_value(&v, data);
}

/* The value must print as TEXT in text mode and JSON in JSON mode. */
static void expect(int type, const void *data, __u32 size, const char *text, const char *json)
{
	assert_string_equal(render(REPORT_TEXT, type, data, size), text);
	assert_string_equal(render(REPORT_JSON, type, data, size), json);
}

static const char *json_string(const char *s, size_t n)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = out_open(&buf, &sz);

	json_write_string(f, s, n);
	return out_close(f, &buf);
}

#define JSON_STR(lit) json_string(lit, sizeof(lit) - 1)

/* ---- scalars ---- */

static void test_signed_ints(void **state)
{
	int8_t s8 = -128;
	int16_t s16 = -32768;
	int32_t s32 = INT32_MIN, minus5 = -5;
	int64_t s64 = INT64_MIN;

	expect(T.schar_t, &s8, 1, "-128", "-128");
	s8 = 127;
	expect(T.schar_t, &s8, 1, "127", "127");
	expect(T.ints.short_t, &s16, 2, "-32768", "-32768");
	expect(T.ints.int_t, &s32, 4, "-2147483648", "-2147483648");
	s32 = INT32_MAX;
	expect(T.ints.int_t, &s32, 4, "2147483647", "2147483647");
	expect(T.ints.int_t, &minus5, 4, "-5", "-5");
	expect(T.ints.long_t, &s64, 8, "-9223372036854775808", "-9223372036854775808");
	s64 = INT64_MAX;
	expect(T.ints.long_t, &s64, 8, "9223372036854775807", "9223372036854775807");
}

static void test_unsigned_ints(void **state)
{
	uint8_t u8 = 255;
	uint16_t u16 = 65535;
	uint32_t u32 = UINT32_MAX;
	uint64_t u64 = UINT64_MAX, zero = 0;

	expect(T.ints.uchar_t, &u8, 1, "255", "255");
	expect(T.ints.ushort_t, &u16, 2, "65535", "65535");
	expect(T.ints.uint_t, &u32, 4, "4294967295", "4294967295");
	expect(T.ints.ulong_t, &u64, 8, "18446744073709551615", "18446744073709551615");
	expect(T.ints.ulong_t, &zero, 8, "0", "0");
}

static void test_typedef_prints_as_its_type(void **state)
{
	uint32_t v = 84;
	uint8_t b = 200;

	expect(T.u32_t, &v, 4, "84", "84");
	expect(T.u8_t, &b, 1, "200", "200");
}

static void test_register_value_uses_declared_size(void **state)
{
	/* A register holds 8 bytes; an int argument is its low 4. */
	uint64_t reg = 0x12345678fffffffbULL;
	struct value v = {
		.format = REPORT_TEXT,
		.vd = { .text = "i", .type_id = T.ints.int_t, .obj_id = T.ints.int_t, .how = PRINT_VALUE,
			.size = 4, .obj_size = 4 },
		.vh = { .status = KSNOOP_OK, .len = 8 },
	};

	assert_string_equal(render_value(&v, &reg), "-5");
}

static void test_bool(void **state)
{
	uint8_t t = 1, f = 0;

	expect(T.ints.bool_t, &t, 1, "true", "true");
	expect(T.ints.bool_t, &f, 1, "false", "false");
}

static void test_char(void **state)
{
	char c = 'A';

	expect(T.ints.char_t, &c, 1, "'A'", "65");
	c = '\n';
	expect(T.ints.char_t, &c, 1, "'\\x0a'", "10");
	c = '\'';
	expect(T.ints.char_t, &c, 1, "'\\x27'", "39");
	c = '\\';
	expect(T.ints.char_t, &c, 1, "'\\x5c'", "92");
	c = (char)0xff;
	expect(T.ints.char_t, &c, 1, "'\\xff'", "-1");
}

static void test_int128(void **state)
{
	uint64_t v[2] = { UINT64_MAX, 1 };	/* little-endian: low half first */

	expect(T.int128_t, v, 16, "0x0000000000000001ffffffffffffffff",
	       "\"0x0000000000000001ffffffffffffffff\"");
}

static void test_floats(void **state)
{
	double d = 1.5;
	float f = -0.25f;

	expect(T.double_t, &d, 8, "1.5", "1.5");
	expect(T.float_t, &f, 4, "-0.25", "-0.25");
}

/* Regression (fixed): print.c emit(): NaN and infinities print as nan/inf, which JSON does not have. */
static void test_json_float_nan_and_inf(void **state)
{
	double nan = __builtin_nan(""), inf = __builtin_inf();

	assert_string_equal(render(REPORT_TEXT, T.double_t, &nan, 8), "nan");
	assert_string_equal(render(REPORT_JSON, T.double_t, &nan, 8), "null");
	assert_string_equal(render(REPORT_JSON, T.double_t, &inf, 8), "null");
}

static void test_enum_names(void **state)
{
	uint32_t v = 2;

	expect(T.color, &v, 4, "BLUE", "\"BLUE\"");
	v = 0;
	expect(T.color, &v, 4, "RED", "\"RED\"");
}

static void test_enum_unknown_value(void **state)
{
	uint32_t v = 77;
	int32_t s = -7;

	expect(T.color, &v, 4, "77", "77");
	v = UINT32_MAX;
	expect(T.color, &v, 4, "4294967295", "4294967295");
	expect(T.signed_enum, &s, 4, "-7", "-7");
}

static void test_signed_enum(void **state)
{
	int32_t v = -1;

	expect(T.signed_enum, &v, 4, "NEG_ONE", "\"NEG_ONE\"");
	v = 5;
	expect(T.signed_enum, &v, 4, "POS_FIVE", "\"POS_FIVE\"");
}

static void test_enum64(void **state)
{
	uint64_t v = UINT64_MAX;

	expect(T.big64, &v, 8, "ALL_ONES", "\"ALL_ONES\"");
	v = 1;
	expect(T.big64, &v, 8, "ONE", "\"ONE\"");
	v = 2;
	expect(T.big64, &v, 8, "2", "2");
}

static void test_pointers(void **state)
{
	uint64_t p = 0;

	expect(T.int_ptr, &p, 8, "NULL", "null");
	p = 0xffff888012345678ULL;
	expect(T.int_ptr, &p, 8, "0xffff888012345678", "\"0xffff888012345678\"");
}

/* ---- arrays ---- */

static void test_char_array_is_a_string(void **state)
{
	char name[16] = "lo";

	expect(T.char_arr16, name, 16, "\"lo\"", "\"lo\"");
}

static void test_char_array_without_nul(void **state)
{
	char abcd[8] = "abcdXXX";	/* the array is 4 bytes; no NUL in them */

	expect(T.char_arr4, abcd, 4, "\"abcd\"", "\"abcd\"");
}

static void test_char_array_escapes(void **state)
{
	char s[16] = "a\"b\n\x01";

	expect(T.char_arr16, s, 16, "\"a\\\"b\\n\\x01\"", "\"a\\\"b\\n\\u0001\"");
}

/* Bytes after the first NUL are shown, escaped (sockaddr's sa_data). */
static void test_char_array_keeps_bytes_after_nul(void **state)
{
	/* sin_port 0x0001 (big-endian), sin_addr 127.0.0.1, zero padding */
	char sa_data[16] = { 0x00, 0x01, 0x7f, 0x00, 0x00, 0x01 };

	expect(T.char_arr16, sa_data, 16, "\"\\x00\\x01\\x7f\\x00\\x00\\x01\"",
	       "\"\\u0000\\u0001\\u007f\\u0000\\u0000\\u0001\"");
}

static void test_char_array_all_zero_is_empty(void **state)
{
	char zero[16] = { 0 };

	expect(T.char_arr16, zero, 16, "\"\"", "\"\"");
}

static int fake_symbolize(void *ctx, __u64 addr, char *buf, size_t sz)
{
	if (addr != 0xffffffff81a2b3c0ULL)
		return -1;
	snprintf(buf, sz, "sock_wfree");
	return 0;
}

/* A function pointer names its function, with the address. */
static void test_function_pointer_symbol(void **state)
{
	int fptr = T.fn_ptr;
	__u64 known = 0xffffffff81a2b3c0ULL, unknown = 0xffffffff81000000ULL;
	struct value v = {
		.vd = { .text = "fn", .type_id = fptr, .obj_id = fptr, .how = PRINT_VALUE,
			.size = 8, .obj_size = 8 },
		.vh = { .status = KSNOOP_OK, .len = 8 },
		.symbolize = fake_symbolize,
	};

	assert_true(fptr > 0);
	v.format = REPORT_TEXT;
	assert_string_equal(render_value(&v, &known), "0xffffffff81a2b3c0 <sock_wfree>");
	assert_string_equal(render_value(&v, &unknown), "0xffffffff81000000");
	v.format = REPORT_JSON;
	assert_string_equal(render_value(&v, &known),
			    "{\"addr\":\"0xffffffff81a2b3c0\",\"sym\":\"sock_wfree\"}");
	assert_string_equal(render_value(&v, &unknown), "\"0xffffffff81000000\"");
	/* Without a symbolizer (USDT): the address alone. */
	v.symbolize = NULL;
	assert_string_equal(render_value(&v, &known), "\"0xffffffff81a2b3c0\"");
}

/* A value with a ":FORMAT", rendered in FORMAT. */
static const char *render_fmt(enum report_format format, enum spec_format fmt, int type,
			      enum print_how how, const void *data, __u32 size)
{
	struct value v = {
		.format = format,
		.vd = { .text = "v", .type_id = type, .obj_id = type, .how = how,
			.size = size, .obj_size = size, .fmt = fmt },
		.vh = { .status = KSNOOP_OK, .len = size },
		.symbolize = fake_symbolize,
	};

	return render_value(&v, data);
}

static void test_format_hex(void **state)
{
	uint32_t v = 0x1c0;
	uint8_t mac[4] = { 0x00, 0x1b, 0xa0, 0xff };

	assert_string_equal(render_fmt(REPORT_TEXT, FMT_HEX, T.u32_t, PRINT_VALUE, &v, 4), "0x1c0");
	assert_string_equal(render_fmt(REPORT_JSON, FMT_HEX, T.u32_t, PRINT_VALUE, &v, 4), "\"0x1c0\"");
	/* A byte array as one hex string. */
	assert_string_equal(render_fmt(REPORT_TEXT, FMT_HEX, T.u8_arr4, PRINT_VALUE, mac, 4),
			    "001ba0ff");
	assert_string_equal(render_fmt(REPORT_JSON, FMT_HEX, T.u8_arr4, PRINT_VALUE, mac, 4),
			    "\"001ba0ff\"");
}

static void test_format_be(void **state)
{
	uint8_t port[4] = { 0x00, 0x16, 0, 0 };	/* 22, network order */
	uint8_t neg[4] = { 0xff, 0xff, 0xff, 0xfe };

	assert_string_equal(render_fmt(REPORT_TEXT, FMT_BE, T.ints.ushort_t, PRINT_VALUE, port, 2), "22");
	assert_string_equal(render_fmt(REPORT_JSON, FMT_BE, T.u32_t, PRINT_VALUE, port, 4),
			    "1441792");
	/* Signed types keep their sign in host order. */
	assert_string_equal(render_fmt(REPORT_TEXT, FMT_BE, T.ints.int_t, PRINT_VALUE, neg, 4), "-2");
}

static const char *render_shifted(enum report_format format, enum spec_format fmt, int type,
				  const void *data, __u32 size, __u8 shift)
{
	struct value v = {
		.format = format,
		.vd = { .text = "v", .type_id = type, .obj_id = type, .how = PRINT_VALUE,
			.size = size, .obj_size = size, .fmt = fmt, .shift = shift },
		.vh = { .status = KSNOOP_OK, .len = size },
	};

	return render_value(&v, data);
}

static void test_shift(void **state)
{
	int32_t status = 3 << 8 | 0x7f, neg = -256;
	uint32_t big = 0xf0000000;

	/* exit_code >> 8: the status exit() was given. */
	assert_string_equal(render_shifted(REPORT_TEXT, FMT_NONE, T.ints.int_t, &status, 4, 8), "3");
	assert_string_equal(render_shifted(REPORT_JSON, FMT_NONE, T.ints.int_t, &status, 4, 8), "3");
	/* As C shifts: arithmetic for a signed type, logical for an unsigned one. */
	assert_string_equal(render_shifted(REPORT_TEXT, FMT_NONE, T.ints.int_t, &neg, 4, 4), "-16");
	assert_string_equal(render_shifted(REPORT_TEXT, FMT_NONE, T.u32_t, &big, 4, 28), "15");
	assert_string_equal(render_shifted(REPORT_TEXT, FMT_HEX, T.u32_t, &big, 4, 4), "0xf000000");
}

/* A struct ksnoop_strv as BPF packs it: strings S[0..N) with their statuses. */
static __u32 strv_pack(struct ksnoop_strv *sv, const char *const *s, const __u8 *st, int n)
{
	__u32 off = 0;
	int i;

	memset(sv, 0, sizeof(*sv));
	for (i = 0; i < n; i++) {
		size_t len = st[i] == KSNOOP_FAULT ? 0 : strlen(s[i]) + (st[i] == KSNOOP_OK);

		memcpy(sv->bytes + off, s[i], len);
		sv->ptr[i] = 0x7ffc0000 + 16 * i;
		sv->st[i] = st[i];
		sv->len[i] = len;
		off += len;
	}
	sv->n = n;
	sv->used = off;
	return offsetof(struct ksnoop_strv, bytes) + off;
}

static const char *render_strv(enum report_format format, const struct ksnoop_strv *sv, __u32 len,
			       __u32 status)
{
	struct value v = {
		.format = format,
		.vd = { .text = "argv:strv", .type_id = T.u8_t, .obj_id = T.u8_t, .how = PRINT_STRV,
			.size = sizeof(*sv), .obj_size = sizeof(*sv), .fmt = FMT_STRV },
		.vh = { .status = status, .len = len, .addr = 0x7ffd1000 },
	};

	return render_value(&v, sv);
}

/*
 * ':strv': the strings escaped as any traced string, an empty one kept,
 * one cut at its bound followed by "...", an unreadable one and the
 * unreadable pointer after them as unreadable memory, more than kept
 * said; a record whose lengths claim more than it holds stays inside it.
 */
static void test_format_strv(void **state)
{
	static const char *const s[] = { "ls", "a\n\"b\x01\xff", "", "long", "gone" };
	static const __u8 ok[] = { KSNOOP_OK, KSNOOP_OK, KSNOOP_OK, KSNOOP_TRUNCATED, KSNOOP_FAULT };
	static struct ksnoop_strv strv;
	struct ksnoop_strv *sv = &strv;
	__u32 len = strv_pack(sv, s, ok, 3);

	assert_string_equal(render_strv(REPORT_TEXT, sv, len, KSNOOP_OK),
			    "[\"ls\", \"a\\n\\\"b\\x01\\xff\", \"\"]");
	assert_string_equal(render_strv(REPORT_JSON, sv, len, KSNOOP_OK),
			    "[\"ls\",\"a\\n\\\"b\\u0001\\\\xff\",\"\"]");
	len = strv_pack(sv, s, ok, 5);
	sv->flags = KSNOOP_STRV_MORE;
	assert_string_equal(render_strv(REPORT_TEXT, sv, len, KSNOOP_TRUNCATED),
			    "[\"ls\", \"a\\n\\\"b\\x01\\xff\", \"\", \"long\"..., "
			    "0x7ffc0040 /* could not read memory */ ...] "
			    "/* truncated after 5 strings */ /* 1 cut at 255 bytes */");
	assert_string_equal(render_strv(REPORT_JSON, sv, len, KSNOOP_TRUNCATED),
			    "[\"ls\",\"a\\n\\\"b\\u0001\\\\xff\",\"\",\"long\","
			    "{\"error\":\"could not read memory\",\"addr\":\"0x7ffc0040\"}]");
	/* The pointer after the first two could not be read. */
	len = strv_pack(sv, s, ok, 2);
	sv->flags = KSNOOP_STRV_UNREAD;
	assert_string_equal(render_strv(REPORT_TEXT, sv, len, KSNOOP_OK),
			    "[\"ls\", \"a\\n\\\"b\\x01\\xff\", 0x7ffd1010 /* could not read memory */]");
	/* Hostile: N and lengths past the bytes the record holds (20 at most, each cut there). */
	sv->n = 250;
	sv->len[0] = 60000;
	sv->flags = 0;
	assert_string_equal(render_strv(REPORT_TEXT, sv, len, KSNOOP_OK),
			    "[\"ls\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", "
			    "\"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\", \"\"]");
	/* Shorter than its header: no list at all. */
	assert_string_equal(render_strv(REPORT_TEXT, sv, 10, KSNOOP_OK), "/* truncated */");
	/* The array itself unreadable: as any value. */
	assert_string_equal(render_strv(REPORT_TEXT, sv, 0, KSNOOP_FAULT),
			    "0x7ffd1000 /* could not read memory */");
}

static void test_format_signal(void **state)
{
	int32_t kill = 9, rt = 34, none = 0, big = 99, neg = -1;
	uint8_t usr1 = 10;

	assert_string_equal(render_fmt(REPORT_TEXT, FMT_SIGNAL, T.ints.int_t, PRINT_VALUE, &kill, 4),
			    "SIGKILL");
	assert_string_equal(render_fmt(REPORT_JSON, FMT_SIGNAL, T.ints.int_t, PRINT_VALUE, &kill, 4),
			    "\"SIGKILL\"");
	assert_string_equal(render_fmt(REPORT_TEXT, FMT_SIGNAL, T.u8_t, PRINT_VALUE, &usr1, 1),
			    "SIGUSR1");
	/* Real-time signals by the kernel's numbering: 34 is SIGRTMIN+2. */
	assert_string_equal(render_fmt(REPORT_TEXT, FMT_SIGNAL, T.ints.int_t, PRINT_VALUE, &rt, 4),
			    "SIGRT_2");
	/* 0 (kill's probe) is no signal; out of range and negative say so. */
	assert_string_equal(render_fmt(REPORT_TEXT, FMT_SIGNAL, T.ints.int_t, PRINT_VALUE, &none, 4),
			    "0");
	assert_string_equal(render_fmt(REPORT_TEXT, FMT_SIGNAL, T.ints.int_t, PRINT_VALUE, &big, 4),
			    "99 /* no such signal */");
	assert_string_equal(render_fmt(REPORT_JSON, FMT_SIGNAL, T.ints.int_t, PRINT_VALUE, &neg, 4),
			    "-1");
}

static void test_format_ip(void **state)
{
	uint8_t v4[4] = { 127, 0, 0, 1 };
	uint8_t v6[16] = { 0xfe, 0x80, [15] = 1 };
	int u8_arr16 = T.u8_arr16;

	assert_string_equal(render_fmt(REPORT_TEXT, FMT_IP, T.u32_t, PRINT_VALUE, v4, 4),
			    "127.0.0.1");
	assert_string_equal(render_fmt(REPORT_JSON, FMT_IP, T.u32_t, PRINT_VALUE, v4, 4),
			    "\"127.0.0.1\"");
	assert_string_equal(render_fmt(REPORT_TEXT, FMT_IP, u8_arr16, PRINT_DEREF, v6, 16),
			    "fe80::1");
	/* Bytes missing (a short read): unknown, not a wrong address. */
	assert_string_equal(render_fmt(REPORT_TEXT, FMT_IP, u8_arr16, PRINT_DEREF, v6, 8),
			    "/* ? */");
}

static void test_format_sym(void **state)
{
	__u64 known = 0xffffffff81a2b3c0ULL, unknown = 0xffffffff81000000ULL, null = 0;

	assert_string_equal(render_fmt(REPORT_TEXT, FMT_SYM, T.ints.ulong_t, PRINT_VALUE, &known, 8),
			    "sock_wfree");
	assert_string_equal(render_fmt(REPORT_JSON, FMT_SYM, T.ints.ulong_t, PRINT_VALUE, &known, 8),
			    "{\"addr\":\"0xffffffff81a2b3c0\",\"sym\":\"sock_wfree\"}");
	assert_string_equal(render_fmt(REPORT_TEXT, FMT_SYM, T.ints.ulong_t, PRINT_VALUE, &unknown, 8),
			    "0xffffffff81000000 /* no symbol */");
	assert_string_equal(render_fmt(REPORT_JSON, FMT_SYM, T.ints.ulong_t, PRINT_VALUE, &unknown, 8),
			    "\"0xffffffff81000000\"");
	assert_string_equal(render_fmt(REPORT_TEXT, FMT_SYM, T.int_ptr, PRINT_VALUE, &null, 8),
			    "NULL");
}

static int fake_symbolize_data(void *ctx, __u64 addr, char *buf, size_t sz)
{
	if (addr != 0xffffffff82a00040ULL)
		return fake_symbolize(ctx, addr, buf, sz);
	snprintf(buf, sz, "tcp_prot");
	return 0;
}

/* ':sym' names data too (its own symbolizer); a function pointer names functions only. */
static void test_format_sym_data(void **state)
{
	__u64 data = 0xffffffff82a00040ULL;
	struct value v = {
		.format = REPORT_JSON,
		.vd = { .text = "v", .type_id = T.ints.ulong_t, .obj_id = T.ints.ulong_t,
			.how = PRINT_VALUE, .size = 8, .obj_size = 8, .fmt = FMT_SYM },
		.vh = { .status = KSNOOP_OK, .len = 8 },
		.symbolize = fake_symbolize,
		.symbolize_any = fake_symbolize_data,
	};

	assert_string_equal(render_value(&v, &data),
			    "{\"addr\":\"0xffffffff82a00040\",\"sym\":\"tcp_prot\"}");
	v.format = REPORT_TEXT;
	assert_string_equal(render_value(&v, &data), "tcp_prot");
	v.symbolize_any = NULL;
	assert_string_equal(render_value(&v, &data), "0xffffffff82a00040 /* no symbol */");
}

static void test_u8_array_is_a_list(void **state)
{
	uint8_t b[4] = { 1, 2, 3, 255 };

	expect(T.u8_arr4, b, 4, "[1, 2, 3, 255]", "[1,2,3,255]");
}

static void test_int_array(void **state)
{
	int32_t a[2] = { -1, 7 };

	expect(T.int_arr2, a, 8, "[-1, 7]", "[-1,7]");
}

/*
 * Values whose output is several times the writer's buffer (an event goes
 * out in one piece only up to WRITER_BUF_SIZE): every element once, in
 * order, and an escape never split across a flush.
 */
static void test_value_longer_than_writer_buffer(void **state)
{
	static int32_t a[BIG_N];
	static char c[BIG_N], text[65536], json[65536];
	size_t tn = 0, jn = 0;
	int i;

	for (i = 0; i < BIG_N; i++) {
		a[i] = i * 7 - 1000;
		tn += snprintf(text + tn, sizeof(text) - tn, "%s%d", i ? ", " : "[", a[i]);
		jn += snprintf(json + jn, sizeof(json) - jn, "%s%d", i ? "," : "[", a[i]);
	}
	snprintf(text + tn, sizeof(text) - tn, "]");
	snprintf(json + jn, sizeof(json) - jn, "]");
	assert_true(tn > 2 * WRITER_BUF_SIZE);
	expect(T.int_arr_big, a, sizeof(a), text, json);

	/* 'a', then \x01 (\u0001): the escapes land on every flush boundary. */
	tn = jn = 0;
	text[tn++] = json[jn++] = '"';
	for (i = 0; i < BIG_N - 1; i++) {
		c[i] = i % 2 ? 1 : 'a';
		tn += snprintf(text + tn, sizeof(text) - tn, "%s", i % 2 ? "\\x01" : "a");
		jn += snprintf(json + jn, sizeof(json) - jn, "%s", i % 2 ? "\\u0001" : "a");
	}
	c[i] = 0;
	snprintf(text + tn, sizeof(text) - tn, "\"");
	snprintf(json + jn, sizeof(json) - jn, "\"");
	expect(T.char_arr_big, c, sizeof(c), text, json);
}

static void test_array_cut_by_max_bytes(void **state)
{
	int32_t a[2] = { -1, 7 };
	struct value v = {
		.format = REPORT_TEXT,
		.vd = { .type_id = T.int_arr2, .obj_id = T.int_arr2, .how = PRINT_VALUE,
			.size = 4, .obj_size = 8 },
		.vh = { .status = KSNOOP_OK, .len = 4 },
	};

	renders_as(&v, a, "[-1] /* truncated at 4 of 8 bytes */", "[-1]");
}

static void test_array_of_structs_json(void **state)
{
	int64_t d[4] = { 1, 2, 3, 4 };

	assert_string_equal(render(REPORT_JSON, T.with_pairs, d, 32),
			    "{\"pairs\":[{\"a\":1,\"b\":2},{\"a\":3,\"b\":4}]}");
}

/* Regression (fixed): print.c emit_array(): text puts ", " before the newline between structs (trailing space). */
static void test_array_of_structs_text(void **state)
{
	int64_t d[4] = { 1, 2, 3, 4 };

	assert_string_equal(render(REPORT_TEXT, T.with_pairs, d, 32),
			    "{\n"
			    "    .pairs = [\n"
			    "        {\n"
			    "            .a = 1,\n"
			    "            .b = 2,\n"
			    "        },\n"
			    "        {\n"
			    "            .a = 3,\n"
			    "            .b = 4,\n"
			    "        }\n"
			    "    ],\n"
			    "}");
}

/* ---- structs ---- */

static void fill_outer(unsigned char *d)
{
	int32_t a = 1, x = 2, arr[2] = { 3, 0 };

	memset(d, 0, OUTER_SIZE);
	memcpy(d + OUTER_A, &a, 4);
	memcpy(d + OUTER_INNER, &x, 4);
	memcpy(d + OUTER_INNER + 4, "lo", 3);
	memcpy(d + OUTER_ARR, arr, 8);
}

static void test_nested_struct_text(void **state)
{
	unsigned char d[OUTER_SIZE];

	fill_outer(d);
	assert_string_equal(render(REPORT_TEXT, T.outer, d, OUTER_SIZE),
			    "{\n"
			    "    .a = 1,\n"
			    "    .inner = {\n"
			    "        .x = 2,\n"
			    "        .name = \"lo\",\n"
			    "    },\n"
			    "    .arr = [3, 0],\n"
			    "}");
}

static void test_nested_struct_json_has_every_member(void **state)
{
	unsigned char d[OUTER_SIZE];

	fill_outer(d);
	assert_string_equal(render(REPORT_JSON, T.outer, d, OUTER_SIZE),
			    "{\"a\":1,\"inner\":{\"x\":2,\"name\":\"lo\"},\"arr\":[3,0],"
			    "\"next\":null,\"u\":0,\"h\":[0,0]}");
}

/*
 * Struct layouts are kept per printer by (BTF, type id): one printer shows
 * the struct of each of two BTFs (same id, other members) as its own, and
 * past the cache's bound (more struct types than it keeps) every struct
 * still prints as a fresh printer prints it.
 */
static void test_layout_cache_per_btf_and_past_its_bound(void **state)
{
	struct btf *b1 = btf__new_empty(), *b2 = btf__new_empty();
	struct print_opts opts = { .format = REPORT_JSON };
	struct ksnoop_value vh = { .status = KSNOOP_OK, .len = 8 };
	struct value_desc vd = { .text = "v", .how = PRINT_VALUE, .size = 8, .obj_size = 8 };
	int i1, i2, s1, s2, first, i;
	const __u32 words[2] = { 7, 9 };
	char name[16], *expbuf = NULL;
	size_t expsz = 0;
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f, *exp;
	bool same;

	assert_non_null(b1);
	assert_non_null(b2);
	i1 = btf__add_int(b1, "int", 4, BTF_INT_SIGNED);
	s1 = btf__add_struct(b1, "s", 8);
	btf__add_field(b1, "x", i1, 32, 0);
	i2 = btf__add_int(b2, "int", 4, BTF_INT_SIGNED);
	s2 = btf__add_struct(b2, "s", 8);
	btf__add_field(b2, "y", i2, 0, 0);
	btf__add_field(b2, "z", i2, 32, 0);
	assert_int_equal(s1, s2);
	/* 1,500 more structs in B2, each { int fNNN; }: past the bound. */
	first = btf__type_cnt(b2);
	for (i = 0; i < 1500; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		assert_true(btf__add_struct(b2, NULL, 8) > 0);
		assert_int_equal(btf__add_field(b2, name, i2, 0, 0), 0);
	}

	f = out_open(&buf, &sz);
	printer__init(&p, f, &opts);
	vd.type_id = vd.obj_id = s1;
	printer__value(&p, b1, &vd, &vh, words, 1);
	vd.type_id = vd.obj_id = s2;
	printer__value(&p, b2, &vd, &vh, words, 1);
	printer__value(&p, b1, &vd, &vh, words, 1);
	assert_string_equal(out_close(f, &buf), "{\"x\":9}{\"y\":7,\"z\":9}{\"x\":9}");

	/* The expected text, built alongside: one object per struct. */
	buf = NULL;
	f = out_open(&buf, &sz);
	printer__fini(&p);
	printer__init(&p, f, &opts);
	exp = open_memstream(&expbuf, &expsz);
	assert_non_null(exp);
	for (i = 0; i < 1500; i++) {
		vd.type_id = vd.obj_id = first + i;
		printer__value(&p, b2, &vd, &vh, words, 1);
		fprintf(exp, "{\"f%d\":7}", i);
	}
	printer__fini(&p);
	fclose(f);
	fclose(exp);
	same = strcmp(buf, expbuf) == 0;
	free(buf);
	free(expbuf);
	assert_true(same);
	btf__free(b1);
	btf__free(b2);
}

static void test_struct_indentation_follows_level(void **state)
{
	int64_t d[2] = { 1, 2 };
	struct value v = {
		.format = REPORT_TEXT,
		.level = 2,
		.vd = { .type_id = T.pair, .obj_id = T.pair, .how = PRINT_VALUE,
			.size = 16, .obj_size = 16 },
		.vh = { .status = KSNOOP_OK, .len = 16 },
	};

	assert_string_equal(render_value(&v, d),
			    "{\n"
			    "            .a = 1,\n"
			    "            .b = 2,\n"
			    "        }");
}

static void test_zero_members_skipped_in_text(void **state)
{
	unsigned char d[20] = {};

	assert_string_equal(render(REPORT_TEXT, T.inner, d, 20), "{}");
	d[4] = 'x';
	assert_string_equal(render(REPORT_TEXT, T.inner, d, 20),
			    "{\n    .name = \"x\",\n}");
}

static void test_zeros_option_shows_every_member(void **state)
{
	unsigned char d[20] = {};
	struct value v = {
		.format = REPORT_TEXT,
		.zeros = true,
		.vd = { .type_id = T.inner, .obj_id = T.inner, .how = PRINT_VALUE,
			.size = 20, .obj_size = 20 },
		.vh = { .status = KSNOOP_OK, .len = 20 },
	};

	assert_string_equal(render_value(&v, d),
			    "{\n    .x = 0,\n    .name = \"\",\n}");
}

static void test_zero_struct_in_json(void **state)
{
	unsigned char d[20] = {};

	assert_string_equal(render(REPORT_JSON, T.inner, d, 20), "{\"x\":0,\"name\":\"\"}");
}

static void test_anonymous_union_is_flattened(void **state)
{
	unsigned char d[OUTER_SIZE] = {};
	uint16_t h[2] = { 1, 2 };

	memcpy(d + OUTER_U, h, 4);
	assert_string_equal(render(REPORT_TEXT, T.outer, d, OUTER_SIZE),
			    "{\n    .u = 131073,\n    .h = [1, 2],\n}");
}

static void test_struct_group_printed_once(void **state)
{
	int d[3] = { 7, 1, 2 };

	expect(T.grouped, d, sizeof(d), "{\n    .id = 7,\n    .x = 1,\n    .y = 2,\n}",
	       "{\"id\":7,\"x\":1,\"y\":2}");
}

static void test_pointer_member(void **state)
{
	unsigned char d[OUTER_SIZE] = {};
	uint64_t p = 0xffff888000002000ULL;

	memcpy(d + OUTER_NEXT, &p, 8);
	assert_string_equal(render(REPORT_TEXT, T.outer, d, OUTER_SIZE),
			    "{\n    .next = 0xffff888000002000,\n}");
}

/* ---- bitfields ---- */

/* a=5, c=RED, s=-3, b=true, wide=0xfffff */
static const uint32_t flags_word = 5 | (0xdu << 5) | (1u << 9) | (0xfffffu << 12);

static void test_bitfield_members_text(void **state)
{
	assert_string_equal(render(REPORT_TEXT, T.flags, &flags_word, 4),
			    "{\n"
			    "    .a = 5,\n"
			    "    .s = -3,\n"
			    "    .b = true,\n"
			    "    .wide = 1048575,\n"
			    "}");
}

static void test_zero_bitfield_is_skipped(void **state)
{
	/* Only wide's top bit is set: every other member is zero. */
	uint32_t w = 1u << 31;

	assert_string_equal(render(REPORT_TEXT, T.flags, &w, 4),
			    "{\n    .wide = 524288,\n}");
}

/* Regression (fixed): print.c emit(): an enum bitfield is read as a whole enum, ignoring bit_off/bit_size. */
static void test_enum_bitfield(void **state)
{
	uint32_t w = 2u << 3;	/* c = BLUE */

	assert_string_equal(render(REPORT_TEXT, T.flags, &w, 4), "{\n    .c = BLUE,\n}");
	assert_string_equal(render(REPORT_JSON, T.flags, &w, 4),
			    "{\"a\":0,\"c\":\"BLUE\",\"s\":0,\"b\":false,\"wide\":0}");
}

static void test_bitfield_value_desc(void **state)
{
	/* u32 mark:12 at bit 4 of the captured bytes: 0xabc. */
	unsigned char d[8] = { 0xc5, 0xab };
	struct value v = {
		.format = REPORT_TEXT,
		.vd = { .type_id = T.u32_t, .obj_id = T.u32_t, .how = PRINT_VALUE,
			.size = 2, .obj_size = 2, .bit_off = 4, .bit_size = 12 },
		.vh = { .status = KSNOOP_OK, .len = 2 },
	};

	renders_as(&v, d, "2748", "2748");
}

static void test_signed_bitfield_value_desc(void **state)
{
	unsigned char d[8] = { 0xd0 };	/* int s:4 at bit 4: -3 */
	struct value v = {
		.format = REPORT_TEXT,
		.vd = { .type_id = T.ints.int_t, .obj_id = T.ints.int_t, .how = PRINT_VALUE,
			.size = 1, .obj_size = 1, .bit_off = 4, .bit_size = 4 },
		.vh = { .status = KSNOOP_OK, .len = 1 },
	};

	assert_string_equal(render_value(&v, d), "-3");
}

/*
 * ":hex" of a bitfield shows the field, not its storage: the bits around
 * it are set so that any of them shown would change the digits.
 */
static void test_bitfield_hex(void **state)
{
	/* u32 mark:12 at bit 4 of 2 bytes: 0xabc above 0x5. */
	unsigned char mark[8] = { 0xc5, 0xab };
	/* u32 wide:20 at bit 4 of 3 bytes (the resolver's shape): 0x12345 above 0xf. */
	unsigned char wide[8] = { 0x5f, 0x34, 0x12 };
	struct value v = {
		.vd = { .type_id = T.u32_t, .obj_id = T.u32_t, .how = PRINT_VALUE, .fmt = FMT_HEX,
			.size = 2, .obj_size = 2, .bit_off = 4, .bit_size = 12 },
		.vh = { .status = KSNOOP_OK, .len = 2 },
	};

	renders_as(&v, mark, "0xabc", "\"0xabc\"");
	v.vd.size = v.vd.obj_size = v.vh.len = 3;
	v.vd.bit_size = 20;
	renders_as(&v, wide, "0x12345", "\"0x12345\"");
}

/* ---- truncation and failures ---- */

static void test_max_bytes_truncation_note(void **state)
{
	int64_t d[2] = { 1, 2 };
	struct value v = {
		.format = REPORT_TEXT,
		.vd = { .type_id = T.pair, .obj_id = T.pair, .how = PRINT_VALUE,
			.size = 8, .obj_size = 16 },
		.vh = { .status = KSNOOP_OK, .len = 8 },
	};

	renders_as(&v, d, "{\n    .a = 1,\n} /* truncated at 8 of 16 bytes */", "{\"a\":1}");
}

/*
 * Regression (fixed): print.c printer__value(): when fewer bytes arrived than asked for
 * (vh->len < vd->size), the note says "truncated at SIZE of OBJ_SIZE" with
 * the bytes asked for, not the bytes printed.
 */
static void test_short_data_truncation_note(void **state)
{
	unsigned char d[OUTER_SIZE];
	struct value v = {
		.format = REPORT_TEXT,
		.vd = { .type_id = T.outer, .obj_id = T.outer, .how = PRINT_VALUE,
			.size = OUTER_SIZE, .obj_size = OUTER_SIZE },
		.vh = { .status = KSNOOP_OK, .len = 30 },
	};

	fill_outer(d);
	assert_string_equal(render_value(&v, d),
			    "{\n"
			    "    .a = 1,\n"
			    "    .inner = {\n"
			    "        .x = 2,\n"
			    "        .name = \"lo\",\n"
			    "    },\n"
			    "} /* truncated at 30 of 48 bytes */");
}

static void test_short_data_json_stops_at_last_whole_member(void **state)
{
	unsigned char d[OUTER_SIZE];
	struct value v = {
		.format = REPORT_JSON,
		.vd = { .type_id = T.outer, .obj_id = T.outer, .how = PRINT_VALUE,
			.size = OUTER_SIZE, .obj_size = OUTER_SIZE },
		.vh = { .status = KSNOOP_OK, .len = 30 },
	};

	fill_outer(d);
	assert_string_equal(render_value(&v, d),
			    "{\"a\":1,\"inner\":{\"x\":2,\"name\":\"lo\"}}");
}

static void test_truncated_scalar_json_is_null(void **state)
{
	int32_t x = 7;
	struct value v = {
		.format = REPORT_JSON,
		.vd = { .type_id = T.ints.int_t, .obj_id = T.ints.int_t, .how = PRINT_VALUE,
			.size = 4, .obj_size = 4 },
		.vh = { .status = KSNOOP_OK, .len = 2 },
	};

	assert_string_equal(render_value(&v, &x), "null");
}

static void test_fault_text(void **state)
{
	struct value v = {
		.format = REPORT_TEXT,
		.vd = { .type_id = T.ints.int_t, .obj_id = T.ints.int_t, .how = PRINT_VALUE,
			.size = 4, .obj_size = 4 },
		.vh = { .status = KSNOOP_FAULT, .len = 0, .addr = 0 },
	};
	char junk[8] = {};

	assert_string_equal(render_value(&v, junk), "/* could not read memory */");
	v.vh.addr = 0xffff888000001000ULL;
	assert_string_equal(render_value(&v, junk), "0xffff888000001000 /* could not read memory */");
	v.vh.status = KSNOOP_NULL;
	v.vh.addr = 0;
	assert_string_equal(render_value(&v, junk), "/* NULL pointer along the chain */");
	v.vh.status = 99;
	assert_string_equal(render_value(&v, junk), "/* unknown capture status */");
}

static void test_fault_json(void **state)
{
	struct value v = {
		.format = REPORT_JSON,
		.vd = { .type_id = T.ints.int_t, .obj_id = T.ints.int_t, .how = PRINT_VALUE,
			.size = 4, .obj_size = 4 },
		.vh = { .status = KSNOOP_FAULT, .len = 0, .addr = 0 },
	};
	char junk[8] = {};

	assert_string_equal(render_value(&v, junk), "{\"error\":\"could not read memory\"}");
	v.vh.addr = 0xffff888000001000ULL;
	assert_string_equal(render_value(&v, junk),
			    "{\"error\":\"could not read memory\",\"addr\":\"0xffff888000001000\"}");
	v.vh.status = KSNOOP_NULL;
	v.vh.addr = 0;
	assert_string_equal(render_value(&v, junk), "{\"error\":\"NULL pointer along the chain\"}");
}

/* ---- return codes: errno names, ERR_PTR, NULL ---- */

/* A return code (value_desc.errno_names) of TYPE and SIZE, as BPF captured it. */
static struct value return_code(int type, enum print_how how, __u32 size, __u32 status,
				__u64 addr)
{
	struct value v = {
		.vd = { .text = "return", .type_id = type, .obj_id = type, .how = how,
			.size = size, .obj_size = size, .errno_names = true },
		.vh = { .status = status, .len = status == KSNOOP_OK ? 8 : 0, .addr = addr },
	};

	return v;
}

/*
 * Every kernel-only errno (include/linux/errno.h, 512 to 531; 520 has no
 * name) by its number: a name swapped with its neighbour is caught.
 */
static void test_return_errno_kernel_only(void **state)
{
	static const struct { int err; const char *name; } names[] = {
		{ 512, "ERESTARTSYS" }, { 513, "ERESTARTNOINTR" }, { 514, "ERESTARTNOHAND" },
		{ 515, "ENOIOCTLCMD" }, { 516, "ERESTART_RESTARTBLOCK" }, { 517, "EPROBE_DEFER" },
		{ 518, "EOPENSTALE" }, { 519, "ENOPARAM" }, { 520, NULL }, { 521, "EBADHANDLE" },
		{ 522, "ENOTSYNC" }, { 523, "EBADCOOKIE" }, { 524, "ENOTSUPP" },
		{ 525, "ETOOSMALL" }, { 526, "ESERVERFAULT" }, { 527, "EBADTYPE" },
		{ 528, "EJUKEBOX" }, { 529, "EIOCBQUEUED" }, { 530, "ERECALLCONFLICT" },
		{ 531, "ENOGRACE" }, { 532, NULL },
	};
	struct value v = return_code(T.ints.int_t, PRINT_VALUE, 4, KSNOOP_OK, 0);
	char text[64], json[16];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		uint64_t w = (uint32_t)-names[i].err;

		if (names[i].name)
			snprintf(text, sizeof(text), "-%d (%s)", names[i].err, names[i].name);
		else
			snprintf(text, sizeof(text), "-%d", names[i].err);
		snprintf(json, sizeof(json), "-%d", names[i].err);
		renders_as(&v, &w, text, json);
	}
}

/* An int return of -1 to -4095 is an errno: named where it has a name. */
static void test_return_errno_int(void **state)
{
	struct value v = return_code(T.ints.int_t, PRINT_VALUE, 4, KSNOOP_OK, 0);
	/* A register word: the int is its low half, the rest is whatever it was. */
	uint64_t w = 0x12345678fffffffeULL;

	renders_as(&v, &w, "-2 (ENOENT)", "-2");
	w = (uint32_t)-111;
	renders_as(&v, &w, "-111 (ECONNREFUSED)", "-111");
	/* The kernel's own, which user space never sees (glibc has no name). */
	w = (uint32_t)-512;
	renders_as(&v, &w, "-512 (ERESTARTSYS)", "-512");
	w = (uint32_t)-517;
	renders_as(&v, &w, "-517 (EPROBE_DEFER)", "-517");
	w = (uint32_t)-524;
	renders_as(&v, &w, "-524 (ENOTSUPP)", "-524");
	/* In the range but named by no one: the number alone. */
	w = (uint32_t)-520;
	renders_as(&v, &w, "-520", "-520");
	w = (uint32_t)-4095;
	renders_as(&v, &w, "-4095", "-4095");
	/* Out of the range, zero, positive: numbers. */
	w = (uint32_t)-4096;
	renders_as(&v, &w, "-4096", "-4096");
	w = 0;
	renders_as(&v, &w, "0", "0");
	w = 3;
	renders_as(&v, &w, "3", "3");
	/* Not a return code (an argument): never named. */
	v.vd.errno_names = false;
	w = (uint32_t)-2;
	renders_as(&v, &w, "-2", "-2");
}

static void test_return_errno_long(void **state)
{
	struct value v = return_code(T.ints.long_t, PRINT_VALUE, 8, KSNOOP_OK, 0);
	int64_t l = -13;

	renders_as(&v, &l, "-13 (EACCES)", "-13");
	/* A long whose low half would be -2: far out of the range. */
	l = (int64_t)0xfffffff0fffffffeULL;
	renders_as(&v, &l, "-64424509442", "-64424509442");
}

/*
 * A returned pointer that is an errno: BPF did not read it (KSNOOP_ERR_PTR,
 * the pointer in addr), and it prints as the kernel wrote it; JSON keeps
 * the pointer as a pointer prints.  NULL is NULL, not a failed read.
 */
static void test_return_err_ptr(void **state)
{
	struct value v = return_code(T.pair_ptr, PRINT_DEREF, 16, KSNOOP_ERR_PTR, (__u64)-2);
	char junk[16] = {};
	uint64_t p;

	renders_as(&v, junk, "ERR_PTR(-ENOENT)", "\"0xfffffffffffffffe\"");
	v.vh.addr = (__u64)-600;
	renders_as(&v, junk, "ERR_PTR(-600)", "\"0xfffffffffffffda8\"");
	v = return_code(T.pair_ptr, PRINT_DEREF, 16, KSNOOP_NULL, 0);
	renders_as(&v, junk, "NULL", "null");
	/* A char * return: a string, or an error pointer. */
	v = return_code(T.int_ptr, PRINT_STRING, 16, KSNOOP_ERR_PTR, (__u64)-36);
	renders_as(&v, junk, "ERR_PTR(-ENAMETOOLONG)", "\"0xffffffffffffffdc\"");
	/* A pointer printed as itself (void *, an incomplete struct). */
	v = return_code(T.int_ptr, PRINT_VALUE, 8, KSNOOP_OK, 0);
	p = (uint64_t)-12;
	renders_as(&v, &p, "ERR_PTR(-ENOMEM)", "\"0xfffffffffffffff4\"");
	/* The range's ends: -4095 is the last errno, -4096 an address. */
	p = (uint64_t)-4095;
	renders_as(&v, &p, "ERR_PTR(-4095)", "\"0xfffffffffffff001\"");
	p = (uint64_t)-4096;
	renders_as(&v, &p, "0xfffffffffffff000", "\"0xfffffffffffff000\"");
	p = 0;
	renders_as(&v, &p, "NULL", "null");
}

/* An error pointer met along a chain (skb->sk): what it was, not an address. */
static void test_err_ptr_along_the_chain(void **state)
{
	struct value v = {
		.vd = { .text = "return->a", .type_id = T.ints.int_t, .obj_id = T.ints.int_t,
			.how = PRINT_VALUE, .size = 4, .obj_size = 4 },
		.vh = { .status = KSNOOP_ERR_PTR, .len = 0, .addr = (__u64)-22 },
	};
	char junk[8] = {};

	renders_as(&v, junk, "/* ERR_PTR(-EINVAL) along the chain */",
		   "{\"error\":\"ERR_PTR(-EINVAL) along the chain\",\"addr\":\"0xffffffffffffffea\"}");
	/* A NULL along a chain is still said so, even on a return code. */
	v.vh.status = KSNOOP_NULL;
	v.vh.addr = 0;
	v.vd.how = PRINT_VALUE;
	renders_as(&v, junk, "/* NULL pointer along the chain */",
		   "{\"error\":\"NULL pointer along the chain\"}");
}

/* ---- strings behind pointers, and dereferenced structs ---- */

static struct value string_value(enum report_format format, __u32 size, __u32 len, __u32 status)
{
	struct value v = {
		.format = format,
		.vd = { .type_id = T.int_ptr, .obj_id = T.int_ptr, .how = PRINT_STRING,
			.size = size, .obj_size = size },
		.vh = { .status = status, .len = len, .addr = 0xffff888000003000ULL },
	};

	return v;
}

static void test_string_value(void **state)
{
	char s[16] = "eth0";
	struct value v = string_value(REPORT_TEXT, 16, 5, KSNOOP_OK);

	renders_as(&v, s, "\"eth0\"", "\"eth0\"");
}

static void test_string_value_escapes(void **state)
{
	char s[32] = "a\"b\\c\n\t\r\x01\xc3\xa9";
	struct value v = string_value(REPORT_TEXT, 32, 14, KSNOOP_OK);

	renders_as(&v, s, "\"a\\\"b\\\\c\\n\\t\\r\\x01\\xc3\\xa9\"",
		   "\"a\\\"b\\\\c\\n\\t\\r\\u0001\xc3\xa9\"");
}

/*
 * A u8 * value: its address, then the bytes read, NULs and all, escaped
 * (JSON: the bytes alone); a fault says where, as for any pointer.
 */
static void test_bytes_value(void **state)
{
	unsigned char b[8] = { 'G', 'E', 'T', 0, 0x80, '\n', 0, 'x' };
	struct value v = string_value(REPORT_TEXT, 8, 8, KSNOOP_OK);

	v.vd.how = PRINT_BYTES;
	renders_as(&v, b, "0xffff888000003000 -> \"GET\\x00\\x80\\n\\x00x\"",
		   "\"GET\\u0000\\\\x80\\n\\u0000x\"");
	v = string_value(REPORT_TEXT, 8, 0, KSNOOP_FAULT);
	v.vd.how = PRINT_BYTES;
	v.format = REPORT_TEXT;
	assert_non_null(strstr(render_value(&v, b), "0xffff888000003000"));
}

static void test_string_value_stops_at_len(void **state)
{
	char s[16] = "abcdef";
	struct value v = string_value(REPORT_TEXT, 16, 3, KSNOOP_OK);

	assert_string_equal(render_value(&v, s), "\"abc\"");
}

static void test_string_value_truncated(void **state)
{
	char s[4] = "abc";
	struct value v = string_value(REPORT_TEXT, 4, 4, KSNOOP_TRUNCATED);

	renders_as(&v, s, "\"abc\"... /* truncated at 4 bytes */", "\"abc\"");
}

static void test_dereferenced_struct(void **state)
{
	int64_t d[2] = { 1, -2 };
	struct value v = {
		.format = REPORT_TEXT,
		.vd = { .type_id = T.pair_ptr, .obj_id = T.pair, .how = PRINT_DEREF,
			.size = 16, .obj_size = 16 },
		.vh = { .status = KSNOOP_OK, .len = 16, .addr = 0xffff888000001000ULL },
	};

	renders_as(&v, d,
		   "0xffff888000001000 -> (struct pair){\n"
		   "    .a = 1,\n"
		   "    .b = -2,\n"
		   "}",
		   "{\"a\":1,\"b\":-2}");
}

/* ---- JSON strings (RFC 8259) ---- */

static void test_json_quotes_and_backslash(void **state)
{
	assert_string_equal(JSON_STR("a\"b\\c/d"), "\"a\\\"b\\\\c/d\"");
	assert_string_equal(JSON_STR(""), "\"\"");
}

static void test_json_control_chars(void **state)
{
	assert_string_equal(JSON_STR("\n\t\r"), "\"\\n\\t\\r\"");
	assert_string_equal(JSON_STR("\x01\x1f\b\f\x7f"), "\"\\u0001\\u001f\\u0008\\u000c\\u007f\"");
	assert_string_equal(JSON_STR("a\0b"), "\"a\\u0000b\"");
}

static void test_json_valid_utf8_passes(void **state)
{
	/* U+00E9, U+0800, U+20AC, U+D7FF, U+E000, U+1F600, U+10FFFF */
	assert_string_equal(JSON_STR("\xc3\xa9"), "\"\xc3\xa9\"");
	assert_string_equal(JSON_STR("\xe0\xa0\x80"), "\"\xe0\xa0\x80\"");
	assert_string_equal(JSON_STR("\xe2\x82\xac"), "\"\xe2\x82\xac\"");
	assert_string_equal(JSON_STR("\xed\x9f\xbf"), "\"\xed\x9f\xbf\"");
	assert_string_equal(JSON_STR("\xee\x80\x80"), "\"\xee\x80\x80\"");
	assert_string_equal(JSON_STR("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");
	assert_string_equal(JSON_STR("\xf4\x8f\xbf\xbf"), "\"\xf4\x8f\xbf\xbf\"");
}

static void test_json_invalid_utf8_escaped(void **state)
{
	/*
	 * A byte that is no character is the text \xNN, never the code
	 * point U+00NN: the byte 0xff and the character U+00FF differ.
	 */
	assert_string_equal(JSON_STR("\xff"), "\"\\\\xff\"");
	assert_string_equal(JSON_STR("\xc3\xbf"), "\"\xc3\xbf\"");
	assert_string_equal(JSON_STR("\xc2\x80"), "\"\\u0080\"");
	/* Lone continuation byte. */
	assert_string_equal(JSON_STR("\x80"), "\"\\\\x80\"");
	/* Lead byte at the end, and followed by a non-continuation byte. */
	assert_string_equal(JSON_STR("a\xc3"), "\"a\\\\xc3\"");
	assert_string_equal(JSON_STR("\xc3("), "\"\\\\xc3(\"");
	/* Truncated 3-byte sequence. */
	assert_string_equal(JSON_STR("\xe2\x82"), "\"\\\\xe2\\\\x82\"");
	/* Overlong 2-byte encodings and bytes that never appear in UTF-8. */
	assert_string_equal(JSON_STR("\xc0\xaf"), "\"\\\\xc0\\\\xaf\"");
	assert_string_equal(JSON_STR("\xc1\xbf"), "\"\\\\xc1\\\\xbf\"");
	assert_string_equal(JSON_STR("\xff\xfe"), "\"\\\\xff\\\\xfe\"");
	assert_string_equal(JSON_STR("\xf5\x80\x80\x80"), "\"\\\\xf5\\\\x80\\\\x80\\\\x80\"");
}

/* Regression (fixed): print.c json_write_string() passes UTF-16 surrogates (ED A0..BF xx) through. */
static void test_json_surrogates_escaped(void **state)
{
	assert_string_equal(JSON_STR("\xed\xa0\x80"), "\"\\\\xed\\\\xa0\\\\x80\"");
}

/* Regression (fixed): print.c json_write_string() passes overlong 3-byte sequences (E0 80..9F xx) through. */
static void test_json_overlong_3_byte_escaped(void **state)
{
	assert_string_equal(JSON_STR("\xe0\x80\xaf"), "\"\\\\xe0\\\\x80\\\\xaf\"");
}

/* Regression (fixed): print.c json_write_string() passes overlong 4-byte sequences (F0 80..8F xx xx) through. */
static void test_json_overlong_4_byte_escaped(void **state)
{
	assert_string_equal(JSON_STR("\xf0\x80\x80\x80"), "\"\\\\xf0\\\\x80\\\\x80\\\\x80\"");
}

/* Regression (fixed): print.c json_write_string() passes code points above U+10FFFF (F4 90..BF xx xx) through. */
static void test_json_above_unicode_range_escaped(void **state)
{
	assert_string_equal(JSON_STR("\xf4\x90\x80\x80"), "\"\\\\xf4\\\\x90\\\\x80\\\\x80\"");
}

/* ---- whole events ---- */

/*
 * A hand-built plan for ip_send_skb with three entry values, and one return
 * value; the record offsets follow the resolver's layout rules.
 */
static void make_plan(struct capture_plan *plan)
{
	struct ksnoop_side_plan *e = &plan->bpf.side[KSNOOP_ENTRY];
	struct ksnoop_side_plan *x = &plan->bpf.side[KSNOOP_RETURN];

	memset(plan, 0, sizeof(*plan));
	snprintf(plan->sig.name, sizeof(plan->sig.name), "ip_send_skb");
	plan->sig.btf = btf;
	plan->nvalues[KSNOOP_ENTRY] = 3;
	plan->values[KSNOOP_ENTRY][0] = (struct value_desc){
		.text = "len", .type_id = T.u32_t, .obj_id = T.u32_t, .how = PRINT_VALUE,
		.size = 4, .obj_size = 4 };
	plan->values[KSNOOP_ENTRY][1] = (struct value_desc){
		.text = "dev->name", .type_id = T.char_arr16, .obj_id = T.char_arr16,
		.how = PRINT_VALUE, .size = 16, .obj_size = 16 };
	plan->values[KSNOOP_ENTRY][2] = (struct value_desc){
		.text = "skb", .type_id = T.pair_ptr, .obj_id = T.pair, .how = PRINT_DEREF,
		.size = 16, .obj_size = 16 };
	e->enabled = 1;
	e->nvalues = 3;
	e->values[0].rec_off = HDR;
	e->values[1].rec_off = HDR + 16 + 8;
	e->values[2].rec_off = HDR + 24 + 16 + 16;
	e->rec_size = HDR + 56 + 16 + 16;
	plan->nvalues[KSNOOP_RETURN] = 1;
	plan->values[KSNOOP_RETURN][0] = (struct value_desc){
		.text = "return", .type_id = T.ints.int_t, .obj_id = T.ints.int_t, .how = PRINT_VALUE,
		.size = 4, .obj_size = 4 };
	x->enabled = 1;
	x->nvalues = 1;
	x->values[0].rec_off = HDR;
	x->rec_size = HDR + 16 + 8;
}

static void put_value(unsigned char *rec, __u32 off, __u32 status, __u32 len, __u64 addr,
		      const void *data, size_t n)
{
	struct ksnoop_value vh = { .status = status, .len = len, .addr = addr };

	memcpy(rec + off, &vh, sizeof(vh));
	memcpy(rec + off + sizeof(vh), data, n);
}

/* 01:02:03.123456 UTC once the clock offset is added. */
#define EVENT_TIME_NS	5123456789ULL
#define CLOCK_OFFSET_NS	(3718LL * 1000000000LL)

/* make_plan()'s records: the entry's, and the return's. */
#define ENTRY_REC	(HDR + 88)
#define RETURN_REC	(HDR + 24)

static void make_entry_record(unsigned char *rec)
{
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .cpu = 3, .tgid = 100, .tid = 101,
		.kind = KSNOOP_ENTRY, .comm = "curl",
	};
	uint64_t len = 84;
	char name[16] = "lo";
	int64_t pair[2] = { 1, 2 };

	memset(rec, 0, ENTRY_REC);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, HDR, KSNOOP_OK, 8, 0, &len, 8);
	put_value(rec, HDR + 24, KSNOOP_OK, 16, 0xffff888000004000ULL, name, 16);
	put_value(rec, HDR + 56, KSNOOP_OK, 16, 0xffff888000001000ULL, pair, 16);
}

/* The event at REC as a printer with OPTS prints it. */
static const char *render_event_with(const struct print_opts *opts,
				     const struct capture_plan *plan, const void *rec, size_t size)
{
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = out_open(&buf, &sz);

	printer__init(&p, f, opts);
	printer__event(&p, plan, rec, size);
	printer__fini(&p);
	return out_close(f, &buf);
}

static const char *render_event(enum report_format format, const struct capture_plan *plan,
				const void *rec, size_t size)
{
	struct print_opts opts = { .format = format, .clock_offset_ns = CLOCK_OFFSET_NS };

	return render_event_with(&opts, plan, rec, size);
}

static int use_utc(void **state)
{
	setenv("TZ", "UTC", 1);
	tzset();
	return build_btf(state);
}

static void test_event_text(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[ENTRY_REC];

	make_plan(&plan);
	make_entry_record(rec);
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu3 curl 100/101 -> ip_send_skb\n"
			    "    len = 84\n"
			    "    dev->name = \"lo\"\n"
			    "    skb = 0xffff888000001000 -> (struct pair){\n"
			    "        .a = 1,\n"
			    "        .b = 2,\n"
			    "    }\n");
}

static void test_event_json(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[ENTRY_REC];

	make_plan(&plan);
	make_entry_record(rec);
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":3,\"pid\":100,\"tid\":101,"
			    "\"comm\":\"curl\",\"func\":\"ip_send_skb\",\"kind\":\"entry\","
			    "\"values\":{\"len\":84,\"dev->name\":\"lo\",\"skb\":{\"a\":1,\"b\":2}}}\n");
}

/* --track: the entry record of object 0xffff888000002000, with FLAGS, at TIME_NS. */
static void make_object_record(unsigned char *rec, __u8 flags, __u64 time_ns)
{
	struct ksnoop_event *ev = (struct ksnoop_event *)rec;

	make_entry_record(rec);
	ev->time_ns = time_ns;
	ev->flags = KSNOOP_EV_OBJECT | flags;
	ev->object = 0xffff888000002000ULL;
}

static void test_event_object_text(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[ENTRY_REC];
	struct print_opts opts = { .format = REPORT_TEXT, .clock_offset_ns = CLOCK_OFFSET_NS };
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f;

	make_plan(&plan);
	plan.nvalues[KSNOOP_ENTRY] = 1;
	plan.bpf.side[KSNOOP_ENTRY].nvalues = 1;
	make_object_record(rec, 0, EVENT_TIME_NS);
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu3 curl 100/101 -> ip_send_skb object 0xffff888000002000\n"
			    "    len = 84\n");
	/* --group: each event with the time since the object's first; the reason it is there. */
	f = out_open(&buf, &sz);
	printer__init(&p, f, &opts);
	p.group_start_ns = EVENT_TIME_NS;
	printer__event(&p, &plan, rec, sizeof(rec));
	make_object_record(rec, KSNOOP_EV_TRACKED, EVENT_TIME_NS + 1500);
	printer__event(&p, &plan, rec, sizeof(rec));
	make_object_record(rec, KSNOOP_EV_FREED, EVENT_TIME_NS + 2500000);
	printer__event(&p, &plan, rec, sizeof(rec));
	printer__fini(&p);
	assert_string_equal(out_close(f, &buf),
			    "01:02:03.123456 cpu3 curl 100/101 -> ip_send_skb object 0xffff888000002000 +0 ns\n"
			    "    len = 84\n"
			    "01:02:03.123458 cpu3 curl 100/101 -> ip_send_skb object 0xffff888000002000 (tracked) +1.500 us\n"
			    "    len = 84\n"
			    "01:02:03.125956 cpu3 curl 100/101 -> ip_send_skb object 0xffff888000002000 (freed) +2.500 ms\n"
			    "    len = 84\n");
}

static void test_event_object_json(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[ENTRY_REC];

	make_plan(&plan);
	plan.nvalues[KSNOOP_ENTRY] = 1;
	plan.bpf.side[KSNOOP_ENTRY].nvalues = 1;
	make_object_record(rec, KSNOOP_EV_TRACKED, EVENT_TIME_NS);
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":3,\"pid\":100,\"tid\":101,"
			    "\"comm\":\"curl\",\"func\":\"ip_send_skb\",\"kind\":\"entry\","
			    "\"object\":\"0xffff888000002000\",\"tracked\":true,"
			    "\"values\":{\"len\":84}}\n");
	make_object_record(rec, KSNOOP_EV_FREED | KSNOOP_EV_CLONED, EVENT_TIME_NS);
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":3,\"pid\":100,\"tid\":101,"
			    "\"comm\":\"curl\",\"func\":\"ip_send_skb\",\"kind\":\"entry\","
			    "\"object\":\"0xffff888000002000\",\"freed\":true,\"clone\":true,"
			    "\"values\":{\"len\":84}}\n");
}

/* --tree: every call's plan is make_plan()'s, its return an errno. */
static const struct capture_plan *tree_plan;

static const struct capture_plan *tree_plan_of(void *ctx, __u32 func_id)
{
	return tree_plan;
}

/* A return record of make_plan()'s at REC: RET, at DEPTH, DURATION_NS long (0: none). */
static void make_tree_record(unsigned char *rec, int64_t ret, __u16 depth, __u64 duration_ns)
{
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .tgid = 7, .tid = 8, .kind = KSNOOP_RETURN,
		.comm = "cat", .duration_ns = duration_ns,
		.flags = duration_ns ? KSNOOP_EV_DURATION : 0, .depth = depth,
	};

	memset(rec, 0, RETURN_REC);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, HDR, KSNOOP_OK, 8, 0, &ret, 8);
}

static const char *render_tree(enum report_format format, const void *root,
			       const struct tree_call *calls, int first)
{
	struct print_opts opts = { .format = format, .clock_offset_ns = CLOCK_OFFSET_NS };
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = out_open(&buf, &sz);

	printer__init(&p, f, &opts);
	printer__tree(&p, tree_plan, root, RETURN_REC, calls, first, tree_plan_of, NULL);
	printer__fini(&p);
	return out_close(f, &buf);
}

/*
 * --tree: the root's event, then a call a line by depth, errors marked and
 * the first failing call (tree.c chose it); JSON nests "calls".
 */
static void test_tree(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char root[RETURN_REC], inner[RETURN_REC], outer[RETURN_REC],
		ok[RETURN_REC];
	struct tree_call calls[3] = {
		{ .rec = ok, .size = RETURN_REC, .depth = 2, .ret = TREE_RET_OK },
		{ .rec = inner, .size = RETURN_REC, .depth = 2, .ret = TREE_RET_ERRNO, .code = 2 },
		{ .rec = outer, .size = RETURN_REC, .depth = 1, .ret = TREE_RET_ERRNO, .code = 2 },
	};
	int first;

	make_plan(&plan);
	plan.values[KSNOOP_RETURN][0].errno_names = true;
	plan.bpf.side[KSNOOP_RETURN].values[0].acc.src = KSNOOP_SRC_RET;
	tree_plan = &plan;
	make_tree_record(root, -2, 0, 0);
	make_tree_record(ok, 0, 2, 1500);
	make_tree_record(inner, -2, 2, 2000);
	make_tree_record(outer, -2, 1, 5000);
	first = tree__assemble(calls, 3);
	assert_int_equal(first, 2);
	assert_int_equal(tree__first_error(calls, 3, TREE_RET_ERRNO, 2), 1);
	assert_string_equal(render_tree(REPORT_TEXT, root, calls, first),
			    "01:02:03.123456 cpu0 cat 7/8 <- ip_send_skb\n"
			    "    return = -2 (ENOENT)\n"
			    "  \u2192 ip_send_skb (5.000 us) = -2 (ENOENT)  [error]\n"
			    "    \u2192 ip_send_skb (1.500 us) = 0\n"
			    "    \u2192 ip_send_skb (2.000 us) = -2 (ENOENT)  [first error]\n");
	/* NULL is not marked: walk_component() returns it when all went well. */
	calls[0].ret = TREE_RET_NULL;
	assert_non_null(strstr(render_tree(REPORT_TEXT, root, calls, first),
			       "    \u2192 ip_send_skb (1.500 us) = 0\n"));
	calls[0].ret = TREE_RET_OK;
	assert_string_equal(render_tree(REPORT_JSON, root, calls, first),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":0,\"pid\":7,\"tid\":8,"
			    "\"comm\":\"cat\",\"func\":\"ip_send_skb\",\"kind\":\"return\","
			    "\"values\":{\"return\":-2,\"return_errno\":\"ENOENT\"},"
			    "\"calls\":[{\"func\":\"ip_send_skb\",\"duration_ns\":5000,"
			    "\"values\":{\"return\":-2,\"return_errno\":\"ENOENT\"},"
			    "\"calls\":[{\"func\":\"ip_send_skb\",\"duration_ns\":1500,\"values\":{\"return\":0},\"calls\":[]},"
			    "{\"func\":\"ip_send_skb\",\"duration_ns\":2000,"
			    "\"values\":{\"return\":-2,\"return_errno\":\"ENOENT\"},\"first_error\":true,\"calls\":[]}]}]}\n");
}

/*
 * --tree: calls the root's session could not record (ev->dropped) are
 * counted after the calls in text and as "calls_not_recorded" before
 * them in JSON.
 */
static void test_tree_calls_not_recorded(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char root[RETURN_REC];
	char want[160];

	make_plan(&plan);
	plan.values[KSNOOP_RETURN][0].errno_names = true;
	plan.bpf.side[KSNOOP_RETURN].values[0].acc.src = KSNOOP_SRC_RET;
	tree_plan = &plan;
	make_tree_record(root, -2, 0, 0);
	((struct ksnoop_event *)root)->dropped = 3;
	snprintf(want, sizeof(want), "01:02:03.123456 cpu0 cat 7/8 <- ip_send_skb\n"
		 "    return = -2 (ENOENT)\n"
		 "  (3 calls not recorded: past --tree-max-calls or depth %d)\n",
		 KSNOOP_TREE_MAX_DEPTH);
	assert_string_equal(render_tree(REPORT_TEXT, root, NULL, -1), want);
	assert_string_equal(render_tree(REPORT_JSON, root, NULL, -1),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":0,\"pid\":7,\"tid\":8,"
			    "\"comm\":\"cat\",\"func\":\"ip_send_skb\",\"kind\":\"return\","
			    "\"values\":{\"return\":-2,\"return_errno\":\"ENOENT\"},"
			    "\"calls_not_recorded\":3,\"calls\":[]}\n");
}

/*
 * An entry value whose user memory was paged in only by the return
 * (KSNOOP_ST_AT_RETURN): a comment after it in text, "read_at_return"
 * naming it after the values in JSON.
 */
static void test_event_read_at_return(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[ENTRY_REC];
	uint64_t len = 84;

	make_plan(&plan);
	make_entry_record(rec);
	put_value(rec, HDR, KSNOOP_OK | KSNOOP_ST_AT_RETURN, 8, 0, &len, 8);
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu3 curl 100/101 -> ip_send_skb\n"
			    "    len = 84 /* read at return */\n"
			    "    dev->name = \"lo\"\n"
			    "    skb = 0xffff888000001000 -> (struct pair){\n"
			    "        .a = 1,\n"
			    "        .b = 2,\n"
			    "    }\n");
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":3,\"pid\":100,\"tid\":101,"
			    "\"comm\":\"curl\",\"func\":\"ip_send_skb\",\"kind\":\"entry\","
			    "\"values\":{\"len\":84,\"dev->name\":\"lo\",\"skb\":{\"a\":1,\"b\":2}},"
			    "\"read_at_return\":[\"len\"]}\n");
}

/*
 * Every format fills every method of its table (a NULL one would crash
 * the first event that needs it), and -j / --folded choose the tables
 * the printer and the report share.
 */
static void test_formats_fill_every_method(void **state)
{
	static const enum report_format formats[] = { REPORT_TEXT, REPORT_JSON, REPORT_FOLDED,
						      REPORT_PERFETTO };
	size_t i;

	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		const struct report_ops *o = report__ops(formats[i]);

		assert_non_null(o->interval);
		assert_non_null(o->counts_begin);
		assert_non_null(o->count);
		assert_non_null(o->hist);
		assert_non_null(o->info);
		assert_non_null(o->usdt);
		assert_non_null(o->lost);
		assert_non_null(o->summary);
		assert_non_null(o->event_begin);
		assert_non_null(o->values_end);
		assert_non_null(o->event_end);
		assert_non_null(o->object_end);
		assert_non_null(o->character);
		assert_non_null(o->int128);
		assert_non_null(o->func_ptr);
		assert_non_null(o->addr_sym);
		assert_non_null(o->error_code);
		assert_non_null(o->failure);
		assert_non_null(o->pointer_to);
		assert_non_null(o->beside);
		assert_non_null(o->tree_begin);
		assert_non_null(o->tree_end);
		assert_non_null(o->calls_begin);
		assert_non_null(o->calls_end);
		assert_non_null(o->call_begin);
		assert_non_null(o->call_values_end);
		assert_non_null(o->call_end);
		assert_int_equal(o->writer_json, formats[i] == REPORT_JSON ||
						 formats[i] == REPORT_PERFETTO);
		assert_int_equal(o->every_member, formats[i] == REPORT_JSON ||
						  formats[i] == REPORT_PERFETTO);
	}
	assert_int_equal(report__format(false, false, false), REPORT_TEXT);
	assert_int_equal(report__format(true, false, false), REPORT_JSON);
	assert_int_equal(report__format(false, true, false), REPORT_FOLDED);
	assert_int_equal(report__format(false, false, true), REPORT_PERFETTO);
	assert_ptr_equal(report__ops(REPORT_PERFETTO), &report_perfetto_ops);
	assert_ptr_equal(report__ops(REPORT_JSON), &report_json_ops);
	assert_ptr_equal(report__ops(REPORT_TEXT), &report_text_ops);
	assert_ptr_equal(report__ops(REPORT_FOLDED), &report_folded_ops);
}

static void test_return_event(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[RETURN_REC] = {};
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .cpu = 0, .tgid = 7, .tid = 8,
		.kind = KSNOOP_RETURN, .comm = "0123456789abcdef",	/* no NUL */
	};
	int64_t ret = -22;

	make_plan(&plan);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, HDR, KSNOOP_OK, 8, 0, &ret, 8);
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu0 0123456789abcdef 7/8 <- ip_send_skb\n"
			    "    return = -22\n");
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":0,\"pid\":7,\"tid\":8,"
			    "\"comm\":\"0123456789abcdef\",\"func\":\"ip_send_skb\",\"kind\":\"return\","
			    "\"values\":{\"return\":-22}}\n");
}

/* JSON names an errno beside the number it keeps: "return_errno". */
static void test_return_event_errno(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[RETURN_REC] = {};
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .cpu = 0, .tgid = 7, .tid = 8,
		.kind = KSNOOP_RETURN, .comm = "cat",
	};
	int64_t ret = -2;

	make_plan(&plan);
	plan.values[KSNOOP_RETURN][0].errno_names = true;
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, HDR, KSNOOP_OK, 8, 0, &ret, 8);
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu0 cat 7/8 <- ip_send_skb\n"
			    "    return = -2 (ENOENT)\n");
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":0,\"pid\":7,\"tid\":8,"
			    "\"comm\":\"cat\",\"func\":\"ip_send_skb\",\"kind\":\"return\","
			    "\"values\":{\"return\":-2,\"return_errno\":\"ENOENT\"}}\n");
	/* No name, no key: the number alone. */
	ret = -520;
	put_value(rec, HDR, KSNOOP_OK, 8, 0, &ret, 8);
	assert_non_null(strstr(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			       "\"values\":{\"return\":-520}}"));
	/* An error pointer: the pointer, and its errno's name beside. */
	plan.values[KSNOOP_RETURN][0] = (struct value_desc){
		.text = "return", .type_id = T.pair_ptr, .obj_id = T.pair, .how = PRINT_DEREF,
		.size = 16, .obj_size = 16, .errno_names = true };
	put_value(rec, HDR, KSNOOP_ERR_PTR, 0, (__u64)-2, &ret, 0);
	assert_non_null(strstr(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)),
			       "\n    return = ERR_PTR(-ENOENT)\n"));
	assert_non_null(strstr(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			       "\"values\":{\"return\":\"0xfffffffffffffffe\",\"return_errno\":\"ENOENT\"}}"));
}

/* A return whose entry was seen says how long the call took. */
static void test_return_event_with_duration(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[RETURN_REC] = {};
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .cpu = 1, .tgid = 7, .tid = 8,
		.kind = KSNOOP_RETURN, .comm = "sleep",
		.flags = KSNOOP_EV_DURATION, .duration_ns = 200107343,
	};
	int64_t ret = 0;

	make_plan(&plan);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, HDR, KSNOOP_OK, 8, 0, &ret, 8);
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu1 sleep 7/8 <- ip_send_skb (200.107 ms)\n"
			    "    return = 0\n");
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":1,\"pid\":7,\"tid\":8,"
			    "\"comm\":\"sleep\",\"func\":\"ip_send_skb\",\"kind\":\"return\","
			    "\"duration_ns\":200107343,\"values\":{\"return\":0}}\n");

	/* A duration of 0 ns is one too: the flag says, not the value. */
	((struct ksnoop_event *)rec)->duration_ns = 0;
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu1 sleep 7/8 <- ip_send_skb (0 ns)\n"
			    "    return = 0\n");
	/* Without the flag (the entry was not seen), no duration at all. */
	((struct ksnoop_event *)rec)->flags = 0;
	((struct ksnoop_event *)rec)->duration_ns = 5;
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":1,\"pid\":7,\"tid\":8,"
			    "\"comm\":\"sleep\",\"func\":\"ip_send_skb\",\"kind\":\"return\","
			    "\"values\":{\"return\":0}}\n");
}

static void test_event_with_fault(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[ENTRY_REC];

	make_plan(&plan);
	make_entry_record(rec);
	put_value(rec, HDR + 56, KSNOOP_FAULT, 0, 0xffff888000001000ULL, "", 0);
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu3 curl 100/101 -> ip_send_skb\n"
			    "    len = 84\n"
			    "    dev->name = \"lo\"\n"
			    "    skb = 0xffff888000001000 /* could not read memory */\n");
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":3,\"pid\":100,\"tid\":101,"
			    "\"comm\":\"curl\",\"func\":\"ip_send_skb\",\"kind\":\"entry\","
			    "\"values\":{\"len\":84,\"dev->name\":\"lo\","
			    "\"skb\":{\"error\":\"could not read memory\",\"addr\":\"0xffff888000001000\"}}}\n");
}

static void test_event_json_escapes_comm(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[RETURN_REC] = {};
	struct ksnoop_event ev = { .kind = KSNOOP_RETURN, .comm = "a\"b\x01" };
	int64_t ret = 0;

	make_plan(&plan);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, HDR, KSNOOP_OK, 8, 0, &ret, 8);
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":0,\"cpu\":0,\"pid\":0,\"tid\":0,"
			    "\"comm\":\"a\\\"b\\u0001\",\"func\":\"ip_send_skb\",\"kind\":\"return\","
			    "\"values\":{\"return\":0}}\n");
}

/*
 * Text: a comm with a space (or a '"') is quoted, so that it cannot pass
 * for the pid and arrow fields after it ("x 1/1 -> ok"); others are not.
 */
static void test_event_text_quotes_comm(void **state)
{
	static struct capture_plan plan;
	static const char *const comms[][2] = {
		{ "x 1/1 -> ok", "\"x 1/1 -> ok\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "a\\ b\x1b", "\"a\\\\ b\\x1b\"" },
		{ "curl", "curl" },
	};
	_Alignas(8) unsigned char rec[RETURN_REC] = {};
	struct ksnoop_event ev = { .kind = KSNOOP_RETURN };
	char want[128];
	int64_t ret = 0;
	size_t i;

	make_plan(&plan);
	for (i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		snprintf(ev.comm, sizeof(ev.comm), "%s", comms[i][0]);
		memcpy(rec, &ev, sizeof(ev));
		put_value(rec, HDR, KSNOOP_OK, 8, 0, &ret, 8);
		snprintf(want, sizeof(want), "cpu0 %s 0/0 <- ip_send_skb\n"
			 "    return = 0\n", comms[i][1]);
		/* After the clock time, "HH:MM:SS.uuuuuu ". */
		assert_string_equal(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)) + 16, want);
	}
}

/*
 * Text: comm and function name are escaped once and kept by their bytes
 * (the printer's labels): over one printer, 40 comms (half quoted, one
 * escaped) and 40 function names of one length, the names changed in
 * the same plan between events, each printed twice in two orders: every
 * event's header names its own task and function; and a comm and a
 * function of the same bytes, each escaped its own way.
 */
static void test_event_text_labels_by_bytes(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[RETURN_REC] = {};
	struct ksnoop_event ev = { .kind = KSNOOP_RETURN };
	struct print_opts opts = { .format = REPORT_TEXT, .clock_offset_ns = CLOCK_OFFSET_NS };
	struct printer p;
	char *buf = NULL, *line, want[128];
	size_t sz = 0;
	int64_t ret = 0;
	FILE *f = out_open(&buf, &sz);
	int i, n;

	make_plan(&plan);
	printer__init(&p, f, &opts);
	for (n = 0; n < 80; n++) {
		i = n < 40 ? n : 79 - n;
		snprintf(ev.comm, sizeof(ev.comm), i % 2 ? "t %02d" : i == 8 ? "t\\x%02d" : "task%02d", i);
		snprintf(plan.sig.name, sizeof(plan.sig.name), "fn_%02d", i);
		memcpy(rec, &ev, sizeof(ev));
		put_value(rec, HDR, KSNOOP_OK, 8, 0, &ret, 8);
		printer__event(&p, &plan, rec, sizeof(rec));
	}
	/* The same bytes as comm (quoted) and as function name (bare): two labels. */
	snprintf(ev.comm, sizeof(ev.comm), "x y");
	snprintf(plan.sig.name, sizeof(plan.sig.name), "x y");
	memcpy(rec, &ev, sizeof(ev));
	printer__event(&p, &plan, rec, sizeof(rec));
	printer__fini(&p);
	buf = strdup(out_close(f, &buf));
	assert_non_null(buf);
	line = buf;
	for (n = 0; n < 80; n++) {
		char *end = strchr(line, '\n');

		i = n < 40 ? n : 79 - n;
		if (i % 2)
			snprintf(want, sizeof(want), "cpu0 \"t %02d\" 0/0 <- fn_%02d", i, i);
		else if (i == 8)
			snprintf(want, sizeof(want), "cpu0 t\\\\x%02d 0/0 <- fn_%02d", i, i);
		else
			snprintf(want, sizeof(want), "cpu0 task%02d 0/0 <- fn_%02d", i, i);
		assert_non_null(end);
		*end = 0;
		/* After the clock time, "HH:MM:SS.uuuuuu ". */
		assert_true(strlen(line) > 16);
		assert_string_equal(line + 16, want);
		line = strchr(end + 1, '\n');	/* the return value's line */
		assert_non_null(line);
		line++;
	}
	assert_true(strlen(line) > 16);
	assert_string_equal(line + 16, "cpu0 \"x y\" 0/0 <- x y\n    return = 0\n");
	free(buf);
}

static void test_short_or_bad_records_are_ignored(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[ENTRY_REC];

	make_plan(&plan);
	make_entry_record(rec);
	/* Shorter than the header, shorter than the plan's record, bad kind. */
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, HDR - 8), "");
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, ENTRY_REC - 1), "");
	assert_string_equal(render_event(REPORT_JSON, &plan, rec, ENTRY_REC - 1), "");
	rec[offsetof(struct ksnoop_event, kind)] = KSNOOP_NR_KINDS;
	assert_string_equal(render_event(REPORT_TEXT, &plan, rec, sizeof(rec)), "");
}

/* -s: the stack is printed after the values, tracer frames left out. */
static int stack_symbolize(void *ctx, __u64 addr, char *buf, size_t sz)
{
	switch (addr) {
	case 0x1000: snprintf(buf, sz, "bpf_prog_0123_ksnoop_tp+0x37e [bpf]"); return 0;
	case 0x2000: snprintf(buf, sz, "bpf_trace_run4+0x10d"); return 0;
	case 0x3000: snprintf(buf, sz, "__schedule+0x628"); return 0;
	case 0x4000: snprintf(buf, sz, "dummy_xmit+0x10 [dummy]"); return 0;
	case 0x5000: snprintf(buf, sz, "bpf_trampoline_6442492367+0x7e [bpf]"); return 0;
	case 0x6000: snprintf(buf, sz, "dummy_xmit+0x5 [dummy]"); return 0;
	}
	return -1;
}

static void test_event_with_stack(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[48 + 16 + 8 + 16 + 8 * KSNOOP_STACK_DEPTH] = {};
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .cpu = 1, .tgid = 5, .tid = 6,
		.kind = KSNOOP_ENTRY, .comm = "ping",
	};
	__u64 ips[5] = { 0x1000, 0x2000, 0x3000, 0x4000, 0xffffffff81000000ULL };
	struct print_opts opts = { .format = REPORT_TEXT, .clock_offset_ns = CLOCK_OFFSET_NS,
				   .symbolize = stack_symbolize };
	struct ksnoop_side_plan *e = &plan.bpf.side[KSNOOP_ENTRY];
	uint32_t len = 84;

	memset(&plan, 0, sizeof(plan));
	snprintf(plan.sig.name, sizeof(plan.sig.name), "ip_output");
	plan.sig.btf = btf;
	plan.nvalues[KSNOOP_ENTRY] = 2;
	plan.values[KSNOOP_ENTRY][0] = (struct value_desc){
		.text = "len", .type_id = T.u32_t, .obj_id = T.u32_t, .how = PRINT_VALUE,
		.size = 4, .obj_size = 4 };
	plan.values[KSNOOP_ENTRY][1] = (struct value_desc){
		.text = "stack", .how = PRINT_STACK, .size = 8 * KSNOOP_STACK_DEPTH };
	e->enabled = 1;
	e->nvalues = 2;
	e->values[0].rec_off = 48;
	e->values[1].rec_off = 48 + 16 + 8;
	e->rec_size = sizeof(rec);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, 48, KSNOOP_OK, 4, 0, &len, 4);
	put_value(rec, 72, KSNOOP_OK, sizeof(ips), 0, ips, sizeof(ips));

	assert_string_equal(render_event_with(&opts, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu1 ping 5/6 -> ip_output\n"
			    "    len = 84\n"
			    "    stack = [\n"
			    "        __schedule+0x628,\n"
			    "        dummy_xmit+0x10 [dummy],\n"
			    "        0xffffffff81000000\n"
			    "    ]\n");
	opts.format = REPORT_JSON;
	assert_string_equal(render_event_with(&opts, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":1,\"pid\":5,\"tid\":6,\"comm\":\"ping\","
			    "\"func\":\"ip_output\",\"kind\":\"entry\",\"values\":{\"len\":84},"
			    "\"stack\":[\"__schedule+0x628\",\"dummy_xmit+0x10 [dummy]\",\"0xffffffff81000000\"]}\n");
	/*
	 * A traced caller's trampoline below the top (fentry mode, several
	 * functions of the stack traced), and its call into it, go too.
	 */
	{
		__u64 traced[6] = { 0x1000, 0x3000, 0x4000, 0x5000, 0x6000, 0xffffffff81000000ULL };

		put_value(rec, 72, KSNOOP_OK, sizeof(traced), 0, traced, sizeof(traced));
		assert_string_equal(render_event_with(&opts, &plan, rec, sizeof(rec)),
				    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":1,\"pid\":5,\"tid\":6,\"comm\":\"ping\","
				    "\"func\":\"ip_output\",\"kind\":\"entry\",\"values\":{\"len\":84},"
				    "\"stack\":[\"__schedule+0x628\",\"dummy_xmit+0x10 [dummy]\",\"0xffffffff81000000\"]}\n");
	}
	/* A stack the kernel could not take says so. */
	put_value(rec, 72, KSNOOP_FAULT, 0, 0, ips, 0);
	opts.format = REPORT_TEXT;
	assert_non_null(strstr(render_event_with(&opts, &plan, rec, sizeof(rec)),
			       "    stack = /* could not be taken */\n"));
}

/* A USDT probe's user stack: named in the event's process, nothing left off, escaped. */
static int user_symbolize(void *ctx, __u32 pid, __u64 addr, char *buf, size_t sz)
{
	if (pid != 5)
		return -1;
	switch (addr) {
	case 0x1000: snprintf(buf, sz, "fire+0x8d (/srv/a\nb\"c)"); return 0;
	case 0x2000: snprintf(buf, sz, "0x2000 (/usr/lib/libc.so.6+0x2724a)"); return 0;
	}
	return -1;
}

static void test_event_with_user_stack(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[48 + 16 + 8 * KSNOOP_STACK_DEPTH] = {};
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .cpu = 1, .tgid = 5, .tid = 6,
		.kind = KSNOOP_ENTRY, .comm = "app",
	};
	__u64 ips[3] = { 0x1000, 0x2000, 0x3000 };
	struct print_opts opts = { .format = REPORT_TEXT, .clock_offset_ns = CLOCK_OFFSET_NS,
				   .usymbolize = user_symbolize };
	struct ksnoop_side_plan *e = &plan.bpf.side[KSNOOP_ENTRY];

	memset(&plan, 0, sizeof(plan));
	snprintf(plan.sig.name, sizeof(plan.sig.name), "app:req");
	plan.sig.btf = btf;
	plan.bpf.flags = KSNOOP_PLAN_USER_MEM;
	plan.nvalues[KSNOOP_ENTRY] = 1;
	plan.values[KSNOOP_ENTRY][0] = (struct value_desc){
		.text = "stack", .how = PRINT_STACK, .size = 8 * KSNOOP_STACK_DEPTH };
	e->enabled = 1;
	e->nvalues = 1;
	e->values[0].rec_off = 48;
	e->rec_size = sizeof(rec);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, 48, KSNOOP_OK, sizeof(ips), 0, ips, sizeof(ips));

	assert_string_equal(render_event_with(&opts, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu1 app 5/6 -> app:req\n"
			    "    stack = [\n"
			    "        fire+0x8d (/srv/a\\nb\"c),\n"
			    "        0x2000 (/usr/lib/libc.so.6+0x2724a),\n"
			    "        0x3000\n"
			    "    ]\n");
	opts.format = REPORT_JSON;
	assert_string_equal(render_event_with(&opts, &plan, rec, sizeof(rec)),
			    "{\"type\":\"event\",\"time_ns\":5123456789,\"cpu\":1,\"pid\":5,\"tid\":6,\"comm\":\"app\","
			    "\"func\":\"app:req\",\"kind\":\"entry\",\"values\":{},"
			    "\"stack\":[\"fire+0x8d (/srv/a\\nb\\\"c)\",\"0x2000 (/usr/lib/libc.so.6+0x2724a)\",\"0x3000\"]}\n");
	/* A walk through code without frame pointers: nothing after a 0. */
	{
		__u64 bad[4] = { 0x1000, 0, 0x2000, 0x2000 };

		put_value(rec, 48, KSNOOP_OK, sizeof(bad), 0, bad, sizeof(bad));
		assert_non_null(strstr(render_event_with(&opts, &plan, rec, sizeof(rec)),
				       "\"stack\":[\"fire+0x8d (/srv/a\\nb\\\"c)\"]}\n"));
	}
	/*
	 * `report` of a recording names no user frame (no user symbolizer):
	 * it says so, not that the process was gone before its maps were read.
	 */
	opts.format = REPORT_TEXT;
	opts.usymbolize = NULL;
	put_value(rec, 48, KSNOOP_OK, sizeof(ips), 0, ips, sizeof(ips));
	assert_string_equal(render_event_with(&opts, &plan, rec, sizeof(rec)),
			    "01:02:03.123456 cpu1 app 5/6 -> app:req\n"
			    "    stack = [\n"
			    "        0x1000,\n"
			    "        0x2000,\n"
			    "        0x3000 /* not named: a recording keeps no process's maps */\n"
			    "    ]\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signed_ints),
		cmocka_unit_test(test_layout_cache_per_btf_and_past_its_bound),
		cmocka_unit_test(test_unsigned_ints),
		cmocka_unit_test(test_typedef_prints_as_its_type),
		cmocka_unit_test(test_register_value_uses_declared_size),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_char),
		cmocka_unit_test(test_int128),
		cmocka_unit_test(test_floats),
		cmocka_unit_test(test_json_float_nan_and_inf),
		cmocka_unit_test(test_enum_names),
		cmocka_unit_test(test_enum_unknown_value),
		cmocka_unit_test(test_signed_enum),
		cmocka_unit_test(test_enum64),
		cmocka_unit_test(test_pointers),
		cmocka_unit_test(test_return_errno_int),
		cmocka_unit_test(test_return_errno_kernel_only),
		cmocka_unit_test(test_return_errno_long),
		cmocka_unit_test(test_return_err_ptr),
		cmocka_unit_test(test_err_ptr_along_the_chain),
		cmocka_unit_test(test_char_array_is_a_string),
		cmocka_unit_test(test_char_array_without_nul),
		cmocka_unit_test(test_char_array_escapes),
		cmocka_unit_test(test_char_array_keeps_bytes_after_nul),
		cmocka_unit_test(test_function_pointer_symbol),
		cmocka_unit_test(test_char_array_all_zero_is_empty),
		cmocka_unit_test(test_format_hex),
		cmocka_unit_test(test_event_with_stack),
		cmocka_unit_test(test_event_with_user_stack),
		cmocka_unit_test(test_format_be),
		cmocka_unit_test(test_format_signal),
		cmocka_unit_test(test_format_strv),
		cmocka_unit_test(test_shift),
		cmocka_unit_test(test_format_ip),
		cmocka_unit_test(test_format_sym),
		cmocka_unit_test(test_format_sym_data),
		cmocka_unit_test(test_u8_array_is_a_list),
		cmocka_unit_test(test_int_array),
		cmocka_unit_test(test_value_longer_than_writer_buffer),
		cmocka_unit_test(test_array_cut_by_max_bytes),
		cmocka_unit_test(test_array_of_structs_json),
		cmocka_unit_test(test_array_of_structs_text),
		cmocka_unit_test(test_nested_struct_text),
		cmocka_unit_test(test_nested_struct_json_has_every_member),
		cmocka_unit_test(test_struct_indentation_follows_level),
		cmocka_unit_test(test_zero_members_skipped_in_text),
		cmocka_unit_test(test_zeros_option_shows_every_member),
		cmocka_unit_test(test_zero_struct_in_json),
		cmocka_unit_test(test_anonymous_union_is_flattened),
		cmocka_unit_test(test_struct_group_printed_once),
		cmocka_unit_test(test_pointer_member),
		cmocka_unit_test(test_bitfield_members_text),
		cmocka_unit_test(test_zero_bitfield_is_skipped),
		cmocka_unit_test(test_enum_bitfield),
		cmocka_unit_test(test_bitfield_value_desc),
		cmocka_unit_test(test_signed_bitfield_value_desc),
		cmocka_unit_test(test_bitfield_hex),
		cmocka_unit_test(test_max_bytes_truncation_note),
		cmocka_unit_test(test_short_data_truncation_note),
		cmocka_unit_test(test_short_data_json_stops_at_last_whole_member),
		cmocka_unit_test(test_truncated_scalar_json_is_null),
		cmocka_unit_test(test_fault_text),
		cmocka_unit_test(test_fault_json),
		cmocka_unit_test(test_string_value),
		cmocka_unit_test(test_bytes_value),
		cmocka_unit_test(test_string_value_escapes),
		cmocka_unit_test(test_string_value_stops_at_len),
		cmocka_unit_test(test_string_value_truncated),
		cmocka_unit_test(test_dereferenced_struct),
		cmocka_unit_test(test_json_quotes_and_backslash),
		cmocka_unit_test(test_json_control_chars),
		cmocka_unit_test(test_json_valid_utf8_passes),
		cmocka_unit_test(test_json_invalid_utf8_escaped),
		cmocka_unit_test(test_json_surrogates_escaped),
		cmocka_unit_test(test_json_overlong_3_byte_escaped),
		cmocka_unit_test(test_json_overlong_4_byte_escaped),
		cmocka_unit_test(test_json_above_unicode_range_escaped),
		cmocka_unit_test(test_event_text),
		cmocka_unit_test(test_event_json),
		cmocka_unit_test(test_event_object_text),
		cmocka_unit_test(test_event_object_json),
		cmocka_unit_test(test_return_event),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_tree_calls_not_recorded),
		cmocka_unit_test(test_event_read_at_return),
		cmocka_unit_test(test_formats_fill_every_method),
		cmocka_unit_test(test_return_event_errno),
		cmocka_unit_test(test_return_event_with_duration),
		cmocka_unit_test(test_event_with_fault),
		cmocka_unit_test(test_event_json_escapes_comm),
		cmocka_unit_test(test_event_text_quotes_comm),
		cmocka_unit_test(test_event_text_labels_by_bytes),
		cmocka_unit_test(test_short_or_bad_records_are_ignored),
	};

	return cmocka_run_group_tests_name("print", tests, use_utc, free_btf);
}
