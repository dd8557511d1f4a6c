// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for --tree's assembly and first-failure rule (ksnoop/agg/tree.c)
 * on synthetic calls, in the order BPF reports them (at their returns),
 * and for the records waiting for their session's root.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "tree.h"

#define OK(d)		{ .depth = (d), .ret = TREE_RET_OK }
#define ERR(d, e)	{ .depth = (d), .ret = TREE_RET_ERRNO, .code = (e) }
#define NUL(d)		{ .depth = (d), .ret = TREE_RET_NULL }
#define N(a)		((int)(sizeof(a) / sizeof((a)[0])))

/*
 * do_sys_openat2 -> do_filp_open -> path_openat -> { link_path_walk ->
 * lookup_fast, lookup_slow = -ENOENT }, path_openat = -ENOENT, ... as the
 * returns come: lookup_fast, link_path_walk, lookup_slow, path_openat,
 * do_filp_open.
 */
static void test_open_enoent(void **state)
{
	struct tree_call c[] = {
		OK(4), OK(3), ERR(3, 2), ERR(2, 2), ERR(1, 2),
	};

	assert_int_equal(tree__assemble(c, N(c)), 4);
	assert_int_equal(c[4].first_child, 3);
	assert_int_equal(c[3].first_child, 1);	/* link_path_walk, then lookup_slow */
	assert_int_equal(c[1].next_sibling, 2);
	assert_int_equal(c[2].next_sibling, -1);
	assert_int_equal(c[1].first_child, 0);
	assert_int_equal(c[0].parent, 1);	/* lookup_fast in link_path_walk */
	assert_int_equal(c[1].parent, 3);	/* link_path_walk in path_openat */
	assert_int_equal(c[2].parent, 3);	/* lookup_slow in path_openat */
	assert_int_equal(c[3].parent, 4);
	assert_int_equal(c[4].parent, -1);	/* do_filp_open: the root's */
	assert_int_equal(tree__first_error(c, N(c), TREE_RET_ERRNO, 2), 2);
	assert_true(c[2].first_error);
	assert_false(c[3].first_error || c[4].first_error || c[0].first_error);
}

#define LEAF(d)		{ .depth = (d), .ret = TREE_RET_NONE, .leaf = true }

/*
 * hrtimer_nanosleep -> do_nanosleep -> { tp:hrtimer_start (REL) }, and a
 * scheduler timer's tp:hrtimer_start that came with do_nanosleep's own
 * depth (s64, 7.3): REL at depth 2, the timer at 1, do_nanosleep at 1.
 * A leaf adopts nothing: REL is do_nanosleep's, the timer its sibling.
 */
static void test_leaf_adopts_nothing(void **state)
{
	struct tree_call c[] = {
		LEAF(2), LEAF(1), OK(1),
	};

	assert_int_equal(tree__assemble(c, N(c)), 1);
	assert_int_equal(c[0].parent, 2);	/* REL in do_nanosleep */
	assert_int_equal(c[1].parent, -1);	/* the timer: the root's */
	assert_int_equal(c[1].first_child, -1);
	assert_int_equal(c[1].next_sibling, 2);
	assert_int_equal(c[2].first_child, 0);
}

/* With consistent depths leaves change nothing: a leaf between siblings. */
static void test_leaf_between_calls(void **state)
{
	struct tree_call c[] = {
		OK(2), OK(1), LEAF(1), LEAF(2), OK(1),
	};

	assert_int_equal(tree__assemble(c, N(c)), 1);
	assert_int_equal(c[0].parent, 1);
	assert_int_equal(c[3].parent, 4);
	assert_int_equal(c[1].next_sibling, 2);
	assert_int_equal(c[2].next_sibling, 4);
	assert_int_equal(c[2].first_child, -1);
}

/* The last callee with the error is followed, not an earlier one. */
static void test_last_failing_callee(void **state)
{
	struct tree_call c[] = {
		ERR(2, 2), ERR(2, 2), ERR(1, 2),
	};

	tree__assemble(c, N(c));
	assert_int_equal(c[0].parent, 2);
	assert_int_equal(c[1].parent, 2);
	assert_int_equal(tree__first_error(c, N(c), TREE_RET_ERRNO, 2), 1);
	assert_false(c[0].first_error);
}

/* A callee with another errno does not explain its caller's. */
static void test_other_errno_stops(void **state)
{
	struct tree_call c[] = {
		ERR(2, 13), ERR(1, 2),
	};

	tree__assemble(c, N(c));
	assert_int_equal(tree__first_error(c, N(c), TREE_RET_ERRNO, 2), 1);
	assert_false(c[0].first_error);
	/* ... and the root's error, explained by no call: none marked. */
	c[1].first_error = false;
	assert_int_equal(tree__first_error(c, N(c), TREE_RET_ERRNO, 22), -1);
	assert_false(c[0].first_error || c[1].first_error);
}

/* A NULL (or ERR_PTR) return carries its caller's errno. */
static void test_null_carries_error(void **state)
{
	struct tree_call c[] = {
		NUL(2), ERR(1, 12),
	};

	tree__assemble(c, N(c));
	assert_int_equal(tree__first_error(c, N(c), TREE_RET_ERRNO, 12), 0);
	assert_true(c[0].first_error);
}

/* A root that did not fail has no first failing call. */
static void test_root_ok(void **state)
{
	struct tree_call c[] = { ERR(1, 2) };

	tree__assemble(c, N(c));
	assert_int_equal(tree__first_error(c, N(c), TREE_RET_OK, 0), -1);
	assert_int_equal(tree__first_error(c, N(c), TREE_RET_NONE, 0), -1);
	assert_false(c[0].first_error);
}

/* Siblings at one depth; a call not recorded (depth 2) leaves its callee to depth 1. */
static void test_siblings_and_gaps(void **state)
{
	struct tree_call c[] = {
		OK(1), OK(3), OK(1), OK(2), OK(1),
	};

	assert_int_equal(tree__assemble(c, N(c)), 0);
	assert_int_equal(c[0].next_sibling, 2);
	assert_int_equal(c[2].next_sibling, 4);
	assert_int_equal(c[4].next_sibling, -1);
	assert_int_equal(c[0].parent, -1);
	assert_int_equal(c[1].parent, 2);	/* its depth-2 caller was not recorded */
	assert_int_equal(c[2].parent, -1);
	assert_int_equal(c[3].parent, 4);
	assert_int_equal(c[4].parent, -1);
}

/* Records of a session wait for it; an older session of the task's is dropped. */
static void test_pending(void **state)
{
	struct tree_pending p = {};
	struct tree_call c[4];
	int a = 1, b = 2, x = 3, y = 4, n;

	assert_int_equal(tree_pending__add(&p, 10, 100, &a, sizeof(a)), 0);	/* discarded */
	assert_int_equal(tree_pending__add(&p, 11, 7, &x, sizeof(x)), 0);	/* another task */
	assert_int_equal(tree_pending__add(&p, 10, 101, &b, sizeof(b)), 0);
	assert_int_equal(tree_pending__add(&p, 10, 101, &y, sizeof(y)), 0);
	n = tree_pending__take(&p, 10, 101, c, 4);
	assert_int_equal(n, 2);
	assert_int_equal(*(const int *)c[0].rec, 2);
	assert_int_equal(*(const int *)c[1].rec, 4);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.dropped, 1);
	free((void *)c[0].rec);
	free((void *)c[1].rec);
	n = tree_pending__take(&p, 11, 7, c, 4);
	assert_int_equal(n, 1);
	assert_int_equal(*(const int *)c[0].rec, 3);
	free((void *)c[0].rec);
	assert_int_equal(p.n, 0);
	tree_pending__free(&p);
}

/* One tid in two merged recordings is two tasks: neither drops the other's. */
static void test_pending_sources(void **state)
{
	struct tree_pending p = {};
	struct tree_call c[4];
	int a = 1, b = 2;

	assert_int_equal(tree_pending__add(&p, tree_task_key(0, 10), 5, &a, sizeof(a)), 0);
	assert_int_equal(tree_pending__add(&p, tree_task_key(1, 10), 9, &b, sizeof(b)), 0);
	assert_int_equal(p.dropped, 0);
	assert_int_equal(tree_pending__take(&p, tree_task_key(0, 10), 5, c, 4), 1);
	assert_int_equal(*(const int *)c[0].rec, 1);
	free((void *)c[0].rec);
	assert_int_equal(tree_pending__take(&p, tree_task_key(1, 10), 9, c, 4), 1);
	assert_int_equal(*(const int *)c[0].rec, 2);
	free((void *)c[0].rec);
	tree_pending__free(&p);
}

/* A task's new session drops its older one's records, not other tasks'. */
static void test_pending_new_session(void **state)
{
	struct tree_pending p = {};
	struct tree_call c[4];
	int a = 1, b = 2, x = 3;

	assert_int_equal(tree_pending__add(&p, 10, 100, &a, sizeof(a)), 0);
	assert_int_equal(tree_pending__add(&p, 10, 100, &a, sizeof(a)), 0);
	assert_int_equal(tree_pending__add(&p, 11, 7, &x, sizeof(x)), 0);
	assert_int_equal(p.n, 3);
	assert_int_equal(tree_pending__add(&p, 10, 101, &b, sizeof(b)), 0);
	assert_int_equal(p.n, 2);
	assert_int_equal(p.dropped, 2);
	assert_int_equal(tree_pending__take(&p, 11, 7, c, 4), 1);
	assert_int_equal(*(const int *)c[0].rec, 3);
	free((void *)c[0].rec);
	assert_int_equal(tree_pending__take(&p, 10, 101, c, 4), 1);
	assert_int_equal(*(const int *)c[0].rec, 2);
	free((void *)c[0].rec);
	tree_pending__free(&p);
}

/*
 * More records of a session than the caller's room (--tree-max-calls): the
 * first MAX are taken, in order, and no more (CALLS has room for MAX only:
 * ASan stops a write past it); the others are freed and counted.
 */
static void test_pending_take_stops_at_max(void **state)
{
	enum { MAX = 3, MORE = 5 };
	struct tree_pending p = {};
	struct tree_call *c = calloc(MAX, sizeof(*c));
	int v[MAX + MORE], i;

	assert_non_null(c);
	for (i = 0; i < MAX + MORE; i++) {
		v[i] = 100 + i;
		assert_int_equal(tree_pending__add(&p, 10, 7, &v[i], sizeof(v[i])), 0);
	}
	assert_int_equal(tree_pending__add(&p, 11, 8, &v[0], sizeof(v[0])), 0);
	assert_int_equal(tree_pending__take(&p, 10, 7, c, MAX), MAX);
	for (i = 0; i < MAX; i++) {
		assert_int_equal(*(const int *)c[i].rec, 100 + i);
		assert_int_equal(c[i].parent, -1);
		free((void *)c[i].rec);
	}
	assert_int_equal(p.dropped, MORE);
	assert_int_equal(p.n, 1);	/* the other task's record stays */
	tree_pending__free(&p);
	free(c);
}

/*
 * Many tasks, interleaved a record each in turn, as a recording (or a busy
 * machine) may give them: each task's records come back in order, the
 * table forgets tasks that left, and the bytes kept are counted exactly.
 */
static void test_pending_many_tasks(void **state)
{
	enum { TASKS = 5000, EACH = 3 };
	struct tree_pending p = {};
	struct tree_call c[EACH];
	int i, k, round;

	for (round = 0; round < 2; round++) {
		for (k = 0; k < EACH; k++)
			for (i = 0; i < TASKS; i++) {
				int v = i * 10 + k;

				assert_int_equal(tree_pending__add(&p, round * TASKS + i, 1, &v, sizeof(v)), 0);
			}
		assert_int_equal(p.n, TASKS * EACH);
		assert_int_equal(p.bytes, TASKS * EACH * sizeof(int));
		for (i = TASKS - 1; i >= 0; i--) {
			assert_int_equal(tree_pending__take(&p, round * TASKS + i, 1, c, EACH), EACH);
			for (k = 0; k < EACH; k++) {
				assert_int_equal(*(const int *)c[k].rec, i * 10 + k);
				free((void *)c[k].rec);
			}
		}
		assert_int_equal(p.n, 0);
		assert_int_equal(p.bytes, 0);
	}
	/* The second round's tasks replaced the first's: the table did not double for them. */
	assert_true(p.cap <= 4 * 2 * (TASKS + 1));
	assert_int_equal(p.dropped, 0);
	tree_pending__free(&p);
}

/* Past TREE_PENDING_MAX_BYTES a record is dropped, counted, and not read. */
static void test_pending_bytes_bound(void **state)
{
	struct tree_pending p = {};
	int v = 7;

	assert_int_equal(tree_pending__add(&p, 1, 1, &v, sizeof(v)), 0);
	assert_int_equal(tree_pending__add(&p, 1, 1, &v, TREE_PENDING_MAX_BYTES), -ENOSPC);
	assert_int_equal(p.dropped, 1);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.bytes, sizeof(v));
	tree_pending__free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_enoent),
		cmocka_unit_test(test_last_failing_callee),
		cmocka_unit_test(test_leaf_adopts_nothing),
		cmocka_unit_test(test_leaf_between_calls),
		cmocka_unit_test(test_other_errno_stops),
		cmocka_unit_test(test_null_carries_error),
		cmocka_unit_test(test_root_ok),
		cmocka_unit_test(test_siblings_and_gaps),
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_pending_new_session),
		cmocka_unit_test(test_pending_sources),
		cmocka_unit_test(test_pending_take_stops_at_max),
		cmocka_unit_test(test_pending_many_tasks),
		cmocka_unit_test(test_pending_bytes_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
