// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The printer's shorter forms (ksnoop/output/print.c): --oneline (an event a
 * line, a struct's first PRINT_ONELINE_MEMBERS members, nested ones left
 * out, the stack folded) and --depth N (nested values deeper than N as
 * {...}), on the fixture BTF compiled from tests/fixture/types.h.  The
 * text that comes out is compared whole; JSON must not change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "../include/btf_fixture.h"
#include "../fixture/types.h"
#include "print.h"
#include "report_perfetto.h"
#include "tree_print.h"

#define HDR ((__u32)sizeof(struct ksnoop_event))
#define BIG_N FX_BIG_N

static struct btf *btf;
static struct {
	int u32_t, char_arr16, pair, pair_ptr, outer, flags, with_pairs, int_arr_big;
} T;

enum {
	OUTER_A = offsetof(struct outer, a), OUTER_INNER = offsetof(struct outer, inner),
	OUTER_ARR = offsetof(struct outer, arr), OUTER_SIZE = sizeof(struct outer),
};

static int build_btf(void **state)
{
	setenv("TZ", "UTC", 1);
	tzset();
	btf = fx_fixture("types");
	if (!btf)
		return -1;
	T.u32_t = fx_named(btf, "u32", BTF_KIND_TYPEDEF);
	T.char_arr16 = fx_member_type(btf, "inner", "name");
	T.pair = fx_named(btf, "pair", BTF_KIND_STRUCT);
	T.pair_ptr = fx_member_type(btf, "outer", "next");
	T.outer = fx_named(btf, "outer", BTF_KIND_STRUCT);
	T.flags = fx_named(btf, "flags", BTF_KIND_STRUCT);
	T.with_pairs = fx_named(btf, "with_pairs", BTF_KIND_STRUCT);
	T.int_arr_big = fx_member_type(btf, "print_types", "int_arr_big");
	for (const int *id = &T.u32_t; id <= &T.int_arr_big; id++)
		if (*id <= 0)
			return -1;
	return 0;
}

static int free_btf(void **state)
{
	btf__free(btf);
	return 0;
}

static char out[8192];

/* What PRINT does with a printer of OPTS, as a string. */
#define RENDER(opts, print)						\
	({								\
		struct printer p_;					\
		char *buf_ = NULL;					\
		size_t sz_ = 0;						\
		FILE *f_ = open_memstream(&buf_, &sz_);			\
									\
		assert_non_null(f_);					\
		printer__init(&p_, f_, (opts));				\
		print;							\
		printer__fini(&p_);					\
		fclose(f_);						\
		snprintf(out, sizeof(out), "%s", buf_);			\
		free(buf_);						\
		out;							\
	})

/* TYPE's SIZE bytes at DATA as one value, by a printer of OPTS. */
static const char *render(const struct print_opts *opts, int type, const void *data, __u32 size)
{
	struct value_desc vd = { .text = "v", .type_id = type, .obj_id = type, .how = PRINT_VALUE,
				 .size = size, .obj_size = size };
	struct ksnoop_value vh = { .status = KSNOOP_OK, .len = size };

	return RENDER(opts, printer__value(&p_, btf, &vd, &vh, data, 0));
}

static void fill_outer(unsigned char *d)
{
	int32_t a = 1, x = 2, arr[2] = { 3, 0 };

	memset(d, 0, OUTER_SIZE);
	memcpy(d + OUTER_A, &a, 4);
	memcpy(d + OUTER_INNER, &x, 4);
	memcpy(d + OUTER_INNER + 4, "l\no", 4);
	memcpy(d + OUTER_ARR, arr, 8);
}

/* ---- --depth ---- */

static void test_depth_cuts_nested_values(void **state)
{
	struct print_opts o = { .format = REPORT_TEXT, .limit_depth = true, .max_depth = 1 };
	unsigned char d[OUTER_SIZE];

	fill_outer(d);
	/* Depth 1: the struct's own members; the struct and the array in it cut. */
	assert_string_equal(render(&o, T.outer, d, OUTER_SIZE),
			    "{\n"
			    "    .a = 1,\n"
			    "    .inner = {...},\n"
			    "    .arr = {...},\n"
			    "}");
	/* Depth 2: those too; a string is a value, not a level. */
	o.max_depth = 2;
	assert_string_equal(render(&o, T.outer, d, OUTER_SIZE),
			    "{\n"
			    "    .a = 1,\n"
			    "    .inner = {\n"
			    "        .x = 2,\n"
			    "        .name = \"l\\no\",\n"
			    "    },\n"
			    "    .arr = [3, 0],\n"
			    "}");
	/* Depth 0: the value itself. */
	o.max_depth = 0;
	assert_string_equal(render(&o, T.outer, d, OUTER_SIZE), "{...}");
	/* Not a nesting: a scalar at depth 0 prints. */
	assert_string_equal(render(&o, T.u32_t, d, 4), "1");
}

/* An array of structs: the array is a level, its structs the next. */
static void test_depth_counts_arrays(void **state)
{
	struct print_opts o = { .format = REPORT_TEXT, .limit_depth = true, .max_depth = 2 };
	int64_t d[4] = { 1, 2, 3, 4 };

	assert_string_equal(render(&o, T.with_pairs, d, 32),
			    "{\n"
			    "    .pairs = [\n"
			    "        {...},\n"
			    "        {...}\n"
			    "    ],\n"
			    "}");
}

/* JSON keeps every member whatever the depth (main.c refuses -j --depth). */
static void test_depth_leaves_json_whole(void **state)
{
	struct print_opts o = { .format = REPORT_JSON, .limit_depth = true, .max_depth = 0,
				.oneline = true };
	unsigned char d[OUTER_SIZE];

	fill_outer(d);
	assert_string_equal(render(&o, T.outer, d, OUTER_SIZE),
			    "{\"a\":1,\"inner\":{\"x\":2,\"name\":\"l\\no\"},\"arr\":[3,0],"
			    "\"next\":null,\"u\":0,\"h\":[0,0]}");
}

/* ---- --oneline ---- */

static void test_oneline_struct(void **state)
{
	struct print_opts o = { .format = REPORT_TEXT, .oneline = true };
	unsigned char d[OUTER_SIZE];

	fill_outer(d);
	/* Depth 1: nested values left out, and said by "...". */
	assert_string_equal(render(&o, T.outer, d, OUTER_SIZE), "{.a=1 ...}");
	/* With --depth 2 they are shown, on the same line, escaped. */
	o.limit_depth = true;
	o.max_depth = 2;
	assert_string_equal(render(&o, T.outer, d, OUTER_SIZE),
			    "{.a=1, .inner={.x=2, .name=\"l\\no\"}, .arr=[3, 0]}");
	/* Depth 0: the struct itself is cut. */
	o.max_depth = 0;
	assert_string_equal(render(&o, T.outer, d, OUTER_SIZE), "{...}");
}

/* At most PRINT_ONELINE_MEMBERS members; zeros left out as in text. */
static void test_oneline_first_members(void **state)
{
	struct print_opts o = { .format = REPORT_TEXT, .oneline = true };
	struct flags f = { .a = 5, .c = BLUE, .s = -3, .b = 1, .wide = 1000 };

	assert_int_equal(PRINT_ONELINE_MEMBERS, 4);
	assert_string_equal(render(&o, T.flags, &f, sizeof(f)),
			    "{.a=5, .c=BLUE, .s=-3, .b=true ...}");
	f.a = 0;
	assert_string_equal(render(&o, T.flags, &f, sizeof(f)),
			    "{.c=BLUE, .s=-3, .b=true, .wide=1000}");
	memset(&f, 0, sizeof(f));
	assert_string_equal(render(&o, T.flags, &f, sizeof(f)), "{}");
}

/* An array: its first elements, then "...". */
static void test_oneline_array(void **state)
{
	struct print_opts o = { .format = REPORT_TEXT, .oneline = true, .limit_depth = true,
				.max_depth = 3 };
	int64_t d[4] = { 1, 2, 3, 4 };

	assert_string_equal(render(&o, T.with_pairs, d, 32),
			    "{.pairs=[{.a=1, .b=2}, {.a=3, .b=4}]}");
	o.max_depth = 2;
	assert_string_equal(render(&o, T.with_pairs, d, 32), "{.pairs=[{...}, {...}]}");
}

static void test_oneline_long_array(void **state)
{
	struct print_opts o = { .format = REPORT_TEXT, .oneline = true };
	static int32_t big[BIG_N];

	for (int i = 0; i < BIG_N; i++)
		big[i] = i;
	assert_string_equal(render(&o, T.int_arr_big, big, sizeof(big)), "[0, 1, 2, 3 ...]");
}

/* ---- whole events on one line ---- */

#define ENTRY_REC	(HDR + 88)
#define EVENT_TIME_NS	5123456789ULL
#define CLOCK_OFFSET_NS	(3718LL * 1000000000LL)

static void put_value(unsigned char *rec, __u32 off, __u32 status, __u32 len, __u64 addr,
		      const void *data, size_t n)
{
	struct ksnoop_value vh = { .status = status, .len = len, .addr = addr };

	memcpy(rec + off, &vh, sizeof(vh));
	memcpy(rec + off + sizeof(vh), data, n);
}

/* ip_send_skb(len, dev->name, skb) at entry, int return; as test_print.c's. */
static void make_plan(struct capture_plan *plan)
{
	struct ksnoop_side_plan *e = &plan->bpf.side[KSNOOP_ENTRY];

	memset(plan, 0, sizeof(*plan));
	snprintf(plan->sig.name, sizeof(plan->sig.name), "ip_send_skb");
	plan->sig.btf = btf;
	plan->nvalues[KSNOOP_ENTRY] = 3;
	plan->values[KSNOOP_ENTRY][0] = (struct value_desc){
		.text = "len", .type_id = T.u32_t, .obj_id = T.u32_t, .how = PRINT_VALUE,
		.size = 4, .obj_size = 4 };
	plan->values[KSNOOP_ENTRY][1] = (struct value_desc){
		.text = "dev->name", .type_id = T.char_arr16, .obj_id = T.char_arr16,
		.how = PRINT_VALUE, .size = 16, .obj_size = 16 };
	plan->values[KSNOOP_ENTRY][2] = (struct value_desc){
		.text = "skb", .type_id = T.pair_ptr, .obj_id = T.pair, .how = PRINT_DEREF,
		.size = 16, .obj_size = 16 };
	e->enabled = 1;
	e->nvalues = 3;
	e->values[0].rec_off = HDR;
	e->values[1].rec_off = HDR + 16 + 8;
	e->values[2].rec_off = HDR + 24 + 16 + 16;
	e->rec_size = ENTRY_REC;
}

static void test_oneline_event(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[ENTRY_REC] = {};
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .cpu = 3, .tgid = 100, .tid = 101,
		.kind = KSNOOP_ENTRY, .comm = "cu\x1b[1mrl",
	};
	struct print_opts o = { .format = REPORT_TEXT, .oneline = true,
				.clock_offset_ns = CLOCK_OFFSET_NS };
	uint64_t len = 84;
	char name[16] = "l\"o\n";
	int64_t pair[2] = { 1, 2 };

	make_plan(&plan);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, HDR, KSNOOP_OK, 8, 0, &len, 8);
	put_value(rec, HDR + 24, KSNOOP_OK, 16, 0xffff888000004000ULL, name, 16);
	put_value(rec, HDR + 56, KSNOOP_OK, 16, 0xffff888000001000ULL, pair, 16);
	/* No cpu; what the traced program chose (comm, the name) escaped. */
	assert_string_equal(RENDER(&o, printer__event(&p_, &plan, rec, sizeof(rec))),
			    "01:02:03.123456 cu\\x1b[1mrl 100/101 -> ip_send_skb len=84 "
			    "dev->name=\"l\\\"o\\n\" skb=0xffff888000001000->{.a=1, .b=2}\n");
	/* A value that could not be read says so, on the line. */
	put_value(rec, HDR + 56, KSNOOP_FAULT, 0, 0xffff888000001000ULL, pair, 0);
	assert_string_equal(RENDER(&o, printer__event(&p_, &plan, rec, sizeof(rec))),
			    "01:02:03.123456 cu\\x1b[1mrl 100/101 -> ip_send_skb len=84 "
			    "dev->name=\"l\\\"o\\n\" skb=0xffff888000001000 /* could not read memory */\n");
}

/* A return with its duration: "<- FUNC (DURATION) return=VALUE". */
static void test_oneline_return_with_duration(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[HDR + 24] = {};
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .tgid = 7, .tid = 8, .kind = KSNOOP_RETURN,
		.comm = "curl", .flags = KSNOOP_EV_DURATION, .duration_ns = 1500,
	};
	struct ksnoop_side_plan *x = &plan.bpf.side[KSNOOP_RETURN];
	struct print_opts o = { .format = REPORT_TEXT, .oneline = true,
				.clock_offset_ns = CLOCK_OFFSET_NS };
	int32_t ret = -22;

	make_plan(&plan);
	plan.nvalues[KSNOOP_RETURN] = 1;
	plan.values[KSNOOP_RETURN][0] = (struct value_desc){
		.text = "return", .type_id = T.u32_t, .obj_id = T.u32_t, .how = PRINT_VALUE,
		.size = 4, .obj_size = 4 };
	x->enabled = 1;
	x->nvalues = 1;
	x->values[0].rec_off = HDR;
	x->rec_size = sizeof(rec);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, HDR, KSNOOP_OK, 4, 0, &ret, 4);
	assert_string_equal(RENDER(&o, printer__event(&p_, &plan, rec, sizeof(rec))),
			    "01:02:03.123456 curl 7/8 <- ip_send_skb (1.500 us) return=4294967274\n");
}

/* -s: the stack ends the line, folded outermost first, tracer frames left off. */
static int stack_symbolize(void *ctx, __u64 addr, char *buf, size_t sz)
{
	switch (addr) {
	case 0x1000: snprintf(buf, sz, "bpf_prog_0123_ksnoop_tp+0x37e [bpf]"); return 0;
	case 0x3000: snprintf(buf, sz, "__schedule+0x628"); return 0;
	case 0x4000: snprintf(buf, sz, "dummy_xmit+0x10 [dummy]"); return 0;
	case 0x5000: snprintf(buf, sz, "odd;name\n"); return 0;
	}
	return -1;
}

static void test_oneline_stack_folded(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[48 + 16 + 8 + 16 + 8 * KSNOOP_STACK_DEPTH] = {};
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .cpu = 1, .tgid = 5, .tid = 6,
		.kind = KSNOOP_ENTRY, .comm = "ping",
	};
	__u64 ips[5] = { 0x1000, 0x3000, 0x4000, 0x5000, 0xffffffff81000000ULL };
	struct print_opts o = { .format = REPORT_TEXT, .oneline = true,
				.clock_offset_ns = CLOCK_OFFSET_NS, .symbolize = stack_symbolize };
	struct ksnoop_side_plan *e = &plan.bpf.side[KSNOOP_ENTRY];
	uint32_t len = 84;

	memset(&plan, 0, sizeof(plan));
	snprintf(plan.sig.name, sizeof(plan.sig.name), "ip_output");
	plan.sig.btf = btf;
	plan.nvalues[KSNOOP_ENTRY] = 2;
	plan.values[KSNOOP_ENTRY][0] = (struct value_desc){
		.text = "len", .type_id = T.u32_t, .obj_id = T.u32_t, .how = PRINT_VALUE,
		.size = 4, .obj_size = 4 };
	plan.values[KSNOOP_ENTRY][1] = (struct value_desc){
		.text = "stack", .how = PRINT_STACK, .size = 8 * KSNOOP_STACK_DEPTH };
	e->enabled = 1;
	e->nvalues = 2;
	e->values[0].rec_off = 48;
	e->values[1].rec_off = 48 + 16 + 8;
	e->rec_size = sizeof(rec);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, 48, KSNOOP_OK, 4, 0, &len, 4);
	put_value(rec, 72, KSNOOP_OK, sizeof(ips), 0, ips, sizeof(ips));
	/* A frame's own ';' becomes ',' (';' separates frames), and it is escaped. */
	assert_string_equal(RENDER(&o, printer__event(&p_, &plan, rec, sizeof(rec))),
			    "01:02:03.123456 ping 5/6 -> ip_output len=84 "
			    "stack=0xffffffff81000000;odd,name\\n;dummy_xmit+0x10 [dummy];__schedule+0x628\n");
	/* A stack the kernel could not take says so, on the line. */
	put_value(rec, 72, KSNOOP_FAULT, 0, 0, ips, 0);
	assert_string_equal(RENDER(&o, printer__event(&p_, &plan, rec, sizeof(rec))),
			    "01:02:03.123456 ping 5/6 -> ip_output len=84 stack=/* could not be taken */\n");
}

/* A USDT probe's user stack: named in the event's process, nothing after a 0. */
static int user_symbolize(void *ctx, __u32 pid, __u64 addr, char *buf, size_t sz)
{
	if (pid != 5)
		return -1;
	switch (addr) {
	case 0x1000: snprintf(buf, sz, "fire+0x8d (/srv/a;b)"); return 0;
	case 0x2000: snprintf(buf, sz, "main+0x10 (/srv/a;b)"); return 0;
	}
	return -1;
}

static void test_oneline_user_stack_folded(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[48 + 16 + 8 * KSNOOP_STACK_DEPTH] = {};
	struct ksnoop_event ev = {
		.time_ns = EVENT_TIME_NS, .cpu = 1, .tgid = 5, .tid = 6,
		.kind = KSNOOP_ENTRY, .comm = "app",
	};
	__u64 ips[5] = { 0x1000, 0x2000, 0x3000, 0, 0x2000 };
	struct print_opts o = { .format = REPORT_TEXT, .oneline = true,
				.clock_offset_ns = CLOCK_OFFSET_NS, .usymbolize = user_symbolize };
	struct ksnoop_side_plan *e = &plan.bpf.side[KSNOOP_ENTRY];

	memset(&plan, 0, sizeof(plan));
	snprintf(plan.sig.name, sizeof(plan.sig.name), "app:req");
	plan.sig.btf = btf;
	plan.bpf.flags = KSNOOP_PLAN_USER_MEM;
	plan.nvalues[KSNOOP_ENTRY] = 1;
	plan.values[KSNOOP_ENTRY][0] = (struct value_desc){
		.text = "stack", .how = PRINT_STACK, .size = 8 * KSNOOP_STACK_DEPTH };
	e->enabled = 1;
	e->nvalues = 1;
	e->values[0].rec_off = 48;
	e->rec_size = sizeof(rec);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, 48, KSNOOP_OK, sizeof(ips), 0, ips, sizeof(ips));
	/* Outermost first, from before the 0; the probe's own frame last. */
	assert_string_equal(RENDER(&o, printer__event(&p_, &plan, rec, sizeof(rec))),
			    "01:02:03.123456 app 5/6 -> app:req "
			    "stack=0x3000;main+0x10 (/srv/a,b);fire+0x8d (/srv/a,b)\n");
	/* No frame at all: "-". */
	ips[0] = 0;
	put_value(rec, 48, KSNOOP_OK, sizeof(ips), 0, ips, sizeof(ips));
	assert_string_equal(RENDER(&o, printer__event(&p_, &plan, rec, sizeof(rec))),
			    "01:02:03.123456 app 5/6 -> app:req stack=-\n");
}

/* ---- report --format=perfetto (report_perfetto.c) ---- */

struct pf_rec {
	const struct capture_plan *plan;
	const void *rec;
	size_t size;
};

/* The document of records R[0..N), whole (free() it); its stats into *ST. */
static char *render_perfetto(const struct pf_rec *r, int n, struct perfetto_stats *st)
{
	struct print_opts o = { .format = REPORT_PERFETTO };
	struct report_summary s = {};
	struct perfetto *pf;
	struct printer p;
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);
	int i;

	assert_non_null(f);
	printer__init(&p, f, &o);
	pf = perfetto__new(&p);
	assert_non_null(pf);
	perfetto__begin(pf);
	for (i = 0; i < n; i++)
		perfetto__event(pf, r[i].plan, r[i].rec, r[i].size);
	perfetto__end(pf, &s, false);
	*st = *perfetto__stats(pf);
	perfetto__free(pf);
	printer__fini(&p);
	fclose(f);
	return buf;
}

/* Each "call" trace event's phase, in order ('u': an unfinished E), space-separated. */
static const char *call_phases(const char *doc)
{
	static char ph[512];
	const char *line = doc;
	size_t n = 0;

	while (line && *line && n + 3 < sizeof(ph)) {
		const char *end = strchr(line, '\n'), *c = strstr(line, "\"cat\":\"call\",\"ph\":\"");

		if (c && (!end || c < end)) {
			const char *u = strstr(line, "unfinished");

			ph[n++] = u && (!end || u < end) ? 'u' : c[strlen("\"cat\":\"call\",\"ph\":\"")];
			ph[n++] = ' ';
		}
		line = end ? end + 1 : NULL;
	}
	ph[n ? n - 1 : 0] = 0;
	return ph;
}

/* A function with an entry and a return, no values: records are headers. */
static void make_call_plan(struct capture_plan *plan, const char *name)
{
	memset(plan, 0, sizeof(*plan));
	snprintf(plan->sig.name, sizeof(plan->sig.name), "%s", name);
	plan->sig.btf = btf;
	plan->bpf.side[KSNOOP_ENTRY].enabled = 1;
	plan->bpf.side[KSNOOP_ENTRY].rec_size = HDR;
	plan->bpf.side[KSNOOP_RETURN].enabled = 1;
	plan->bpf.side[KSNOOP_RETURN].rec_size = HDR;
}

/*
 * What a traced program chose (its comm, a string it passed) is escaped
 * by the JSON writer in every place it lands: the thread's and process's
 * names, the CPU track's args, the values.  The whole document.
 */
static void test_perfetto_hostile_bytes(void **state)
{
	static struct capture_plan plan;
	_Alignas(8) unsigned char rec[ENTRY_REC] = {};
	struct ksnoop_event ev = {
		.time_ns = 1234567, .cpu = 2, .tgid = 100, .tid = 100,
		.kind = KSNOOP_ENTRY, .comm = "c\"u\\\x01\x1b[1m\xff",
	};
	struct pf_rec r = { &plan, rec, sizeof(rec) };
	struct perfetto_stats st;
	uint64_t len = 84;
	char name[16] = "l\"o\n\x7f";
	int64_t pair[2] = { 1, 2 };
	char *doc;

	make_plan(&plan);
	memcpy(rec, &ev, sizeof(ev));
	put_value(rec, HDR, KSNOOP_OK, 8, 0, &len, 8);
	put_value(rec, HDR + 24, KSNOOP_OK, 16, 0xffff888000004000ULL, name, 16);
	put_value(rec, HDR + 56, KSNOOP_OK, 16, 0xffff888000001000ULL, pair, 16);
	doc = render_perfetto(&r, 1, &st);
	assert_string_equal(doc,
		"{\"traceEvents\":[\n"
		"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":100,\"tid\":100,\"args\":{\"name\":\"c\\\"u\\\\\\u0001\\u001b[1m\\\\xff\"}},\n"
		"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":100,\"tid\":100,\"args\":{\"name\":\"c\\\"u\\\\\\u0001\\u001b[1m\\\\xff\"}},\n"
		"{\"name\":\"ip_send_skb\",\"cat\":\"event\",\"ph\":\"i\",\"ts\":1234.567,\"s\":\"t\",\"pid\":100,\"tid\":100,"
		"\"args\":{\"len\":84,\"dev->name\":\"l\\\"o\\n\\u007f\",\"skb\":{\"a\":1,\"b\":2},\"ksnoop\":{\"kind\":\"entry\"}}},\n"
		"{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":4194304,\"tid\":4194307,\"args\":{\"name\":\"CPUs\"}},\n"
		"{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":4194304,\"tid\":4194307,\"args\":{\"name\":\"CPU 2\"}},\n"
		"{\"name\":\"ip_send_skb\",\"cat\":\"cpu\",\"ph\":\"i\",\"s\":\"t\",\"ts\":1234.567,\"pid\":4194304,\"tid\":4194307,"
		"\"args\":{\"comm\":\"c\\\"u\\\\\\u0001\\u001b[1m\\\\xff\",\"pid\":100,\"tid\":100,\"kind\":\"entry\"}}\n"
		"],\n\"displayTimeUnit\":\"ns\",\n"
		"\"otherData\":{\"source\":\"ksnoop report --format=perfetto\",\"events\":1,\"lost\":0,"
		"\"not_written\":0,\"missed\":0,\"cut\":false,\"unfinished\":0,\"not_nested\":0,"
		"\"threads_not_named\":0,\"objects_not_linked\":0,\"cpus_left_out\":0}}\n");
	free(doc);
}

/*
 * Calls nest by time, B and E in LIFO order on their thread: recursion;
 * a return that closes a call opened inside it without its return (u);
 * a return alone, an X back from its duration; a call open at the end,
 * closed at the last time (u).  Another thread's calls are its own.
 */
static void test_perfetto_nesting(void **state)
{
	static struct capture_plan f, g;
	struct ksnoop_event ev[10];
	struct pf_rec r[10];
	static const struct { int plan, kind; __u64 t; __u32 tid; } seq[10] = {
		{ 0, KSNOOP_ENTRY, 1000, 8 }, { 0, KSNOOP_ENTRY, 2000, 8 },
		{ 0, KSNOOP_ENTRY, 2500, 9 },	/* another thread */
		{ 0, KSNOOP_RETURN, 3000, 8 }, { 0, KSNOOP_RETURN, 4000, 8 },
		{ 1, KSNOOP_ENTRY, 5000, 8 }, { 0, KSNOOP_ENTRY, 6000, 8 },
		{ 1, KSNOOP_RETURN, 7000, 8 },	/* closes f's, unfinished, then its own */
		{ 0, KSNOOP_RETURN, 9000, 8 },	/* no open call: X */
		{ 0, KSNOOP_ENTRY, 10000, 8 },	/* open at the end */
	};
	struct perfetto_stats st;
	char *doc;
	int i;

	make_call_plan(&f, "f");
	make_call_plan(&g, "g");
	for (i = 0; i < 10; i++) {
		ev[i] = (struct ksnoop_event){ .time_ns = seq[i].t, .tgid = 8, .tid = seq[i].tid,
					       .func_id = seq[i].plan, .kind = seq[i].kind,
					       .comm = "t" };
		if (i == 8) {
			ev[i].flags = KSNOOP_EV_DURATION;
			ev[i].duration_ns = 500;
		}
		r[i] = (struct pf_rec){ seq[i].plan ? &g : &f, &ev[i], sizeof(ev[i]) };
	}
	doc = render_perfetto(r, 10, &st);
	/* Thread 9's B comes third, closed at the end (u) after thread 8's. */
	assert_string_equal(call_phases(doc), "B B B E E B B u E X B u u");
	assert_non_null(strstr(doc, "{\"name\":\"f\",\"cat\":\"call\",\"ph\":\"X\",\"ts\":8.500,\"dur\":0.500,"
				    "\"pid\":8,\"tid\":8,"));
	/* f opened at 6.000 inside g, closed with g's return at 7.000. */
	assert_non_null(strstr(doc, "{\"name\":\"f\",\"cat\":\"call\",\"ph\":\"E\",\"ts\":7.000,\"pid\":8,\"tid\":8,"
				    "\"args\":{\"ksnoop\":{\"unfinished\":"));
	assert_non_null(strstr(doc, "{\"name\":\"g\",\"cat\":\"call\",\"ph\":\"E\",\"ts\":7.000,"));
	/* Both threads' open calls close at the last recorded time. */
	assert_non_null(strstr(doc, "{\"name\":\"f\",\"cat\":\"call\",\"ph\":\"E\",\"ts\":10.000,\"pid\":8,\"tid\":9,"));
	assert_non_null(strstr(doc, "{\"name\":\"f\",\"cat\":\"call\",\"ph\":\"E\",\"ts\":10.000,\"pid\":8,\"tid\":8,"));
	assert_int_equal(st.events, 10);
	assert_int_equal(st.unfinished, 3);
	assert_int_equal(st.not_nested, 0);
	free(doc);
}

/*
 * An X (a return alone, back from its duration) that began before a call
 * still open on its thread: that call began and so ended inside it, its
 * return not recorded: closed (u) before the X is written, at its end.
 */
static void test_perfetto_x_closes_inner(void **state)
{
	static struct capture_plan f, g;
	struct ksnoop_event ev[2] = {
		{ .time_ns = 2000, .tgid = 5, .tid = 5, .func_id = 0, .kind = KSNOOP_ENTRY,
		  .comm = "x" },
		{ .time_ns = 3000, .tgid = 5, .tid = 5, .func_id = 1, .kind = KSNOOP_RETURN,
		  .comm = "x", .flags = KSNOOP_EV_DURATION, .duration_ns = 1500 },
	};
	struct pf_rec r[2] = { { &f, &ev[0], sizeof(ev[0]) }, { &g, &ev[1], sizeof(ev[1]) } };
	struct perfetto_stats st;
	char *doc;

	make_call_plan(&f, "f");
	make_call_plan(&g, "g");
	doc = render_perfetto(r, 2, &st);
	assert_string_equal(call_phases(doc), "B u X");
	assert_non_null(strstr(doc, "{\"name\":\"f\",\"cat\":\"call\",\"ph\":\"E\",\"ts\":3.000,"));
	assert_non_null(strstr(doc, "{\"name\":\"g\",\"cat\":\"call\",\"ph\":\"X\",\"ts\":1.500,\"dur\":1.500,"));
	assert_int_equal(st.unfinished, 1);
	free(doc);
}

/* Past PERFETTO_MAX_OPEN open calls on a thread, an entry is an instant; counted. */
static void test_perfetto_open_bound(void **state)
{
	static struct capture_plan f;
	enum { N = PERFETTO_MAX_OPEN + 1 };
	static struct ksnoop_event ev[N];
	static struct pf_rec r[N];
	struct perfetto_stats st;
	const char *p;
	char *doc;
	int i, b = 0;

	make_call_plan(&f, "deep");
	for (i = 0; i < N; i++) {
		ev[i] = (struct ksnoop_event){ .time_ns = 1000 + i, .tgid = 3, .tid = 3,
					       .kind = KSNOOP_ENTRY, .comm = "d" };
		r[i] = (struct pf_rec){ &f, &ev[i], sizeof(ev[i]) };
	}
	doc = render_perfetto(r, N, &st);
	for (p = doc; (p = strstr(p, "\"cat\":\"call\",\"ph\":\"B\"")); p++)
		b++;
	assert_int_equal(b, PERFETTO_MAX_OPEN);
	assert_non_null(strstr(doc, "{\"name\":\"deep\",\"cat\":\"call\",\"ph\":\"i\",\"ts\":1.064,"));
	assert_int_equal(st.not_nested, 1);
	assert_int_equal(st.unfinished, PERFETTO_MAX_OPEN);
	free(doc);
}

/*
 * Two recordings merged: host b's clock offset 500 ns above a's, so b's
 * times are shifted 500 ns onto the document's clock (a's monotonic);
 * the same pid 8 on both is two processes (b's plus PERFETTO_HOST_PIDS),
 * named with its host, and so are the CPUs; b's call nests on its own
 * track, not inside a's.
 */
static void test_perfetto_hosts(void **state)
{
	static const char *const names[] = { "a", "b" };
	static const __s64 offsets[] = { 1000000, 1000500 };
	static const struct { int host, kind; __u64 t; } seq[4] = {
		{ 0, KSNOOP_ENTRY, 1000 }, { 1, KSNOOP_ENTRY, 600 },
		{ 0, KSNOOP_RETURN, 2000 }, { 1, KSNOOP_RETURN, 1800 },
	};
	struct print_opts o = { .format = REPORT_PERFETTO };
	struct report_summary s = {};
	static struct capture_plan f;
	struct ksnoop_event ev[4];
	struct perfetto *pf;
	struct printer p;
	char *doc = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&doc, &sz);
	int i;

	assert_non_null(out);
	make_call_plan(&f, "f");
	printer__init(&p, out, &o);
	pf = perfetto__new(&p);
	assert_non_null(pf);
	assert_int_equal(perfetto__hosts(pf, 2, names, offsets), 0);
	perfetto__begin(pf);
	for (i = 0; i < 4; i++) {
		ev[i] = (struct ksnoop_event){ .time_ns = seq[i].t, .tgid = 8, .tid = 8,
					       .kind = seq[i].kind, .cpu = 1, .comm = "t" };
		perfetto__host(pf, seq[i].host);
		perfetto__event(pf, &f, &ev[i], sizeof(ev[i]));
	}
	perfetto__end(pf, &s, false);
	assert_int_equal(perfetto__stats(pf)->unfinished, 0);
	perfetto__free(pf);
	printer__fini(&p);
	fclose(out);
	assert_string_equal(call_phases(doc), "B B E E");
	assert_non_null(strstr(doc, "\"args\":{\"name\":\"a: t (8)\"}"));
	assert_non_null(strstr(doc, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":8388616,"
				    "\"tid\":8388616,\"args\":{\"name\":\"b: t (8)\"}}"));
	assert_non_null(strstr(doc, "\"pid\":4194304,\"tid\":4194306,\"args\":{\"name\":\"a: CPUs\"}"));
	assert_non_null(strstr(doc, "\"pid\":12582912,\"tid\":12582914,\"args\":{\"name\":\"b: CPUs\"}"));
	assert_non_null(strstr(doc, "{\"name\":\"f\",\"cat\":\"call\",\"ph\":\"B\",\"ts\":1.100,"
				    "\"pid\":8388616,\"tid\":8388616,"));
	assert_non_null(strstr(doc, "{\"name\":\"f\",\"cat\":\"call\",\"ph\":\"E\",\"ts\":2.000,"
				    "\"pid\":8,\"tid\":8,"));
	assert_non_null(strstr(doc, "{\"name\":\"f\",\"cat\":\"call\",\"ph\":\"E\",\"ts\":2.300,"
				    "\"pid\":8388616,\"tid\":8388616,"));
	assert_non_null(strstr(doc, "\"ksnoop\":{\"kind\":\"return\",\"host\":\"b\"}"));
	assert_non_null(strstr(doc, "\"clock_offset_ns\":1000000,\"hosts\":[{\"host\":\"a\",\"pid_base\":0},"
				    "{\"host\":\"b\",\"pid_base\":8388608}]}"));
	free(doc);
	pf = perfetto__new(&p);
	assert_non_null(pf);
	assert_int_equal(perfetto__hosts(pf, 0, names, offsets), -EINVAL);
	assert_int_equal(perfetto__hosts(pf, PERFETTO_MAX_HOSTS + 1, names, offsets), -EINVAL);
	perfetto__free(pf);
}

/* ---- --tree as a timeline: the engine of tree_print.c, drawn by perfetto__tree() ---- */

static struct capture_plan tree_plans[3];

static const struct capture_plan *tree_plan_of(void *ctx, __u32 id)
{
	(void)ctx;
	return id < 3 ? &tree_plans[id] : NULL;
}

/*
 * A session's records come in return order, the root's last: a(depth 2),
 * a(depth 1), a tracepoint (depth 1), the root.  Drawn when the root's
 * record comes: the root's B first (its return's time less its duration),
 * then its calls in call order, nested, each closed by its record (E),
 * the tracepoint an instant inside the root; the B's marked "tree", no
 * record of their own.
 */
static void test_perfetto_tree_order(void **state)
{
	static const struct { __u32 id; int kind; __u64 t, d; __u16 depth; } seq[4] = {
		{ 1, KSNOOP_RETURN, 3000, 1000, 2 }, { 1, KSNOOP_RETURN, 5000, 4000, 1 },
		{ 2, KSNOOP_ENTRY, 6000, 0, 1 }, { 0, KSNOOP_RETURN, 9000, 8500, 0 },
	};
	struct print_opts o = { .format = REPORT_PERFETTO };
	struct tree_print tp = {};
	struct tree_session ts;
	struct report_summary s = {};
	struct ksnoop_event ev[4];
	struct perfetto *pf;
	struct printer p;
	char *doc = NULL, *r, *a1, *a2, *e2, *e1, *i1, *er;
	size_t sz = 0;
	FILE *f = open_memstream(&doc, &sz);
	int i, kept = 0;

	make_call_plan(&tree_plans[0], "root");
	make_call_plan(&tree_plans[1], "a");
	make_call_plan(&tree_plans[2], "tp:x");
	tree_plans[0].bpf.tree = KSNOOP_TREE_ROOT;
	tree_plans[0].bpf.tree_max_calls = 8;
	tree_plans[1].bpf.tree = tree_plans[2].bpf.tree = KSNOOP_TREE_INNER;
	tree_plans[2].bpf.side[KSNOOP_RETURN].enabled = 0;
	printer__init(&p, f, &o);
	pf = perfetto__new(&p);
	perfetto__begin(pf);
	for (i = 0; i < 4; i++) {
		ev[i] = (struct ksnoop_event){ .time_ns = seq[i].t, .duration_ns = seq[i].d,
					       .tgid = 7, .tid = 7, .func_id = seq[i].id,
					       .kind = seq[i].kind, .depth = seq[i].depth,
					       .flags = seq[i].d ? KSNOOP_EV_DURATION : 0,
					       .session = 1, .comm = "t" };
		if (!tree_print__take(&tp, 0, &tree_plans[seq[i].id], &ev[i], sizeof(ev[i]),
				      tree_plan_of, NULL, &ts))
			continue;
		kept++;
		assert_int_equal(ts.n, 3);
		perfetto__tree(pf, &tree_plans[0], &ev[i], sizeof(ev[i]), &ts, tree_plan_of, NULL);
		tree_print__done(&ts);
	}
	perfetto__end(pf, &s, false);
	assert_int_equal(perfetto__stats(pf)->events, 4);
	assert_int_equal(perfetto__stats(pf)->unfinished, 0);
	perfetto__free(pf);
	printer__fini(&p);
	tree_print__free(&tp);
	fclose(f);
	assert_int_equal(kept, 1);
	assert_string_equal(call_phases(doc), "B B B E E E");
	r = strstr(doc, "{\"name\":\"root\",\"cat\":\"call\",\"ph\":\"B\",\"ts\":0.500,\"pid\":7,\"tid\":7,"
			"\"args\":{\"ksnoop\":{\"tree\":\"root\"}}}");
	a1 = strstr(doc, "{\"name\":\"a\",\"cat\":\"call\",\"ph\":\"B\",\"ts\":1.000,");
	a2 = strstr(doc, "{\"name\":\"a\",\"cat\":\"call\",\"ph\":\"B\",\"ts\":2.000,");
	e2 = strstr(doc, "{\"name\":\"a\",\"cat\":\"call\",\"ph\":\"E\",\"ts\":3.000,");
	e1 = strstr(doc, "{\"name\":\"a\",\"cat\":\"call\",\"ph\":\"E\",\"ts\":5.000,");
	i1 = strstr(doc, "{\"name\":\"tp:x\",\"cat\":\"event\",\"ph\":\"i\",\"ts\":6.000,");
	er = strstr(doc, "{\"name\":\"root\",\"cat\":\"call\",\"ph\":\"E\",\"ts\":9.000,");
	assert_true(r && a1 && a2 && e2 && e1 && i1 && er);
	assert_true(r < a1 && a1 < a2 && a2 < e2 && e2 < e1 && e1 < i1 && i1 < er);
	assert_non_null(strstr(i1, "\"ksnoop\":{\"kind\":\"entry\",\"tree\":\"call\"}"));
	assert_non_null(strstr(er, "\"ksnoop\":{\"kind\":\"return\",\"duration_ns\":8500,\"tree\":\"root\"}"));
	free(doc);
}

/* --track: one flow per object's story, s at its first event, t, f at its free. */
static void test_perfetto_flows(void **state)
{
	static struct capture_plan f;
	struct ksnoop_event ev[4];
	struct pf_rec r[4];
	struct perfetto_stats st;
	char *doc;
	int i;

	make_call_plan(&f, "tp:x");
	f.bpf.side[KSNOOP_RETURN].enabled = 0;
	for (i = 0; i < 4; i++) {
		ev[i] = (struct ksnoop_event){ .time_ns = 1000 * (i + 1), .tgid = 4, .tid = 4,
					       .kind = KSNOOP_ENTRY, .comm = "n",
					       .flags = KSNOOP_EV_OBJECT, .object = 0xffff1000,
					       .session = 7 };
		r[i] = (struct pf_rec){ &f, &ev[i], sizeof(ev[i]) };
	}
	ev[2].flags |= KSNOOP_EV_FREED;
	ev[3].session = 8;	/* the address reused: a new story, a new flow */
	doc = render_perfetto(r, 4, &st);
	assert_non_null(strstr(doc, "{\"name\":\"object 0xffff1000\",\"cat\":\"object\",\"ph\":\"s\",\"id\":1,\"ts\":1.000,"));
	assert_non_null(strstr(doc, "{\"name\":\"object 0xffff1000\",\"cat\":\"object\",\"ph\":\"t\",\"id\":1,\"ts\":2.000,"));
	assert_non_null(strstr(doc, "{\"name\":\"object 0xffff1000\",\"cat\":\"object\",\"ph\":\"f\",\"id\":1,\"ts\":3.000,"
				    "\"pid\":4,\"tid\":4,\"bp\":\"e\"}"));
	assert_non_null(strstr(doc, "{\"name\":\"object 0xffff1000\",\"cat\":\"object\",\"ph\":\"s\",\"id\":2,\"ts\":4.000,"));
	assert_non_null(strstr(doc, "\"ksnoop\":{\"kind\":\"entry\",\"object\":\"0xffff1000\",\"freed\":true}"));
	free(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_depth_cuts_nested_values),
		cmocka_unit_test(test_depth_counts_arrays),
		cmocka_unit_test(test_depth_leaves_json_whole),
		cmocka_unit_test(test_oneline_struct),
		cmocka_unit_test(test_oneline_first_members),
		cmocka_unit_test(test_oneline_array),
		cmocka_unit_test(test_oneline_long_array),
		cmocka_unit_test(test_oneline_event),
		cmocka_unit_test(test_oneline_return_with_duration),
		cmocka_unit_test(test_oneline_stack_folded),
		cmocka_unit_test(test_oneline_user_stack_folded),
		cmocka_unit_test(test_perfetto_hostile_bytes),
		cmocka_unit_test(test_perfetto_nesting),
		cmocka_unit_test(test_perfetto_x_closes_inner),
		cmocka_unit_test(test_perfetto_open_bound),
		cmocka_unit_test(test_perfetto_hosts),
		cmocka_unit_test(test_perfetto_flows),
		cmocka_unit_test(test_perfetto_tree_order),
	};

	return cmocka_run_group_tests_name("print_forms", tests, build_btf, free_btf);
}
