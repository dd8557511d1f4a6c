// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for ksnoop/attach/klayout.c: the kernel fields the capture
 * programs read, found in vmlinux BTF built here in memory (a task_struct
 * and a pt_regs of made-up offsets, with both architectures' names), never
 * /sys.  A field is there where its bit in `known` is set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "klayout.h"

#define COMM_OFF	0x48	/* inside an anonymous struct at 0x40 */
#define RSEQ_OFF	0x80
#define THREAD_OFF	0x400
#define TP_OFF		24	/* fsbase, and uw.tp_value at 16 + 8 */

enum rseq_form { RSEQ_PTR, RSEQ_DATA, RSEQ_INT };

/* A vmlinux BTF with task_struct (rseq as FORM) and, if REGS, pt_regs. */
static struct btf *make_vmlinux(enum rseq_form form, bool regs)
{
	struct btf *btf = btf__new_empty();
	int ulong, uint, chr, u32idx, comm, anon, ti, uw, thread, rseq_t, rseq_ptr, rseq_data, regs_arr;

	assert_non_null(btf);
	ulong = btf__add_int(btf, "long unsigned int", 8, 0);
	uint = btf__add_int(btf, "unsigned int", 4, 0);
	chr = btf__add_int(btf, "char", 1, BTF_INT_SIGNED);
	u32idx = btf__add_int(btf, "__ARRAY_SIZE_TYPE__", 4, 0);
	comm = btf__add_array(btf, u32idx, chr, 16);
	/* an anonymous struct, as randomized layouts have them */
	anon = btf__add_struct(btf, NULL, 0x20);
	assert_int_equal(btf__add_field(btf, "pad", ulong, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "comm", comm, (COMM_OFF - 0x40) * 8, 0), 0);
	ti = btf__add_struct(btf, "thread_info", 16);
	assert_int_equal(btf__add_field(btf, "flags", ulong, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "status", uint, 64, 0), 0);
	uw = btf__add_struct(btf, NULL, 16);
	assert_int_equal(btf__add_field(btf, "tp2_value", ulong, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "tp_value", ulong, 64, 0), 0);
	thread = btf__add_struct(btf, "thread_struct", 64);
	assert_int_equal(btf__add_field(btf, "uw", uw, 8 * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "fsbase", ulong, TP_OFF * 8, 0), 0);
	rseq_t = btf__add_struct(btf, "rseq", 32);
	rseq_ptr = btf__add_ptr(btf, rseq_t);
	rseq_data = btf__add_struct(btf, "rseq_data", 24);
	assert_int_equal(btf__add_field(btf, "len", uint, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "usrptr", rseq_ptr, 64, 0), 0);

	assert_true(btf__add_struct(btf, "task_struct", 0x800) > 0);
	assert_int_equal(btf__add_field(btf, "thread_info", ti, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, NULL, anon, 0x40 * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "rseq", form == RSEQ_PTR ? rseq_ptr :
					form == RSEQ_DATA ? rseq_data : uint, RSEQ_OFF * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "thread", thread, THREAD_OFF * 8, 0), 0);
	if (!regs)
		return btf;
	regs_arr = btf__add_array(btf, u32idx, ulong, 31);
	assert_true(btf__add_struct(btf, "pt_regs", 0x200) > 0);
	assert_int_equal(btf__add_field(btf, "regs", regs_arr, 0, 0), 0);	/* arm64: x0-x30 */
	assert_int_equal(btf__add_field(btf, "pstate", ulong, 0x108 * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "orig_x0", ulong, 0x110 * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "syscallno", uint, 0x118 * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "r10", ulong, 0x120 * 8, 0), 0);	/* x86-64 */
	assert_int_equal(btf__add_field(btf, "r9", ulong, 0x128 * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "r8", ulong, 0x130 * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "dx", ulong, 0x138 * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "si", ulong, 0x140 * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "di", ulong, 0x148 * 8, 0), 0);
	assert_int_equal(btf__add_field(btf, "orig_ax", ulong, 0x150 * 8, 0), 0);
	return btf;
}

static void assert_field(const struct ksnoop_kfields *kf, enum ksnoop_kfield f, __u32 off)
{
	assert_true(kf->known & (1u << f));
	assert_int_equal(kf->off[f], off);
}

/* Every field where it is, through the anonymous struct; rseq a pointer (before 6.19). */
static void test_fields_found(void **state)
{
	struct btf *btf = make_vmlinux(RSEQ_PTR, true);
	struct ksnoop_kfields kf;
	char missing[128];

	assert_int_equal(klayout__find(btf, &kf), klayout__wanted() - 1);
	assert_field(&kf, KSNOOP_KF_TASK_COMM, COMM_OFF);
	assert_field(&kf, KSNOOP_KF_TASK_RSEQ, RSEQ_OFF);
	assert_false(kf.known & (1u << KSNOOP_KF_TASK_RSEQ_USRPTR));
	klayout__missing(&kf, missing, sizeof(missing));
	assert_string_equal(missing, "task_struct.rseq.usrptr");
#if defined(__x86_64__)
	assert_field(&kf, KSNOOP_KF_TASK_TP, THREAD_OFF + TP_OFF);
	assert_field(&kf, KSNOOP_KF_TASK_TI_STATUS, 8);
	assert_field(&kf, KSNOOP_KF_REGS_NR, 0x150);
	assert_field(&kf, KSNOOP_KF_REGS_ARG0, 0x148);
	assert_field(&kf, KSNOOP_KF_REGS_ARG3, 0x120);
	assert_field(&kf, KSNOOP_KF_REGS_ARG5, 0x128);
	assert_false(kf.known & (1u << KSNOOP_KF_REGS_PSTATE));
#elif defined(__aarch64__)
	assert_field(&kf, KSNOOP_KF_TASK_TP, THREAD_OFF + 8 + 8);
	assert_field(&kf, KSNOOP_KF_REGS_NR, 0x118);
	assert_field(&kf, KSNOOP_KF_REGS_ARG0, 0x110);
	assert_field(&kf, KSNOOP_KF_REGS_ARG1, 8);	/* regs[1] */
	assert_field(&kf, KSNOOP_KF_REGS_ARG5, 40);
	assert_field(&kf, KSNOOP_KF_REGS_PSTATE, 0x108);
#endif
	btf__free(btf);
}

/* 6.19's rseq: a struct whose usrptr is the area's address; the pointer form is then not there. */
static void test_rseq_data(void **state)
{
	struct btf *btf = make_vmlinux(RSEQ_DATA, true);
	struct ksnoop_kfields kf;

	klayout__find(btf, &kf);
	assert_false(kf.known & (1u << KSNOOP_KF_TASK_RSEQ));
	assert_field(&kf, KSNOOP_KF_TASK_RSEQ_USRPTR, RSEQ_OFF + 8);
	btf__free(btf);
}

/* A field of another kind than the programs read is not there (no read of the wrong thing). */
static void test_wrong_kind_not_there(void **state)
{
	struct btf *btf = make_vmlinux(RSEQ_INT, true);
	struct ksnoop_kfields kf;
	char missing[128];

	assert_int_equal(klayout__find(btf, &kf), klayout__wanted() - 2);
	assert_false(kf.known & (1u << KSNOOP_KF_TASK_RSEQ));
	assert_false(kf.known & (1u << KSNOOP_KF_TASK_RSEQ_USRPTR));
	klayout__missing(&kf, missing, sizeof(missing));
	assert_string_equal(missing, "task_struct.rseq, task_struct.rseq.usrptr");
	btf__free(btf);
}

/* No pt_regs, no BTF at all: zeros, which the programs do without. */
static void test_nothing_there(void **state)
{
	struct btf *btf = make_vmlinux(RSEQ_PTR, false);
	struct ksnoop_kfields kf, zero = { 0 };

	klayout__find(btf, &kf);
	assert_false(kf.known & (1u << KSNOOP_KF_REGS_NR));
	assert_false(kf.known & (1u << KSNOOP_KF_REGS_ARG0));
	assert_field(&kf, KSNOOP_KF_TASK_COMM, COMM_OFF);
	btf__free(btf);
	memset(&kf, 0xff, sizeof(kf));
	assert_int_equal(klayout__find(NULL, &kf), 0);
	assert_memory_equal(&kf, &zero, sizeof(kf));
	btf = btf__new_empty();
	assert_int_equal(klayout__find(btf, &kf), 0);
	assert_memory_equal(&kf, &zero, sizeof(kf));
	btf__free(btf);
}

/* The list of what is missing is cut to the buffer, never past it. */
static void test_missing_cut(void **state)
{
	struct ksnoop_kfields kf = { 0 };
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	klayout__missing(&kf, buf, 10);
	assert_int_equal(strlen(buf), 9);
	assert_int_equal(buf[10], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_found),
		cmocka_unit_test(test_rseq_data),
		cmocka_unit_test(test_wrong_kind_not_there),
		cmocka_unit_test(test_nothing_there),
		cmocka_unit_test(test_missing_cut),
	};

	return cmocka_run_group_tests_name("klayout", tests, NULL, NULL);
}
