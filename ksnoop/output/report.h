/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report: everything ksnoop prints that is not an event (--count and
 * --hist reports, `info`, the lost-events notice, the closing summary),
 * one method per kind of record, each with a text and a JSON form
 * (bpftrace's Output is the model).  A command says what it reports; the
 * report's format decides how:
 *
 *   text    ksnoop's tables and C declarations on stdout; notices (lost
 *           events, the summary) one line on stderr, as they always were
 *   JSON    (-j) one object a line on stdout, its first key "type"; with
 *           the events (print.c) and errors (log.c) stdout is one NDJSON
 *           stream, and stderr is left to -v and -d
 *   folded  (--folded) --count's rows as folded stacks; the rest as text
 *
 * The record types a -j stream holds, all of them (REPORT_TYPES):
 *
 *   event    one traced call (print.c)
 *   object   --track --group: an object's events follow (print.c)
 *   count    --count: calls of one function (and stack with -s)
 *   hist     --hist: one function's log2 histogram
 *   info     `info`: a kernel function, a tracepoint or a USDT probe
 *   lost     events lost so far (the ring buffer was full)
 *   summary  the run's totals, last
 *   warning  something left out that the user asked for (log.c)
 *   error    what ended the command (log.c)
 *
 * In JSON a notice is a record on stdout and nothing on stderr: a text
 * copy there would break `ksnoop -j ... 2>&1 | jq`, and an error has
 * always been only JSON with -j (bpftool's convention).
 *
 * Every text method writes through the report's writer (its buffer and
 * the escapers): names from BTF, ELF notes and paths never reach the
 * terminal raw.
 */
#ifndef KSNOOP_REPORT_H
#define KSNOOP_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include "hist.h"
#include "tuple.h"
#include "writer.h"

struct signature;
struct usdt_file;

/* Every "type" of a -j record, for tests and documentation. */
#define REPORT_TYPES	"event object count hist info lost summary warning error"

enum report_format {
	REPORT_TEXT,
	REPORT_JSON,
	REPORT_FOLDED,		/* "outer;...;inner COUNT" per --count row */
};

/* --by: the key a count or a histogram is kept per. */
struct report_key {
	const char *by;		/* as --by names it: "comm", "pid", "arg2:str" */
	bool is_str;
	const char *str;	/* is_str: the key (NUL-terminated; from outside: escaped) */
	bool is_signed;
	__u64 num;		/* else: the number (as __s64 if is_signed) */
	bool is_tuple;		/* a flow: TUPLE (text as ':tuple' prints, JSON its object) */
	struct tuple tuple;
};

/* One --count row: calls of FUNC (per stack with -s). */
struct report_count {
	const char *func;
	const struct report_key *key;	/* --by: the row's key; NULL: none */
	__u64 count;
	bool stacks;		/* rows are per stack */
	bool no_stack;		/* stacks: this row's was not taken (map full) */
	/* Stacks: the frames from the traced code out, innermost first, named. */
	int nframes;
	const char *const *frames;
	/*
	 * --count --ustack: the user stack of process PID, innermost first,
	 * named (none: a kernel thread's, or not taken).
	 */
	bool ustacks;
	__u32 pid;
	int nuframes;
	const char *const *uframes;
};

/*
 * One bucket of a histogram: log2 bucket B counts values in [2^(B-1), 2^B),
 * -1 negatives; linear ones as hist.h says.
 */
struct report_bucket {
	__s32 bucket;
	__u64 count;
};

/* --hist: FUNC's values by log2 bucket, buckets sorted. */
struct report_hist {
	const char *func;
	const struct report_key *key;	/* --by: the histogram's key; NULL: none */
	struct hist_scale scale;	/* the buckets' bounds, labels and units */
	const char *value_name;		/* JSON: "return", "duration_ns" */
	const char *value_label;	/* text: "duration" */
	__u64 total;
	size_t nbuckets;
	const struct report_bucket *buckets;
	/* The largest value counted, kept in BPF (!has_max: the top bucket's bound) */
	bool has_max;
	__u64 max;
};

enum report_info_kind {
	REPORT_INFO_FUNC,	/* a kernel function */
	REPORT_INFO_TP,		/* a tracepoint */
};

/* `info` of a kernel function or tracepoint. */
struct report_info {
	enum report_info_kind kind;
	const struct signature *sig;	/* name and parameters (as far as known) */
	const char *decl;		/* as C declares it, no ';' */
	const char *why;		/* NULL: traceable; else why not */
	const char *module;		/* the owning module; NULL: vmlinux */
	bool show_module;		/* text: "MODULE: " before (a glob's match) */
	/* One of several functions of the name (sig->addr): INSTANCE of NINSTANCES. */
	int instance, ninstances;
};

/* The run's totals, printed once at the end. */
struct report_summary {
	bool counting;		/* --count/--hist: calls counted, not events printed */
	__u64 printed;
	__u64 lost;
	__u64 counted;
	__u64 unprinted;	/* captured, not printed: the stop came first */
	__u64 count_full;	/* calls not counted: the counts map was full */
	__u64 hist_unread;	/* calls whose --hist value could not be read */
	__u64 stack_lost;	/* stacks not taken: the stacks map was full */
	__u64 stash_full;	/* calls not followed: the stash was full */
	__u64 missed;		/* the probe fired inside a BPF program */
	__u64 own;		/* calls of ksnoop itself, left out */
	bool tree;		/* --tree: the four below are the run's */
	__u64 tree_dropped;	/* inner calls not recorded (limits, or no room in BPF) */
	/* trees dropped, by why: their task exited or their thread exec'd inside them */
	__u64 tree_exited;
	__u64 tree_exec;
	__u64 tree_no_room;	/* trees not started: sessions map full */
	/* --track: objects that joined the set, left it freed, were still in it at exit */
	bool tracking;
	__u64 track_added;
	__u64 track_freed;
	__u64 track_alive;
	__u64 track_evicted;	/* pushed out of the full set (--track-max) */
	__u64 track_failed;	/* could not join it */
};

struct report_ops;

struct report {
	const struct report_ops *ops;
	struct writer wr;	/* to the report's FILE (stdout) */
	/* --interval: the period reports belong to (0: one report, at exit). */
	__u32 interval;
	__u64 interval_ns;	/* when it closed (CLOCK_MONOTONIC, as events' time_ns) */
	bool usdt_header;	/* text: the USDT listing's header is out */
};

/* R writes to OUT (stdout) in FORMAT; R must not be copied (its writer points into it). */
void report__init(struct report *r, FILE *out, enum report_format format);
bool report__json(const struct report *r);

/*
 * --interval: the reports that follow close period N (1, 2, ...) at
 * TIME_NS; text starts them with the wall-clock time, as bcc's tools.
 */
void report__interval(struct report *r, __u32 n, __u64 time_ns);
/* Before one --count report's rows (text: the column header; BY: --by's name, or NULL). */
void report__counts_begin(struct report *r, bool stacks, const char *by);
void report__count(struct report *r, const struct report_count *c);
void report__hist(struct report *r, const struct report_hist *h);

void report__info(struct report *r, const struct report_info *info);
/*
 * `info usdt`: every probe of F (text: one row each, the header once per
 * report, and with TITLED the file's path before its rows).
 */
void report__usdt(struct report *r, const struct usdt_file *f, bool titled);

/* LOST events so far: the ring buffer was full. */
void report__lost(struct report *r, __u64 lost);
void report__summary(struct report *r, const struct report_summary *s);

/*
 * {"type":TYPE,TYPE:MESSAGE} on OUT, one line, flushed: log.c's errors
 * and warnings with -j.
 */
void report__json_message(FILE *out, const char *type, const char *msg);

/* Whatever the report's writer holds, to its FILE. */
void report__flush(struct report *r);

/* The formats, for report.c. */
struct report_ops {
	void (*interval)(struct report *r);
	void (*counts_begin)(struct report *r, bool stacks, const char *by);
	void (*count)(struct report *r, const struct report_count *c);
	void (*hist)(struct report *r, const struct report_hist *h);
	void (*info)(struct report *r, const struct report_info *info);
	void (*usdt)(struct report *r, const struct usdt_file *f, bool titled);
	void (*lost)(struct report *r, __u64 lost);
	void (*summary)(struct report *r, const struct report_summary *s);
};

extern const struct report_ops report_text_ops;
extern const struct report_ops report_folded_ops;
extern const struct report_ops report_json_ops;

#endif
