/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDT probes as an ELF file declares them: one SystemTap SDT note
 * (.note.stapsdt, owner "stapsdt", type 3) per call site, holding the
 * site's address, the .stapsdt.base address it was linked against, the
 * semaphore's address (0 if none), provider, name, and an argument string
 * such as "-4@%edi 8@-16(%rbp)" (size, signedness, location).
 *
 * Used to list probes and to type their arguments; attaching is libbpf's
 * bpf_program__attach_usdt(), which reads the same notes, or ksnoop's own
 * (usdt_specs.h) for probes with locations libbpf does not parse.
 */
#ifndef KSNOOP_USDT_H
#define KSNOOP_USDT_H

#include <stdbool.h>
#include <linux/types.h>
#include "ksnoop.h"
#include "ks_error.h"

/* An SDT note allows 12 arguments; so do we (KSNOOP_MAX_ARGS). */
#define USDT_MAX_ARGS	KSNOOP_MAX_ARGS

/*
 * SDT notes read from one file, at most: one per call site.  Real programs
 * have hundreds to a few thousand (libjvm.so: 531 probes); a file with
 * more is refused rather than read into hundreds of megabytes.
 */
#define USDT_MAX_NOTES	65536

/*
 * The widest argument a note may declare.  Compilers write any size: gcc
 * and clang pass a struct by value as "16@%rsi", "24@8(%rsp)", "3@-32(%rbp)"
 * (sizeof the struct), a double as "8f@%xmm0" (sdt.h 4.x marks floats).
 * Such an argument is listed, and its probe left out (usdt__arg_unreadable()).
 */
#define USDT_MAX_ARG_SIZE	65535

struct usdt_arg {
	int size;		/* bytes: 1 to USDT_MAX_ARG_SIZE; libbpf reads 1, 2, 4 or 8 */
	bool is_signed;
	bool is_float;		/* "8f@...": a floating-point value */
	char loc[48];		/* as written in the note: "%edi", "-8(%rbp)", "$5" */
};

struct usdt_probe {
	char *provider;
	char *name;
	__u64 pc;		/* address of the call site */
	__u64 base;		/* .stapsdt.base at link time */
	__u64 sema;		/* semaphore address, 0 if none */
	int nargs;
	struct usdt_arg args[USDT_MAX_ARGS];
};

struct usdt_file {
	char *path;
	int nprobes;
	int cap;			/* probes allocated */
	struct usdt_probe *probes;	/* one per call site, in note order */
};

/*
 * Read every SDT note of the ELF file PATH.  Returns 0 (a file without
 * probes gives nprobes == 0) or a negative errno with a reason in E:
 * -ENOENT missing, -EISDIR a directory, -ENOEXEC not an ELF file or a
 * malformed one, -E2BIG more than USDT_MAX_NOTES notes; or what open()
 * said (-EACCES ...), or -ENOMEM.
 */
int usdt__read(const char *path, struct usdt_file **out, struct ks_error *e);
/*
 * The same in two steps, for a caller that keeps the file open: open PATH
 * (a regular file, or the errors above) and return the descriptor; read the
 * notes of the file open as FD, named PATH in messages.
 */
int usdt__open(const char *path, struct ks_error *e);
int usdt__read_fd(int fd, const char *path, struct usdt_file **out, struct ks_error *e);
void usdt__free(struct usdt_file *f);

/* Parse one note argument ("-4@%edi", "16@8(%rsp)", "8f@%xmm0"); 0 or -EINVAL. */
int usdt__parse_arg(const char *spec, struct usdt_arg *arg);

/*
 * NULL when ksnoop can read ARG (libbpf itself, or ksnoop's own attach:
 * usdt_specs.c); otherwise why not, as a phrase: what the value is ("a
 * 16-byte value", "a floating-point value") or where ("not a general
 * register").  WHY holds the phrase when it names the size.
 */
#define USDT_WHY_MAX	96
const char *usdt__arg_unreadable(const struct usdt_arg *arg, char why[USDT_WHY_MAX]);
/*
 * libbpf (1.5) parses ARG's location itself.  It refuses a whole probe
 * when one argument at one site is not so (PostgreSQL's "NBuffers(%rip)",
 * a scaled index "-4@-1204(%rbp,%rax,4)"): ksnoop attaches such a probe's
 * sites itself.
 */
bool usdt__arg_libbpf(const struct usdt_arg *arg);

/* A location decoded (usdt_arch__parse_loc()). */
#define USDT_SYM_MAX	48
enum usdt_loc_kind { USDT_LOC_CONST, USDT_LOC_REG, USDT_LOC_MEM };
struct usdt_loc {
	enum usdt_loc_kind kind;
	__s64 off;		/* CONST: the value; MEM: the offset added */
	int base;		/* REG, MEM: offsetof(struct pt_regs, reg), or -1 */
	int index;		/* MEM: the index register's offset, or -1 */
	int scale;		/* MEM: the index's factor: 1, 2, 4 or 8 */
	bool ip_rel;		/* MEM: base is the instruction pointer, and ... */
	char sym[USDT_SYM_MAX];	/* ... the symbol whose address it is, "" if none */
};

/*
 * The architecture's part (usdt_x86.c, usdt_arm64.c): decode LOC as the
 * note writes it into L: NULL, or why not as a phrase.  And whether
 * libbpf's own parser takes LOC.
 */
const char *usdt_arch__parse_loc(const char *loc, struct usdt_loc *l);
bool usdt_arch__libbpf_parses(const char *loc);
/* aarch64's, built on every host so that its unit tests run anywhere. */
const char *usdt_arm64__parse_loc(const char *loc, struct usdt_loc *l);
bool usdt_arm64__libbpf_parses(const char *loc);
/* An integer of 1, 2, 4 or 8 bytes, the only values libbpf reads (and typed as such). */
bool usdt__arg_is_int(const struct usdt_arg *arg);

/*
 * Shared objects mapped executable by process PID (from /proc/PID/maps),
 * the main executable first.  Returns the count, filling PATHS (caller
 * frees each and the array), or a negative errno.
 */
int usdt__process_objects(int pid, char ***paths);

/*
 * The first of them (usdt__process_objects()) whose file name MATCHES
 * says NAME names, its path in OUT (SZ bytes; a longer path is not
 * taken).  0, -ENOENT, or the negative errno of reading the maps.
 */
int usdt__process_object_named(int pid, const char *name,
			       bool (*matches)(const char *file, const char *name),
			       char *out, size_t sz);

/* Past a decimal number as libbpf's "%ld" reads it (a sign, digits); NULL: none. */
const char *usdt__skip_number(const char *p);

#endif
