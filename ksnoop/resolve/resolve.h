/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The resolver: a parsed spec plus the target's signature from BTF in, a
 * capture plan out.  The plan has two halves: `bpf`, the fixed-layout
 * struct written into the program's .rodata (offsets, sizes, predicates),
 * and `values`, what userspace needs to print each captured value (its BTF
 * type and how the bytes relate to it).  Knows nothing of the terminal or of
 * how programs are loaded.
 */
#ifndef KSNOOP_RESOLVE_H
#define KSNOOP_RESOLVE_H

#include <stdbool.h>
#include "cli.h"
#include "ksnoop.h"
#include "signature.h"
#include "spec.h"

struct btf;
struct pfilter;

enum print_how {
	PRINT_VALUE,	/* the bytes are an object of type_id */
	PRINT_DEREF,	/* type_id is a pointer; bytes are its pointee, obj_id */
	PRINT_STRING,	/* type_id is a char pointer; bytes are the string */
	PRINT_BYTES,	/* type_id is a u8 pointer; bytes are the first it points at */
	PRINT_STACK,	/* -s: return addresses, innermost first (no type) */
	PRINT_SKB_TUPLE,	/* ':tuple': a struct ksnoop_skb_tuple (tuple.h) */
	PRINT_SOCK_TUPLE,	/* ':tuple': a struct ksnoop_sock_tuple */
	PRINT_USTACK,	/* --ustack: the task's user return addresses, innermost first */
	PRINT_STRV,	/* ':strv': a struct ksnoop_strv, the strings of a char ** */
	PRINT_SKB_PACKET,	/* --pcap: a struct ksnoop_skb_packet, written to the file, not printed */
};

/* What userspace needs to print one captured value. */
struct value_desc {
	const char *text;	/* as the user wrote it: "skb->len" */
	__u32 type_id;		/* declared type, typedefs kept */
	__u32 obj_id;		/* type of the bytes (pointee for PRINT_DEREF) */
	enum print_how how;
	__u32 size;		/* bytes asked for */
	__u32 obj_size;		/* size of the whole object (> size: truncated) */
	__u8 bit_off;		/* bitfield: bit offset within the bytes */
	__u8 bit_size;		/* bitfield width, 0 if not a bitfield */
	enum spec_format fmt;	/* ":hex", ":be", ":ip", ":sym", ":str", ":tuple" */
	/*
	 * A return code (a kernel function's or a system call's): -1 to
	 * -4095 print as an errno's name, a pointer there as ERR_PTR().
	 */
	bool errno_names;
	__u8 shift;		/* "VALUE >> N": printed shifted right N bits */
	char obj_name[96];	/* PRINT_DEREF: the pointee's type, spelled once */
};

struct resolve_opts {
	__u32 max_bytes;	/* largest value copied */
	__u32 str_bytes;	/* buffer for a string behind a pointer */
	/* Casts find their types here: "vmlinux BTF", "the BTF of './app'". */
	const char *types_where;
	bool user_space;	/* USDT: values are user addresses (no ':sym') */
	bool stack;		/* -s: each event carries the stack at its probe */
	bool ustack;		/* --ustack: and the current task's user stack */
	/*
	 * --count, --hist: calls are counted (one side only), by the log2
	 * of one value for --hist; OUTPUT_EVENTS: recorded.
	 */
	enum output_mode output;
	/* --min-duration: only calls this long, entry values with the return */
	__u64 min_duration_ns;
	/* --by: comm, pid, tid, cpu or a value the spec names (NULL: none) */
	const char *by;
	/* --tree: every call reported at its return, entry values with it */
	bool tree;
	/* --hist=linear (hist_step 0: log2) */
	__s64 hist_min;
	__u64 hist_step;
	__u32 hist_nbuckets;
	/*
	 * --pair: the START's spec (every other spec is the END); its one
	 * value (or the thread) is the key; NULL: no pairing.
	 */
	const struct spec *pair_start;
	/* --pcap: bytes of each skb's packet copied (0: no packets) */
	__u32 snaplen;
	/*
	 * --filter: the compiled filter (NULL: none), judging each target's
	 * first struct sk_buff * at the entry, up to filter_snaplen bytes
	 */
	const struct pfilter *filter;
	__u32 filter_snaplen;
	/*
	 * --netns: only calls whose skb (its device's) or sock is in the
	 * network namespace of this inode number (0: any): a predicate on
	 * the first struct sk_buff * or struct sock * argument.
	 */
	__u32 netns_ino;
};

/* Member names resolved through embedded structs, said with -v. */
#define PLAN_MAX_ALIASES	8

struct capture_plan {
	/*
	 * sig.btf is the signature's BTF, or ext_btf when a cast needed a
	 * pointer type that BTF lacks (ext_btf sits on top of it).
	 */
	struct signature sig;
	struct btf *ext_btf;
	int nvalues[KSNOOP_NR_KINDS];
	struct value_desc values[KSNOOP_NR_KINDS][KSNOOP_MAX_VALUES];
	struct ksnoop_plan bpf;
	/* "sk_prot is __sk_common.skc_prot (struct sock)" */
	int naliases;
	char aliases[PLAN_MAX_ALIASES][160];
	char hist_text[SPEC_MAX_NAME * 2];	/* --hist: the value counted by ("duration_ns") */
	/*
	 * --by VALUE, an integer: the key as an event prints the value (its
	 * type, format, errno names; bit_off 0: BPF keeps the bits alone).
	 * type_id 0: none.
	 */
	struct value_desc by_desc;
	char hist_label[SPEC_MAX_NAME * 2];	/* the same, for text ("duration": its labels carry units) */
	/* --filter: the skb it judges (enabled 0: no filter), for filter_plan in .rodata */
	struct ksnoop_filter_plan filter;
};

/*
 * Resolve SPEC against SIG into PLAN.  Returns 0, or -EINVAL with ERR
 * naming the token (by column in spec->text) and what is wrong with it.
 */
int resolver__resolve(const struct spec *spec, const struct signature *sig,
		      const struct resolve_opts *opts, struct capture_plan *plan,
		      struct ks_error *err);
/*
 * kprobe plans whose BPF halves are equal but for func_id and the number
 * of argument words (same words read, offsets, sizes, predicates), or
 * but for their values where those may vary (resolver__group()), can
 * share one program, told apart by BPF cookies: a hash to group by, and
 * the comparison that decides.  The resolver zeroes a plan before filling
 * it, so padding compares too.
 */
__u64 resolver__program_hash(const struct capture_plan *plan);
bool resolver__same_program(const struct capture_plan *a, const struct capture_plan *b);

/* Does BP's program take the stack (-s) on either side? */
bool resolver__takes_stack(const struct ksnoop_plan *bp);
/* Does BP's program take a user stack (USDT's -s, or --ustack) on either side? */
bool resolver__takes_user_stack(const struct ksnoop_plan *bp);
/*
 * The program GROUP of the leading plans of PLANS[0..N), which
 * resolver__same_program() found equal; returns how many of them it
 * serves (at least one).  Plans that differ in their values alone
 * (no stash, no stack) share it through KSNOOP_PLAN_FUNC_VALUES: the
 * record layout gives each value the most room any member needs (as
 * long as a record stays within KSNOOP_MAX_GROUP_RECORD), and each
 * member's rec_off and rec_size are rewritten to it, for the printer.
 */
int resolver__group(struct capture_plan **plans, int n, struct ksnoop_plan *group);
/* PLAN's values, as a KSNOOP_PLAN_FUNC_VALUES group's func_values map holds them. */
void resolver__func_values(const struct capture_plan *plan, struct ksnoop_func_values *fv);

/*
 * --tree: the inner calls' records wait in BPF in elements of one size,
 * the largest inner record's (at most KSNOOP_TREE_REC_MAX): every plan
 * of the tree among PLANS[0..N) gets it as bpf.tree_rec_size, for the
 * map and for the verifier.  0, or -EINVAL with E saying how big the
 * record of PLANS[*BAD] is.
 */
int resolver__tree_sizes(struct capture_plan **plans, int n, int *bad, struct ks_error *e);

/*
 * Where member NAME of the struct or union ID of BTF is, looking into
 * anonymous members as a spec's chain does: 0 with *BIT_OFF from the
 * start of ID, or -ENOENT.
 */
int resolver__member_offset(const struct btf *btf, __u32 id, const char *name, __u32 *bit_off);
/*
 * As resolver__member_offset(), with the member's type (typedefs kept)
 * and its bitfield width in *BIT_SIZE (0: not a bitfield).
 */
int resolver__member(const struct btf *btf, __u32 id, const char *name, __u32 *type_id,
		     __u32 *bit_off, __u32 *bit_size);

/*
 * --pcap: the first parameter of SIG that is a struct sk_buff * (its
 * index, *SID the struct), or -1: where a target's packet comes from.
 */
int resolver__skb_param(const struct signature *sig, __u32 *sid);

/* Free what resolving allocated (a plan is otherwise plain memory). */
void resolver__release(struct capture_plan *plan);

#endif
