/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The two escapers every byte from outside (traced memory, comm, ELF, BTF
 * names, paths) goes through; escape.c says what each lets pass.
 */
#ifndef KSNOOP_ESCAPE_H
#define KSNOOP_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "obuf.h"

/* The escapers, into an obuf (the writer's). */
void json_escape(struct obuf *b, const char *s, size_t n);	/* quoted */
void text_escape(struct obuf *b, const char *s, size_t n);	/* unquoted */
void text_quote(struct obuf *b, const char *s, size_t n);	/* in "..." */

/*
 * Whether S (N bytes) may go to a terminal as it is: printable ASCII and
 * well-formed UTF-8 but no control (C0, DEL, C1), line separator or bidi
 * control.  For names printed raw where an escape would change them
 * (completion candidates).
 */
bool text_is_printable(const char *s, size_t n);

/* The same to a FILE. */
/* S (N bytes) as a JSON string, quoted, escaped per RFC 8259. */
void json_write_string(FILE *out, const char *s, size_t n);
/* S (N bytes) as text, unquoted: printable ASCII as is but '\' (\\), the rest \xNN. */
void text_write_escaped(FILE *out, const char *s, size_t n);
/* The same, but '\\' as it is: for ksnoop's own messages on stderr. */
void text_write_message(FILE *out, const char *s, size_t n);
/* S (N bytes) as a C string literal, in double quotes. */
void text_write_quoted(FILE *out, const char *s, size_t n);
/* The same into a new string (free() it), for columns; NULL if out of memory. */
char *text_escaped_dup(const char *s);

#endif
