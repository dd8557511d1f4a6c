/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * SIGINT and SIGTERM ask ksnoop to stop.  The handlers are installed before
 * anything else runs, so a Ctrl-C while specs are resolved, programs load
 * or probes attach is never lost; every long phase (resolving globs,
 * loading, attaching, the event loop, draining) asks stop__requested() and
 * ends cleanly, leaving nothing attached.
 */
#ifndef KSNOOP_STOP_H
#define KSNOOP_STOP_H

#include <pthread.h>
#include <stdbool.h>

/*
 * SIGINT/SIGTERM set the flag (SA_RESTART: a write to stdout is not cut);
 * the same signal again within 250 ms is the same request (timeout(1)
 * sends it to ksnoop, then to its process group).  A later second signal
 * forces the stop: standard output stops waiting for its reader
 * (stop__forced()).  SIGPIPE ignored.  Standard output's flags are put
 * back at exit.
 */
void stop__install(void);
bool stop__requested(void);
/* A second request came: do not wait for standard output's reader. */
bool stop__forced(void);
/* Standard output blocking again, as it came (at exit; idempotent). */
void stop__restore_output(void);
/*
 * pthread_create() of a helper thread that never takes these signals:
 * they stay the main thread's, whose waits they must interrupt.
 */
int stop__thread_create(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
