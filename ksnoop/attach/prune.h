/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * prune: the code a plan leaves dead, taken out before the kernel sees it.
 *
 * ksnoop's capture programs are generic: the plan written into .rodata
 * (const volatile) decides which parts run, and the verifier, which sees
 * that map frozen, follows only those.  But it is handed all of it: the
 * tracepoint program is 17,992 instructions of which it walks 982, and
 * the kernel then removes the dead ranges one at a time, each a memmove
 * of the whole program (verifier_remove_insns(), bpf_adj_branches()).
 * That was a third of a tracepoint's start-up here and most of an
 * fentry program's load under TCG (0.63 s of 0.65).
 *
 * prune__program() follows constants through each function of a program
 * (registers only, joined where paths meet), decides the conditional
 * jumps whose operands are constants (values read from the read-only
 * maps given), and returns the program without what no path reaches:
 * the jumps' offsets, bpf-to-bpf calls, callback addresses, func_info
 * and line_info renumbered.  It only removes what the verifier would
 * remove itself, so the kernel's translated program is the same (but for
 * jumps the kernel keeps because other paths reach their target), and
 * keeps every tail call: the kernel counts them before it removes dead
 * code (a program with one gets no private stack: taskstack.bpf.h).
 */
#ifndef KSNOOP_PRUNE_H
#define KSNOOP_PRUNE_H

#include <stddef.h>
#include <linux/bpf.h>

/*
 * Bounds: a program past PRUNE_MAX_INSNS is handed over as it is (the
 * analysis keeps 11 registers per instruction: 176 bytes each, 44 MB at
 * this bound; ksnoop's biggest is under 40,000).
 */
#define PRUNE_MAX_INSNS	262144
#define PRUNE_MAX_RO	4
/*
 * What leads to a tail call is found by sweeps from the end backwards: one
 * per loop the paths go round; more than this and the program goes whole.
 */
#define PRUNE_MAX_SWEEPS	64

/* A read-only map the program reads constants from: its fd as the
 * relocated ld_imm64 holds it, and its bytes. */
struct prune_ro {
	int fd;
	const void *data;
	size_t size;
};

struct prune_in {
	const struct bpf_insn *insns;
	size_t cnt;
	/* records of REC bytes each, their first __u32 an instruction's index */
	const void *func_info;
	__u32 func_rec, nfunc;
	const void *line_info;
	__u32 line_rec, nline;
	struct prune_ro ro[PRUNE_MAX_RO];
	int nro;
};

struct prune_out {
	struct bpf_insn *insns;
	size_t cnt;
	void *func_info;	/* NULL when the input had none */
	__u32 nfunc;
	void *line_info;
	__u32 nline;
	size_t decided;		/* conditional jumps decided */
};

/* 0 and OUT filled, or -EINVAL (something prune does not follow: load
 * the program as it is), -E2BIG (past PRUNE_MAX_INSNS), -ENOMEM. */
int prune__program(const struct prune_in *in, struct prune_out *out);
void prune__free(struct prune_out *out);

#endif
