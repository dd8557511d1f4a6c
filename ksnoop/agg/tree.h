/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --tree: a session's calls, as the inner functions' return records gave
 * them, made into a tree, and its first failing call found.  Pure: no
 * BPF, no printing (tree_print.c prints), so it is tested on synthetic
 * calls (tests/unit/test_tree.c).
 */
#ifndef KSNOOP_TREE_H
#define KSNOOP_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* What a call returned, as far as errors go. */
enum tree_ret {
	TREE_RET_NONE,		/* not captured (the spec names no return) */
	TREE_RET_OK,		/* not an error */
	TREE_RET_ERRNO,		/* -1 .. -4095, an int or ERR_PTR(): code holds it */
	TREE_RET_NULL,		/* a NULL pointer */
};

/*
 * One call.  Records come in the order calls returned (post-order), each
 * with its depth below the root (1: called by the root); tree__assemble()
 * sets parent (-1: the root's child) from that alone.
 */
struct tree_call {
	__u32 depth;
	enum tree_ret ret;
	int code;		/* TREE_RET_ERRNO: the errno (positive) */
	int parent;		/* index of the caller, -1: the root */
	int first_child;	/* its first callee (-1: none), then each callee's */
	int next_sibling;	/* next callee of its caller (-1: none) */
	bool first_error;
	bool leaf;		/* a tracepoint's event: no return, so no callees */
	const void *rec;	/* the record (the caller's to keep) */
	size_t size;
};

/*
 * Each call's caller: the first call after it (in return order) at a
 * lower depth; a call not recorded between them (its entry predicates
 * failed) leaves its callees to the next one above.  Callees in the
 * order they were called; returns the root's first callee (-1: none).
 */
int tree__assemble(struct tree_call *calls, int n);

/* Whether RET is an error: a negative errno or a NULL pointer. */
static inline bool tree_ret__is_error(enum tree_ret ret)
{
	return ret == TREE_RET_ERRNO || ret == TREE_RET_NULL;
}

/*
 * The first failing call (retsnoop's rule): from the root, which returned
 * ROOT_RET (ROOT_CODE), down through the last callee that returned the
 * same error, as long as there is one; that innermost call is the first
 * to fail, marked first_error.  Returns its index, or -1 (the root did not
 * fail, or no recorded callee returned its error).
 */
int tree__first_error(struct tree_call *calls, int n, enum tree_ret root_ret, int root_code);

/*
 * Records waiting for their session's root: BPF sends a printed session's
 * calls just before its root's record (ksnoop.h, enum ksnoop_tree_role).
 * Copies, per task (an open-addressed table by task: a task's records are
 * found without looking at other tasks', so a recording that interleaves
 * many tasks costs no more per record than one task's).  A task is its
 * tid and, in a report merging recordings, its recording's number above
 * it (tree_task_key()): two hosts' tids are not one task.
 */
struct tree_pending {
	struct tree_task {
		__u64 task;		/* tree_task_key() */
		__u32 session;		/* of the records kept */
		struct tree_pending_rec {
			void *rec;
			size_t size;
		} *v;
		int n, cap;
	} *tasks;
	int cap;		/* slots, a power of 2 (0: none yet) */
	int used;		/* slots holding a tid */
	int n;			/* records kept, all tasks */
	size_t bytes;		/* their sizes */
	__u64 dropped;		/* records of sessions never printed, dropped */
};

/*
 * Records and bytes kept at most: past either a record is dropped
 * (counted).  A session's records wait for its root's return; a task has
 * one session at a time, so a record of a new session drops the task's
 * older ones (a session whose root's record the ring buffer lost), and
 * what waits is about one session per task.  The bytes bound a recording
 * whose roots never come (report reads files anyone may have written).
 */
#define TREE_PENDING_MAX	(1 << 20)
#define TREE_PENDING_MAX_BYTES	(256u << 20)

/*
 * Keep a copy of REC: 0, -ENOSPC (TREE_PENDING_MAX or _MAX_BYTES,
 * counted as dropped) or -ENOMEM.
 */
static inline __u64 tree_task_key(__u32 source, __u32 tid)
{
	return (__u64)source << 32 | tid;
}
int tree_pending__add(struct tree_pending *p, __u64 task, __u32 session,
		      const void *rec, size_t size);
/*
 * TASK's session SESSION has ended: its records, in order, into CALLS (at
 * most MAX; rec and size set, the rest zeroed), and every record of TASK
 * gone from P (an older session of the task's was discarded in BPF).
 * Returns how many; the caller frees each calls[i].rec.
 */
int tree_pending__take(struct tree_pending *p, __u64 task, __u32 session,
		       struct tree_call *calls, int max);
void tree_pending__free(struct tree_pending *p);

#endif
