// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the resolver (ksnoop/resolve.c): signatures, chains,
 * predicates, layout, the stash.  The test BTF and the helpers are in
 * tests/include/resolve_fixture.h; casts, formats and member aliases are
 * tested in test_resolve_lang.c.
 *
 * Tests marked "Regression (fixed)" guard bugs these tests found.
 */
#include "../include/resolve_fixture.h"

/* The record header: every record's values start after it. */
#define HDR ((int)sizeof(struct ksnoop_event))

/* ---- signatures ---- */

static void test_sig_function(void **state)
{
	struct signature sig;
	struct ks_error why = {};

	assert_int_equal(signature__from_func(btf, T.ip_send_skb, &sig, &why), 0);
	assert_string_equal(why.msg, "");
	assert_string_equal(sig.name, "ip_send_skb");
	assert_string_equal(sig.attach, "ip_send_skb");
	assert_null(sig.module);
	assert_int_equal(sig.func_id, T.ip_send_skb);
	assert_int_equal(sig.proto_id, btf__type_by_id(btf, T.ip_send_skb)->type);
	assert_true(sig.btf == btf);
	assert_int_equal(sig.nparams, 2);
	assert_string_equal(sig.params[0].name, "net");
	assert_int_equal(sig.params[0].type_id, T.net_ptr);
	assert_int_equal(sig.params[0].slot, 0);
	assert_string_equal(sig.params[1].name, "skb");
	assert_int_equal(sig.params[1].type_id, T.skb_ptr);
	assert_int_equal(sig.params[1].slot, 1);
	assert_int_equal(sig.nslots, 2);
	assert_int_equal(sig.ret_type, T.ints.int_t);
	assert_true(sig.has_return);
	assert_false(sig.variadic);
}

static void test_sig_void_function(void **state)
{
	int id = btf__find_by_name_kind(btf, "void_fn", BTF_KIND_FUNC);
	struct signature sig;

	assert_int_equal(signature__from_func(btf, id, &sig, NULL), 0);
	assert_int_equal(sig.nparams, 0);
	assert_int_equal(sig.nslots, 0);
	assert_int_equal(sig.ret_type, 0);
	assert_true(sig.has_return);
}

static void test_sig_refuses_too_many_argument_words(void **state)
{
	int id = btf__find_by_name_kind(btf, "many_args", BTF_KIND_FUNC);
	struct signature sig;
	struct ks_error why = {};

	assert_int_equal(signature__from_func(btf, id, &sig, &why), -EINVAL);
	assert_string_equal(why.msg, "takes 13 argument words; at most 12 can be captured");
	/* Filled anyway, for `info`. */
	assert_int_equal(sig.nparams, 13);
	assert_int_equal(sig.nslots, 13);
	assert_string_equal(sig.params[12].name, "a12");
	assert_int_equal(sig.params[12].slot, 12);
}

static void test_sig_refuses_large_struct_by_value(void **state)
{
	int id = btf__find_by_name_kind(btf, "take_big", BTF_KIND_FUNC);
	struct signature sig;
	struct ks_error why = {};

	assert_int_equal(signature__from_func(btf, id, &sig, &why), -EINVAL);
	assert_string_equal(why.msg, "argument 'big' (struct big) is a struct of 24 bytes passed by value, which cannot be captured");
	assert_int_equal(sig.nparams, 2);
	assert_string_equal(sig.params[1].name, "x");
}

static void test_sig_16_byte_struct_takes_two_slots(void **state)
{
	int id = btf__find_by_name_kind(btf, "take_pair", BTF_KIND_FUNC);
	struct signature sig;
	struct ks_error why = {};

	assert_int_equal(signature__from_func(btf, id, &sig, &why), 0);
	assert_int_equal(sig.params[0].slot, 0);
	assert_int_equal(sig.params[1].slot, 2);
	assert_int_equal(sig.nslots, 3);
}

static void test_sig_refuses_variadic(void **state)
{
	int id = btf__find_by_name_kind(btf, "variadic_fn", BTF_KIND_FUNC);
	struct signature sig;
	struct ks_error why = {};

	assert_int_equal(signature__from_func(btf, id, &sig, &why), -EINVAL);
	assert_string_equal(why.msg, "is variadic; its variable arguments cannot be captured");
	assert_true(sig.variadic);
	assert_int_equal(sig.nparams, 1);
	assert_string_equal(sig.params[0].name, "fmt");
}

static void test_sig_refuses_non_function(void **state)
{
	struct signature sig;
	struct ks_error why = {};

	/* Broken BTF, not the user's to fix: a runtime errno. */
	assert_int_equal(signature__from_func(btf, T.ints.int_t, &sig, &why), -EIO);
	assert_string_equal(why.msg, "is not a function in BTF");
	assert_int_equal(signature__from_func(btf, 0, &sig, &why), -EIO);
	assert_int_equal(signature__from_func(btf, 1000000, &sig, &why), -EIO);
	assert_string_equal(why.msg, "is not a function in BTF");
}

static void test_sig_refuses_function_without_prototype(void **state)
{
	struct signature sig;
	struct ks_error why = {};

	assert_int_equal(signature__from_func(btf, T.bad_func, &sig, &why), -EIO);
	assert_string_equal(why.msg, "has no prototype in BTF");
}

static void test_sig_tracepoint_with_own_stub(void **state)
{
	struct signature sig;

	assert_int_equal(signature__from_tp(btf, "kfree_skb", &sig), 0);
	assert_string_equal(sig.name, "tp:kfree_skb");
	assert_string_equal(sig.attach, "kfree_skb");
	assert_int_equal(sig.func_id, T.kfree_skb_stub);
	assert_false(sig.has_return);
	assert_int_equal(sig.ret_type, 0);
	/* __data is not an argument; the others are named by the stub. */
	assert_int_equal(sig.nparams, 2);
	assert_string_equal(sig.params[0].name, "skb");
	assert_int_equal(sig.params[0].type_id, T.skb_ptr);
	assert_int_equal(sig.params[0].slot, 0);
	assert_string_equal(sig.params[1].name, "location");
	assert_int_equal(sig.params[1].type_id, T.void_ptr);
	assert_int_equal(sig.params[1].slot, 1);
	assert_int_equal(sig.nslots, 2);
}

static void test_sig_tracepoint_from_template(void **state)
{
	struct signature sig;

	/* Both templates have the types; net_dev_template shares "net_dev_". */
	assert_int_equal(signature__from_tp(btf, "net_dev_queue", &sig), 0);
	assert_string_equal(sig.name, "tp:net_dev_queue");
	assert_string_equal(sig.attach, "net_dev_queue");
	assert_int_equal(sig.func_id, T.net_dev_template_stub);
	assert_int_equal(sig.nparams, 1);
	assert_string_equal(sig.params[0].name, "skb");

	assert_int_equal(signature__from_tp(btf, "sched_skb_event", &sig), 0);
	assert_int_equal(sig.func_id, T.sched_template_stub);
	assert_string_equal(sig.params[0].name, "other");
}

static void test_sig_tracepoint_stub_with_other_types_is_skipped(void **state)
{
	struct signature sig;

	assert_int_equal(signature__from_tp(btf, "net_dev_start_xmit", &sig), 0);
	assert_int_equal(sig.func_id, T.net_dev_template_stub);
	assert_int_equal(sig.nparams, 1);
	assert_string_equal(sig.params[0].name, "skb");
	assert_int_equal(sig.params[0].type_id, T.skb_ptr);
}

static void test_sig_tracepoint_without_stub(void **state)
{
	struct signature sig;

	assert_int_equal(signature__from_tp(btf, "nostub", &sig), 0);
	assert_int_equal(sig.func_id, 0);
	assert_int_equal(sig.nparams, 2);
	assert_string_equal(sig.params[0].name, "arg0");
	assert_int_equal(sig.params[0].type_id, T.ints.int_t);
	assert_string_equal(sig.params[1].name, "arg1");
	assert_int_equal(sig.params[1].type_id, T.skb_ptr);
}

static void test_sig_tracepoint_unknown(void **state)
{
	struct signature sig;
	char name[SPEC_MAX_NAME + 2];

	assert_int_equal(signature__from_tp(btf, "no_such_event", &sig), -ENOENT);
	assert_int_equal(signature__from_tp(btf, "notptr", &sig), -ENOENT);
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	assert_int_equal(signature__from_tp(btf, name, &sig), -ENOENT);
}

/* ---- values: where they are ---- */

static void test_scalar_argument_is_the_register(void **state)
{
	struct resolved *r = resolve_ok("scalars(i)");
	const struct ksnoop_access *a = acc_of(r, KSNOOP_ENTRY, 0);
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_chain(a, KSNOOP_SRC_ARG, 4, 0);
	assert_int_equal(a->flags, KSNOOP_VAL_REG);
	assert_int_equal(a->size, 8);
	assert_string_equal(vd->text, "i");
	assert_int_equal(vd->how, PRINT_VALUE);
	assert_int_equal(vd->type_id, T.ints.int_t);
	assert_int_equal(vd->obj_id, T.ints.int_t);
	assert_int_equal(vd->size, 4);
	assert_int_equal(vd->obj_size, 4);
	assert_int_equal(vd->bit_size, 0);
	resolved_free(r);
}

static void test_member_depth_1(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->len)");
	const struct ksnoop_access *a = acc_of(r, KSNOOP_ENTRY, 0);
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_chain(a, KSNOOP_SRC_ARG, 1, 1, (long long)SKB_LEN);
	assert_int_equal(a->flags, 0);
	assert_int_equal(a->size, 4);
	assert_string_equal(vd->text, "skb->len");
	assert_int_equal(vd->how, PRINT_VALUE);
	assert_int_equal(vd->type_id, T.ints.uint_t);
	assert_int_equal(vd->size, 4);
	resolved_free(r);
}

static void test_typedef_is_kept_for_printing(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->protocol)");
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 1, (long long)SKB_PROTOCOL);
	assert_int_equal(vd->type_id, T.u16_t);
	assert_int_equal(vd->size, 2);
	resolved_free(r);
}

static void test_member_depth_2(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->sk->__sk_common.skc_family)");
	const struct ksnoop_access *a = acc_of(r, KSNOOP_ENTRY, 0);

	assert_chain(a, KSNOOP_SRC_ARG, 1, 2, (long long)SKB_SK,
		     (long long)(SK_COMMON + SKC_FAMILY));
	assert_int_equal(a->size, 2);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->type_id, T.ints.ushort_t);
	resolved_free(r);
}

static void test_member_depth_3(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->next->sk->sk_rcvbuf)");
	const struct ksnoop_access *a = acc_of(r, KSNOOP_ENTRY, 0);

	assert_chain(a, KSNOOP_SRC_ARG, 1, 3, (long long)SKB_NEXT, (long long)SKB_SK,
		     (long long)SK_RCVBUF);
	assert_int_equal(a->size, 4);
	resolved_free(r);
}

static void test_dot_adds_offsets(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->common.skc_bound_dev_if)");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 1,
		     (long long)(SKB_COMMON + SKC_BOUND_DEV_IF));
	resolved_free(r);
}

static void test_array_index(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->arr[2], skb->cb[5], skb->arr[0])");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 1, (long long)(SKB_ARR + 2 * 4));
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->size, 4);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->type_id, T.ints.int_t);
	assert_string_equal(vd_of(r, KSNOOP_ENTRY, 0)->text, "skb->arr[2]");
	assert_chain(acc_of(r, KSNOOP_ENTRY, 1), KSNOOP_SRC_ARG, 1, 1, (long long)(SKB_CB + 5));
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 1)->size, 1);
	assert_chain(acc_of(r, KSNOOP_ENTRY, 2), KSNOOP_SRC_ARG, 1, 1, (long long)SKB_ARR);
	resolved_free(r);
}

static void test_whole_array(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->arr)");
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 1, (long long)SKB_ARR);
	assert_int_equal(vd->how, PRINT_VALUE);
	assert_int_equal(vd->type_id, T.int_arr4);
	assert_int_equal(vd->size, 16);
	resolved_free(r);
}

static void test_flexible_array_has_no_bound(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->payload[100])");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 1, (long long)(SKB_PAYLOAD + 100));
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->size, 1);
	resolved_free(r);
}

static void test_anonymous_union_member(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->sk->__sk_common.skc_hash, skb->common.skc_u16hashes[1])");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 2, (long long)SKB_SK,
		     (long long)(SK_COMMON + SKC_HASH));
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->size, 4);
	assert_chain(acc_of(r, KSNOOP_ENTRY, 1), KSNOOP_SRC_ARG, 1, 1,
		     (long long)(SKB_COMMON + SKC_U16HASHES + 2));
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 1)->size, 2);
	resolved_free(r);
}

static void test_struct_in_anonymous_union(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->sk->sk_rx_dst_cookie, skb->sk->sk_flags_word)");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 2, (long long)SKB_SK,
		     (long long)SK_RX_DST_COOKIE);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->type_id, T.u32_t);
	assert_chain(acc_of(r, KSNOOP_ENTRY, 1), KSNOOP_SRC_ARG, 1, 2, (long long)SKB_SK,
		     (long long)SK_FLAGS_WORD);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 1)->size, 8);
	resolved_free(r);
}

static void test_bitfields(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->pkt_type, skb->ignore_df, skb->mark_bits)");
	const struct value_desc *vd;

	/* pkt_type:3 at bit 560: byte 70, bits 0-2. */
	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 1, 70LL);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->size, 1);
	vd = vd_of(r, KSNOOP_ENTRY, 0);
	assert_int_equal(vd->type_id, T.u8_t);
	assert_int_equal(vd->bit_off, 0);
	assert_int_equal(vd->bit_size, 3);
	assert_int_equal(vd->size, 1);
	/* ignore_df:1 at bit 563: byte 70, bit 3. */
	assert_chain(acc_of(r, KSNOOP_ENTRY, 1), KSNOOP_SRC_ARG, 1, 1, 70LL);
	vd = vd_of(r, KSNOOP_ENTRY, 1);
	assert_int_equal(vd->bit_off, 3);
	assert_int_equal(vd->bit_size, 1);
	assert_int_equal(vd->size, 1);
	/* mark_bits:12 at bit 572: byte 71, bits 4-15, two bytes. */
	assert_chain(acc_of(r, KSNOOP_ENTRY, 2), KSNOOP_SRC_ARG, 1, 1, 71LL);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 2)->size, 2);
	vd = vd_of(r, KSNOOP_ENTRY, 2);
	assert_int_equal(vd->type_id, T.u32_t);
	assert_int_equal(vd->bit_off, 4);
	assert_int_equal(vd->bit_size, 12);
	assert_int_equal(vd->size, 2);
	resolved_free(r);
}

static void test_pointer_index(void **state)
{
	struct resolved *r = resolve_ok("scalars8(ip[3])");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 5, 1, 12LL);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->flags, 0);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->size, 4);
	resolved_free(r);
}

static void test_one_star(void **state)
{
	struct resolved *r = resolve_ok("scalars8(*ip)");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 5, 1, 0LL);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->size, 4);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->type_id, T.ints.int_t);
	resolved_free(r);
}

static void test_two_stars(void **state)
{
	struct resolved *r = resolve_ok("strings(**pp)");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 4, 2, 0LL, 0LL);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->size, 4);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->type_id, T.ints.int_t);
	resolved_free(r);
}

static void test_star_applies_after_members(void **state)
{
	/* *skb->sk is *(skb->sk): the struct sock itself. */
	struct resolved *r = resolve_ok("ip_send_skb(*skb->sk)");
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 2, (long long)SKB_SK, 0LL);
	assert_int_equal(vd->how, PRINT_VALUE);
	assert_int_equal(vd->type_id, T.sock);
	assert_int_equal(vd->size, SK_SIZE);
	resolved_free(r);
}

/* ---- values: how they print ---- */

static void test_struct_pointer_is_dereferenced(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb)");
	const struct ksnoop_access *a = acc_of(r, KSNOOP_ENTRY, 0);
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_chain(a, KSNOOP_SRC_ARG, 1, 1, 0LL);
	assert_int_equal(a->flags, 0);
	assert_int_equal(a->size, SKB_SIZE);
	assert_int_equal(vd->how, PRINT_DEREF);
	assert_int_equal(vd->type_id, T.skb_ptr);
	assert_int_equal(vd->obj_id, T.sk_buff);
	assert_int_equal(vd->size, SKB_SIZE);
	assert_int_equal(vd->obj_size, SKB_SIZE);
	resolved_free(r);
}

static void test_struct_pointer_member_is_dereferenced(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->sk)");
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 2, (long long)SKB_SK, 0LL);
	assert_int_equal(vd->how, PRINT_DEREF);
	assert_int_equal(vd->obj_id, T.sock);
	assert_int_equal(vd->size, SK_SIZE);
	resolved_free(r);
}

static void test_pointer_to_incomplete_struct_is_an_address(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(net)");
	const struct ksnoop_access *a = acc_of(r, KSNOOP_ENTRY, 0);
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_chain(a, KSNOOP_SRC_ARG, 0, 0);
	assert_int_equal(a->flags, KSNOOP_VAL_REG);
	assert_int_equal(vd->how, PRINT_VALUE);
	assert_int_equal(vd->type_id, T.net_ptr);
	assert_int_equal(vd->size, 8);
	resolved_free(r);
}

static void test_struct_passed_in_one_register(void **state)
{
	struct resolved *r = resolve_ok("take_small(s)");
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->flags, KSNOOP_VAL_REG);
	assert_int_equal(vd->how, PRINT_VALUE);
	assert_int_equal(vd->type_id, T.small);
	assert_int_equal(vd->size, 8);
	resolved_free(r);
}

static void test_char_pointer_argument_is_a_string(void **state)
{
	struct resolved *r = resolve_ok("strings(name, buf)");
	const struct ksnoop_access *a = acc_of(r, KSNOOP_ENTRY, 0);
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_chain(a, KSNOOP_SRC_ARG, 0, 1, 0LL);
	assert_int_equal(a->flags, KSNOOP_VAL_STR);
	assert_int_equal(a->size, KSNOOP_DEFAULT_STR_SIZE);
	assert_int_equal(vd->how, PRINT_STRING);
	assert_int_equal(vd->type_id, T.const_char_ptr);
	assert_int_equal(vd->size, KSNOOP_DEFAULT_STR_SIZE);
	/* Plain char * too. */
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 1)->flags, KSNOOP_VAL_STR);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 1)->how, PRINT_STRING);
	resolved_free(r);
}

static void test_char_pointer_member_is_a_string(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->name)");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 2, (long long)SKB_NAME, 0LL);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->flags, KSNOOP_VAL_STR);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->how, PRINT_STRING);
	resolved_free(r);
}

static void test_unsigned_char_pointer_is_not_a_string(void **state)
{
	struct resolved *r = resolve_ok("strings(data)");

	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->flags, KSNOOP_VAL_REG);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->how, PRINT_VALUE);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->size, 8);
	resolved_free(r);
}

static void test_str_bytes_option(void **state)
{
	struct resolve_opts opts = default_opts;
	struct resolved *r;

	opts.str_bytes = 64;
	r = resolve_with("strings(name)", &opts);
	assert_int_equal(r->ret, 0);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->size, 64);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->size, 64);
	resolved_free(r);
}

static void test_max_bytes_truncates_structs(void **state)
{
	struct resolve_opts opts = default_opts;
	struct resolved *r;
	const struct value_desc *vd;

	opts.max_bytes = 32;
	r = resolve_with("ip_send_skb(skb, skb->cb, skb->len)", &opts);
	assert_int_equal(r->ret, 0);
	vd = vd_of(r, KSNOOP_ENTRY, 0);
	assert_int_equal(vd->size, 32);
	assert_int_equal(vd->obj_size, SKB_SIZE);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->size, 32);
	vd = vd_of(r, KSNOOP_ENTRY, 1);
	assert_int_equal(vd->size, 32);
	assert_int_equal(vd->obj_size, 48);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 1)->size, 32);
	/* Smaller values are not affected. */
	vd = vd_of(r, KSNOOP_ENTRY, 2);
	assert_int_equal(vd->size, 4);
	assert_int_equal(vd->obj_size, 4);
	resolved_free(r);
}

static void test_return_value(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(return)");
	const struct ksnoop_access *a = acc_of(r, KSNOOP_RETURN, 0);
	const struct value_desc *vd = vd_of(r, KSNOOP_RETURN, 0);

	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 0);
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	assert_true(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	assert_int_equal(r->plan.nvalues[KSNOOP_RETURN], 1);
	assert_chain(a, KSNOOP_SRC_RET, 0, 0);
	assert_int_equal(a->flags, KSNOOP_VAL_REG);
	assert_int_equal(a->size, 8);
	assert_string_equal(vd->text, "return");
	assert_int_equal(vd->type_id, T.ints.int_t);
	assert_int_equal(vd->size, 4);
	/* fexit: the return value is the word after the arguments. */
	assert_int_equal(r->plan.bpf.ret_slot, 2);
	assert_int_equal(r->plan.bpf.nslots, 2);
	resolved_free(r);
}

static void test_string_return_value(void **state)
{
	struct resolved *r = resolve_ok("strings(return)");

	assert_chain(acc_of(r, KSNOOP_RETURN, 0), KSNOOP_SRC_RET, 0, 1, 0LL);
	assert_int_equal(acc_of(r, KSNOOP_RETURN, 0)->flags, KSNOOP_VAL_STR);
	assert_int_equal(vd_of(r, KSNOOP_RETURN, 0)->how, PRINT_STRING);
	resolved_free(r);
}

static void test_entry_and_return_values(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->len, return)");

	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	assert_true(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 1);
	assert_int_equal(r->plan.nvalues[KSNOOP_RETURN], 1);
	assert_string_equal(vd_of(r, KSNOOP_ENTRY, 0)->text, "skb->len");
	assert_string_equal(vd_of(r, KSNOOP_RETURN, 0)->text, "return");
	resolved_free(r);
}

/* ---- the default spec ---- */

static void test_default_spec_all_arguments_and_return(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb");

	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	assert_true(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 2);
	assert_string_equal(vd_of(r, KSNOOP_ENTRY, 0)->text, "net");
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->how, PRINT_VALUE);
	assert_string_equal(vd_of(r, KSNOOP_ENTRY, 1)->text, "skb");
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 1)->how, PRINT_DEREF);
	assert_int_equal(r->plan.nvalues[KSNOOP_RETURN], 1);
	assert_string_equal(vd_of(r, KSNOOP_RETURN, 0)->text, "return");
	assert_int_equal(acc_of(r, KSNOOP_RETURN, 0)->src, KSNOOP_SRC_RET);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, 0);
	resolved_free(r);
}

static void test_default_spec_void_function(void **state)
{
	struct resolved *r = resolve_ok("void_fn");

	/* Still one event per call and one per return, without values. */
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	assert_true(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 0);
	assert_int_equal(r->plan.nvalues[KSNOOP_RETURN], 0);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].rec_size, sizeof(struct ksnoop_event));
	assert_int_equal(r->plan.bpf.side[KSNOOP_RETURN].rec_size, sizeof(struct ksnoop_event));
	resolved_free(r);
}

static void test_default_spec_stops_at_12_words(void **state)
{
	struct resolved *r = resolve_ok("many_args");

	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], KSNOOP_MAX_ARGS);
	assert_string_equal(vd_of(r, KSNOOP_ENTRY, 11)->text, "a11");
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 11)->slot, 11);
	assert_int_equal(r->plan.bpf.nslots, KSNOOP_MAX_ARGS);
	assert_int_equal(r->plan.bpf.ret_slot, KSNOOP_MAX_ARGS);
	resolved_free(r);
}

static void test_default_spec_tracepoint(void **state)
{
	struct resolved *r = resolve_ok("tp:kfree_skb");

	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	assert_false(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 2);
	assert_string_equal(vd_of(r, KSNOOP_ENTRY, 0)->text, "skb");
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->how, PRINT_DEREF);
	assert_string_equal(vd_of(r, KSNOOP_ENTRY, 1)->text, "location");
	assert_int_equal(r->plan.nvalues[KSNOOP_RETURN], 0);
	resolved_free(r);
}

static void test_tracepoint_member(void **state)
{
	struct resolved *r = resolve_ok("tp:net_dev_queue(skb->len)");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 0, 1, (long long)SKB_LEN);
	resolved_free(r);
}

/*
 * Regression (fixed): resolve.c resolver__resolve(): the default spec of a function taking
 * a 16-byte struct by value (which signature__from_func accepts) fails as a
 * whole with "'p': a struct passed by value cannot be captured yet", so the
 * function cannot be traced without a value list.  The default spec should
 * leave out (or show as raw words) what it cannot capture.
 */
static void test_default_spec_with_struct_by_value(void **state)
{
	struct resolved *r = resolve_with("take_pair", &default_opts);
	int i, found_x = 0;

	if (r->ret)
		print_message("take_pair: column %d: %s\n", r->err.pos, r->err.msg);
	assert_int_equal(r->ret, 0);
	for (i = 0; i < r->plan.nvalues[KSNOOP_ENTRY]; i++)
		found_x |= strcmp(vd_of(r, KSNOOP_ENTRY, i)->text, "x") == 0;
	assert_true(found_x);
	resolved_free(r);
}

/*
 * Regression (fixed): resolve.c resolver__resolve(): "f()" (an empty value list) enables
 * neither side, so no event is ever emitted.  It should trace calls without
 * values.
 */
static void test_empty_value_list_traces_calls(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb()");

	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 0);
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	resolved_free(r);
}

/* ---- record layout ---- */

static void test_record_layout(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb");
	const struct ksnoop_side_plan *e = &r->plan.bpf.side[KSNOOP_ENTRY];
	const struct ksnoop_side_plan *x = &r->plan.bpf.side[KSNOOP_RETURN];

	/* Header (56), then per value a 16-byte header and the data, 8-aligned. */
	assert_int_equal(HDR, 56);
	assert_int_equal(e->values[0].rec_off, HDR);
	assert_int_equal(e->values[1].rec_off, HDR + 16 + 8);
	assert_int_equal(e->rec_size, HDR + 16 + 8 + 16 + SKB_SIZE);
	assert_int_equal(x->values[0].rec_off, HDR);
	assert_int_equal(x->rec_size, HDR + 16 + 8);
	resolved_free(r);
}

static void test_record_layout_rounds_to_8(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->protocol, skb->pkt_type, skb->len, skb->cb)");
	const struct ksnoop_side_plan *e = &r->plan.bpf.side[KSNOOP_ENTRY];

	assert_int_equal(e->nvalues, 4);
	assert_int_equal(e->values[0].rec_off, HDR);
	assert_int_equal(e->values[1].rec_off, HDR + 24);	/* 2 bytes -> 8 */
	assert_int_equal(e->values[2].rec_off, HDR + 48);	/* 1 byte -> 8 */
	assert_int_equal(e->values[3].rec_off, HDR + 72);	/* 4 bytes -> 8 */
	assert_int_equal(e->rec_size, HDR + 72 + 16 + 48);
	for (int i = 0; i < e->nvalues; i++)
		assert_int_equal(e->values[i].rec_off % 8, 0);
	resolved_free(r);
}

static void test_record_too_large(void **state)
{
	struct resolve_opts opts = default_opts;
	struct resolved *r;

	opts.max_bytes = 65536;
	r = resolve_with("take_huge(h, *h, h[0], h[1])", &opts);
	assert_int_equal(r->ret, -EINVAL);
	assert_int_equal(r->err.pos, 0);
	assert_non_null(strstr(r->err.msg, "lower --max-bytes"));
	resolved_free(r);
}

/* ---- predicates ---- */

static void test_pred_int_minus_one(void **state)
{
	struct resolved *r = resolve_ok("scalars(i == -1)");
	const struct ksnoop_pred_plan *p = pred_of(r, KSNOOP_ENTRY, 0);

	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, 1);
	assert_int_equal(p->op, KSNOOP_OP_EQ);
	assert_true(p->imm == 0xffffffffffffffffULL);
	assert_int_equal(p->is_signed, 1);
	assert_int_equal(p->is_str, 0);
	assert_int_equal(p->width, 4);
	assert_chain(&p->acc, KSNOOP_SRC_ARG, 4, 0);
	assert_int_equal(p->acc.flags, KSNOOP_VAL_REG);
	assert_int_equal(p->acc.size, 8);
	/* The value is captured as well. */
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 1);
	assert_string_equal(vd_of(r, KSNOOP_ENTRY, 0)->text, "i");
	resolved_free(r);
}

static void test_pred_member_in_memory(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->len > 84)");
	const struct ksnoop_pred_plan *p = pred_of(r, KSNOOP_ENTRY, 0);

	assert_int_equal(p->op, KSNOOP_OP_GT);
	assert_int_equal(p->imm, 84);
	assert_int_equal(p->is_signed, 0);
	assert_int_equal(p->width, 4);
	assert_chain(&p->acc, KSNOOP_SRC_ARG, 1, 1, (long long)SKB_LEN);
	assert_int_equal(p->acc.flags, 0);
	assert_int_equal(p->acc.size, 4);
	resolved_free(r);
}

static void test_pred_operators(void **state)
{
	struct resolved *r = resolve_ok("scalars(c < 1, uc <= 2, s > 3, us >= 4, i != 5, u == 6)");
	static const enum ksnoop_op ops[] = {
		KSNOOP_OP_LT, KSNOOP_OP_LE, KSNOOP_OP_GT, KSNOOP_OP_GE, KSNOOP_OP_NE, KSNOOP_OP_EQ,
	};

	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(pred_of(r, KSNOOP_ENTRY, i)->op, ops[i]);
		assert_int_equal(pred_of(r, KSNOOP_ENTRY, i)->imm, i + 1);
		assert_int_equal(pred_of(r, KSNOOP_ENTRY, i)->acc.slot, i);
	}
	resolved_free(r);
}

static void test_pred_widths_and_signedness(void **state)
{
	struct resolved *r = resolve_ok("scalars(c == 1, uc == 1, s == 1, us == 1, i == 1, u == 1)");
	static const struct { int width, is_signed; } want[] = {
		{ 1, 1 }, { 1, 0 }, { 2, 1 }, { 2, 0 }, { 4, 1 }, { 4, 0 },
	};

	for (int i = 0; i < 6; i++) {
		assert_int_equal(pred_of(r, KSNOOP_ENTRY, i)->width, want[i].width);
		assert_int_equal(pred_of(r, KSNOOP_ENTRY, i)->is_signed, want[i].is_signed);
	}
	resolved_free(r);
	r = resolve_ok("scalars8(l == 1, ul == 1, b == 1, ip == 1)");
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->width, 8);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->is_signed, 1);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 1)->width, 8);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 1)->is_signed, 0);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 2)->width, 1);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 2)->is_signed, 0);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 3)->width, 8);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 3)->is_signed, 0);
	resolved_free(r);
}

static void test_pred_signed_limits(void **state)
{
	struct resolved *r = resolve_ok("scalars(c == -128, c == 127, s == -32768, s == 32767, i == -2147483648, i == 2147483647)");

	assert_true(pred_of(r, KSNOOP_ENTRY, 0)->imm == (__u64)-128LL);
	assert_true(pred_of(r, KSNOOP_ENTRY, 1)->imm == 127);
	assert_true(pred_of(r, KSNOOP_ENTRY, 2)->imm == (__u64)-32768LL);
	assert_true(pred_of(r, KSNOOP_ENTRY, 3)->imm == 32767);
	assert_true(pred_of(r, KSNOOP_ENTRY, 4)->imm == (__u64)-2147483648LL);
	assert_true(pred_of(r, KSNOOP_ENTRY, 5)->imm == 2147483647);
	resolved_free(r);

	r = resolve_ok("scalars8(l == -9223372036854775808, l == 9223372036854775807)");
	assert_true(pred_of(r, KSNOOP_ENTRY, 0)->imm == 0x8000000000000000ULL);
	assert_true(pred_of(r, KSNOOP_ENTRY, 1)->imm == 0x7fffffffffffffffULL);
	resolved_free(r);
}

static void test_pred_unsigned_limits(void **state)
{
	struct resolved *r = resolve_ok("scalars(uc == 255, us == 65535, u == 4294967295)");

	assert_true(pred_of(r, KSNOOP_ENTRY, 0)->imm == 255);
	assert_true(pred_of(r, KSNOOP_ENTRY, 1)->imm == 65535);
	assert_true(pred_of(r, KSNOOP_ENTRY, 2)->imm == 4294967295ULL);
	resolved_free(r);
	r = resolve_ok("scalars8(ul == 18446744073709551615)");
	assert_true(pred_of(r, KSNOOP_ENTRY, 0)->imm == UINT64_MAX);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->is_signed, 0);
	resolved_free(r);
}

static void test_pred_char_literal(void **state)
{
	struct resolved *r = resolve_ok("scalars(c == 'a', uc == '\\xff')");

	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->imm, 'a');
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 1)->imm, 0xff);
	resolved_free(r);
}

static void test_pred_constant_out_of_range(void **state)
{
	const char *t;

	t = "scalars(uc == 256)";
	resolve_err(t, col(t, "256"), "constant 256 does not fit 'uc' (unsigned char)");
	t = "ip_send_skb(skb->u8v == 256)";
	resolve_err(t, col(t, "256"), "constant 256 does not fit 'skb->u8v' (u8)");
	t = "scalars(c == 128)";
	resolve_err(t, col(t, "128"), "constant 128 does not fit 'c' (char)");
	t = "scalars(c == -129)";
	resolve_err(t, col(t, "-129"), "constant -129 does not fit 'c' (char)");
	t = "scalars(s == 32768)";
	resolve_err(t, col(t, "32768"), "does not fit 's'");
	t = "scalars(us == 65536)";
	resolve_err(t, col(t, "65536"), "does not fit 'us'");
	t = "scalars(i == 2147483648)";
	resolve_err(t, col(t, "2147483648"), "does not fit 'i'");
	t = "scalars(u == 4294967296)";
	resolve_err(t, col(t, "4294967296"), "does not fit 'u'");
	t = "scalars8(l == 9223372036854775808)";
	resolve_err(t, col(t, "9223372036854775808"), "does not fit 'l'");
	t = "scalars8(l == -9223372036854775809)";
	resolve_err(t, col(t, "-9223372036854775809"), "does not fit 'l'");
	t = "scalars8(l == -18446744073709551615)";
	resolve_err(t, col(t, "-18446744073709551615"), "does not fit 'l'");
}

static void test_pred_negative_on_unsigned(void **state)
{
	const char *t;

	t = "scalars(u == -1)";
	resolve_err(t, col(t, "-1"), "negative constant -1 compared with 'u', which is unsigned (u32)");
	t = "scalars(uc < -1)";
	resolve_err(t, col(t, "-1"), "negative constant -1 compared with 'uc'");
	t = "ip_send_skb(skb->len >= -5)";
	resolve_err(t, col(t, "-5"), "negative constant -5 compared with 'skb->len'");
}

static void test_pred_own_enum(void **state)
{
	struct resolved *r = resolve_ok("scalars8(r == SKB_DROP_REASON_NOT_SPECIFIED, r == SKB_DROP_REASON_HUGE)");

	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->imm, 2);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->width, 4);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->is_signed, 0);
	assert_true(pred_of(r, KSNOOP_ENTRY, 1)->imm == 0x80000000ULL);
	resolved_free(r);
	r = resolve_ok("ip_send_skb(skb->reason != SKB_NOT_DROPPED_YET)");
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->imm, 0);
	assert_chain(&pred_of(r, KSNOOP_ENTRY, 0)->acc, KSNOOP_SRC_ARG, 1, 1, (long long)SKB_REASON);
	resolved_free(r);
}

static void test_pred_signed_enum(void **state)
{
	struct resolved *r = resolve_ok("scalars8(se == NEG_ONE, se == POS_FIVE)");

	assert_true(pred_of(r, KSNOOP_ENTRY, 0)->imm == UINT64_MAX);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->is_signed, 1);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 1)->imm, 5);
	resolved_free(r);
}

static void test_pred_enumerator_of_anonymous_enum(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->fclone == SKB_FCLONE_CLONE)");

	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->imm, 2);
	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->is_signed, 1);
	resolved_free(r);
}

static void test_pred_own_enum_wins_over_others(void **state)
{
	/* DUP is 7 in signed_enum, 1 in dup_a and 2 in dup_b. */
	struct resolved *r = resolve_ok("scalars8(se == DUP)");

	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->imm, 7);
	resolved_free(r);
}

static void test_pred_enumerator_same_value_twice(void **state)
{
	struct resolved *r = resolve_ok("scalars(i == SAME)");

	assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->imm, 3);
	resolved_free(r);
}

static void test_pred_enumerator_errors(void **state)
{
	const char *t;

	t = "scalars(i == NOPE)";
	resolve_err(t, col(t, "NOPE"), "unknown enumerator 'NOPE'");
	t = "scalars(i == DUP)";
	resolve_err(t, col(t, "DUP"), "enumerator 'DUP' has different values in different enums");
	t = "scalars(u == NEG_ONE)";
	resolve_err(t, col(t, "NEG_ONE"), "enumerator 'NEG_ONE' (-1) is negative; 'u' is unsigned");
	t = "scalars(uc == BIG_ENUM)";
	resolve_err(t, col(t, "BIG_ENUM"), "enumerator 'BIG_ENUM' (300) does not fit");
	t = "scalars(c == BIG_ENUM)";
	resolve_err(t, col(t, "BIG_ENUM"), "enumerator 'BIG_ENUM' (300) does not fit");
}

static void test_pred_enum64_enumerators(void **state)
{
	struct resolved *r = resolve_ok("scalars8(l == E64_BIG, l == E64_NEG, ul == E64_BIG)");
	const char *t;

	assert_true(pred_of(r, KSNOOP_ENTRY, 0)->imm == 0x100000000ULL);
	assert_true(pred_of(r, KSNOOP_ENTRY, 1)->imm == (__u64)-5LL);
	assert_true(pred_of(r, KSNOOP_ENTRY, 2)->imm == 0x100000000ULL);
	resolved_free(r);
	t = "scalars(u == E64_BIG)";
	resolve_err(t, col(t, "E64_BIG"), "enumerator 'E64_BIG' (4294967296) does not fit");
	t = "scalars(i == E64_BIG)";
	resolve_err(t, col(t, "E64_BIG"), "enumerator 'E64_BIG' (4294967296) does not fit");
	t = "scalars8(ul == E64_NEG)";
	resolve_err(t, col(t, "E64_NEG"), "enumerator 'E64_NEG' (-5) is negative; 'ul' is unsigned");
}

static void test_pred_null_pointer(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->sk == NULL, skb != NULL)");
	const struct ksnoop_pred_plan *p = pred_of(r, KSNOOP_ENTRY, 0);

	assert_int_equal(p->imm, 0);
	assert_int_equal(p->width, 8);
	assert_int_equal(p->is_signed, 0);
	assert_chain(&p->acc, KSNOOP_SRC_ARG, 1, 1, (long long)SKB_SK);
	assert_int_equal(p->acc.size, 8);
	p = pred_of(r, KSNOOP_ENTRY, 1);
	assert_int_equal(p->op, KSNOOP_OP_NE);
	assert_int_equal(p->acc.flags, KSNOOP_VAL_REG);
	assert_int_equal(p->width, 8);
	resolved_free(r);
}

static void test_pred_string_on_char_array(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->cb == \"hello\", skb->sk->sk_prot_name != \"TCP\")");
	const struct ksnoop_pred_plan *p = pred_of(r, KSNOOP_ENTRY, 0);

	assert_int_equal(p->is_str, 1);
	assert_string_equal(p->str, "hello");
	assert_int_equal(p->op, KSNOOP_OP_EQ);
	assert_chain(&p->acc, KSNOOP_SRC_ARG, 1, 1, (long long)SKB_CB);
	assert_int_equal(p->acc.flags, 0);
	/* The whole 48-byte array (at most KSNOOP_MAX_PRED_STR bytes) is read. */
	assert_int_equal(p->acc.size, 48);
	p = pred_of(r, KSNOOP_ENTRY, 1);
	assert_string_equal(p->str, "TCP");
	assert_int_equal(p->op, KSNOOP_OP_NE);
	assert_chain(&p->acc, KSNOOP_SRC_ARG, 1, 2, (long long)SKB_SK, (long long)SK_PROT_NAME);
	assert_int_equal(p->acc.size, 16);
	resolved_free(r);
}

static void test_pred_string_on_char_pointer(void **state)
{
	struct resolved *r = resolve_ok("strings(name == \"eth0\")");
	const struct ksnoop_pred_plan *p = pred_of(r, KSNOOP_ENTRY, 0);

	assert_int_equal(p->is_str, 1);
	assert_string_equal(p->str, "eth0");
	assert_chain(&p->acc, KSNOOP_SRC_ARG, 0, 1, 0LL);
	assert_int_equal(p->acc.flags, KSNOOP_VAL_STR);
	resolved_free(r);
	r = resolve_ok("ip_send_skb(skb->name == \"lo\")");
	p = pred_of(r, KSNOOP_ENTRY, 0);
	assert_chain(&p->acc, KSNOOP_SRC_ARG, 1, 2, (long long)SKB_NAME, 0LL);
	assert_int_equal(p->acc.flags, KSNOOP_VAL_STR);
	resolved_free(r);
}

static void test_pred_string_errors(void **state)
{
	const char *t;

	t = "ip_send_skb(skb->len == \"x\")";
	resolve_err(t, col(t, "\"x\""), "string constant compared with 'skb->len' of type unsigned int; strings compare only with char arrays and char pointers");
	t = "strings(data == \"x\")";
	resolve_err(t, col(t, "\"x\""), "string constant compared with 'data'");
	t = "strings(name < \"x\")";
	resolve_err(t, col(t, "<"), "strings compare only with '==' and '!='");
	/* 16 characters and the NUL do not fit char[16]. */
	t = "ip_send_skb(skb->sk->sk_prot_name == \"0123456789abcdef\")";
	resolve_err(t, col(t, "\"0123"), "is longer than char[16]");
}

static void test_pred_string_fills_char_array(void **state)
{
	/* 15 characters and the NUL fit char[16]. */
	struct resolved *r = resolve_ok("ip_send_skb(skb->sk->sk_prot_name == \"0123456789abcde\")");

	assert_string_equal(pred_of(r, KSNOOP_ENTRY, 0)->str, "0123456789abcde");
	resolved_free(r);
}

static void test_pred_on_struct(void **state)
{
	const char *t = "ip_send_skb(skb->sk->__sk_common == 1)";

	resolve_err(t, col(t, "=="), "'skb->sk->__sk_common' has type struct sock_common; predicates compare integers, enums, chars, bools and pointers");
	t = "ip_send_skb(skb->arr == 1)";
	resolve_err(t, col(t, "=="), "'skb->arr' has type int[4]");
}

/* Bitfield predicates: the bytes that hold it, then its bits, in BPF. */
static void test_pred_on_bitfield(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->pkt_type == 1, skb->mark_bits > 4000)");
	const struct ksnoop_pred_plan *p = pred_of(r, KSNOOP_ENTRY, 0);
	const char *t;

	/* pkt_type:3 at bit 560: byte 70, bits 0-2. */
	assert_chain(&p->acc, KSNOOP_SRC_ARG, 1, 1, 70LL);
	assert_int_equal(p->width, 1);
	assert_int_equal(p->bit_off, 0);
	assert_int_equal(p->bit_size, 3);
	assert_int_equal(p->imm, 1);
	assert_int_equal(p->is_signed, 0);
	/* mark_bits:12 at bit 572: byte 71, bits 4-15, two bytes. */
	p = pred_of(r, KSNOOP_ENTRY, 1);
	assert_chain(&p->acc, KSNOOP_SRC_ARG, 1, 1, 71LL);
	assert_int_equal(p->width, 2);
	assert_int_equal(p->bit_off, 4);
	assert_int_equal(p->bit_size, 12);
	assert_int_equal(p->imm, 4000);
	resolved_free(r);

	/* The constant must fit the bitfield's own width. */
	t = "ip_send_skb(skb->pkt_type == 8)";
	resolve_err(t, col(t, "8"), "constant 8 does not fit 'skb->pkt_type'");
	t = "ip_send_skb(skb->mark_bits == 4096)";
	resolve_err(t, col(t, "4096"), "constant 4096 does not fit 'skb->mark_bits'");
}

static void test_pred_on_return(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(return < 0)");
	const struct ksnoop_pred_plan *p = pred_of(r, KSNOOP_RETURN, 0);

	assert_int_equal(r->plan.bpf.side[KSNOOP_RETURN].npreds, 1);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, 0);
	assert_int_equal(p->acc.src, KSNOOP_SRC_RET);
	assert_int_equal(p->acc.flags, KSNOOP_VAL_REG);
	assert_int_equal(p->is_signed, 1);
	assert_int_equal(p->width, 4);
	assert_int_equal(p->op, KSNOOP_OP_LT);
	resolved_free(r);
}

/*
 * Entry values are read at entry in every attach mode (fexit would see the
 * argument words but not what they point to): they are stashed at entry
 * and copied, at their entry offsets, in front of the return values.
 */
static void test_pred_on_return_stashes_entry_values(void **state)
{
	struct resolve_opts opts = default_opts;
	const struct ksnoop_side_plan *e, *x;
	struct resolved *r;

	r = resolve_with("ip_send_skb(skb->len, return != 0)", &opts);
	assert_int_equal(r->ret, 0);
	e = &r->plan.bpf.side[KSNOOP_ENTRY];
	x = &r->plan.bpf.side[KSNOOP_RETURN];
	/* Entry: captures skb->len into the stash, prints nothing itself. */
	assert_true(e->enabled);
	assert_true(e->flags & KSNOOP_SIDE_STASH);
	assert_int_equal(e->nvalues, 1);
	assert_int_equal(e->npreds, 0);
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 0);
	assert_int_equal(e->rec_size, HDR + 16 + 8);
	/* Return: the stashed value first, at its entry offset, then return. */
	assert_true(x->flags & KSNOOP_SIDE_UNSTASH);
	assert_int_equal(x->nstashed, 1);
	assert_int_equal(x->stash_size, e->rec_size);
	assert_int_equal(x->nvalues, 2);
	assert_int_equal(x->npreds, 1);
	assert_int_equal(x->values[0].rec_off, e->values[0].rec_off);
	assert_int_equal(x->values[1].rec_off, e->rec_size);
	assert_int_equal(x->values[1].acc.src, KSNOOP_SRC_RET);
	assert_int_equal(x->rec_size, e->rec_size + 16 + 8);
	assert_int_equal(r->plan.nvalues[KSNOOP_RETURN], 2);
	assert_string_equal(r->plan.values[KSNOOP_RETURN][0].text, "skb->len");
	assert_string_equal(r->plan.values[KSNOOP_RETURN][1].text, "return");
	/* Only skb (word 1) is read; net (word 0) is not. */
	assert_int_equal(r->plan.bpf.slot_mask, 1u << 1);
	resolved_free(r);

	/* Entry predicates stay at entry: a failing call stashes nothing. */
	r = resolve_with("ip_send_skb(skb->len == 84, return != 0)", &opts);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, 1);
	assert_int_equal(r->plan.bpf.side[KSNOOP_RETURN].npreds, 1);
	resolved_free(r);

	/* Without entry values nothing is stashed. */
	r = resolve_with("ip_send_skb(return != 0)", &opts);
	assert_int_equal(r->ret, 0);
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_STASH);
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	resolved_free(r);
}

/* The stash is built in a per-CPU buffer: 32 KiB at most, said at resolve time. */
static void test_stash_record_is_capped(void **state)
{
	struct resolve_opts opts = default_opts;
	struct resolved *r;

	opts.str_bytes = KSNOOP_MAX_VALUE_SIZE;
	r = resolve_with("strings(name, return == NULL)", &opts);
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err.msg, "kept for the return add up to"));
	assert_non_null(strstr(r->err.msg, "more than 32768"));
	resolved_free(r);

	/* Just below the cap: header, value header, string. */
	opts.str_bytes = KSNOOP_MAX_STASH_RECORD - HDR - 16;
	r = resolve_with("strings(name, return == NULL)", &opts);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].rec_size, KSNOOP_MAX_STASH_RECORD);
	resolved_free(r);
}

/*
 * Kernel functions: an entry value read from memory may fault on user
 * memory not paged in yet; the return side reads it again.  Register
 * values never fault; tracepoints have no return side.
 */
static void test_entry_memory_values_retry_at_return(void **state)
{
	struct resolved *r = resolve_ok("strings(name)");

	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_RETRY);
	assert_true(r->plan.bpf.side[KSNOOP_RETURN].flags & KSNOOP_SIDE_RETRY);
	/* The return side runs for the retry only: it emits nothing itself. */
	assert_false(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	resolved_free(r);

	r = resolve_ok("scalars(c, i)");
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_RETRY);
	assert_false(r->plan.bpf.side[KSNOOP_RETURN].flags & KSNOOP_SIDE_RETRY);
	resolved_free(r);

	r = resolve_ok("tp:kfree_skb(skb->len)");
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_RETRY);
	resolved_free(r);

	/* A stash reads faulted entry values again already. */
	r = resolve_ok("strings(name, return == NULL)");
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_RETRY);
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_STASH);
	resolved_free(r);
}

/*
 * Durations: a return side that prints knows each call's; without a stash
 * (whose record carries its entry time) the entry side keeps the time.
 * Calls traced on entry alone, and tracepoints, keep nothing.
 */
static void test_printed_return_is_timed(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb");
	const struct ksnoop_side_plan *e = &r->plan.bpf.side[KSNOOP_ENTRY];
	const struct ksnoop_side_plan *x = &r->plan.bpf.side[KSNOOP_RETURN];

	assert_true(e->flags & KSNOOP_SIDE_TIMED);
	assert_true(x->flags & KSNOOP_SIDE_TIMED);
	assert_true(e->enabled && x->enabled);
	assert_true(r->plan.bpf.min_duration_ns == 0);
	resolved_free(r);

	/* Only the return prints: the entry side runs to keep the time. */
	r = resolve_ok("ip_send_skb(return)");
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_TIMED);
	assert_true(r->plan.bpf.side[KSNOOP_RETURN].flags & KSNOOP_SIDE_TIMED);
	resolved_free(r);

	/* No return printed: no time kept. */
	r = resolve_ok("ip_send_skb(skb->len)");
	assert_false(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_TIMED);
	assert_false(r->plan.bpf.side[KSNOOP_RETURN].flags & KSNOOP_SIDE_TIMED);
	resolved_free(r);

	/* A stash carries the entry time in its record header. */
	r = resolve_ok("ip_send_skb(skb->len, return != 0)");
	assert_true(r->plan.bpf.side[KSNOOP_RETURN].flags & KSNOOP_SIDE_UNSTASH);
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_TIMED);
	assert_false(r->plan.bpf.side[KSNOOP_RETURN].flags & KSNOOP_SIDE_TIMED);
	resolved_free(r);

	r = resolve_ok("tp:kfree_skb(skb->len)");
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_TIMED);
	resolved_free(r);
}

#define MIN_NS (150ULL * 1000000)

/*
 * --min-duration: the return decides, so entry values are stashed and
 * reported with it, exactly as with a predicate on 'return'.
 */
static void test_min_duration_stashes_entry_values(void **state)
{
	struct resolve_opts opts = default_opts;
	const struct ksnoop_side_plan *e, *x;
	struct resolved *r;

	opts.min_duration_ns = MIN_NS;
	r = resolve_with("ip_send_skb(skb->len == 84, skb->len)", &opts);
	assert_int_equal(r->ret, 0);
	e = &r->plan.bpf.side[KSNOOP_ENTRY];
	x = &r->plan.bpf.side[KSNOOP_RETURN];
	assert_true(r->plan.bpf.min_duration_ns == MIN_NS);
	/* The entry filters and stashes; it prints nothing itself. */
	assert_true(e->flags & KSNOOP_SIDE_STASH);
	assert_int_equal(e->npreds, 1);
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 0);
	/* The return prints the stashed value; the stash has the entry time. */
	assert_true(x->enabled);
	assert_true(x->flags & KSNOOP_SIDE_UNSTASH);
	assert_false(x->flags & KSNOOP_SIDE_TIMED);
	assert_int_equal(x->nstashed, 1);
	assert_int_equal(r->plan.nvalues[KSNOOP_RETURN], 1);
	assert_string_equal(r->plan.values[KSNOOP_RETURN][0].text, "skb->len");
	assert_int_equal(x->values[0].rec_off, HDR);
	resolved_free(r);

	/* Without a list: every argument, then the return value, in one event. */
	r = resolve_with("ip_send_skb", &opts);
	assert_int_equal(r->ret, 0);
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_STASH);
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 0);
	assert_int_equal(r->plan.nvalues[KSNOOP_RETURN], 3);
	assert_string_equal(r->plan.values[KSNOOP_RETURN][0].text, "net");
	assert_string_equal(r->plan.values[KSNOOP_RETURN][1].text, "skb");
	assert_string_equal(r->plan.values[KSNOOP_RETURN][2].text, "return");
	resolved_free(r);
}

/* --min-duration without entry values: the entry keeps the time only. */
static void test_min_duration_without_entry_values(void **state)
{
	struct resolve_opts opts = default_opts;
	const char *specs[] = { "ip_send_skb()", "ip_send_skb(return)", "ip_send_skb(return < 0)" };
	const int nret[] = { 0, 1, 1 };
	struct resolved *r;

	opts.min_duration_ns = MIN_NS;
	for (int i = 0; i < 3; i++) {
		r = resolve_with(specs[i], &opts);
		assert_int_equal(r->ret, 0);
		assert_false(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
		assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_STASH);
		assert_true(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_TIMED);
		assert_true(r->plan.bpf.side[KSNOOP_RETURN].enabled);
		assert_true(r->plan.bpf.side[KSNOOP_RETURN].flags & KSNOOP_SIDE_TIMED);
		assert_int_equal(r->plan.nvalues[KSNOOP_RETURN], nret[i]);
		assert_true(r->plan.bpf.min_duration_ns == MIN_NS);
		resolved_free(r);
	}
}

/* Tracepoints (and USDT probes) have no return, so no duration. */
static void test_min_duration_refused_without_return(void **state)
{
	struct resolve_opts opts = default_opts;
	struct resolved *r;

	opts.min_duration_ns = MIN_NS;
	r = resolve_with("tp:kfree_skb(skb->len)", &opts);
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err.msg, "--min-duration needs a function's return"));
	resolved_free(r);
}

/* Constants up to KSNOOP_MAX_PRED_STR - 1 characters compare exactly. */
static void test_string_constant_length(void **state)
{
	char text[200], s63[64], s64[65];
	struct resolved *r;

	memset(s63, 'a', 63);
	s63[63] = 0;
	memset(s64, 'b', 64);
	s64[64] = 0;
	snprintf(text, sizeof(text), "strings(name == \"%s\")", s63);
	r = resolve_ok(text);
	assert_string_equal(pred_of(r, KSNOOP_ENTRY, 0)->str, s63);
	resolved_free(r);
	r = calloc(1, sizeof(*r));
	assert_non_null(r);

	/* Longer ones are refused (by the parser), never compared in part. */
	snprintf(text, sizeof(text), "strings(name == \"%s\")", s64);
	assert_int_not_equal(spec__parse(text, SPEC_KFUNC, &r->spec, &r->err), 0);
	assert_non_null(strstr(r->err.msg, "longer than 63"));
	spec__free(&r->spec);	/* what the parser got to, as after any failure */
	free(r);
}

/* Where BTF has __user tags, each read is user or kernel by the tag. */
static void test_user_type_tags_mark_user_reads(void **state)
{
	struct resolved *r = calloc(1, sizeof(*r));
	int tag, uptr, proto_id, fid;
	struct ks_error why;

	assert_non_null(r);
	/* long copy(const char __user *ubuf, struct sk_buff *skb) */
	tag = btf__add_type_tag(btf, "user", T.const_char);
	uptr = btf__add_ptr(btf, tag);
	proto_id = btf__add_func_proto(btf, T.ints.long_t);
	btf__add_func_param(btf, "ubuf", uptr);
	btf__add_func_param(btf, "skb", T.skb_ptr);
	fid = btf__add_func(btf, "tagged_copy", BTF_FUNC_GLOBAL, proto_id);
	assert_true(fid > 0);
	assert_int_equal(signature__from_func(btf, fid, &r->sig, &why), 0);
	r->sig.user_tags = true;
	assert_int_equal(spec__parse("tagged_copy(ubuf, skb->sk->sk_rcvbuf)", SPEC_KFUNC,
				     &r->spec, &r->err), 0);
	assert_int_equal(resolver__resolve(&r->spec, &r->sig, &default_opts, &r->plan, &r->err), 0);
	/* The string: one read, of user memory. */
	assert_true(acc_of(r, KSNOOP_ENTRY, 0)->flags & KSNOOP_VAL_TAGGED);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->user_mask, 1);
	/* skb->sk->sk_rcvbuf: two kernel reads. */
	assert_true(acc_of(r, KSNOOP_ENTRY, 1)->flags & KSNOOP_VAL_TAGGED);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 1)->user_mask, 0);
	spec__free(&r->spec);
	free(r);
}

/*
 * Member aliases: the kernel's sk_X macros (sk_family is
 * __sk_common.skc_family) and members of structs embedded by value.
 */
static void test_member_alias_sock_common(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->sk->sk_family, skb->sk->skc_state == 1)");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 2, (long long)SKB_SK,
		     (long long)(SK_COMMON + SKC_FAMILY));
	assert_int_equal(r->plan.naliases, 2);
	assert_string_equal(r->plan.aliases[0], "'sk_family' is __sk_common.skc_family in struct sock");
	assert_string_equal(r->plan.aliases[1], "'skc_state' is __sk_common.skc_state in struct sock");
	resolved_free(r);
}

static void test_member_alias_ambiguous_and_missing(void **state)
{
	struct resolved *r = calloc(1, sizeof(*r));
	int a, b, outer, outer_ptr, proto_id, fid;
	struct ks_error why;

	assert_non_null(r);
	/* struct two { struct a { int x; } a; struct b { int x; } b; } */
	a = btf__add_struct(btf, "alias_a", 4);
	field("x", T.ints.int_t, 0);
	b = btf__add_struct(btf, "alias_b", 4);
	field("x", T.ints.int_t, 0);
	outer = btf__add_struct(btf, "alias_two", 8);
	field("a", a, 0);
	field("b", b, 4);
	outer_ptr = btf__add_ptr(btf, outer);
	proto_id = proto(0, "t", outer_ptr, NULL);
	fid = func("alias_fn", proto_id);
	assert_int_equal(signature__from_func(btf, fid, &r->sig, &why), 0);
	assert_int_equal(spec__parse("alias_fn(t->x)", SPEC_KFUNC, &r->spec, &r->err), 0);
	assert_int_equal(resolver__resolve(&r->spec, &r->sig, &default_opts, &r->plan, &r->err),
			 -EINVAL);
	assert_string_equal(r->err.msg, "'x' is ambiguous in struct alias_two: a.x, b.x");
	assert_int_equal(r->err.pos, 13);
	spec__free(&r->spec);
	free(r);

	resolve_err("ip_send_skb(skb->sk->sk_nope)", 22, "no member 'sk_nope' in struct sock");
}

/* Masks: compared unsigned, in BPF, after the value is read and extended. */
static void test_pred_mask(void **state)
{
	struct resolved *r = resolve_ok("scalars(i & 0x40, s & 0x3 == 1)");
	const struct ksnoop_pred_plan *p = pred_of(r, KSNOOP_ENTRY, 0);
	const char *t;

	assert_int_equal(p->mask, 0x40);
	assert_int_equal(p->op, KSNOOP_OP_NE);
	assert_int_equal(p->imm, 0);
	assert_int_equal(p->is_signed, 0);
	p = pred_of(r, KSNOOP_ENTRY, 1);
	assert_int_equal(p->mask, 3);
	assert_int_equal(p->op, KSNOOP_OP_EQ);
	assert_int_equal(p->imm, 1);
	/* i is a value once (the predicate names it). */
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 2);
	resolved_free(r);

	t = "scalars(s & 0x10000)";
	resolve_err(t, col(t, "0x1"), "mask 0x10000 does not fit 's' (16 bits)");
	t = "scalars(i & 0x2 == 1)";
	resolve_err(t, col(t, "1)"), "'i & 0x2' can never equal 0x1: bits outside the mask");
	t = "strings(name & 1)";
	resolve_err(t, col(t, "1"), "'&' on 'name' (const char *): masks apply to integers and enums");
}

static void test_too_many_predicates(void **state)
{
	const char *t = "scalars(c == 1, c == 2, c == 3, c == 4, c == 5, c == 6, c == 7, c == 8, c == 9)";

	resolve_err(t, col(t, "== 9"), "more than 8 predicates");
}

static void test_eight_predicates(void **state)
{
	struct resolved *r = resolve_ok("scalars(c == 1, c == 2, c == 3, c == 4, c == 5, c == 6, c == 7, c == 8)");

	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, KSNOOP_MAX_PREDS);
	/* Eight predicates on one value: the value is shown once. */
	assert_int_equal(r->plan.nvalues[KSNOOP_ENTRY], 1);
	resolved_free(r);
}

/* A value that is a predicate and a value too appears once (one JSON key). */
static void test_value_named_twice_appears_once(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->len == 84, skb->len, skb->len, return < 0, return)");

	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, 1);
	assert_int_equal(r->plan.bpf.side[KSNOOP_RETURN].npreds, 1);
	/* Stashed: the entry value and the return value, each once. */
	assert_int_equal(r->plan.nvalues[KSNOOP_RETURN], 2);
	assert_string_equal(vd_of(r, KSNOOP_RETURN, 0)->text, "skb->len");
	assert_string_equal(vd_of(r, KSNOOP_RETURN, 1)->text, "return");
	resolved_free(r);
}

/* ---- errors, with their columns ---- */

static void test_err_unknown_argument(void **state)
{
	const char *t = "ip_send_skb(foo)";

	resolve_err(t, col(t, "foo"), "'foo' is not an argument of ip_send_skb (arguments: net, skb)");
	t = "void_fn(x)";
	resolve_err(t, col(t, "x"), "'x' is not an argument of void_fn (no arguments)");
	t = "tp:kfree_skb(sk)";
	resolve_err(t, col(t, "sk)"), "'sk' is not an argument of tp:kfree_skb (arguments: skb, location)");
}

static void test_err_unknown_member(void **state)
{
	const char *t = "ip_send_skb(skb->nope)";

	resolve_err(t, col(t, "nope"), "no member 'nope' in struct sk_buff");
	t = "ip_send_skb(skb->sk->__sk_common.skc_nope)";
	resolve_err(t, col(t, "skc_nope"), "no member 'skc_nope' in struct sock_common");
}

static void test_err_arrow_on_non_pointer(void **state)
{
	const char *t = "ip_send_skb(skb->len->x)";

	resolve_err(t, col(t, "->x"), "'->' on a value of type unsigned int, which is not a pointer to a struct or union");
	t = "strings(pp->x)";
	resolve_err(t, col(t, "->"), "'->' on a value of type int **, which is not a pointer to a struct or union");
}

static void test_err_arrow_on_struct(void **state)
{
	const char *t = "ip_send_skb(skb->sk->__sk_common->skc_family)";

	resolve_err(t, col(t, "->skc_family"), "'->' on a struct sock_common, which is not a pointer; use '.'");
}

/*
 * Regression (fixed): resolve.c step_member(): the column of '->' (and '.') is computed as
 * the member's column minus 2 (minus 1), which is wrong when spaces follow
 * the operator.
 */
static void test_err_arrow_column_with_spaces(void **state)
{
	const char *t = "ip_send_skb(skb->len->  x)";

	resolve_err(t, col(t, "->  x"), "'->' on a value of type unsigned int");
	t = "ip_send_skb(skb. len)";
	resolve_err(t, col(t, ". len"), "'.' on a pointer");
}

static void test_err_dot_on_pointer(void **state)
{
	const char *t = "ip_send_skb(skb.len)";

	resolve_err(t, col(t, ".len"), "'.' on a pointer (struct sk_buff *); use '->'");
}

static void test_err_dot_on_scalar(void **state)
{
	const char *t = "ip_send_skb(skb->len.x)";

	resolve_err(t, col(t, ".x"), "'.' on a value of type unsigned int, which is not a struct or union");
}

static void test_err_dot_on_struct_by_value(void **state)
{
	const char *t = "take_pair(p.a)";

	resolve_err(t, col(t, ".a"), "'.' on a struct passed by value is not supported");
}

static void test_err_struct_by_value_too_large_for_register(void **state)
{
	const char *t = "take_pair(p)";

	resolve_err(t, col(t, "p)"), "'p': a struct passed by value cannot be captured yet");
}

static void test_err_member_of_bitfield(void **state)
{
	const char *t = "ip_send_skb(skb->pkt_type.x)";

	resolve_err(t, col(t, "x)"), "'.x' applied to a bitfield");
	t = "ip_send_skb(skb->pkt_type[0])";
	resolve_err(t, col(t, "0]"), "index applied to a bitfield");
}

static void test_err_index_on_non_array(void **state)
{
	const char *t = "ip_send_skb(skb->len[0])";

	resolve_err(t, col(t, "0]"), "index on a value of type unsigned int, which is neither an array nor a pointer");
}

static void test_err_index_out_of_bounds(void **state)
{
	const char *t = "ip_send_skb(skb->arr[4])";

	resolve_err(t, col(t, "4]"), "index 4 is out of bounds for int[4]");
	t = "ip_send_skb(skb->cb[48])";
	resolve_err(t, col(t, "48]"), "index 48 is out of bounds for char[48]");
}

static void test_err_index_through_void_pointer(void **state)
{
	const char *t = "tp:kfree_skb(location[1])";

	resolve_err(t, col(t, "1]"), "index through void *: the pointed-to type has no size");
}

static void test_err_star_on_non_pointer(void **state)
{
	const char *t = "scalars(*i)";

	resolve_err(t, col(t, "*i)"), "'*' on a value of type int, which is not a pointer");
	t = "tp:kfree_skb(*location)";
	resolve_err(t, col(t, "*location"), "'*' through void *: the pointed-to type has no size");
}

static void test_err_value_without_size(void **state)
{
	const char *t = "ip_send_skb(skb->payload)";

	/* A flexible array member: only its elements have a size. */
	resolve_err(t, col(t, "skb->"), "'skb->payload' has type unsigned char[0], which has no size");
}

static void test_eight_dereferences(void **state)
{
	struct resolved *r = resolve_ok("strings(n->next->next->next->next->next->next->next->val)");
	const struct ksnoop_access *a = acc_of(r, KSNOOP_ENTRY, 0);

	assert_chain(a, KSNOOP_SRC_ARG, 3, KSNOOP_MAX_DEREFS, 0LL, 0LL, 0LL, 0LL, 0LL, 0LL, 0LL, 8LL);
	assert_int_equal(a->size, 4);
	resolved_free(r);
}

static void test_err_too_many_dereferences(void **state)
{
	const char *t = "strings(n->next->next->next->next->next->next->next->next->val)";

	resolve_err(t, col(t, "val"), "more than 8 pointer dereferences in one value");
	/* The ninth dereference is the automatic one of a struct pointer. */
	t = "strings(n->next->next->next->next->next->next->next->next)";
	resolve_err(t, col(t, "n->"), "more than 8 pointer dereferences in one value");
}

static void test_err_more_stars_than_pointers(void **state)
{
	const char *t = "strings(*********pp)";

	/* The '*' at fault: the third from pp (stars apply innermost first). */
	resolve_err(t, col(t, "***pp"), "'*' on a value of type int, which is not a pointer");
}

static void test_err_return_of_void_function(void **state)
{
	const char *t = "void_fn(return)";

	resolve_err(t, col(t, "return"), "'return': void_fn returns void");
}

static void test_err_return_of_tracepoint(void **state)
{
	const char *t = "tp:kfree_skb(return)";

	resolve_err(t, col(t, "return"), "'return': tp:kfree_skb has no return value");
}

static void test_err_argument_beyond_12_words(void **state)
{
	const char *t = "many_args(a0, a12)";

	resolve_err(t, col(t, "a12"), "argument 'a12' is beyond the 12 words that can be captured");
}

static void test_error_column_is_the_failing_item(void **state)
{
	const char *t = "ip_send_skb(skb->len, skb->sk, foo)";

	resolve_err(t, col(t, "foo"), "'foo' is not an argument");
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_sig_function),
		TEST(test_sig_void_function),
		TEST(test_sig_refuses_too_many_argument_words),
		TEST(test_sig_refuses_large_struct_by_value),
		TEST(test_sig_16_byte_struct_takes_two_slots),
		TEST(test_sig_refuses_variadic),
		TEST(test_sig_refuses_non_function),
		TEST(test_sig_refuses_function_without_prototype),
		TEST(test_sig_tracepoint_with_own_stub),
		TEST(test_sig_tracepoint_from_template),
		TEST(test_sig_tracepoint_stub_with_other_types_is_skipped),
		TEST(test_sig_tracepoint_without_stub),
		TEST(test_sig_tracepoint_unknown),
		TEST(test_scalar_argument_is_the_register),
		TEST(test_member_depth_1),
		TEST(test_typedef_is_kept_for_printing),
		TEST(test_member_depth_2),
		TEST(test_member_depth_3),
		TEST(test_dot_adds_offsets),
		TEST(test_array_index),
		TEST(test_whole_array),
		TEST(test_flexible_array_has_no_bound),
		TEST(test_anonymous_union_member),
		TEST(test_struct_in_anonymous_union),
		TEST(test_bitfields),
		TEST(test_pointer_index),
		TEST(test_one_star),
		TEST(test_two_stars),
		TEST(test_star_applies_after_members),
		TEST(test_struct_pointer_is_dereferenced),
		TEST(test_struct_pointer_member_is_dereferenced),
		TEST(test_pointer_to_incomplete_struct_is_an_address),
		TEST(test_struct_passed_in_one_register),
		TEST(test_char_pointer_argument_is_a_string),
		TEST(test_char_pointer_member_is_a_string),
		TEST(test_unsigned_char_pointer_is_not_a_string),
		TEST(test_str_bytes_option),
		TEST(test_max_bytes_truncates_structs),
		TEST(test_return_value),
		TEST(test_string_return_value),
		TEST(test_entry_and_return_values),
		TEST(test_default_spec_all_arguments_and_return),
		TEST(test_default_spec_void_function),
		TEST(test_default_spec_stops_at_12_words),
		TEST(test_default_spec_tracepoint),
		TEST(test_tracepoint_member),
		TEST(test_default_spec_with_struct_by_value),
		TEST(test_empty_value_list_traces_calls),
		TEST(test_record_layout),
		TEST(test_record_layout_rounds_to_8),
		TEST(test_record_too_large),
		TEST(test_pred_int_minus_one),
		TEST(test_pred_member_in_memory),
		TEST(test_pred_operators),
		TEST(test_pred_widths_and_signedness),
		TEST(test_pred_signed_limits),
		TEST(test_pred_unsigned_limits),
		TEST(test_pred_char_literal),
		TEST(test_pred_constant_out_of_range),
		TEST(test_pred_negative_on_unsigned),
		TEST(test_pred_own_enum),
		TEST(test_pred_signed_enum),
		TEST(test_pred_enumerator_of_anonymous_enum),
		TEST(test_pred_own_enum_wins_over_others),
		TEST(test_pred_enumerator_same_value_twice),
		TEST(test_pred_enumerator_errors),
		TEST(test_pred_enum64_enumerators),
		TEST(test_pred_null_pointer),
		TEST(test_pred_string_on_char_array),
		TEST(test_pred_string_on_char_pointer),
		TEST(test_pred_string_errors),
		TEST(test_pred_string_fills_char_array),
		TEST(test_pred_on_struct),
		TEST(test_pred_on_bitfield),
		TEST(test_pred_on_return),
		TEST(test_pred_on_return_stashes_entry_values),
		TEST(test_stash_record_is_capped),
		TEST(test_entry_memory_values_retry_at_return),
		TEST(test_printed_return_is_timed),
		TEST(test_min_duration_stashes_entry_values),
		TEST(test_min_duration_without_entry_values),
		TEST(test_min_duration_refused_without_return),
		TEST(test_string_constant_length),
		TEST(test_user_type_tags_mark_user_reads),
		TEST(test_too_many_predicates),
		TEST(test_eight_predicates),
		TEST(test_member_alias_sock_common),
		TEST(test_pred_mask),
		TEST(test_member_alias_ambiguous_and_missing),
		TEST(test_value_named_twice_appears_once),
		TEST(test_err_unknown_argument),
		TEST(test_err_unknown_member),
		TEST(test_err_arrow_on_non_pointer),
		TEST(test_err_arrow_on_struct),
		TEST(test_err_arrow_column_with_spaces),
		TEST(test_err_dot_on_pointer),
		TEST(test_err_dot_on_scalar),
		TEST(test_err_dot_on_struct_by_value),
		TEST(test_err_struct_by_value_too_large_for_register),
		TEST(test_err_member_of_bitfield),
		TEST(test_err_index_on_non_array),
		TEST(test_err_index_out_of_bounds),
		TEST(test_err_index_through_void_pointer),
		TEST(test_err_star_on_non_pointer),
		TEST(test_err_value_without_size),
		TEST(test_eight_dereferences),
		TEST(test_err_too_many_dereferences),
		TEST(test_err_more_stars_than_pointers),
		TEST(test_err_return_of_void_function),
		TEST(test_err_return_of_tracepoint),
		TEST(test_err_argument_beyond_12_words),
		TEST(test_error_column_is_the_failing_item),
	};

	return cmocka_run_group_tests_name("resolve", tests, build_btf, free_btf);
}
