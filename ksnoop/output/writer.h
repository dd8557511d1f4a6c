/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The output writer: objects, keys, arrays and scalars, written as JSON or
 * as ksnoop's C-like text.  It places separators, line breaks, indentation
 * and escaping itself, so a printer says what it writes, not how:
 *
 *   JSON   {"len":84,"dev":{"name":"lo"},"cb":[1,2]}
 *   text   {                      (WRITER_STRUCT: a C initializer)
 *              .len = 84,
 *              .dev = {
 *                  .name = "lo",
 *              },
 *              .cb = [1, 2],
 *          }
 *          len = 84               (WRITER_LINES: one "key = value" a line,
 *                                  how an event lists its values)
 *
 * Every string goes through one of the two escapers (escape.h): nothing
 * from outside reaches the terminal raw.
 */
#ifndef KSNOOP_WRITER_H
#define KSNOOP_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "obuf.h"

/* Containers nested in one output: BTF's own limit, and the event around it. */
#define WRITER_MAX_DEPTH	40

enum writer_style {
	WRITER_STRUCT,		/* text: "{ .key = value, ... }" / "[a, b]" */
	WRITER_LINES,		/* text: "key = value" lines (objects only) */
	WRITER_ROWS,		/* text: "[\n  {...},\n  {...}\n]" (arrays only) */
};

/* One open container. */
struct writer_level {
	bool is_array;
	enum writer_style style;
	int indent;		/* text: the container's own indent level */
	int items;		/* written so far */
};

/* What the writer gathers before it goes to its FILE: an event, mostly. */
#define WRITER_BUF_SIZE	8192

struct writer {
	FILE *out;
	bool json;
	int depth;		/* open containers */
	struct writer_level open[WRITER_MAX_DEPTH];
	/*
	 * Text on one line (--oneline): no line breaks or indents, ", "
	 * between members, "key=value" (writer__set_oneline()).
	 */
	bool oneline;
	struct obuf ob;		/* over buf; flushed when depth is back to 0 */
	char buf[WRITER_BUF_SIZE];
};

/* W writes to OUT; W must not be copied (its obuf points into it). */
void writer__init(struct writer *w, FILE *out, bool json);
/*
 * The writer's buffer, for a caller that puts a piece of its own before
 * the next value (the printer's header line); it goes out with that value.
 */
struct obuf *writer__obuf(struct writer *w);
/*
 * Text: everything on one line, "{.len=84, .dev={...}}", and a
 * WRITER_LINES object as " key=value" after what its caller wrote, the
 * line ended when it closes.  JSON is one line already: no change.
 */
void writer__set_oneline(struct writer *w, bool oneline);
/*
 * Text only: "..." where a container's members were left out (after the
 * last one written: " ...", "{.len=84 ...}"); nothing in JSON.
 */
void writer__ellipsis(struct writer *w);
/* Whatever is buffered, to the FILE now. */
void writer__flush(struct writer *w);

/*
 * Containers.  INDENT is the text indent level of the container's closing
 * line (its members are one level deeper); JSON ignores styles and indents.
 */
void writer__begin_object(struct writer *w, enum writer_style style, int indent);
void writer__end_object(struct writer *w);
void writer__begin_array(struct writer *w, enum writer_style style, int indent);
void writer__end_array(struct writer *w);

/* The next member's name (JSON: a key; text: ".name = " or "name = "). */
void writer__key(struct writer *w, const char *name);
/* The same with NAME's length known. */
void writer__key_n(struct writer *w, const char *name, size_t len);
/*
 * A name escaped once for W's format (JSON: quoted), to be written as a key
 * many times with writer__key_escaped(): the printer keeps struct members'
 * names so.  Malloc'd, its length in *LEN; NULL when out of memory.
 */
char *writer__escape_name(const struct writer *w, const char *name, size_t *len);
void writer__key_escaped(struct writer *w, const char *escaped, size_t len);

/* Scalars. */
void writer__string(struct writer *w, const char *s, size_t n);	/* quoted */
void writer__name(struct writer *w, const char *s);	/* JSON string, bare text */
void writer__int(struct writer *w, __s64 v);
void writer__uint(struct writer *w, __u64 v);
void writer__hex(struct writer *w, __u64 v);		/* JSON: "0x..." */
void writer__bool(struct writer *w, bool v);
/* No value: JSON null, and TEXT (NULL, void, a comment) in text. */
void writer__null(struct writer *w, const char *text);
/* Already formatted: TEXT in text, JSON in JSON (NULL: null). */
void writer__raw(struct writer *w, const char *text, const char *json);

/*
 * V in decimal, or in hex with "0x", written backwards to end at END: the
 * digits start at the pointer returned (at most 20 and 18 characters).
 * For the hot paths that cannot afford printf.
 */
char *writer__fmt_u64(char *end, __u64 v);
char *writer__fmt_hex(char *end, __u64 v);

/* Text only: a C comment after a value ("0x10 <comment>"); nothing in JSON. */
void writer__comment(struct writer *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Text only: bare text (a header, a prefix); nothing in JSON. */
void writer__text(struct writer *w, const char *s);

#endif
