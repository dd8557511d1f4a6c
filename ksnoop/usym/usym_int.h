/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the user stack symbolizer: the cache of processes and files that
 * names addresses (usym_cache.c), over the bounded ELF symbol reader
 * (usym_elf.h).  usym.c runs the cache in a child process; the unit
 * tests and the fuzzer call these directly.
 */
#ifndef KSNOOP_USYM_INT_H
#define KSNOOP_USYM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "usym.h"
#include "usym_elf.h"

struct usym_cache;

/*
 * What the cache is working on, in memory its parent shares: if the child
 * is killed for taking too long, the parent knows which file or process
 * to give up on, and the children after it read which ones those are.
 */
#define USYM_MAX_BAD	64
struct usym_shared {
	volatile __u32 stage;		/* USYM_STAGE_* */
	volatile __u32 pid;		/* whose maps are read */
	volatile __u64 dev, ino;	/* which file is read */
	__u32 nbad_files;		/* written by the parent only */
	struct { __u64 dev, ino; } bad_files[USYM_MAX_BAD];
};

enum { USYM_STAGE_IDLE, USYM_STAGE_MAPS, USYM_STAGE_FILE };

/* CLOCK_MONOTONIC in ns: the cache's re-read clock, and the parent's waits. */
__u64 usym__mono_ns(void);

struct usym_cache *usym_cache__new(const char *proc_dir, struct usym_shared *shared);
void usym_cache__free(struct usym_cache *c);
int usym_cache__symbolize(struct usym_cache *c, __u32 pid, __u64 addr, char *buf, size_t sz);

#endif
