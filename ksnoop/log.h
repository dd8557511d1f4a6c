/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One place for every message ksnoop prints on stderr. */
#ifndef KSNOOP_LOG_H
#define KSNOOP_LOG_H

#include <stdbool.h>
#include "ks_error.h"

extern int log_verbose;	/* -v */
extern bool log_debug;	/* -d: libbpf's own debug output too */
extern bool log_json;	/* -j: errors as {"error":...} on stdout */

/* "ksnoop: MESSAGE" on stderr. */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only with -v. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* E's message as log_error() prints one (no spec, no column: see trace.c). */
void log_ks_error(const struct ks_error *e);

/* Route libbpf's messages: warnings always, debug only with -d. */
void log_setup_libbpf(void);

#endif
