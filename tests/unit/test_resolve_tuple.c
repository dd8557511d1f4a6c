// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for ':tuple' in the resolver (ksnoop/resolve/resolve_tuple.c): which
 * values take it, the fields' offsets found in BTF and packed into the
 * access's last steps, and the errors.  On tests/include/resolve_fixture.h
 * and, built here, a struct sk_buff and a struct sock shaped as the
 * kernel's (head and header offsets; __sk_common, no IPv6 fields).
 */
#include "../include/resolve_fixture.h"

/* Offsets in the structs built here. */
enum {
	TSKB_NEXT = 0, TSKB_PROTOCOL = 180, TSKB_TRANSPORT = 182, TSKB_NETWORK = 184,
	TSKB_HEAD = 200, TSKB_SIZE = 232,
	TSKC_DADDR = 0, TSKC_RCV_SADDR = 4, TSKC_DPORT = 12, TSKC_NUM = 14, TSKC_FAMILY = 16,
	TSKC_STATE = 18, TSKC_SIZE = 136,
	TSK_PROTOCOL = 516, TSK_SIZE = 760, TINET_SPORT = TSK_SIZE + 4,
	/* --pcap's: the skb's device, lengths and data, and the device's */
	TSKB_DEV = 16, TSKB_LEN = 112, TSKB_DATA_LEN = 116, TSKB_MAC = 186, TSKB_DATA = 208,
	TND_NAME = 0, TND_IFINDEX = 256, TND_TYPE = 562, TND_SIZE = 1024,
	/* --netns's: the device's and sock's possible_net_t, the net's ns.inum */
	TND_NET = 600, TSKC_NET = 48, TNET_NS = 8, TNS_INUM = 16,
};

static int add_struct(const char *name, int size)
{
	int id = btf__add_struct(btf, name, size);

	assert_true(id > 0);
	return id;
}

static int build(void **state)
{
	int skb, skb_ptr, common, sk, sk_ptr, inet, tcp, ndev, ns, net, pnet;

	build_btf(state);
	ns = add_struct("ns_common", 24);
	field("inum", T.ints.uint_t, TNS_INUM);
	net = add_struct("net", 64);
	field("ns", ns, TNET_NS);
	net = btf__add_ptr(btf, net);
	pnet = btf__add_struct(btf, NULL, 8);
	assert_true(pnet > 0);
	field("net", net, 0);
	pnet = btf__add_typedef(btf, "possible_net_t", pnet);
	ndev = add_struct("net_device", TND_SIZE);
	field("name", T.char_arr16, TND_NAME);
	field("ifindex", T.ints.int_t, TND_IFINDEX);
	field("type", T.u16_t, TND_TYPE);
	field("nd_net", pnet, TND_NET);
	ndev = btf__add_ptr(btf, ndev);
	skb_ptr = btf__add_ptr(btf, btf__type_cnt(btf) + 1);
	skb = add_struct("sk_buff", TSKB_SIZE);
	assert_int_equal(skb, skb_ptr + 1);
	field("next", skb_ptr, TSKB_NEXT);
	field("protocol", T.u16_t, TSKB_PROTOCOL);
	field("transport_header", T.u16_t, TSKB_TRANSPORT);
	field("network_header", T.u16_t, TSKB_NETWORK);
	field("head", T.uchar_ptr, TSKB_HEAD);
	field("dev", ndev, TSKB_DEV);
	field("len", T.u32_t, TSKB_LEN);
	field("data_len", T.u32_t, TSKB_DATA_LEN);
	field("mac_header", T.u16_t, TSKB_MAC);
	field("data", T.uchar_ptr, TSKB_DATA);

	common = add_struct("sock_common", TSKC_SIZE);
	field("skc_daddr", T.u32_t, TSKC_DADDR);
	field("skc_rcv_saddr", T.u32_t, TSKC_RCV_SADDR);
	field("skc_dport", T.u16_t, TSKC_DPORT);
	field("skc_num", T.u16_t, TSKC_NUM);
	field("skc_family", T.u16_t, TSKC_FAMILY);
	field("skc_state", T.u8_t, TSKC_STATE);
	field("skc_net", pnet, TSKC_NET);
	sk = add_struct("sock", TSK_SIZE);
	field("__sk_common", common, 0);
	field("sk_protocol", T.u16_t, TSK_PROTOCOL);
	sk_ptr = btf__add_ptr(btf, sk);
	inet = add_struct("inet_sock", TSK_SIZE + 8);
	field("sk", sk, 0);
	field("inet_sport", T.u16_t, TINET_SPORT);
	tcp = add_struct("tcp_sock", TSK_SIZE + 64);
	field("inet", inet, 0);

	func("tuple_fn", proto(T.ints.int_t, "skb", skb_ptr, "sk", sk_ptr,
			       "tp", btf__add_ptr(btf, tcp), "n", T.ints.int_t, NULL));
	func("sock_fn", proto(T.ints.int_t, "n", T.ints.int_t, "sk", sk_ptr, NULL));
	func("int_fn", proto(T.ints.int_t, "n", T.ints.int_t, NULL));
	return 0;
}

static __u32 off_of(const struct ksnoop_access *acc, int field)
{
	return (acc->steps[KSNOOP_TUPLE_OFF_FIRST + field / 4] >> (16 * (field % 4))) & 0xffff;
}

static void test_skb_tuple(void **state)
{
	struct resolved *r = resolve_ok("tuple_fn(skb:tuple)");
	const struct ksnoop_access *acc = acc_of(r, KSNOOP_ENTRY, 0);
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	/* The skb itself is read from (the argument, one load), then its fields. */
	assert_int_equal(acc->nsteps, 1);
	assert_int_equal(acc->steps[0], 0);
	assert_true(acc->flags & KSNOOP_VAL_SKB_TUPLE);
	assert_false(acc->flags & KSNOOP_VAL_SOCK_TUPLE);
	assert_int_equal(acc->size, sizeof(struct ksnoop_skb_tuple));
	assert_int_equal(off_of(acc, KSNOOP_SKB_HEAD), TSKB_HEAD);
	assert_int_equal(off_of(acc, KSNOOP_SKB_NETWORK_HEADER), TSKB_NETWORK);
	assert_int_equal(off_of(acc, KSNOOP_SKB_TRANSPORT_HEADER), TSKB_TRANSPORT);
	assert_int_equal(off_of(acc, KSNOOP_SKB_PROTOCOL), TSKB_PROTOCOL);
	assert_int_equal(vd->how, PRINT_SKB_TUPLE);
	/* The program copies tuples only where its plan says it has one. */
	assert_true(r->plan.bpf.flags & KSNOOP_PLAN_TUPLE);
	assert_false(resolve_ok("tuple_fn(skb->next, n)")->plan.bpf.flags & KSNOOP_PLAN_TUPLE);
	assert_int_equal(vd->size, sizeof(struct ksnoop_skb_tuple));
	assert_int_equal(vd->obj_size, vd->size);
	/* Through a chain: skb->next->next is two loads before the struct's. */
	r = resolve_ok("tuple_fn(skb->next->next:tuple)");
	acc = acc_of(r, KSNOOP_ENTRY, 0);
	assert_int_equal(acc->nsteps, 3);
	assert_int_equal(off_of(acc, KSNOOP_SKB_HEAD), TSKB_HEAD);
}

static void test_sock_tuple(void **state)
{
	struct resolved *r = resolve_ok("tuple_fn(sk:tuple, tp:tuple)");
	int i;

	for (i = 0; i < 2; i++) {
		const struct ksnoop_access *acc = acc_of(r, KSNOOP_ENTRY, i);

		assert_true(acc->flags & KSNOOP_VAL_SOCK_TUPLE);
		assert_int_equal(acc->nsteps, 1);
		assert_int_equal(acc->size, sizeof(struct ksnoop_sock_tuple));
		assert_int_equal(off_of(acc, KSNOOP_SOCK_FAMILY), TSKC_FAMILY);
		assert_int_equal(off_of(acc, KSNOOP_SOCK_NUM), TSKC_NUM);
		assert_int_equal(off_of(acc, KSNOOP_SOCK_DPORT), TSKC_DPORT);
		assert_int_equal(off_of(acc, KSNOOP_SOCK_STATE), TSKC_STATE);
		assert_int_equal(off_of(acc, KSNOOP_SOCK_RCV_SADDR), TSKC_RCV_SADDR);
		assert_int_equal(off_of(acc, KSNOOP_SOCK_DADDR), TSKC_DADDR);
		assert_int_equal(off_of(acc, KSNOOP_SOCK_PROTOCOL), TSK_PROTOCOL);
		/* inet_sport is inet_sock's, whatever sock struct the value is. */
		assert_int_equal(off_of(acc, KSNOOP_SOCK_SPORT), TINET_SPORT);
		/* A kernel without IPv6: those fields are absent, not refused. */
		assert_int_equal(off_of(acc, KSNOOP_SOCK_V6_RCV_SADDR), KSNOOP_TUPLE_NO_FIELD);
		assert_int_equal(off_of(acc, KSNOOP_SOCK_V6_DADDR), KSNOOP_TUPLE_NO_FIELD);
		assert_int_equal(vd_of(r, KSNOOP_ENTRY, i)->how, PRINT_SOCK_TUPLE);
	}
}

static void test_tuple_errors(void **state)
{
	struct resolve_opts small = default_opts;
	struct resolved *r;

	resolve_err("tuple_fn(n:tuple)", 12,
		    "':tuple' does not apply to 'n:tuple' (int); it takes a struct sk_buff * or a struct sock *");
	resolve_err("inet_fn(uaddr:tuple)", 15, "':tuple' does not apply to 'uaddr:tuple' (struct sockaddr *)");
	/* The fixture's own sk_buff and sock lack fields a tuple needs. */
	resolve_err("ip_send_skb(skb:tuple)", 17,
		    "':tuple' on 'skb:tuple': this kernel's struct sk_buff has no head of 8 bytes");
	resolve_err("inet_fn(sk:tuple)", 12,
		    "':tuple' on 'sk:tuple': this kernel's struct sock has no __sk_common.skc_num of 2 bytes");
	/* Five loads before the struct's leave no steps for its offsets. */
	resolve_err("tuple_fn(skb->next->next->next->next->next:tuple)", 10,
		    "a ':tuple' value is reached in at most 4 pointer dereferences");
	resolve_ok("tuple_fn(skb->next->next->next->next:tuple)");
	resolve_err("tuple_fn(skb:tuple == 0)", 20, "':tuple' is printed, not compared");
	small.max_bytes = 51;
	r = resolve_with("tuple_fn(skb:tuple)", &small);
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err.msg, "':tuple' copies 52 bytes, more than --max-bytes (51)");
}

/*
 * --by VALUE:tuple: the flow is the key; the value's access (one to the
 * struct, the fields' offsets in its last steps) is by_value's.
 */
static void test_by_tuple(void **state)
{
	struct resolve_opts count = default_opts;
	const struct ksnoop_access *acc;
	struct resolved *r;

	count.output = OUTPUT_COUNT;
	count.by = "skb:tuple";
	r = resolve_with("tuple_fn(skb:tuple)", &count);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_SKB_TUPLE);
	acc = &r->plan.bpf.by_value.acc;
	assert_int_equal(acc->src, KSNOOP_SRC_ARG);
	assert_int_equal(acc->slot, 0);
	assert_int_equal(acc->nsteps, 1);
	assert_true(acc->flags & KSNOOP_VAL_SKB_TUPLE);
	assert_int_equal(off_of(acc, KSNOOP_SKB_HEAD), TSKB_HEAD);
	assert_int_equal(off_of(acc, KSNOOP_SKB_NETWORK_HEADER), TSKB_NETWORK);
	assert_int_equal(off_of(acc, KSNOOP_SKB_PROTOCOL), TSKB_PROTOCOL);
	assert_true(r->plan.bpf.slot_mask & 1u);
	/* The format may be left out of --by; a sock, or a struct that begins with one. */
	count.by = "sk";
	r = resolve_with("tuple_fn(sk:tuple)", &count);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_SOCK_TUPLE);
	acc = &r->plan.bpf.by_value.acc;
	assert_int_equal(acc->slot, 1);
	assert_true(acc->flags & KSNOOP_VAL_SOCK_TUPLE);
	assert_int_equal(off_of(acc, KSNOOP_SOCK_NUM), TSKC_NUM);
	assert_int_equal(off_of(acc, KSNOOP_SOCK_STATE), TSKC_STATE);
	assert_true(r->plan.bpf.slot_mask & 2u);
	count.by = "tp:tuple";
	r = resolve_with("tuple_fn(tp:tuple)", &count);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_SOCK_TUPLE);
	/* --hist of another value, per flow. */
	count.output = OUTPUT_HIST;
	count.by = "skb:tuple";
	r = resolve_with("tuple_fn(skb:tuple, n)", &count);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_SKB_TUPLE);
	assert_int_equal(r->plan.bpf.output, KSNOOP_OUT_HIST);
	/* Durations are counted at the return, where the entry's skb is not read. */
	r = resolve_with("tuple_fn(skb:tuple)", &count);
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err.msg, "--by 'skb:tuple': calls are counted at their return, where 'skb:tuple' is not read; not supported yet");
	/* Not named with ':tuple' in the spec: not a flow. */
	count.output = OUTPUT_COUNT;
	r = resolve_with("tuple_fn(skb)", &count);
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err.msg, "--by 'skb:tuple' is not comm, pid, tid, cpu or a value the spec names"));
}

/*
 * --pcap: a target with a struct sk_buff * gets one more entry value, the
 * packet, read from that argument with the skb's and its device's field
 * offsets; without --pcap, or counting, none.
 */
static void test_packet(void **state)
{
	struct resolve_opts o = default_opts;
	const struct ksnoop_access *acc;
	const struct value_desc *vd;
	struct resolved *r;

	o.snaplen = 128;
	r = resolve_with("tuple_fn(n == 3)", &o);
	assert_int_equal(r->ret, 0);
	/* n (a predicate's value is shown too), then the packet */
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 2);
	vd = vd_of(r, KSNOOP_ENTRY, 1);
	assert_int_equal(vd->how, PRINT_SKB_PACKET);
	assert_string_equal(vd->text, "skb");
	acc = acc_of(r, KSNOOP_ENTRY, 1);
	assert_int_equal(acc->src, KSNOOP_SRC_ARG);
	assert_int_equal(acc->slot, 0);
	assert_int_equal(acc->nsteps, 1);
	assert_int_equal(acc->steps[0], 0);
	assert_int_equal(acc->flags, KSNOOP_VAL_SKB_PACKET);
	assert_int_equal(acc->size, sizeof(struct ksnoop_skb_packet) + 128);
	assert_int_equal(off_of(acc, KSNOOP_PKT_HEAD), TSKB_HEAD);
	assert_int_equal(off_of(acc, KSNOOP_PKT_DATA), TSKB_DATA);
	assert_int_equal(off_of(acc, KSNOOP_PKT_LEN), TSKB_LEN);
	assert_int_equal(off_of(acc, KSNOOP_PKT_DATA_LEN), TSKB_DATA_LEN);
	assert_int_equal(off_of(acc, KSNOOP_PKT_MAC_HEADER), TSKB_MAC);
	assert_int_equal(off_of(acc, KSNOOP_PKT_NETWORK_HEADER), TSKB_NETWORK);
	assert_int_equal(off_of(acc, KSNOOP_PKT_DEV), TSKB_DEV);
	assert_int_equal(off_of(acc, KSNOOP_PKT_DEV_IFINDEX), TND_IFINDEX);
	assert_int_equal(off_of(acc, KSNOOP_PKT_DEV_TYPE), TND_TYPE);
	assert_int_equal(off_of(acc, KSNOOP_PKT_DEV_NAME), TND_NAME);
	assert_int_equal(off_of(acc, KSNOOP_PKT_PROTOCOL), TSKB_PROTOCOL);
	assert_true(r->plan.bpf.flags & KSNOOP_PLAN_PACKET);
	assert_true(r->plan.bpf.slot_mask & 1u);
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	/* Beside the spec's own values, after them. */
	r = resolve_with("tuple_fn(skb:tuple, n)", &o);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 3);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 2)->how, PRINT_SKB_PACKET);
	/* Without --pcap, and when calls are counted: no packet. */
	r = resolve_ok("tuple_fn(n == 3)");
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 1);
	assert_false(r->plan.bpf.flags & KSNOOP_PLAN_PACKET);
	o.output = OUTPUT_COUNT;
	r = resolve_with("tuple_fn(n == 3)", &o);
	assert_int_equal(r->ret, 0);
	assert_false(r->plan.bpf.flags & KSNOOP_PLAN_PACKET);
}

/*
 * --netns: a predicate on the first skb's device's namespace (or a
 * sock's), on the entry, before the spec's own; a function's return
 * then carries its entry (stashed); no skb or sock: refused.
 */
static void test_netns(void **state)
{
	struct resolve_opts o = default_opts;
	const struct ksnoop_pred_plan *p;
	struct resolved *r;

	o.netns_ino = 4026531840u;
	r = resolve_with("tuple_fn(n)", &o);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, 1);
	p = &r->plan.bpf.side[KSNOOP_ENTRY].preds[0];
	assert_int_equal(p->acc.src, KSNOOP_SRC_ARG);
	assert_int_equal(p->acc.slot, 0);
	/* skb->dev, ->nd_net.net, ->ns.inum: two loads, then 4 bytes read */
	assert_int_equal(p->acc.nsteps, 3);
	assert_int_equal(p->acc.steps[0], TSKB_DEV);
	assert_int_equal(p->acc.steps[1], TND_NET);
	assert_int_equal(p->acc.steps[2], TNET_NS + TNS_INUM);
	assert_int_equal(p->op, KSNOOP_OP_EQ);
	assert_int_equal(p->width, 4);
	assert_int_equal(p->imm, 4026531840u);
	assert_true(r->plan.bpf.slot_mask & 1u);
	/* A sock's: its __sk_common's (a tcp_sock * would be cast to a struct sock * first). */
	r = resolve_with("sock_fn(n)", &o);
	assert_int_equal(r->ret, 0);
	p = &r->plan.bpf.side[KSNOOP_ENTRY].preds[0];
	assert_int_equal(p->acc.slot, 1);
	assert_int_equal(p->acc.nsteps, 2);
	assert_int_equal(p->acc.steps[0], TSKC_NET);
	assert_int_equal(p->acc.steps[1], TNET_NS + TNS_INUM);
	/* A return printed: selected with its entry, which is stashed. */
	r = resolve_with("tuple_fn(return)", &o);
	assert_int_equal(r->ret, 0);
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_STASH);
	assert_true(r->plan.bpf.side[KSNOOP_RETURN].flags & KSNOOP_SIDE_UNSTASH);
	/* Refused: nothing to read a namespace from. */
	r = resolve_with("int_fn(n)", &o);
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err.msg, "--netns: int_fn has no struct sk_buff * or struct sock * argument");
	/* Without --netns: no predicate. */
	r = resolve_ok("tuple_fn(n)");
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_skb_tuple, free_leftovers),
		cmocka_unit_test_teardown(test_sock_tuple, free_leftovers),
		cmocka_unit_test_teardown(test_tuple_errors, free_leftovers),
		cmocka_unit_test_teardown(test_by_tuple, free_leftovers),
		cmocka_unit_test_teardown(test_packet, free_leftovers),
		cmocka_unit_test_teardown(test_netns, free_leftovers),
	};

	return cmocka_run_group_tests_name("resolve_tuple", tests, build, free_btf);
}
