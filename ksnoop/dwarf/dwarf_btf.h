/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One ELF file's debug information, as BTF built in memory on demand
 * (dwarf_btf.c): the types of a user function, a global or a thread-local
 * variable, converted from DWARF (elfutils' libdw) so that the resolver,
 * the printer, the record file and JSON stay BTF-only.
 *
 * Where the DWARF is found, in this order (what gdb does): the file's own
 * .debug_info; DEBUG_ROOT/.build-id/NN/REST.debug from the file's build-id
 * note (its own build-id must match); the file's .gnu_debuglink, in the
 * file's directory DIR, DIR/.debug/ and DEBUG_ROOT/DIR/, with its CRC-32
 * checked; else the file's .BTF section, if it has one.  DEBUG_ROOT is
 * /usr/lib/debug unless the caller names another (the tests do).
 *
 * Names: a function is known by its qualified name (C++: "ns::Conn::read",
 * the scopes of its declaration joined by "::") and by its linkage name
 * (the mangled one) when it has one; either finds it, and its BTF FUNC
 * carries the qualified name.  Types keep DWARF's own, unqualified name
 * (as pahole names them): "Conn", not "ns::Conn".  C++ classes are
 * structs; a base class an unnamed member at its offset; references
 * pointers; `this` is the methods' first parameter, as DWARF lists it.
 *
 * The files are the user's: every walk is bounded (DWBTF_MAX_* below),
 * cycles by value and references out of range are refused with one line
 * naming the file.
 */
#ifndef KSNOOP_DWARF_BTF_H
#define KSNOOP_DWARF_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "ks_error.h"

struct btf;
struct dwbtf;

/* Where separate debug files live, unless the caller names another root. */
#define DWBTF_DEBUG_ROOT "/usr/lib/debug"

/*
 * Limits, each a bound on what a hostile file can make ksnoop do.  libc's
 * debug file (libc6-dbg, 4 MB with compressed sections, 2,063 CUs) needs
 * a tenth of each.
 */
/* Bytes of one ELF file read (it is read whole: no mapping to SIGBUS). */
#define DWBTF_MAX_FILE		(1ULL << 30)
/* Bytes of debug sections after decompression, all of them together. */
#define DWBTF_MAX_INFLATED	(2ULL << 30)
/* Nesting of one type in another while converting (libbpf stops at 32). */
#define DWBTF_MAX_DEPTH		64
/* DIEs one call may visit (a struct member, an enumerator, a CU...). */
#define DWBTF_MAX_VISITS	(8u << 20)
/* Bytes of BTF built for one file, all calls together. */
#define DWBTF_MAX_BTF		(64u << 20)
/* Functions and variables indexed by name. */
#define DWBTF_MAX_SYMS		(1u << 21)
/* Scopes (namespaces, classes) nested around one function. */
#define DWBTF_MAX_SCOPES	16
/* Hops from a definition to its declaration (DW_AT_specification...). */
#define DWBTF_MAX_ORIGIN	8
/* Dimensions of one array. */
#define DWBTF_MAX_DIMS		16
/* Wall-clock time of one call, in milliseconds. */
#define DWBTF_MAX_MS		20000

/*
 * Open the ELF file PATH and find its debug information (see above);
 * DEBUG_ROOT NULL means DWBTF_DEBUG_ROOT.  0, or a negative errno with E
 * saying why in one line: no debug information anywhere names every
 * place looked (-ENOENT); not an ELF file, a malformed one or a limit
 * passed, -ENOEXEC or -E2BIG.
 */
int dwbtf__open(const char *path, const char *debug_root, struct dwbtf **out,
		struct ks_error *e);
/* The same on an opened file FD (read by pread(); NAME for messages). */
int dwbtf__open_fd(int fd, const char *name, const char *debug_root, struct dwbtf **out,
		   struct ks_error *e);
/* The same on a file in memory (copied); no separate debug file looked for. */
int dwbtf__open_mem(const void *buf, size_t size, const char *name, struct dwbtf **out,
		    struct ks_error *e);
void dwbtf__close(struct dwbtf *d);

/* Where the debug information came from: a path, or "PATH (.BTF)". */
const char *dwbtf__source(const struct dwbtf *d);

/* The BTF built so far: standalone (no base); owned by D. */
struct btf *dwbtf__btf(const struct dwbtf *d);

/*
 * The function NAME (qualified or linkage name) as a BTF_KIND_FUNC whose
 * FUNC_PROTO has the parameters' names and types, converting only the
 * types it needs (each DIE once).  Refused with one line: no such
 * function (-ENOENT), only inlined copies (-ENOENT), a struct, union or
 * floating-point parameter passed by value or a variadic tail (-EINVAL).
 */
int dwbtf__func(struct dwbtf *d, const char *name, __u32 *func_id, struct ks_error *e);

/*
 * The global or thread-local variable NAME: its type, and its link-time
 * address (TLS: its offset in the module's TLS block, *TLS set).
 */
int dwbtf__var(struct dwbtf *d, const char *name, __u32 *type_id, __u64 *addr, bool *tls,
	       struct ks_error *e);

/*
 * CB for every function with an out-of-line copy (qualified name, entry
 * address), in DWARF's order; a non-zero return stops the walk and is
 * returned.
 */
int dwbtf__each_func(struct dwbtf *d, int (*cb)(const char *name, __u64 addr, void *ctx),
		     void *ctx);

/*
 * The type of the variable NAME whose definition has no location: gcc 12
 * on aarch64 writes none for a thread-local variable (it has no DWARF
 * form for the TLS offset there), which the symbol table's STT_TLS
 * symbol gives instead.  0, or -ENOENT with E.
 */
int dwbtf__var_type(struct dwbtf *d, const char *name, __u32 *type_id, struct ks_error *e);

/*
 * CB for every global or thread-local (TLS) variable with a location
 * dwbtf__var() reads, in DWARF's order (a name may come twice); a
 * non-zero return stops the walk and is returned.  None from a .BTF.
 */
int dwbtf__each_var(struct dwbtf *d, int (*cb)(const char *name, bool tls, void *ctx),
		    void *ctx);

#endif
