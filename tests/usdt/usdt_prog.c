// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program with USDT probes for ksnoop's live tests.
 *
 *   usdt_prog fire N       fire every probe N times, then exit
 *   usdt_prog guarded S    fire `guarded` whenever its semaphore is set,
 *                          until S seconds after it last went back to 0
 *                          (at most GUARDED_MAX_S in all); print how often
 *                          it fired.  Timed from the detach, not from the
 *                          start: a slow attach on a busy machine does
 *                          not end the program before the test reads it.
 *   usdt_prog spin S       fire `tick` every 10 ms for S seconds
 *   usdt_prog lib N        call the shared library's probe N times
 *   usdt_prog threads S    for S seconds, a second thread and the main one
 *                          each fire `tick` with their own tid every 10 ms;
 *                          prints the second thread's tid first
 *   usdt_prog signs N      fire `value` with -N, ..., -1, 0, 1, ..., N - 1
 *                          (an int), then exit
 *   usdt_prog values N     fire `value` with 1, 2, ..., N, then exit
 *   usdt_prog downs N      fire `value` with N - 1, ..., 0, ..., -N: the
 *                          smallest last, then exit
 *   usdt_prog pairs N      fire `start` with 0, ..., N - 1, sleep 20 ms,
 *                          then fire `done` with N - 1, ..., 0: every
 *                          request takes at least 20 ms, done in the
 *                          reverse order (a pairing by thread would not
 *                          tell them apart; by id it does)
 *   usdt_prog flood S      fire `value` with 0, ..., 9999 over and over,
 *                          as fast as it can for S seconds (a bound: the
 *                          test kills it), resting 0.1 ms between rounds
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/sdt.h>
#include <sys/syscall.h>

struct req {
	int id;
	unsigned int flags;
	char path[16];
	long long size;
};

/* A list whose second link is NULL: a chain through it stops there. */
struct node {
	int id;
	struct node *next;
};

/* guarded's bound, whether or not its semaphore is ever set and cleared. */
#define GUARDED_MAX_S	120

void usdt_lib_hit(int i);
int guarded_enabled(void);
void guarded_fire(long n);

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Not inlined: a user stack (-s) shows fire, then main. */
static __attribute__((noinline)) void fire(int i)
{
	int8_t s8 = -128;
	uint8_t u8 = 255;
	int16_t s16 = -32768;
	uint16_t u16 = 65535;
	int32_t s32 = -2147483647 - 1;
	uint32_t u32 = 4294967295u;
	int64_t s64 = INT64_MIN;
	uint64_t u64 = UINT64_MAX;
	volatile int neg = -i - 1;
	struct req r = { .id = i, .flags = 0x5, .size = 1LL << 40 };
	struct node last = { .id = 2, .next = NULL };
	struct node first = { .id = 1, .next = &last };
	char path[32];

	snprintf(path, sizeof(path), "/req/%d", i);
	strcpy(r.path, "/srv/a");
	DTRACE_PROBE4(ksnoop_test, small, s8, u8, s16, u16);
	DTRACE_PROBE4(ksnoop_test, wide, s32, u32, s64, u64);
	DTRACE_PROBE3(ksnoop_test, req, i, neg, path);
	DTRACE_PROBE2(ksnoop_test, obj, &r, i);
	/* A pointer nobody can read: ksnoop must say so, not crash. */
	DTRACE_PROBE2(ksnoop_test, bad, (const char *)16, i);
	DTRACE_PROBE2(ksnoop_test, chain, &first, i);
}

/* `value`'s one call site, for `signs` and `values` (the listing counts sites). */
static __attribute__((noinline)) void fire_value(int v)
{
	DTRACE_PROBE1(ksnoop_test, value, v);
}

/* `pairs`: a request's start and done, the id each fires with. */
static __attribute__((noinline)) void pair_start(int id)
{
	DTRACE_PROBE1(ksnoop_test, start, id);
}

static __attribute__((noinline)) void pair_done(int id)
{
	DTRACE_PROBE1(ksnoop_test, done, id);
}

static int64_t threads_end;

/*
 * `tick` with the caller's tid, every 10 ms until threads_end; the second
 * thread (ARG non-NULL) says who it is first.
 */
static void *tick_tid(void *arg)
{
	long tid = syscall(SYS_gettid);

	if (arg) {
		printf("tid %ld\n", tid);
		fflush(stdout);
	}
	while (now_ms() < threads_end) {
		DTRACE_PROBE1(ksnoop_test, tick, tid);
		usleep(10000);
	}
	return arg;
}

int main(int argc, char **argv)
{
	int n, i;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	if (!strcmp(argv[1], "fire")) {
		for (i = 0; i < n; i++)
			fire(i);
	} else if (!strcmp(argv[1], "guarded")) {
		int64_t end = now_ms() + 1000LL * GUARDED_MAX_S, quiet_end = end;
		int was_set = 0;
		long fired = 0;

		while (now_ms() < end && now_ms() < quiet_end) {
			if (guarded_enabled()) {
				guarded_fire(fired);
				fired++;
				was_set = 1;
				quiet_end = end;
			} else if (was_set) {
				was_set = 0;
				quiet_end = now_ms() + 1000LL * n;
			}
			usleep(1000);
		}
		printf("fired %ld\n", fired);
	} else if (!strcmp(argv[1], "spin")) {
		int64_t end = now_ms() + 1000LL * n;

		for (i = 0; now_ms() < end; i++) {
			DTRACE_PROBE1(ksnoop_test, tick, i);
			usleep(10000);
		}
	} else if (!strcmp(argv[1], "threads")) {
		pthread_t t;

		threads_end = now_ms() + 1000LL * n;
		if (pthread_create(&t, NULL, tick_tid, &t))
			return 1;
		tick_tid(NULL);
		pthread_join(t, NULL);
	} else if (!strcmp(argv[1], "signs")) {
		for (i = -n; i < n; i++)
			fire_value(i);
	} else if (!strcmp(argv[1], "pairs")) {
		for (i = 0; i < n; i++)
			pair_start(i);
		usleep(20000);
		for (i = n - 1; i >= 0; i--)
			pair_done(i);
	} else if (!strcmp(argv[1], "downs")) {
		for (i = n - 1; i >= -n; i--)
			fire_value(i);
	} else if (!strcmp(argv[1], "values")) {
		for (i = 1; i <= n; i++)
			fire_value(i);
	} else if (!strcmp(argv[1], "flood")) {
		int64_t end = now_ms() + 1000LL * n;

		while (now_ms() < end) {
			for (i = 0; i < 10000; i++)
				fire_value(i);
			usleep(100);
		}
	} else if (!strcmp(argv[1], "lib")) {
		for (i = 0; i < n; i++)
			usdt_lib_hit(i);
	} else {
		return 2;
	}
	return 0;
}
