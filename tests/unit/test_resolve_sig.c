// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for signatures (ksnoop/kernel/signature.c): a kernel function's
 * parameters and return, the argument words they take, and a tracepoint's
 * from its btf_trace_* typedef and __bpf_trace_* stub.
 * The test BTF and the helpers are in tests/include/resolve_fixture.h.
 */
#include "../include/resolve_fixture.h"

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

/*
 * A glob's signatures (the typedef's id known, the stubs indexed once) are
 * the ones a lookup by name gives, ties between templates included: an
 * event whose name shares no prefix with either template of its types
 * takes the first in BTF (sched_template), not the first by name.
 */
static void test_sig_tracepoint_stubs_indexed(void **state)
{
	static const char *const names[] = {
		"kfree_skb", "net_dev_queue", "sched_skb_event", "net_dev_start_xmit", "nostub",
		"xyz_skb",
	};
	struct signature a, b;
	struct tp_stubs *stubs;
	char tname[64];
	int q, id;

	q = btf__find_by_name_kind(btf, "btf_trace_net_dev_queue", BTF_KIND_TYPEDEF);
	assert_true(q > 0);
	if (btf__find_by_name_kind(btf, "btf_trace_xyz_skb", BTF_KIND_TYPEDEF) < 0)
		assert_true(btf__add_typedef(btf, "btf_trace_xyz_skb", btf__type_by_id(btf, q)->type) > 0);
	stubs = tp_stubs__new(btf);
	assert_non_null(stubs);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(tname, sizeof(tname), "btf_trace_%s", names[i]);
		id = btf__find_by_name_kind(btf, tname, BTF_KIND_TYPEDEF);
		assert_true(id > 0);
		assert_int_equal(signature__from_tp(btf, names[i], &a), 0);
		assert_int_equal(signature__from_tp_typedef(stubs, names[i], id, &b), 0);
		if (memcmp(&a, &b, sizeof(a)))
			print_message("%s: func %u against %u\n", names[i], a.func_id, b.func_id);
		assert_memory_equal(&a, &b, sizeof(a));
	}
	assert_int_equal(b.func_id, T.sched_template_stub);
	tp_stubs__free(stubs);
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
		TEST(test_sig_tracepoint_stubs_indexed),
	};

	return cmocka_run_group_tests_name("resolve_sig", tests, build_btf, free_btf);
}
