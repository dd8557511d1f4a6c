/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One call as the programs see it (struct call), and the key its entry
 * and return share (call_key()).
 */
#ifndef KSNOOP_CALL_BPF_H
#define KSNOOP_CALL_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "arch.bpf.h"
#include "words.bpf.h"

/*
 * One call as the programs see it: which function, when this side ran,
 * when the call began (0: its entry was not seen, or not asked for), the
 * task's ids once read (have_ids), its key and its function's values.
 */
struct call {
	__u32 func_id;
	__u32 tgid;
	__u32 tid;
	__u16 have_ids;
	/* --track: how this call reports its object (KSNOOP_EV_*, ev->flags' bits) */
	__u16 track_flags;
	__u64 now;
	__u64 start;
	/* The call's key in the stash and entry_times (if its side keeps any). */
	struct ksnoop_stash_key key;
	/* A group whose values vary: this function's (NULL: the plan's). */
	const struct ksnoop_func_values *fv;
	/*
	 * --tree: the session this call is in (0: none) and its depth
	 * there; the root's: the calls its session did not record.
	 */
	__u32 session;
	__u32 depth;
	/* --tree: an inner call's session; the root's: its calls waiting */
	struct ksnoop_tree_session *tree;
	struct ksnoop_tree_rec *tree_rec;	/* an inner call's record (tree_rec_begin()) */
	/* --tree, an inner function: its entry time's slot in the session (else entry_times) */
	__u64 *tree_start;
	__u32 tree_kept;
	__u32 tree_flushed;	/* the root's: its calls went to the ring buffer */
	/* --track: the object this call reports (0: none) */
	__u64 object;
	/* kprobe.session: the call's cookie (session.bpf.h); NULL: the stash */
	__u64 *cookie;
};

/*
 * The call frame, the same for the entry and the return of one call.
 * kprobes and uprobes: from the stack pointer (arch_call_frame()); a
 * uprobe's ctx is the task's one user pt_regs, the same for every frame.  fentry/fexit: both
 * programs get the trampoline's frame (the saved arguments) as ctx.
 */
static __always_inline void call_key(void *ctx, enum word_source ws, int kind, __u32 func_id,
				     struct ksnoop_stash_key *key)
{
	key->tid = (__u32)bpf_get_current_pid_tgid();
	key->func_id = func_id;
	if (ws == WORDS_REGS || ws == WORDS_UREGS || ws == WORDS_UREGS_COUNT)
		key->frame = arch_call_frame(ctx, kind == KSNOOP_RETURN);
	else if (ws == WORDS_SYSCALL || ws == WORDS_RAWSYS)
		key->frame = 0;	/* a task is in one syscall at a time */
	else
		key->frame = (__u64)ctx;
}

#endif /* KSNOOP_CALL_BPF_H */
