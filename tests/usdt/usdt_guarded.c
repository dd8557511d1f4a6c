// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A semaphore-guarded probe: the program fires it only while the semaphore
 * is non-zero, which the kernel ensures exactly while a uprobe with a
 * reference counter (ksnoop, through libbpf) is attached.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short ksnoop_test_guarded_semaphore __attribute__((section(".probes")));

int guarded_enabled(void)
{
	return ksnoop_test_guarded_semaphore != 0;
}

void guarded_fire(long n)
{
	DTRACE_PROBE1(ksnoop_test, guarded, n);
}
