/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The argument words of a call, by attach type: where each argument slot
 * lives (fentry/fexit helpers, a raw tracepoint's array, kprobe registers,
 * USDT specs, a syscall event's record), which could not be read, and the
 * word a value or predicate starts from.
 */
#ifndef KSNOOP_WORDS_BPF_H
#define KSNOOP_WORDS_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "arch.bpf.h"
#include "usdt_arg.bpf.h"
#include "plan.bpf.h"

/* Where each argument slot lives, by attach type. */
enum word_source {
	WORDS_FENTRY,	/* fentry/fexit: bpf_get_func_arg() */
	WORDS_TP,	/* raw_tp: ctx is an array of u64 */
	WORDS_REGS,	/* kprobe/kretprobe: ctx is struct pt_regs */
	WORDS_UREGS,	/* uprobe/uretprobe: ctx is the user's struct pt_regs */
	/*
	 * The same, in programs that are never sleepable: --count by user
	 * stack (-s, --ustack) needs the stack map, which a sleepable
	 * program may not use.
	 */
	WORDS_UREGS_COUNT,
	WORDS_USDT,	/* USDT: argument specs decoded by usdt.bpf.h */
	WORDS_SYSCALL,	/* syscall events (perf tracepoints): ctx is the record */
	WORDS_RAWSYS,	/* raw_syscalls sys_enter/sys_exit: ctx is (regs, id or ret) */
};

/*
 * A system call's argument N is slot N + 2 in either source: the word it
 * has in its event's record, after the common fields and __syscall_nr
 * (signature__from_syscall()).
 */
#define SYSCALL_FIRST_SLOT	2

/*
 * The argument words of a call: the arguments, then the return value (a
 * user function's or USDT probe's entry: the file's load bias, for
 * KSNOOP_SRC_UGLOBAL), then for USDT (KSNOOP_PLAN_USDT) a mask of the
 * argument slots that could not be read (an argument in memory that
 * faulted): such a slot's word is where it is, never a value.  Its bit
 * KSNOOP_MAX_ARGS: the load bias is not known (usdt_bias()).
 */
#define WORD_UNREAD	(KSNOOP_MAX_ARGS + 1)
#define NWORDS		(KSNOOP_MAX_ARGS + 2)
/*
 * The argument words, as plain numbers.  fentry/fexit type their ctx words
 * from BTF, so a pointer argument would arrive as a typed kernel pointer on
 * which the verifier forbids the bit operations a predicate needs (and ctx
 * itself forbids computed offsets).  bpf_get_func_arg() and
 * bpf_get_func_ret() give scalars and are inlined by the verifier.
 * Tracepoints attach as raw_tp, whose words are scalars already (and which,
 * unlike tp_btf, does not make libbpf parse vmlinux BTF a second time at
 * start-up).  Only the words the plan uses are read.
 */
static __always_inline void fentry_masked_words(void *ctx, __u64 *words, __u32 mask)
{
	int i;

	for (i = 0; i < KSNOOP_MAX_ARGS; i++) {
		if (i >= plan.nslots)
			break;
		if (mask & (1u << i))
			bpf_get_func_arg(ctx, i, &words[i]);
	}
}

static __always_inline void fentry_words(void *ctx, __u64 *words, bool ret)
{
	fentry_masked_words(ctx, words, plan.slot_mask);
	if (ret)
		bpf_get_func_ret(ctx, &words[KSNOOP_MAX_ARGS]);
}

/*
 * Read at constant offsets (the loop unrolls): the kernel checks at attach
 * that the furthest word read is one the tracepoint passes.
 */
static __always_inline void tp_masked_words(__u64 *ctx, __u64 *words, __u32 mask)
{
	int i;

#pragma unroll
	for (i = 0; i < KSNOOP_MAX_ARGS; i++) {
		if (i >= plan.nslots)
			break;
		if (mask & (1u << i))
			words[i] = ctx[i];
	}
}

static __always_inline void tp_words(__u64 *ctx, __u64 *words)
{
	tp_masked_words(ctx, words, plan.slot_mask);
}

/*
 * A USDT argument in memory is read as other user memory is: where the
 * program may sleep, a page the traced program has not touched yet is
 * read again with bpf_copy_from_user(), which faults it in.  One that
 * still faults (nothing
 * mapped there) is marked in words[WORD_UNREAD], its word its address.
 */
/*
 * 0, always; but in .bss, where the verifier cannot know it.  The unread
 * mask starts from it: built from a known 0, each argument's fault path
 * gave the mask another known value, and the verifier, which cannot take
 * one for another once a branch asks the mask (slot_unread()), walked
 * every combination: 2^9 for the JVM's hotspot:method__compile__end,
 * past its instruction limit (E2BIG after two minutes), sleepable or not.
 * From an unknown start, a state whose bit is set is within one where it
 * is not known, and the walk stays linear.
 */
__u64 usdt_unread_none;

/*
 * KSNOOP_PLAN_UVARS: each call site's link-time address, at its spec's id
 * (attach.c writes it; the sites are ksnoop's own then, one spec each).
 * A probe's sites share one program, so its IP less the site's address is
 * the load bias of the file, whichever site fired (PIE, a library).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} usdt_site_pcs SEC(".maps");

static __always_inline void usdt_bias(struct pt_regs *ctx, __u64 *words)
{
	int id = __bpf_usdt_spec_id(ctx);
	__u64 *pc = id >= 0 ? bpf_map_lookup_elem(&usdt_site_pcs, &id) : NULL;

	if (pc && *pc)
		words[KSNOOP_MAX_ARGS] = arch_ip(ctx) - *pc;
	else
		words[WORD_UNREAD] |= 1ULL << KSNOOP_MAX_ARGS;
}

static __always_inline void usdt_words(struct pt_regs *ctx, __u64 *words, int nwords)
{
	__u64 addr;
	long val;
	int i, err;

	words[WORD_UNREAD] = usdt_unread_none;
	for (i = 0; i < KSNOOP_MAX_ARGS; i++) {
		if (i >= nwords)
			break;
		val = 0;
		err = ksnoop_usdt_arg(ctx, i, &val);
		/* A site without argument I (another site's plan) reads none. */
		if (err && err != -ENOENT && err != -ESRCH) {
			/*
			 * The address once, and one read that may fault the
			 * page in, on this path alone (each argument read twice,
			 * after a fault-in of its pages, cost PostgreSQL's probes
			 * 8 times the verifier's time).
			 */
			if (ksnoop_usdt_arg_addr(ctx, i, &addr))
				addr = 0;
			if (!addr || !(plan.flags & KSNOOP_PLAN_SLEEPABLE) ||
			    ksnoop_usdt_arg_faulting(ctx, i, addr, &val)) {
				words[WORD_UNREAD] |= 1ULL << i;
				val = addr;
			}
		}
		words[i] = val;
	}
	if (plan.flags & KSNOOP_PLAN_UVARS)
		usdt_bias(ctx, words);
}

/* Whether argument slot SLOT could not be read (usdt_words()). */
static __always_inline bool slot_unread(const __u64 *words, __u32 slot)
{
	return (plan.flags & KSNOOP_PLAN_USDT) && slot <= KSNOOP_MAX_ARGS &&
	       (words[WORD_UNREAD] & (1ULL << slot));
}

/*
 * The word an access starts from.  A user function's entry has no return
 * value: its return word holds the file's load bias (KSNOOP_SRC_UGLOBAL).
 */
static __always_inline __u32 src_slot(const volatile struct ksnoop_access *acc)
{
	return acc->src == KSNOOP_SRC_RET || acc->src == KSNOOP_SRC_UGLOBAL ? KSNOOP_MAX_ARGS :
									       acc->slot;
}

/*
 * Whether the words ACC reads could not be read: its source, or the
 * argument that holds a ":str(LEN)" string's length.
 */
static __always_inline bool src_unread(const __u64 *words,
				       const volatile struct ksnoop_access *acc)
{
	return slot_unread(words, src_slot(acc)) ||
	       ((acc->flags & KSNOOP_VAL_STR_LEN) && slot_unread(words, acc->len_slot));
}

/*
 * The task's rseq area (struct rseq __user *): task->rseq.usrptr since
 * the rseq rework (6.19), task->rseq before (klayout.c tells which).
 */
static __always_inline __u64 task_rseq_area(void)
{
	void *t = (void *)bpf_get_current_task();

	if (KFIELD_KNOWN(KSNOOP_KF_TASK_RSEQ_USRPTR))
		return kfield_u64(t, KSNOOP_KF_TASK_RSEQ_USRPTR);
	return kfield_u64(t, KSNOOP_KF_TASK_RSEQ);
}

/*
 * The thread pointer of the current thread, for @tls:NAME.  Where the
 * kernel's copy may be stale (arm64: the pre-exec value until the thread
 * first leaves the CPU, which nothing here can tell from a right one),
 * glibc's own bookkeeping gives it: every thread registers its rseq area
 * with the kernel (the task's rseq pointer, cleared at exec and for a new
 * thread until it registers) at __rseq_offset bytes from its thread
 * pointer, a constant glibc stores at start-up.  The resolver found that
 * variable's link-time address in the executable (plan.uvar_rseq_off, 0
 * if none) and WORDS has the file's load bias.  Without either, or before
 * the thread registered, the kernel's copy.
 */
static __always_inline __u64 thread_pointer(const __u64 *words)
{
	__u64 rseq;
	__s64 off = 0;

	if (!ARCH_TP_SAVED_LATE || !plan.uvar_rseq_off || slot_unread(words, KSNOOP_MAX_ARGS))
		return arch_thread_pointer();
	rseq = task_rseq_area();
	if (!rseq || bpf_probe_read_user(&off, sizeof(off),
					 (void *)(words[KSNOOP_MAX_ARGS] + plan.uvar_rseq_off)))
		return arch_thread_pointer();
	return rseq - off;
}

/* ACC's source word; 0 for one not read (callers check src_unread() first). */
static __always_inline __u64 src_word(const __u64 *words,
				      const volatile struct ksnoop_access *acc)
{
	__u32 slot = src_slot(acc);

	if (acc->src == KSNOOP_SRC_UTLS)
		return (plan.flags & KSNOOP_PLAN_UVARS) ?
		       thread_pointer(words) + plan.uvar_tls_delta : 0;
	if (slot > KSNOOP_MAX_ARGS || slot_unread(words, slot))
		return 0;
	return words[slot];
}

static __always_inline void read_words(void *ctx, enum word_source ws, int kind, __u64 *words)
{
	switch (ws) {
	case WORDS_FENTRY:
		fentry_words(ctx, words, kind == KSNOOP_RETURN);
		break;
	case WORDS_TP:
		tp_words(ctx, words);
		break;
	case WORDS_REGS:
	case WORDS_UREGS:
	case WORDS_UREGS_COUNT:
		/* A user function's stack arguments are on its user stack. */
		arch_reg_args(ctx, words, kind == KSNOOP_ENTRY ? plan.nslots : 0,
			      ws != WORDS_REGS);
		if (kind == KSNOOP_RETURN)
			words[KSNOOP_MAX_ARGS] = arch_return_value(ctx);
		else if (ws == WORDS_UREGS && (plan.flags & KSNOOP_PLAN_UVARS))
			words[KSNOOP_MAX_ARGS] = arch_ip(ctx) - plan.uvar_ip;
		break;
	case WORDS_USDT:
		usdt_words(ctx, words, plan.nslots);
		break;
	case WORDS_SYSCALL:
		/*
		 * The record's words, as a raw tracepoint's (the arguments from
		 * word 2); sys_exit's record has ret there, and no more.
		 */
		if (kind == KSNOOP_ENTRY)
			tp_words(ctx, words);
		else
			words[KSNOOP_MAX_ARGS] = ((__u64 *)ctx)[2];
		break;
	case WORDS_RAWSYS:
		/* The registers at entry; the return is the tracepoint's second word. */
		if (kind == KSNOOP_ENTRY)
			arch_syscall_args((void *)((__u64 *)ctx)[0], &words[SYSCALL_FIRST_SLOT],
					  plan.slot_mask >> SYSCALL_FIRST_SLOT);
		else
			words[KSNOOP_MAX_ARGS] = ((__u64 *)ctx)[1];
		break;
	}
}

#endif /* KSNOOP_WORDS_BPF_H */
