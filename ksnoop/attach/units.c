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

struct unit_progs {
	int n;			/* 0: not asked yet */
	const char *names[UNIT_PROGS_MAX];
};

/*
 * NAME's program names, from its own skeleton (string literals of the
 * generated header: they outlive it), and its bytes.
 */
#define UNIT_OF(NAME)								\
	static int NAME##_progs(struct unit_progs *u)				\
	{									\
		struct NAME obj = { 0 };					\
		struct bpf_object_skeleton *s;					\
		int i;								\
										\
		if (NAME##__create_skeleton(&obj))				\
			return -ENOMEM;						\
		s = obj.skeleton;						\
		u->n = 0;							\
		for (i = 0; i < s->prog_cnt && u->n < UNIT_PROGS_MAX; i++)	\
			u->names[u->n++] = ((struct bpf_prog_skeleton *)	\
					    ((char *)s->progs + (size_t)i * s->prog_skel_sz))->name; \
		bpf_object__destroy_skeleton(s);				\
		return 0;							\
	}									\
	static const void *NAME##_elf(size_t *size)				\
	{									\
		return NAME##__elf_bytes(size);					\
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

static const struct {
	int (*progs)(struct unit_progs *u);
	const void *(*elf)(size_t *size);
} units[KSNOOP_UNITS + 1] = {
	[KSNOOP_UNIT_FENTRY] = { ksnoop_unit_fentry_progs, ksnoop_unit_fentry_elf },
	[KSNOOP_UNIT_FSESSION] = { ksnoop_unit_fsession_progs, ksnoop_unit_fsession_elf },
	[KSNOOP_UNIT_KPROBE] = { ksnoop_unit_kprobe_progs, ksnoop_unit_kprobe_elf },
	[KSNOOP_UNIT_KSESSION] = { ksnoop_unit_ksession_progs, ksnoop_unit_ksession_elf },
	[KSNOOP_UNIT_TP] = { ksnoop_unit_tp_progs, ksnoop_unit_tp_elf },
	[KSNOOP_UNIT_USDT] = { ksnoop_unit_usdt_progs, ksnoop_unit_usdt_elf },
	[KSNOOP_UNIT_UPROBE] = { ksnoop_unit_uprobe_progs, ksnoop_unit_uprobe_elf },
	[KSNOOP_UNIT_USESSION] = { ksnoop_unit_usession_progs, ksnoop_unit_usession_elf },
	[KSNOOP_UNIT_SYSCALL] = { ksnoop_unit_syscall_progs, ksnoop_unit_syscall_elf },
};

static struct unit_progs progs_of[KSNOOP_UNITS + 1];

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
	return units[unit].elf(size);
}

static bool unit_has(const struct unit_progs *u, const char *name)
{
	int i;

	for (i = 0; i < u->n; i++)
		if (!strcmp(u->names[i], name))
			return true;
	return false;
}

struct ksnoop_bpf *units__skeleton(int unit, const void *elf, size_t size)
{
	struct unit_progs *u = &progs_of[unit];
	struct bpf_object_skeleton *s;
	struct ksnoop_bpf *skel;
	int i, kept = 0, err;

	if (!u->n) {
		err = units[unit].progs(u);
		if (err) {
			errno = -err;
			return NULL;
		}
	}
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
		struct bpf_prog_skeleton *p = (void *)((char *)s->progs + (size_t)i * s->prog_skel_sz);

		if (!unit_has(u, p->name))
			continue;
		memmove((char *)s->progs + (size_t)kept * s->prog_skel_sz, p, s->prog_skel_sz);
		kept++;
	}
	s->prog_cnt = kept;
	s->data = (void *)elf;
	s->data_sz = size;
	return skel;
}
