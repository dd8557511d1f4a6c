// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Seeds for fuzz_pfilter (tests/fuzz/fuzz_pfilter.c), written into the
 * directory argv[1] by tests/fuzz/gen-corpus:
 *
 *   prog-*   what libpcap compiles for common expressions, on Ethernet and
 *            raw IP, each followed by a UDP datagram to port 5000 to run on;
 *   bad-*    hand-made hostile programs: a backward jump, a jump past the
 *            end, loads out of range or ancillary, a division by 0 (a
 *            constant one, refused; X, at run time), too many
 *            instructions, no return at the end, an index that wraps;
 *   expr-*   expressions as text, accepted and refused ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>

#define SNAPLEN 256

static const char *dir;

/* Ethernet, IPv4 10.0.0.1 > 10.0.0.2, UDP 4000 > 5000, "x". */
static const unsigned char frame[] = {
	0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00,
	0x45, 0, 0, 29, 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
	0x0f, 0xa0, 0x13, 0x88, 0, 9, 0, 0, 'x',
};

static FILE *seed_open(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

static void put16(FILE *f, unsigned v)
{
	fputc(v & 0xff, f);
	fputc(v >> 8 & 0xff, f);
}

/* One program seed: header, instructions, packet. */
static void prog_seed(const char *name, unsigned snaplen, unsigned wirelen,
		      const struct bpf_insn *in, unsigned n, const unsigned char *pkt, size_t len)
{
	FILE *f = seed_open(name);
	unsigned i;

	fputc(0, f);
	put16(f, snaplen);
	put16(f, wirelen);
	fputc(n, f);
	for (i = 0; i < n; i++) {
		put16(f, in[i].code);
		fputc(in[i].jt, f);
		fputc(in[i].jf, f);
		put16(f, in[i].k & 0xffff);
		put16(f, in[i].k >> 16);
	}
	fwrite(pkt, 1, len, f);
	fclose(f);
}

static void compiled(const char *name, const char *expr)
{
	static const int dlts[] = { DLT_EN10MB, DLT_RAW };
	static const char *const links[] = { "eth", "raw" };
	struct bpf_program prog;
	char seed[256];
	int i;

	for (i = 0; i < 2; i++) {
		pcap_t *p = pcap_open_dead(dlts[i], SNAPLEN);

		if (!p || pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN)) {
			if (p)
				pcap_close(p);
			continue;
		}
		snprintf(seed, sizeof(seed), "prog-%s-%s", name, links[i]);
		prog_seed(seed, SNAPLEN, sizeof(frame) - 14 * i, prog.bf_insns, prog.bf_len,
			  frame + 14 * i, sizeof(frame) - 14 * i);
		pcap_freecode(&prog);
		pcap_close(p);
	}
}

static void expr_seed(const char *name, const char *expr)
{
	FILE *f = seed_open(name);

	fputc(1, f);
	fputs(expr, f);
	fclose(f);
}

#define INSN(c, t, f, kk) { .code = (c), .jt = (t), .jf = (f), .k = (kk) }
#define RET_K(kk) INSN(BPF_RET | BPF_K, 0, 0, kk)
#define BAD(name, ...) do { \
	static const struct bpf_insn in_[] = { __VA_ARGS__ }; \
	prog_seed("bad-" name, SNAPLEN, sizeof(frame), in_, sizeof(in_) / sizeof(in_[0]), \
		  frame, sizeof(frame)); \
} while (0)

static void hostile(void)
{
	static struct bpf_insn many[200];
	unsigned i;

	BAD("backward-ja", INSN(BPF_LD | BPF_W | BPF_LEN, 0, 0, 0),
	    INSN(BPF_JMP | BPF_JA, 0, 0, 0xffffffff), RET_K(1));
	BAD("jt-past-end", INSN(BPF_LD | BPF_H | BPF_ABS, 0, 0, 12),
	    INSN(BPF_JMP | BPF_JEQ | BPF_K, 200, 0, 0x800), RET_K(1));
	BAD("load-past-snaplen", INSN(BPF_LD | BPF_W | BPF_ABS, 0, 0, 0x7ffffffc), RET_K(1));
	BAD("load-past-packet", INSN(BPF_LD | BPF_W | BPF_ABS, 0, 0, 250), RET_K(1));
	BAD("ancillary", INSN(BPF_LD | BPF_W | BPF_ABS, 0, 0, 0xfffff000), RET_K(1));
	BAD("ldx-abs", INSN(BPF_LDX | BPF_W | BPF_ABS, 0, 0, 0), RET_K(1));
	BAD("div-k-zero", INSN(BPF_LD | BPF_IMM, 0, 0, 7),
	    INSN(BPF_ALU | BPF_DIV | BPF_K, 0, 0, 0), RET_K(1));
	BAD("div-x-zero", INSN(BPF_LD | BPF_IMM, 0, 0, 7), INSN(BPF_LDX | BPF_IMM, 0, 0, 0),
	    INSN(BPF_ALU | BPF_DIV | BPF_X, 0, 0, 0), INSN(BPF_RET | BPF_A, 0, 0, 0));
	BAD("mod-x-zero", INSN(BPF_LD | BPF_IMM, 0, 0, 7), INSN(BPF_LDX | BPF_IMM, 0, 0, 0),
	    INSN(BPF_ALU | BPF_MOD | BPF_X, 0, 0, 0), INSN(BPF_RET | BPF_A, 0, 0, 0));
	BAD("ind-wraps", INSN(BPF_LDX | BPF_IMM, 0, 0, 0xfffffff0),
	    INSN(BPF_LD | BPF_W | BPF_IND, 0, 0, 0x20), INSN(BPF_RET | BPF_A, 0, 0, 0));
	BAD("msh-past-packet", INSN(BPF_LDX | BPF_B | BPF_MSH, 0, 0, 200),
	    INSN(BPF_MISC | BPF_TXA, 0, 0, 0), INSN(BPF_RET | BPF_A, 0, 0, 0));
	BAD("mem-16", INSN(BPF_ST, 0, 0, 16), RET_K(1));
	BAD("shift-40", INSN(BPF_LD | BPF_IMM, 0, 0, 1),
	    INSN(BPF_ALU | BPF_LSH | BPF_K, 0, 0, 40), INSN(BPF_RET | BPF_A, 0, 0, 0));
	BAD("no-return", INSN(BPF_LD | BPF_W | BPF_LEN, 0, 0, 0));
	BAD("ret-x", INSN(BPF_RET | 0x08, 0, 0, 0));
	BAD("unknown-code", INSN(0xffff, 0, 0, 0), RET_K(1));
	for (i = 0; i < 199; i++)
		many[i] = (struct bpf_insn)INSN(BPF_LD | BPF_W | BPF_LEN, 0, 0, 0);
	many[199] = (struct bpf_insn)RET_K(1);
	prog_seed("bad-200-insns", SNAPLEN, sizeof(frame), many, 200, frame, sizeof(frame));
	prog_seed("bad-128-insns", SNAPLEN, sizeof(frame), many + 72, 128, frame, sizeof(frame));
	prog_seed("bad-snaplen-0", 0, sizeof(frame), many + 199, 1, frame, sizeof(frame));
	prog_seed("bad-empty", SNAPLEN, sizeof(frame), many, 0, frame, sizeof(frame));
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	compiled("udp-port", "udp port 5000");
	compiled("tcp-port-host", "host 10.0.0.1 and tcp port 443");
	compiled("icmp", "icmp");
	compiled("ip6-udp", "ip6 and udp");
	compiled("arp", "arp");
	compiled("fragment", "ip[6:2] & 0x1fff != 0");
	compiled("syn", "tcp[tcpflags] & tcp-syn != 0");
	compiled("ether-host", "ether host 02:00:00:00:00:01");
	compiled("net-len", "net 10.0.0.0/8 and len > 40 and not port 22");
	hostile();
	expr_seed("expr-udp", "udp dst port 5000");
	expr_seed("expr-protochain", "protochain 6");
	expr_seed("expr-inbound", "inbound");
	expr_seed("expr-ether", "ether src 02:00:00:00:00:01");
	expr_seed("expr-past-snaplen", "ip[300] = 1");
	expr_seed("expr-syntax", "udp port (");
	expr_seed("expr-vlan", "vlan and udp");
	return 0;
}
