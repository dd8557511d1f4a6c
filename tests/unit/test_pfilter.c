// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for --filter (ksnoop/spec/pfilter.c, and the translation
 * into eBPF in ksnoop/spec/pfilter_ebpf.c that the BPF side runs):
 * libpcap itself is the oracle.  For each expression and each packet
 * (Ethernet and raw IP; IPv4 and IPv6; UDP, TCP, ICMP, ARP, a fragment;
 * captured whole or cut short), the eBPF pfilter__compile() makes, run
 * over a frame filled as bpf/filter.bpf.h fills it (tests/include/
 * ebpf_eval.h), must give libpcap's pcap_offline_filter() verdict for the
 * same packet.  Then what is refused, with its message.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <pcap/pcap.h>
#include "ks_error.h"
#include "pfilter.h"

#include "ksnoop_cbpf.h"
#include "../include/ebpf_eval.h"

#define SNAPLEN 256

/* The packet the code reads past the copy: only ever inside caplen. */
struct packet {
	const unsigned char *b;
	__u32 caplen;
	int reads;
};

static int packet_read(void *ctx, uint64_t addr, void *dst, uint32_t size)
{
	struct packet *p = ctx;
	uint64_t lo = (uintptr_t)p->b;

	if (addr < lo || addr + size > lo + p->caplen)
		fail_msg("a read of %u bytes at %lld, outside the %u captured", size,
			 (long long)(addr - lo), p->caplen);
	memcpy(dst, (const void *)(uintptr_t)addr, size);
	p->reads++;
	return 0;
}

/* The BPF side's filter_run(), over a buffer; *READS: the reads past the copy. */
static int run_reads(const struct pfilter *f, int link, const unsigned char *pkt, __u32 caplen,
		     __u32 wirelen, int *reads)
{
	struct ksnoop_cbpf_frame *fr = calloc(1, sizeof(*fr));
	struct packet p = { .b = pkt, .caplen = caplen };
	struct ebpf_eval ev = { .read = packet_read, .ctx = &p };
	__u32 verdict = 0;

	assert_non_null(fr);
	if (ebpf_eval_filter(&ev, f, link, pkt, caplen, wirelen, fr, &verdict))
		fail_msg("the eBPF broke a promise at %u: %s", ev.pc, ev.why);
	free(fr);
	if (reads)
		*reads = p.reads;
	return verdict;
}

static int run(const struct pfilter *f, int link, const unsigned char *pkt, __u32 caplen,
	       __u32 wirelen)
{
	return run_reads(f, link, pkt, caplen, wirelen, NULL);
}

/* libpcap's verdict, compiled by itself for DLT. */
static int oracle(const char *expr, int dlt, const unsigned char *pkt, __u32 caplen,
		  __u32 wirelen)
{
	pcap_t *p = pcap_open_dead(dlt, SNAPLEN);
	struct bpf_program prog;
	struct pcap_pkthdr h = { .caplen = caplen, .len = wirelen };
	int v;

	assert_non_null(p);
	if (pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN)) {
		pcap_close(p);
		return -1;
	}
	v = pcap_offline_filter(&prog, &h, pkt) != 0;
	pcap_freecode(&prog);
	pcap_close(p);
	return v;
}

struct pkt {
	const char *name;
	unsigned char b[128];
	__u32 len;
};

static void put16(unsigned char *p, __u16 v) { p[0] = v >> 8; p[1] = v; }

/* An IPv4 header at P (20 bytes, no options unless IHL says), protocol PROTO. */
static __u32 ipv4(unsigned char *p, __u8 proto, const __u8 src[4], const __u8 dst[4],
		  __u16 total, __u16 frag)
{
	p[0] = 0x45;
	put16(p + 2, total);
	put16(p + 6, frag);
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
	return 20;
}

static __u32 ipv6(unsigned char *p, __u8 next, __u16 payload, __u8 last)
{
	p[0] = 0x60;
	put16(p + 4, payload);
	p[6] = next;
	p[7] = 64;
	p[8] = 0xfd;
	p[23] = 1;
	p[24] = 0xfd;
	p[39] = last;
	return 40;
}

static __u32 ports(unsigned char *p, __u16 sport, __u16 dport, __u8 flags)
{
	put16(p, sport);
	put16(p + 2, dport);
	p[13] = flags;	/* TCP's flags (UDP: the checksum's byte) */
	p[12] = 0x50;
	return 20;
}

static const __u8 A[4] = { 10, 0, 0, 1 }, B[4] = { 10, 0, 0, 2 }, C[4] = { 192, 168, 7, 9 };

/* The packets, from the network header on (raw IP); Ethernet puts a header in front. */
static int make_packets(struct pkt *v)
{
	int n = 0;
	__u32 l;

#define NEXT(nm) (memset(&v[n], 0, sizeof(v[n])), v[n].name = (nm), v[n].b)
	l = ipv4(NEXT("udp 10.0.0.1:4000 > 10.0.0.2:5000"), 17, A, B, 60, 0);
	v[n].len = l + ports(v[n].b + l, 4000, 5000, 0) + 20;
	n++;
	l = ipv4(NEXT("udp 10.0.0.1:4000 > 10.0.0.2:5001"), 17, A, B, 60, 0);
	v[n].len = l + ports(v[n].b + l, 4000, 5001, 0) + 20;
	n++;
	l = ipv4(NEXT("udp 10.0.0.2:5000 > 192.168.7.9:53"), 17, B, C, 60, 0);
	v[n].len = l + ports(v[n].b + l, 5000, 53, 0) + 20;
	n++;
	l = ipv4(NEXT("tcp syn 10.0.0.1:33000 > 10.0.0.2:443"), 6, A, B, 60, 0);
	v[n].len = l + ports(v[n].b + l, 33000, 443, 0x02) + 20;
	n++;
	l = ipv4(NEXT("tcp ack 192.168.7.9:80 > 10.0.0.1:33000"), 6, C, A, 60, 0);
	v[n].len = l + ports(v[n].b + l, 80, 33000, 0x10) + 20;
	n++;
	l = ipv4(NEXT("icmp echo 10.0.0.1 > 10.0.0.2"), 1, A, B, 84, 0);
	v[n].b[l] = 8;
	v[n].len = 84;
	n++;
	l = ipv4(NEXT("udp fragment, offset 8"), 17, A, B, 60, 1);
	v[n].len = l + ports(v[n].b + l, 4000, 5000, 0) + 20;
	n++;
	/* IPv4 with 8 bytes of options: ports at 28 */
	l = ipv4(NEXT("udp with IP options to 5000"), 17, A, B, 68, 0);
	v[n].b[0] = 0x47;
	v[n].len = 28 + ports(v[n].b + 28, 4000, 5000, 0) + 20;
	n++;
	l = ipv6(NEXT("ip6 udp to 5000"), 17, 40, 2);
	v[n].len = l + ports(v[n].b + l, 4000, 5000, 0) + 20;
	n++;
	l = ipv6(NEXT("ip6 tcp to 22"), 6, 40, 2);
	v[n].len = l + ports(v[n].b + l, 40000, 22, 0x02) + 20;
	n++;
	l = ipv4(NEXT("udp to 5000, cut after the IP header"), 17, A, B, 60, 0);
	ports(v[n].b + l, 4000, 5000, 0);
	v[n].len = 22;
	n++;
#undef NEXT
	return n;
}

static __u32 ether(unsigned char *dst, const struct pkt *p, __u16 type)
{
	static const __u8 mac_dst[6] = { 0x02, 0, 0, 0, 0, 2 }, mac_src[6] = { 0x02, 0, 0, 0, 0, 1 };

	memcpy(dst, mac_dst, 6);
	memcpy(dst + 6, mac_src, 6);
	put16(dst + 12, type);
	memcpy(dst + 14, p->b, p->len);
	return 14 + p->len;
}

static const char *const exprs[] = {
	"udp port 5000", "udp dst port 5000", "udp and not port 5000", "tcp port 443",
	"tcp[tcpflags] & tcp-syn != 0", "host 10.0.0.1", "src host 10.0.0.1 and dst port 5000",
	"host 10.0.0.1 and tcp port 443", "net 192.168.0.0/16", "icmp", "icmp[icmptype] = 8",
	"ip6", "ip6 and tcp port 22", "udp[2:2] = 5000", "ip[9] = 17 and ip[6:2] & 0x1fff = 0",
	"portrange 4990-5000", "len > 80", "less 70", "greater 60", "proto 17", "ether proto 0x0806",
	"ether src 02:00:00:00:00:01", "ip", "not ip6", "udp[8] = 0", "ip[0] & 0xf > 5",
	"(tcp or udp) and (port 53 or port 443)", "ip[2:2] / 4 = 15", "ip[2:2] % 7 = 4",
	"ip[2:2] * 2 - 100 = 20", "ip[2:2] >> 2 = 15", "ip[8] << 1 = 128", "ip[8] ^ 0xff = 191",
	"ip[8] | 1 = 65", "udp[0:2] - udp[2:2] != 0",
};

/* Every expression, every packet, both links, whole and cut: libpcap's verdict. */
static void same_verdicts_as_libpcap(void **state)
{
	struct pkt v[16];
	unsigned char frame[256];
	struct pfilter *f = calloc(1, sizeof(*f));
	struct ks_error e = {};
	int np = make_packets(v), i, j, checked = 0, passed = 0;
	__u32 cuts[] = { 0, 14, 20, 34, 38, 42 }, c;

	assert_non_null(f);
	for (i = 0; i < (int)(sizeof(exprs) / sizeof(exprs[0])); i++) {
		assert_int_equal(pfilter__compile(exprs[i], SNAPLEN, f, &e), 0);
		for (j = 0; j < np; j++) {
			__u16 type = (v[j].b[0] >> 4) == 6 ? 0x86dd : 0x0800;
			__u32 flen = ether(frame, &v[j], type);

			for (c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
				__u32 fcap = cuts[c] && cuts[c] < flen ? cuts[c] : flen;
				__u32 rcap = cuts[c] && cuts[c] < v[j].len ? cuts[c] : v[j].len;
				int want_e = oracle(exprs[i], DLT_EN10MB, frame, fcap, flen);
				int want_r = oracle(exprs[i], DLT_RAW, v[j].b, rcap, v[j].len);
				int got_e = run(f, KSNOOP_CBPF_ETHERNET, frame, fcap, flen);
				int got_r = f->ninsns[KSNOOP_CBPF_RAW] ?
					    run(f, KSNOOP_CBPF_RAW, v[j].b, rcap, v[j].len) : 0;

				if (want_r < 0)
					want_r = 0;	/* no raw program: nothing passes */
				if (got_e != want_e || got_r != want_r)
					fail_msg("'%s' on '%s' cut at %u: ethernet %d (libpcap %d), raw %d (libpcap %d)",
						 exprs[i], v[j].name, cuts[c], got_e, want_e, got_r, want_r);
				checked += 2;
				passed += got_e + got_r;
			}
		}
	}
	/* The packets exercise both answers. */
	assert_true(passed > 100);
	assert_true(checked - passed > 100);
	free(f);
}

/* An ARP frame: Ethernet only, through "arp" and "ether proto". */
static void arp_frame(void **state)
{
	unsigned char frame[42] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1, 0x08, 0x06 };
	struct pfilter *f = calloc(1, sizeof(*f));
	struct ks_error e = {};

	assert_int_equal(pfilter__compile("arp", SNAPLEN, f, &e), 0);
	assert_int_equal(run(f, KSNOOP_CBPF_ETHERNET, frame, sizeof(frame), sizeof(frame)), 1);
	assert_int_equal(pfilter__compile("ether broadcast and not ip", SNAPLEN, f, &e), 0);
	assert_int_equal(run(f, KSNOOP_CBPF_ETHERNET, frame, sizeof(frame), sizeof(frame)),
			 oracle("ether broadcast and not ip", DLT_EN10MB, frame, sizeof(frame), sizeof(frame)));
	/* Ethernet addresses mean nothing on raw IP: no program there, said why. */
	assert_int_equal(pfilter__compile("ether host 02:00:00:00:00:01", SNAPLEN, f, &e), 0);
	assert_int_equal(f->ninsns[KSNOOP_CBPF_RAW], 0);
	assert_non_null(strstr(f->raw_why, "ethernet"));
	free(f);
}

static void refused(const char *expr, __u32 snaplen, const char *msg)
{
	struct pfilter *f = calloc(1, sizeof(*f));
	struct ks_error e = {};

	assert_non_null(f);
	assert_int_equal(pfilter__compile(expr, snaplen, f, &e), -EINVAL);
	assert_int_equal(e.err, -EINVAL);
	free(f);
	if (!strstr(e.msg, msg))
		fail_msg("'%.80s': '%s' does not say '%s'", expr, e.msg, msg);
	assert_non_null(strstr(e.msg, "--filter"));
	assert_null(strchr(e.msg, '\n'));
}

static void refusals(void **state)
{
	char many[4096] = "port 1";
	int i;

	refused("udp port", SNAPLEN, "syntax error");
	refused("udp port 5000 and", SNAPLEN, "syntax error");
	refused("   ", SNAPLEN, "empty");
	refused("ip protochain 6", SNAPLEN, "jumps backward");
	refused("udp[300] = 1", SNAPLEN, "raise --snaplen");
	refused("udp port 5000", 40, "raise --snaplen");
	refused("ip[100:4] = 1", 100, "past --snaplen 100");
	for (i = 2; i < 200; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), " or port %d", i);
	refused(many, SNAPLEN, "more than the 128");
}

static void check(const struct ksnoop_cbpf_insn *p, __u32 n, const char *msg)
{
	struct ks_error e = {};

	assert_int_equal(pfilter__check(p, n, SNAPLEN, &e), -EINVAL);
	if (!strstr(e.msg, msg))
		fail_msg("'%s' does not say '%s'", e.msg, msg);
}

#define RET_K (BPF_RET | BPF_K)

/* Programs libpcap would not make for a dead handle, refused all the same. */
static void hostile_programs(void **state)
{
	struct ksnoop_cbpf_insn ok[] = { { BPF_LD | BPF_H | BPF_ABS, 0, 0, 12 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn anc[] = { { BPF_LD | BPF_H | BPF_ABS, 0, 0, 0xfffff000 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn ind[] = { { BPF_LD | BPF_B | BPF_IND, 0, 0, 0xfffff004 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn back[] = { { BPF_JMP | BPF_JA, 0, 0, 0xffffffff }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn past[] = { { BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn noret[] = { { BPF_LD | BPF_W | BPF_IMM, 0, 0, 1 } };
	struct ksnoop_cbpf_insn div0[] = { { BPF_ALU | BPF_DIV | BPF_K, 0, 0, 0 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn mem[] = { { BPF_ST, 0, 0, 16 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn ldxabs[] = { { BPF_LDX | BPF_W | BPF_ABS, 0, 0, 0 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn misc[] = { { BPF_MISC | 0x40, 0, 0, 0 }, { RET_K, 0, 0, 1 } };
	/* bits the fields ignore: above 0xff, a size on an immediate, a source on NEG and JA */
	struct ksnoop_cbpf_insn high[] = { { 0x1500, 0, 0, 1 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn immh[] = { { BPF_LD | BPF_H | BPF_IMM, 0, 0, 1 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn negx[] = { { BPF_ALU | BPF_NEG | BPF_X, 0, 0, 0 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn jax[] = { { BPF_JMP | BPF_JA | BPF_X, 0, 0, 0 }, { RET_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn retw[] = { { RET_K | BPF_ABS, 0, 0, 1 } };
	struct ks_error e = {};

	assert_int_equal(pfilter__check(ok, 2, SNAPLEN, &e), 0);
	check(anc, 2, "ancillary");
	check(ind, 2, "ancillary");
	check(back, 2, "jumps backward");
	check(past, 2, "past the end");
	check(noret, 1, "does not return");
	check(div0, 2, "divides by 0");
	check(mem, 2, "not classic BPF");
	check(ldxabs, 2, "not classic BPF");
	check(misc, 2, "not classic BPF");
	check(high, 2, "code 0x1500) is not classic BPF");
	check(immh, 2, "not classic BPF");
	check(negx, 2, "not classic BPF");
	check(jax, 2, "not classic BPF");
	check(retw, 1, "not classic BPF");
	check(ok, 0, "empty");
	check(ok, KSNOOP_CBPF_MAX_INSNS + 1, "more than");
}

/* A filter of hand-made programs, Ethernet only, translated. */
static struct pfilter *made(const struct ksnoop_cbpf_insn *p, __u32 n)
{
	struct pfilter *f = calloc(1, sizeof(*f));
	struct ks_error e = {};

	assert_non_null(f);
	memcpy(f->insns[KSNOOP_CBPF_ETHERNET], p, n * sizeof(*p));
	f->ninsns[KSNOOP_CBPF_ETHERNET] = n;
	assert_int_equal(pfilter__check(p, n, SNAPLEN, &e), 0);
	f->need[KSNOOP_CBPF_ETHERNET] = pfilter__need(p, n);
	assert_int_equal(pfilter__translate(f, &e), 0);
	return f;
}

#define RUN1(prog, pkt, caplen) ({ \
	struct pfilter *f_ = made(prog, sizeof(prog) / sizeof(prog[0])); \
	int v_ = run(f_, KSNOOP_CBPF_ETHERNET, pkt, caplen, caplen); \
	free(f_); \
	v_; })

/* What the checks cannot see, decided at run time, as libpcap's bpf_filter() decides it. */
static void code_at_run_time(void **state)
{
	unsigned char pkt[200];
	int i, reads = 0;
	struct pfilter *f;
	/* A / X, X = 0: reject; X = 2: 8 / 2 = 4 */
	struct ksnoop_cbpf_insn divx[] = { { BPF_LD | BPF_IMM, 0, 0, 8 }, { BPF_LDX | BPF_W | BPF_IMM, 0, 0, 0 },
					   { BPF_ALU | BPF_DIV | BPF_X, 0, 0, 0 }, { BPF_RET | BPF_A, 0, 0, 0 } };
	struct ksnoop_cbpf_insn modx[] = { { BPF_LD | BPF_IMM, 0, 0, 8 }, { BPF_LDX | BPF_W | BPF_IMM, 0, 0, 0 },
					   { BPF_ALU | BPF_MOD | BPF_X, 0, 0, 0 }, { BPF_RET | BPF_A, 0, 0, 0 } };
	/* ldh [x + 1] with X = 3 on 4 bytes: past caplen; X = 0xffffffff, k = 2: wraps */
	struct ksnoop_cbpf_insn indpast[] = { { BPF_LDX | BPF_W | BPF_IMM, 0, 0, 3 },
					      { BPF_LD | BPF_H | BPF_IND, 0, 0, 1 }, { BPF_RET | BPF_K, 0, 0, 1 } };
	struct ksnoop_cbpf_insn indwrap[] = { { BPF_LDX | BPF_W | BPF_IMM, 0, 0, 0xffffffff },
					      { BPF_LD | BPF_B | BPF_IND, 0, 0, 2 }, { BPF_RET | BPF_K, 0, 0, 1 } };
	/* ldh [x + 1] with X = 1: big-endian 0x0203 */
	struct ksnoop_cbpf_insn ind[] = { { BPF_LDX | BPF_W | BPF_IMM, 0, 0, 1 }, { BPF_LD | BPF_H | BPF_IND, 0, 0, 1 },
					  { BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0x0203 }, { BPF_RET | BPF_K, 0, 0, 1 },
					  { BPF_RET | BPF_K, 0, 0, 0 } };
	/* A shift by 32 or more, by K or by X: 0 */
	struct ksnoop_cbpf_insn shk[] = { { BPF_LD | BPF_IMM, 0, 0, 1 }, { BPF_ALU | BPF_LSH | BPF_K, 0, 0, 32 },
					  { BPF_RET | BPF_A, 0, 0, 0 } };
	struct ksnoop_cbpf_insn shx[] = { { BPF_LD | BPF_IMM, 0, 0, 0x80000000 }, { BPF_LDX | BPF_W | BPF_IMM, 0, 0, 33 },
					  { BPF_ALU | BPF_RSH | BPF_X, 0, 0, 0 }, { BPF_RET | BPF_A, 0, 0, 0 } };
	struct ksnoop_cbpf_insn shx31[] = { { BPF_LD | BPF_IMM, 0, 0, 0x80000000 }, { BPF_LDX | BPF_W | BPF_IMM, 0, 0, 31 },
					    { BPF_ALU | BPF_RSH | BPF_X, 0, 0, 0 }, { BPF_RET | BPF_A, 0, 0, 0 } };
	/* ld [150]: past the copy, read from the packet; ldb [x + 100] with X = 60 likewise */
	struct ksnoop_cbpf_insn far[] = { { BPF_LD | BPF_W | BPF_ABS, 0, 0, 150 },
					  { BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0x96979899 }, { BPF_RET | BPF_K, 0, 0, 1 },
					  { BPF_RET | BPF_K, 0, 0, 0 } };
	struct ksnoop_cbpf_insn farx[] = { { BPF_LDX | BPF_W | BPF_IMM, 0, 0, 60 }, { BPF_LD | BPF_B | BPF_IND, 0, 0, 100 },
					   { BPF_RET | BPF_A, 0, 0, 0 } };
	/* M[3] read before any store: 0; JSET, JGT on X, TAX / TXA, NEG */
	struct ksnoop_cbpf_insn mem[] = { { BPF_LD | BPF_MEM, 0, 0, 3 }, { BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0 },
					  { BPF_RET | BPF_K, 0, 0, 1 }, { BPF_RET | BPF_K, 0, 0, 0 } };
	struct ksnoop_cbpf_insn mix[] = { { BPF_LD | BPF_IMM, 0, 0, 5 }, { BPF_MISC | BPF_TAX, 0, 0, 0 },
					  { BPF_ALU | BPF_NEG, 0, 0, 0 }, { BPF_JMP | BPF_JSET | BPF_K, 0, 3, 0x80000000 },
					  { BPF_MISC | BPF_TXA, 0, 0, 0 }, { BPF_JMP | BPF_JGT | BPF_X, 1, 0, 0 },
					  { BPF_RET | BPF_K, 0, 0, 9 }, { BPF_RET | BPF_K, 0, 0, 0 } };

	for (i = 0; i < (int)sizeof(pkt); i++)
		pkt[i] = i;
	assert_int_equal(RUN1(divx, pkt, 4), 0);
	divx[1].k = 2;
	assert_int_equal(RUN1(divx, pkt, 4), 1);
	assert_int_equal(RUN1(modx, pkt, 4), 0);
	assert_int_equal(RUN1(indpast, pkt, 4), 0);
	assert_int_equal(RUN1(indwrap, pkt, 4), 0);
	assert_int_equal(RUN1(ind, pkt, 4), 1);
	assert_int_equal(RUN1(shk, pkt, 4), 0);
	assert_int_equal(RUN1(shx, pkt, 4), 0);
	assert_int_equal(RUN1(shx31, pkt, 4), 1);
	assert_int_equal(RUN1(mem, pkt, 4), 1);
	/* -5 has the top bit set, so A = X = 5, and 5 > 5 is false: return 9 */
	assert_int_equal(RUN1(mix, pkt, 4), 1);
	f = made(far, 4);
	assert_int_equal(run_reads(f, KSNOOP_CBPF_ETHERNET, pkt, sizeof(pkt), sizeof(pkt), &reads), 1);
	assert_int_equal(reads, 1);
	assert_int_equal(run(f, KSNOOP_CBPF_ETHERNET, pkt, 153, 153), 0);
	free(f);
	f = made(farx, 3);
	assert_int_equal(run_reads(f, KSNOOP_CBPF_ETHERNET, pkt, sizeof(pkt), sizeof(pkt), &reads), 1);
	assert_int_equal(reads, 1);
	free(f);
	(void)state;
}

/* The region: a jump over the pad, the pad, the code; too long is refused. */
static void region_shape(void **state)
{
	struct pfilter *f = calloc(1, sizeof(*f));
	const struct ebpf_insn *c = (const struct ebpf_insn *)f->code;
	struct ks_error e = {};
	__u32 i, pad;

	assert_non_null(f);
	assert_int_equal(pfilter__compile("udp port 5000", SNAPLEN, f, &e), 0);
	pad = KSNOOP_CBPF_REGION - 1 - f->code_len;
	assert_true(f->code_len > 20 && f->code_len < 200);
	assert_int_equal(c[0].code, BPF_JMP | EBPF_JNE | BPF_K);
	assert_int_equal(EBPF_DST(&c[0]), 6);
	assert_int_equal(c[0].off, pad);
	for (i = 1; i <= pad; i++)
		assert_int_equal(c[i].code, BPF_JMP | BPF_JA);
	/* both programs all indexed loads: past the room, said so */
	for (i = 0; i < KSNOOP_CBPF_MAX_INSNS; i++) {
		struct ksnoop_cbpf_insn in = { BPF_LD | BPF_H | BPF_IND, 0, 0, i };

		if (i == KSNOOP_CBPF_MAX_INSNS - 1)
			in = (struct ksnoop_cbpf_insn){ BPF_RET | BPF_A, 0, 0, 0 };
		f->insns[KSNOOP_CBPF_ETHERNET][i] = f->insns[KSNOOP_CBPF_RAW][i] = in;
	}
	f->ninsns[KSNOOP_CBPF_ETHERNET] = f->ninsns[KSNOOP_CBPF_RAW] = KSNOOP_CBPF_MAX_INSNS;
	assert_int_equal(pfilter__check(f->insns[0], KSNOOP_CBPF_MAX_INSNS, SNAPLEN, &e), 0);
	assert_int_equal(pfilter__translate(f, &e), -E2BIG);
	if (!strstr(e.msg, "eBPF instructions, more than the 2047"))
		fail_msg("'%s'", e.msg);
	free(f);
	(void)state;
}

/*
 * The bytes the BPF side copies before a run: past every absolute load,
 * and an indexed one's with X up to an IPv4 header's 60; at most
 * KSNOOP_CBPF_COPY.  (Too few would only cost reads, so a wrong need
 * shows here and in no verdict.)
 */
static void copy_covers_loads(void **state)
{
	struct pfilter *f = calloc(1, sizeof(*f));
	struct ks_error e = {};

	assert_non_null(f);
	/* ldh [12]: the EtherType; raw IP: ldb [0], the version */
	assert_int_equal(pfilter__compile("ip", SNAPLEN, f, &e), 0);
	assert_int_equal(f->need[KSNOOP_CBPF_ETHERNET], 14);
	assert_int_equal(f->need[KSNOOP_CBPF_RAW], 1);
	/* ldh [x + 16]: the destination port behind an IPv4 header */
	assert_int_equal(pfilter__compile("udp dst port 5000", SNAPLEN, f, &e), 0);
	assert_int_equal(f->need[KSNOOP_CBPF_ETHERNET], 16 + 2 + 60);
	assert_int_equal(f->need[KSNOOP_CBPF_RAW], 2 + 2 + 60);
	/* ldb [200]: past the copy's size, which caps it */
	assert_int_equal(pfilter__compile("ether[200] = 1", SNAPLEN, f, &e), 0);
	assert_int_equal(f->need[KSNOOP_CBPF_ETHERNET], KSNOOP_CBPF_COPY);
	assert_int_equal(pfilter__compile("ether[2:4] = 1", SNAPLEN, f, &e), 0);
	assert_int_equal(f->need[KSNOOP_CBPF_ETHERNET], 6);
	free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(same_verdicts_as_libpcap),
		cmocka_unit_test(arp_frame),
		cmocka_unit_test(refusals),
		cmocka_unit_test(hostile_programs),
		cmocka_unit_test(code_at_run_time),
		cmocka_unit_test(region_shape),
		cmocka_unit_test(copy_covers_loads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
