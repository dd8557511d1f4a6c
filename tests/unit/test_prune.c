// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for prune (ksnoop/attach/prune.c): the code a plan leaves
 * dead, taken out before the kernel sees it.  Hand-made programs over a
 * hand-made read-only map: a jump decided by the map's bytes goes one
 * way and what it skips goes; what is not known stays (a context
 * register, two paths that disagree, a load past the map's end); jumps,
 * calls, callbacks, func_info and line_info renumbered; and the
 * programs prune does not follow refused, for libbpf to load whole.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "prune.h"

#define N(a)	((int)(sizeof(a) / sizeof((a)[0])))
#define RO_FD	7

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
/* r<d> = the read-only map's address + OFF (two slots) */
#define LD_RO(d, off)	INSN(BPF_LD | BPF_IMM | BPF_DW, d, BPF_PSEUDO_MAP_VALUE, 0, RO_FD), \
			INSN(0, 0, 0, 0, off)
#define LD_IMM64(d, v)	INSN(BPF_LD | BPF_IMM | BPF_DW, d, 0, 0, (__s32)(v)), \
			INSN(0, 0, 0, 0, (__s32)((__u64)(v) >> 32))
#define LD_FUNC(d, o)	INSN(BPF_LD | BPF_IMM | BPF_DW, d, BPF_PSEUDO_FUNC, 0, o), INSN(0, 0, 0, 0, 0)
#define LDX(sz, d, s, o)	INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define MOV64(d, k)	INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, k)
#define MOV64_X(d, s)	INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ALU32(op, d, k)	INSN(BPF_ALU | (op) | BPF_K, d, 0, 0, k)
#define ALU64(op, d, k)	INSN(BPF_ALU64 | (op) | BPF_K, d, 0, 0, k)
#define JMP(op, d, k, o)	INSN(BPF_JMP | (op) | BPF_K, d, 0, o, k)
#define JMP_X(op, d, s, o)	INSN(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define JMP32(op, d, k, o)	INSN(BPF_JMP32 | (op) | BPF_K, d, 0, o, k)
#define JA(o)		INSN(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define CALL_HELPER(id)	INSN(BPF_JMP | BPF_CALL, 0, 0, 0, id)
#define CALL_SUB(o)	INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_CALL, 0, o)
#define EXIT		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* The map: byte 3 is 0, byte 4 is 1, the u32 at 8 is 0x12345678. */
static const unsigned char ro_bytes[16] = { 0, 0, 0, 0, 1, 0, 0, 0, 0x78, 0x56, 0x34, 0x12 };

static struct prune_in in_of(const struct bpf_insn *insns, int n)
{
	struct prune_in in = { .insns = insns, .cnt = n, .nro = 1 };

	in.ro[0] = (struct prune_ro){ .fd = RO_FD, .data = ro_bytes, .size = sizeof(ro_bytes) };
	return in;
}

static void expect_prog(const struct prune_out *out, const struct bpf_insn *want, int n)
{
	int i;

	assert_int_equal(out->cnt, n);
	for (i = 0; i < n; i++) {
		if (memcmp(&out->insns[i], &want[i], sizeof(want[i])))
			fail_msg("instruction %d: code 0x%02x dst %d src %d off %d imm %d, want 0x%02x %d %d %d %d",
				 i, out->insns[i].code, out->insns[i].dst_reg, out->insns[i].src_reg,
				 out->insns[i].off, out->insns[i].imm, want[i].code, want[i].dst_reg,
				 want[i].src_reg, want[i].off, want[i].imm);
	}
}

/* IN with func_info FUNCS (N of them) and line_info LINES (M). */
static void with_info(struct prune_in *in, const struct bpf_func_info *funcs, int n,
		      const struct bpf_line_info *lines, int m)
{
	in->func_info = funcs;
	in->func_rec = sizeof(*funcs);
	in->nfunc = n;
	in->line_info = lines;
	in->line_rec = sizeof(*lines);
	in->nline = m;
}

/* PROG pruned is WANT, with DECIDED jumps turned into gotos. */
static void check(const struct bpf_insn *prog, int n, const struct bpf_insn *want, int nwant,
		  size_t decided)
{
	struct prune_in in = in_of(prog, n);
	struct prune_out out;

	assert_int_equal(prune__program(&in, &out), 0);
	expect_prog(&out, want, nwant);
	assert_int_equal(out.decided, decided);
	prune__free(&out);
}

/* A byte of the map that is 0: the jump on it always taken, what it skips gone. */
static void test_taken(void **state)
{
	const struct bpf_insn prog[] = {
		LD_RO(1, 0),
		LDX(BPF_B, 2, 1, 3),
		JMP(BPF_JEQ, 2, 0, 2),
		MOV64(0, 1),
		EXIT,
		MOV64(0, 2),
		EXIT,
	};
	const struct bpf_insn want[] = {
		LD_RO(1, 0),
		LDX(BPF_B, 2, 1, 3),
		JA(0),
		MOV64(0, 2),
		EXIT,
	};

	check(prog, N(prog), want, N(want), 1);
}

/* A byte that is 1 (the address moved by an add): never taken, the jump itself gone. */
static void test_not_taken(void **state)
{
	const struct bpf_insn prog[] = {
		LD_RO(1, 0),
		ALU64(BPF_ADD, 1, 2),
		LDX(BPF_B, 2, 1, 2),
		JMP(BPF_JEQ, 2, 0, 2),
		MOV64(0, 1),
		EXIT,
		MOV64(0, 2),
		EXIT,
	};
	const struct bpf_insn want[] = {
		LD_RO(1, 0),
		ALU64(BPF_ADD, 1, 2),
		LDX(BPF_B, 2, 1, 2),
		MOV64(0, 1),
		EXIT,
	};

	check(prog, N(prog), want, N(want), 0);
}

/* What is not known stays: the context, paths that disagree, past the map's end, a call's r0. */
static void test_unknown_stays(void **state)
{
	const struct bpf_insn ctx[] = {
		LDX(BPF_W, 2, 1, 0),
		JMP(BPF_JEQ, 2, 0, 1),
		MOV64(0, 1),
		EXIT,
	};
	const struct bpf_insn joined[] = {
		LDX(BPF_W, 3, 1, 0),
		MOV64(2, 5),
		JMP(BPF_JEQ, 3, 0, 1),
		MOV64(2, 6),
		JMP(BPF_JEQ, 2, 5, 1),	/* r2 is 5 or 6 */
		MOV64(0, 1),
		EXIT,
	};
	const struct bpf_insn past_end[] = {
		LD_RO(1, 0),
		LDX(BPF_W, 2, 1, 14),	/* bytes 14-17 of 16 */
		JMP(BPF_JEQ, 2, 0, 1),
		MOV64(0, 1),
		EXIT,
	};
	const struct bpf_insn after_call[] = {
		MOV64(0, 0),
		CALL_HELPER(5),
		JMP(BPF_JEQ, 0, 0, 1),
		MOV64(0, 1),
		EXIT,
	};

	check(ctx, N(ctx), ctx, N(ctx), 0);
	check(joined, N(joined), joined, N(joined), 0);
	check(past_end, N(past_end), past_end, N(past_end), 0);
	check(after_call, N(after_call), after_call, N(after_call), 0);
}

/* Two paths that agree keep what they agree on; r6-r9 live through a call. */
static void test_agreeing_paths(void **state)
{
	const struct bpf_insn prog[] = {
		LDX(BPF_W, 3, 1, 0),
		MOV64(6, 5),
		JMP(BPF_JEQ, 3, 0, 1),
		MOV64(6, 5),
		CALL_HELPER(5),
		JMP(BPF_JNE, 6, 5, 1),	/* never: r6 is 5 both ways */
		MOV64(0, 1),
		EXIT,
	};
	const struct bpf_insn want[] = {
		LDX(BPF_W, 3, 1, 0),
		MOV64(6, 5),
		JMP(BPF_JEQ, 3, 0, 1),
		MOV64(6, 5),
		CALL_HELPER(5),
		MOV64(0, 1),
		EXIT,
	};

	check(prog, N(prog), want, N(want), 0);
}

/* ALU32 wraps and zero-extends, JMP32 looks at 32 bits, signed compares, a u32 of the map. */
static void test_arithmetic(void **state)
{
	const struct bpf_insn prog[] = {
		/* 0 */ MOV64(2, -1),
		/* 1 */ ALU32(BPF_ADD, 2, 1),		/* w2 = 0xffffffff + 1: r2 = 0 */
		/* 2 */ JMP(BPF_JNE, 2, 0, 3),		/* never */
		/* 3 */ MOV64(3, -1),			/* r3 = 0xffffffffffffffff */
		/* 4 */ JMP32(BPF_JEQ, 3, -1, 1),	/* always: to 6 */
		/* 5 */ MOV64(0, 9),			/* not reached */
		/* 6 */ JMP(BPF_JSGT, 3, 0, 3),		/* -1 > 0: never */
		/* 7 */ LD_RO(4, 0),
		/* 9 */ LDX(BPF_W, 4, 4, 8),		/* 0x12345678 */
		/* 10 */ ALU64(BPF_RSH, 4, 16),
		/* 11 */ JMP(BPF_JNE, 4, 0x1234, 1),	/* never */
		/* 12 */ MOV64(0, 1),
		/* 13 */ EXIT,
	};
	const struct bpf_insn want[] = {
		MOV64(2, -1),
		ALU32(BPF_ADD, 2, 1),
		MOV64(3, -1),
		JA(0),
		LD_RO(4, 0),
		LDX(BPF_W, 4, 4, 8),
		ALU64(BPF_RSH, 4, 16),
		MOV64(0, 1),
		EXIT,
	};

	check(prog, N(prog), want, N(want), 1);
}

/*
 * Functions: one called only where the map says never goes with its
 * func_info; one always called stays, its call and callback renumbered;
 * line_info follows its instructions (a dropped jump's record lands on
 * the next kept instruction when that had none).
 */
static void test_functions(void **state)
{
	const struct bpf_insn prog[] = {
		/* 0 main */ LD_RO(1, 0),
		/* 2 */ LDX(BPF_B, 2, 1, 4),
		/* 3 */ JMP(BPF_JEQ, 2, 1, 1),	/* always: skips the call to dead() */
		/* 4 */ CALL_SUB(4),		/* -> 9 */
		/* 5 */ CALL_SUB(5),		/* -> 11 */
		/* 6 */ LD_FUNC(2, 6),		/* -> 13 */
		/* 8 */ EXIT,
		/* 9 dead() */ MOV64(0, 1),
		/* 10 */ EXIT,
		/* 11 live() */ MOV64(0, 2),
		/* 12 */ EXIT,
		/* 13 callback() */ MOV64(0, 0),
		/* 14 */ EXIT,
	};
	const struct bpf_insn want[] = {
		/* 0 */ LD_RO(1, 0),
		/* 2 */ LDX(BPF_B, 2, 1, 4),
		/* 3 */ JA(0),
		/* 4 */ CALL_SUB(3),		/* -> 8 */
		/* 5 */ LD_FUNC(2, 4),		/* -> 10 */
		/* 7 */ EXIT,
		/* 8 */ MOV64(0, 2),
		/* 9 */ EXIT,
		/* 10 */ MOV64(0, 0),
		/* 11 */ EXIT,
	};
	const struct bpf_func_info funcs[] = { { 0, 100 }, { 9, 101 }, { 11, 102 }, { 13, 103 } };
	const struct bpf_func_info want_funcs[] = { { 0, 100 }, { 8, 102 }, { 10, 103 } };
	const struct bpf_line_info lines[] = {
		{ 0, 1, 1, 1 }, { 3, 1, 3, 1 }, { 4, 1, 4, 1 }, { 5, 1, 5, 1 },
		{ 9, 1, 9, 1 }, { 11, 1, 11, 1 }, { 13, 1, 13, 1 },
	};
	const struct bpf_line_info want_lines[] = {
		{ 0, 1, 1, 1 }, { 3, 1, 3, 1 }, { 4, 1, 5, 1 }, { 8, 1, 11, 1 }, { 10, 1, 13, 1 },
	};
	struct prune_in in = in_of(prog, N(prog));
	struct prune_out out;

	with_info(&in, funcs, N(funcs), lines, N(lines));
	assert_int_equal(prune__program(&in, &out), 0);
	expect_prog(&out, want, N(want));
	assert_int_equal(out.nfunc, N(want_funcs));
	assert_memory_equal(out.func_info, want_funcs, sizeof(want_funcs));
	assert_int_equal(out.nline, N(want_lines));
	assert_memory_equal(out.line_info, want_lines, sizeof(want_lines));
	prune__free(&out);
}

/* A jump whose never-taken side is dropped keeps a line record at the insn after it. */
static void test_dropped_jump_line(void **state)
{
	const struct bpf_insn prog[] = {
		LD_RO(1, 0),
		LDX(BPF_B, 2, 1, 4),
		JMP(BPF_JEQ, 2, 0, 1),	/* never (the byte is 1) */
		MOV64(0, 1),
		EXIT,
	};
	const struct bpf_line_info lines[] = { { 0, 1, 1, 1 }, { 3, 1, 3, 1 } };
	const struct bpf_line_info want_lines[] = { { 0, 1, 1, 1 }, { 3, 1, 3, 1 } };
	struct prune_in in = in_of(prog, N(prog));
	struct prune_out out;

	with_info(&in, NULL, 0, lines, N(lines));
	assert_int_equal(prune__program(&in, &out), 0);
	assert_int_equal(out.cnt, 5);
	assert_int_equal(out.nline, N(want_lines));
	assert_memory_equal(out.line_info, want_lines, sizeof(want_lines));
	prune__free(&out);
}

/*
 * A tail call behind a jump the map decides stays, and so does the jump:
 * the kernel counts tail calls before it drops dead code (taskstack.bpf.h).
 */
static void test_tail_call_kept(void **state)
{
	const struct bpf_insn prog[] = {
		LD_RO(6, 0),
		LDX(BPF_B, 2, 6, 3),
		JMP(BPF_JEQ, 2, 0, 1),	/* always: over the tail call */
		CALL_HELPER(BPF_FUNC_tail_call),
		MOV64(0, 0),
		LDX(BPF_B, 2, 6, 4),
		JMP(BPF_JEQ, 2, 0, 1),	/* never: nothing behind it to keep */
		MOV64(0, 1),
		EXIT,
	};
	const struct bpf_insn want[] = {
		LD_RO(6, 0),
		LDX(BPF_B, 2, 6, 3),
		JMP(BPF_JEQ, 2, 0, 1),
		CALL_HELPER(BPF_FUNC_tail_call),
		MOV64(0, 0),
		LDX(BPF_B, 2, 6, 4),
		MOV64(0, 1),
		EXIT,
	};

	check(prog, N(prog), want, N(want), 0);
}

/* What prune does not follow: refused, for the program to be loaded whole. */
static void test_refused(void **state)
{
	const struct bpf_insn out_of_range[] = { JA(5), EXIT };
	const struct bpf_insn into_ldimm[] = { JA(1), LD_IMM64(1, 5), EXIT };
	const struct bpf_insn cut_ldimm[] = { MOV64(0, 0), INSN(BPF_LD | BPF_IMM | BPF_DW, 1, 0, 0, 0) };
	const struct bpf_insn off_the_end[] = { MOV64(0, 0) };
	const struct bpf_insn bad_reg[] = { MOV64(12, 0), EXIT };
	const struct bpf_insn bad_call[] = { CALL_SUB(-3), EXIT };
	const struct bpf_insn bad_ld[] = { INSN(BPF_LD | BPF_MEM | BPF_W, 0, 0, 0, 0), EXIT };
	const struct bpf_func_info bad_func[] = { { 0, 1 }, { 9, 2 } };
	struct prune_in in;
	struct prune_out out;

	in = in_of(out_of_range, N(out_of_range));
	assert_int_equal(prune__program(&in, &out), -EINVAL);
	in = in_of(into_ldimm, N(into_ldimm));
	assert_int_equal(prune__program(&in, &out), -EINVAL);
	in = in_of(cut_ldimm, N(cut_ldimm));
	assert_int_equal(prune__program(&in, &out), -EINVAL);
	in = in_of(off_the_end, N(off_the_end));
	assert_int_equal(prune__program(&in, &out), -EINVAL);
	in = in_of(bad_reg, N(bad_reg));
	assert_int_equal(prune__program(&in, &out), -EINVAL);
	in = in_of(bad_call, N(bad_call));
	assert_int_equal(prune__program(&in, &out), -EINVAL);
	in = in_of(bad_ld, N(bad_ld));
	assert_int_equal(prune__program(&in, &out), -EINVAL);
	in = in_of(off_the_end, 0);
	assert_int_equal(prune__program(&in, &out), -EINVAL);
	in = in_of(off_the_end, PRUNE_MAX_INSNS + 1);
	assert_int_equal(prune__program(&in, &out), -E2BIG);
	in = in_of(out_of_range + 1, 1);
	with_info(&in, bad_func, N(bad_func), NULL, 0);
	assert_int_equal(prune__program(&in, &out), -EINVAL);
	assert_null(out.insns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_taken),
		cmocka_unit_test(test_not_taken),
		cmocka_unit_test(test_unknown_stays),
		cmocka_unit_test(test_agreeing_paths),
		cmocka_unit_test(test_arithmetic),
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_dropped_jump_line),
		cmocka_unit_test(test_tail_call_kept),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
