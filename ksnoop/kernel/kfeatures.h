/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the running kernel can do, probed once before anything is resolved:
 * whether fentry/fexit attach, whether kprobes, kprobe.multi,
 * kprobe.session, uprobe.multi, fsession and uprobe.session links exist,
 * whether uprobe programs may sleep, whether raw_tp links carry a
 * BPF cookie, whether there is a BPF ring buffer.  The attach mode, the
 * program sharing and the USDT program kind are decided from this set,
 * not learned by a load or an attach failing halfway through a run.
 *
 * Tests replace part of the set: KSNOOP_FEATURES="-fentry,-kprobe_multi"
 * turns features off (or "+name" on) over what was probed, read here
 * only (tests/README.md).
 */
#ifndef KSNOOP_KFEATURES_H
#define KSNOOP_KFEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "attach_kind.h"
#include "ks_error.h"

struct btf;
struct ksnoop_plan;

/*
 * Attach types the system's uapi header (bookworm's, 6.1) does not name,
 * as the kernel numbers them (include/uapi/linux/bpf.h: 57 since 6.13,
 * 58 since 7.0).
 */
#define KSNOOP_BPF_TRACE_UPROBE_SESSION	((enum bpf_attach_type)57)
#define KSNOOP_BPF_TRACE_FSESSION	((enum bpf_attach_type)58)

/* The names KSNOOP_FEATURES and the -v line use, in this order. */
enum kernel_feature {
	FEAT_FENTRY,		/* fentry/fexit attach to a kernel function */
	FEAT_KPROBES,		/* kprobes (CONFIG_KPROBES, the kprobe PMU) */
	FEAT_KPROBE_MULTI,	/* one kprobe.multi link for many functions (5.18 on) */
	FEAT_UPROBE_SLEEPABLE,	/* sleepable uprobe programs, uprobe.s (6.0 on) */
	FEAT_TP_COOKIES,	/* raw_tp links with a BPF cookie (6.10 on) */
	FEAT_RINGBUF,		/* BPF ring buffer maps (5.8 on) */
	/*
	 * kprobe.session: one program at a function's entry and return over
	 * kprobe.multi, with a cookie for the call (6.10 on).  Last, so that
	 * the -v line grew at its end.
	 */
	FEAT_KPROBE_SESSION,
	/*
	 * One uprobe.multi link for many offsets of one file (6.6 on): a
	 * glob's user functions attach with a link per side, not a uprobe
	 * each.  After kprobe_session, for the same reason.
	 */
	FEAT_UPROBE_MULTI,
	/*
	 * fsession: fentry and fexit as one program, with a cookie for the
	 * call on the trampoline's stack (7.0 on).  libbpf 1.5 has no section
	 * for it; an fentry program loads as one by its expected attach type.
	 */
	FEAT_FSESSION,
	/*
	 * uprobe.session: the same over uprobe.multi (6.13 on).  libbpf 1.5's
	 * uprobe.multi attach asks for its own type: ksnoop makes the link.
	 */
	FEAT_UPROBE_SESSION,
	/*
	 * The raw_syscalls:sys_enter/sys_exit tracepoints, which see every
	 * system call by its number (CONFIG_HAVE_SYSCALL_TRACEPOINTS): a
	 * sys: glob of many calls attaches there, two links in all.
	 */
	FEAT_RAW_SYSCALLS,
	FEAT__COUNT,
};

struct kernel_features {
	bool have[FEAT__COUNT];
	int fentry_err;		/* why fentry was refused: the probe's errno; 0: injected */
	bool probed[FEAT__COUNT];	/* asked of the kernel (not all are, for every run) */
	bool injected[FEAT__COUNT];	/* set by KSNOOP_FEATURES, not probed */
	bool unprivileged;	/* no program loads at all (not root): nothing is known */
	/*
	 * The verifier gives BPF_PROG_TYPE_KPROBE programs, uprobes' too, a
	 * per-CPU private stack (x86-64 from 6.13): ksnoop's uprobe programs
	 * are kept off it (bpf/taskstack.bpf.h).  Not a KSNOOP_FEATURES
	 * name: it chooses nothing, it says what -v tells.
	 */
	bool priv_stack;
	/* kfeatures__probe_early(): whether it probed for kernel functions too, and its time */
	bool early_funcs;
	double early_ms;
};

/* The feature's name as KSNOOP_FEATURES and -v spell it. */
const char *kfeatures__name(enum kernel_feature feat);

/*
 * Apply SPEC, "[+|-]NAME[,[+|-]NAME]...", to F (a name alone turns it on).
 * 0, or -EINVAL with E saying which item is wrong.
 */
int kfeatures__parse(const char *spec, struct kernel_features *f, struct ks_error *e);

/* One line for -v: "kernel 6.1.0: fentry yes, kprobes yes, ...". */
void kfeatures__describe(const struct kernel_features *f, const char *release,
			char *buf, size_t sz);

/*
 * What -v says of the stack uprobe programs run on, where this kernel
 * would have given them a private stack; NULL elsewhere (nothing to say).
 */
const char *kfeatures__uprobe_stack(const struct kernel_features *f);

/*
 * The probes that need no vmlinux BTF, into F: made on a thread while the
 * main one parses that BTF (ringbuf_ahead.h), and handed to
 * kfeatures__probe().  FUNCS as kfeatures__probe()'s.
 */
void kfeatures__probe_early(struct kernel_features *f, bool funcs);
/*
 * Probe the running kernel (once; later calls return at once), then
 * apply KSNOOP_FEATURES; -v prints the one-line description.  FUNCS:
 * kernel functions are traced, so fentry and kprobe.multi are probed too,
 * fentry with VMLINUX (the running kernel's BTF) if the caller has it,
 * else BTF loaded for it.  EARLY: kfeatures__probe_early()'s set, made
 * ahead (NULL: probed now).
 * 0, or -EINVAL for a KSNOOP_FEATURES that does not parse.
 */
int kfeatures__probe(const struct btf *vmlinux, bool funcs, const struct kernel_features *early,
		     struct ks_error *e);
/* The set kfeatures__probe() found; probes first if it has not run. */
const struct kernel_features *kfeatures__get(void);

/*
 * The attach mode of kernel functions for a run asked for with ASKED:
 * MODE_AUTO where fentry works (a function's own refusal may still fall
 * back to kprobes), MODE_KPROBE where only kprobes do; as asked otherwise.
 */
enum attach_mode kfeatures__attach_mode(const struct kernel_features *f, enum attach_mode asked);

/*
 * How one kernel function attaches in MODE (from kfeatures__attach_mode()):
 * fentry for a function named alone; kprobes for a glob's matches where
 * there are kprobes (one program per plan serves them all, where fentry
 * needs one per function).
 */
enum attach_kind kfeatures__func_kind(const struct kernel_features *f, enum attach_mode mode,
				     bool glob);

/*
 * Can this run go ahead: is there a ring buffer, and with FUNCS (kernel
 * functions among the targets) can they attach in MODE?  0, or
 * -EOPNOTSUPP with E saying what this kernel lacks and what still works.
 * Where the probes were not allowed (not root) it says nothing: the
 * attach will, with a better message.
 */
int kfeatures__check_run(const struct kernel_features *f, bool funcs, enum attach_mode mode,
			struct ks_error *e);

/*
 * How a group of user functions of one file attaches: one uprobe.multi
 * link per side where the kernel has it (and KSNOOP_FEATURES leaves it
 * on), else a uprobe per function and side.
 */
bool kfeatures__ufunc_multi(const struct kernel_features *f);
/*
 * Whether libbpf's USDT attach makes uprobe.multi links on this kernel
 * (its own probe, cached), so that a program of section "usdt" loaded by
 * ksnoop's own section handler (prune_hook.h) is loaded for them as
 * libbpf would have.
 */
bool kfeatures__libbpf_usdt_multi(void);
/*
 * A uprobe.session link of program PROG at the CNT OFFSETS of file PATH,
 * with COOKIES (NULL: none), in process PID (0: every process): its fd,
 * or a negative errno.  libbpf 1.5 makes uprobe.multi links only.
 */
int kfeatures__uprobe_session_link(int prog, const char *path, const unsigned long *offsets,
				   const __u64 *cookies, __u32 cnt, int pid);

/* Where a call's entry record waits for its return. */
enum entry_keep {
	KEEP_NONE,	/* nowhere: nothing of the entry is reported with the return */
	KEEP_STASH,	/* the stash, a hash map keyed by task and call frame */
	KEEP_SESSION,	/* the task's session slots, named by the session cookie */
};

/*
 * Where plan BP's entry records wait when it attaches as KIND: in
 * session slots where the kernel has the session of KIND (kprobe.session,
 * fsession for fentry, uprobe.session for user functions) and the plan
 * fits them, else the stash, with *WHY saying why not the session (for
 * -v; NULL otherwise).
 */
enum entry_keep kfeatures__entry_keep(const struct kernel_features *f, enum attach_kind kind,
				      const struct ksnoop_plan *bp, const char **why);

#endif
