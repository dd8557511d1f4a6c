/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The user-function front end: turns `u:BINARY:FUNC(...)` into targets the
 * shared resolver understands, as the USDT front end does for probes.
 * BINARY is a path, or a library's name found as the dynamic loader finds
 * it (/etc/ld.so.cache, then the standard directories) or, with -p PID,
 * as that process maps it.  FUNC is looked up in the file's one symbol
 * table (.symtab, else .dynsym) through the bounded ELF reader (usym_elf.h):
 * defined functions with a size.  A C++ function is named by its mangled
 * name or either demangled form, and shown demangled (demangle.h).
 *
 * A function's signature is a (struct btf *, BTF_KIND_FUNC id) pair, as a
 * kernel function's is.  Where the file (or its separate debug file, or a
 * .BTF section: dwarf_btf.h) describes the function, the pair is the one
 * its DWARF converts to: parameters by name and type, the return typed,
 * arguments in the ABI's registers and then on the user stack.  Where
 * nothing describes it (no debug info, an assembly function, a compiler's
 * clone such as "f.constprop.0" whose arguments are not its declaration's,
 * a probe at +OFFSET) it is untyped: `long FUNC(unsigned long arg0, ...,
 * unsigned long arg5)` in a BTF of ours, built in memory.  Either way
 * casts, formats, predicates, the printer, JSON and record files work on
 * it unchanged.  What debug info says the ABI puts where a uprobe does not
 * read (a struct, union or floating-point value passed or returned by
 * value, a variadic tail, an argument wider than a register) is refused:
 * a function named alone with an error, a glob's match left out.  So is
 * an IFUNC (its resolver, not what calls run: the refusal names the
 * implementations, __NAME_*, which a separate debug file's symbols find)
 * and a Go program's return (a uretprobe corrupts Go's stacks): its
 * functions are traced at their entry only.
 */
#ifndef KSNOOP_UFUNC_H
#define KSNOOP_UFUNC_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>
#include "ks_error.h"
#include "signature.h"
#include "spec.h"

/* Parameters of an untyped user function: the ABI's register arguments. */
#define UFUNC_UNTYPED_ARGS	6
/* Functions of one spec (a glob's matches), at most. */
#define UFUNC_MAX_MATCHES	4096
/* Functions listed from debug info (a stripped file's), at most: libc's has 3,000. */
#define UFUNC_MAX_DWARF_FUNCS	(1 << 20)
/* An executable's TLS segment, at most (glibc's static TLS is a few KiB). */
#define UFUNC_MAX_TLS		(1ULL << 30)
#define UFUNC_MAX_TLS_ALIGN	(1ULL << 20)
/* An IFUNC's implementations named in its refusal, at most (glibc's strlen has 5). */
#define UFUNC_IFUNC_LISTED	8
/* Bytes of /etc/ld.so.cache read, at most (a real one is ~100 KiB). */
#define UFUNC_MAX_LDCACHE	(16u << 20)

struct ufunc_front;

/* One function of a file: one uprobe (and uretprobe) at FILE_OFF. */
struct ufunc_match {
	const char *path;	/* the file as found (owned by the front end) */
	const char *attach_path;	/* the same file, opened once: /proc/self/fd/N */
	dev_t dev;
	ino_t ino;
	const char *name;	/* its symbol's name (owned by the front end) */
	const char *shown;	/* its name as shown: demangled where C++ (demangle.h), else NAME */
	const char *plain;	/* SHOWN without its C++ parameters: a typed prototype's name */
	__u64 addr;		/* its link-time address (+OFFSET) */
	__u64 off;		/* OFFSET: a probe inside it, which has no return */
	__u64 size;		/* its symbol's size */
	__u64 file_off;		/* where in the file the uprobe goes */
	int namesakes;		/* functions of its name in the file (local statics) */
	bool glob;		/* the spec names functions by a glob */
	bool typed;		/* the signature comes from debug info */
	bool ifunc;		/* an IFUNC's resolver (STT_GNU_IFUNC): refused */
	/* Where its types came from, or why it has none (owned by the front end) */
	const char *where;
	/* A glob's match its debug info refuses (a struct by value...): why; else NULL */
	const char *refused;
	/* Its signature: (sig.btf, sig.func_id) */
	struct signature sig;
};

struct ufunc_front *ufunc_front__new(void);
void ufunc_front__free(struct ufunc_front *fe);

/*
 * The functions SPEC (a SPEC_UFUNC) names: a name (each function of it,
 * one per address), a glob (one per address), NAME+OFFSET or 0xADDRESS.
 * PID > 0: a library's name is looked up in that process's maps first.
 * Returns the count (at least 1), *OUT freed with free(), or a negative
 * errno with E (its column where the spec is at fault): -ENOENT (no such
 * file, function), -EISDIR, -ENOEXEC (not ELF, no symbols), -ERANGE (an
 * offset past the function) are the user's; -ENOMEM is not.
 */
int ufunc_front__match(struct ufunc_front *fe, const struct spec *spec, int pid,
		       struct ufunc_match **out, struct ks_error *e);

/*
 * `info u:BINARY`: FN for each defined function of BINARY with a size,
 * in address order, one per address, NAME as shown (C++ demangled); where
 * its symbol table defines none (stripped), each function its debug info
 * has (a separate debug file's), size 0.  0, FN's error, or an errno with E.
 */
int ufunc_front__each(struct ufunc_front *fe, const char *binary, int pid,
		      int (*fn)(const char *name, __u64 addr, __u64 size, void *ctx), void *ctx,
		      struct ks_error *e);

/*
 * Completion of @NAME and @tls:NAME: FN for each variable BINARY's debug
 * info has (TLS ones only where BINARY is an executable: a library's are
 * not read).  0, FN's error, or an errno with E (no debug info: -ENOENT).
 */
int ufunc_front__each_var(struct ufunc_front *fe, const char *binary, int pid,
			  int (*fn)(const char *name, bool tls, void *ctx), void *ctx,
			  struct ks_error *e);

/*
 * The variables (@NAME, @tls:NAME) SPEC's items name, typed from the
 * debug info of the file at PATH (a USDT probe's: usdt_front.h), into
 * *OUT: OUT->n 0 when it names none.  0, or a negative errno with E (its
 * column the item's): no debug info, no such variable, a library's TLS.
 */
int ufunc_front__vars(struct ufunc_front *fe, const char *path, const struct spec *spec,
		      struct sig_vars *out, struct ks_error *e);

/* Where the function's types came from (or why it has none), for `info` and -v. */
const char *ufunc_match__types_where(const struct ufunc_match *m);

#endif
