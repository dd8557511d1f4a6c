/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * System calls as targets, typed from tracefs.  BTF types only some
 * syscalls (and their functions' names differ by architecture); tracefs's
 * events/syscalls/sys_{enter,exit}_NAME/format files describe every one,
 * architecture-neutral, as C declarations with offsets in the record:
 *
 *	field:const char * filename;	offset:24;	size:8;	signed:0;
 *
 * This module parses those files and maps their C types onto vmlinux BTF
 * types, so that a syscall's arguments are values like any other.  No
 * tracefs access here: the caller reads the files (kernel.c), the unit
 * tests give them as strings.
 */
#ifndef KSNOOP_SYSCALL_H
#define KSNOOP_SYSCALL_H

#include <stdbool.h>
#include <linux/types.h>
#include "ks_error.h"
#include "signature.h"

struct btf;

#define SYSCALL_MAX_FIELDS	16	/* a syscall has at most 6 arguments */
#define SYSCALL_MAX_CTYPE	64

/* One field of a format file, past the common ones and __syscall_nr. */
struct syscall_field {
	char ctype[SYSCALL_MAX_CTYPE];	/* "const char *", "struct sockaddr __user *" */
	char name[32];
	int offset, size;
	bool is_signed;
};

/*
 * The argument fields of format file TEXT into FIELDS[0..MAX): their
 * count, or -EINVAL when TEXT is not a format file.
 */
int syscall_format__parse(const char *text, struct syscall_field *fields, int max);

/*
 * The BTF type for C type CTYPE of a field SIZE bytes wide: the type BTF
 * has by that name (typedefs such as umode_t, integers by meaning, pointers
 * to a struct), qualifiers and __user dropped; else an integer of SIZE
 * bytes and that sign.  0 when BTF has not even that.
 */
__u32 syscall_format__btf_type(const struct btf *btf, const char *ctype, int size,
			       bool is_signed);

/*
 * Fill SIG for a syscall event from its format files' text: ENTER alone
 * (sys_enter_NAME: the arguments), EXIT alone (sys_exit_NAME: ret), or
 * both (sys:NAME: the arguments, and ret as the return).  SHOWN is the
 * name shown, ATTACH the event (sys_enter_NAME) or the syscall (NAME).
 * Each argument's slot is its 8-byte word in the record.  0, or -EINVAL
 * with E.
 */
int signature__from_syscall(const struct btf *btf, const char *shown, const char *attach,
			    const char *enter, const char *exit, struct signature *sig,
			    struct ks_error *e);

#endif
