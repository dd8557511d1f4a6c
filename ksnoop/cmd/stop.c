// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The stop flag (stop.h).  SA_RESTART matters: without it a write to a
 * slow reader (a pipe into less, a terminal under flow control) fails with
 * EINTR when Ctrl-C arrives, stdio drops what it had buffered, and the
 * output ends in the middle of a record.  Waits that must notice the
 * signal (epoll_wait in ring_buffer__poll, poll) are never restarted by the
 * kernel, SA_RESTART or not.  The price: a reader that never reads keeps
 * that write waiting, so each handler runs once (SA_RESETHAND) and a
 * second Ctrl-C ends ksnoop at once; its links and programs are file
 * descriptors, released by the kernel all the same.
 */
#include <signal.h>
#include "stop.h"

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

void stop__install(void)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART | SA_RESETHAND };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

bool stop__requested(void)
{
	return stop_flag;
}
