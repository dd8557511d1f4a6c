/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The printer: raw bytes plus BTF in, text or JSON out.  It knows nothing
 * of how the bytes were captured; a value is its descriptor (from the
 * resolver), the status the BPF side reported, and the bytes.
 */
#ifndef KSNOOP_PRINT_H
#define KSNOOP_PRINT_H

#include <stdbool.h>
#include <stdio.h>
#include "ksnoop.h"
#include "report.h"
#include "writer.h"
#include "resolve.h"
#include "tree.h"

struct layout_cache;
struct perfetto;

/* --oneline: members (or elements) a struct (or array) shows, at most. */
#define PRINT_ONELINE_MEMBERS	4

/* Why printer__value() cut its value short (JSON: "NAME_cut"). */
enum print_cut {
	PRINT_NOT_CUT,
	PRINT_CUT_SHAPE,	/* BTF nested too deep or held too many values */
	PRINT_CUT_WORK,		/* the value's work limit (print.c PRINT_STEPS_*) */
};

/* print_values()'s flags: the return value is on the tree's call line; stacks left out. */
enum {
	PRINT_VALUES_NO_RETURN = 1,
	PRINT_VALUES_NO_STACKS = 2,
};

/* Name the kernel code at ADDR into BUF ("sock_wfree"); nonzero: unknown. */
typedef int (*print_symbolize_fn)(void *ctx, __u64 addr, char *buf, size_t sz);
/* Name user code at ADDR in process PID ("main+0x1c (/usr/bin/app)"); nonzero: unknown. */
typedef int (*print_usymbolize_fn)(void *ctx, __u32 pid, __u64 addr, char *buf, size_t sz);

struct print_opts {
	enum report_format format;	/* report__format(): the methods (report.h) */
	bool zeros;		/* text: also show members that are zero */
	/*
	 * --oneline: an event a line, "time comm pid/tid -> func a=1
	 * s={.len=84 ...}": a struct or array shows its first
	 * PRINT_ONELINE_MEMBERS members, nested ones only within the depth.
	 */
	bool oneline;
	/*
	 * --depth N: structs, unions and arrays nested deeper than N (the
	 * value itself is at 0) print as {...} (--oneline: are left out);
	 * --oneline alone is --depth 1.  Text only.
	 */
	bool limit_depth;
	int max_depth;
	__s64 clock_offset_ns;	/* added to event times for wall-clock text */
	/*
	 * report of several recordings: the host of the event printed now
	 * (text: after the time; JSON: "host" and "wall_ns"); NULL: none.
	 */
	const char *host;
	/* Function pointers name their function (kernel targets only). */
	print_symbolize_fn symbolize;
	/* ':sym' names data too (tcp_prot); NULL: as symbolize.  SYM_CTX for both. */
	print_symbolize_fn symbolize_any;
	void *sym_ctx;
	/* USDT stacks (-s): user addresses, named in the process's objects. */
	print_usymbolize_fn usymbolize;
	void *usym_ctx;
	/*
	 * Text (--show-cgroup): each event names its task's cgroup (KSNOOP_EV_CGROUP)
	 * by this path; NULL: not named.  JSON always has its id.
	 */
	const char *(*cgroup_name)(void *ctx, __u64 id);
	void *cgroup_ctx;
};

/*
 * A comm or function name as an event's header writes it, escaped
 * (and quoted) once, kept by its bytes (printer__label()).  A name longer
 * than PRINT_LABEL_RAW is escaped every time: the memory is fixed.
 */
#define PRINT_LABELS		32
#define PRINT_LABEL_RAW		64

struct print_label {
	bool used;
	unsigned char raw_len;
	unsigned short len;
	/* How RAW was escaped: comm and function names are not escaped alike. */
	void (*escape)(struct obuf *b, const char *s, size_t n);
	char raw[PRINT_LABEL_RAW];
	char text[4 * PRINT_LABEL_RAW + 2];	/* "\xNN" a byte, and quotes */
};

struct printer {
	FILE *out;
	const struct report_ops *ops;	/* the format's (report__ops()) */
	struct print_opts opts;
	struct writer wr;
	/* Struct layouts printed so far (print.c); freed by printer__fini(). */
	struct layout_cache *layouts;
	/* Text: the clock time of second HMS_SECS, "HH:MM:SS" (empty: none yet). */
	__s64 hms_secs;
	char hms[12];
	/* --track --group: the first event's time of the object printed now (0: none) */
	__u64 group_start_ns;
	/*
	 * Work the walker did so far, in steps (print.c PRINT_STEPS_*): the
	 * tests measure how it grows with hostile BTF.
	 */
	__u64 steps;
	/* How the last printer__value() ended. */
	enum print_cut value_cut;
	struct print_label labels[PRINT_LABELS];
	/* --format=perfetto: the tracks' state its methods write from (report_perfetto.h) */
	struct perfetto *perfetto;
};

void printer__init(struct printer *p, FILE *out, const struct print_opts *opts);
void printer__fini(struct printer *p);

/*
 * S (N bytes) as ESCAPE (escape.h) writes it, kept in P's labels by its
 * bytes (print.c); NULL when S is longer than a label takes.
 */
const struct print_label *printer__label(struct printer *p, const char *s, size_t n,
					 void (*escape)(struct obuf *b, const char *s, size_t n));

/* One event: header, then its values as the plan describes them. */
void printer__event(struct printer *p, const struct capture_plan *plan,
		    const void *rec, size_t size);

/*
 * --track --group: what comes before an object's N events, which span
 * SPAN_NS and ended as END says (text "freed", "evicted" ...; JSON
 * END_WORD).  Text: "object 0xADDR: N event(s) in TIME, END"; JSON: a
 * record {"type":"object","object":"0x...","events":N,"span_ns":N,"end":...}.
 */
void printer__object(struct printer *p, __u64 addr, int n, __u64 span_ns, const char *end,
		     const char *end_word);

/* One value (text: "NAME = ..."; JSON: the value alone). */
void printer__value(struct printer *p, const struct btf *btf,
		    const struct value_desc *vd, const struct ksnoop_value *vh,
		    const void *data, int indent);

/*
 * A --by key NUM, the value VD describes (its bits alone, sign-extended
 * to 8 bytes), as an event prints that value: into TEXT the text form
 * ("SKB_DROP_REASON_NO_SOCKET", "-2 (ENOENT)", "tcp_prot"), into NAME
 * what JSON puts beside the number (the enumerator, the errno's name,
 * the symbol, the address; "" when the number says it all).
 */
void printer__key(const struct print_opts *opts, const struct btf *btf,
		  const struct value_desc *vd, __u64 num, char *text, size_t text_sz,
		  char *name, size_t name_sz);

/*
 * For the formats (report_text.c, report_json.c): -s's stack VH under
 * KEY (USER: a program's, of process PID); the index of PLAN's return
 * value among its return values (-1: none).
 */
void printer__stack(struct printer *p, const char *key, const struct ksnoop_value *vh,
		    bool user, __u32 pid);
int printer__return_index(const struct capture_plan *plan);

/* --tree: what the call in PLAN's return record REC returned, errors-wise (tree.h). */
enum tree_ret printer__call_return(const struct capture_plan *plan, const void *rec, size_t size,
				   int *code);

/* The plan of the target FUNC_ID names (NULL: none). */
typedef const struct capture_plan *(*print_plan_fn)(void *ctx, __u32 func_id);

/*
 * --tree: one session.  The root's return record REC, then its calls
 * (tree__assemble()d; FIRST, the root's first callee) as a tree.  Text:
 * the root's event, then a line per call, indented by depth, with its
 * values beneath; JSON: the root's event object with "calls".
 */
void printer__tree(struct printer *p, const struct capture_plan *root, const void *rec, size_t size,
		   const struct tree_call *calls, int first, print_plan_fn plan_of, void *ctx);

/*
 * The first of N return addresses (innermost first) that is the traced
 * code's: the tracer's own frames on top (its program, trampoline, the
 * tracepoint or kprobe runner) are left off, and so is any unnamed frame
 * there (programs loaded after kallsyms was read have no name; the traced
 * code always has one).  N if no frame is the traced code's.
 */
__u32 printer__stack_top(print_symbolize_fn symbolize, void *ctx, const __u64 *ips, __u32 n);

#endif
