/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's features and the events ring buffer, made ahead.  The
 * kernel zeroes every page of a BPF ring buffer when the map is made:
 * 8 MiB by default, ~1.5 ms of a single tracepoint's 13 ms from exec to
 * attached natively, in the middle of the first instance's load; the
 * feature probes that need no vmlinux BTF (kfeatures__probe_early(): a
 * dozen small loads and attaches) were 0.7 ms more.  Nothing but --buffer
 * and whether kernel functions are traced decides them, so a thread
 * makes both while the main one reads vmlinux BTF and resolves the specs:
 * kfeatures__probe() takes the features, the attacher's first instance the
 * ring buffer (bpf_map__reuse_fd()).  Where making it fails, libbpf makes
 * it at the load as before and says why (the same errors: no privileges,
 * no memory).
 */
#ifndef KSNOOP_RINGBUF_AHEAD_H
#define KSNOOP_RINGBUF_AHEAD_H

#include <stdbool.h>
#include <linux/types.h>

struct ringbuf_ahead;
struct kernel_features;

/*
 * Starts probing the kernel (FUNCS: for kernel functions too), then
 * making a ring buffer of BYTES; NULL: not started (both made later).
 */
struct ringbuf_ahead *ringbuf_ahead__start(__u32 bytes, bool funcs);
/* The features probed ahead, once they are (waits for them); NULL for R NULL. */
const struct kernel_features *ringbuf_ahead__features(struct ringbuf_ahead *r);
/*
 * The map's fd once it is made (waits for the thread), the caller's to
 * close; -1: making it failed, or it was taken before.  NULL is fine.
 */
int ringbuf_ahead__take(struct ringbuf_ahead *r);
/* Waits for the thread; a ring buffer not taken is closed.  NULL is fine. */
void ringbuf_ahead__free(struct ringbuf_ahead *r);

#endif
