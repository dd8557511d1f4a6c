// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every function of several names in one walk of kallsyms (iter/ksym,
 * 6.0): their static namesakes (one name, several functions) and modules'
 * (kernel.c's kernel__func_instances()).  The kernel expands each
 * symbol's name, as for /proc/kallsyms, but formats no line, and
 * userspace gets the few that match instead of some MB of text to search.
 * Loaded only when a search is made, with ksnoop's parse of vmlinux's BTF
 * lent to libbpf (ksnoop/kernel/klookup.c).
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "ksnoop.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* What the kallsyms iterator hands its program (kernel/kallsyms.c); CO-RE. */
struct bpf_iter_meta;
struct kallsym_iter {
	unsigned long value;
	char type;
	char name[KSNOOP_KSYM_NAME_LEN];
	char module_name[KSNOOP_KSYM_SCAN_MODULE];
} __attribute__((preserve_access_index));
struct bpf_iter__ksym {
	struct bpf_iter_meta *meta;
	struct kallsym_iter *ksym;
} __attribute__((preserve_access_index));

/*
 * Userspace puts each name's key (struct ksnoop_ksym_key) in want before
 * it runs the iterator; a symbol with one of them is copied into hits,
 * and userspace compares the rest of its name.  No loop and no load
 * through the iterator's pointers: the verifier's walk stays short (a
 * loop over the names cost it 9,000 instructions and a load of meta->seq
 * a search of vmlinux's BTF, at every start).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KSNOOP_KSYM_SCAN_MAX);
	__type(key, struct ksnoop_ksym_key);
	__type(value, __u32);
} want SEC(".maps");

struct ksnoop_ksym_hit hits[KSNOOP_KSYM_SCAN_HITS];
__u32 nhits;
/* Symbols the program could not look at: the walk's answer is not whole. */
__u32 unread;
/* The names' first two bytes, hashed (KSNOOP_KSYM_PAIR()): most symbols stop here. */
__u64 pairs[KSNOOP_KSYM_SCAN_PAIRS / 64];

/* The symbol's address, type and name's first bytes, as kallsym_iter lays them out from .value. */
struct ksym_head {
	__u64 value;
	char rest[40];
};

/* A mask of a word's first N (0-7) bytes in memory. */
static __always_inline __u64 keep_bytes(__u32 n)
{
	if (!n)
		return 0;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (1ULL << (8 * n)) - 1;
#else
	return ~0ULL << (64 - 8 * n);
#endif
}

SEC("iter/ksym")
int ksym_scan(struct bpf_iter__ksym *ctx)
{
	struct kallsym_iter *it = ctx->ksym;
	__u32 type_at = bpf_core_field_offset(struct kallsym_iter, type) -
			bpf_core_field_offset(struct kallsym_iter, value);
	__u32 name_at = bpf_core_field_offset(struct kallsym_iter, name) -
			bpf_core_field_offset(struct kallsym_iter, value);
	struct ksnoop_ksym_hit *hit;
	struct ksym_head head;
	struct ksnoop_ksym_key key = {};
	__u32 *w, n, len, pair, i;
	const char *name;

	if (!it)
		return 0;
	if (type_at < 8 || type_at >= sizeof(head) || name_at < 8 ||
	    name_at + KSNOOP_KSYM_PREFIX > sizeof(head) ||
	    bpf_probe_read_kernel(&head, sizeof(head), &it->value)) {
		unread++;
		return 0;
	}
	name = (const char *)&head + name_at;
	pair = KSNOOP_KSYM_PAIR(name[0], name[1]);
	if (!(pairs[pair / 64] & (1ULL << (pair % 64))))
		return 0;
	/* The name need not be 8-aligned there: copied, not loaded as words. */
	for (i = 0; i < KSNOOP_KSYM_PREFIX / 8; i++)
		__builtin_memcpy(&key.prefix[i], name + 8 * i, 8);
	/*
	 * Its length, if under KSNOOP_KSYM_PREFIX, and the bytes past its NUL
	 * zeroed: the kernel expands each name over the last one's, whose
	 * tail stays.
	 */
	for (len = 0; len < KSNOOP_KSYM_PREFIX && ((char *)key.prefix)[len]; len++)
		;
	if (len == KSNOOP_KSYM_PREFIX) {
		key.len = KSNOOP_KSYM_LONG;
	} else {
		key.len = len;
		for (i = 0; i < KSNOOP_KSYM_PREFIX / 8; i++) {
			if (8 * i >= len)
				key.prefix[i] = 0;
			else if (len < 8 * (i + 1))
				key.prefix[i] &= keep_bytes(len - 8 * i);
		}
	}
	w = bpf_map_lookup_elem(&want, &key);
	if (!w)
		return 0;
	n = nhits++;
	if (n >= KSNOOP_KSYM_SCAN_HITS)
		return 0;
	hit = &hits[n];
	hit->want = *w;
	hit->type = *((char *)&head + type_at);
	hit->addr = head.value;
	bpf_probe_read_kernel_str(hit->name, sizeof(hit->name), &it->name);
	bpf_probe_read_kernel_str(hit->module, sizeof(hit->module), &it->module_name);
	return 0;
}
