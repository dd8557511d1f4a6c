// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * pcapng, written by hand: every block is TYPE, TOTAL LENGTH, a body,
 * options (CODE, LENGTH, value padded to 4 bytes, then opt_endofopt) and
 * TOTAL LENGTH again, in the writer's byte order (the Section Header
 * Block's magic says which).  Blocks are built whole in the writer's
 * buffer, one after the other, and the buffer is written out with one
 * fwrite() and flushed when it cannot hold another block and at
 * pcapng__flush() (ksnoop's run loop calls it after every batch of
 * events): the file only ever grows by whole blocks, so a reader never
 * meets half a block, and a full disk is an error at the batch it hit.
 * A write per packet cost ~1 us of CPU each (bench/pcap.py).
 *
 * Timestamps are nanoseconds (if_tsresol 9 in every interface's block).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ksnoop.h"
#include "pcapng.h"

#define BT_SHB		0x0A0D0D0Au
#define BT_IDB		0x00000001u
#define BT_EPB		0x00000006u
#define BYTE_ORDER_MAGIC 0x1A2B3C4Du

#define OPT_ENDOFOPT	0
#define OPT_COMMENT	1
#define OPT_SHB_USERAPPL 4
#define OPT_IF_NAME	2
#define OPT_IF_TSRESOL	9

/* The largest block: an EPB's 28 bytes of header, its data, a comment, the trailer. */
#define BLOCK_MAX	(28 + PCAPNG_MAX_CAPLEN + 3 + 4 + PCAPNG_MAX_COMMENT + 3 + 4 + 4)
/* Blocks waiting to be written: a batch of small packets in one write. */
#define OUT_MAX		(256 * 1024)

struct pcapng_iface {
	int ifindex;
	__u16 linktype;
};

struct pcapng_writer {
	FILE *out;
	__u32 niface;
	__u64 refused;
	struct pcapng_iface iface[PCAPNG_MAX_IFACES];
	size_t start;		/* where in buf the block being built begins */
	size_t len;		/* bytes of buf used: whole blocks, then that one */
	unsigned char buf[OUT_MAX];
};

static size_t pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

static void put(struct pcapng_writer *w, const void *p, size_t n)
{
	if (n)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put_u16(struct pcapng_writer *w, __u16 v)
{
	put(w, &v, sizeof(v));
}

static void put_u32(struct pcapng_writer *w, __u32 v)
{
	put(w, &v, sizeof(v));
}

/* N bytes at P, then zeros to a multiple of 4. */
static void put_padded(struct pcapng_writer *w, const void *p, size_t n)
{
	put(w, p, n);
	memset(w->buf + w->len, 0, pad4(n) - n);
	w->len = pad4(w->len);
}

/* An option; a value longer than MAX (or the 16-bit length) is cut there. */
static void put_opt(struct pcapng_writer *w, __u16 code, const void *v, size_t n, size_t max)
{
	if (n > max)
		n = max;
	put_u16(w, code);
	put_u16(w, n);
	put_padded(w, v, n);
}

int pcapng__flush(struct pcapng_writer *w)
{
	size_t n = w->len;

	w->len = 0;
	errno = 0;
	if ((n && fwrite(w->buf, 1, n, w->out) != n) || fflush(w->out))
		return errno ? -errno : -EIO;
	return 0;
}

/* A block of TYPE begins (the blocks before it written out if it might not fit). */
static int begin_block(struct pcapng_writer *w, __u32 type)
{
	int err = sizeof(w->buf) - w->len < BLOCK_MAX ? pcapng__flush(w) : 0;

	if (err)
		return err;
	w->start = w->len;
	put_u32(w, type);
	put_u32(w, 0);		/* the total length, once known */
	return 0;
}

/* The options' end, the trailing length: the block is whole. */
static void end_block(struct pcapng_writer *w, bool options)
{
	__u32 total;

	if (options)
		put_opt(w, OPT_ENDOFOPT, NULL, 0, 0);
	total = w->len - w->start + 4;
	memcpy(w->buf + w->start + 4, &total, 4);
	put_u32(w, total);
}

static int write_shb(struct pcapng_writer *w)
{
	static const char appl[] = "ksnoop " KSNOOP_VERSION;
	__u64 section_len = ~0ULL;	/* not given: written as it goes */

	begin_block(w, BT_SHB);
	put_u32(w, BYTE_ORDER_MAGIC);
	put_u16(w, 1);
	put_u16(w, 0);
	put(w, &section_len, sizeof(section_len));
	put_opt(w, OPT_SHB_USERAPPL, appl, strlen(appl), PCAPNG_MAX_COMMENT);
	end_block(w, true);
	/* At once: a file that cannot be written is said before tracing starts. */
	return pcapng__flush(w);
}

struct pcapng_writer *pcapng__new(FILE *out)
{
	struct pcapng_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return NULL;
	w->out = out;
	err = write_shb(w);
	if (err) {
		free(w);
		errno = -err;
		return NULL;
	}
	return w;
}

static int write_idb(struct pcapng_writer *w, const struct pcapng_packet *p)
{
	const __u8 tsresol = 9;
	int err = begin_block(w, BT_IDB);

	if (err)
		return err;
	put_u16(w, p->linktype);
	put_u16(w, 0);
	put_u32(w, 0);		/* snap length: none imposed by the interface */
	if (p->if_name && *p->if_name)
		put_opt(w, OPT_IF_NAME, p->if_name, strlen(p->if_name), KSNOOP_IFNAMSIZ);
	put_opt(w, OPT_IF_TSRESOL, &tsresol, 1, 1);
	end_block(w, true);
	return 0;
}

/* P's interface's number in this file (its block written the first time), or -errno. */
static int iface_id(struct pcapng_writer *w, const struct pcapng_packet *p)
{
	__u32 i;
	int err;

	for (i = 0; i < w->niface; i++)
		if (w->iface[i].ifindex == p->ifindex && w->iface[i].linktype == p->linktype)
			return i;
	if (w->niface == PCAPNG_MAX_IFACES) {
		w->refused++;
		return -ENOSPC;
	}
	err = write_idb(w, p);
	if (err)
		return err;
	w->iface[w->niface].ifindex = p->ifindex;
	w->iface[w->niface].linktype = p->linktype;
	return w->niface++;
}

int pcapng__packet(struct pcapng_writer *w, const struct pcapng_packet *p)
{
	__u32 caplen = p->caplen < PCAPNG_MAX_CAPLEN ? p->caplen : PCAPNG_MAX_CAPLEN;
	int id = iface_id(w, p), err;

	if (id == -ENOSPC)
		return 0;	/* counted: pcapng__refused() */
	if (id < 0)
		return id;
	err = begin_block(w, BT_EPB);
	if (err)
		return err;
	put_u32(w, id);
	put_u32(w, p->time_ns >> 32);
	put_u32(w, (__u32)p->time_ns);
	put_u32(w, caplen);
	put_u32(w, p->orig_len > caplen ? p->orig_len : caplen);
	put_padded(w, p->bytes, caplen);
	if (p->comment)
		put_opt(w, OPT_COMMENT, p->comment, strlen(p->comment), PCAPNG_MAX_COMMENT);
	end_block(w, p->comment != NULL);
	return 0;
}

__u64 pcapng__refused(const struct pcapng_writer *w)
{
	return w->refused;
}

void pcapng__free(struct pcapng_writer *w)
{
	free(w);
}

/* ARPHRD_* (linux/if_arp.h) of the devices whose frames ksnoop names. */
#define ARPHRD_ETHER		1
#define ARPHRD_CAN		280
#define ARPHRD_LOOPBACK		772
#define ARPHRD_IEEE80211	801
#define ARPHRD_NONE		0xfffe

/*
 * The link type of bytes from a device of type DEV_TYPE starting at its
 * MAC header (FROM_MAC) or at the network header; 0: not one we know
 * (the bytes are then written from the network header, as RAW).
 */
static __u16 linktype_of(__u16 dev_type, bool from_mac)
{
	if (!from_mac)
		return PCAPNG_LINKTYPE_RAW;
	switch (dev_type) {
	case ARPHRD_ETHER:
	case ARPHRD_LOOPBACK:	/* the loopback device's frames have Ethernet headers */
		return PCAPNG_LINKTYPE_ETHERNET;
	case ARPHRD_IEEE80211:
		return PCAPNG_LINKTYPE_IEEE802_11;
	case ARPHRD_CAN:
		return PCAPNG_LINKTYPE_CAN;
	case ARPHRD_NONE:	/* tun, wireguard: no link header */
		return PCAPNG_LINKTYPE_RAW;
	}
	return 0;
}

/*
 * The device's name as read from the kernel (traced memory): up to its
 * NUL, anything but printable ASCII as '?' (the kernel allows none).
 */
static void copy_if_name(char *dst, const char *src)
{
	int i;

	for (i = 0; i < KSNOOP_IFNAMSIZ && src[i]; i++)
		dst[i] = src[i] > ' ' && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

int pcapng__from_skb(const void *raw, size_t len, struct pcapng_packet *p, char *if_name)
{
	const struct ksnoop_skb_packet *k = raw;
	const unsigned char *bytes = (const unsigned char *)(k + 1);
	__u64 start, end, skip = 0, caplen;
	bool from_mac;

	if (len < sizeof(*k) || k->from == KSNOOP_PKT_FROM_NONE || k->from > KSNOOP_PKT_FROM_NETWORK)
		return -EINVAL;
	caplen = k->caplen < len - sizeof(*k) ? k->caplen : len - sizeof(*k);
	from_mac = k->from == KSNOOP_PKT_FROM_MAC;
	memset(p, 0, sizeof(*p));
	p->linktype = linktype_of(k->dev_type, from_mac);
	if (!p->linktype) {
		/* A link header we cannot name: from the network header on, if captured. */
		if (k->network_header == 0xffff || k->network_header < k->mac_header)
			return -EINVAL;
		skip = k->network_header - k->mac_header;
		if (skip > caplen)
			return -EINVAL;
		p->linktype = PCAPNG_LINKTYPE_RAW;
	}
	start = k->head + (from_mac ? k->mac_header : k->network_header) + skip;
	/* len counts from data: a header before it adds to the length, one after takes off. */
	end = k->data + k->len;
	p->orig_len = end >= start && end - start <= 0xffffffffULL ? (__u32)(end - start) : 0;
	p->bytes = bytes + skip;
	p->caplen = caplen - skip;
	if (p->orig_len < p->caplen)
		p->orig_len = p->caplen;
	p->ifindex = k->ifindex;
	copy_if_name(if_name, k->dev_name);
	p->if_name = if_name;
	return 0;
}
