// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for --count's report (ksnoop/agg/counts.c through the report,
 * report.h): rows as the counts and stacks maps would give them, printed
 * as text, JSON and folded stacks and compared with the expected text;
 * and the report's notices (lost events, the summary) in both forms.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "counts.h"
#include "hist.h"
#include "ksnoop_tuple_key.h"
#include "log.h"
#include "report.h"

static const char *names[] = { "tcp_v4_connect", "ip_output", "tp:sched_switch" };

static const char *name_of(void *ctx, __u32 id)
{
	return id < 3 ? names[id] : "?";
}

static int symbolize(void *ctx, __u64 addr, char *buf, size_t sz)
{
	switch (addr) {
	case 0x10: snprintf(buf, sz, "bpf_prog_ab_ksnoop_kprobe+0x1 [bpf]"); return 0;
	case 0x20: snprintf(buf, sz, "tcp_v4_connect+0x5"); return 0;
	case 0x30: snprintf(buf, sz, "__inet_stream_connect+0x124"); return 0;
	case 0x40: snprintf(buf, sz, "__sys_connect+0x9c"); return 0;
	case 0x50: snprintf(buf, sz, "dummy_xmit+0x10 [dummy]"); return 0;
	}
	return -1;
}

static char *render(const struct count_row *rows, size_t n, enum report_format style, bool stacks)
{
	struct counts_fmt f = { .stacks = stacks, .func_name = name_of, .symbolize = symbolize };
	struct report r;
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	report__init(&r, out, style);
	counts__print(&r, rows, n, &f);
	fclose(out);
	return buf;
}

static void row(struct count_row *r, __u32 func, __s32 stack, __u64 count, int nframes, ...)
{
	va_list ap;

	memset(r, 0, sizeof(*r));
	r->func_id = func;
	r->sub = stack;
	r->count = count;
	r->nframes = nframes;
	va_start(ap, nframes);
	for (int i = 0; i < nframes; i++)
		r->frames[i] = va_arg(ap, __u64);
	va_end(ap);
}

static void test_sorted_busiest_first(void **state)
{
	struct count_row rows[3];

	row(&rows[0], 0, -1, 5, 0);
	row(&rows[1], 1, -1, 12, 0);
	row(&rows[2], 2, -1, 5, 0);
	counts__sort(rows, 3);
	assert_int_equal(rows[0].func_id, 1);
	/* Equal counts: by function. */
	assert_int_equal(rows[1].func_id, 0);
	assert_int_equal(rows[2].func_id, 2);
}

/*
 * A per-CPU map's values of one key (agg.bpf.h): counts and sums added;
 * the bounds only of CPUs that counted (an idle CPU's zeros are none),
 * compared as the values are signed or not.
 */
static void test_combine_cpus(void **state)
{
	const struct ksnoop_count_val cpus[] = {
		{ .count = 2, .max = 7, .min = 3, .sum = 10 },
		{ 0 },
		{ .count = 1, .max = (__u64)-5, .min = (__u64)-5, .sum = (__u64)-5 },
		{ .count = 3, .max = 9, .min = 1, .sum = 15 },
	};
	struct ksnoop_count_val v;

	v = counts__combine(cpus, 4, true);
	assert_int_equal(v.count, 6);
	assert_int_equal(v.sum, 20);
	assert_int_equal((__s64)v.max, 9);
	assert_int_equal((__s64)v.min, -5);
	v = counts__combine(cpus, 4, false);
	assert_int_equal(v.max, (__u64)-5);
	assert_int_equal(v.min, 1);
	/* Only the idle CPU's zeros: nothing counted, no bounds. */
	v = counts__combine(&cpus[1], 1, false);
	assert_int_equal(v.count, 0);
	assert_int_equal(v.max, 0);
	/* Only values above zero: zeros of other CPUs are not a minimum. */
	v = counts__combine(cpus, 2, false);
	assert_int_equal(v.min, 3);
}

static void test_text_and_json(void **state)
{
	struct count_row rows[2];
	char *s;

	row(&rows[0], 1, -1, 1234567, 0);
	row(&rows[1], 2, -1, 1, 0);
	s = render(rows, 2, REPORT_TEXT, false);
	assert_string_equal(s, "       CALLS  FUNCTION\n"
			       "     1234567  ip_output\n"
			       "           1  tp:sched_switch\n");
	free(s);
	s = render(rows, 2, REPORT_JSON, false);
	assert_string_equal(s, "{\"type\":\"count\",\"func\":\"ip_output\",\"count\":1234567}\n"
			       "{\"type\":\"count\",\"func\":\"tp:sched_switch\",\"count\":1}\n");
	free(s);
	s = render(rows, 2, REPORT_FOLDED, false);
	assert_string_equal(s, "ip_output 1234567\ntp:sched_switch 1\n");
	free(s);
}

static void test_stacks(void **state)
{
	struct count_row rows[3];
	char *s;

	/* A kprobe's stack starts at the function itself, below our program. */
	row(&rows[0], 0, 7, 3, 4, 0x10ULL, 0x20ULL, 0x30ULL, 0x40ULL);
	/* An unknown address prints as one; a module's frame says so. */
	row(&rows[1], 1, 8, 2, 2, 0x50ULL, 0xffffffff81000000ULL);
	/* No stack taken (the stacks map was full). */
	row(&rows[2], 1, -1, 1, 0);
	s = render(rows, 3, REPORT_TEXT, true);
	assert_string_equal(s, "tcp_v4_connect: 3 calls\n"
			       "    tcp_v4_connect+0x5\n"
			       "    __inet_stream_connect+0x124\n"
			       "    __sys_connect+0x9c\n"
			       "ip_output: 2 calls\n"
			       "    dummy_xmit+0x10 [dummy]\n"
			       "    0xffffffff81000000\n"
			       "ip_output: 1 call\n"
			       "    /* stack not taken (stacks map full) */\n");
	free(s);
	s = render(rows, 3, REPORT_JSON, true);
	assert_string_equal(s, "{\"type\":\"count\",\"func\":\"tcp_v4_connect\",\"stack\":[\"tcp_v4_connect+0x5\","
			       "\"__inet_stream_connect+0x124\",\"__sys_connect+0x9c\"],\"count\":3}\n"
			       "{\"type\":\"count\",\"func\":\"ip_output\",\"stack\":[\"dummy_xmit+0x10 [dummy]\","
			       "\"0xffffffff81000000\"],\"count\":2}\n"
			       "{\"type\":\"count\",\"func\":\"ip_output\",\"stack\":null,\"count\":1}\n");
	free(s);
	/* Folded: outermost first, names only, the function last (once). */
	s = render(rows, 3, REPORT_FOLDED, true);
	assert_string_equal(s, "__sys_connect;__inet_stream_connect;tcp_v4_connect 3\n"
			       "0xffffffff81000000;dummy_xmit;ip_output 2\n"
			       "ip_output 1\n");
	free(s);
}

/* User frames of process 42: 0x400100 in main, 0x400200 in run; the rest unnamed. */
static int usymbolize(void *ctx, __u32 pid, __u64 addr, char *buf, size_t sz)
{
	assert_int_equal(pid, 42);
	if (addr == 0x400100)
		snprintf(buf, sz, "main+0x10 (/usr/bin/app)");
	else if (addr == 0x400200)
		snprintf(buf, sz, "run+0x8 (/usr/bin/app)");
	else if (addr == 0x7f0000001000)
		snprintf(buf, sz, "0x7f0000001000 (/usr/lib/libc.so.6+0x1000)");
	else
		return -1;
	return 0;
}

/* --count -s --ustack: the user stack below the kernel's, in every form. */
static void test_user_stacks(void **state)
{
	struct counts_fmt f = { .stacks = true, .func_name = name_of, .symbolize = symbolize,
				.ustacks = true, .usymbolize = usymbolize };
	struct count_row rows[2];
	const char *want[] = {
		"tcp_v4_connect: 3 calls\n"
		"    tcp_v4_connect+0x5\n"
		"    __sys_connect+0x9c\n"
		"    -- pid 42, user stack:\n"
		"    run+0x8 (/usr/bin/app)\n"
		"    main+0x10 (/usr/bin/app)\n"
		"    0x7f0000001000 (/usr/lib/libc.so.6+0x1000)\n"
		"ip_output: 1 call\n"
		"    dummy_xmit+0x10 [dummy]\n"
		"    -- pid 42, user stack: none\n",
		"{\"type\":\"count\",\"func\":\"tcp_v4_connect\",\"stack\":[\"tcp_v4_connect+0x5\","
		"\"__sys_connect+0x9c\"],\"pid\":42,\"ustack\":[\"run+0x8 (/usr/bin/app)\","
		"\"main+0x10 (/usr/bin/app)\",\"0x7f0000001000 (/usr/lib/libc.so.6+0x1000)\"],\"count\":3}\n"
		"{\"type\":\"count\",\"func\":\"ip_output\",\"stack\":[\"dummy_xmit+0x10 [dummy]\"],"
		"\"pid\":42,\"ustack\":[],\"count\":1}\n",
		/* Folded: user frames outermost first, then the kernel's, the function last. */
		"libc.so.6+0x1000;main;run;__sys_connect;tcp_v4_connect 3\n"
		"dummy_xmit;ip_output 1\n",
	};
	enum report_format forms[] = { REPORT_TEXT, REPORT_JSON, REPORT_FOLDED };

	row(&rows[0], 0, 7, 3, 3, 0x10ULL, 0x20ULL, 0x40ULL);
	rows[0].usub = 3;
	rows[0].tgid = 42;
	rows[0].nuframes = 3;
	rows[0].uframes[0] = 0x400200;
	rows[0].uframes[1] = 0x400100;
	rows[0].uframes[2] = 0x7f0000001000;
	/* A kernel thread's call (or a user stack not taken): none. */
	row(&rows[1], 1, 8, 1, 1, 0x50ULL);
	rows[1].usub = -1;
	rows[1].tgid = 42;
	for (size_t i = 0; i < 3; i++) {
		struct report r;
		char *buf = NULL;
		size_t sz = 0;
		FILE *out = open_memstream(&buf, &sz);

		assert_non_null(out);
		report__init(&r, out, forms[i]);
		counts__print(&r, rows, 2, &f);
		fclose(out);
		assert_string_equal(buf, want[i]);
		free(buf);
	}
}

/* Names anyone can choose: a user symbol, a library's path and a recording's kallsyms name with ';'. */
static int symbolize_semi(void *ctx, __u64 addr, char *buf, size_t sz)
{
	snprintf(buf, sz, addr == 0x20 ? "tcp_v4_connect+0x5" : "k;sym+0x4 [m;od]");
	return 0;
}

static int usymbolize_semi(void *ctx, __u32 pid, __u64 addr, char *buf, size_t sz)
{
	if (addr == 0x400100)
		snprintf(buf, sz, "evil;fake;frame+0x10 (/tmp/a;b/app)");
	else
		snprintf(buf, sz, "0x7f0000001000 (/tmp/x;y/lib;z.so+0x1000)");
	return 0;
}

/* Folded: a ';' inside a frame's name becomes ',' (as --oneline's): ';' only separates frames. */
static void test_folded_semicolon_in_names(void **state)
{
	struct counts_fmt f = { .stacks = true, .func_name = name_of, .symbolize = symbolize_semi,
				.ustacks = true, .usymbolize = usymbolize_semi };
	struct count_row rows[1];
	struct report r;
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	row(&rows[0], 0, 7, 3, 2, 0x20ULL, 0x40ULL);
	rows[0].usub = 3;
	rows[0].tgid = 42;
	rows[0].nuframes = 2;
	rows[0].uframes[0] = 0x400100;
	rows[0].uframes[1] = 0x7f0000001000;
	report__init(&r, out, REPORT_FOLDED);
	counts__print(&r, rows, 1, &f);
	fclose(out);
	assert_string_equal(buf, "lib,z.so+0x1000;evil,fake,frame;k,sym;tcp_v4_connect 3\n");
	free(buf);
}

static struct hist_value value_of(void *ctx, __u32 id)
{
	if (id == 2)
		return (struct hist_value){ "duration_ns", "duration", true, false };
	return id == 0 ? (struct hist_value){ "return", "return", false, true } :
			 (struct hist_value){ "skb->len", "skb->len", false, false };
}

static char *render_hist_max(struct count_row *rows, size_t n, enum report_format style,
			     bool exact_max)
{
	struct counts_fmt f = { .func_name = name_of, .exact_max = exact_max };
	struct report r;
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	report__init(&r, out, style);
	assert_int_equal(counts__print_hist(&r, rows, n, &f, value_of), 0);
	fclose(out);
	return buf;
}

/* Rows without the maps' max: the top bucket's bound stands for it. */
static char *render_hist(struct count_row *rows, size_t n, enum report_format style)
{
	return render_hist_max(rows, n, style, false);
}

/* --interval: JSON rows say which period they close and when; text rows do not change. */
static void test_interval_rows(void **state)
{
	struct counts_fmt f = { .func_name = name_of };
	struct count_row rows[1];
	struct report r;
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	row(&rows[0], 1, 3, 7, 0);
	assert_non_null(out);
	report__init(&r, out, REPORT_JSON);
	report__interval(&r, 2, 5000);
	counts__print(&r, rows, 1, &f);
	assert_int_equal(counts__print_hist(&r, rows, 1, &f, value_of), 0);
	/* Folded stacks have no room for a time; text's is the clock's (see 62-stop). */
	report__init(&r, out, REPORT_FOLDED);
	report__interval(&r, 2, 5000);
	counts__print(&r, rows, 1, &f);
	report__init(&r, out, REPORT_TEXT);
	counts__print(&r, rows, 1, &f);
	fclose(out);
	assert_string_equal(buf,
		"{\"type\":\"count\",\"interval\":2,\"time_ns\":5000,\"func\":\"ip_output\",\"count\":7}\n"
		"{\"type\":\"hist\",\"interval\":2,\"time_ns\":5000,\"func\":\"ip_output\",\"value\":\"skb->len\","
		"\"count\":7,\"buckets\":[{\"min\":4,\"max\":7,\"count\":7}],"
		"\"p50\":7,\"p90\":7,\"p99\":7,\"max\":7}\n"
		"ip_output 7\n"
		"       CALLS  FUNCTION\n"
		"           7  ip_output\n");
	free(buf);
}

/*
 * Bars are scaled to the largest bucket and rounded down, as bpftrace
 * draws them: 1 call beside 10,000 is no '@', half of them half a bar.
 */
static void test_hist_bars_scaled(void **state)
{
	struct count_row rows[3];
	char *s;

	row(&rows[0], 1, 1, 1, 0);
	row(&rows[1], 1, 2, 10000, 0);
	row(&rows[2], 1, 3, 5000, 0);
	s = render_hist(rows, 3, REPORT_TEXT);
	assert_string_equal(s,
		"ip_output: skb->len (15001 calls)\n"
		"[1]                               1 |                                                    |\n"
		"[2, 4)                        10000 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[4, 8)                         5000 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"p50 < 4  p90 < 8  p99 < 8  max < 8\n"
		"\n");
	free(s);
}

static void test_hist(void **state)
{
	struct count_row rows[5];
	char *s;

	/* tcp_v4_connect's return: 2 negative, 4 zero, 1 in [4, 8); ip_output 8 in [64, 128). */
	row(&rows[0], 0, 3, 1, 0);
	row(&rows[1], 1, 7, 8, 0);
	row(&rows[2], 0, -1, 2, 0);
	row(&rows[3], 0, 0, 4, 0);
	s = render_hist(rows, 4, REPORT_TEXT);
	assert_string_equal(s,
		"tcp_v4_connect: return (7 calls)\n"
		"(..., 0)                          2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[0]                               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[1]                               0 |                                                    |\n"
		"[2, 4)                            0 |                                                    |\n"
		"[4, 8)                            1 |@@@@@@@@@@@@@                                       |\n"
		"p50 = 0  p90 < 8  p99 < 8  max < 8\n"
		"\n"
		"ip_output: skb->len (8 calls)\n"
		"[64, 128)                         8 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"p50 < 128  p90 < 128  p99 < 128  max < 128\n"
		"\n");
	free(s);
	s = render_hist(rows, 4, REPORT_JSON);
	assert_string_equal(s,
		"{\"type\":\"hist\",\"func\":\"tcp_v4_connect\",\"value\":\"return\",\"count\":7,\"buckets\":["
		"{\"min\":null,\"max\":-1,\"count\":2},{\"min\":0,\"max\":0,\"count\":4},"
		"{\"min\":4,\"max\":7,\"count\":1}],\"p50\":0,\"p90\":7,\"p99\":7,\"max\":7}\n"
		"{\"type\":\"hist\",\"func\":\"ip_output\",\"value\":\"skb->len\",\"count\":8,\"buckets\":["
		"{\"min\":64,\"max\":127,\"count\":8}],\"p50\":127,\"p90\":127,\"p99\":127,\"max\":127}\n");
	free(s);
	/* The top bucket: values from 2^63 up. */
	row(&rows[4], 1, 64, 1, 0);
	s = render_hist(&rows[4], 1, REPORT_JSON);
	assert_string_equal(s, "{\"type\":\"hist\",\"func\":\"ip_output\",\"value\":\"skb->len\",\"count\":1,\"buckets\":["
			       "{\"min\":9223372036854775808,\"max\":18446744073709551615,\"count\":1}],"
			       "\"p50\":18446744073709551615,\"p90\":18446744073709551615,"
			       "\"p99\":18446744073709551615,\"max\":18446744073709551615}\n");
	free(s);
}

/* --stats: a row of sub 0 with its count, sum, min and max. */
static void stats_row(struct count_row *r, __u32 func, __u64 count, __s64 sum, __s64 min, __s64 max)
{
	row(r, func, 0, count, 0);
	r->sum = (__u64)sum;
	r->min = (__u64)min;
	r->max = (__u64)max;
}

static char *render_stats(const struct count_row *rows, size_t n, enum report_format style)
{
	struct counts_fmt f = { .func_name = name_of };
	struct report r;
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	report__init(&r, out, style);
	counts__print_stats(&r, rows, n, &f, value_of);
	fclose(out);
	return buf;
}

/*
 * --stats: a signed value's sum, min and average below zero (-2..1), an
 * unsigned one's (1..100: 5050, 50.5), durations in units; JSON exact.
 */
static void test_stats(void **state)
{
	struct count_row rows[3];
	struct report_stats st;
	char *s;

	stats_row(&rows[0], 1, 100, 5050, 1, 100);
	stats_row(&rows[1], 0, 4, -2, -2, 1);
	stats_row(&rows[2], 2, 2, 3000000, 1000000, 2000000);
	s = render_stats(rows, 3, REPORT_TEXT);
	assert_string_equal(s,
		"       CALLS            SUM            MIN            MAX            AVG  FUNCTION(VALUE)\n"
		"         100           5050              1            100           50.5  ip_output(skb->len)\n"
		"           4             -2             -2              1           -0.5  tcp_v4_connect(return)\n"
		"           2            3ms            1ms            2ms          1.5ms  tp:sched_switch(duration)\n");
	free(s);
	s = render_stats(rows, 3, REPORT_JSON);
	assert_string_equal(s,
		"{\"type\":\"stats\",\"func\":\"ip_output\",\"value\":\"skb->len\",\"count\":100,"
		"\"sum\":5050,\"min\":1,\"max\":100,\"avg\":50.5}\n"
		"{\"type\":\"stats\",\"func\":\"tcp_v4_connect\",\"value\":\"return\",\"count\":4,"
		"\"sum\":-2,\"min\":-2,\"max\":1,\"avg\":-0.5}\n"
		"{\"type\":\"stats\",\"func\":\"tp:sched_switch\",\"value\":\"duration_ns\",\"count\":2,"
		"\"sum\":3000000,\"min\":1000000,\"max\":2000000,\"avg\":1500000}\n");
	free(s);
	/* An unsigned value is never read as negative: 2^64 - 2 stays as large. */
	stats_row(&rows[0], 1, 1, -2, -2, -2);
	counts__stats(&rows[0], &(struct counts_fmt){ .func_name = name_of },
		      value_of(NULL, 1), NULL, NULL, &st);
	assert_false(st.is_signed);
	assert_true(report_stats_avg(&st) > 1e19);
	/* No calls: an average of 0, not a division by zero. */
	st.count = 0;
	assert_true(report_stats_avg(&st) == 0);
}

/* The top buckets' labels: [2^61, 2^62), [2^62, 2^63), and from 2^63 on, open. */
static void test_hist_top_bucket_labels(void **state)
{
	struct count_row rows[2];
	char *s;

	row(&rows[0], 1, 62, 2, 0);
	row(&rows[1], 1, 64, 1, 0);
	s = render_hist(rows, 2, REPORT_TEXT);
	assert_string_equal(s,
		"ip_output: skb->len (3 calls)\n"
		"[2305843009213693952, 4611686018427387904)          2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[4611686018427387904, 9223372036854775808)          0 |                                                    |\n"
		"[2^63, ...)                       1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"p50 < 4611686018427387904  p90 >= 9223372036854775808  p99 >= 9223372036854775808  "
		"max >= 9223372036854775808\n"
		"\n");
	free(s);
}

/*
 * hist__bucket() (report --hist of a recording) cuts values as BPF's
 * hist_bucket() does live: every value lies in the range hist__range()
 * gives its bucket, log2 and linear, at the edges of each bucket.
 */
static void in_its_bucket(const struct hist_scale *sc, __u64 v, bool is_signed, __s32 want)
{
	__s32 b = hist__bucket(sc, v, is_signed);
	struct hist_range r;

	if (want != INT32_MIN && b != want) {
		print_error("value %lld: bucket %d, expected %d\n", (long long)v, b, want);
		fail();
	}
	hist__range(sc, b, &r);
	if (!r.lo_inf)
		assert_true(r.is_signed || is_signed ? (__s64)v >= (__s64)r.lo : v >= r.lo);
	if (!r.hi_inf)
		assert_true(r.is_signed || is_signed ? (__s64)v <= (__s64)r.hi : v <= r.hi);
}

static void test_hist_bucket_of_value(void **state)
{
	struct hist_scale log2 = {}, lin = { .linear = true, .min = -4, .step = 2, .nbuckets = 4 };
	int k;

	in_its_bucket(&log2, 0, false, 0);
	in_its_bucket(&log2, 1, false, 1);
	in_its_bucket(&log2, 2, false, 2);
	in_its_bucket(&log2, 3, false, 2);
	in_its_bucket(&log2, 4, false, 3);
	in_its_bucket(&log2, (__u64)-2, true, -1);
	in_its_bucket(&log2, (__u64)-2, false, 64);
	in_its_bucket(&log2, ~0ULL, false, 64);
	for (k = 1; k < 64; k++) {
		in_its_bucket(&log2, 1ULL << k, false, k + 1);
		in_its_bucket(&log2, (1ULL << k) - 1, false, k);
	}
	in_its_bucket(&lin, (__u64)-5, true, -1);
	in_its_bucket(&lin, (__u64)-4, true, 0);
	in_its_bucket(&lin, (__u64)-3, true, 0);
	in_its_bucket(&lin, (__u64)-2, true, 1);
	in_its_bucket(&lin, 3, true, 3);
	in_its_bucket(&lin, 4, true, 4);
	in_its_bucket(&lin, 1000, true, 4);
}

/* --hist of durations: the labels say the unit, JSON names the value duration_ns (in ns). */
static void test_hist_durations(void **state)
{
	struct count_row rows[2];
	char *s;

	/* Three 300 ms calls (2^28 <= 3e8 < 2^29) and one of 1.5 us. */
	row(&rows[0], 2, 29, 3, 0);
	row(&rows[1], 2, 11, 1, 0);
	s = render_hist(rows, 2, REPORT_JSON);
	assert_string_equal(s, "{\"type\":\"hist\",\"func\":\"tp:sched_switch\",\"value\":\"duration_ns\",\"count\":4,\"buckets\":["
			       "{\"min\":1024,\"max\":2047,\"count\":1},"
			       "{\"min\":268435456,\"max\":536870911,\"count\":3}],"
			       "\"p50\":536870911,\"p90\":536870911,\"p99\":536870911,\"max\":536870911}\n");
	free(s);
	s = render_hist(rows, 2, REPORT_TEXT);
	assert_non_null(strstr(s, "tp:sched_switch: duration (4 calls)\n"
				  "[1.02us, 2.05us)                  1 |@@@@@@@@@@@@@@@@@                                   |\n"
				  "[2.05us, 4.1us)                   0 |"));
	assert_non_null(strstr(s, "\n[268ms, 537ms)                    3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
				  "p50 < 537ms  p90 < 537ms  p99 < 537ms  max < 537ms\n\n"));
	free(s);
	/* The max BPF kept (the top bucket's row's): exact, in units, and in ns in JSON. */
	for (int i = 0; i < 2; i++)	/* (printing sorted them by bucket) */
		rows[i].max = rows[i].sub == 29 ? 300123456 : 1500;
	s = render_hist_max(rows, 2, REPORT_TEXT, true);
	assert_non_null(strstr(s, "p50 < 537ms  p90 < 537ms  p99 < 537ms  max = 300ms\n"));
	free(s);
	s = render_hist_max(rows, 2, REPORT_JSON, true);
	assert_non_null(strstr(s, "\"p50\":536870911,\"p90\":536870911,\"p99\":536870911,\"max\":300123456}"));
	free(s);
}

/* Bucket labels: log2 as bpftrace's, linear from --hist=linear, durations in units. */
static void test_hist_labels(void **state)
{
	struct hist_scale log2 = {}, dur = { .duration = true };
	struct hist_scale lin = { .linear = true, .min = 0, .step = 10, .nbuckets = 10 };
	struct hist_scale one = { .linear = true, .min = -2, .step = 1, .nbuckets = 4 };
	char buf[64];

	hist__label(&log2, 8, buf, sizeof(buf));
	assert_string_equal(buf, "[128, 256)");
	hist__label(&dur, 18, buf, sizeof(buf));
	assert_string_equal(buf, "[131us, 262us)");
	hist__label(&dur, 10, buf, sizeof(buf));
	assert_string_equal(buf, "[512ns, 1.02us)");
	hist__label(&dur, 0, buf, sizeof(buf));
	assert_string_equal(buf, "[0ns]");
	hist__label(&dur, 31, buf, sizeof(buf));
	assert_string_equal(buf, "[1.07s, 2.15s)");
	hist__label(&lin, -1, buf, sizeof(buf));
	assert_string_equal(buf, "(..., 0)");
	hist__label(&lin, 0, buf, sizeof(buf));
	assert_string_equal(buf, "[0, 10)");
	hist__label(&lin, 9, buf, sizeof(buf));
	assert_string_equal(buf, "[90, 100)");
	hist__label(&lin, 10, buf, sizeof(buf));
	assert_string_equal(buf, "[100, ...)");
	/* A step of 1: each bucket one value; a negative MIN. */
	hist__label(&one, 0, buf, sizeof(buf));
	assert_string_equal(buf, "[-2]");
	hist__label(&one, -1, buf, sizeof(buf));
	assert_string_equal(buf, "(..., -2)");
	/* Values in units: three significant digits, whole seconds from 1000 s. */
	hist__value_str(&dur, false, 999, buf, sizeof(buf));
	assert_string_equal(buf, "999ns");
	hist__value_str(&dur, false, 1000, buf, sizeof(buf));
	assert_string_equal(buf, "1us");
	hist__value_str(&dur, false, 1500000, buf, sizeof(buf));
	assert_string_equal(buf, "1.5ms");
	hist__value_str(&dur, false, 1ULL << 40, buf, sizeof(buf));
	assert_string_equal(buf, "1100s");
}

/* Percentiles off the buckets: values 1..100 in log2 and in linear buckets of 10. */
static void test_hist_percentiles(void **state)
{
	struct report_bucket lg[] = { { 1, 1 }, { 2, 2 }, { 3, 4 }, { 4, 8 }, { 5, 16 }, { 6, 32 },
				      { 7, 37 } };
	struct report_bucket ln[11];
	struct hist_scale log2 = {};
	struct hist_scale lin = { .linear = true, .min = 0, .step = 10, .nbuckets = 10 };
	char buf[64];
	int i;

	assert_int_equal(hist__percentile(lg, 7, 100, 50), 5);	/* the 50th: [32, 64) */
	assert_int_equal(hist__percentile(lg, 7, 100, 90), 6);
	assert_int_equal(hist__percentile(lg, 7, 100, 99), 6);
	assert_int_equal(hist__percentile(lg, 7, 0, 50), 7);		/* nothing counted */
	/* A total not a multiple of 100: the rank rounds up (p50 of 3 is the 2nd). */
	assert_int_equal(hist__percentile(lg, 3, 3, 50), 1);
	assert_int_equal(hist__percentile(lg, 3, 3, 34), 1);
	assert_int_equal(hist__percentile(lg, 3, 3, 33), 0);
	/* 63 calls up to [32, 64): p63 is there, p64 one bucket on. */
	assert_int_equal(hist__percentile(lg, 7, 100, 63), 5);
	assert_int_equal(hist__percentile(lg, 7, 100, 64), 6);
	hist__bound_str(&log2, lg[5].bucket, buf, sizeof(buf));
	assert_string_equal(buf, "< 64");
	hist__bound_str(&log2, 0, buf, sizeof(buf));
	assert_string_equal(buf, "= 0");
	hist__bound_str(&log2, -1, buf, sizeof(buf));
	assert_string_equal(buf, "< 0");
	/* 1..9 in [0, 10), ten in each up to [90, 100), 100 above. */
	for (i = 0; i < 11; i++)
		ln[i] = (struct report_bucket){ i, i == 0 ? 9 : i == 10 ? 1 : 10 };
	hist__bound_str(&lin, ln[hist__percentile(ln, 11, 100, 50)].bucket, buf, sizeof(buf));
	assert_string_equal(buf, "< 60");
	hist__bound_str(&lin, ln[hist__percentile(ln, 11, 100, 90)].bucket, buf, sizeof(buf));
	assert_string_equal(buf, "< 100");
	hist__bound_str(&lin, ln[hist__percentile(ln, 11, 100, 99)].bucket, buf, sizeof(buf));
	assert_string_equal(buf, "< 100");
	hist__bound_str(&lin, 10, buf, sizeof(buf));
	assert_string_equal(buf, ">= 100");
}

static struct by_kind by_comm(void *ctx, __u32 id)
{
	return (struct by_kind){ .by = id == 1 ? KSNOOP_BY_INT : KSNOOP_BY_COMM, .is_signed = true };
}

static void key_row(struct count_row *r, __u32 func, __s32 sub, __u64 count, const char *comm,
		    __s64 num)
{
	row(r, func, sub, count, 0);
	r->has_key = true;
	if (comm)
		memcpy(r->key, comm, strlen(comm));
	else
		memcpy(r->key, &num, sizeof(num));
}

/* --by: a key column (text), "by" and "key" (JSON); a function's keys the busiest first. */
static void test_by_rows(void **state)
{
	struct counts_fmt f = { .func_name = name_of, .by = "comm", .by_kind = by_comm };
	struct count_row rows[4];
	struct report r;
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	key_row(&rows[0], 0, -1, 3, "sshd", 0);
	key_row(&rows[1], 0, -1, 5, "bash\n", 0);
	assert_non_null(out);
	counts__sort(rows, 2);
	report__init(&r, out, REPORT_TEXT);
	counts__print(&r, rows, 2, &f);
	report__init(&r, out, REPORT_JSON);
	counts__print(&r, rows, 2, &f);
	/* Histograms: ip_output's key is a signed integer. */
	key_row(&rows[0], 0, 3, 1, "sshd", 0);
	key_row(&rows[1], 0, 1, 2, "bash", 0);
	key_row(&rows[2], 0, 2, 2, "bash", 0);
	key_row(&rows[3], 1, 0, 1, NULL, -7);
	report__init(&r, out, REPORT_TEXT);
	assert_int_equal(counts__print_hist(&r, rows, 4, &f, value_of), 0);
	f.by = "arg1";
	report__init(&r, out, REPORT_JSON);
	assert_int_equal(counts__print_hist(&r, &rows[3], 1, &f, value_of), 0);
	fclose(out);
	assert_string_equal(buf,
		"       CALLS  comm              FUNCTION\n"
		"           5  bash\\n            tcp_v4_connect\n"
		"           3  sshd              tcp_v4_connect\n"
		"{\"type\":\"count\",\"func\":\"tcp_v4_connect\",\"by\":\"comm\",\"key\":\"bash\\n\",\"count\":5}\n"
		"{\"type\":\"count\",\"func\":\"tcp_v4_connect\",\"by\":\"comm\",\"key\":\"sshd\",\"count\":3}\n"
		"tcp_v4_connect [comm bash]: return (4 calls)\n"
		"[1]                               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[2, 4)                            2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"p50 = 1  p90 < 4  p99 < 4  max < 4\n"
		"\n"
		"tcp_v4_connect [comm sshd]: return (1 call)\n"
		"[4, 8)                            1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"p50 < 8  p90 < 8  p99 < 8  max < 8\n"
		"\n"
		"ip_output [comm -7]: skb->len (1 call)\n"
		"[0]                               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"p50 = 0  p90 = 0  p99 = 0  max = 0\n"
		"\n"
		"{\"type\":\"hist\",\"func\":\"ip_output\",\"by\":\"arg1\",\"key\":-7,\"value\":\"skb->len\","
		"\"count\":1,\"buckets\":[{\"min\":0,\"max\":0,\"count\":1}],"
		"\"p50\":0,\"p90\":0,\"p99\":0,\"max\":0}\n");
	free(buf);
}

/*
 * --by VALUE: a number key prints as the event prints its value (the
 * printer's own formatting): an enumerator by name, an error code with
 * its errno's name, ':sym' as a symbol; JSON keeps the number and puts
 * the name beside it.  Types built in memory: enum drop_reason, int.
 */
static struct btf *key_btf;
static struct value_desc key_desc[3];

static struct by_kind by_value_key(void *ctx, __u32 id)
{
	return (struct by_kind){ .by = KSNOOP_BY_INT, .is_signed = id == 1, .btf = key_btf, .desc = &key_desc[id] };
}

static int sym_of(void *ctx, __u64 addr, char *buf, size_t sz)
{
	if (addr != 0xffffffff81000040ULL)
		return -1;
	snprintf(buf, sz, "tcp_prot");
	return 0;
}

static const char *key_func(void *ctx, __u32 id)
{
	static const char *const names[] = { "tp:kfree_skb", "sys:openat", "tp:sched_switch" };

	return names[id];
}

static void test_by_keys_print_as_values(void **state)
{
	struct counts_fmt f = { .func_name = key_func, .by = "reason", .by_kind = by_value_key,
				.symbolize = sym_of };
	struct count_row rows[2];
	struct report r;
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);
	int e, i, ul;

	key_btf = btf__new_empty();
	assert_non_null(key_btf);
	i = btf__add_int(key_btf, "int", 4, BTF_INT_SIGNED);
	ul = btf__add_int(key_btf, "unsigned long", 8, 0);
	e = btf__add_enum(key_btf, "skb_drop_reason", 4);
	assert_int_equal(btf__add_enum_value(key_btf, "SKB_DROP_REASON_NOT_SPECIFIED", 2), 0);
	assert_int_equal(btf__add_enum_value(key_btf, "SKB_DROP_REASON_NO_SOCKET", 3), 0);
	assert_true(i > 0 && e > 0);
	key_desc[0] = (struct value_desc){ .text = "reason", .type_id = e, .obj_id = e,
					   .how = PRINT_VALUE, .size = 4, .obj_size = 4 };
	key_desc[1] = (struct value_desc){ .text = "return", .type_id = i, .obj_id = i,
					   .how = PRINT_VALUE, .size = 4, .obj_size = 4,
					   .errno_names = true };
	key_desc[2] = (struct value_desc){ .text = "prot", .type_id = ul, .obj_id = ul,
					   .how = PRINT_VALUE, .size = 8, .obj_size = 8,
					   .fmt = FMT_SYM };
	assert_non_null(out);
	key_row(&rows[0], 0, -1, 5, NULL, 3);
	key_row(&rows[1], 0, -1, 2, NULL, 9);	/* no enumerator: the number */
	report__init(&r, out, REPORT_TEXT);
	counts__print(&r, rows, 2, &f);
	report__init(&r, out, REPORT_JSON);
	counts__print(&r, rows, 2, &f);
	f.by = "return";
	key_row(&rows[0], 1, -1, 4, NULL, -2);
	key_row(&rows[1], 1, -1, 1, NULL, 7);
	report__init(&r, out, REPORT_TEXT);
	counts__print(&r, rows, 2, &f);
	report__init(&r, out, REPORT_JSON);
	counts__print(&r, rows, 1, &f);
	f.by = "prot:sym";
	key_row(&rows[0], 2, -1, 3, NULL, (__s64)0xffffffff81000040ULL);
	report__init(&r, out, REPORT_TEXT);
	counts__print(&r, rows, 1, &f);
	report__init(&r, out, REPORT_JSON);
	counts__print(&r, rows, 1, &f);
	fclose(out);
	assert_string_equal(buf,
		"       CALLS  reason            FUNCTION\n"
		"           5  SKB_DROP_REASON_NO_SOCKET  tp:kfree_skb\n"
		"           2  9                 tp:kfree_skb\n"
		"{\"type\":\"count\",\"func\":\"tp:kfree_skb\",\"by\":\"reason\",\"key\":3,"
		"\"key_name\":\"SKB_DROP_REASON_NO_SOCKET\",\"count\":5}\n"
		"{\"type\":\"count\",\"func\":\"tp:kfree_skb\",\"by\":\"reason\",\"key\":9,\"count\":2}\n"
		"       CALLS  return            FUNCTION\n"
		"           4  -2 (ENOENT)       sys:openat\n"
		"           1  7                 sys:openat\n"
		"{\"type\":\"count\",\"func\":\"sys:openat\",\"by\":\"return\",\"key\":-2,"
		"\"key_name\":\"ENOENT\",\"count\":4}\n"
		"       CALLS  prot:sym          FUNCTION\n"
		"           3  tcp_prot          tp:sched_switch\n"
		"{\"type\":\"count\",\"func\":\"tp:sched_switch\",\"by\":\"prot:sym\",\"key\":18446744071578845248,"
		"\"key_name\":\"tcp_prot\",\"count\":3}\n");
	free(buf);
	btf__free(key_btf);
}

/*
 * --by comm,return and return,comm,pid: a key of several parts, each where
 * the plan put it in the key's bytes (the value first), printed in the
 * order given: a text column each, and in JSON one named field each in a
 * "key" object, the errno's name beside the number as for one key.
 */
static struct btf *parts_btf;
static struct value_desc parts_desc;

static struct by_kind by_parts2(void *ctx, __u32 id)
{
	return (struct by_kind){ .by = KSNOOP_BY_INT, .is_signed = true, .btf = parts_btf,
				 .desc = &parts_desc, .nparts = 2,
				 .part = { KSNOOP_BY_COMM, KSNOOP_BY_INT }, .off = { 64, 0 } };
}

static struct by_kind by_parts3(void *ctx, __u32 id)
{
	return (struct by_kind){ .by = KSNOOP_BY_INT, .is_signed = true, .btf = parts_btf,
				 .desc = &parts_desc, .nparts = 3,
				 .part = { KSNOOP_BY_INT, KSNOOP_BY_COMM, KSNOOP_BY_PID },
				 .off = { 0, 64, 80 } };
}

/* A row of sys:openat (function 1) keyed by RET, COMM and PID as the plan lays them out. */
static void parts_row(struct count_row *r, __s32 sub, __u64 count, __s64 ret, const char *comm,
		      __u64 pid)
{
	row(r, 1, sub, count, 0);
	r->has_key = true;
	memcpy(r->key, &ret, sizeof(ret));
	memcpy(r->key + 64, comm, strlen(comm));
	memcpy(r->key + 80, &pid, sizeof(pid));
}

static void test_by_parts(void **state)
{
	struct counts_fmt f = { .func_name = key_func, .by = "comm,return", .by_kind = by_parts2,
				.nby = 2, .by_names = { "comm", "return" } };
	struct count_row rows[3];
	struct report r;
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);
	int i;

	parts_btf = btf__new_empty();
	assert_non_null(parts_btf);
	i = btf__add_int(parts_btf, "int", 4, BTF_INT_SIGNED);
	assert_true(i > 0);
	parts_desc = (struct value_desc){ .text = "return", .type_id = i, .obj_id = i,
					  .how = PRINT_VALUE, .size = 4, .obj_size = 4,
					  .errno_names = true };
	assert_non_null(out);
	parts_row(&rows[0], -1, 3, -2, "kbya", 0);
	parts_row(&rows[1], -1, 4, -20, "kbyb", 0);
	parts_row(&rows[2], -1, 2, -20, "kbya", 0);
	counts__sort(rows, 3);
	report__init(&r, out, REPORT_TEXT);
	counts__print(&r, rows, 3, &f);
	report__init(&r, out, REPORT_JSON);
	counts__print(&r, rows, 1, &f);
	/* Three parts, the value first. */
	f.by_kind = by_parts3;
	f.nby = 3;
	f.by_names[0] = "return";
	f.by_names[1] = "comm";
	f.by_names[2] = "pid";
	parts_row(&rows[0], -1, 4, -20, "kbyb", 4242);
	report__init(&r, out, REPORT_TEXT);
	counts__print(&r, rows, 1, &f);
	report__init(&r, out, REPORT_JSON);
	counts__print(&r, rows, 1, &f);
	/* A histogram's key, every part in its title; --stats a column each. */
	parts_row(&rows[0], 1, 2, -2, "kbya", 7);
	report__init(&r, out, REPORT_TEXT);
	assert_int_equal(counts__print_hist(&r, rows, 1, &f, value_of), 0);
	counts__print_stats(&r, rows, 1, &f, value_of);
	fclose(out);
	assert_string_equal(buf,
		"       CALLS  comm              return            FUNCTION\n"
		"           4  kbyb              -20 (ENOTDIR)     sys:openat\n"
		"           3  kbya              -2 (ENOENT)       sys:openat\n"
		"           2  kbya              -20 (ENOTDIR)     sys:openat\n"
		"{\"type\":\"count\",\"func\":\"sys:openat\",\"by\":\"comm,return\","
		"\"key\":{\"comm\":\"kbyb\",\"return\":-20,\"return_name\":\"ENOTDIR\"},\"count\":4}\n"
		"       CALLS  return            comm              pid               FUNCTION\n"
		"           4  -20 (ENOTDIR)     kbyb              4242              sys:openat\n"
		"{\"type\":\"count\",\"func\":\"sys:openat\",\"by\":\"return,comm,pid\","
		"\"key\":{\"return\":-20,\"return_name\":\"ENOTDIR\",\"comm\":\"kbyb\",\"pid\":4242},\"count\":4}\n"
		"sys:openat [return -2 (ENOENT), comm kbya, pid 7]: skb->len (2 calls)\n"
		"[1]                               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"p50 = 1  p90 = 1  p99 = 1  max = 1\n"
		"\n"
		"       CALLS            SUM            MIN            MAX            AVG  return            comm              pid               FUNCTION(VALUE)\n"
		"           2              0              0              0            0.0  -2 (ENOENT)       kbya              7                 sys:openat(skb->len)\n");
	free(buf);
	btf__free(parts_btf);
}

static struct by_kind by_flow(void *ctx, __u32 id)
{
	return (struct by_kind){ .by = id == 2 ? KSNOOP_BY_SOCK_TUPLE : KSNOOP_BY_SKB_TUPLE };
}

/* A row of FUNC keyed by the UDP flow 10.0.0.1:SPORT > 10.0.0.2:53 (ipv6: [::1]), as BPF keys it. */
static void flow_row(struct count_row *r, __u32 func, __s32 sub, __u64 count, __u16 sport,
		     bool ipv6)
{
	struct ksnoop_skb_tuple t = { .network_header = 64, .transport_header = ipv6 ? 104 : 84,
				      .read = KSNOOP_TUPLE_L3 | KSNOOP_TUPLE_L4 };

	if (ipv6) {
		t.l3[0] = 0x60;
		t.l3[6] = 17;
		t.l3[23] = t.l3[39] = 1;
	} else {
		t.l3[0] = 0x45;
		t.l3[9] = 17;
		t.l3[12] = t.l3[16] = 10;
		t.l3[15] = 1;
		t.l3[19] = 2;
	}
	t.l4[0] = sport >> 8;
	t.l4[1] = sport & 0xff;
	t.l4[3] = 53;
	ksnoop_skb_tuple_key(&t);
	row(r, func, sub, count, 0);
	r->has_key = true;
	memcpy(r->key, &t, sizeof(t));
}

/* --by skb:tuple: the key is the flow, as ':tuple' prints it (text) and its object (JSON). */
static void test_by_tuple_rows(void **state)
{
	struct counts_fmt f = { .func_name = name_of, .by = "skb:tuple", .by_kind = by_flow };
	struct ksnoop_sock_tuple unix_sock = { .family = 1 };
	struct count_row rows[3];
	struct report r;
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	flow_row(&rows[0], 0, -1, 3, 5000, false);
	flow_row(&rows[1], 0, -1, 7, 5001, true);
	row(&rows[2], 2, -1, 1, 0);
	rows[2].has_key = true;
	memcpy(rows[2].key, &unix_sock, sizeof(unix_sock));
	counts__sort(rows, 3);
	report__init(&r, out, REPORT_TEXT);
	counts__print(&r, rows, 3, &f);
	report__init(&r, out, REPORT_JSON);
	counts__print(&r, rows, 3, &f);
	flow_row(&rows[0], 1, 2, 4, 5000, false);
	report__init(&r, out, REPORT_TEXT);
	assert_int_equal(counts__print_hist(&r, rows, 1, &f, value_of), 0);
	fclose(out);
	assert_string_equal(buf,
		"       CALLS  skb:tuple         FUNCTION\n"
		"           7  [::1]:5001 > [::1]:53 udp  tcp_v4_connect\n"
		"           3  10.0.0.1:5000 > 10.0.0.2:53 udp  tcp_v4_connect\n"
		"           1  ? (not an IPv4 or IPv6 socket: family 1)  tp:sched_switch\n"
		"{\"type\":\"count\",\"func\":\"tcp_v4_connect\",\"by\":\"skb:tuple\",\"key\":{\"family\":\"ipv6\",\"src\":\"::1\",\"sport\":5001,\"dst\":\"::1\",\"dport\":53,\"proto\":\"udp\"},\"count\":7}\n"
		"{\"type\":\"count\",\"func\":\"tcp_v4_connect\",\"by\":\"skb:tuple\",\"key\":{\"family\":\"ipv4\",\"src\":\"10.0.0.1\",\"sport\":5000,\"dst\":\"10.0.0.2\",\"dport\":53,\"proto\":\"udp\"},\"count\":3}\n"
		"{\"type\":\"count\",\"func\":\"tp:sched_switch\",\"by\":\"skb:tuple\",\"key\":{\"family\":null,\"src\":null,\"sport\":null,\"dst\":null,\"dport\":null,\"proto\":null,\"unknown\":\"not an IPv4 or IPv6 socket\"},\"count\":1}\n"
		"ip_output [skb:tuple 10.0.0.1:5000 > 10.0.0.2:53 udp]: skb->len (4 calls)\n"
		"[2, 4)                            4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"p50 < 4  p90 < 4  p99 < 4  max < 4\n"
		"\n");
	free(buf);
}

/* What FN(R) writes to the report's FILE and to stderr, in FORMAT. */
static void capture(enum report_format format, void (*fn)(struct report *r), char **out,
		    char **err)
{
	FILE *o, *e = tmpfile();
	int saved = dup(2);
	struct report r;
	size_t sz = 0, n;

	*out = NULL;
	o = open_memstream(out, &sz);
	assert_non_null(o);
	assert_non_null(e);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(e), 2) == 2);
	report__init(&r, o, format);
	fn(&r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fclose(o);
	n = (size_t)ftell(e);
	*err = calloc(1, n + 1);
	rewind(e);
	assert_int_equal(fread(*err, 1, n, e), n);
	fclose(e);
}

static void summary_events(struct report *r)
{
	report__lost(r, 17);
	report__summary(r, &(struct report_summary){ .printed = 5, .lost = 17, .unprinted = 3,
						     .missed = 2 });
}

static void summary_counts(struct report *r)
{
	report__summary(r, &(struct report_summary){ .counting = true, .counted = 9,
						     .count_full = 1, .stack_lost = 4,
						     .stash_full = 6, .hist_unread = 8, .own = 11 });
}

/* --tree: inner calls not recorded, then trees dropped or not started, by why. */
static void summary_tree(struct report *r)
{
	report__summary(r, &(struct report_summary){ .printed = 2, .tree = true,
						     .tree_dropped = 5, .tree_exited = 1,
						     .tree_exec = 10, .tree_no_room = 3 });
}

static void test_summary_tree(void **state)
{
	char *out, *err;

	capture(REPORT_TEXT, summary_tree, &out, &err);
	assert_string_equal(out, "");
	assert_string_equal(err,
		"ksnoop: 2 events printed, 0 lost, 5 inner calls not recorded in trees, "
		"1 trees dropped (their task exited inside), "
		"10 trees dropped (their thread called exec inside), "
		"3 trees not started (too many tasks in trees at once)\n");
	free(out);
	free(err);
	capture(REPORT_JSON, summary_tree, &out, &err);
	assert_string_equal(err, "");
	assert_string_equal(out,
		"{\"type\":\"summary\",\"printed\":2,\"lost\":0,\"not_printed\":0,"
		"\"not_counted\":0,\"unreadable\":0,\"stacks_not_taken\":0,\"not_followed\":0,"
		"\"missed\":0,\"tree_calls_not_recorded\":5,\"trees_task_exited\":1,"
		"\"trees_thread_exec\":10,\"trees_not_started\":3}\n");
	free(out);
	free(err);
}

/* Text: the notices on stderr, as ksnoop always printed them; nothing on stdout. */
static void test_notices_text(void **state)
{
	char *out, *err;

	capture(REPORT_TEXT, summary_events, &out, &err);
	assert_string_equal(out, "");
	assert_string_equal(err,
		"ksnoop: warning: 17 events lost so far (ring buffer full; try --buffer)\n"
		"ksnoop: 5 events printed, 17 lost, 3 captured but not printed (stopped first), "
		"2 calls missed (the kernel skipped the program: it fired inside a BPF "
		"program, or on a CPU where a preempted run of it had not ended)\n");
	free(out);
	free(err);
	capture(REPORT_FOLDED, summary_counts, &out, &err);
	assert_string_equal(out, "");
	assert_string_equal(err,
		"ksnoop: 9 calls counted, 1 calls not counted (counts map full), "
		"8 calls whose value could not be read, 4 stacks not taken (stacks map full), "
		"6 calls not followed (stash full), 11 of ksnoop's own calls left out\n");
	free(out);
	free(err);
}

/*
 * JSON: each notice a record on the report's FILE, every total named (ksnoop's
 * own calls left out only when there were some); nothing on stderr.
 */
static void test_notices_json(void **state)
{
	char *out, *err;

	capture(REPORT_JSON, summary_events, &out, &err);
	assert_string_equal(err, "");
	assert_string_equal(out,
		"{\"type\":\"lost\",\"lost\":17}\n"
		"{\"type\":\"summary\",\"printed\":5,\"lost\":17,\"not_printed\":3,"
		"\"not_counted\":0,\"unreadable\":0,\"stacks_not_taken\":0,\"not_followed\":0,"
		"\"missed\":2}\n");
	free(out);
	free(err);
	capture(REPORT_JSON, summary_counts, &out, &err);
	assert_string_equal(err, "");
	assert_string_equal(out,
		"{\"type\":\"summary\",\"counted\":9,\"not_printed\":0,\"not_counted\":1,"
		"\"unreadable\":8,\"stacks_not_taken\":4,\"not_followed\":6,\"missed\":0,"
		"\"own_left_out\":11}\n");
	free(out);
	free(err);
}

/* log.c's errors and warnings with -j: the message escaped, "type" first. */
static void test_json_message(void **state)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	log_json_message(out, "error", "no \"x\"\n\x1b[2J");
	log_json_message(out, "warning", "left out");
	fclose(out);
	assert_string_equal(buf, "{\"type\":\"error\",\"error\":\"no \\\"x\\\"\\n\\u001b[2J\"}\n"
				 "{\"type\":\"warning\",\"warning\":\"left out\"}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_busiest_first),
		cmocka_unit_test(test_combine_cpus),
		cmocka_unit_test(test_text_and_json),
		cmocka_unit_test(test_interval_rows),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_user_stacks),
		cmocka_unit_test(test_folded_semicolon_in_names),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_hist_bars_scaled),
		cmocka_unit_test(test_by_keys_print_as_values),
		cmocka_unit_test(test_by_parts),
		cmocka_unit_test(test_hist_top_bucket_labels),
		cmocka_unit_test(test_hist_durations),
		cmocka_unit_test(test_hist_labels),
		cmocka_unit_test(test_hist_percentiles),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_by_rows),
		cmocka_unit_test(test_by_tuple_rows),
		cmocka_unit_test(test_notices_text),
		cmocka_unit_test(test_summary_tree),
		cmocka_unit_test(test_notices_json),
		cmocka_unit_test(test_json_message),
		cmocka_unit_test(test_hist_bucket_of_value),
	};

	return cmocka_run_group_tests_name("counts", tests, NULL, NULL);
}
