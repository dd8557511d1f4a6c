// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ks_error.h"

int ks_vfail_at(struct ks_error *e, int err, int pos, const char *fmt, va_list ap)
{
	if (!e)
		return err;
	e->err = err;
	e->pos = pos;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	return err;
}

int ks_fail_at(struct ks_error *e, int err, int pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ks_vfail_at(e, err, pos, fmt, ap);
	va_end(ap);
	return err;
}

int ks_fail(struct ks_error *e, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ks_vfail_at(e, err, 0, fmt, ap);
	va_end(ap);
	return err;
}

int ks_prefix(struct ks_error *e, const char *fmt, ...)
{
	char rest[sizeof(e->msg)];
	va_list ap;
	int n;

	if (!e)
		return 0;
	memcpy(rest, e->msg, sizeof(rest));
	va_start(ap, fmt);
	n = vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(e->msg))
		snprintf(e->msg + n, sizeof(e->msg) - n, "%s", rest);
	return e->err;
}

void ks_clear(struct ks_error *e)
{
	e->err = 0;
	e->pos = 0;
	e->msg[0] = 0;
}

const char *ks_message(const struct ks_error *e)
{
	return e->msg[0] || !e->err ? e->msg : strerror(-e->err);
}

bool ks_is_usage(int err)
{
	switch (err) {
	case -EINVAL:
	case -ENOENT:
	case -ESRCH:
	case -ENOEXEC:
	case -EISDIR:
	case -E2BIG:
	case -ERANGE:
	case -ENOTDIR:
	case -ENAMETOOLONG:
	case -ELOOP:
		return true;
	default:
		return false;
	}
}

int ks_runtime_errno(int err)
{
	/* The message says what the kernel said; the errno says whose it is. */
	return ks_is_usage(err) ? -EIO : err;
}

int ks_worse(int a, int b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	/* A usage error says more about what to fix than a runtime one. */
	return !ks_is_usage(a) && ks_is_usage(b) ? b : a;
}

int ks_exit_status(int err)
{
	if (!err)
		return KSNOOP_EXIT_OK;
	return ks_is_usage(err) ? KSNOOP_EXIT_USAGE : KSNOOP_EXIT_RUNTIME;
}
