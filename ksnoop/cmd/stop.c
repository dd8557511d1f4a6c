// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The stop flag (stop.h).
 *
 * SA_RESTART matters: without it a write to a slow reader (a pipe into
 * less, a terminal under flow control) fails with EINTR when Ctrl-C
 * arrives, stdio drops what it had buffered, and the output ends in the
 * middle of a record.  Waits that must notice the signal (epoll_wait in
 * ring_buffer__poll, poll) are never restarted by the kernel, SA_RESTART
 * or not.  So the first signal lets a write to a reader that is not
 * reading wait for it: what was printed still comes out whole.
 *
 * Two signals delivered together are one request.  timeout(1) without
 * --foreground sends its signal to ksnoop and then to ksnoop's whole
 * process group, microseconds apart; the handler of the first may have
 * run by the time the copy comes.  The handler used to be reset after its
 * first run (SA_RESETHAND), and the copy killed ksnoop in the middle of a
 * record, with no summary, in half the runs (issue 49).
 *
 * A second request (a later signal, or another one) must not wait for the
 * reader any longer: the handler makes standard output non-blocking, so
 * the write waiting now returns EAGAIN (the kernel restarts it, and it
 * finds the flag).  Standard output goes out in whole lines of at most
 * PIPE_BUF bytes (stdout_lines.h), and a pipe takes such a write whole or
 * not at all: what could not go is dropped whole, never cut.  The file
 * description is shared with whoever handed it to us (the shell): its
 * flags are put back at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "stop.h"

/*
 * The same signal again within this time is the same request: timeout's
 * two copies come microseconds apart, a few milliseconds when the machine
 * is loaded; a person's second Ctrl-C comes later than this.
 */
#define STOP_SAME_NS	(250 * 1000000LL)

enum { STOP_NONE, STOP_ASKED, STOP_FORCED };

static volatile sig_atomic_t stop_state;
static int first_sig;
static struct timespec first_at;
/* Standard output's file status flags at start (-1: unknown), and whether the handler changed them. */
static int out_flags = -1;
static volatile sig_atomic_t out_changed;

static long long ns_since(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000000000LL + (b->tv_nsec - a->tv_nsec);
}

/* A write waiting for the reader returns now; writes from now on do not wait. */
static void output_nonblocking(void)
{
	if (out_flags < 0 || (out_flags & O_NONBLOCK))
		return;
	if (fcntl(STDOUT_FILENO, F_SETFL, out_flags | O_NONBLOCK) == 0)
		out_changed = 1;
}

/* SIGINT and SIGTERM block each other while it runs (sa_mask): never re-entered. */
static void on_signal(int sig)
{
	int saved_errno = errno;
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (stop_state == STOP_NONE) {
		first_sig = sig;
		first_at = now;
		stop_state = STOP_ASKED;
	} else if (stop_state == STOP_ASKED &&
		   (sig != first_sig || ns_since(&first_at, &now) >= STOP_SAME_NS)) {
		output_nonblocking();
		stop_state = STOP_FORCED;
	}
	errno = saved_errno;
}

void stop__restore_output(void)
{
	if (out_changed) {
		fcntl(STDOUT_FILENO, F_SETFL, out_flags);
		out_changed = 0;
	}
}

void stop__install(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	out_flags = fcntl(STDOUT_FILENO, F_GETFL);
	atexit(stop__restore_output);
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool stop__requested(void)
{
	return stop_state != STOP_NONE;
}

bool stop__forced(void)
{
	return stop_state == STOP_FORCED;
}

int stop__thread_create(pthread_t *thread, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;
	int err;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(thread, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err;
}
