// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for return values and the stash (ksnoop/resolve/resolve.c): values at
 * return, entry values stashed at entry and printed with the return, the
 * stash's cap, memory re-read at return, --min-duration.
 * The test BTF and the helpers are in tests/include/resolve_fixture.h.
 */
#include "../include/resolve_fixture.h"

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

/*
 * Return codes: a function's int, long or pointer return names its errno
 * (the printer's value_desc.errno_names); arguments, formatted values and
 * values reached through the return do not.
 */
static void test_return_codes_name_errnos(void **state)
{
	static const struct { const char *spec; int kind; bool named; } cases[] = {
		{ "ip_send_skb(return)", KSNOOP_RETURN, true },		/* int */
		{ "scalars8(return)", KSNOOP_RETURN, true },		/* long */
		{ "strings(return)", KSNOOP_RETURN, true },		/* const char *: ERR_PTR */
		{ "strings(return:hex)", KSNOOP_RETURN, false },	/* asked for hex */
		{ "scalars8(l)", KSNOOP_ENTRY, false },			/* an argument */
		{ "scalars8(ip)", KSNOOP_ENTRY, false },
		{ "tp:kfree_skb(location)", KSNOOP_ENTRY, false },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct resolved *r = resolve_ok(cases[i].spec);

		if (vd_of(r, cases[i].kind, 0)->errno_names != cases[i].named)
			print_message("%s: errno_names %d\n", cases[i].spec, !cases[i].named);
		assert_int_equal(vd_of(r, cases[i].kind, 0)->errno_names, cases[i].named);
		resolved_free(r);
	}
}

/*
 * 'return < 0' on a returned pointer is IS_ERR(): at least -4095 as an
 * unsigned word (a pointer never held '< 0' before); '>= 0' is not an
 * error pointer, NULL included; '== NULL' and '== 0' stay NULL.
 */
static void test_return_pointer_error_predicates(void **state)
{
	static const struct { const char *spec; int op; __u64 imm; } cases[] = {
		{ "strings(return < 0)", KSNOOP_OP_GE, (__u64)-4095 },
		{ "strings(return >= 0)", KSNOOP_OP_LT, (__u64)-4095 },
		{ "strings(return == NULL)", KSNOOP_OP_EQ, 0 },
		{ "strings(return == 0)", KSNOOP_OP_EQ, 0 },
		{ "strings(return != NULL)", KSNOOP_OP_NE, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct resolved *r = resolve_ok(cases[i].spec);
		const struct ksnoop_pred_plan *pp = pred_of(r, KSNOOP_RETURN, 0);

		assert_int_equal(pp->op, cases[i].op);
		assert_true(pp->imm == cases[i].imm);
		assert_false(pp->is_signed);
		assert_int_equal(pp->width, 8);
		assert_int_equal(pp->acc.flags, KSNOOP_VAL_REG);
		resolved_free(r);
	}
	/* An int return keeps its signed comparison. */
	{
		struct resolved *r = resolve_ok("ip_send_skb(return < 0)");

		assert_int_equal(pred_of(r, KSNOOP_RETURN, 0)->op, KSNOOP_OP_LT);
		assert_true(pred_of(r, KSNOOP_RETURN, 0)->imm == 0);
		assert_true(pred_of(r, KSNOOP_RETURN, 0)->is_signed);
		resolved_free(r);
	}
	/* An argument pointer is not a return code: unsigned, as before. */
	{
		struct resolved *r = resolve_ok("scalars8(ip < 0)");

		assert_int_equal(pred_of(r, KSNOOP_ENTRY, 0)->op, KSNOOP_OP_LT);
		resolved_free(r);
	}
	resolve_err("strings(return <= 0)", 16,
		    "'return' is a pointer: '< 0' is an error pointer (ERR_PTR), '>= 0' is not one, '== NULL' is NULL; '<= 0' mixes them");
	resolve_err("strings(return > 0)", 16, "'> 0' mixes them");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_return_value),
		TEST(test_string_return_value),
		TEST(test_entry_and_return_values),
		TEST(test_pred_on_return_stashes_entry_values),
		TEST(test_stash_record_is_capped),
		TEST(test_entry_memory_values_retry_at_return),
		TEST(test_printed_return_is_timed),
		TEST(test_min_duration_stashes_entry_values),
		TEST(test_min_duration_without_entry_values),
		TEST(test_min_duration_refused_without_return),
		TEST(test_value_named_twice_appears_once),
		TEST(test_return_codes_name_errnos),
		TEST(test_return_pointer_error_predicates),
	};

	return cmocka_run_group_tests_name("resolve_return", tests, build_btf, free_btf);
}
