/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * `ksnoop record`: the trace's sink when its events go to a file
 * (cmd_record.c); the file format is recfile.h's.
 */
#ifndef KSNOOP_RECORD_H
#define KSNOOP_RECORD_H

#include <stdbool.h>
#include <linux/types.h>
#include "cli.h"
#include "ks_error.h"
#include "print.h"
#include "recfile.h"

struct target_list;
struct spec;

/* The options that are report's, not record's, refused (reported); 0 or -EINVAL. */
int record__check_options(const struct options *o);
/* --count/--hist: record the events, and say in O what report makes of them. */
void record__aggregate_later(struct options *o);
/*
 * Once every target is attached: the header (the host, -s, what O's
 * record_output asks report to print), the plans, their BTF and kallsyms.
 */
int record__begin(struct recfile_writer *w, const struct target_list *tl,
		  const struct spec *specs, int nspecs, const struct options *o, bool usdt,
		  __s64 clock_offset_ns, struct ks_error *e);
/*
 * Record REC (SIZE bytes, of PLAN): the frames of its user stacks that
 * the file names not yet, named by USYMBOLIZE (CTX) as the live printer
 * names them, go to W before the record.  0 or a negative errno (E).
 */
int record__name_ustacks(struct recfile_writer *w, const struct capture_plan *plan,
			 const void *rec, size_t size, print_usymbolize_fn usymbolize, void *ctx,
			 struct ks_error *e);
/* The run is over: END written, the file closed, one line said. */
int record__finish(struct recfile_writer *w, const char *path, const struct recfile_totals *t,
		   struct ks_error *e);

#endif
