// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the resolver's values (ksnoop/resolve/resolve.c): where a value
 * is (registers, member chains, arrays, bitfields, dereferences), how it
 * prints (structs, strings, sizes), the default spec, the record layout,
 * __user tags and member aliases.
 * The test BTF and the helpers are in tests/include/resolve_fixture.h.
 *
 * Tests marked "Regression (fixed)" guard bugs these tests found.
 */
#include "../include/resolve_fixture.h"
#include "btf_util.h"

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

/*
 * An unsigned char * is not a string (no NUL need end it): its first
 * --str-bytes bytes, read whole, printed beside its address.  ":str"
 * still reads it as a string, ":hex" shows the pointer.
 */
static void test_unsigned_char_pointer_is_its_bytes(void **state)
{
	struct resolved *r = resolve_ok("strings(data, data:str, data:hex)");
	const struct ksnoop_access *a = acc_of(r, KSNOOP_ENTRY, 0);

	assert_int_equal(a->flags, 0);
	assert_int_equal(a->nsteps, 1);
	assert_int_equal(a->size, KSNOOP_DEFAULT_STR_SIZE);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->how, PRINT_BYTES);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->size, KSNOOP_DEFAULT_STR_SIZE);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 1)->flags, KSNOOP_VAL_STR);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 1)->how, PRINT_STRING);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 2)->flags, KSNOOP_VAL_REG);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 2)->how, PRINT_VALUE);
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

	/* Header (64), then per value a 16-byte header and the data, 8-aligned. */
	assert_int_equal(HDR, 64);
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

/*
 * An alias reached through embedded structs not at offset 0 adds every
 * offset on the way: sk_buff's common (at SKB_COMMON), sock_common's
 * anonymous union (at SKC_HASH), and a sock embedded at 8 in a struct
 * like inet_sock, then its anonymous union at 16 and the struct in it.
 */
static void test_member_alias_adds_embedded_offsets(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb->sk_bound_dev_if, skb->sk->sk_hash)");
	const long long sk = offsetof(struct alias_inet, sk);

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 1,
		     (long long)(SKB_COMMON + SKC_BOUND_DEV_IF));
	assert_chain(acc_of(r, KSNOOP_ENTRY, 1), KSNOOP_SRC_ARG, 1, 2, (long long)SKB_SK,
		     (long long)(SK_COMMON + SKC_HASH));
	assert_string_equal(r->plan.aliases[0],
			    "'sk_bound_dev_if' is common.skc_bound_dev_if in struct sk_buff");
	assert_string_equal(r->plan.aliases[1], "'sk_hash' is __sk_common.skc_hash in struct sock");
	resolved_free(r);

	/* struct alias_inet { long pad; struct sock sk; } (tests/fixture/kernel.h) */
	func("alias_inet_fn", proto(0, "i", fx_member_type(btf, "kernel_types", "alias_inet"), NULL));
	r = resolve_ok("alias_inet_fn(i->sk_rx_dst_cookie, i->sk_state)");
	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 0, 1, sk + SK_RX_DST_COOKIE);
	assert_chain(acc_of(r, KSNOOP_ENTRY, 1), KSNOOP_SRC_ARG, 0, 1, sk + SK_COMMON + SKC_STATE);
	assert_string_equal(r->plan.aliases[0],
			    "'sk_rx_dst_cookie' is sk.sk_rx_dst_cookie in struct alias_inet");
	assert_string_equal(r->plan.aliases[1],
			    "'sk_state' is sk.__sk_common.skc_state in struct alias_inet");
	resolved_free(r);
}

static void test_member_alias_ambiguous_and_missing(void **state)
{
	struct resolved *r = calloc(1, sizeof(*r));
	int proto_id, fid;
	struct ks_error why;

	assert_non_null(r);
	/* struct alias_two { struct alias_a { int x; } a; struct alias_b { int x; } b; } */
	proto_id = proto(0, "t", fx_member_type(btf, "kernel_types", "alias_two"), NULL);
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

/* ---- ":str(LEN)": a string bounded by another argument ---- */

static void test_str_len(void **state)
{
	struct resolved *r = resolve_ok("str_len_fn(buf:str(len), buf:str(ulen), buf:str(llen))");
	const struct ksnoop_access *a;

	a = acc_of(r, KSNOOP_ENTRY, 0);
	assert_chain(a, KSNOOP_SRC_ARG, 0, 1, 0LL);
	assert_int_equal(a->flags & (KSNOOP_VAL_STR | KSNOOP_VAL_STR_LEN),
			 KSNOOP_VAL_STR | KSNOOP_VAL_STR_LEN);
	assert_int_equal(a->size, KSNOOP_DEFAULT_STR_SIZE);
	/* The length's own width and sign: BPF extends the word from them. */
	assert_int_equal(a->len_slot, 1);
	assert_int_equal(a->len_width, 4 | KSNOOP_LEN_SIGNED);
	a = acc_of(r, KSNOOP_ENTRY, 1);
	assert_int_equal(a->len_slot, 2);
	assert_int_equal(a->len_width, 2);
	a = acc_of(r, KSNOOP_ENTRY, 2);
	assert_int_equal(a->len_slot, 3);
	assert_int_equal(a->len_width, 8 | KSNOOP_LEN_SIGNED);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->how, PRINT_STRING);
	assert_string_equal(vd_of(r, KSNOOP_ENTRY, 0)->text, "buf:str(len)");
	/* The length's word is read although no value shows it. */
	assert_int_equal(r->plan.bpf.slot_mask, 0xf);
	resolved_free(r);

	r = resolve_ok("str_len_fn(buf:str(llen))");
	assert_int_equal(r->plan.bpf.slot_mask, (1u << 0) | (1u << 3));
	resolved_free(r);
	/* Plain ":str" has none. */
	r = resolve_ok("str_len_fn(buf:str)");
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->flags & KSNOOP_VAL_STR_LEN, 0);
	resolved_free(r);
}

static void test_str_len_predicate(void **state)
{
	struct resolved *r = resolve_ok("str_len_fn(buf:str(ulen) == \"java/lang/Object\")");
	const struct ksnoop_pred_plan *p = pred_of(r, KSNOOP_ENTRY, 0);

	assert_true(p->is_str);
	assert_int_equal(p->acc.flags & (KSNOOP_VAL_STR | KSNOOP_VAL_STR_LEN),
			 KSNOOP_VAL_STR | KSNOOP_VAL_STR_LEN);
	assert_int_equal(p->acc.len_slot, 2);
	assert_int_equal(r->plan.bpf.slot_mask, (1u << 0) | (1u << 2));
	resolved_free(r);
}

static void test_str_len_errors(void **state)
{
	const char *t;

	t = "str_len_fn(buf:str(nope))";
	resolve_err(t, col(t, "(nope)") + 1, "':str(nope)': 'nope' is not an argument of str_len_fn (arguments: buf, len, ulen, llen, ptr, arr)");
	t = "str_len_fn(buf:str(ptr))";
	resolve_err(t, col(t, "(ptr)") + 1, "':str(ptr)': the length must be an integer argument; 'ptr' is int *");
	t = "str_len_fn(arr:str(len))";
	resolve_err(t, col(t, "(len)") + 1, "':str(len)' on 'arr:str(len)', an array: its size bounds it already");
	t = "str_len_fn(arr:str(len) == \"x\")";
	resolve_err(t, col(t, "(len)") + 1, "an array: its size bounds it already");
}

/* ---- casts to C base types in a BTF that has none (a USDT program without .BTF) ---- */

static const char *type_name_of(const struct capture_plan *plan, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(plan->sig.btf, id);

	return t ? btf__name_by_offset(plan->sig.btf, t->name_off) : "?";
}

static void test_base_type_casts_without_btf(void **state)
{
	const struct resolve_opts opts = {
		.max_bytes = KSNOOP_DEFAULT_VALUE_SIZE, .str_bytes = KSNOOP_DEFAULT_STR_SIZE,
		.user_space = true,
	};
	struct btf *b = btf__new_empty();
	struct signature sig = { .btf = b, .name = "p:n", .nparams = 1, .nslots = 1 };
	struct capture_plan *plan = calloc(1, sizeof(*plan));
	const struct btf_type *t;
	struct ks_error err;
	struct spec spec;

	assert_non_null(b);
	assert_non_null(plan);
	sig.params[0] = (struct sig_param){ "arg0", btf__add_int(b, "__u64", 8, 0), 0 };
	assert_int_equal(spec__parse("./a:p:n(*(char **)arg0, ((int *)arg0)[1], (unsigned long long)arg0, "
				     "(u16)arg0, (_Bool)arg0, *(unsigned char **)arg0, (const short)arg0, "
				     "(void *)arg0)", SPEC_USDT, &spec, &err), 0);
	if (resolver__resolve(&spec, &sig, &opts, plan, &err))
		print_message("column %d: %s\n", err.pos, err.msg);
	assert_int_equal(err.err, 0);
	/* char * is a string, two loads from arg0; int * indexed, one. */
	assert_int_equal(plan->values[0][0].how, PRINT_STRING);
	assert_int_equal(plan->bpf.side[0].values[0].acc.nsteps, 2);
	assert_string_equal(type_name_of(plan, plan->values[0][1].type_id), "int");
	assert_int_equal(plan->bpf.side[0].values[1].acc.steps[0], 4);
	assert_int_equal(plan->values[0][1].size, 4);
	assert_string_equal(type_name_of(plan, plan->values[0][2].type_id), "long unsigned int");
	assert_string_equal(type_name_of(plan, plan->values[0][3].type_id), "u16");
	t = btf__type_by_id(plan->sig.btf, plan->values[0][4].type_id);
	assert_true(btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_BOOL));
	/* unsigned char * is bytes, as in kernel BTF; short is signed. */
	assert_int_equal(plan->values[0][5].how, PRINT_BYTES);
	t = btf__type_by_id(plan->sig.btf, btfu_strip(plan->sig.btf, plan->values[0][6].type_id));
	assert_true(btf_is_int(t) && t->size == 2 && (btf_int_encoding(t) & BTF_INT_SIGNED));
	assert_int_equal(plan->nvalues[0], 8);
	resolver__release(plan);
	spec__free(&spec);

	/* Not a base type: still unknown without BTF. */
	assert_int_equal(spec__parse("./a:p:n((size_t)arg0)", SPEC_USDT, &spec, &err), 0);
	assert_int_equal(resolver__resolve(&spec, &sig, &opts, plan, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no type 'size_t'"));
	resolver__release(plan);
	spec__free(&spec);
	free(plan);
	btf__free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_scalar_argument_is_the_register),
		TEST(test_str_len),
		TEST(test_str_len_predicate),
		TEST(test_str_len_errors),
		TEST(test_base_type_casts_without_btf),
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
		TEST(test_unsigned_char_pointer_is_its_bytes),
		TEST(test_str_bytes_option),
		TEST(test_max_bytes_truncates_structs),
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
		TEST(test_user_type_tags_mark_user_reads),
		TEST(test_member_alias_sock_common),
		TEST(test_member_alias_adds_embedded_offsets),
		TEST(test_member_alias_ambiguous_and_missing),
	};

	return cmocka_run_group_tests_name("resolve_values", tests, build_btf, free_btf);
}
