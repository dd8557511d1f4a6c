/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Shell completion: `ksnoop __complete WORD...` prints what the last
 * WORD may become, one candidate a line, whole (the shell script cuts
 * what its own word splitting left out: completions/ksnoop.bash).  The
 * names come from where tracing looks them up: kernel functions from
 * vmlinux and module BTF (MODULE: prefixes), tracepoints from vmlinux's
 * btf_trace_* and tracefs's categories, USDT probes from the binary's
 * notes, argument names and members from BTF.
 */
#ifndef KSNOOP_COMPLETE_H
#define KSNOOP_COMPLETE_H

#include <stdio.h>

struct option;

/* Where completion looks; NULL fields: the running system's. */
struct complete_src {
	const char *btf_dir;		/* default /sys/kernel/btf */
	const char *events;		/* tracefs's events/; default: tracing's (kernel.h) */
	const char *proc;		/* default /proc */
	const struct option *opts;	/* getopt_long()'s table (main.c's) */
	const char *shortopts;		/* and its short options, "p:c:..." */
	const char *const *cmds;	/* the commands, NULL-terminated */
};

/*
 * Candidates for WORDS[N - 1], the word under the cursor, given the words
 * before it (the command line after "ksnoop"; N >= 1), written to OUT
 * sorted, each once.  0, or a negative errno (-ENOMEM); what cannot be
 * read (no BTF, no tracefs) gives no candidates, not an error.
 */
int complete__words(const struct complete_src *src, int n, char **words, FILE *out);

#endif
