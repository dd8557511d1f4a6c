// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: a BTF blob, as a binary's .BTF or `--btf FILE` hands
 * it to ksnoop, through the BTF helpers, the resolver and the printer.
 *
 * Input: the raw BTF (header, types, strings), parsed by libbpf.  For each
 * of the first MAX_TYPES types: strip it, ask what it is, spell it, print
 * the input's own bytes as a value of it (text and JSON, behind a pointer,
 * and cut short as a capture at --max-bytes is), and for a struct or union
 * resolve `p->NAME` for its first member and for a name it does not have.
 * The printer gets a copy of exactly the value's bytes: a read past the
 * value is an ASan report even where the input goes on after it.  BTF
 * that refers to types it does not have is refused, as ksnoop refuses it.
 * libbpf checks the layout of the blob, not its meaning: typedef cycles,
 * structs that contain themselves and names outside the string section
 * all get through, and every walk of ours must end (libFuzzer's -timeout
 * catches one that does not).
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "print.h"
#include "resolve.h"
#include "spec.h"

#define check(cond) do { if (!(cond)) __builtin_trap(); } while (0)
/* Types looked at per input: enough for the fuzzer, bounded per run. */
#define MAX_TYPES	64

static FILE *devnull;

/*
 * DATA as a value of type ID, as much of it as the type's size, less its
 * last SHORT_BY bytes if it has more; printed from a heap copy of exactly the
 * bytes given, so that ASan sees a read past them.  (Printed from the
 * input itself, a read past a value stays inside the input unless the
 * value ends where the input does: a pointer read as 8 bytes where 1 was
 * left went unseen by bounded runs.)
 */
static void print_as(const struct btf *btf, __u32 id, const uint8_t *data, size_t size,
		     size_t short_by, bool json, bool deref)
{
	struct print_opts opts = { .format = json ? REPORT_JSON : REPORT_TEXT, .zeros = true };
	__s64 tsize = btf__resolve_size(btf, id);
	struct value_desc vd = { .text = "v", .type_id = id, .obj_id = id,
				 .how = deref ? PRINT_DEREF : PRINT_VALUE };
	struct ksnoop_value vh = { .status = KSNOOP_OK, .addr = 0x1000 };
	struct printer p;
	uint8_t *copy;

	vd.size = vd.obj_size = tsize > 0 && (size_t)tsize < size ? tsize : size;
	if (short_by && short_by < vd.size) {
		vd.size -= short_by;
		vh.status = KSNOOP_TRUNCATED;
	}
	vh.len = vd.size;
	copy = malloc(vd.size ? vd.size : 1);
	if (!copy)
		return;
	memcpy(copy, data, vd.size);
	if (deref)
		btfu_type_str(btf, id, NULL, vd.obj_name, sizeof(vd.obj_name));
	printer__init(&p, devnull, &opts);
	printer__value(&p, btf, &vd, &vh, copy, 1);
	printer__fini(&p);
	free(copy);
}

/* A member name the spec parser takes, or NULL. */
static const char *first_member(const struct btf *btf, const struct btf_type *t)
{
	int i;

	for (i = 0; i < btf_vlen(t); i++) {
		const char *n = btfu_name(btf, btf_members(t)[i].name_off);
		size_t k;

		if (!*n || strlen(n) > 60 || !(isalpha((unsigned char)*n) || *n == '_'))
			continue;
		for (k = 0; n[k] && (isalnum((unsigned char)n[k]) || n[k] == '_'); k++)
			;
		if (!n[k])
			return n;
	}
	return NULL;
}

static void resolve_member(struct btf *btf, __u32 ptr_id, const char *member)
{
	static const struct resolve_opts opts = {
		.max_bytes = KSNOOP_DEFAULT_VALUE_SIZE, .str_bytes = KSNOOP_DEFAULT_STR_SIZE,
	};
	static struct capture_plan plan;
	static struct signature sig;
	struct ks_error e;
	struct spec spec;
	char text[96];

	memset(&sig, 0, sizeof(sig));
	sig.btf = btf;
	snprintf(sig.name, sizeof(sig.name), "f");
	snprintf(sig.attach, sizeof(sig.attach), "f");
	sig.nparams = sig.nslots = 1;
	sig.params[0].name = "p";
	sig.params[0].type_id = ptr_id;
	snprintf(text, sizeof(text), "f(p->%s, p, *p)", member);
	if (spec__parse(text, SPEC_KFUNC, &spec, &e))
		return;
	if (resolver__resolve(&spec, &sig, &opts, &plan, &e))
		check(e.msg[0] && memchr(e.msg, 0, sizeof(e.msg)));
	spec__free(&spec);
}

static void one_type(struct btf *btf, __u32 id, const uint8_t *data, size_t size)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, id));
	char buf[256], member[64] = "";
	const char *m;
	int ptr;

	btfu_is_char_ptr(btf, id);
	btfu_is_char_array(btf, id);
	btfu_is_struct_ptr(btf, id);
	btfu_is_scalar(btf, id);
	btfu_is_signed(btf, id);
	btfu_type_str(btf, id, "x", buf, sizeof(buf));
	check(memchr(buf, 0, sizeof(buf)));
	print_as(btf, id, data, size, 0, false, false);
	print_as(btf, id, data, size, 0, true, false);
	/* Captured short by 1 to 8 bytes: a member near the end is cut. */
	print_as(btf, id, data, size, 1 + (id + size) % 8, false, false);
	if (!t || !btf_is_composite(t))
		return;
	print_as(btf, id, data, size, 0, false, true);
	m = first_member(btf, t);
	if (m)
		snprintf(member, sizeof(member), "%s", m);
	/* Adding a type makes libbpf copy the BTF: T and M are stale after. */
	ptr = btf__add_ptr(btf, id);
	if (ptr < 0)
		return;
	if (member[0])
		resolve_member(btf, ptr, member);
	resolve_member(btf, ptr, "no_such_member");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct btf *btf;
	__u32 id, n;

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	btf = btf__new(data, size);
	if (!btf)
		return 0;
	/* ksnoop refuses such BTF from a file (usdt_front.c); so do we. */
	if (!btfu_refs_valid(btf)) {
		btf__free(btf);
		return 0;
	}
	n = btf__type_cnt(btf);
	for (id = 0; id < n && id <= MAX_TYPES; id++)
		one_type(btf, id, data, size);
	btf__free(btf);
	return 0;
}
