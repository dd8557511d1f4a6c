// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the resolver's predicates (ksnoop/resolve/resolve.c): operators,
 * widths and signedness, constants that do not fit, enumerators, strings,
 * NULL, masks, bitfields and the limit of eight.
 * The test BTF and the helpers are in tests/include/resolve_fixture.h.
 */
#include "../include/resolve_fixture.h"

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
	/* A bitfield: its width, not its type's, says what fits. */
	t = "ip_send_skb(skb->pkt_type == 8)";
	resolve_err(t, col(t, "8"), "constant 8 does not fit 'skb->pkt_type' (u8, a 3-bit field)");
	resolved_free(resolve_ok("ip_send_skb(skb->pkt_type == 7)"));
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
	/* A char array compared with a number: pointed to the string form. */
	t = "ip_send_skb(skb->sk->sk_prot_name == 5)";
	resolve_err(t, col(t, "=="), "'skb->sk->sk_prot_name' is a char array (char[16]): it compares with a string, as in skb->sk->sk_prot_name == \"...\"");
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

	resolve_err(t, col(t, "=="), "'skb->sk->__sk_common' has type struct sock_common; predicates compare numbers (integers, enums, chars, bools, pointers) and strings (char arrays, char pointers)");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
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
		TEST(test_string_constant_length),
		TEST(test_too_many_predicates),
		TEST(test_eight_predicates),
		TEST(test_pred_mask),
	};

	return cmocka_run_group_tests_name("resolve_pred", tests, build_btf, free_btf);
}
