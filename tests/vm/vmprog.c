// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Workloads for the VM tests, linked statically so that the VM needs no
 * libraries for it.
 *
 *   vmprog mmap PAGES     mmap and unmap PAGES anonymous pages (the kernel's
 *                         do_mmap has 8 arguments on 6.1: two on the stack)
 *   vmprog threads N      start and join N threads, one after the other;
 *                         each ends through the exit system call, which
 *                         never returns
 *   vmprog sleep MS...    nanosleep MS milliseconds, for each MS in turn
 *                         (the kernel's hrtimer_nanosleep, one call each)
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>

static void *nothing(void *arg)
{
	return arg;
}

static int sleeps(int n, char **ms)
{
	int i;

	for (i = 0; i < n; i++) {
		long v = strtol(ms[i], NULL, 10);
		struct timespec ts = { .tv_sec = v / 1000, .tv_nsec = v % 1000 * 1000000 };

		if (nanosleep(&ts, NULL))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	long n, i;

	if (argc >= 3 && !strcmp(argv[1], "sleep"))
		return sleeps(argc - 2, argv + 2);
	if (argc != 3)
		return 2;
	n = strtol(argv[2], NULL, 10);
	if (!strcmp(argv[1], "mmap")) {
		void *p = mmap(NULL, n * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		munmap(p, n * 4096);
	} else if (!strcmp(argv[1], "threads")) {
		for (i = 0; i < n; i++) {
			pthread_t t;

			if (pthread_create(&t, NULL, nothing, NULL))
				return 1;
			pthread_join(t, NULL);
		}
	} else {
		return 2;
	}
	return 0;
}
