// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <string.h>
#include "escape.h"
#include "writer.h"

#define INDENT "    "

static void indent(FILE *out, int level)
{
	while (level-- > 0)
		fputs(INDENT, out);
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
			fputc(',', w->out);
	} else if (c->style == WRITER_ROWS) {
		if (c->items)
			fputc(',', w->out);
		fputc('\n', w->out);
		indent(w->out, c->indent + 1);
	} else if (c->items) {
		fputs(", ", w->out);
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
	begin_item(w);
	push(w, false, style, level);
	if (w->json || style != WRITER_LINES)
		fputc('{', w->out);
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
		fputc('}', w->out);
	} else if (c->style == WRITER_LINES) {
		if (c->items)
			fputc('\n', w->out);
	} else {
		if (c->items) {
			fputs(",\n", w->out);
			indent(w->out, c->indent);
		}
		fputc('}', w->out);
	}
}

void writer__begin_array(struct writer *w, enum writer_style style, int level)
{
	begin_item(w);
	push(w, true, style, level);
	fputc('[', w->out);
}

void writer__end_array(struct writer *w)
{
	struct writer_level *c = pop(w);

	if (!c)
		return;
	if (!w->json && c->style == WRITER_ROWS && c->items) {
		fputc('\n', w->out);
		indent(w->out, c->indent);
	}
	fputc(']', w->out);
}

void writer__key(struct writer *w, const char *name)
{
	struct writer_level *c;

	if (w->depth == 0 || w->depth > WRITER_MAX_DEPTH)
		return;
	c = &w->open[w->depth - 1];
	if (w->json) {
		if (c->items)
			fputc(',', w->out);
		json_write_string(w->out, name, strlen(name));
		fputc(':', w->out);
	} else if (c->style == WRITER_LINES) {
		if (c->items)
			fputc('\n', w->out);
		indent(w->out, c->indent + 1);
		text_write_escaped(w->out, name, strlen(name));
		fputs(" = ", w->out);
	} else {
		if (c->items)
			fputc(',', w->out);
		fputc('\n', w->out);
		indent(w->out, c->indent + 1);
		fputc('.', w->out);
		text_write_escaped(w->out, name, strlen(name));
		fputs(" = ", w->out);
	}
	c->items++;
}

void writer__string(struct writer *w, const char *s, size_t n)
{
	begin_item(w);
	if (w->json)
		json_write_string(w->out, s, n);
	else
		text_write_quoted(w->out, s, n);
}

void writer__name(struct writer *w, const char *s)
{
	begin_item(w);
	if (w->json)
		json_write_string(w->out, s, strlen(s));
	else
		text_write_escaped(w->out, s, strlen(s));
}

void writer__int(struct writer *w, __s64 v)
{
	begin_item(w);
	fprintf(w->out, "%lld", (long long)v);
}

void writer__uint(struct writer *w, __u64 v)
{
	begin_item(w);
	fprintf(w->out, "%llu", (unsigned long long)v);
}

void writer__hex(struct writer *w, __u64 v)
{
	begin_item(w);
	fprintf(w->out, w->json ? "\"0x%llx\"" : "0x%llx", (unsigned long long)v);
}

void writer__bool(struct writer *w, bool v)
{
	begin_item(w);
	fputs(v ? "true" : "false", w->out);
}

void writer__null(struct writer *w, const char *text)
{
	begin_item(w);
	fputs(w->json ? "null" : text, w->out);
}

void writer__raw(struct writer *w, const char *text, const char *json)
{
	begin_item(w);
	fputs(w->json ? (json ? json : "null") : text, w->out);
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
