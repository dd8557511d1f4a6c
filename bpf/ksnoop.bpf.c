// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksnoop's capture programs.
 *
 * Every traced target (kernel function, tracepoint, USDT probe) gets its own
 * instance of this object, with its own read-only `plan` written by
 * userspace before load.  The verifier treats a frozen .rodata as constants,
 * so each loop below over values, steps and predicates is explored only as
 * far as the plan reaches, and the branches a plan does not use are pruned:
 * the program that runs is, in effect, straight-line code for one target.
 *
 * The programs never format anything.  They evaluate the predicates that
 * can be evaluated on their side, and only then reserve one ring-buffer
 * record and copy raw bytes into it at the offsets the plan gives.
 */
#include <linux/bpf.h>
#include <linux/ptrace.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "ksnoop.h"
#include "ksnoop_tuple_key.h"
#include "arch.bpf.h"
#include "usdt_arg.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile struct ksnoop_plan plan = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);	/* resized by userspace before load */
} events SEC(".maps");

/*
 * The reader is woken once per this many bytes written (a fraction of the
 * ring buffer, set before load), or when it has not been for
 * WAKEUP_INTERVAL_NS; otherwise it finds the records when its poll times
 * out (cmd_trace.c, POLL_INTERVAL_MS).  A wake-up per record cost as much as
 * the capture itself.  0: the kernel's default (a wake-up when the reader
 * had caught up).
 */
const volatile __u32 wakeup_bytes = 0;
#define WAKEUP_INTERVAL_NS	(10 * 1000 * 1000ULL)

/* When this instance last woke the reader (bpf_ktime_get_ns()). */
__u64 last_wakeup_ns = 0;

/*
 * Hand REC (SIZE bytes) to the reader.  Wake it when the data waiting
 * crosses a multiple of wakeup_bytes (it drains everything when woken, so
 * a busy reader is woken about once per wakeup_bytes, a stopped or slow
 * one no more often), or when it was last woken WAKEUP_INTERVAL_NS ago or
 * more: a sparse event is printed at once, a stream costs at most 100
 * wake-ups a second.  Races between CPUs only add or skip one wake-up.
 */
static __always_inline void submit(void *rec, __u32 size)
{
	__u64 avail, now, flags = 0;

	if (wakeup_bytes) {
		avail = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);
		now = bpf_ktime_get_ns();
		if ((avail >= size && avail / wakeup_bytes != (avail - size) / wakeup_bytes) ||
		    now - last_wakeup_ns >= WAKEUP_INTERVAL_NS) {
			last_wakeup_ns = now;
			flags = BPF_RB_FORCE_WAKEUP;
		} else {
			flags = BPF_RB_NO_WAKEUP;
		}
	}
	bpf_ringbuf_submit(rec, flags);
}

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KSNOOP_NR_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} counters SEC(".maps");

/*
 * Entry records kept until the return.  The value size is the entry
 * record's, set by userspace before load; elements are allocated as calls
 * come, not preallocated for the worst case.  `scratch` is where a record is
 * built before it is stored, since a BPF stack is only 512 bytes.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_STASH_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ksnoop_stash_key);
	__uint(value_size, 8);
} stash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__uint(value_size, 8);
} scratch SEC(".maps");

/*
 * When each call in flight began (KSNOOP_SIDE_TIMED), keyed like the stash.
 * Only plans that print a return side without a stash have it (userspace
 * shrinks it to one element otherwise); allocated as calls come.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_STASH_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ksnoop_stash_key);
	__type(value, __u64);
} entry_times SEC(".maps");

/*
 * KSNOOP_PLAN_FUNC_VALUES: each function of the group's values, at the
 * index its cookie gives (sized and filled by userspace before attach; one
 * element, or not created at all, otherwise).
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ksnoop_func_values);
} func_values SEC(".maps");

static __always_inline void count(__u32 counter)
{
	__u64 *c = bpf_map_lookup_elem(&counters, &counter);

	if (c)
		*c += 1;
}

/* Where each argument slot lives, by attach type. */
enum word_source {
	WORDS_FENTRY,	/* fentry/fexit: bpf_get_func_arg() */
	WORDS_TP,	/* raw_tp: ctx is an array of u64 */
	WORDS_REGS,	/* kprobe/kretprobe: ctx is struct pt_regs */
	WORDS_USDT,	/* USDT: argument specs decoded by usdt.bpf.h */
	WORDS_SYSCALL,	/* syscall events (perf tracepoints): ctx is the record */
};

/*
 * The argument words of a call: the arguments, then the return value or,
 * for USDT (KSNOOP_PLAN_USDT: a probe returns nothing), a mask of the
 * argument slots that could not be read (an argument in memory that
 * faulted): such a slot's word is where it is, never a value.
 */
#define WORD_UNREAD	KSNOOP_MAX_ARGS
#define NWORDS		(KSNOOP_MAX_ARGS + 1)

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
 * The argument words, as plain numbers.  fentry/fexit type their ctx words
 * from BTF, so a pointer argument would arrive as a typed kernel pointer on
 * which the verifier forbids the bit operations a predicate needs (and ctx
 * itself forbids computed offsets).  bpf_get_func_arg() and
 * bpf_get_func_ret() give scalars and are inlined by the verifier.
 * Tracepoints attach as raw_tp, whose words are scalars already (and which,
 * unlike tp_btf, does not make libbpf parse vmlinux BTF a second time at
 * start-up).  Only the words the plan uses are read.
 */
static __always_inline void fentry_words(void *ctx, __u64 *words, bool ret)
{
	int i;

	for (i = 0; i < KSNOOP_MAX_ARGS; i++) {
		if (i >= plan.nslots)
			break;
		if (plan.slot_mask & (1u << i))
			bpf_get_func_arg(ctx, i, &words[i]);
	}
	if (ret)
		bpf_get_func_ret(ctx, &words[KSNOOP_MAX_ARGS]);
}

/*
 * Read at constant offsets (the loop unrolls): the kernel checks at attach
 * that the furthest word read is one the tracepoint passes.
 */
static __always_inline void tp_words(__u64 *ctx, __u64 *words)
{
	int i;

#pragma unroll
	for (i = 0; i < KSNOOP_MAX_ARGS; i++) {
		if (i >= plan.nslots)
			break;
		if (plan.slot_mask & (1u << i))
			words[i] = ctx[i];
	}
}

/*
 * A USDT argument in memory is read as other user memory is: where the
 * program may sleep, a page the traced program has not touched yet is
 * read again with bpf_copy_from_user(), which faults it in.  One that
 * still faults (nothing
 * mapped there) is marked in words[WORD_UNREAD], its word its address.
 */
/*
 * 0, always; but in .bss, where the verifier cannot know it.  The unread
 * mask starts from it: built from a known 0, each argument's fault path
 * gave the mask another known value, and the verifier, which cannot take
 * one for another once a branch asks the mask (slot_unread()), walked
 * every combination: 2^9 for the JVM's hotspot:method__compile__end,
 * past its instruction limit (E2BIG after two minutes), sleepable or not.
 * From an unknown start, a state whose bit is set is within one where it
 * is not known, and the walk stays linear.
 */
__u64 usdt_unread_none;

static __always_inline void usdt_words(struct pt_regs *ctx, __u64 *words, int nwords)
{
	__u64 addr;
	long val;
	int i, err;

	words[WORD_UNREAD] = usdt_unread_none;
	for (i = 0; i < KSNOOP_MAX_ARGS; i++) {
		if (i >= nwords)
			break;
		val = 0;
		err = ksnoop_usdt_arg(ctx, i, &val);
		/* A site without argument I (another site's plan) reads none. */
		if (err && err != -ENOENT && err != -ESRCH) {
			/*
			 * The address once, and one read that may fault the
			 * page in, on this path alone (each argument read twice,
			 * after a fault-in of its pages, cost PostgreSQL's probes
			 * 8 times the verifier's time).
			 */
			if (ksnoop_usdt_arg_addr(ctx, i, &addr))
				addr = 0;
			if (!addr || !(plan.flags & KSNOOP_PLAN_SLEEPABLE) ||
			    ksnoop_usdt_arg_faulting(ctx, i, addr, &val)) {
				words[WORD_UNREAD] |= 1ULL << i;
				val = addr;
			}
		}
		words[i] = val;
	}
}

/* Whether argument slot SLOT could not be read (usdt_words()). */
static __always_inline bool slot_unread(const __u64 *words, __u32 slot)
{
	return (plan.flags & KSNOOP_PLAN_USDT) && slot < KSNOOP_MAX_ARGS &&
	       (words[WORD_UNREAD] & (1ULL << slot));
}

static __always_inline __u32 src_slot(const volatile struct ksnoop_access *acc)
{
	return acc->src == KSNOOP_SRC_RET ? KSNOOP_MAX_ARGS : acc->slot;
}

/*
 * Whether the words ACC reads could not be read: its source, or the
 * argument that holds a ":str(LEN)" string's length.
 */
static __always_inline bool src_unread(const __u64 *words,
				       const volatile struct ksnoop_access *acc)
{
	return slot_unread(words, src_slot(acc)) ||
	       ((acc->flags & KSNOOP_VAL_STR_LEN) && slot_unread(words, acc->len_slot));
}

/* ACC's source word; 0 for one not read (callers check src_unread() first). */
static __always_inline __u64 src_word(const __u64 *words,
				      const volatile struct ksnoop_access *acc)
{
	__u32 slot = src_slot(acc);

	if (slot > KSNOOP_MAX_ARGS || slot_unread(words, slot))
		return 0;
	return words[slot];
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
		if (!a)
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

/*
 * Copy the object at ADDR, as ACC says, into the ROOM bytes at DST; returns
 * its status, sets *len.  ACC is the plan's (then ROOM is its size) or, in a
 * group with per-function values, the function's.  A string has at most
 * NCHARS characters (":str(LEN)"; a fault keeps the bound in *len, for a
 * read again at the return).
 */
static __always_inline int copy_object(const volatile struct ksnoop_access *acc,
				       __u64 addr, bool user, void *dst, __u32 room, __u64 nchars,
				       __u32 *len)
{
	__u32 size = acc->size;
	__u32 ust = user ? KSNOOP_ST_USER : 0;
	bool cut;
	long n;

	if (size > room)
		size = room;
	*len = 0;
	if (acc->flags & KSNOOP_VAL_STR_LEN) {
		__u64 want = str_size(nchars, size, room, &cut);

		n = read_str(dst, want, addr, user);
		if (n < 0) {
			*len = nchars < room ? nchars : room;
			return KSNOOP_FAULT | ust;
		}
		*len = n;
		return (cut && n == (long)want ? KSNOOP_TRUNCATED : KSNOOP_OK) | ust;
	}
	if (acc->flags & KSNOOP_VAL_STR) {
		n = read_str(dst, size, addr, user);
		if (n < 0)
			return KSNOOP_FAULT | ust;
		*len = n;
		return str_status(n, size, addr, user) | ust;
	}
	if (read_mem(dst, size, addr, user))
		return KSNOOP_FAULT | ust;
	*len = size;
	return KSNOOP_OK | ust;
}

/*
 * ':tuple': field I's offset in its struct (KSNOOP_TUPLE_NO_FIELD: none),
 * from the access's last steps (ksnoop.h).
 */
static __always_inline __u32 tuple_off(const volatile struct ksnoop_access *acc, int i)
{
	return (acc->steps[KSNOOP_TUPLE_OFF_FIRST + i / 4] >> (16 * (i % 4))) & 0xffff;
}

/* One field of SIZE bytes at BASE + its offset; an absent one is 0. */
static __always_inline long read_field(const volatile struct ksnoop_access *acc, int i,
				       __u64 base, void *dst, __u32 size)
{
	__u32 off = tuple_off(acc, i);

	if (off != KSNOOP_TUPLE_NO_FIELD)
		return bpf_probe_read_kernel(dst, size, (const void *)(base + off));
	__builtin_memset(dst, 0, size);
	return 0;
}

/*
 * A skb's tuple: its header offsets, then the bytes they point at.  The
 * offsets are 16 bits, so no read lands past head + 64 KiB, and each is
 * a non-faulting read; what the bytes say is for userspace to judge.
 */
static __always_inline int copy_skb_tuple(const volatile struct ksnoop_access *acc, __u64 skb,
					  struct ksnoop_skb_tuple *t)
{
	__u64 head = 0;

	if (read_field(acc, KSNOOP_SKB_HEAD, skb, &head, sizeof(head)) ||
	    read_field(acc, KSNOOP_SKB_NETWORK_HEADER, skb, &t->network_header, 2) ||
	    read_field(acc, KSNOOP_SKB_TRANSPORT_HEADER, skb, &t->transport_header, 2) ||
	    read_field(acc, KSNOOP_SKB_PROTOCOL, skb, &t->protocol, 2))
		return KSNOOP_FAULT;
	t->read = 0;
	t->pad = 0;
	if (head && t->network_header != 0xffff &&
	    !bpf_probe_read_kernel(t->l3, sizeof(t->l3), (const void *)(head + t->network_header)))
		t->read |= KSNOOP_TUPLE_L3;
	if (head && t->transport_header != 0xffff &&
	    !bpf_probe_read_kernel(t->l4, sizeof(t->l4), (const void *)(head + t->transport_header)))
		t->read |= KSNOOP_TUPLE_L4;
	return KSNOOP_OK;
}

/* A sock's tuple: its __sk_common fields and sk_protocol, as stored. */
static __always_inline int copy_sock_tuple(const volatile struct ksnoop_access *acc, __u64 sk,
					   struct ksnoop_sock_tuple *t)
{
	if (read_field(acc, KSNOOP_SOCK_FAMILY, sk, &t->family, 2) ||
	    read_field(acc, KSNOOP_SOCK_NUM, sk, &t->num, 2) ||
	    read_field(acc, KSNOOP_SOCK_DPORT, sk, &t->dport, 2) ||
	    read_field(acc, KSNOOP_SOCK_STATE, sk, &t->state, 1) ||
	    read_field(acc, KSNOOP_SOCK_RCV_SADDR, sk, t->rcv_saddr, 4) ||
	    read_field(acc, KSNOOP_SOCK_DADDR, sk, t->daddr, 4) ||
	    read_field(acc, KSNOOP_SOCK_V6_RCV_SADDR, sk, t->v6_rcv_saddr, 16) ||
	    read_field(acc, KSNOOP_SOCK_V6_DADDR, sk, t->v6_daddr, 16))
		return KSNOOP_FAULT;
	t->pad[0] = t->pad[1] = t->pad[2] = 0;
	if (tuple_off(acc, KSNOOP_SOCK_PROTOCOL) == KSNOOP_TUPLE_NO_FIELD ||
	    read_field(acc, KSNOOP_SOCK_PROTOCOL, sk, &t->protocol, 2))
		t->protocol = KSNOOP_TUPLE_NO_FIELD;
	return KSNOOP_OK;
}

/* ':tuple' of the struct at ADDR (kernel memory only) into DST. */
static __always_inline int copy_tuple(const volatile struct ksnoop_access *acc, __u64 addr,
				      bool user, void *dst, __u32 room, __u32 *len)
{
	int st;

	*len = 0;
	/* The resolver gives a tuple its room; a user address is no skb. */
	if (user || room < sizeof(struct ksnoop_skb_tuple))
		return KSNOOP_FAULT;
	if (acc->flags & KSNOOP_VAL_SKB_TUPLE)
		st = copy_skb_tuple(acc, addr, dst);
	else
		st = copy_sock_tuple(acc, addr, dst);
	if (st == KSNOOP_OK)
		*len = sizeof(struct ksnoop_skb_tuple);
	return st;
}

/* Copy one value into the record; returns its status, sets *len. */
static __always_inline int copy_value(const volatile struct ksnoop_access *acc,
				      const __u64 *words, void *dst, __u32 room, __u32 *len,
				      __u64 *from)
{
	__u64 word = src_word(words, acc), addr;
	bool user;
	int st;

	/* An argument that faulted: where it is, not a value. */
	if (src_unread(words, acc)) {
		__u32 slot = slot_unread(words, src_slot(acc)) ? src_slot(acc) : acc->len_slot;

		*from = slot < KSNOOP_MAX_ARGS ? words[slot] : 0;
		*len = 0;
		return KSNOOP_FAULT | KSNOOP_ST_USER;
	}
	if (acc->flags & KSNOOP_VAL_REG) {
		/* A value's room is at least 8 bytes (rounded up). */
		*(__u64 *)dst = word;
		*len = acc->size < room ? acc->size : room;
		return KSNOOP_OK;
	}
	st = walk(acc, word, &addr, &user);
	if (st != KSNOOP_OK) {
		/* An error pointer is the value's address: the printer names its errno. */
		if (st == KSNOOP_ERR_PTR)
			*from = addr;
		*len = 0;
		return st;
	}
	*from = addr;
	if ((plan.flags & KSNOOP_PLAN_TUPLE) &&
	    (acc->flags & (KSNOOP_VAL_SKB_TUPLE | KSNOOP_VAL_SOCK_TUPLE)))
		return copy_tuple(acc, addr, user, dst, room, len);
	return copy_object(acc, addr, user, dst, room, str_chars(acc, words), len);
}

/* Read the scalar a predicate tests, sign- or zero-extended to 64 bits. */
static __always_inline int pred_scalar(const volatile struct ksnoop_pred_plan *p,
				       __u64 word, __u64 *val)
{
	__u32 shift = 64 - 8 * p->width;
	__u64 addr, v = 0;
	bool user;

	if (p->acc.flags & KSNOOP_VAL_REG) {
		v = word;
	} else {
		if (walk(&p->acc, word, &addr, &user) != KSNOOP_OK)
			return -1;
		if (read_mem(&v, p->width, addr, user))
			return -1;
	}
	/* A bitfield: its bits, then extended from its own width. */
	if (p->bit_size) {
		v >>= p->bit_off;
		shift = 64 - p->bit_size;
	}
	if (shift && shift < 64) {
		if (p->is_signed)
			v = (__u64)((__s64)(v << shift) >> shift);
		else
			v = (v << shift) >> shift;
	}
	*val = v;
	return 0;
}

static __always_inline bool pred_holds(const __u64 *words,
				       const volatile struct ksnoop_pred_plan *p)
{
	__u64 word = src_word(words, &p->acc);
	__u64 v, c = p->imm;
	int i;

	/* A value that cannot be read holds no predicate, as a fault below. */
	if (src_unread(words, &p->acc))
		return false;
	if (p->is_str) {
		/* One byte more than the longest constant: a longer string differs. */
		char buf[KSNOOP_MAX_PRED_STR + 1] = {};
		__u32 size = p->acc.size < sizeof(buf) ? p->acc.size : sizeof(buf);
		__u64 addr;
		bool eq = true, user;

		if (walk(&p->acc, word, &addr, &user) != KSNOOP_OK)
			return false;
		if (p->acc.flags & KSNOOP_VAL_STR) {
			/* ":str(LEN)": the characters LEN allows, then the zeroes of buf. */
			__u64 nchars = str_chars(&p->acc, words);

			__u64 want = sizeof(buf);

			if (nchars < sizeof(buf) - 1)
				want = nchars + 1;
			barrier_var(want);
			if (want > sizeof(buf))
				want = sizeof(buf);
			if (read_str(buf, want, addr, user) < 0)
				return false;
		} else if (read_mem(buf, size, addr, user)) {
			return false;
		}
		for (i = 0; i < KSNOOP_MAX_PRED_STR; i++) {
			if (buf[i] != p->str[i]) {
				eq = false;
				break;
			}
			if (!buf[i])
				break;
		}
		return p->op == KSNOOP_OP_EQ ? eq : !eq;
	}

	if (pred_scalar(p, word, &v))
		return false;
	if (p->mask)
		v &= p->mask;
	switch (p->op) {
	case KSNOOP_OP_EQ: return v == c;
	case KSNOOP_OP_NE: return v != c;
	}
	if (p->is_signed) {
		switch (p->op) {
		case KSNOOP_OP_LT: return (__s64)v < (__s64)c;
		case KSNOOP_OP_LE: return (__s64)v <= (__s64)c;
		case KSNOOP_OP_GT: return (__s64)v > (__s64)c;
		case KSNOOP_OP_GE: return (__s64)v >= (__s64)c;
		}
	} else {
		switch (p->op) {
		case KSNOOP_OP_LT: return v < c;
		case KSNOOP_OP_LE: return v <= c;
		case KSNOOP_OP_GT: return v > c;
		case KSNOOP_OP_GE: return v >= c;
		}
	}
	return false;
}

/*
 * The current task's ids as ksnoop's pid namespace sees them (a task
 * outside it has none: 0).  In the initial namespace the plain helper is
 * cheaper and says the same.
 */
static __always_inline void task_ids(__u32 *tgid, __u32 *tid)
{
	struct bpf_pidns_info ns = {};
	__u64 id;

	if (plan.pidns_ino) {
		if (bpf_get_ns_current_pid_tgid(plan.pidns_dev, plan.pidns_ino, &ns, sizeof(ns)))
			ns.tgid = ns.pid = 0;
		*tgid = ns.tgid;
		*tid = ns.pid;
		return;
	}
	id = bpf_get_current_pid_tgid();
	*tgid = id >> 32;
	*tid = (__u32)id;
}

static __always_inline bool task_selected(void)
{
	char comm[KSNOOP_COMM_LEN];
	__u32 tgid, tid;
	int i;

	if (plan.filter_pid || plan.filter_tid) {
		task_ids(&tgid, &tid);
		if (plan.filter_pid && tgid != plan.filter_pid)
			return false;
		if (plan.filter_tid && tid != plan.filter_tid)
			return false;
	}
	if (plan.filter_comm) {
		bpf_get_current_comm(comm, sizeof(comm));
		for (i = 0; i < KSNOOP_COMM_LEN; i++) {
			if (comm[i] != plan.comm[i])
				return false;
			if (!comm[i])
				break;
		}
	}
	return true;
}

/*
 * One call as the programs see it: which function, when this side ran,
 * when the call began (0: its entry was not seen, or not asked for), the
 * task's ids once read (have_ids), its key and its function's values.
 */
struct call {
	__u32 func_id;
	__u32 tgid;
	__u32 tid;
	__u32 have_ids;
	__u64 now;
	__u64 start;
	/* The call's key in the stash and entry_times (if its side keeps any). */
	struct ksnoop_stash_key key;
	/* A group whose values vary: this function's (NULL: the plan's). */
	const struct ksnoop_func_values *fv;
	/*
	 * --tree: the session this call is in (0: none) and its depth
	 * there; the root's: the calls its session did not record.
	 */
	__u32 session;
	__u32 depth;
	/* --tree: an inner call's session; the root's: its calls waiting */
	struct ksnoop_tree_session *tree;
	struct ksnoop_tree_rec *tree_rec;	/* an inner call's record (tree_rec_begin()) */
	__u32 tree_kept;
	__u32 tree_flushed;	/* the root's: its calls went to the ring buffer */
	/* --track: the object this call reports (0: none) and how (KSNOOP_EV_*) */
	__u64 object;
	__u32 track_flags;
};

/*
 * Whether the current task is ksnoop itself, whose calls are left out
 * (printing them would make more: a loop) and counted, so the summary
 * says so: on tp:sched_switch, which fires in the task switching out,
 * every switch from ksnoop goes while those to it print.  Asked only of
 * calls whose predicates held (a filtered-out call pays nothing for it);
 * the ids it reads go into C for the record's header.
 */
static __always_inline bool task_is_self(struct call *c)
{
	if (!plan.self_tgid)
		return false;
	task_ids(&c->tgid, &c->tid);
	c->have_ids = 1;
	if (c->tgid != plan.self_tgid)
		return false;
	count(KSNOOP_CNT_SELF);
	return true;
}

/* The header of one record at REC; a return with a known start has a duration. */
static __always_inline void fill_header(void *rec, int kind, const struct call *c)
{
	struct ksnoop_event *ev = rec;

	ev->time_ns = c->now;
	ev->duration_ns = 0;
	ev->flags = 0;
	if (kind == KSNOOP_RETURN && c->start && c->start <= c->now) {
		ev->duration_ns = c->now - c->start;
		ev->flags = KSNOOP_EV_DURATION;
	}
	ev->cpu = bpf_get_smp_processor_id();
	if (c->have_ids) {
		ev->tgid = c->tgid;
		ev->tid = c->tid;
	} else {
		task_ids(&ev->tgid, &ev->tid);
	}
	ev->func_id = c->func_id;
	ev->kind = kind;
	ev->depth = c->depth;
	ev->session = c->session;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	ev->object = c->object;
	ev->flags |= c->track_flags;
}

/*
 * How many values KIND's side has, and how to reach the I-th: the plan's,
 * or in a group with per-function values (FV) the function's own.  Where
 * each goes in the record, and how much room it has, is the plan's.
 */
static __always_inline int nvalues(const volatile struct ksnoop_side_plan *side, int kind,
				   const struct ksnoop_func_values *fv)
{
	return fv ? fv->nvalues[kind] : side->nvalues;
}

static __always_inline const volatile struct ksnoop_access *
value_access(const volatile struct ksnoop_side_plan *side, int kind, int i,
	     const struct ksnoop_func_values *fv)
{
	if (fv)
		return (const volatile struct ksnoop_access *)&fv->acc[kind][i];
	return &side->values[i].acc;
}

/* The values of one record at REC, from the START-th on. */
static __always_inline void fill_values(void *ctx, enum word_source ws, int kind, void *rec,
					const volatile struct ksnoop_side_plan *side,
					const struct ksnoop_func_values *fv,
					const __u64 *words, int start)
{
	int i;

	for (i = 0; i < KSNOOP_MAX_VALUES; i++) {
		const volatile struct ksnoop_value_plan *vp;
		const volatile struct ksnoop_access *acc;
		struct ksnoop_value *vh;

		if (i >= side->nvalues || i >= nvalues(side, kind, fv))
			break;
		if (i < start)
			continue;
		vp = &side->values[i];
		vh = rec + vp->rec_off;
		vh->addr = 0;
		/*
		 * -s: the stack at this probe, taken only once the predicates
		 * held; a USDT probe's is the traced program's (user) stack.
		 * --ustack: the current task's user stack at any probe.
		 */
		if (vp->acc.src == KSNOOP_SRC_STACK || vp->acc.src == KSNOOP_SRC_USTACK) {
			long n = bpf_get_stack(ctx, (void *)(vh + 1), KSNOOP_STACK_DEPTH * 8,
					       ws == WORDS_USDT || vp->acc.src == KSNOOP_SRC_USTACK ?
					       BPF_F_USER_STACK : 0);

			vh->status = n < 0 ? KSNOOP_FAULT : KSNOOP_OK;
			vh->len = n < 0 ? 0 : n;
			continue;
		}
		acc = value_access(side, kind, i, fv);
		vh->status = copy_value(acc, words, (void *)(vh + 1), vp->acc.size, &vh->len,
					&vh->addr);
	}
}

/* A value whose final read was of user memory and faulted. */
static __always_inline bool user_fault(const struct ksnoop_value *vh)
{
	return (vh->status & KSNOOP_STATUS_MASK) == KSNOOP_FAULT &&
	       (vh->status & KSNOOP_ST_USER) && vh->addr;
}

static __always_inline bool has_user_fault(void *rec, const volatile struct ksnoop_side_plan *side,
					   int kind, const struct ksnoop_func_values *fv)
{
	int i;

	for (i = 0; i < KSNOOP_MAX_VALUES; i++) {
		if (i >= side->nvalues || i >= nvalues(side, kind, fv))
			break;
		if (user_fault(rec + side->values[i].rec_off))
			return true;
	}
	return false;
}

/*
 * At the return, read again the entry values (the first N of SIDE) whose
 * user memory was not paged in at entry; by now the kernel has usually
 * copied it in itself.
 */
static __always_inline void reread_user_faults(void *rec, const volatile struct ksnoop_side_plan *side,
					       const struct ksnoop_func_values *fv, int n)
{
	int i;

	for (i = 0; i < KSNOOP_MAX_VALUES; i++) {
		const volatile struct ksnoop_value_plan *vp;
		const volatile struct ksnoop_access *acc;
		struct ksnoop_value *vh;

		if (i >= side->nvalues || i >= n || i >= nvalues(side, KSNOOP_ENTRY, fv))
			break;
		vp = &side->values[i];
		vh = rec + vp->rec_off;
		if (!user_fault(vh))
			continue;
		acc = value_access(side, KSNOOP_ENTRY, i, fv);
		vh->status = copy_object(acc, vh->addr, true, (void *)(vh + 1), vp->acc.size,
					 acc->flags & KSNOOP_VAL_STR_LEN ? vh->len : STR_UNBOUNDED,
					 &vh->len) |
			     KSNOOP_ST_AT_RETURN;
	}
}

/* Emit the entry record stashed because of a user fault (KSNOOP_SIDE_RETRY). */
static __always_inline void emit_retried_entry(struct ksnoop_stash_key *key,
					       const struct ksnoop_func_values *fv)
{
	const volatile struct ksnoop_side_plan *entry = &plan.side[KSNOOP_ENTRY];
	void *stashed = bpf_map_lookup_elem(&stash, key), *rec;

	if (!stashed)
		return;
	rec = bpf_ringbuf_reserve(&events, entry->rec_size, 0);
	if (!rec) {
		count(KSNOOP_CNT_LOST);
		bpf_map_delete_elem(&stash, key);
		return;
	}
	bpf_probe_read_kernel(rec, entry->rec_size, stashed);
	bpf_map_delete_elem(&stash, key);
	reread_user_faults(rec, entry, fv, KSNOOP_MAX_VALUES);
	submit(rec, entry->rec_size);
}

/* Keep a copy of record REC under KEY; false if it could not be kept. */
static __always_inline bool stash_record(struct ksnoop_stash_key *key, void *rec, __u32 size)
{
	__u32 zero = 0;
	void *buf = bpf_map_lookup_elem(&scratch, &zero);

	if (!buf || bpf_probe_read_kernel(buf, size, rec))
		return false;
	if (bpf_map_update_elem(&stash, key, buf, BPF_ANY)) {
		count(KSNOOP_CNT_STASH_DROP);
		return false;
	}
	return true;
}

/* Forget what an earlier call left under KEY (its return was never seen). */
static __always_inline void stash_clear(struct ksnoop_stash_key *key)
{
	if (bpf_map_lookup_elem(&stash, key))
		bpf_map_delete_elem(&stash, key);
}

/*
 * USDT: does this call site pass the arguments this instance was planned
 * for?  libbpf's spec for the site says how many there are, how wide each
 * is and whether it is signed; sites of one probe may differ in all three.
 * usdt_sig[] ends where the planned arguments do (0): a site with fewer or
 * more is another instance's, whatever its first arguments are.
 */
static __always_inline bool usdt_site_matches(struct pt_regs *ctx)
{
	struct __bpf_usdt_spec *spec;
	int id = __bpf_usdt_spec_id(ctx), i;

	if (id < 0)
		return false;
	spec = bpf_map_lookup_elem(&__bpf_usdt_specs, &id);
	if (!spec)
		return false;
	for (i = 0; i < KSNOOP_MAX_ARGS; i++) {
		__u8 want = plan.usdt_sig[i], got;

		if (!want)
			return spec->arg_cnt == i;
		if (i >= spec->arg_cnt)
			return false;
		got = (64 - (__u8)spec->args[i].arg_bitshift) >> 3;
		if (spec->args[i].arg_signed)
			got |= KSNOOP_USDT_SIGNED;
		if (got != want)
			return false;
	}
	return spec->arg_cnt == KSNOOP_MAX_ARGS;
}

/*
 * The call frame, the same for the entry and the return of one call.
 * kprobes: from the stack pointer (arch_call_frame()).  fentry/fexit: both
 * programs get the trampoline's frame (the saved arguments) as ctx.
 */
static __always_inline void call_key(void *ctx, enum word_source ws, int kind, __u32 func_id,
				     struct ksnoop_stash_key *key)
{
	key->tid = (__u32)bpf_get_current_pid_tgid();
	key->func_id = func_id;
	if (ws == WORDS_REGS)
		key->frame = arch_call_frame(ctx, kind == KSNOOP_RETURN);
	else if (ws == WORDS_SYSCALL)
		key->frame = 0;	/* a task is in one syscall at a time */
	else
		key->frame = (__u64)ctx;
}

static __always_inline void read_words(void *ctx, enum word_source ws, int kind, __u64 *words)
{
	switch (ws) {
	case WORDS_FENTRY:
		fentry_words(ctx, words, kind == KSNOOP_RETURN);
		break;
	case WORDS_TP:
		tp_words(ctx, words);
		break;
	case WORDS_REGS:
		arch_reg_args(ctx, words, kind == KSNOOP_ENTRY ? plan.nslots : 0);
		if (kind == KSNOOP_RETURN)
			words[KSNOOP_MAX_ARGS] = arch_return_value(ctx);
		break;
	case WORDS_USDT:
		usdt_words(ctx, words, plan.nslots);
		break;
	case WORDS_SYSCALL:
		/*
		 * The record's words, as a raw tracepoint's (the arguments from
		 * word 2); sys_exit's record has ret there, and no more.
		 */
		if (kind == KSNOOP_ENTRY)
			tp_words(ctx, words);
		else
			words[KSNOOP_MAX_ARGS] = ((__u64 *)ctx)[2];
		break;
	}
}

static __always_inline bool preds_hold(const volatile struct ksnoop_side_plan *side,
				       const __u64 *words)
{
	int i;

	for (i = 0; i < KSNOOP_MAX_PREDS; i++) {
		if (i >= side->npreds)
			break;
		if (!pred_holds(words, &side->preds[i]))
			return false;
	}
	return true;
}

/* Entry, KSNOOP_SIDE_STASH: the record goes to the stash, for the return. */
static __always_inline void stash_entry(void *ctx, enum word_source ws,
					const volatile struct ksnoop_side_plan *side,
					const __u64 *words, struct call *c)
{
	__u32 zero = 0;
	void *rec = bpf_map_lookup_elem(&scratch, &zero);

	if (!rec)
		return;
	fill_header(rec, KSNOOP_ENTRY, c);
	fill_values(ctx, ws, KSNOOP_ENTRY, rec, side, NULL, words, 0);
	if (bpf_map_update_elem(&stash, &c->key, rec, BPF_ANY)) {
		count(KSNOOP_CNT_STASH_DROP);
		stash_clear(&c->key);
	}
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_COUNT_ENTRIES);
	__type(key, struct ksnoop_count_key);
	__type(value, struct ksnoop_count_val);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, KSNOOP_STACK_ENTRIES);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, KSNOOP_STACK_DEPTH * sizeof(__u64));
} stacks SEC(".maps");

/* log2 bucket: 0 for 0, k for [2^(k-1), 2^k). */
static __always_inline __s32 log2_bucket(__u64 v)
{
	__s32 b = 1;

	if (!v)
		return 0;
	if (v >> 32) { b += 32; v >>= 32; }
	if (v >> 16) { b += 16; v >>= 16; }
	if (v >> 8) { b += 8; v >>= 8; }
	if (v >> 4) { b += 4; v >>= 4; }
	if (v >> 2) { b += 2; v >>= 2; }
	if (v >> 1) { b += 1; }
	return b;
}

/*
 * --by: the counts per (function, key, bucket), keys as they come; only
 * when --by is given (userspace does not create it otherwise).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_BY_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ksnoop_by_key);
	__type(value, struct ksnoop_count_val);
} by_counts SEC(".maps");

/*
 * --hist=linear: bucket -1 below hist_min, k for [min + k * step,
 * min + (k + 1) * step), hist_nbuckets at or above the last.
 */
static __always_inline __s32 linear_bucket(__u64 v, bool is_signed)
{
	__u64 off;

	if (is_signed ? (__s64)v < plan.hist_min :
	    plan.hist_min >= 0 && v < (__u64)plan.hist_min)
		return -1;
	off = v - (__u64)plan.hist_min;
	if (off / plan.hist_step >= plan.hist_nbuckets)
		return plan.hist_nbuckets;
	return off / plan.hist_step;
}

/* The histogram's bucket of V: log2 or linear (plan.hist_linear). */
static __always_inline __s32 hist_bucket(__u64 v, bool is_signed)
{
	if (plan.hist_linear)
		return linear_bucket(v, is_signed);
	return is_signed && (__s64)v < 0 ? -1 : log2_bucket(v);
}

/*
 * --by: the key of this call into KEY (zeroed): the task's comm or ids,
 * the CPU, or the value by_value reads (a ':tuple' made its flow's key).
 * -1: the value could not be read.
 */
static __always_inline int by_key(const __u64 *words, __u8 *key)
{
	const volatile struct ksnoop_pred_plan *p = &plan.by_value;
	__u32 tgid, tid, size;
	__u64 v, addr;
	bool user;

	switch (plan.by) {
	case KSNOOP_BY_COMM:
		bpf_get_current_comm(key, KSNOOP_COMM_LEN);
		return 0;
	case KSNOOP_BY_PID:
	case KSNOOP_BY_TID:
		task_ids(&tgid, &tid);
		*(__u64 *)key = plan.by == KSNOOP_BY_PID ? tgid : tid;
		return 0;
	case KSNOOP_BY_CPU:
		*(__u64 *)key = bpf_get_smp_processor_id();
		return 0;
	default:
		break;
	}
	/* The rest read the value by_value names. */
	if (src_unread(words, &p->acc))
		return -1;
	switch (plan.by) {
	case KSNOOP_BY_INT:
		if (pred_scalar(p, src_word(words, &p->acc), &v))
			return -1;
		*(__u64 *)key = v;
		return 0;
	case KSNOOP_BY_SKB_TUPLE:
		/* A flow: the tuple with what varies per packet zeroed. */
		if (walk(&p->acc, src_word(words, &p->acc), &addr, &user) != KSNOOP_OK || user ||
		    copy_skb_tuple(&p->acc, addr, (struct ksnoop_skb_tuple *)key) != KSNOOP_OK)
			return -1;
		ksnoop_skb_tuple_key((struct ksnoop_skb_tuple *)key);
		return 0;
	case KSNOOP_BY_SOCK_TUPLE:
		if (walk(&p->acc, src_word(words, &p->acc), &addr, &user) != KSNOOP_OK || user ||
		    copy_sock_tuple(&p->acc, addr, (struct ksnoop_sock_tuple *)key) != KSNOOP_OK)
			return -1;
		ksnoop_sock_tuple_key((struct ksnoop_sock_tuple *)key);
		return 0;
	}
	/* KSNOOP_BY_STR: a char pointer's string, or a char array's bytes. */
	if (walk(&p->acc, src_word(words, &p->acc), &addr, &user) != KSNOOP_OK)
		return -1;
	if (p->acc.flags & KSNOOP_VAL_STR)
		return read_str(key, KSNOOP_BY_SIZE, addr, user) < 0 ? -1 : 0;
	size = p->acc.size < KSNOOP_BY_SIZE - 1 ? p->acc.size : KSNOOP_BY_SIZE - 1;
	return read_mem(key, size, addr, user) ? -1 : 0;
}

/*
 * --hist: *MAX = V if V is larger, in one atomic step; a CPU that raced
 * another looks again (KSNOOP_MAX_CAS_TRIES times: each failure means
 * the max rose meanwhile).
 */
static __always_inline void keep_max(__u64 *max, __u64 v, bool is_signed)
{
	__u64 old;
	int i;

	for (i = 0; i < KSNOOP_MAX_CAS_TRIES; i++) {
		old = *(volatile __u64 *)max;
		if (is_signed ? (__s64)v <= (__s64)old : v <= old)
			return;
		if (__sync_val_compare_and_swap(max, old, v) == old)
			return;
	}
}

/*
 * One more in MAP at KEY (made if new), and for --hist V its max if
 * larger; a full map is counted.
 */
static __always_inline void add_one(void *map, const void *key, __u64 v)
{
	struct ksnoop_count_val one = { .count = 1, .max = v };
	struct ksnoop_count_val *n = bpf_map_lookup_elem(map, key);

	if (!n) {
		if (bpf_map_update_elem(map, key, &one, BPF_NOEXIST) == 0)
			return;
		/* Another CPU added it meanwhile, or the map is full. */
		n = bpf_map_lookup_elem(map, key);
		if (!n) {
			count(KSNOOP_CNT_COUNT_FULL);
			return;
		}
	}
	__sync_fetch_and_add(&n->count, 1);
	if (plan.output == KSNOOP_OUT_HIST || plan.output == KSNOOP_OUT_HIST_DURATION)
		keep_max(&n->max, v, plan.output == KSNOOP_OUT_HIST && plan.hist.is_signed);
}

/* --by: one more for (function, bucket SUB, this call's key), of value V. */
static __always_inline void count_by(const struct call *c, __s32 sub, __u64 v,
				     const __u64 *words)
{
	struct ksnoop_by_key bk = { .func_id = c->func_id, .sub = sub };

	if (by_key(words, bk.key)) {
		count(KSNOOP_CNT_HIST_UNREAD);
		return;
	}
	add_one(&by_counts, &bk, v);
}

/* bpf_get_stackid() with BPF_F_USER_STACK: no user stack (a kernel thread's). */
#define STACKID_NO_USER_STACK	(-14)	/* -EFAULT */

/* --count: one more call of C's function (and of its stack), no record at all. */
static __always_inline void count_call(void *ctx, enum word_source ws, const struct call *c,
				       const __u64 *words)
{
	struct ksnoop_count_key key = { .func_id = c->func_id, .sub = -1, .usub = -1 };
	__u64 v = 0;
	__u32 tid;

	if (plan.output == KSNOOP_OUT_HIST_DURATION) {
		/* A return whose entry was not seen (or not selected): no call. */
		if (!c->start || c->now < c->start)
			return;
		v = c->now - c->start;
		key.sub = hist_bucket(v, false);
	} else if (plan.output == KSNOOP_OUT_HIST) {
		/* A value that cannot be read is no bucket: counted as a fault. */
		if (src_unread(words, &plan.hist.acc) ||
		    pred_scalar(&plan.hist, src_word(words, &plan.hist.acc), &v)) {
			count(KSNOOP_CNT_HIST_UNREAD);
			return;
		}
		key.sub = hist_bucket(v, plan.hist.is_signed);
	} else if (ws != WORDS_USDT && plan.output == KSNOOP_OUT_COUNT_STACKS) {
		/*
		 * Not in the USDT program at all (ws is known when it is
		 * compiled): a sleepable program may not use a stack map.
		 */
		key.sub = bpf_get_stackid(ctx, &stacks, 0);
		if (key.sub < 0) {
			count(KSNOOP_CNT_STACK_LOST);
			key.sub = -1;
		}
	}
	/* --count --ustack: and per user stack, of its process. */
	if (ws != WORDS_USDT && (plan.flags & KSNOOP_PLAN_COUNT_USTACK)) {
		key.usub = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK);
		if (key.usub < 0 && key.usub != STACKID_NO_USER_STACK)
			count(KSNOOP_CNT_STACK_LOST);
		if (key.usub < 0)
			key.usub = -1;
		task_ids(&key.tgid, &tid);
	}
	if (plan.by) {
		count_by(c, key.sub, v, words);
		return;
	}
	add_one(&counts, &key, v);
}

/* Entry, KSNOOP_SIDE_TIMED: when this call began, for its return. */
static __always_inline void entry_time_keep(struct ksnoop_stash_key *key, __u64 now)
{
	if (bpf_map_update_elem(&entry_times, key, &now, BPF_ANY)) {
		count(KSNOOP_CNT_STASH_DROP);
		bpf_map_delete_elem(&entry_times, key);
	}
}

/* Entry, KSNOOP_SIDE_TIMED, a call not selected: no stale time for its return. */
static __always_inline void entry_time_clear(struct ksnoop_stash_key *key)
{
	/* A lookup takes no lock; a delete does, even of nothing. */
	if (bpf_map_lookup_elem(&entry_times, key))
		bpf_map_delete_elem(&entry_times, key);
}

/* Return, KSNOOP_SIDE_TIMED: when this call began (0: not seen); the key goes. */
static __always_inline __u64 entry_time_take(struct ksnoop_stash_key *key)
{
	__u64 *t = bpf_map_lookup_elem(&entry_times, key), start;

	if (!t)
		return 0;
	start = *t;
	bpf_map_delete_elem(&entry_times, key);
	return start;
}


/*
 * --min-duration, on the return: a call shorter than that, or whose entry
 * was not seen, is left out before anything is read or reserved.
 */
static __always_inline bool long_enough(const struct call *c)
{
	return c->start && c->now >= c->start && c->now - c->start >= plan.min_duration_ns;
}

/* ---- --tree: sessions ---- */

/*
 * One session per task in a call tree (ksnoop.h, enum ksnoop_tree_role),
 * shared by every instance of a run.  Keyed by the kernel's tid: only the
 * task itself reads or writes its element.  Not an LRU: an evicted session
 * would drop its tree uncounted and leave its calls in tree_buf for good.
 * A session ends at its root's return, at its task's exit or exec
 * (ksnoop_tree_exit, ksnoop_tree_exec), or when its tid turns up in
 * another task; a root that finds the map full opens none, counted.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_TREE_SESSIONS);
	__type(key, __u32);
	__type(value, struct ksnoop_tree_session);
} sessions SEC(".maps");

/*
 * A session's calls until its root returns (ksnoop.h); shared like
 * sessions.  With --tree userspace preallocates it and sizes its values
 * to the largest inner record; unused, it stays empty.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_TREE_BUF_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ksnoop_tree_buf_key);
	__type(value, struct ksnoop_tree_rec);
} tree_buf SEC(".maps");

/*
 * The kernel's in_task(): not in a hard interrupt, an NMI or a softirq
 * being served (a task's own calls with softirqs only disabled are its).
 * The CPU's preempt count is read where userspace found it (kallsyms and
 * BTF: a per-CPU int on 6.1, a member of pcpu_hot from 6.2 to 6.14), as
 * per_cpu_ptr() does; typed ksyms would not load where the kernel keeps
 * BTF for the variable but no address.  The masks are linux/preempt.h's.
 */
#define PREEMPT_NOT_TASK	(0x00f00000 /* NMI */ | 0x000f0000 /* HARDIRQ */ | \
				 0x00000100 /* SOFTIRQ_OFFSET */)

static __always_inline bool in_task(void)
{
	__u64 off;
	int count;

	if (!plan.per_cpu_offset_addr)
		return true;
	if (bpf_probe_read_kernel(&off, sizeof(off), (void *)(plan.per_cpu_offset_addr +
				  8 * (__u64)bpf_get_smp_processor_id())) ||
	    bpf_probe_read_kernel(&count, sizeof(count), (void *)(plan.preempt_count_addr + off)))
		return true;
	return !(count & PREEMPT_NOT_TASK);
}

/* bpf_loop()'s context at a session's end: whose calls, and emit or drop. */
struct tree_flush {
	__u32 tid;
	__u32 emit;
};

static long tree_flush_one(__u32 i, void *ctx)
{
	struct tree_flush *f = ctx;
	struct ksnoop_tree_buf_key key = { .tid = f->tid, .index = i };
	struct ksnoop_tree_rec *t = bpf_map_lookup_elem(&tree_buf, &key);
	__u32 size;

	if (!t)
		return 0;
	size = t->size;
	if (f->emit && size >= sizeof(struct ksnoop_event) && size <= plan.tree_rec_size &&
	    bpf_ringbuf_output(&events, t->rec, size, BPF_RB_NO_WAKEUP))
		count(KSNOOP_CNT_LOST);
	bpf_map_delete_elem(&tree_buf, &key);
	return 0;
}

/* TID's session's N calls to the ring buffer (EMIT, the root's return), or gone. */
static __always_inline void tree_flush(__u32 tid, __u32 n, bool emit)
{
	struct tree_flush f = { .tid = tid, .emit = emit };

	if (n)
		bpf_loop(n < KSNOOP_TREE_BUF_ENTRIES ? n : KSNOOP_TREE_BUF_ENTRIES,
			 tree_flush_one, &f, 0);
}

/*
 * TID's session S is dropped (WHY: its task exited or exec'd): its calls
 * waiting in tree_buf go with it, and the tree is counted.
 */
static __always_inline void tree_drop(__u32 tid, struct ksnoop_tree_session *s,
				      enum ksnoop_counter why)
{
	tree_flush(tid, (__u32)s->kept, false);
	bpf_map_delete_elem(&sessions, &tid);
	count(why);
}

/*
 * The current task's session, or NULL.  A session left by a task that
 * exited inside it (its root never returned) is not a new task's of the
 * same tid: it goes.
 */
static __always_inline struct ksnoop_tree_session *tree_session(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ksnoop_tree_session *s = bpf_map_lookup_elem(&sessions, &tid);

	/* An interrupt's calls are not the task's, whose session it interrupted. */
	if (s && !in_task())
		return NULL;
	if (s && s->task != bpf_get_current_task()) {
		tree_drop(tid, s, KSNOOP_CNT_TREE_EXIT);
		return NULL;
	}
	return s;
}

/*
 * A session's counts change atomically: a hard interrupt taken while its
 * task is in it runs the session's programs on the same CPU (and counts)
 * in the middle of the task's.
 */
static __always_inline bool tree_full(struct ksnoop_tree_session *s, __u32 depth)
{
	if (depth <= KSNOOP_TREE_MAX_DEPTH && s->calls < s->limit) {
		__sync_fetch_and_add(&s->calls, 1);
		return false;
	}
	__sync_fetch_and_add(&s->dropped, 1);
	count(KSNOOP_CNT_TREE_DROP);
	return true;
}

/*
 * An inner function's entry: false (nothing more to do) outside a session
 * (the one lookup a call outside pays), or past the session's limits.
 */
static __always_inline bool tree_inner_enter(void)
{
	struct ksnoop_tree_session *s = tree_session();
	__u32 depth;

	if (!s)
		return false;
	/* An interrupt's calls in between leave the depth as they found it. */
	depth = s->depth + 1;
	__sync_fetch_and_add(&s->depth, 1);
	return !tree_full(s, depth);
}

/*
 * An inner tracepoint (no return: a leaf of the tree at its place): false
 * outside a session or past its limits; C gets its depth and session.
 */
static __always_inline bool tree_inner_event(struct call *c)
{
	struct ksnoop_tree_session *s = tree_session();

	if (!s)
		return false;
	c->depth = s->depth + 1;
	if (tree_full(s, c->depth))
		return false;
	c->session = s->id;
	c->tree = s;
	return true;
}

/* An inner function's return: false outside a session; C gets its depth. */
static __always_inline bool tree_inner_leave(struct call *c)
{
	struct ksnoop_tree_session *s = tree_session();

	if (!s)
		return false;
	c->depth = s->depth;
	if (c->depth)
		__sync_fetch_and_add(&s->depth, -1);
	c->session = s->id;
	c->tree = s;
	return c->depth && c->depth <= KSNOOP_TREE_MAX_DEPTH;
}

/*
 * An inner call's record, built in place in its tree_buf element (NULL:
 * not recorded, and counted).  Its index is taken first, atomically, and
 * the record is not built in the scratch buffer and copied: a hard
 * interrupt taken while the task is in its session runs the session's
 * programs too (a timer's tp:timer:hrtimer_start, say), on this CPU, and
 * would take the same index, or build its record in the same buffer, in
 * between.  The element is not a record (size 0) until tree_rec_keep().
 */
static __always_inline void *tree_rec_begin(const volatile struct ksnoop_side_plan *side,
					    struct call *c)
{
	struct ksnoop_tree_session *s = c->tree;
	struct ksnoop_tree_buf_key key;
	struct ksnoop_tree_rec *t = NULL;
	__u32 zero = 0;
	void *any;

	if (!c->now)
		c->now = bpf_ktime_get_ns();
	if (!s)
		return NULL;
	key.tid = (__u32)bpf_get_current_pid_tgid();
	key.index = __sync_fetch_and_add(&s->kept, 1);
	/* The new element's first bytes come from anywhere: scratch. */
	any = bpf_map_lookup_elem(&scratch, &zero);
	if (any && !bpf_map_update_elem(&tree_buf, &key, any, BPF_ANY))
		t = bpf_map_lookup_elem(&tree_buf, &key);
	if (!t) {
		__sync_fetch_and_add(&s->dropped, 1);
		count(KSNOOP_CNT_TREE_DROP);
		return NULL;
	}
	t->size = 0;
	c->tree_rec = t;
	return t->rec;
}

/* The record tree_rec_begin() gave C is complete. */
static __always_inline void tree_rec_keep(const volatile struct ksnoop_side_plan *side,
					  struct call *c)
{
	if (c->tree_rec)
		c->tree_rec->size = side->rec_size;
}

/* The root's entry, inside a session already: a nested root call, the outer one's. */
static __always_inline bool tree_root_nested(void)
{
	struct ksnoop_tree_session *s = tree_session();

	if (!s)
		return false;
	s->nested++;
	return true;
}

/* The root's entry, selected: the task's session starts. */
static __always_inline void tree_open(struct call *c)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ksnoop_tree_session s = {
		.id = (__u32)(c->now ?: bpf_ktime_get_ns()),
		.limit = plan.tree_max_calls,
		.task = bpf_get_current_task(),
	};

	if (bpf_map_update_elem(&sessions, &tid, &s, BPF_ANY))
		count(KSNOOP_CNT_TREE_NO_ROOM);
}

/*
 * The root's return: false if this call opened no session (not selected)
 * or is a nested one; else the session ends, its id in C.
 */
static __always_inline bool tree_close(struct call *c)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ksnoop_tree_session *s = tree_session();

	if (!s)
		return false;
	if (s->nested) {
		s->nested--;
		return false;
	}
	c->session = s->id;
	c->depth = s->dropped < 0xffff ? s->dropped : 0xffff;
	c->tree_kept = s->kept;
	bpf_map_delete_elem(&sessions, &tid);
	return true;
}

/*
 * --tree: a task that exits inside a session (its root never returns: a
 * get_signal() that ends in do_group_exit(), say) takes the session and
 * the calls waiting for it along.  One instance of a run, a root's, has it.
 */
SEC("tp_btf/sched_process_exit")
int ksnoop_tree_exit(__u64 *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ksnoop_tree_session *s = bpf_map_lookup_elem(&sessions, &tid);

	if (s && s->task == bpf_get_current_task())
		tree_drop(tid, s, KSNOOP_CNT_TREE_EXIT);
	return 0;
}

/*
 * --tree: a thread other than the leader that calls execve takes the
 * leader's pid as its tid (de_thread()); its root's return would look the
 * session up under the new tid and find nothing.  The tree is dropped
 * here, counted, with its calls: the root's stashed entry and entry time
 * are keyed by the old tid too, so a moved session could not print
 * whole.  sched_process_exec's old_pid is the tid before (kernel pid
 * namespace, as bpf_get_current_pid_tgid()).  Loaded with ksnoop_tree_exit.
 */
SEC("tp_btf/sched_process_exec")
int ksnoop_tree_exec(__u64 *ctx)
{
	__u32 old_tid = (__u32)ctx[1];
	struct ksnoop_tree_session *s;

	if (old_tid == (__u32)bpf_get_current_pid_tgid())
		return 0;
	s = bpf_map_lookup_elem(&sessions, &old_tid);
	if (s && s->task == bpf_get_current_task())
		tree_drop(old_tid, s, KSNOOP_CNT_TREE_EXEC);
	return 0;
}

/*
 * Which target this call is: the plan's, or in a group's program the one
 * the probe's cookie names (kprobes; tracepoints where raw_tp has cookies,
 * 6.10 on; USDT through libbpf's cookie), and in a group whose values
 * vary, that target's own accesses (c->fv).  False: nothing to do (a USDT
 * call site planned for by another instance, a cookie without values).
 */
static __always_inline bool identify(void *ctx, enum word_source ws, struct call *c)
{
	__u64 cookie;
	__u32 index;

	c->func_id = plan.func_id;
	c->fv = NULL;
	if (ws == WORDS_USDT) {
		if ((plan.flags & KSNOOP_PLAN_USDT_SIG) && !usdt_site_matches(ctx))
			return false;
		if (plan.flags & KSNOOP_PLAN_COOKIE)
			c->func_id = (__u32)bpf_usdt_cookie(ctx);
		return true;
	}
	if (ws == WORDS_FENTRY || !(plan.flags & KSNOOP_PLAN_COOKIE))
		return true;
	cookie = bpf_get_attach_cookie(ctx);
	index = cookie >> KSNOOP_COOKIE_INDEX_SHIFT;
	c->func_id = (__u32)cookie;
	if (!(plan.flags & KSNOOP_PLAN_FUNC_VALUES))
		return true;
	c->fv = bpf_map_lookup_elem(&func_values, &index);
	return c->fv != NULL;
}

/*
 * The start of either side: false if it has nothing to do for this call;
 * else which target it is, and its key where the side keeps state per
 * call (KEYED, or a time).
 */
static __always_inline bool begin_call(void *ctx, enum word_source ws, int kind,
				       struct call *c, bool keyed)
{
	const volatile struct ksnoop_side_plan *side = &plan.side[kind];
	__u32 timed = side->flags & KSNOOP_SIDE_TIMED;

	if (!side->enabled && !(side->flags & KSNOOP_SIDE_RETRY) && !timed)
		return false;
	if (!identify(ctx, ws, c))
		return false;
	if (keyed || timed)
		call_key(ctx, ws, kind, c->func_id, &c->key);
	return true;
}

/*
 * A record for SIDE, the clock read now if it was not (only for calls
 * that are kept, or timed); NULL: the ring buffer is full, counted.
 */
static __always_inline void *reserve(const volatile struct ksnoop_side_plan *side,
				     struct call *c, bool keyed)
{
	void *rec;

	if (!c->now)
		c->now = bpf_ktime_get_ns();
	rec = bpf_ringbuf_reserve(&events, side->rec_size, 0);
	if (!rec) {
		count(KSNOOP_CNT_LOST);
		if (keyed)
			stash_clear(&c->key);
	}
	return rec;
}

/* ---- --track: one object followed across calls ---- */

/*
 * The objects followed (ksnoop.h, enum ksnoop_track_role), shared by
 * every instance of a run; an LRU of --track-max objects (userspace sets
 * the size), so objects never seen freed cannot fill it: the oldest go,
 * and userspace counts them at exit (added - freed - still here).
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, KSNOOP_TRACK_DEFAULT_ENTRIES);
	__type(key, __u64);
	__type(value, struct ksnoop_track_obj);
} tracked SEC(".maps");

/*
 * KSNOOP_TRACK_CLONE: a tracked source, from the entry of a clone to its
 * return, keyed like the stash (kretprobes cannot see arguments).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_STASH_ENTRIES);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ksnoop_stash_key);
	__type(value, __u64);
} track_clones SEC(".maps");

/* The next story's number (ksnoop_track_obj), one for every instance. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);	/* 64 bits: clang 14 returns no 32-bit fetch-and-add's value */
} track_stories SEC(".maps");

/* A story's number: never 0 (none), unique until 2^32 joinings. */
static __always_inline __u32 track_new_story(void)
{
	__u32 zero = 0, story;
	__u64 *next = bpf_map_lookup_elem(&track_stories, &zero);

	if (!next)
		return 0;
	story = __sync_fetch_and_add(next, 1) + 1;
	return story ?: __sync_fetch_and_add(next, 1) + 1;
}

/* The object in the plan's argument word (0: none there). */
static __always_inline __u64 track_object(const __u64 *words)
{
	__u32 slot = plan.track_slot;

	if (slot >= KSNOOP_MAX_ARGS || slot_unread(words, slot))
		return 0;
	return words[slot];
}

/*
 * OBJ joins the set with a new story, if it is not in it; its story (0:
 * it could not join).  CPUs adding one object at once: one adds it
 * (BPF_NOEXIST), the others find it there; neither is lost.
 */
static __always_inline __u32 track_add(__u64 obj)
{
	struct ksnoop_track_obj o = { .since_ns = bpf_ktime_get_ns() }, *have;
	long err;

	have = bpf_map_lookup_elem(&tracked, &obj);
	if (have)
		return have->story;
	o.story = track_new_story();
	err = bpf_map_update_elem(&tracked, &obj, &o, BPF_NOEXIST);
	if (!err) {
		count(KSNOOP_CNT_TRACK_ADDED);
		return o.story;
	}
	if (err != -17) {	/* -EEXIST: another CPU added it */
		count(KSNOOP_CNT_TRACK_FAILED);
		return 0;
	}
	have = bpf_map_lookup_elem(&tracked, &obj);
	return have ? have->story : 0;
}

/*
 * Does this call report, HELD saying whether its predicates held?  A
 * follower: if they held, its object joins the set; if not, it reports
 * only a tracked object (the one lookup an untracked call pays).  A free
 * path: only a tracked object, which leaves the set here; of CPUs
 * freeing one object at once, the one whose delete took it reports.
 */
static __always_inline bool track_call(const __u64 *words, bool held, struct call *c)
{
	__u32 role = plan.track & KSNOOP_TRACK_ROLE_MASK;
	__u64 obj = track_object(words);
	struct ksnoop_track_obj *o;

	if (role != KSNOOP_TRACK_FOLLOW)
		held = false;
	if (!obj || is_err_ptr(obj))
		return held;
	c->object = obj;
	c->track_flags = KSNOOP_EV_OBJECT;
	if (held) {
		c->session = track_add(obj);
		return true;
	}
	o = bpf_map_lookup_elem(&tracked, &obj);
	if (!o)
		return false;
	/* Read before the delete: the element may be another's right after. */
	c->session = o->story;
	if (role != KSNOOP_TRACK_FREE) {
		c->track_flags |= KSNOOP_EV_TRACKED;
		return true;
	}
	if (bpf_map_delete_elem(&tracked, &obj))
		return false;
	count(KSNOOP_CNT_TRACK_FREED);
	c->track_flags |= KSNOOP_EV_FREED;
	return true;
}

/* The predicates of SIDE, then --track's set: does this call report? */
static __always_inline bool call_selected(const volatile struct ksnoop_side_plan *side,
					  const __u64 *words, struct call *c)
{
	bool held = preds_hold(side, words);

	if (!plan.track)
		return held;
	return track_call(words, held, c);
}

/*
 * A clone's entry (its WORDS read, its target in C): a tracked source is
 * kept for the return, under the call's key; then the entry goes on as
 * its role says.
 */
static __always_inline void track_clone_entry(void *ctx, enum word_source ws, const __u64 *words,
					      const struct call *c)
{
	struct ksnoop_stash_key key;
	__u64 src = track_object(words);

	call_key(ctx, ws, KSNOOP_ENTRY, c->func_id, &key);
	if (!src || !bpf_map_lookup_elem(&tracked, &src)) {
		if (bpf_map_lookup_elem(&track_clones, &key))
			bpf_map_delete_elem(&track_clones, &key);
		return;
	}
	if (bpf_map_update_elem(&track_clones, &key, &src, BPF_ANY))
		count(KSNOOP_CNT_TRACK_FAILED);
}

/* A clone's return: the object made from a tracked source joins, reported here. */
static __always_inline int track_clone_return(void *ctx, enum word_source ws)
{
	const volatile struct ksnoop_side_plan *side = &plan.side[KSNOOP_RETURN];
	__u64 words[NWORDS] = {};
	struct call c = {};
	__u64 *src, obj;
	void *rec;

	if (!identify(ctx, ws, &c))
		return 0;
	call_key(ctx, ws, KSNOOP_RETURN, c.func_id, &c.key);
	if (side->flags & KSNOOP_SIDE_TIMED)
		c.start = entry_time_take(&c.key);
	src = bpf_map_lookup_elem(&track_clones, &c.key);
	if (!src)
		return 0;
	bpf_map_delete_elem(&track_clones, &c.key);
	read_words(ctx, ws, KSNOOP_RETURN, words);
	obj = words[KSNOOP_MAX_ARGS];
	if (!obj || is_err_ptr(obj))
		return 0;
	c.session = track_add(obj);
	if (!side->enabled)
		return 0;
	c.object = obj;
	c.track_flags = KSNOOP_EV_OBJECT | KSNOOP_EV_CLONED;
	rec = reserve(side, &c, false);
	if (!rec)
		return 0;
	fill_header(rec, KSNOOP_RETURN, &c);
	fill_values(ctx, ws, KSNOOP_RETURN, rec, side, c.fv, words, 0);
	submit(rec, side->rec_size);
	return 0;
}

/*
 * Entry, an event: one ring-buffer record.  KSNOOP_SIDE_RETRY: an entry
 * whose user memory was not paged in yet waits in the stash instead, for
 * the return to read again and emit.  (Ring-buffer memory cannot be a map
 * value on older kernels: the record goes through the scratch buffer, on
 * this path only.)
 */
static __always_inline int emit_entry(void *ctx, enum word_source ws,
				      const volatile struct ksnoop_side_plan *side,
				      const __u64 *words, struct call *c, bool keyed)
{
	bool inner = plan.tree == KSNOOP_TREE_INNER;	/* a tracepoint in a tree */
	void *rec = inner ? tree_rec_begin(side, c) : reserve(side, c, keyed);

	if (!rec)
		return 0;
	fill_header(rec, KSNOOP_ENTRY, c);
	fill_values(ctx, ws, KSNOOP_ENTRY, rec, side, c->fv, words, 0);
	if (inner) {
		tree_rec_keep(side, c);
		return 0;
	}
	if (side->flags & KSNOOP_SIDE_RETRY) {
		if (has_user_fault(rec, side, KSNOOP_ENTRY, c->fv) &&
		    stash_record(&c->key, rec, side->rec_size)) {
			bpf_ringbuf_discard(rec, BPF_RB_NO_WAKEUP);
			return 0;
		}
		stash_clear(&c->key);
	}
	submit(rec, side->rec_size);
	return 0;
}

/*
 * The entry of a call (fentry, kprobe), or a tracepoint or USDT probe
 * (which have no return): select the call, then keep its time, stash its
 * record for the return, count it, or emit it.  Every entry replaces or
 * clears its key.
 */
static __always_inline int capture_entry(void *ctx, enum word_source ws)
{
	const volatile struct ksnoop_side_plan *side = &plan.side[KSNOOP_ENTRY];
	bool keyed = side->flags & (KSNOOP_SIDE_STASH | KSNOOP_SIDE_RETRY);
	bool timed = side->flags & KSNOOP_SIDE_TIMED;
	bool durations = plan.output == KSNOOP_OUT_HIST_DURATION;
	__u64 words[NWORDS] = {};
	struct call c = {};

	if (plan.tree == KSNOOP_TREE_INNER) {
		if (ws == WORDS_TP || ws == WORDS_SYSCALL) {
			if (!tree_inner_event(&c))
				return 0;
		} else if (!tree_inner_enter()) {
			return 0;
		}
	}
	/* A root called in an interrupt opens no session for the task it interrupted. */
	if (plan.tree == KSNOOP_TREE_ROOT && (tree_root_nested() || !in_task()))
		return 0;
	if (!begin_call(ctx, ws, KSNOOP_ENTRY, &c, keyed))
		return 0;
	if (!task_selected()) {
		if (keyed)
			stash_clear(&c.key);
		if (timed)
			entry_time_clear(&c.key);
		return 0;
	}
	/*
	 * The return side prints whatever the entry's predicates say; a
	 * duration histogram counts only calls they select (kept below).
	 */
	if (timed && !durations) {
		c.now = bpf_ktime_get_ns();
		entry_time_keep(&c.key, c.now);
	}
	if (!side->enabled) {
		if (plan.tree == KSNOOP_TREE_ROOT)
			tree_open(&c);
		return 0;
	}
	read_words(ctx, ws, KSNOOP_ENTRY, words);
	if (plan.track & KSNOOP_TRACK_CLONE)
		track_clone_entry(ctx, ws, words, &c);
	/*
	 * Predicates first: a discarded call reserves and copies nothing.
	 * Then ksnoop's own calls go.
	 */
	if (!call_selected(side, words, &c) || task_is_self(&c)) {
		if (keyed)
			stash_clear(&c.key);
		if (timed && durations)
			entry_time_clear(&c.key);
		return 0;
	}
	if (plan.tree == KSNOOP_TREE_ROOT)
		tree_open(&c);
	/* --hist of durations: the entry only says when a selected call began. */
	if (durations) {
		if (timed)
			entry_time_keep(&c.key, bpf_ktime_get_ns());
		return 0;
	}
	if (side->flags & KSNOOP_SIDE_STASH) {
		c.now = bpf_ktime_get_ns();
		stash_entry(ctx, ws, side, words, &c);
		return 0;
	}
	/* --count, --hist: counted, nothing recorded. */
	if (plan.output != KSNOOP_OUT_EVENTS) {
		count_call(ctx, ws, &c, words);
		return 0;
	}
	return emit_entry(ctx, ws, side, words, &c, keyed);
}

/*
 * Return, an event: one ring-buffer record, behind the stashed entry's
 * values (KSNOOP_SIDE_UNSTASH) read again where they faulted.
 */
static __always_inline int emit_return(void *ctx, enum word_source ws,
				       const volatile struct ksnoop_side_plan *side,
				       const __u64 *words, struct call *c, void *stashed,
				       bool keyed)
{
	bool inner = plan.tree == KSNOOP_TREE_INNER;
	void *rec;

	if (plan.tree == KSNOOP_TREE_ROOT) {
		tree_flush((__u32)bpf_get_current_pid_tgid(), c->tree_kept, true);
		c->tree_flushed = 1;
	}
	rec = inner ? tree_rec_begin(side, c) : reserve(side, c, keyed);
	if (!rec) {
		if (inner && stashed)
			bpf_map_delete_elem(&stash, &c->key);
		return 0;
	}
	if (stashed) {
		/* The entry values, at the offsets they had in the entry record. */
		bpf_probe_read_kernel(rec + sizeof(struct ksnoop_event),
				      side->stash_size - sizeof(struct ksnoop_event),
				      stashed + sizeof(struct ksnoop_event));
		bpf_map_delete_elem(&stash, &c->key);
		reread_user_faults(rec, side, c->fv, side->nstashed);
	}
	fill_header(rec, KSNOOP_RETURN, c);
	fill_values(ctx, ws, KSNOOP_RETURN, rec, side, c->fv, words, side->nstashed);
	if (inner)
		tree_rec_keep(side, c);
	else
		submit(rec, side->rec_size);
	return 0;
}

/*
 * The return of a call (fexit, kretprobe): emit the entry a user fault
 * held back, take the call's start, select the call (a stashed entry was
 * selected when it was taken), then count it or emit it.  Every return
 * clears its key, whatever it reports.
 */
static __always_inline int capture_return_call(void *ctx, enum word_source ws, struct call *c)
{
	const volatile struct ksnoop_side_plan *side = &plan.side[KSNOOP_RETURN];
	bool keyed = side->flags & (KSNOOP_SIDE_UNSTASH | KSNOOP_SIDE_RETRY);
	__u64 words[NWORDS] = {};
	void *stashed = NULL;

	if (!begin_call(ctx, ws, KSNOOP_RETURN, c, keyed))
		return 0;
	if (side->flags & KSNOOP_SIDE_RETRY)
		emit_retried_entry(&c->key, c->fv);
	if (side->flags & KSNOOP_SIDE_TIMED) {
		c->start = entry_time_take(&c->key);
		/* --tree: an inner call whose entry was not recorded is left out. */
		if (plan.tree == KSNOOP_TREE_INNER && !c->start)
			return 0;
	}
	if (!side->enabled)
		return 0;
	if (side->flags & KSNOOP_SIDE_UNSTASH) {
		stashed = bpf_map_lookup_elem(&stash, &c->key);
		if (!stashed)
			return 0;	/* entry filtered out, dropped, or before attach */
		c->start = ((struct ksnoop_event *)stashed)->time_ns;
	} else if (!task_selected()) {
		if (keyed)
			stash_clear(&c->key);
		return 0;
	}
	if (plan.min_duration_ns) {
		c->now = bpf_ktime_get_ns();
		if (!long_enough(c)) {
			if (stashed)
				bpf_map_delete_elem(&stash, &c->key);
			return 0;
		}
	}
	read_words(ctx, ws, KSNOOP_RETURN, words);
	if (!preds_hold(side, words) || (!stashed && task_is_self(c))) {
		if (keyed)
			stash_clear(&c->key);
		return 0;
	}
	/* --count, --hist: counted, nothing recorded. */
	if (plan.output != KSNOOP_OUT_EVENTS) {
		if (plan.output == KSNOOP_OUT_HIST_DURATION && !c->now)
			c->now = bpf_ktime_get_ns();
		count_call(ctx, ws, c, words);
		if (stashed)
			bpf_map_delete_elem(&stash, &c->key);
		return 0;
	}
	return emit_return(ctx, ws, side, words, c, stashed, keyed);
}

/*
 * The return of a call: --tree's session first (an inner call outside one
 * is done; the root's return closes it, and the calls it kept go to the
 * ring buffer before the root's record, or are dropped with the root).
 */
static __always_inline int capture_return(void *ctx, enum word_source ws)
{
	struct call c = {};
	int ret;

	if (plan.track & KSNOOP_TRACK_CLONE)
		return track_clone_return(ctx, ws);
	if (plan.tree == KSNOOP_TREE_INNER && !tree_inner_leave(&c))
		return 0;
	if (plan.tree == KSNOOP_TREE_ROOT && !tree_close(&c))
		return 0;
	ret = capture_return_call(ctx, ws, &c);
	if (plan.tree == KSNOOP_TREE_ROOT && !c.tree_flushed)
		tree_flush((__u32)bpf_get_current_pid_tgid(), c.tree_kept, false);
	return ret;
}

/*
 * The programs, one per attach type: each is the capture of its side
 * (capture_entry() or capture_return()) with where its argument words are.
 */
#define CAPTURE_PROG(sec, name, ctx_type, words, capture)	\
	SEC(sec)						\
	int name(ctx_type *ctx)					\
	{							\
		return capture(ctx, words);			\
	}

CAPTURE_PROG("fentry", ksnoop_fentry, __u64, WORDS_FENTRY, capture_entry)
CAPTURE_PROG("fexit", ksnoop_fexit, __u64, WORDS_FENTRY, capture_return)
CAPTURE_PROG("kprobe", ksnoop_kprobe, struct pt_regs, WORDS_REGS, capture_entry)
CAPTURE_PROG("kretprobe", ksnoop_kretprobe, struct pt_regs, WORDS_REGS, capture_return)
CAPTURE_PROG("raw_tp", ksnoop_tp, __u64, WORDS_TP, capture_entry)
CAPTURE_PROG("usdt", ksnoop_usdt, struct pt_regs, WORDS_USDT, capture_entry)
/* Syscall events: one of them (tp:syscalls:...), or a call's entry and exit (sys:). */
CAPTURE_PROG("tp", ksnoop_syscall_tp, __u64, WORDS_SYSCALL, capture_entry)
CAPTURE_PROG("tp", ksnoop_syscall_exit, __u64, WORDS_SYSCALL, capture_return)
