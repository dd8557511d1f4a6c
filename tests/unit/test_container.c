// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for what ksnoop/kernel/container.c parses: a cgroup's level
 * from its path under the cgroup2 mount (what BPF's ancestor lookup is
 * given), the cgroup2 mount from mountinfo's lines, and --netns's number.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "container.h"

static void test_cgroup_level(void **state)
{
	__u32 level = 99;

	assert_int_equal(container__cgroup_level("/sys/fs/cgroup", "/sys/fs/cgroup", &level), 0);
	assert_int_equal(level, 0);
	assert_int_equal(container__cgroup_level("/sys/fs/cgroup", "/sys/fs/cgroup/a", &level), 0);
	assert_int_equal(level, 1);
	assert_int_equal(container__cgroup_level("/sys/fs/cgroup/", "/sys/fs/cgroup/a/b.slice/c", &level), 0);
	assert_int_equal(level, 3);
	/* A mount at "/" (a container's own): every component counts. */
	assert_int_equal(container__cgroup_level("/", "/x/y", &level), 0);
	assert_int_equal(level, 2);
	/* Not under the mount: a sibling whose name starts the same, or elsewhere. */
	assert_int_equal(container__cgroup_level("/sys/fs/cgroup", "/sys/fs/cgroupX/a", &level), -EINVAL);
	assert_int_equal(container__cgroup_level("/sys/fs/cgroup", "/tmp/a", &level), -EINVAL);
}

/* Bounded: deeper than CONTAINER_MAX_LEVEL is refused, not counted on. */
static void test_cgroup_level_bound(void **state)
{
	char path[8 + 2 * (CONTAINER_MAX_LEVEL + 2)] = "/cg";
	__u32 level;
	int i;

	for (i = 0; i < CONTAINER_MAX_LEVEL; i++)
		strcat(path, "/a");
	assert_int_equal(container__cgroup_level("/cg", path, &level), 0);
	assert_int_equal(level, CONTAINER_MAX_LEVEL);
	strcat(path, "/a");
	assert_int_equal(container__cgroup_level("/cg", path, &level), -EINVAL);
}

static void test_cgroup2_mount(void **state)
{
	/* A hybrid host: v1 controllers, the v2 tree at unified; optional fields vary. */
	const char *hybrid =
		"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime shared:9 - cgroup cgroup rw,cpu\n"
		"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime shared:4 master:1 - cgroup2 cgroup2 rw\n";
	const char *subtree = "50 1 0:40 /kubepods/pod1 /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	const char *none = "22 1 0:21 / /proc rw - proc proc rw\n" "broken line\n";
	char mnt[64];
	bool whole = false;

	assert_int_equal(container__cgroup2_mount(hybrid, mnt, sizeof(mnt), &whole), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup/unified");
	assert_true(whole);
	assert_int_equal(container__cgroup2_mount(subtree, mnt, sizeof(mnt), &whole), 0);
	assert_string_equal(mnt, "/sys/fs/cgroup");
	assert_false(whole);
	assert_int_equal(container__cgroup2_mount(none, mnt, sizeof(mnt), &whole), -ENOENT);
	/* A mount point longer than the room is not taken. */
	assert_int_equal(container__cgroup2_mount(hybrid, mnt, 8, &whole), -ENOENT);
}

static void test_netns_number(void **state)
{
	struct ks_error e = {};
	__u32 ino = 0;

	assert_int_equal(container__netns("4026531840", &ino, &e), 0);
	assert_int_equal(ino, 4026531840u);
	assert_int_equal(container__netns("0", &ino, &e), -EINVAL);
	assert_string_equal(e.msg, "--netns: '0' is not a namespace's inode number (1 to 4294967295)");
	assert_int_equal(container__netns("4294967296", &ino, &e), -EINVAL);
	assert_int_equal(container__netns("12x", &ino, &e), -EINVAL);
	assert_int_equal(container__netns("/nonexistent/ns", &ino, &e), -ENOENT);
	assert_string_equal(e.msg, "--netns: '/nonexistent/ns': No such file or directory");
	/* A file, not a namespace. */
	assert_int_equal(container__netns("/proc/self/status", &ino, &e), -EINVAL);
}

static void test_cgroup_refusals(void **state)
{
	struct cgroup_target t;
	struct ks_error e = {};

	assert_int_equal(container__cgroup("/nonexistent/cg", &t, &e), -ENOENT);
	assert_string_equal(e.msg, "--cgroup: '/nonexistent/cg': No such file or directory");
	assert_int_equal(container__cgroup("/proc", &t, &e), -EINVAL);
	assert_string_equal(e.msg, "--cgroup: '/proc' is not a cgroup v2 directory");
}

/* An id nothing names prints as its number. */
static void test_cgroup_names_unknown(void **state)
{
	struct cgroup_names *n = cgroup_names__new();

	assert_non_null(n);
	assert_string_equal(cgroup_names__get(n, 0xffffffffffffull), "281474976710655");
	cgroup_names__free(n);
	assert_string_equal(cgroup_names__get(NULL, 7), "7");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_level),
		cmocka_unit_test(test_cgroup_level_bound),
		cmocka_unit_test(test_cgroup2_mount),
		cmocka_unit_test(test_netns_number),
		cmocka_unit_test(test_cgroup_refusals),
		cmocka_unit_test(test_cgroup_names_unknown),
	};

	return cmocka_run_group_tests_name("container", tests, NULL, NULL);
}
