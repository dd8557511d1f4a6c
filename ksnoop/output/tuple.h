/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ':tuple': the bytes the BPF side copied from a struct sk_buff (its
 * header offsets and the headers they point at) or a struct sock (its
 * __sk_common fields) parsed into addresses, ports and a protocol, and
 * written as one line of text or a JSON object.  Parsing and writing are
 * apart, so anything that keys on a tuple (an aggregation) can parse the
 * same bytes and spell the key the same way.
 *
 * Traced memory is untrusted: every length and offset is checked before
 * a byte is believed, and what cannot be known is said (a '?' and why),
 * never guessed.
 */
#ifndef KSNOOP_TUPLE_H
#define KSNOOP_TUPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "ksnoop.h"
#include "writer.h"

/* Longest text of a tuple: two bracketed IPv6 addresses, ports, a protocol. */
#define TUPLE_TEXT_MAX	128

struct tuple {
	int family;		/* AF_INET, AF_INET6; 0: unknown (why says) */
	__u8 saddr[16], daddr[16];	/* IPv4: the first 4 bytes */
	int proto;		/* IPPROTO_*; -1: unknown */
	bool ports;		/* the protocol has ports ... */
	bool ports_known;	/* ... and they were read */
	__u16 sport, dport;	/* host order */
	const char *why;	/* what is unknown, and why (NULL: nothing) */
	int ethertype;		/* not IP: the skb's protocol (ETH_P_*), for why */
	int sock_family;	/* not an IP socket: its family, for why */
};

/* The LEN bytes of a struct ksnoop_skb_tuple or ksnoop_sock_tuple, parsed. */
void tuple__from_skb(const void *raw, size_t len, struct tuple *t);
void tuple__from_sock(const void *raw, size_t len, struct tuple *t);

/* "udp", "tcp" ... or NULL for a protocol number without a name here. */
const char *tuple__proto_name(int proto);

/*
 * T as text into BUF: "10.0.0.1:5000 > 10.0.0.2:80 udp",
 * "[::1]:5000 > [::1]:80 udp", "10.0.0.1 > 10.0.0.2 icmp",
 * "10.0.0.1:? > 10.0.0.2:? tcp" (ports not read), "?" (no addresses).
 */
void tuple__format(const struct tuple *t, char *buf, size_t size);

/*
 * T through W: text, the line above and (if something is unknown) a
 * comment saying why; JSON, an object with every key:
 * {"family":"ipv4","src":"10.0.0.1","sport":5000,"dst":"10.0.0.2",
 * "dport":80,"proto":"udp"}, null where unknown, and "unknown": why.
 */
void tuple__write(struct writer *w, const struct tuple *t, int level);

#endif
