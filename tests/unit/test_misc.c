// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the small modules: suggestions by edit distance
 * (ksnoop/lib/suggest.c), the kallsyms reader (ksnoop/kernel/ksyms.c) on temporary
 * files, and kernel BTF lookup (ksnoop/kernel/kbtf.c) on BTF built in memory or
 * written as raw BTF files into a temporary directory, never /sys; the
 * errors kernel.c builds on them, and whose they are (their exit status).
 *
 * Tests marked "Regression (fixed)" guard bugs these tests found.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "duration.h"
#include "kbtf.h"
#include "ksyms.h"
#include "suggest.h"
#include "kernel.h"

/* ---- durations ---- */

#define S_NS 1000000000ULL

/* TEXT parses to WANT ns with DEFAULT_UNIT (0: a unit is required). */
static void parses_to(const char *text, __u64 default_unit, __u64 want)
{
	struct ks_error e = { 0 };
	__u64 ns = 0;
	int err = duration__parse(text, default_unit, &ns, &e);

	if (err || ns != want)
		print_message("'%s': %d (%s), %llu ns; expected %llu\n", text, err, e.msg,
			      (unsigned long long)ns, (unsigned long long)want);
	assert_int_equal(err, 0);
	assert_true(ns == want);
}

/* TEXT is refused with ERR and a message containing MSG. */
static void refused(const char *text, __u64 default_unit, int err, const char *msg)
{
	struct ks_error e = { 0 };
	__u64 ns = 12345;
	int ret = duration__parse(text, default_unit, &ns, &e);

	if (ret != err || !strstr(e.msg, msg))
		print_message("'%s': %d \"%s\"; expected %d \"...%s...\"\n", text, ret, e.msg, err, msg);
	assert_int_equal(ret, err);
	assert_int_equal(e.err, err);
	assert_non_null(strstr(e.msg, msg));
	assert_true(ns == 12345);	/* untouched */
}

static void test_duration_units(void **state)
{
	parses_to("150ms", 0, 150000000ULL);
	parses_to("1.5ms", 0, 1500000ULL);
	parses_to("7ns", 0, 7);
	parses_to("250us", 0, 250000);
	parses_to("2s", 0, 2 * S_NS);
	parses_to("0.000000001s", 0, 1);
	parses_to(".5s", 0, S_NS / 2);
	parses_to("31536000s", 0, DURATION_MAX_NS);	/* a year, the most */
}

/* --duration: a bare number is seconds, fractions too (0.5 was refused once). */
static void test_duration_default_unit(void **state)
{
	parses_to("0.5", S_NS, S_NS / 2);
	parses_to("3", S_NS, 3 * S_NS);
	parses_to("500ms", S_NS, 500000000ULL);
	parses_to("1.25", S_NS, 1250000000ULL);
}

static void test_duration_refused(void **state)
{
	refused("150", 0, -EINVAL, "needs a unit (ns, us, ms, s)");
	refused("", S_NS, -EINVAL, "is not a time");
	refused("ms", 0, -EINVAL, "is not a time");
	refused(".", S_NS, -EINVAL, "is not a time");
	refused("-1s", 0, -EINVAL, "is not a time");
	refused(" 1s", 0, -EINVAL, "is not a time");
	refused("+1s", 0, -EINVAL, "is not a time");
	refused("10m", 0, -EINVAL, "unknown unit 'm'");
	refused("10 ms", 0, -EINVAL, "unknown unit ' ms'");
	refused("1e3ms", 0, -EINVAL, "unknown unit 'e3ms'");
	refused("1.5.2ms", 0, -EINVAL, "unknown unit '.2ms'");
	refused("0", S_NS, -ERANGE, "no time at all");
	refused("0.0ms", 0, -ERANGE, "no time at all");
	refused("1.5ns", 0, -ERANGE, "finer than a nanosecond");
	refused("0.0000000001s", 0, -ERANGE, "finer than a nanosecond");
	refused("31536001s", 0, -ERANGE, "longer than a year");
	refused("99999999999999999999", S_NS, -ERANGE, "longer than a year");
	refused("18446744073709551615ns", 0, -ERANGE, "longer than a year");
}

static const char *formatted(__u64 ns)
{
	static char buf[48];

	duration__format(ns, buf, sizeof(buf));
	return buf;
}

/* Three decimals in the largest unit reached, cut rather than rounded. */
static void test_duration_format(void **state)
{
	assert_string_equal(formatted(0), "0 ns");
	assert_string_equal(formatted(999), "999 ns");
	assert_string_equal(formatted(1000), "1.000 us");
	assert_string_equal(formatted(12345), "12.345 us");
	assert_string_equal(formatted(999999), "999.999 us");
	assert_string_equal(formatted(200107999), "200.107 ms");
	assert_string_equal(formatted(1500000000ULL), "1.500 s");
	assert_string_equal(formatted(~0ULL), "18446744073.709 s");
}

/* ---- suggest ---- */

/* The suggestion for TARGET among the NULL-terminated candidates. */
static const char *suggest_among(struct suggest *s, const char *target, ...)
{
	const char *c;
	va_list ap;

	suggest__init(s, target);
	va_start(ap, target);
	while ((c = va_arg(ap, const char *)))
		suggest__consider(s, c);
	va_end(ap);
	return suggest__best(s);
}

static void test_suggest_nothing_considered(void **state)
{
	struct suggest s;

	suggest__init(&s, "ip_send_skb");
	assert_null(suggest__best(&s));
}

static void test_suggest_close_name(void **state)
{
	struct suggest s;

	assert_string_equal(suggest_among(&s, "ip_send_skb", "tcp_sendmsg", "ip_send_skbs", NULL),
			    "ip_send_skbs");
	/* A transposition is two edits, still within the limit. */
	assert_string_equal(suggest_among(&s, "ip_send_skb", "ip_sned_skb", NULL), "ip_sned_skb");
}

static void test_suggest_far_names_not_suggested(void **state)
{
	struct suggest s;

	assert_null(suggest_among(&s, "ip_send_skb", "tcp_sendmsg", "udp_send_skb2", "ip", NULL));
	assert_null(suggest_among(&s, "ip_send_skb", "IP_SEND_SKB", NULL));
}

static void test_suggest_exact_match_is_not_a_suggestion(void **state)
{
	struct suggest s;

	assert_null(suggest_among(&s, "ip_send_skb", "ip_send_skb", NULL));
}

static void test_suggest_closest_wins(void **state)
{
	struct suggest s;

	assert_string_equal(suggest_among(&s, "ip_send_skb", "ip_sned_skb", "ip_send_sk", NULL),
			    "ip_send_sk");
	assert_string_equal(suggest_among(&s, "ip_send_skb", "ip_send_sk", "ip_sned_skb", NULL),
			    "ip_send_sk");
}

static void test_suggest_ties_alphabetical(void **state)
{
	struct suggest s;

	assert_string_equal(suggest_among(&s, "abcd", "abcf", "abce", NULL), "abce");
	assert_string_equal(suggest_among(&s, "abcd", "abce", "abcf", NULL), "abce");
}

static void test_suggest_limit_grows_with_length(void **state)
{
	struct suggest s;

	/* 18 characters: up to 4 edits. */
	assert_string_equal(suggest_among(&s, "tcp_retransmit_skb", "tcp_retrans_skb", NULL),
			    "tcp_retrans_skb");
	assert_string_equal(suggest_among(&s, "tcp_retransmit_skb", "tcp_retransmit", NULL),
			    "tcp_retransmit");
	assert_null(suggest_among(&s, "tcp_retransmit_skb", "tcp_retransmi", NULL));
	/* 11 characters: 2 edits, not 3. */
	assert_string_equal(suggest_among(&s, "ip_send_skb", "ip_send_s", NULL), "ip_send_s");
	assert_null(suggest_among(&s, "ip_send_skb", "ip_sen_s", NULL));
	assert_null(suggest_among(&s, "ip_send_skb", "xp_sxnd_skx", NULL));
}

static void test_suggest_long_names_ignored(void **state)
{
	char target[200], cand[200];
	struct suggest s;

	memset(target, 'a', 150);
	target[150] = 0;
	memset(cand, 'a', 149);
	cand[149] = 0;
	assert_null(suggest_among(&s, target, cand, NULL));
	/* A long candidate for a short target is skipped, not truncated. */
	assert_null(suggest_among(&s, "aaaa", cand, NULL));
}

/* ---- ksyms ---- */

static char tmp_path[64];

static int remove_tmp(void **state)
{
	if (tmp_path[0])
		unlink(tmp_path);
	tmp_path[0] = 0;
	return 0;
}

/* Write TEXT to a new temporary file; its path is tmp_path. */
static const char *write_tmp(const char *text)
{
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/ksnoop-test-kallsyms-XXXXXX");
	fd = mkstemp(tmp_path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return tmp_path;
}

static const char kallsyms[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 t do_one_initcall\n"
	"ffffffff81002000 W weak_fn\n"
	"ffffffff81002100 w weak_local\n"
	"ffffffff81003000 t dup_static\n"
	"ffffffff82000000 D some_data\n"
	"ffffffff82000100 d local_data\n"
	"ffffffff82000200 B bss_sym\n"
	"ffffffff82000300 r rodata_sym\n"
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffff81004000 t dup_static\n"
	"malformed-line-without-spaces\n"
	"ffffffff81005000 Tx not_a_type\n"
	"ffffffffc0001000 t e1000_probe\t[e1000]\n"
	"ffffffffc0002000 T nft_register_chain\t[nf_tables]\n"
	"ffffffffc0003000 t dup_static\t[e1000]\n"
	"ffffffffc0004000 d e1000_data\t[e1000]\n"
	"ffffffff81006000 T last_without_newline";

static struct ksyms *load_sample(void)
{
	struct ksyms *ks = ksyms__load(write_tmp(kallsyms));

	assert_non_null(ks);
	return ks;
}

static void test_ksyms_text_symbols_only(void **state)
{
	struct ksyms *ks = load_sample();

	/* _stext, do_one_initcall, weak_fn, weak_local, 3 x dup_static,
	 * e1000_probe, nft_register_chain, last_without_newline */
	assert_int_equal(ksyms__count(ks), 10);
	assert_non_null(ksyms__find(ks, "_stext"));
	assert_non_null(ksyms__find(ks, "do_one_initcall"));
	assert_non_null(ksyms__find(ks, "weak_fn"));
	assert_non_null(ksyms__find(ks, "weak_local"));
	assert_null(ksyms__find(ks, "some_data"));
	assert_null(ksyms__find(ks, "local_data"));
	assert_null(ksyms__find(ks, "bss_sym"));
	assert_null(ksyms__find(ks, "rodata_sym"));
	assert_null(ksyms__find(ks, "fixed_percpu_data"));
	assert_null(ksyms__find(ks, "e1000_data"));
	assert_null(ksyms__find(ks, "not_a_type"));
	ksyms__free(ks);
}

/*
 * kallsyms is read a chunk at a time (256 KiB): a file of several chunks,
 * lines across their edges, names of many lengths, every symbol kept with
 * its module and address.
 */
static void test_ksyms_many_chunks(void **state)
{
	enum { N = 40000 };
	size_t cap = (size_t)N * 80, len = 0;
	char *text = malloc(cap), name[64];
	const struct ksym *sym;
	struct ksyms *ks;
	int i;

	assert_non_null(text);
	for (i = 0; i < N; i++)
		len += snprintf(text + len, cap - len, "%016llx %c fn_%d_%.*s%s\n",
				0xffffffff81000000ULL + 16ULL * i, i % 2 ? 't' : 'T', i,
				i % 37, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz",
				i % 5 == 0 ? "\t[mod_x]" : "");
	ks = ksyms__load(write_tmp(text));
	free(text);
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), N);
	for (i = 0; i < N; i += 997) {
		snprintf(name, sizeof(name), "fn_%d_%.*s", i, i % 37,
			 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
		sym = ksyms__at(ks, i);
		assert_string_equal(sym->name, name);
		assert_true(sym->addr == 0xffffffff81000000ULL + 16ULL * i);
		if (i % 5 == 0)
			assert_string_equal(sym->module, "mod_x");
		else
			assert_null(sym->module);
		assert_ptr_equal(ksyms__find(ks, name), sym);
	}
	/* Searched in the text, names across the chunks' edges are found too. */
	for (i = 0; i < N; i += 331) {
		struct ksym_found f;

		snprintf(name, sizeof(name), "fn_%d_%.*s", i, i % 37,
			 "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz");
		assert_int_equal(ksyms__scan_name(tmp_path, name, &f, 1), 1);
		assert_true(f.addr == 0xffffffff81000000ULL + 16ULL * i);
		assert_string_equal(f.module, i % 5 == 0 ? "mod_x" : "");
	}
	ksyms__free(ks);
}

/*
 * A name searched in kallsyms' text (ksyms__scan_name()) finds what the
 * table does: whole names of function symbols only, modules, the last line.
 */
static void test_ksyms_scan_name(void **state)
{
	struct ksym_found f[4];
	const struct ksym *t[4];
	const char *path = write_tmp(kallsyms);
	struct ksyms *ks = ksyms__load(path);
	static const char *const names[] = {
		"dup_static", "do_one_initcall", "weak_local", "last_without_newline",
		"e1000_data", "not_a_type", "weak", "dup", "local_data", "e1000_probe",
	};

	assert_non_null(ks);
	assert_int_equal(ksyms__scan_name(path, "dup_static", f, 4), 3);
	assert_true(f[0].addr == 0xffffffff81003000ULL && !f[0].module[0]);
	assert_true(f[1].addr == 0xffffffff81004000ULL && !f[1].module[0]);
	assert_true(f[2].addr == 0xffffffffc0003000ULL);
	assert_string_equal(f[2].module, "e1000");
	/* More than MAX: the count, the first MAX. */
	assert_int_equal(ksyms__scan_name(path, "dup_static", f, 1), 3);
	assert_true(f[0].addr == 0xffffffff81003000ULL);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int n = ksyms__scan_name(path, names[i], f, 4);

		assert_int_equal(n, (int)ksyms__find_all(ks, names[i], t, 4));
		for (int j = 0; j < n; j++)
			assert_true(f[j].addr == t[j]->addr);
	}
	assert_int_equal(ksyms__scan_name("/nonexistent/kallsyms", "x", f, 4), -ENOENT);
	ksyms__free(ks);
}

/*
 * Names searched for together (ksyms__scan_names(), one read of the file)
 * find what each finds alone: counts beyond MAX, each name's own slots,
 * a name twice, and "" (nothing).
 */
static void test_ksyms_scan_names(void **state)
{
	static const char *const names[] = {
		"dup_static", "do_one_initcall", "weak", "e1000_probe", "dup_static", "",
		"last_without_newline", "not_a_type",
	};
	enum { NN = sizeof(names) / sizeof(names[0]), MAX = 2 };
	struct ksym_found all[NN * MAX], one[MAX];
	const char *path = write_tmp(kallsyms);
	int counts[NN];

	assert_int_equal(ksyms__scan_names(path, names, NN, "tTwW", all, MAX, counts), 0);
	assert_int_equal(counts[0], 3);
	for (int i = 0; i < NN; i++) {
		int n = ksyms__scan_name(path, names[i], one, MAX);

		assert_int_equal(counts[i], n);
		for (int j = 0; j < n && j < MAX; j++) {
			assert_true(all[i * MAX + j].addr == one[j].addr);
			assert_string_equal(all[i * MAX + j].module, one[j].module);
		}
	}
	assert_int_equal(ksyms__scan_names("/nonexistent/kallsyms", names, NN, "tT", all, MAX, counts),
			 -ENOENT);
}

/* A line longer than a chunk is dropped whole: its tail is no symbol of its own. */
static void test_ksyms_overlong_line(void **state)
{
	size_t long_len = 600 << 10, len = 0;
	char *text = malloc(long_len + 128);
	struct ksyms *ks;

	assert_non_null(text);
	len += sprintf(text, "ffffffff81000000 T before\n");
	memset(text + len, 'x', long_len);
	len += long_len;
	len += sprintf(text + len, " T fake_tail\nffffffff81001000 T after\n");
	ks = ksyms__load(write_tmp(text));
	free(text);
	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 2);
	assert_non_null(ksyms__find(ks, "before"));
	assert_non_null(ksyms__find(ks, "after"));
	assert_null(ksyms__find(ks, "fake_tail"));
	ksyms__free(ks);
}

/* Addresses to names: the nearest function at or below, with its offset. */
static void test_ksyms_by_addr(void **state)
{
	struct ksyms *ks = load_sample();
	unsigned long long off = 99;
	const struct ksym *s;

	s = ksyms__by_addr(ks, 0xffffffff81001010ULL, &off);
	assert_non_null(s);
	assert_string_equal(s->name, "do_one_initcall");
	assert_int_equal(off, 0x10);
	s = ksyms__by_addr(ks, 0xffffffffc0001000ULL, &off);
	assert_string_equal(s->name, "e1000_probe");
	assert_string_equal(s->module, "e1000");
	assert_int_equal(off, 0);
	/* Below the first function, or far past the last one: unknown. */
	assert_null(ksyms__by_addr(ks, 0xffffffff80000000ULL, &off));
	assert_null(ksyms__by_addr(ks, 0xffffffffc0004000ULL + KSYMS_MAX_OFFSET + 1, &off));
	ksyms__free(ks);
}

static void test_ksyms_modules(void **state)
{
	struct ksyms *ks = load_sample();
	const struct ksym *s;

	s = ksyms__find(ks, "e1000_probe");
	assert_non_null(s);
	assert_string_equal(s->name, "e1000_probe");
	assert_string_equal(s->module, "e1000");
	s = ksyms__find(ks, "nft_register_chain");
	assert_non_null(s);
	assert_string_equal(s->module, "nf_tables");
	s = ksyms__find(ks, "_stext");
	assert_null(s->module);
	ksyms__free(ks);
}

static void test_ksyms_last_line_without_newline(void **state)
{
	struct ksyms *ks = load_sample();
	const struct ksym *s = ksyms__find(ks, "last_without_newline");

	assert_non_null(s);
	assert_string_equal(s->name, "last_without_newline");
	assert_null(s->module);
	ksyms__free(ks);
}

static void test_ksyms_duplicates(void **state)
{
	struct ksyms *ks = load_sample();
	const struct ksym *s = ksyms__find(ks, "dup_static");
	size_t i, n = 0, in_module = 0, first = SIZE_MAX;

	assert_non_null(s);
	for (i = 0; i < ksyms__count(ks); i++) {
		const struct ksym *k = ksyms__at(ks, i);

		if (strcmp(k->name, "dup_static"))
			continue;
		if (first == SIZE_MAX)
			first = i;
		n++;
		in_module += k->module && strcmp(k->module, "e1000") == 0;
	}
	assert_int_equal(n, 3);
	assert_int_equal(in_module, 1);
	/* find() returns the first of the equal names. */
	assert_ptr_equal(s, ksyms__at(ks, first));
	ksyms__free(ks);
}

static void test_ksyms_find_steps_back_to_first_duplicate(void **state)
{
	/* Enough copies that the binary search lands past the first. */
	struct ksyms *ks = ksyms__load(write_tmp(
		"1 t a_first\n"
		"2 t same\n3 t same\n4 t same\n5 t same\n6 t same\n7 t same\n8 t same\n"
		"9 t z_last\n"));
	const struct ksym *s;

	assert_non_null(ks);
	assert_int_equal(ksyms__count(ks), 9);
	s = ksyms__find(ks, "same");
	assert_ptr_equal(s, ksyms__at(ks, 1));
	ksyms__free(ks);
}

static void test_ksyms_trailing_space_is_not_a_module(void **state)
{
	struct ksyms *ks = ksyms__load(write_tmp("ffffffff81000000 T spaced \n"));
	const struct ksym *s;

	assert_non_null(ks);
	s = ksyms__find(ks, "spaced");
	assert_non_null(s);
	assert_null(s->module);
	ksyms__free(ks);
}

/*
 * The table keeps the file's order; the first lookups scan it, later ones
 * use a name index: both find the same symbol, the first of equal names.
 */
static void test_ksyms_scan_and_index_agree(void **state)
{
	struct ksyms *ks = load_sample();
	const struct ksym *scanned[64];
	size_t n = ksyms__count(ks), i, round;

	assert_true(n < 64);
	assert_null(ksyms__at(ks, n));
	for (round = 0; round < 3; round++) {
		/* Round 0 scans (few lookups so far); rounds 1 and 2 use the index. */
		for (i = 0; i < n; i++) {
			const struct ksym *s = ksyms__find(ks, ksyms__at(ks, i)->name);
			size_t j;

			assert_non_null(s);
			for (j = 0; j < n && strcmp(ksyms__at(ks, j)->name, s->name); j++)
				;
			assert_ptr_equal(s, ksyms__at(ks, j));
			if (round == 0)
				scanned[i] = s;
			else
				assert_ptr_equal(s, scanned[i]);
		}
		assert_null(ksyms__find(ks, "no_such_symbol"));
	}
	ksyms__free(ks);
}

static void test_ksyms_no_partial_matches(void **state)
{
	struct ksyms *ks = load_sample();

	assert_null(ksyms__find(ks, "e1000"));
	assert_null(ksyms__find(ks, "e1000_probe_"));
	assert_null(ksyms__find(ks, ""));
	ksyms__free(ks);
}

static void test_ksyms_missing_file(void **state)
{
	errno = 0;
	assert_null(ksyms__load("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);
}

/*
 * Run FN in a child process so that a sanitizer abort fails one test, not
 * the whole binary.  FN returns 0 for success; the child exits with it.
 */
static int in_child(int (*fn)(const char *), const char *arg)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fn(arg));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int load_empty_and_find(const char *path)
{
	struct ksyms *ks = ksyms__load(path);

	if (!ks)
		return 10;
	if (ksyms__count(ks) != 0)
		return 11;
	if (ksyms__find(ks, "anything"))
		return 12;
	ksyms__free(ks);
	return 0;
}

/*
 * Regression (fixed): ksyms.c ksyms__load()/ksyms__find(): with no text symbols, qsort()
 * and bsearch() get a NULL array (undefined behaviour; UBSan aborts with
 * "null pointer passed as argument 1, which is declared to never be null").
 */
static void test_ksyms_no_text_symbols(void **state)
{
	int rc = in_child(load_empty_and_find, write_tmp("ffffffff82000000 D some_data\n"));

	assert_int_equal(rc, 0);
}

/* Regression (fixed): same as above, for an empty file. */
static void test_ksyms_empty_file(void **state)
{
	int rc = in_child(load_empty_and_find, write_tmp(""));

	assert_int_equal(rc, 0);
}

/* ---- kbtf ---- */

/* vmlinux-like BTF: int, struct a_struct, FUNC foo(int) and FUNC bar(void). */
static struct btf *make_vmlinux(void)
{
	struct btf *b = btf__new_empty();
	int int_t, proto;

	assert_non_null(b);
	int_t = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	assert_true(btf__add_struct(b, "a_struct", 4) > 0);
	assert_int_equal(btf__add_field(b, "x", int_t, 0, 0), 0);
	proto = btf__add_func_proto(b, int_t);
	assert_int_equal(btf__add_func_param(b, "x", int_t), 0);
	assert_true(btf__add_func(b, "foo", BTF_FUNC_GLOBAL, proto) > 0);
	proto = btf__add_func_proto(b, 0);
	assert_true(btf__add_func(b, "bar", BTF_FUNC_STATIC, proto) > 0);
	return b;
}

static void test_kbtf_from_btf_finds_function(void **state)
{
	struct btf *vmlinux = make_vmlinux();
	struct kbtf *kb = kbtf__from_btf(vmlinux);
	struct btf *found = NULL;
	const char *module = "unset";
	__u32 id = 0;

	assert_non_null(kb);
	assert_ptr_equal(kbtf__vmlinux(kb), vmlinux);
	assert_int_equal(kbtf__find_func(kb, "foo", NULL, 0, &found, &id, &module), 0);
	assert_ptr_equal(found, vmlinux);
	assert_null(module);
	assert_int_equal(id, btf__find_by_name_kind(vmlinux, "foo", BTF_KIND_FUNC));
	assert_int_equal(kbtf__find_func(kb, "bar", NULL, 1, &found, &id, &module), 0);
	assert_int_equal(id, btf__find_by_name_kind(vmlinux, "bar", BTF_KIND_FUNC));
	kbtf__free(kb);	/* frees vmlinux too */
}

static void test_kbtf_from_btf_unknown_function(void **state)
{
	struct kbtf *kb = kbtf__from_btf(make_vmlinux());
	struct btf *found = NULL;
	const char *module = NULL;
	__u32 id = 0;

	assert_int_equal(kbtf__find_func(kb, "nope", NULL, 0, &found, &id, &module), -ENOENT);
	assert_int_equal(kbtf__find_func(kb, "nope", NULL, 1, &found, &id, &module), -ENOENT);
	/* A type that is not a FUNC is not a function. */
	assert_int_equal(kbtf__find_func(kb, "a_struct", NULL, 1, &found, &id, &module), -ENOENT);
	kbtf__free(kb);
}

static void test_kbtf_from_btf_has_no_modules(void **state)
{
	struct kbtf *kb = kbtf__from_btf(make_vmlinux());
	struct btf *found = NULL;
	const char *module = "unset";
	__u32 id = 0;

	errno = 0;
	assert_null(kbtf__module(kb, "e1000"));
	assert_int_equal(errno, ENOENT);
	/* A function asked for in a module is still found in vmlinux. */
	assert_int_equal(kbtf__find_func(kb, "foo", "e1000", 0, &found, &id, &module), 0);
	assert_ptr_equal(found, kbtf__vmlinux(kb));
	assert_null(module);
	kbtf__free(kb);
}

static void count_source(struct btf *btf, const char *module, void *ctx)
{
	char *seen = ctx;

	strcat(seen, module ? module : "vmlinux");
	strcat(seen, ";");
}

static void test_kbtf_for_each_vmlinux_only(void **state)
{
	struct kbtf *kb = kbtf__from_btf(make_vmlinux());
	char seen[128] = "";

	kbtf__for_each(kb, count_source, seen);
	assert_string_equal(seen, "vmlinux;");
	kbtf__free(kb);
	kbtf__free(NULL);
}

/* A BTF directory like /sys/kernel/btf: vmlinux and module e1000. */
static char btf_dir[64];

static void write_raw(const char *name, const struct btf *b)
{
	char path[128];
	__u32 size;
	const void *data = btf__raw_data(b, &size);
	FILE *f;

	assert_non_null(data);
	snprintf(path, sizeof(path), "%s/%s", btf_dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
}

static int make_btf_dir(void **state)
{
	struct btf *vmlinux, *mod;
	int int_t, proto;

	snprintf(btf_dir, sizeof(btf_dir), "/tmp/ksnoop-test-btf-XXXXXX");
	if (!mkdtemp(btf_dir))
		return -1;
	vmlinux = make_vmlinux();
	write_raw("vmlinux", vmlinux);
	/* Module BTF is split BTF on top of vmlinux. */
	mod = btf__new_empty_split(vmlinux);
	int_t = btf__find_by_name_kind(vmlinux, "int", BTF_KIND_INT);
	proto = btf__add_func_proto(mod, int_t);
	btf__add_func_param(mod, "adapter", int_t);
	btf__add_func(mod, "e1000_probe", BTF_FUNC_GLOBAL, proto);
	write_raw("e1000", mod);
	btf__free(mod);
	btf__free(vmlinux);
	return 0;
}

static int remove_btf_dir(void **state)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/vmlinux", btf_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/e1000", btf_dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/available_filter_functions", btf_dir);
	unlink(path);
	rmdir(btf_dir);
	return 0;
}

/* ---- kernel.c's errors: the message, and the errno that sets the exit status ---- */

/* A kernel of BTF in BTF_DIR, kallsyms at KALLSYMS and ftrace's list at FTRACE (NULL: defaults). */
static struct kernel *new_kernel(const char *dir, const char *kallsyms, const char *ftrace)
{
	struct kernel *k = kernel__new(dir);

	assert_non_null(k);
	if (kallsyms)
		kernel__set_kallsyms_path(k, kallsyms);
	if (ftrace)
		kernel__set_ftrace_path(k, ftrace);
	return k;
}

static void test_target_unknown_function_is_usage(void **state)
{
	struct kernel *k = new_kernel(btf_dir, write_tmp("ffffffff81000000 T foo\n"), NULL);
	struct signature sig;
	struct ks_error e;

	assert_int_equal(kernel__func(k, "fooo", &sig, &e), -ENOENT);
	assert_int_equal(e.err, -ENOENT);
	assert_int_equal(e.pos, 0);
	assert_string_equal(e.msg, "unknown kernel function 'fooo' (did you mean 'foo'?)");
	assert_int_equal(ks_exit_status(e.err), KSNOOP_EXIT_USAGE);
	assert_int_equal(kernel__func(k, "foo", &sig, &e), 0);
	kernel__free(k);
}

/* In BTF, not in kallsyms: shown by info, refused for tracing; the user's. */
static void test_target_not_in_kallsyms_is_usage(void **state)
{
	struct kernel *k = new_kernel(btf_dir, write_tmp("ffffffff81000000 T foo\n"), NULL);
	struct signature sig;
	struct ks_error e;

	assert_int_equal(kernel__func(k, "bar", &sig, &e), -EINVAL);
	assert_non_null(sig.btf);
	assert_string_equal(e.msg, "'bar' is in BTF but not in kallsyms (inlined or removed at build time), so it cannot be traced");
	assert_int_equal(ks_exit_status(e.err), KSNOOP_EXIT_USAGE);
	kernel__free(k);
}

/* The verdicts a glob's matches get, by name: "-" for traceable. */
static void glob_verdicts(struct kernel *k, char *out, size_t sz)
{
	struct func_match *m;
	struct ks_error e;
	size_t len = 0;
	int n, i;

	kernel__prefetch_ksyms(k, true);
	assert_int_equal(kernel__open(k, &e), 0);
	n = kernel__match_funcs(k, NULL, "*", &m, &e);
	assert_true(n > 0);
	out[0] = 0;
	for (i = 0; i < n; i++) {
		const char *why = kernel__func_refused(k, &m[i]);

		len += snprintf(out + len, sz - len, "%s: %.6s; ", m[i].name, why ? why : "-");
		assert_true(len < sz);
	}
	free(m);
}

/*
 * A glob: where ftrace's list can be read it alone decides (every name in
 * it is in kallsyms), and kallsyms is not read; where it cannot, kallsyms.
 */
static void test_glob_verdicts_from_ftrace_list_alone(void **state)
{
	char ftrace[128], verdicts[512], sym[64];
	struct kernel *k;
	FILE *f;

	snprintf(ftrace, sizeof(ftrace), "%s/available_filter_functions", btf_dir);
	f = fopen(ftrace, "w");
	assert_non_null(f);
	fputs("bar\ne1000_probe [e1000]\n", f);
	fclose(f);
	k = new_kernel(btf_dir, write_tmp("ffffffff81000000 T foo\n"), ftrace);
	glob_verdicts(k, verdicts, sizeof(verdicts));
	assert_non_null(strstr(verdicts, "foo: ftrace; "));
	assert_non_null(strstr(verdicts, "bar: -; "));
	assert_non_null(strstr(verdicts, "e1000_probe: -; "));
	/* kallsyms was not read: gone now, it names nothing. */
	unlink(tmp_path);
	assert_int_equal(kernel__symbolize(k, 0xffffffff81000010ULL, sym, sizeof(sym)), -ENOENT);
	kernel__free(k);

	/* No list: kallsyms decides, and is read (and kept). */
	k = new_kernel(btf_dir, write_tmp("ffffffff81000000 T foo\n"), "/nonexistent/ftrace");
	glob_verdicts(k, verdicts, sizeof(verdicts));
	assert_non_null(strstr(verdicts, "foo: -; "));
	assert_non_null(strstr(verdicts, "bar: not in; "));
	unlink(tmp_path);
	assert_int_equal(kernel__symbolize(k, 0xffffffff81000010ULL, sym, sizeof(sym)), 0);
	assert_string_equal(sym, "foo+0x10");
	kernel__free(k);
}

/*
 * A kallsyms name longer than the caller's buffer (5,000 characters, in a
 * recording anyone can write) is cut, not its offset and module: the
 * frame still says where in the function it is.
 */
static void test_symbolize_long_name_keeps_offset(void **state)
{
	static char text[6000], want[64];
	char sym[512];
	struct kernel *k;
	int n;

	n = snprintf(text, sizeof(text), "ffffffff81000000 T ");
	memset(text + n, 'a', 5000);
	snprintf(text + n + 5000, sizeof(text) - n - 5000, " [mod]\n");
	k = new_kernel(btf_dir, write_tmp(text), NULL);
	assert_int_equal(kernel__symbolize(k, 0xffffffff81000010ULL, sym, sizeof(sym)), 0);
	unlink(tmp_path);
	assert_int_equal(strlen(sym), sizeof(sym) - 1);
	snprintf(want, sizeof(want), "aaa...+0x10 [mod]");
	assert_string_equal(sym + strlen(sym) - strlen(want), want);
	assert_memory_equal(sym, text + n, 100);
	/* A smaller buffer: the name is cut more, the rest is all there. */
	assert_int_equal(kernel__symbolize(k, 0xffffffff81000010ULL, sym, 24), 0);
	assert_string_equal(sym, "aaaaaaaaa...+0x10 [mod]");
	kernel__free(k);
}

/*
 * Regression (fixed): a glob that matched nothing closed the kernel while
 * the thread was still reading the ftrace list (freed under it: SIGSEGV
 * in the VM; here ASan or LeakSanitizer sees what the thread left).
 */
static void test_close_while_prefetching(void **state)
{
	char ftrace[128];
	FILE *f;
	int i;

	snprintf(ftrace, sizeof(ftrace), "%s/available_filter_functions", btf_dir);
	f = fopen(ftrace, "w");
	assert_non_null(f);
	for (i = 0; i < 20000; i++)
		fprintf(f, "func_%d\n", i);
	fclose(f);
	for (i = 0; i < 20; i++) {
		struct kernel *k = new_kernel(btf_dir, "/nonexistent/kallsyms", ftrace);

		kernel__prefetch_ksyms(k, true);
		kernel__free(k);
	}
}

static void test_target_unknown_tracepoint_is_usage(void **state)
{
	struct kernel *k = new_kernel(btf_dir, NULL, NULL);
	struct signature sig;
	struct ks_error e;

	assert_int_equal(kernel__tp(k, "sched_switch", &sig, &e), -ENOENT);
	assert_string_equal(e.msg, "unknown tracepoint 'sched_switch'");
	assert_int_equal(ks_exit_status(e.err), KSNOOP_EXIT_USAGE);
	kernel__free(k);
}

/* No kernel BTF, or no kallsyms: the machine's, not the user's (-ENOENT would say 2). */
static void test_target_missing_btf_is_runtime(void **state)
{
	struct kernel *k = new_kernel("/nonexistent/btf", NULL, NULL);
	struct signature sig;
	struct ks_error e;
	int err;

	err = kernel__open(k, &e);
	assert_int_equal(err, e.err);
	assert_int_equal(ks_exit_status(err), KSNOOP_EXIT_RUNTIME);
	assert_string_equal(e.msg, "cannot read kernel BTF from /nonexistent/btf/vmlinux: No such file or directory (the kernel needs CONFIG_DEBUG_INFO_BTF)");
	err = kernel__tp(k, "x", &sig, &e);
	assert_int_equal(err, e.err);
	assert_int_equal(ks_exit_status(err), KSNOOP_EXIT_RUNTIME);
	kernel__free(k);
}

static void test_target_missing_kallsyms_is_runtime(void **state)
{
	struct kernel *k = new_kernel(btf_dir, "/nonexistent/kallsyms", NULL);
	struct signature sig;
	struct ks_error e;
	int err;

	err = kernel__func(k, "foo", &sig, &e);
	assert_int_equal(err, e.err);
	assert_int_equal(ks_exit_status(err), KSNOOP_EXIT_RUNTIME);
	assert_string_equal(e.msg, "cannot read /nonexistent/kallsyms: No such file or directory");
	/* Asked again (a function pointer printed): the same, not read again. */
	err = kernel__func(k, "foo", &sig, &e);
	assert_int_equal(err, e.err);
	assert_int_equal(ks_exit_status(err), KSNOOP_EXIT_RUNTIME);
	kernel__free(k);
}

static void test_kbtf_open_missing_dir(void **state)
{
	errno = 0;
	assert_null(kbtf__open("/nonexistent/btf"));
	assert_int_equal(errno, ENOENT);
}

static void test_kbtf_module_function(void **state)
{
	struct kbtf *kb = kbtf__open(btf_dir);
	struct btf *found = NULL, *mod;
	const char *module = NULL;
	__u32 id = 0;

	assert_non_null(kb);
	/* Not in vmlinux, and modules are not searched unless asked. */
	assert_int_equal(kbtf__find_func(kb, "e1000_probe", NULL, 0, &found, &id, &module), -ENOENT);
	assert_int_equal(kbtf__find_func(kb, "e1000_probe", "e1000", 0, &found, &id, &module), 0);
	mod = kbtf__module(kb, "e1000");
	assert_non_null(mod);
	assert_ptr_equal(found, mod);
	assert_string_equal(module, "e1000");
	/* The id is one of the module's, above vmlinux's. */
	assert_true(id >= btf__type_cnt(kbtf__vmlinux(kb)));
	assert_string_equal(btf__name_by_offset(mod, btf__type_by_id(mod, id)->name_off),
			    "e1000_probe");
	kbtf__free(kb);
}

/* Every FUNC of each source, in name order: what a glob walks. */
static int list_func(struct btf *btf, const char *module, __u32 id, const char *name, void *ctx)
{
	char *seen = ctx;

	assert_string_equal(btf__name_by_offset(btf, btf__type_by_id(btf, id)->name_off), name);
	strcat(seen, module ? module : "vmlinux");
	strcat(seen, ":");
	strcat(seen, name);
	strcat(seen, ";");
	return 0;
}

static int stop_at_second(struct btf *btf, const char *module, __u32 id, const char *name,
			  void *ctx)
{
	return ++*(int *)ctx == 2 ? 42 : 0;
}

static void test_kbtf_for_each_func_in_name_order(void **state)
{
	struct kbtf *kb = kbtf__open(btf_dir);
	char seen[256] = "";
	int calls = 0;

	assert_non_null(kb);
	/* vmlinux's own, sorted (bar before foo), then e1000's. */
	assert_int_equal(kbtf__for_each_func(kb, NULL, list_func, seen), 0);
	assert_string_equal(seen, "vmlinux:bar;vmlinux:foo;e1000:e1000_probe;");
	seen[0] = 0;
	assert_int_equal(kbtf__for_each_func(kb, "vmlinux", list_func, seen), 0);
	assert_string_equal(seen, "vmlinux:bar;vmlinux:foo;");
	seen[0] = 0;
	assert_int_equal(kbtf__for_each_func(kb, "e1000", list_func, seen), 0);
	assert_string_equal(seen, "e1000:e1000_probe;");
	assert_int_equal(kbtf__for_each_func(kb, "nope", list_func, seen), -ENOENT);
	/* A nonzero return stops the walk and is returned. */
	assert_int_equal(kbtf__for_each_func(kb, NULL, stop_at_second, &calls), 42);
	assert_int_equal(calls, 2);
	kbtf__free(kb);
}

static void test_kbtf_index_finds_every_function(void **state)
{
	struct btf *b = btf__new_empty();
	struct kbtf *kb;
	struct btf *found;
	const char *module;
	char name[32];
	int proto, i, want[500];
	__u32 id;

	assert_non_null(b);
	proto = btf__add_func_proto(b, 0);
	/* Added out of order; two FUNCs share a name (the first id wins). */
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "f%03d", (i * 7) % 500);
		want[(i * 7) % 500] = btf__add_func(b, name, BTF_FUNC_STATIC, proto);
	}
	assert_true(btf__add_func(b, "f000", BTF_FUNC_STATIC, proto) > 0);
	kb = kbtf__from_btf(b);
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "f%03d", i);
		assert_int_equal(kbtf__find_func(kb, name, NULL, 0, &found, &id, &module), 0);
		assert_int_equal(id, want[i]);
	}
	assert_int_equal(kbtf__find_func(kb, "f", NULL, 0, &found, &id, &module), -ENOENT);
	assert_int_equal(kbtf__find_func(kb, "f5000", NULL, 0, &found, &id, &module), -ENOENT);
	assert_int_equal(kbtf__find_func(kb, "", NULL, 0, &found, &id, &module), -ENOENT);
	kbtf__free(kb);
}

static void test_kbtf_search_all_modules(void **state)
{
	struct kbtf *kb = kbtf__open(btf_dir);
	struct btf *found = NULL;
	const char *module = NULL;
	__u32 id = 0;
	char seen[128] = "";

	assert_non_null(kb);
	assert_int_equal(kbtf__find_func(kb, "e1000_probe", NULL, 1, &found, &id, &module), 0);
	assert_string_equal(module, "e1000");
	kbtf__for_each(kb, count_source, seen);
	assert_string_equal(seen, "vmlinux;e1000;");
	kbtf__free(kb);
}

static void test_kbtf_vmlinux_function_asked_in_module(void **state)
{
	struct kbtf *kb = kbtf__open(btf_dir);
	struct btf *found = NULL;
	const char *module = "unset";
	__u32 id = 0;

	assert_non_null(kb);
	/* Split BTF also sees vmlinux's types; the hit belongs to vmlinux. */
	assert_int_equal(kbtf__find_func(kb, "foo", "e1000", 0, &found, &id, &module), 0);
	assert_ptr_equal(found, kbtf__vmlinux(kb));
	assert_null(module);
	kbtf__free(kb);
}

static void test_kbtf_missing_module(void **state)
{
	struct kbtf *kb = kbtf__open(btf_dir);
	char seen[128] = "";

	assert_non_null(kb);
	errno = 0;
	assert_null(kbtf__module(kb, "nope"));
	assert_int_equal(errno, ENOENT);
	/* Remembered: asked again, the same answer. */
	errno = 0;
	assert_null(kbtf__module(kb, "nope"));
	assert_int_equal(errno, ENOENT);
	/* Names that are not module names. */
	assert_null(kbtf__module(kb, "../e1000"));
	assert_null(kbtf__module(kb, "vmlinux"));
	kbtf__for_each(kb, count_source, seen);
	assert_string_equal(seen, "vmlinux;");
	kbtf__free(kb);
}

int main(void)
{
	const struct CMUnitTest suggest_tests[] = {
		cmocka_unit_test(test_duration_units),
		cmocka_unit_test(test_duration_default_unit),
		cmocka_unit_test(test_duration_refused),
		cmocka_unit_test(test_duration_format),
		cmocka_unit_test(test_suggest_nothing_considered),
		cmocka_unit_test(test_suggest_close_name),
		cmocka_unit_test(test_suggest_far_names_not_suggested),
		cmocka_unit_test(test_suggest_exact_match_is_not_a_suggestion),
		cmocka_unit_test(test_suggest_closest_wins),
		cmocka_unit_test(test_suggest_ties_alphabetical),
		cmocka_unit_test(test_suggest_limit_grows_with_length),
		cmocka_unit_test(test_suggest_long_names_ignored),
	};
	const struct CMUnitTest ksyms_tests[] = {
		cmocka_unit_test_teardown(test_ksyms_text_symbols_only, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_many_chunks, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_scan_name, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_scan_names, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_overlong_line, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_by_addr, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_modules, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_last_line_without_newline, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_duplicates, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_find_steps_back_to_first_duplicate, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_trailing_space_is_not_a_module, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_scan_and_index_agree, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_no_partial_matches, remove_tmp),
		cmocka_unit_test(test_ksyms_missing_file),
		cmocka_unit_test_teardown(test_ksyms_no_text_symbols, remove_tmp),
		cmocka_unit_test_teardown(test_ksyms_empty_file, remove_tmp),
	};
	const struct CMUnitTest kbtf_tests[] = {
		cmocka_unit_test(test_kbtf_from_btf_finds_function),
		cmocka_unit_test(test_kbtf_from_btf_unknown_function),
		cmocka_unit_test(test_kbtf_from_btf_has_no_modules),
		cmocka_unit_test(test_kbtf_for_each_vmlinux_only),
		cmocka_unit_test(test_kbtf_index_finds_every_function),
		cmocka_unit_test(test_kbtf_open_missing_dir),
		cmocka_unit_test(test_kbtf_module_function),
		cmocka_unit_test(test_kbtf_search_all_modules),
		cmocka_unit_test(test_kbtf_for_each_func_in_name_order),
		cmocka_unit_test(test_kbtf_vmlinux_function_asked_in_module),
		cmocka_unit_test(test_kbtf_missing_module),
		cmocka_unit_test_teardown(test_target_unknown_function_is_usage, remove_tmp),
		cmocka_unit_test_teardown(test_target_not_in_kallsyms_is_usage, remove_tmp),
		cmocka_unit_test_teardown(test_glob_verdicts_from_ftrace_list_alone, remove_tmp),
		cmocka_unit_test_teardown(test_symbolize_long_name_keeps_offset, remove_tmp),
		cmocka_unit_test(test_close_while_prefetching),
		cmocka_unit_test(test_target_unknown_tracepoint_is_usage),
		cmocka_unit_test(test_target_missing_btf_is_runtime),
		cmocka_unit_test(test_target_missing_kallsyms_is_runtime),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("suggest", suggest_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("ksyms", ksyms_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("kbtf", kbtf_tests, make_btf_dir, remove_btf_dir);
	return failed;
}
