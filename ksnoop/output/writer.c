// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "obuf.h"
#include "writer.h"

/*
 * Events are printed at hundreds of thousands a second, a few dozen
 * writer calls each: everything goes to the writer's obuf (obuf.h), each
 * separator, indent and key in one piece, and from there to OUT in one
 * fwrite() when the outermost container closes (or a scalar outside any
 * container is written): a value is never interleaved with another
 * thread's line, and whoever writes to OUT between two values finds
 * nothing of the writer's still buffered.
 */
static void done_outer(struct writer *w)
{
	if (w->depth == 0)
		obuf__flush(&w->ob);
}

void writer__flush(struct writer *w)
{
	obuf__flush(&w->ob);
}

struct obuf *writer__obuf(struct writer *w)
{
	return &w->ob;
}

static void put(struct writer *w, const char *s, size_t n)
{
	obuf__write(&w->ob, s, n);
}

#define INDENT_WIDTH 4
/* A container's indent is kept at most this deep; with a separator, a key's prefix fits a piece. */
#define MAX_INDENT	WRITER_MAX_DEPTH
#define KEY_PREFIX_MAX	(4 + (MAX_INDENT + 1) * INDENT_WIDTH)
_Static_assert(KEY_PREFIX_MAX + 3 < OBUF_MAX_PIECE, "a key's separators and indent fit a piece");

/* LEVEL indents at Q (LEVEL <= MAX_INDENT + 1). */
static char *put_indent(char *q, int level)
{
	memset(q, ' ', level * INDENT_WIDTH);
	return q + level * INDENT_WIDTH;
}

void writer__set_oneline(struct writer *w, bool oneline)
{
	w->oneline = oneline && !w->json;
}

static void indent(struct writer *w, int level)
{
	char *q = obuf__room(&w->ob, level * INDENT_WIDTH);

	obuf__commit(&w->ob, put_indent(q, level));
}

char *writer__fmt_u64(char *end, __u64 v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";

	while (v >= 100) {
		const char *d = pairs + 2 * (v % 100);

		v /= 100;
		*--end = d[1];
		*--end = d[0];
	}
	if (v >= 10) {
		*--end = pairs[2 * v + 1];
		*--end = pairs[2 * v];
	} else {
		*--end = '0' + v;
	}
	return end;
}

void writer__init(struct writer *w, FILE *out, bool json)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->json = json;
	w->ob = (struct obuf)OBUF_INIT(out, w->buf);
}

/*
 * What goes before a value: in an array, the separator (and in text rows,
 * the line break); in an object, writer__key() has placed it already.
 */
static void begin_item(struct writer *w)
{
	struct writer_level *c;

	if (w->depth == 0 || w->depth > WRITER_MAX_DEPTH)
		return;
	c = &w->open[w->depth - 1];
	if (!c->is_array)
		return;
	if (w->json) {
		if (c->items)
			obuf__putc(&w->ob, ',');
	} else if (c->style == WRITER_ROWS && !w->oneline) {
		char *q = obuf__room(&w->ob, 2 + (c->indent + 1) * INDENT_WIDTH);

		if (c->items)
			*q++ = ',';
		*q++ = '\n';
		obuf__commit(&w->ob, put_indent(q, c->indent + 1));
	} else if (c->items) {
		put(w, ", ", 2);
	}
	c->items++;
}

/* Open a container; past WRITER_MAX_DEPTH only the count is kept. */
static void push(struct writer *w, bool is_array, enum writer_style style, int level)
{
	if (w->depth < WRITER_MAX_DEPTH) {
		w->open[w->depth].is_array = is_array;
		w->open[w->depth].style = style;
		w->open[w->depth].indent = level < 0 ? 0 : level > MAX_INDENT ? MAX_INDENT : level;
		w->open[w->depth].items = 0;
	}
	w->depth++;
}

void writer__begin_object(struct writer *w, enum writer_style style, int level)
{
	begin_item(w);
	push(w, false, style, level);
	if (w->json || style != WRITER_LINES)
		obuf__putc(&w->ob, '{');
}

/* Close the innermost container: the one to finish, or NULL past the depth. */
static struct writer_level *pop(struct writer *w)
{
	if (w->depth == 0)
		return NULL;
	if (w->depth-- > WRITER_MAX_DEPTH)
		return NULL;
	return &w->open[w->depth];
}

void writer__end_object(struct writer *w)
{
	struct writer_level *c = pop(w);

	if (!c)
		return;
	if (w->json) {
		obuf__putc(&w->ob, '}');
	} else if (c->style == WRITER_LINES) {
		/* One line: its header went before it, without a line break. */
		if (c->items || w->oneline)
			obuf__putc(&w->ob, '\n');
	} else if (w->oneline) {
		obuf__putc(&w->ob, '}');
	} else {
		char *q = obuf__room(&w->ob, 3 + c->indent * INDENT_WIDTH);

		if (c->items) {
			*q++ = ',';
			*q++ = '\n';
			q = put_indent(q, c->indent);
		}
		*q++ = '}';
		obuf__commit(&w->ob, q);
	}
	done_outer(w);
}

void writer__begin_array(struct writer *w, enum writer_style style, int level)
{
	begin_item(w);
	push(w, true, style, level);
	obuf__putc(&w->ob, '[');
}

void writer__end_array(struct writer *w)
{
	struct writer_level *c = pop(w);

	if (!c)
		return;
	if (!w->json && !w->oneline && c->style == WRITER_ROWS && c->items) {
		obuf__putc(&w->ob, '\n');
		indent(w, c->indent);
	}
	obuf__putc(&w->ob, ']');
	done_outer(w);
}

void writer__key(struct writer *w, const char *name)
{
	writer__key_n(w, name, strlen(name));
}

/*
 * What goes before a key: the separator, and in text the line break and
 * indent (".", inside a struct): at most KEY_PREFIX_MAX bytes.
 */
static char *key_prefix(const struct writer *w, const struct writer_level *c, char *q)
{
	if (w->json) {
		if (c->items)
			*q++ = ',';
		return q;
	}
	if (w->oneline) {
		if (c->style == WRITER_LINES) {
			*q++ = ' ';
			return q;
		}
		if (c->items) {
			*q++ = ',';
			*q++ = ' ';
		}
		*q++ = '.';
		return q;
	}
	if (c->items && c->style != WRITER_LINES)
		*q++ = ',';
	if (c->items || c->style != WRITER_LINES)
		*q++ = '\n';
	q = put_indent(q, c->indent + 1);
	if (c->style != WRITER_LINES)
		*q++ = '.';
	return q;
}

/* NAME as a key: escaped here, or (ESCAPED) by writer__escape_name() already. */
static void key(struct writer *w, const char *name, size_t len, bool escaped)
{
	size_t pre = KEY_PREFIX_MAX;
	struct writer_level *c;
	char *q;

	if (w->depth == 0 || w->depth > WRITER_MAX_DEPTH)
		return;
	c = &w->open[w->depth - 1];
	if (escaped && len <= OBUF_MAX_PIECE - pre - 3) {
		/* The common case, one piece: a struct member's name, cached. */
		q = key_prefix(w, c, obuf__room(&w->ob, pre + len + 3));
		memcpy(q, name, len);
		q += len;
		if (w->json) {
			*q++ = ':';
		} else if (w->oneline) {
			*q++ = '=';
		} else {
			*q++ = ' ';
			*q++ = '=';
			*q++ = ' ';
		}
		obuf__commit(&w->ob, q);
		c->items++;
		return;
	}
	obuf__commit(&w->ob, key_prefix(w, c, obuf__room(&w->ob, pre)));
	if (escaped)
		put(w, name, len);
	else if (w->json)
		json_escape(&w->ob, name, len);
	else
		text_escape(&w->ob, name, len);
	if (w->json)
		obuf__putc(&w->ob, ':');
	else if (w->oneline)
		obuf__putc(&w->ob, '=');
	else
		put(w, " = ", 3);
	c->items++;
}

void writer__key_n(struct writer *w, const char *name, size_t len)
{
	key(w, name, len, false);
}

void writer__key_escaped(struct writer *w, const char *escaped, size_t len)
{
	key(w, escaped, len, true);
}

char *writer__escape_name(const struct writer *w, const char *name, size_t *len)
{
	char *buf = NULL, piece[OBUF_MAX_PIECE];
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);
	struct obuf b = OBUF_INIT(f, piece);

	if (!f)
		return NULL;
	if (w->json)
		json_escape(&b, name, strlen(name));
	else
		text_escape(&b, name, strlen(name));
	obuf__flush(&b);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	*len = sz;
	return buf;
}

/* A scalar: written whole. */
static void scalar(struct writer *w, const char *s, size_t n)
{
	begin_item(w);
	put(w, s, n);
	done_outer(w);
}

void writer__string(struct writer *w, const char *s, size_t n)
{
	begin_item(w);
	if (w->json)
		json_escape(&w->ob, s, n);
	else
		text_quote(&w->ob, s, n);
	done_outer(w);
}

void writer__name(struct writer *w, const char *s)
{
	begin_item(w);
	if (w->json)
		json_escape(&w->ob, s, strlen(s));
	else
		text_escape(&w->ob, s, strlen(s));
	done_outer(w);
}

void writer__int(struct writer *w, __s64 v)
{
	char buf[24], *end = buf + sizeof(buf), *p;

	p = writer__fmt_u64(end, v < 0 ? -(__u64)v : (__u64)v);
	if (v < 0)
		*--p = '-';
	scalar(w, p, end - p);
}

void writer__uint(struct writer *w, __u64 v)
{
	char buf[24], *end = buf + sizeof(buf), *p = writer__fmt_u64(end, v);

	scalar(w, p, end - p);
}

char *writer__fmt_hex(char *end, __u64 v)
{
	static const char digits[] = "0123456789abcdef";

	do {
		*--end = digits[v & 0xf];
		v >>= 4;
	} while (v);
	*--end = 'x';
	*--end = '0';
	return end;
}

void writer__hex(struct writer *w, __u64 v)
{
	char buf[24], *end = buf + sizeof(buf), *p = end;

	if (w->json)
		*--p = '"';
	p = writer__fmt_hex(p, v);
	if (w->json)
		*--p = '"';
	scalar(w, p, end - p);
}

void writer__bool(struct writer *w, bool v)
{
	scalar(w, v ? "true" : "false", v ? 4 : 5);
}

void writer__null(struct writer *w, const char *text)
{
	const char *s = w->json ? "null" : text;

	scalar(w, s, strlen(s));
}

void writer__raw(struct writer *w, const char *text, const char *json)
{
	const char *s = w->json ? (json ? json : "null") : text;

	scalar(w, s, strlen(s));
}

void writer__comment(struct writer *w, const char *fmt, ...)
{
	char text[OBUF_MAX_PIECE];
	va_list ap;
	int n;

	if (w->json)
		return;
	va_start(ap, fmt);
	n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	put(w, " /* ", 4);
	put(w, text, (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1);
	put(w, " */", 3);
	done_outer(w);
}

void writer__text(struct writer *w, const char *s)
{
	if (!w->json) {
		put(w, s, strlen(s));
		done_outer(w);
	}
}

void writer__ellipsis(struct writer *w)
{
	const struct writer_level *c;

	if (w->json)
		return;
	c = w->depth > 0 && w->depth <= WRITER_MAX_DEPTH ? &w->open[w->depth - 1] : NULL;
	if (c && c->items)
		put(w, " ...", 4);
	else
		put(w, "...", 3);
	done_outer(w);
}
