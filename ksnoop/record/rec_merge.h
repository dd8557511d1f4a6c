/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Several recordings read as one stream, by wall-clock time (`ksnoop
 * report a.ksr b.ksr ...`): a k-way merge with one reader per source.
 * An event's wall time is its own time (the recording machine's
 * CLOCK_MONOTONIC, bpf_ktime_get_ns()) plus its file's clock offset
 * (realtime - monotonic at the recording's start, from the HEADER).
 *
 * The merge holds one event per source, the next one each would give,
 * and hands out the earliest; so memory is one reader's (a block) per
 * source, whatever the files' lengths.  Ties go to the source given
 * first; a source's own events keep their order (the merge never
 * reorders within a file: the ring buffer delivers a file's events close
 * to, not exactly in, time order).  Wall times are compared in 128 bits:
 * a hostile file's times and offsets cannot overflow into another order.
 */
#ifndef KSNOOP_REC_MERGE_H
#define KSNOOP_REC_MERGE_H

#include <stddef.h>
#include <linux/types.h>
#include "ks_error.h"
#include "recfile.h"

/*
 * Recordings one report merges: each holds its plans, BTF and one
 * decompressed block (up to RECFILE_MAX_BLOCK) at once.
 */
#define REC_MERGE_MAX_SOURCES	64

/*
 * One source: NEXT gives its next record (as recfile__next(): 1 a record,
 * valid until its next call; 0 the end; negative an error in E).
 */
struct rec_merge_source {
	int (*next)(void *ctx, const void **rec, size_t *size, struct ks_error *e);
	void *ctx;
	__s64 clock_offset_ns;
};

struct rec_merge;

/*
 * N sources (at most REC_MERGE_MAX_SOURCES; the array is copied), each
 * read once for its first event.  NULL and E: out of memory, too many,
 * or a source's first read failed.
 */
struct rec_merge *rec_merge__new(const struct rec_merge_source *src, int n,
				 struct ks_error *e);
/*
 * The earliest event of all sources by wall time: 1 with *REC, *SIZE and
 * *SOURCE (its index); 0 when every source has ended; negative: a
 * source's error, in E.  *REC stays valid until the next call.
 */
int rec_merge__next(struct rec_merge *m, const void **rec, size_t *size, int *source,
		    struct ks_error *e);
void rec_merge__free(struct rec_merge *m);

/* A record file as a source: CTX is its struct recfile. */
int rec_merge__recfile_next(void *ctx, const void **rec, size_t *size, struct ks_error *e);

#endif
