/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Finding what a spec names in the running kernel: a function (kallsyms for
 * the owning module and whether it exists as a symbol, BTF for its
 * prototype) or a tracepoint (vmlinux BTF).  Shared by `info` and tracing.
 */
#ifndef KSNOOP_TARGET_H
#define KSNOOP_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include "ks_error.h"
#include "signature.h"

/* The running kernel's BTF and symbols, read as they are needed. */
struct kernel;

/*
 * BTF_DIR: where vmlinux and module BTF are (NULL: /sys/kernel/btf).
 * NULL with errno when out of memory.  Nothing is read yet.
 */
struct kernel *kernel__new(const char *btf_dir);
/* Waits for a prefetch under way; accepts NULL. */
void kernel__free(struct kernel *k);
/* Tests: another kallsyms (default /proc/kallsyms) or ftrace list. */
void kernel__set_kallsyms_path(struct kernel *k, const char *path);
void kernel__set_ftrace_path(struct kernel *k, const char *path);
/* Functions named alone are asked of the kernel by name (after a prefetch). */
bool kernel__by_name(const struct kernel *k);

/* A kernel function a glob matched. */
struct func_match {
	struct btf *btf;
	const char *module;		/* NULL: vmlinux */
	const char *name;		/* points into BTF */
	__u32 id;
};

/*
 * Get ready to look kernel functions up, for a command that will: a
 * function named alone (GLOB false) is asked of the kernel by name
 * (klookup.h) where the caller may, and its other functions of the name
 * searched for in kallsyms' text (kernel__func_instances()); otherwise
 * kallsyms is read on a thread of its own: most of that read is the
 * kernel formatting /proc/kallsyms, which then overlaps with parsing BTF
 * (kernel__open).  The first use of kallsyms waits for it.  If the
 * thread cannot be started, kallsyms is read when first used, as without
 * it.
 */
void kernel__prefetch_ksyms(struct kernel *k, bool glob);
/* Load vmlinux BTF on first use (kallsyms: when a function is looked up);
 * 0 or a negative errno (with E), a runtime one. */
int kernel__open(struct kernel *k, struct ks_error *e);
/*
 * Read kallsyms again at the next lookup (after attaching, which adds the
 * tracer's own symbols); what signatures took from the first read stays.
 */
void kernel__reread_ksyms(struct kernel *k);

/*
 * The kernel function ADDR lies in, as "name+0xoff [module]" (kallsyms,
 * read on the first call); -ENOENT when none is known.
 */
int kernel__symbolize(struct kernel *k, __u64 addr, char *buf, size_t sz);
/*
 * The same for any kernel address (':sym'): the nearest function or data
 * symbol ("tcp_prot", "init_net+0x40"); data symbols are read on the
 * first call.
 */
int kernel__symbolize_any(struct kernel *k, __u64 addr, char *buf, size_t sz);

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
 * Static functions of one name in several files or modules: kallsyms
 * lists each, BTF usually one FUNC for them all (pahole leaves out the
 * names whose prototypes disagree, or keeps one of them).
 */
struct func_instance {
	const char *module;		/* NULL: vmlinux */
	__u64 addr;			/* 0 when kallsyms hides addresses */
};

/* The most instances of one name ksnoop lists (6.12 has names with ~40). */
#define KERNEL_MAX_INSTANCES	256

/*
 * The kallsyms functions named NAME, in kallsyms' order, the first MAX in
 * OUT; in MODULE's only if given ("vmlinux": the kernel's own).  Returns
 * how many there are, or a negative errno with E (kallsyms unreadable).
 */
int kernel__func_instances(struct kernel *k, const char *name, const char *module,
			   struct func_instance *out, int max, struct ks_error *e);

/*
 * NAME will be asked of kernel__func_instances(): the names told before
 * the first ask are searched for together, in one read of kallsyms.
 */
void kernel__want_instances(struct kernel *k, const char *name);

/*
 * SIG, the signature kernel__func() gave NAME, made instance IN's: its
 * prototype from the BTF of its module (or vmlinux's, where the module
 * has none of its own), its address.  0, or -EINVAL with E (and SIG
 * filled as far as known) when that BTF has several prototypes for
 * NAME and does not say which is this one's.
 */
int kernel__instance_sig(struct kernel *k, const struct func_instance *in,
			 struct signature *sig, struct ks_error *e);

/*
 * The functions with BTF whose names match the glob PATTERN, in MODULE
 * (NULL: everywhere; "vmlinux": the kernel's own), sorted by name; *OUT
 * is freed with free().  Returns the count (0: none), or a negative errno
 * with E (-ENOENT: no such module).
 */
int kernel__match_funcs(struct kernel *k, const char *module, const char *pattern,
			struct func_match **out, struct ks_error *e);

/*
 * Functions globs leave out: what the programs and probes themselves run
 * through (tracing them recurses or misses).  Named explicitly, they attach.
 */
bool kernel__func_denied(const char *name);

/*
 * Why the kernel would refuse matched function M, or NULL: ftrace cannot
 * hook it (notrace, not in available_filter_functions), or it has no
 * kallsyms symbol.
 */
const char *kernel__func_refused(struct kernel *k, const struct func_match *m);

/*
 * How many functions are named as glob match M (static ones in several
 * files), from what is already read (ftrace's list, or kallsyms); 0 when
 * neither is.  A glob makes each a match of its own (targets.c).
 */
int kernel__func_namesakes(struct kernel *k, const struct func_match *m);

/* Signature of matched function M: 0, or -EINVAL with E (why not). */
int kernel__func_sig(struct kernel *k, const struct func_match *m, struct signature *sig,
		     struct ks_error *e);

/*
 * The running kernel's vmlinux BTF, if K reads it (no other btf_dir) and
 * it is loaded (kernel__open()); else NULL.
 */
const struct btf *kernel__running_vmlinux(struct kernel *k);
/* K's vmlinux BTF (its btf_dir's), once kernel__open() loaded it; else NULL. */
const struct btf *kernel__vmlinux(struct kernel *k);
/*
 * The address of kernel symbol NAME (data too), looked up in the kernel
 * where it can (klookup.h), else in K's kallsyms file: 0, or -ENOENT.
 */
int kernel__symbol_addr(struct kernel *k, const char *name, __u64 *addr);

/*
 * Signature of tracepoint NAME ("sched_switch" or "sched:sched_switch", the
 * category checked where tracefs is mounted); -ENOENT with E if there is
 * none.
 */
int kernel__tp(struct kernel *k, const char *name, struct signature *sig,
	       struct ks_error *e);

/*
 * Call FN for each tracepoint whose name matches the glob PATTERN ("sched_*"
 * or "sched:*", the category a glob too, looked up in tracefs), in name
 * order.  0, or a negative errno with E (-ENOENT: none matches; FN's own
 * errno if it failed).
 */
int kernel__tp_glob(struct kernel *k, const char *pattern,
		    int (*fn)(const struct signature *sig, void *ctx), void *ctx,
		    struct ks_error *e);

/*
 * tracefs's events directory (events/CATEGORY/NAME), mounted for ksnoop
 * alone where it is not mounted and may be; NULL when there is none.
 */
const char *kernel__events_dir(void);

#endif
