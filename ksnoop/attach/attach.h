/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The attacher: one loaded instance of the BPF object per target, each
 * with its own plan in .rodata, all sharing one ring buffer and one counter
 * map.  All or nothing: attacher__free() detaches everything, and every
 * program and link is a file descriptor, so nothing outlives the process.
 */
#ifndef KSNOOP_ATTACH_H
#define KSNOOP_ATTACH_H

#include <stdbool.h>
#include "ks_error.h"
#include "resolve.h"
#include "targets.h"

struct attacher;

/*
 * RINGBUF_FD: the events ring buffer, of RINGBUF_BYTES, made ahead
 * (ringbuf_ahead.h), the attacher's from now on; -1: made at the first load.
 */
struct attacher *attacher__new(__u32 ringbuf_bytes, int ringbuf_fd);
struct pfilter;
/* --filter: the code written into every instance's object (kept, not copied). */
void attacher__set_filter(struct attacher *a, const struct pfilter *f);
void attacher__free(struct attacher *a);
/* Every link goes (no new events); maps and the ring buffer stay to be read. */
void attacher__detach(struct attacher *a);
/*
 * Out of memory or of file descriptors: never a glob's match "left out"
 * (the kernel did not refuse it), always the end of the run.
 */
bool attacher__exhausted(int err);

/*
 * Load and attach every target of L, the attacher's one entry point
 * (retsnoop's mass_attacher is the model): the targets that share a
 * program are grouped (sharing.h), each group loaded once and attached with
 * a BPF cookie per target (kprobe.multi where the kernel has it, else a
 * kprobe each; a raw_tp link per tracepoint; uprobes at every call site
 * of a USDT probe, in PID or, -1, every process), every other target
 * loaded and attached alone.  A glob's match the kernel refuses is left
 * out (-v says why); anything else ends it.  Marks what attached
 * (target.attached).  0, -EINTR when asked to stop, or a negative errno,
 * a runtime one, with E (what the kernel said, or that nothing attached).
 */
int attacher__attach_targets(struct attacher *a, struct target_list *l, int pid,
			     struct ks_error *e);

/*
 * File descriptors attaching L's targets will hold, estimated from above
 * before anything is loaded: the run raises its limit to it, or refuses
 * at once (a glob of a kprobe each ran out after minutes).
 */
long attacher__fds_needed(const struct target_list *l);

/* Targets attached so far: how far a stopped attacher__attach_targets() got. */
int attacher__attached_so_far(const struct attacher *a);

/*
 * The programs do nothing until the gate opens (plan.bpf.h): opened once
 * every target is attached, closed when the run stops, before the
 * results are read and the links detached.  0 or a negative errno.
 */
int attacher__set_gate(struct attacher *a, bool open);

/*
 * VMLINUX, the running kernel's vmlinux BTF that ksnoop parsed (or NULL),
 * is what libbpf gets for each load instead of parsing its own
 * (btf_lend.h); the caller keeps it until attacher__free().
 */
void attacher__lend_vmlinux(struct attacher *a, const struct btf *vmlinux);

/* -v: programs loaded and the time it took, links made, time since attacher__new(). */
void attacher__log_cost(const struct attacher *a);

int attacher__ringbuf_fd(const struct attacher *a);
/* --count: the shared counts map (struct ksnoop_count_key -> __u64) and stacks map. */
int attacher__counts_fd(const struct attacher *a);
int attacher__stacks_fd(const struct attacher *a);
/* --by: the shared by_counts map (struct ksnoop_by_key -> __u64); -1 without --by. */
int attacher__by_counts_fd(const struct attacher *a);
/* --track-max: the tracked set's size (before anything is attached). */
void attacher__set_track_entries(struct attacher *a, __u32 n);
/* --track: objects still in the set (never seen freed); -1: unreadable. */
long attacher__tracked_count(const struct attacher *a);
/* A shared counter summed over CPUs (events lost, stash drops). */
__u64 attacher__counter(const struct attacher *a, enum ksnoop_counter counter);

/*
 * Calls the programs did not run for: the kernel skips a BPF program that
 * would run inside itself (a probed function called from a probe, or
 * while another program runs on the CPU) and counts the miss.
 */
__u64 attacher__missed(const struct attacher *a);

#endif
