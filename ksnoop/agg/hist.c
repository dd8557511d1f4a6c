// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdint.h>
#include <stdio.h>
#include "hist.h"
#include "report.h"

void hist__range(const struct hist_scale *s, __s32 b, struct hist_range *r)
{
	*r = (struct hist_range){ .is_signed = s->linear };
	if (s->linear) {
		r->lo = (__u64)(s->min + (__s64)s->step * (b < 0 ? 0 : b));
		r->hi = r->lo + s->step - 1;
		if (b < 0) {
			r->lo_inf = true;
			r->hi = (__u64)(s->min - 1);
		} else if ((__u32)b >= s->nbuckets) {
			r->hi_inf = true;
		}
		return;
	}
	if (b < 0) {
		/* Every negative value. */
		r->lo_inf = true;
		r->is_signed = true;
		r->hi = (__u64)-1;
	} else if (b > 0) {
		r->lo = 1ULL << (b - 1);
		r->hi = b >= 64 ? UINT64_MAX : (1ULL << b) - 1;
	}
}

__s32 hist__bucket(const struct hist_scale *s, __u64 v, bool is_signed)
{
	__u64 off;
	__s32 b = 1;

	if (s->linear) {
		if (is_signed ? (__s64)v < s->min : s->min >= 0 && v < (__u64)s->min)
			return -1;
		off = v - (__u64)s->min;
		return off / s->step >= s->nbuckets ? (__s32)s->nbuckets : (__s32)(off / s->step);
	}
	if (is_signed && (__s64)v < 0)
		return -1;
	if (!v)
		return 0;
	while (v >>= 1)
		b++;
	return b;
}

/* NS in the largest unit it reaches, three significant digits: "1.02us", "131us". */
static void duration_str(__u64 ns, char *buf, size_t sz)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "s", 1e9 }, { "ms", 1e6 }, { "us", 1e3 } };
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		double v = ns / units[i].ns;

		if (v < 1)
			continue;
		/* %g would write 1e+03 seconds. */
		if (v >= 1000)
			snprintf(buf, sz, "%.0f%s", v, units[i].unit);
		else
			snprintf(buf, sz, "%.3g%s", v, units[i].unit);
		return;
	}
	snprintf(buf, sz, "%lluns", (unsigned long long)ns);
}

void hist__value_str(const struct hist_scale *s, bool is_signed, __u64 v, char *buf, size_t sz)
{
	if (s->duration && !(is_signed && (__s64)v < 0))
		duration_str(v, buf, sz);
	else if (is_signed)
		snprintf(buf, sz, "%lld", (long long)v);
	else
		snprintf(buf, sz, "%llu", (unsigned long long)v);
}

void hist__label(const struct hist_scale *s, __s32 b, char *buf, size_t sz)
{
	struct hist_range r;
	char lo[32], hi[32];

	hist__range(s, b, &r);
	if (!s->linear && b >= 64 && !s->duration) {
		snprintf(buf, sz, "[2^63, ...)");
		return;
	}
	hist__value_str(s, r.is_signed, r.lo, lo, sizeof(lo));
	/* The bound above is exclusive: the next bucket's lower one. */
	hist__value_str(s, r.is_signed, r.hi + 1, hi, sizeof(hi));
	if (r.lo_inf)
		snprintf(buf, sz, "(..., %s)", hi);
	else if (r.hi_inf || (!r.is_signed && r.hi == UINT64_MAX))
		snprintf(buf, sz, "[%s, ...)", lo);
	else if (r.lo == r.hi)
		snprintf(buf, sz, "[%s]", lo);
	else
		snprintf(buf, sz, "[%s, %s)", lo, hi);
}

size_t hist__percentile(const struct report_bucket *b, size_t n, __u64 total, unsigned int p)
{
	/* The rank of the call: ceil(total * p / 100), at least the first. */
	__u64 rank = total / 100 * p + ((total % 100) * p + 99) / 100, sum = 0;
	size_t i;

	if (!total)
		return n;
	if (!rank)
		rank = 1;
	for (i = 0; i < n; i++) {
		sum += b[i].count;
		if (sum >= rank)
			return i;
	}
	return n ? n - 1 : n;
}

void hist__bound_str(const struct hist_scale *s, __s32 b, char *buf, size_t sz)
{
	struct hist_range r;
	char v[32];

	hist__range(s, b, &r);
	if (r.hi_inf || (!r.is_signed && r.hi == UINT64_MAX)) {
		hist__value_str(s, r.is_signed, r.lo, v, sizeof(v));
		snprintf(buf, sz, ">= %s", v);
	} else if (!r.lo_inf && r.lo == r.hi) {
		hist__value_str(s, r.is_signed, r.lo, v, sizeof(v));
		snprintf(buf, sz, "= %s", v);
	} else {
		hist__value_str(s, r.is_signed, r.hi + 1, v, sizeof(v));
		snprintf(buf, sz, "< %s", v);
	}
}
