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

static __always_inline bool pred_holds(const __u64 *words,
				       const volatile struct ksnoop_pred_plan *p)
{
	__u64 word = src_word(words, &p->acc);
	__u64 v, c = p->imm;
	int i;

	/* A value that cannot be read holds no predicate, as a fault below. */
	if (src_unread(words, &p->acc))
		return false;
	if (p->is_str) {
		/* One byte more than the longest constant: a longer string differs. */
		char buf[KSNOOP_MAX_PRED_STR + 1] = {};
		__u32 size = p->acc.size < sizeof(buf) ? p->acc.size : sizeof(buf);
		__u64 addr;
		bool eq = true, user;

		if (walk(&p->acc, word, &addr, &user) != KSNOOP_OK)
			return false;
		if (p->acc.flags & KSNOOP_VAL_STR) {
			/* ":str(LEN)": the characters LEN allows, then the zeroes of buf. */
			__u64 nchars = str_chars(&p->acc, words);

			__u64 want = sizeof(buf);

			if (nchars < sizeof(buf) - 1)
				want = nchars + 1;
			barrier_var(want);
			if (want > sizeof(buf))
				want = sizeof(buf);
			if (read_str(buf, want, addr, user) < 0)
				return false;
		} else if (read_mem(buf, size, addr, user)) {
			return false;
		}
		for (i = 0; i < KSNOOP_MAX_PRED_STR; i++) {
			if (buf[i] != p->str[i]) {
				eq = false;
				break;
			}
			if (!buf[i])
				break;
		}
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
