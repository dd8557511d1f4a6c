// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the spec parser (ksnoop/spec/spec.c).
 *
 * The parser knows nothing of BTF, so every test is a string in and a tree
 * (or an error with a 1-based column) out.  Columns in the comments count
 * from 1, the way the user reads the command line.
 *
 * Tests marked "Regression (fixed)" guard bugs these tests found.
 * until ksnoop/spec/spec.c is fixed.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "spec.h"

/* ---- helpers ---- */

/* Parse TEXT as a kernel-function spec; it must succeed. */
static void parse_ok(const char *text, struct spec *spec)
{
	struct ks_error err;
	int ret = spec__parse(text, SPEC_KFUNC, spec, &err);

	if (ret)
		print_message("spec__parse(\"%s\") = %d, column %d: %s\n",
			      text, ret, err.pos, err.msg);
	assert_int_equal(ret, 0);
}

/*
 * Parse TEXT; it must fail with -EINVAL at column POS, with a message
 * containing MSG.
 */
static void parse_err(const char *text, int pos, const char *msg)
{
	struct ks_error err;
	struct spec spec;
	int ret = spec__parse(text, SPEC_KFUNC, &spec, &err);

	if (ret != -EINVAL || err.pos != pos || !strstr(err.msg, msg))
		print_message("spec__parse(\"%s\"): ret %d, column %d, \"%s\"; "
			      "expected -EINVAL, column %d, \"...%s...\"\n",
			      text, ret, err.pos, err.msg, pos, msg);
	spec__free(&spec);
	assert_int_equal(ret, -EINVAL);
	assert_int_equal(err.err, -EINVAL);
	assert_int_equal(err.pos, pos);
	assert_non_null(strstr(err.msg, msg));
}

/* The constant of the only item of "f(x OP CONST)"-like specs. */
static void parse_const(const char *text, struct spec *spec)
{
	parse_ok(text, spec);
	assert_int_equal(spec->nitems, 1);
	assert_true(spec->items[0].has_pred);
}

/* "NAME" repeated to LEN characters, for the length limits. */
static char *long_name(size_t len)
{
	char *s = malloc(len + 1);

	assert_non_null(s);
	for (size_t i = 0; i < len; i++)
		s[i] = 'a' + i % 26;
	s[len] = 0;
	return s;
}

/* ---- targets ---- */

static void test_plain_function(void **state)
{
	struct spec s;

	parse_ok("ip_send_skb", &s);
	assert_int_equal(s.kind, SPEC_KFUNC);
	assert_string_equal(s.target, "ip_send_skb");
	assert_int_equal(s.target_pos, 1);
	assert_string_equal(s.text, "ip_send_skb");
	assert_false(s.has_list);
	assert_int_equal(s.nitems, 0);
	spec__free(&s);
}

static void test_function_with_compiler_suffix(void **state)
{
	struct spec s;

	parse_ok("tcp_v4_rcv.cold.12", &s);
	assert_string_equal(s.target, "tcp_v4_rcv.cold.12");
	spec__free(&s);
}

static void test_empty_value_list(void **state)
{
	struct spec s;

	parse_ok("ip_send_skb()", &s);
	assert_string_equal(s.target, "ip_send_skb");
	assert_true(s.has_list);
	assert_int_equal(s.nitems, 0);
	spec__free(&s);

	parse_ok("ip_send_skb ( )", &s);
	assert_true(s.has_list);
	assert_int_equal(s.nitems, 0);
	spec__free(&s);
}

static void test_tracepoint_prefix(void **state)
{
	struct spec s;

	parse_ok("tp:sched_switch", &s);
	assert_int_equal(s.kind, SPEC_TP);
	assert_string_equal(s.target, "sched_switch");
	assert_int_equal(s.target_pos, 4);
	spec__free(&s);
}

static void test_tracepoint_category(void **state)
{
	struct spec s;

	parse_ok("tp:sched:sched_switch(prev->pid)", &s);
	assert_int_equal(s.kind, SPEC_TP);
	assert_string_equal(s.target, "sched:sched_switch");
	assert_int_equal(s.target_pos, 4);
	assert_int_equal(s.nitems, 1);
	assert_string_equal(s.items[0].text, "prev->pid");
	spec__free(&s);
}

static void test_names_starting_with_tp_are_functions(void **state)
{
	struct spec s;

	parse_ok("tpacket_rcv", &s);
	assert_int_equal(s.kind, SPEC_KFUNC);
	assert_string_equal(s.target, "tpacket_rcv");
	spec__free(&s);

	parse_ok("tp", &s);
	assert_int_equal(s.kind, SPEC_KFUNC);
	assert_string_equal(s.target, "tp");
	spec__free(&s);
}

static void test_module_prefix(void **state)
{
	struct spec s;

	/* Without tp:, "A:B" is function B of module A (the resolver says
	 * when A is no module, and suggests tp:). */
	parse_ok("sched:sched_switch", &s);
	assert_int_equal(s.kind, SPEC_KFUNC);
	assert_string_equal(s.module, "sched");
	assert_string_equal(s.target, "sched_switch");
	assert_int_equal(s.target_pos, 7);
	assert_false(s.is_glob);
	spec__free(&s);
	parse_ok("dummy:dummy_*(dev)", &s);
	assert_string_equal(s.module, "dummy");
	assert_string_equal(s.target, "dummy_*");
	assert_true(s.is_glob);
	spec__free(&s);
	parse_err("a-b:f", 2, "a module name is letters, digits and '_'");
	/* A library or a program's path: pointed to u:BINARY:FUNC. */
	parse_err("libc.so.6:getaddrinfo", 5, "a module name is letters, digits and '_' (a function of a program or library is u:BINARY:FUNC)");
	parse_err("/bin/bash:readline", 1, "expected a function name, found '/' (a function of a program or library is u:BINARY:FUNC)");
	parse_err("a-b", 2, "'-' in a function name");
}

/* NAME@ADDRESS: one of the kernel functions of a name, by its kallsyms address. */
static void test_address(void **state)
{
	struct spec s;

	parse_ok("modalias_show@ffffffff8fbf3730(buf)", &s);
	assert_string_equal(s.target, "modalias_show");
	assert_true(s.addr == 0xffffffff8fbf3730ULL);
	assert_int_equal(s.addr_pos, 14);
	assert_int_equal(s.nitems, 1);
	assert_string_equal(s.items[0].base, "buf");
	spec__free(&s);
	parse_ok("dummy:f@0xC0001000", &s);
	assert_string_equal(s.module, "dummy");
	assert_string_equal(s.target, "f");
	assert_true(s.addr == 0xc0001000ULL);
	assert_false(s.has_list);
	spec__free(&s);
	/* Without '@', no address: every function of the name. */
	parse_ok("f", &s);
	assert_true(s.addr == 0);
	spec__free(&s);
	parse_err("f@", 3, "expected a hex address after '@' (as 'ksnoop info f' lists them)");
	parse_err("f@0x", 5, "expected a hex address after '@'");
	parse_err("f@12g4", 5, "expected a hex address after '@'");
	parse_err("f@xyz", 3, "expected a hex address after '@'");
	parse_err("f@0", 3, "address 0 names no function");
	parse_err("f@10000000000000000", 3, "address too large for 64 bits");
	parse_err("f_*@ffff", 4, "'@ADDRESS' picks one function of a name; a glob names many");
	/* The largest address fits. */
	parse_ok("f@ffffffffffffffff", &s);
	assert_true(s.addr == ~0ULL);
	spec__free(&s);
}

static void test_globs(void **state)
{
	struct spec s;

	parse_ok("tcp_v[46]_*(sk)", &s);
	assert_null(s.module);
	assert_string_equal(s.target, "tcp_v[46]_*");
	assert_true(s.is_glob);
	assert_int_equal(s.nitems, 1);
	spec__free(&s);
	parse_ok("*", &s);
	assert_true(s.is_glob);
	spec__free(&s);
}

/* A bracket class alone makes a glob: '[' is a glob character like '*' and '?'. */
static void test_class_only_globs(void **state)
{
	struct ks_error err;
	struct spec s;

	parse_ok("ip_[fo]utput(skb)", &s);
	assert_string_equal(s.target, "ip_[fo]utput");
	assert_true(s.is_glob);
	spec__free(&s);
	parse_ok("tcp_v[!6]_connect", &s);
	assert_true(s.is_glob);
	spec__free(&s);
	assert_int_equal(spec__parse("tp:sched_[sw]akeup(p->pid)", SPEC_KFUNC, &s, &err), 0);
	assert_int_equal(s.kind, SPEC_TP);
	assert_string_equal(s.target, "sched_[sw]akeup");
	assert_true(s.is_glob);
	spec__free(&s);
	assert_int_equal(spec__parse("tp:sched:sched_[sw]akeup", SPEC_KFUNC, &s, &err), 0);
	assert_true(s.is_glob);
	spec__free(&s);
}

static void test_declarations(void **state)
{
	struct spec s;

	/*        1234567890123456789012345678901234567890 */
	parse_ok("*(struct sk_buff *s, s->len == 84, u32 x,s->mark)", &s);
	assert_int_equal(s.ndecls, 2);
	assert_string_equal(s.decls[0].type, "struct sk_buff *");
	assert_string_equal(s.decls[0].name, "s");
	assert_int_equal(s.decls[0].type_pos, 3);
	assert_int_equal(s.decls[0].name_pos, 19);
	assert_string_equal(s.decls[1].type, "u32");
	assert_string_equal(s.decls[1].name, "x");
	/* Declarations are not values. */
	assert_int_equal(s.nitems, 2);
	assert_string_equal(s.items[0].text, "s->len");
	assert_string_equal(s.items[1].text, "s->mark");
	spec__free(&s);
	parse_err("f(struct sk_buff *)", 19, "expected the declared name");
	parse_err("f(struct sk_buff *s t)", 19, "expected a type name, found 's'");
}

/* Tracepoints take globs, a category and declarations too; USDT probes no declarations. */
static void test_tracepoint_globs_and_declarations(void **state)
{
	struct ks_error err;
	struct spec s;

	assert_int_equal(spec__parse("tp:sched:sched_wak*(p->pid)", SPEC_KFUNC, &s, &err), 0);
	assert_int_equal(s.kind, SPEC_TP);
	assert_string_equal(s.target, "sched:sched_wak*");
	assert_true(s.is_glob);
	spec__free(&s);
	assert_int_equal(spec__parse("tp:sched_switch(prev)", SPEC_KFUNC, &s, &err), 0);
	assert_false(s.is_glob);
	spec__free(&s);
	/*                            1234567890123456789012345678 */
	assert_int_equal(spec__parse("tp:*(struct sk_buff *s, s->len)", SPEC_KFUNC, &s, &err), 0);
	assert_int_equal(s.ndecls, 1);
	assert_string_equal(s.decls[0].type, "struct sk_buff *");
	assert_string_equal(s.decls[0].name, "s");
	assert_int_equal(s.nitems, 1);
	spec__free(&s);
	/*                            12345678901234567 */
	assert_int_equal(spec__parse("./a:p:n(struct x *y)", SPEC_USDT, &s, &err), -EINVAL);
	assert_int_equal(err.pos, 9);
	assert_non_null(strstr(err.msg, "not USDT probes"));
	spec__free(&s);
}

/* u:BINARY:FUNC: a user function, its file up to the first ':'. */
static void test_ufunc_target(void **state)
{
	struct spec s;

	parse_ok("u:./app:uf_add(arg0, return < 0)", &s);
	assert_int_equal(s.kind, SPEC_UFUNC);
	assert_string_equal(s.binary, "./app");
	assert_int_equal(s.binary_pos, 3);
	assert_string_equal(s.target, "uf_add");
	assert_int_equal(s.target_pos, 9);
	assert_false(s.is_glob);
	assert_null(s.module);
	assert_int_equal(s.nitems, 2);
	spec__free(&s);
	/* A library by name, a glob. */
	parse_ok("u:libc:get*", &s);
	assert_string_equal(s.binary, "libc");
	assert_true(s.is_glob);
	assert_false(s.has_list);
	spec__free(&s);
	/* C++: quoted, '::' and '(' kept; unquoted, '::' too. */
	parse_ok("u:./app:'ns::Conn::read(int)'(arg1)", &s);
	assert_string_equal(s.target, "ns::Conn::read(int)");
	assert_int_equal(s.target_pos, 10);
	assert_int_equal(s.nitems, 1);
	spec__free(&s);
	parse_ok("u:/bin/app:ns::f", &s);
	assert_string_equal(s.binary, "/bin/app");
	assert_string_equal(s.target, "ns::f");
	spec__free(&s);
	/* "u" as a module's name was never one: ordinary specs are unchanged. */
	parse_ok("uf:func", &s);
	assert_int_equal(s.kind, SPEC_KFUNC);
	assert_string_equal(s.module, "uf");
	spec__free(&s);
}

static void test_ufunc_offset_and_address(void **state)
{
	struct spec s;

	parse_ok("u:./app:uf_add+0x10(arg0)", &s);
	assert_string_equal(s.target, "uf_add");
	assert_int_equal(s.uoffset, 0x10);
	assert_int_equal(s.uaddr, 0);
	spec__free(&s);
	parse_ok("u:./app:uf_add+12", &s);
	assert_int_equal(s.uoffset, 12);
	spec__free(&s);
	parse_ok("u:./app:0x1139", &s);
	assert_int_equal(s.uaddr, 0x1139);
	assert_false(s.is_glob);
	spec__free(&s);
}

static void test_ufunc_errors(void **state)
{
	parse_err("u:", 3, "expected 'u:BINARY:FUNC'");
	parse_err("u:./app", 8, "expected 'u:BINARY:FUNC'");
	parse_err("u::f", 3, "after 'u:'");
	parse_err("u:./app:", 9, "expected a function name");
	parse_err("u:./app:(arg0)", 9, "expected a function name");
	parse_err("u:./app:'f(arg0)", 9, "missing the closing '");
	parse_err("u:./app:f+", 11, "expected an offset");
	parse_err("u:./app:f+0x", 11, "expected an offset");
	parse_err("u:./app:f+1x", 11, "expected an offset");
	parse_err("u:./app:f*+4", 11, "'+OFFSET' follows one function's name");
	parse_err("u:./app:0x12g4", 9, "expected an address");
	parse_err("u:./app:0x0", 9, "address 0 names no function");
	parse_err("u:./app:f+99999999999999999999", 11, "too large for 64 bits");
	parse_err("u:./app:f(struct req *r)", 11, "not user functions");
}

static void test_usdt_target(void **state)
{
	struct ks_error err;
	struct spec s;

	assert_int_equal(spec__parse("/usr/bin/python3:python:function__entry (arg0, arg1)",
				     SPEC_USDT, &s, &err), 0);
	assert_int_equal(s.kind, SPEC_USDT);
	/* The path may hold anything but '('; trailing spaces are dropped. */
	assert_string_equal(s.target, "/usr/bin/python3:python:function__entry");
	assert_int_equal(s.nitems, 2);
	assert_string_equal(s.items[1].base, "arg1");
	spec__free(&s);
}

static void test_usdt_target_without_list(void **state)
{
	struct ks_error err;
	struct spec s;

	assert_int_equal(spec__parse("/opt/my app/bin:prov:probe", SPEC_USDT, &s, &err), 0);
	assert_string_equal(s.target, "/opt/my app/bin:prov:probe");
	assert_false(s.has_list);
	spec__free(&s);
	assert_int_equal(spec__parse("(arg0)", SPEC_USDT, &s, &err), -EINVAL);
	assert_int_equal(err.pos, 1);
	assert_non_null(strstr(err.msg, "expected a probe name"));
	spec__free(&s);
}

/* ":str(LEN)": the length is another argument, named; one spelling. */
static void test_str_len(void **state)
{
	struct ks_error err;
	struct spec s;
	const struct spec_item *it;

	/*                      1234567890123456789012345678 */
	assert_int_equal(spec__parse("./a:p:n(arg0:str( arg1 ), arg1)", SPEC_USDT, &s, &err), 0);
	it = &s.items[0];
	assert_string_equal(it->base, "arg0");
	assert_int_equal(it->fmt, FMT_STR);
	assert_int_equal(it->fmt_pos, 14);
	assert_string_equal(it->str_len, "arg1");
	assert_int_equal(it->str_len_pos, 19);
	assert_int_equal(it->nsteps, 0);
	assert_string_equal(it->text, "arg0:str(arg1)");
	assert_null(s.items[1].str_len);
	spec__free(&s);

	/* A predicate after it; kernel functions and tracepoints take it too. */
	assert_int_equal(spec__parse("./a:p:n(arg0:str(arg1) == \"x\")", SPEC_USDT, &s, &err), 0);
	assert_true(s.items[0].has_pred);
	assert_string_equal(s.items[0].cst.str, "x");
	spec__free(&s);
	parse_ok("tp:foo(buf : str (len), (char *)p:str(n))", &s);
	assert_string_equal(s.items[0].text, "buf:str(len)");
	assert_string_equal(s.items[0].str_len, "len");
	assert_string_equal(s.items[1].text, "(char *)p:str(n)");
	spec__free(&s);
	/* Plain ":str" has no length. */
	parse_ok("f(p:str)", &s);
	assert_null(s.items[0].str_len);
	assert_string_equal(s.items[0].text, "p:str");
	spec__free(&s);
}

static void test_str_len_errors(void **state)
{
	struct ks_error err;
	struct spec s;

	/*        123456789012345 */
	parse_err("f(p:str(5))", 9, "expected the argument that holds the length in ':str(...)', found '5'");
	parse_err("f(p:str())", 9, "expected the argument that holds the length");
	parse_err("f(p:str(n m))", 11, "expected ')' to match the '(' at column 8, found 'm'");
	parse_err("f(p:hex(n))", 8, "");
	/* A second format after it is refused, naming the first. */
	parse_err("f(p:str(n):hex)", 12, "a value takes one format; it already has ':str'");
	assert_int_equal(spec__parse("./a:p:n(arg0:str(arg1)", SPEC_USDT, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "missing ')'"));
	spec__free(&s);
	/*                            1234567890123456789 */
	assert_int_equal(spec__parse("./a:p:n(arg0:str(-1))", SPEC_USDT, &s, &err), -EINVAL);
	assert_int_equal(err.pos, 18);
	assert_non_null(strstr(err.msg, "the argument that holds the length"));
	spec__free(&s);
}

/* ---- values ---- */

static void test_several_items(void **state)
{
	struct spec s;

	parse_ok("f(a,b,return)", &s);
	assert_true(s.has_list);
	assert_int_equal(s.nitems, 3);
	assert_string_equal(s.items[0].base, "a");
	assert_int_equal(s.items[0].base_pos, 3);
	assert_string_equal(s.items[1].base, "b");
	assert_int_equal(s.items[1].base_pos, 5);
	assert_string_equal(s.items[2].base, "return");
	assert_int_equal(s.items[2].base_pos, 7);
	assert_false(spec_item__is_return(&s.items[0]));
	assert_true(spec_item__is_return(&s.items[2]));
	for (int i = 0; i < 3; i++) {
		assert_int_equal(s.items[i].nsteps, 0);
		assert_int_equal(s.items[i].fmt, FMT_NONE);
		assert_false(s.items[i].has_pred);
	}
	spec__free(&s);
}

static void test_member_chain(void **state)
{
	struct spec s;
	const struct spec_item *it;

	/*        1234567890123 */
	parse_ok("f(a->b.c[3])", &s);
	assert_int_equal(s.nitems, 1);
	it = &s.items[0];
	assert_string_equal(it->base, "a");
	assert_int_equal(it->base_pos, 3);
	assert_int_equal(it->nsteps, 3);
	assert_int_equal(it->steps[0].kind, STEP_ARROW);
	assert_string_equal(it->steps[0].member, "b");
	assert_int_equal(it->steps[0].pos, 6);
	assert_int_equal(it->steps[1].kind, STEP_DOT);
	assert_string_equal(it->steps[1].member, "c");
	assert_int_equal(it->steps[1].pos, 8);
	assert_int_equal(it->steps[2].kind, STEP_INDEX);
	assert_null(it->steps[2].member);
	assert_int_equal(it->steps[2].index, 3);
	assert_int_equal(it->steps[2].pos, 10);
	assert_string_equal(it->text, "a->b.c[3]");
	spec__free(&s);
}

static void test_index_in_hex(void **state)
{
	struct spec s;

	parse_ok("f(a[0x10])", &s);
	assert_int_equal(s.items[0].steps[0].index, 16);
	assert_string_equal(s.items[0].text, "a[16]");
	spec__free(&s);
}

static void test_largest_index(void **state)
{
	struct spec s;

	parse_ok("f(a[2147483647])", &s);
	assert_int_equal(s.items[0].steps[0].index, INT32_MAX);
	spec__free(&s);
}

static void test_one_star(void **state)
{
	struct spec s;

	parse_ok("f(*p)", &s);
	assert_int_equal(s.items[0].nsteps, 1);
	assert_int_equal(s.items[0].steps[0].kind, STEP_DEREF);
	assert_int_equal(s.items[0].steps[0].pos, 3);
	assert_string_equal(s.items[0].base, "p");
	assert_int_equal(s.items[0].base_pos, 4);
	assert_string_equal(s.items[0].text, "*p");
	spec__free(&s);
}

static void test_two_stars(void **state)
{
	struct spec s;

	parse_ok("f(**p)", &s);
	assert_int_equal(s.items[0].nsteps, 2);
	assert_int_equal(s.items[0].steps[0].kind, STEP_DEREF);
	assert_int_equal(s.items[0].steps[0].pos, 4);
	assert_int_equal(s.items[0].steps[1].kind, STEP_DEREF);
	assert_int_equal(s.items[0].steps[1].pos, 3);
	assert_string_equal(s.items[0].base, "p");
	assert_int_equal(s.items[0].base_pos, 5);
	assert_string_equal(s.items[0].text, "**p");
	spec__free(&s);
}

static void test_star_with_chain(void **state)
{
	struct spec s;

	parse_ok("f(* skb->sk)", &s);
	assert_string_equal(s.items[0].base, "skb");
	/* `*skb->sk` is `*(skb->sk)`: the member first, then the load. */
	assert_int_equal(s.items[0].nsteps, 2);
	assert_int_equal(s.items[0].steps[0].kind, STEP_ARROW);
	assert_int_equal(s.items[0].steps[1].kind, STEP_DEREF);
	assert_string_equal(s.items[0].text, "*skb->sk");
	spec__free(&s);
}

static void test_cast_then_member(void **state)
{
	struct spec s;
	const struct spec_item *it;

	/*        123456789012345678901234567890123456789012 */
	parse_ok("f(((struct sockaddr_in*)uaddr)->sin_port)", &s);
	it = &s.items[0];
	assert_string_equal(it->base, "uaddr");
	assert_int_equal(it->base_pos, 25);
	assert_int_equal(it->nsteps, 2);
	assert_int_equal(it->steps[0].kind, STEP_CAST);
	assert_string_equal(it->steps[0].type, "struct sockaddr_in *");
	assert_false(it->steps[0].usdt_word);
	assert_int_equal(it->steps[0].op_pos, 4);
	assert_int_equal(it->steps[1].kind, STEP_ARROW);
	assert_string_equal(it->steps[1].member, "sin_port");
	/* One spelling: spaces only inside the type, "*" apart. */
	assert_string_equal(it->text, "((struct sockaddr_in *)uaddr)->sin_port");
	spec__free(&s);
}

static void test_cast_binds_after_postfix(void **state)
{
	struct spec s;
	const struct spec_item *it;

	/* As in C: the cast applies to sk->sk_prot, not to sk. */
	parse_ok("f( (struct proto *) sk->sk_prot )", &s);
	it = &s.items[0];
	assert_int_equal(it->nsteps, 2);
	assert_int_equal(it->steps[0].kind, STEP_ARROW);
	assert_int_equal(it->steps[1].kind, STEP_CAST);
	assert_string_equal(it->text, "(struct proto *)sk->sk_prot");
	spec__free(&s);
}

static void test_cast_typedef_and_words(void **state)
{
	struct spec s;

	/* A bare name followed by a value is a cast: C's rule for typedefs. */
	parse_ok("f((u32)x, (unsigned  long)y, (x), (  y )->z, (sock **)p)", &s);
	assert_int_equal(s.items[0].steps[0].kind, STEP_CAST);
	assert_string_equal(s.items[0].steps[0].type, "u32");
	assert_string_equal(s.items[0].text, "(u32)x");
	assert_string_equal(s.items[1].steps[0].type, "unsigned long");
	/* (x) alone is x. */
	assert_int_equal(s.items[2].nsteps, 0);
	assert_string_equal(s.items[2].text, "x");
	assert_int_equal(s.items[3].nsteps, 1);
	assert_string_equal(s.items[3].text, "y->z");
	assert_string_equal(s.items[4].steps[0].type, "sock **");
	spec__free(&s);
}

static void test_deref_in_parentheses(void **state)
{
	struct spec s;
	const struct spec_item *it;

	parse_ok("f((*pp)->len, *(u64 *)p)", &s);
	it = &s.items[0];
	assert_int_equal(it->nsteps, 2);
	assert_int_equal(it->steps[0].kind, STEP_DEREF);
	assert_int_equal(it->steps[1].kind, STEP_ARROW);
	assert_string_equal(it->text, "(*pp)->len");
	it = &s.items[1];
	assert_int_equal(it->nsteps, 2);
	assert_int_equal(it->steps[0].kind, STEP_CAST);
	assert_int_equal(it->steps[1].kind, STEP_DEREF);
	assert_string_equal(it->text, "*(u64 *)p");
	spec__free(&s);
}

static void test_formats(void **state)
{
	struct spec s;

	/*        1234567890123456789012345678901234567890123456789012345678 */
	parse_ok("f(a:hex, b->port : be == 1, c:ip, d:sym, e:str, g:hex & 0x4)", &s);
	assert_int_equal(s.items[0].fmt, FMT_HEX);
	assert_int_equal(s.items[0].fmt_pos, 5);
	assert_string_equal(s.items[0].text, "a:hex");
	assert_int_equal(s.items[1].fmt, FMT_BE);
	assert_string_equal(s.items[1].text, "b->port:be");
	assert_true(s.items[1].has_pred);
	assert_int_equal(s.items[1].cst.mag, 1);
	assert_int_equal(s.items[2].fmt, FMT_IP);
	assert_int_equal(s.items[3].fmt, FMT_SYM);
	assert_int_equal(s.items[4].fmt, FMT_STR);
	assert_int_equal(s.items[5].fmt, FMT_HEX);
	assert_true(s.items[5].has_mask);
	spec__free(&s);
}

/* ':strv' is a format like the others: its column, the text kept, one format only. */
static void test_format_strv(void **state)
{
	struct spec s;

	/*        123456789012345678901234567890 */
	parse_ok("sys:execve(filename, argv : strv)", &s);
	assert_int_equal(s.items[1].fmt, FMT_STRV);
	assert_int_equal(s.items[1].fmt_pos, 29);
	assert_string_equal(s.items[1].text, "argv:strv");
	assert_false(s.items[1].has_pred);
	spec__free(&s);
	parse_err("f(argv:strv:str)", 13, "a value takes one format; it already has ':strv'");
	parse_err("f(argv:strvx)", 8, "unknown format 'strvx'");
}

static void test_cast_and_format_errors(void **state)
{
	/*         123456789012345 */
	parse_err("f(a:dec)", 5, "unknown format 'dec' (formats: hex, be, ip, sym, str, tuple, signal, tcpstate, strv)");
	parse_err("f(a:)", 5, "expected a format after ':' (hex, be, ip, sym, str, tuple, signal, tcpstate, strv), found ')'");
	parse_err("f(a:hex:be)", 9, "a value takes one format; it already has ':hex'");
	parse_err("f((struct)a)", 10, "expected a name after 'struct'");
	parse_err("f((struct *)a)", 11, "expected a name after 'struct'");
	parse_err("f(()a)", 4, "expected a value (argument name or 'return'), found ')'");
	parse_err("f((struct foo * bar)a)", 17, "expected a type name, found 'b'");
	parse_err("f((a->b, c)", 8, "expected ')' to match the '(' at column 3, found ','");
	parse_err("f((u32 *))", 10, "expected a value (argument name or 'return'), found ')'");
	parse_err("f((*)p)", 5, "expected a value (argument name or 'return'), found ')'");
}

static void test_display_text(void **state)
{
	struct spec s;

	parse_ok("ip_send_skb(skb->len)", &s);
	assert_string_equal(s.items[0].text, "skb->len");
	spec__free(&s);

	/* The predicate is not part of the value's text. */
	parse_ok("ip_send_skb(skb->len == 84)", &s);
	assert_string_equal(s.items[0].text, "skb->len");
	spec__free(&s);
}

static void test_whitespace_tolerated(void **state)
{
	struct spec s;
	const struct spec_item *it;

	parse_ok("  \tf ( skb -> sk -> __sk_common . skc_family\t, * p [ 2 ]  ==\t-1 ,x )  ", &s);
	assert_string_equal(s.target, "f");
	assert_int_equal(s.target_pos, 4);
	assert_int_equal(s.nitems, 3);
	it = &s.items[0];
	assert_string_equal(it->text, "skb->sk->__sk_common.skc_family");
	assert_int_equal(it->nsteps, 3);
	/* Columns point at the names, not at the spaces before them. */
	assert_int_equal(it->base_pos, 8);
	assert_int_equal(it->steps[0].pos, 15);
	it = &s.items[1];
	assert_string_equal(it->text, "*p[2]");
	assert_true(it->has_pred);
	assert_int_equal(it->op, KSNOOP_OP_EQ);
	assert_true(it->cst.neg);
	assert_int_equal(it->cst.mag, 1);
	assert_string_equal(s.items[2].text, "x");
	/* The spec keeps the text as given. */
	assert_string_equal(s.text, "  \tf ( skb -> sk -> __sk_common . skc_family\t, * p [ 2 ]  ==\t-1 ,x )  ");
	spec__free(&s);
}

static void test_sixteen_items(void **state)
{
	struct spec s;

	parse_ok("f(a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p)", &s);
	assert_int_equal(s.nitems, SPEC_MAX_ITEMS);
	assert_string_equal(s.items[15].base, "p");
	spec__free(&s);
}

static void test_names_of_128_chars(void **state)
{
	char *name = long_name(SPEC_MAX_NAME);
	char text[3 * SPEC_MAX_NAME + 16];
	struct spec s;

	snprintf(text, sizeof(text), "%s(%s->%s)", name, name, name);
	parse_ok(text, &s);
	assert_string_equal(s.target, name);
	assert_string_equal(s.items[0].base, name);
	assert_string_equal(s.items[0].steps[0].member, name);
	spec__free(&s);
	free(name);
}

static void test_thirty_two_steps(void **state)
{
	char text[256] = "f(a";
	struct spec s;

	for (int i = 0; i < SPEC_MAX_STEPS; i++)
		strcat(text, ".b");
	strcat(text, ")");
	parse_ok(text, &s);
	assert_int_equal(s.items[0].nsteps, SPEC_MAX_STEPS);
	spec__free(&s);
}

/* ---- predicates ---- */

static void test_every_operator(void **state)
{
	static const struct {
		const char *text;
		enum ksnoop_op op;
	} cases[] = {
		{ "f(x==1)", KSNOOP_OP_EQ }, { "f(x!=1)", KSNOOP_OP_NE },
		{ "f(x<1)", KSNOOP_OP_LT },  { "f(x<=1)", KSNOOP_OP_LE },
		{ "f(x>1)", KSNOOP_OP_GT },  { "f(x>=1)", KSNOOP_OP_GE },
	};
	struct spec s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_const(cases[i].text, &s);
		assert_int_equal(s.items[0].op, cases[i].op);
		assert_int_equal(s.items[0].op_pos, 4);
		assert_int_equal(s.items[0].cst.kind, CONST_INT);
		assert_int_equal(s.items[0].cst.mag, 1);
		assert_string_equal(s.items[0].text, "x");
		spec__free(&s);
	}
}

static void test_operator_names(void **state)
{
	assert_string_equal(spec_op__str(KSNOOP_OP_EQ), "==");
	assert_string_equal(spec_op__str(KSNOOP_OP_NE), "!=");
	assert_string_equal(spec_op__str(KSNOOP_OP_LT), "<");
	assert_string_equal(spec_op__str(KSNOOP_OP_LE), "<=");
	assert_string_equal(spec_op__str(KSNOOP_OP_GT), ">");
	assert_string_equal(spec_op__str(KSNOOP_OP_GE), ">=");
	assert_string_equal(spec_op__str((enum ksnoop_op)42), "?");
}

static void test_operator_after_member(void **state)
{
	struct spec s;

	/* '>' right after a name is an operator, not half of '->'. */
	parse_const("f(skb->len>84)", &s);
	assert_string_equal(s.items[0].text, "skb->len");
	assert_int_equal(s.items[0].op, KSNOOP_OP_GT);
	assert_int_equal(s.items[0].op_pos, 11);
	assert_int_equal(s.items[0].cst.mag, 84);
	spec__free(&s);
}

static void test_decimal_constant(void **state)
{
	struct spec s;

	parse_const("f(x == 84)", &s);
	assert_int_equal(s.items[0].cst.kind, CONST_INT);
	assert_int_equal(s.items[0].cst.mag, 84);
	assert_false(s.items[0].cst.neg);
	assert_int_equal(s.items[0].cst.pos, 8);
	spec__free(&s);
}

static void test_hex_constant(void **state)
{
	struct spec s;

	parse_const("f(x == 0x1F)", &s);
	assert_int_equal(s.items[0].cst.mag, 0x1f);
	spec__free(&s);
	parse_const("f(x == 0XfF)", &s);
	assert_int_equal(s.items[0].cst.mag, 0xff);
	spec__free(&s);
}

static void test_octal_constant(void **state)
{
	struct spec s;

	parse_const("f(x == 017)", &s);
	assert_int_equal(s.items[0].cst.mag, 15);
	spec__free(&s);
	parse_const("f(x == 0)", &s);
	assert_int_equal(s.items[0].cst.mag, 0);
	spec__free(&s);
}

static void test_largest_constant(void **state)
{
	struct spec s;

	parse_const("f(x == 18446744073709551615)", &s);
	assert_true(s.items[0].cst.mag == UINT64_MAX);
	spec__free(&s);
	parse_const("f(x == 0xffffffffffffffff)", &s);
	assert_true(s.items[0].cst.mag == UINT64_MAX);
	spec__free(&s);
}

static void test_negative_constant(void **state)
{
	struct spec s;

	parse_const("f(x == -1)", &s);
	assert_int_equal(s.items[0].cst.kind, CONST_INT);
	assert_true(s.items[0].cst.neg);
	assert_int_equal(s.items[0].cst.mag, 1);
	assert_int_equal(s.items[0].cst.pos, 8);
	spec__free(&s);

	parse_const("f(x >= - 0x10)", &s);
	assert_true(s.items[0].cst.neg);
	assert_int_equal(s.items[0].cst.mag, 16);
	spec__free(&s);

	/* 2^63, the magnitude of INT64_MIN: the parser keeps it whole. */
	parse_const("f(x == -9223372036854775808)", &s);
	assert_true(s.items[0].cst.neg);
	assert_true(s.items[0].cst.mag == 1ULL << 63);
	spec__free(&s);
}

static void test_minus_zero_is_not_negative(void **state)
{
	struct spec s;

	parse_const("f(x == -0)", &s);
	assert_false(s.items[0].cst.neg);
	assert_int_equal(s.items[0].cst.mag, 0);
	spec__free(&s);
}

static void test_char_literal(void **state)
{
	struct spec s;

	parse_const("f(c == 'a')", &s);
	assert_int_equal(s.items[0].cst.kind, CONST_INT);
	assert_int_equal(s.items[0].cst.mag, 'a');
	assert_false(s.items[0].cst.neg);
	assert_int_equal(s.items[0].cst.pos, 8);
	spec__free(&s);

	/* Quote characters that need no escape inside '...'. */
	parse_const("f(c == '\"')", &s);
	assert_int_equal(s.items[0].cst.mag, '"');
	spec__free(&s);
	parse_const("f(c == ')')", &s);
	assert_int_equal(s.items[0].cst.mag, ')');
	spec__free(&s);
}

static void test_char_literal_escapes(void **state)
{
	static const struct {
		const char *text;
		uint64_t val;
	} cases[] = {
		{ "f(c == '\\n')", '\n' },   { "f(c == '\\t')", '\t' },
		{ "f(c == '\\r')", '\r' },   { "f(c == '\\0')", 0 },
		{ "f(c == '\\\\')", '\\' },  { "f(c == '\\'')", '\'' },
		{ "f(c == '\\\"')", '"' },   { "f(c == '\\x41')", 0x41 },
		{ "f(c == '\\xfF')", 0xff }, { "f(c == '\\x7')", 7 },
	};
	struct spec s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		parse_const(cases[i].text, &s);
		if (s.items[0].cst.mag != cases[i].val)
			print_message("%s: got %llu\n", cases[i].text,
				      (unsigned long long)s.items[0].cst.mag);
		assert_int_equal(s.items[0].cst.kind, CONST_INT);
		assert_int_equal(s.items[0].cst.mag, cases[i].val);
		spec__free(&s);
	}
}

static void test_string_constant(void **state)
{
	struct spec s;

	parse_const("f(dev->name == \"eth0\")", &s);
	assert_int_equal(s.items[0].cst.kind, CONST_STR);
	assert_string_equal(s.items[0].cst.str, "eth0");
	assert_int_equal(s.items[0].cst.pos, 16);
	spec__free(&s);

	parse_const("f(name != \"\")", &s);
	assert_int_equal(s.items[0].cst.kind, CONST_STR);
	assert_string_equal(s.items[0].cst.str, "");
	assert_int_equal(s.items[0].op, KSNOOP_OP_NE);
	spec__free(&s);

	/* Characters special elsewhere in the spec are plain inside "...". */
	parse_const("f(name == \"a,b) 'c'\")", &s);
	assert_string_equal(s.items[0].cst.str, "a,b) 'c'");
	spec__free(&s);
}

static void test_string_escapes(void **state)
{
	struct spec s;

	parse_const("f(name == \"a\\\"b\\\\c\\n\\t\\r\\'\\x41\\x7e\")", &s);
	assert_string_equal(s.items[0].cst.str, "a\"b\\c\n\t\r'A~");
	spec__free(&s);
}

static void test_longest_string(void **state)
{
	char text[128];
	struct spec s;

	/* 63 bytes fit: KSNOOP_MAX_PRED_STR counts the NUL. */
	snprintf(text, sizeof(text), "f(s == \"%.63s\")",
		 "0123456789012345678901234567890123456789012345678901234567890123456789");
	parse_const(text, &s);
	assert_int_equal(strlen(s.items[0].cst.str), SPEC_MAX_STR);
	spec__free(&s);
}

static void test_null_constant(void **state)
{
	struct spec s;

	parse_const("f(skb->sk != NULL)", &s);
	assert_int_equal(s.items[0].cst.kind, CONST_NAME);
	assert_string_equal(s.items[0].cst.str, "NULL");
	assert_int_equal(s.items[0].cst.pos, 14);
	spec__free(&s);
}

static void test_enumerator_constant(void **state)
{
	struct spec s;

	parse_const("f(reason == SKB_DROP_REASON_NOT_SPECIFIED)", &s);
	assert_int_equal(s.items[0].cst.kind, CONST_NAME);
	assert_string_equal(s.items[0].cst.str, "SKB_DROP_REASON_NOT_SPECIFIED");
	assert_int_equal(s.items[0].cst.pos, 13);
	spec__free(&s);
}

static void test_predicates_on_several_items(void **state)
{
	struct spec s;

	parse_ok("f(a == 1, b, c < -2, return != 0)", &s);
	assert_int_equal(s.nitems, 4);
	assert_true(s.items[0].has_pred);
	assert_false(s.items[1].has_pred);
	assert_true(s.items[2].has_pred);
	assert_int_equal(s.items[2].op, KSNOOP_OP_LT);
	assert_true(s.items[2].cst.neg);
	assert_true(s.items[3].has_pred);
	assert_true(spec_item__is_return(&s.items[3]));
	spec__free(&s);
}

/* ---- errors ---- */

/* @NAME, @tls:NAME: a user function's variables, as bases with steps after them. */
static void test_ufunc_variables(void **state)
{
	struct spec s;

	parse_ok("u:./app:f(@config->name:str, @tls:req.id == 7, @count, arg0)", &s);
	assert_int_equal(s.nitems, 4);
	assert_string_equal(s.items[0].base, "@config");
	assert_int_equal(s.items[0].base_pos, 11);
	assert_int_equal(s.items[0].nsteps, 1);
	assert_string_equal(s.items[0].steps[0].member, "name");
	assert_int_equal(s.items[0].fmt, FMT_STR);
	assert_string_equal(s.items[0].text, "@config->name:str");
	assert_string_equal(s.items[1].base, "@tls:req");
	assert_string_equal(s.items[1].text, "@tls:req.id");
	assert_true(s.items[1].has_pred);
	assert_string_equal(s.items[2].base, "@count");
	assert_false(spec_item__is_return(&s.items[2]));
	assert_string_equal(s.items[3].base, "arg0");
	spec__free(&s);
	/* Casts and '*' around them, as around arguments. */
	parse_ok("u:./app:f(*(long *)@p)", &s);
	assert_string_equal(s.items[0].base, "@p");
	assert_int_equal(s.items[0].nsteps, 2);
	spec__free(&s);
}

/* A USDT probe's variables: '@tls:' is the variable's, ':' after the chain a format. */
static void test_usdt_variables(void **state)
{
	struct ks_error err;
	struct spec s;

	assert_int_equal(spec__parse("./app:p:n(arg0, @cfg.tag:str, @tls:req_id == 7, @n)",
				     SPEC_USDT, &s, &err), 0);
	assert_int_equal(s.nitems, 4);
	assert_string_equal(s.items[1].base, "@cfg");
	assert_int_equal(s.items[1].fmt, FMT_STR);
	assert_int_equal(s.items[1].nsteps, 1);
	assert_string_equal(s.items[2].base, "@tls:req_id");
	assert_true(s.items[2].has_pred);
	assert_string_equal(s.items[3].base, "@n");
	assert_true(spec__reads_vars(&s));
	spec__free(&s);
	assert_int_equal(spec__parse("./app:p:n(arg0:struct x *)", SPEC_USDT, &s, &err), 0);
	assert_false(spec__reads_vars(&s));
	spec__free(&s);
	/* Not argN:TYPE: a variable's type is its own, so only a format follows. */
	assert_int_equal(spec__parse("./app:p:n(@n:u32)", SPEC_USDT, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unknown format 'u32'"));
	spec__free(&s);
}

static void test_err_ufunc_variables(void **state)
{
	parse_err("u:./app:f(@)", 12, "expected a variable's name after '@', found ')'");
	parse_err("u:./app:f(@tls:)", 16, "expected a thread-local variable's name after '@tls:'");
	parse_err("u:./app:f(@1x)", 12, "expected a variable's name after '@'");
	parse_err("vfs_read(@x)", 10, "'@NAME' (a variable of the traced program) is for user functions");
	parse_err("tp:sched:sched_switch(@x)", 23, "is for user functions");
}

static void test_err_empty_spec(void **state)
{
	parse_err("", 1, "expected a function name, found end of spec");
	parse_err("   ", 4, "expected a function name, found end of spec");
}

static void test_err_no_function_name(void **state)
{
	parse_err("(a)", 1, "expected a function name, found '('");
}

static void test_err_no_tracepoint_name(void **state)
{
	parse_err("tp:", 4, "expected a tracepoint name, found end of spec");
	parse_err("tp:(x)", 4, "expected a tracepoint name, found '('");
}

static void test_err_function_name_too_long(void **state)
{
	char *name = long_name(SPEC_MAX_NAME + 1);

	parse_err(name, 1, "name is too long");
	free(name);
}

/* A type of many words (or '*'s) is bounded as a whole, not per word. */
static void test_err_type_too_long(void **state)
{
	size_t n = SPEC_MAX_TYPE / 5 + 2, i;
	char *decl = malloc(8 + 5 * n + 8), *cast = malloc(8 + 5 * n + 8), *p;

	assert_non_null(decl);
	assert_non_null(cast);
	p = decl + sprintf(decl, "f(");
	for (i = 0; i < n; i++)
		p += sprintf(p, "enum ");
	strcpy(p, "x)");
	parse_err(decl, 3, "type is too long (more than 512 characters)");
	p = cast + sprintf(cast, "f((u32 ");
	memset(p, '*', SPEC_MAX_TYPE);
	strcpy(p + SPEC_MAX_TYPE, ")a)");
	parse_err(cast, 4, "type is too long (more than 512 characters)");
	free(decl);
	free(cast);
}

static void test_err_missing_close_paren(void **state)
{
	parse_err("f(a", 4, "missing ')'");
	parse_err("f(a, b->c ", 11, "missing ')'");
}

static void test_err_unbalanced_open_paren(void **state)
{
	parse_err("f(", 3, "expected a value (argument name or 'return'), found end of spec");
}

static void test_err_extra_close_paren(void **state)
{
	parse_err("f(a))", 5, "unexpected ')' after the spec");
	parse_err("f)", 2, "unexpected ')' after the spec");
}

static void test_err_trailing_junk(void **state)
{
	parse_err("f(a) x", 6, "unexpected 'x' after the spec");
	parse_err("f x", 3, "unexpected 'x' after the spec");
	parse_err("f(a)\x01", 5, "unexpected byte 0x01 after the spec");
}

static void test_err_empty_item(void **state)
{
	parse_err("f(,)", 3, "expected a value (argument name or 'return'), found ','");
	parse_err("f(a,)", 5, "expected a value (argument name or 'return'), found ')'");
	parse_err("f(a,,b)", 5, "found ','");
}

static void test_err_missing_comma(void **state)
{
	parse_err("f(a->x b)", 8, "expected ',' or ')', found 'b'");
	parse_err("f(a == 1 2)", 10, "expected ',' or ')', found '2'");
}

static void test_err_star_without_name(void **state)
{
	parse_err("f(*)", 4, "expected a value (argument name or 'return'), found ')'");
	parse_err("f(*1)", 4, "found '1'");
}

static void test_err_single_equals(void **state)
{
	parse_err("f(a = 1)", 5, "'=' is not an operator; use '=='");
}

static void test_err_fat_arrow(void **state)
{
	parse_err("f(a => 1)", 5, "'=' is not an operator; use '=='");
}

static void test_err_unknown_operator(void **state)
{
	parse_err("f(a ! 1)", 5, "unknown operator '! '");
	parse_err("f(a !)", 5, "unknown operator '!)'");
}

static void test_err_missing_constant(void **state)
{
	parse_err("f(a == )", 8, "expected a constant, found ')'");
	parse_err("f(a ==", 7, "expected a constant, found end of spec");
	parse_err("f(a === 1)", 7, "expected a constant, found '='");
	parse_err("f(a == +1)", 8, "expected a constant, found '+'");
}

static void test_err_value_on_the_right(void **state)
{
	const char *why = "a predicate compares a value with a constant (a number, a character, "
			  "a string or an enumerator), not with another value";

	parse_err("f(a->x == b->y)", 11, why);
	parse_err("f(a == b.c)", 8, why);
	parse_err("f(a == b [1])", 8, why);
	parse_err("f(a == b(1))", 8, why);
}

static void test_err_minus_without_number(void **state)
{
	parse_err("f(a == -)", 9, "expected a number after '-'");
	parse_err("f(a == -x)", 9, "expected a number after '-'");
}

static void test_err_bad_digit(void **state)
{
	parse_err("f(x == 12x)", 10, "bad digit 'x' in number");
	/* 8 is not an octal digit. */
	parse_err("f(x == 08)", 9, "bad digit '8' in number");
	parse_err("f(x == 0xfg)", 11, "bad digit 'g' in number");
	parse_err("f(a[3x])", 6, "bad digit 'x' in number");
}

static void test_err_number_overflow(void **state)
{
	parse_err("f(x == 99999999999999999999)", 8,
		  "number '99999999999999999999' does not fit in 64 bits");
	parse_err("f(x == 18446744073709551616)", 8, "does not fit in 64 bits");
	parse_err("f(x == -99999999999999999999)", 9, "does not fit in 64 bits");
}

static void test_err_unterminated_string(void **state)
{
	parse_err("f(s == \"abc)", 8, "unterminated string constant");
}

/* "VALUE & MASK": alone, any bit set; before an operator, compared. */
static void test_mask(void **state)
{
	struct spec s;
	struct ks_error e;

	assert_int_equal(spec__parse("f(how->flags & 0x40, x&3 == 1)", SPEC_KFUNC, &s, &e), 0);
	assert_true(s.items[0].has_mask);
	assert_int_equal(s.items[0].mask, 0x40);
	assert_true(s.items[0].has_pred);
	assert_int_equal(s.items[0].op, KSNOOP_OP_NE);
	assert_int_equal(s.items[0].cst.mag, 0);
	assert_string_equal(s.items[0].text, "how->flags");
	assert_int_equal(s.items[0].mask_pos, 16);
	assert_true(s.items[1].has_mask);
	assert_int_equal(s.items[1].mask, 3);
	assert_int_equal(s.items[1].op, KSNOOP_OP_EQ);
	assert_int_equal(s.items[1].cst.mag, 1);
	assert_string_equal(s.items[1].text, "x");
	spec__free(&s);
}

static void test_shift(void **state)
{
	struct spec s;
	struct ks_error e;

	assert_int_equal(spec__parse("f(p->exit_code >> 8, x:hex>>4, y)", SPEC_KFUNC, &s, &e), 0);
	assert_int_equal(s.items[0].shift, 8);
	assert_string_equal(s.items[0].text, "p->exit_code >> 8");
	assert_int_equal(s.items[0].shift_pos, 19);
	assert_false(s.items[0].has_pred);
	assert_int_equal(s.items[1].shift, 4);
	assert_int_equal(s.items[1].fmt, FMT_HEX);
	assert_string_equal(s.items[1].text, "x:hex >> 4");
	assert_int_equal(s.items[2].shift, 0);
	spec__free(&s);
}

static void test_err_shift(void **state)
{
	struct spec s;

	parse_err("f(x >> y)", 8, "expected a number of bits after '>>', found 'y'");
	parse_err("f(x >> 0)", 8, "a shift is 1 to 63 bits");
	parse_err("f(x >> 64)", 8, "a shift is 1 to 63 bits");
	parse_err("f(x >> 8 == 1)", 10, "'x >> 8' is printed, not compared or masked: a shift applies where values are printed");
	parse_err("f(x >> 8 & 1)", 10, "'x >> 8' is printed, not compared or masked: a shift applies where values are printed");
	/* A comparison '>' stays one. */
	parse_ok("f(x > 8)", &s);
	assert_true(s.items[0].has_pred);
	assert_int_equal(s.items[0].shift, 0);
	spec__free(&s);
}

static void test_err_mask(void **state)
{
	parse_err("f(x & y)", 7, "expected a number after '&', found 'y'");
	parse_err("f(x & 0)", 7, "a mask of 0 is never set");
	parse_err("f(x & -1)", 7, "expected a number after '&', found '-'");
}

static void test_err_string_too_long(void **state)
{
	char text[128];

	snprintf(text, sizeof(text), "f(s == \"%.64s\")",
		 "0123456789012345678901234567890123456789012345678901234567890123456789");
	parse_err(text, 8, "string constant longer than 63 bytes");
}

static void test_err_nul_in_string(void **state)
{
	/* Column of the backslash. */
	parse_err("f(s == \"a\\0b\")", 10, "NUL inside a string constant");
}

/* Regression (fixed): spec.c parse_const() reports "\x00" two columns after its backslash. */
static void test_err_nul_in_string_hex_escape_column(void **state)
{
	/*         1234567890123 */
	parse_err("f(s == \"\\x00\")", 9, "NUL inside a string constant");
}

static void test_err_unterminated_char(void **state)
{
	parse_err("f(c == 'b)", 8, "unterminated character literal");
	parse_err("f(c == 'bc')", 8, "unterminated character literal");
	parse_err("f(c == '\\x414')", 8, "unterminated character literal");
}

/*
 * Regression (fixed): spec.c parse_const(): a quote at the very end of the spec is reported
 * as "empty character literal"; the literal is unterminated, not empty.
 */
static void test_err_unterminated_char_at_end(void **state)
{
	parse_err("f(c == '", 8, "unterminated character literal");
}

/*
 * Regression (fixed): spec.c parse_escape(): a backslash at the very end of the spec is
 * reported as "unknown escape '\ '"; the literal is unterminated.
 */
static void test_err_backslash_at_end(void **state)
{
	parse_err("f(c == '\\", 8, "unterminated character literal");
	parse_err("f(s == \"ab\\", 8, "unterminated string constant");
}

static void test_err_empty_char(void **state)
{
	parse_err("f(c == '')", 8, "empty character literal");
}

static void test_err_unknown_escape(void **state)
{
	/* Column of the letter after the backslash. */
	parse_err("f(c == '\\q')", 10, "unknown escape '\\q'");
	parse_err("f(s == \"a\\q\")", 11, "unknown escape '\\q'");
}

static void test_err_hex_escape_without_digits(void **state)
{
	parse_err("f(c == '\\x')", 10, "expected hex digits after '\\x'");
	parse_err("f(c == '\\xg')", 10, "expected hex digits after '\\x'");
}

static void test_err_value_name_too_long(void **state)
{
	char *name = long_name(SPEC_MAX_NAME + 1);
	char text[SPEC_MAX_NAME + 16];

	snprintf(text, sizeof(text), "f(%s)", name);
	parse_err(text, 3, "is longer than 128 characters");
	free(name);
}

static void test_err_member_name_too_long(void **state)
{
	char *name = long_name(SPEC_MAX_NAME + 1);
	char text[SPEC_MAX_NAME + 16];

	snprintf(text, sizeof(text), "f(a->%s)", name);
	parse_err(text, 6, "a member name is longer than 128 characters");
	free(name);
}

static void test_err_constant_name_too_long(void **state)
{
	char *name = long_name(SPEC_MAX_NAME + 1);
	char text[SPEC_MAX_NAME + 16];

	snprintf(text, sizeof(text), "f(a == %s)", name);
	parse_err(text, 8, "constant is longer than 128 characters");
	free(name);
}

static void test_err_too_many_items(void **state)
{
	/* The 17th item starts at column 35. */
	parse_err("f(a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q)", 35, "more than 16 values in one spec");
}

static void test_err_too_many_steps(void **state)
{
	char text[256] = "f(a";
	int col;

	for (int i = 0; i < SPEC_MAX_STEPS; i++)
		strcat(text, ".b");
	col = (int)strlen(text) + 1;	/* the 33rd '.' */
	strcat(text, ".b)");
	parse_err(text, col, "more than 32 steps in one value");
}

static void test_err_missing_member_after_arrow(void **state)
{
	parse_err("f(a->)", 6, "expected a member name, found ')'");
	parse_err("f(a->", 6, "expected a member name, found end of spec");
	parse_err("f(a->1)", 6, "expected a member name, found '1'");
}

static void test_err_missing_member_after_dot(void **state)
{
	parse_err("f(a.)", 5, "expected a member name, found ')'");
}

static void test_err_split_arrow(void **state)
{
	/* "- >" is not an arrow; '-' cannot follow a value. */
	parse_err("f(a - > b)", 5, "expected ',' or ')', found '-'");
}

static void test_err_missing_bracket(void **state)
{
	parse_err("f(a[3)", 6, "expected ']', found ')'");
	parse_err("f(a[3", 6, "expected ']', found end of spec");
}

static void test_err_bad_index(void **state)
{
	parse_err("f(a[])", 5, "expected an index, found ']'");
	parse_err("f(a[-1])", 5, "expected an index, found '-'");
	parse_err("f(a[i])", 5, "expected an index, found 'i'");
}

static void test_err_index_too_large(void **state)
{
	parse_err("f(a[2147483648])", 5, "index 2147483648 is too large");
}

static void test_error_resets_previous_state(void **state)
{
	struct ks_error err = { .err = -EINVAL, .pos = 99, .msg = "stale" };
	struct spec s;

	assert_int_equal(spec__parse("f(a)", SPEC_KFUNC, &s, &err), 0);
	assert_int_equal(err.err, 0);
	assert_int_equal(err.pos, 0);
	assert_string_equal(err.msg, "");
	spec__free(&s);
	/* spec__free() is safe on a freed (zeroed) spec and on NULL. */
	spec__free(&s);
	spec__free(NULL);
}

/*
 * --by KEY[,KEY]...: up to three parts in the order given, words known
 * as such, one VALUE at most; each refusal one line naming the part.
 */
static void test_by_parts(void **state)
{
	struct spec_by by;
	struct ks_error e = {};

	assert_int_equal(spec__parse_by("comm,return", &by, &e), 0);
	assert_int_equal(by.n, 2);
	assert_string_equal(by.part[0], "comm");
	assert_string_equal(by.part[1], "return");
	assert_int_equal(by.word[0], KSNOOP_BY_COMM);
	assert_int_equal(by.word[1], KSNOOP_BY_NONE);
	assert_int_equal(by.value, 1);
	assert_int_equal(spec__parse_by("pid,skb->len,cpu", &by, &e), 0);
	assert_int_equal(by.n, 3);
	assert_int_equal(by.word[0], KSNOOP_BY_PID);
	assert_string_equal(by.part[1], "skb->len");
	assert_int_equal(by.word[2], KSNOOP_BY_CPU);
	assert_int_equal(by.value, 1);
	assert_int_equal(spec__parse_by("tid", &by, &e), 0);
	assert_int_equal(by.n, 1);
	assert_int_equal(by.word[0], KSNOOP_BY_TID);
	assert_int_equal(by.value, -1);
	/* Refused. */
	assert_int_equal(spec__parse_by("comm,pid,tid,cpu", &by, &e), -EINVAL);
	assert_string_equal(e.msg, "--by 'comm,pid,tid,cpu': at most 3 keys (KEY[,KEY[,KEY]])");
	assert_int_equal(spec__parse_by("comm,,pid", &by, &e), -EINVAL);
	assert_string_equal(e.msg, "--by 'comm,,pid': a key is empty or longer than 255 characters");
	assert_int_equal(spec__parse_by("comm,", &by, &e), -EINVAL);
	assert_string_equal(e.msg, "--by 'comm,': a key is empty or longer than 255 characters");
	assert_int_equal(spec__parse_by("", &by, &e), -EINVAL);
	assert_int_equal(spec__parse_by("pid,comm,pid", &by, &e), -EINVAL);
	assert_string_equal(e.msg, "--by 'pid,comm,pid': 'pid' is given twice");
	assert_int_equal(spec__parse_by("return,arg1", &by, &e), -EINVAL);
	assert_string_equal(e.msg, "--by 'return,arg1': one key may be a value the spec names; 'arg1' is a second (comm, pid, tid, cpu and cgroup go beside it)");
	/* cgroup: a word (the task's cgroup v2 id), beside a value. */
	assert_int_equal(spec__parse_by("cgroup,reason", &by, &e), 0);
	assert_int_equal(by.word[0], KSNOOP_BY_CGROUP);
	assert_int_equal(by.word[1], KSNOOP_BY_NONE);
	assert_int_equal(by.value, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_function),
		cmocka_unit_test(test_function_with_compiler_suffix),
		cmocka_unit_test(test_empty_value_list),
		cmocka_unit_test(test_tracepoint_prefix),
		cmocka_unit_test(test_tracepoint_category),
		cmocka_unit_test(test_names_starting_with_tp_are_functions),
		cmocka_unit_test(test_module_prefix),
		cmocka_unit_test(test_address),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_class_only_globs),
		cmocka_unit_test(test_declarations),
		cmocka_unit_test(test_tracepoint_globs_and_declarations),
		cmocka_unit_test(test_ufunc_target),
		cmocka_unit_test(test_ufunc_offset_and_address),
		cmocka_unit_test(test_ufunc_errors),
		cmocka_unit_test(test_usdt_target),
		cmocka_unit_test(test_usdt_target_without_list),
		cmocka_unit_test(test_str_len),
		cmocka_unit_test(test_str_len_errors),
		cmocka_unit_test(test_several_items),
		cmocka_unit_test(test_member_chain),
		cmocka_unit_test(test_index_in_hex),
		cmocka_unit_test(test_largest_index),
		cmocka_unit_test(test_one_star),
		cmocka_unit_test(test_two_stars),
		cmocka_unit_test(test_star_with_chain),
		cmocka_unit_test(test_cast_then_member),
		cmocka_unit_test(test_cast_binds_after_postfix),
		cmocka_unit_test(test_cast_typedef_and_words),
		cmocka_unit_test(test_deref_in_parentheses),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_format_strv),
		cmocka_unit_test(test_cast_and_format_errors),
		cmocka_unit_test(test_display_text),
		cmocka_unit_test(test_whitespace_tolerated),
		cmocka_unit_test(test_sixteen_items),
		cmocka_unit_test(test_names_of_128_chars),
		cmocka_unit_test(test_thirty_two_steps),
		cmocka_unit_test(test_every_operator),
		cmocka_unit_test(test_operator_names),
		cmocka_unit_test(test_operator_after_member),
		cmocka_unit_test(test_decimal_constant),
		cmocka_unit_test(test_hex_constant),
		cmocka_unit_test(test_octal_constant),
		cmocka_unit_test(test_largest_constant),
		cmocka_unit_test(test_negative_constant),
		cmocka_unit_test(test_minus_zero_is_not_negative),
		cmocka_unit_test(test_char_literal),
		cmocka_unit_test(test_char_literal_escapes),
		cmocka_unit_test(test_string_constant),
		cmocka_unit_test(test_string_escapes),
		cmocka_unit_test(test_longest_string),
		cmocka_unit_test(test_null_constant),
		cmocka_unit_test(test_enumerator_constant),
		cmocka_unit_test(test_predicates_on_several_items),
		cmocka_unit_test(test_ufunc_variables),
		cmocka_unit_test(test_err_ufunc_variables),
		cmocka_unit_test(test_usdt_variables),
		cmocka_unit_test(test_err_empty_spec),
		cmocka_unit_test(test_err_no_function_name),
		cmocka_unit_test(test_err_no_tracepoint_name),
		cmocka_unit_test(test_err_function_name_too_long),
		cmocka_unit_test(test_err_type_too_long),
		cmocka_unit_test(test_err_missing_close_paren),
		cmocka_unit_test(test_err_unbalanced_open_paren),
		cmocka_unit_test(test_err_extra_close_paren),
		cmocka_unit_test(test_err_trailing_junk),
		cmocka_unit_test(test_err_empty_item),
		cmocka_unit_test(test_err_missing_comma),
		cmocka_unit_test(test_err_star_without_name),
		cmocka_unit_test(test_err_single_equals),
		cmocka_unit_test(test_err_fat_arrow),
		cmocka_unit_test(test_err_unknown_operator),
		cmocka_unit_test(test_err_missing_constant),
		cmocka_unit_test(test_err_value_on_the_right),
		cmocka_unit_test(test_err_minus_without_number),
		cmocka_unit_test(test_err_bad_digit),
		cmocka_unit_test(test_err_number_overflow),
		cmocka_unit_test(test_err_unterminated_string),
		cmocka_unit_test(test_err_string_too_long),
		cmocka_unit_test(test_mask),
		cmocka_unit_test(test_err_mask),
		cmocka_unit_test(test_shift),
		cmocka_unit_test(test_err_shift),
		cmocka_unit_test(test_err_nul_in_string),
		cmocka_unit_test(test_err_nul_in_string_hex_escape_column),
		cmocka_unit_test(test_err_unterminated_char),
		cmocka_unit_test(test_err_unterminated_char_at_end),
		cmocka_unit_test(test_err_backslash_at_end),
		cmocka_unit_test(test_err_empty_char),
		cmocka_unit_test(test_err_unknown_escape),
		cmocka_unit_test(test_err_hex_escape_without_digits),
		cmocka_unit_test(test_err_value_name_too_long),
		cmocka_unit_test(test_err_member_name_too_long),
		cmocka_unit_test(test_err_constant_name_too_long),
		cmocka_unit_test(test_err_too_many_items),
		cmocka_unit_test(test_err_too_many_steps),
		cmocka_unit_test(test_err_missing_member_after_arrow),
		cmocka_unit_test(test_err_missing_member_after_dot),
		cmocka_unit_test(test_err_split_arrow),
		cmocka_unit_test(test_err_missing_bracket),
		cmocka_unit_test(test_err_bad_index),
		cmocka_unit_test(test_err_index_too_large),
		cmocka_unit_test(test_error_resets_previous_state),
		cmocka_unit_test(test_by_parts),
	};

	return cmocka_run_group_tests_name("spec", tests, NULL, NULL);
}
