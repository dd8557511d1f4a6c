// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for syscalls typed from tracefs (ksnoop/kernel/syscall.c): format
 * files given as strings, their C types mapped onto BTF built in memory.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "../include/btf_fixture.h"
#include "syscall.h"

/* As Linux 6.x writes them (tabs between the parts). */
static const char openat_enter[] =
	"name: sys_enter_openat\n"
	"ID: 645\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"dfd: 0x%08lx, filename: 0x%08lx\", ((unsigned long)(REC->dfd))\n";

static const char openat_exit[] =
	"name: sys_exit_openat\n"
	"ID: 644\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\n"
	"print fmt: \"0x%lx\", REC->ret\n";

struct fx {
	struct btf *btf;
	struct fx_ints t;
	int umode, sockaddr, sockaddr_ptr, const_char, const_char_ptr, char_ptr;
};

static int setup(void **state)
{
	static struct fx f;

	f.btf = btf__new_empty();
	if (!f.btf || fx_add_ints(f.btf, &f.t))
		return -1;
	f.umode = btf__add_typedef(f.btf, "umode_t", f.t.ushort_t);
	f.sockaddr = btf__add_struct(f.btf, "sockaddr", 16);
	btf__add_field(f.btf, "sa_family", f.t.ushort_t, 0, 0);
	f.sockaddr_ptr = btf__add_ptr(f.btf, f.sockaddr);
	f.char_ptr = btf__add_ptr(f.btf, f.t.char_t);
	f.const_char = btf__add_const(f.btf, f.t.char_t);
	f.const_char_ptr = btf__add_ptr(f.btf, f.const_char);
	if (f.umode < 0 || f.sockaddr_ptr < 0 || f.const_char_ptr < 0 || f.char_ptr < 0)
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	btf__free(f->btf);
	return 0;
}

static void test_format_fields_past_common(void **state)
{
	struct syscall_field fl[SYSCALL_MAX_FIELDS];
	int n = syscall_format__parse(openat_enter, fl, SYSCALL_MAX_FIELDS);

	(void)state;
	assert_int_equal(n, 4);
	assert_string_equal(fl[0].name, "dfd");
	assert_string_equal(fl[0].ctype, "int");
	assert_int_equal(fl[0].offset, 16);
	assert_int_equal(fl[0].size, 8);
	assert_false(fl[0].is_signed);
	assert_string_equal(fl[1].name, "filename");
	assert_string_equal(fl[1].ctype, "const char *");
	assert_int_equal(fl[1].offset, 24);
	assert_string_equal(fl[3].name, "mode");
	assert_string_equal(fl[3].ctype, "umode_t");
	assert_int_equal(fl[3].offset, 40);
}

/*
 * 7.3's sys_enter_openat ends with the kernel's copy of the filename, a
 * __data_loc field of 4 bytes: not an argument, left out (the prototype
 * is openat(2)'s, and a raw_tp's sixth word would be another register).
 */
static const char openat_enter_7_3[] =
	"format:\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] __filename_val;\toffset:48;\tsize:4;\tsigned:0;\n"
	"\n";

static void test_format_string_copy_left_out(void **state)
{
	struct syscall_field fl[SYSCALL_MAX_FIELDS];

	(void)state;
	assert_int_equal(syscall_format__parse(openat_enter_7_3, fl, SYSCALL_MAX_FIELDS), 4);
	assert_string_equal(fl[1].name, "filename");
	assert_string_equal(fl[3].name, "mode");
	assert_int_equal(fl[3].offset, 40);
}

static void test_format_exit_is_ret(void **state)
{
	struct syscall_field fl[SYSCALL_MAX_FIELDS];

	(void)state;
	assert_int_equal(syscall_format__parse(openat_exit, fl, SYSCALL_MAX_FIELDS), 1);
	assert_string_equal(fl[0].name, "ret");
	assert_string_equal(fl[0].ctype, "long");
	assert_true(fl[0].is_signed);
}

static void test_format_refused(void **state)
{
	struct syscall_field fl[2];

	(void)state;
	/* Not a format file; a field without its offset; more fields than room. */
	assert_int_equal(syscall_format__parse("hello\n", fl, 2), -EINVAL);
	assert_int_equal(syscall_format__parse("\tfield:int x;\tsize:8;\tsigned:0;\n", fl, 2),
			 -EINVAL);
	assert_int_equal(syscall_format__parse("\tfield:int x;\toffset:-8;\tsize:8;\tsigned:0;\n",
					       fl, 2), -EINVAL);
	assert_int_equal(syscall_format__parse(openat_enter, fl, 2), -EINVAL);
	assert_int_equal(syscall_format__parse("", fl, 2), -EINVAL);
}

static void test_types_mapped(void **state)
{
	struct fx *f = *state;

	assert_int_equal(syscall_format__btf_type(f->btf, "const char *", 8, false),
			 f->const_char_ptr);
	assert_int_equal(syscall_format__btf_type(f->btf, "char *", 8, false), f->char_ptr);
	assert_int_equal(syscall_format__btf_type(f->btf, "umode_t", 8, false), f->umode);
	/* An int in an 8-byte word: the int (its low bytes, extended). */
	assert_int_equal(syscall_format__btf_type(f->btf, "int", 8, false), f->t.int_t);
	assert_int_equal(syscall_format__btf_type(f->btf, "long", 8, true), f->t.long_t);
	assert_int_equal(syscall_format__btf_type(f->btf, "unsigned long", 8, false),
			 f->t.ulong_t);
	assert_int_equal(syscall_format__btf_type(f->btf, "struct sockaddr __user *", 8, false),
			 f->sockaddr_ptr);
	assert_int_equal(syscall_format__btf_type(f->btf, "struct sockaddr *", 8, false),
			 f->sockaddr_ptr);
}

static void test_types_unknown_are_integers(void **state)
{
	struct fx *f = *state;

	/* No such struct, no pointer to int, an array: integers of the field's size. */
	assert_int_equal(syscall_format__btf_type(f->btf, "struct nosuch *", 8, false),
			 f->t.ulong_t);
	assert_int_equal(syscall_format__btf_type(f->btf, "int *", 8, false), f->t.ulong_t);
	assert_int_equal(syscall_format__btf_type(f->btf, "key_serial_t", 8, true), f->t.long_t);
	assert_int_equal(syscall_format__btf_type(f->btf, "char[16]", 8, false), f->t.ulong_t);
	assert_int_equal(syscall_format__btf_type(f->btf, "struct sockaddr", 8, false),
			 f->t.ulong_t);
}

static void test_signature_pair(void **state)
{
	struct fx *f = *state;
	struct signature sig;
	struct ks_error e;

	assert_int_equal(signature__from_syscall(f->btf, "sys:openat", "openat", openat_enter,
						 openat_exit, &sig, &e), 0);
	assert_int_equal(sig.syscall, SIG_SYSCALL_PAIR);
	assert_string_equal(sig.name, "sys:openat");
	assert_string_equal(sig.attach, "openat");
	assert_int_equal(sig.nparams, 4);
	assert_string_equal(sig.params[1].name, "filename");
	assert_int_equal(sig.params[1].type_id, f->const_char_ptr);
	/* Words of the record: arguments from the third on. */
	assert_int_equal(sig.params[0].slot, 2);
	assert_int_equal(sig.params[3].slot, 5);
	assert_int_equal(sig.nslots, 6);
	assert_true(sig.has_return);
	assert_int_equal(sig.ret_type, f->t.long_t);
}

static void test_signature_events(void **state)
{
	struct fx *f = *state;
	struct signature sig;
	struct ks_error e;

	assert_int_equal(signature__from_syscall(f->btf, "tp:syscalls:sys_exit_openat",
						 "sys_exit_openat", NULL, openat_exit, &sig, &e), 0);
	assert_int_equal(sig.syscall, SIG_SYSCALL_EVENT);
	assert_false(sig.has_return);
	assert_int_equal(sig.nparams, 1);
	assert_string_equal(sig.params[0].name, "ret");
	assert_int_equal(sig.params[0].slot, 2);
	assert_int_equal(signature__from_syscall(f->btf, "tp:syscalls:sys_enter_openat",
						 "sys_enter_openat", openat_enter, NULL, &sig, &e), 0);
	assert_false(sig.has_return);
	assert_int_equal(sig.nparams, 4);
	assert_int_equal(signature__from_syscall(f->btf, "x", "x", "junk", NULL, &sig, &e),
			 -EINVAL);
	/* A field that is not a word of its own cannot be read as one. */
	assert_int_equal(signature__from_syscall(f->btf, "x", "x",
						 "\tfield:int a;\toffset:12;\tsize:4;\tsigned:1;\n",
						 NULL, &sig, &e), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_fields_past_common),
		cmocka_unit_test(test_format_string_copy_left_out),
		cmocka_unit_test(test_format_exit_is_ret),
		cmocka_unit_test(test_format_refused),
		cmocka_unit_test(test_types_mapped),
		cmocka_unit_test(test_types_unknown_are_integers),
		cmocka_unit_test(test_signature_pair),
		cmocka_unit_test(test_signature_events),
	};

	return cmocka_run_group_tests_name("syscall", tests, setup, teardown);
}
