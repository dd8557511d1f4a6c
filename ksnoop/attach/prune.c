// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * prune: the code a plan leaves dead, taken out before the kernel sees it
 * (prune.h says why).
 *
 * Two passes over a relocated program.  The first follows what each
 * register holds, instruction by instruction from every reached one:
 * unknown, a constant, or an address inside a read-only map.  A load
 * through such an address reads the map's bytes; a conditional jump
 * whose operands are both constants goes one way.  Where paths meet, a
 * register that differs becomes unknown, so the states only ever lose
 * knowledge and the walk ends (each register of each instruction changes
 * at most twice).  A function's registers start unknown, and a call
 * leaves r0-r5 unknown: the analysis is per function and never guesses.
 * The second pass walks from the first instruction again with the final
 * states' decisions: what it reaches stays (a jump always taken becomes
 * `goto`, one never taken goes), and the rest goes.
 *
 * Only the verifier's own reasoning, less of it: it too reads frozen
 * read-only maps as constants and walks only the branches they allow.
 * Whatever prune leaves that is dead, the kernel still removes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prune.h"

#define NREGS		11
/* Sign-extending loads (6.6): newer than the build's linux/bpf.h may be. */
#ifndef BPF_MEMSX
#define BPF_MEMSX	0x80
#endif
/* may_goto (linux/bpf.h BPF_JCOND, 6.9): a conditional jump either way */
#define OP_JCOND	0xe0
#define IS_LDIMM64(in)	((in)->code == (BPF_LD | BPF_IMM | BPF_DW))

enum aval_kind { AV_UNKNOWN, AV_CONST, AV_RO };

struct aval {
	__u8 kind;
	__u8 ro;	/* AV_RO: which map; v is the offset */
	__u64 v;
};

struct pstate {
	struct aval r[NREGS];
};

/* What the second pass does with an instruction. */
enum keep { DROP, KEEP, KEEP_AS_GOTO };

struct pruner {
	const struct prune_in *in;
	size_t n;
	struct pstate *st;	/* the state on entry to each instruction */
	unsigned char *seen;	/* st[i] holds something */
	unsigned char *half;	/* the second half of an ld_imm64 */
	unsigned char *queued;
	unsigned char *force;	/* a jump left undecided: a tail call is behind it */
	size_t *work, nwork;
};

static const struct pstate unknown_state;	/* AV_UNKNOWN is 0 */

static struct aval av_const(__u64 v)
{
	return (struct aval){ .kind = AV_CONST, .v = v };
}

static bool av_same(const struct aval *a, const struct aval *b)
{
	return a->kind == b->kind && a->ro == b->ro && a->v == b->v;
}

/* A jump's or call's target, when it is an instruction's first slot. */
static int target_ok(const struct pruner *p, long long t)
{
	return t >= 0 && (size_t)t < p->n && !p->half[t] ? 0 : -EINVAL;
}

/* Where an instruction's relative target is: none, in off, in imm. */
enum rel { REL_NONE, REL_OFF, REL_IMM };

static enum rel rel_of(const struct bpf_insn *in)
{
	__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	if (IS_LDIMM64(in))	/* a callback's address */
		return in->src_reg == BPF_PSEUDO_FUNC ? REL_IMM : REL_NONE;
	if (cls != BPF_JMP && cls != BPF_JMP32)
		return REL_NONE;
	if (op == BPF_CALL)	/* a bpf-to-bpf call; not a helper's or kfunc's */
		return in->src_reg == BPF_PSEUDO_CALL ? REL_IMM : REL_NONE;
	if (op == BPF_EXIT)
		return REL_NONE;
	return op == BPF_JA && cls == BPF_JMP32 ? REL_IMM : REL_OFF;	/* gotol: imm */
}

/* The instruction IN at I names (rel_of() says it names one). */
static long long rel_target(size_t i, const struct bpf_insn *in)
{
	return (long long)i + (rel_of(in) == REL_IMM ? in->imm : in->off) + 1;
}

/* S flows into instruction J: J's state joined with it, J walked again if it changed. */
static int flow(struct pruner *p, long long j, const struct pstate *s)
{
	struct pstate *d;
	bool changed = false;
	int r;

	if (target_ok(p, j))
		return -EINVAL;
	d = &p->st[j];
	if (!p->seen[j]) {
		*d = *s;
		p->seen[j] = 1;
		changed = true;
	} else {
		for (r = 0; r < NREGS; r++)
			if (d->r[r].kind != AV_UNKNOWN && !av_same(&d->r[r], &s->r[r])) {
				d->r[r] = (struct aval){ 0 };
				changed = true;
			}
	}
	if (changed && !p->queued[j]) {
		p->queued[j] = 1;
		p->work[p->nwork++] = j;
	}
	return 0;
}

static void clobber_call(struct pstate *s)
{
	memset(&s->r[0], 0, 6 * sizeof(s->r[0]));
}

/* -1 undecided, 0 never taken, 1 always taken. */
static int decide(const struct pstate *s, const struct bpf_insn *in)
{
	bool is32 = BPF_CLASS(in->code) == BPF_JMP32;
	const struct aval *a = &s->r[in->dst_reg];
	__u64 x, y;
	__s64 sx, sy;

	if (a->kind != AV_CONST)
		return -1;
	if (BPF_SRC(in->code) == BPF_X) {
		if (s->r[in->src_reg].kind != AV_CONST)
			return -1;
		y = s->r[in->src_reg].v;
	} else {
		y = (__u64)(__s64)in->imm;
	}
	x = a->v;
	if (is32) {
		x = (__u32)x;
		y = (__u32)y;
		sx = (__s32)x;
		sy = (__s32)y;
	} else {
		sx = (__s64)x;
		sy = (__s64)y;
	}
	switch (BPF_OP(in->code)) {
	case BPF_JEQ: return x == y;
	case BPF_JNE: return x != y;
	case BPF_JGT: return x > y;
	case BPF_JGE: return x >= y;
	case BPF_JLT: return x < y;
	case BPF_JLE: return x <= y;
	case BPF_JSET: return (x & y) != 0;
	case BPF_JSGT: return sx > sy;
	case BPF_JSGE: return sx >= sy;
	case BPF_JSLT: return sx < sy;
	case BPF_JSLE: return sx <= sy;
	default: return -1;
	}
}

/* decide() unless the jump is one a tail call keeps (keep_tail_calls()). */
static int decision(const struct pruner *p, size_t i, const struct pstate *s)
{
	return p->force[i] ? -1 : decide(s, &p->in->insns[i]);
}

static __u64 sign_extend(__u64 v, int bits)
{
	return bits >= 64 ? v : (__u64)(((__s64)(v << (64 - bits))) >> (64 - bits));
}

/* Two constants through OP; false when the result is not one prune follows. */
static bool alu_const(__u8 op, bool is64, __u64 x, __u64 y, __u64 *res)
{
	unsigned int width = is64 ? 64 : 32;

	if (!is64) {
		x = (__u32)x;
		y = (__u32)y;
	}
	switch (op) {
	case BPF_ADD: *res = x + y; break;
	case BPF_SUB: *res = x - y; break;
	case BPF_MUL: *res = x * y; break;
	case BPF_OR: *res = x | y; break;
	case BPF_AND: *res = x & y; break;
	case BPF_XOR: *res = x ^ y; break;
	case BPF_DIV:
		if (!y)
			return false;
		*res = x / y;
		break;
	case BPF_MOD:
		if (!y)
			return false;
		*res = x % y;
		break;
	case BPF_LSH:
		if (y >= width)
			return false;
		*res = x << y;
		break;
	case BPF_RSH:
		if (y >= width)
			return false;
		*res = x >> y;
		break;
	case BPF_ARSH:
		if (y >= width)
			return false;
		*res = is64 ? (__u64)((__s64)x >> y) : (__u64)(__u32)((__s32)x >> y);
		break;
	default:
		return false;
	}
	if (!is64)
		*res = (__u32)*res;
	return true;
}

static void step_alu(struct pstate *s, const struct bpf_insn *in)
{
	bool is64 = BPF_CLASS(in->code) == BPF_ALU64;
	struct aval *d = &s->r[in->dst_reg], b;
	__u8 op = BPF_OP(in->code);
	__u64 res;

	if (BPF_SRC(in->code) == BPF_X)
		b = s->r[in->src_reg];
	else
		b = av_const(is64 ? (__u64)(__s64)in->imm : (__u32)in->imm);

	if (op == BPF_MOV) {
		if (in->off) {	/* movsx: from 8, 16 or 32 bits */
			if (BPF_SRC(in->code) == BPF_X && b.kind == AV_CONST &&
			    (in->off == 8 || in->off == 16 || in->off == 32)) {
				res = sign_extend(b.v, in->off);
				*d = av_const(is64 ? res : (__u32)res);
			} else {
				*d = (struct aval){ 0 };
			}
		} else if (is64) {
			*d = b;
		} else {
			*d = b.kind == AV_CONST ? av_const((__u32)b.v) : (struct aval){ 0 };
		}
		return;
	}
	if (op == BPF_NEG && !in->off) {
		*d = d->kind == AV_CONST ? av_const(is64 ? -d->v : (__u32)-d->v) : (struct aval){ 0 };
		return;
	}
	/* An address inside a read-only map, moved: still one. */
	if (d->kind == AV_RO && is64 && !in->off && b.kind == AV_CONST &&
	    (op == BPF_ADD || op == BPF_SUB)) {
		d->v = op == BPF_ADD ? d->v + b.v : d->v - b.v;
		return;
	}
	/* in->off on DIV and MOD is the signed forms: not followed */
	if (op == BPF_END || in->off || d->kind != AV_CONST || b.kind != AV_CONST ||
	    !alu_const(op, is64, d->v, b.v, &res)) {
		*d = (struct aval){ 0 };
		return;
	}
	*d = av_const(res);
}

static void step_ldx(const struct pruner *p, struct pstate *s, const struct bpf_insn *in)
{
	static const int bytes[] = { [BPF_W >> 3] = 4, [BPF_H >> 3] = 2, [BPF_B >> 3] = 1,
				     [BPF_DW >> 3] = 8 };
	const struct aval *a = &s->r[in->src_reg];
	__u8 mode = BPF_MODE(in->code);
	int sz = bytes[BPF_SIZE(in->code) >> 3], k;
	const struct prune_ro *ro;
	const unsigned char *b;
	__u64 v = 0, off;

	if (a->kind != AV_RO || (mode != BPF_MEM && mode != BPF_MEMSX) ||
	    (mode == BPF_MEMSX && sz == 8)) {
		s->r[in->dst_reg] = (struct aval){ 0 };
		return;
	}
	ro = &p->in->ro[a->ro];
	off = a->v + (__u64)(__s64)in->off;
	if (off >= ro->size || ro->size - off < (__u64)sz) {
		s->r[in->dst_reg] = (struct aval){ 0 };
		return;
	}
	/* BPF's byte order: ksnoop's objects are little-endian (bpfel) */
	b = (const unsigned char *)ro->data + off;
	for (k = sz - 1; k >= 0; k--)
		v = v << 8 | b[k];
	if (mode == BPF_MEMSX)
		v = sign_extend(v, sz * 8);
	s->r[in->dst_reg] = av_const(v);
}

/* ld_imm64 at I: a constant, an address in a read-only map, or a callback. */
static int step_ldimm64(struct pruner *p, struct pstate *s, size_t i)
{
	const struct bpf_insn *in = &p->in->insns[i];
	struct aval *d = &s->r[in->dst_reg];
	int k;

	*d = (struct aval){ 0 };
	switch (in->src_reg) {
	case 0:
		*d = av_const((__u32)in[0].imm | (__u64)(__u32)in[1].imm << 32);
		break;
	case BPF_PSEUDO_MAP_VALUE:
		for (k = 0; k < p->in->nro; k++)
			if (p->in->ro[k].fd == in->imm) {
				*d = (struct aval){ .kind = AV_RO, .ro = k, .v = (__u32)in[1].imm };
				break;
			}
		break;
	case BPF_PSEUDO_FUNC:
		return flow(p, rel_target(i, in), &unknown_state);
	}
	return 0;
}

static int step_jmp(struct pruner *p, struct pstate *s, size_t i)
{
	const struct bpf_insn *in = &p->in->insns[i];
	bool is32 = BPF_CLASS(in->code) == BPF_JMP32;
	__u8 op = BPF_OP(in->code);
	int d, err;

	switch (op) {
	case BPF_EXIT:
		return is32 ? -EINVAL : 0;
	case BPF_CALL:
		if (is32)
			return -EINVAL;
		if (in->src_reg == BPF_PSEUDO_CALL) {
			err = flow(p, rel_target(i, in), &unknown_state);
			if (err)
				return err;
		}
		clobber_call(s);
		return flow(p, i + 1, s);
	case BPF_JA:
		return flow(p, rel_target(i, in), s);
	case OP_JCOND:
		return flow(p, i + 1, s) ?: flow(p, rel_target(i, in), s);
	default:
		d = decision(p, i, s);
		err = d != 0 ? flow(p, rel_target(i, in), s) : 0;
		return err ?: d != 1 ? flow(p, i + 1, s) : 0;
	}
}

static int step(struct pruner *p, size_t i)
{
	const struct bpf_insn *in = &p->in->insns[i];
	struct pstate s = p->st[i];

	if (in->dst_reg >= NREGS || in->src_reg >= NREGS)
		return -EINVAL;
	switch (BPF_CLASS(in->code)) {
	case BPF_ALU:
	case BPF_ALU64:
		step_alu(&s, in);
		return flow(p, i + 1, &s);
	case BPF_LDX:
		step_ldx(p, &s, in);
		return flow(p, i + 1, &s);
	case BPF_ST:
		return flow(p, i + 1, &s);
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_ATOMIC) {	/* a fetch writes r0 or src */
			s.r[0] = (struct aval){ 0 };
			s.r[in->src_reg] = (struct aval){ 0 };
		}
		return flow(p, i + 1, &s);
	case BPF_LD:
		if (IS_LDIMM64(in))
			return step_ldimm64(p, &s, i) ?: flow(p, i + 2, &s);
		if (BPF_MODE(in->code) == BPF_ABS || BPF_MODE(in->code) == BPF_IND) {
			clobber_call(&s);
			return flow(p, i + 1, &s);
		}
		return -EINVAL;
	default:	/* BPF_JMP, BPF_JMP32 */
		return step_jmp(p, &s, i);
	}
}

/* Pass 1: every reached instruction's state, to the fixed point. */
static int analyse(struct pruner *p)
{
	size_t i;
	int err;

	memset(p->seen, 0, p->n);
	memset(p->queued, 0, p->n);
	p->nwork = 0;
	err = flow(p, 0, &unknown_state);
	while (!err && p->nwork) {
		i = p->work[--p->nwork];
		p->queued[i] = 0;
		err = step(p, i);
	}
	return err;
}

/* Instruction I's successors whatever is decided (a call's callee too): into T, how many. */
static int successors(const struct pruner *p, size_t i, long long t[3])
{
	const struct bpf_insn *in = &p->in->insns[i];
	__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	bool jmp = cls == BPF_JMP || cls == BPF_JMP32;
	int nt = 0;

	if (IS_LDIMM64(in))
		t[nt++] = i + 2;
	else if (!jmp || (op != BPF_JA && op != BPF_EXIT))
		t[nt++] = i + 1;
	if (rel_of(in) != REL_NONE)
		t[nt++] = rel_target(i, in);
	return nt;
}

/* A conditional jump: one a constant may decide. */
static bool is_cond_jump(const struct bpf_insn *in)
{
	__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

	return (cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT &&
	       op != BPF_JA && op != OP_JCOND;
}

/* Pass 2: what stays, walking the final decisions from the start. */
static int mark(struct pruner *p, unsigned char *keep, unsigned char *reached, size_t *stack)
{
	const struct bpf_insn *insns = p->in->insns;
	size_t top = 0, i;
	long long t[3];
	int nt, k, d;

	reached[0] = 1;
	stack[top++] = 0;
	while (top) {
		const struct bpf_insn *in;

		i = stack[--top];
		in = &insns[i];
		if (!p->seen[i])
			return -EINVAL;
		keep[i] = KEEP;
		if (IS_LDIMM64(in))
			keep[i + 1] = KEEP;
		if (is_cond_jump(in)) {
			d = decision(p, i, &p->st[i]);
			nt = 0;
			if (d != 0)
				t[nt++] = rel_target(i, in);
			if (d != 1)
				t[nt++] = i + 1;
			keep[i] = d == 1 ? KEEP_AS_GOTO : d == 0 ? DROP : KEEP;
		} else {
			nt = successors(p, i, t);
		}
		for (k = 0; k < nt; k++) {
			if (target_ok(p, t[k]))
				return -EINVAL;
			if (!reached[t[k]]) {
				reached[t[k]] = 1;
				stack[top++] = t[k];
			}
		}
	}
	return 0;
}

static bool is_tail_call(const struct bpf_insn *in)
{
	return in->code == (BPF_JMP | BPF_CALL) && in->src_reg == 0 && in->imm == BPF_FUNC_tail_call;
}

/*
 * A program with a tail call in it gets no private stack from the kernel,
 * dead or not (taskstack.bpf.h puts one behind a constant that is never
 * true for that): the verifier counts them before it drops dead code.  So
 * every tail call stays.  One left behind a decided jump: each decided
 * jump whose dropped side leads to it is left undecided, for the next
 * round.  1 when some were, 0 when every tail call stays, -EINVAL when
 * none could be (the program then goes whole).  LEAD is scratch.
 */
static int keep_tail_calls(struct pruner *p, const unsigned char *reached, unsigned char *lead)
{
	bool missing = false, changed = true;
	int passes, nt, k, d, forced = 0;
	long long t[3];
	size_t i;

	memset(lead, 0, p->n);
	for (i = 0; i < p->n; i++)
		if (!p->half[i] && is_tail_call(&p->in->insns[i]) && !reached[i])
			lead[i] = missing = true;
	if (!missing)
		return 0;
	/* What leads there: backwards sweeps (jumps are mostly forward), bounded. */
	for (passes = 0; changed && passes < PRUNE_MAX_SWEEPS; passes++) {
		changed = false;
		for (i = p->n; i-- > 0;) {
			if (lead[i] || p->half[i])
				continue;
			nt = successors(p, i, t);
			for (k = 0; k < nt; k++)
				if (!target_ok(p, t[k]) && lead[t[k]]) {
					lead[i] = changed = true;
					break;
				}
		}
	}
	if (changed)
		return -EINVAL;
	for (i = 0; i < p->n; i++) {
		const struct bpf_insn *in = &p->in->insns[i];
		long long dropped;

		if (!reached[i] || p->half[i] || p->force[i] || !is_cond_jump(in))
			continue;
		d = decide(&p->st[i], in);
		if (d < 0)
			continue;
		dropped = d == 1 ? (long long)i + 1 : rel_target(i, in);
		if (!target_ok(p, dropped) && lead[dropped]) {
			p->force[i] = 1;
			forced++;
		}
	}
	return forced ? 1 : -EINVAL;
}

/* A jump's new offset, when it fits OFF's 16 bits. */
static int new_off(long long delta, __s16 *off)
{
	if (delta < INT16_MIN || delta > INT16_MAX)
		return -EINVAL;
	*off = delta;
	return 0;
}

/* The kept instructions, renumbered: NEW[i] is i's index, or the next kept one's. */
static int emit(const struct pruner *p, const unsigned char *keep, const size_t *nidx,
		struct prune_out *out)
{
	const struct bpf_insn *insns = p->in->insns;
	size_t i, j;

	for (i = 0; i < p->n; i++) {
		const struct bpf_insn *in = &insns[i];
		enum rel rel = rel_of(in);
		struct bpf_insn *o;
		long long delta;

		if (keep[i] == DROP)
			continue;
		j = nidx[i];
		o = &out->insns[j];
		*o = *in;
		if (p->half[i] || rel == REL_NONE)
			continue;
		delta = (long long)nidx[rel_target(i, in)] - j - 1;
		if (keep[i] == KEEP_AS_GOTO) {
			*o = (struct bpf_insn){ .code = BPF_JMP | BPF_JA };
			out->decided++;
		}
		if (rel == REL_IMM)	/* a decided jump is REL_OFF */
			o->imm = delta;
		else if (new_off(delta, &o->off))
			return -EINVAL;
	}
	return 0;
}

/*
 * func_info: a record per function that stays.  line_info: a record per
 * kept instruction that had one, or the one of a dropped jump before it
 * (the last that lands there: offsets must rise).
 */
static int renumber_info(const struct pruner *p, const unsigned char *reached, const size_t *nidx,
			 struct prune_out *out)
{
	const struct prune_in *in = p->in;
	const unsigned char *src;
	unsigned char *dst;
	__u32 k, off, prev = 0;
	size_t total = nidx[p->n];

	if (in->func_info && in->nfunc) {
		if (in->func_rec < sizeof(__u32))
			return -EINVAL;
		out->func_info = malloc((size_t)in->func_rec * in->nfunc);
		if (!out->func_info)
			return -ENOMEM;
		src = in->func_info;
		dst = out->func_info;
		for (k = 0; k < in->nfunc; k++, src += in->func_rec) {
			memcpy(&off, src, sizeof(off));
			if (off >= p->n)
				return -EINVAL;
			if (!reached[off])
				continue;
			memcpy(dst, src, in->func_rec);
			off = nidx[off];
			memcpy(dst, &off, sizeof(off));
			dst += in->func_rec;
			out->nfunc++;
		}
	}
	if (in->line_info && in->nline) {
		if (in->line_rec < sizeof(__u32))
			return -EINVAL;
		out->line_info = malloc((size_t)in->line_rec * in->nline);
		if (!out->line_info)
			return -ENOMEM;
		src = in->line_info;
		dst = out->line_info;
		for (k = 0; k < in->nline; k++, src += in->line_rec) {
			memcpy(&off, src, sizeof(off));
			if (off >= p->n)
				return -EINVAL;
			if (!reached[off] || nidx[off] >= total)
				continue;
			off = nidx[off];
			if (out->nline && off == prev)
				dst -= in->line_rec;	/* the later record wins */
			else
				out->nline++;
			memcpy(dst, src, in->line_rec);
			memcpy(dst, &off, sizeof(off));
			dst += in->line_rec;
			prev = off;
		}
	}
	return 0;
}

int prune__program(const struct prune_in *in, struct prune_out *out)
{
	struct pruner p = { .in = in, .n = in->cnt };
	unsigned char *keep = NULL, *reached = NULL, *lead = NULL;
	size_t *nidx = NULL, *stack = NULL, i, kept = 0;
	int err = -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!in->cnt || in->nro < 0 || in->nro > PRUNE_MAX_RO)
		return -EINVAL;
	if (in->cnt > PRUNE_MAX_INSNS)
		return -E2BIG;
	p.st = malloc(p.n * sizeof(*p.st));
	p.seen = calloc(p.n, 1);
	p.half = calloc(p.n, 1);
	p.queued = calloc(p.n, 1);
	p.force = calloc(p.n, 1);
	p.work = malloc(p.n * sizeof(*p.work));
	keep = calloc(p.n, 1);
	reached = calloc(p.n, 1);
	lead = calloc(p.n, 1);
	nidx = malloc((p.n + 1) * sizeof(*nidx));
	stack = malloc(p.n * sizeof(*stack));
	if (!p.st || !p.seen || !p.half || !p.queued || !p.force || !p.work || !keep || !reached ||
	    !lead || !nidx || !stack)
		goto out;
	err = -EINVAL;
	for (i = 0; i < p.n; i++) {
		if (!IS_LDIMM64(&in->insns[i]))
			continue;
		if (i + 1 >= p.n)
			goto out;
		p.half[++i] = 1;
	}
	do {
		memset(keep, DROP, p.n);
		memset(reached, 0, p.n);
		err = analyse(&p) ?: mark(&p, keep, reached, stack) ?:
		      keep_tail_calls(&p, reached, lead);
	} while (err == 1);
	if (err)
		goto out;
	for (i = 0; i < p.n; i++) {
		nidx[i] = kept;
		kept += keep[i] != DROP;
	}
	nidx[p.n] = kept;
	err = -ENOMEM;
	out->insns = malloc(kept * sizeof(*out->insns));
	if (!out->insns)
		goto out;
	out->cnt = kept;
	err = emit(&p, keep, nidx, out) ?: renumber_info(&p, reached, nidx, out);
out:
	if (err)
		prune__free(out);
	free(p.st);
	free(p.seen);
	free(p.half);
	free(p.queued);
	free(p.force);
	free(p.work);
	free(keep);
	free(reached);
	free(lead);
	free(nidx);
	free(stack);
	return err;
}

void prune__free(struct prune_out *out)
{
	free(out->insns);
	free(out->func_info);
	free(out->line_info);
	memset(out, 0, sizeof(*out));
}
