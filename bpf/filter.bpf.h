/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --filter: a pcap-filter expression, compiled by libpcap into classic
 * BPF (ksnoop/spec/pfilter.c), judges the packet of the skb a target
 * binds, after the typed predicates held and before anything is reserved:
 * a packet it rejects is no event, no count, no stash.
 *
 * The program runs as eBPF of the capture program's own: userspace
 * translates it (ksnoop/spec/pfilter_ebpf.c) into the region filter_code()
 * keeps, before libbpf opens the object, so the verifier checks it and
 * the JIT compiles it with the rest.  Its loads read the skb's linear
 * data, bounded by --snaplen: a copy of the packet's first bytes made
 * once (as many as the program may load, pfilter__need()), past it a
 * non-faulting read.  The skb's fields are read in one span.  Which of
 * the two programs runs (libpcap compiles one per link type) follows the
 * skb: Ethernet's from the MAC header when it is set and is Ethernet's (14
 * bytes, its type field the skb's protocol) or the device is an Ethernet
 * (or loopback) one, else raw IP from the network header, as --pcap's
 * file names the link.
 * Without --filter the verifier prunes all of this (filter_plan.enabled
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

/* net_device.type: the link types whose MAC header is Ethernet's. */
#define FILTER_ARPHRD_ETHER	1
#define FILTER_ARPHRD_LOOPBACK	772

const volatile struct ksnoop_filter_plan filter_plan = {};

#define FILTER_STR(x)	#x
#define FILTER_XSTR(x)	FILTER_STR(x)

/*
 * The filter's code over frame FR: the region userspace writes it into
 * (include/ksnoop_cbpf.h: r6 the frame, r0-r8 its own, the verdict in
 * w0).  Unwritten, the region is a marker and "goto +0"s that nothing
 * reaches: without --filter, filter_plan.enabled is a constant 0.
 */
static __always_inline __u64 filter_code(struct ksnoop_cbpf_frame *fr)
{
	__u64 verdict;

	asm volatile("r6 = %[fr]\n\t"
		     "r0 = " FILTER_XSTR(KSNOOP_CBPF_MAGIC) " ll\n\t"
		     ".rept " FILTER_XSTR(KSNOOP_CBPF_REGION) " - 2\n\t"
		     "goto +0\n\t"
		     ".endr\n\t"
		     "%[verdict] = r0"
		     : [verdict] "=r"(verdict)
		     : [fr] "r"(fr)
		     : "r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "memory");
	return verdict;
}

/* The skb's fields the filter needs; false: not readable, no packet. */
struct filter_skb {
	__u64 head, data, dev;
	__u32 len, data_len;
	__u16 mac_header, network_header, protocol, dev_type;
};

/* Widen [*LO, *HI) to field I of SIZE bytes, if the kernel has it. */
static __always_inline void filter_span(int i, __u32 size, __u32 *lo, __u32 *hi)
{
	__u32 off = tuple_off(&filter_plan.skb, i);

	if (off == KSNOOP_TUPLE_NO_FIELD)
		return;
	if (off < *lo)
		*lo = off;
	if (off + size > *hi)
		*hi = off + size;
}

/*
 * Field I of SIZE bytes (8, 4, 2) from WIN, the skb's bytes from offset LO;
 * absent: 0.  One load: the window has 8 bytes to spare past its mask.
 */
static __always_inline void filter_field(const __u8 *win, __u32 lo, int i, void *dst, __u32 size)
{
	__u32 off = tuple_off(&filter_plan.skb, i);
	const __u8 *p = win + ((off - lo) & (FILTER_SKB_WINDOW - 1));

	if (off == KSNOOP_TUPLE_NO_FIELD)
		return;
	if (size == 8)
		*(__u64 *)dst = *(const __u64 *)p;
	else if (size == 4)
		*(__u32 *)dst = *(const __u32 *)p;
	else
		*(__u16 *)dst = *(const __u16 *)p;
}

/*
 * The skb's fields, in one read of the span they lie in (a constant: the
 * offsets are .rodata) when it fits the frame's window, else one read
 * each.  Not the device (at the struct's start, far from the others) and
 * its type: filter_dev_type() reads them where the frame does not say
 * that it is Ethernet's.
 */
static __always_inline bool filter_read_skb(union locals *lo, __u64 skb, struct filter_skb *s)
{
	const volatile struct ksnoop_access *acc = &filter_plan.skb;
	__u32 first = 0xffffffffu, end = 0;
	__u8 *win = lo->filter.skb;

	if (!skb)
		return false;
	filter_span(KSNOOP_PKT_HEAD, 8, &first, &end);
	filter_span(KSNOOP_PKT_DATA, 8, &first, &end);
	filter_span(KSNOOP_PKT_LEN, 4, &first, &end);
	filter_span(KSNOOP_PKT_DATA_LEN, 4, &first, &end);
	filter_span(KSNOOP_PKT_MAC_HEADER, 2, &first, &end);
	filter_span(KSNOOP_PKT_NETWORK_HEADER, 2, &first, &end);
	filter_span(KSNOOP_PKT_PROTOCOL, 2, &first, &end);
	if (end > first && end - first <= FILTER_SKB_WINDOW) {
		if (bpf_probe_read_kernel(win, end - first, (const void *)(skb + first)))
			return false;
		filter_field(win, first, KSNOOP_PKT_HEAD, &s->head, 8);
		filter_field(win, first, KSNOOP_PKT_DATA, &s->data, 8);
		filter_field(win, first, KSNOOP_PKT_LEN, &s->len, 4);
		filter_field(win, first, KSNOOP_PKT_DATA_LEN, &s->data_len, 4);
		filter_field(win, first, KSNOOP_PKT_MAC_HEADER, &s->mac_header, 2);
		filter_field(win, first, KSNOOP_PKT_NETWORK_HEADER, &s->network_header, 2);
		filter_field(win, first, KSNOOP_PKT_PROTOCOL, &s->protocol, 2);
	} else if (read_field(acc, KSNOOP_PKT_HEAD, skb, &s->head, 8) ||
		   read_field(acc, KSNOOP_PKT_DATA, skb, &s->data, 8) ||
		   read_field(acc, KSNOOP_PKT_LEN, skb, &s->len, 4) ||
		   read_field(acc, KSNOOP_PKT_DATA_LEN, skb, &s->data_len, 4) ||
		   read_field(acc, KSNOOP_PKT_MAC_HEADER, skb, &s->mac_header, 2) ||
		   read_field(acc, KSNOOP_PKT_NETWORK_HEADER, skb, &s->network_header, 2) ||
		   read_field(acc, KSNOOP_PKT_PROTOCOL, skb, &s->protocol, 2)) {
		return false;
	}
	s->dev_type = 0xffff;
	return s->head != 0;
}

/* The device's type, where a MAC header is set: filter_link() looks at it nowhere else. */
static __always_inline void filter_dev_type(__u64 skb, struct filter_skb *s)
{
	const volatile struct ksnoop_access *acc = &filter_plan.skb;

	if (s->mac_header == 0xffff || read_field(acc, KSNOOP_PKT_DEV, skb, &s->dev, 8) ||
	    !s->dev || read_field(acc, KSNOOP_PKT_DEV_TYPE, s->dev, &s->dev_type, 2))
		s->dev_type = 0xffff;
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

/*
 * The packet's first bytes from START into the frame, in one read: as
 * many as the link's program may load (filter_plan.need), at least MIN
 * where there are as many; the code loads them from there.  False: none
 * to judge, or not readable (the packet is rejected).
 */
static __always_inline bool filter_copy(union locals *lo, const struct filter_skb *s, __u32 link,
					__u64 start, __u32 min)
{
	/* The linear data ends here; the rest is in fragments, not loaded. */
	__u64 end = s->data + (s->data_len < s->len ? s->len - s->data_len : 0);
	__u64 wire = s->data + s->len;
	struct ksnoop_cbpf_frame *fr = &lo->filter.frame;
	__u32 n = link ? filter_plan.ninsns[1] : filter_plan.ninsns[0];
	__u32 need = link ? filter_plan.need[1] : filter_plan.need[0];
	__u32 copy;

	if (!n || end <= start)
		return false;
	if (need < min)
		need = min;
	fr->start = start;
	fr->link = link;
	fr->caplen = end - start < filter_plan.snaplen ? end - start : filter_plan.snaplen;
	fr->wirelen = wire - start <= 0xffffffffULL ? wire - start : 0xffffffffU;
	copy = fr->caplen < need ? fr->caplen : need;
	if (copy > KSNOOP_CBPF_COPY)
		copy = KSNOOP_CBPF_COPY;
	fr->copied = copy;
	return !copy || !bpf_probe_read_kernel(fr->pkt, copy, (const void *)start);
}

/*
 * A MAC header of Ethernet's 14 bytes whose type field is the skb's
 * protocol: the frame says it is Ethernet's, and the device's type need
 * not be read (one read less a packet).  Anything else (no MAC header, a
 * VLAN tag in the frame, another link's header, a capture too short) is
 * left to the device's type, as --pcap's file names the link.
 */
#define FILTER_ETH_HLEN	14

static __always_inline bool filter_ethernet_framed(union locals *lo, const struct filter_skb *s)
{
	const struct ksnoop_cbpf_frame *fr = &lo->filter.frame;
	__u16 type;

	if (s->mac_header == 0xffff || s->network_header == 0xffff ||
	    s->network_header - s->mac_header != FILTER_ETH_HLEN || !s->protocol ||
	    !filter_copy(lo, s, KSNOOP_CBPF_ETHERNET, s->head + s->mac_header, FILTER_ETH_HLEN) ||
	    fr->copied < FILTER_ETH_HLEN)
		return false;
	__builtin_memcpy(&type, fr->pkt + 12, 2);
	return type == s->protocol;
}

/* --filter: does the packet of the target's skb pass?  Always, without one. */
static __always_inline bool filter_pass(const __u64 *words)
{
	struct filter_skb s;
	union locals *lo;
	__u64 start = 0;
	__u32 link = 0, f;
	bool pass = false, copied;
	__u64 skb;

	if (!filter_plan.enabled)
		return true;
	__builtin_memset(&s, 0, sizeof(s));
	if (src_unread(words, &filter_plan.skb))
		return false;
	lo = locals_take(&f);
	if (!lo)
		return false;
	skb = src_word(words, &filter_plan.skb);
	if (filter_read_skb(lo, skb, &s)) {
		copied = filter_ethernet_framed(lo, &s);
		if (!copied) {
			filter_dev_type(skb, &s);
			copied = filter_link(&s, &link, &start) &&
				 filter_copy(lo, &s, link, start, 0);
		}
		/* One call: the region is written over once per program. */
		if (copied)
			pass = filter_code(&lo->filter.frame) != 0;
	}
	locals_give(f);
	return pass;
}

#endif /* KSNOOP_FILTER_BPF_H */
