/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One place for every message ksnoop prints on stderr. */
#ifndef KSNOOP_LOG_H
#define KSNOOP_LOG_H

#include <stdbool.h>
#include <stdio.h>
#include "ks_error.h"

extern int log_verbose;	/* -v */
extern bool log_debug;	/* -d: libbpf's own debug output too */
extern bool log_json;	/* -j: errors and warnings as JSON records on stdout */

/*
 * "ksnoop: MESSAGE" (and "ksnoop: warning: MESSAGE") on stderr; with -j
 * {"type":"error","error":MESSAGE} ({"type":"warning",...}) on stdout.
 */
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "ksnoop: MESSAGE" on stderr, -j or not: the text report's notices (report_text.c). */
void log_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only with -v. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed only with -vv: one line per item of many (each match a glob left out). */
void log_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * {"type":TYPE,TYPE:MESSAGE} on OUT, one line, flushed: an error or a
 * warning with -j.  The log writes it through the writer (writer.h); the
 * report (report_text.c) calls the log, never the other way round.
 */
void log_json_message(FILE *out, const char *type, const char *msg);

/* E's message as log_error() prints one (no spec, no column: see targets__log_error()). */
void log_ks_error(const struct ks_error *e);

/*
 * Route libbpf's messages: all of them, warnings included, only with -d
 * (log.c says why); without it ksnoop's own messages say what failed.
 */
void log_setup_libbpf(void);

#endif
