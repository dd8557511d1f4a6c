/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reads of traced memory: whose memory an address is (user or kernel),
 * paging user memory in where the program may sleep, following an access
 * chain to its object, and how many bytes a string may have.  Every read
 * is a non-faulting helper; every loop is bounded by a constant.
 */
#ifndef KSNOOP_READ_BPF_H
#define KSNOOP_READ_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"
#include "arch.bpf.h"
#include "plan.bpf.h"

/*
 * Whose memory a read is in.  USDT: always the traced program's (it chooses
 * the addresses, so a kernel address there is a fault, never a kernel
 * read).  Kernel functions: the BTF's __user tags where it has them;
 * otherwise the address, as the architecture splits it.
 */
static __always_inline bool read_user(const volatile struct ksnoop_access *acc, int step,
				      __u64 addr)
{
	if (plan.flags & KSNOOP_PLAN_USER_MEM)
		return true;
	if (acc->flags & KSNOOP_VAL_TAGGED)
		return acc->user_mask & (1u << step);
	return addr < ARCH_USER_ADDR_LIMIT;
}

/*
 * Sleepable programs may take a page fault: touch every page of [addr,
 * addr + size) so that a non-faulting read of it can succeed.  Errors are
 * ignored (a string may end before an unmapped page).
 */
static __always_inline void fault_in(__u64 addr, __u32 size)
{
	__u64 page = addr & ~4095ULL;
	char byte;
	int i;

	for (i = 0; i < KSNOOP_FAULT_IN_PAGES; i++) {
		if (page >= addr + size)
			break;
		bpf_copy_from_user(&byte, 1, (const void *)(page < addr ? addr : page));
		page += 4096;
	}
}

/*
 * Whether a user read that faulted may succeed after fault_in(): only a
 * sleepable program may fault a page in.
 */
static __always_inline bool may_fault_in(bool user)
{
	return user && (plan.flags & KSNOOP_PLAN_SLEEPABLE);
}

/* One read, never paging anything in (it does not sleep). */
static __always_inline long read_mem_now(void *dst, __u32 size, __u64 addr, bool user)
{
	if (!user)
		return bpf_probe_read_kernel(dst, size, (const void *)addr);
	return bpf_probe_read_user(dst, size, (const void *)addr);
}

static __always_inline long read_str_now(void *dst, __u32 size, __u64 addr, bool user)
{
	if (!user)
		return bpf_probe_read_kernel_str(dst, size, (const void *)addr);
	return bpf_probe_read_user_str(dst, size, (const void *)addr);
}

static __always_inline long read_mem(void *dst, __u32 size, __u64 addr, bool user)
{
	long err;

	if (!user)
		return bpf_probe_read_kernel(dst, size, (const void *)addr);
	err = bpf_probe_read_user(dst, size, (const void *)addr);
	if (err && (plan.flags & KSNOOP_PLAN_SLEEPABLE)) {
		fault_in(addr, size);
		err = bpf_probe_read_user(dst, size, (const void *)addr);
	}
	return err;
}

static __always_inline long read_str(void *dst, __u32 size, __u64 addr, bool user)
{
	long n;

	if (!user)
		return bpf_probe_read_kernel_str(dst, size, (const void *)addr);
	n = bpf_probe_read_user_str(dst, size, (const void *)addr);
	if (n < 0 && (plan.flags & KSNOOP_PLAN_SLEEPABLE)) {
		fault_in(addr, size);
		n = bpf_probe_read_user_str(dst, size, (const void *)addr);
	}
	return n;
}

/*
 * A string read into SIZE bytes fills them (N == SIZE) both when it has
 * exactly SIZE - 1 characters and when it goes on: the byte after the last
 * one copied tells which.
 */
static __always_inline int str_status(long n, __u32 size, __u64 addr, bool user)
{
	char next = 1;

	if (n != size)
		return KSNOOP_OK;
	if (read_mem(&next, 1, addr + size - 1, user))
		return KSNOOP_TRUNCATED;
	return next ? KSNOOP_TRUNCATED : KSNOOP_OK;
}

/*
 * A kernel pointer that is an errno (ERR_PTR(-ENOENT)): the last
 * KSNOOP_MAX_ERRNO values of the address space, which nothing maps.  Only
 * kernel chains hold them (a USDT or syscall chain's pointers are the
 * traced program's, and an address there means nothing of the kind).
 */
static __always_inline bool is_err_ptr(__u64 a)
{
	return !(plan.flags & KSNOOP_PLAN_USER_MEM) && a >= (__u64)-KSNOOP_MAX_ERRNO;
}

/*
 * Follow an access chain to the address of its final object.  Returns a
 * ksnoop_status; on KSNOOP_OK *addr holds where to copy from and *user
 * whether that is user memory; on KSNOOP_ERR_PTR *addr is the error
 * pointer, which is never read.
 */
static __always_inline int walk(const volatile struct ksnoop_access *acc,
				__u64 word, __u64 *addr, bool *user)
{
	__u64 a = word;
	int i;

	for (i = 0; i < KSNOOP_MAX_DEREFS; i++) {
		if (i >= acc->nsteps)
			break;
		if (i > 0 && read_mem(&a, sizeof(a), a, read_user(acc, i - 1, a)))
			return KSNOOP_FAULT;
		/* A non-PIE file's load bias is 0: a base, not a NULL pointer. */
		if (!a && !(i == 0 && acc->src == KSNOOP_SRC_UGLOBAL))
			return KSNOOP_NULL;
		if (is_err_ptr(a)) {
			*addr = a;
			return KSNOOP_ERR_PTR;
		}
		a += acc->steps[i];
	}
	*addr = a;
	*user = read_user(acc, acc->nsteps - 1, a);
	return KSNOOP_OK;
}

/* A string without a length: as many characters as fit. */
#define STR_UNBOUNDED	(~0ULL)

/*
 * ":str(LEN)": the characters the argument in acc->len_slot allows,
 * extended from its own width (a kernel function's int leaves the upper
 * half of its register undefined).  The traced program chooses it: below
 * 0 is none; the caller cuts what does not fit.
 */
static __always_inline __u64 str_chars(const volatile struct ksnoop_access *acc,
				       const __u64 *words)
{
	__u32 slot = acc->len_slot, width = acc->len_width & 0xf;
	__u32 shift = 64 - 8 * width;
	__u64 v;

	if (!(acc->flags & KSNOOP_VAL_STR_LEN))
		return STR_UNBOUNDED;
	if (slot >= KSNOOP_MAX_ARGS)
		return 0;
	v = words[slot];
	if (shift && shift < 64) {
		if (acc->len_width & KSNOOP_LEN_SIGNED)
			v = (__u64)((__s64)(v << shift) >> shift);
		else
			v = (v << shift) >> shift;
	}
	if ((acc->len_width & KSNOOP_LEN_SIGNED) && (__s64)v < 0)
		return 0;
	return v;
}

/*
 * A string of at most NCHARS characters into SIZE bytes (its NUL
 * included), SIZE at most ROOM: the bytes to read, from 1 to SIZE, and
 * whether NCHARS was cut.  The bound is checked again against ROOM (a
 * constant) right where the result is used: 6.1's verifier lost it when
 * the compiler compared a 32-bit copy, or a reload, of the value it then
 * passed.
 */
static __always_inline __u64 str_size(__u64 nchars, __u64 size, __u32 room, bool *cut)
{
	*cut = nchars >= size;
	if (nchars < size)
		size = nchars + 1;
	barrier_var(size);
	if (size > room)
		size = room;
	return size;
}

#endif /* KSNOOP_READ_BPF_H */
