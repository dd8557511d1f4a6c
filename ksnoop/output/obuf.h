/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * An output buffer in front of a FILE.  The printer writes hundreds of
 * thousands of events a second, each a few dozen pieces of a few bytes;
 * stdio's putc_unlocked() reloads the FILE's pointers after every byte it
 * stores (a char store may alias them), which was a third of printing a
 * struct.  Here a piece is sized first (obuf__room()), written through a
 * local pointer, and committed once (obuf__commit()); the buffer goes to
 * the FILE in one fwrite() when it fills or is flushed.
 */
#ifndef KSNOOP_OBUF_H
#define KSNOOP_OBUF_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Pieces obuf__room() can always give room for: the rest go through obuf__write(). */
#define OBUF_MAX_PIECE	256

struct obuf {
	FILE *out;
	char *buf;
	size_t len;
	size_t cap;		/* at least OBUF_MAX_PIECE */
};

/* An obuf over BUF (an array of at least OBUF_MAX_PIECE bytes) for OUT. */
#define OBUF_INIT(out_, buf_) { .out = (out_), .buf = (buf_), .len = 0, .cap = sizeof(buf_) }

/* What is buffered to the FILE (one fwrite, under the FILE's lock). */
void obuf__flush(struct obuf *b);
/* N bytes at S, of any length. */
void obuf__write_slow(struct obuf *b, const void *s, size_t n);

/* Room for N <= OBUF_MAX_PIECE bytes: where to write them. */
static inline char *obuf__room(struct obuf *b, size_t n)
{
	if (b->cap - b->len < n)
		obuf__flush(b);
	return b->buf + b->len;
}

/* What was written at obuf__room()'s pointer, up to END, is the buffer's. */
static inline void obuf__commit(struct obuf *b, char *end)
{
	b->len = end - b->buf;
}

static inline void obuf__write(struct obuf *b, const void *s, size_t n)
{
	if (n <= b->cap - b->len) {
		memcpy(b->buf + b->len, s, n);
		b->len += n;
	} else {
		obuf__write_slow(b, s, n);
	}
}

static inline void obuf__putc(struct obuf *b, char c)
{
	if (b->len == b->cap)
		obuf__flush(b);
	b->buf[b->len++] = c;
}

#endif
