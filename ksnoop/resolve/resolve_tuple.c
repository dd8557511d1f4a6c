// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ':tuple': a packet's or a socket's addresses, ports and protocol, the
 * line pwru prints.  Which fields make one is fixed (ksnoop.h); where
 * they are in this kernel's struct sk_buff or struct sock is BTF's, found
 * here by name and handed to the BPF side as offsets in the access's last
 * steps.  The BPF side copies those fields (for a skb, the bytes its
 * header offsets point at) and userspace parses them (tuple.c).
 *
 * A struct that holds a struct sock first (inet_sock, tcp_sock,
 * udp_sock ...) is a sock: the kernel casts between them.  So the source
 * port is read where the kernel's own tracepoints read it (inet_sock_set_state,
 * tcp_*: inet_sk(sk)->inet_sport): skc_num is 0 again once a failed connect
 * has put its port back (tcp_set_state(TCP_CLOSE) before the tracepoint),
 * while inet_sport still holds the port the SYN left from.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "resolve_int.h"
#include "pfilter.h"

enum tuple_kind { TUPLE_NONE, TUPLE_SKB, TUPLE_SOCK };

/* A field a tuple copies: its path in the struct and its size. */
struct tuple_field {
	const char *path;	/* "__sk_common.skc_num" */
	__u32 size;
	bool optional;		/* kernels may lack it (no IPv6) */
	const char *in;		/* the struct (beginning with the sock) it is in; NULL: the sock's */
};

static const struct tuple_field skb_fields[KSNOOP_SKB_NR_FIELDS] = {
	[KSNOOP_SKB_HEAD] = { "head", 8, false, NULL },
	[KSNOOP_SKB_NETWORK_HEADER] = { "network_header", 2, false, NULL },
	[KSNOOP_SKB_TRANSPORT_HEADER] = { "transport_header", 2, false, NULL },
	[KSNOOP_SKB_PROTOCOL] = { "protocol", 2, true, NULL },
};

static const struct tuple_field sock_fields[KSNOOP_SOCK_NR_FIELDS] = {
	[KSNOOP_SOCK_FAMILY] = { "__sk_common.skc_family", 2, false, NULL },
	[KSNOOP_SOCK_NUM] = { "__sk_common.skc_num", 2, false, NULL },
	[KSNOOP_SOCK_DPORT] = { "__sk_common.skc_dport", 2, false, NULL },
	[KSNOOP_SOCK_PROTOCOL] = { "sk_protocol", 2, true, NULL },
	[KSNOOP_SOCK_STATE] = { "__sk_common.skc_state", 1, false, NULL },
	[KSNOOP_SOCK_RCV_SADDR] = { "__sk_common.skc_rcv_saddr", 4, false, NULL },
	[KSNOOP_SOCK_DADDR] = { "__sk_common.skc_daddr", 4, false, NULL },
	[KSNOOP_SOCK_V6_RCV_SADDR] = { "__sk_common.skc_v6_rcv_saddr", 16, true, NULL },
	[KSNOOP_SOCK_V6_DADDR] = { "__sk_common.skc_v6_daddr", 16, true, NULL },
	[KSNOOP_SOCK_SPORT] = { "inet_sport", 2, true, "inet_sock" },
};

/*
 * --pcap: the skb's fields a packet's capture reads, and its device's
 * (offsets in struct net_device, read from the skb's dev).
 */
static const struct tuple_field packet_fields[KSNOOP_PKT_NR_FIELDS] = {
	[KSNOOP_PKT_HEAD] = { "head", 8, false, NULL },
	[KSNOOP_PKT_DATA] = { "data", 8, false, NULL },
	[KSNOOP_PKT_LEN] = { "len", 4, false, NULL },
	[KSNOOP_PKT_DATA_LEN] = { "data_len", 4, false, NULL },
	[KSNOOP_PKT_MAC_HEADER] = { "mac_header", 2, false, NULL },
	[KSNOOP_PKT_NETWORK_HEADER] = { "network_header", 2, false, NULL },
	[KSNOOP_PKT_DEV] = { "dev", 8, false, NULL },
	[KSNOOP_PKT_DEV_IFINDEX] = { "ifindex", 4, true, "net_device" },
	[KSNOOP_PKT_DEV_TYPE] = { "type", 2, true, "net_device" },
	[KSNOOP_PKT_DEV_NAME] = { "name", KSNOOP_IFNAMSIZ, true, "net_device" },
	[KSNOOP_PKT_PROTOCOL] = { "protocol", 2, false, NULL },
};

/* Nested structs followed to find a struct sock at offset 0 (tcp_sock: 3). */
#define TUPLE_MAX_EMBED	6

static bool struct_named(const struct btf *btf, const struct btf_type *t, const char *name)
{
	return t && btf_is_struct(t) && strcmp(btfu_name(btf, t->name_off), name) == 0;
}

/* What struct pointer ID points at for a tuple; *SID: the sk_buff or sock. */
static enum tuple_kind tuple_kind_of(const struct btf *btf, __u32 id, __u32 *sid)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));
	int depth;

	if (!t || !btf_is_ptr(t))
		return TUPLE_NONE;
	*sid = btfu_strip(btf, t->type);
	t = btf__type_by_id(btf, *sid);
	if (struct_named(btf, t, "sk_buff"))
		return TUPLE_SKB;
	for (depth = 0; depth < TUPLE_MAX_EMBED && t && btf_is_struct(t); depth++) {
		if (struct_named(btf, t, "sock"))
			return TUPLE_SOCK;
		if (!btf_vlen(t) || btf_member_bit_offset(t, 0))
			break;
		*sid = btfu_strip(btf, btf_members(t)->type);
		t = btf__type_by_id(btf, *sid);
	}
	return TUPLE_NONE;
}

int value__check_tuple(struct rctx *r, const struct spec_item *it, const struct chain *c)
{
	__u32 sid;

	if (r->opts->user_space)
		return rctx__fail(r, it->fmt_pos, "':tuple' reads a kernel sk_buff or sock; '%s' is a user-space value",
				  it->text);
	if (tuple_kind_of(r->btf, c->type_id, &sid) == TUPLE_NONE)
		return rctx__fail(r, it->fmt_pos, "':tuple' does not apply to '%s' (%s); it takes a struct sk_buff * or a struct sock * (or a struct that begins with one, as tcp_sock)",
				  it->text, rctx__type_str(r, c->type_id));
	if (r->opts->max_bytes < sizeof(struct ksnoop_skb_tuple))
		return rctx__fail(r, it->fmt_pos, "':tuple' copies %zu bytes, more than --max-bytes (%u)",
				  sizeof(struct ksnoop_skb_tuple), r->opts->max_bytes);
	return 0;
}

/* PATH's byte offset in struct SID, if it is a SIZE-byte member; -ENOENT if not. */
static int field_offset(const struct btf *btf, __u32 sid, const struct tuple_field *f,
			__u32 *off)
{
	char name[64];
	const char *p = f->path, *dot;
	__u32 id = sid, bits = 0, mtype, bit_off, bit_size;

	if (f->in) {
		int in = btf__find_by_name_kind(btf, f->in, BTF_KIND_STRUCT);

		if (in <= 0)
			return -ENOENT;
		id = in;
	}
	for (;;) {
		dot = strchr(p, '.');
		snprintf(name, sizeof(name), "%.*s", dot ? (int)(dot - p) : (int)strlen(p), p);
		if (chain__find_member(btf, id, name, &mtype, &bit_off, &bit_size) || bit_size)
			return -ENOENT;
		bits += bit_off;
		id = mtype;
		if (!dot)
			break;
		p = dot + 1;
	}
	if (bits % 8 || btf__resolve_size(btf, id) != f->size || bits / 8 >= KSNOOP_TUPLE_NO_FIELD)
		return -ENOENT;
	*off = bits / 8;
	return 0;
}

/* Each field's offset into the access's last steps (ksnoop.h). */
static int pack_offsets(struct rctx *r, const struct spec_item *it, __u32 sid,
			const struct tuple_field *fields, int n, const char *sname,
			struct ksnoop_access *acc, const char *what)
{
	__u32 off;
	int i;

	for (i = 0; i < KSNOOP_TUPLE_OFF_STEPS; i++)
		acc->steps[KSNOOP_TUPLE_OFF_FIRST + i] = -1;	/* every field absent */
	for (i = 0; i < n; i++) {
		__u64 *word = (__u64 *)&acc->steps[KSNOOP_TUPLE_OFF_FIRST + i / 4];

		if (field_offset(r->btf, sid, &fields[i], &off)) {
			if (fields[i].optional)
				continue;
			return rctx__fail(r, it->fmt_pos, "%s on '%s': this kernel's struct %s has no %s of %u bytes",
					  what, it->text, sname, fields[i].path, fields[i].size);
		}
		*word &= ~(0xffffULL << (16 * (i % 4)));
		*word |= (__u64)off << (16 * (i % 4));
	}
	return 0;
}

/* C's access made one to the struct, with its fields' offsets; *SID: the struct. */
static int tuple_access(struct rctx *r, struct chain *c, const struct spec_item *it, int pos,
			__u32 *sid)
{
	bool skb = tuple_kind_of(r->btf, c->type_id, sid) == TUPLE_SKB;
	int err;

	if (c->acc.nsteps >= KSNOOP_TUPLE_OFF_FIRST)
		return rctx__fail(r, pos, "'%s': a ':tuple' value is reached in at most %d pointer dereferences",
				  it->text, KSNOOP_TUPLE_OFF_FIRST - 1);
	err = chain__push_deref(r, c, pos);
	if (err)
		return err;
	err = skb ? pack_offsets(r, it, *sid, skb_fields, KSNOOP_SKB_NR_FIELDS, "sk_buff", &c->acc,
				 "':tuple'") :
		    pack_offsets(r, it, *sid, sock_fields, KSNOOP_SOCK_NR_FIELDS, "sock", &c->acc,
				 "':tuple'");
	if (err)
		return err;
	c->acc.flags |= skb ? KSNOOP_VAL_SKB_TUPLE : KSNOOP_VAL_SOCK_TUPLE;
	c->acc.size = sizeof(struct ksnoop_skb_tuple);
	return 0;
}

int value__tuple(struct rctx *r, struct chain *c, const struct spec_item *it, int pos,
		 struct value_desc *vd)
{
	__u32 sid;
	bool skb;
	int err = tuple_access(r, c, it, pos, &sid);

	if (err)
		return err;
	skb = c->acc.flags & KSNOOP_VAL_SKB_TUPLE;
	r->plan->bpf.flags |= KSNOOP_PLAN_TUPLE;
	vd->how = skb ? PRINT_SKB_TUPLE : PRINT_SOCK_TUPLE;
	vd->obj_id = sid;
	vd->size = vd->obj_size = c->acc.size;
	return 0;
}

int by__tuple(struct rctx *r, const struct spec_item *it, struct chain *c)
{
	__u32 sid;
	int err;

	if (r->opts->user_space)
		return rctx__fail(r, it->fmt_pos, "--by '%s': ':tuple' reads a kernel sk_buff or sock; this is a user-space value",
				  it->text);
	if (tuple_kind_of(r->btf, c->type_id, &sid) == TUPLE_NONE)
		return rctx__fail(r, it->fmt_pos, "--by '%s': ':tuple' does not apply to %s; it takes a struct sk_buff * or a struct sock *",
				  it->text, rctx__type_str(r, c->type_id));
	err = tuple_access(r, c, it, it->fmt_pos, &sid);
	if (err)
		return err;
	r->plan->bpf.by_value.acc = c->acc;
	r->plan->bpf.by = c->acc.flags & KSNOOP_VAL_SKB_TUPLE ? KSNOOP_BY_SKB_TUPLE :
								  KSNOOP_BY_SOCK_TUPLE;
	return 0;
}

/* --pcap: the first parameter of SIG that is a struct sk_buff *, or -1. */
int resolver__skb_param(const struct signature *sig, __u32 *sid)
{
	int i;

	for (i = 0; i < sig->nparams; i++)
		if (sig->params[i].slot < KSNOOP_MAX_ARGS &&
		    tuple_kind_of(sig->btf, sig->params[i].type_id, sid) == TUPLE_SKB)
			return i;
	return -1;
}

int value__filter(struct rctx *r)
{
	struct ksnoop_filter_plan *fp = &r->plan->filter;
	struct spec_item it;
	__u32 sid;
	int i, err;

	memset(fp, 0, sizeof(*fp));
	if (!r->opts->filter)
		return 0;
	i = resolver__skb_param(r->sig, &sid);
	if (i < 0 || r->opts->user_space)
		return rctx__fail(r, 0, "--filter judges a packet: %s takes no struct sk_buff *",
				  r->sig->name);
	memset(&it, 0, sizeof(it));
	it.text = (char *)r->sig->params[i].name;
	fp->skb.src = KSNOOP_SRC_ARG;
	fp->skb.slot = r->sig->params[i].slot;
	fp->skb.nsteps = 1;
	err = pack_offsets(r, &it, sid, packet_fields, KSNOOP_PKT_NR_FIELDS, "sk_buff", &fp->skb,
			   "--filter");
	if (err)
		return err;
	fp->snaplen = r->opts->filter_snaplen;
	fp->ninsns[KSNOOP_CBPF_ETHERNET] = r->opts->filter->ninsns[KSNOOP_CBPF_ETHERNET];
	fp->ninsns[KSNOOP_CBPF_RAW] = r->opts->filter->ninsns[KSNOOP_CBPF_RAW];
	fp->need[KSNOOP_CBPF_ETHERNET] = r->opts->filter->need[KSNOOP_CBPF_ETHERNET];
	fp->need[KSNOOP_CBPF_RAW] = r->opts->filter->need[KSNOOP_CBPF_RAW];
	fp->enabled = 1;
	return 0;
}

int value__filter_side(struct rctx *r)
{
	if (!r->plan->filter.enabled || r->plan->bpf.side[KSNOOP_ENTRY].enabled)
		return 0;
	return rctx__fail(r, 0, "--filter judges the packet at the entry of %s, which reports nothing here: name an entry value too (\"%s(%s, return)\")",
			  r->sig->name, r->sig->name,
			  r->sig->params[resolver__skb_param(r->sig, &(__u32){0})].name);
}

int value__packet(struct rctx *r, struct wants *w)
{
	struct capture_plan *plan = r->plan;
	struct ksnoop_side_plan *side = &plan->bpf.side[KSNOOP_ENTRY];
	int n = plan->nvalues[KSNOOP_ENTRY], i, err;
	struct ksnoop_access *acc;
	struct value_desc *vd;
	struct spec_item it;
	__u32 sid;

	if (!r->opts->snaplen || r->opts->user_space || r->opts->output != OUTPUT_EVENTS)
		return 0;
	i = resolver__skb_param(r->sig, &sid);
	if (i < 0)
		return 0;
	if (n >= KSNOOP_MAX_VALUES)
		return rctx__fail(r, 0, "more than %d values on one side, with --pcap's packet",
				  KSNOOP_MAX_VALUES - 1);
	memset(&it, 0, sizeof(it));
	it.text = (char *)r->sig->params[i].name;
	acc = &side->values[n].acc;
	memset(&side->values[n], 0, sizeof(side->values[n]));
	acc->src = KSNOOP_SRC_ARG;
	acc->slot = r->sig->params[i].slot;
	acc->nsteps = 1;	/* the skb's own address: its fields are at offsets from it */
	err = pack_offsets(r, &it, sid, packet_fields, KSNOOP_PKT_NR_FIELDS, "sk_buff", acc,
			   "--pcap");
	if (err)
		return err;
	acc->flags = KSNOOP_VAL_SKB_PACKET;
	acc->size = sizeof(struct ksnoop_skb_packet) + r->opts->snaplen;
	vd = &plan->values[KSNOOP_ENTRY][n];
	memset(vd, 0, sizeof(*vd));
	vd->text = r->sig->params[i].name;
	vd->type_id = r->sig->params[i].type_id;
	vd->obj_id = sid;
	vd->how = PRINT_SKB_PACKET;
	vd->size = vd->obj_size = acc->size;
	side->nvalues = ++plan->nvalues[KSNOOP_ENTRY];
	side->enabled = 1;
	plan->bpf.flags |= KSNOOP_PLAN_PACKET;
	w->entry_values = true;
	return 0;
}

int value__skb_or_sock_param(const struct signature *sig, bool *is_sock)
{
	__u32 sid;
	int i;

	for (i = 0; i < sig->nparams; i++) {
		enum tuple_kind k;

		if (sig->params[i].slot >= KSNOOP_MAX_ARGS)
			continue;
		k = tuple_kind_of(sig->btf, sig->params[i].type_id, &sid);
		if (k != TUPLE_NONE) {
			*is_sock = k == TUPLE_SOCK;
			return i;
		}
	}
	return -1;
}
