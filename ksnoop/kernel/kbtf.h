/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kernel's BTF: vmlinux, plus each module's split BTF on top of it,
 * loaded on first use from /sys/kernel/btf/<module>.
 */
#ifndef KSNOOP_KBTF_H
#define KSNOOP_KBTF_H

#include <stdbool.h>

#include <linux/types.h>

struct btf;
struct kbtf;

/*
 * Raw BTF from PATH (vmlinux's in sysfs) parsed the fast way: mapped, not
 * read through stdio, its copy on huge pages.  NULL + errno.
 */
struct btf *kbtf__parse_file(const char *path);
/* Load vmlinux BTF from DIR (default /sys/kernel/btf). NULL + errno. */
struct kbtf *kbtf__open(const char *dir);
/* Wrap an existing vmlinux BTF (unit tests); takes ownership. */
struct kbtf *kbtf__from_btf(struct btf *vmlinux);
void kbtf__free(struct kbtf *kb);

struct btf *kbtf__vmlinux(struct kbtf *kb);
/*
 * Does vmlinux BTF mark user pointers with __user type tags?  (Kernels
 * built with clang and pahole >= 1.23 do; gcc-built ones, like Debian's,
 * do not.)  Modules are built by the same compiler.  Looked up once.
 */
bool kbtf__user_tags(struct kbtf *kb);
/* Module BTF, loaded on first use; NULL + errno if absent. */
struct btf *kbtf__module(struct kbtf *kb, const char *module);

/*
 * Find the BTF FUNC NAME: in MODULE's BTF if given, else vmlinux; with
 * SEARCH_ALL, then every module in the BTF directory.  On success sets
 * *btf, *id and *module_out (NULL for vmlinux) and returns 0; -ENOENT if
 * not found.
 */
int kbtf__find_func(struct kbtf *kb, const char *name, const char *module,
		    int search_all, struct btf **btf, __u32 *id,
		    const char **module_out);

/*
 * How many different prototypes BTF (vmlinux's or a module's, loaded
 * through KB) gives the FUNCs named NAME: 0 none, 1 one (however many
 * FUNCs), more when static functions of one name take different
 * arguments and BTF does not say which is which.  -ENOMEM.
 */
int kbtf__func_protos(struct kbtf *kb, const struct btf *btf, const char *name);

/*
 * Call FN for every FUNC of MODULE's BTF ("vmlinux": the kernel's own;
 * NULL: vmlinux, then every module), in name order within each; stop at
 * the first nonzero return and return it.  -ENOENT: no such module.
 */
typedef int (*kbtf_func_fn)(struct btf *btf, const char *module, __u32 id, const char *name,
			    void *ctx);
int kbtf__for_each_func(struct kbtf *kb, const char *module, kbtf_func_fn fn, void *ctx);

/* Call FN for every BTF source (vmlinux first, then loaded modules). */
void kbtf__for_each(struct kbtf *kb, void (*fn)(struct btf *btf, const char *module, void *ctx),
		    void *ctx);

#endif
