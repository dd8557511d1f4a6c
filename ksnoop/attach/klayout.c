// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* klayout: the kernel fields the capture programs read, from vmlinux BTF (klayout.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "klayout.h"
#include "resolve.h"

/* A field: members named one after the other from a struct, then an array's element. */
struct kfield_path {
	enum ksnoop_kfield field;
	const char *root;	/* a struct of vmlinux BTF */
	const char *path;	/* "thread.fsbase"; at most PATH_MAX_PARTS members */
	int index;		/* the last member is an array: its element INDEX (else 0) */
	bool ptr;		/* the last member must be a pointer (else: any kind) */
};

#define PATH_MAX_PARTS	4
#define PART_MAX	32

#define FIELD(f, root, path)		{ f, root, path, 0, false }
#define PTR_FIELD(f, root, path)	{ f, root, path, 0, true }
#define ELEM_FIELD(f, root, path, i)	{ f, root, path, i, false }

static const struct kfield_path paths[] = {
	FIELD(KSNOOP_KF_TASK_COMM, "task_struct", "comm"),
	/* the rseq area: a pointer before 6.19, a struct holding it since */
	PTR_FIELD(KSNOOP_KF_TASK_RSEQ, "task_struct", "rseq"),
	PTR_FIELD(KSNOOP_KF_TASK_RSEQ_USRPTR, "task_struct", "rseq.usrptr"),
#if defined(__x86_64__)
	FIELD(KSNOOP_KF_TASK_TP, "task_struct", "thread.fsbase"),
	FIELD(KSNOOP_KF_TASK_TI_STATUS, "task_struct", "thread_info.status"),
	FIELD(KSNOOP_KF_REGS_NR, "pt_regs", "orig_ax"),
	FIELD(KSNOOP_KF_REGS_ARG0, "pt_regs", "di"),
	FIELD(KSNOOP_KF_REGS_ARG1, "pt_regs", "si"),
	FIELD(KSNOOP_KF_REGS_ARG2, "pt_regs", "dx"),
	FIELD(KSNOOP_KF_REGS_ARG3, "pt_regs", "r10"),
	FIELD(KSNOOP_KF_REGS_ARG4, "pt_regs", "r8"),
	FIELD(KSNOOP_KF_REGS_ARG5, "pt_regs", "r9"),
#elif defined(__aarch64__)
	FIELD(KSNOOP_KF_TASK_TP, "task_struct", "thread.uw.tp_value"),
	FIELD(KSNOOP_KF_REGS_NR, "pt_regs", "syscallno"),
	/* the first argument in orig_x0: x0 takes the return value */
	FIELD(KSNOOP_KF_REGS_ARG0, "pt_regs", "orig_x0"),
	ELEM_FIELD(KSNOOP_KF_REGS_ARG1, "pt_regs", "regs", 1),
	ELEM_FIELD(KSNOOP_KF_REGS_ARG2, "pt_regs", "regs", 2),
	ELEM_FIELD(KSNOOP_KF_REGS_ARG3, "pt_regs", "regs", 3),
	ELEM_FIELD(KSNOOP_KF_REGS_ARG4, "pt_regs", "regs", 4),
	ELEM_FIELD(KSNOOP_KF_REGS_ARG5, "pt_regs", "regs", 5),
	FIELD(KSNOOP_KF_REGS_PSTATE, "pt_regs", "pstate"),
#endif
};

/* P's byte offset from its root type ROOT, or -1 where the kernel has no such field. */
static long path_offset(const struct btf *btf, __u32 root, const struct kfield_path *p)
{
	const char *s = p->path;
	__u32 id = root, type_id = 0, bit_off, bit_size;
	const struct btf_type *t;
	long off = 0;
	int parts;

	for (parts = 0; *s && parts < PATH_MAX_PARTS; parts++) {
		size_t len = strcspn(s, ".");
		char name[PART_MAX];

		if (!len || len >= sizeof(name))
			return -1;
		memcpy(name, s, len);
		name[len] = '\0';
		if (resolver__member(btf, id, name, &type_id, &bit_off, &bit_size) ||
		    bit_size || bit_off % 8)
			return -1;
		off += bit_off / 8;
		id = type_id;
		s += len + (s[len] == '.');
	}
	if (*s)
		return -1;
	t = btf__type_by_id(btf, btfu_strip(btf, type_id));
	if (!t || (p->ptr && !btf_is_ptr(t)))
		return -1;
	if (p->index) {
		const struct btf_array *a;
		__s64 elem;

		if (!btf_is_array(t))
			return -1;
		a = btf_array(t);
		elem = btf__resolve_size(btf, a->type);
		if (elem <= 0 || (__u32)p->index >= a->nelems)
			return -1;
		off += elem * p->index;
	}
	return off;
}

int klayout__wanted(void)
{
	return sizeof(paths) / sizeof(paths[0]);
}

void klayout__missing(const struct ksnoop_kfields *kf, char *buf, size_t size)
{
	size_t i, n = 0;

	if (size)
		buf[0] = '\0';
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && n < size; i++)
		if (!(kf->known & (1u << paths[i].field)))
			n += snprintf(buf + n, size - n, "%s%s.%s", n ? ", " : "", paths[i].root,
				      paths[i].path);
}

int klayout__find(const struct btf *vmlinux, struct ksnoop_kfields *kf)
{
	__s32 root = 0;
	const char *root_name = NULL;
	size_t i;
	int found = 0;

	memset(kf, 0, sizeof(*kf));
	if (!vmlinux)
		return 0;
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		const struct kfield_path *p = &paths[i];
		long off;

		/* The table is grouped by root: each is looked up once (they come early in vmlinux BTF). */
		if (!root_name || strcmp(root_name, p->root)) {
			root_name = p->root;
			root = btf__find_by_name_kind(vmlinux, p->root, BTF_KIND_STRUCT);
		}
		if (root <= 0)
			continue;
		off = path_offset(vmlinux, root, p);
		if (off < 0 || off > (long)INT32_MAX)
			continue;
		kf->off[p->field] = off;
		kf->known |= 1u << p->field;
		found++;
	}
	return found;
}
