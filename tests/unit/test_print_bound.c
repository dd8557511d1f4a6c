// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The printer's work on hostile BTF is bounded (issue 40 item 1): BTF from
 * a record file or a binary's .BTF is the author's to choose, and two
 * shapes of a kilobyte took minutes.
 *
 *  - A union of N named and N anonymous structs of N ints each, differing
 *    in the last member's name: finding its struct_groups compared every
 *    named struct with every anonymous one, member by member (N^3).
 *  - A value typed as an array of one-byte enums with 65535 enumerators:
 *    each element scanned every enumerator.
 *
 * libFuzzer's time limit never meets such structured inputs, so this
 * generator builds them at growing N and counts the printer's work in
 * steps (struct printer's steps, the same units its limits are in), not
 * time: on a loaded machine only a count is a measure.  Work must grow at
 * most linearly in the BTF and bytes it is given, and a value whose work
 * runs out is cut with a note, in text and in JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "print.h"
#include "recfile.h"

#define HDR ((__u32)sizeof(struct ksnoop_event))

/* print.c's per-value limit, restated: the tests check the note and the bound. */
#define STEPS_BASE	16384
#define STEPS_PER_BYTE	64

static struct btf *btf;
static int int_t;

static int new_btf(void **state)
{
	btf = btf__new_empty();
	if (!btf)
		return -1;
	int_t = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	return int_t > 0 ? 0 : -1;
}

static int free_btf(void **state)
{
	btf__free(btf);
	btf = NULL;
	return 0;
}

/* A struct of N ints m0..m{N-1}; LAST names the last one instead (NULL: m{N-1}). */
static int add_ints_struct(const char *name, int n, const char *last)
{
	int id = btf__add_struct(btf, name, 4 * n), i;
	char m[16];

	assert_true(id > 0);
	for (i = 0; i < n; i++) {
		snprintf(m, sizeof(m), "m%d", i);
		assert_int_equal(btf__add_field(btf, i == n - 1 && last ? last : m, int_t,
						32 * i, 0), 0);
	}
	return id;
}

/*
 * The reviewer's union: N named members of struct A, N anonymous of struct
 * B, A and B N ints each, B's last named differently.  DISTINCT: each
 * member its own struct type (as a compiler writes them), N^2 members of
 * BTF; otherwise two types shared, 2N.
 */
static int add_hostile_union(int n, bool distinct)
{
	int a = 0, b = 0, u, i, *named = calloc(n, sizeof(int)), *anon = calloc(n, sizeof(int));
	char m[16];

	assert_non_null(named);
	assert_non_null(anon);
	if (!distinct) {
		a = add_ints_struct("A", n, NULL);
		b = add_ints_struct(NULL, n, "z");
	}
	for (i = 0; i < n; i++) {
		named[i] = distinct ? add_ints_struct("A", n, NULL) : a;
		anon[i] = distinct ? add_ints_struct(NULL, n, "z") : b;
	}
	u = btf__add_union(btf, "U", 4 * n);
	assert_true(u > 0);
	for (i = 0; i < n; i++) {
		snprintf(m, sizeof(m), "a%d", i);
		assert_int_equal(btf__add_field(btf, m, named[i], 0, 0), 0);
	}
	for (i = 0; i < n; i++)
		assert_int_equal(btf__add_field(btf, NULL, anon[i], 0, 0), 0);
	free(named);
	free(anon);
	return u;
}

/* ---- rendering ---- */

static char *out;
static size_t out_len;

static struct value_desc value_of(int type, __u32 size)
{
	return (struct value_desc){ .text = "v", .type_id = type, .obj_id = type,
				    .how = PRINT_VALUE, .size = size, .obj_size = size };
}

/*
 * Value DATA of type TYPE, AVAIL of its SIZE bytes captured, printed by a
 * new printer: what came out (in OUT), and the steps it took.
 */
static __u64 render(enum report_format format, int type, const void *data, __u32 size,
		    __u32 avail)
{
	struct print_opts opts = { .format = format };
	struct value_desc vd = value_of(type, size);
	struct ksnoop_value vh = { .status = KSNOOP_OK, .len = avail };
	struct printer p;
	FILE *f;

	free(out);
	out = NULL;
	f = open_memstream(&out, &out_len);
	assert_non_null(f);
	printer__init(&p, f, &opts);
	printer__value(&p, btf, &vd, &vh, data, 1);
	printer__fini(&p);
	fclose(f);
	return p.steps;
}

/* One event with the value DATA (SIZE bytes) of TYPE, as ksnoop prints it in JSON. */
static void render_event_json(int type, const void *data, __u32 size)
{
	static struct capture_plan plan;
	struct ksnoop_side_plan *e = &plan.bpf.side[KSNOOP_ENTRY];
	struct print_opts opts = { .format = REPORT_JSON };
	size_t rec_size = HDR + sizeof(struct ksnoop_value) + size;
	unsigned char *rec = calloc(1, rec_size);
	struct ksnoop_event *ev = (void *)rec;
	struct ksnoop_value *vh = (void *)(rec + HDR);
	struct printer p;
	FILE *f;

	assert_non_null(rec);
	memset(&plan, 0, sizeof(plan));
	snprintf(plan.sig.name, sizeof(plan.sig.name), "f");
	plan.sig.btf = btf;
	plan.nvalues[KSNOOP_ENTRY] = 1;
	plan.values[KSNOOP_ENTRY][0] = value_of(type, size);
	e->enabled = 1;
	e->nvalues = 1;
	e->values[0].rec_off = HDR;
	e->rec_size = rec_size;
	ev->kind = KSNOOP_ENTRY;
	vh->status = KSNOOP_OK;
	vh->len = size;
	memcpy(vh + 1, data, size);
	free(out);
	out = NULL;
	f = open_memstream(&out, &out_len);
	assert_non_null(f);
	printer__init(&p, f, &opts);
	printer__event(&p, &plan, rec, rec_size);
	printer__fini(&p);
	fclose(f);
	free(rec);
}

/* JSON's one line ends the event object it opened. */
static void assert_json_event_closed(void)
{
	assert_true(out_len > 2);
	assert_int_equal(out[0], '{');
	assert_memory_equal(out + out_len - 2, "}\n", 2);
}

/*
 * Work that grows linearly: each WORK[i] (at input SIZE[i], growing) is
 * within K steps per unit of input plus C, and grows by at most the
 * input's factor (and a quarter): doubled, cubic work grows 8 times,
 * quadratic 4.
 */
static void assert_linear(const char *what, const __u64 *work, const __u64 *size, int n,
			  __u64 k, __u64 c)
{
	int i;

	for (i = 0; i < n; i++) {
		if (work[i] > k * size[i] + c)
			fail_msg("%s: %llu steps for input %llu, more than %llu per unit + %llu",
				 what, (unsigned long long)work[i], (unsigned long long)size[i],
				 (unsigned long long)k, (unsigned long long)c);
		if (i && work[i] * size[i - 1] * 4 > work[i - 1] * size[i] * 5)
			fail_msg("%s: %llu steps for input %llu after %llu for %llu: not linear", what,
				 (unsigned long long)work[i], (unsigned long long)size[i],
				 (unsigned long long)work[i - 1], (unsigned long long)size[i - 1]);
	}
}

/* ---- struct_groups ---- */

/*
 * The union laid out (the value cut at its first byte: no member printed,
 * the layout is all the work): linear in N with two shared types, and in
 * the N^2 members with a type per member.
 */
static void test_struct_group_search_is_linear_shared_types(void **state)
{
	__u64 work[9], size[9];
	int i, n, u;
	char byte = 0;

	for (i = 0, n = 8; n <= 2048; i++, n *= 2) {
		u = add_hostile_union(n, false);
		work[i] = render(REPORT_TEXT, u, &byte, 4 * n, 1);
		size[i] = n;
		assert_non_null(strstr(out, "truncated"));
	}
	assert_linear("shared types", work, size, i, 8, 64);
}

static void test_struct_group_search_is_linear_distinct_types(void **state)
{
	__u64 work[6], size[6];
	int i, n, u;
	char byte = 0;

	for (i = 0, n = 4; n <= 128; i++, n *= 2) {
		u = add_hostile_union(n, true);
		work[i] = render(REPORT_TEXT, u, &byte, 4 * n, 1);
		/* The members the union refers to, its own with them. */
		size[i] = 2 * (__u64)n * n + 2 * n;
		assert_non_null(strstr(out, "truncated"));
	}
	assert_linear("distinct types", work, size, i, 4, 64);
}

/*
 * However much BTF a union refers to, its struct_groups are searched
 * within a bound per type (print.c LAYOUT_GROUP_STEPS): here 320,000
 * members of distinct structs, more than the 262,144 steps allowed.
 */
static void test_struct_group_search_is_bounded_per_type(void **state)
{
	enum { N = 400 };
	int u = add_hostile_union(N, true);
	char byte = 0;

	assert_true(render(REPORT_TEXT, u, &byte, 4 * N, 1) <= (1 << 18) + 4 * N + 64);
}

/* The search still finds a struct_group among many anonymous structs, and one type used twice. */
static void test_struct_group_found_among_many(void **state)
{
	int x = add_ints_struct(NULL, 2, NULL), y, grp, tagged, u, i;
	int d[2] = { 5, 6 };

	/* Anonymous look-alikes that differ: in a name, a type, an offset. */
	y = add_ints_struct(NULL, 2, "q");
	grp = add_ints_struct("grp", 2, NULL);
	tagged = add_ints_struct("tag", 2, "t");
	u = btf__add_union(btf, "u", 8);
	for (i = 0; i < 20; i++)
		assert_int_equal(btf__add_field(btf, NULL, y, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "g", grp, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, NULL, x, 0, 0), 0);
	/* struct_group_tagged(): one type, anonymous and named. */
	assert_int_equal(btf__add_field(btf, NULL, tagged, 0, 0), 0);
	assert_int_equal(btf__add_field(btf, "tg", tagged, 0, 0), 0);
	render(REPORT_JSON, u, d, 8, 8);
	/* Twenty y's, once flattened each; x; the tagged one: never g or tg. */
	assert_null(strstr(out, "\"g\""));
	assert_null(strstr(out, "\"tg\""));
	assert_non_null(strstr(out, "\"m0\":5,\"m1\":6"));
	assert_non_null(strstr(out, "\"m0\":5,\"t\":6"));
}

/*
 * The reviewer's shape at N = 1000 printed whole: the union of 4000 bytes
 * holds 2 million members' worth of values.  It ends, bounded, and says it
 * was cut: text (zeros skipped, so only the work limit stops it), JSON
 * ("v_cut" beside the value).
 */
static void test_hostile_union_is_cut_with_a_note(void **state)
{
	enum { N = 1000 };
	int u = add_hostile_union(N, false);
	static int d[N];
	__u64 steps, layout;
	int i;

	layout = render(REPORT_TEXT, u, d, sizeof(d), 1);
	steps = render(REPORT_TEXT, u, d, sizeof(d), sizeof(d));
	assert_non_null(strstr(out, "/* output cut: work limit"));
	assert_true(out_len < 4096);
	/* The union's layout, then A's and B's at most, then the value's work (one step over each open level). */
	assert_true(steps <= layout + 2 * N + STEPS_BASE + STEPS_PER_BYTE * sizeof(d) + 32);
	for (i = 0; i < N; i++)
		d[i] = i + 1;
	render(REPORT_TEXT, u, d, sizeof(d), sizeof(d));
	assert_non_null(strstr(out, "cut"));
	assert_true(out_len < (8 << 20));
	render_event_json(u, d, sizeof(d));
	assert_json_event_closed();
	assert_non_null(strstr(out, "\"v_cut\":\""));
	assert_true(out_len < (8 << 20));
	memset(d, 0, sizeof(d));
	render_event_json(u, d, sizeof(d));
	assert_json_event_closed();
	assert_true(out_len < (8 << 20));
}

/* ---- enums ---- */

/* A one-byte enum with N enumerators e{N-1} ... e0 of values N-1 ... 0 (last found last). */
static int add_wide_enum(int n)
{
	int e = btf__add_enum(btf, "wide", 1), i;
	char name[16];

	assert_true(e > 0);
	for (i = n - 1; i >= 0; i--) {
		snprintf(name, sizeof(name), "e%d", i);
		assert_int_equal(btf__add_enum_value(btf, name, i), 0);
	}
	return e;
}

/*
 * The reviewer's second shape: 32 KiB typed as an array of one-byte enums
 * with 65535 enumerators.  Every element is named (nothing cut), in work
 * linear in the elements and enumerators.
 */
static void test_enum_array_is_named_in_linear_work(void **state)
{
	enum { BYTES = 32768 };
	static unsigned char d[BYTES];
	int e = add_wide_enum(65535), arr;
	__u64 steps;
	int i;

	arr = btf__add_array(btf, int_t, e, BYTES);
	for (i = 0; i < BYTES; i++)
		d[i] = i & 0xff;
	steps = render(REPORT_TEXT, arr, d, BYTES, BYTES);
	assert_null(strstr(out, "cut"));
	assert_non_null(strstr(out, "[e0, e1, e2, "));
	assert_true(out_len > 17);
	assert_string_equal(out + out_len - 17, "e253, e254, e255]");
	assert_true(steps <= 2 * BYTES + 65535 + 64);
	render_event_json(arr, d, BYTES);
	assert_json_event_closed();
	assert_null(strstr(out, "_cut"));
	assert_non_null(strstr(out, "\"e254\",\"e255\"]"));
}

/* An array of N/2 elements of an enum of N: work linear in N as N doubles. */
static void test_enum_work_is_linear(void **state)
{
	__u64 work[7], size[7];
	unsigned char d[4096];
	int i, n, e;

	memset(d, 0, sizeof(d));	/* e0: the last enumerator */
	for (i = 0, n = 128; n <= 8192; i++, n *= 2) {
		e = add_wide_enum(n);
		work[i] = render(REPORT_TEXT, btf__add_array(btf, int_t, e, n / 2), d, n / 2, n / 2);
		size[i] = n;
		assert_null(strstr(out, "cut"));
	}
	assert_linear("enum array", work, size, i, 4, 64);
}

/* The index finds what the scan did: the first enumerator of a value, negative ones too. */
static void test_enum_index_finds_the_first_of_a_value(void **state)
{
	int e = btf__add_enum(btf, "dup", 4), i;
	__s32 v;
	char name[16];

	for (i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "x%d", i);
		assert_int_equal(btf__add_enum_value(btf, name, 100 + i), 0);
	}
	assert_int_equal(btf__add_enum_value(btf, "first", 7), 0);
	assert_int_equal(btf__add_enum_value(btf, "second", 7), 0);
	assert_int_equal(btf__add_enum_value(btf, "minus", -3), 0);
	v = 7;
	render(REPORT_TEXT, e, &v, 4, 4);
	assert_string_equal(out, "first");
	v = -3;
	render(REPORT_TEXT, e, &v, 4, 4);
	assert_string_equal(out, "minus");
	v = 8;
	render(REPORT_TEXT, e, &v, 4, 4);
	assert_string_equal(out, "8");
}

/* ---- a recording of both shapes, for `ksnoop report` ---- */

enum { REC_UNION_N = 1000, REC_ENUM_BYTES = 32768 };

/*
 * A recording of one event with two values: "u", the union at N = 1000
 * (4000 bytes of zeros: text skips them, so only the work limit stops it),
 * and "e", 32 KiB of one-byte enums with 65535 enumerators (bytes 0..255
 * over and over): 360 KB, most of it the enumerators' BTF.
 */
static void write_hostile_recording(const char *path)
{
	static struct capture_plan plan;
	struct ksnoop_side_plan *side = &plan.bpf.side[KSNOOP_ENTRY];
	__u32 off_e = HDR + sizeof(struct ksnoop_value) + 4 * REC_UNION_N;
	size_t rec_size = off_e + sizeof(struct ksnoop_value) + REC_ENUM_BYTES;
	unsigned char *rec = calloc(1, rec_size), *e_data;
	struct ksnoop_value *vu = (void *)(rec + HDR), *ve = (void *)(rec + off_e);
	struct ksnoop_event *ev = (void *)rec;
	char *specs[] = { "hostile(u, e)" };
	struct recfile_meta m = {
		.version = "test", .release = "6.1.0", .machine = "x86_64", .start_ns = 5,
		.clock = "monotonic", .nspecs = 1, .specs = specs,
	};
	struct recfile_totals tot = {};
	struct recfile_target t = { .label = "" };
	struct recfile_writer *w;
	struct ks_error err;
	int u, arr, i;

	assert_non_null(rec);
	u = add_hostile_union(REC_UNION_N, false);
	arr = btf__add_array(btf, int_t, add_wide_enum(65535), REC_ENUM_BYTES);
	memset(&plan, 0, sizeof(plan));
	snprintf(plan.sig.name, sizeof(plan.sig.name), "hostile");
	plan.sig.btf = btf;
	plan.nvalues[KSNOOP_ENTRY] = 2;
	plan.values[KSNOOP_ENTRY][0] = value_of(u, 4 * REC_UNION_N);
	plan.values[KSNOOP_ENTRY][0].text = "u";
	plan.values[KSNOOP_ENTRY][1] = value_of(arr, REC_ENUM_BYTES);
	plan.values[KSNOOP_ENTRY][1].text = "e";
	side->enabled = 1;
	side->nvalues = 2;
	side->values[0].rec_off = HDR;
	side->values[1].rec_off = off_e;
	side->rec_size = rec_size;
	t.plan = plan;
	ev->kind = KSNOOP_ENTRY;
	ev->time_ns = 1000000123;
	ev->tgid = ev->tid = 42;
	memcpy(ev->comm, "hostile", 8);
	vu->status = ve->status = KSNOOP_OK;
	vu->len = 4 * REC_UNION_N;
	ve->len = REC_ENUM_BYTES;
	e_data = (unsigned char *)(ve + 1);
	for (i = 0; i < REC_ENUM_BYTES; i++)
		e_data[i] = i & 0xff;
	w = recfile_writer__open(path, true, &err);
	assert_non_null(w);
	assert_int_equal(recfile_writer__begin(w, &m, &t, 1, NULL, 0, false, &err), 0);
	assert_int_equal(recfile_writer__event(w, rec, rec_size, &err), 0);
	tot.records = 1;
	assert_int_equal(recfile_writer__finish(w, &tot, &err), 0);
	recfile_writer__free(w);
	free(rec);
}

/* The recording reads back and prints bounded: the union cut, the enums all named. */
static void test_hostile_recording_prints_bounded(void **state)
{
	char path[] = "/tmp/ksnoop-test-print-bound-XXXXXX";
	struct print_opts opts = { .format = REPORT_TEXT };
	int fd = mkstemp(path);
	const struct recfile_target *t;
	struct ks_error e;
	struct recfile *rf;
	struct printer p;
	const void *rec;
	size_t size;
	FILE *in, *f;

	assert_true(fd >= 0);
	close(fd);
	write_hostile_recording(path);
	in = fopen(path, "r");
	assert_non_null(in);
	rf = recfile__open(in, "t.ksr", &e);
	assert_non_null(rf);
	t = recfile__target(rf, 0);
	assert_int_equal(recfile__next(rf, &rec, &size, &e), 1);
	free(out);
	out = NULL;
	f = open_memstream(&out, &out_len);
	assert_non_null(f);
	printer__init(&p, f, &opts);
	printer__event(&p, &t->plan, rec, size);
	printer__fini(&p);
	fclose(f);
	recfile__free(rf);
	fclose(in);
	unlink(path);
	assert_non_null(strstr(out, "    u = {} /* output cut: work limit"));
	assert_non_null(strstr(out, "    e = [e0, e1, "));
	assert_non_null(strstr(out, "e254, e255]\n"));
	/* One cut, the union's: the enums are all there. */
	assert_null(strstr(strstr(out, "cut") + 3, "cut"));
	assert_true(out_len < (1 << 20));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_struct_group_search_is_linear_shared_types,
						new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_struct_group_search_is_linear_distinct_types,
						new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_struct_group_search_is_bounded_per_type,
						new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_struct_group_found_among_many, new_btf,
						free_btf),
		cmocka_unit_test_setup_teardown(test_hostile_union_is_cut_with_a_note, new_btf,
						free_btf),
		cmocka_unit_test_setup_teardown(test_enum_array_is_named_in_linear_work, new_btf,
						free_btf),
		cmocka_unit_test_setup_teardown(test_enum_work_is_linear, new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_enum_index_finds_the_first_of_a_value,
						new_btf, free_btf),
		cmocka_unit_test_setup_teardown(test_hostile_recording_prints_bounded, new_btf,
						free_btf),
	};
	int rc;

	/* tests/live/49-record-hostile.sh: the recording, for `ksnoop report` as nobody. */
	if (argc == 3 && strcmp(argv[1], "--write-recording") == 0) {
		if (new_btf(NULL))
			return 1;
		write_hostile_recording(argv[2]);
		free_btf(NULL);
		return 0;
	}

	/* The shapes took minutes unbounded: a run that does fails instead of hanging. */
	alarm(100);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(out);
	return rc;
}
