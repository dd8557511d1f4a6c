/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Everything in the capture programs that depends on the architecture, in
 * one place: where a kprobe finds the arguments and the stack frame, where
 * user memory ends, and the prefix of the kernel's system call wrappers.
 * x86-64 and arm64 are written; another architecture stops the build here,
 * not with wrong numbers at run time (a third one is a branch here, a
 * usdt_<arch>.c in userspace, and a test: docs/ARCHITECTURE.md).
 */
#ifndef KSNOOP_ARCH_BPF_H
#define KSNOOP_ARCH_BPF_H

#include <linux/ptrace.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "plan.bpf.h"

#if defined(__TARGET_ARCH_x86)

/* Argument words passed in registers (SysV ABI). */
#define ARCH_REG_ARGS 6

/* The kernel's system call wrappers: __x64_sys_openat(const struct pt_regs *). */
#define ARCH_SYSCALL_PREFIX "__x64_sys_"

/* User addresses have bit 47 and above clear (4-level paging; 5-level
 * user space is opt-in per process and ends at bit 56, still below). */
#define ARCH_USER_ADDR_LIMIT 0x0000800000000000ULL

/*
 * SysV ABI: six argument words in registers, the rest on the stack.  At
 * function entry the return address is at sp and stack arguments follow;
 * after the return they are gone (NWORDS 0 then).  USER: a uprobe's, on
 * the user stack.
 */
static __always_inline void arch_reg_args(struct pt_regs *regs, __u64 *words, int nwords,
					  bool user)
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
		void *at = (void *)(regs->rsp + 8 * (i - ARCH_REG_ARGS + 1));

		if (user)
			bpf_probe_read_user(&words[i], sizeof(words[i]), at);
		else
			bpf_probe_read_kernel(&words[i], sizeof(words[i]), at);
	}
}

static __always_inline __u64 arch_return_value(struct pt_regs *regs)
{
	return regs->rax;
}

/* The address the probe fired at: a uprobe's is the function's (+OFFSET). */
static __always_inline __u64 arch_ip(struct pt_regs *regs)
{
	return regs->rip;
}

/*
 * The current thread's pointer as its user code sees it: fs_base (TLS
 * variant II).  glibc sets it through arch_prctl(ARCH_SET_FS), which
 * writes the task's copy: never stale while the thread runs.
 */
#define ARCH_TP_SAVED_LATE 0	/* task->thread.fsbase: KSNOOP_KF_TASK_TP */

/*
 * A system call as the raw_syscalls tracepoints see it (their first
 * argument is the task's struct pt_regs): its number and its six
 * argument words where the kernel's syscall_get_arguments() finds them.
 */
static __always_inline long arch_syscall_nr(const void *regs)
{
	return kfield_u64(regs, KSNOOP_KF_REGS_NR);	/* orig_ax */
}

/* The arguments: di, si, dx, r10, r8, r9 (KSNOOP_KF_REGS_ARG0..5, klayout.c). */

/*
 * A 32-bit task's call (int 0x80, sysenter: TS_COMPAT, numbered by the
 * ia32 table).  The per-call events leave those out
 * (arch_trace_is_compat_syscall()), and so do we.
 */
#define ARCH_TS_COMPAT	0x0002

/* task->thread_info.status (KSNOOP_KF_TASK_TI_STATUS). */
static __always_inline bool arch_compat_syscall(const void *regs)
{
	return kfield_u32((void *)bpf_get_current_task(), KSNOOP_KF_TASK_TI_STATUS) & ARCH_TS_COMPAT;
}

/*
 * The call's frame, the same at entry and at return: at entry sp points
 * at the return address; when the kretprobe runs it is 8 bytes higher.
 */
static __always_inline __u64 arch_call_frame(struct pt_regs *regs, bool at_return)
{
	return regs->rsp - (at_return ? 8 : 0);
}

#elif defined(__TARGET_ARCH_arm64)

/*
 * Without vmlinux.h, <linux/ptrace.h> on arm64 declares only the user
 * view, struct user_pt_regs (x0-x30, sp, pc, pstate), which is also how the
 * kernel's struct pt_regs begins (libbpf's bpf_tracing.h reads it so).
 */
#define ARCH_REGS(regs) ((const volatile struct user_pt_regs *)(regs))

/* Argument words passed in registers (AAPCS64: x0-x7). */
#define ARCH_REG_ARGS 8

#define ARCH_SYSCALL_PREFIX "__arm64_sys_"

/* User addresses are below 2^52 (52-bit user VA at most; 48 by default);
 * the kernel's start at 0xfff0000000000000 or above. */
#define ARCH_USER_ADDR_LIMIT 0x0010000000000000ULL

/*
 * AAPCS64: eight argument words in x0-x7, the rest on the stack from sp
 * up (the return address is in the link register, not on the stack).
 */
static __always_inline void arch_reg_args(struct pt_regs *regs, __u64 *words, int nwords,
					  bool user)
{
	int i;

	for (i = 0; i < ARCH_REG_ARGS; i++)
		words[i] = ARCH_REGS(regs)->regs[i];
	for (i = ARCH_REG_ARGS; i < KSNOOP_MAX_ARGS; i++) {
		if (i >= nwords)
			break;
		void *at = (void *)(ARCH_REGS(regs)->sp + 8 * (i - ARCH_REG_ARGS));

		if (user)
			bpf_probe_read_user(&words[i], sizeof(words[i]), at);
		else
			bpf_probe_read_kernel(&words[i], sizeof(words[i]), at);
	}
}

static __always_inline __u64 arch_return_value(struct pt_regs *regs)
{
	return ARCH_REGS(regs)->regs[0];
}

static __always_inline __u64 arch_ip(struct pt_regs *regs)
{
	return ARCH_REGS(regs)->pc;
}

/*
 * The current thread's pointer as its user code sees it: tpidr_el0 (TLS
 * variant I), as the kernel last saved it.  User code writes the register
 * itself (glibc: "msr tpidr_el0" at start-up), and the kernel copies it
 * into the task only when the thread leaves the CPU (the context switch's
 * tls_preserve_current_state()), at clone (CLONE_SETTLS) or for ptrace;
 * exec clears the register but not a native task's copy.  So until the
 * main thread of a new program first leaves the CPU, this is the value
 * of the process before exec (its parent's thread pointer, copied at
 * fork: an address in the parent's memory, "could not read memory" at
 * the first calls).  words.bpf.h's thread_pointer() takes it from glibc's
 * rseq registration where it can (ARCH_TP_SAVED_LATE).
 */
#define ARCH_TP_SAVED_LATE 1	/* task->thread.uw.tp_value: KSNOOP_KF_TASK_TP */

/*
 * A system call as the raw_syscalls tracepoints see it (their first
 * argument is the task's struct pt_regs): its number and its six
 * argument words where the kernel's syscall_get_arguments() finds them
 * (the first in orig_x0: x0 takes the return value).
 */
static __always_inline long arch_syscall_nr(const void *regs)
{
	return (__s32)kfield_u32(regs, KSNOOP_KF_REGS_NR);	/* syscallno */
}

/* The arguments: orig_x0, regs[1] .. regs[5] (KSNOOP_KF_REGS_ARG0..5, klayout.c). */

/*
 * An AArch32 task's call (PSR_MODE32_BIT in pstate, numbered by the
 * compat table).  The per-call events leave those out
 * (arch_trace_is_compat_syscall()), and so do we.
 */
#define ARCH_PSR_MODE32	0x10

static __always_inline bool arch_compat_syscall(const void *regs)
{
	return kfield_u64(regs, KSNOOP_KF_REGS_PSTATE) & ARCH_PSR_MODE32;
}

/* The call's frame, the same at entry and at return: the return leaves
 * sp where the call found it. */
static __always_inline __u64 arch_call_frame(struct pt_regs *regs, bool at_return)
{
	return ARCH_REGS(regs)->sp;
}

#else
#error "ksnoop's capture programs know only x86-64 and arm64 so far (see bpf/arch.bpf.h): kprobe argument registers, the call frame and the user/kernel address split must be written for this architecture"
#endif

/*
 * Where each architecture keeps these, klayout.c found in vmlinux BTF:
 * the same code reads them on both.
 */

/* The current thread's pointer as the kernel saved it (KSNOOP_KF_TASK_TP); 0 where unknown. */
static __always_inline __u64 arch_thread_pointer(void)
{
	return kfield_u64((void *)bpf_get_current_task(), KSNOOP_KF_TASK_TP);
}

/* A system call's argument words in MASK from its pt_regs REGS (KSNOOP_KF_REGS_ARG0..5). */
static __always_inline void arch_syscall_args(const void *regs, __u64 *args, __u32 mask)
{
	int i;

	for (i = 0; i < 6; i++)
		if (mask & (1u << i))
			args[i] = kfield_u64(regs, KSNOOP_KF_REGS_ARG0 + i);
}

#endif /* KSNOOP_ARCH_BPF_H */
