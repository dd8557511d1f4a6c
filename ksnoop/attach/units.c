// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Capture units: one unit's programs, opened through the whole object's skeleton (units.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ksnoop.h"
#include "ksnoop.skel.h"
#include "unit_fentry.skel.h"
#include "unit_fsession.skel.h"
#include "unit_kprobe.skel.h"
#include "unit_ksession.skel.h"
#include "unit_tp.skel.h"
#include "unit_usdt.skel.h"
#include "unit_uprobe.skel.h"
#include "unit_usession.skel.h"
#include "unit_syscall.skel.h"
#include "units.h"

/* More than any unit has (uprobe's four, --tree's two). */
#define UNIT_PROGS_MAX 8

/* What ksnoop knows of a unit, from its own generated skeleton, once read. */
struct unit {
	int n;			/* its programs; 0: not read yet */
	const char *names[UNIT_PROGS_MAX];
	const void *elf;	/* its object's bytes, embedded */
	size_t size;
};

/* The I-th program of skeleton S (its entries are S->prog_skel_sz bytes apart). */
static struct bpf_prog_skeleton *skel_prog(const struct bpf_object_skeleton *s, int i)
{
	return (void *)((char *)s->progs + (size_t)i * s->prog_skel_sz);
}

/*
 * NAME's program names and bytes into U, from a skeleton of NAME made and
 * destroyed here: both are the generated header's constants, they outlive it.
 */
#define UNIT_OF(NAME)								\
	static int NAME##_read(struct unit *u)					\
	{									\
		struct NAME obj = { 0 };					\
		struct bpf_object_skeleton *s;					\
		int i;								\
										\
		if (NAME##__create_skeleton(&obj))				\
			return -ENOMEM;						\
		s = obj.skeleton;						\
		for (i = 0; i < s->prog_cnt && i < UNIT_PROGS_MAX; i++)	\
			u->names[i] = skel_prog(s, i)->name;			\
		u->n = i;							\
		u->elf = s->data;						\
		u->size = s->data_sz;						\
		bpf_object__destroy_skeleton(s);				\
		return 0;							\
	}

UNIT_OF(ksnoop_unit_fentry)
UNIT_OF(ksnoop_unit_fsession)
UNIT_OF(ksnoop_unit_kprobe)
UNIT_OF(ksnoop_unit_ksession)
UNIT_OF(ksnoop_unit_tp)
UNIT_OF(ksnoop_unit_usdt)
UNIT_OF(ksnoop_unit_uprobe)
UNIT_OF(ksnoop_unit_usession)
UNIT_OF(ksnoop_unit_syscall)

static int (*const unit_read[KSNOOP_UNITS + 1])(struct unit *u) = {
	[KSNOOP_UNIT_FENTRY] = ksnoop_unit_fentry_read,
	[KSNOOP_UNIT_FSESSION] = ksnoop_unit_fsession_read,
	[KSNOOP_UNIT_KPROBE] = ksnoop_unit_kprobe_read,
	[KSNOOP_UNIT_KSESSION] = ksnoop_unit_ksession_read,
	[KSNOOP_UNIT_TP] = ksnoop_unit_tp_read,
	[KSNOOP_UNIT_USDT] = ksnoop_unit_usdt_read,
	[KSNOOP_UNIT_UPROBE] = ksnoop_unit_uprobe_read,
	[KSNOOP_UNIT_USESSION] = ksnoop_unit_usession_read,
	[KSNOOP_UNIT_SYSCALL] = ksnoop_unit_syscall_read,
};

static struct unit units[KSNOOP_UNITS + 1];

/* UNIT, read on first use; NULL with errno if its skeleton could not be made. */
static const struct unit *unit_get(int unit)
{
	struct unit *u = &units[unit];
	int err;

	if (!u->n && (err = unit_read[unit](u))) {
		errno = -err;
		return NULL;
	}
	return u;
}

int units__of(enum attach_kind kind, bool session)
{
	switch (kind) {
	case ATTACH_FENTRY:
		return session ? KSNOOP_UNIT_FSESSION : KSNOOP_UNIT_FENTRY;
	case ATTACH_KPROBE:
		return session ? KSNOOP_UNIT_KSESSION : KSNOOP_UNIT_KPROBE;
	case ATTACH_TP:
		return KSNOOP_UNIT_TP;
	case ATTACH_USDT:
		return KSNOOP_UNIT_USDT;
	case ATTACH_UPROBE:
		return session ? KSNOOP_UNIT_USESSION : KSNOOP_UNIT_UPROBE;
	case ATTACH_SYSCALL_TP:
	case ATTACH_SYSCALL:
	case ATTACH_SYSCALL_RAW:
		return KSNOOP_UNIT_SYSCALL;
	}
	return KSNOOP_UNIT_TP;
}

const void *units__elf(int unit, size_t *size)
{
	const struct unit *u = unit_get(unit);

	if (!u)
		return NULL;
	*size = u->size;
	return u->elf;
}

static bool unit_has(const struct unit *u, const char *name)
{
	int i;

	for (i = 0; i < u->n; i++)
		if (!strcmp(u->names[i], name))
			return true;
	return false;
}

struct ksnoop_bpf *units__skeleton(int unit, const void *elf, size_t size)
{
	const struct unit *u = unit_get(unit);
	struct bpf_object_skeleton *s;
	struct ksnoop_bpf *skel;
	int i, kept = 0, err;

	if (!u)
		return NULL;
	skel = calloc(1, sizeof(*skel));
	if (!skel) {
		errno = ENOMEM;
		return NULL;
	}
	err = ksnoop_bpf__create_skeleton(skel);
	if (err) {
		ksnoop_bpf__destroy(skel);
		errno = -err;
		return NULL;
	}
	s = skel->skeleton;
	/* The whole object's programs that UNIT has, in their order; the rest stay NULL. */
	for (i = 0; i < s->prog_cnt; i++) {
		if (!unit_has(u, skel_prog(s, i)->name))
			continue;
		memmove(skel_prog(s, kept), skel_prog(s, i), s->prog_skel_sz);
		kept++;
	}
	s->prog_cnt = kept;
	s->data = (void *)elf;
	s->data_sz = size;
	return skel;
}
