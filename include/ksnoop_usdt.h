/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * USDT call sites ksnoop attaches itself (usdt_specs.c), shared by the BPF
 * program (bpf/usdt_arg.bpf.h) and userspace.
 *
 * Such a site's argument specs live in libbpf's own map (__bpf_usdt_specs,
 * ids counted down from its end, libbpf's counted up from 0), so that
 * bpf_usdt_arg(), bpf_usdt_cookie() and the site-type check read them as
 * they read libbpf's.  What libbpf's spec has no type for is a type of
 * ksnoop's, which bpf_usdt_arg() refuses (-EINVAL) and usdt_arg.bpf.h reads:
 *
 *   KSNOOP_USDT_ARG_INDEXED  base + index * scale + offset ("-4@-1204(%rbp,%rax,4)"):
 *                            reg_off is the base register's place in pt_regs,
 *                            val_off packs the rest (KSNOOP_USDT_IDX_*).
 *
 * A symbol addressed from the instruction pointer ("NBuffers(%rip)") needs
 * no type of its own: at a uprobe the IP is the call site's run-time
 * address, so the symbol is at IP + (symbol - call site), both link-time
 * addresses from the file: libbpf's REG_DEREF of the IP register.
 */
#ifndef KSNOOP_USDT_SHARED_H
#define KSNOOP_USDT_SHARED_H

#include <linux/types.h>

/* Past libbpf's types (CONST 0, REG 1, REG_DEREF 2), with room for its next ones. */
#define KSNOOP_USDT_ARG_INDEXED		16

/* val_off of an INDEXED argument: bits 0-31 the offset (signed) ... */
#define KSNOOP_USDT_IDX_DISP(v)		((__s64)(__s32)(__u32)(v))
/* ... bits 32-47 the index register's offset in pt_regs ... */
#define KSNOOP_USDT_IDX_REG(v)		((__u32)((v) >> 32) & 0xffff)
/* ... bits 48-49 log2 of the scale, bit 56: there is no base register. */
#define KSNOOP_USDT_IDX_SHIFT(v)	((__u32)((v) >> 48) & 3)
#define KSNOOP_USDT_IDX_NOBASE		(1ULL << 56)
#define KSNOOP_USDT_IDX_PACK(disp, reg, shift) \
	((__u64)(__u32)(__s32)(disp) | (__u64)((reg) & 0xffff) << 32 | (__u64)((shift) & 3) << 48)

#endif
