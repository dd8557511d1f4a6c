// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ELF seed of the USDT fuzz targets (tests/fuzz/gen-corpus builds it):
 * a static program without libc, so the file stays small, with probes of
 * several argument sizes, one without arguments and, in
 * usdt_tiny_guarded.c, one behind a semaphore.  Never run.
 */
#include <sys/sdt.h>

struct req {
	int id;
	char path[8];
};

void guarded(long n);

void _start(void)
{
	struct req r = { 1, "/a" };
	volatile long n = -3;
	volatile char c = 'x';
	volatile unsigned short u = 7;

	DTRACE_PROBE4(tiny, hit, n, c, &r, u);
	DTRACE_PROBE(tiny, bare);
	guarded(n);
	for (;;)
		;
}
