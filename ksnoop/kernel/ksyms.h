/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel function symbols from /proc/kallsyms: which functions exist as
 * symbols (and so can carry a probe) and which module owns each.
 */
#ifndef KSNOOP_KSYMS_H
#define KSNOOP_KSYMS_H

#include <stddef.h>

struct ksym {
	const char *name;
	const char *module;	/* NULL for vmlinux */
	unsigned long long addr;	/* 0 when kallsyms hides addresses */
};

struct ksyms;

/* NULL and errno set on failure. */
struct ksyms *ksyms__load(const char *path);
/* The same for data symbols (tcp_prot, init_net): what ':sym' may name too. */
struct ksyms *ksyms__load_data(const char *path);
void ksyms__free(struct ksyms *ks);

/* The first function symbol named NAME (in the file's order), or NULL. */
const struct ksym *ksyms__find(struct ksyms *ks, const char *name);
/*
 * Every function symbol named NAME (static functions of one name in
 * several files or modules), in the file's order: the first MAX of them
 * in OUT; returns how many there are.
 */
size_t ksyms__find_all(struct ksyms *ks, const char *name, const struct ksym **out, size_t max);
/*
 * The function ADDR lies in (the nearest symbol at or below it, at most
 * KSYMS_MAX_OFFSET before it), its offset in *OFF; NULL if none.  The
 * address index is built on the first call.
 */
#define KSYMS_MAX_OFFSET	(1ULL << 20)
const struct ksym *ksyms__by_addr(struct ksyms *ks, unsigned long long addr,
				  unsigned long long *off);
/*
 * The function symbols named NAME in the kallsyms file at PATH (NULL:
 * /proc/kallsyms), found in its text rather than read into a table (a
 * fifth of the time under emulation, where parsing every line costs more
 * than the kernel takes to write them): the first MAX in OUT, in the
 * file's order.  How many there are, or a negative errno.
 */
#define KSYMS_MODULE_LEN	64
struct ksym_found {
	unsigned long long addr;
	char module[KSYMS_MODULE_LEN];	/* "": vmlinux */
};
int ksyms__scan_name(const char *path, const char *name, struct ksym_found *out, int max);
/* The same for symbols of the kallsyms TYPES ("dD": data). */
int ksyms__scan_name_types(const char *path, const char *name, const char *types,
			   struct ksym_found *out, int max);
/*
 * The same for NNAMES names in one read of the file: name I's first MAX
 * in OUT[I * MAX...], how many there are in COUNTS[I].  0 or a negative
 * errno.
 */
int ksyms__scan_names(const char *path, const char *const *names, int nnames, const char *types,
		      struct ksym_found *out, int max, int *counts);

size_t ksyms__count(const struct ksyms *ks);
const struct ksym *ksyms__at(const struct ksyms *ks, size_t i);

#endif
