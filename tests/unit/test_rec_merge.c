// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the merge of recordings by wall time
 * (ksnoop/record/rec_merge.c), over sources held in memory: the order
 * across sources with different clock offsets (negative ones too), ties
 * (the source given first goes first), a source's own order kept even
 * when its times go back, empty sources, a failing source, 128-bit wall
 * times that a 64-bit sum would wrap, and the limits on the count.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "ksnoop.h"
#include "rec_merge.h"

#define MAX_EVENTS	8

/* A source in memory: events with these times, then its end (or an error at FAIL_AT). */
struct mem_source {
	struct ksnoop_event ev[MAX_EVENTS];
	int n, pos, fail_at;
};

static int mem_next(void *ctx, const void **rec, size_t *size, struct ks_error *e)
{
	struct mem_source *s = ctx;

	if (s->pos == s->fail_at)
		return ks_fail(e, -ENOEXEC, "source fails at %d", s->pos);
	if (s->pos == s->n)
		return 0;
	*rec = &s->ev[s->pos];
	*size = sizeof(s->ev[0]);
	s->pos++;
	return 1;
}

/* S with N events at TIMES, each tagged with its index in cpu. */
static void mem_init(struct mem_source *s, const __u64 *times, int n)
{
	int i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->fail_at = -1;
	for (i = 0; i < n; i++) {
		s->ev[i].time_ns = times[i];
		s->ev[i].cpu = i;
	}
}

/* The merge of N sources with OFFSETS, as "source:index" words into OUT. */
static int merged(struct mem_source *s, const __s64 *offsets, int n, char *out, size_t sz)
{
	struct rec_merge_source src[4];
	struct ks_error e = {};
	struct rec_merge *m;
	const void *rec;
	size_t size, len = 0;
	int i, which, ret;

	for (i = 0; i < n; i++)
		src[i] = (struct rec_merge_source){ mem_next, &s[i], offsets[i] };
	m = rec_merge__new(src, n, &e);
	if (!m)
		return e.err;
	out[0] = 0;
	while ((ret = rec_merge__next(m, &rec, &size, &which, &e)) > 0)
		len += snprintf(out + len, sz - len, "%s%d:%u", len ? " " : "", which,
				((const struct ksnoop_event *)rec)->cpu);
	rec_merge__free(m);
	return ret;
}

static void test_order_by_wall_time(void **state)
{
	/* a's clock is 1000 ns behind b's: a's 1100 is b's 100 on the wall. */
	static const __u64 a[] = { 1050, 1100, 1300 }, b[] = { 10, 60, 200, 400 };
	static const __s64 off[] = { 0, 1000 };
	struct mem_source s[2];
	char out[256];

	(void)state;
	mem_init(&s[0], a, 3);
	mem_init(&s[1], b, 4);
	assert_int_equal(merged(s, off, 2, out, sizeof(out)), 0);
	assert_string_equal(out, "1:0 0:0 1:1 0:1 1:2 0:2 1:3");
}

static void test_ties_go_to_the_first_source(void **state)
{
	static const __u64 a[] = { 100, 200 }, b[] = { 100, 200 }, c[] = { 300, 100 };
	static const __s64 off[] = { 0, 0, -200 };
	struct mem_source s[3];
	char out[256];

	(void)state;
	mem_init(&s[0], a, 2);
	mem_init(&s[1], b, 2);
	/* c: 100 and -100 on the wall; its own order is kept although its second is earlier. */
	mem_init(&s[2], c, 2);
	assert_int_equal(merged(s, off, 3, out, sizeof(out)), 0);
	assert_string_equal(out, "0:0 1:0 2:0 2:1 0:1 1:1");
}

static void test_negative_offsets(void **state)
{
	static const __u64 a[] = { 5000, 6000 }, b[] = { 1000, 2500 };
	static const __s64 off[] = { -4000, 0 };
	struct mem_source s[2];
	char out[256];

	(void)state;
	mem_init(&s[0], a, 2);	/* 1000 and 2000 on the wall */
	mem_init(&s[1], b, 2);
	assert_int_equal(merged(s, off, 2, out, sizeof(out)), 0);
	assert_string_equal(out, "0:0 1:0 0:1 1:1");
}

static void test_no_wrap(void **state)
{
	/* UINT64_MAX + 1 wraps to 0 in 64 bits: it must stay the latest. */
	static const __u64 a[] = { UINT64_MAX }, b[] = { 5 };
	static const __s64 off[] = { 1, INT64_MIN };
	struct mem_source s[2];
	char out[256];

	(void)state;
	mem_init(&s[0], a, 1);
	mem_init(&s[1], b, 1);
	assert_int_equal(merged(s, off, 2, out, sizeof(out)), 0);
	assert_string_equal(out, "1:0 0:0");
}

static void test_empty_and_failing_sources(void **state)
{
	static const __u64 a[] = { 1, 2, 3 };
	static const __s64 off[] = { 0, 0, 0 };
	struct mem_source s[3];
	char out[256];

	(void)state;
	mem_init(&s[0], NULL, 0);
	mem_init(&s[1], a, 3);
	mem_init(&s[2], NULL, 0);
	assert_int_equal(merged(s, off, 3, out, sizeof(out)), 0);
	assert_string_equal(out, "1:0 1:1 1:2");
	/* An error at a source's first read: no merge. */
	mem_init(&s[0], a, 3);
	s[0].fail_at = 0;
	mem_init(&s[1], a, 3);
	assert_int_equal(merged(s, off, 2, out, sizeof(out)), -ENOEXEC);
	/* Later: the events before it, then the error. */
	mem_init(&s[0], a, 3);
	s[0].fail_at = 2;
	mem_init(&s[1], a, 1);
	assert_int_equal(merged(s, off, 2, out, sizeof(out)), -ENOEXEC);
	assert_string_equal(out, "0:0 1:0 0:1");
}

static void test_limits(void **state)
{
	struct rec_merge_source src[REC_MERGE_MAX_SOURCES + 1];
	struct mem_source s;
	struct ks_error e = {};
	struct rec_merge *m;
	int i;

	(void)state;
	mem_init(&s, NULL, 0);
	for (i = 0; i <= REC_MERGE_MAX_SOURCES; i++)
		src[i] = (struct rec_merge_source){ mem_next, &s, 0 };
	assert_null(rec_merge__new(src, 0, &e));
	assert_int_equal(e.err, -EINVAL);
	assert_null(rec_merge__new(src, REC_MERGE_MAX_SOURCES + 1, &e));
	assert_int_equal(e.err, -EINVAL);
	m = rec_merge__new(src, REC_MERGE_MAX_SOURCES, &e);
	assert_non_null(m);
	rec_merge__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_by_wall_time),
		cmocka_unit_test(test_ties_go_to_the_first_source),
		cmocka_unit_test(test_negative_offsets),
		cmocka_unit_test(test_no_wrap),
		cmocka_unit_test(test_empty_and_failing_sources),
		cmocka_unit_test(test_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
