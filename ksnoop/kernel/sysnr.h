/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A system call's number by the name tracefs gives its events
 * (syscalls:sys_enter_NAME), for the architecture ksnoop is built for:
 * the raw_syscalls tracepoints see a call by its number alone.  The
 * numbers are the build's <asm/unistd.h> (x86-64's table or arm64's
 * generic one), the calls added since (numbered alike on every
 * architecture from 5.1 on), and the events named apart from their
 * numbers (newstat is __NR_stat).  A name not known here has no number:
 * its call keeps its own events.
 */
#ifndef KSNOOP_SYSNR_H
#define KSNOOP_SYSNR_H

/*
 * The numbers a syscall map covers: x86-64's and arm64's calls are all
 * below 512 (469 the highest in 6.18); 32-bit compat calls are not seen
 * there (bpf/arch.bpf.h), x32's (bit 30 set) fall outside.
 */
#define SYSNR_MAX	1024

/* NAME's number (event name, "openat"), or -1 if not known. */
int sysnr__of(const char *name);

#endif
