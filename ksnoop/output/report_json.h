/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The JSON format's methods for values (report_json.c), shared by the
 * formats that write JSON around them: report --format=perfetto puts an
 * event's values in its trace event's "args" exactly as -j writes them
 * (report_perfetto.c), through the same writer and escaper.
 */
#ifndef KSNOOP_REPORT_JSON_H
#define KSNOOP_REPORT_JSON_H

#include <stdbool.h>
#include <linux/types.h>
#include "report.h"

void report_json__character(struct writer *w, unsigned char c);
void report_json__int128(struct writer *w, __u64 hi, __u64 lo);
void report_json__addr_sym(struct writer *w, __u64 addr, const char *sym);
void report_json__error_code(struct writer *w, int err, const char *name, bool ptr);
void report_json__failure(struct writer *w, const char *why, __u64 addr, bool err_ptr);
void report_json__pointer_to(struct printer *p, __u64 addr, const struct btf *btf,
			     const struct value_desc *vd);
void report_json__beside(struct writer *w, const char *name, const char *what,
			 const char *value);

#endif
