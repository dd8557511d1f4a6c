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
	free(ks);
}

static int ksyms_add(struct ksyms *ks, char *line, const char *name, const char *mod)
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
		err = ksyms_add(ks, copy, copy, mod ? copy + strlen(name) + 1 : NULL);
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

size_t ksyms__count(const struct ksyms *ks)
{
	return ks->nr;
}

const struct ksym *ksyms__at(const struct ksyms *ks, size_t i)
{
	return i < ks->nr ? &ks->syms[i] : NULL;
}
