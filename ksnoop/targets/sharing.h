/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which targets share one program: the attacher's plan, decided before
 * anything loads and without libbpf, so that it can be tested alone.
 *
 * A glob's kprobe targets, a glob's tracepoints where the kernel has
 * raw_tp cookies, a glob's user functions (by file) and USDT probes are
 * grouped by plan: equal programs
 * (resolver__same_program()) are one program, the BPF cookie of each probe
 * naming its target.  A group whose records would grow too large is split
 * (resolver__group()); USDT probes of one plan are spread over several
 * programs so that their links detach in parallel (attach.c).  Every
 * other target (a function named alone, fentry, a tracepoint named
 * alone) is a program of its own and not in any group.
 */
#ifndef KSNOOP_GROUP_H
#define KSNOOP_GROUP_H

#include <stdbool.h>
#include "targets.h"

/* One program and the targets it serves. */
struct target_group {
	enum attach_kind kind;	/* ATTACH_SYSCALL_RAW: its targets are ATTACH_SYSCALL */
	const int *idx;		/* its targets: indexes into the list, ascending */
	int n;
	/* ATTACH_KPROBE, ATTACH_TP, ATTACH_UPROBE: the program's plan (resolver__group()). */
	struct ksnoop_plan plan;
};

struct target_groups {
	struct target_group *v;
	int n;
	int nfuncs;		/* glob matches (functions, tracepoints) in groups */
	int nraw;		/* of them, system calls on raw_syscalls */
	int nsys_own;		/* of them, system calls on their own events */
	int nsys_plans;		/* of those, a glob's whose plans make too many programs */
	int *idx;		/* what the groups' idx point into */
};

/*
 * A sys: glob of more than this many calls attaches them on the
 * raw_syscalls tracepoints: a program per plan and side there runs for
 * every system call of the machine (a map lookup for those not traced),
 * where a call's own events run only for it, so a few calls keep theirs.
 * KSNOOP_SYS_RAW_MIN in the environment changes it (cmd_trace.c).
 */
#define SYS_RAW_MIN_DEFAULT	16
/*
 * ... and when their plans make at most this many programs (each runs on
 * every system call, per side).  Values that differ per call do not
 * split them, kept for the return or not (resolver__group(): printed
 * 'sys:*' is one program, -L two); predicates that differ per call do.
 */
#define SYS_RAW_MAX_PROGRAMS	8
#define SYS_RAW_MIN_ENV		"KSNOOP_SYS_RAW_MIN"

/* Is TG attached with others of its plan, or through a program of its own? */
bool groups__shared(const struct target_list *l, const struct target *tg);

/*
 * The groups of L's shared targets, in the order of their plans' hashes.
 * USDT probes of one plan: a program per ceil(N / USDT_SPREAD) of the N
 * probes in L (one each when there are at most USDT_SPREAD).  Rewrites
 * the members' record layouts where a group's values vary per target
 * (resolver__group()).  0 or -ENOMEM.
 */
int groups__build(struct target_groups *g, struct target_list *l, int usdt_spread);
void groups__free(struct target_groups *g);

#endif
