// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for ksnoop/ufunc/demangle.c: C++ names demangled as
 * u:BINARY:FUNC shows and matches them, hostile names (too long, too
 * deep, demangling to too much) refused without a crash, and the rule by
 * which a name or a glob picks a symbol by its mangled name or either
 * demangled form (overloads: one glob, each symbol).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "demangle.h"

/* The names of tests/uprog/app.cc as g++ and clang++ mangle them. */
#define CONN_READ	"_ZN2ns4Conn4readEPcm"
#define F_INT		"_ZN2ns1fEi"
#define F_DOUBLE	"_ZN2ns1fEd"
#define ADD_LONG	"_ZN2ns3addIlEET_S1_S1_"

static void demangled(const char *sym, bool params, const char *want)
{
	char out[DEMANGLE_MAX_OUT];

	assert_true(demangle__cxx(sym, params, out, sizeof(out)));
	assert_string_equal(out, want);
}

static void test_names(void **state)
{
	if (!demangle__available())
		skip();
	demangled(CONN_READ, false, "ns::Conn::read");
	demangled(CONN_READ, true, "ns::Conn::read(char*, unsigned long)");
	demangled(F_INT, true, "ns::f(int)");
	demangled(F_DOUBLE, true, "ns::f(double)");
	/* A template instance: its return type is not shown. */
	demangled(ADD_LONG, false, "ns::add<long>");
	demangled(ADD_LONG, true, "ns::add<long>(long, long)");
	demangled("_ZNK2ns4Conn4sizeEv", true, "ns::Conn::size() const");
}

/* C names, and what does not demangle, stay as they are (OUT empty). */
static void test_not_cxx(void **state)
{
	char out[64] = "x";

	assert_false(demangle__cxx("uf_add", true, out, sizeof(out)));
	assert_string_equal(out, "");
	assert_false(demangle__cxx("_Z", true, out, sizeof(out)));
	assert_false(demangle__cxx("_ZN2ns", true, out, sizeof(out)));
	assert_false(demangle__cxx("_Zzzzz", false, out, sizeof(out)));
	assert_false(demangle__cxx(CONN_READ, true, out, 0));
}

/*
 * Longer than DEMANGLE_MAX_IN: not demangled (one long identifier,
 * _Z<len><name>v).  libiberty 20230104 refuses it too, with its recursion
 * limit on (2 components a byte, at most 2048): the cap keeps the bound
 * whatever the library's.  The same name a little shorter demangles: the
 * cap leaves names of that length alone.
 */
static void long_name(char *sym, size_t len)
{
	int n = sprintf(sym, "_Z%zu", len);

	memset(sym + n, 'a', len);
	strcpy(sym + n + len, "v");
}

static void test_too_long(void **state)
{
	char *sym = malloc(DEMANGLE_MAX_IN + 32), out[DEMANGLE_MAX_OUT];

	assert_non_null(sym);
	long_name(sym, DEMANGLE_MAX_IN);
	assert_true(strlen(sym) > DEMANGLE_MAX_IN);
	assert_false(demangle__cxx(sym, false, out, sizeof(out)));
	assert_string_equal(out, "");
	long_name(sym, DEMANGLE_MAX_IN - 16);
	assert_true(strlen(sym) <= DEMANGLE_MAX_IN);
	if (demangle__available()) {
		assert_true(demangle__cxx(sym, false, out, sizeof(out)));
		assert_int_equal(strlen(out), DEMANGLE_MAX_IN - 16);
	}
	free(sym);
}

/*
 * A short name whose demangled form is long: each S2_ repeats the first
 * parameter's name (14 KB from 950 bytes).  Dropped (and said as not demangled) past
 * DEMANGLE_MAX_OUT, or past a smaller OUT.
 */
static void test_output_capped(void **state)
{
	char sym[DEMANGLE_MAX_IN], out[DEMANGLE_MAX_OUT], small[16];
	size_t i, n;

	if (!demangle__available())
		skip();
	n = (size_t)snprintf(sym, sizeof(sym), "_Z1fN%s%s%s%sE",
			     "10aaaaaaaaaa", "10bbbbbbbbbb", "10cccccccccc", "10dddddddddd");
	/* S2_: the fourth substitution, aaaaaaaaaa::bbbbbbbbbb::cccccccccc::dddddddddd. */
	for (i = 0; i < 300; i++)
		n += (size_t)snprintf(sym + n, sizeof(sym) - n, "S2_");
	assert_true(n < DEMANGLE_MAX_IN);
	assert_true(demangle__cxx(sym, false, out, sizeof(out)));
	assert_string_equal(out, "f");
	assert_false(demangle__cxx(sym, true, out, sizeof(out)));
	assert_string_equal(out, "");
	assert_false(demangle__cxx(CONN_READ, true, small, sizeof(small)));
}

/*
 * Nesting past the demangler's recursion limit (kept on: the limit is
 * libiberty's): refused, not a crash of the stack.
 */
static void test_deep_nesting(void **state)
{
	char sym[DEMANGLE_MAX_IN + 1], out[DEMANGLE_MAX_OUT];
	size_t n = 0;

	n += (size_t)snprintf(sym, sizeof(sym), "_Z1fP");
	while (n + 2 < DEMANGLE_MAX_IN)
		sym[n++] = 'P';
	sym[n++] = 'i';
	sym[n] = '\0';
	/* int *****...: either refused or demangled within the cap; never a crash. */
	if (demangle__cxx(sym, true, out, sizeof(out)))
		assert_true(strlen(out) < DEMANGLE_MAX_OUT);
	n = (size_t)snprintf(sym, sizeof(sym), "_Z1f");
	while (n + 3 < DEMANGLE_MAX_IN)
		n += (size_t)snprintf(sym + n, sizeof(sym) - n, "FvP");
	(void)demangle__cxx(sym, true, out, sizeof(out));
}

/* ---- the matching rule ---- */

static void test_match_plain_name(void **state)
{
	assert_true(demangle__name_matches("ns::Conn::read", false, CONN_READ, "ns::Conn::read",
					   "ns::Conn::read(char*, unsigned long)"));
	/* A prefix is not the name. */
	assert_false(demangle__name_matches("ns::Conn::rea", false, CONN_READ, "ns::Conn::read",
					    "ns::Conn::read(char*, unsigned long)"));
	/* The mangled name, and the one with parameters (quoted in a spec). */
	assert_true(demangle__name_matches(F_INT, false, F_INT, "ns::f", "ns::f(int)"));
	assert_true(demangle__name_matches("ns::f(int)", false, F_INT, "ns::f", "ns::f(int)"));
	assert_false(demangle__name_matches("ns::f(int)", false, F_DOUBLE, "ns::f", "ns::f(double)"));
	/* A C name has no other forms. */
	assert_true(demangle__name_matches("uf_add", false, "uf_add", NULL, NULL));
	assert_false(demangle__name_matches("uf_ad", false, "uf_add", NULL, NULL));
}

/* A glob over overloads picks each of them: one target per symbol. */
static void test_match_glob(void **state)
{
	static const char *const syms[][3] = {
		{ F_INT, "ns::f", "ns::f(int)" },
		{ F_DOUBLE, "ns::f", "ns::f(double)" },
		{ CONN_READ, "ns::Conn::read", "ns::Conn::read(char*, unsigned long)" },
		{ ADD_LONG, "ns::add<long>", "ns::add<long>(long, long)" },
		{ "uf_add", NULL, NULL },
	};
	size_t i;
	int n;

#define COUNT(glob) ({ for (i = 0, n = 0; i < sizeof(syms) / sizeof(syms[0]); i++) \
		n += demangle__name_matches(glob, true, syms[i][0], syms[i][1], syms[i][2]); n; })
	assert_int_equal(COUNT("ns::f*"), 2);
	assert_int_equal(COUNT("ns::Conn::*"), 1);
	assert_int_equal(COUNT("ns::*"), 4);
	assert_int_equal(COUNT("ns::add<*>"), 1);
	assert_int_equal(COUNT("*(double)"), 1);
	assert_int_equal(COUNT("_ZN2ns*"), 4);
	assert_int_equal(COUNT("uf_*"), 1);
	assert_int_equal(COUNT("nope*"), 0);
#undef COUNT
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_not_cxx),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_output_capped),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_match_plain_name),
		cmocka_unit_test(test_match_glob),
	};

	return cmocka_run_group_tests_name("demangle", tests, NULL, NULL);
}
