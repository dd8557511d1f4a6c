/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Target expansion: parsed specs in, the list of what to attach out, for
 * every kind of spec.  A kernel function named alone is one target; a
 * glob (`vfs_*`), a module's (`MODULE:GLOB`) or a type-selected one
 * (`*(struct sk_buff *s, ...)`) is a target per function it matches that
 * can be traced, the others left out and counted; tracepoints (`tp:NAME`,
 * `tp:sched_*`, `tp:CATEGORY:*`) the same; a USDT spec is a target per
 * probe and set of its call sites' argument types (usdt_front.h).
 *
 * Two layers.  targets__for_each_match() says what a spec names in the
 * kernel, every match with its signature and why it could not be traced,
 * and fails with the same words for `info` and for tracing when it names
 * nothing (no such module, a glob that matches nothing, no such
 * tracepoint).  targets__add() resolves each
 * match into a capture plan, leave out what cannot be traced and report
 * the outcome (an error when nothing of a spec is left).
 *
 * Knows nothing of libbpf's loading and attaching: the attacher takes the
 * list (attach.h), the grouping decides which targets share a program
 * (sharing.h).
 */
#ifndef KSNOOP_TARGETS_H
#define KSNOOP_TARGETS_H

#include <stdbool.h>
#include "attach_kind.h"
#include "ks_error.h"
#include "resolve.h"
#include "spec.h"
#include "kernel.h"
#include "usdt_front.h"
#include "ufunc.h"

/* One attach point: a kernel function, a tracepoint, or one USDT probe. */
struct target {
	const struct spec *spec;	/* the spec it came from (spec->text as given) */
	enum attach_kind kind;
	bool from_glob;		/* a glob's match: left out, not fatal, if refused */
	bool attached;
	struct capture_plan plan;	/* plan.bpf.func_id: its index in the list */
	struct usdt_match usdt;	/* ATTACH_USDT */
	struct ufunc_match ufunc;	/* ATTACH_UPROBE */
	/*
	 * How --count and --hist name it where plan.sig.name does not say
	 * which: "NAME@ADDRESS" for one of several functions of a name; "" else.
	 */
	char label[SPEC_MAX_NAME + 24];
};

/* The targets of a command's specs, in spec order; func_id i is v[i]. */
struct target_list {
	struct target *v;
	int n;
	int cap;		/* targets v has room for */
	int glob_traced;	/* glob matches among them */
	bool tp_cookies;	/* a tracepoint glob's matches can share programs */
	/*
	 * A sys: glob of more than sys_raw_min calls attaches them on the
	 * raw_syscalls tracepoints (sharing.c); raw_syscalls: the kernel has them.
	 */
	bool raw_syscalls;
	int sys_raw_min;
};

/* What every plan gets besides its values. */
struct targets_cfg {
	/* types_where and user_space are set per target. */
	struct resolve_opts resolve;
	__u32 filter_pid, filter_tid;
	__u64 pidns_dev, pidns_ino;
	/* --cgroup: the cgroup's id and level (0: any task) */
	__u64 cgroup_id;
	__u32 cgroup_level;
	/* each event carries its task's cgroup id (KSNOOP_EV_CGROUP) */
	bool event_cgroup;
	__u32 self_tgid;
	const char *comm;	/* KSNOOP_COMM_LEN bytes; NULL: any */
	enum attach_kind func_kind;	/* a kernel function named alone */
	enum attach_kind glob_kind;	/* a kernel function a glob matched */
	bool tp_cookies;		/* raw_tp links take a BPF cookie (kfeatures.h) */
	bool raw_syscalls;		/* the raw_syscalls tracepoints (kfeatures.h) */
	int sys_raw_min;		/* see struct target_list */
	int usdt_pid;		/* > 0: USDT binaries may be named as that process maps them */
	struct ufunc_front *ufunc;	/* u: specs' front end (NULL: none given) */
	/* --tree: the root's spec (the others' targets are inner functions); NULL: none */
	const struct spec *tree_root;
	__u32 tree_max_calls;
	/* --tree: the CPU's preempt count (ksnoop.h, struct ksnoop_plan); 0: not known */
	__u64 preempt_count_addr, per_cpu_offset_addr;
	__u32 preempt_not_task;
};

/*
 * One thing a spec names in the kernel.  SIG is its signature (for a
 * function whose prototype does not fit, as far as it got); ERR says it
 * cannot be traced (E: why), REFUSED that the kernel would refuse it, and
 * DENIED that a glob leaves it out (tracing it recurses into the tracer).
 */
struct target_match {
	const char *module;		/* NULL: vmlinux (and every tracepoint) */
	const char *name;
	const struct signature *sig;
	int err;
	const struct ks_error *e;
	const char *refused;
	bool denied;
	bool glob;			/* one of many: the spec is a glob (or MODULE:, or declarations) */
	/*
	 * One of several functions of one name (sig->addr says which):
	 * INSTANCE of NINSTANCES in kallsyms' order; FENTRY_PICK: the one
	 * fentry attaches to (it attaches by name, the kernel picks).
	 */
	int instance, ninstances;
	bool fentry_pick;
	int namesakes;			/* a glob's match: functions of its name, if known */
};

/*
 * Before kernel__open(): the kernel's symbols are read for the kernel
 * function specs of SPECS[0..N) (kernel__prefetch_ksyms(): for a glob,
 * all of them; a function named alone is asked for by name, and the named
 * ones' instances are searched for together), and -v says which.
 */
void targets__prefetch(struct kernel *k, const struct spec *specs, int n);

/*
 * Call FN for everything kernel spec S names, in name order (a name of
 * several static functions: each, in kallsyms' order, or the one
 * NAME@ADDRESS picks).  0, FN's
 * first error, or a negative errno with E when S names nothing (-ENOENT:
 * no such function, module or tracepoint, a glob that matches nothing;
 * runtime errnos for unreadable BTF or kallsyms).  E is not logged.
 */
int targets__for_each_match(struct kernel *k, const struct spec *s,
			    int (*fn)(const struct target_match *m, void *ctx), void *ctx,
			    struct ks_error *e);

/*
 * The targets of SPECS[0..N), appended to L in spec order: a kernel
 * function or tracepoint named alone is one (K), a glob one per match
 * that can be traced, a USDT spec (FE) one per probe and set of its call
 * sites' argument types.  What cannot be traced is left out (-v says
 * why), an error when nothing of a spec is left; sites of a probe named
 * alone left out are a warning.  With CFG's tree_root, the tree's record
 * size is set in every plan of L (resolver__tree_sizes()).  Every error is reported here (log.h),
 * and -v says what each spec came to; 0 or a negative errno.
 */
int targets__add(struct target_list *l, struct kernel *k, struct usdt_front *fe,
		 const struct spec *specs, int n, const struct targets_cfg *cfg);

/*
 * --min-duration (MIN_NS > 0) needs a return: -EINVAL, reported, when one
 * of SPECS[0..N) is a tracepoint or a USDT probe, which have none.
 */
int targets__check_min_duration(const struct spec *specs, int n, __u64 min_ns);

/* Every plan released, the list empty (to be built again, or freed). */
void targets__clear(struct target_list *l);
void targets__free(struct target_list *l);

/* An error about spec ARG as given: "spec 'ARG': column N: MESSAGE". */
void targets__log_error(const char *arg, const struct ks_error *e);

#endif
