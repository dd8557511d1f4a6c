// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* prune_hook: pruning inside libbpf's load (prune_hook.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "kfeatures.h"
#include "log.h"
#include "prune.h"
#include "prune_hook.h"

/* Attach types newer than the build's linux/bpf.h (bookworm's, 6.1), as the kernel numbers them. */
#define TRACE_UPROBE_MULTI	((enum bpf_attach_type)48)
#define TRACE_KPROBE_SESSION	((enum bpf_attach_type)56)

/* A section whose program libbpf 1.5 loads for uprobe.multi links where it makes them. */
#define SEC_USDT	1

/* The sections of bpf/ksnoop.bpf.c's capture programs, as libbpf 1.5 defines them. */
static const struct {
	const char *sec;
	enum bpf_prog_type type;
	enum bpf_attach_type attach;
	long cookie;
} sections[] = {
	{ "fentry", BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, 0 },
	{ "fexit", BPF_PROG_TYPE_TRACING, BPF_TRACE_FEXIT, 0 },
	{ "kprobe", BPF_PROG_TYPE_KPROBE, 0, 0 },
	{ "kretprobe", BPF_PROG_TYPE_KPROBE, 0, 0 },
	{ "kprobe.session", BPF_PROG_TYPE_KPROBE, TRACE_KPROBE_SESSION, 0 },
	{ "uprobe", BPF_PROG_TYPE_KPROBE, 0, 0 },
	{ "uretprobe", BPF_PROG_TYPE_KPROBE, 0, 0 },
	{ "uprobe.multi", BPF_PROG_TYPE_KPROBE, TRACE_UPROBE_MULTI, 0 },
	{ "usdt", BPF_PROG_TYPE_KPROBE, 0, SEC_USDT },
	{ "tp", BPF_PROG_TYPE_TRACEPOINT, 0, 0 },
	{ "raw_tp", BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0 },
	{ "raw_tp/sys_enter", BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0 },
	{ "raw_tp/sys_exit", BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0 },
};

/* Programs of one object: fentry, fexit and --tree's two, with room. */
#define HOOK_MAX_PROGS	8

static struct {
	const struct bpf_map *rodata;	/* NULL: not inside begin/end */
	int ro_fd;			/* its fd in the code, once found (-1: not yet) */
	struct prune_out outs[HOOK_MAX_PROGS];	/* func/line info until the load ends */
	int nouts;
	size_t before, after;
	int skipped;
	bool off;
} hook;

/* fentry/fexit by bpf_program__attach(), as libbpf's own sections do. */
static int attach_trace(const struct bpf_program *prog, long cookie, struct bpf_link **link)
{
	*link = bpf_program__attach_trace(prog);
	return *link ? 0 : -errno;
}

/*
 * The fd the relocated code names the plan's map by: bpf_map__fd() says
 * -1 until the whole object is loaded.  The map the code reads whose
 * name, size and flags are RODATA's (libbpf froze it on creation: the
 * verifier reads it as constants, and so may prune).
 */
static int rodata_fd(const struct bpf_insn *insns, size_t cnt, size_t size)
{
	const char *name = bpf_map__name(hook.rodata);
	struct bpf_map_info info;
	__u32 len;
	size_t i;

	for (i = 0; i + 1 < cnt; i++) {
		if (insns[i].code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (insns[i].src_reg == BPF_PSEUDO_MAP_VALUE) {
			memset(&info, 0, sizeof(info));
			len = sizeof(info);
			if (!bpf_map_get_info_by_fd(insns[i].imm, &info, &len) &&
			    info.value_size == size && (info.map_flags & BPF_F_RDONLY_PROG) &&
			    !strncmp(info.name, name, sizeof(info.name) - 1))
				return insns[i].imm;
		}
		i++;
	}
	return -1;
}

static int prepare(struct bpf_program *prog, struct bpf_prog_load_opts *opts, long cookie)
{
	struct prune_in in = { 0 };
	struct prune_out *out;
	size_t size;
	int err;

	/*
	 * libbpf's USDT attach makes uprobe.multi links where its probe says
	 * so, for a program loaded for them (its own section handler's step,
	 * which this one replaces).
	 */
	if (cookie == SEC_USDT && kfeatures__libbpf_usdt_multi()) {
		err = bpf_program__set_expected_attach_type(prog, TRACE_UPROBE_MULTI);
		if (err)
			return err;
		opts->expected_attach_type = TRACE_UPROBE_MULTI;
	}
	if (!hook.rodata || hook.off)
		return 0;
	in.insns = bpf_program__insns(prog);
	in.cnt = bpf_program__insn_cnt(prog);
	in.ro[0].data = bpf_map__initial_value((struct bpf_map *)hook.rodata, &size);
	in.ro[0].size = size;
	if (hook.ro_fd == -1 && in.ro[0].data)
		hook.ro_fd = rodata_fd(in.insns, in.cnt, size);
	in.ro[0].fd = hook.ro_fd;
	in.nro = in.ro[0].data && in.ro[0].fd >= 0;
	if (opts->func_info) {
		in.func_info = opts->func_info;
		in.func_rec = opts->func_info_rec_size;
		in.nfunc = opts->func_info_cnt;
	}
	if (opts->line_info) {
		in.line_info = opts->line_info;
		in.line_rec = opts->line_info_rec_size;
		in.nline = opts->line_info_cnt;
	}
	hook.before += in.cnt;
	if (hook.nouts == HOOK_MAX_PROGS || !in.nro) {
		hook.skipped++;
		hook.after += in.cnt;
		return 0;
	}
	out = &hook.outs[hook.nouts];
	err = prune__program(&in, out);
	/* What prune does not follow goes to the kernel whole: it is only slower. */
	if (!err && (err = bpf_program__set_insns(prog, out->insns, out->cnt)))
		prune__free(out);
	if (err) {
		log_detail("BPF code of %s handed over whole: %s", bpf_program__name(prog), strerror(-err));
		hook.skipped++;
		hook.after += in.cnt;
		return 0;
	}
	hook.nouts++;
	hook.after += out->cnt;
	if (opts->func_info) {
		opts->func_info = out->func_info;
		opts->func_info_cnt = out->nfunc;
	}
	if (opts->line_info) {
		opts->line_info = out->line_info;
		opts->line_info_cnt = out->nline;
	}
	return 0;
}

int prune_hook__register(void)
{
	LIBBPF_OPTS(libbpf_prog_handler_opts, opts, .prog_prepare_load_fn = prepare);
	static bool done;
	const char *env = getenv(PRUNE_ENV);
	size_t i;
	int err;

	if (done)
		return 0;
	done = true;
	hook.off = env && !strcmp(env, "0");
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		opts.prog_attach_fn = sections[i].type == BPF_PROG_TYPE_TRACING ? attach_trace : NULL;
		opts.cookie = sections[i].cookie;
		err = libbpf_register_prog_handler(sections[i].sec, sections[i].type,
						   sections[i].attach, &opts);
		if (err < 0)
			return err;
	}
	return 0;
}

void prune_hook__begin(const struct bpf_map *rodata)
{
	hook.rodata = rodata;
	hook.ro_fd = -1;
}

void prune_hook__end(void)
{
	int i;

	for (i = 0; i < hook.nouts; i++)
		prune__free(&hook.outs[i]);
	hook.nouts = 0;
	hook.rodata = NULL;
}

void prune_hook__counts(size_t *before, size_t *after, int *skipped)
{
	*before = hook.before;
	*after = hook.after;
	*skipped = hook.skipped;
}
