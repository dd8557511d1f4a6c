// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for --track (ksnoop/agg/track.c): which specs may track and what
 * each refusal says, the free paths and clones known per type and the
 * specs they are traced with, and --group's events per object on
 * synthetic records (an address freed and reused starts a new group, so
 * does a new story at an address; at most --track-max groups open).
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
	bool napi_cache = false;

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
		/* 7.x's UDP receive frees here only (no tracepoint, no kfree_skbmem). */
		napi_cache |= !k->clone && !strcmp(k->func, "napi_skb_cache_put");
	}
	assert_true(napi_cache);
	assert_int_equal(frees, 5);
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

/* An event of ADDR's story STORY at T, tagged TAG: what add() returns. */
static int add_story(struct track_groups *g, __u64 addr, __u32 story, __u64 t, int tag)
{
	struct rec r = { addr, t, tag };

	return track_groups__add(g, addr, story, t, &r, sizeof(r));
}

static void add(struct track_groups *g, __u64 addr, __u64 t, int tag)
{
	assert_int_equal(add_story(g, addr, 1, t, tag), 0);
}

/* ADDR's open group (it must be open). */
static struct track_object *group(const struct track_groups *g, __u64 addr)
{
	struct track_object *o = track_groups__find(g, addr);

	assert_non_null(o);
	assert_int_equal(o->addr, addr);
	return o;
}

/* The tags of ADDR's events, in order, as decimal digits. */
static int tags(const struct track_groups *g, __u64 addr)
{
	const struct track_object *o = group(g, addr);
	int i, v = 0;

	for (i = 0; i < o->n; i++)
		v = v * 10 + ((const struct rec *)o->ev[i].rec)->tag;
	return v;
}

/*
 * Two objects interleaved: each keeps its own events in order and its
 * first time; one freed (removed) and its address reused: a new group.
 */
static void test_groups(void **state)
{
	struct track_groups g;

	track_groups__init(&g, 0);
	add(&g, 0xa000, 10, 1);
	add(&g, 0xb000, 20, 2);
	add(&g, 0xa000, 30, 3);
	add(&g, 0xb000, 40, 4);
	add(&g, 0xa000, 50, 5);
	assert_int_equal(g.n, 2);
	assert_null(track_groups__find(&g, 0xc000));
	assert_int_equal(tags(&g, 0xa000), 135);
	assert_int_equal(group(&g, 0xa000)->first_ns, 10);
	assert_int_equal(group(&g, 0xa000)->last_ns, 50);
	assert_int_equal(tags(&g, 0xb000), 24);
	assert_int_equal(group(&g, 0xb000)->first_ns, 20);
	assert_ptr_equal(track_groups__oldest(&g), group(&g, 0xa000));

	/* 0xa000 freed and printed; then a new object at its address. */
	track_groups__remove(&g, group(&g, 0xa000));
	assert_int_equal(g.n, 1);
	assert_ptr_equal(track_groups__oldest(&g), group(&g, 0xb000));
	assert_int_equal(add_story(&g, 0xa000, 2, 60, 6), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(tags(&g, 0xa000), 6);
	assert_int_equal(group(&g, 0xa000)->first_ns, 60);
	assert_int_equal(group(&g, 0xa000)->story, 2);
	track_groups__remove(&g, NULL);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.dropped, 0);
	track_groups__free(&g);
	assert_int_equal(g.n, 0);
	assert_null(track_groups__oldest(&g));
}

/*
 * The reviewer's case: an object pushed out of BPF's set never reports
 * its free; the next object at its address comes with another story and
 * ends the old group (evicted) instead of joining it.  A late event of
 * the old story (a CPU that read it before the push) joins nothing.
 */
static void test_groups_new_story(void **state)
{
	struct track_groups g;
	struct track_object *old;

	track_groups__init(&g, 0);
	assert_int_equal(add_story(&g, 0xa000, 7, 10, 1), 0);
	assert_int_equal(add_story(&g, 0xa000, 7, 20, 2), 0);
	assert_null(track_groups__ended_by(&g, 0xa000, 7));
	old = track_groups__ended_by(&g, 0xa000, 9);
	assert_ptr_equal(old, group(&g, 0xa000));
	assert_int_equal(add_story(&g, 0xa000, 9, 30, 3), -ESTALE);
	track_groups__remove(&g, old);
	assert_null(track_groups__ended_by(&g, 0xa000, 9));
	assert_int_equal(add_story(&g, 0xa000, 9, 30, 3), 0);
	assert_int_equal(tags(&g, 0xa000), 3);
	assert_int_equal(group(&g, 0xa000)->first_ns, 30);
	/* Story 7's late event: it ends nothing and joins nothing. */
	assert_null(track_groups__ended_by(&g, 0xa000, 7));
	assert_int_equal(add_story(&g, 0xa000, 7, 25, 4), -ESTALE);
	assert_int_equal(tags(&g, 0xa000), 3);
	/* Numbers wrap: 1 comes after 0xffffffff. */
	track_groups__remove(&g, group(&g, 0xa000));
	assert_int_equal(add_story(&g, 0xa000, 0xffffffff, 40, 5), 0);
	assert_non_null(track_groups__ended_by(&g, 0xa000, 1));
	assert_null(track_groups__ended_by(&g, 0xa000, 0xfffffff0));
	assert_int_equal(g.dropped, 0);
	track_groups__free(&g);
}

/*
 * At most max groups open: an event that would open one more ends the
 * least recently active (BPF's LRU pushed one of them out); events of
 * open groups end nothing.
 */
static void test_groups_bound(void **state)
{
	struct track_groups g;

	track_groups__init(&g, 3);
	add(&g, 0xa000, 10, 1);
	add(&g, 0xb000, 20, 2);
	assert_null(track_groups__ended_by(&g, 0xc000, 1));
	add(&g, 0xc000, 30, 3);
	add(&g, 0xa000, 40, 4);
	assert_null(track_groups__ended_by(&g, 0xa000, 1));
	assert_null(track_groups__ended_by(&g, 0xc000, 1));
	assert_ptr_equal(track_groups__ended_by(&g, 0xd000, 1), group(&g, 0xb000));
	track_groups__remove(&g, group(&g, 0xb000));
	assert_null(track_groups__ended_by(&g, 0xd000, 1));
	add(&g, 0xd000, 50, 5);
	assert_ptr_equal(track_groups__ended_by(&g, 0xe000, 1), group(&g, 0xc000));
	/* The first event's order is kept apart: 0xa000 came first. */
	assert_ptr_equal(track_groups__oldest(&g), group(&g, 0xa000));
	assert_int_equal(g.n, 3);
	track_groups__free(&g);
}

/* A group that continues: its events go, its first time and story stay. */
static void test_groups_clear(void **state)
{
	struct track_groups g;
	struct track_object *o;

	track_groups__init(&g, 0);
	add(&g, 0xa000, 10, 1);
	add(&g, 0xa000, 20, 2);
	o = group(&g, 0xa000);
	track_groups__clear(&g, o);
	assert_int_equal(o->n, 0);
	assert_int_equal(g.held_bytes, 0);
	assert_int_equal(o->printed, 2);
	add(&g, 0xa000, 30, 3);
	assert_ptr_equal(group(&g, 0xa000), o);
	assert_int_equal(tags(&g, 0xa000), 3);
	assert_int_equal(o->first_ns, 10);
	track_groups__free(&g);
}

/*
 * Memory: a group prints (continues) at TRACK_GROUP_MAX_EVENTS events,
 * and any group that gets an event once the records held pass
 * TRACK_GROUPS_MAX_BYTES; printing gives their bytes back.
 */
static void test_groups_bounded(void **state)
{
	const size_t big = TRACK_GROUPS_MAX_BYTES / 8;
	struct track_groups g;
	struct track_object *a, *b;
	char *rec = calloc(1, big);
	int i;

	assert_non_null(rec);
	track_groups__init(&g, 0);
	for (i = 0; i < TRACK_GROUP_MAX_EVENTS - 1; i++)
		add(&g, 0xa000, i, 1);
	a = group(&g, 0xa000);
	assert_false(track_groups__print_now(&g, a));
	add(&g, 0xa000, i, 1);
	assert_true(track_groups__print_now(&g, a));
	track_groups__clear(&g, a);
	assert_false(track_groups__print_now(&g, a));
	assert_int_equal(g.held_bytes, 0);

	for (i = 0; i < 8; i++)
		assert_int_equal(track_groups__add(&g, 0xb000, 1, i, rec, big), 0);
	b = group(&g, 0xb000);
	assert_int_equal(g.held_bytes, TRACK_GROUPS_MAX_BYTES);
	assert_false(track_groups__print_now(&g, b));
	add(&g, 0xa000, 100, 2);
	assert_true(track_groups__print_now(&g, a));
	track_groups__clear(&g, b);
	assert_false(track_groups__print_now(&g, a));
	assert_int_equal(g.held_bytes, sizeof(struct rec));
	free(rec);
	track_groups__free(&g);
	assert_int_equal(g.held_bytes, 0);
}

/*
 * Many objects and events: the index grows and finds every one, nothing
 * is lost; removing every other one leaves the rest found.
 */
static void test_groups_grow(void **state)
{
	struct track_groups g;
	int i, total = 0;

	track_groups__init(&g, 0);
	for (i = 0; i < 1000; i++)
		add(&g, 0x1000 + (i % 37) * 0x100, i, i % 10);
	assert_int_equal(g.n, 37);
	for (i = 0; i < 37; i++) {
		const struct track_object *o = group(&g, 0x1000 + i * 0x100);

		total += o->n;
		assert_int_equal(o->first_ns, i);
	}
	assert_int_equal(total, 1000);
	for (i = 0; i < 5000; i++)
		add(&g, 0xffff888000000000ULL + i * 0xe8ULL, 2000 + i, 1);
	assert_int_equal(g.n, 5037);
	for (i = 0; i < 5000; i += 2)
		track_groups__remove(&g, group(&g, 0xffff888000000000ULL + i * 0xe8ULL));
	for (i = 0; i < 5000; i++) {
		__u64 addr = 0xffff888000000000ULL + i * 0xe8ULL;

		if (i % 2)
			assert_int_equal(group(&g, addr)->first_ns, 2000 + i);
		else
			assert_null(track_groups__find(&g, addr));
	}
	assert_int_equal(g.n, 2537);
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
		cmocka_unit_test(test_groups_new_story),
		cmocka_unit_test(test_groups_bound),
		cmocka_unit_test(test_groups_clear),
		cmocka_unit_test(test_groups_bounded),
		cmocka_unit_test(test_groups_grow),
	};

	return cmocka_run_group_tests_name("track", tests, NULL, NULL);
}
