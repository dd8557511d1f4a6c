/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The running kernel's vmlinux BTF, parsed once by ksnoop, lent to libbpf
 * for the loads that need it (CO-RE relocations, kfunc externs, fentry
 * targets) instead of libbpf parsing /sys/kernel/btf/vmlinux again for
 * every object it loads.  ksnoop is linked with
 * -Wl,--wrap=btf__load_vmlinux_btf,--wrap=btf__free (Makefile): between
 * btf_lend__begin() and btf_lend__end() libbpf's btf__load_vmlinux_btf()
 * returns the lent BTF and its btf__free() of it does nothing; outside,
 * both are libbpf's own.  Lent NULL (ksnoop parsed none), the first
 * parse libbpf makes between begin and end is kept and lent from then on,
 * until btf_lend__release().
 */
#ifndef KSNOOP_BTF_LEND_H
#define KSNOOP_BTF_LEND_H

struct btf;

/*
 * Lend BTF (the running kernel's vmlinux BTF, or NULL: lend nothing) until
 * btf_lend__end(); the caller keeps it alive and unchanged until then.
 */
void btf_lend__begin(const struct btf *btf);
void btf_lend__end(void);

/*
 * Where ksnoop lends none (USDT probes, user functions): the parse kept
 * for lending, made now if no load made it yet; NULL where the kernel has
 * no vmlinux BTF.
 */
const struct btf *btf_lend__vmlinux(void);

/* Free the parse kept for lending (after the last load). */
void btf_lend__release(void);

/*
 * How often libbpf asked for vmlinux BTF and got the lent one (or the kept
 * one), and how often it parsed its own.
 */
int btf_lend__lent(void);
int btf_lend__parsed(void);

#endif
