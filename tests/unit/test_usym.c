// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the user stack symbolizer (ksnoop/usym.c): addresses of
 * this test program itself, named through its own /proc/PID/maps and ELF
 * symbols; a /proc of our own making for processes that are gone, files
 * swapped under a path and mappings without a file; damaged ELF files.
 */
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "usym.h"

/* A function of ours to find: out of line, longer than the offsets used. */
__attribute__((noinline)) int usym_target(int x)
{
	volatile int v = x;

	for (int i = 0; i < 8; i++)
		v = v * 3 + i;
	return v;
}

static char exe[PATH_MAX];

/* This program's executable mapping that holds ADDR, as its maps line. */
static void own_map_line(uintptr_t addr, char *line, size_t sz)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long s, e;

	assert_non_null(f);
	while (fgets(line, sz, f))
		if (sscanf(line, "%llx-%llx", &s, &e) == 2 && addr >= s && addr < e) {
			fclose(f);
			return;
		}
	fclose(f);
	fail_msg("no mapping holds %#lx", (unsigned long)addr);
}

static void test_self(void **state)
{
	struct usym *u = usym__new(NULL);
	uintptr_t at = (uintptr_t)usym_target + 5;
	char buf[PATH_MAX + 128], want[PATH_MAX + 128];

	assert_non_null(u);
	assert_int_equal(usym__symbolize(u, getpid(), at, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "usym_target+0x5 (%s)", exe);
	assert_string_equal(buf, want);
	/* No mapping holds address 16: nothing known. */
	assert_int_equal(usym__symbolize(u, getpid(), 16, buf, sizeof(buf)), -ENOENT);
	usym__free(u);
}

static char dir[] = "/tmp/ksnoop-usym-XXXXXX";

static void write_maps(const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/4242", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/4242/maps", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void remove_maps(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/4242/maps", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/4242", dir);
	rmdir(path);
}

/* A process seen once stays named after it is gone. */
static void test_gone_process(void **state)
{
	uintptr_t at = (uintptr_t)usym_target + 3;
	char line[PATH_MAX + 256], buf[PATH_MAX + 128], want[PATH_MAX + 128];
	struct usym *u;

	own_map_line(at, line, sizeof(line));
	write_maps(line);
	u = usym__new(dir);
	assert_non_null(u);
	snprintf(want, sizeof(want), "usym_target+0x3 (%s)", exe);
	assert_int_equal(usym__symbolize(u, 4242, at, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	remove_maps();
	assert_int_equal(usym__symbolize(u, 4242, at, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	/* A process never seen, and gone: nothing known. */
	assert_int_equal(usym__symbolize(u, 4343, at, buf, sizeof(buf)), -ENOENT);
	usym__free(u);
}

/*
 * The file at the path is not the one mapped (another inode): no symbols
 * from it, the address and the offset instead.  A mapping without a file
 * is an address; [vdso] and the like an address in it.
 */
static void test_not_the_mapped_file(void **state)
{
	uintptr_t at = (uintptr_t)usym_target;
	unsigned long long s, e, off, ino;
	char line[PATH_MAX + 256], maps[3 * PATH_MAX], buf[PATH_MAX + 128], want[PATH_MAX + 128];
	unsigned int maj, min;
	struct usym *u;
	int n;

	own_map_line(at, line, sizeof(line));
	assert_int_equal(sscanf(line, "%llx-%llx %*4s %llx %x:%x %llu %n", &s, &e, &off, &maj, &min,
				&ino, &n), 6);
	snprintf(maps, sizeof(maps),
		 "%llx-%llx r-xp %llx %x:%x %llu %s\n"
		 "10000-20000 r-xp 00000000 00:00 0 \n"
		 "30000-31000 r-xp 00000000 00:00 0 [vdso]\n"
		 "40000-50000 rw-p 00000000 00:00 0 /not/executable\n"
		 "garbage line\n",
		 s, e, off, maj, min, ino + 1, exe);
	write_maps(maps);
	u = usym__new(dir);
	assert_non_null(u);
	assert_int_equal(usym__symbolize(u, 4242, at, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "0x%llx (%s+0x%llx)", (unsigned long long)at, exe,
		 (unsigned long long)(at - s + off));
	assert_string_equal(buf, want);
	assert_int_equal(usym__symbolize(u, 4242, 0x10010, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x10010");
	assert_int_equal(usym__symbolize(u, 4242, 0x30020, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x30020 ([vdso]+0x20)");
	/* Not executable: not a code mapping. */
	assert_int_equal(usym__symbolize(u, 4242, 0x40000, buf, sizeof(buf)), -ENOENT);
	remove_maps();
	usym__free(u);
}

static int first_object(struct dl_phdr_info *info, size_t size, void *base)
{
	*(uintptr_t *)base = info->dlpi_addr;
	return 1;
}

/* Where this program is loaded: the first object dl_iterate_phdr() names. */
static uintptr_t load_base(void)
{
	uintptr_t base = 0;

	dl_iterate_phdr(first_object, &base);
	return base;
}

/*
 * A frame at a function's first byte (a breakpoint, a probe at entry) is
 * that function's, at +0x0, not the end of the one before.
 */
static void test_symbol_start(void **state)
{
	struct usym *u = usym__new(NULL);
	uintptr_t at = (uintptr_t)usym_target;
	char buf[PATH_MAX + 128], want[PATH_MAX + 128];
	int fd;

	assert_non_null(u);
	assert_int_equal(usym__symbolize(u, getpid(), at, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "usym_target+0x0 (%s)", exe);
	assert_string_equal(buf, want);
	usym__free(u);
	/* The same by file address. */
	fd = open(exe, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(usym__file_symbol(fd, at - load_base(), buf, sizeof(buf)), 0);
	close(fd);
	assert_string_equal(buf, "usym_target+0x0");
}

/* Write the first LEN bytes of this program, with PATCH applied, to a file. */
static int damaged_copy(size_t len, size_t patch_at, const void *patch, size_t patch_len)
{
	char path[PATH_MAX];
	int in = open(exe, O_RDONLY), out;
	char *b = malloc(len);
	ssize_t got;

	assert_true(in >= 0 && b);
	got = pread(in, b, len, 0);
	assert_true(got > 0);
	close(in);
	if (patch && patch_at + patch_len <= (size_t)got)
		memcpy(b + patch_at, patch, patch_len);
	snprintf(path, sizeof(path), "%s/elf", dir);
	out = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(out >= 0);
	assert_int_equal(write(out, b, got), got);
	free(b);
	unlink(path);
	return out;
}

/* Untrusted ELF: not ELF, cut short, section headers pointing anywhere. */
static void test_damaged_elf(void **state)
{
	const unsigned long long huge = 0x7fffffffffff0000ULL;
	const unsigned short many = 0xffff;
	char buf[512];
	struct stat st;
	int fd;

	assert_int_equal(stat(exe, &st), 0);
	/* The whole file: found by its own address (ours less the load base). */
	fd = damaged_copy(st.st_size, 0, NULL, 0);
	assert_int_equal(usym__file_symbol(fd, (uintptr_t)usym_target + 7 - load_base(), buf,
					   sizeof(buf)), 0);
	assert_string_equal(buf, "usym_target+0x7");
	assert_int_equal(usym__file_symbol(fd, 0, buf, sizeof(buf)), -ENOENT);
	close(fd);
	/* Not ELF. */
	fd = damaged_copy(st.st_size, 0, "\x7f" "ELG", 4);
	assert_int_equal(usym__file_symbol(fd, 0x1000, buf, sizeof(buf)), -ENOENT);
	close(fd);
	/* Cut after the headers: no section table to read. */
	fd = damaged_copy(4096, 0, NULL, 0);
	assert_int_equal(usym__file_symbol(fd, 0x1000, buf, sizeof(buf)), -ENOENT);
	close(fd);
	/* e_shoff far beyond the end; then e_shnum at its largest. */
	fd = damaged_copy(st.st_size, 0x28, &huge, sizeof(huge));
	assert_int_equal(usym__file_symbol(fd, 0x1000, buf, sizeof(buf)), -ENOENT);
	close(fd);
	fd = damaged_copy(st.st_size, 0x3c, &many, sizeof(many));
	usym__file_symbol(fd, 0x1000, buf, sizeof(buf));	/* no crash, whatever it finds */
	close(fd);
	/* e_phoff far beyond the end: no segments, still symbols by file address. */
	fd = damaged_copy(st.st_size, 0x20, &huge, sizeof(huge));
	usym__file_symbol(fd, 0x1000, buf, sizeof(buf));
	close(fd);
}

static int setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0 || !mkdtemp(dir))
		return -1;
	exe[n] = 0;
	return 0;
}

static int teardown(void **state)
{
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_symbol_start),
		cmocka_unit_test(test_gone_process),
		cmocka_unit_test(test_not_the_mapped_file),
		cmocka_unit_test(test_damaged_elf),
	};

	return cmocka_run_group_tests_name("usym", tests, setup, teardown);
}
