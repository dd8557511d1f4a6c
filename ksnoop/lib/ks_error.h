/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One error type for every stage: the spec parser, the resolver, the
 * kernel and USDT front ends, the attacher.  The stage that fails fills it
 * (a negative errno, the column in the spec where there is one, a
 * one-line message) and returns the errno; the command reports it where
 * it happened (log.c: one line on stderr, or with -j one JSON object on
 * stdout) and returns the errno; main() turns it into the exit status,
 * once, with ks_exit_status().
 *
 * The errno decides the status, so each failure site picks it to say
 * whose the error is:
 *
 *   the user's to fix (exit 2)    -EINVAL  a spec, an option or a type that does not fit
 *                                 -ENOENT  no such function, tracepoint, file or type
 *                                 -ESRCH   no such probe or process
 *                                 -ENOEXEC not an ELF file, or a malformed one
 *                                 -EISDIR  a directory where a program was expected
 *                                 -E2BIG   more than ksnoop reads (USDT notes)
 *                                 -ERANGE  an option value out of range
 *                                 -ENOTDIR, -ENAMETOOLONG, -ELOOP  a path that cannot name a file
 *   a runtime failure (exit 1)    anything else: -ENOMEM, -EPERM, -EACCES,
 *                                 -EOPNOTSUPP, -EIO, ...
 *
 * An errno the kernel or libbpf returns (a refused load or attach, an
 * unreadable /proc/kallsyms) is a runtime failure whatever its value: such
 * sites pass it through ks_runtime_errno(), and their message keeps the
 * original errno as text.
 */
#ifndef KSNOOP_KS_ERROR_H
#define KSNOOP_KS_ERROR_H

#include <stdarg.h>
#include <stdbool.h>

/* Exit statuses: usage or spec errors vs runtime failures. */
enum {
	KSNOOP_EXIT_OK = 0,
	KSNOOP_EXIT_RUNTIME = 1,
	KSNOOP_EXIT_USAGE = 2,
};

/* One line, with room for a quoted name, a type and a suggestion. */
#define KS_ERROR_MSG_MAX 512

struct ks_error {
	int err;			/* negative errno; 0: no error */
	int pos;			/* 1-based column in the spec text, 0 if none */
	char msg[KS_ERROR_MSG_MAX];	/* without "ksnoop: " or the spec */
};

/*
 * Fill E (which may be NULL: the caller only wants the errno) and return
 * ERR, so a failure site reads `return ks_fail(e, -ENOENT, "...", ...)`.
 */
int ks_fail(struct ks_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, at column POS of the spec. */
int ks_fail_at(struct ks_error *e, int err, int pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int ks_vfail_at(struct ks_error *e, int err, int pos, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));
/*
 * Put context before E's message ("'name' " before "takes 13 argument
 * words ..."); errno and column stay.  Returns E's errno.
 */
int ks_prefix(struct ks_error *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ks_clear(struct ks_error *e);
/* E's message, or its errno as text when the failure site gave none. */
const char *ks_message(const struct ks_error *e);

/* An errno from the kernel or libbpf, as one that reads as a runtime failure. */
int ks_runtime_errno(int err);
/* Is ERR (negative) an error the user must fix (see the table above)? */
bool ks_is_usage(int err);
/* Of two errors, the one to report: the user's to fix before a runtime one. */
int ks_worse(int a, int b);
/* ERR as ksnoop's exit status; main() is the one caller. */
int ks_exit_status(int err);

#endif
