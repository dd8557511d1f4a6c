/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --filter: a classic BPF program (libpcap's pcap_compile() output), the
 * frame its eBPF translation runs over, and the room the translation
 * takes in ksnoop's BPF programs.
 *
 * ksnoop's programs are compiled once, ahead of time; a filter is known
 * only at run time.  So bpf/filter.bpf.h holds a region of
 * KSNOOP_CBPF_REGION instructions (an ld_imm64 of KSNOOP_CBPF_MAGIC, then
 * "goto +0"s) where the filter's code goes: userspace translates both
 * link types' programs into eBPF (pfilter__translate(), ksnoop/spec/
 * pfilter.c) and writes it over every such region of the object's bytes
 * before libbpf opens them (ksnoop/attach/attach.c).  The verifier then
 * checks the filter as the program's own code, and the JIT compiles it:
 * no interpreter, no step per instruction.
 *
 * The region's contract, which both sides keep: on entry r6 points to a
 * struct ksnoop_cbpf_frame (a map value, filled by the BPF side); the code
 * uses r0-r8 and never r9 or the stack, and leaves at the region's end
 * (never by exit) with the verdict in w0, non-zero to accept.
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
 * users' longer filters stay under a hundred.  Both link types'
 * translations must also fit KSNOOP_CBPF_REGION together.
 */
#define KSNOOP_CBPF_MAX_INSNS	128
/*
 * The packet's first bytes the BPF side copies once, at most, so that
 * loads read a copy and not the packet (pfilter__need()): Ethernet, IPv6
 * and TCP headers with options fit.  A power of two (a mask bounds an
 * indexed load's offset for the verifier).
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

/* The bytes a packet load of CODE reads: 4, 2 or 1 (BPF_W, BPF_H, BPF_B). */
static inline __u32 ksnoop_cbpf_size(__u16 code)
{
	return BPF_SIZE(code) == BPF_W ? 4 : BPF_SIZE(code) == BPF_H ? 2 : 1;
}

/*
 * What the translated code reads and writes: the packet, as the BPF side
 * found it, and classic BPF's scratch words.  In a map value (the locals
 * frame), at offsets userspace's translation knows from this layout.
 */
struct ksnoop_cbpf_frame {
	__u64 start;		/* the packet's first byte, a kernel address */
	__u32 caplen;		/* bytes that loads may read */
	__u32 wirelen;		/* BPF_LEN: the packet's length */
	__u32 copied;		/* pkt[] holds the packet's first COPIED bytes */
	__u32 link;		/* which program: enum ksnoop_cbpf_link */
	__u32 mem[KSNOOP_CBPF_MEMWORDS];
	__u8 tmp[8];		/* a load past the copy reads the packet to here */
	/* 8 to spare: an indexed load's offset is masked to the copy's size */
	__u8 pkt[KSNOOP_CBPF_COPY + 8];
};

/*
 * The region's length in instructions, the marker ld_imm64 included, and
 * the marker's value ("ksnoop" and a version: a new layout of the frame
 * or of the contract above changes it).  Both programs of "udp port 5000"
 * take 182, of eight ports, icmp and arp 352: about 4 eBPF instructions a
 * classic one, so two programs of KSNOOP_CBPF_MAX_INSNS fit but for
 * hand-made ones of indexed loads only (refused).  Every copy of the
 * capture path carries the region (unused: dead code the verifier drops).
 */
#define KSNOOP_CBPF_REGION	2048
#define KSNOOP_CBPF_MAGIC	0x6b736e6f6f700001ULL

#endif /* KSNOOP_CBPF_H */
