// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A USDT probe that reads the program's variables (@NAME, @tls:NAME),
 * traced by tests/live/42-usdt-vars.sh: a PIE executable with a probe, a
 * global and a __thread variable, and a shared library (built from this
 * file with -DUSDTVARS_LIB) with a probe of its own and a global.  The
 * values change at every hit, in the main thread and two more.
 *
 *   usdtvars [ROUNDS]   each round: a hit in each of three threads
 *
 * Before each hit it prints what the tracer should read, one line:
 *   hit ARG counter=N tls=T lib.counter=L
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

#ifdef USDTVARS_LIB
long uvl_counter = 500;
__thread int uvl_tls;

/* A probe in the library: its sites are at the library's load bias. */
long uvl_hit(long arg)
{
	uvl_counter += 3;
	uvl_tls = (int)arg;
	DTRACE_PROBE1(uvlib, hit, arg);
	return uvl_counter;
}
#else
long uvl_hit(long arg);

long uv_counter = 40;
struct uv_state {
	int id;
	char tag[28];
} uv_state = { 1, "first" };
__thread long uv_tls = 7;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Two sites of one probe: the load bias is each site's IP less its address. */
volatile int uv_site;

__attribute__((noinline)) static void site_odd(long arg)
{
	uv_site = 1;
	DTRACE_PROBE1(uvapp, hit, arg);
}

__attribute__((noinline)) static void site_even(long arg)
{
	uv_site = 2;
	DTRACE_PROBE1(uvapp, hit, arg);
}

static void hit(long arg)
{
	long lib;

	pthread_mutex_lock(&lock);
	uv_counter += 2;
	uv_state.id++;
	snprintf(uv_state.tag, sizeof(uv_state.tag), "tag-%ld", uv_counter);
	uv_tls += arg;
	lib = uvl_hit(arg);
	printf("hit %ld counter=%ld state.id=%d state.tag=%s tls=%ld lib.counter=%ld\n", arg,
	       uv_counter, uv_state.id, uv_state.tag, uv_tls, lib);
	fflush(stdout);
	if (arg & 1)
		site_odd(arg);
	else
		site_even(arg);
	pthread_mutex_unlock(&lock);
}

static void *thread_main(void *arg)
{
	uv_tls = 1000 * (long)arg;
	hit((long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 1;
	pthread_t t[2];
	long i;

	for (; rounds > 0; rounds--) {
		hit(0);
		for (i = 0; i < 2; i++)
			pthread_create(&t[i], NULL, thread_main, (void *)(i + 1));
		for (i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
	}
	return 0;
}
#endif
