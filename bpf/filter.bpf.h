/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --filter: a pcap-filter expression, compiled by libpcap into classic
 * BPF (ksnoop/spec/pfilter.c), judges the packet of the skb a target
 * binds, after the typed predicates held and before anything is reserved:
 * a packet it rejects is no event, no count, no stash.
 *
 * The program is interpreted: one bpf_loop() step per instruction
 * (include/ksnoop_cbpf.h), the machine's registers in a locals frame,
 * every load a non-faulting read of the skb's linear data, bounded by
 * --snaplen.  Which of the two programs runs (libpcap compiles one per
 * link type) follows the skb: an Ethernet (or loopback) device's MAC
 * header when it is set, else raw IP from the network header, as
 * --pcap's file names the link.  The instructions are in filter_insns,
 * created only with --filter (shared by every instance, filled once);
 * without --filter the verifier prunes all of this (filter_plan.enabled
 * is a constant).
 */
#ifndef KSNOOP_FILTER_BPF_H
#define KSNOOP_FILTER_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "words.bpf.h"
#include "scratch.bpf.h"
#include "value.bpf.h"

#define KSNOOP_CBPF_READ(r, off, dst, size) \
	bpf_probe_read_kernel(dst, size, (const void *)((r)->start + (off)))
#include "ksnoop_cbpf.h"

/* net_device.type: the link types whose MAC header is Ethernet's. */
#define FILTER_ARPHRD_ETHER	1
#define FILTER_ARPHRD_LOOPBACK	772

const volatile struct ksnoop_filter_plan filter_plan = {};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, KSNOOP_CBPF_NR_LINKS * KSNOOP_CBPF_MAX_INSNS);
	__type(key, __u32);
	__type(value, struct ksnoop_cbpf_insn);
} filter_insns SEC(".maps");

/* bpf_loop()'s context: the machine, and which program. */
struct filter_loop {
	struct ksnoop_cbpf_run *run;
	__u32 base;
	__u32 ninsns;
};

static long filter_step(__u32 i, void *ctx)
{
	struct filter_loop *l = ctx;
	struct ksnoop_cbpf_run *r = l->run;
	struct ksnoop_cbpf_insn *in;
	__u32 idx;

	if (r->pc >= l->ninsns || r->pc >= KSNOOP_CBPF_MAX_INSNS)
		return ksnoop_cbpf_reject(r);
	idx = l->base + r->pc;
	in = bpf_map_lookup_elem(&filter_insns, &idx);
	if (!in)
		return ksnoop_cbpf_reject(r);
	return ksnoop_cbpf_step(r, in->code, in->jt, in->jf, in->k);
}

/* The skb's fields the filter needs; false: not readable, no packet. */
struct filter_skb {
	__u64 head, data, dev;
	__u32 len, data_len;
	__u16 mac_header, network_header, dev_type;
};

static __always_inline bool filter_read_skb(__u64 skb, struct filter_skb *s)
{
	const volatile struct ksnoop_access *acc = &filter_plan.skb;

	if (!skb || read_field(acc, KSNOOP_PKT_HEAD, skb, &s->head, 8) ||
	    read_field(acc, KSNOOP_PKT_DATA, skb, &s->data, 8) ||
	    read_field(acc, KSNOOP_PKT_LEN, skb, &s->len, 4) ||
	    read_field(acc, KSNOOP_PKT_DATA_LEN, skb, &s->data_len, 4) ||
	    read_field(acc, KSNOOP_PKT_MAC_HEADER, skb, &s->mac_header, 2) ||
	    read_field(acc, KSNOOP_PKT_NETWORK_HEADER, skb, &s->network_header, 2) ||
	    read_field(acc, KSNOOP_PKT_DEV, skb, &s->dev, 8))
		return false;
	s->dev_type = 0xffff;
	if (s->dev && read_field(acc, KSNOOP_PKT_DEV_TYPE, s->dev, &s->dev_type, 2))
		s->dev_type = 0xffff;
	return s->head != 0;
}

/* Where the packet starts for its link type's program; false: no header set. */
static __always_inline bool filter_link(const struct filter_skb *s, __u32 *link, __u64 *start)
{
	if (s->mac_header != 0xffff &&
	    (s->dev_type == FILTER_ARPHRD_ETHER || s->dev_type == FILTER_ARPHRD_LOOPBACK)) {
		*link = KSNOOP_CBPF_ETHERNET;
		*start = s->head + s->mac_header;
		return true;
	}
	if (s->network_header == 0xffff)
		return false;
	*link = KSNOOP_CBPF_RAW;
	*start = s->head + s->network_header;
	return true;
}

/* Run the link's program over the packet; true: it accepts. */
static __always_inline bool filter_run(const struct filter_skb *s, __u32 link, __u64 start)
{
	/* The linear data ends here; the rest is in fragments, not loaded. */
	__u64 end = s->data + (s->data_len < s->len ? s->len - s->data_len : 0);
	__u64 wire = s->data + s->len;
	struct filter_loop l = {};
	union locals *lo;
	__u32 f, n = link ? filter_plan.ninsns[1] : filter_plan.ninsns[0];
	bool pass;

	if (!n || end <= start)
		return false;
	lo = locals_take(&f);
	if (!lo)
		return false;
	__builtin_memset(&lo->filter, 0, sizeof(lo->filter));
	lo->filter.start = start;
	lo->filter.caplen = end - start < filter_plan.snaplen ? end - start : filter_plan.snaplen;
	lo->filter.wirelen = wire - start <= 0xffffffffULL ? wire - start : 0xffffffffU;
	l.run = &lo->filter;
	l.base = link * KSNOOP_CBPF_MAX_INSNS;
	l.ninsns = n;
	bpf_loop(n, filter_step, &l, 0);
	pass = lo->filter.verdict;
	locals_give(f);
	return pass;
}

/* --filter: does the packet of the target's skb pass?  Always, without one. */
static __always_inline bool filter_pass(const __u64 *words)
{
	struct filter_skb s;
	__u64 start = 0;
	__u32 link = 0;

	if (!filter_plan.enabled)
		return true;
	__builtin_memset(&s, 0, sizeof(s));
	if (src_unread(words, &filter_plan.skb))
		return false;
	if (!filter_read_skb(src_word(words, &filter_plan.skb), &s) ||
	    !filter_link(&s, &link, &start))
		return false;
	return filter_run(&s, link, start);
}

#endif /* KSNOOP_FILTER_BPF_H */
