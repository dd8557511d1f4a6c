/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * --count: calls per traced function (and per kernel stack with -s),
 * summed in BPF (the counts and stacks maps) and read here at each
 * --interval and at exit; the busiest first.  The report (report.h)
 * prints them: as text, JSON or the folded stacks flame-graph tools read.
 */
#ifndef KSNOOP_COUNTS_H
#define KSNOOP_COUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "ksnoop.h"
#include "print.h"
#include "report.h"

struct count_row {
	__u32 func_id;
	__s32 sub;		/* -1: no stack */
	__u64 count;
	__u64 max;		/* --hist: the largest value in this bucket */
	__u64 min;		/* --hist, --stats: the smallest */
	__u64 sum;		/* --hist, --stats: their sum (mod 2^64) */
	__u32 nframes;
	__u64 frames[KSNOOP_STACK_DEPTH];	/* innermost first */
	bool has_key;		/* --by: key holds the row's key */
	__u8 key[KSNOOP_BY_KEY_SIZE];
	/* --count --ustack: the user stack (usub -1: none) of process TGID */
	__s32 usub;
	__u32 tgid;
	__u32 nuframes;
	__u64 uframes[KSNOOP_STACK_DEPTH];	/* innermost first */
	/*
	 * report of several recordings: the row's recording, which names its
	 * user frames (two hosts' processes are not one; else 0)
	 */
	__u32 source;
};

/*
 * --by: what a function's keys are: the kind of their VALUE part (plan.by)
 * and whether a number is signed; with several parts, each part's kind and
 * where it is in the key (plan.by_part, plan.by_off; nparts 0: one part,
 * BY, at 0).
 */
struct by_kind {
	enum ksnoop_by by;
	bool is_signed;
	/* KSNOOP_BY_INT: the value, printed as an event prints it (NULL: a number) */
	const struct btf *btf;
	const struct value_desc *desc;
	int nparts;
	__u8 part[KSNOOP_BY_PARTS];
	__u8 off[KSNOOP_BY_PARTS];
};

/* The room a key's forms need (counts__key()). */
struct key_text {
	char str[KSNOOP_BY_SIZE + 1];	/* a string key, NUL-terminated */
	char text[192];			/* a number as its value prints */
	char name[160];			/* JSON: the name beside the number */
};

struct counts_fmt {
	bool stacks;		/* rows are per stack */
	const char *by;		/* --by's name (NULL: none) */
	/* --by KEY,KEY...: each part's name, a column each (nby 0: BY is the one part) */
	int nby;
	const char *by_names[KSNOOP_BY_PARTS];
	/* --by cgroup: a cgroup id's path (NULL: the id, as a number) */
	const char *(*cgroup_name)(void *ctx, __u64 id);
	void *cgroup_ctx;
	/* --by: what FUNC_ID's keys are. */
	struct by_kind (*by_kind)(void *ctx, __u32 func_id);
	/* --hist: buckets linear (and their bounds) or log2 */
	struct hist_scale scale;
	/* --hist: rows carry each bucket's largest value (the maps' max) */
	bool exact_max;
	/* The name of target FUNC_ID ("tcp_v4_connect"). */
	const char *(*func_name)(void *ctx, __u32 func_id);
	void *ctx;
	print_symbolize_fn symbolize;
	void *sym_ctx;
	/* --count --ustack: rows are per user stack too, named in their process */
	bool ustacks;
	/*
	 * Whether FUNC_ID is a user function, whose -s stack is its user
	 * stack (NULL: none is).
	 */
	bool (*user_func)(void *ctx, __u32 func_id);
	print_usymbolize_fn usymbolize;
	void *usym_ctx;
	/* Of several recordings: the usym_ctx of a row's SOURCE (NULL: usym_ctx for all). */
	void *(*usym_ctx_of)(void *ctx, __u32 source);
};

/*
 * What a function's histogram counts by: NAME for JSON ("return",
 * "duration_ns"), LABEL for text ("duration"; its buckets are labelled in
 * units when DURATION is set).
 */
struct hist_value {
	const char *name;
	const char *label;
	bool duration;		/* the values are durations in ns */
	bool is_signed;		/* --stats: the values are __s64 */
};

/*
 * Whose values a map's rows hold: VALUE_OF(CTX, func_id).is_signed says
 * how the CPUs' min and max of a per-CPU map (agg.bpf.h) compare; NULL:
 * unsigned.
 */
struct counts_src {
	struct hist_value (*value_of)(void *ctx, __u32 func_id);
	void *ctx;
};

/*
 * Read every (function, stack) count from COUNTS_FD, with each stack from
 * STACKS_FD (-1: none); CLEAR empties the map as it goes (for --interval).
 * A per-CPU map's values are summed (SRC: how their bounds compare).
 * Rows come sorted, the busiest first.  0 or a negative errno.
 */
int counts__collect(int counts_fd, int stacks_fd, bool clear, const struct counts_src *src,
		    struct count_row **out, size_t *n);
/* The same from --by's map (struct ksnoop_by_key): rows with keys. */
int counts__collect_by(int by_fd, bool clear, const struct counts_src *src,
		       struct count_row **out, size_t *n);
/*
 * A per-CPU map's N values of one key as one: counts and sums added, the
 * bounds of the CPUs that counted any (IS_SIGNED: as __s64).
 */
struct ksnoop_count_val counts__combine(const struct ksnoop_count_val *v, int n, bool is_signed);
/*
 * ROW's key as the report prints it, a report_key per part in KEYS (BUF:
 * room for their forms; both KSNOOP_BY_PARTS long; F: its symbols): how
 * many parts.
 */
int counts__key(const struct counts_fmt *f, const struct count_row *row, struct by_kind kind,
		struct report_key *keys, struct key_text *buf);

/* Sort ROWS: the busiest first, then by function and stack. */
void counts__sort(struct count_row *rows, size_t n);

/* ROWS to R: one report (text: with its header), each stack from the traced code out. */
void counts__print(struct report *r, const struct count_row *rows, size_t n,
		   const struct counts_fmt *fmt);


/*
 * --hist: ROWS are (function, bucket) counts, with --by (function, key,
 * bucket); one histogram per function (and key), VALUE_OF saying what it
 * counts by, to R: by function, a function's keys the busiest first.
 * 0, or -ENOMEM.
 */
int counts__print_hist(struct report *r, struct count_row *rows, size_t n,
		       const struct counts_fmt *fmt,
		       struct hist_value (*value_of)(void *ctx, __u32 func_id));

/*
 * --stats: ROWS are (function[, key]) rows of sub 0, each the count, sum,
 * min and max of one function's values (VALUE_OF: which, and whether
 * durations), the busiest first, to R as one table.
 */
void counts__print_stats(struct report *r, const struct count_row *rows, size_t n,
			 const struct counts_fmt *fmt,
			 struct hist_value (*value_of)(void *ctx, __u32 func_id));
/* ROW as --stats reports it (KEY, KT: room for --by's key, KSNOOP_BY_PARTS long). */
void counts__stats(const struct count_row *row, const struct counts_fmt *fmt,
		   struct hist_value value, struct report_key *key, struct key_text *kt,
		   struct report_stats *s);

#endif
