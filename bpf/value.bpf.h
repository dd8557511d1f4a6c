/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A record's contents: its header, and each value copied raw as the plan
 * says (an object, a string, a ':tuple' of a skb or sock, a stack); at a
 * return, the entry values whose user memory was not paged in at entry,
 * read again.
 */
#ifndef KSNOOP_VALUE_BPF_H
#define KSNOOP_VALUE_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "ksnoop.h"
#include "ksnoop_tuple_key.h"
#include "plan.bpf.h"
#include "words.bpf.h"
#include "read.bpf.h"
#include "call.bpf.h"
#include "task.bpf.h"

/*
 * ':strv': whose memory its strings are, as copy_strv() takes it with the
 * array's: a user program's always; a kernel function's as its array's
 * where the BTF tags say, else by the address.  Kept in ksnoop_strv.flags
 * while it is copied (bits above enum ksnoop_strv_flags).
 */
#define STRV_ARRAY_USER		(1 << 4)
#define STRV_STR_USER		(1 << 5)
#define STRV_STR_KERNEL		(1 << 6)
#define STRV_MODE		(STRV_ARRAY_USER | STRV_STR_USER | STRV_STR_KERNEL)

static __always_inline __u8 strv_mode(const volatile struct ksnoop_access *acc, bool user)
{
	if (plan.flags & KSNOOP_PLAN_USER_MEM)
		return STRV_ARRAY_USER | STRV_STR_USER;
	if (acc->flags & KSNOOP_VAL_TAGGED)
		return user ? STRV_ARRAY_USER | STRV_STR_USER : STRV_STR_KERNEL;
	return user ? STRV_ARRAY_USER : 0;
}

static __always_inline bool strv_str_user(volatile struct ksnoop_strv *sv, __u64 p)
{
	if (sv->flags & (STRV_STR_USER | STRV_STR_KERNEL))
		return sv->flags & STRV_STR_USER;
	return p < ARCH_USER_ADDR_LIMIT;
}

/*
 * String I of SV, at its pointer, packed at SV->used; false when the area
 * is full.  Reads that do not page anything in: what is not paged in
 * prints as unreadable.
 */
static __always_inline bool copy_strv_one(volatile struct ksnoop_strv *sv, int i)
{
	__u32 at = sv->used;
	long n;

	if (at > KSNOOP_STRV_BYTES - KSNOOP_STRV_STR)
		return false;
	barrier_var(at);
	if (at > KSNOOP_STRV_BYTES - KSNOOP_STRV_STR)
		return false;
	n = read_str_now((void *)sv->bytes + at, KSNOOP_STRV_STR, sv->ptr[i],
			 strv_str_user(sv, sv->ptr[i]));
	if (n < 0) {
		sv->st[i] = KSNOOP_FAULT;
		return true;
	}
	sv->len[i] = n;
	sv->used = at + n;
	/* A full buffer: the byte after it says whether the string went on. */
	if (n == KSNOOP_STRV_STR &&
	    (read_mem_now(&n, 1, sv->ptr[i] + n - 1, strv_str_user(sv, sv->ptr[i])) ||
	     (n & 0xff)))
		sv->st[i] = KSNOOP_TRUNCATED;
	return true;
}

/*
 * ':strv': the NULL-terminated array of string pointers (argv) at
 * SV->ptr[KSNOOP_STRV_MAX] (until that slot is read) into SV (at least
 * sizeof(*SV) bytes), bounded by ksnoop.h's KSNOOP_STRV_*, its flags
 * holding strv_mode().  Returns FAULT when not even the first pointer
 * could be read.  A function of its own, its state in the record, read
 * through a volatile pointer: the programs that inline copy_value() have
 * 32 bytes of stack left for it (bpf-stack-check), too few for the
 * compiler's own copies.
 */
static __noinline int copy_strv(volatile struct ksnoop_strv *sv)
{
	int i;

	/*
	 * Unrolled: 6.1's verifier takes a loop back to the instruction after
	 * a call for a back-edge ("back-edge from insn N to N+1"), bounded or
	 * not.
	 */
#pragma clang loop unroll(full)
	for (i = 0; i <= KSNOOP_STRV_MAX; i++) {
		if (read_mem_now((void *)&sv->ptr[i], sizeof(sv->ptr[i]),
				 sv->ptr[KSNOOP_STRV_MAX] + 8 * i, sv->flags & STRV_ARRAY_USER)) {
			if (!i)
				return KSNOOP_FAULT;
			sv->flags |= KSNOOP_STRV_UNREAD;
			break;
		}
		if (!sv->ptr[i])
			break;
		/* All kept, and there is one more. */
		if (i == KSNOOP_STRV_MAX || !copy_strv_one(sv, i)) {
			sv->flags |= KSNOOP_STRV_MORE;
			break;
		}
		sv->n = i + 1;
	}
	sv->flags &= ~STRV_MODE;
	return KSNOOP_OK;
}

/* The status of a copied SV: TRUNCATED where a bound was hit. */
static __always_inline int strv_status(const struct ksnoop_strv *sv)
{
	int i;

	if (sv->flags & KSNOOP_STRV_MORE)
		return KSNOOP_TRUNCATED;
	for (i = 0; i < KSNOOP_STRV_MAX; i++)
		if (sv->st[i] == KSNOOP_TRUNCATED)
			return KSNOOP_TRUNCATED;
	return KSNOOP_OK;
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
	if (acc->flags & KSNOOP_VAL_STRV) {
		struct ksnoop_strv *sv = dst;

		if (room < sizeof(*sv))
			return KSNOOP_FAULT | ust;
		__builtin_memset(sv, 0, __builtin_offsetof(struct ksnoop_strv, bytes));
		sv->ptr[KSNOOP_STRV_MAX] = addr;
		sv->flags = strv_mode(acc, user);
		if (copy_strv(sv) != KSNOOP_OK)
			return KSNOOP_FAULT | ust;
		*len = __builtin_offsetof(struct ksnoop_strv, bytes) + sv->used;
		return strv_status(sv) | ust;
	}
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
	__u16 sport = 0;

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
	/* A timewait or request sock is no inet_sock: its num is its port. */
	if (t->state != KSNOOP_KEY_TCP_TIME_WAIT && t->state != KSNOOP_KEY_TCP_NEW_SYN_RECV &&
	    !read_field(acc, KSNOOP_SOCK_SPORT, sk, &sport, 2) && sport)
		t->num = bpf_ntohs(sport);
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

/* --pcap: the device's index, type and name (a skb without one: 0, 0xffff, ""). */
static __always_inline void read_packet_dev(const volatile struct ksnoop_access *acc, __u64 dev,
					    struct ksnoop_skb_packet *p)
{
	p->ifindex = 0;
	p->dev_type = 0xffff;
	__builtin_memset(p->dev_name, 0, sizeof(p->dev_name));
	if (!dev || read_field(acc, KSNOOP_PKT_DEV_IFINDEX, dev, &p->ifindex, 4) ||
	    read_field(acc, KSNOOP_PKT_DEV_TYPE, dev, &p->dev_type, 2) ||
	    read_field(acc, KSNOOP_PKT_DEV_NAME, dev, p->dev_name, sizeof(p->dev_name)))
		p->dev_type = 0xffff;
}

/*
 * --pcap: the skb's fields, then its first bytes from the MAC header
 * (else the network header) to the end of its linear data, at most the
 * value's room (the snap length): one non-faulting read of a bounded size.
 */
static __always_inline int copy_packet(const volatile struct ksnoop_access *acc, __u64 skb,
				       bool user, void *dst, __u32 room, __u32 *len)
{
	struct ksnoop_skb_packet *p = dst;
	__u64 dev = 0, start, end;
	__u32 n = 0;

	*len = 0;
	if (user || room < sizeof(*p))
		return KSNOOP_FAULT;
	if (read_field(acc, KSNOOP_PKT_HEAD, skb, &p->head, 8) ||
	    read_field(acc, KSNOOP_PKT_DATA, skb, &p->data, 8) ||
	    read_field(acc, KSNOOP_PKT_LEN, skb, &p->len, 4) ||
	    read_field(acc, KSNOOP_PKT_DATA_LEN, skb, &p->data_len, 4) ||
	    read_field(acc, KSNOOP_PKT_MAC_HEADER, skb, &p->mac_header, 2) ||
	    read_field(acc, KSNOOP_PKT_NETWORK_HEADER, skb, &p->network_header, 2) ||
	    read_field(acc, KSNOOP_PKT_DEV, skb, &dev, 8))
		return KSNOOP_FAULT;
	read_packet_dev(acc, dev, p);
	p->pad = 0;
	p->caplen = 0;
	p->from = p->mac_header != 0xffff ? KSNOOP_PKT_FROM_MAC :
		  p->network_header != 0xffff ? KSNOOP_PKT_FROM_NETWORK : KSNOOP_PKT_FROM_NONE;
	start = p->head + (p->from == KSNOOP_PKT_FROM_MAC ? p->mac_header : p->network_header);
	end = p->data + (p->data_len < p->len ? p->len - p->data_len : 0);
	if (p->head && p->from != KSNOOP_PKT_FROM_NONE && end > start)
		n = end - start < room - sizeof(*p) ? end - start : room - sizeof(*p);
	if (n > KSNOOP_MAX_SNAPLEN)
		n = KSNOOP_MAX_SNAPLEN;
	*len = sizeof(*p);
	if (n && bpf_probe_read_kernel(p + 1, n, (const void *)start))
		return KSNOOP_FAULT;
	p->caplen = n;
	*len = sizeof(*p) + n;
	return KSNOOP_OK;
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
	if ((plan.flags & KSNOOP_PLAN_PACKET) && (acc->flags & KSNOOP_VAL_SKB_PACKET))
		return copy_packet(acc, addr, user, dst, room, len);
	return copy_object(acc, addr, user, dst, room, str_chars(acc, words), len);
}

/*
 * The header of one record at REC; a return with a known start has a
 * duration, and so has a --pair END (its START's time).
 */
static __always_inline void fill_header(void *rec, int kind, const struct call *c)
{
	struct ksnoop_event *ev = rec;

	ev->time_ns = c->now;
	ev->duration_ns = 0;
	ev->flags = 0;
	if ((kind == KSNOOP_RETURN || plan.pair == KSNOOP_PAIR_END) && c->start &&
	    c->start <= c->now) {
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
	task_comm(ev->comm);
	ev->object = c->object;
	ev->flags |= c->track_flags;
	/* Without --track the object word carries the task's cgroup. */
	if (plan.event_cgroup && !(ev->flags & KSNOOP_EV_OBJECT)) {
		ev->object = bpf_get_current_cgroup_id();
		ev->flags |= KSNOOP_EV_CGROUP;
	}
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
		 * held; a USDT probe's or a user function's is the traced
		 * program's (user) stack.
		 * --ustack: the current task's user stack at any probe.
		 */
		if (vp->acc.src == KSNOOP_SRC_STACK || vp->acc.src == KSNOOP_SRC_USTACK) {
			long n = bpf_get_stack(ctx, (void *)(vh + 1), KSNOOP_STACK_DEPTH * 8,
					       ws == WORDS_UREGS || ws == WORDS_UREGS_COUNT ||
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

#endif /* KSNOOP_VALUE_BPF_H */
