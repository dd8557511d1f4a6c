// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * aarch64's USDT argument locations (usdt_arm64.c), tested on any host:
 * the forms GCC writes, decoded to struct user_pt_regs offsets (x0-x30 at
 * 8 * N, sp at 248); which of them libbpf 1.5 parses itself (the rest
 * ksnoop attaches itself, or leaves out with a reason); and what is refused.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "usdt_note.h"

#define X(n)	((n) * 8)
#define SP	248

/* LOC decodes to KIND, OFF, the registers at BASE and INDEX, SCALE. */
static void loc_is(const char *loc, enum usdt_loc_kind kind, __s64 off, int base, int index,
		   int scale)
{
	struct usdt_loc l;

	assert_null(usdt_arm64__parse_loc(loc, &l));
	assert_int_equal(l.kind, kind);
	assert_int_equal(l.off, off);
	assert_int_equal(l.base, base);
	assert_int_equal(l.index, index);
	assert_int_equal(l.scale, scale);
	assert_string_equal(l.sym, "");
	assert_false(l.ip_rel);
}

static void test_loc_decoded(void **state)
{
	(void)state;
	loc_is("[sp, 12]", USDT_LOC_MEM, 12, SP, -1, 1);
	loc_is("[sp]", USDT_LOC_MEM, 0, SP, -1, 1);
	loc_is("[x0]", USDT_LOC_MEM, 0, X(0), -1, 1);
	loc_is("[x29, -16]", USDT_LOC_MEM, -16, X(29), -1, 1);
	loc_is("[x3, #8]", USDT_LOC_MEM, 8, X(3), -1, 1);
	loc_is("x1", USDT_LOC_REG, 0, X(1), -1, 1);
	loc_is("x30", USDT_LOC_REG, 0, X(30), -1, 1);
	loc_is("w3", USDT_LOC_REG, 0, X(3), -1, 1);
	loc_is("sp", USDT_LOC_REG, 0, SP, -1, 1);
	loc_is("5", USDT_LOC_CONST, 5, -1, -1, 1);
	loc_is("-1", USDT_LOC_CONST, -1, -1, -1, 1);
	loc_is("-9223372036854775808", USDT_LOC_CONST, INT64_MIN, -1, -1, 1);
	loc_is("[x1, x2]", USDT_LOC_MEM, 0, X(1), X(2), 1);
	loc_is("[x1, x2, lsl 3]", USDT_LOC_MEM, 0, X(1), X(2), 8);
}

static void test_loc_refused(void **state)
{
	struct usdt_loc l;

	(void)state;
	assert_string_equal(usdt_arm64__parse_loc("x31", &l), "not a general register");
	assert_string_equal(usdt_arm64__parse_loc("d0", &l), "not a general register");
	assert_string_equal(usdt_arm64__parse_loc("x01", &l), "not a general register");
	assert_string_equal(usdt_arm64__parse_loc("[w1]", &l), "a base that is not a 64-bit register");
	assert_string_equal(usdt_arm64__parse_loc("[x1, w2]", &l),
			    "an index that is not a 64-bit register");
	assert_string_equal(usdt_arm64__parse_loc("[x1, w2, sxtw]", &l),
			    "an index that is not a 64-bit register");
	assert_string_equal(usdt_arm64__parse_loc("[x1, x2, lsl 4]", &l),
			    "a scale other than 1, 2, 4 or 8");
	assert_string_equal(usdt_arm64__parse_loc("[x0, #:lo12:counter]", &l),
			    "a symbol's address ksnoop does not compute");
	assert_string_equal(usdt_arm64__parse_loc("[sp, 12", &l), "a location ksnoop does not parse");
	assert_string_equal(usdt_arm64__parse_loc("[sp, 12]!", &l), "a location ksnoop does not parse");
	assert_string_equal(usdt_arm64__parse_loc("9223372036854775808", &l),
			    "a constant ksnoop does not parse");
	assert_string_equal(usdt_arm64__parse_loc("5x", &l), "a constant ksnoop does not parse");
	assert_string_equal(usdt_arm64__parse_loc("%edi", &l), "a location ksnoop does not parse");
}

/* libbpf 1.5 parses these itself (parse_usdt_arg() for __aarch64__). */
static void test_libbpf_parses(void **state)
{
	(void)state;
	assert_true(usdt_arm64__libbpf_parses("[sp, 12]"));
	assert_true(usdt_arm64__libbpf_parses("[x29, -16]"));
	assert_true(usdt_arm64__libbpf_parses("[x0]"));
	assert_true(usdt_arm64__libbpf_parses("x1"));
	assert_true(usdt_arm64__libbpf_parses("sp"));
	assert_true(usdt_arm64__libbpf_parses("5"));
	assert_true(usdt_arm64__libbpf_parses("-1"));
	/* calc_pt_regs_off() takes x0-x30 and sp only. */
	assert_false(usdt_arm64__libbpf_parses("w3"));
	assert_false(usdt_arm64__libbpf_parses("d0"));
	/* sscanf() would read "[x1" and stop: taken as [x1], so ksnoop attaches it. */
	assert_false(usdt_arm64__libbpf_parses("[x1, x2]"));
	assert_false(usdt_arm64__libbpf_parses("[x0, #:lo12:counter]"));
	assert_false(usdt_arm64__libbpf_parses("[x3, #8]"));
	assert_false(usdt_arm64__libbpf_parses("%edi"));
	/* Anything after the ']' but spaces: not libbpf's form. */
	assert_true(usdt_arm64__libbpf_parses("[x0]  "));
	assert_false(usdt_arm64__libbpf_parses("[sp, 12]!"));
	assert_false(usdt_arm64__libbpf_parses("[x0] x1"));
	assert_false(usdt_arm64__libbpf_parses("[x29, -16]]"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loc_decoded),
		cmocka_unit_test(test_loc_refused),
		cmocka_unit_test(test_libbpf_parses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
