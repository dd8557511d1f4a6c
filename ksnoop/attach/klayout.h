/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * klayout: where the running kernel keeps what the capture programs read
 * of its own structures (include/ksnoop.h's enum ksnoop_kfield: the task's
 * name, its saved thread pointer, its rseq area, a system call's registers),
 * found by name in its vmlinux BTF and written into each program's .rodata
 * before load, where CO-RE relocations found them before (see ksnoop.h
 * for why).
 */
#ifndef KSNOOP_KLAYOUT_H
#define KSNOOP_KLAYOUT_H

#include <stddef.h>
#include "ksnoop.h"

struct btf;

/*
 * Every field of KF found in VMLINUX (the running kernel's BTF): its byte
 * offset, and its bit in KF's known; neither for one this kernel does not
 * have (or VMLINUX NULL), which the programs do without.  Returns how
 * many were found.
 */
int klayout__find(const struct btf *vmlinux, struct ksnoop_kfields *kf);
/* How many fields klayout__find() looks for on this architecture. */
int klayout__wanted(void);
/*
 * The fields KF lacks into BUF ("task_struct.rseq.usrptr, ..."; "" for
 * none), cut to SIZE.
 */
void klayout__missing(const struct ksnoop_kfields *kf, char *buf, size_t size);

#endif
