/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The printer: raw bytes plus BTF in, text or JSON out.  It knows nothing
 * of how the bytes were captured; a value is its descriptor (from the
 * resolver), the status the BPF side reported, and the bytes.
 */
#ifndef KSNOOP_PRINT_H
#define KSNOOP_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include "ksnoop.h"
#include "resolve.h"

enum print_format {
	FORMAT_TEXT,
	FORMAT_JSON,
};

struct print_opts {
	enum print_format format;
	bool zeros;		/* text: also show members that are zero */
	__s64 clock_offset_ns;	/* added to event times for wall-clock text */
};

struct printer {
	FILE *out;
	struct print_opts opts;
};

void printer__init(struct printer *p, FILE *out, const struct print_opts *opts);

/* One event: header, then its values as the plan describes them. */
void printer__event(struct printer *p, const struct capture_plan *plan,
		    const void *rec, size_t size);

/* One value (text: "NAME = ..."; JSON: the value alone). */
void printer__value(struct printer *p, const struct btf *btf,
		    const struct value_desc *vd, const struct ksnoop_value *vh,
		    const void *data, int indent);

/*
 * The two escapers every byte from outside (traced memory, comm, ELF, BTF
 * names, paths) goes through; print.c says what each lets pass.
 */
/* S (N bytes) as a JSON string, quoted, escaped per RFC 8259. */
void json_write_string(FILE *out, const char *s, size_t n);
/* S (N bytes) as text, unquoted: printable ASCII as is, the rest \xNN. */
void text_write_escaped(FILE *out, const char *s, size_t n);
/* The same into a new string (free() it), for columns; NULL if out of memory. */
char *text_escaped_dup(const char *s);

#endif
