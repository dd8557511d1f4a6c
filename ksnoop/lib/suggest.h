/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* "did you mean ...?": the closest candidate by edit distance. */
#ifndef KSNOOP_SUGGEST_H
#define KSNOOP_SUGGEST_H

#include <stddef.h>

struct suggest {
	const char *target;
	char best[128];
	size_t best_dist;	/* SIZE_MAX: nothing close yet */
};

void suggest__init(struct suggest *s, const char *target);
void suggest__consider(struct suggest *s, const char *candidate);
/* The closest name if close enough to be a plausible typo, else NULL. */
const char *suggest__best(const struct suggest *s);

#endif
