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

struct attacher;

struct attacher *attacher__new(__u32 ringbuf_bytes);
void attacher__free(struct attacher *a);
/* Every link goes (no new events); maps and the ring buffer stay to be read. */
void attacher__detach(struct attacher *a);
/*
 * Out of memory or of file descriptors: never a glob's match "left out"
 * (the kernel did not refuse it), always the end of the run.
 */
bool attacher__exhausted(int err);

enum attach_kind {
	ATTACH_FENTRY,		/* fentry + fexit */
	ATTACH_KPROBE,		/* kprobe + kretprobe */
	ATTACH_TP,		/* raw_tp, typed from the btf_trace_* prototype */
	ATTACH_USDT,		/* uprobes at every call site of a USDT probe */
};

/*
 * Load an instance for PLAN and attach it as KIND.  Returns 0 or a
 * negative errno, a runtime one (what the kernel said is in E's message).
 */
int attacher__add(struct attacher *a, const struct capture_plan *plan,
		  enum attach_kind kind, struct ks_error *e);

/* One USDT probe of a group: PROVIDER:NAME in the file at PATH. */
struct attach_usdt {
	const char *path;	/* to open (/proc/self/fd/N) */
	const char *shown;	/* the file as messages name it */
	const char *provider;
	const char *name;
	__u32 func_id;		/* its target: the USDT cookie of its sites */
	int nsites;		/* its call sites */
};

/*
 * Attach the N PROBES, whose plans differ only in func_id (PLAN is any
 * one's), through one program: every call site (PID -1: in every
 * process), the BPF cookie naming the probe.
 */
int attacher__add_usdt(struct attacher *a, const struct capture_plan *plan,
		       const struct attach_usdt *probes, int n, int pid, struct ks_error *e);

/* Of N USDT probes in all, how many one program should serve at most. */
int attacher__usdt_per_program(int n);

/*
 * One function of a group and its func_id; with per-function values
 * (KSNOOP_PLAN_FUNC_VALUES), what its values are.
 */
struct attach_func {
	const char *name;
	__u32 func_id;
	const struct ksnoop_func_values *values;
};

/*
 * A group of KIND: functions (ATTACH_KPROBE) or tracepoints (ATTACH_TP,
 * where the kernel has raw_tp cookies) that share the program GROUP (from
 * resolver__group(); PLAN is any member's, for its name), each probe's
 * cookie naming its target (and its values' index).  kprobes attach through
 * kprobe.multi where the kernel has it, else one kprobe per function;
 * tracepoints with a raw_tp link each.  FAILED (glob matches; may be
 * NULL): a target the kernel refuses is marked there and left out instead
 * of failing all.
 */
int attacher__add_group(struct attacher *a, const struct capture_plan *plan,
			const struct ksnoop_plan *group, enum attach_kind kind,
			const struct attach_func *funcs, int n, bool *failed, struct ks_error *e);

/* -v: programs loaded and the time it took, links made, time since attacher__new(). */
void attacher__log_cost(const struct attacher *a);

int attacher__ringbuf_fd(const struct attacher *a);
/* --count: the shared counts map (struct ksnoop_count_key -> __u64) and stacks map. */
int attacher__counts_fd(const struct attacher *a);
int attacher__stacks_fd(const struct attacher *a);
/* A shared counter summed over CPUs (events lost, stash drops). */
__u64 attacher__counter(const struct attacher *a, enum ksnoop_counter counter);

/*
 * Calls the programs did not run for: the kernel skips a BPF program that
 * would run inside itself (a probed function called from a probe, or
 * while another program runs on the CPU) and counts the miss.
 */
__u64 attacher__missed(const struct attacher *a);

#endif
