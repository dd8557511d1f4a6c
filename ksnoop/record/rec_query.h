/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Questions asked of a recording at report time: `ksnoop report FILE
 * SPEC...` keeps the events of the targets the SPECs name (names and
 * globs, as the live run names its targets) whose predicates hold over
 * the values the recording captured.  The SPECs are parsed by the live
 * parser (spec.c); a predicate is evaluated here, in userspace, over the
 * recorded bytes and the recorded plan (the value of the same text, its
 * type from the file's BTF).  Nothing is read that was not recorded: a
 * predicate on a value the recording did not capture is refused, naming
 * it, before any event is read.
 *
 * An event is kept when its target is named and every predicate of that
 * spec holds over the event; an event that does not carry a predicate's
 * value (a call's entry event, for a predicate on its return) is not
 * kept.  A spec without predicates keeps every event of its targets.
 */
#ifndef KSNOOP_REC_QUERY_H
#define KSNOOP_REC_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "ks_error.h"
#include "recfile.h"

struct rec_query;

/*
 * The N SPECS asked of R; NULL and E (-EINVAL: a spec that does not
 * parse, names no recorded target, or a predicate on a value not
 * captured or not comparable; -ENOMEM) on failure.
 */
struct rec_query *rec_query__new(const struct recfile *r, char *const *specs, int n,
				 struct ks_error *e);
/*
 * As rec_query__new(), for one of several recordings merged: a SPEC that
 * names no target of R is no error (another recording may have it);
 * MATCHED (N of them) says which SPECs named one here.
 */
struct rec_query *rec_query__new_some(const struct recfile *r, char *const *specs, int n,
				      bool *matched, struct ks_error *e);
/* Whether the record REC (checked by recfile__next()) answers Q. */
bool rec_query__keep(const struct rec_query *q, const void *rec);
void rec_query__free(struct rec_query *q);
/*
 * The values the SPEC naming FUNC_ID names without a predicate (what
 * --hist counts by), *FIRST the first: how many; -1 when no SPEC with a
 * value list names it.
 */
int rec_query__values(const struct rec_query *q, __u32 func_id, const char **first);
/* Whether a SPEC of Q names target FUNC_ID. */
bool rec_query__names(const struct rec_query *q, __u32 func_id);
/*
 * The side (KSNOOP_ENTRY, KSNOOP_RETURN) whose events the predicates on
 * target FUNC_ID read: a call is counted there; -1: no predicate.
 */
int rec_query__side(const struct rec_query *q, __u32 func_id);

/* The value of TEXT that plan P recorded, on either side; false: none. */
bool rec_query__value(const struct capture_plan *p, const char *text, int *kind, int *idx);

/*
 * Where a value lies in what a plan recorded: a recorded value itself, or
 * a member inside a recorded struct's bytes ("p->seq", "p->a.b[2]" when
 * "p" was recorded, dumped whole).
 */
struct rec_loc {
	int kind, idx;		/* the recorded value: plan.values[kind][idx] */
	bool member;		/* a member inside it, not the value itself */
	__u32 type_id;		/* the type read there (typedefs kept) */
	__u32 off, size;	/* its bytes, from the start of the recorded bytes */
	__u8 bit_off;		/* a bitfield: its bits from the first of those bytes, */
	__u8 bit_size;		/* and how many (0: not a bitfield) */
};

/*
 * TEXT (a canonical spec value: "p->seq") in plan P, whose types are
 * BTF's (the file's), into LOC: 0; -ENOENT when neither TEXT nor a prefix
 * of it is recorded (E untouched: the caller names what asked); -EINVAL
 * with E when a prefix was recorded but the rest is not in its bytes (a
 * pointer followed, no such member, beyond the bytes the plan records).
 * TNAME names the target in messages, after OPT, the option that asks
 * ("report: --by: ..."; NULL or "": a predicate, "report: ...").
 */
int rec_query__locate(const struct capture_plan *p, const struct btf *btf, const char *text,
		      const char *tname, const char *opt, struct rec_loc *loc,
		      struct ks_error *e);

/* Where value IDX of side KIND of P lies: the recorded value itself, into LOC. */
void rec_query__value_loc(const struct capture_plan *p, int kind, int idx, struct rec_loc *loc);

/*
 * What LOC holds, as a predicate, --hist and --by read it: an integer
 * of at most 8 bytes, a string (a recorded string, a char array), or
 * neither (a struct, a tuple, a stack).
 */
enum rec_loc_form { REC_LOC_OTHER, REC_LOC_INT, REC_LOC_STR };
enum rec_loc_form rec_query__loc_form(const struct capture_plan *p, const struct btf *btf,
				      const struct rec_loc *loc);

/*
 * What LOC locates in REC, of PLAN, as a 64-bit integer (IS_SIGNED:
 * sign-extended; a bitfield's bits alone, as the printer reads them):
 * false when it is not an integer of at most 8 bytes or was not read.  A
 * member is read only where REC's bytes of its value hold all of it (a
 * record shorter than its plan says, truncated or hostile, does not
 * hold it: false).
 */
bool rec_query__loc_int(const struct capture_plan *plan, const struct rec_loc *loc,
			const void *rec, bool is_signed, __u64 *v);

/*
 * The string at LOC (a REC_LOC_STR) in REC: *DATA and *LEN, its bytes up
 * to the first NUL within what was read (a member's: within its array);
 * false when REC does not hold it, as rec_query__loc_int().
 */
bool rec_query__loc_str(const struct capture_plan *plan, const struct rec_loc *loc,
			const void *rec, const char **data, size_t *len);

#endif
