// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --filter EXPR: libpcap compiles the expression (pcap_compile() on a
 * dead handle: no device, no capture, no privilege) into classic BPF, one
 * program per link type, which pfilter_ebpf.c translates into eBPF that
 * ksnoop's BPF programs run over each skb's packet (bpf/filter.bpf.h).
 * libpcap is the authority on the language, so its messages are the
 * user's; what is refused here is what the translation does not do:
 *
 *   - backward jumps: only 'protochain' makes them (libpcap walks the
 *     IPv6 extension headers in a loop; pwru refuses it too); forward
 *     jumps alone keep the code a path the verifier walks once;
 *   - ancillary loads (SKF_AD_*, a negative offset: 'inbound', 'ifindex',
 *     VLAN tags a live Linux capture reads from the skb): libpcap emits
 *     them for Linux capture handles only, never for a dead one, but a
 *     filter is not trusted to be what we think it is;
 *   - loads at a constant offset past --snaplen: the BPF side never reads
 *     more of a packet, so the test could never hold (say so: raise it);
 *   - programs longer than KSNOOP_CBPF_MAX_INSNS, and translations longer
 *     than the region's room (KSNOOP_CBPF_REGION).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <pcap/pcap.h>
#include "ks_error.h"
#include "pfilter.h"

static const int link_dlt[KSNOOP_CBPF_NR_LINKS] = {
	[KSNOOP_CBPF_ETHERNET] = DLT_EN10MB,
	[KSNOOP_CBPF_RAW] = DLT_RAW,
};

static int bad_insn(struct ks_error *e, __u32 pc, __u16 code)
{
	return ks_fail(e, -EINVAL, "instruction %u (code 0x%02x) is not classic BPF that ksnoop runs",
		       pc, code);
}

/* A load from the packet of SIZE bytes at K (+ X for BPF_IND). */
static int check_packet_load(const struct ksnoop_cbpf_insn *in, __u32 pc, __u32 size,
			     __u32 snaplen, struct ks_error *e)
{
	if ((__s32)in->k < 0)
		return ks_fail(e, -EINVAL, "instruction %u loads ancillary data (SKF_AD_* at offset %d: 'inbound', 'ifindex', VLAN offload): not supported",
			       pc, (__s32)in->k);
	if ((__u64)in->k + size > snaplen)
		return ks_fail(e, -EINVAL, "it reads the packet up to byte %llu, past --snaplen %u: raise --snaplen",
			       (unsigned long long)in->k + size, snaplen);
	return 0;
}

static int check_load(const struct ksnoop_cbpf_insn *in, __u32 pc, __u32 snaplen,
		      struct ks_error *e)
{
	__u16 code = in->code;
	__u32 size = ksnoop_cbpf_size(code);
	bool ldx = BPF_CLASS(code) == BPF_LDX;

	if (BPF_SIZE(code) != BPF_W && BPF_SIZE(code) != BPF_H && BPF_SIZE(code) != BPF_B)
		return bad_insn(e, pc, code);
	switch (BPF_MODE(code)) {
	case BPF_IMM:
	case BPF_LEN:
		return 0;
	case BPF_MEM:
		return in->k < KSNOOP_CBPF_MEMWORDS ? 0 : bad_insn(e, pc, code);
	case BPF_ABS:
	case BPF_IND:
		return ldx ? bad_insn(e, pc, code) : check_packet_load(in, pc, size, snaplen, e);
	case BPF_MSH:
		if (!ldx || BPF_SIZE(code) != BPF_B)
			return bad_insn(e, pc, code);
		return check_packet_load(in, pc, 1, snaplen, e);
	}
	return bad_insn(e, pc, code);
}

static int check_alu(const struct ksnoop_cbpf_insn *in, __u32 pc, struct ks_error *e)
{
	switch (BPF_OP(in->code)) {
	case BPF_ADD: case BPF_SUB: case BPF_MUL: case BPF_OR: case BPF_AND:
	case BPF_XOR: case BPF_LSH: case BPF_RSH: case BPF_NEG:
		return 0;
	case BPF_DIV:
	case BPF_MOD:
		if (BPF_SRC(in->code) == BPF_K && in->k == 0)
			return ks_fail(e, -EINVAL, "instruction %u divides by 0", pc);
		return 0;
	}
	return bad_insn(e, pc, in->code);
}

/* Every jump lands forward, inside the program: nothing loops. */
static int check_jump(const struct ksnoop_cbpf_insn *in, __u32 pc, __u32 n, struct ks_error *e)
{
	__u64 next = (__u64)pc + 1;
	bool out;

	switch (BPF_OP(in->code)) {
	case BPF_JA:
		out = next + in->k >= n;
		break;
	case BPF_JEQ: case BPF_JGT: case BPF_JGE: case BPF_JSET:
		out = next + in->jt >= n || next + in->jf >= n;
		break;
	default:
		return bad_insn(e, pc, in->code);
	}
	if (out)
		return ks_fail(e, -EINVAL, "instruction %u jumps backward or past the end (libpcap's loop for 'protochain'): not supported",
			       pc);
	return 0;
}

/*
 * Is CODE one of classic BPF's opcodes, spelled as libpcap and the kernel
 * spell it?  The checks below look at the class, mode, size and operation
 * fields only; without this, bits they ignore (above 0xff, a size on an
 * immediate load, a source on NEG or JA, a mode on a return) would pass an
 * instruction that libpcap's bpf_filter() and the kernel refuse
 * (fuzz_pfilter found 0x1500, run here as a load of K).
 */
static bool known_code(__u16 code)
{
	if (code > 0xff)
		return false;
	switch (code) {
	case BPF_LD | BPF_W | BPF_ABS: case BPF_LD | BPF_H | BPF_ABS: case BPF_LD | BPF_B | BPF_ABS:
	case BPF_LD | BPF_W | BPF_IND: case BPF_LD | BPF_H | BPF_IND: case BPF_LD | BPF_B | BPF_IND:
	case BPF_LD | BPF_W | BPF_LEN: case BPF_LD | BPF_IMM: case BPF_LD | BPF_MEM:
	case BPF_LDX | BPF_W | BPF_IMM: case BPF_LDX | BPF_W | BPF_MEM: case BPF_LDX | BPF_W | BPF_LEN:
	case BPF_LDX | BPF_B | BPF_MSH:
	case BPF_ST: case BPF_STX:
	case BPF_ALU | BPF_NEG:
	case BPF_JMP | BPF_JA:
	case BPF_RET | BPF_K: case BPF_RET | BPF_A:
	case BPF_MISC | BPF_TAX: case BPF_MISC | BPF_TXA:
		return true;
	}
	/* the rest: an operation on K or X (check_alu(), check_jump() know which) */
	return (BPF_CLASS(code) == BPF_ALU && BPF_OP(code) != BPF_NEG) ||
	       (BPF_CLASS(code) == BPF_JMP && BPF_OP(code) != BPF_JA);
}

static int check_insn(const struct ksnoop_cbpf_insn *in, __u32 pc, __u32 n, __u32 snaplen,
		      struct ks_error *e)
{
	if (!known_code(in->code))
		return bad_insn(e, pc, in->code);
	switch (BPF_CLASS(in->code)) {
	case BPF_LD:
	case BPF_LDX:
		return check_load(in, pc, snaplen, e);
	case BPF_ST:
	case BPF_STX:
		return in->k < KSNOOP_CBPF_MEMWORDS ? 0 : bad_insn(e, pc, in->code);
	case BPF_ALU:
		return check_alu(in, pc, e);
	case BPF_JMP:
		return check_jump(in, pc, n, e);
	case BPF_RET:
		return BPF_RVAL(in->code) == BPF_K || BPF_RVAL(in->code) == BPF_A ? 0 :
		       bad_insn(e, pc, in->code);
	case BPF_MISC:
		return BPF_MISCOP(in->code) == BPF_TAX || BPF_MISCOP(in->code) == BPF_TXA ? 0 :
		       bad_insn(e, pc, in->code);
	}
	return bad_insn(e, pc, in->code);
}

int pfilter__check(const struct ksnoop_cbpf_insn *insns, __u32 n, __u32 snaplen,
		   struct ks_error *e)
{
	__u32 pc;
	int err;

	if (n == 0)
		return ks_fail(e, -EINVAL, "an empty program");
	if (n > KSNOOP_CBPF_MAX_INSNS)
		return ks_fail(e, -EINVAL, "it compiles to %u instructions, more than the %d ksnoop runs",
			       n, KSNOOP_CBPF_MAX_INSNS);
	for (pc = 0; pc < n; pc++) {
		err = check_insn(&insns[pc], pc, n, snaplen, e);
		if (err)
			return err;
	}
	/* Jumps land inside: a program whose last instruction returns always ends. */
	if (BPF_CLASS(insns[n - 1].code) != BPF_RET)
		return ks_fail(e, -EINVAL, "its last instruction does not return");
	return 0;
}

__u16 pfilter__need(const struct ksnoop_cbpf_insn *insns, __u32 n)
{
	__u64 need = 0, end;
	__u32 pc, size;

	for (pc = 0; pc < n; pc++) {
		__u16 code = insns[pc].code;

		size = ksnoop_cbpf_size(code);
		if (BPF_CLASS(code) == BPF_LD && BPF_MODE(code) == BPF_ABS)
			end = (__u64)insns[pc].k + size;
		else if (BPF_CLASS(code) == BPF_LD && BPF_MODE(code) == BPF_IND)
			end = (__u64)insns[pc].k + size + KSNOOP_CBPF_MSH_MAX;
		else if (BPF_CLASS(code) == BPF_LDX && BPF_MODE(code) == BPF_MSH)
			end = (__u64)insns[pc].k + 1;
		else
			continue;
		if (end > need)
			need = end;
	}
	return need < KSNOOP_CBPF_COPY ? need : KSNOOP_CBPF_COPY;
}

/* EXPR for link type LINK into F; libpcap's message in MSG on failure (-EINVAL). */
static int compile_link(const char *expr, __u32 snaplen, int link, struct pfilter *f,
			char *msg, size_t msg_size)
{
	struct bpf_program prog = {};
	pcap_t *p = pcap_open_dead(link_dlt[link], (int)snaplen);
	__u32 i;

	if (!p) {
		snprintf(msg, msg_size, "libpcap could not open a handle");
		return -ENOMEM;
	}
	if (pcap_compile(p, &prog, expr, 1, PCAP_NETMASK_UNKNOWN)) {
		snprintf(msg, msg_size, "%s", pcap_geterr(p));
		pcap_close(p);
		return -EINVAL;
	}
	pcap_close(p);
	if (prog.bf_len > KSNOOP_CBPF_MAX_INSNS) {
		snprintf(msg, msg_size, "it compiles to %u instructions, more than the %d ksnoop runs",
			 prog.bf_len, KSNOOP_CBPF_MAX_INSNS);
		pcap_freecode(&prog);
		return -E2BIG;
	}
	for (i = 0; i < prog.bf_len; i++) {
		f->insns[link][i].code = prog.bf_insns[i].code;
		f->insns[link][i].jt = prog.bf_insns[i].jt;
		f->insns[link][i].jf = prog.bf_insns[i].jf;
		f->insns[link][i].k = prog.bf_insns[i].k;
	}
	f->ninsns[link] = prog.bf_len;
	pcap_freecode(&prog);
	return 0;
}

/* An expression as messages quote it: its first 60 characters. */
#define EXPR_QUOTED	60
#define EXPR_FMT	"--filter '%.*s%s': "
#define EXPR_ARGS(x)	EXPR_QUOTED, (x), strlen(x) > EXPR_QUOTED ? "..." : ""

int pfilter__compile(const char *expr, __u32 snaplen, struct pfilter *f, struct ks_error *e)
{
	char msg[PCAP_ERRBUF_SIZE + 128];
	int link, err;

	memset(f, 0, sizeof(*f));
	if (!expr[strspn(expr, " \t\n")])
		return ks_fail(e, -EINVAL, "--filter: an empty expression");
	/* Ethernet first: its message is the one about the expression itself. */
	err = compile_link(expr, snaplen, KSNOOP_CBPF_ETHERNET, f, msg, sizeof(msg));
	if (err)
		return ks_fail(e, err == -ENOMEM ? -ENOMEM : -EINVAL, EXPR_FMT "%s", EXPR_ARGS(expr), msg);
	/* Raw IP: an expression about link headers has no program there. */
	err = compile_link(expr, snaplen, KSNOOP_CBPF_RAW, f, msg, sizeof(msg));
	if (err == -EINVAL)
		snprintf(f->raw_why, sizeof(f->raw_why), "%.*s", (int)sizeof(f->raw_why) - 1, msg);
	else if (err)
		return ks_fail(e, err == -ENOMEM ? -ENOMEM : -EINVAL, EXPR_FMT "%s", EXPR_ARGS(expr), msg);
	for (link = 0; link < KSNOOP_CBPF_NR_LINKS; link++) {
		if (!f->ninsns[link])
			continue;
		err = pfilter__check(f->insns[link], f->ninsns[link], snaplen, e);
		if (err) {
			ks_prefix(e, EXPR_FMT, EXPR_ARGS(expr));
			return err;
		}
		f->need[link] = pfilter__need(f->insns[link], f->ninsns[link]);
	}
	err = pfilter__translate(f, e);
	if (err)
		ks_prefix(e, EXPR_FMT, EXPR_ARGS(expr));
	return err;
}
