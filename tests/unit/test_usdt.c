// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * USDT pieces that need no process: the note argument syntax, its
 * locations decoded (usdt_x86.c) and made BPF specs (usdt_specs.c), the
 * reader's errors on files that are not ELF, and the spec parser's
 * argN:TYPE form.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <stdint.h>
#include <asm/ptrace.h>
#include "ksnoop_usdt.h"
#include "spec.h"
#include "usdt_note.h"
#include "usdt_specs.h"

/* TEXT parses to an argument of SIZE bytes, signed or not, at LOC. */
static void arg_is(const char *text, int size, bool is_signed, const char *loc)
{
	struct usdt_arg a;

	assert_int_equal(usdt__parse_arg(text, &a), 0);
	assert_int_equal(a.size, size);
	assert_int_equal(a.is_signed, is_signed);
	assert_string_equal(a.loc, loc);
}

static void test_arg_signed_register(void **state)
{
	arg_is("-4@%edi", 4, true, "%edi");
}

static void test_arg_unsigned_memory(void **state)
{
	arg_is("8@-16(%rbp)", 8, false, "-16(%rbp)");
}

static void test_arg_constant(void **state)
{
	arg_is("-1@$-128", 1, true, "$-128");
}

static void test_arg_errors(void **state)
{
	struct usdt_arg a;

	(void)state;
	assert_int_equal(usdt__parse_arg("0@%eax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("65536@%eax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("99999999999999999999@%eax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("@%eax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("4%eax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("4@", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("x@%eax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("f@%eax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("8ff@%eax", &a), -EINVAL);
	assert_int_equal(usdt__parse_arg("8g@%eax", &a), -EINVAL);
}

/*
 * What gcc and clang write for a struct passed by value (its size), a
 * double or long double ("f", sdt.h 4.x) and __int128: read, not refused.
 */
static void test_arg_compiler_forms(void **state)
{
	struct usdt_arg a;

	arg_is("16@%rax", 16, false, "%rax");
	arg_is("24@8(%rsp)", 24, false, "8(%rsp)");
	arg_is("3@-32(%rbp)", 3, false, "-32(%rbp)");
	arg_is("32@(%rax)", 32, false, "(%rax)");
	arg_is("-16@%rsi", 16, true, "%rsi");
	assert_int_equal(usdt__parse_arg("16f@8(%rsp)", &a), 0);
	assert_true(a.is_float);
	assert_int_equal(a.size, 16);
	assert_int_equal(usdt__parse_arg("-8f@%xmm0", &a), 0);
	assert_true(a.is_float && a.is_signed);
	assert_int_equal(usdt__parse_arg("8@%rax", &a), 0);
	assert_false(a.is_float);
}

/* Locations libbpf reads, and those it refuses (and why, in a word). */
static const char *unreadable(const char *spec)
{
	static struct usdt_arg a;
	static char why[USDT_WHY_MAX];

	assert_int_equal(usdt__parse_arg(spec, &a), 0);
	return usdt__arg_unreadable(&a, why);
}

static void test_arg_unreadable(void **state)
{
	assert_null(unreadable("-4@%edi"));
	assert_null(unreadable("8@%r15"));
	assert_null(unreadable("4@%r10d"));
	assert_null(unreadable("1@%sil"));
	assert_null(unreadable("8@-16(%rbp)"));
	assert_null(unreadable("8@(%rsp)"));
	assert_null(unreadable("4@+8(%rax)"));
	assert_null(unreadable("-1@$-128"));
	assert_null(unreadable("4@$8192"));
	/* PostgreSQL 15: a symbol's address, with or without an offset. */
	assert_null(unreadable("-4@NBuffers(%rip)"));
	assert_null(unreadable("-4@40+CheckpointStats(%rip)"));
	assert_null(unreadable("-4@CheckpointStats+40(%rip)"));
	assert_null(unreadable("-4@CheckpointStats-8(%rip)"));
	/* A scaled index, with and without a base or an offset. */
	assert_null(unreadable("8@(%rax,%rbx,8)"));
	assert_null(unreadable("-4@-1204(%rbp,%rax,4)"));
	assert_null(unreadable("4@(,%rax,4)"));
	assert_null(unreadable("4@(%rax,%rbx)"));
	assert_null(unreadable("8@$0x10"));
	assert_string_equal(unreadable("8@%xmm0"), "not a general register");
	assert_string_equal(unreadable("8@%r16"), "not a general register");
	assert_string_equal(unreadable("8@%r8q"), "not a general register");
	assert_string_equal(unreadable("8@8(%xmm1)"), "not a general register");
	assert_string_equal(unreadable("8@8(%rax)x"), "a location ksnoop does not parse");
	assert_string_equal(unreadable("8@8(rax)"), "a location ksnoop does not parse");
	assert_string_equal(unreadable("8@8"), "a location ksnoop does not parse");
	assert_string_equal(unreadable("8@$x"), "a symbol's address as a constant");
	assert_string_equal(unreadable("8@NBuffers"), "a symbol's absolute address");
	assert_string_equal(unreadable("8@NBuffers(%rax)"), "a symbol's absolute address");
	assert_string_equal(unreadable("8@a+b(%rip)"), "an expression of symbols ksnoop does not compute");
	assert_string_equal(unreadable("8@-a(%rip)"), "an expression of symbols ksnoop does not compute");
	assert_string_equal(unreadable("8@(%rax,%rbx,3)"), "a scale other than 1, 2, 4 or 8");
	assert_string_equal(unreadable("8@(%rax,%ebx,4)"), "an index that is not a 64-bit register");
	assert_string_equal(unreadable("8@(%rax,%rip,4)"), "an index that is not a 64-bit register");
	assert_string_equal(unreadable("8@()"), "a location ksnoop does not parse");
	assert_string_equal(unreadable("8@(%rax"), "a location ksnoop does not parse");
	assert_string_equal(unreadable("8@9223372036854775807+1(%rax)"), "an offset too large");
	/* The value before its place: a struct is unreadable anywhere. */
	assert_string_equal(unreadable("16@%rax"),
			    "a 16-byte value (a struct or __int128 passed by value)");
	assert_string_equal(unreadable("24@8(%rsp)"), "a 24-byte value (a struct passed by value)");
	assert_string_equal(unreadable("3@-16(%rsp)"), "a 3-byte value (a struct passed by value)");
	assert_string_equal(unreadable("8f@%rax"), "a floating-point value");
	assert_string_equal(unreadable("4f@-4(%rbp)"), "a floating-point value");
	assert_string_equal(unreadable("16@NBuffers(%rip)"),
			    "a 16-byte value (a struct or __int128 passed by value)");
}

/* libbpf 1.5 parses these itself; ksnoop attaches probes with the others. */
static bool libbpf_parses(const char *spec)
{
	struct usdt_arg a;

	assert_int_equal(usdt__parse_arg(spec, &a), 0);
	return usdt__arg_libbpf(&a);
}

static void test_arg_libbpf(void **state)
{
	assert_true(libbpf_parses("-4@%edi"));
	assert_true(libbpf_parses("8@-16(%rbp)"));
	assert_true(libbpf_parses("8@(%rsp)"));
	assert_true(libbpf_parses("-1@$-128"));
	assert_true(libbpf_parses("8@-8(%rip)"));
	assert_false(libbpf_parses("-4@NBuffers(%rip)"));
	assert_false(libbpf_parses("-4@40+CheckpointStats(%rip)"));
	assert_false(libbpf_parses("-4@-1204(%rbp,%rax,4)"));
	assert_false(libbpf_parses("8@$0x10"));
	assert_false(libbpf_parses("16@%rax"));
	assert_false(libbpf_parses("8f@%rax"));
}

/* LOC decodes to KIND, OFF, the registers at BASE and INDEX (pt_regs offsets), SCALE, SYM. */
static void loc_is(const char *loc, enum usdt_loc_kind kind, __s64 off, int base, int index,
		   int scale, const char *sym)
{
	struct usdt_loc l;

	assert_null(usdt_arch__parse_loc(loc, &l));
	assert_int_equal(l.kind, kind);
	assert_int_equal(l.off, off);
	assert_int_equal(l.base, base);
	assert_int_equal(l.index, index);
	assert_int_equal(l.scale, scale);
	assert_string_equal(l.sym, sym);
}

static void test_loc_decoded(void **state)
{
	int ip = offsetof(struct pt_regs, rip), bp = offsetof(struct pt_regs, rbp);
	int ax = offsetof(struct pt_regs, rax), r14 = offsetof(struct pt_regs, r14);
	int r10 = offsetof(struct pt_regs, r10), r11 = offsetof(struct pt_regs, r11);
	struct usdt_loc l;

	loc_is("$-7", USDT_LOC_CONST, -7, -1, -1, 1, "");
	loc_is("$0x10", USDT_LOC_CONST, 16, -1, -1, 1, "");
	loc_is("$-9223372036854775808", USDT_LOC_CONST, INT64_MIN, -1, -1, 1, "");
	loc_is("%r14d", USDT_LOC_REG, 0, r14, -1, 1, "");
	loc_is("%eax", USDT_LOC_REG, 0, ax, -1, 1, "");
	loc_is("-16(%rbp)", USDT_LOC_MEM, -16, bp, -1, 1, "");
	loc_is("NBuffers(%rip)", USDT_LOC_MEM, 0, ip, -1, 1, "NBuffers");
	loc_is("40+CheckpointStats(%rip)", USDT_LOC_MEM, 40, ip, -1, 1, "CheckpointStats");
	loc_is("CheckpointStats+40(%rip)", USDT_LOC_MEM, 40, ip, -1, 1, "CheckpointStats");
	loc_is("x.lto_priv.0-8(%rip)", USDT_LOC_MEM, -8, ip, -1, 1, "x.lto_priv.0");
	loc_is("-1204(%rbp,%rax,4)", USDT_LOC_MEM, -1204, bp, ax, 4, "");
	loc_is("(,%rax,8)", USDT_LOC_MEM, 0, -1, ax, 8, "");
	loc_is("0x10(%rbp,%rax)", USDT_LOC_MEM, 16, bp, ax, 1, "");
	/* r10 and r11 are each their own, and a scale of 2 is 2. */
	loc_is("%r10", USDT_LOC_REG, 0, r10, -1, 1, "");
	loc_is("%r11d", USDT_LOC_REG, 0, r11, -1, 1, "");
	loc_is("(%r10,%r11,2)", USDT_LOC_MEM, 0, r10, r11, 2, "");
	loc_is("2(%r11,%r10,2)", USDT_LOC_MEM, 2, r11, r10, 2, "");
	/* Past 64 bits (libbpf's sscanf() takes it as the largest long). */
	assert_string_equal(usdt_arch__parse_loc("9223372036854775808(%rax)", &l),
			    "a location ksnoop does not parse");
	assert_string_equal(usdt_arch__parse_loc("$9223372036854775808", &l),
			    "a constant ksnoop does not parse");
	assert_string_equal(usdt_arch__parse_loc("$-9223372036854775809", &l),
			    "a constant ksnoop does not parse");
}

/* The BPF spec of one argument, at a site linked at 0x1000. */
static void test_own_arg_spec(void **state)
{
	struct usdt_bpf_arg s;
	struct usdt_arg a;
	const char *why;

	/* A symbol at 0x5000, 40 bytes in: IP + (0x5000 + 40 - 0x1000). */
	assert_int_equal(usdt__parse_arg("-4@40+CheckpointStats(%rip)", &a), 0);
	assert_int_equal(usdt_own__arg_spec(&a, 0x1000, 0x5000, &s, &why), 0);
	assert_int_equal(s.arg_type, 2);	/* libbpf's REG_DEREF */
	assert_int_equal(s.reg_off, offsetof(struct pt_regs, rip));
	assert_int_equal(s.val_off, 0x4000 + 40);
	assert_true(s.arg_signed);
	assert_int_equal(s.arg_bitshift, 32);
	/* Below the site: the offset wraps, as an address does. */
	assert_int_equal(usdt__parse_arg("8@NBuffers(%rip)", &a), 0);
	assert_int_equal(usdt_own__arg_spec(&a, 0x5000, 0x1000, &s, &why), 0);
	assert_int_equal((__s64)s.val_off, -0x4000);
	assert_false(s.arg_signed);
	assert_int_equal(s.arg_bitshift, 0);
	/* A scaled index: ksnoop's type, the rest packed. */
	assert_int_equal(usdt__parse_arg("-4@-1204(%rbp,%rax,4)", &a), 0);
	assert_int_equal(usdt_own__arg_spec(&a, 0x1000, 0, &s, &why), 0);
	assert_int_equal(s.arg_type, KSNOOP_USDT_ARG_INDEXED);
	assert_int_equal(s.reg_off, offsetof(struct pt_regs, rbp));
	assert_int_equal(KSNOOP_USDT_IDX_DISP(s.val_off), -1204);
	assert_int_equal(KSNOOP_USDT_IDX_REG(s.val_off), offsetof(struct pt_regs, rax));
	assert_int_equal(KSNOOP_USDT_IDX_SHIFT(s.val_off), 2);
	assert_false(s.val_off & KSNOOP_USDT_IDX_NOBASE);
	/* Each scale as its shift: 2 is 1 (not 4's 2), 1 is 0. */
	assert_int_equal(usdt__parse_arg("-2@2(%r10,%r11,2)", &a), 0);
	assert_int_equal(usdt_own__arg_spec(&a, 0x1000, 0, &s, &why), 0);
	assert_int_equal(s.reg_off, offsetof(struct pt_regs, r10));
	assert_int_equal(KSNOOP_USDT_IDX_REG(s.val_off), offsetof(struct pt_regs, r11));
	assert_int_equal(KSNOOP_USDT_IDX_SHIFT(s.val_off), 1);
	assert_int_equal(KSNOOP_USDT_IDX_DISP(s.val_off), 2);
	assert_int_equal(s.arg_bitshift, 48);
	assert_int_equal(usdt__parse_arg("1@(%rax,%rbx,1)", &a), 0);
	assert_int_equal(usdt_own__arg_spec(&a, 0x1000, 0, &s, &why), 0);
	assert_int_equal(KSNOOP_USDT_IDX_SHIFT(s.val_off), 0);
	assert_int_equal(usdt__parse_arg("8@(,%r9,8)", &a), 0);
	assert_int_equal(usdt_own__arg_spec(&a, 0x1000, 0, &s, &why), 0);
	assert_true(s.val_off & KSNOOP_USDT_IDX_NOBASE);
	assert_int_equal(KSNOOP_USDT_IDX_SHIFT(s.val_off), 3);
	/* libbpf's forms, the way libbpf writes them. */
	assert_int_equal(usdt__parse_arg("-4@$-7", &a), 0);
	assert_int_equal(usdt_own__arg_spec(&a, 0x1000, 0, &s, &why), 0);
	assert_int_equal(s.arg_type, 0);
	assert_int_equal((__s64)s.val_off, -7);
	assert_int_equal(usdt__parse_arg("2@%r14w", &a), 0);
	assert_int_equal(usdt_own__arg_spec(&a, 0x1000, 0, &s, &why), 0);
	assert_int_equal(s.arg_type, 1);
	assert_int_equal(s.reg_off, offsetof(struct pt_regs, r14));
	assert_int_equal(s.arg_bitshift, 48);
	/* An offset an index cannot carry, and a value nobody reads. */
	assert_int_equal(usdt__parse_arg("4@4294967296(%rax,%rbx,4)", &a), 0);
	assert_int_equal(usdt_own__arg_spec(&a, 0x1000, 0, &s, &why), -EINVAL);
	assert_string_equal(why, "an offset wider than 32 bits");
	assert_int_equal(usdt__parse_arg("8f@%rax", &a), 0);
	assert_int_equal(usdt_own__arg_spec(&a, 0x1000, 0, &s, &why), -EINVAL);
	assert_string_equal(why, "a floating-point value");
}

static void test_read_missing(void **state)
{
	struct usdt_file *f;
	struct ks_error e;

	(void)state;
	assert_int_equal(usdt__read("/nonexistent/app", &f, &e), -ENOENT);
	assert_null(f);
	assert_int_equal(e.err, -ENOENT);
	assert_non_null(strstr(e.msg, "No such file"));
	assert_int_equal(ks_exit_status(e.err), KSNOOP_EXIT_USAGE);
}

/* A BINARY with glob characters that names no file: the error says it is not a glob. */
static void test_read_glob_is_not_a_glob(void **state)
{
	struct usdt_file *f;
	struct ks_error e;

	(void)state;
	assert_int_equal(usdt__read("/nonexistent/prog*", &f, &e), -ENOENT);
	assert_null(f);
	assert_string_equal(e.msg, "'/nonexistent/prog*': no such file (BINARY is not a glob: "
			    "name one program or library)");
	assert_int_equal(ks_exit_status(e.err), KSNOOP_EXIT_USAGE);
}

static void test_read_directory(void **state)
{
	struct usdt_file *f;
	struct ks_error e;

	(void)state;
	assert_int_equal(usdt__read("/", &f, &e), -EISDIR);
	assert_non_null(strstr(e.msg, "is a directory"));
	assert_int_equal(ks_exit_status(e.err), KSNOOP_EXIT_USAGE);
}

/* A file of N bytes of DATA is not an ELF file usdt__read() reads. */
static void read_refused(const void *data, size_t n, struct ks_error *e)
{
	char path[] = "/tmp/ksnoop-unit-XXXXXX";
	struct usdt_file *f;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
	assert_int_equal(usdt__read(path, &f, e), -ENOEXEC);
	unlink(path);
}

static void test_read_not_elf(void **state)
{
	struct ks_error e;

	read_refused("#!/bin/sh\n", 10, &e);
	assert_non_null(strstr(e.msg, "is not an ELF file"));
	assert_int_equal(ks_exit_status(e.err), KSNOOP_EXIT_USAGE);
}

static void test_read_truncated_elf(void **state)
{
	struct ks_error e;

	/* An ELF magic and nothing else. */
	read_refused("\x7f" "ELF\x02\x01\x01", 7, &e);
}

static void test_spec_usdt_target_and_casts(void **state)
{
	struct spec s;
	struct ks_error e;

	(void)state;
	assert_int_equal(spec__parse("./app:myapp:req(arg0, arg1:str, arg2:struct req * , arg3 > 5)",
				     SPEC_USDT, &s, &e), 0);
	assert_string_equal(s.target, "./app:myapp:req");
	assert_int_equal(s.nitems, 4);
	assert_int_equal(s.items[0].nsteps, 0);
	/* argN:str is the ":str" format, as on any value. */
	assert_int_equal(s.items[1].fmt, FMT_STR);
	assert_int_equal(s.items[1].nsteps, 0);
	assert_string_equal(s.items[1].text, "arg1:str");
	/* argN:TYPE is a cast, spelled as USDT users write it. */
	assert_int_equal(s.items[2].nsteps, 1);
	assert_int_equal(s.items[2].steps[0].kind, STEP_CAST);
	assert_true(s.items[2].steps[0].usdt_word);
	assert_string_equal(s.items[2].steps[0].type, "struct req *");
	assert_string_equal(s.items[2].text, "arg2:struct req *");
	assert_true(s.items[3].has_pred);
	spec__free(&s);
}

static void test_spec_usdt_cast_errors(void **state)
{
	struct spec s;
	struct ks_error e;

	(void)state;
	assert_int_equal(spec__parse("app:p:n(arg1:)", SPEC_USDT, &s, &e), -EINVAL);
	assert_int_equal(e.pos, 14);
	assert_non_null(strstr(e.msg, "expected a type or 'str' after ':'"));
	spec__free(&s);
	/* Kernel specs cast with (TYPE): after ':' only formats. */
	assert_int_equal(spec__parse("f(a:int)", SPEC_KFUNC, &s, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "unknown format 'int'"));
	spec__free(&s);
	/* A USDT cast then a format, and a cast followed by a member. */
	assert_int_equal(spec__parse("app:p:n(arg0:struct req *->name:str, arg1:hex)",
				     SPEC_USDT, &s, &e), 0);
	assert_string_equal(s.items[0].text, "arg0:struct req *->name:str");
	assert_int_equal(s.items[0].nsteps, 2);
	assert_int_equal(s.items[0].fmt, FMT_STR);
	assert_int_equal(s.items[1].fmt, FMT_HEX);
	assert_int_equal(s.items[1].nsteps, 0);
	spec__free(&s);
}

static void test_spec_usdt_path_with_spaces_and_glob(void **state)
{
	struct spec s;
	struct ks_error e;

	(void)state;
	assert_int_equal(spec__parse("/opt/my app/bin:prov:*", SPEC_USDT, &s, &e), 0);
	assert_string_equal(s.target, "/opt/my app/bin:prov:*");
	assert_false(s.has_list);
	spec__free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arg_signed_register),
		cmocka_unit_test(test_arg_unsigned_memory),
		cmocka_unit_test(test_arg_constant),
		cmocka_unit_test(test_arg_errors),
		cmocka_unit_test(test_arg_compiler_forms),
		cmocka_unit_test(test_arg_unreadable),
		cmocka_unit_test(test_arg_libbpf),
		cmocka_unit_test(test_loc_decoded),
		cmocka_unit_test(test_own_arg_spec),
		cmocka_unit_test(test_read_missing),
		cmocka_unit_test(test_read_glob_is_not_a_glob),
		cmocka_unit_test(test_read_directory),
		cmocka_unit_test(test_read_not_elf),
		cmocka_unit_test(test_read_truncated_elf),
		cmocka_unit_test(test_spec_usdt_target_and_casts),
		cmocka_unit_test(test_spec_usdt_cast_errors),
		cmocka_unit_test(test_spec_usdt_path_with_spaces_and_glob),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
