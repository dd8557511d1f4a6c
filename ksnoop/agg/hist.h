/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A histogram's buckets as people read them: each bucket's range (log2,
 * as bpftrace's, or linear from --hist=linear), its label with units for
 * durations ("[131us, 262us)"), and the percentiles read off the buckets.
 * Pure functions of the counts: the report prints them, tests check them.
 *
 * Percentiles come from buckets, not values: p50 is the bucket that holds
 * the middle call, said by its upper bound ("p50 < 64"), exact only for a
 * bucket of one value ("p50 = 0").  The max is BPF's where it kept one
 * (report.h), else the highest bucket's bound.
 */
#ifndef KSNOOP_HIST_H
#define KSNOOP_HIST_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct report_bucket;

/* How a histogram's buckets are cut (plan.hist_linear and its fields). */
struct hist_scale {
	bool linear;
	bool duration;		/* values are ns: labels in ns, us, ms, s */
	__s64 min;		/* linear: first bucket's lower bound */
	__u64 step;		/* linear: bucket width */
	__u32 nbuckets;		/* linear: buckets from min, before the one above */
};

/*
 * Bucket B's values, [lo, hi] both included; a bound that is not there
 * (below every bucket, or above) is lo_inf or hi_inf.  is_signed: lo and
 * hi are __s64.
 */
struct hist_range {
	bool lo_inf, hi_inf;
	bool is_signed;
	__u64 lo, hi;
};

void hist__range(const struct hist_scale *s, __s32 b, struct hist_range *r);

/*
 * The bucket of V (IS_SIGNED: an __s64) as BPF's hist_bucket() makes it
 * live (bpf/agg.bpf.h): log2, 0 for 0 and k for [2^(k-1), 2^k), -1 for
 * a negative number; linear, -1 below min, k for [min + k * step, min +
 * (k + 1) * step), nbuckets at or above the last.  For values counted in
 * userspace (report --hist of a recording).
 */
__s32 hist__bucket(const struct hist_scale *s, __u64 v, bool is_signed);

/* V as a label shows it: "131072", or for durations "131us". */
void hist__value_str(const struct hist_scale *s, bool is_signed, __u64 v, char *buf, size_t sz);

/* "[2, 4)", "[1]", "(..., 0)", "[100, ...)", "[512ns, 1.02us)". */
void hist__label(const struct hist_scale *s, __s32 b, char *buf, size_t sz);

/*
 * The bucket (an index into B[0..N), sorted, TOTAL calls in all) that
 * holds the call at percentile P (1 to 100): the first whose running
 * count reaches P% of TOTAL, rounded up.  N when TOTAL is 0.
 */
size_t hist__percentile(const struct report_bucket *b, size_t n, __u64 total, unsigned int p);

/* Bucket B as a percentile's value: "< 64", "= 0", ">= 100", "< 1.05ms". */
void hist__bound_str(const struct hist_scale *s, __s32 b, char *buf, size_t sz);

#endif
