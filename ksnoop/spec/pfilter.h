/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --filter EXPR: a pcap-filter expression compiled by libpcap into
 * classic BPF, once per link type a packet may have (Ethernet, raw IP),
 * and checked for what ksnoop's BPF side runs (include/ksnoop_cbpf.h).
 * Knows nothing of BTF, targets or libbpf: the resolver binds each target's
 * skb, the attacher loads the instructions.
 */
#ifndef KSNOOP_PFILTER_H
#define KSNOOP_PFILTER_H

#include <linux/types.h>
#include "ksnoop_cbpf.h"

struct ks_error;

struct pfilter {
	/* each link type's program (ninsns 0: libpcap could not compile it there) */
	struct ksnoop_cbpf_insn insns[KSNOOP_CBPF_NR_LINKS][KSNOOP_CBPF_MAX_INSNS];
	__u16 ninsns[KSNOOP_CBPF_NR_LINKS];
	/* each program's pfilter__need() */
	__u16 need[KSNOOP_CBPF_NR_LINKS];
	/*
	 * both programs in eBPF, as the region of KSNOOP_CBPF_REGION takes
	 * them: struct bpf_insn's bytes (libpcap's header names its classic
	 * instruction struct bpf_insn too)
	 */
	__u64 code[KSNOOP_CBPF_REGION];
	/* of which the translation proper (the rest: a jump over a pad) */
	__u32 code_len;
	/* why there is no raw-IP program ("ethernet addresses supported only on ..."): for -v */
	char raw_why[256];
};

/*
 * Compile EXPR for packets of at most SNAPLEN bytes into F.  Returns 0,
 * or -EINVAL with E saying what is wrong: libpcap's message, or what
 * pfilter__check() refuses.  Raw IP may have no program (an expression
 * about Ethernet addresses): such packets never pass.
 */
int pfilter__compile(const char *expr, __u32 snaplen, struct pfilter *f, struct ks_error *e);

/*
 * Is program INSNS (N instructions, as libpcap made it) one the BPF side
 * runs?  At most KSNOOP_CBPF_MAX_INSNS, every jump forward and inside it,
 * the last instruction a return, no ancillary loads (SKF_AD_*: a negative
 * offset), no constant load past SNAPLEN, scratch words below 16, no
 * division by a constant 0, only known instructions.  0 or -EINVAL.
 */
int pfilter__check(const struct ksnoop_cbpf_insn *insns, __u32 n, __u32 snaplen,
		   struct ks_error *e);

/*
 * Translate F's checked programs into eBPF, into F->code: the region's
 * instructions (include/ksnoop_cbpf.h's contract).  0, or -E2BIG with E
 * when they do not fit.
 */
int pfilter__translate(struct pfilter *f, struct ks_error *e);

/*
 * The packet's first bytes the BPF side copies once before it runs
 * program INSNS (N instructions, checked), at most KSNOOP_CBPF_COPY: one
 * past the furthest byte an absolute load reads, or an indexed one with
 * X up to 60 (an IPv4 header's length, as ldxb 4*([k]&0xf) sets it).  A
 * load past the copy still reads the packet itself: the copy saves
 * reads, it never changes a verdict.
 */
__u16 pfilter__need(const struct ksnoop_cbpf_insn *insns, __u32 n);

#endif
