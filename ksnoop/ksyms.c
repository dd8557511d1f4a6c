// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * /proc/kallsyms lists every symbol as "ADDR TYPE NAME [MODULE]".  Only text
 * symbols (t, T, w, W) matter for tracing.  The table keeps the file's
 * order (pointers into it stay valid); a name index is sorted only once a
 * few lookups have been made: one lookup (`info FUNC`, one spec) scans,
 * which costs less than sorting 100,000 names.
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
	const struct ksym **by_name;	/* built after KSYMS_SCANS lookups */
	size_t finds;
};

#define KSYMS_SCANS	16

/* By name, then in the file's order (equal names: static functions). */
static int cmp_name(const void *a, const void *b)
{
	const struct ksym *x = *(const struct ksym *const *)a, *y = *(const struct ksym *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x > y) - (x < y);
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
	free(ks->by_name);
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
	/* /proc/kallsyms fills whatever a read asks for: few, large reads. */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
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

const struct ksym *ksyms__find(struct ksyms *ks, const char *name)
{
	const struct ksym key = { .name = name }, *kp = &key, **s;
	size_t i;

	if (!ks->nr)
		return NULL;
	if (!ks->by_name && ++ks->finds <= KSYMS_SCANS) {
		for (i = 0; i < ks->nr; i++)
			if (strcmp(ks->syms[i].name, name) == 0)
				return &ks->syms[i];
		return NULL;
	}
	if (!ks->by_name) {
		ks->by_name = malloc(ks->nr * sizeof(*ks->by_name));
		if (!ks->by_name)
			return NULL;
		for (i = 0; i < ks->nr; i++)
			ks->by_name[i] = &ks->syms[i];
		qsort(ks->by_name, ks->nr, sizeof(*ks->by_name), cmp_name);
	}
	/* The first of equal names, as the scan finds it. */
	{
		size_t lo = 0, hi = ks->nr;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if (strcmp(ks->by_name[mid]->name, name) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		s = lo < ks->nr && strcmp(ks->by_name[lo]->name, name) == 0 ? &ks->by_name[lo] : NULL;
	}
	(void)kp;
	return s ? *s : NULL;
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
