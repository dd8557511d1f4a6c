// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the one error type (ksnoop/lib/ks_error.c): filling it,
 * context put before a message, and the errno to exit status table that
 * main() applies (2: the user's to fix, 1: a runtime failure).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "ks_error.h"

static void test_fail_fills_and_returns_errno(void **state)
{
	struct ks_error e = { .pos = 7 };

	assert_int_equal(ks_fail(&e, -ENOENT, "unknown kernel function '%s'", "f"), -ENOENT);
	assert_int_equal(e.err, -ENOENT);
	assert_int_equal(e.pos, 0);
	assert_string_equal(e.msg, "unknown kernel function 'f'");
}

static void test_fail_at_keeps_column(void **state)
{
	struct ks_error e;

	assert_int_equal(ks_fail_at(&e, -EINVAL, 13, "no member '%s'", "x"), -EINVAL);
	assert_int_equal(e.err, -EINVAL);
	assert_int_equal(e.pos, 13);
	assert_string_equal(e.msg, "no member 'x'");
}

/* A caller that only wants the errno passes NULL. */
static void test_fail_without_error(void **state)
{
	assert_int_equal(ks_fail(NULL, -EIO, "cannot read %s", "x"), -EIO);
	assert_int_equal(ks_fail_at(NULL, -EINVAL, 3, "bad"), -EINVAL);
}

static void test_long_message_is_cut(void **state)
{
	char big[2 * KS_ERROR_MSG_MAX];
	struct ks_error e;

	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	ks_fail(&e, -EINVAL, "%s", big);
	assert_int_equal(strlen(e.msg), KS_ERROR_MSG_MAX - 1);
}

static void test_prefix(void **state)
{
	struct ks_error e;

	ks_fail_at(&e, -EINVAL, 4, "takes %d argument words", 13);
	assert_int_equal(ks_prefix(&e, "'%s' ", "f"), -EINVAL);
	assert_string_equal(e.msg, "'f' takes 13 argument words");
	assert_int_equal(e.pos, 4);
	assert_int_equal(ks_prefix(NULL, "x"), 0);
}

/* Context that fills the buffer leaves no room for the rest, and no overflow. */
static void test_prefix_too_long(void **state)
{
	char big[2 * KS_ERROR_MSG_MAX];
	struct ks_error e;

	memset(big, 'p', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	ks_fail(&e, -ENOENT, "rest");
	ks_prefix(&e, "%s", big);
	assert_int_equal(strlen(e.msg), KS_ERROR_MSG_MAX - 1);
	assert_int_equal(e.msg[0], 'p');
}

/* A site that set no message (an allocation) still says something. */
static void test_message_falls_back_to_errno(void **state)
{
	struct ks_error e;

	ks_clear(&e);
	assert_string_equal(ks_message(&e), "");
	e.err = -ENOMEM;
	assert_string_equal(ks_message(&e), strerror(ENOMEM));
	ks_fail(&e, -ENOMEM, "out of memory");
	assert_string_equal(ks_message(&e), "out of memory");
	ks_clear(&e);
	assert_int_equal(e.err, 0);
	assert_int_equal(e.pos, 0);
}

static void test_exit_status_usage(void **state)
{
	static const int usage[] = { -EINVAL, -ENOENT, -ESRCH, -ENOEXEC, -EISDIR, -E2BIG,
				     -ERANGE, -ENOTDIR, -ENAMETOOLONG, -ELOOP };
	size_t i;

	for (i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
		assert_true(ks_is_usage(usage[i]));
		assert_int_equal(ks_exit_status(usage[i]), KSNOOP_EXIT_USAGE);
	}
}

static void test_exit_status_runtime(void **state)
{
	static const int runtime[] = { -ENOMEM, -EPERM, -EACCES, -EOPNOTSUPP, -EIO, -EBUSY,
				       -EAGAIN, -EBADF, -EFAULT, -ENOSPC, -EMFILE };
	size_t i;

	for (i = 0; i < sizeof(runtime) / sizeof(runtime[0]); i++) {
		assert_false(ks_is_usage(runtime[i]));
		assert_int_equal(ks_exit_status(runtime[i]), KSNOOP_EXIT_RUNTIME);
	}
	assert_int_equal(ks_exit_status(0), KSNOOP_EXIT_OK);
}

/* What the kernel or libbpf returns is a runtime failure, whatever the errno. */
static void test_runtime_errno(void **state)
{
	assert_int_equal(ks_exit_status(ks_runtime_errno(-EINVAL)), KSNOOP_EXIT_RUNTIME);
	assert_int_equal(ks_exit_status(ks_runtime_errno(-ENOENT)), KSNOOP_EXIT_RUNTIME);
	assert_int_equal(ks_exit_status(ks_runtime_errno(-E2BIG)), KSNOOP_EXIT_RUNTIME);
	/* The errnos that need no translation keep their value (the root hint reads it). */
	assert_int_equal(ks_runtime_errno(-EPERM), -EPERM);
	assert_int_equal(ks_runtime_errno(-EACCES), -EACCES);
	assert_int_equal(ks_runtime_errno(-ENOMEM), -ENOMEM);
}

/* `info` with several targets reports the worse: usage beats runtime. */
static void test_worse(void **state)
{
	assert_int_equal(ks_worse(0, 0), 0);
	assert_int_equal(ks_worse(0, -EIO), -EIO);
	assert_int_equal(ks_worse(-EIO, 0), -EIO);
	assert_int_equal(ks_worse(-EIO, -ENOENT), -ENOENT);
	assert_int_equal(ks_worse(-ENOENT, -EIO), -ENOENT);
	/* Of two of a kind, the first. */
	assert_int_equal(ks_worse(-ENOENT, -EINVAL), -ENOENT);
	assert_int_equal(ks_worse(-EIO, -ENOMEM), -EIO);
	assert_int_equal(ks_exit_status(ks_worse(ks_worse(0, -ENOMEM), -ESRCH)),
			 KSNOOP_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fail_fills_and_returns_errno),
		cmocka_unit_test(test_fail_at_keeps_column),
		cmocka_unit_test(test_fail_without_error),
		cmocka_unit_test(test_long_message_is_cut),
		cmocka_unit_test(test_prefix),
		cmocka_unit_test(test_prefix_too_long),
		cmocka_unit_test(test_message_falls_back_to_errno),
		cmocka_unit_test(test_exit_status_usage),
		cmocka_unit_test(test_exit_status_runtime),
		cmocka_unit_test(test_runtime_errno),
		cmocka_unit_test(test_worse),
	};

	return cmocka_run_group_tests_name("error", tests, NULL, NULL);
}
