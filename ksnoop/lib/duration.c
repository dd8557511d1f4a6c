// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "duration.h"

static const struct {
	const char *name;
	__u64 ns;
} units[] = {
	{ "s", 1000000000ULL },
	{ "ms", 1000000ULL },
	{ "us", 1000ULL },
	{ "ns", 1ULL },
};

#define NUNITS (sizeof(units) / sizeof(units[0]))

/* The unit spelled SUFFIX, in ns; 0 if it is none of them. */
static __u64 unit_ns(const char *suffix)
{
	size_t i;

	for (i = 0; i < NUNITS; i++)
		if (strcmp(suffix, units[i].name) == 0)
			return units[i].ns;
	return 0;
}

/*
 * Digits from *P on, as a number, at most MAX_DIGITS of them (more: -ERANGE).
 * *NDIGITS says how many there were.
 */
static int read_digits(const char **p, int max_digits, __u64 *val, int *ndigits)
{
	*val = 0;
	*ndigits = 0;
	while (**p >= '0' && **p <= '9') {
		if (++*ndigits > max_digits)
			return -ERANGE;
		*val = *val * 10 + (__u64)(**p - '0');
		(*p)++;
	}
	return 0;
}

int duration__parse(const char *text, __u64 default_unit_ns, __u64 *ns, struct ks_error *e)
{
	const char *p = text;
	__u64 whole, frac = 0, unit, scale = 1, total;
	int nwhole, nfrac = 0, i;

	/* Digits first: no sign, no space, no hex, no exponent. */
	if (read_digits(&p, 19, &whole, &nwhole))
		goto too_long;
	if (*p == '.') {
		p++;
		if (read_digits(&p, 9, &frac, &nfrac))
			return ks_fail(e, -ERANGE, "'%s' is finer than a nanosecond", text);
	}
	if (!nwhole && !nfrac)
		return ks_fail(e, -EINVAL, "'%s' is not a time (a number and a unit: ns, us, ms, s)",
			       text);
	unit = *p ? unit_ns(p) : default_unit_ns;
	if (!unit)
		return ks_fail(e, -EINVAL, *p ? "'%s': unknown unit '%s' (ns, us, ms, s)" :
			       "'%s' needs a unit (ns, us, ms, s)", text, p);
	for (i = 0; i < nfrac; i++)
		scale *= 10;
	/* The fraction, in ns: exact, or the number was finer than that. */
	if (frac * unit % scale)
		return ks_fail(e, -ERANGE, "'%s' is finer than a nanosecond", text);
	if (whole > DURATION_MAX_NS / unit)
		goto too_long;
	total = whole * unit + frac * unit / scale;
	if (total > DURATION_MAX_NS)
		goto too_long;
	if (!total)
		return ks_fail(e, -ERANGE, "'%s' is no time at all", text);
	*ns = total;
	return 0;
too_long:
	return ks_fail(e, -ERANGE, "'%s' is longer than a year", text);
}

/* Cut, not rounded: a duration never reads longer than it was. */
void duration__format(__u64 ns, char *buf, size_t sz)
{
	size_t i;

	for (i = 0; i + 1 < NUNITS; i++) {
		if (ns >= units[i].ns) {
			snprintf(buf, sz, "%llu.%03llu %s", (unsigned long long)(ns / units[i].ns),
				 (unsigned long long)(ns % units[i].ns * 1000 / units[i].ns),
				 units[i].name);
			return;
		}
	}
	snprintf(buf, sz, "%llu ns", (unsigned long long)ns);
}
