// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: spec -> resolver -> printer, against BTF built in
 * memory (no kernel needed, the same on every machine).
 *
 * Input:
 *   byte 0     the spec's kind: kernel function, tracepoint ("tp:" is put
 *              in front) or USDT probe (a fixed six-argument probe)
 *   byte 1     options: fentry or kprobe plans, text or JSON, --zeros,
 *              --max-bytes and --str-bytes (small, default and largest)
 *   bytes 2..  the spec text, up to a NUL
 *   the rest   the bytes of a ring-buffer record, repeated to the record
 *              size the plan asks for: header, value status, length and
 *              data are all the fuzzer's
 *
 * The BTF is shaped like a kernel's where it matters: self-referencing
 * structs, anonymous unions, bitfields, char arrays and pointers, flexible
 * and huge arrays, enums of every signedness and width, typedef chains,
 * incomplete types, structs passed by value, variadic and 13-argument
 * functions, tracepoints with and without their __bpf_trace stubs, a
 * sk_buff and a sock for ':tuple' (whose bytes the record makes up).  USDT
 * casts may name its types, as --btf lets a user do with any BTF file.
 *
 * Checked beyond the sanitizers: every value the plan copies fits the
 * record it is laid out in, limits hold, and errors point into the text.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "print.h"
#include "../include/btf_fixture.h"
#include "resolve.h"
#include "spec.h"

#define check(cond) do { if (!(cond)) __builtin_trap(); } while (0)
/* Building the BTF must work; if it does not, the target is broken. */
#define must(x) do { if ((long)(x) < 0) { fprintf(stderr, "btf: %s failed\n", #x); abort(); } } while (0)

static struct btf *btf;
static FILE *devnull;
static bool verbose;	/* FUZZ_VERBOSE=1: say what became of each input */
static int char_ptr_id;
static int usdt_int_ids[6];

static int add_proto(int ret, ...)
{
	va_list ap;
	int id;

	va_start(ap, ret);
	id = fx_vproto(btf, ret, ap);
	va_end(ap);
	must(id);
	return id;
}

static void add_func(const char *name, int proto)
{
	must(fx_func(btf, name, proto));
}

static void add_tp(const char *event, int proto)
{
	must(fx_trace_typedef(btf, event, proto));
}

static void field(const char *name, int type, int bit_off, int bit_size)
{
	must(btf__add_field(btf, name, type, bit_off, bit_size));
}

static void build_btf(void)
{
	int chr, uchr, shrt, ushrt, in, uin, lng, ulng, bool_t, flt, dbl;
	int u8, u16, u32, u64, s32, pid_t_, size_t_, cchar, cchar_ptr, uchar_ptr;
	int void_ptr, int_ptr, int_ptr_ptr, vol_int, char16, int4, char4x8, u8flex;
	int huge_arr, state, sstate, e64, se64, list_head, list_ptr;
	int hash_union, bits_struct, inner, fwd, fwd_ptr, fn_proto, fn_ptr;
	int task_ptr, task, big, big_ptr, huge, huge_ptr, pair, trio, un, un_ptr;
	int skb, skc, sk;
	int tproto, tmpl, u16x2, char8, char64k;
	struct fx_ints ints;

	btf = btf__new_empty();
	if (!btf)
		abort();
	must(fx_add_ints(btf, &ints));
	chr = ints.char_t;
	uchr = ints.uchar_t;
	shrt = ints.short_t;
	ushrt = ints.ushort_t;
	in = ints.int_t;
	uin = ints.uint_t;
	lng = ints.long_t;
	ulng = ints.ulong_t;
	bool_t = ints.bool_t;
	must(flt = btf__add_float(btf, "float", 4));
	must(dbl = btf__add_float(btf, "double", 8));
	must(u8 = btf__add_typedef(btf, "u8", uchr));
	must(u16 = btf__add_typedef(btf, "u16", ushrt));
	must(u32 = btf__add_typedef(btf, "u32", uin));
	must(u64 = btf__add_typedef(btf, "u64", ulng));
	must(s32 = btf__add_typedef(btf, "s32", in));
	must(pid_t_ = btf__add_typedef(btf, "pid_t", btf__add_typedef(btf, "__kernel_pid_t", in)));
	must(size_t_ = btf__add_typedef(btf, "size_t", ulng));
	must(cchar = btf__add_const(btf, chr));
	must(cchar_ptr = btf__add_ptr(btf, cchar));
	must(char_ptr_id = btf__add_ptr(btf, chr));
	must(uchar_ptr = btf__add_ptr(btf, uchr));
	must(void_ptr = btf__add_ptr(btf, 0));
	must(int_ptr = btf__add_ptr(btf, in));
	must(int_ptr_ptr = btf__add_ptr(btf, int_ptr));
	must(vol_int = btf__add_volatile(btf, in));
	must(char16 = btf__add_array(btf, in, chr, 16));
	must(int4 = btf__add_array(btf, in, in, 4));
	must(char4x8 = btf__add_array(btf, in, btf__add_array(btf, in, chr, 8), 4));
	must(u8flex = btf__add_array(btf, in, u8, 0));
	/* 4 GiB minus a little: the largest size BTF can describe. */
	must(huge_arr = btf__add_array(btf, in, lng, (1u << 29) - 1));
	must(u16x2 = btf__add_array(btf, in, u16, 2));
	must(char8 = btf__add_array(btf, in, chr, 8));
	must(char64k = btf__add_array(btf, in, chr, 65536));

	must(state = btf__add_enum(btf, "task_state", 4));
	must(btf__add_enum_value(btf, "TASK_RUNNING", 0));
	must(btf__add_enum_value(btf, "TASK_DEAD", 0x80));
	must(btf__add_enum_value(btf, "TASK_BIG", 0xffffffffLL));
	must(sstate = btf__add_enum(btf, "signed_state", 2));
	must(btf__add_enum_value(btf, "S_NEG", -32768));
	must(btf__add_enum_value(btf, "S_POS", 7));
	must(btf__add_enum(btf, NULL, 1));
	must(btf__add_enum_value(btf, "ANON_ONE", 1));
	must(btf__add_enum_value(btf, "S_POS", 8));	/* same name, another value */
	must(e64 = btf__add_enum64(btf, "e64", 8, false));
	must(btf__add_enum64_value(btf, "E64_MAX", UINT64_MAX));
	must(se64 = btf__add_enum64(btf, "se64", 8, true));
	must(btf__add_enum64_value(btf, "SE64_MIN", (uint64_t)INT64_MIN));

	/* struct list_head { struct list_head *next, *prev; } */
	list_ptr = btf__type_cnt(btf);
	must(btf__add_ptr(btf, list_ptr + 1));
	must(list_head = btf__add_struct(btf, "list_head", 16));
	field("next", list_ptr, 0, 0);
	field("prev", list_ptr, 64, 0);

	/* union { u32 hash; u16 half[2]; } and struct { u8 lo:3, hi:5; u32 wide:20; } */
	must(hash_union = btf__add_union(btf, NULL, 4));
	field("hash", u32, 0, 0);
	field("half", u16x2, 0, 0);
	must(bits_struct = btf__add_struct(btf, NULL, 8));
	field("lo", u8, 0, 3);
	field("hi", u8, 3, 5);
	field("wide", u32, 8, 20);
	must(inner = btf__add_struct(btf, "inner", 16));
	field("a", in, 0, 0);
	field(NULL, hash_union, 32, 0);
	field(NULL, bits_struct, 64, 0);

	must(fwd = btf__add_fwd(btf, "opaque", BTF_FWD_STRUCT));
	must(fwd_ptr = btf__add_ptr(btf, fwd));
	must(fn_proto = add_proto(in, "x", in, NULL));
	must(fn_ptr = btf__add_ptr(btf, fn_proto));

	/* struct task: points to itself, embeds the rest. */
	task_ptr = btf__type_cnt(btf);
	must(btf__add_ptr(btf, task_ptr + 1));
	must(task = btf__add_struct(btf, "task", 200));
	field("pid", pid_t_, 0, 0);
	field("flags", ulng, 32, 40);
	field("on_cpu", bool_t, 72, 1);
	field("prio", vol_int, 80, 0);
	field("comm", char16, 128, 0);
	field("parent", task_ptr, 256, 0);
	field("tasks", list_head, 320, 0);
	field("in", inner, 448, 0);
	field("state", state, 576, 0);
	field("sstate", sstate, 608, 0);
	field("big", e64, 640, 0);
	field("name", cchar_ptr, 704, 0);
	field("priv", void_ptr, 768, 0);
	field("fn", fn_ptr, 832, 0);
	field("load", flt, 896, 0);
	field("avg", dbl, 960, 0);
	field("opaque", fwd_ptr, 1024, 0);
	field("names", char4x8, 1088, 0);
	field("sbig", se64, 1344, 0);
	field("ints", int4, 1408, 0);
	field("data", u8flex, 1600, 0);

	must(big = btf__add_struct(btf, "big", 65536));
	field("data", char64k, 0, 0);
	must(big_ptr = btf__add_ptr(btf, big));
	must(huge = btf__add_struct(btf, "huge", ((1u << 29) - 1) * 8u));
	field("arr", huge_arr, 0, 0);
	must(huge_ptr = btf__add_ptr(btf, huge));
	must(pair = btf__add_struct(btf, "pair", 16));
	field("a", lng, 0, 0);
	field("b", lng, 64, 0);
	must(trio = btf__add_struct(btf, "trio", 24));
	field("a", lng, 0, 0);
	field("b", lng, 64, 0);
	field("c", lng, 128, 0);
	must(un = btf__add_union(btf, "val", 8));
	field("i", in, 0, 0);
	field("f", flt, 0, 0);
	field("c", char8, 0, 0);
	must(un_ptr = btf__add_ptr(btf, un));

	/* ':tuple' finds its fields by name: a sk_buff and a sock as the kernel's. */
	must(skb = btf__add_struct(btf, "sk_buff", 232));
	field("protocol", u16, 180 * 8, 0);
	field("transport_header", u16, 182 * 8, 0);
	field("network_header", u16, 184 * 8, 0);
	field("head", uchar_ptr, 200 * 8, 0);
	must(skc = btf__add_struct(btf, "sock_common", 136));
	field("skc_daddr", u32, 0, 0);
	field("skc_rcv_saddr", u32, 32, 0);
	field("skc_dport", u16, 96, 0);
	field("skc_num", u16, 112, 0);
	field("skc_family", u16, 128, 0);
	field("skc_state", u8, 144, 0);
	must(sk = btf__add_struct(btf, "sock", 600));
	field("__sk_common", skc, 0, 0);
	field("sk_protocol", u16, 516 * 8, 0);

	add_func("f_void", add_proto(0, NULL));
	add_func("f_task", add_proto(in, "t", task_ptr, "flags", u32, NULL));
	add_func("f_str", add_proto(lng, "name", cchar_ptr, "buf", char_ptr_id,
				    "data", uchar_ptr, "len", size_t_, NULL));
	add_func("f_ptrs", add_proto(task_ptr, "pp", int_ptr_ptr, "v", void_ptr, "o", fwd_ptr,
				     "h", huge_ptr, "b", big_ptr, "u", un_ptr, NULL));
	add_func("f_scalars", add_proto(state, "st", state, "ss", sstate, "b", bool_t,
					"c", chr, "s", shrt, "e", e64, NULL));
	add_func("f_pair", add_proto(cchar_ptr, "p", pair, "x", in, NULL));
	add_func("f_trio", add_proto(0, "t", trio, "x", in, NULL));
	add_func("f_var", add_proto(in, "fmt", cchar_ptr, "...", 0, NULL));
	add_func("f_many", add_proto(lng, "a0", lng, "a1", lng, "a2", lng, "a3", lng,
				     "a4", lng, "a5", lng, "a6", lng, "a7", lng, "a8", lng,
				     "a9", lng, "a10", lng, "a11", lng, "a12", lng, NULL));
	add_func("f_float", add_proto(dbl, "f", flt, "l", list_ptr, NULL));
	add_func("f_net", add_proto(in, "skb", btf__add_ptr(btf, skb), "sk", btf__add_ptr(btf, sk), NULL));
	add_func("f_bad", in);	/* a FUNC whose type is no prototype */

	/* Tracepoints: own stub, shared template stub, no stub at all. */
	tproto = add_proto(0, "", void_ptr, "", task_ptr, "", pid_t_, "", u64, NULL);
	add_tp("task_event", tproto);
	add_func("__bpf_trace_task_event", add_proto(0, "__data", void_ptr, "p", task_ptr,
						     "old_pid", pid_t_, "cookie", u64, NULL));
	tmpl = add_proto(0, "", void_ptr, "", list_ptr, "", char_ptr_id, NULL);
	add_tp("ev_a", tmpl);
	add_tp("ev_b", tmpl);
	add_func("__bpf_trace_ev_template", add_proto(0, "__data", void_ptr, "head", list_ptr,
						      "msg", char_ptr_id, NULL));
	add_tp("nostub", add_proto(0, "", void_ptr, "", in, "", un_ptr, NULL));
	must(btf__add_typedef(btf, "btf_trace_notptr", in));

	/* The USDT probe's arguments, as usdt_front types them. */
	must(usdt_int_ids[0] = btf__add_int(btf, "__s8", 1, BTF_INT_SIGNED));
	must(usdt_int_ids[1] = btf__add_int(btf, "__u8", 1, 0));
	must(usdt_int_ids[2] = btf__add_int(btf, "__s16", 2, BTF_INT_SIGNED));
	must(usdt_int_ids[3] = btf__add_int(btf, "__u32", 4, 0));
	must(usdt_int_ids[4] = btf__add_int(btf, "__s64", 8, BTF_INT_SIGNED));
	must(usdt_int_ids[5] = btf__add_int(btf, "__u64", 8, 0));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	build_btf();
	verbose = getenv("FUZZ_VERBOSE") != NULL;
	devnull = verbose ? stdout : fopen("/dev/null", "w");
	if (!devnull)
		abort();
	return 0;
}

static void usdt_signature(struct signature *sig)
{
	int i;

	memset(sig, 0, sizeof(*sig));
	sig->btf = btf;
	snprintf(sig->name, sizeof(sig->name), "prov:probe");
	snprintf(sig->attach, sizeof(sig->attach), "probe");
	sig->nparams = sig->nslots = 6;
	for (i = 0; i < 6; i++) {
		sig->params[i].name = signature__arg_name(i);
		sig->params[i].slot = i;
		sig->params[i].type_id = usdt_int_ids[i];
	}
}

static void check_plan(const struct capture_plan *plan, const struct resolve_opts *o)
{
	int k, i;

	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		const struct ksnoop_side_plan *sd = &plan->bpf.side[k];

		check(sd->nvalues <= KSNOOP_MAX_VALUES && sd->npreds <= KSNOOP_MAX_PREDS);
		check(plan->nvalues[k] >= 0 && plan->nvalues[k] <= sd->nvalues);
		check(sd->rec_size >= sizeof(struct ksnoop_event) || !sd->nvalues);
		for (i = 0; i < sd->nvalues; i++) {
			const struct ksnoop_value_plan *vp = &sd->values[i];

			check(vp->acc.src <= KSNOOP_SRC_RET);
			check(vp->acc.src != KSNOOP_SRC_ARG || vp->acc.slot < KSNOOP_MAX_ARGS);
			check(vp->acc.nsteps <= KSNOOP_MAX_DEREFS);
			check(vp->acc.size > 0 && vp->acc.size <= KSNOOP_MAX_VALUE_SIZE);
			check(vp->acc.size <= (o->max_bytes > o->str_bytes ? o->max_bytes : o->str_bytes) ||
			      (vp->acc.flags & KSNOOP_VAL_REG));
			check(vp->rec_off % 8 == 0 && vp->rec_off >= sizeof(struct ksnoop_event));
			check((uint64_t)vp->rec_off + sizeof(struct ksnoop_value) + vp->acc.size <=
			      sd->rec_size);
		}
		for (i = 0; i < plan->nvalues[k]; i++) {
			const struct value_desc *vd = &plan->values[k][i];

			check(vd->text && *vd->text);
			check(vd->size <= KSNOOP_MAX_VALUE_SIZE);
			check(vd->bit_size <= 64 && vd->bit_off < 8);
		}
		for (i = 0; i < sd->npreds; i++) {
			const struct ksnoop_pred_plan *pp = &sd->preds[i];

			check(pp->op <= KSNOOP_OP_GE);
			check(pp->acc.nsteps <= KSNOOP_MAX_DEREFS);
			check(pp->acc.src != KSNOOP_SRC_ARG || pp->acc.slot < KSNOOP_MAX_ARGS);
			check(pp->is_str ? memchr(pp->str, 0, sizeof(pp->str)) != NULL :
			      (pp->width == 1 || pp->width == 2 || pp->width == 4 || pp->width == 8 ||
			       pp->bit_size));
			/* A bitfield: the bytes read hold it whole, at most 8 of them. */
			check(!pp->bit_size || (pp->width >= 1 && pp->width <= 8 && pp->bit_off < 8 &&
						pp->bit_off + pp->bit_size <= 8u * pp->width));
			/* A mask fits the value's bits and leaves the constant possible. */
			check(!pp->mask || pp->width >= 8 || !(pp->mask >> (8 * pp->width)));
		}
	}
	check(plan->bpf.nslots <= KSNOOP_MAX_ARGS && plan->bpf.ret_slot <= KSNOOP_MAX_ARGS);
}

/* Print one record per side through PLAN, from the fuzzer's bytes. */
static void print_records(const struct capture_plan *plan, const uint8_t *raw, size_t n,
			  const struct print_opts *popts)
{
	struct printer pr;
	int k;

	printer__init(&pr, devnull, popts);
	for (k = 0; k < KSNOOP_NR_KINDS; k++) {
		size_t size = plan->bpf.side[k].rec_size, i;
		struct ksnoop_event *ev;
		uint8_t *rec;

		if (!plan->nvalues[k] || size < sizeof(*ev))
			continue;
		rec = malloc(size);
		if (!rec)
			break;
		for (i = 0; i < size; i++)
			rec[i] = n ? raw[i % n] : 0;
		ev = (struct ksnoop_event *)rec;
		ev->kind = k;
		ev->func_id = 0;
		printer__event(&pr, plan, rec, size);
		free(rec);
	}
	printer__fini(&pr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const __u32 max_bytes[] = { KSNOOP_DEFAULT_VALUE_SIZE, 1, 24, KSNOOP_MAX_VALUE_SIZE };
	static const __u32 str_bytes[] = { KSNOOP_DEFAULT_STR_SIZE, 2, 9, KSNOOP_MAX_VALUE_SIZE };
	struct capture_plan *plan = NULL;
	struct resolve_opts ropts = {};
	struct print_opts popts = {};
	struct signature sig;
	struct ks_error err;
	struct spec spec;
	enum spec_kind kind;
	struct ks_error why;
	char *text;
	size_t n;
	int id, ret;

	if (size < 2)
		return 0;
	kind = data[0] % 3 == 2 ? SPEC_USDT : SPEC_KFUNC;
	popts.format = data[1] & 2 ? REPORT_JSON : REPORT_TEXT;
	popts.zeros = data[1] & 4;
	ropts.max_bytes = max_bytes[(data[1] >> 3) & 3];
	ropts.str_bytes = str_bytes[(data[1] >> 5) & 3];
	n = strnlen((const char *)data + 2, size - 2);
	text = malloc(n + 4);
	if (!text)
		return 0;
	snprintf(text, n + 4, "%s%.*s", data[0] % 3 == 1 ? "tp:" : "", (int)n, data + 2);
	data += 2 + n;
	size -= 2 + n;
	if (size) {	/* skip the NUL: the rest is the record */
		data++;
		size--;
	}

	if (spec__parse(text, kind, &spec, &err)) {
		if (verbose)
			printf("spec '%s': column %d: %s\n", text, err.pos, err.msg);
		goto out;
	}
	switch (spec.kind) {
	case SPEC_KFUNC:
		id = btf__find_by_name_kind(btf, spec.target, BTF_KIND_FUNC);
		if (id <= 0 || signature__from_func(btf, id, &sig, &why)) {
			if (verbose)
				printf("spec '%s': no usable function '%s'\n", text, spec.target);
			goto out;
		}
		break;
	case SPEC_TP: {
		const char *colon = strrchr(spec.target, ':');

		if (signature__from_tp(btf, colon ? colon + 1 : spec.target, &sig)) {
			if (verbose)
				printf("spec '%s': no tracepoint '%s'\n", text, spec.target);
			goto out;
		}
		break;
	}
	case SPEC_USDT:
	case SPEC_UFUNC:	/* untyped as USDT's (no ELF here): user memory */
		usdt_signature(&sig);
		ropts.user_space = true;
		break;
	}
	check(sig.nparams >= 0 && sig.nparams <= SIG_MAX_PARAMS);

	plan = malloc(sizeof(*plan));
	if (!plan)
		goto out;
	ret = resolver__resolve(&spec, &sig, &ropts, plan, &err);
	if (ret) {
		check(ret == -EINVAL || ret == -ENOMEM);
		check(err.err == ret && err.msg[0] && memchr(err.msg, 0, sizeof(err.msg)));
		check(err.pos >= 0 && (size_t)err.pos <= strlen(text) + 1);
		if (verbose)
			printf("spec '%s': column %d: %s\n", text, err.pos, err.msg);
		goto out;
	}
	check_plan(plan, &ropts);
	print_records(plan, data, size, &popts);
out:
	if (plan)
		resolver__release(plan);
	free(plan);
	spec__free(&spec);
	free(text);
	return 0;
}
