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

/* base + index * scale + offset, then a user read, as bpf_usdt_arg() does REG_DEREF. */
static __always_inline int usdt_arg_indexed(struct pt_regs *ctx,
					    const struct __bpf_usdt_arg_spec *a, long *res)
{
	unsigned long base = 0, index, val;
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
	err = bpf_probe_read_user(&val, sizeof(val),
				  (void *)(base + (index << KSNOOP_USDT_IDX_SHIFT(v)) +
					   KSNOOP_USDT_IDX_DISP(v)));
	if (err)
		return err;
	val <<= a->arg_bitshift;
	if (a->arg_signed)
		val = ((long)val) >> a->arg_bitshift;
	else
		val = val >> a->arg_bitshift;
	*res = val;
	return 0;
}

/* Argument I of the site that fired into *RES (0 on error); 0 or a negative errno. */
static __always_inline int ksnoop_usdt_arg(struct pt_regs *ctx, __u64 i, long *res)
{
	struct __bpf_usdt_spec *spec;
	int err = bpf_usdt_arg(ctx, i, res), id;

	if (err != -EINVAL)
		return err;
	id = __bpf_usdt_spec_id(ctx);
	if (id < 0)
		return err;
	spec = bpf_map_lookup_elem(&__bpf_usdt_specs, &id);
	if (!spec || i >= BPF_USDT_MAX_ARG_CNT)
		return err;
	if (spec->args[i].arg_type != KSNOOP_USDT_ARG_INDEXED)
		return err;
	return usdt_arg_indexed(ctx, &spec->args[i], res);
}

#endif
