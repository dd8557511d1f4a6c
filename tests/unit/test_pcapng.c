// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for --pcap's writer (ksnoop/output/pcapng.c) and its events
 * (pcap_events.c): the blocks read back field by field (each block's
 * two lengths, padding to 4 bytes, options and their end), one
 * interface block per (index, link type), and a captured struct
 * ksnoop_skb_packet (built by hand, lengths that lie included) turned
 * into the packet pcapng gets.  tshark reads real files in
 * tests/live/52-pcap.sh.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ksnoop.h"
#include "pcap_events.h"
#include "pcapng.h"

struct file {
	char *buf;
	size_t size;
	FILE *f;
};

static void file_open(struct file *fl)
{
	fl->buf = NULL;
	fl->size = 0;
	fl->f = open_memstream(&fl->buf, &fl->size);
	assert_non_null(fl->f);
}

static void file_close(struct file *fl)
{
	fclose(fl->f);
	free(fl->buf);
}

static __u32 u32_at(const struct file *fl, size_t off)
{
	__u32 v;

	assert_true(off + 4 <= fl->size);
	memcpy(&v, fl->buf + off, 4);
	return v;
}

static __u16 u16_at(const struct file *fl, size_t off)
{
	__u16 v;

	assert_true(off + 2 <= fl->size);
	memcpy(&v, fl->buf + off, 2);
	return v;
}

/*
 * The block at *OFF: its type, checked to be whole (both lengths equal,
 * a multiple of 4, inside the file); *OFF moves past it, *BODY to its body.
 */
static __u32 block_at(const struct file *fl, size_t *off, size_t *body, __u32 *len)
{
	__u32 type = u32_at(fl, *off);

	*len = u32_at(fl, *off + 4);
	assert_int_equal(*len % 4, 0);
	assert_true(*len >= 12);
	assert_int_equal(u32_at(fl, *off + *len - 4), *len);
	*body = *off + 8;
	*off += *len;
	return type;
}

/* The option at *OFF: its code, its value at *VAL of *N bytes; *OFF past its padding. */
static __u16 option_at(const struct file *fl, size_t *off, size_t *val, __u16 *n)
{
	__u16 code = u16_at(fl, *off);
	size_t i;

	*n = u16_at(fl, *off + 2);
	*val = *off + 4;
	/* The padding is zeros. */
	for (i = *n; i % 4; i++)
		assert_int_equal(fl->buf[*val + i], 0);
	*off = *val + ((*n + 3) & ~3u);
	return code;
}

static void shb_is_first(void **state)
{
	struct file fl;
	struct pcapng_writer *w;
	size_t off = 0, body, val;
	__u32 len;
	__u16 n;

	file_open(&fl);
	w = pcapng__new(fl.f);
	assert_non_null(w);
	assert_int_equal(block_at(&fl, &off, &body, &len), 0x0A0D0D0A);
	assert_int_equal(off, fl.size);
	assert_int_equal(u32_at(&fl, body), 0x1A2B3C4D);
	assert_int_equal(u16_at(&fl, body + 4), 1);	/* major */
	assert_int_equal(u16_at(&fl, body + 6), 0);	/* minor */
	assert_int_equal(u32_at(&fl, body + 8), 0xffffffff);	/* section length: -1 */
	assert_int_equal(u32_at(&fl, body + 12), 0xffffffff);
	off = body + 16;
	assert_int_equal(option_at(&fl, &off, &val, &n), 4);	/* shb_userappl */
	assert_memory_equal(fl.buf + val, "ksnoop", 6);
	assert_int_equal(option_at(&fl, &off, &val, &n), 0);	/* opt_endofopt */
	assert_int_equal(n, 0);
	pcapng__free(w);
	file_close(&fl);
}

static const unsigned char five[5] = { 1, 2, 3, 4, 5 };

static struct pcapng_packet packet(int ifindex, __u16 linktype, const char *comment)
{
	return (struct pcapng_packet){
		.time_ns = 0x123456789abcdefULL, .ifindex = ifindex, .linktype = linktype,
		.if_name = "lo", .orig_len = 60, .bytes = five, .caplen = sizeof(five),
		.comment = comment,
	};
}

/* The IDB at OFF: link type LINKTYPE, if_name NAME, if_tsresol 9. */
static void idb_is(const struct file *fl, size_t *off, __u16 linktype, const char *name)
{
	size_t body, opt, val;
	__u32 len;
	__u16 n;

	assert_int_equal(block_at(fl, off, &body, &len), 1);
	assert_int_equal(u16_at(fl, body), linktype);
	opt = body + 8;
	assert_int_equal(option_at(fl, &opt, &val, &n), 2);	/* if_name */
	assert_int_equal(n, strlen(name));
	assert_memory_equal(fl->buf + val, name, n);
	assert_int_equal(option_at(fl, &opt, &val, &n), 9);	/* if_tsresol */
	assert_int_equal(n, 1);
	assert_int_equal(fl->buf[val], 9);
	assert_int_equal(option_at(fl, &opt, &val, &n), 0);
	assert_int_equal(opt + 4, *off);		/* the trailing length follows */
}

/* The EPB at OFF: interface IFACE, five's bytes padded, COMMENT. */
static void epb_is(const struct file *fl, size_t *off, __u32 iface, const char *comment)
{
	size_t body, opt, val;
	__u32 len;
	__u16 n;

	assert_int_equal(block_at(fl, off, &body, &len), 6);
	assert_int_equal(u32_at(fl, body), iface);
	assert_int_equal(u32_at(fl, body + 4), 0x01234567);	/* time, high half */
	assert_int_equal(u32_at(fl, body + 8), 0x89abcdef);
	assert_int_equal(u32_at(fl, body + 12), 5);	/* captured */
	assert_int_equal(u32_at(fl, body + 16), 60);	/* on the wire */
	assert_memory_equal(fl->buf + body + 20, five, 5);
	assert_memory_equal(fl->buf + body + 25, "\0\0\0", 3);	/* padding */
	opt = body + 28;
	if (comment) {
		assert_int_equal(option_at(fl, &opt, &val, &n), 1);	/* opt_comment */
		assert_int_equal(n, strlen(comment));
		assert_memory_equal(fl->buf + val, comment, n);
		assert_int_equal(option_at(fl, &opt, &val, &n), 0);
	}
	assert_int_equal(opt + 4, *off);
}

static void one_idb_per_interface(void **state)
{
	struct file fl;
	struct pcapng_writer *w;
	struct pcapng_packet p;
	size_t off = 0, body;
	__u32 len;

	file_open(&fl);
	w = pcapng__new(fl.f);
	assert_non_null(w);
	p = packet(1, PCAPNG_LINKTYPE_ETHERNET, "ip_rcv comm=x");
	assert_int_equal(pcapng__packet(w, &p), 0);
	p.comment = "ip_rcv2";
	assert_int_equal(pcapng__packet(w, &p), 0);
	/* The same index with another link type is another interface. */
	p = packet(1, PCAPNG_LINKTYPE_RAW, NULL);
	assert_int_equal(pcapng__packet(w, &p), 0);
	assert_int_equal(pcapng__flush(w), 0);
	block_at(&fl, &off, &body, &len);
	idb_is(&fl, &off, PCAPNG_LINKTYPE_ETHERNET, "lo");
	epb_is(&fl, &off, 0, "ip_rcv comm=x");
	epb_is(&fl, &off, 0, "ip_rcv2");
	idb_is(&fl, &off, PCAPNG_LINKTYPE_RAW, "lo");
	epb_is(&fl, &off, 1, NULL);
	assert_int_equal(off, fl.size);
	pcapng__free(w);
	file_close(&fl);
}

/* A comment longer than the bound is cut there; the block stays whole. */
static void long_comment_cut(void **state)
{
	struct file fl;
	struct pcapng_writer *w;
	struct pcapng_packet p;
	char comment[PCAPNG_MAX_COMMENT * 2];
	size_t off = 0, body, opt, val;
	__u32 len;
	__u16 n;

	memset(comment, 'c', sizeof(comment) - 1);
	comment[sizeof(comment) - 1] = '\0';
	file_open(&fl);
	w = pcapng__new(fl.f);
	p = packet(2, PCAPNG_LINKTYPE_ETHERNET, comment);
	assert_int_equal(pcapng__packet(w, &p), 0);
	assert_int_equal(pcapng__flush(w), 0);
	block_at(&fl, &off, &body, &len);
	block_at(&fl, &off, &body, &len);
	assert_int_equal(block_at(&fl, &off, &body, &len), 6);
	opt = body + 28;
	assert_int_equal(option_at(&fl, &opt, &val, &n), 1);
	assert_int_equal(n, PCAPNG_MAX_COMMENT);
	assert_int_equal(option_at(&fl, &opt, &val, &n), 0);
	assert_int_equal(off, fl.size);
	pcapng__free(w);
	file_close(&fl);
}

/* Whole blocks in the file after every write: TYPE's count among them. */
static int blocks_whole(const struct file *fl, __u32 type)
{
	size_t off = 0, body;
	__u32 len;
	int n = 0;

	while (off < fl->size)
		n += block_at(fl, &off, &body, &len) == type;
	assert_int_equal(off, fl->size);
	return n;
}

/*
 * Packets wait in the writer until pcapng__flush(), or until the buffer
 * cannot hold another block: then whole blocks go out, never part of one.
 */
static void buffered_whole_blocks(void **state)
{
	struct file fl;
	struct pcapng_writer *w;
	struct pcapng_packet p;
	int i, n;

	file_open(&fl);
	w = pcapng__new(fl.f);
	assert_non_null(w);
	assert_int_equal(blocks_whole(&fl, 0x0A0D0D0A), 1);	/* the SHB at once */
	p = packet(1, PCAPNG_LINKTYPE_ETHERNET, "ip_rcv comm=x pid=1 tid=1");
	assert_int_equal(pcapng__packet(w, &p), 0);
	assert_int_equal(blocks_whole(&fl, 6), 0);
	/* Far more than the buffer holds: written out as it fills, whole. */
	for (i = 1; i < 5000; i++)
		assert_int_equal(pcapng__packet(w, &p), 0);
	n = blocks_whole(&fl, 6);
	assert_true(n > 0 && n < 5000);
	assert_int_equal(pcapng__flush(w), 0);
	assert_int_equal(blocks_whole(&fl, 6), 5000);
	assert_int_equal(blocks_whole(&fl, 1), 1);
	pcapng__free(w);
	file_close(&fl);
}

/* Past PCAPNG_MAX_IFACES interfaces, packets are counted, not written. */
static void interfaces_bounded(void **state)
{
	struct file fl;
	struct pcapng_writer *w;
	struct pcapng_packet p;
	int i;

	file_open(&fl);
	w = pcapng__new(fl.f);
	for (i = 0; i < PCAPNG_MAX_IFACES + 3; i++) {
		p = packet(i + 1, PCAPNG_LINKTYPE_ETHERNET, NULL);
		assert_int_equal(pcapng__packet(w, &p), 0);
	}
	assert_int_equal(pcapng__refused(w), 3);
	pcapng__free(w);
	file_close(&fl);
}

/* A captured packet: an skb whose data starts 14 bytes after its MAC header. */
struct raw_packet {
	struct ksnoop_skb_packet k;
	unsigned char bytes[64];
};

static struct raw_packet eth_packet(void)
{
	struct raw_packet r;

	memset(&r, 0, sizeof(r));
	r.k.head = 0xffff888000000000ULL;
	r.k.mac_header = 64;
	r.k.network_header = 78;
	r.k.data = r.k.head + 78;	/* received: data at the network header */
	r.k.len = 84;
	r.k.ifindex = 1;
	r.k.dev_type = 772;		/* ARPHRD_LOOPBACK */
	r.k.from = KSNOOP_PKT_FROM_MAC;
	r.k.caplen = 64;
	memcpy(r.k.dev_name, "lo", 2);
	for (int i = 0; i < 64; i++)
		r.bytes[i] = i;
	return r;
}

static void skb_from_mac(void **state)
{
	struct raw_packet r = eth_packet();
	struct pcapng_packet p;
	char name[KSNOOP_IFNAMSIZ + 1];

	assert_int_equal(pcapng__from_skb(&r, sizeof(r), &p, name), 0);
	assert_int_equal(p.linktype, PCAPNG_LINKTYPE_ETHERNET);	/* loopback: Ethernet */
	assert_int_equal(p.orig_len, 84 + 14);	/* the MAC header before data counts */
	assert_int_equal(p.caplen, 64);
	assert_ptr_equal(p.bytes, r.bytes);
	assert_int_equal(p.ifindex, 1);
	assert_string_equal(p.if_name, "lo");
}

static void skb_from_network(void **state)
{
	struct raw_packet r = eth_packet();
	struct pcapng_packet p;
	char name[KSNOOP_IFNAMSIZ + 1];

	r.k.from = KSNOOP_PKT_FROM_NETWORK;
	r.k.mac_header = 0xffff;
	assert_int_equal(pcapng__from_skb(&r, sizeof(r), &p, name), 0);
	assert_int_equal(p.linktype, PCAPNG_LINKTYPE_RAW);
	assert_int_equal(p.orig_len, 84);
	/* tun: no link header at all */
	r = eth_packet();
	r.k.dev_type = 0xfffe;
	assert_int_equal(pcapng__from_skb(&r, sizeof(r), &p, name), 0);
	assert_int_equal(p.linktype, PCAPNG_LINKTYPE_RAW);
}

/* A link header of a kind we cannot name: written from the network header, as RAW. */
static void skb_unknown_link(void **state)
{
	struct raw_packet r = eth_packet();
	struct pcapng_packet p;
	char name[KSNOOP_IFNAMSIZ + 1];

	r.k.dev_type = 24;		/* ARPHRD_EUI64 */
	assert_int_equal(pcapng__from_skb(&r, sizeof(r), &p, name), 0);
	assert_int_equal(p.linktype, PCAPNG_LINKTYPE_RAW);
	assert_ptr_equal(p.bytes, r.bytes + 14);
	assert_int_equal(p.caplen, 64 - 14);
	assert_int_equal(p.orig_len, 84);
	/* ... and its network header past what was captured: nothing to write. */
	r.k.network_header = r.k.mac_header + 200;
	assert_int_equal(pcapng__from_skb(&r, sizeof(r), &p, name), -EINVAL);
}

/* Lengths that lie are bounded by the record; names are escaped. */
static void skb_hostile(void **state)
{
	struct raw_packet r = eth_packet();
	struct pcapng_packet p;
	char name[KSNOOP_IFNAMSIZ + 1];

	r.k.caplen = 60000;
	assert_int_equal(pcapng__from_skb(&r, sizeof(r), &p, name), 0);
	assert_int_equal(p.caplen, 64);
	assert_int_equal(pcapng__from_skb(&r, sizeof(r.k) - 1, &p, name), -EINVAL);
	assert_int_equal(pcapng__from_skb(&r, sizeof(r.k) + 10, &p, name), 0);
	assert_int_equal(p.caplen, 10);
	r.k.from = KSNOOP_PKT_FROM_NONE;
	assert_int_equal(pcapng__from_skb(&r, sizeof(r), &p, name), -EINVAL);
	r.k.from = 7;
	assert_int_equal(pcapng__from_skb(&r, sizeof(r), &p, name), -EINVAL);
	r = eth_packet();
	memcpy(r.k.dev_name, "e\x1b[2Jxxxxxxxxxxxxxxx", KSNOOP_IFNAMSIZ);	/* 16, no NUL */
	assert_int_equal(pcapng__from_skb(&r, sizeof(r), &p, name), 0);
	assert_string_equal(p.if_name, "e?[2Jxxxxxxxxxxx");
	/* data before the MAC header by more than len: no length made up */
	r = eth_packet();
	r.k.data = r.k.head;
	r.k.len = 10;
	assert_int_equal(pcapng__from_skb(&r, sizeof(r), &p, name), 0);
	assert_int_equal(p.orig_len, p.caplen);
}

static void comments(void **state)
{
	struct ksnoop_event ev = { .tgid = 12, .tid = 13, .kind = KSNOOP_ENTRY };
	char buf[PCAPNG_MAX_COMMENT];

	memcpy(ev.comm, "ping", 4);
	pcap_events__comment(&ev, "tp:net_dev_queue", buf, sizeof(buf));
	assert_string_equal(buf, "tp:net_dev_queue comm=ping pid=12 tid=13");
	ev.flags = KSNOOP_EV_OBJECT;
	ev.object = 0xffff888012345678ULL;
	ev.session = 7;
	memcpy(ev.comm, "a\nb\x7f", 4);
	pcap_events__comment(&ev, "ip_rcv", buf, sizeof(buf));
	assert_string_equal(buf, "ip_rcv comm=a\\nb\\x7f pid=12 tid=13 object=0xffff888012345678 story=7");
}

/* A write that fails (a full disk) is an error at the packet, not a cut block later. */
static void write_error(void **state)
{
	FILE *f = fopen("/dev/full", "w");
	struct pcapng_writer *w;

	if (!f)
		skip();
	w = pcapng__new(f);
	assert_null(w);
	assert_int_equal(errno, ENOSPC);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(shb_is_first),
		cmocka_unit_test(one_idb_per_interface),
		cmocka_unit_test(long_comment_cut),
		cmocka_unit_test(interfaces_bounded),
		cmocka_unit_test(buffered_whole_blocks),
		cmocka_unit_test(skb_from_mac),
		cmocka_unit_test(skb_from_network),
		cmocka_unit_test(skb_unknown_link),
		cmocka_unit_test(skb_hostile),
		cmocka_unit_test(comments),
		cmocka_unit_test(write_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
