// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "writer.h"

/*
 * Events are printed at hundreds of thousands a second, a few dozen
 * writer calls each: the writer takes OUT's lock once, when its outermost
 * container opens, and keeps it until that closes (a value is never
 * interleaved with another thread's line), and writes with the _unlocked
 * stdio calls in between.  A scalar written outside any container takes
 * the lock for itself.
 */
static void lock_outer(struct writer *w)
{
	if (w->depth == 0)
		flockfile(w->out);
}

static void unlock_outer(struct writer *w)
{
	if (w->depth == 0)
		funlockfile(w->out);
}

/* Most of what the writer puts is a few bytes: those go a byte at a time (a macro). */
static void put(struct writer *w, const char *s, size_t n)
{
	if (n > 16) {
		fwrite_unlocked(s, 1, n, w->out);
		return;
	}
	while (n--)
		putc_unlocked(*s++, w->out);
}

#define INDENT_WIDTH 4

static void indent(struct writer *w, int level)
{
	static const char spaces[] = "                                                                ";

	for (level *= INDENT_WIDTH; level > 0; level -= sizeof(spaces) - 1)
		put(w, spaces, level < (int)sizeof(spaces) - 1 ? level : (int)sizeof(spaces) - 1);
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
			putc_unlocked(',', w->out);
	} else if (c->style == WRITER_ROWS) {
		if (c->items)
			putc_unlocked(',', w->out);
		putc_unlocked('\n', w->out);
		indent(w, c->indent + 1);
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
		w->open[w->depth].indent = level;
		w->open[w->depth].items = 0;
	}
	w->depth++;
}

void writer__begin_object(struct writer *w, enum writer_style style, int level)
{
	lock_outer(w);
	begin_item(w);
	push(w, false, style, level);
	if (w->json || style != WRITER_LINES)
		putc_unlocked('{', w->out);
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
		putc_unlocked('}', w->out);
	} else if (c->style == WRITER_LINES) {
		if (c->items)
			putc_unlocked('\n', w->out);
	} else {
		if (c->items) {
			put(w, ",\n", 2);
			indent(w, c->indent);
		}
		putc_unlocked('}', w->out);
	}
	unlock_outer(w);
}

void writer__begin_array(struct writer *w, enum writer_style style, int level)
{
	lock_outer(w);
	begin_item(w);
	push(w, true, style, level);
	putc_unlocked('[', w->out);
}

void writer__end_array(struct writer *w)
{
	struct writer_level *c = pop(w);

	if (!c)
		return;
	if (!w->json && c->style == WRITER_ROWS && c->items) {
		putc_unlocked('\n', w->out);
		indent(w, c->indent);
	}
	putc_unlocked(']', w->out);
	unlock_outer(w);
}

void writer__key(struct writer *w, const char *name)
{
	writer__key_n(w, name, strlen(name));
}

/* NAME as a key: escaped here, or (ESCAPED) by writer__escape_name() already. */
static void key(struct writer *w, const char *name, size_t len, bool escaped)
{
	struct writer_level *c;

	if (w->depth == 0 || w->depth > WRITER_MAX_DEPTH)
		return;
	c = &w->open[w->depth - 1];
	if (w->json) {
		if (c->items)
			putc_unlocked(',', w->out);
	} else {
		if (c->items && c->style != WRITER_LINES)
			putc_unlocked(',', w->out);
		if (c->items || c->style != WRITER_LINES)
			putc_unlocked('\n', w->out);
		indent(w, c->indent + 1);
		if (c->style != WRITER_LINES)
			putc_unlocked('.', w->out);
	}
	if (escaped)
		put(w, name, len);
	else if (w->json)
		json_write_string(w->out, name, len);
	else
		text_write_escaped(w->out, name, len);
	if (w->json)
		putc_unlocked(':', w->out);
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
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		return NULL;
	if (w->json)
		json_write_string(f, name, strlen(name));
	else
		text_write_escaped(f, name, strlen(name));
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	*len = sz;
	return buf;
}

/* A scalar: written whole, under OUT's lock (held already inside a container). */
static void scalar(struct writer *w, const char *s, size_t n)
{
	lock_outer(w);
	begin_item(w);
	put(w, s, n);
	unlock_outer(w);
}

void writer__string(struct writer *w, const char *s, size_t n)
{
	lock_outer(w);
	begin_item(w);
	if (w->json)
		json_write_string(w->out, s, n);
	else
		text_write_quoted(w->out, s, n);
	unlock_outer(w);
}

void writer__name(struct writer *w, const char *s)
{
	lock_outer(w);
	begin_item(w);
	if (w->json)
		json_write_string(w->out, s, strlen(s));
	else
		text_write_escaped(w->out, s, strlen(s));
	unlock_outer(w);
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
	va_list ap;

	if (w->json)
		return;
	fputs(" /* ", w->out);
	va_start(ap, fmt);
	vfprintf(w->out, fmt, ap);
	va_end(ap);
	fputs(" */", w->out);
}

void writer__text(struct writer *w, const char *s)
{
	if (!w->json)
		fputs(s, w->out);
}
