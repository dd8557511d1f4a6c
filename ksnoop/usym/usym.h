/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User stacks of USDT probes (-s): each address named from the ELF symbol
 * tables of the object mapped there in the traced process, as
 * "symbol+0xoff (object)", or "0xaddr (object+0xoffset)" where the object
 * has no symbol for it.  The process's maps are read when its first
 * address is named and kept while it lives, so the stacks of a process
 * that exited before its events were printed are still named.  The work
 * is done in a child process, bounded in time and memory (usym.c).
 */
#ifndef KSNOOP_USYM_H
#define KSNOOP_USYM_H

#include <stddef.h>
#include <linux/types.h>

struct usym;

/*
 * Limits on what a traced process may make us read, keep or wait for.
 * Everything comes from it: its maps, and ELF files it chose and may
 * have crafted (see usym.c, usym_elf.c).
 */
/* Files: the biggest real tables seen (a large C++ program's .symtab
 * holds ~1M functions, ~60 MiB of names) fit; a file over a limit is
 * named by offset only. */
#define USYM_MAX_SYMS		(1 << 21)	/* symbols in the one table read */
#define USYM_MAX_STRTAB		(128u << 20)	/* bytes of its string table */
#define USYM_MAX_SECTIONS	65535	/* section headers looked at */
#define USYM_MAX_SHSTRTAB	(1u << 20)	/* bytes of section names read (a real file's: ~300) */
#define USYM_MAX_PHDRS		4096	/* program headers looked at */
#define USYM_MAX_LOADS		64	/* PT_LOAD segments kept */
#define USYM_MAX_DYNAMIC	4096	/* dynamic entries looked at for DF_1_PIE (glibc's ~40) */
#define USYM_MAX_NAME		256	/* bytes of a symbol name printed */
#define USYM_MAX_ALIASES	16	/* symbols at one address looked at */
#define USYM_MAX_BUILD_ID	64	/* bytes of a build-id (GNU's: 20) */
#define USYM_MAX_NOTES		8	/* PT_NOTE segments looked at for it */
#define USYM_MAX_NOTE_BYTES	4096	/* bytes of one read (glibc's: 0x44) */
/* Where a stripped file's symbols are looked for by build-id (libc6-dbg). */
#define USYM_DEBUG_ROOT		"/usr/lib/debug"

/* The files kept, least recently used dropped first: two or three huge
 * programs, or hundreds of libraries. */
#define USYM_MAX_OBJECTS	256
#define USYM_MAX_OBJ_BYTES	(512u << 20)
/* Processes: their executable mappings kept, least recently used
 * dropped; /proc/PID/maps read up to USYM_MAX_MAPS_BYTES (a process of
 * 10,000 mappings with long paths wrote 88 MB of it per read), and again
 * for an address they do not hold at most once a second. */
#define USYM_MAX_PROCS		1024
#define USYM_MAX_MAPS		4096	/* executable mappings per process */
#define USYM_MAX_MAPS_BYTES	(4u << 20)
#define USYM_MAX_KEPT_MAPS	(64u << 20)	/* bytes of all kept mappings */
/* The child that does all of the above: one answer within
 * USYM_REQUEST_MS or it is killed and its file or process given up;
 * a process costs at most USYM_PID_BUDGET_MS in all; USYM_MAX_CHILDREN
 * children at most, then addresses are printed unnamed. */
#define USYM_REQUEST_MS		1000
#define USYM_PID_BUDGET_MS	5000
#define USYM_MAX_CHILDREN	16
#define USYM_CHILD_MEM		(1ull << 30)	/* address space it may add */
#define USYM_CHILD_CPU_S	120		/* CPU seconds per child */

/*
 * Forks the child.  NULL and errno set if that or memory fails.
 * PROC_DIR: "/proc" (tests: another).
 */
struct usym *usym__new(const char *proc_dir);
void usym__free(struct usym *u);

/*
 * Name ADDR in process PID into BUF.  0, or a negative errno when nothing
 * is known of ADDR (no mapping of the process holds it, the child took too
 * long or a signal came: print the address alone).  Returns within
 * USYM_REQUEST_MS.
 */
int usym__symbolize(struct usym *u, __u32 pid, __u64 addr, char *buf, size_t sz);

/*
 * Read PID's maps now (--ustack -p PID): its stacks are then named by
 * object and offset even if it exits before the first is printed.  Best
 * effort, within USYM_REQUEST_MS.
 */
void usym__remember(struct usym *u, __u32 pid);

/*
 * The symbols of the ELF file FD alone: name file address VADDR (as the
 * file's program headers place it) into BUF as "symbol+0xoff".  For tests;
 * 0 or a negative errno.
 */
int usym__file_symbol(int fd, __u64 vaddr, char *buf, size_t sz);

#endif
