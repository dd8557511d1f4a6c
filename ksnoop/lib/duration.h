/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Lengths of time on the command line (--duration, --min-duration) and in
 * the output (a call's duration in the text header), in nanoseconds.
 */
#ifndef KSNOOP_DURATION_H
#define KSNOOP_DURATION_H

#include <stddef.h>
#include <linux/types.h>
#include "ks_error.h"

/* Longest time accepted on the command line: a year. */
#define DURATION_MAX_NS (365ULL * 24 * 3600 * 1000000000ULL)

/*
 * TEXT is NUMBER[UNIT]: a decimal number, with a fraction if need be
 * ("1.5"), and a unit of ns, us, ms or s.  Without a unit the number
 * counts DEFAULT_UNIT_NS (0: a unit must be given).  Returns 0 with *NS
 * set, or -EINVAL / -ERANGE with E filled (a one-line reason); the result is
 * a whole number of nanoseconds from 1 to DURATION_MAX_NS.
 */
int duration__parse(const char *text, __u64 default_unit_ns, __u64 *ns, struct ks_error *e);

/*
 * NS as people read it: three digits after the point in the largest unit
 * it reaches ("850 ns", "12.345 us", "200.107 ms", "1.500 s").
 */
void duration__format(__u64 ns, char *buf, size_t sz);

#endif
