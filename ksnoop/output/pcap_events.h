/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --pcap FILE: the packets that events carry (a plan's PRINT_SKB_PACKET
 * values, the resolver's for a target with a struct sk_buff *) written
 * to FILE as pcapng (pcapng.h), each with a comment saying where it was
 * seen: the function or tracepoint, the task and, under --track, the
 * object and its story.
 */
#ifndef KSNOOP_PCAP_EVENTS_H
#define KSNOOP_PCAP_EVENTS_H

#include <stddef.h>
#include <linux/types.h>
#include "ks_error.h"
#include "resolve.h"

struct pcap_events;

/*
 * PATH opened (created or emptied) with its section header written;
 * CLOCK_OFFSET_NS turns the events' monotonic times into the epoch's.
 * NULL with E set (-EINVAL: a path that cannot be written, the user's
 * to fix).
 */
struct pcap_events *pcap_events__open(const char *path, __s64 clock_offset_ns,
				      struct ks_error *e);
/*
 * The packets of the event of SIZE bytes at DATA, whose plan is PLAN and
 * target NAME.  0, or a negative errno with E set (a write failed).
 */
int pcap_events__event(struct pcap_events *pe, const struct capture_plan *plan,
		       const char *name, const void *data, size_t size, struct ks_error *e);
/* Packets written so far; packets not written (no header set, too many interfaces). */
__u64 pcap_events__written(const struct pcap_events *pe);
__u64 pcap_events__skipped(const struct pcap_events *pe);
/*
 * The packets so far written out (after every batch of events: they wait
 * in a buffer until then); 0, or a negative errno with E set.
 */
int pcap_events__flush(struct pcap_events *pe, struct ks_error *e);
/* Flushed and closed: 0, or a negative errno with E set. */
int pcap_events__close(struct pcap_events *pe, struct ks_error *e);

/* The comment of a packet of event EV at NAME, into BUF (escaped, cut to SIZE). */
void pcap_events__comment(const struct ksnoop_event *ev, const char *name, char *buf,
			  size_t size);

#endif
