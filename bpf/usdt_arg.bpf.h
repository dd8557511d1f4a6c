/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A USDT argument's value: libbpf's bpf_usdt_arg() for the forms its spec
 * has, and the ones ksnoop's own attach adds (include/ksnoop_usdt.h) when
 * it refuses them.  Nothing here names a register: userspace wrote where
 * each is in struct pt_regs.
 */
#ifndef KSNOOP_USDT_ARG_BPF_H
#define KSNOOP_USDT_ARG_BPF_H

#include <bpf/usdt.bpf.h>
#include "ksnoop_usdt.h"

/* The spec of argument I of the site that fired, or NULL. */
static __always_inline struct __bpf_usdt_arg_spec *usdt_arg_spec(struct pt_regs *ctx, __u64 i)
{
	struct __bpf_usdt_spec *spec;
	int id = __bpf_usdt_spec_id(ctx);

	if (id < 0)
		return NULL;
	spec = bpf_map_lookup_elem(&__bpf_usdt_specs, &id);
	if (!spec || i >= BPF_USDT_MAX_ARG_CNT || (long)i >= spec->arg_cnt)
		return NULL;
	return &spec->args[i];
}

/* base + index * scale + offset: where an INDEXED argument is. */
static __always_inline int usdt_indexed_addr(struct pt_regs *ctx,
					     const struct __bpf_usdt_arg_spec *a, __u64 *addr)
{
	unsigned long base = 0, index;
	__u64 v = a->val_off;
	int err;

	if (!(v & KSNOOP_USDT_IDX_NOBASE)) {
		err = bpf_probe_read_kernel(&base, sizeof(base), (void *)ctx + a->reg_off);
		if (err)
			return err;
	}
	err = bpf_probe_read_kernel(&index, sizeof(index),
				    (void *)ctx + KSNOOP_USDT_IDX_REG(v));
	if (err)
		return err;
	*addr = base + (index << KSNOOP_USDT_IDX_SHIFT(v)) + KSNOOP_USDT_IDX_DISP(v);
	return 0;
}

/*
 * The 8 bytes read at an argument's address made its value, as
 * bpf_usdt_arg() makes a REG_DEREF one: 1, 2 or 4 bytes widened, with
 * its sign if signed.
 */
static __always_inline long usdt_mem_value(const struct __bpf_usdt_arg_spec *a, unsigned long v)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v >>= a->arg_bitshift;
#endif
	v <<= a->arg_bitshift;
	if (a->arg_signed)
		return ((long)v) >> a->arg_bitshift;
	return v >> a->arg_bitshift;
}

/* An INDEXED argument: its address, then a user read, as bpf_usdt_arg() does REG_DEREF. */
static __always_inline int usdt_arg_indexed(struct pt_regs *ctx,
					    const struct __bpf_usdt_arg_spec *a, long *res)
{
	unsigned long val;
	__u64 addr;
	int err;

	err = usdt_indexed_addr(ctx, a, &addr);
	if (err)
		return err;
	err = bpf_probe_read_user(&val, sizeof(val), (void *)addr);
	if (err)
		return err;
	*res = usdt_mem_value(a, val);
	return 0;
}

/* Argument I of the site that fired into *RES (0 on error); 0 or a negative errno. */
static __always_inline int ksnoop_usdt_arg(struct pt_regs *ctx, __u64 i, long *res)
{
	const struct __bpf_usdt_arg_spec *a;
	int err = bpf_usdt_arg(ctx, i, res);

	if (err != -EINVAL)
		return err;
	a = usdt_arg_spec(ctx, i);
	if (!a || a->arg_type != KSNOOP_USDT_ARG_INDEXED)
		return err;
	return usdt_arg_indexed(ctx, a, res);
}

/*
 * Where argument I is in the traced program's memory: 0, or a negative
 * errno (-EINVAL: in a register or a constant, -ENOENT: no such argument).
 * Both reads above take 8 bytes from there.
 */
static __always_inline int ksnoop_usdt_arg_addr(struct pt_regs *ctx, __u64 i, __u64 *addr)
{
	const struct __bpf_usdt_arg_spec *a = usdt_arg_spec(ctx, i);
	unsigned long reg;
	int err;

	if (!a)
		return -ENOENT;
	if (a->arg_type == KSNOOP_USDT_ARG_INDEXED)
		return usdt_indexed_addr(ctx, a, addr);
	if (a->arg_type != BPF_USDT_ARG_REG_DEREF)
		return -EINVAL;
	err = bpf_probe_read_kernel(&reg, sizeof(reg), (void *)ctx + a->reg_off);
	if (err)
		return err;
	*addr = reg + a->val_off;
	return 0;
}

/*
 * Argument I again, from ADDR (ksnoop_usdt_arg_addr()) with a read that
 * may take a page fault (a sleepable program only): 0 and *RES, made 8
 * bytes as bpf_usdt_arg() makes them, or a negative errno.
 */
static __always_inline int ksnoop_usdt_arg_faulting(struct pt_regs *ctx, __u64 i, __u64 addr,
						    long *res)
{
	const struct __bpf_usdt_arg_spec *a = usdt_arg_spec(ctx, i);
	unsigned long v;

	if (!a || bpf_copy_from_user(&v, sizeof(v), (void *)addr))
		return -EFAULT;
	*res = usdt_mem_value(a, v);
	return 0;
}

#endif
