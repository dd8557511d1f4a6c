// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * USDT probes that try ksnoop's rules on memory and types (live tests).
 *
 *   usdt_edge kaddr ADDR     fire `addr` with ADDR (hex) as a char pointer:
 *                            a kernel address must read as a fault
 *   usdt_edge untouched FILE fire `str` with a pointer to FILE's first
 *                            bytes, mapped and never touched by the program
 *   usdt_edge mixed          fire `mixed` from two call sites, one passing
 *                            an int32 (5), one an int64 (0x100000005)
 *   usdt_edge open FILE      open the path FILE holds, through a pointer
 *                            to a page the program never touched (for
 *                            kernel functions)
 *   usdt_edge name           fire `name` with a class name as the JVM passes
 *                            it, pointer and length, not NUL-terminated
 *                            ("java/lang/Object" then 0xff bytes), with the
 *                            lengths 16, -1 and 2^40 (int64), then
 *                            `name32` with 9 and INT32_MIN (int32)
 *   usdt_edge write FILE     write to stdout 5 bytes of FILE, mapped and
 *                            never touched, then 16 of the class name above
 *                            (for kernel functions: vfs_write(buf:str(count));
 *                            a file's write pages the 5 in, /dev/null's not)
 *   usdt_edge ptrs           fire `ptrs` with a char *[] ("first",
 *                            "second") and an int[] (7, -8, 9)
 *   usdt_edge rename         change its own name three times with prctl
 *                            (usdt_edge -> kstale-b -> usdt_edge -> kstale-c)
 *                            and print the 1st and 3rd name's addresses: a
 *                            call selected by comm at entry is reported even
 *                            though the name changed before its return
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/sdt.h>

/* FILE mapped read-only; the program itself never reads the page. */
static const char *map_untouched(const char *file)
{
	int fd = open(file, O_RDONLY);
	void *p;

	if (fd < 0) {
		perror(file);
		exit(1);
	}
	p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	return p;
}

static void __attribute__((noinline)) mixed32(int32_t v)
{
	DTRACE_PROBE1(ksnoop_edge, mixed, v);
}

static void __attribute__((noinline)) mixed64(int64_t v)
{
	DTRACE_PROBE1(ksnoop_edge, mixed, v);
}

/* A class name and what follows it in memory: no NUL for 40 bytes. */
static char class_name[64] = "java/lang/Object";

static void __attribute__((noinline)) fire_name(void)
{
	const char *p = class_name;
	int64_t len;
	int32_t len32;

	memset(class_name + 16, 0xff, 40);
	len = 16;
	DTRACE_PROBE2(ksnoop_edge, name, p, len);
	len = -1;
	DTRACE_PROBE2(ksnoop_edge, name, p, len);
	len = 1LL << 40;
	DTRACE_PROBE2(ksnoop_edge, name, p, len);
	len32 = 9;
	DTRACE_PROBE2(ksnoop_edge, name32, p, len32);
	len32 = INT32_MIN;
	DTRACE_PROBE2(ksnoop_edge, name32, p, len32);
}

static void __attribute__((noinline)) fire_ptrs(void)
{
	static const char *names[] = { "first", "second", NULL };
	static int nums[] = { 7, -8, 9 };
	const char **np = names;
	int *ip = nums;

	DTRACE_PROBE2(ksnoop_edge, ptrs, np, ip);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "kaddr")) {
		const char *p = (const char *)(uintptr_t)strtoull(argv[2], NULL, 16);

		DTRACE_PROBE1(ksnoop_edge, addr, p);
	} else if (argc == 3 && !strcmp(argv[1], "untouched")) {
		const char *p = map_untouched(argv[2]);

		DTRACE_PROBE1(ksnoop_edge, str, p);
	} else if (argc == 2 && !strcmp(argv[1], "name")) {
		fire_name();
	} else if (argc == 3 && !strcmp(argv[1], "write")) {
		const char *p = map_untouched(argv[2]);

		memset(class_name + 16, 0xff, 40);
		if (write(1, p, 5) != 5 || write(1, class_name, 16) != 16)
			return 1;
	} else if (argc == 2 && !strcmp(argv[1], "ptrs")) {
		fire_ptrs();
	} else if (argc == 2 && !strcmp(argv[1], "mixed")) {
		mixed32(5);
		mixed64(0x100000005LL);
	} else if (argc == 3 && !strcmp(argv[1], "open")) {
		/* The file holds a path (NUL-terminated) to open. */
		int fd = open(map_untouched(argv[2]), O_RDONLY);

		printf("fd %d\n", fd);
	} else if (argc == 2 && !strcmp(argv[1], "rename")) {
		static const char b[16] = "kstale-b", a[16] = "usdt_edge", c[16] = "kstale-c";

		prctl(PR_SET_NAME, b);
		prctl(PR_SET_NAME, a);
		prctl(PR_SET_NAME, c);
		printf("0x%lx 0x%lx\n", (unsigned long)b, (unsigned long)c);
	} else {
		return 2;
	}
	return 0;
}
