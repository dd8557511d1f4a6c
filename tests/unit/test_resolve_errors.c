// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the resolver's errors (ksnoop/resolve/resolve.c): the message and
 * the column of the item that failed.
 * The test BTF and the helpers are in tests/include/resolve_fixture.h.
 *
 * Tests marked "Regression (fixed)" guard bugs these tests found.
 */
#include "../include/resolve_fixture.h"

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

	return cmocka_run_group_tests_name("resolve_errors", tests, build_btf, free_btf);
}
