/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * uprobe programs on the task's own stack, never on a per-CPU private one.
 *
 * From 6.13 the verifier gives a BPF_PROG_TYPE_KPROBE program (uprobes
 * are that type) a per-CPU private stack on x86-64 when a subprogram's
 * frame is 64 bytes or more (kernel/bpf/verifier.c:
 * bpf_enable_priv_stack(), check_max_stack_depth(); the JIT's
 * priv_stack_ptr), on the assumption that such a program cannot be
 * preempted.  A uprobe program can (6.0 on it runs with migration
 * disabled only; sleepable ones sleep): two threads' runs on one CPU then
 * share one stack, and calls are lost, or worse.  Any subprogram with a
 * tail call turns the private stack off for the whole program, and the
 * verifier decides that from the instructions alone (check_subprogs()
 * sets has_tail_call before anything is explored).
 *
 * So every uprobe program (USDT, user functions, uprobe.multi,
 * uprobe.session, sleepable or not) starts with a tail call the verifier
 * proves is never taken: `no_tail_call` is 0 in the frozen .rodata, so
 * the branch is pruned and the call, its arguments never checked, is
 * removed as dead code.  No prog array is named (a sleepable program may
 * not use one), so the call is the same for both.  kfeatures.c's
 * priv_stack probe tells -v whether this kernel would have given the
 * programs a private stack; the call is there on every kernel (the
 * instructions of an object cannot differ per kernel), where it changes
 * nothing but the JIT's tail call counter in the prologue.
 */
#ifndef KSNOOP_TASKSTACK_BPF_H
#define KSNOOP_TASKSTACK_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* Never written: the verifier reads it as the constant 0. */
const volatile __u32 no_tail_call = 0;

static __always_inline void task_stack_only(void *ctx)
{
	if (no_tail_call)
		bpf_tail_call(ctx, (void *)0, 0);
}

#endif /* KSNOOP_TASKSTACK_BPF_H */
