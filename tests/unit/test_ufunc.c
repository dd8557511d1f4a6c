// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the user-function front end (ksnoop/ufunc/ufunc.c):
 * u:BINARY:FUNC specs looked up in this test program itself
 * (/proc/self/exe), each match's address, file offset and untyped
 * signature; refusals with their errno and column.
 */
#include <errno.h>
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
#include "spec.h"
#include "ufunc.h"

/* Functions of ours to find: out of line, kept. */
__attribute__((noinline, used)) long ufunc_test_alpha(long a)
{
	return a * 3 + 1;
}

__attribute__((noinline, used)) long ufunc_test_beta(long a, long b)
{
	return a ^ b;
}

/* SPEC's matches in a new front end, which *FE keeps (their names and BTF live there). */
static int match(const char *text, struct ufunc_front **fe, struct spec *s,
		 struct ufunc_match **ms, struct ks_error *e)
{
	struct ks_error pe;

	assert_int_equal(spec__parse(text, SPEC_KFUNC, s, &pe), 0);
	assert_int_equal(s->kind, SPEC_UFUNC);
	if (!*fe)
		*fe = ufunc_front__new();
	assert_non_null(*fe);
	return ufunc_front__match(*fe, s, 0, ms, e);
}

static void test_named_function(void **state)
{
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms;
	struct ks_error e;
	struct spec s;
	const struct btf_type *t;
	int n = match("u:/proc/self/exe:ufunc_test_alpha(arg0, return)", &fe, &s, &ms, &e);

	assert_int_equal(n, 1);
	assert_string_equal(ms[0].name, "ufunc_test_alpha");
	assert_string_equal(ms[0].sig.name, "ufunc_test_alpha");
	assert_true(ms[0].sig.has_return);
	assert_int_equal(ms[0].off, 0);
	assert_true(ms[0].size > 0);
	assert_false(ms[0].glob);
	/* Untyped: six unsigned 64-bit arguments named argN, a signed 64-bit return. */
	assert_int_equal(ms[0].sig.nparams, UFUNC_UNTYPED_ARGS);
	assert_string_equal(ms[0].sig.params[0].name, "arg0");
	assert_string_equal(ms[0].sig.params[5].name, "arg5");
	t = btf__type_by_id(ms[0].sig.btf, ms[0].sig.params[0].type_id);
	assert_true(btf_is_int(t) && t->size == 8 && !(btf_int_encoding(t) & BTF_INT_SIGNED));
	t = btf__type_by_id(ms[0].sig.btf, ms[0].sig.ret_type);
	assert_true(btf_is_int(t) && t->size == 8 && (btf_int_encoding(t) & BTF_INT_SIGNED));
	t = btf__type_by_id(ms[0].sig.btf, ms[0].sig.func_id);
	assert_true(btf_is_func(t));
	assert_string_equal(btf__name_by_offset(ms[0].sig.btf, t->name_off), "ufunc_test_alpha");
	free(ms);
	spec__free(&s);
	ufunc_front__free(fe);
}

/*
 * Regression (fixed): a spec's signatures pointed into BTF strings that
 * the next FUNC added moved (ASan: heap-use-after-free printing a glob's
 * first match).  Every signature of two specs' matches keeps its names.
 */
static void test_signatures_outlive_later_matches(void **state)
{
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms1, *ms2;
	struct ks_error e;
	struct spec s1, s2;
	int n1, n2, i;

	n1 = match("u:/proc/self/exe:ufunc_test_*", &fe, &s1, &ms1, &e);
	n2 = match("u:/proc/self/exe:ufunc_test_beta", &fe, &s2, &ms2, &e);
	assert_int_equal(n1, 2);
	assert_int_equal(n2, 1);
	for (i = 0; i < n1; i++) {
		assert_true(ms1[i].glob);
		assert_string_equal(ms1[i].sig.params[0].name, "arg0");
		assert_string_equal(ms1[i].sig.params[3].name, "arg3");
	}
	assert_string_equal(ms1[0].name, "ufunc_test_alpha");
	assert_string_equal(ms1[1].name, "ufunc_test_beta");
	assert_string_equal(ms2[0].sig.params[1].name, "arg1");
	free(ms1);
	free(ms2);
	spec__free(&s1);
	spec__free(&s2);
	ufunc_front__free(fe);
}

/* +OFFSET and 0xADDRESS: inside a function, entry only; the same place. */
static void test_offset_and_address(void **state)
{
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms, *ma;
	struct ks_error e;
	struct spec s, sa;
	char text[128];

	assert_int_equal(match("u:/proc/self/exe:ufunc_test_alpha+1", &fe, &s, &ms, &e), 1);
	assert_int_equal(ms[0].off, 1);
	assert_false(ms[0].sig.has_return);
	assert_string_equal(ms[0].sig.name, "ufunc_test_alpha+0x1");
	snprintf(text, sizeof(text), "u:/proc/self/exe:0x%llx", (unsigned long long)ms[0].addr);
	assert_int_equal(match(text, &fe, &sa, &ma, &e), 1);
	assert_int_equal(ma[0].addr, ms[0].addr);
	assert_int_equal(ma[0].file_off, ms[0].file_off);
	assert_false(ma[0].sig.has_return);
	free(ms);
	free(ma);
	spec__free(&s);
	spec__free(&sa);
	ufunc_front__free(fe);
}

/* SPEC is refused with ERR at column POS, E's message holding MSG. */
static void refused(const char *text, int err, int pos, const char *msg)
{
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms = (void *)1;
	struct ks_error e = {};
	struct spec s;
	int n = match(text, &fe, &s, &ms, &e);

	if (n != err || e.pos != pos || !strstr(e.msg, msg))
		print_message("%s: %d, column %d, \"%s\"\n", text, n, e.pos, e.msg);
	assert_int_equal(n, err);
	assert_int_equal(e.err, err);
	assert_int_equal(e.pos, pos);
	assert_non_null(strstr(e.msg, msg));
	assert_null(ms);
	spec__free(&s);
	ufunc_front__free(fe);
}

static void test_refusals(void **state)
{
	char text[64], path[] = "/tmp/ksnoop-test-ufunc-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not elf\n", 8), 8);
	close(fd);
	refused("u:/nonexistent/app:f", -ENOENT, 3, "No such file or directory");
	refused("u:/tmp:f", -EISDIR, 3, "is a directory");
	snprintf(text, sizeof(text), "u:%s:f", path);
	refused(text, -ENOEXEC, 3, "is not an ELF file");
	refused("u:/proc/self/exe:ufunc_test_nope", -ENOENT, 18, "no function 'ufunc_test_nope'");
	refused("u:/proc/self/exe:nope_*", -ENOENT, 18, "matches 'nope_*'");
	refused("u:/proc/self/exe:ufunc_test_alpha+100000", -ERANGE, 18, "past the end");
	refused("u:/proc/self/exe:0x1", -ENOENT, 18, "no function at 0x1");
	refused("u:libksnoop_no_such_library:f", -ENOENT, 3, "no library 'libksnoop_no_such_library'");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_function),
		cmocka_unit_test(test_signatures_outlive_later_matches),
		cmocka_unit_test(test_offset_and_address),
		cmocka_unit_test(test_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
