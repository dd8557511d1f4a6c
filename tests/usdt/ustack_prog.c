// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A known user stack at a system call, for --ustack (live/34-ustack.sh):
 * main -> outer_fn -> inner_fn -> openat(MISSING), N times, each failing
 * with ENOENT.  Built with frame pointers, without inlining or sibling
 * calls, and inner_fn makes the call itself (no libc wrapper, which has
 * no frame of its own): the kernel's frame-pointer walk then sees
 * exactly inner_fn, outer_fn, main.  It waits for a line on stdin first,
 * so that a tracer can attach to its pid, and for another line (or the
 * end of stdin) before it exits, so that its maps are there to read.
 *
 *	ustack_prog MISSING N
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>

__attribute__((noinline)) long inner_fn(const char *path)
{
	long ret;

	/* x86-64: openat(AT_FDCWD, path, O_RDONLY) */
	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"((long)SYS_openat), "D"((long)AT_FDCWD), "S"(path), "d"((long)O_RDONLY)
		     : "rcx", "r11", "memory");
	return ret;
}

__attribute__((noinline)) long outer_fn(const char *path)
{
	long ret = inner_fn(path);

	/* Work after the call: no sibling call, outer_fn keeps its frame. */
	return ret < 0 ? ret : -1;
}

int main(int argc, char **argv)
{
	char line[16];
	char *end;
	long i, n;

	if (argc != 3) {
		fprintf(stderr, "usage: ustack_prog MISSING N\n");
		return 2;
	}
	n = strtol(argv[2], &end, 10);
	if (*end || n < 0 || n > 100000) {
		fprintf(stderr, "ustack_prog: not a count: %s\n", argv[2]);
		return 2;
	}
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	for (i = 0; i < n; i++)
		if (outer_fn(argv[1]) >= 0)
			return 1;
	fgets(line, sizeof(line), stdin);
	return 0;
}
