// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * USDT probes whose argument locations are left to the compiler, one kind
 * of location per probe, for any architecture (the arm64 VM's USDT test,
 * tests/vm/tests/90-arm64.sh; GCC 12's notes on aarch64 in brackets):
 *
 *   ksnoop_sites:reg      N, N * 1000 in registers        (-4@x0 8@x1, -O2)
 *   ksnoop_sites:stack    N, N * 1000 in the stack frame  (-4@[sp, 12], -O0)
 *   ksnoop_sites:konst    -7, 2^40 as constants           (-4@-7 8@1099511627776)
 *   ksnoop_sites:guarded  N, fired only while its semaphore is set (by an
 *                         attached uprobe with a reference counter)
 *
 *   usdt_sites N          fire each once with N, print "guarded=0|1"
 */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

/* sdt.h names a semaphore for every probe of a file that has them. */
unsigned short ksnoop_sites_reg_semaphore __attribute__((section(".probes")));
unsigned short ksnoop_sites_stack_semaphore __attribute__((section(".probes")));
unsigned short ksnoop_sites_konst_semaphore __attribute__((section(".probes")));
unsigned short ksnoop_sites_guarded_semaphore __attribute__((section(".probes")));

static void __attribute__((noinline)) fire_reg(int n, long m)
{
	DTRACE_PROBE2(ksnoop_sites, reg, n, m);
}

/* -O0: every local lives in the frame, and the note says where. */
static void __attribute__((noinline, optimize("O0"))) fire_stack(int n)
{
	int a = n;
	long b = n * 1000L;

	DTRACE_PROBE2(ksnoop_sites, stack, a, b);
}

static void __attribute__((noinline)) fire_konst(void)
{
	DTRACE_PROBE2(ksnoop_sites, konst, -7, 1099511627776L);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	int guarded = ksnoop_sites_guarded_semaphore != 0;

	fire_reg(n, n * 1000L);
	fire_stack(n);
	fire_konst();
	if (guarded)
		DTRACE_PROBE1(ksnoop_sites, guarded, n);
	printf("guarded=%d\n", guarded);
	return 0;
}
