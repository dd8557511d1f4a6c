/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Capture units: bpf/ksnoop.bpf.c built once more per unit with that
 * unit's programs alone (include/ksnoop.h, KSNOOP_UNIT_*; Makefile), each
 * object embedded in ksnoop.  An instance needs one unit's programs (an
 * fentry/fexit pair, one kprobe.session program, one tracepoint's), and
 * libbpf copies, parses and relocates every program of the object it
 * opens: the whole object is some 200,000 instructions in twenty
 * programs, a unit 9,000 to 33,000.  The instance still goes through the
 * skeleton made from the whole object (ksnoop.skel.h), aimed at a unit's
 * bytes: its global data and maps are laid out as the whole object's
 * (scripts/bpf-unit-check, at build time), and the programs the unit
 * leaves out stay NULL in skel->progs.
 */
#ifndef KSNOOP_UNITS_H
#define KSNOOP_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#include "attach_kind.h"

struct ksnoop_bpf;

/* The unit (KSNOOP_UNIT_*) whose programs attach KIND, in SESSION's program or not. */
int units__of(enum attach_kind kind, bool session);

/* UNIT's object as embedded: its bytes, their number in *SIZE (NULL with errno: none). */
const void *units__elf(int unit, size_t *size);

/*
 * A new skeleton of the whole object (as ksnoop_bpf__open() would open,
 * not yet opened) aimed at ELF's SIZE bytes, UNIT's object or a copy of
 * it: only UNIT's programs are looked for.  NULL with errno on failure.
 */
struct ksnoop_bpf *units__skeleton(int unit, const void *elf, size_t size);

#endif
