// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: DWARF into BTF (ksnoop/dwarf/dwarf_btf.c) on whole ELF
 * files, which the user who owns a traced binary crafts.  The file is
 * opened from memory (no separate debug file looked for); then every
 * function with code it lists, up to a few, is converted, and a few
 * variables.  Checked besides the sanitizers: an error has a one-line
 * message naming the file; what was built is BTF libbpf accepts back
 * (serialised and parsed again); its size within DWBTF_MAX_BTF.
 * libFuzzer's -timeout and -rss_limit_mb catch work or memory out of
 * proportion to the file.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "dwarf_btf.h"

#define check(cond) do { if (!(cond)) __builtin_trap(); } while (0)
#define MAX_FUNCS 16

struct names {
	char *name[MAX_FUNCS];
	int n;
};

static int collect(const char *name, __u64 addr, void *ctx)
{
	struct names *ns = ctx;

	check(name && name[0]);
	if (ns->n == MAX_FUNCS)
		return 1;
	ns->name[ns->n++] = strdup(name);
	return 0;
}

static void check_error(const struct ks_error *e, int err)
{
	check(err < 0 && e->err == err);
	check(e->msg[0] && !strchr(e->msg, '\n'));
	check(strstr(e->msg, "'fuzz'"));
}

static void check_btf(const struct btf *btf)
{
	const void *raw;
	struct btf *again;
	__u32 size;

	raw = btf__raw_data(btf, &size);
	check(raw && size <= DWBTF_MAX_BTF + (1u << 20));
	again = btf__new(raw, size);
	check(again);
	btf__free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const vars[] = { "g_item", "t_count", "g_node", "tls_counter" };
	struct ks_error e = { 0 };
	struct names ns = { 0 };
	struct dwbtf *d;
	__u64 addr;
	__u32 id;
	bool tls;
	int err;

	err = dwbtf__open_mem(data, size, "fuzz", &d, &e);
	if (err) {
		check(!d);
		check_error(&e, err);
		return 0;
	}
	dwbtf__each_func(d, collect, &ns);
	for (int i = 0; i < ns.n; i++) {
		err = dwbtf__func(d, ns.name[i], &id, &e);
		if (err)
			check_error(&e, err);
		else
			check(id > 0 && id < btf__type_cnt(dwbtf__btf(d)));
		free(ns.name[i]);
	}
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		err = dwbtf__var(d, vars[i], &id, &addr, &tls, &e);
		if (err)
			check_error(&e, err);
		else
			check(id < btf__type_cnt(dwbtf__btf(d)));
	}
	check_btf(dwbtf__btf(d));
	dwbtf__close(d);
	return 0;
}
