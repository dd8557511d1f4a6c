// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for ':tuple' (ksnoop/output/tuple.c): the bytes the BPF side copies
 * from a struct sk_buff or a struct sock, built here by hand, parsed and
 * printed through the printer in text and JSON.  Headers that are not
 * set, cut short, not IP or lying about their length must print '?' and
 * why, never addresses or ports made of other bytes.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>
#include "ksnoop_tuple_key.h"
#include "print.h"
#include "tuple.h"

static char out[4096];

/* RAW's LEN bytes as a tuple of kind HOW, printed in FORMAT. */
static const char *render(enum report_format format, enum print_how how, const void *raw,
			  __u32 len, __u32 status)
{
	struct print_opts opts = { .format = format };
	struct value_desc vd = { .text = "skb", .how = how, .fmt = FMT_TUPLE,
				 .size = sizeof(struct ksnoop_skb_tuple),
				 .obj_size = sizeof(struct ksnoop_skb_tuple) };
	struct ksnoop_value vh = { .status = status, .len = len };
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	printer__init(&p, f, &opts);
	printer__value(&p, NULL, &vd, &vh, raw, 0);
	printer__fini(&p);
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

static void skb_prints(const struct ksnoop_skb_tuple *s, const char *text, const char *json)
{
	assert_string_equal(render(REPORT_TEXT, PRINT_SKB_TUPLE, s, sizeof(*s), KSNOOP_OK), text);
	assert_string_equal(render(REPORT_JSON, PRINT_SKB_TUPLE, s, sizeof(*s), KSNOOP_OK), json);
}

static void sock_prints(const struct ksnoop_sock_tuple *s, const char *text, const char *json)
{
	assert_string_equal(render(REPORT_TEXT, PRINT_SOCK_TUPLE, s, sizeof(*s), KSNOOP_OK), text);
	assert_string_equal(render(REPORT_JSON, PRINT_SOCK_TUPLE, s, sizeof(*s), KSNOOP_OK), json);
}

/* An IPv4 packet 10.0.0.1:5000 > 10.0.0.2:80 of PROTO, its header at 64, IHL words. */
static struct ksnoop_skb_tuple ipv4(__u8 proto, int ihl)
{
	struct ksnoop_skb_tuple s = {
		.network_header = 64, .transport_header = 64 + 4 * ihl,
		.protocol = htons(0x0800), .read = KSNOOP_TUPLE_L3 | KSNOOP_TUPLE_L4,
	};
	const __u8 src[4] = { 10, 0, 0, 1 }, dst[4] = { 10, 0, 0, 2 };

	s.l3[0] = 0x40 | ihl;
	s.l3[8] = 64;		/* ttl */
	s.l3[9] = proto;
	memcpy(s.l3 + 12, src, 4);
	memcpy(s.l3 + 16, dst, 4);
	s.l4[0] = 5000 >> 8;
	s.l4[1] = 5000 & 0xff;
	s.l4[2] = 0;
	s.l4[3] = 80;
	return s;
}

/* An IPv6 packet [::1]:5000 > [2001:db8::2]:80 with next header NEXT, its header at 64. */
static struct ksnoop_skb_tuple ipv6(__u8 next)
{
	struct ksnoop_skb_tuple s = {
		.network_header = 64, .transport_header = 104,
		.protocol = htons(0x86dd), .read = KSNOOP_TUPLE_L3 | KSNOOP_TUPLE_L4,
	};

	s.l3[0] = 0x60;
	s.l3[6] = next;
	s.l3[7] = 64;
	s.l3[8 + 15] = 1;
	inet_pton(AF_INET6, "2001:db8::2", s.l3 + 24);
	s.l4[0] = 5000 >> 8;
	s.l4[1] = 5000 & 0xff;
	s.l4[3] = 80;
	return s;
}

#define V4_JSON(sport, dport, proto) \
	"{\"family\":\"ipv4\",\"src\":\"10.0.0.1\",\"sport\":" sport ",\"dst\":\"10.0.0.2\",\"dport\":" dport ",\"proto\":" proto

static void test_skb_ipv4(void **state)
{
	struct ksnoop_skb_tuple s = ipv4(17, 5);

	skb_prints(&s, "10.0.0.1:5000 > 10.0.0.2:80 udp", V4_JSON("5000", "80", "\"udp\"") "}");
	s = ipv4(6, 5);
	skb_prints(&s, "10.0.0.1:5000 > 10.0.0.2:80 tcp", V4_JSON("5000", "80", "\"tcp\"") "}");
	/* Options: the ports are past them. */
	s = ipv4(6, 6);
	skb_prints(&s, "10.0.0.1:5000 > 10.0.0.2:80 tcp", V4_JSON("5000", "80", "\"tcp\"") "}");
	/* No ports: ICMP, or a protocol without a name here. */
	s = ipv4(1, 5);
	skb_prints(&s, "10.0.0.1 > 10.0.0.2 icmp", V4_JSON("null", "null", "\"icmp\"") "}");
	s = ipv4(99, 5);
	skb_prints(&s, "10.0.0.1 > 10.0.0.2 99", V4_JSON("null", "null", "\"99\"") "}");
	/* skb->protocol not set yet (before ip_output): the header decides. */
	s = ipv4(17, 5);
	s.protocol = 0;
	skb_prints(&s, "10.0.0.1:5000 > 10.0.0.2:80 udp", V4_JSON("5000", "80", "\"udp\"") "}");
}

static void test_skb_ipv6(void **state)
{
	struct ksnoop_skb_tuple s = ipv6(17);

	skb_prints(&s, "[::1]:5000 > [2001:db8::2]:80 udp",
		   "{\"family\":\"ipv6\",\"src\":\"::1\",\"sport\":5000,\"dst\":\"2001:db8::2\",\"dport\":80,\"proto\":\"udp\"}");
	/* An extension header first: no ports to be sure of. */
	s = ipv6(0);
	skb_prints(&s, "::1 > 2001:db8::2 hopopts",
		   "{\"family\":\"ipv6\",\"src\":\"::1\",\"sport\":null,\"dst\":\"2001:db8::2\",\"dport\":null,\"proto\":\"hopopts\"}");
	s = ipv6(58);
	skb_prints(&s, "::1 > 2001:db8::2 icmpv6",
		   "{\"family\":\"ipv6\",\"src\":\"::1\",\"sport\":null,\"dst\":\"2001:db8::2\",\"dport\":null,\"proto\":\"icmpv6\"}");
}

#define NO_TUPLE_JSON(why) \
	"{\"family\":null,\"src\":null,\"sport\":null,\"dst\":null,\"dport\":null,\"proto\":null,\"unknown\":\"" why "\""

/* A network header never set (~0, or 0 as a fresh skb has it): '?'. */
static void test_skb_network_header_unset(void **state)
{
	struct ksnoop_skb_tuple s = ipv4(17, 5);

	s.network_header = 0xffff;
	skb_prints(&s, "? /* no network header set yet */", NO_TUPLE_JSON("no network header set yet") "}");
	s.network_header = 0;
	skb_prints(&s, "? /* no network header set yet */", NO_TUPLE_JSON("no network header set yet") "}");
	/* Set, but its bytes could not be read: nothing in l3 is believed. */
	s = ipv4(17, 5);
	s.read = KSNOOP_TUPLE_L4;
	skb_prints(&s, "? /* the network header could not be read */",
		   NO_TUPLE_JSON("the network header could not be read") "}");
}

/* A transport header not set, not past the IP header, or unread: ports '?'. */
static void test_skb_transport_header_unset(void **state)
{
	const char *json = V4_JSON("null", "null", "\"tcp\"") ",\"unknown\":\"no transport header set yet\"}";
	struct ksnoop_skb_tuple s = ipv4(6, 5);

	s.transport_header = 0xffff;
	skb_prints(&s, "10.0.0.1:? > 10.0.0.2:? tcp /* no transport header set yet */", json);
	/* Early on the receive path it equals the network header: those bytes are IP's. */
	s.transport_header = s.network_header;
	skb_prints(&s, "10.0.0.1:? > 10.0.0.2:? tcp /* no transport header set yet */", json);
	/* Anywhere but right past the IP header (an inner header, a stale offset). */
	s.transport_header = s.network_header + 28;
	skb_prints(&s, "10.0.0.1:? > 10.0.0.2:? tcp /* no transport header set yet */", json);
	s = ipv4(6, 5);
	s.read = KSNOOP_TUPLE_L3;
	skb_prints(&s, "10.0.0.1:? > 10.0.0.2:? tcp /* the transport header could not be read */",
		   V4_JSON("null", "null", "\"tcp\"") ",\"unknown\":\"the transport header could not be read\"}");
	/* A later fragment: the bytes past its header are data, not ports. */
	s = ipv4(17, 5);
	s.l3[6] = 0x00;
	s.l3[7] = 0xb9;		/* offset 185 * 8 */
	skb_prints(&s, "10.0.0.1:? > 10.0.0.2:? udp /* a later fragment: no transport header */",
		   V4_JSON("null", "null", "\"udp\"") ",\"unknown\":\"a later fragment: no transport header\"}");
	/* The first fragment (more fragments set, offset 0) has them. */
	s.l3[6] = 0x20;
	s.l3[7] = 0;
	skb_prints(&s, "10.0.0.1:5000 > 10.0.0.2:80 udp", V4_JSON("5000", "80", "\"udp\"") "}");
}

/* Not IP, or a header that says it is not what it claims. */
static void test_skb_not_ip(void **state)
{
	struct ksnoop_skb_tuple s = ipv4(17, 5);

	s.protocol = htons(0x0806);
	skb_prints(&s, "? /* not IP: ethertype 0x0806 */",
		   NO_TUPLE_JSON("not IP") ",\"ethertype\":2054}");
	/* An IPv4 header in an IPv6 skb. */
	s.protocol = htons(0x86dd);
	skb_prints(&s, "? /* the network header is not IPv4 or IPv6: ethertype 0x86dd */",
		   NO_TUPLE_JSON("the network header is not IPv4 or IPv6") ",\"ethertype\":34525}");
	/* Version 4 with a header of 16 bytes. */
	s = ipv4(17, 4);
	skb_prints(&s, "? /* not an IPv4 header (length under 20 bytes) */",
		   NO_TUPLE_JSON("not an IPv4 header (length under 20 bytes)") "}");
	s = ipv4(17, 5);
	s.l3[0] = 0x25;
	s.protocol = 0;
	skb_prints(&s, "? /* the network header is not IPv4 or IPv6 */",
		   NO_TUPLE_JSON("the network header is not IPv4 or IPv6") "}");
}

/* Fewer bytes than a tuple (a record cut short): nothing parsed. */
static void test_truncated(void **state)
{
	struct ksnoop_skb_tuple s = ipv4(17, 5);
	struct ksnoop_sock_tuple k = { .family = AF_INET };

	assert_string_equal(render(REPORT_TEXT, PRINT_SKB_TUPLE, &s, sizeof(s) - 1, KSNOOP_OK),
			    "? /* captured bytes cut short */ /* truncated at 51 of 52 bytes */");
	assert_string_equal(render(REPORT_TEXT, PRINT_SOCK_TUPLE, &k, 8, KSNOOP_OK),
			    "? /* captured bytes cut short */ /* truncated at 8 of 52 bytes */");
	assert_string_equal(render(REPORT_JSON, PRINT_SKB_TUPLE, &s, 0, KSNOOP_OK),
			    NO_TUPLE_JSON("captured bytes cut short") "}");
	/* The struct itself could not be read: the printer's failure, no tuple. */
	assert_string_equal(render(REPORT_TEXT, PRINT_SKB_TUPLE, &s, 0, KSNOOP_FAULT),
			    "/* could not read memory */");
}

static struct ksnoop_sock_tuple sock4(__u16 protocol, __u8 state)
{
	struct ksnoop_sock_tuple k = {
		.family = AF_INET, .num = 5004, .dport = htons(5005), .protocol = protocol,
		.state = state,
	};
	const __u8 src[4] = { 127, 0, 0, 1 }, dst[4] = { 127, 0, 0, 2 };

	memcpy(k.rcv_saddr, src, 4);
	memcpy(k.daddr, dst, 4);
	/* The v6 fields hold other bytes: an IPv4 sock must not show them. */
	memset(k.v6_rcv_saddr, 0xee, 16);
	return k;
}

static void test_sock(void **state)
{
	struct ksnoop_sock_tuple k = sock4(6, 1);

	sock_prints(&k, "127.0.0.1:5004 > 127.0.0.2:5005 tcp",
		    "{\"family\":\"ipv4\",\"src\":\"127.0.0.1\",\"sport\":5004,\"dst\":\"127.0.0.2\",\"dport\":5005,\"proto\":\"tcp\"}");
	/* A timewait or request sock ends before sk_protocol: it is TCP's. */
	k = sock4(0x4242, 6);
	sock_prints(&k, "127.0.0.1:5004 > 127.0.0.2:5005 tcp",
		    "{\"family\":\"ipv4\",\"src\":\"127.0.0.1\",\"sport\":5004,\"dst\":\"127.0.0.2\",\"dport\":5005,\"proto\":\"tcp\"}");
	k = sock4(0x4242, 12);
	sock_prints(&k, "127.0.0.1:5004 > 127.0.0.2:5005 tcp",
		    "{\"family\":\"ipv4\",\"src\":\"127.0.0.1\",\"sport\":5004,\"dst\":\"127.0.0.2\",\"dport\":5005,\"proto\":\"tcp\"}");
	/* A kernel without sk_protocol (or one not read): the protocol is unknown. */
	k = sock4(KSNOOP_TUPLE_NO_FIELD, 7);
	sock_prints(&k, "127.0.0.1:5004 > 127.0.0.2:5005 ?",
		    "{\"family\":\"ipv4\",\"src\":\"127.0.0.1\",\"sport\":5004,\"dst\":\"127.0.0.2\",\"dport\":5005,\"proto\":null}");
	/* Not connected: the peer is 0. */
	k = sock4(17, 7);
	memset(k.daddr, 0, 4);
	k.dport = 0;
	sock_prints(&k, "127.0.0.1:5004 > 0.0.0.0:0 udp",
		    "{\"family\":\"ipv4\",\"src\":\"127.0.0.1\",\"sport\":5004,\"dst\":\"0.0.0.0\",\"dport\":0,\"proto\":\"udp\"}");
}

static void test_sock_ipv6_and_others(void **state)
{
	struct ksnoop_sock_tuple k = sock4(17, 7);

	k.family = AF_INET6;
	memset(k.v6_rcv_saddr, 0, 16);
	k.v6_rcv_saddr[15] = 1;
	inet_pton(AF_INET6, "::ffff:10.1.2.3", k.v6_daddr);
	sock_prints(&k, "[::1]:5004 > [::ffff:10.1.2.3]:5005 udp",
		    "{\"family\":\"ipv6\",\"src\":\"::1\",\"sport\":5004,\"dst\":\"::ffff:10.1.2.3\",\"dport\":5005,\"proto\":\"udp\"}");
	/* A ping socket's skc_num is no port. */
	k.protocol = 58;
	sock_prints(&k, "::1 > ::ffff:10.1.2.3 icmpv6",
		    "{\"family\":\"ipv6\",\"src\":\"::1\",\"sport\":null,\"dst\":\"::ffff:10.1.2.3\",\"dport\":null,\"proto\":\"icmpv6\"}");
	k.family = AF_UNIX;
	sock_prints(&k, "? /* not an IPv4 or IPv6 socket: family 1 */",
		    NO_TUPLE_JSON("not an IPv4 or IPv6 socket") "}");
}

/* The parser alone, as an aggregation keying on a tuple would use it. */
static void test_parse_and_format(void **state)
{
	struct ksnoop_skb_tuple s = ipv4(17, 5);
	struct tuple t;
	char text[TUPLE_TEXT_MAX];

	tuple__from_skb(&s, sizeof(s), &t);
	assert_int_equal(t.family, AF_INET);
	assert_int_equal(t.proto, 17);
	assert_true(t.ports && t.ports_known);
	assert_int_equal(t.sport, 5000);
	assert_int_equal(t.dport, 80);
	assert_null(t.why);
	tuple__format(&t, text, sizeof(text));
	assert_string_equal(text, "10.0.0.1:5000 > 10.0.0.2:80 udp");
	tuple__from_skb(NULL, 0, &t);
	assert_int_equal(t.family, 0);
	assert_int_equal(t.proto, -1);
	tuple__format(&t, text, sizeof(text));
	assert_string_equal(text, "?");
	/* The longest text fits. */
	s = ipv6(17);
	memset(s.l3 + 8, 0xab, 32);
	s.l4[0] = s.l4[1] = s.l4[2] = s.l4[3] = 0xff;
	tuple__from_skb(&s, sizeof(s), &t);
	tuple__format(&t, text, sizeof(text));
	assert_string_equal(text, "[abab:abab:abab:abab:abab:abab:abab:abab]:65535 > "
			    "[abab:abab:abab:abab:abab:abab:abab:abab]:65535 udp");
	assert_string_equal(tuple__proto_name(262), "mptcp");
	assert_null(tuple__proto_name(300));
}

/* What the printer makes of RAW as a tuple of kind HOW, text and JSON, into OUT2. */
static void both(enum print_how how, const void *raw, char *out2, size_t size)
{
	snprintf(out2, size, "%s\n", render(REPORT_TEXT, how, raw, 52, KSNOOP_OK));
	snprintf(out2 + strlen(out2), size - strlen(out2), "%s",
		 render(REPORT_JSON, how, raw, 52, KSNOOP_OK));
}

/* S made a --by key prints as S does: the key keeps all the parser reads. */
static void skb_key_prints_same(struct ksnoop_skb_tuple s)
{
	struct ksnoop_skb_tuple k = s;
	char want[1024], got[1024];

	ksnoop_skb_tuple_key(&k);
	both(PRINT_SKB_TUPLE, &s, want, sizeof(want));
	both(PRINT_SKB_TUPLE, &k, got, sizeof(got));
	assert_string_equal(got, want);
	/* A key made a key again is the same key. */
	s = k;
	ksnoop_skb_tuple_key(&k);
	assert_memory_equal(&k, &s, sizeof(k));
}

static void sock_key_prints_same(struct ksnoop_sock_tuple s)
{
	struct ksnoop_sock_tuple k = s;
	char want[1024], got[1024];

	ksnoop_sock_tuple_key(&k);
	both(PRINT_SOCK_TUPLE, &s, want, sizeof(want));
	both(PRINT_SOCK_TUPLE, &k, got, sizeof(got));
	assert_string_equal(got, want);
}

/* --by: every tuple above, as a key, is still the same tuple (or the same '?' and why). */
static void test_key_keeps_the_tuple(void **state)
{
	static const __u8 protos[] = { 17, 6, 1, 99, 33, 132, 136 };
	struct ksnoop_skb_tuple s;
	size_t i;

	for (i = 0; i < sizeof(protos); i++) {
		skb_key_prints_same(ipv4(protos[i], 5));
		skb_key_prints_same(ipv4(protos[i], 6));
		skb_key_prints_same(ipv6(protos[i]));
	}
	skb_key_prints_same(ipv6(0));
	skb_key_prints_same(ipv6(58));
	s = ipv4(17, 5);
	s.protocol = 0;
	skb_key_prints_same(s);
	s.network_header = 0xffff;
	skb_key_prints_same(s);
	s.network_header = 0;
	skb_key_prints_same(s);
	s = ipv4(17, 5);
	s.read = KSNOOP_TUPLE_L4;
	skb_key_prints_same(s);
	s = ipv4(6, 5);
	s.transport_header = 0xffff;
	skb_key_prints_same(s);
	s.transport_header = s.network_header;
	skb_key_prints_same(s);
	s.transport_header = s.network_header + 28;
	skb_key_prints_same(s);
	s = ipv4(6, 5);
	s.read = KSNOOP_TUPLE_L3;
	skb_key_prints_same(s);
	s = ipv4(17, 5);
	s.l3[7] = 0xb9;		/* a later fragment */
	skb_key_prints_same(s);
	s.l3[6] = 0x20;		/* the first */
	s.l3[7] = 0;
	skb_key_prints_same(s);
	s.protocol = htons(0x0806);
	skb_key_prints_same(s);
	s.protocol = htons(0x86dd);
	skb_key_prints_same(s);
	skb_key_prints_same(ipv4(17, 4));
	s = ipv4(17, 5);
	s.l3[0] = 0x25;
	s.protocol = 0;
	skb_key_prints_same(s);
	/* An offset past 64 KiB is no match for the transport header. */
	s = ipv4(17, 5);
	s.network_header = 0xfff0;
	s.transport_header = (__u16)(0xfff0 + 20);
	skb_key_prints_same(s);

	/* The key's protocols with ports are the parser's. */
	for (i = 0; i < 256; i++) {
		struct tuple t;

		s = ipv4(i, 5);
		tuple__from_skb(&s, sizeof(s), &t);
		assert_int_equal(ksnoop_key_has_ports(i), t.ports);
	}
	sock_key_prints_same(sock4(6, 1));
	sock_key_prints_same(sock4(0x4242, 6));
	sock_key_prints_same(sock4(0x4242, 12));
	sock_key_prints_same(sock4(KSNOOP_TUPLE_NO_FIELD, 7));
	sock_key_prints_same(sock4(17, 7));
	{
		struct ksnoop_sock_tuple k = sock4(17, 7);

		k.family = AF_INET6;
		k.v6_rcv_saddr[15] = 1;
		sock_key_prints_same(k);
		k.family = AF_UNIX;
		sock_key_prints_same(k);
	}
}

/* S's key and T's: the same (one flow) or not. */
static void skb_same_key(struct ksnoop_skb_tuple s, struct ksnoop_skb_tuple t, bool same)
{
	ksnoop_skb_tuple_key(&s);
	ksnoop_skb_tuple_key(&t);
	assert_int_equal(memcmp(&s, &t, sizeof(s)) == 0, same);
}

/* --by: what varies per packet of one flow is no part of its key; what makes the flow is. */
static void test_key_one_flow(void **state)
{
	struct ksnoop_skb_tuple a = ipv4(17, 5), b = a;
	struct ksnoop_sock_tuple k, l;
	int i;

	/* IPv4: TOS, total length, id, DF, TTL, checksum, the UDP length and checksum. */
	b.l3[1] = 0x02;
	b.l3[2] = 0x01, b.l3[3] = 0x23;
	b.l3[4] = 0xbe, b.l3[5] = 0xef;
	b.l3[6] = 0x40;
	b.l3[8] = 1;
	b.l3[10] = 0x12, b.l3[11] = 0x34;
	for (i = 20; i < KSNOOP_TUPLE_L3_BYTES; i++)
		b.l3[i] = i;
	b.pad = 7;
	/* ... and where its headers are in the skb. */
	b.network_header += 14;
	b.transport_header += 14;
	skb_same_key(a, b, true);
	/* With options: the ports past them, the options' bytes not kept. */
	a = ipv4(6, 6);
	b = a;
	b.l3[21] = 0x44;
	skb_same_key(a, b, true);
	/* No ports (ICMP): its type, code and checksum are no part of it. */
	a = ipv4(1, 5);
	b = a;
	b.l4[0] = 8, b.l4[2] = 0xab;
	b.read = KSNOOP_TUPLE_L3;
	skb_same_key(a, b, true);
	/* Later fragments: at any offset, with MF or not. */
	a = ipv4(17, 5);
	a.l3[7] = 0xb9;
	b = a;
	b.l3[6] = 0x20;
	b.l3[7] = 0x01;
	b.l4[0] = 0x77;
	skb_same_key(a, b, true);
	/* Transport header not past the IP header: its bytes are not ports. */
	a = ipv4(17, 5);
	a.transport_header = a.network_header;
	b = a;
	b.l4[2] = 0x99;
	b.transport_header = 0xffff;
	skb_same_key(a, b, true);
	/* IPv6: traffic class, flow label, payload length, hop limit. */
	a = ipv6(17);
	b = a;
	b.l3[0] = 0x6f, b.l3[1] = 0xff, b.l3[2] = 0x12, b.l3[3] = 0x34;
	b.l3[4] = 0x05, b.l3[5] = 0xdc;
	b.l3[7] = 1;
	skb_same_key(a, b, true);
	/* No network header: 0 and ~0 alike, whatever the bytes. */
	a = ipv4(17, 5);
	a.network_header = 0;
	b = ipv4(6, 7);
	b.network_header = 0xffff;
	b.read = KSNOOP_TUPLE_L3;
	skb_same_key(a, b, true);

	/* Another flow: a port, an address, the protocol, the family. */
	a = ipv4(17, 5);
	b = a;
	b.l4[1] = 0x89;
	skb_same_key(a, b, false);
	b = a;
	b.l3[19] = 3;
	skb_same_key(a, b, false);
	b = a;
	b.l3[9] = 6;
	skb_same_key(a, b, false);
	skb_same_key(a, ipv6(17), false);
	/* The first fragment is not a later one. */
	b = a;
	b.l3[7] = 0xb9;
	skb_same_key(a, b, false);

	/* A sock: its state changes, the flow does not. */
	k = sock4(6, 1);
	l = sock4(6, 8);
	memset(l.v6_daddr, 0x11, 16);
	ksnoop_sock_tuple_key(&k);
	ksnoop_sock_tuple_key(&l);
	assert_memory_equal(&k, &l, sizeof(k));
	l = sock4(6, 1);
	l.num = 5006;
	ksnoop_sock_tuple_key(&l);
	assert_memory_not_equal(&k, &l, sizeof(k));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skb_ipv4),
		cmocka_unit_test(test_skb_ipv6),
		cmocka_unit_test(test_skb_network_header_unset),
		cmocka_unit_test(test_skb_transport_header_unset),
		cmocka_unit_test(test_skb_not_ip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_sock),
		cmocka_unit_test(test_sock_ipv6_and_others),
		cmocka_unit_test(test_parse_and_format),
		cmocka_unit_test(test_key_keeps_the_tuple),
		cmocka_unit_test(test_key_one_flow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
