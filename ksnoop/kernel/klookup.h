/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel symbols looked up by name in the kernel itself
 * (bpf_kallsyms_lookup_name() in a syscall program): microseconds a name,
 * against tens of milliseconds to read /proc/kallsyms whole.  Needs what
 * loading a BPF program needs (root, or CAP_BPF) and a kernel that shows
 * symbol addresses to the caller; otherwise klookup__open() fails and the
 * caller reads kallsyms.
 */
#ifndef KSNOOP_KLOOKUP_H
#define KSNOOP_KLOOKUP_H

#include <linux/types.h>

struct klookup;

/* NULL and errno set when the kernel or the caller's privileges refuse. */
struct klookup *klookup__open(void);
void klookup__close(struct klookup *kl);
/*
 * NAME's address in *ADDR: 0, -ENOENT when the kernel has no symbol of
 * that name (in vmlinux or a loaded module), or another negative errno.
 */
int klookup__find(struct klookup *kl, const char *name, __u64 *addr);
/* Whether ADDR lies in vmlinux's own text (_stext.._etext, _sinittext.._einittext). */
int klookup__in_vmlinux_text(const struct klookup *kl, __u64 addr);

#endif
