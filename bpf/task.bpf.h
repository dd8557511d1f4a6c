/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Task selection: the current task's ids in ksnoop's pid namespace, the
 * -p/-t/-c filters, and ksnoop's own calls, which are left out.
 */
#ifndef KSNOOP_TASK_BPF_H
#define KSNOOP_TASK_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "arch.bpf.h"
#include "plan.bpf.h"
#include "call.bpf.h"

/*
 * The current task's ids as ksnoop's pid namespace sees them (a task
 * outside it has none: 0).  In the initial namespace the plain helper is
 * cheaper and says the same.
 */
static __always_inline void task_ids(__u32 *tgid, __u32 *tid)
{
	struct bpf_pidns_info ns = {};
	__u64 id;

	if (plan.pidns_ino) {
		if (bpf_get_ns_current_pid_tgid(plan.pidns_dev, plan.pidns_ino, &ns, sizeof(ns)))
			ns.tgid = ns.pid = 0;
		*tgid = ns.tgid;
		*tid = ns.pid;
		return;
	}
	id = bpf_get_current_pid_tgid();
	*tgid = id >> 32;
	*tid = (__u32)id;
}

/*
 * The current task's name into DST (KSNOOP_COMM_LEN bytes, 8-aligned):
 * two word loads through the typed task pointer where the kernel's
 * layout is known (KSNOOP_KF_TASK_COMM), else bpf_get_current_comm(),
 * which copies it with strscpy and pads with memset (6 % of a traced
 * tracepoint call's samples here).  The kernel keeps comm NUL-padded; a
 * rename racing this may mix two names' bytes, which the reader treats
 * as it treats any name (untrusted, escaped, bounded).
 */
static __always_inline void task_comm(void *dst)
{
	if (KFIELD_KNOWN(KSNOOP_KF_TASK_COMM)) {
		const __u64 *src = KFIELD_AT(bpf_get_current_task_btf(), KSNOOP_KF_TASK_COMM);

		((__u64 *)dst)[0] = src[0];
		((__u64 *)dst)[1] = src[1];
		return;
	}
	bpf_get_current_comm(dst, KSNOOP_COMM_LEN);
}

/*
 * --cgroup: the task is in the cgroup or below it when its ancestor at
 * the cgroup's level is the cgroup (a task in the cgroup itself is its
 * own ancestor there).  A task above that level has none: 0, no match.
 * Both helpers are the tracing programs' on 6.1 (fentry/fexit, tp_btf,
 * raw_tp, kprobes and uprobes alike).
 */
static __always_inline bool task_in_cgroup(void)
{
	return bpf_get_current_ancestor_cgroup_id(plan.cgroup_level) == plan.cgroup_id;
}

static __always_inline bool task_selected(struct call *c)
{
	char comm[KSNOOP_COMM_LEN] __attribute__((aligned(8)));
	int i;

	if (plan.cgroup_id && !task_in_cgroup())
		return false;
	if (plan.filter_pid || plan.filter_tid) {
		/* Kept in C: task_is_self() and the record's header need them too. */
		task_ids(&c->tgid, &c->tid);
		c->have_ids = 1;
		if (plan.filter_pid && c->tgid != plan.filter_pid)
			return false;
		if (plan.filter_tid && c->tid != plan.filter_tid)
			return false;
	}
	if (plan.filter_comm) {
		task_comm(comm);
		for (i = 0; i < KSNOOP_COMM_LEN; i++) {
			if (comm[i] != plan.comm[i])
				return false;
			if (!comm[i])
				break;
		}
	}
	return true;
}
/*
 * Whether the current task is ksnoop itself, whose calls are left out
 * (printing them would make more: a loop) and counted, so the summary
 * says so: on tp:sched_switch, which fires in the task switching out,
 * every switch from ksnoop goes while those to it print.  Asked only of
 * calls whose predicates held (a filtered-out call pays nothing for it);
 * the ids, read here unless task_selected() did, go into C for the
 * record's header.
 */
static __always_inline bool task_is_self(struct call *c)
{
	if (!plan.self_tgid)
		return false;
	if (!c->have_ids) {
		task_ids(&c->tgid, &c->tid);
		c->have_ids = 1;
	}
	if (c->tgid != plan.self_tgid)
		return false;
	count(KSNOOP_CNT_SELF);
	return true;
}

#endif /* KSNOOP_TASK_BPF_H */
