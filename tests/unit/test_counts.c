// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for --count's report (ksnoop/counts.c): rows as the counts
 * and stacks maps would give them, printed as text, JSON and folded stacks
 * and compared with the expected text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "counts.h"

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

static char *render(const struct count_row *rows, size_t n, enum counts_style style, bool stacks)
{
	struct counts_fmt f = { .style = style, .stacks = stacks, .func_name = name_of,
				.symbolize = symbolize };
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	counts__print(out, rows, n, &f);
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

static void test_text_and_json(void **state)
{
	struct count_row rows[2];
	char *s;

	row(&rows[0], 1, -1, 1234567, 0);
	row(&rows[1], 2, -1, 1, 0);
	s = render(rows, 2, COUNTS_TEXT, false);
	assert_string_equal(s, "       CALLS  FUNCTION\n"
			       "     1234567  ip_output\n"
			       "           1  tp:sched_switch\n");
	free(s);
	s = render(rows, 2, COUNTS_JSON, false);
	assert_string_equal(s, "{\"func\":\"ip_output\",\"count\":1234567}\n"
			       "{\"func\":\"tp:sched_switch\",\"count\":1}\n");
	free(s);
	s = render(rows, 2, COUNTS_FOLDED, false);
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
	s = render(rows, 3, COUNTS_TEXT, true);
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
	s = render(rows, 3, COUNTS_JSON, true);
	assert_string_equal(s, "{\"func\":\"tcp_v4_connect\",\"stack\":[\"tcp_v4_connect+0x5\","
			       "\"__inet_stream_connect+0x124\",\"__sys_connect+0x9c\"],\"count\":3}\n"
			       "{\"func\":\"ip_output\",\"stack\":[\"dummy_xmit+0x10 [dummy]\","
			       "\"0xffffffff81000000\"],\"count\":2}\n"
			       "{\"func\":\"ip_output\",\"stack\":null,\"count\":1}\n");
	free(s);
	/* Folded: outermost first, names only, the function last (once). */
	s = render(rows, 3, COUNTS_FOLDED, true);
	assert_string_equal(s, "__sys_connect;__inet_stream_connect;tcp_v4_connect 3\n"
			       "0xffffffff81000000;dummy_xmit;ip_output 2\n"
			       "ip_output 1\n");
	free(s);
}

static struct hist_value value_of(void *ctx, __u32 id)
{
	if (id == 2)
		return (struct hist_value){ "duration_ns", "duration in ns" };
	return id == 0 ? (struct hist_value){ "return", "return" } :
			 (struct hist_value){ "skb->len", "skb->len" };
}

static char *render_hist(struct count_row *rows, size_t n, enum counts_style style)
{
	struct counts_fmt f = { .style = style, .func_name = name_of };
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	assert_non_null(out);
	counts__print_hist(out, rows, n, &f, value_of);
	fclose(out);
	return buf;
}

/* --interval: JSON rows say which period they close and when; text rows do not change. */
static void test_interval_rows(void **state)
{
	struct counts_fmt f = { .style = COUNTS_JSON, .func_name = name_of,
				.interval = 2, .time_ns = 5000 };
	struct count_row rows[1];
	char *buf = NULL;
	size_t sz = 0;
	FILE *out = open_memstream(&buf, &sz);

	row(&rows[0], 1, 3, 7, 0);
	assert_non_null(out);
	counts__print(out, rows, 1, &f);
	counts__print_hist(out, rows, 1, &f, value_of);
	f.style = COUNTS_TEXT;
	counts__print(out, rows, 1, &f);
	fclose(out);
	assert_string_equal(buf,
		"{\"interval\":2,\"time_ns\":5000,\"func\":\"ip_output\",\"count\":7}\n"
		"{\"interval\":2,\"time_ns\":5000,\"func\":\"ip_output\",\"value\":\"skb->len\","
		"\"count\":7,\"buckets\":[{\"min\":4,\"max\":7,\"count\":7}]}\n"
		"       CALLS  FUNCTION\n"
		"           7  ip_output\n");
	free(buf);
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
	s = render_hist(rows, 4, COUNTS_TEXT);
	assert_string_equal(s,
		"tcp_v4_connect: return (7 calls)\n"
		"(..., 0)                          2 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"[0]                               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[1]                               0 |                                                    |\n"
		"[2, 4)                            0 |                                                    |\n"
		"[4, 8)                            1 |@@@@@@@@@@@@@                                       |\n"
		"\n"
		"ip_output: skb->len (8 calls)\n"
		"[64, 128)                         8 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"\n");
	free(s);
	s = render_hist(rows, 4, COUNTS_JSON);
	assert_string_equal(s,
		"{\"func\":\"tcp_v4_connect\",\"value\":\"return\",\"count\":7,\"buckets\":["
		"{\"min\":null,\"max\":-1,\"count\":2},{\"min\":0,\"max\":0,\"count\":4},"
		"{\"min\":4,\"max\":7,\"count\":1}]}\n"
		"{\"func\":\"ip_output\",\"value\":\"skb->len\",\"count\":8,\"buckets\":["
		"{\"min\":64,\"max\":127,\"count\":8}]}\n");
	free(s);
	/* The top bucket: values from 2^63 up. */
	row(&rows[4], 1, 64, 1, 0);
	s = render_hist(&rows[4], 1, COUNTS_JSON);
	assert_string_equal(s, "{\"func\":\"ip_output\",\"value\":\"skb->len\",\"count\":1,\"buckets\":["
			       "{\"min\":9223372036854775808,\"max\":18446744073709551615,\"count\":1}]}\n");
	free(s);
}

/* The top buckets' labels: [2^61, 2^62), [2^62, 2^63), and from 2^63 on, open. */
static void test_hist_top_bucket_labels(void **state)
{
	struct count_row rows[2];
	char *s;

	row(&rows[0], 1, 62, 2, 0);
	row(&rows[1], 1, 64, 1, 0);
	s = render_hist(rows, 2, COUNTS_TEXT);
	assert_string_equal(s,
		"ip_output: skb->len (3 calls)\n"
		"[2305843009213693952, 4611686018427387904)          2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		"[4611686018427387904, 9223372036854775808)          0 |                                                    |\n"
		"[2^63, ...)                       1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		"\n");
	free(s);
}

/* --hist of durations: the text says the unit, JSON names the value duration_ns. */
static void test_hist_durations(void **state)
{
	struct count_row rows[2];
	char *s;

	/* Three 300 ms calls (2^28 <= 3e8 < 2^29) and one of 1.5 us. */
	row(&rows[0], 2, 29, 3, 0);
	row(&rows[1], 2, 11, 1, 0);
	s = render_hist(rows, 2, COUNTS_JSON);
	assert_string_equal(s, "{\"func\":\"tp:sched_switch\",\"value\":\"duration_ns\",\"count\":4,\"buckets\":["
			       "{\"min\":1024,\"max\":2047,\"count\":1},"
			       "{\"min\":268435456,\"max\":536870911,\"count\":3}]}\n");
	free(s);
	s = render_hist(rows, 2, COUNTS_TEXT);
	assert_non_null(strstr(s, "tp:sched_switch: duration in ns (4 calls)\n"
				  "[1024, 2048)                      1 |@@@@@@@@@@@@@@@@@@                                  |\n"
				  "[2048, 4096)                      0 |"));
	assert_non_null(strstr(s, "\n[268435456, 536870912)            3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sorted_busiest_first),
		cmocka_unit_test(test_text_and_json),
		cmocka_unit_test(test_interval_rows),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_hist_top_bucket_labels),
		cmocka_unit_test(test_hist_durations),
	};

	return cmocka_run_group_tests_name("counts", tests, NULL, NULL);
}
