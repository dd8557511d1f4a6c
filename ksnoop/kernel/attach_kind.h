/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How a target attaches, and the mode asked for kernel functions: the
 * kernel facade decides both from what the kernel can do (kfeatures.h),
 * so they live at its level; the options (cli.h), the targets
 * (targets.h) and the attacher use them from above.
 */
#ifndef KSNOOP_ATTACH_KIND_H
#define KSNOOP_ATTACH_KIND_H

/* --mode: how kernel functions attach. */
enum attach_mode {
	MODE_AUTO,	/* fentry/fexit, kprobes if the kernel refuses */
	MODE_FENTRY,
	MODE_KPROBE,
};

enum attach_kind {
	ATTACH_FENTRY,		/* fentry + fexit */
	ATTACH_KPROBE,		/* kprobe + kretprobe */
	ATTACH_TP,		/* raw_tp, typed from the btf_trace_* prototype */
	ATTACH_USDT,		/* uprobes at every call site of a USDT probe */
	ATTACH_SYSCALL_TP,	/* a syscall event: tracepoint syscalls:sys_{enter,exit}_NAME */
	ATTACH_SYSCALL,		/* sys:NAME: tracepoints sys_enter_NAME + sys_exit_NAME */
	/*
	 * A group of a sys: glob's many calls (a group's kind, never a
	 * target's): raw_syscalls sys_enter + sys_exit, told by number.
	 */
	ATTACH_SYSCALL_RAW,
	ATTACH_UPROBE,		/* u:BINARY:FUNC: uprobe + uretprobe on a user function */
};

#endif
