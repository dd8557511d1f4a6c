// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: --filter's checker (pfilter__check() in
 * ksnoop/spec/pfilter.c) and its translation into eBPF (ksnoop/spec/
 * pfilter_ebpf.c), run as bpf/filter.bpf.h runs it (tests/include/
 * ebpf_eval.h: stricter than the verifier where the translation promises
 * more).
 *
 * First byte even: a classic BPF program and a packet, raw --
 *
 *   byte  1..2  snaplen (little-endian), bytes 3..4 wirelen,
 *   byte  5     the number of instructions N (up to 255: past the limit too),
 *   then N instructions of 8 bytes (code le16, jt, jf, k le32), the rest
 *   the captured packet (caplen: what is left, at most snaplen).
 *
 * A program the checker keeps must keep its promises: at most
 * KSNOOP_CBPF_MAX_INSNS, translated into the region's room, its code
 * only going forward to the region's end, every memory access inside the
 * frame, never reading outside the captured bytes (the packet is a heap
 * copy of exactly caplen bytes, for ASan, and the read hook traps past
 * it).  Where libpcap's own bpf_validate() also takes the program (and it
 * stores each scratch word before loading it: libpcap's are
 * uninitialized), libpcap's bpf_filter() must give the same verdict.
 *
 * First byte odd: the rest, up to a NUL, is a pcap-filter expression,
 * through pfilter__compile() (libpcap, the checker, the translation) at
 * snaplen 256; what it keeps is checked again and run over a zeroed
 * packet.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>
#include "ks_error.h"
#include "pfilter.h"
#include "../include/ebpf_eval.h"

#define check(cond) do { if (!(cond)) __builtin_trap(); } while (0)

#define FUZZ_EXPR_SNAPLEN	256
#define FUZZ_MAX_EXPR		512

struct packet {
	const unsigned char *b;
	__u32 caplen;
};

/* The read hook: inside the captured bytes, or a bug in the translation. */
static int packet_read(void *ctx, uint64_t addr, void *dst, uint32_t size)
{
	const struct packet *p = ctx;
	uint64_t lo = (uintptr_t)p->b;

	check(addr >= lo && addr + size <= lo + p->caplen);
	memcpy(dst, (const void *)(uintptr_t)addr, size);
	return 0;
}

/* bpf/filter.bpf.h's filter_run() over F's program for LINK: the verdict, 0 or 1. */
static int run(const struct pfilter *f, int link, const unsigned char *pkt, __u32 caplen,
	       __u32 wirelen)
{
	static struct ksnoop_cbpf_frame fr;
	struct packet p = { .b = pkt, .caplen = caplen };
	struct ebpf_eval ev = { .read = packet_read, .ctx = &p };
	__u32 verdict = 0;

	check(!ebpf_eval_filter(&ev, f, link, pkt, caplen, wirelen, &fr, &verdict));
	return verdict;
}

/*
 * Is every scratch word the program loads stored first on every path?
 * libpcap's bpf_filter() leaves M[] uninitialized (ours starts at 0), so
 * a load of a word never stored has no verdict to compare.  Jumps only go
 * forward (checked): one pass in order, each instruction's set the
 * intersection of what its predecessors stored.
 */
static bool scratch_stored_first(const struct ksnoop_cbpf_insn *insns, __u32 n)
{
	__u32 in[KSNOOP_CBPF_MAX_INSNS], out, i, code, k;
	bool reached[KSNOOP_CBPF_MAX_INSNS] = { true };

	in[0] = 0;
	for (i = 0; i < n; i++) {
		if (!reached[i])
			continue;
		code = insns[i].code;
		k = insns[i].k;
		if ((BPF_CLASS(code) == BPF_LD || BPF_CLASS(code) == BPF_LDX) &&
		    BPF_MODE(code) == BPF_MEM && !(in[i] & 1u << k))
			return false;
		out = in[i] | (BPF_CLASS(code) == BPF_ST || BPF_CLASS(code) == BPF_STX ? 1u << k : 0);
		if (BPF_CLASS(code) == BPF_RET)
			continue;
		if (BPF_CLASS(code) != BPF_JMP) {
			in[i + 1] = reached[i + 1] ? in[i + 1] & out : out;
			reached[i + 1] = true;
		} else if (BPF_OP(code) == BPF_JA) {
			in[i + 1 + k] = reached[i + 1 + k] ? in[i + 1 + k] & out : out;
			reached[i + 1 + k] = true;
		} else {
			in[i + 1 + insns[i].jt] = reached[i + 1 + insns[i].jt] ?
						  in[i + 1 + insns[i].jt] & out : out;
			reached[i + 1 + insns[i].jt] = true;
			in[i + 1 + insns[i].jf] = reached[i + 1 + insns[i].jf] ?
						  in[i + 1 + insns[i].jf] & out : out;
			reached[i + 1 + insns[i].jf] = true;
		}
	}
	return true;
}

/* Whether libpcap's bpf_filter() defines the program's result as ours does. */
static bool pcap_comparable(const struct ksnoop_cbpf_insn *insns, __u32 n)
{
	__u32 i;

	if (!scratch_stored_first(insns, n))
		return false;
	for (i = 0; i < n; i++) {
		/* a constant shift of 32 or more: undefined in C, in libpcap */
		if (BPF_CLASS(insns[i].code) == BPF_ALU && BPF_SRC(insns[i].code) == BPF_K &&
		    (BPF_OP(insns[i].code) == BPF_LSH || BPF_OP(insns[i].code) == BPF_RSH) &&
		    insns[i].k >= 32)
			return false;
	}
	return bpf_validate((const struct bpf_insn *)insns, (int)n);
}

static void fuzz_program(const uint8_t *data, size_t size)
{
	static struct pfilter f;
	struct ksnoop_cbpf_insn insns[255];
	struct ks_error e = {};
	__u32 snaplen, wirelen, caplen, n, i;
	unsigned char *pkt;
	int verdict;

	if (size < 6)
		return;
	snaplen = data[1] | data[2] << 8;
	wirelen = data[3] | data[4] << 8;
	n = data[5];
	data += 6;
	size -= 6;
	if (size < (size_t)n * 8)
		return;
	for (i = 0; i < n; i++, data += 8, size -= 8) {
		insns[i].code = data[0] | data[1] << 8;
		insns[i].jt = data[2];
		insns[i].jf = data[3];
		insns[i].k = data[4] | data[5] << 8 | data[6] << 16 | (__u32)data[7] << 24;
	}
	if (pfilter__check(insns, n, snaplen, &e)) {
		check(e.msg[0]);
		return;
	}
	check(n >= 1 && n <= KSNOOP_CBPF_MAX_INSNS);
	check(BPF_CLASS(insns[n - 1].code) == BPF_RET);
	caplen = size < snaplen ? size : snaplen;
	pkt = malloc(caplen ? caplen : 1);
	check(pkt);
	memcpy(pkt, data, caplen);
	memset(&f, 0, sizeof(f));
	memcpy(f.insns[KSNOOP_CBPF_ETHERNET], insns, n * sizeof(insns[0]));
	f.ninsns[KSNOOP_CBPF_ETHERNET] = n;
	f.need[KSNOOP_CBPF_ETHERNET] = pfilter__need(insns, n);
	check(!pfilter__translate(&f, &e));
	verdict = run(&f, KSNOOP_CBPF_ETHERNET, pkt, caplen, wirelen);
	check(verdict == 0 || verdict == 1);
	if (pcap_comparable(insns, n))
		check(verdict == !!bpf_filter((const struct bpf_insn *)insns, pkt, wirelen, caplen));
	free(pkt);
}

static void fuzz_expr(const uint8_t *data, size_t size)
{
	static const unsigned char zeros[FUZZ_EXPR_SNAPLEN];
	static struct pfilter f;
	char expr[FUZZ_MAX_EXPR + 1];
	struct ks_error e = {};
	int link;

	if (size > FUZZ_MAX_EXPR)
		size = FUZZ_MAX_EXPR;
	memcpy(expr, data, size);
	expr[size] = '\0';
	memset(&f, 0, sizeof(f));
	if (pfilter__compile(expr, FUZZ_EXPR_SNAPLEN, &f, &e)) {
		check(e.msg[0]);
		return;
	}
	check(f.ninsns[KSNOOP_CBPF_ETHERNET] || f.ninsns[KSNOOP_CBPF_RAW]);
	for (link = 0; link < KSNOOP_CBPF_NR_LINKS; link++) {
		if (!f.ninsns[link])
			continue;
		check(!pfilter__check(f.insns[link], f.ninsns[link], FUZZ_EXPR_SNAPLEN, &e));
		check(run(&f, link, zeros, sizeof(zeros), 60) >= 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] & 1)
		fuzz_expr(data + 1, size - 1);
	else
		fuzz_program(data, size);
	return 0;
}
