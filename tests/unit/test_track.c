// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for --track (ksnoop/track.c): which specs may track and what
 * each refusal says, the free paths and clones known per type and the
 * specs they are traced with, and --group's events per object on
 * synthetic records (an address freed and reused starts a new group).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "track.h"

#define N(a)	((int)(sizeof(a) / sizeof((a)[0])))

/* Parse TEXTS[0..N) into SPECS, then check them for --track NAME: its result, E and TYPE. */
static int check(const char *name, const char *const *texts, int n, char *type,
		 struct ks_error *e)
{
	struct spec specs[4];
	int i, ret;

	assert_true(n <= N(specs));
	for (i = 0; i < n; i++)
		assert_int_equal(spec__parse(texts[i], SPEC_KFUNC, &specs[i], e), 0);
	ret = track__check_specs(name, specs, n, type, SPEC_MAX_TYPE, e);
	for (i = 0; i < n; i++)
		spec__free(&specs[i]);
	return ret;
}

static void test_bound_everywhere(void **state)
{
	const char *texts[] = {
		"*(struct sk_buff *s, s->len == 84, s->len)",
		"tp:net_dev_queue(struct sk_buff *s)",
		"ip_rcv(struct sk_buff *s, struct net_device *d, d->name)",
	};
	char type[SPEC_MAX_TYPE] = "";
	struct ks_error e = {};

	assert_int_equal(check("s", texts, N(texts), type, &e), 0);
	assert_string_equal(type, "struct sk_buff *");
}

static void expect_refused(const char *name, const char *const *texts, int n, const char *msg)
{
	char type[SPEC_MAX_TYPE] = "";
	struct ks_error e = {};

	assert_int_equal(check(name, texts, n, type, &e), -EINVAL);
	assert_string_equal(e.msg, msg);
	assert_string_equal(type, "");
}

static void test_refusals(void **state)
{
	const char *unbound[] = { "tp:net_dev_queue(struct sk_buff *s)", "ip_rcv(skb->len)" };
	const char *not_ptr[] = { "tp:net_dev_queue(unsigned int n)" };
	const char *two[] = { "tp:net_dev_queue(struct sk_buff *s)", "tcp_close(struct sock *s)" };
	const char *sys[] = { "sys:openat(struct file *s)" };
	const char *other[] = { "ip_rcv(struct sk_buff *skb)" };

	expect_refused("s", unbound, N(unbound),
		       "--track s: 'ip_rcv(skb->len)' does not bind s by type; write it as \"ip_rcv(TYPE s, ...)\", e.g. \"*(struct sk_buff *s, ...)\"");
	expect_refused("n", not_ptr, N(not_ptr),
		       "--track n: 'tp:net_dev_queue(unsigned int n)' binds n as 'unsigned int', not a pointer; an object is followed by its address");
	expect_refused("s", two, N(two),
		       "--track s: 'tcp_close(struct sock *s)' binds s as 'struct sock *', another spec as 'struct sk_buff *'; one object has one type");
	expect_refused("s", sys, N(sys),
		       "--track s: 'sys:openat(struct file *s)' is a system call (its arguments are user memory); objects are followed through kernel functions and tracepoints");
	/* Another name than the one the spec binds. */
	expect_refused("s", other, N(other),
		       "--track s: 'ip_rcv(struct sk_buff *skb)' does not bind s by type; write it as \"ip_rcv(TYPE s, ...)\", e.g. \"*(struct sk_buff *s, ...)\"");
}

static void test_usdt_refused(void **state)
{
	struct spec spec;
	struct ks_error e = {};
	char type[SPEC_MAX_TYPE] = "";

	assert_int_equal(spec__parse("./app:p:n(arg0)", SPEC_USDT, &spec, &e), 0);
	assert_int_equal(track__check_specs("s", &spec, 1, type, sizeof(type), &e), -EINVAL);
	assert_string_equal(e.msg, "--track s: './app:p:n(arg0)' is a USDT probe; objects are followed through kernel functions and tracepoints");
	spec__free(&spec);
}

/* The skb's free paths and clones, each made a spec that parses and binds the name. */
static void test_known_skb(void **state)
{
	const struct track_known *k = track__known("struct sk_buff *");
	char text[256];
	int frees = 0, clones = 0;

	assert_non_null(k);
	for (; k->func; k++) {
		struct spec spec;
		struct ks_error e = {};

		assert_int_equal(track__extra_spec(k->func, "struct sk_buff *", "s", k->clone,
						   text, sizeof(text)), 0);
		assert_int_equal(spec__parse(text, SPEC_KFUNC, &spec, &e), 0);
		assert_int_equal(spec.ndecls, 1);
		assert_string_equal(spec.decls[0].name, "s");
		assert_int_equal(spec.nitems, k->clone ? 1 : 0);
		spec__free(&spec);
		k->clone ? clones++ : frees++;
	}
	assert_int_equal(frees, 4);
	assert_int_equal(clones, 4);
	assert_int_equal(track__extra_spec("__kfree_skb", "struct sk_buff *", "s", false, text,
					   sizeof(text)), 0);
	assert_string_equal(text, "__kfree_skb(struct sk_buff *s)");
	assert_int_equal(track__extra_spec("skb_clone", "struct sk_buff *", "s", true, text,
					   sizeof(text)), 0);
	assert_string_equal(text, "skb_clone(struct sk_buff *s, return:hex)");
	/* --untrack's: another type, no known paths. */
	assert_null(track__known("struct file *"));
	assert_int_equal(track__extra_spec("__fput", "struct file *", "f", false, text, sizeof(text)), 0);
	assert_string_equal(text, "__fput(struct file *f)");
	assert_int_equal(track__extra_spec("__fput", "struct file *", "f", false, text, 10),
			 -ENAMETOOLONG);
}

struct rec {
	__u64 object;
	__u64 time_ns;
	int tag;
};

static void add(struct track_groups *g, __u64 obj, __u64 t, int tag)
{
	struct rec r = { obj, t, tag };

	assert_int_equal(track_groups__add(g, obj, t, &r, sizeof(r)), 0);
}

static int tag_of(const struct track_groups *g, int i, int j)
{
	return ((const struct rec *)g->v[i].ev[j].rec)->tag;
}

/*
 * Two objects interleaved: each keeps its own events in order and its
 * first time; one freed (removed) and its address reused: a new group.
 */
static void test_groups(void **state)
{
	struct track_groups g = {};

	add(&g, 0xa000, 10, 1);
	add(&g, 0xb000, 20, 2);
	add(&g, 0xa000, 30, 3);
	add(&g, 0xb000, 40, 4);
	add(&g, 0xa000, 50, 5);
	assert_int_equal(g.n, 2);
	assert_int_equal(track_groups__find(&g, 0xa000), 0);
	assert_int_equal(track_groups__find(&g, 0xb000), 1);
	assert_int_equal(track_groups__find(&g, 0xc000), -1);
	assert_int_equal(g.v[0].n, 3);
	assert_int_equal(g.v[0].first_ns, 10);
	assert_int_equal(tag_of(&g, 0, 0) * 100 + tag_of(&g, 0, 1) * 10 + tag_of(&g, 0, 2), 135);
	assert_int_equal(g.v[1].n, 2);
	assert_int_equal(g.v[1].first_ns, 20);
	assert_int_equal(tag_of(&g, 1, 0) * 10 + tag_of(&g, 1, 1), 24);

	/* 0xa000 freed and printed; then a new object at its address. */
	track_groups__remove(&g, track_groups__find(&g, 0xa000));
	assert_int_equal(g.n, 1);
	assert_int_equal(g.v[0].addr, 0xb000);
	add(&g, 0xa000, 60, 6);
	assert_int_equal(g.n, 2);
	assert_int_equal(track_groups__find(&g, 0xa000), 1);
	assert_int_equal(g.v[1].n, 1);
	assert_int_equal(g.v[1].first_ns, 60);
	assert_int_equal(tag_of(&g, 1, 0), 6);
	/* Out of range: nothing happens. */
	track_groups__remove(&g, 5);
	track_groups__remove(&g, -1);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.dropped, 0);
	track_groups__free(&g);
	assert_int_equal(g.n, 0);
	assert_null(g.v);
}

/* Many objects and events: the arrays grow, nothing is lost. */
static void test_groups_grow(void **state)
{
	struct track_groups g = {};
	int i, total = 0;

	for (i = 0; i < 1000; i++)
		add(&g, 0x1000 + (i % 37) * 0x100, i, i);
	assert_int_equal(g.n, 37);
	for (i = 0; i < g.n; i++) {
		total += g.v[i].n;
		assert_int_equal(g.v[i].first_ns, i);
		assert_int_equal(tag_of(&g, i, g.v[i].n - 1) % 37, i);
	}
	assert_int_equal(total, 1000);
	track_groups__free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bound_everywhere),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_usdt_refused),
		cmocka_unit_test(test_known_skb),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_groups_grow),
	};

	return cmocka_run_group_tests_name("track", tests, NULL, NULL);
}
