// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ':tuple' parsed and written (tuple.h).
 *
 * A skb's headers are believed only as far as they hold together: a
 * network header that is set (the kernel marks an unset one ~0, and a
 * fresh skb has 0, where no IP header ever starts: drivers leave room
 * for the link layer), an IP version of 4 or 6 that the skb's protocol
 * does not contradict, an IPv4 header length of at least 20 bytes, and
 * ports only where the transport header is set exactly past the IP
 * header (early on the receive path it still equals the network header)
 * of a packet that is not a later fragment.  A sock's fields are what
 * the socket holds: its bound address and port, and the peer's (0 when
 * not connected).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include "tuple.h"

#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_IPV6	0x86dd
#define IPV4_MIN_HDR	20
#define IPV6_HDR	40
#define SK_TIME_WAIT	6	/* TCP_TIME_WAIT: a timewait sock, no sk_protocol */
#define SK_NEW_SYN_RECV	12	/* TCP_NEW_SYN_RECV: a request sock, the same */
#define PROTO_MPTCP	262

static const struct {
	int proto;
	const char *name;
	bool ports;	/* source and destination port in its first 4 bytes */
} protos[] = {
	{ 0, "hopopts", false }, { 1, "icmp", false }, { 2, "igmp", false }, { 4, "ipip", false },
	{ 6, "tcp", true }, { 17, "udp", true }, { 33, "dccp", true }, { 41, "ipv6", false },
	{ 43, "routing", false }, { 44, "fragment", false }, { 47, "gre", false }, { 50, "esp", false }, { 51, "ah", false },
	{ 58, "icmpv6", false }, { 59, "none", false }, { 60, "dstopts", false }, { 103, "pim", false },
	{ 132, "sctp", true }, { 136, "udplite", true }, { PROTO_MPTCP, "mptcp", true },
};

const char *tuple__proto_name(int proto)
{
	size_t i;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (protos[i].proto == proto)
			return protos[i].name;
	return NULL;
}

static bool proto_has_ports(int proto)
{
	size_t i;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++)
		if (protos[i].proto == proto)
			return protos[i].ports;
	return false;
}

static void tuple_unknown(struct tuple *t, const char *why)
{
	memset(t, 0, sizeof(*t));
	t->proto = -1;
	t->why = why;
}

static __u16 load_be16(const __u8 *p)
{
	return (__u16)(p[0] << 8 | p[1]);
}

/* The IP header at S->l3: addresses, protocol, its length; false if it is none. */
static bool parse_ip(const struct ksnoop_skb_tuple *s, struct tuple *t, __u32 *l3_len,
		     bool *later_fragment)
{
	int version = s->l3[0] >> 4;
	__u16 ethertype = ntohs(s->protocol);

	if (version == 4 && ethertype != ETHERTYPE_IPV6) {
		if ((s->l3[0] & 0xf) * 4 < IPV4_MIN_HDR) {
			t->why = "not an IPv4 header (length under 20 bytes)";
			return false;
		}
		t->family = AF_INET;
		memcpy(t->saddr, s->l3 + 12, 4);
		memcpy(t->daddr, s->l3 + 16, 4);
		t->proto = s->l3[9];
		*l3_len = (s->l3[0] & 0xf) * 4;
		*later_fragment = (load_be16(s->l3 + 6) & 0x1fff) != 0;
		return true;
	}
	if (version == 6 && ethertype != ETHERTYPE_IPV4) {
		t->family = AF_INET6;
		memcpy(t->saddr, s->l3 + 8, 16);
		memcpy(t->daddr, s->l3 + 24, 16);
		t->proto = s->l3[6];
		*l3_len = IPV6_HDR;
		*later_fragment = false;
		return true;
	}
	t->why = "the network header is not IPv4 or IPv6";
	t->ethertype = ethertype;
	return false;
}

void tuple__from_skb(const void *raw, size_t len, struct tuple *t)
{
	struct ksnoop_skb_tuple s;
	__u32 l3_len = 0;
	bool later_fragment = false;
	__u16 ethertype;

	tuple_unknown(t, NULL);
	if (!raw || len < sizeof(s)) {
		t->why = "captured bytes cut short";
		return;
	}
	memcpy(&s, raw, sizeof(s));
	ethertype = ntohs(s.protocol);
	if (s.network_header == 0xffff || s.network_header == 0) {
		t->why = "no network header set yet";
		return;
	}
	if (!(s.read & KSNOOP_TUPLE_L3)) {
		t->why = "the network header could not be read";
		return;
	}
	if (ethertype && ethertype != ETHERTYPE_IPV4 && ethertype != ETHERTYPE_IPV6) {
		t->ethertype = ethertype;
		t->why = "not IP";
		return;
	}
	if (!parse_ip(&s, t, &l3_len, &later_fragment))
		return;
	t->ports = proto_has_ports(t->proto);
	if (!t->ports)
		return;
	if (later_fragment)
		t->why = "a later fragment: no transport header";
	else if (s.transport_header == 0xffff || s.transport_header != s.network_header + l3_len)
		t->why = "no transport header set yet";
	else if (!(s.read & KSNOOP_TUPLE_L4))
		t->why = "the transport header could not be read";
	if (t->why)
		return;
	t->ports_known = true;
	t->sport = load_be16(s.l4);
	t->dport = load_be16(s.l4 + 2);
}

void tuple__from_sock(const void *raw, size_t len, struct tuple *t)
{
	struct ksnoop_sock_tuple s;

	tuple_unknown(t, NULL);
	if (!raw || len < sizeof(s)) {
		t->why = "captured bytes cut short";
		return;
	}
	memcpy(&s, raw, sizeof(s));
	if (s.family == AF_INET) {
		memcpy(t->saddr, s.rcv_saddr, 4);
		memcpy(t->daddr, s.daddr, 4);
	} else if (s.family == AF_INET6) {
		memcpy(t->saddr, s.v6_rcv_saddr, 16);
		memcpy(t->daddr, s.v6_daddr, 16);
	} else {
		t->sock_family = s.family;
		t->why = "not an IPv4 or IPv6 socket";
		return;
	}
	t->family = s.family;
	/* Timewait and request socks are TCP's, and end before sk_protocol. */
	if (s.state == SK_TIME_WAIT || s.state == SK_NEW_SYN_RECV)
		t->proto = IPPROTO_TCP;
	else if (s.protocol != KSNOOP_TUPLE_NO_FIELD)
		t->proto = s.protocol;
	t->ports = t->proto < 0 || proto_has_ports(t->proto);
	t->ports_known = true;
	t->sport = s.num;
	t->dport = ntohs(s.dport);
}

/* One end: "10.0.0.1:80", "[::1]:80", "10.0.0.1:?", "10.0.0.1" (no ports). */
static void format_end(const struct tuple *t, const __u8 *addr, __u16 port, char *buf,
		       size_t size)
{
	char a[INET6_ADDRSTRLEN], p[8] = "?";
	bool v6 = t->family == AF_INET6;

	if (!inet_ntop(t->family, addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (!t->ports) {
		snprintf(buf, size, "%s", a);
		return;
	}
	if (t->ports_known)
		snprintf(p, sizeof(p), "%u", port);
	snprintf(buf, size, "%s%s%s:%s", v6 ? "[" : "", a, v6 ? "]" : "", p);
}

static void format_proto(int proto, char *buf, size_t size)
{
	const char *name = tuple__proto_name(proto);

	if (proto < 0)
		snprintf(buf, size, "?");
	else if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%d", proto);
}

void tuple__format(const struct tuple *t, char *buf, size_t size)
{
	char src[64], dst[64], proto[16];

	if (t->family != AF_INET && t->family != AF_INET6) {
		snprintf(buf, size, "?");
		return;
	}
	format_end(t, t->saddr, t->sport, src, sizeof(src));
	format_end(t, t->daddr, t->dport, dst, sizeof(dst));
	format_proto(t->proto, proto, sizeof(proto));
	snprintf(buf, size, "%s > %s %s", src, dst, proto);
}

/* Text: why something is unknown, as a comment after the tuple. */
static void write_why(struct writer *w, const struct tuple *t)
{
	if (!t->why)
		return;
	if (t->ethertype)
		writer__comment(w, "%s: ethertype 0x%04x", t->why, t->ethertype);
	else if (t->sock_family)
		writer__comment(w, "%s: family %d", t->why, t->sock_family);
	else
		writer__comment(w, "%s", t->why);
}

static void json_addr(struct writer *w, const char *key, const struct tuple *t, const __u8 *addr)
{
	char a[INET6_ADDRSTRLEN];

	writer__key(w, key);
	if (t->family && inet_ntop(t->family, addr, a, sizeof(a)))
		writer__name(w, a);
	else
		writer__null(w, NULL);
}

static void json_port(struct writer *w, const char *key, const struct tuple *t, __u16 port)
{
	writer__key(w, key);
	if (t->family && t->ports && t->ports_known)
		writer__uint(w, port);
	else
		writer__null(w, NULL);
}

static void write_json(struct writer *w, const struct tuple *t, int level)
{
	char proto[16];

	writer__begin_object(w, WRITER_STRUCT, level);
	writer__key(w, "family");
	if (t->family)
		writer__name(w, t->family == AF_INET ? "ipv4" : "ipv6");
	else
		writer__null(w, NULL);
	json_addr(w, "src", t, t->saddr);
	json_port(w, "sport", t, t->sport);
	json_addr(w, "dst", t, t->daddr);
	json_port(w, "dport", t, t->dport);
	writer__key(w, "proto");
	format_proto(t->proto, proto, sizeof(proto));
	if (t->family && t->proto >= 0)
		writer__name(w, proto);
	else
		writer__null(w, NULL);
	if (t->why) {
		writer__key(w, "unknown");
		writer__name(w, t->why);
	}
	if (t->ethertype) {
		writer__key(w, "ethertype");
		writer__uint(w, t->ethertype);
	}
	writer__end_object(w);
}

void tuple__write(struct writer *w, const struct tuple *t, int level)
{
	char text[TUPLE_TEXT_MAX];

	if (w->json) {
		write_json(w, t, level);
		return;
	}
	tuple__format(t, text, sizeof(text));
	writer__raw(w, text, NULL);
	write_why(w, t);
}
