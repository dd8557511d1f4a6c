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
#include <stdbool.h>
#include "ksyms.h"

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
/*
 * ksyms__scan_names() asked of the kernel's kallsyms iterator (iter/ksym,
 * bpf/ksymscan.bpf.c, loaded at the first call with VMLINUX lent to
 * libbpf): the same answer, in kallsyms' order, without /proc/kallsyms'
 * text (the kernel formats no line, nothing is searched here).
 * -EOPNOTSUPP when the iterator did not load, for more than
 * KSNOOP_KSYM_SCAN_MAX names or one of KSNOOP_KSYM_SCAN_NAME bytes or
 * more, or a walk it could not finish whole: then the caller reads the
 * text.
 */
int klookup__scan(struct klookup *kl, const struct btf *vmlinux, const char *const *names,
		  int nnames, const char *types, struct ksym_found *out, int max, int *counts);
/*
 * How klookup__scan() lends vmlinux's BTF to libbpf (attach/btf_lend.c's
 * btf_lend__begin() and btf_lend__end() in ksnoop; none in the tests).
 */
struct btf;
void klookup__set_btf_lender(void (*begin)(const struct btf *btf), void (*end)(void));

#endif
