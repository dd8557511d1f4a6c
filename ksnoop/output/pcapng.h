/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --pcap: packets as pcapng (the IETF's draft-ietf-opsawg-pcapng), which
 * Wireshark and tshark read: a Section Header Block, an Interface
 * Description Block per (interface index, link type) met, and an
 * Enhanced Packet Block per packet, each with a comment saying where in
 * the kernel it was seen.  A writer of our own: libpcap's writes the
 * older pcap format, which has no comments.
 *
 * Blocks wait in the writer's buffer until pcapng__flush() (after every
 * batch of events) or until it is full; the file only ever grows by whole
 * blocks, so a reader opening it while ksnoop runs sees whole blocks only.
 */
#ifndef KSNOOP_PCAPNG_H
#define KSNOOP_PCAPNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* Interfaces one file describes: a packet on one more is refused (counted). */
#define PCAPNG_MAX_IFACES	1024
/* Bytes of a comment kept (the rest cut): a function, a comm, an object. */
#define PCAPNG_MAX_COMMENT	512
/* Bytes of a packet's data one block holds (a snap length is lower). */
#define PCAPNG_MAX_CAPLEN	65535

/* LINKTYPE_* (tcpdump.org's link-layer header types) ksnoop writes. */
enum pcapng_linktype {
	PCAPNG_LINKTYPE_ETHERNET = 1,
	PCAPNG_LINKTYPE_RAW = 101,	/* an IPv4 or IPv6 header first */
	PCAPNG_LINKTYPE_IEEE802_11 = 105,
	PCAPNG_LINKTYPE_CAN = 227,	/* LINKTYPE_CAN_SOCKETCAN */
};

struct pcapng_packet {
	__u64 time_ns;		/* since the epoch */
	int ifindex;
	__u16 linktype;		/* enum pcapng_linktype */
	const char *if_name;	/* NULL or "": none said */
	__u32 orig_len;		/* the packet's length on the wire */
	const void *bytes;
	__u32 caplen;		/* bytes captured (at most PCAPNG_MAX_CAPLEN) */
	const char *comment;	/* NULL: none */
};

struct pcapng_writer;

/* A writer to OUT (not closed by it), its Section Header Block written; NULL and errno. */
struct pcapng_writer *pcapng__new(FILE *out);
/* P as an Enhanced Packet Block (after its interface's block, the first time): 0 or -errno. */
int pcapng__packet(struct pcapng_writer *w, const struct pcapng_packet *p);
/* Packets refused because PCAPNG_MAX_IFACES interfaces were described already. */
__u64 pcapng__refused(const struct pcapng_writer *w);
/* The blocks built so far to the file, flushed; 0 or -errno. */
int pcapng__flush(struct pcapng_writer *w);
/* Frees W; what was not flushed is lost. */
void pcapng__free(struct pcapng_writer *w);

/*
 * A struct ksnoop_skb_packet of LEN bytes at RAW (untrusted: the
 * lengths it claims are checked against LEN) as a packet: its bytes,
 * link type (from the device's ARPHRD_* type and which header the
 * bytes start at), original length and interface.  IF_NAME (16 bytes
 * and a NUL) receives the device's name.  0, or -EINVAL: nothing to
 * write (no header was set, or the record is cut).
 */
int pcapng__from_skb(const void *raw, size_t len, struct pcapng_packet *p, char *if_name);

#endif
