// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "obuf.h"

void obuf__flush(struct obuf *b)
{
	if (b->len)
		fwrite(b->buf, 1, b->len, b->out);
	b->len = 0;
}

void obuf__write_slow(struct obuf *b, const void *s, size_t n)
{
	obuf__flush(b);
	if (n < b->cap) {
		memcpy(b->buf, s, n);
		b->len = n;
	} else {
		fwrite(s, 1, n, b->out);
	}
}
