/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The instructions --filter's translation emits (ksnoop/spec/
 * pfilter_ebpf.c), run in userspace the way the kernel runs them, for
 * the unit test and the fuzzer: the region from its first instruction to
 * its end, r6 pointing to the frame (include/ksnoop_cbpf.h).  Stricter
 * than the verifier where the translation promises more: every memory
 * access inside the frame, every jump forward and inside the region, no
 * instruction outside the subset, r9 and the stack untouched.  A helper
 * call is bpf_probe_read_kernel() only, from the packet through READ.
 * Without linux/bpf.h: its struct bpf_insn is libpcap's name for a
 * classic instruction too.
 */
#ifndef KSNOOP_TESTS_EBPF_EVAL_H
#define KSNOOP_TESTS_EBPF_EVAL_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/bpf_common.h>
#include "pfilter.h"

/* eBPF's opcodes and ABI numbers beyond classic BPF's (linux/bpf.h) */
#define EBPF_ALU64	0x07
#define EBPF_JMP32	0x06
#define EBPF_DW		0x18
#define EBPF_MOV	0xb0
#define EBPF_END	0xd0
#define EBPF_TO_BE	0x08
#define EBPF_JNE	0x50
#define EBPF_JLT	0xa0
#define EBPF_JLE	0xb0
#define EBPF_CALL	0x80
#define EBPF_EXIT	0x90
#define EBPF_FUNC_probe_read_kernel	113

/* struct bpf_insn, little-endian: dst_reg in the low nibble of regs */
struct ebpf_insn {
	uint8_t code;
	uint8_t regs;
	int16_t off;
	int32_t imm;
};
#define EBPF_DST(in)	((in)->regs & 0xf)
#define EBPF_SRC(in)	((in)->regs >> 4)

struct ebpf_eval {
	const struct ebpf_insn *insns;	/* the region: N instructions */
	uint32_t n;
	unsigned char *frame;
	size_t frame_size;
	/* the packet's SIZE bytes at ADDR into DST: 0, or non-zero for a fault */
	int (*read)(void *ctx, uint64_t addr, void *dst, uint32_t size);
	void *ctx;
	const char *why;	/* after -1: what broke the promise */
	uint32_t pc;		/* ... and where */
};

static inline int ebpf_eval_bad(struct ebpf_eval *ev, uint32_t pc, const char *why)
{
	ev->why = why;
	ev->pc = pc;
	return -1;
}

/* ADDR .. ADDR + SIZE inside the frame? */
static inline void *ebpf_eval_mem(struct ebpf_eval *ev, uint64_t addr, uint32_t size)
{
	uint64_t lo = (uintptr_t)ev->frame;

	if (addr < lo || addr + size > lo + ev->frame_size || addr + size < addr)
		return NULL;
	return (void *)(uintptr_t)addr;
}

static inline uint32_t ebpf_eval_size(uint8_t code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B: return 1;
	case BPF_H: return 2;
	case BPF_W: return 4;
	default: return 8;
	}
}

static inline int ebpf_eval_jmp(uint8_t op, uint64_t a, uint64_t b, int *taken)
{
	switch (op) {
	case BPF_JEQ: *taken = a == b; return 0;
	case EBPF_JNE: *taken = a != b; return 0;
	case BPF_JGT: *taken = a > b; return 0;
	case BPF_JGE: *taken = a >= b; return 0;
	case EBPF_JLT: *taken = a < b; return 0;
	case EBPF_JLE: *taken = a <= b; return 0;
	case BPF_JSET: *taken = (a & b) != 0; return 0;
	}
	return -1;
}

/* 32-bit ALU operation OP of A and B, as the kernel's interpreter does it. */
static inline int ebpf_eval_alu32(uint8_t op, uint32_t a, uint32_t b, uint32_t *res)
{
	switch (op) {
	case EBPF_MOV: *res = b; return 0;
	case BPF_ADD: *res = a + b; return 0;
	case BPF_SUB: *res = a - b; return 0;
	case BPF_MUL: *res = a * b; return 0;
	case BPF_DIV: *res = b ? a / b : 0; return 0;
	case BPF_MOD: *res = b ? a % b : a; return 0;
	case BPF_OR: *res = a | b; return 0;
	case BPF_AND: *res = a & b; return 0;
	case BPF_XOR: *res = a ^ b; return 0;
	case BPF_LSH: *res = a << (b & 31); return 0;
	case BPF_RSH: *res = a >> (b & 31); return 0;
	case BPF_NEG: *res = -a; return 0;
	}
	return -1;
}

/* Run the region: 0 with w0 in *VERDICT, or -1 (ev->why says). */
static inline int ebpf_eval_run(struct ebpf_eval *ev, uint32_t *verdict)
{
	uint64_t r[11] = { 0 };
	uint32_t pc = 0, res;
	const uint64_t r9 = 0x9999999999999999ULL;

	r[6] = (uintptr_t)ev->frame;
	r[9] = r9;
	r[10] = 0xfefefefefefefefeULL;
	while (pc < ev->n) {
		const struct ebpf_insn *in = &ev->insns[pc];
		uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		uint64_t src = BPF_SRC(in->code) == BPF_X ? r[EBPF_SRC(in)] : (uint64_t)(int64_t)in->imm;
		int taken = 0;
		void *m;

		if (EBPF_DST(in) > 9 || EBPF_SRC(in) > 9)
			return ebpf_eval_bad(ev, pc, "a register past r9 (the stack)");
		switch (cls) {
		case EBPF_ALU64:
			if (op == EBPF_MOV)
				r[EBPF_DST(in)] = src;
			else if (op == BPF_ADD)
				r[EBPF_DST(in)] += src;
			else if (op == BPF_AND)
				r[EBPF_DST(in)] &= src;
			else
				return ebpf_eval_bad(ev, pc, "a 64-bit operation outside the subset");
			break;
		case BPF_ALU:
			if (op == EBPF_END) {
				if (BPF_SRC(in->code) != EBPF_TO_BE)
					return ebpf_eval_bad(ev, pc, "a swap to little-endian");
				if (in->imm == 16)
					r[EBPF_DST(in)] = htobe16((uint16_t)r[EBPF_DST(in)]);
				else if (in->imm == 32)
					r[EBPF_DST(in)] = htobe32((uint32_t)r[EBPF_DST(in)]);
				else
					return ebpf_eval_bad(ev, pc, "a swap of other than 16 or 32 bits");
				break;
			}
			if (ebpf_eval_alu32(op, (uint32_t)r[EBPF_DST(in)], (uint32_t)src, &res))
				return ebpf_eval_bad(ev, pc, "a 32-bit operation outside the subset");
			r[EBPF_DST(in)] = res;
			break;
		case BPF_LDX:
			if (BPF_MODE(in->code) != BPF_MEM)
				return ebpf_eval_bad(ev, pc, "a load of another mode");
			m = ebpf_eval_mem(ev, r[EBPF_SRC(in)] + in->off, ebpf_eval_size(in->code));
			if (!m)
				return ebpf_eval_bad(ev, pc, "a load outside the frame");
			r[EBPF_DST(in)] = 0;
			memcpy(&r[EBPF_DST(in)], m, ebpf_eval_size(in->code));	/* little-endian */
			break;
		case BPF_ST:
		case BPF_STX:
			if (BPF_MODE(in->code) != BPF_MEM || BPF_SIZE(in->code) != BPF_W)
				return ebpf_eval_bad(ev, pc, "a store other than a word");
			m = ebpf_eval_mem(ev, r[EBPF_DST(in)] + in->off, 4);
			if (!m)
				return ebpf_eval_bad(ev, pc, "a store outside the frame");
			res = cls == BPF_ST ? (uint32_t)in->imm : (uint32_t)r[EBPF_SRC(in)];
			memcpy(m, &res, 4);
			break;
		case BPF_JMP:
		case EBPF_JMP32:
			if (cls == BPF_JMP && op == EBPF_CALL) {
				if (in->imm != EBPF_FUNC_probe_read_kernel)
					return ebpf_eval_bad(ev, pc, "a call of another helper");
				m = ebpf_eval_mem(ev, r[1], (uint32_t)r[2]);
				if (!m || r[2] > 8)
					return ebpf_eval_bad(ev, pc, "a read into outside the frame");
				r[0] = ev->read(ev->ctx, r[3], m, (uint32_t)r[2]) ? (uint64_t)-14 : 0;
				r[1] = r[2] = r[3] = r[4] = r[5] = 0xdeadULL;
				break;
			}
			if (op == EBPF_EXIT || op == EBPF_CALL)
				return ebpf_eval_bad(ev, pc, "an exit or a call inside the region");
			if (op == BPF_JA)
				taken = 1;
			else if (cls == EBPF_JMP32 ?
				 ebpf_eval_jmp(op, (uint32_t)r[EBPF_DST(in)], (uint32_t)src, &taken) :
				 ebpf_eval_jmp(op, r[EBPF_DST(in)], src, &taken))
				return ebpf_eval_bad(ev, pc, "a jump outside the subset");
			if (in->off < 0)
				return ebpf_eval_bad(ev, pc, "a jump backward");
			if (taken) {
				if ((uint64_t)pc + 1 + in->off > ev->n)
					return ebpf_eval_bad(ev, pc, "a jump past the region's end");
				pc += in->off;
			}
			break;
		default:
			return ebpf_eval_bad(ev, pc, "an instruction outside the subset");
		}
		if (r[9] != r9)
			return ebpf_eval_bad(ev, pc, "r9 written");
		pc++;
	}
	*verdict = (uint32_t)r[0];
	return 0;
}

/*
 * bpf/filter.bpf.h's filter_run() over F's program for LINK, on PKT
 * (CAPLEN bytes captured of WIRELEN): FR filled as it fills it (over
 * 0xa5s, what ran before), then the region, through EV (its read and ctx
 * set by the caller).  0 with the verdict, 0 or 1, or -1 (ev->why).
 */
static inline int ebpf_eval_filter(struct ebpf_eval *ev, const struct pfilter *f, int link,
				   const unsigned char *pkt, uint32_t caplen, uint32_t wirelen,
				   struct ksnoop_cbpf_frame *fr, uint32_t *verdict)
{
	*verdict = 0;
	if (!f->ninsns[link])
		return 0;	/* no program for the link: nothing passes */
	memset(fr, 0xa5, sizeof(*fr));
	fr->start = (uintptr_t)pkt;
	fr->caplen = caplen;
	fr->wirelen = wirelen;
	fr->link = link;
	fr->copied = caplen < f->need[link] ? caplen : f->need[link];
	memcpy(fr->pkt, pkt, fr->copied);
	ev->insns = (const struct ebpf_insn *)f->code;
	ev->n = KSNOOP_CBPF_REGION;
	ev->frame = (unsigned char *)fr;
	ev->frame_size = sizeof(*fr);
	if (ebpf_eval_run(ev, verdict))
		return -1;
	*verdict = *verdict != 0;
	return 0;
}

#endif
