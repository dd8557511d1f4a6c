// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A probe with a semaphore; see usdt_tiny.c. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short tiny_guarded_semaphore __attribute__((section(".probes")));

void guarded(long n)
{
	if (tiny_guarded_semaphore)
		DTRACE_PROBE1(tiny, guarded, n);
}
