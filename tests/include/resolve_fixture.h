/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The resolver's test BTF and helpers, shared by the resolver's unit tests
 * (test_resolve_sig.c: signatures; test_resolve_values.c: chains, printing,
 * layout; test_resolve_pred.c: predicates; test_resolve_return.c: return
 * values and the stash; test_resolve_errors.c: errors and their columns;
 * test_resolve_lang.c: casts, formats).
 *
 * The BTF is shaped like the kernel's where it matters.  Its base is
 * compiled from C (tests/fixture/kernel.h: gcc -g, pahole -J, as the
 * kernel's is): the C integer types by gcc's names ("long unsigned int"),
 * typedefs, sock with sock_common embedded first and anonymous unions
 * (whose offsets the tests take from offsetof) and the socket addresses.
 * Built in memory on top: sk_buff with bitfields (one across a 32-bit
 * unit), a char array and a flexible array, enums signed and unsigned,
 * and the functions, btf_trace_* typedefs and __bpf_trace_* stubs
 * tracepoints are described by; sk_buff's offsets below are the ones this
 * file gives its members, not the kernel's.
 *
 * Access semantics (include/ksnoop.h): step 0 adds steps[0] to the argument
 * word; each later step loads a pointer from the current address and adds
 * steps[i]; nsteps == 0 with KSNOOP_VAL_REG is the register itself.
 *
 * Everything here is static and marked unused: each test file uses part.
 */
#ifndef KSNOOP_TEST_RESOLVE_FIXTURE_H
#define KSNOOP_TEST_RESOLVE_FIXTURE_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "../fixture/kernel.h"
#include "resolve.h"
#include "spec.h"

#pragma GCC diagnostic ignored "-Wunused-function"

/*
 * A helper's asserts, reported at its caller's line: each helper below is
 * called through a macro of its name that passes __FILE__ and __LINE__,
 * and asserts with these, so a failure names the test's line, not the
 * helper's (kernel selftests' ASSERT_* do the same).
 */
#define at_int_equal(a, b)                                                   \
	_assert_int_equal(cast_to_largest_integral_type(a),                  \
			  cast_to_largest_integral_type(b), file, line)
#define at_true(c) _assert_true(cast_to_largest_integral_type(c), #c, file, line)
#define at_non_null(p) _assert_true(cast_ptr_to_largest_integral_type(p), #p, file, line)
#define AT const char *file, int line

/* ---- the BTF ---- */

static struct btf *btf;

/* Type ids of interest, filled by build_btf(). */
static struct {
	struct fx_ints ints;	/* char_t ... bool_t, from btf_fixture.h */
	int u8_t, u16_t, u32_t, s16_t;
	int const_char, const_char_ptr, char_ptr, uchar_ptr, void_ptr;
	int int_ptr, int_ptr_ptr, int_arr4, char_arr16;
	int sock_common, sock, sock_ptr, sk_buff, skb_ptr, net, net_ptr;
	int node, node_ptr, pair, big, small, huge, huge_ptr;
	int drop_reason, signed_enum;
	int be16_t, be32_t, sockaddr, sockaddr_ptr, sockaddr_in, in_addr, in6_addr, in6_ptr;
	int fn_ptr, ops;
	int ip_send_skb, bad_func, kfree_skb_stub, net_dev_template_stub, sched_template_stub;
} T;

/* Offsets in struct sk_buff, as build_btf() lays it out. */
enum {
	SKB_NEXT = 0, SKB_SK = 8, SKB_CB = 16, SKB_LEN = 64, SKB_PROTOCOL = 68,
	SKB_PKT_TYPE_BIT = 560, SKB_IGNORE_DF_BIT = 563, SKB_MARK_BITS_BIT = 572,
	SKB_ARR = 76, SKB_REASON = 92, SKB_S16V = 96, SKB_U8V = 98, SKB_FLAG = 99,
	SKB_FCLONE = 100, SKB_LVAL = 104, SKB_ULVAL = 112, SKB_NAME = 120,
	SKB_DATA = 128, SKB_COMMON = 136, SKB_PAYLOAD = 152, SKB_SIZE = 152,
};
/* Offsets in struct sock and struct sock_common: the compiler's. */
enum {
	SK_COMMON = offsetof(struct sock, __sk_common),
	SK_RX_DST_IFINDEX = offsetof(struct sock, sk_rx_dst_ifindex),
	SK_RX_DST_COOKIE = offsetof(struct sock, sk_rx_dst_cookie),
	SK_FLAGS_WORD = offsetof(struct sock, sk_flags_word),
	SK_RCVBUF = offsetof(struct sock, sk_rcvbuf), SK_NAME = offsetof(struct sock, sk_name),
	SK_PROT_NAME = offsetof(struct sock, sk_prot_name), SK_SIZE = sizeof(struct sock),
	SKC_FAMILY = offsetof(struct sock_common, skc_family),
	SKC_STATE = offsetof(struct sock_common, skc_state),
	SKC_BOUND_DEV_IF = offsetof(struct sock_common, skc_bound_dev_if),
	SKC_HASH = offsetof(struct sock_common, skc_hash),
	SKC_U16HASHES = offsetof(struct sock_common, skc_u16hashes),
	SKC_RCV_SADDR = offsetof(struct sock_common, skc_rcv_saddr),
	SKC_SIZE = sizeof(struct sock_common),
};

static void field_at(AT, const char *name, int type, int byte_off)
{
	at_int_equal(btf__add_field(btf, name, type, byte_off * 8, 0), 0);
}
#define field(...) field_at(__FILE__, __LINE__, __VA_ARGS__)

static void bitfield_at(AT, const char *name, int type, int bit_off, int bit_size)
{
	at_int_equal(btf__add_field(btf, name, type, bit_off, bit_size), 0);
}
#define bitfield(...) bitfield_at(__FILE__, __LINE__, __VA_ARGS__)

/* A FUNC_PROTO: (name, type) pairs, NULL-terminated (btf_fixture.h). */
static int proto_at(AT, int ret, ...)
{
	va_list ap;
	int id;

	va_start(ap, ret);
	id = fx_vproto(btf, ret, ap);
	va_end(ap);
	at_true(id > 0);
	return id;
}
#define proto(...) proto_at(__FILE__, __LINE__, __VA_ARGS__)

static int func_at(AT, const char *name, int proto_id)
{
	int id = fx_func(btf, name, proto_id);

	at_true(id > 0);
	return id;
}
#define func(...) func_at(__FILE__, __LINE__, __VA_ARGS__)

static void trace_typedef_at(AT, const char *event, int proto_id)
{
	at_true(fx_trace_typedef(btf, event, proto_id) > 0);
}
#define trace_typedef(...) trace_typedef_at(__FILE__, __LINE__, __VA_ARGS__)

/* The id of the compiled type of KIND named NAME. */
static int named_at(AT, const char *name, int kind)
{
	int id = fx_named(btf, name, kind);

	if (id <= 0) {
		print_error("no %s in the fixture BTF (tests/fixture/kernel.h)\n", name);
		_fail(file, line);
	}
	return id;
}
#define named(name, kind) named_at(__FILE__, __LINE__, name, kind)

static void build_scalars(void)
{
	assert_int_equal(fx_find_ints(btf, &T.ints), 0);
	T.u8_t = named("u8", BTF_KIND_TYPEDEF);
	T.u16_t = named("u16", BTF_KIND_TYPEDEF);
	T.u32_t = named("u32", BTF_KIND_TYPEDEF);
	T.s16_t = named("s16", BTF_KIND_TYPEDEF);
	T.const_char = btf__add_const(btf, T.ints.char_t);
	T.const_char_ptr = btf__add_ptr(btf, T.const_char);
	T.char_ptr = btf__add_ptr(btf, T.ints.char_t);
	T.uchar_ptr = btf__add_ptr(btf, T.ints.uchar_t);
	T.void_ptr = btf__add_ptr(btf, 0);
	T.int_ptr = btf__add_ptr(btf, T.ints.int_t);
	T.int_ptr_ptr = btf__add_ptr(btf, T.int_ptr);
	T.int_arr4 = btf__add_array(btf, T.ints.int_t, T.ints.int_t, 4);
	T.char_arr16 = btf__add_array(btf, T.ints.int_t, T.ints.char_t, 16);
	assert_true(T.char_arr16 > 0);
}

static void build_enums(void)
{
	/* Unsigned, with a value above INT_MAX. */
	T.drop_reason = btf__add_enum(btf, "skb_drop_reason", 4);
	btf__add_enum_value(btf, "SKB_NOT_DROPPED_YET", 0);
	btf__add_enum_value(btf, "SKB_DROP_REASON_NOT_SPECIFIED", 2);
	btf__add_enum_value(btf, "SKB_DROP_REASON_HUGE", 0x80000000LL);
	/* Signed: libbpf sets kflag when a value is negative. */
	T.signed_enum = btf__add_enum(btf, "signed_enum", 4);
	btf__add_enum_value(btf, "NEG_ONE", -1);
	btf__add_enum_value(btf, "POS_FIVE", 5);
	btf__add_enum_value(btf, "DUP", 7);
	/* Anonymous, as the kernel's many enum { ... } constants. */
	btf__add_enum(btf, NULL, 4);
	btf__add_enum_value(btf, "SKB_FCLONE_UNAVAILABLE", 0);
	btf__add_enum_value(btf, "SKB_FCLONE_ORIG", 1);
	btf__add_enum_value(btf, "SKB_FCLONE_CLONE", 2);
	/* The same name with different values, and with the same value. */
	btf__add_enum(btf, "dup_a", 4);
	btf__add_enum_value(btf, "DUP", 1);
	btf__add_enum(btf, "dup_b", 4);
	btf__add_enum_value(btf, "DUP", 2);
	btf__add_enum(btf, "same_a", 4);
	btf__add_enum_value(btf, "SAME", 3);
	btf__add_enum(btf, "same_b", 4);
	btf__add_enum_value(btf, "SAME", 3);
	btf__add_enum(btf, "big_enum", 4);
	assert_int_equal(btf__add_enum_value(btf, "BIG_ENUM", 300), 0);
	/* 64-bit enums, unsigned and signed. */
	btf__add_enum64(btf, "big64", 8, false);
	assert_int_equal(btf__add_enum64_value(btf, "E64_BIG", 0x100000000ULL), 0);
	btf__add_enum64(btf, "sbig64", 8, true);
	assert_int_equal(btf__add_enum64_value(btf, "E64_NEG", (__u64)-5LL), 0);
}

static void build_sock(void)
{
	T.sock_common = named("sock_common", BTF_KIND_STRUCT);
	T.sock = named("sock", BTF_KIND_STRUCT);
	T.sock_ptr = btf__add_ptr(btf, T.sock);
}

static void build_sk_buff(void)
{
	int char_arr48 = btf__add_array(btf, T.ints.int_t, T.ints.char_t, 48);
	int payload = btf__add_array(btf, T.ints.int_t, T.ints.uchar_t, 0);

	/* The pointer first, so that sk_buff can point to itself. */
	T.skb_ptr = btf__add_ptr(btf, btf__type_cnt(btf) + 1);
	T.sk_buff = btf__add_struct(btf, "sk_buff", SKB_SIZE);
	assert_int_equal(T.sk_buff, T.skb_ptr + 1);
	field("next", T.skb_ptr, SKB_NEXT);
	field("sk", T.sock_ptr, SKB_SK);
	field("cb", char_arr48, SKB_CB);
	field("len", T.ints.uint_t, SKB_LEN);
	field("protocol", T.u16_t, SKB_PROTOCOL);
	bitfield("pkt_type", T.u8_t, SKB_PKT_TYPE_BIT, 3);
	bitfield("ignore_df", T.u8_t, SKB_IGNORE_DF_BIT, 1);
	bitfield("mark_bits", T.u32_t, SKB_MARK_BITS_BIT, 12);
	field("arr", T.int_arr4, SKB_ARR);
	field("reason", T.drop_reason, SKB_REASON);
	field("s16v", T.s16_t, SKB_S16V);
	field("u8v", T.u8_t, SKB_U8V);
	field("flag", T.ints.bool_t, SKB_FLAG);
	field("fclone", T.ints.int_t, SKB_FCLONE);
	field("lval", T.ints.long_t, SKB_LVAL);
	field("ulval", T.ints.ulong_t, SKB_ULVAL);
	field("name", T.const_char_ptr, SKB_NAME);
	field("data", T.uchar_ptr, SKB_DATA);
	field("common", T.sock_common, SKB_COMMON);
	field("payload", payload, SKB_PAYLOAD);
}

static void build_other_structs(void)
{
	T.net = btf__add_fwd(btf, "net", BTF_FWD_STRUCT);	/* incomplete */
	T.net_ptr = btf__add_ptr(btf, T.net);

	T.node = named("node", BTF_KIND_STRUCT);
	T.node_ptr = fx_member_type(btf, "node", "next");
	T.pair = named("pair", BTF_KIND_STRUCT);
	T.big = named("big", BTF_KIND_STRUCT);
	T.small = named("small", BTF_KIND_STRUCT);
	T.huge = named("huge", BTF_KIND_STRUCT);
	T.huge_ptr = fx_member_type(btf, "kernel_types", "huge");
	assert_true(T.node_ptr > 0 && T.huge_ptr > 0);
}

/*
 * Socket addresses, as casts need them (compiled, tests/fixture/kernel.c):
 * struct sockaddr has a pointer type, struct sockaddr_in (deliberately)
 * none, so a cast to it must add one.
 */
static void build_addresses(void)
{
	T.be16_t = named("__be16", BTF_KIND_TYPEDEF);
	T.be32_t = named("__be32", BTF_KIND_TYPEDEF);
	T.sockaddr = named("sockaddr", BTF_KIND_STRUCT);
	T.sockaddr_ptr = fx_member_type(btf, "net_types", "sa");
	T.in_addr = named("in_addr", BTF_KIND_STRUCT);
	T.sockaddr_in = named("sockaddr_in", BTF_KIND_STRUCT);
	T.in6_addr = named("in6_addr", BTF_KIND_STRUCT);
	T.in6_ptr = fx_member_type(btf, "net_types", "a6");
	T.ops = named("ops", BTF_KIND_STRUCT);
	T.fn_ptr = fx_member_type(btf, "ops", "destructor");
	assert_true(T.sockaddr_ptr > 0 && T.in6_ptr > 0 && T.fn_ptr > 0);
}

static void build_functions(void)
{
	int p;

	func("inet_fn", proto(T.ints.int_t, "sk", T.sock_ptr, "uaddr", T.sockaddr_ptr,
			      "daddr", T.be32_t, "a6", T.in6_ptr, "word", T.ints.ulong_t,
			      "ops", btf__add_ptr(btf, T.ops), NULL));

	T.ip_send_skb = func("ip_send_skb", proto(T.ints.int_t, "net", T.net_ptr, "skb", T.skb_ptr, NULL));
	func("many_args", proto(T.ints.long_t,
				"a0", T.ints.long_t, "a1", T.ints.long_t, "a2", T.ints.long_t, "a3", T.ints.long_t,
				"a4", T.ints.long_t, "a5", T.ints.long_t, "a6", T.ints.long_t, "a7", T.ints.long_t,
				"a8", T.ints.long_t, "a9", T.ints.long_t, "a10", T.ints.long_t, "a11", T.ints.long_t,
				"a12", T.ints.long_t, NULL));
	func("take_big", proto(0, "big", T.big, "x", T.ints.int_t, NULL));
	func("take_pair", proto(T.ints.int_t, "p", T.pair, "x", T.ints.int_t, NULL));
	func("take_small", proto(0, "s", T.small, NULL));
	func("scalars", proto(0, "c", T.ints.char_t, "uc", T.ints.uchar_t, "s", T.s16_t, "us", T.u16_t,
			      "i", T.ints.int_t, "u", T.u32_t, NULL));
	func("scalars8", proto(T.ints.long_t, "l", T.ints.long_t, "ul", T.ints.ulong_t, "b", T.ints.bool_t,
			       "r", T.drop_reason, "se", T.signed_enum, "ip", T.int_ptr, NULL));
	func("strings", proto(T.const_char_ptr, "name", T.const_char_ptr, "buf", T.char_ptr,
			      "data", T.uchar_ptr, "n", T.node_ptr, "pp", T.int_ptr_ptr, NULL));
	/* A string and its length (":str(LEN)"), of each kind of length. */
	func("str_len_fn", proto(0, "buf", T.char_ptr, "len", T.ints.int_t, "ulen", T.u16_t,
				 "llen", T.ints.long_t, "ptr", T.int_ptr, "arr", T.char_arr16, NULL));
	func("variadic_fn", proto(T.ints.int_t, "fmt", T.const_char_ptr, "...", 0, NULL));
	func("void_fn", proto(0, NULL));
	func("take_huge", proto(0, "h", T.huge_ptr, NULL));
	/* A FUNC whose type is not a prototype (corrupt BTF). */
	T.bad_func = func("bad_func", T.ints.int_t);

	/* Tracepoint with its own stub: kfree_skb(skb, location). */
	trace_typedef("kfree_skb", proto(0, "", T.void_ptr, "", T.skb_ptr, "", T.void_ptr, NULL));
	T.kfree_skb_stub = func("__bpf_trace_kfree_skb",
				proto(0, "__data", T.void_ptr, "skb", T.skb_ptr,
				      "location", T.void_ptr, NULL));
	/*
	 * Events defined from shared templates: the stubs are named after the
	 * class, and two classes have the same parameter types.
	 */
	p = proto(0, "", T.void_ptr, "", T.skb_ptr, NULL);
	trace_typedef("net_dev_queue", p);
	trace_typedef("sched_skb_event", p);
	trace_typedef("net_dev_start_xmit", p);
	T.sched_template_stub = func("__bpf_trace_sched_template",
				     proto(0, "__data", T.void_ptr, "other", T.skb_ptr, NULL));
	T.net_dev_template_stub = func("__bpf_trace_net_dev_template",
				       proto(0, "__data", T.void_ptr, "skb", T.skb_ptr, NULL));
	/* A stub named after the event but with other types: not the event's. */
	func("__bpf_trace_net_dev_start_xmit",
	     proto(0, "__data", T.void_ptr, "bogus", T.ints.int_t, NULL));
	/* No stub at all: parameters are named argN. */
	trace_typedef("nostub", proto(0, "", T.void_ptr, "", T.ints.int_t, "", T.skb_ptr, NULL));
	/* A btf_trace_ typedef that is not a function pointer. */
	assert_true(btf__add_typedef(btf, "btf_trace_notptr", T.ints.int_t) > 0);
	/* String arrays (':strv'): execve's argv, a plain char **, and what is not one. */
	func("argv_fn", proto(T.ints.int_t, "argv", btf__add_ptr(btf, T.const_char_ptr),
			      "envp", btf__add_ptr(btf, T.char_ptr), "name", T.const_char_ptr,
			      "pp", T.int_ptr_ptr, "word", T.ints.ulong_t, NULL));
}

static int build_btf(void **state)
{
	btf = fx_fixture("kernel");
	if (!btf)
		return -1;
	build_scalars();
	build_enums();
	build_sock();
	build_sk_buff();
	build_other_structs();
	build_addresses();
	build_functions();
	return 0;
}

static int free_btf(void **state)
{
	btf__free(btf);
	btf = NULL;
	return 0;
}

/* ---- helpers ---- */

static const struct resolve_opts default_opts = {
	.max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
	.str_bytes = KSNOOP_DEFAULT_STR_SIZE,
};

/* A spec resolved against the test BTF; the plan points into the spec. */
struct resolved {
	struct spec spec;
	struct signature sig;
	struct capture_plan plan;
	struct ks_error err;
	int ret;
};

/*
 * Plans still held when a test fails (cmocka leaves the test by longjmp);
 * the per-test teardown frees them so a failure is not also a leak.
 */
static struct resolved *live[8];

static void resolved_free(struct resolved *r)
{
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (live[i] == r)
			live[i] = NULL;
	resolver__release(&r->plan);
	spec__free(&r->spec);
	free(r);
}

static int free_leftovers(void **state)
{
	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		if (live[i])
			resolved_free(live[i]);
	return 0;
}

static struct resolved *resolve_with_at(AT, const char *text, const struct resolve_opts *opts)
{
	struct resolved *r = calloc(1, sizeof(*r));
	struct ks_error why;
	size_t i;
	int id;

	at_non_null(r);
	for (i = 0; i < sizeof(live) / sizeof(live[0]) && live[i]; i++)
		;
	at_true(i < sizeof(live) / sizeof(live[0]));
	live[i] = r;
	if (spec__parse(text, SPEC_KFUNC, &r->spec, &r->err)) {
		print_error("spec \"%s\" does not parse: column %d: %s\n", text, r->err.pos, r->err.msg);
		_fail(file, line);
	}
	if (r->spec.kind == SPEC_TP) {
		at_int_equal(signature__from_tp(btf, r->spec.target, &r->sig), 0);
	} else {
		id = btf__find_by_name_kind(btf, r->spec.target, BTF_KIND_FUNC);
		at_true(id > 0);
		/* Refusals are tested on their own; resolve what was filled. */
		signature__from_func(btf, id, &r->sig, &why);
	}
	r->ret = resolver__resolve(&r->spec, &r->sig, opts, &r->plan, &r->err);
	return r;
}
#define resolve_with(...) resolve_with_at(__FILE__, __LINE__, __VA_ARGS__)

/* Resolve TEXT with the default options; it must succeed. */
static struct resolved *resolve_ok_at(AT, const char *text)
{
	struct resolved *r = resolve_with_at(file, line, text, &default_opts);

	if (r->ret)
		print_message("\"%s\": %d, column %d: %s\n", text, r->ret, r->err.pos, r->err.msg);
	at_int_equal(r->ret, 0);
	return r;
}
#define resolve_ok(text) resolve_ok_at(__FILE__, __LINE__, text)

/* Column (1-based) of the first NEEDLE in TEXT. */
static int col_at(AT, const char *text, const char *needle)
{
	const char *p = strstr(text, needle);

	at_non_null(p);
	return (int)(p - text) + 1;
}
#define col(text, needle) col_at(__FILE__, __LINE__, text, needle)

/* Resolving TEXT must fail at column POS with a message containing MSG. */
static void resolve_err_at(AT, const char *text, int pos, const char *msg)
{
	struct resolved *r = resolve_with_at(file, line, text, &default_opts);

	if (r->ret != -EINVAL || r->err.pos != pos || !strstr(r->err.msg, msg))
		print_message("\"%s\": ret %d, column %d, \"%s\"; expected -EINVAL, column %d, \"...%s...\"\n",
			      text, r->ret, r->err.pos, r->err.msg, pos, msg);
	at_int_equal(r->ret, -EINVAL);
	at_int_equal(r->err.err, -EINVAL);
	at_int_equal(r->err.pos, pos);
	at_non_null(strstr(r->err.msg, msg));
	resolved_free(r);
}
#define resolve_err(text, pos, msg) resolve_err_at(__FILE__, __LINE__, text, pos, msg)

static const struct ksnoop_access *acc_of_at(AT, const struct resolved *r, int kind, int i)
{
	at_true(i < r->plan.bpf.side[kind].nvalues);
	return &r->plan.bpf.side[kind].values[i].acc;
}
#define acc_of(r, kind, i) acc_of_at(__FILE__, __LINE__, r, kind, i)

static const struct value_desc *vd_of_at(AT, const struct resolved *r, int kind, int i)
{
	at_true(i < r->plan.nvalues[kind]);
	return &r->plan.values[kind][i];
}
#define vd_of(r, kind, i) vd_of_at(__FILE__, __LINE__, r, kind, i)

static const struct ksnoop_pred_plan *pred_of_at(AT, const struct resolved *r, int kind, int i)
{
	at_true(i < r->plan.bpf.side[kind].npreds);
	return &r->plan.bpf.side[kind].preds[i];
}
#define pred_of(r, kind, i) pred_of_at(__FILE__, __LINE__, r, kind, i)

/* ACC must start at argument SLOT with NSTEPS steps, the values following. */
static void assert_chain_at(AT, const struct ksnoop_access *acc, int src, int slot, int nsteps, ...)
{
	va_list ap;

	at_int_equal(acc->src, src);
	if (src == KSNOOP_SRC_ARG)
		at_int_equal(acc->slot, slot);
	at_int_equal(acc->nsteps, nsteps);
	va_start(ap, nsteps);
	for (int i = 0; i < nsteps; i++) {
		long long want = va_arg(ap, long long);

		if (acc->steps[i] != want)
			print_message("steps[%d] = %lld, expected %lld\n", i,
				      (long long)acc->steps[i], want);
		at_true(acc->steps[i] == want);
	}
	va_end(ap);
}
#define assert_chain(...) assert_chain_at(__FILE__, __LINE__, __VA_ARGS__)

#define TEST(f) cmocka_unit_test_teardown(f, free_leftovers)

/* The record header: every record's values start after it. */
#define HDR ((int)sizeof(struct ksnoop_event))

#endif
