/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the resolver (resolve.h is its interface).  One resolution runs
 * in two phases, each in files of its own:
 *
 *   names to offsets  resolve_chain.c   a value's chain through BTF: members,
 *                                       aliases, indexes, casts
 *                     resolve_value.c   a walked chain as a value to copy and
 *                                       print (formats)
 *                     resolve_pred.c    a walked chain as a predicate: the
 *                                       constant, width, signedness
 *   strategy          resolve_strategy.c  how the values are captured: stash,
 *                                       re-read, timing, stack, count/hist
 *
 * resolve.c runs them in order over a spec's items (or the defaults);
 * resolve_sharing.c decides, later, which plans share one program.
 */
#ifndef KSNOOP_RESOLVE_INT_H
#define KSNOOP_RESOLVE_INT_H

#include "resolve.h"

/* A value's chain as walked so far. */
struct chain {
	__u32 type_id;		/* declared type of the current value */
	bool in_reg;		/* the value is the source word itself */
	struct ksnoop_access acc;
	__u32 bit_off;		/* of a bitfield member, within its first byte */
	__u32 bit_size;
};

/* One resolution: what it reads, where it writes, where errors go. */
struct rctx {
	const struct spec *spec;
	const struct signature *sig;
	const struct resolve_opts *opts;
	struct ks_error *err;
	struct capture_plan *plan;
	/* Where types are: the signature's BTF, or plan->ext_btf over it. */
	const struct btf *btf;
	char tbuf[160];
};

/*
 * What the spec's items asked for, as the first phase found it: the
 * strategy decides from this.
 */
struct wants {
	bool entry_values;	/* an item on the entry side (value or predicate) */
	bool return_pred;	/* a predicate on 'return' */
	bool entry_pred;	/* a predicate on an entry value */
	bool return_values;	/* 'return' among the values (not only a predicate) */
	int hist_item;		/* --hist: the item counted by; -1: call durations */
	int pair_item;		/* --pair: the item that is the key; -1: the thread */
};

/* Fail at column POS of the spec: always -EINVAL. */
int rctx__fail(struct rctx *r, int pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Type ID spelled as C, in r->tbuf. */
const char *rctx__type_str(struct rctx *r, __u32 id);

/* The option that counts by the spec's one value, for messages: "--hist", "--stats". */
static inline const char *rctx__value_option(const struct rctx *r)
{
	return r->opts->pair_start ? "--pair" : r->opts->output == OUTPUT_STATS ? "--stats" : "--hist";
}

/* resolve_chain.c: walk IT's chain (argument or return, then its steps). */
int chain__walk(struct rctx *r, const struct spec_item *it, struct chain *c);
/* Start one more dereference level (load the pointer the chain is at). */
int chain__push_deref(struct rctx *r, struct chain *c, int pos);
/* Member NAME of struct or union ID, looking into anonymous members: 0 or -ENOENT. */
int chain__find_member(const struct btf *btf, __u32 id, const char *name,
		       __u32 *type_id, __u32 *bit_off, __u32 *bit_size);

/* resolve_value.c: an array of 1-byte integers (char, u8 ...). */
bool value__is_byte_array(const struct btf *btf, __u32 id);
/* ":str(LEN)": the length argument into ACC (nothing without one). */
int value__str_len(struct rctx *r, const struct spec_item *it, struct ksnoop_access *acc);
/* Whether IT's ":FORMAT" fits the value the chain reached. */
int value__check_format(struct rctx *r, const struct spec_item *it, const struct chain *c);
/* A return code (an int, a long or a pointer) whose -1 to -4095 are errnos? */
bool value__is_error_code(const struct rctx *r, const struct chain *c, const char *base);
/* The walked chain as a value: what to copy (c->acc) and how to print (VD). */
int value__from_chain(struct rctx *r, struct chain *c, const struct spec_item *it,
		      const char *text, int pos, struct value_desc *vd);

/* resolve_tuple.c: whether ':tuple' fits the value (a skb or sock pointer) ... */
int value__check_tuple(struct rctx *r, const struct spec_item *it, const struct chain *c);
/* ... and the fields it copies from the struct the chain points at. */
int value__tuple(struct rctx *r, struct chain *c, const struct spec_item *it, int pos,
		 struct value_desc *vd);
/* --filter: the target's first struct sk_buff * is the one its filter judges. */
int value__filter(struct rctx *r);
/* --filter: judged at the entry, which must then run (after the strategy). */
int value__filter_side(struct rctx *r);
/* --pcap: the packet of the target's first struct sk_buff * as one more entry value. */
int value__packet(struct rctx *r, struct wants *w);
/* The first parameter of SIG that is a struct sk_buff * or a sock's pointer (*IS_SOCK), or -1. */
int value__skb_or_sock_param(const struct signature *sig, bool *is_sock);
/* resolve_netns.c: --netns, a predicate on that parameter's namespace. */
int pred__netns(struct rctx *r, struct wants *w);
/* ... and --by VALUE:tuple: the flow's key, into plan.by_value. */
int by__tuple(struct rctx *r, const struct spec_item *it, struct chain *c);

/* resolve_pred.c: IT, a predicate, into PP. */
int pred__make(struct rctx *r, const struct spec_item *it, struct ksnoop_pred_plan *pp);
/*
 * A scalar a predicate (or --hist) reads: its width in bytes (a
 * bitfield's: the bytes that hold it, its bits noted in PP) ...
 */
int pred__width(const struct rctx *r, const struct chain *c, struct ksnoop_pred_plan *pp);
/* ... and the access to it: the register word itself, or WIDTH bytes. */
void pred__access(struct chain *c, struct ksnoop_pred_plan *pp, int width);

/* resolve_strategy.c: is IT the value --by names? */
bool strategy__is_by_item(const struct rctx *r, const struct spec_item *it);
/* resolve_strategy.c: --hist of durations needs a return: 0, or the error. */
int strategy__check_durations(struct rctx *r);
/* Decide how the resolved values are captured, and lay out the records. */
int strategy__choose(struct rctx *r, const struct wants *w);

#endif
