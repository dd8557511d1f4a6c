/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How a command prints, set up from its options in one place: the event
 * printer (print.h) and the report of everything else (report.h).  A
 * live trace (and record) and the replay of a recording (`report`) print
 * the same way, so they take the same set-up and differ only in what
 * names addresses and where the clock starts.
 */
#ifndef KSNOOP_PRINTING_H
#define KSNOOP_PRINTING_H

#include <stdbool.h>
#include <stdio.h>
#include "cli.h"
#include "kernel.h"
#include "print.h"
#include "report.h"
#include "group_print.h"
#include "tree_print.h"

/*
 * The printer's options from O (-j, -z, --oneline, --depth), event
 * times moved by CLOCK_OFFSET_NS; with NAMED, kernel code and data
 * addresses are named from K's kallsyms.  User stacks are the caller's.
 */
struct print_opts printing__opts(const struct options *o, struct kernel *k, bool named,
				 __s64 clock_offset_ns);

/* P and R set up to print to OUT as O asks (events with POPTS). */
void printing__init(struct printer *p, struct report *r, FILE *out, const struct options *o,
		    const struct print_opts *popts);

#endif
