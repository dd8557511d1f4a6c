/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User stacks of USDT probes (-s): each address named from the ELF symbol
 * tables of the object mapped there in the traced process, as
 * "symbol+0xoff (object)", or "0xaddr (object+0xoffset)" where the object
 * has no symbol for it.  The process's maps are read when its first
 * address is named and kept while it lives, so the stacks of a process
 * that exited before its events were printed are still named.
 */
#ifndef KSNOOP_USYM_H
#define KSNOOP_USYM_H

#include <stddef.h>
#include <linux/types.h>

struct usym;

/* Limits on what untrusted input may make us keep (see usym.c). */
#define USYM_MAX_PROCS		64	/* processes whose maps are kept */
#define USYM_MAX_MAPS		4096	/* executable mappings per process */
#define USYM_MAX_OBJECTS	256	/* ELF files whose symbols are kept */
#define USYM_MAX_SYMS		(1 << 21)	/* function symbols per file */
#define USYM_MAX_NAME		256	/* bytes of a symbol name kept */
#define USYM_MAX_LOADS		64	/* PT_LOAD segments per file */

/* NULL and errno set if out of memory.  PROC_DIR: "/proc" (tests: another). */
struct usym *usym__new(const char *proc_dir);
void usym__free(struct usym *u);

/*
 * Name ADDR in process PID into BUF.  0, or -ENOENT when nothing is known
 * of ADDR (no mapping of the process holds it: print the address alone).
 */
int usym__symbolize(struct usym *u, __u32 pid, __u64 addr, char *buf, size_t sz);

/*
 * The symbols of the ELF file FD alone: name file address VADDR (as the
 * file's program headers place it) into BUF as "symbol+0xoff".  For tests;
 * 0 or a negative errno.
 */
int usym__file_symbol(int fd, __u64 vaddr, char *buf, size_t sz);

#endif
