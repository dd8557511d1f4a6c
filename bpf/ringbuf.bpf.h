/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The ring buffer the records go to, and when its reader is woken
 * (submit()).  Records are reserved where they are built (ksnoop.bpf.c's
 * reserve()); --tree's flush copies finished ones in (tree.bpf.h).
 */
#ifndef KSNOOP_RINGBUF_BPF_H
#define KSNOOP_RINGBUF_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);	/* resized by userspace before load */
} events SEC(".maps");

/*
 * The reader is woken once per this many bytes written (a fraction of the
 * ring buffer, set before load), or when it has not been for
 * WAKEUP_INTERVAL_NS; otherwise it finds the records when its poll times
 * out (cmd_trace.c, POLL_INTERVAL_MS).  A wake-up per record cost as much as
 * the capture itself.  0: the kernel's default (a wake-up when the reader
 * had caught up).
 */
const volatile __u32 wakeup_bytes = 0;
#define WAKEUP_INTERVAL_NS	(10 * 1000 * 1000ULL)

/* When this instance last woke the reader (bpf_ktime_get_ns()). */
__u64 last_wakeup_ns = 0;

/*
 * Hand REC (SIZE bytes) to the reader.  Wake it when the data waiting
 * crosses a multiple of wakeup_bytes (it drains everything when woken, so
 * a busy reader is woken about once per wakeup_bytes, a stopped or slow
 * one no more often), or when it was last woken WAKEUP_INTERVAL_NS ago or
 * more: a sparse event is printed at once, a stream costs at most 100
 * wake-ups a second.  NOW is the caller's clock, read when it reserved
 * the record (a second read cost as much as the record's copy: read_tsc
 * is 11 % of a traced tracepoint call's samples here).  Races between
 * CPUs only add or skip one wake-up; a NOW older than another CPU's last
 * wake-up is a difference below zero, no wake-up.
 */
static __always_inline void submit(void *rec, __u32 size, __u64 now)
{
	__u64 avail, flags = 0;

	if (wakeup_bytes) {
		avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
		if ((avail >= size && avail / wakeup_bytes != (avail - size) / wakeup_bytes) ||
		    (__s64)(now - last_wakeup_ns) >= (__s64)WAKEUP_INTERVAL_NS) {
			last_wakeup_ns = now;
			flags = BPF_RB_FORCE_WAKEUP;
		} else {
			flags = BPF_RB_NO_WAKEUP;
		}
	}
	bpf_ringbuf_submit(rec, flags);
}

#endif /* KSNOOP_RINGBUF_BPF_H */
