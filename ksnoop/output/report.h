/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The report: everything ksnoop prints (--count and --hist reports,
 * `info`, the lost-events notice, the closing summary; and events, whose
 * walker in print.c calls the same table), one method per kind of record,
 * each with a text and a JSON form (bpftrace's Output is the model).  A
 * command says what it reports; the format, chosen once
 * (report__format()), decides how:
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
 *   stats    --stats: one function's count, sum, min, max and average
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

struct btf;
struct capture_plan;
struct ksnoop_event;
struct ksnoop_value;
struct printer;
struct signature;
struct tree_call;
struct usdt_file;
struct value_desc;

/* Every "type" of a -j record, for tests and documentation. */
#define REPORT_TYPES	"event object count hist stats info lost summary warning error"

enum report_format {
	REPORT_TEXT,
	REPORT_JSON,
	REPORT_FOLDED,		/* "outer;...;inner COUNT" per --count row */
	/*
	 * report --format=perfetto: a recording's events as Chrome trace
	 * events, one JSON document (report_perfetto.h); events only
	 */
	REPORT_PERFETTO,
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
	/*
	 * A number as an event prints its value (printer__key()): text
	 * "SKB_DROP_REASON_NO_SOCKET", "-2 (ENOENT)" (NULL: the number);
	 * JSON keeps the number and puts NAME beside it ("key_name").
	 */
	const char *text;
	const char *name;
};

/* One --count row: calls of FUNC (per stack with -s). */
struct report_count {
	const char *func;
	const struct report_key *key;	/* --by: the row's key, NKEYS parts; NULL: none */
	int nkeys;
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
	const struct report_key *key;	/* --by: the histogram's key, NKEYS parts; NULL: none */
	int nkeys;
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

/*
 * --stats: FUNC's (and KEY's) COUNT values of VALUE, their SUM, MIN and
 * MAX (as __s64 if IS_SIGNED; ns if DURATION) and AVG (report_stats_avg()).
 */
struct report_stats {
	const char *func;
	const struct report_key *key;	/* --by: the row's key, NKEYS parts; NULL: none */
	int nkeys;
	const char *value_name;		/* JSON: "return", "duration_ns" */
	const char *value_label;	/* text: "duration" */
	bool duration;
	bool is_signed;
	__u64 count, sum, min, max;
};

/* S's average: the sum over the count, signed as the values are; 0 for none. */
double report_stats_avg(const struct report_stats *s);

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

/*
 * `info "struct NAME"`: a member of the type, at DEPTH inside anonymous
 * structs and unions (which are members too: DECL "union", their own
 * members follow one deeper).  Offsets from the type's start.
 */
struct report_member {
	const char *decl;	/* "__be32 skc_daddr", "unsigned char skc_reuse:4", "union" */
	/* A struct or union of no type name: its members follow; NAME its member's ("": none) */
	bool anonymous;
	const char *name;
	__u32 bit_off;
	__u32 bit_size;		/* a bitfield's width; 0: not one */
	__s64 size;		/* bytes (a bitfield: its type's) */
	int depth;
};

struct report_type {
	const char *name;	/* "struct sock_common" */
	__s64 size;
	int nmembers;
	const struct report_member *members;
	bool cut;		/* more members (or deeper) than shown */
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
	__u64 missed;		/* the kernel skipped the program (recursion_misses) */
	__u64 own;		/* calls of ksnoop itself, left out */
	__u64 session_stashed;	/* kprobe.session entries kept in the stash: task storage refused */
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
	/* --pair: STARTs not kept (pair map full), events whose key was unreadable */
	bool pairing;
	__u64 pair_full;
	__u64 pair_unread;
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

/*
 * The one place a format is chosen: --format=perfetto is Perfetto's, -j
 * JSON, --folded folded, else text.  Reports, events and errors all
 * follow it.
 */
enum report_format report__format(bool json, bool folded, bool perfetto);
/* FORMAT's methods, for the report and for the printer of events (print.c). */
const struct report_ops *report__ops(enum report_format format);

/* W writes to OUT with the writer's back end (writer.h) that OPS's format asks for. */
void report__writer_init(struct writer *w, FILE *out, const struct report_ops *ops);

/* R writes to OUT (stdout) in FORMAT; R must not be copied (its writer points into it). */
void report__init(struct report *r, FILE *out, enum report_format format);
bool report__json(const struct report *r);

/*
 * --interval: the reports that follow close period N (1, 2, ...) at
 * TIME_NS; text starts them with the wall-clock time, as bcc's tools.
 */
void report__interval(struct report *r, __u32 n, __u64 time_ns);
/*
 * Before one --count report's rows (text: the column header; BY: the names
 * of --by's NBY parts, a column each; NBY 0: none).
 */
void report__counts_begin(struct report *r, bool stacks, const char *const *by, int nby);
void report__count(struct report *r, const struct report_count *c);
void report__hist(struct report *r, const struct report_hist *h);
/* --stats: the table's header (text), then one row per function (and key). */
void report__stats_begin(struct report *r, const char *const *by, int nby);
void report__stats(struct report *r, const struct report_stats *s);

void report__info(struct report *r, const struct report_info *info);
/* `info "struct NAME"`: its members, offsets and sizes (as pahole shows them). */
void report__type(struct report *r, const struct report_type *t);
/*
 * `info usdt`: every probe of F (text: one row each, the header once per
 * report, and with TITLED the file's path before its rows).
 */
void report__usdt(struct report *r, const struct usdt_file *f, bool titled);

/* LOST events so far: the ring buffer was full. */
void report__lost(struct report *r, __u64 lost);
void report__summary(struct report *r, const struct report_summary *s);

/* Whatever the report's writer holds, to its FILE. */
void report__flush(struct report *r);

/*
 * The formats, for report.c and print.c.  Events: print.c walks the
 * record and the BTF and says what it meets (a header, a value of some
 * kind, a cut, a stack, a call of a tree); these methods say how.  A
 * walker's P and W are the printer's (print.h) and its writer.
 */
struct report_ops {
	bool writer_json;	/* the writer's back end (writer.h) */
	/*
	 * Every member and every level of a value (JSON, so that a script
	 * can rely on keys); else zero members left out unless -z, and
	 * --depth and --oneline cut.
	 */
	bool every_member;
	void (*interval)(struct report *r);
	void (*counts_begin)(struct report *r, bool stacks, const char *const *by, int nby);
	void (*count)(struct report *r, const struct report_count *c);
	void (*hist)(struct report *r, const struct report_hist *h);
	void (*stats_begin)(struct report *r, const char *const *by, int nby);
	void (*stats)(struct report *r, const struct report_stats *s);
	void (*info)(struct report *r, const struct report_info *info);
	void (*type)(struct report *r, const struct report_type *t);
	void (*usdt)(struct report *r, const struct usdt_file *f, bool titled);
	void (*lost)(struct report *r, __u64 lost);
	void (*summary)(struct report *r, const struct report_summary *s);

	/* An event: the header (text: its line; JSON: "{...,"values":"). */
	void (*event_begin)(struct printer *p, const struct capture_plan *plan,
			    const struct ksnoop_event *ev, const char *comm);
	/*
	 * The values are out but their object is open: close it, with the
	 * -s/--ustack stacks of process PID (NULL: none; USER: STACK is a
	 * program's) inside (text) or beside (JSON).
	 */
	void (*values_end)(struct printer *p, const struct ksnoop_value *stack,
			   const struct ksnoop_value *ustack, bool user, __u32 pid);
	/* The event of PLAN's record REC, side KIND, is complete. */
	void (*event_end)(struct printer *p, const struct capture_plan *plan, const void *rec,
			  int kind);
	/* --track --group: object ADDR's N events took SPAN_NS and ended so (printer__object()). */
	void (*object_end)(struct printer *p, __u64 addr, int n, __u64 span_ns, const char *end,
			   const char *end_word);
	/* Scalars the writer has no one form for. */
	void (*character)(struct writer *w, unsigned char c);
	void (*int128)(struct writer *w, __u64 hi, __u64 lo);
	/* A function pointer ADDR named SYM; a ':sym' address named SYM. */
	void (*func_ptr)(struct writer *w, __u64 addr, const char *sym);
	void (*addr_sym)(struct writer *w, __u64 addr, const char *sym);
	/* A return code that is error ERR (NAME its errno's name, or NULL); PTR: an ERR_PTR. */
	void (*error_code)(struct writer *w, int err, const char *name, bool ptr);
	/* A value not captured: WHY, and where (ADDR, 0: unknown; ERR_PTR: ADDR is the error). */
	void (*failure)(struct writer *w, const char *why, __u64 addr, bool err_ptr);
	/*
	 * Before the bytes a pointer at ADDR points to: of type VD->obj_id
	 * in BTF (VD NULL: plain bytes).
	 */
	void (*pointer_to)(struct printer *p, __u64 addr, const struct btf *btf,
			   const struct value_desc *vd);
	/* Beside value NAME: what WHAT says of it ("errno" "ENOENT", "cut" "work limit"). */
	void (*beside)(struct writer *w, const char *name, const char *what, const char *value);
	/* --tree: after the root's values (DROPPED calls not recorded), and at its end. */
	void (*tree_begin)(struct printer *p, __u32 dropped);
	void (*tree_end)(struct printer *p, __u32 dropped);
	/* Around a call's children. */
	void (*calls_begin)(struct printer *p);
	void (*calls_end)(struct printer *p);
	/*
	 * One call C of PLAN at depth LEVEL; returns print.c's values flags
	 * (PRINT_VALUES_*) for its values.  call_values_end after them,
	 * call_end after its children.
	 */
	unsigned int (*call_begin)(struct printer *p, const struct capture_plan *plan,
				   const struct tree_call *c, int level);
	void (*call_values_end)(struct printer *p, const struct tree_call *c);
	void (*call_end)(struct printer *p);
};

extern const struct report_ops report_text_ops;
extern const struct report_ops report_folded_ops;
extern const struct report_ops report_json_ops;
extern const struct report_ops report_perfetto_ops;

#endif
