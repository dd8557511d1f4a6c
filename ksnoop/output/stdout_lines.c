// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Standard output in whole lines (stdout_lines.h): a fopencookie() stream
 * whose bytes wait in PENDING until a line ends, then go out in writes
 * that end at a line's end.  A line longer than a write may be (PIPE_BUF
 * on pipes, terminals and sockets) goes in pieces; one longer than
 * PENDING goes out without waiting for its end.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "stdout_lines.h"
#include "stop.h"

/* Bytes waiting for their line's end: larger than any record's line but the rarest. */
#define PENDING_BYTES	(64 * 1024)
/* How long a wait for room on a descriptor that was non-blocking already looks at the stop flag. */
#define ROOM_POLL_MS	100

struct line_sink {
	int fd;
	size_t max_write;	/* PIPE_BUF, or PENDING_BYTES for a regular file */
	bool dropped;
	size_t npending;
	char pending[PENDING_BYTES];
};

static struct line_sink sink;

/* Room for a write now (forced: no wait), or after waiting (bounded steps, to see the flag). */
static bool room_for_write(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & (POLLOUT | POLLERR | POLLHUP));
}

/* N bytes of whole lines at P: 0 (written, or dropped after a forced stop) or -1 with errno. */
static int put_piece(struct line_sink *s, const char *p, size_t n)
{
	while (n) {
		ssize_t k;

		if (stop__forced() && !room_for_write(s->fd, 0)) {
			s->dropped = true;
			return 0;
		}
		k = write(s->fd, p, n);
		if (k > 0) {
			p += k;
			n -= k;
		} else if (k < 0 && errno == EAGAIN && !stop__forced()) {
			/* Non-blocking already when we got it: wait as a blocking write would. */
			room_for_write(s->fd, ROOM_POLL_MS);
		} else if (k < 0 && errno == EAGAIN) {
			s->dropped = true;
			return 0;
		} else if (!(k < 0 && errno == EINTR)) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
	}
	return 0;
}

/* The first N pending bytes, in writes of at most max_write that end at a line's end where one fits. */
static int put_lines(struct line_sink *s, size_t n)
{
	const char *p = s->pending;

	while (n) {
		size_t len = n < s->max_write ? n : s->max_write;
		const char *nl;

		if (len < n && (nl = memrchr(p, '\n', len)))
			len = nl + 1 - p;
		if (put_piece(s, p, len))
			return -1;
		p += len;
		n -= len;
	}
	return 0;
}

/* What pending holds up to its last line's end (everything, with ALL). */
static int flush_pending(struct line_sink *s, bool all)
{
	const char *nl = memrchr(s->pending, '\n', s->npending);
	size_t n = all ? s->npending : nl ? (size_t)(nl + 1 - s->pending) : 0;
	int err = put_lines(s, n);

	memmove(s->pending, s->pending + n, s->npending - n);
	s->npending -= n;
	return err;
}

/* stdio's buffer: as cookie_write_function_t, SIZE or 0 on an error (errno). */
static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct line_sink *s = cookie;
	size_t done = 0;

	while (done < size) {
		size_t n = size - done;

		if (n > sizeof(s->pending) - s->npending)
			n = sizeof(s->pending) - s->npending;
		memcpy(s->pending + s->npending, buf + done, n);
		s->npending += n;
		done += n;
		if (flush_pending(s, s->npending == sizeof(s->pending)))
			return 0;
	}
	return size;
}

/* The end: a last line without its newline goes too. */
static int sink_close(void *cookie)
{
	return flush_pending(cookie, true);
}

void stdout_lines__end(void)
{
	fflush(stdout);
	if (sink.npending)
		flush_pending(&sink, true);
}

void stdout_lines__install(void)
{
	cookie_io_functions_t io = { .write = sink_write, .close = sink_close };
	struct stat st;
	FILE *f;

	sink.fd = STDOUT_FILENO;
	sink.max_write = fstat(sink.fd, &st) == 0 && S_ISREG(st.st_mode) ? PENDING_BYTES : PIPE_BUF;
	f = fopencookie(&sink, "w", io);
	if (!f)
		return;
	/* A terminal sees each line as it is printed, as stdio would show it. */
	if (isatty(sink.fd))
		setvbuf(f, NULL, _IOLBF, 0);
	stdout = f;
}

bool stdout_lines__dropped(void)
{
	return sink.dropped;
}
