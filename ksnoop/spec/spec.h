/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The spec language, parsed.  Knows nothing of BTF or libbpf: it turns
 *
 *     SPEC    := [tp:|sys:|MODULE:]TARGET ['@' ADDRESS] [ '(' [ITEM {',' ITEM}] ')' ]
 *              | 'u:' BINARY ':' UFUNC [ '(' [ITEM {',' ITEM}] ')' ]
 *     BINARY  := a path (with a '/'), or a library's name ("libc": as the
 *                dynamic loader finds it, or as -p PID maps it); no ':'
 *     UFUNC   := NAME ['+' OFFSET] | GLOB | '0x' HEX | "'" NAME "'"
 *                (a user function: a symbol of BINARY; quoted, a C++
 *                name with '::', '(' or spaces; OFFSET decimal or 0x hex)
 *     TARGET  := name, or a glob (fnmatch: * ? [...]) for kernel functions
 *     ADDRESS := hex digits, 0x optional: which of the kernel functions
 *                of that name (static ones in several files), as
 *                kallsyms and `info NAME` give it
 *     ITEM    := DECL | ...   DECL := TYPE NAME ("struct sk_buff *s": NAME is
 *                whichever argument has TYPE)
 *     ITEM    := VALUE [':' FORMAT] [ '&' MASK ] [ OP CONST ]
 *     VALUE   := '*' VALUE | '(' TYPE ')' VALUE | POSTFIX
 *     POSTFIX := PRIMARY { '->' MEMBER | '.' MEMBER | '[' INDEX ']' }
 *     PRIMARY := NAME | '(' VALUE ')'
 *     NAME    := argument name | 'return' | argN[:str | :str(LEN) | :TYPE] (USDT)
 *     FORMAT  := 'hex' | 'be' | 'ip' | 'sym' | 'str' | 'str(' LEN ')' | 'tuple'
 *     LEN     := the name of the argument that holds the string's length
 *     OP      := '==' | '!=' | '<' | '<=' | '>' | '>='
 *     CONST   := integer | 'c' | "string" | NULL | ENUMERATOR
 *
 * As in C, postfix steps bind tighter than '*' and casts: `*a->b` is
 * `*(a->b)`, `(T *)a->b` casts `a->b`; `((T *)a)->b` casts `a`.
 *
 * into a tree with column numbers, so the resolver can name the exact token
 * that does not fit the target's types.
 */
#ifndef KSNOOP_SPEC_H
#define KSNOOP_SPEC_H

#include <stdbool.h>
#include <stdint.h>
#include "ksnoop.h"
#include "ks_error.h"

#define SPEC_MAX_ITEMS	KSNOOP_MAX_VALUES
#define SPEC_MAX_STEPS	32	/* syntax limit; the resolver enforces derefs */
#define SPEC_MAX_NAME	128	/* longest identifier or target name */
#define SPEC_MAX_TYPE	(4 * SPEC_MAX_NAME)	/* longest type, words and '*'s */
#define SPEC_MAX_STR	(KSNOOP_MAX_PRED_STR - 1)
#define SPEC_MAX_DECLS	4

enum spec_kind {
	SPEC_KFUNC,	/* kernel function */
	SPEC_TP,	/* tp:NAME, a tracepoint; also sys:NAME, its target "sys:NAME" */
	SPEC_USDT,	/* BINARY:PROVIDER:NAME */
	SPEC_UFUNC,	/* u:BINARY:FUNC, a function of a user program or library */
};

enum spec_step_kind {
	STEP_ARROW,	/* ->member */
	STEP_DOT,	/* .member */
	STEP_INDEX,	/* [n] */
	STEP_DEREF,	/* a leading '*' */
	STEP_CAST,	/* (TYPE), or USDT's argN:TYPE */
};

/* How a value is shown, from its ":FORMAT" suffix. */
enum spec_format {
	FMT_NONE,
	FMT_HEX,	/* an integer or pointer in hex */
	FMT_BE,		/* a big-endian integer, in host order */
	FMT_IP,		/* a 4- or 16-byte IPv4 or IPv6 address */
	FMT_SYM,	/* a kernel address as symbol+0xoff [module] */
	FMT_STR,	/* a pointer to a NUL-terminated string */
	FMT_TUPLE,	/* a struct sk_buff * or struct sock *: addresses, ports, protocol */
	FMT_SIGNAL,	/* an integer signal number as its name: SIGKILL */
	FMT_TCPSTATE,	/* an integer TCP state as the kernel's enumerator: TCP_SYN_SENT */
	FMT_STRV,	/* a char ** (argv): its NULL-terminated list of strings */
	FMT_NR,		/* how many there are (a record file's bound) */
};

struct spec_step {
	enum spec_step_kind kind;
	char *member;		/* STEP_ARROW, STEP_DOT */
	char *type;		/* STEP_CAST: "struct sockaddr_in *", spaces normalised */
	bool usdt_word;		/* STEP_CAST from argN:TYPE: "struct req" is a pointer */
	int64_t index;		/* STEP_INDEX */
	int pos;		/* column of the member name, index, '*' or type */
	int op_pos;		/* column of the '->', '.', '[', '*' or '(' */
};

enum spec_const_kind {
	CONST_INT,		/* integer or character literal */
	CONST_STR,		/* "string" */
	CONST_NAME,		/* NULL or an enumerator, resolved later */
};

struct spec_const {
	enum spec_const_kind kind;
	uint64_t mag;		/* magnitude of an integer */
	bool neg;		/* integer written with a leading '-' */
	char *str;		/* CONST_STR, CONST_NAME */
	int pos;
};

struct spec_item {
	char *text;		/* the value in one canonical spelling (see spec.c) */
	char *base;		/* argument name, "return" or "argN" */
	int base_pos;
	int nsteps;		/* steps from the base outwards, in C's order */
	struct spec_step steps[SPEC_MAX_STEPS];
	enum spec_format fmt;
	int fmt_pos;
	char *str_len;		/* ":str(LEN)": the argument holding the length */
	int str_len_pos;
	bool has_pred;
	enum ksnoop_op op;
	int op_pos;
	struct spec_const cst;
	/* "VALUE >> N": the printed value shifted right N bits, in userspace */
	unsigned int shift;
	int shift_pos;
	/* "VALUE & MASK [OP CONST]": alone, true when any bit of MASK is set */
	bool has_mask;
	uint64_t mask;
	int mask_pos;
};

/* "struct sk_buff *s": S names whichever argument has that type. */
struct spec_decl {
	char *type;		/* "struct sk_buff *", spelled as casts are */
	char *name;
	int type_pos, name_pos;
};

struct spec {
	enum spec_kind kind;
	char *text;		/* the whole spec as given */
	char *target;		/* function / tracepoint / probe name, or a glob */
	int target_pos;
	char *module;		/* "MODULE:GLOB": only MODULE's functions ("vmlinux": the kernel's) */
	bool is_glob;		/* the function or tracepoint name has '*', '?' or '[' */
	uint64_t addr;		/* NAME@ADDRESS: that function of the name alone; 0: all */
	int addr_pos;
	int ndecls;
	struct spec_decl decls[SPEC_MAX_DECLS];
	/* SPEC_UFUNC: the file, FUNC+OFFSET's offset, 0xADDRESS's address */
	char *binary;
	int binary_pos;
	uint64_t uoffset;
	uint64_t uaddr;		/* 0: the target is a name or a glob */
	bool has_list;		/* parentheses given: only the named values */
	int nitems;
	struct spec_item items[SPEC_MAX_ITEMS];
};

/*
 * Parse TEXT as KIND (SPEC_KFUNC also accepts the tp: prefix and becomes
 * SPEC_TP, and sys:, which becomes SPEC_TP with "sys:" kept in the target).  Returns 0, or -EINVAL with ERR filled in (its column in TEXT),
 * or -ENOMEM.  SPEC is zeroed first; free it with spec__free() in both cases.
 */
int spec__parse(const char *text, enum spec_kind kind, struct spec *spec,
		struct ks_error *err);
void spec__free(struct spec *spec);

/*
 * --by KEY[,KEY]...: the parts of a count's key, in the order given (its
 * columns), at most KSNOOP_BY_PARTS: words (comm, pid, tid, cpu), each
 * once, and at most one VALUE the spec names (resolved per target).
 */
struct spec_by {
	int n;
	char part[KSNOOP_BY_PARTS][SPEC_MAX_NAME * 2];
	__u8 word[KSNOOP_BY_PARTS];	/* enum ksnoop_by; NONE: the VALUE */
	int value;			/* the VALUE's part, -1: none */
};
/* ARG into BY; 0, or -EINVAL with E's one line naming the part at fault. */
int spec__parse_by(const char *arg, struct spec_by *by, struct ks_error *e);
/* The word W names (comm ...), KSNOOP_BY_NONE for a VALUE. */
enum ksnoop_by spec__by_word(const char *w);

/* True if ITEM refers to the return value. */
bool spec_item__is_return(const struct spec_item *item);

const char *spec_op__str(enum ksnoop_op op);
const char *spec_format__str(enum spec_format fmt);

/* A system call's paired events, sys:NAME (a SPEC_TP whose target says "sys:"). */
bool spec__is_syscall(const struct spec *s);

/* Whether an item reads a variable of the traced file (@NAME, @tls:NAME). */
bool spec__reads_vars(const struct spec *s);

#endif
