// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A known user stack at a system call, for --ustack (live/34-ustack.sh):
 * main -> outer_fn -> inner_fn -> openat(MISSING), N times, each failing
 * with ENOENT.  Built with frame pointers, without inlining or sibling
 * calls, and inner_fn makes the call itself (no libc wrapper, which has
 * no frame of its own): the kernel's frame-pointer walk then sees
 * exactly inner_fn, outer_fn, main.  It waits for a line on stdin first
 * (or its end), so that a tracer can attach to its pid, and before it
 * exits for another line, or LINGER_MS if given, so that its maps are
 * there to read.  With "exec" it waits for the line, makes its calls and
 * becomes cat(1) reading the rest of stdin: the same process, other maps.
 * With "evil" it is main -> "evil;fake;frame" -> outer_fn -> inner_fn: a
 * symbol (asm label) a folded stack must keep one frame.  inner_fn has a
 * USDT probe, ksnoop_ustack:inner(path), before its call: a probe's -s
 * (live/48-record-ustack.sh) is the same user stack.
 *
 *	ustack_prog MISSING N [LINGER_MS | exec | evil]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/sdt.h>

__attribute__((noinline)) long inner_fn(const char *path)
{
	long ret;

	DTRACE_PROBE1(ksnoop_ustack, inner, path);
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

/* Named so that a ';' would split it into three frames of a folded stack. */
__attribute__((noinline)) long evil_fn(const char *path) __asm__("\"evil;fake;frame\"");
__attribute__((noinline)) long evil_fn(const char *path)
{
	long ret = outer_fn(path);

	return ret < 0 ? ret : -1;
}

int main(int argc, char **argv)
{
	char line[16];
	char *end;
	long i, n, ms = 0;
	int become_cat = argc == 4 && !strcmp(argv[3], "exec");
	int evil = argc == 4 && !strcmp(argv[3], "evil");

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: ustack_prog MISSING N [LINGER_MS | exec | evil]\n");
		return 2;
	}
	n = strtol(argv[2], &end, 10);
	if (*end || n < 0 || n > 100000) {
		fprintf(stderr, "ustack_prog: not a count: %s\n", argv[2]);
		return 2;
	}
	if (argc == 4 && !become_cat && !evil) {
		ms = strtol(argv[3], &end, 10);
		if (*end || ms < 0 || ms > 60000) {
			fprintf(stderr, "ustack_prog: not a time in ms: %s\n", argv[3]);
			return 2;
		}
	}
	if ((argc == 3 || become_cat || evil) && !fgets(line, sizeof(line), stdin))
		line[0] = 0;
	for (i = 0; i < n; i++)
		if ((evil ? evil_fn(argv[1]) : outer_fn(argv[1])) >= 0)
			return 1;
	if (become_cat) {
		execl("/bin/cat", "cat", (char *)NULL);
		return 1;
	}
	if (argc == 4 && !evil) {
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

		nanosleep(&ts, NULL);
	} else if (!fgets(line, sizeof(line), stdin)) {
		line[0] = 0;
	}
	return 0;
}
