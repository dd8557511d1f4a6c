/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --filter: a classic BPF program (libpcap's pcap_compile() output) and
 * one step of its interpreter, shared by the BPF side (bpf/filter.bpf.h:
 * one bpf_loop() step per instruction) and userspace's tests, which run
 * the same steps against libpcap's own pcap_offline_filter().
 *
 * Why an interpreter and not a translation into eBPF: ksnoop's programs
 * are compiled once, ahead of time, and specialised by their .rodata; a
 * filter is known only at run time.  bpf_loop() keeps the verifier's work
 * to one pass over the step, whatever the program's length, on 6.1 too.
 *
 * The programs it runs were checked by userspace first (ksnoop/spec/
 * pfilter.c): every jump forward and inside the program, the last
 * instruction a return, no ancillary loads, scratch words below 16.  The
 * step does not trust that: a load past the captured bytes, a division by
 * zero or an unknown instruction rejects the packet, as the kernel's
 * classic BPF does.
 *
 * The types are for everyone; the step only for an includer that
 * defines, before including this header, KSNOOP_CBPF_READ(r, off, dst,
 * size): copy SIZE (a constant: 1, 2 or 4) bytes of run R's packet at OFF
 * (checked to lie within caplen) to DST, 0 or non-zero on a fault.
 */
#ifndef KSNOOP_CBPF_H
#define KSNOOP_CBPF_H

#include <linux/types.h>
#include <linux/bpf_common.h>

/* The opcodes of classic BPF that bpf_common.h leaves to linux/filter.h. */
#ifndef BPF_RVAL
#define BPF_RVAL(code)	((code) & 0x18)
#endif
#ifndef BPF_A
#define BPF_A		0x10
#endif
#ifndef BPF_MISCOP
#define BPF_MISCOP(code) ((code) & 0xf8)
#endif
#ifndef BPF_TAX
#define BPF_TAX		0x00
#endif
#ifndef BPF_TXA
#define BPF_TXA		0x80
#endif

/*
 * Instructions of one link type's program, at most: "udp port 5000" is
 * 20 on Ethernet, "host 10.0.0.1 and tcp port 443" 34; pwru and tcpdump
 * users' longer filters stay under a hundred.  The table of both link
 * types is a map of 2 * 128 instructions (2 KiB), created only with
 * --filter.
 */
#define KSNOOP_CBPF_MAX_INSNS	128
/*
 * The packet's first bytes the BPF side copies once, at most, so that
 * loads read a copy and not the packet, one read each (pfilter__need()):
 * Ethernet, IPv6 and TCP headers with options fit.  A power of two.
 */
#define KSNOOP_CBPF_COPY	128
/* An indexed load's X, as libpcap's ldxb 4*([k]&0xf) sets it: at most 60. */
#define KSNOOP_CBPF_MSH_MAX	60
/* classic BPF's scratch memory: M[0] to M[15] */
#define KSNOOP_CBPF_MEMWORDS	16

/* Which of a filter's two programs a packet runs. */
enum ksnoop_cbpf_link {
	KSNOOP_CBPF_ETHERNET = 0,	/* a MAC header of an Ethernet device: from it */
	KSNOOP_CBPF_RAW = 1,		/* otherwise: raw IP, from the network header */
	KSNOOP_CBPF_NR_LINKS = 2,
};

/* One instruction, as struct sock_filter / struct bpf_insn (libpcap). */
struct ksnoop_cbpf_insn {
	__u16 code;
	__u8 jt;
	__u8 jf;
	__u32 k;
};

/* One run: the packet, the machine's registers, where it is. */
struct ksnoop_cbpf_run {
	__u64 start;		/* the packet's first byte (an address, or a buffer) */
	__u32 caplen;		/* bytes that loads may read */
	__u32 wirelen;		/* BPF_LEN: the packet's length */
	__u32 a;
	__u32 x;
	__u32 mem[KSNOOP_CBPF_MEMWORDS];
	__u32 pc;
	__u32 verdict;		/* after a return: 1 accept, 0 reject */
};

/* ksnoop_cbpf_step(): go on, or stop (r->verdict says). */
enum { KSNOOP_CBPF_NEXT = 0, KSNOOP_CBPF_STOP = 1 };

#endif /* KSNOOP_CBPF_H */

#if defined(KSNOOP_CBPF_READ) && !defined(KSNOOP_CBPF_STEP_H)
#define KSNOOP_CBPF_STEP_H

/*
 * Every part of the step inlined into the one bpf_loop() callback: a
 * function of its own would be a frame more on the verifier's call chain
 * (the capture program's 480 bytes, the callback's 32, and 32 more: "combined
 * stack size of 3 calls is 544", 6.1).
 */
#define KSNOOP_CBPF_INLINE static inline __attribute__((always_inline))

KSNOOP_CBPF_INLINE int ksnoop_cbpf_reject(struct ksnoop_cbpf_run *r)
{
	r->verdict = 0;
	return KSNOOP_CBPF_STOP;
}

/* A big-endian load of SIZE (1, 2, 4) bytes at OFF: false past caplen or on a fault. */
KSNOOP_CBPF_INLINE int ksnoop_cbpf_load(const struct ksnoop_cbpf_run *r, __u32 off, __u32 size,
				   __u32 *val)
{
	__u8 b[4] = {};
	int err;

	if (off >= r->caplen || size > r->caplen - off)
		return 0;
	if (size == 4)
		err = KSNOOP_CBPF_READ(r, off, b, 4);
	else if (size == 2)
		err = KSNOOP_CBPF_READ(r, off, b, 2);
	else
		err = KSNOOP_CBPF_READ(r, off, b, 1);
	if (err)
		return 0;
	if (size == 4)
		*val = (__u32)b[0] << 24 | (__u32)b[1] << 16 | (__u32)b[2] << 8 | b[3];
	else if (size == 2)
		*val = (__u32)b[0] << 8 | b[1];
	else
		*val = b[0];
	return 1;
}

KSNOOP_CBPF_INLINE __u32 ksnoop_cbpf_size(__u16 code)
{
	return BPF_SIZE(code) == BPF_W ? 4 : BPF_SIZE(code) == BPF_H ? 2 : 1;
}

/* BPF_LD and BPF_LDX: into *DST; false rejects the packet. */
KSNOOP_CBPF_INLINE int ksnoop_cbpf_ld(struct ksnoop_cbpf_run *r, __u16 code, __u32 k, __u32 *dst)
{
	__u32 off = k, b;

	switch (BPF_MODE(code)) {
	case BPF_IMM:
		*dst = k;
		return 1;
	case BPF_MEM:
		*dst = r->mem[k & (KSNOOP_CBPF_MEMWORDS - 1)];
		return 1;
	case BPF_LEN:
		*dst = r->wirelen;
		return 1;
	case BPF_IND:
		if (k > 0xffffffffu - r->x)
			return 0;
		off = r->x + k;
		/* fall through */
	case BPF_ABS:
		return ksnoop_cbpf_load(r, off, ksnoop_cbpf_size(code), dst);
	case BPF_MSH:	/* ldxb 4*([k]&0xf): an IPv4 header's length */
		if (!ksnoop_cbpf_load(r, k, 1, &b))
			return 0;
		*dst = (b & 0xf) << 2;
		return 1;
	}
	return 0;
}

/* BPF_ALU on A; false rejects (a division by zero, an unknown operation). */
KSNOOP_CBPF_INLINE int ksnoop_cbpf_alu(struct ksnoop_cbpf_run *r, __u16 code, __u32 k)
{
	__u32 v = BPF_SRC(code) == BPF_X ? r->x : k;

	switch (BPF_OP(code)) {
	case BPF_ADD: r->a += v; return 1;
	case BPF_SUB: r->a -= v; return 1;
	case BPF_MUL: r->a *= v; return 1;
	case BPF_OR: r->a |= v; return 1;
	case BPF_AND: r->a &= v; return 1;
	case BPF_XOR: r->a ^= v; return 1;
	case BPF_NEG: r->a = -r->a; return 1;
	/* A shift of 32 or more: 0, as libpcap's bpf_filter() has it. */
	case BPF_LSH: r->a = v < 32 ? r->a << v : 0; return 1;
	case BPF_RSH: r->a = v < 32 ? r->a >> v : 0; return 1;
	case BPF_DIV:
		if (!v)
			return 0;
		r->a /= v;
		return 1;
	case BPF_MOD:
		if (!v)
			return 0;
		r->a %= v;
		return 1;
	}
	return 0;
}

/* BPF_JMP: the offset from the next instruction. */
KSNOOP_CBPF_INLINE __u32 ksnoop_cbpf_jmp(const struct ksnoop_cbpf_run *r, __u16 code, __u8 jt,
				    __u8 jf, __u32 k)
{
	__u32 v = BPF_SRC(code) == BPF_X ? r->x : k;

	switch (BPF_OP(code)) {
	case BPF_JA: return k;
	case BPF_JEQ: return r->a == v ? jt : jf;
	case BPF_JGT: return r->a > v ? jt : jf;
	case BPF_JGE: return r->a >= v ? jt : jf;
	case BPF_JSET: return r->a & v ? jt : jf;
	}
	return 0xffffffffu;	/* past any program: the caller stops */
}

/* Run instruction IN (the one at r->pc); STOP: r->verdict is the answer. */
KSNOOP_CBPF_INLINE int ksnoop_cbpf_step(struct ksnoop_cbpf_run *r, __u16 code, __u8 jt, __u8 jf,
				   __u32 k)
{
	__u32 next = r->pc + 1;

	switch (BPF_CLASS(code)) {
	case BPF_LD:
		if (!ksnoop_cbpf_ld(r, code, k, &r->a))
			return ksnoop_cbpf_reject(r);
		break;
	case BPF_LDX:
		if (!ksnoop_cbpf_ld(r, code, k, &r->x))
			return ksnoop_cbpf_reject(r);
		break;
	case BPF_ST:
		r->mem[k & (KSNOOP_CBPF_MEMWORDS - 1)] = r->a;
		break;
	case BPF_STX:
		r->mem[k & (KSNOOP_CBPF_MEMWORDS - 1)] = r->x;
		break;
	case BPF_ALU:
		if (!ksnoop_cbpf_alu(r, code, k))
			return ksnoop_cbpf_reject(r);
		break;
	case BPF_JMP: {
		__u32 off = ksnoop_cbpf_jmp(r, code, jt, jf, k);

		/* Only forward, inside the program: the caller bounds pc. */
		if (off > KSNOOP_CBPF_MAX_INSNS)
			return ksnoop_cbpf_reject(r);
		next += off;
		break;
	}
	case BPF_RET:
		r->verdict = (BPF_RVAL(code) == BPF_A ? r->a : k) != 0;
		return KSNOOP_CBPF_STOP;
	case BPF_MISC:
		if (BPF_MISCOP(code) == BPF_TAX)
			r->x = r->a;
		else if (BPF_MISCOP(code) == BPF_TXA)
			r->a = r->x;
		else
			return ksnoop_cbpf_reject(r);
		break;
	default:
		return ksnoop_cbpf_reject(r);
	}
	r->pc = next;
	return KSNOOP_CBPF_NEXT;
}

#endif /* KSNOOP_CBPF_READ */
