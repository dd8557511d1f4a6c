// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * /proc/kallsyms lists every symbol as "ADDR TYPE NAME [MODULE]".  Only text
 * symbols (t, T, w, W) matter for tracing.  Names and module names are kept
 * in one string pool; the table is sorted by name for binary search.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"

struct ksyms {
	struct ksym *syms;
	size_t nr, cap;
	char **pool;		/* one strdup'd line per symbol */
	size_t npool;
	const struct ksym **by_addr;	/* built by the first ksyms__by_addr() */
	size_t naddr;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return strcmp(x->name, y->name);
}

void ksyms__free(struct ksyms *ks)
{
	size_t i;

	if (!ks)
		return;
	for (i = 0; i < ks->npool; i++)
		free(ks->pool[i]);
	free(ks->pool);
	free(ks->syms);
	free(ks->by_addr);
	free(ks);
}

static int ksyms_add(struct ksyms *ks, char *line, const char *name, const char *mod,
		     unsigned long long addr)
{
	if (ks->nr == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 4096;
		struct ksym *s = realloc(ks->syms, cap * sizeof(*s));
		char **p = realloc(ks->pool, cap * sizeof(*p));

		if (s)
			ks->syms = s;
		if (p)
			ks->pool = p;
		if (!s || !p)
			return -ENOMEM;
		ks->cap = cap;
	}
	ks->pool[ks->npool++] = line;
	ks->syms[ks->nr].name = name;
	ks->syms[ks->nr].module = mod;
	ks->syms[ks->nr].addr = addr;
	ks->nr++;
	return 0;
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err = 0;

	if (!ks)
		return NULL;
	f = fopen(path ? path : "/proc/kallsyms", "re");
	if (!f) {
		err = -errno;
		goto out;
	}
	while (getline(&line, &cap, f) > 0) {
		char *type, *name, *mod, *end, *copy;

		/* ADDR TYPE NAME [\tMODULE] */
		type = strchr(line, ' ');
		if (!type)
			continue;
		type++;
		if (!strchr("tTwW", *type) || type[1] != ' ')
			continue;
		name = type + 2;
		end = name + strcspn(name, " \t\n");
		mod = NULL;
		if (*end == '\t' || *end == ' ') {
			*end = 0;
			mod = end + 1;
			mod += strspn(mod, " \t[");
			mod[strcspn(mod, "]\n")] = 0;
			if (!*mod)
				mod = NULL;
		} else {
			*end = 0;
		}
		/* Keep one allocation per symbol: the rest of the line. */
		copy = malloc(strlen(name) + 1 + (mod ? strlen(mod) + 1 : 0));
		if (!copy) {
			err = -ENOMEM;
			goto out;
		}
		strcpy(copy, name);
		if (mod)
			strcpy(copy + strlen(name) + 1, mod);
		err = ksyms_add(ks, copy, copy, mod ? copy + strlen(name) + 1 : NULL,
				strtoull(line, NULL, 16));
		if (err) {
			free(copy);
			goto out;
		}
	}
	if (ks->nr)
		qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
out:
	free(line);
	if (f)
		fclose(f);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

const struct ksym *ksyms__find(const struct ksyms *ks, const char *name)
{
	struct ksym key = { .name = name };
	const struct ksym *s;

	if (!ks->nr)
		return NULL;
	s = bsearch(&key, ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
	/* Step back to the first of equal names (static functions repeat). */
	while (s && s > ks->syms && strcmp(s[-1].name, name) == 0)
		s--;
	return s;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = *(const struct ksym *const *)a, *y = *(const struct ksym *const *)b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int index_by_addr(struct ksyms *ks)
{
	size_t i;

	ks->by_addr = malloc((ks->nr ? ks->nr : 1) * sizeof(*ks->by_addr));
	if (!ks->by_addr)
		return -ENOMEM;
	for (i = 0; i < ks->nr; i++)
		if (ks->syms[i].addr)
			ks->by_addr[ks->naddr++] = &ks->syms[i];
	qsort(ks->by_addr, ks->naddr, sizeof(*ks->by_addr), cmp_addr);
	return 0;
}

const struct ksym *ksyms__by_addr(struct ksyms *ks, unsigned long long addr,
				  unsigned long long *off)
{
	size_t lo = 0, hi;

	if (!ks->by_addr && index_by_addr(ks))
		return NULL;
	hi = ks->naddr;
	/* The last symbol at or below ADDR. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->by_addr[mid]->addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - ks->by_addr[lo - 1]->addr > KSYMS_MAX_OFFSET)
		return NULL;
	*off = addr - ks->by_addr[lo - 1]->addr;
	return ks->by_addr[lo - 1];
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks->nr;
}

const struct ksym *ksyms__at(const struct ksyms *ks, size_t i)
{
	return i < ks->nr ? &ks->syms[i] : NULL;
}
