/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shared by the USDT fuzz targets: usdt__read() takes a path, so the input
 * goes into a memfd and is read back through /proc/self/fd/N; then the
 * result is checked against what the rest of ksnoop assumes of it.
 */
#ifndef KSNOOP_FUZZ_USDT_H
#define KSNOOP_FUZZ_USDT_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "usdt_note.h"

#define check(cond) do { if (!(cond)) __builtin_trap(); } while (0)

/* Replace the memfd's contents with DATA; returns its /proc path. */
static const char *fuzz_file(const void *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("ksnoop-fuzz", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
		perror("memfd write");
		abort();
	}
	return path;
}

/*
 * Read PATH as ksnoop would and check every promise usdt_note.h makes; returns
 * what usdt__read() returned.
 */
static int fuzz_read_and_check(const char *path)
{
	struct usdt_file *f = (struct usdt_file *)1;
	struct ks_error e;
	int err, i, j;

	ks_clear(&e);
	err = usdt__read(path, &f, &e);
	if (err) {
		check(err < 0 && f == NULL);
		check(e.err == err && e.msg[0] && memchr(e.msg, 0, sizeof(e.msg)));
		return err;
	}
	check(f && f->path && strcmp(f->path, path) == 0);
	check(f->nprobes >= 0 && (f->nprobes == 0 || f->probes));
	for (i = 0; i < f->nprobes; i++) {
		const struct usdt_probe *pr = &f->probes[i];

		check(pr->provider && pr->provider[0]);
		check(pr->name && pr->name[0]);
		check(pr->nargs >= 0 && pr->nargs <= USDT_MAX_ARGS);
		for (j = 0; j < pr->nargs; j++) {
			const struct usdt_arg *a = &pr->args[j];

			check(a->size >= 1 && a->size <= USDT_MAX_ARG_SIZE);
			check(a->loc[0] && memchr(a->loc, 0, sizeof(a->loc)));
		}
	}
	usdt__free(f);
	return 0;
}

#endif
