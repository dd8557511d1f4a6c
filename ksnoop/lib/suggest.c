// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdint.h>
#include <string.h>
#include "suggest.h"

#define SUGGEST_MAX_LEN 127

void suggest__init(struct suggest *s, const char *target)
{
	s->target = target;
	s->best[0] = 0;
	s->best_dist = SIZE_MAX;
}

/* Levenshtein distance, giving up once it exceeds LIMIT. */
static size_t distance(const char *a, const char *b, size_t limit)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[SUGGEST_MAX_LEN + 2];

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return SIZE_MAX;
	if ((la > lb ? la - lb : lb - la) > limit)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		size_t diag = row[0], min = i;

		row[0] = i;
		for (j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t v = diag + (a[i - 1] != b[j - 1]);

			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			if (up + 1 < v)
				v = up + 1;
			row[j] = v;
			diag = up;
			if (v < min)
				min = v;
		}
		if (min > limit)
			return SIZE_MAX;
	}
	return row[lb];
}

void suggest__consider(struct suggest *s, const char *candidate)
{
	size_t len = strlen(s->target);
	/* A plausible typo: about one edit in four characters; short names 1. */
	size_t limit = len <= 3 ? 1 : (len / 4 > 2 ? len / 4 : 2);
	size_t d;

	if (s->best_dist != SIZE_MAX && s->best_dist < limit)
		limit = s->best_dist;
	d = distance(s->target, candidate, limit);
	if (d == SIZE_MAX || d == 0 || d > limit)
		return;
	if (d < s->best_dist ||
	    (d == s->best_dist && strcmp(candidate, s->best) < 0)) {
		s->best_dist = d;
		strncpy(s->best, candidate, sizeof(s->best) - 1);
		s->best[sizeof(s->best) - 1] = 0;
	}
}

const char *suggest__best(const struct suggest *s)
{
	return s->best_dist == SIZE_MAX ? NULL : s->best;
}
