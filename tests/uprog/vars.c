// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program of our own whose variables tests/live/46-ufunc-vars.sh reads
 * at a user function's entry (@NAME, @tls:NAME): a global long, a struct
 * global with a string and an array, a pointer to it, a __thread int and
 * a __thread struct; three threads, each with its own TLS values.  Built
 * by gcc and clang, -O0 and -O2, PIE and not (where the load bias is 0).
 *
 *   vars [ROUNDS]   each round: uv_work(0) in main, uv_work(1..3) in threads
 *
 * Before each call it prints what the tracer should read, one line:
 *   call ARG counter=N cfg.level=L cfg.name=S cfg.lim2=M tls.id=I tls.req=R tls.tag=T &counter=0xADDR
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

#define NOINLINE __attribute__((noinline, used))

struct config {
	int level;
	const char *name;
	long limits[3];
};

struct tstate {
	int req_id;
	char tag[12];
};

long uv_counter = 40;
struct config uv_config = { .level = 3, .name = "cfg-name", .limits = { 10, 20, 30 } };
struct config *uv_cfgp = &uv_config;
__thread int uv_tls_id;
__thread struct tstate uv_tls_state;
volatile long uv_sink;

/* The probe: what it reads is the program's, not its arguments'. */
NOINLINE long uv_work(long arg)
{
	/* The same, as a USDT probe (vm/91-uvars.sh): uvars:work(arg0 = arg). */
	DTRACE_PROBE1(uvars, work, arg);
	uv_sink += arg + uv_tls_id + uv_tls_state.req_id;
	return arg * 2;
}

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void call(long arg)
{
	pthread_mutex_lock(&print_lock);
	printf("call %ld counter=%ld cfg.level=%d cfg.name=%s cfg.lim2=%ld tls.id=%d tls.req=%d tls.tag=%s &counter=%p\n",
	       arg, uv_counter, uv_config.level, uv_config.name, uv_cfgp->limits[2], uv_tls_id,
	       uv_tls_state.req_id, uv_tls_state.tag, (void *)&uv_counter);
	fflush(stdout);
	uv_work(arg);
	pthread_mutex_unlock(&print_lock);
}

static void *thread_main(void *arg)
{
	long i = (long)arg;

	uv_tls_id = 100 + (int)i;
	uv_tls_state.req_id = 7 * (int)i;
	snprintf(uv_tls_state.tag, sizeof(uv_tls_state.tag), "thr-%ld", i);
	call(i);
	return NULL;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 1;
	pthread_t t[3];
	long i;

	uv_tls_id = 100;
	snprintf(uv_tls_state.tag, sizeof(uv_tls_state.tag), "main");
	for (; rounds > 0; rounds--) {
		uv_counter++;
		uv_config.level++;
		uv_config.limits[2] += 5;
		call(0);
		for (i = 0; i < 3; i++)
			pthread_create(&t[i], NULL, thread_main, (void *)(i + 1));
		for (i = 0; i < 3; i++)
			pthread_join(t[i], NULL);
	}
	return 0;
}
