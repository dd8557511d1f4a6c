/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --by 'skb:tuple', --by 'sk:tuple': a tuple as captured (ksnoop.h) made
 * a key, the same for every packet of one flow and every call on one
 * socket.  What tuple__from_skb() and tuple__from_sock() read is kept;
 * what varies per packet or per call is zeroed, or normalised where the
 * parser only asks a question of it.  For both sides: BPF keys by_counts
 * with it, the unit tests check it against the parser.
 *
 * Skb, IPv4: kept the version and header length, the protocol, the
 * addresses, and "a later fragment" (as fragment offset 1); zeroed TOS,
 * total length, id, flags, TTL, checksum and what follows the first 20
 * bytes (options, the transport header).  IPv6: kept the version, next
 * header and addresses; zeroed traffic class, flow label (a flow's can
 * change: the kernel rehashes it on timeouts), payload length and hop
 * limit.  Another version: only the version.  The header offsets become
 * KSNOOP_TUPLE_KEY_NETWORK and, where the ports are read, just past the
 * IP header; the 4 transport bytes stay only where they are the ports.
 * Sock: the state is zeroed (a timewait or request sock's protocol is
 * TCP, said in its protocol instead), and the addresses of the family
 * it is not.
 */
#ifndef KSNOOP_TUPLE_KEY_H
#define KSNOOP_TUPLE_KEY_H

#include "ksnoop.h"

/* A key's network header offset: any set one (0 and ~0 are unset). */
#define KSNOOP_TUPLE_KEY_NETWORK	64

#define KSNOOP_KEY_ETH_IPV4	0x0800
#define KSNOOP_KEY_ETH_IPV6	0x86dd
#define KSNOOP_KEY_TCP_TIME_WAIT	6
#define KSNOOP_KEY_TCP_NEW_SYN_RECV	12
#define KSNOOP_KEY_AF_INET	2
#define KSNOOP_KEY_AF_INET6	10
#define KSNOOP_KEY_IPPROTO_TCP	6

/*
 * IP protocols whose first 4 transport bytes are the ports: TCP, UDP,
 * DCCP, SCTP, UDP-Lite (tuple.c's list; a unit test keeps them equal).
 */
static inline __attribute__((always_inline)) int ksnoop_key_has_ports(int proto)
{
	return proto == KSNOOP_KEY_IPPROTO_TCP || proto == 17 || proto == 33 || proto == 132 ||
	       proto == 136;
}

static inline __attribute__((always_inline)) void ksnoop_skb_tuple_key(struct ksnoop_skb_tuple *t)
{
	const __u8 *pb = (const __u8 *)&t->protocol;	/* big-endian */
	__u32 eth = (__u32)pb[0] << 8 | pb[1];
	__u32 nh = t->network_header, th = t->transport_header, l3_len = 0;
	int version = t->l3[0] >> 4, proto = -1, later = 0, ports;

	t->pad = 0;
	if (nh == 0 || nh == 0xffff || !(t->read & KSNOOP_TUPLE_L3) ||
	    (eth && eth != KSNOOP_KEY_ETH_IPV4 && eth != KSNOOP_KEY_ETH_IPV6)) {
		/* The parser stops before the headers' bytes. */
		t->network_header = nh == 0 || nh == 0xffff ? 0xffff : KSNOOP_TUPLE_KEY_NETWORK;
		t->transport_header = 0xffff;
		t->read &= KSNOOP_TUPLE_L3;
		__builtin_memset(t->l3, 0, sizeof(t->l3));
		__builtin_memset(t->l4, 0, sizeof(t->l4));
		return;
	}
	if (version == 4 && eth != KSNOOP_KEY_ETH_IPV6 && (t->l3[0] & 0xf) >= 5) {
		l3_len = (t->l3[0] & 0xf) * 4;
		later = (t->l3[6] & 0x1f) || t->l3[7];
		proto = t->l3[9];
		__builtin_memset(t->l3 + 1, 0, 5);	/* TOS, total length, id */
		t->l3[6] = 0;
		t->l3[7] = later;
		t->l3[8] = 0;				/* TTL */
		t->l3[10] = t->l3[11] = 0;		/* checksum */
		__builtin_memset(t->l3 + 20, 0, sizeof(t->l3) - 20);
	} else if (version == 6 && eth != KSNOOP_KEY_ETH_IPV4) {
		l3_len = 40;
		proto = t->l3[6];
		t->l3[0] &= 0xf0;
		__builtin_memset(t->l3 + 1, 0, 5);	/* class, flow label, length */
		t->l3[7] = 0;				/* hop limit */
	} else {
		t->l3[0] &= version == 4 && eth != KSNOOP_KEY_ETH_IPV6 ? 0xff : 0xf0;
		__builtin_memset(t->l3 + 1, 0, sizeof(t->l3) - 1);
	}
	ports = ksnoop_key_has_ports(proto) && !later && th != 0xffff && th == nh + l3_len;
	t->network_header = KSNOOP_TUPLE_KEY_NETWORK;
	t->transport_header = ports ? KSNOOP_TUPLE_KEY_NETWORK + l3_len : 0xffff;
	if (!ports || !(t->read & KSNOOP_TUPLE_L4)) {
		t->read &= ~KSNOOP_TUPLE_L4;
		__builtin_memset(t->l4, 0, sizeof(t->l4));
	}
}

static inline __attribute__((always_inline)) void ksnoop_sock_tuple_key(struct ksnoop_sock_tuple *t)
{
	if (t->state == KSNOOP_KEY_TCP_TIME_WAIT || t->state == KSNOOP_KEY_TCP_NEW_SYN_RECV)
		t->protocol = KSNOOP_KEY_IPPROTO_TCP;
	t->state = 0;
	t->pad[0] = t->pad[1] = t->pad[2] = 0;
	if (t->family != KSNOOP_KEY_AF_INET) {
		__builtin_memset(t->rcv_saddr, 0, sizeof(t->rcv_saddr));
		__builtin_memset(t->daddr, 0, sizeof(t->daddr));
	}
	if (t->family != KSNOOP_KEY_AF_INET6) {
		__builtin_memset(t->v6_rcv_saddr, 0, sizeof(t->v6_rcv_saddr));
		__builtin_memset(t->v6_daddr, 0, sizeof(t->v6_daddr));
	}
	if (t->family != KSNOOP_KEY_AF_INET && t->family != KSNOOP_KEY_AF_INET6) {
		t->num = t->dport = 0;
		t->protocol = 0;
	}
}

#endif
