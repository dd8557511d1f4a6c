// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --filter's classic BPF into eBPF: the code that goes into the region
 * ksnoop's BPF programs keep for it (include/ksnoop_cbpf.h), translated
 * once, when the expression is compiled, and checked by the verifier as
 * the program's own.  Apart from pfilter.c: libpcap's header names its
 * classic instruction struct bpf_insn, as linux/bpf.h names eBPF's.
 *
 * The code means what libpcap's bpf_filter() means: a load past the
 * captured bytes rejects, as does a division by X = 0; a shift by 32 or
 * more gives 0; A, X and the scratch words a program loads start at 0.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include "ks_error.h"
#include "pfilter.h"

_Static_assert(sizeof(struct bpf_insn) == sizeof(__u64), "an eBPF instruction is 8 bytes");

/*
 * The translation (include/ksnoop_cbpf.h's region): classic
 * BPF's A in r7, X in r8, the frame in r6; r0-r5 scratch (a helper call
 * clobbers them).  Each program's instructions in order, each jump
 * forward to the code of its target; both programs' returns, and every
 * rejection (a load past the captured bytes, a division by X = 0), leave
 * at the region's end with the verdict in w0.
 */
#define R_F	BPF_REG_6
#define R_A	BPF_REG_7
#define R_X	BPF_REG_8
#define FRAME(m)	((__s16)offsetof(struct ksnoop_cbpf_frame, m))

/* Where a jump goes, fixed once the code's length is known. */
enum to { TO_PC, TO_RAW, TO_REJECT, TO_END };

struct xlate {
	/* the code goes last in the region, after a jump over what it leaves */
	struct bpf_insn code[KSNOOP_CBPF_REGION - 1];
	__u32 n, cap;
	struct {
		__u32 at;
		__u8 to, link;
		__u16 pc;
	} fix[KSNOOP_CBPF_NR_LINKS * KSNOOP_CBPF_MAX_INSNS * 3 + 4];
	__u32 nfix;
	/* the first eBPF instruction of each classic one */
	__u32 start[KSNOOP_CBPF_NR_LINKS][KSNOOP_CBPF_MAX_INSNS];
	__u32 raw, reject;
};

static void emit(struct xlate *x, __u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	if (x->n < x->cap)
		x->code[x->n] = (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src,
						   .off = off, .imm = imm };
	x->n++;
}

/* A jump (CODE on DST and SRC or IMM) to TO, fixed later. */
static void emit_jump(struct xlate *x, __u8 code, __u8 dst, __u8 src, __s32 imm, enum to to,
		      int link, __u32 pc)
{
	x->fix[x->nfix].at = x->n;
	x->fix[x->nfix].to = to;
	x->fix[x->nfix].link = link;
	x->fix[x->nfix].pc = pc;
	x->nfix++;
	emit(x, code, dst, src, 0, imm);
}

static __u8 ldx_size(__u32 size)
{
	return size == 4 ? BPF_W : size == 2 ? BPF_H : BPF_B;
}

/* Network order to the host's: classic BPF's loads are big-endian. */
static void emit_swap(struct xlate *x, __u8 dst, __u32 size)
{
	if (size > 1)
		emit(x, BPF_ALU | BPF_END | BPF_TO_BE, dst, 0, 0, size * 8);
}

/* DST = SIZE bytes of the packet read at (r3 += ...) into tmp; a fault rejects. */
static void emit_read(struct xlate *x, __u8 dst, __u32 size)
{
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, R_F, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, FRAME(tmp));
	emit(x, BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, size);
	emit(x, BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_kernel);
	emit_jump(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, TO_REJECT, 0, 0);
	emit(x, BPF_LDX | BPF_MEM | ldx_size(size), dst, R_F, FRAME(tmp), 0);
}

/*
 * DST = SIZE bytes at K: past caplen rejects; inside the copy (every
 * constant offset the copy covers is copied when caplen has it: the BPF
 * side rejects a packet whose copy fails), else read from the packet.
 */
static void emit_load_abs(struct xlate *x, __u8 dst, __u32 size, __u32 k)
{
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_0, R_F, FRAME(caplen), 0);
	emit_jump(x, BPF_JMP | BPF_JLT | BPF_K, BPF_REG_0, 0, k + size, TO_REJECT, 0, 0);
	if (k + size <= KSNOOP_CBPF_COPY) {
		emit(x, BPF_LDX | BPF_MEM | ldx_size(size), dst, R_F, FRAME(pkt) + k, 0);
	} else {
		emit(x, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_3, R_F, FRAME(start), 0);
		emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, k);
		emit_read(x, dst, size);
	}
	emit_swap(x, dst, size);
}

/* DST = SIZE bytes at X + K: the copy holds what copied says. */
static void emit_load_ind(struct xlate *x, __u8 dst, __u32 size, __u32 k)
{
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, R_X, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, k);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_3, BPF_REG_2, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_3, 0, 0, size);
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, R_F, FRAME(caplen), 0);
	emit_jump(x, BPF_JMP | BPF_JGT | BPF_X, BPF_REG_3, BPF_REG_1, 0, TO_REJECT, 0, 0);
	emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, R_F, FRAME(copied), 0);
	/* past the copy: the read below, 5 instructions on */
	emit(x, BPF_JMP | BPF_JGT | BPF_X, BPF_REG_3, BPF_REG_1, 5, 0);
	emit(x, BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, KSNOOP_CBPF_COPY - 1);
	emit(x, BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, R_F, 0, 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_1, BPF_REG_2, 0, 0);
	emit(x, BPF_LDX | BPF_MEM | ldx_size(size), dst, BPF_REG_1, FRAME(pkt), 0);
	/* over the read: 8 instructions */
	emit(x, BPF_JMP | BPF_JA, 0, 0, 8, 0);
	emit(x, BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_3, R_F, FRAME(start), 0);
	emit(x, BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_3, BPF_REG_2, 0, 0);
	emit_read(x, dst, size);
	emit_swap(x, dst, size);
}

static void emit_ld(struct xlate *x, const struct ksnoop_cbpf_insn *in, __u8 dst)
{
	__u32 size = ksnoop_cbpf_size(in->code);

	switch (BPF_MODE(in->code)) {
	case BPF_IMM:
		emit(x, BPF_ALU | BPF_MOV | BPF_K, dst, 0, 0, (__s32)in->k);
		break;
	case BPF_MEM:
		emit(x, BPF_LDX | BPF_MEM | BPF_W, dst, R_F, FRAME(mem) + 4 * in->k, 0);
		break;
	case BPF_LEN:
		emit(x, BPF_LDX | BPF_MEM | BPF_W, dst, R_F, FRAME(wirelen), 0);
		break;
	case BPF_ABS:
		emit_load_abs(x, dst, size, in->k);
		break;
	case BPF_IND:
		emit_load_ind(x, dst, size, in->k);
		break;
	case BPF_MSH:	/* ldxb 4*([k]&0xf): an IPv4 header's length */
		emit_load_abs(x, dst, 1, in->k);
		emit(x, BPF_ALU | BPF_AND | BPF_K, dst, 0, 0, 0xf);
		emit(x, BPF_ALU | BPF_LSH | BPF_K, dst, 0, 0, 2);
		break;
	}
}

/* A op= K or X, 32 bits; a shift of 32 or more gives 0, as libpcap's bpf_filter(). */
static void emit_alu(struct xlate *x, const struct ksnoop_cbpf_insn *in)
{
	__u8 op = BPF_OP(in->code);
	bool shift = op == BPF_LSH || op == BPF_RSH;

	if (op == BPF_NEG) {
		emit(x, BPF_ALU | BPF_NEG, R_A, 0, 0, 0);
	} else if (BPF_SRC(in->code) == BPF_K) {
		if (shift && in->k >= 32)
			emit(x, BPF_ALU | BPF_MOV | BPF_K, R_A, 0, 0, 0);
		else
			emit(x, BPF_ALU | op | BPF_K, R_A, 0, 0, (__s32)in->k);
	} else if (shift) {
		emit(x, BPF_JMP32 | BPF_JLT | BPF_K, R_X, 0, 2, 32);
		emit(x, BPF_ALU | BPF_MOV | BPF_K, R_A, 0, 0, 0);
		emit(x, BPF_JMP | BPF_JA, 0, 0, 1, 0);
		emit(x, BPF_ALU | op | BPF_X, R_A, R_X, 0, 0);
	} else {
		if (op == BPF_DIV || op == BPF_MOD)
			emit_jump(x, BPF_JMP32 | BPF_JEQ | BPF_K, R_X, 0, 0, TO_REJECT, 0, 0);
		emit(x, BPF_ALU | op | BPF_X, R_A, R_X, 0, 0);
	}
}

/* The same test, false where it held (JSET has none). */
static __u8 jmp_inverse(__u8 op)
{
	return op == BPF_JEQ ? BPF_JNE : op == BPF_JGT ? BPF_JLE : op == BPF_JGE ? BPF_JLT : 0;
}

static void emit_jmp(struct xlate *x, const struct ksnoop_cbpf_insn *in, int link, __u32 pc)
{
	__u8 op = BPF_OP(in->code), code = BPF_JMP32 | BPF_SRC(in->code);
	__u8 src = BPF_SRC(in->code) == BPF_X ? R_X : 0;
	__s32 imm = (__s32)in->k;

	if (op == BPF_JA) {
		emit_jump(x, BPF_JMP | BPF_JA, 0, 0, 0, TO_PC, link, pc + 1 + in->k);
		return;
	}
	if (!in->jt && !in->jf)
		return;
	if (!in->jf) {
		emit_jump(x, code | op, R_A, src, imm, TO_PC, link, pc + 1 + in->jt);
	} else if (!in->jt && jmp_inverse(op)) {
		emit_jump(x, code | jmp_inverse(op), R_A, src, imm, TO_PC, link, pc + 1 + in->jf);
	} else {
		emit_jump(x, code | op, R_A, src, imm, TO_PC, link, pc + 1 + in->jt);
		emit_jump(x, BPF_JMP | BPF_JA, 0, 0, 0, TO_PC, link, pc + 1 + in->jf);
	}
}

static void emit_insn(struct xlate *x, const struct ksnoop_cbpf_insn *in, int link, __u32 pc)
{
	switch (BPF_CLASS(in->code)) {
	case BPF_LD:
		emit_ld(x, in, R_A);
		break;
	case BPF_LDX:
		emit_ld(x, in, R_X);
		break;
	case BPF_ST:
	case BPF_STX:
		emit(x, BPF_STX | BPF_MEM | BPF_W, R_F, BPF_CLASS(in->code) == BPF_ST ? R_A : R_X,
		     FRAME(mem) + 4 * in->k, 0);
		break;
	case BPF_ALU:
		emit_alu(x, in);
		break;
	case BPF_JMP:
		emit_jmp(x, in, link, pc);
		break;
	case BPF_RET:
		if (BPF_RVAL(in->code) == BPF_A)
			emit(x, BPF_ALU | BPF_MOV | BPF_X, BPF_REG_0, R_A, 0, 0);
		else
			emit(x, BPF_ALU | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, (__s32)in->k);
		emit_jump(x, BPF_JMP | BPF_JA, 0, 0, 0, TO_END, 0, 0);
		break;
	case BPF_MISC:
		if (BPF_MISCOP(in->code) == BPF_TAX)
			emit(x, BPF_ALU | BPF_MOV | BPF_X, R_X, R_A, 0, 0);
		else
			emit(x, BPF_ALU | BPF_MOV | BPF_X, R_A, R_X, 0, 0);
		break;
	}
}

/* One link type's program: A, X and the scratch words it loads start at 0. */
static void emit_program(struct xlate *x, const struct pfilter *f, int link)
{
	const struct ksnoop_cbpf_insn *insns = f->insns[link];
	__u16 zeroed = 0;
	__u32 pc;

	emit(x, BPF_ALU | BPF_MOV | BPF_K, R_A, 0, 0, 0);
	emit(x, BPF_ALU | BPF_MOV | BPF_K, R_X, 0, 0, 0);
	for (pc = 0; pc < f->ninsns[link]; pc++) {
		__u16 code = insns[pc].code;

		if ((code == (BPF_LD | BPF_MEM) || code == (BPF_LDX | BPF_W | BPF_MEM)) &&
		    !(zeroed & 1u << insns[pc].k)) {
			zeroed |= 1u << insns[pc].k;
			emit(x, BPF_ST | BPF_MEM | BPF_W, R_F, 0, FRAME(mem) + 4 * insns[pc].k, 0);
		}
	}
	for (pc = 0; pc < f->ninsns[link]; pc++) {
		x->start[link][pc] = x->n;
		emit_insn(x, &insns[pc], link, pc);
	}
}

int pfilter__translate(struct pfilter *f, struct ks_error *e)
{
	struct bpf_insn *region = (struct bpf_insn *)f->code;
	struct xlate *x = calloc(1, sizeof(*x));
	__u32 i, target, pad;

	if (!x)
		return ks_fail(e, -ENOMEM, "out of memory");
	x->cap = KSNOOP_CBPF_REGION - 1;
	if (f->ninsns[KSNOOP_CBPF_RAW]) {
		emit(x, BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, R_F, FRAME(link), 0);
		emit_jump(x, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_1, 0, 0, TO_RAW, 0, 0);
	}
	emit_program(x, f, KSNOOP_CBPF_ETHERNET);
	x->raw = x->n;
	if (f->ninsns[KSNOOP_CBPF_RAW])
		emit_program(x, f, KSNOOP_CBPF_RAW);
	x->reject = x->n;
	emit(x, BPF_ALU | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	emit_jump(x, BPF_JMP | BPF_JA, 0, 0, 0, TO_END, 0, 0);
	if (x->n > x->cap) {
		i = x->n;
		free(x);
		return ks_fail(e, -E2BIG, "it translates to %u eBPF instructions, more than the %d ksnoop has room for",
			       i, KSNOOP_CBPF_REGION - 1);
	}
	for (i = 0; i < x->nfix; i++) {
		switch (x->fix[i].to) {
		case TO_PC: target = x->start[x->fix[i].link][x->fix[i].pc]; break;
		case TO_RAW: target = x->raw; break;
		case TO_REJECT: target = x->reject; break;
		default: target = x->n; break;
		}
		x->code[x->fix[i].at].off = (__s16)(target - x->fix[i].at - 1);
	}
	/* jne r6, 0 (a frame pointer: never 0, so the verifier drops the pad), then the pad */
	pad = KSNOOP_CBPF_REGION - 1 - x->n;
	region[0] = (struct bpf_insn){ .code = BPF_JMP | BPF_JNE | BPF_K, .dst_reg = R_F,
					.off = (__s16)pad };
	for (i = 1; i <= pad; i++)
		region[i] = (struct bpf_insn){ .code = BPF_JMP | BPF_JA };
	memcpy(&region[1 + pad], x->code, x->n * sizeof(x->code[0]));
	f->code_len = x->n;
	free(x);
	return 0;
}
