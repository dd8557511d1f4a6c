// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "kbtf.h"
#include "ksyms.h"
#include "suggest.h"
#include "btf_util.h"
#include "target.h"

int kernel__open(struct kernel *k, struct ks_error *e)
{
	int err;

	if (!k->kbtf) {
		k->kbtf = kbtf__open(k->btf_dir);
		if (!k->kbtf) {
			err = -errno;
			/* The kernel's BTF, not the user's to fix: a runtime errno. */
			return ks_fail(e, ks_runtime_errno(err),
				       "cannot read kernel BTF from %s/vmlinux: %s (the kernel needs CONFIG_DEBUG_INFO_BTF)",
				       k->btf_dir ? k->btf_dir : "/sys/kernel/btf", strerror(-err));
		}
	}
	return 0;
}

/* kallsyms only for kernel functions: tracepoints start faster without it. */
static int kernel__open_ksyms(struct kernel *k, struct ks_error *e)
{
	int err = 0;

	if (k->ksyms)
		return 0;
	/* Asked per printed function pointer too: one failed read is enough. */
	if (k->ksyms_err)
		err = k->ksyms_err;
	else if (!(k->ksyms = ksyms__load(k->kallsyms_path)))
		err = k->ksyms_err = -errno;
	if (err)
		return ks_fail(e, ks_runtime_errno(err), "cannot read %s: %s",
			       k->kallsyms_path ? k->kallsyms_path : "/proc/kallsyms",
			       strerror(-err));
	return 0;
}

int kernel__symbolize(struct kernel *k, __u64 addr, char *buf, size_t sz)
{
	const struct ksym *sym;
	unsigned long long off;

	if (kernel__open_ksyms(k, NULL))
		return -ENOENT;
	sym = ksyms__by_addr(k->ksyms, addr, &off);
	if (!sym)
		return -ENOENT;
	snprintf(buf, sz, "%s%s%.0llx%s%s%s", sym->name, off ? "+0x" : "", off,
		 sym->module ? " [" : "", sym->module ? sym->module : "", sym->module ? "]" : "");
	return 0;
}

void kernel__close(struct kernel *k)
{
	kbtf__free(k->kbtf);
	ksyms__free(k->ksyms);
	k->ksyms_err = 0;
	k->kbtf = NULL;
	k->ksyms = NULL;
}

/* Suggest among functions that have BTF: those are the ones we can trace. */
static void suggest_funcs(struct btf *btf, const char *module, void *ctx)
{
	struct suggest *s = ctx;
	__u32 id, n = btf__type_cnt(btf);
	__u32 start = btf__base_btf(btf) ? btf__type_cnt(btf__base_btf(btf)) : 1;

	(void)module;
	for (id = start; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_func(t))
			suggest__consider(s, btfu_name(btf, t->name_off));
	}
}

int kernel__func(struct kernel *k, const char *name, struct signature *sig,
		 struct ks_error *e)
{
	const struct ksym *sym;
	const char *module;
	struct btf *btf;
	__u32 id;
	int err;

	err = kernel__open(k, e);
	if (!err)
		err = kernel__open_ksyms(k, e);
	if (err)
		return err;
	sym = ksyms__find(k->ksyms, name);
	err = kbtf__find_func(k->kbtf, name, sym ? sym->module : NULL, !sym, &btf, &id, &module);
	if (err) {
		struct suggest s;

		if (sym)
			return ks_fail(e, -ENOENT,
				       "'%s'%s%s%s has no BTF type information, so its arguments are unknown",
				       name, sym->module ? " (module " : "",
				       sym->module ? sym->module : "", sym->module ? ")" : "");
		suggest__init(&s, name);
		kbtf__for_each(k->kbtf, suggest_funcs, &s);
		if (suggest__best(&s))
			return ks_fail(e, -ENOENT, "unknown kernel function '%s' (did you mean '%s'?)",
				       name, suggest__best(&s));
		return ks_fail(e, -ENOENT, "unknown kernel function '%s'", name);
	}
	err = signature__from_func(btf, id, sig, e);
	sig->module = module;
	sig->user_tags = kbtf__user_tags(k->kbtf);
	/* signature__from_func wrote "takes ...": prefix the name. */
	if (err)
		return ks_prefix(e, "'%s' ", name);
	if (!sym)
		return ks_fail(e, -EINVAL,
			       "'%s' is in BTF but not in kallsyms (inlined or removed at build time), so it cannot be traced",
			       name);
	return 0;
}

static const char *tp_base_name(const char *name)
{
	const char *colon = strrchr(name, ':');

	return colon ? colon + 1 : name;
}

/*
 * Tracepoints are the btf_trace_<name> typedefs: the name of the first one
 * at or after *ID (which is updated), or NULL at the end.
 */
static const char *next_tp_name(const struct btf *btf, __u32 *id)
{
	__u32 n = btf__type_cnt(btf);

	for (; *id < n; (*id)++) {
		const struct btf_type *t = btf__type_by_id(btf, *id);
		const char *tn;

		if (!btf_is_typedef(t))
			continue;
		tn = btfu_name(btf, t->name_off);
		if (strncmp(tn, "btf_trace_", 10) == 0)
			return tn + 10;
	}
	return NULL;
}

int kernel__tp(struct kernel *k, const char *name, struct signature *sig,
	       struct ks_error *e)
{
	const char *base = tp_base_name(name);
	struct btf *btf;
	struct suggest s;
	const char *tn;
	__u32 id;
	int err;

	err = kernel__open(k, e);
	if (err)
		return err;
	btf = kbtf__vmlinux(k->kbtf);
	if (signature__from_tp(btf, base, sig) == 0)
		return 0;
	suggest__init(&s, base);
	for (id = 1; (tn = next_tp_name(btf, &id)); id++)
		suggest__consider(&s, tn);
	if (suggest__best(&s))
		return ks_fail(e, -ENOENT, "unknown tracepoint '%s' (did you mean 'tp:%s'?)", name,
			       suggest__best(&s));
	return ks_fail(e, -ENOENT, "unknown tracepoint '%s'", name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int kernel__tp_glob(struct kernel *k, const char *pattern,
		    int (*fn)(const struct signature *sig, void *ctx), void *ctx)
{
	const char *base = tp_base_name(pattern);
	const char **names = NULL;
	struct signature sig;
	struct btf *btf;
	const char *tn;
	__u32 id;
	size_t count = 0, cap = 0, i;
	int err;

	err = kernel__open(k, NULL);
	if (err)
		return err;
	btf = kbtf__vmlinux(k->kbtf);
	for (id = 1; (tn = next_tp_name(btf, &id)); id++) {
		if (fnmatch(base, tn, 0))
			continue;
		if (count == cap) {
			const char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*nn));

			if (!nn) {
				free(names);
				return -ENOMEM;
			}
			names = nn;
		}
		names[count++] = tn;
	}
	/* In name order, as a user scanning a list expects. */
	if (count)
		qsort(names, count, sizeof(*names), cmp_str);
	for (i = 0, err = 0; i < count && !err; i++)
		if (signature__from_tp(btf, names[i], &sig) == 0)
			err = fn(&sig, ctx);
	free(names);
	if (err)
		return err;
	return count ? 0 : -ENOENT;
}
