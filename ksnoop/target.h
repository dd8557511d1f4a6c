/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Finding what a spec names in the running kernel: a function (kallsyms for
 * the owning module and whether it exists as a symbol, BTF for its
 * prototype) or a tracepoint (vmlinux BTF).  Shared by `info` and tracing.
 */
#ifndef KSNOOP_TARGET_H
#define KSNOOP_TARGET_H

#include <stddef.h>
#include "ks_error.h"
#include "signature.h"

struct kbtf;
struct ksyms;

struct kernel {
	const char *btf_dir;		/* default /sys/kernel/btf */
	const char *kallsyms_path;	/* default /proc/kallsyms */
	struct kbtf *kbtf;
	struct ksyms *ksyms;
	int ksyms_err;			/* kallsyms could not be read: not again */
};

/* Load vmlinux BTF on first use (kallsyms: when a function is looked up);
 * 0 or a negative errno (with E), a runtime one. */
int kernel__open(struct kernel *k, struct ks_error *e);
void kernel__close(struct kernel *k);

/*
 * The kernel function ADDR lies in, as "name+0xoff [module]" (kallsyms,
 * read on the first call); -ENOENT when none is known.
 */
int kernel__symbolize(struct kernel *k, __u64 addr, char *buf, size_t sz);

/*
 * Signature of kernel function NAME.
 *  0        found and traceable
 *  -ENOENT  unknown (E: the error, with a suggestion when one is close)
 *  -EINVAL  found, but cannot be traced (SIG filled, E: why)
 *  other    a runtime failure (BTF or kallsyms unreadable, broken BTF)
 */
int kernel__func(struct kernel *k, const char *name, struct signature *sig,
		 struct ks_error *e);

/*
 * Signature of tracepoint NAME ("sched_switch" or "sched:sched_switch");
 * -ENOENT if there is none.
 */
int kernel__tp(struct kernel *k, const char *name, struct signature *sig,
	       struct ks_error *e);

/* Call FN for each tracepoint whose name matches the glob PATTERN. */
int kernel__tp_glob(struct kernel *k, const char *pattern,
		    int (*fn)(const struct signature *sig, void *ctx), void *ctx);

#endif
