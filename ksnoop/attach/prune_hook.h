/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * prune_hook: prune.h's pruning inside libbpf's load.  A section handler
 * for each section of ksnoop's capture programs (libbpf's own otherwise:
 * the same program and attach types, fentry/fexit attached the same way)
 * whose prepare step runs after libbpf relocated the program and before
 * it hands it to the kernel; libbpf 1.5 reads the instructions again
 * after that step (bpf_object_load_prog()).  Programs loaded outside a
 * begin/end pair, and every program with KSNOOP_PRUNE=0 in the
 * environment (to compare), are handed over as they are.
 */
#ifndef KSNOOP_PRUNE_HOOK_H
#define KSNOOP_PRUNE_HOOK_H

#include <stddef.h>
#include <bpf/libbpf.h>

#define PRUNE_ENV	"KSNOOP_PRUNE"

/* Once, before the first object is opened: 0 or a negative errno. */
int prune_hook__register(void);
/* Around one object's load: RODATA is the map its plan is in. */
void prune_hook__begin(const struct bpf_map *rodata);
void prune_hook__end(void);
/* Instructions handed to the kernel so far, and before pruning. */
void prune_hook__counts(size_t *before, size_t *after, int *skipped);

#endif
