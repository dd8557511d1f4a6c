/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Predicates, evaluated before anything is reserved or copied: a scalar
 * read and extended from its width (or bitfield), compared signed or
 * unsigned; a string compared with the plan's constant.
 */
#ifndef KSNOOP_PRED_BPF_H
#define KSNOOP_PRED_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "plan.bpf.h"
#include "words.bpf.h"
#include "read.bpf.h"
#include "scratch.bpf.h"

/* Read the scalar a predicate tests, sign- or zero-extended to 64 bits. */
static __always_inline int pred_scalar(const volatile struct ksnoop_pred_plan *p,
				       __u64 word, __u64 *val)
{
	__u32 shift = 64 - 8 * p->width;
	__u64 addr, v = 0;
	bool user;

	if (p->acc.flags & KSNOOP_VAL_REG) {
		v = word;
	} else {
		if (walk(&p->acc, word, &addr, &user) != KSNOOP_OK)
			return -1;
		if (read_mem(&v, p->width, addr, user))
			return -1;
	}
	/* A bitfield: its bits, then extended from its own width. */
	if (p->bit_size) {
		v >>= p->bit_off;
		shift = 64 - p->bit_size;
	}
	if (shift && shift < 64) {
		if (p->is_signed)
			v = (__u64)((__s64)(v << shift) >> shift);
		else
			v = (v << shift) >> shift;
	}
	*val = v;
	return 0;
}

/*
 * A string predicate: the bytes to read for it, at most
 * KSNOOP_MAX_PRED_STR + 1 (one more than the longest constant: a longer
 * string differs).  ":str(LEN)": the characters LEN allows, and the NUL.
 */
static __always_inline __u64 pred_str_want(const volatile struct ksnoop_pred_plan *p,
					   const __u64 *words)
{
	__u64 want = KSNOOP_MAX_PRED_STR + 1, nchars;

	if (!(p->acc.flags & KSNOOP_VAL_STR))
		return p->acc.size < want ? p->acc.size : want;
	nchars = str_chars(&p->acc, words);
	if (nchars < KSNOOP_MAX_PRED_STR)
		want = nchars + 1;
	barrier_var(want);
	if (want > KSNOOP_MAX_PRED_STR + 1)
		want = KSNOOP_MAX_PRED_STR + 1;
	return want;
}

/*
 * Read WANT bytes at ADDR into a scratch frame and compare them with P's
 * constant: 1 equal, 0 not, -1 not read (no frame, or a fault; nothing is
 * paged in here, since a frame is held).
 */
static __always_inline int pred_str_eq(const volatile struct ksnoop_pred_plan *p, __u64 want,
				       __u64 addr, bool user)
{
	union locals *l;
	char *buf;
	__u32 f;
	int i, eq = 1;

	l = locals_take(&f);
	if (!l)
		return -1;
	buf = l->pred_str;
	/* What a char array leaves unread is zeroes, as a string's end. */
	__builtin_memset(buf, 0, sizeof(l->pred_str));
	if (p->acc.flags & KSNOOP_VAL_STR ? read_str_now(buf, want, addr, user) < 0 :
	    read_mem_now(buf, want, addr, user) != 0) {
		locals_give(f);
		return -1;
	}
	for (i = 0; i < KSNOOP_MAX_PRED_STR; i++) {
		if (buf[i] != p->str[i]) {
			eq = 0;
			break;
		}
		if (!buf[i])
			break;
	}
	locals_give(f);
	return eq;
}

static __always_inline bool pred_holds(const __u64 *words,
				       const volatile struct ksnoop_pred_plan *p)
{
	__u64 word = src_word(words, &p->acc);
	__u64 v, c = p->imm;

	/* A value that cannot be read holds no predicate, as a fault below. */
	if (src_unread(words, &p->acc))
		return false;
	if (p->is_str) {
		__u64 addr, want = pred_str_want(p, words);
		bool user;
		int eq;

		if (walk(&p->acc, word, &addr, &user) != KSNOOP_OK)
			return false;
		/* Paged in first, where it may need to be: no frame is held while it sleeps. */
		if (may_fault_in(user))
			fault_in(addr, want);
		eq = pred_str_eq(p, want, addr, user);
		if (eq < 0)
			return false;
		return p->op == KSNOOP_OP_EQ ? eq : !eq;
	}

	if (pred_scalar(p, word, &v))
		return false;
	if (p->mask)
		v &= p->mask;
	switch (p->op) {
	case KSNOOP_OP_EQ: return v == c;
	case KSNOOP_OP_NE: return v != c;
	}
	if (p->is_signed) {
		switch (p->op) {
		case KSNOOP_OP_LT: return (__s64)v < (__s64)c;
		case KSNOOP_OP_LE: return (__s64)v <= (__s64)c;
		case KSNOOP_OP_GT: return (__s64)v > (__s64)c;
		case KSNOOP_OP_GE: return (__s64)v >= (__s64)c;
		}
	} else {
		switch (p->op) {
		case KSNOOP_OP_LT: return v < c;
		case KSNOOP_OP_LE: return v <= c;
		case KSNOOP_OP_GT: return v > c;
		case KSNOOP_OP_GE: return v >= c;
		}
	}
	return false;
}

static __always_inline bool preds_hold(const volatile struct ksnoop_side_plan *side,
				       const __u64 *words)
{
	int i;

	for (i = 0; i < KSNOOP_MAX_PREDS; i++) {
		if (i >= side->npreds)
			break;
		if (!pred_holds(words, &side->preds[i]))
			return false;
	}
	return true;
}

#endif /* KSNOOP_PRED_BPF_H */
