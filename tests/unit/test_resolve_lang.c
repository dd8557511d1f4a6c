// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the resolver's side of the spec language: casts to types
 * from BTF and the ":FORMAT" suffixes, on the test BTF of
 * tests/include/resolve_fixture.h (inet_fn and the socket addresses).
 */
#include <arpa/inet.h>
#include <netinet/in.h>	/* offsets of struct sockaddr_in: the ABI's */
#include "../include/resolve_fixture.h"
#include "btf_util.h"

/* ---- casts ---- */

static void test_cast_to_existing_pointer(void **state)
{
	struct resolved *r = resolve_ok("inet_fn(((struct sock *)word)->sk_rcvbuf)");

	/* The word is the pointer: one load, at sk_rcvbuf's offset. */
	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 4, 1, (long long)SK_RCVBUF);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->type_id, T.ints.int_t);
	/* BTF had a struct sock *: nothing added. */
	assert_null(r->plan.ext_btf);
	assert_ptr_equal(r->plan.sig.btf, btf);
	resolved_free(r);
}

static void test_cast_adds_missing_pointer(void **state)
{
	struct resolved *r = resolve_ok("inet_fn(((struct sockaddr_in *)uaddr)->sin_port)");
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 1,
		     (long long)offsetof(struct sockaddr_in, sin_port));
	assert_int_equal(vd->size, 2);
	assert_int_equal(vd->type_id, T.be16_t);
	/* No struct sockaddr_in * in BTF: the plan holds one on top of it. */
	assert_non_null(r->plan.ext_btf);
	assert_ptr_equal(r->plan.sig.btf, r->plan.ext_btf);
	assert_string_equal(vd->text, "((struct sockaddr_in *)uaddr)->sin_port");
	resolved_free(r);
}

static void test_cast_then_nested_member_and_index(void **state)
{
	struct resolved *r = resolve_ok("inet_fn(((struct sockaddr_in *)uaddr)->sin_addr.s_addr,"
					" ((struct sockaddr_in *)uaddr)->sin_zero[3])");

	assert_chain(acc_of(r, KSNOOP_ENTRY, 0), KSNOOP_SRC_ARG, 1, 1,
		     (long long)offsetof(struct sockaddr_in, sin_addr.s_addr));
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->type_id, T.be32_t);
	assert_chain(acc_of(r, KSNOOP_ENTRY, 1), KSNOOP_SRC_ARG, 1, 1,
		     (long long)offsetof(struct sockaddr_in, sin_zero[3]));
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 1)->size, 1);
	resolved_free(r);
}

static void test_cast_of_pointer_value_prints_pointee(void **state)
{
	/* (struct sockaddr_in *)uaddr alone: the struct it points to. */
	struct resolved *r = resolve_ok("inet_fn((struct sockaddr_in *)uaddr)");
	const struct value_desc *vd = vd_of(r, KSNOOP_ENTRY, 0);

	assert_int_equal(vd->how, PRINT_DEREF);
	assert_int_equal(vd->obj_id, T.sockaddr_in);
	assert_int_equal(vd->size, sizeof(struct sockaddr_in));
	assert_string_equal(vd->obj_name, "struct sockaddr_in");
	resolved_free(r);
}

static void test_cast_narrows_and_reinterprets_ints(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb((u16)skb->len, (int)skb->len, (unsigned long)net)");

	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->size, 2);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->type_id, T.u16_t);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 1)->type_id, T.ints.int_t);
	/* C's spelling matches the type by meaning. */
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 2)->type_id, T.ints.ulong_t);
	assert_true(acc_of(r, KSNOOP_ENTRY, 2)->flags & KSNOOP_VAL_REG);
	resolved_free(r);
}

static void test_cast_in_predicate(void **state)
{
	struct resolved *r = resolve_ok("inet_fn(((struct sockaddr_in *)uaddr)->sin_family == 2)");
	const struct ksnoop_pred_plan *pp = pred_of(r, KSNOOP_ENTRY, 0);

	assert_chain(&pp->acc, KSNOOP_SRC_ARG, 1, 1, 0LL);
	assert_int_equal(pp->width, 2);
	assert_int_equal(pp->imm, 2);
	resolved_free(r);
}

static void test_cast_errors(void **state)
{
	const char *t;

	t = "inet_fn(((struct nope *)uaddr)->x)";
	resolve_err(t, col(t, "struct nope"), "no type 'struct nope *' in the BTF");
	t = "inet_fn((struct sockaddr_in)uaddr)";
	resolve_err(t, col(t, "struct sockaddr_in"), "cast to struct sockaddr_in: only integers, enums and pointers are cast to");
	/* The type named as the BTF spells it: gcc's, as in the kernel's BTF. */
	t = "ip_send_skb((unsigned long)skb->len)";
	resolve_err(t, col(t, "unsigned long"), "cast to long unsigned int reads 8 bytes of a 4-byte value");
	t = "ip_send_skb((int)skb->common)";
	resolve_err(t, col(t, "(int)"), "cast of a value of type struct sock_common");
	t = "ip_send_skb((int)skb->pkt_type)";
	resolve_err(t, col(t, "(int)"), "a bitfield cannot be cast");
	t = "ip_send_skb(((struct sock *)skb)->nope)";
	resolve_err(t, col(t, "nope"), "no member 'nope' in struct sock");
}

/*
 * A cast in a module function to a module struct with no pointer type:
 * the plan's BTF must still name every type, the module's and vmlinux's
 * (a split BTF over the module's split BTF would not).
 */
static void test_cast_in_module_keeps_names(void **state)
{
	struct btf *mod = btf__new_empty_split(btf);
	static struct capture_plan plan;
	struct signature sig;
	struct spec spec;
	struct ks_error e;
	struct ks_error why;
	char buf[128];
	int modreq, fn;

	assert_non_null(mod);
	modreq = btf__add_struct(mod, "modreq", 8);
	assert_int_equal(btf__add_field(mod, "id", T.ints.int_t, 0, 0), 0);
	assert_int_equal(btf__add_field(mod, "sk", T.sock_ptr, 0, 0), 0);
	fn = btf__add_func_proto(mod, T.ints.int_t);
	assert_int_equal(btf__add_func_param(mod, "p", T.void_ptr), 0);
	fn = btf__add_func(mod, "mod_fn", BTF_FUNC_GLOBAL, fn);
	assert_true(modreq > 0 && fn > 0);
	assert_int_equal(signature__from_func(mod, fn, &sig, &why), 0);
	assert_int_equal(spec__parse("mod_fn((struct modreq *)p, ((struct modreq *)p)->sk->sk_rcvbuf)",
				     SPEC_KFUNC, &spec, &e), 0);
	assert_int_equal(resolver__resolve(&spec, &sig, &default_opts, &plan, &e), 0);
	assert_non_null(plan.ext_btf);
	assert_string_equal(plan.values[KSNOOP_ENTRY][0].obj_name, "struct modreq");
	assert_string_equal(btfu_type_str(plan.sig.btf, plan.values[KSNOOP_ENTRY][0].type_id, NULL,
					  buf, sizeof(buf)), "struct modreq *");
	assert_string_equal(btfu_type_str(plan.sig.btf, T.sock_ptr, NULL, buf, sizeof(buf)),
			    "struct sock *");
	assert_string_equal(btf__name_by_offset(plan.sig.btf,
						btf__type_by_id(plan.sig.btf, modreq)->name_off), "modreq");
	assert_chain(&plan.bpf.side[KSNOOP_ENTRY].values[1].acc, KSNOOP_SRC_ARG, 0, 2, 0LL,
		     (long long)SK_RCVBUF);
	resolver__release(&plan);
	spec__free(&spec);
	btf__free(mod);
}

/* ---- formats ---- */

static void test_format_hex_keeps_pointer(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(skb:hex, skb->len:hex, skb->pkt_type:hex)");

	/* ":hex" on a struct pointer: the address, not the struct. */
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->how, PRINT_VALUE);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->fmt, FMT_HEX);
	assert_int_equal(acc_of(r, KSNOOP_ENTRY, 0)->nsteps, 0);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 1)->fmt, FMT_HEX);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 2)->bit_size, 3);
	resolved_free(r);
}

static void test_format_ip_through_pointer(void **state)
{
	struct resolved *r = resolve_ok("inet_fn(a6:ip, daddr:ip, ((struct sockaddr_in *)uaddr)->sin_addr:ip)");

	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->how, PRINT_DEREF);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->size, sizeof(struct in6_addr));
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->fmt, FMT_IP);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 1)->how, PRINT_VALUE);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 2)->size, 4);
	resolved_free(r);
}

/* --max-bytes bounds every value: an address that does not fit is an error, not cut. */
static void test_format_ip_within_max_bytes(void **state)
{
	const struct resolve_opts small = { .max_bytes = 8, .str_bytes = KSNOOP_DEFAULT_STR_SIZE };
	const char *t = "inet_fn(daddr:ip, a6:ip)";
	struct resolved *r = resolve_with(t, &small);

	assert_int_equal(r->ret, -EINVAL);
	assert_int_equal(r->err.pos, col(t, "ip)"));
	assert_string_equal(r->err.msg, "':ip' on 'a6:ip' reads a 16-byte address, more than --max-bytes (8)");
	resolved_free(r);
	r = resolve_with("inet_fn(daddr:ip)", &small);
	assert_int_equal(r->ret, 0);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->size, 4);
	resolved_free(r);
}

static void test_format_str_on_any_pointer(void **state)
{
	struct resolved *r = resolve_ok("ip_send_skb(net:str, skb->cb:str)");

	/* A pointer read as a string; a char array printed as one. */
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->how, PRINT_STRING);
	assert_true(acc_of(r, KSNOOP_ENTRY, 0)->flags & KSNOOP_VAL_STR);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 1)->how, PRINT_STRING);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 1)->size, 48);
	assert_false(acc_of(r, KSNOOP_ENTRY, 1)->flags & KSNOOP_VAL_STR);
	resolved_free(r);
}

static void test_format_be_predicate_swaps_constant(void **state)
{
	struct resolved *r = resolve_ok("inet_fn(((struct sockaddr_in *)uaddr)->sin_port:be == 1)");
	const struct ksnoop_pred_plan *pp = pred_of(r, KSNOOP_ENTRY, 0);

	/* Port 1 is the bytes 00 01: the u16 0x0100 on x86-64. */
	assert_int_equal(pp->width, 2);
	assert_int_equal(pp->imm, 0x0100);
	assert_false(pp->is_signed);
	resolved_free(r);

	r = resolve_ok("inet_fn(daddr:be & 0xff000000)");
	pp = pred_of(r, KSNOOP_ENTRY, 0);
	assert_int_equal(pp->mask, 0xff);
	resolved_free(r);
}

static void test_format_ip_predicate(void **state)
{
	struct resolved *r = resolve_ok("inet_fn(daddr:ip == \"127.0.0.1\")");
	const struct ksnoop_pred_plan *pp = pred_of(r, KSNOOP_ENTRY, 0);
	struct in_addr a;
	__u32 v;

	inet_pton(AF_INET, "127.0.0.1", &a);
	memcpy(&v, &a, 4);
	assert_int_equal(pp->width, 4);
	assert_int_equal(pp->imm, v);
	assert_int_equal(pp->op, KSNOOP_OP_EQ);
	resolved_free(r);
}

static void test_format_sym_for_kernel_only(void **state)
{
	const struct resolve_opts user = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
					   .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .user_space = true };
	struct resolved *r = resolve_ok("inet_fn(ops->destructor:sym, word:sym)");
	const char *t = "inet_fn(word:sym)";

	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->fmt, FMT_SYM);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 0)->size, 8);
	resolved_free(r);
	r = resolve_with(t, &user);
	assert_int_equal(r->ret, -EINVAL);
	assert_int_equal(r->err.pos, col(t, "sym"));
	assert_non_null(strstr(r->err.msg, "':sym' names kernel code"));
	resolved_free(r);
}

/*
 * ':strv' on a char ** (const or not): the array it points to, walked to
 * it as a char pointer is (one dereference), copied as a struct
 * ksnoop_strv.  Anything else, a comparison, or less room than the struct
 * is refused in one line at the format.
 */
static void test_format_strv(void **state)
{
	const struct resolve_opts small = { .max_bytes = 1024, .str_bytes = KSNOOP_DEFAULT_STR_SIZE };
	const struct resolve_opts count = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
					    .str_bytes = KSNOOP_DEFAULT_STR_SIZE,
					    .output = OUTPUT_COUNT, .by = "argv:strv" };
	struct resolved *r = resolve_ok("argv_fn(argv:strv, envp:strv)");
	const char *t;
	int i;

	for (i = 0; i < 2; i++) {
		const struct ksnoop_access *acc = acc_of(r, KSNOOP_ENTRY, i);

		assert_int_equal(vd_of(r, KSNOOP_ENTRY, i)->how, PRINT_STRV);
		assert_int_equal(vd_of(r, KSNOOP_ENTRY, i)->fmt, FMT_STRV);
		assert_int_equal(vd_of(r, KSNOOP_ENTRY, i)->size, sizeof(struct ksnoop_strv));
		assert_true(acc->flags & KSNOOP_VAL_STRV);
		assert_false(acc->flags & (KSNOOP_VAL_STR | KSNOOP_VAL_REG));
		/* The argument, then the array it points to. */
		assert_int_equal(acc->nsteps, 1);
		assert_int_equal(acc->size, sizeof(struct ksnoop_strv));
	}
	resolved_free(r);
	t = "argv_fn(name:strv)";
	resolve_err(t, col(t, "strv"), "':strv' does not apply to 'name:strv' (const char *); it takes a char ** (a NULL-terminated array of strings, as argv)");
	t = "argv_fn(pp:strv)";
	resolve_err(t, col(t, "strv"), "':strv' does not apply to 'pp:strv' (int **)");
	t = "argv_fn(word:strv)";
	resolve_err(t, col(t, "strv"), "':strv' does not apply to 'word:strv' (long unsigned int)");
	t = "argv_fn(argv:strv == 0)";
	resolve_err(t, col(t, "=="), "':strv' is printed, not compared; compare one string (argv[1] == \"-l\")");
	t = "argv_fn(argv:strv)";
	r = resolve_with(t, &small);
	assert_int_equal(r->ret, -EINVAL);
	assert_int_equal(r->err.pos, col(t, "strv"));
	assert_non_null(strstr(r->err.msg, "':strv' on 'argv:strv' copies 2280 bytes, more than --max-bytes (1024)"));
	assert_null(strchr(r->err.msg, '\n'));
	resolved_free(r);
	/* A list is no --by key (a pointer's value would be counted). */
	r = resolve_with(t, &count);
	assert_int_equal(r->ret, -EINVAL);
	assert_int_equal(r->err.pos, col(t, "strv"));
	assert_string_equal(r->err.msg, "--by 'argv:strv': a list of strings is no key; count by one of them (argv[1])");
	resolved_free(r);
}

static void test_format_errors(void **state)
{
	const char *t;

	t = "ip_send_skb(skb:be)";
	resolve_err(t, col(t, "be"), "':be' does not apply to 'skb:be' (struct sk_buff *)");
	t = "ip_send_skb(skb->lval:ip)";
	resolve_err(t, col(t, "ip)"), "an address is 4 bytes (IPv4) or 16 (IPv6)");
	t = "ip_send_skb(skb->len:sym)";
	resolve_err(t, col(t, "sym"), "':sym' does not apply");
	t = "ip_send_skb(skb->len:str)";
	resolve_err(t, col(t, "str"), "':str' does not apply");
	t = "ip_send_skb(skb->common:hex)";
	resolve_err(t, col(t, "hex"), "':hex' does not apply");
	t = "ip_send_skb(skb->pkt_type:be)";
	resolve_err(t, col(t, "be"), "':be' on 'skb->pkt_type:be', a bitfield");
	t = "inet_fn(daddr:be > 1)";
	resolve_err(t, col(t, ">"), "':be' values compare with '==' and '!=' only");
	t = "inet_fn(daddr:ip == \"1.2.3\")";
	resolve_err(t, col(t, "\"1.2.3\""), "\"1.2.3\" is not an IPv4 address");
	t = "inet_fn(a6:ip == \"1.2.3.4\")";
	resolve_err(t, col(t, "\"1.2.3.4\""), "'a6:ip' is not a 4-byte IPv4 address");
}

/* ---- many functions: grouping by program, selection by argument type ---- */

static void test_same_program_groups_plans(void **state)
{
	/* skb is argument 1 of ip_send_skb and of kfree_skb's stub... */
	struct resolved *a = resolve_ok("ip_send_skb(skb->len == 84, skb->len)");
	struct resolved *b = resolve_ok("take_pair(x)");
	struct resolved *c = resolve_ok("ip_send_skb(skb->len == 84, skb->len)");
	struct resolved *d = resolve_ok("ip_send_skb(skb->len == 85, skb->len)");

	/* Equal programs whatever func_id says. */
	c->plan.bpf.func_id = 7;
	assert_true(resolver__same_program(&a->plan, &c->plan));
	assert_true(resolver__program_hash(&a->plan) == resolver__program_hash(&c->plan));
	/* Another constant, another word: another program. */
	assert_false(resolver__same_program(&a->plan, &d->plan));
	assert_false(resolver__same_program(&a->plan, &b->plan));
	assert_true(resolver__program_hash(&a->plan) != resolver__program_hash(&d->plan));
	resolved_free(a);
	resolved_free(b);
	resolved_free(c);
	resolved_free(d);
}

/* Default specs of two signatures: the values differ, nothing else does. */
static void test_group_shares_program_across_values(void **state)
{
	struct resolved *a = resolve_ok("ip_send_skb");
	struct resolved *b = resolve_ok("inet_fn");
	struct capture_plan *plans[] = { &a->plan, &b->plan };
	const struct ksnoop_side_plan *ge, *ae, *be;
	struct ksnoop_func_values fv;
	struct ksnoop_plan g;
	int i;

	assert_true(resolver__same_program(&a->plan, &b->plan));
	assert_true(resolver__program_hash(&a->plan) == resolver__program_hash(&b->plan));
	assert_int_equal(resolver__group(plans, 2, &g), 2);
	assert_true(g.flags & KSNOOP_PLAN_COOKIE);
	assert_true(g.flags & KSNOOP_PLAN_FUNC_VALUES);
	ge = &g.side[KSNOOP_ENTRY];
	ae = &a->plan.bpf.side[KSNOOP_ENTRY];
	be = &b->plan.bpf.side[KSNOOP_ENTRY];
	/* Room for the longer list, each value as large as either's. */
	assert_int_equal(ge->nvalues, be->nvalues > ae->nvalues ? be->nvalues : ae->nvalues);
	for (i = 0; i < ge->nvalues; i++) {
		__u32 room = 8;

		if (i < ae->nvalues && ae->values[i].acc.size > room)
			room = ae->values[i].acc.size;
		if (i < be->nvalues && be->values[i].acc.size > room)
			room = be->values[i].acc.size;
		assert_int_equal(ge->values[i].acc.size, room);
		/* Each member is printed by the shared layout. */
		if (i < ae->nvalues)
			assert_int_equal(ae->values[i].rec_off, ge->values[i].rec_off);
		if (i < be->nvalues)
			assert_int_equal(be->values[i].rec_off, ge->values[i].rec_off);
		if (i)
			assert_true(ge->values[i].rec_off >= ge->values[i - 1].rec_off + 16 +
							    ge->values[i - 1].acc.size);
	}
	assert_int_equal(ae->rec_size, ge->rec_size);
	assert_int_equal(be->rec_size, ge->rec_size);
	/* Both words of both functions are read. */
	assert_int_equal(g.slot_mask, a->plan.bpf.slot_mask | b->plan.bpf.slot_mask);
	/* Each function keeps its own ways to its values. */
	resolver__func_values(&a->plan, &fv);
	assert_int_equal(fv.nvalues[KSNOOP_ENTRY], ae->nvalues);
	assert_int_equal(fv.nvalues[KSNOOP_RETURN], a->plan.bpf.side[KSNOOP_RETURN].nvalues);
	for (i = 0; i < ae->nvalues; i++)
		assert_memory_equal(&fv.acc[KSNOOP_ENTRY][i], &ae->values[i].acc, sizeof(fv.acc[0][0]));
	resolved_free(a);
	resolved_free(b);
}

/* Predicates stay the program's: another constant or word, another program. */
static void test_group_predicates_exact(void **state)
{
	struct resolved *a = resolve_ok("ip_send_skb(skb->len == 84, skb)");
	struct resolved *b = resolve_ok("ip_send_skb(skb->len == 84, net)");
	struct resolved *c = resolve_ok("ip_send_skb(skb->len == 85, skb)");
	struct resolved *d = resolve_ok("inet_fn(sk->sk_rcvbuf == 84, sk)");

	assert_true(resolver__same_program(&a->plan, &b->plan));
	assert_false(resolver__same_program(&a->plan, &c->plan));
	assert_false(resolver__same_program(&a->plan, &d->plan));
	resolved_free(a);
	resolved_free(b);
	resolved_free(c);
	resolved_free(d);
}

/* A stash or a stack fixes the values: equal plans only, no per-function values. */
static void test_group_stash_keeps_values(void **state)
{
	struct resolved *a = resolve_ok("ip_send_skb(skb->len, return == 0)");
	struct resolved *b = resolve_ok("ip_send_skb(net, return == 0)");
	struct resolved *c = resolve_ok("ip_send_skb(skb->len, return == 0)");
	struct capture_plan *plans[] = { &a->plan, &c->plan };
	struct ksnoop_plan g;

	assert_false(resolver__same_program(&a->plan, &b->plan));
	assert_true(resolver__same_program(&a->plan, &c->plan));
	assert_int_equal(resolver__group(plans, 2, &g), 2);
	assert_true(g.flags & KSNOOP_PLAN_COOKIE);
	assert_false(g.flags & KSNOOP_PLAN_FUNC_VALUES);
	assert_memory_equal(&g.side, &a->plan.bpf.side, sizeof(g.side));
	resolved_free(a);
	resolved_free(b);
	resolved_free(c);
}

/*
 * --tree: every plan of the tree gets the one record size of the inner
 * calls, the largest (rounded to 8); a plan outside the tree none, and
 * an inner record over KSNOOP_TREE_REC_MAX is refused, naming which.
 */
static void test_tree_record_size(void **state)
{
	struct resolve_opts o = default_opts;
	struct resolved *root, *small, *large, *other, *huge;
	struct ks_error e = {};
	__u32 want = 0;
	int bad = -1;

	o.tree = true;
	root = resolve_with("inet_fn(sk->sk_rcvbuf)", &o);
	small = resolve_with("inet_fn(sk->sk_rcvbuf)", &o);
	large = resolve_with("inet_fn(sk->sk_rcvbuf, uaddr, return)", &o);
	other = resolve_with("inet_fn(uaddr)", &default_opts);
	assert_int_equal(root->ret + small->ret + large->ret + other->ret, 0);
	root->plan.bpf.tree = KSNOOP_TREE_ROOT;
	small->plan.bpf.tree = KSNOOP_TREE_INNER;
	large->plan.bpf.tree = KSNOOP_TREE_INNER;
	for (int k = 0; k < KSNOOP_NR_KINDS; k++) {
		assert_true(large->plan.bpf.side[k].rec_size >= small->plan.bpf.side[k].rec_size);
		if (large->plan.bpf.side[k].rec_size > want)
			want = large->plan.bpf.side[k].rec_size;
	}
	want = (want + 7) & ~7u;
	assert_true(want > 0);
	{
		struct capture_plan *plans[] = { &root->plan, &small->plan, &other->plan, &large->plan };

		assert_int_equal(resolver__tree_sizes(plans, 4, &bad, &e), 0);
	}
	assert_int_equal(root->plan.bpf.tree_rec_size, want);
	assert_int_equal(small->plan.bpf.tree_rec_size, want);
	assert_int_equal(large->plan.bpf.tree_rec_size, want);
	assert_int_equal(other->plan.bpf.tree_rec_size, 0);

	o.max_bytes = 20000;
	huge = resolve_with("inet_fn((struct huge *)uaddr)", &o);
	assert_int_equal(huge->ret, 0);
	huge->plan.bpf.tree = KSNOOP_TREE_INNER;
	{
		struct capture_plan *plans[] = { &root->plan, &small->plan, &huge->plan };

		assert_int_equal(resolver__tree_sizes(plans, 3, &bad, &e), -EINVAL);
	}
	assert_int_equal(bad, 2);
	assert_non_null(strstr(ks_message(&e), "more than 4096"));
	resolved_free(root);
	resolved_free(small);
	resolved_free(large);
	resolved_free(other);
	resolved_free(huge);
}

/* A group whose shared record would outgrow KSNOOP_MAX_GROUP_RECORD is split. */
static void test_group_split_by_record_size(void **state)
{
	struct resolve_opts o = default_opts;
	struct resolved *a, *b, *c;
	struct ksnoop_plan g;

	o.max_bytes = 20000;
	a = resolve_with("inet_fn((struct huge *)sk)", &o);
	b = resolve_with("inet_fn(sk->sk_rcvbuf, (struct huge *)uaddr)", &o);
	c = resolve_with("inet_fn((struct huge *)uaddr)", &o);
	assert_int_equal(a->ret, 0);
	assert_int_equal(b->ret, 0);
	assert_int_equal(c->ret, 0);
	assert_true(resolver__same_program(&a->plan, &b->plan));
	{
		struct capture_plan *plans[] = { &a->plan, &c->plan, &b->plan };

		/* a and c share one 20000-byte room; b would need a second. */
		assert_int_equal(resolver__group(plans, 3, &g), 2);
		assert_true(g.side[KSNOOP_ENTRY].rec_size <= KSNOOP_MAX_GROUP_RECORD);
		assert_int_equal(resolver__group(plans + 2, 1, &g), 1);
		assert_int_equal(g.side[KSNOOP_ENTRY].rec_size, b->plan.bpf.side[KSNOOP_ENTRY].rec_size);
	}
	resolved_free(a);
	resolved_free(b);
	resolved_free(c);
}

static void test_same_type_through_typedefs(void **state)
{
	__u32 id;
	int nptrs;

	assert_int_equal(btfu_find_type(btf, "struct sk_buff *", &id, &nptrs), 0);
	assert_int_equal(id, T.sk_buff);
	assert_int_equal(nptrs, 1);
	assert_true(btfu_same_type(btf, T.skb_ptr, id, nptrs));
	assert_false(btfu_same_type(btf, T.sk_buff, id, nptrs));
	assert_false(btfu_same_type(btf, T.sock_ptr, id, nptrs));
	/* u32 is unsigned int, as a declaration of either finds. */
	assert_int_equal(btfu_find_type(btf, "u32", &id, &nptrs), 0);
	assert_true(btfu_same_type(btf, T.ints.uint_t, id, 0));
	assert_int_equal(btfu_find_type(btf, "unsigned int", &id, &nptrs), 0);
	assert_true(btfu_same_type(btf, T.u32_t, id, 0));
	/* A pointer is not what it points to. */
	assert_false(btfu_same_type(btf, T.int_ptr, T.ints.int_t, 0));
	assert_true(btfu_same_type(btf, T.int_ptr_ptr, T.ints.int_t, 2));
	assert_int_equal(btfu_find_type(btf, "struct nope *", &id, &nptrs), -ENOENT);
	assert_int_equal(btfu_find_type(btf, "long long long", &id, &nptrs), -EINVAL);
}

/* -s: one stack value on each side that prints; a stashed entry carries its own. */
static void test_stack_values(void **state)
{
	const struct resolve_opts with_stack = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
						 .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .stack = true };
	const struct resolve_opts usdt = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
					   .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .stack = true,
					   .user_space = true };
	const struct resolve_opts usdt_count = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
						 .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .stack = true,
						 .user_space = true, .output = OUTPUT_COUNT };
	struct resolved *r = resolve_with("ip_send_skb(skb->len, return)", &with_stack);
	const struct ksnoop_side_plan *e, *x;

	assert_int_equal(r->ret, 0);
	e = &r->plan.bpf.side[KSNOOP_ENTRY];
	x = &r->plan.bpf.side[KSNOOP_RETURN];
	assert_int_equal(e->nvalues, 2);
	assert_int_equal(e->values[1].acc.src, KSNOOP_SRC_STACK);
	assert_int_equal(e->values[1].acc.size, 8 * KSNOOP_STACK_DEPTH);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 1)->how, PRINT_STACK);
	assert_int_equal(x->nvalues, 2);
	assert_int_equal(x->values[1].acc.src, KSNOOP_SRC_STACK);
	/* Its words are no argument's. */
	assert_int_equal(r->plan.bpf.slot_mask, 1u << 1);
	resolved_free(r);

	/* The stack is no reason to read user memory again at the return. */
	r = resolve_with("scalars8(l, return)", &with_stack);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].nvalues, 2);
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_RETRY);
	resolved_free(r);

	/* Stashed: the entry's stack travels with the entry values. */
	r = resolve_with("ip_send_skb(skb->len, return < 0)", &with_stack);
	assert_int_equal(r->ret, 0);
	x = &r->plan.bpf.side[KSNOOP_RETURN];
	assert_int_equal(x->nstashed, 2);
	assert_int_equal(x->values[1].acc.src, KSNOOP_SRC_STACK);
	assert_int_equal(x->nvalues, 3);
	resolved_free(r);

	/* User space (USDT): the stack is the user stack, one more value. */
	r = resolve_with("ip_send_skb(skb)", &usdt);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].nvalues, 2);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].values[1].acc.src, KSNOOP_SRC_STACK);
	assert_int_equal(r->plan.values[KSNOOP_ENTRY][1].how, PRINT_STACK);
	resolved_free(r);
	/* --count -s counts by stack map id, which a sleepable USDT program may not use. */
	r = resolve_with("ip_send_skb(skb)", &usdt_count);
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err.msg, "--count -s: USDT probes run sleepable programs"));
	resolved_free(r);
}

/*
 * --ustack: the user stack, one more value after the kernel's (-s) on each
 * side that prints; stashed with the entry; no reason to read again at the
 * return; --count: a plan flag, no value.
 */
static void test_ustack_values(void **state)
{
	const struct resolve_opts both = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
					   .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .stack = true,
					   .ustack = true };
	const struct resolve_opts user_only = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
						.str_bytes = KSNOOP_DEFAULT_STR_SIZE, .ustack = true };
	const struct resolve_opts counting = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
					       .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .ustack = true,
					       .output = OUTPUT_COUNT };
	struct resolved *r = resolve_with("ip_send_skb(skb->len, return)", &both);
	const struct ksnoop_side_plan *e, *x;

	assert_int_equal(r->ret, 0);
	e = &r->plan.bpf.side[KSNOOP_ENTRY];
	x = &r->plan.bpf.side[KSNOOP_RETURN];
	assert_int_equal(e->nvalues, 3);
	assert_int_equal(e->values[1].acc.src, KSNOOP_SRC_STACK);
	assert_int_equal(e->values[2].acc.src, KSNOOP_SRC_USTACK);
	assert_int_equal(e->values[2].acc.size, 8 * KSNOOP_STACK_DEPTH);
	assert_int_equal(vd_of(r, KSNOOP_ENTRY, 2)->how, PRINT_USTACK);
	assert_string_equal(vd_of(r, KSNOOP_ENTRY, 2)->text, "ustack");
	assert_int_equal(x->nvalues, 3);
	assert_int_equal(x->values[2].acc.src, KSNOOP_SRC_USTACK);
	assert_true(resolver__takes_user_stack(&r->plan.bpf));
	resolved_free(r);

	/* --ustack alone: no kernel stack; a stashed entry carries it; no re-read for it. */
	r = resolve_with("scalars8(return < 0)", &user_only);
	assert_int_equal(r->ret, 0);
	x = &r->plan.bpf.side[KSNOOP_RETURN];
	assert_int_equal(x->nvalues, 2);
	assert_int_equal(x->values[1].acc.src, KSNOOP_SRC_USTACK);
	resolved_free(r);
	r = resolve_with("scalars8(l, return < 0)", &user_only);
	assert_int_equal(r->ret, 0);
	x = &r->plan.bpf.side[KSNOOP_RETURN];
	assert_int_equal(x->nstashed, 2);
	assert_int_equal(x->values[1].acc.src, KSNOOP_SRC_USTACK);
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_RETRY);
	resolved_free(r);

	/* -s alone on a kernel function: no user stack to wake the reader for. */
	r = resolve_with("ip_send_skb(skb)", &(const struct resolve_opts){
		.max_bytes = KSNOOP_DEFAULT_VALUE_SIZE, .str_bytes = KSNOOP_DEFAULT_STR_SIZE,
		.stack = true });
	assert_int_equal(r->ret, 0);
	assert_false(resolver__takes_user_stack(&r->plan.bpf));
	resolved_free(r);

	r = resolve_with("ip_send_skb", &counting);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].nvalues, 2);	/* net, skb; no stack */
	assert_true(r->plan.bpf.flags & KSNOOP_PLAN_COUNT_USTACK);
	assert_int_equal(r->plan.bpf.output, KSNOOP_OUT_COUNT);
	resolved_free(r);
}

/* --count: a call counts once, on one side; no stack values (the stacks map has them). */
static void test_count_one_side(void **state)
{
	const struct resolve_opts counting = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
					       .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .output = OUTPUT_COUNT,
					       .stack = true };
	struct resolved *r = resolve_with("ip_send_skb", &counting);

	assert_int_equal(r->ret, 0);
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	assert_false(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].nvalues, 2);	/* net, skb; no stack */
	/* The program counts by stack; without -s, by function alone. */
	assert_int_equal(r->plan.bpf.output, KSNOOP_OUT_COUNT_STACKS);
	resolved_free(r);
	{
		struct resolve_opts no_stack = counting;

		no_stack.stack = false;
		r = resolve_with("ip_send_skb", &no_stack);
		assert_int_equal(r->ret, 0);
		assert_int_equal(r->plan.bpf.output, KSNOOP_OUT_COUNT);
		resolved_free(r);
		no_stack.output = OUTPUT_EVENTS;
		r = resolve_with("ip_send_skb", &no_stack);
		assert_int_equal(r->ret, 0);
		assert_int_equal(r->plan.bpf.output, KSNOOP_OUT_EVENTS);
		resolved_free(r);
	}
	/* Only the return named: counted there. */
	r = resolve_with("ip_send_skb(return)", &counting);
	assert_int_equal(r->ret, 0);
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	assert_true(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	resolved_free(r);
	/* A return predicate: the stash decides at the return. */
	r = resolve_with("ip_send_skb(skb->len == 84, return < 0)", &counting);
	assert_int_equal(r->ret, 0);
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_STASH);
	assert_true(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	resolved_free(r);
}

/* --hist: the one value that is no predicate, read as a predicate reads. */
static void test_hist_plan(void **state)
{
	const struct resolve_opts hist = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
					   .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .output = OUTPUT_HIST };
	struct resolved *r = resolve_with("ip_send_skb(skb->len == 84, return)", &hist);
	const char *t;

	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.output, KSNOOP_OUT_HIST);
	assert_int_equal(r->plan.bpf.hist.acc.src, KSNOOP_SRC_RET);
	assert_int_equal(r->plan.bpf.hist.width, 4);
	assert_true(r->plan.bpf.hist.is_signed);
	assert_string_equal(r->plan.hist_text, "return");
	/* The entry predicate selects at the return: stashed. */
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_STASH);
	resolved_free(r);

	r = resolve_with("ip_send_skb(skb->len)", &hist);
	assert_int_equal(r->ret, 0);
	assert_chain(&r->plan.bpf.hist.acc, KSNOOP_SRC_ARG, 1, 1, (long long)SKB_LEN);
	assert_false(r->plan.bpf.hist.is_signed);
	assert_false(r->plan.bpf.side[KSNOOP_RETURN].enabled);
	resolved_free(r);

	t = "ip_send_skb(skb->len, return)";
	r = resolve_with(t, &hist);
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err.msg, "--hist counts by one value; 'return' is a second"));
	resolved_free(r);
	r = resolve_with("ip_send_skb(skb->common)", &hist);
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err.msg, "--hist counts by a number"));
	resolved_free(r);
	/* A number with a format: the format is what is wrong, at its column. */
	t = "ip_send_skb(skb->len:hex)";
	r = resolve_with(t, &hist);
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err.msg, "--hist counts by the number itself: 'skb->len:hex' takes no format (leave out ':hex')");
	assert_int_equal(r->err.pos, col(t, "hex"));
	resolved_free(r);
}

/*
 * --pair: the START's spec keeps its time, any other is the END; the one
 * value each names is the key, read as --hist reads its value (none: the
 * thread); with --hist the END counts latencies and keeps no values, its
 * predicates where they were; with events it prints its values.
 */
static void test_pair_plan(void **state)
{
	static const struct spec other;	/* the START: not the spec resolved */
	struct resolve_opts pair = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
				     .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .output = OUTPUT_HIST,
				     .pair_start = &other };
	struct ksnoop_plan *bp;
	struct resolved *r;

	/* A predicate stays where it was. */
	r = resolve_with("tp:kfree_skb(skb->len == 84, skb->len)", &pair);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, 1);
	resolved_free(r);

	r = resolve_with("tp:kfree_skb(skb->len)", &pair);
	assert_int_equal(r->ret, 0);
	bp = &r->plan.bpf;
	assert_int_equal(bp->pair, KSNOOP_PAIR_END);
	assert_int_equal(bp->output, KSNOOP_OUT_HIST_DURATION);
	assert_false(bp->flags & KSNOOP_PLAN_PAIR_TID);
	assert_int_equal(bp->hist.acc.src, KSNOOP_SRC_ARG);
	assert_int_equal(bp->hist.width, 4);
	/* The key's word is read although no value is kept. */
	assert_true(bp->slot_mask & (1u << bp->hist.acc.slot));
	assert_int_equal(bp->side[KSNOOP_ENTRY].nvalues, 0);
	assert_true(bp->side[KSNOOP_ENTRY].enabled);
	assert_false(bp->side[KSNOOP_RETURN].enabled);
	assert_false(bp->side[KSNOOP_ENTRY].flags & (KSNOOP_SIDE_STASH | KSNOOP_SIDE_TIMED));
	assert_string_equal(r->plan.hist_text, "latency_ns");
	/* The same spec as the START. */
	pair.pair_start = &r->spec;
	r->ret = resolver__resolve(&r->spec, &r->sig, &pair, &r->plan, &r->err);
	assert_int_equal(r->ret, 0);
	assert_int_equal(bp->pair, KSNOOP_PAIR_START);
	resolved_free(r);
	pair.pair_start = &other;

	/* No value: by thread. */
	r = resolve_with("tp:kfree_skb", &pair);
	assert_int_equal(r->ret, 0);
	assert_true(r->plan.bpf.flags & KSNOOP_PLAN_PAIR_TID);
	resolved_free(r);

	/* Events: the END prints its values; -L is the pair's, not a return's. */
	pair.output = OUTPUT_EVENTS;
	pair.min_duration_ns = 1000000;
	r = resolve_with("tp:kfree_skb(skb->len)", &pair);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.output, KSNOOP_OUT_EVENTS);
	assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].nvalues, 1);
	assert_true(r->plan.bpf.side[KSNOOP_ENTRY].enabled);
	assert_false(r->plan.bpf.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_STASH);
	resolved_free(r);

	r = resolve_with("tp:kfree_skb(skb->len, skb->protocol)", &pair);
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err.msg, "--pair pairs by one value; 'skb->protocol' is a second (make it a predicate)");
	resolved_free(r);
}

/*
 * --by KEY: a word (comm, pid, tid, cpu), or a value the spec names, an
 * integer (read as a predicate's) or a string (pointer or array), on the
 * side that counts; anything else refused, at the value's column.
 */
static void test_by_plan(void **state)
{
	struct resolve_opts count = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
				      .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .output = OUTPUT_COUNT };
	struct resolved *r;

	count.by = "comm";
	r = resolve_with("ip_send_skb", &count);
	assert_int_equal(r->ret, 0);
	/* No part is a value: by_value is not read. */
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_NONE);
	assert_int_equal(r->plan.bpf.by_part[0], KSNOOP_BY_COMM);
	assert_int_equal(r->plan.bpf.by_part[1], KSNOOP_BY_NONE);
	resolved_free(r);
	count.by = "skb->len";
	r = resolve_with("ip_send_skb(skb -> len)", &count);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_INT);
	assert_chain(&r->plan.bpf.by_value.acc, KSNOOP_SRC_ARG, 1, 1, (long long)SKB_LEN);
	assert_int_equal(r->plan.bpf.by_value.width, 4);
	assert_false(r->plan.bpf.by_value.is_signed);
	assert_true(r->plan.bpf.slot_mask & (1u << 1));
	resolved_free(r);
	/* A char pointer's string, and a char array's first 63 bytes. */
	count.by = "skb->name";
	r = resolve_with("ip_send_skb(skb->name)", &count);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_STR);
	assert_true(r->plan.bpf.by_value.acc.flags & KSNOOP_VAL_STR);
	assert_int_equal(r->plan.bpf.by_value.acc.size, KSNOOP_BY_SIZE);
	resolved_free(r);
	count.by = "skb->cb";
	r = resolve_with("ip_send_skb(skb->cb)", &count);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_STR);
	assert_false(r->plan.bpf.by_value.acc.flags & KSNOOP_VAL_STR);
	assert_int_equal(r->plan.bpf.by_value.acc.size, 48);
	resolved_free(r);
	/* --hist by a key, of another value. */
	count.output = OUTPUT_HIST;
	count.by = "skb->name";
	r = resolve_with("ip_send_skb(skb->name, skb->len)", &count);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.output, KSNOOP_OUT_HIST);
	assert_string_equal(r->plan.hist_text, "skb->len");
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_STR);
	resolved_free(r);
	/* Counted at the return (a histogram of it): an entry value is not read there. */
	r = resolve_with("ip_send_skb(skb->name, return)", &count);
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err.msg, "--by 'skb->name': calls are counted at their return, where 'skb->name' is not read; not supported yet");
	resolved_free(r);
	count.output = OUTPUT_COUNT;
	count.by = "skb->common";
	r = resolve_with("ip_send_skb(skb->common)", &count);
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err.msg, "--by counts by an integer or a string; 'skb->common' is struct"));
	resolved_free(r);
	count.by = "skb->len";
	r = resolve_with("ip_send_skb(skb)", &count);
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err.msg, "--by 'skb->len' is not comm, pid, tid, cpu or a value the spec names; name it in the spec, as in \"ip_send_skb(skb->len)\"");
	resolved_free(r);
}

/*
 * --by comm,VALUE,pid: the parts in the order given, the value's bytes
 * first in the key (its room the same whatever its kind), the words after
 * it; a part naming what the spec does not capture refused as one key is.
 */
static void test_by_parts_plan(void **state)
{
	struct resolve_opts count = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
				      .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .output = OUTPUT_COUNT };
	struct resolved *r;

	count.by = "comm,skb->len,pid";
	r = resolve_with("ip_send_skb(skb->len)", &count);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_INT);
	assert_int_equal(r->plan.bpf.by_part[0], KSNOOP_BY_COMM);
	assert_int_equal(r->plan.bpf.by_part[1], KSNOOP_BY_INT);
	assert_int_equal(r->plan.bpf.by_part[2], KSNOOP_BY_PID);
	assert_int_equal(r->plan.bpf.by_off[0], KSNOOP_BY_SIZE);
	assert_int_equal(r->plan.bpf.by_off[1], 0);
	assert_int_equal(r->plan.bpf.by_off[2], KSNOOP_BY_SIZE + KSNOOP_COMM_LEN);
	assert_chain(&r->plan.bpf.by_value.acc, KSNOOP_SRC_ARG, 1, 1, (long long)SKB_LEN);
	resolved_free(r);
	count.by = "tid,cpu";
	r = resolve_with("ip_send_skb", &count);
	assert_int_equal(r->ret, 0);
	assert_int_equal(r->plan.bpf.by, KSNOOP_BY_NONE);
	assert_int_equal(r->plan.bpf.by_part[0], KSNOOP_BY_TID);
	assert_int_equal(r->plan.bpf.by_part[1], KSNOOP_BY_CPU);
	assert_int_equal(r->plan.bpf.by_part[2], KSNOOP_BY_NONE);
	assert_int_equal(r->plan.bpf.by_off[0], 0);
	assert_int_equal(r->plan.bpf.by_off[1], 8);
	resolved_free(r);
	count.by = "comm,skb->len";
	r = resolve_with("ip_send_skb(skb)", &count);
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err.msg, "--by 'skb->len' is not comm, pid, tid, cpu or a value the spec names; name it in the spec, as in \"ip_send_skb(skb->len)\"");
	resolved_free(r);
	/* The option's own refusals hold here too. */
	count.by = "comm,pid,tid,cpu";
	r = resolve_with("ip_send_skb", &count);
	assert_int_equal(r->ret, -EINVAL);
	assert_string_equal(r->err.msg, "--by 'comm,pid,tid,cpu': at most 3 keys (KEY[,KEY[,KEY]])");
	resolved_free(r);
}

/*
 * --hist without a value: the calls' durations, counted at the return;
 * the entry keeps the time of the calls its predicates select; nothing is
 * recorded on either side.
 */
static void test_hist_duration_plan(void **state)
{
	const struct resolve_opts hist = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE,
					   .str_bytes = KSNOOP_DEFAULT_STR_SIZE, .output = OUTPUT_HIST };
	const char *const specs[] = { "ip_send_skb", "ip_send_skb()",
				      "ip_send_skb(skb->len == 84, return < 0)" };
	struct resolved *r;
	size_t i;
	int k;

	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		r = resolve_with(specs[i], &hist);
		assert_int_equal(r->ret, 0);
		assert_int_equal(r->plan.bpf.output, KSNOOP_OUT_HIST_DURATION);
		assert_string_equal(r->plan.hist_text, "duration_ns");
		assert_string_equal(r->plan.hist_label, "duration");
		for (k = 0; k < KSNOOP_NR_KINDS; k++) {
			const struct ksnoop_side_plan *sd = &r->plan.bpf.side[k];

			assert_true(sd->enabled);
			assert_int_equal(sd->nvalues, 0);
			assert_int_equal(r->plan.nvalues[k], 0);
			assert_true(sd->flags & KSNOOP_SIDE_TIMED);
			/* No stash, no retry: the time is all that travels. */
			assert_false(sd->flags & (KSNOOP_SIDE_STASH | KSNOOP_SIDE_UNSTASH |
						  KSNOOP_SIDE_RETRY));
		}
		/* Predicates stay on their own side. */
		assert_int_equal(r->plan.bpf.side[KSNOOP_ENTRY].npreds, i == 2);
		assert_int_equal(r->plan.bpf.side[KSNOOP_RETURN].npreds, i == 2);
		assert_int_equal(r->plan.bpf.slot_mask, i == 2 ? 1u << 1 : 0);
		resolved_free(r);
	}
	/* A tracepoint has no return, so no duration: refused, saying what works. */
	r = resolve_with("tp:kfree_skb", &hist);
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err.msg, "--hist without a value counts call durations, and a tracepoint has no return"));
	/*
	 * Its example is a number the tracepoint has: here in the struct its
	 * first struct pointer points to (it once said "arg0", which a
	 * tracepoint with named arguments refuses) ...
	 */
	assert_non_null(strstr(r->err.msg, "name the numeric value to count by, as in \"tp:kfree_skb(skb->len)\""));
	resolved_free(r);
	/* ... or its first argument that is a number. */
	r = resolve_with("tp:nostub", &hist);
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err.msg, "as in \"tp:nostub(arg0)\""));
	resolved_free(r);
	r = resolve_with("tp:kfree_skb(skb != NULL)", &hist);
	assert_int_equal(r->ret, -EINVAL);
	assert_non_null(strstr(r->err.msg, "has no return"));
	resolved_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(test_cast_to_existing_pointer),
		TEST(test_cast_adds_missing_pointer),
		TEST(test_cast_then_nested_member_and_index),
		TEST(test_cast_of_pointer_value_prints_pointee),
		TEST(test_cast_narrows_and_reinterprets_ints),
		TEST(test_cast_in_predicate),
		TEST(test_cast_errors),
		TEST(test_cast_in_module_keeps_names),
		TEST(test_format_hex_keeps_pointer),
		TEST(test_format_ip_through_pointer),
		TEST(test_format_ip_within_max_bytes),
		TEST(test_format_str_on_any_pointer),
		TEST(test_format_be_predicate_swaps_constant),
		TEST(test_format_ip_predicate),
		TEST(test_format_sym_for_kernel_only),
		TEST(test_format_strv),
		TEST(test_format_errors),
		TEST(test_same_program_groups_plans),
		TEST(test_group_shares_program_across_values),
		TEST(test_group_predicates_exact),
		TEST(test_group_stash_keeps_values),
		TEST(test_group_split_by_record_size),
		TEST(test_tree_record_size),
		TEST(test_same_type_through_typedefs),
		TEST(test_stack_values),
		TEST(test_ustack_values),
		TEST(test_count_one_side),
		TEST(test_hist_plan),
		TEST(test_pair_plan),
		TEST(test_hist_duration_plan),
		TEST(test_by_plan),
		TEST(test_by_parts_plan),
	};

	return cmocka_run_group_tests_name("resolve_lang", tests, build_btf, free_btf);
}
