/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Everything in the capture programs that depends on the architecture, in
 * one place: where a kprobe finds the arguments and the stack frame, and
 * where user memory ends.  Only x86-64 is written so far; another
 * architecture stops the build here, not with wrong numbers at run time.
 */
#ifndef KSNOOP_ARCH_BPF_H
#define KSNOOP_ARCH_BPF_H

#include <linux/ptrace.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"

#if defined(__TARGET_ARCH_x86)

/* Argument words passed in registers (SysV ABI). */
#define ARCH_REG_ARGS 6

/* User addresses have bit 47 and above clear (4-level paging; 5-level
 * user space is opt-in per process and ends at bit 56, still below). */
#define ARCH_USER_ADDR_LIMIT 0x0000800000000000ULL

/*
 * SysV ABI: six argument words in registers, the rest on the stack.  At
 * function entry the return address is at sp and stack arguments follow;
 * after the return they are gone (NWORDS 0 then).
 */
static __always_inline void arch_reg_args(struct pt_regs *regs, __u64 *words, int nwords)
{
	int i;

	words[0] = regs->rdi;
	words[1] = regs->rsi;
	words[2] = regs->rdx;
	words[3] = regs->rcx;
	words[4] = regs->r8;
	words[5] = regs->r9;
	for (i = ARCH_REG_ARGS; i < KSNOOP_MAX_ARGS; i++) {
		if (i >= nwords)
			break;
		bpf_probe_read_kernel(&words[i], sizeof(words[i]),
				      (void *)(regs->rsp + 8 * (i - ARCH_REG_ARGS + 1)));
	}
}

static __always_inline __u64 arch_return_value(struct pt_regs *regs)
{
	return regs->rax;
}

/*
 * The call's frame, the same at entry and at return: at entry sp points
 * at the return address; when the kretprobe runs it is 8 bytes higher.
 */
static __always_inline __u64 arch_call_frame(struct pt_regs *regs, bool at_return)
{
	return regs->rsp - (at_return ? 8 : 0);
}

#else
#error "ksnoop's capture programs know only x86-64 so far (see bpf/arch.bpf.h): kprobe argument registers, the call frame and the user/kernel address split must be written for this architecture"
#endif

#endif /* KSNOOP_ARCH_BPF_H */
