// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Target expansion (targets.c) and program sharing (sharing.c) on a kernel
 * made of files: the resolver fixture's BTF as vmlinux, with vfs_* and
 * two functions globs leave out, a module "dummy" (split BTF), kallsyms
 * and ftrace's list of what it can hook.  No privileges, no tracefs.
 */
#include <asm/unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../include/resolve_fixture.h"
#include "sharing.h"
#include "log.h"
#include "kernel.h"
#include "targets.h"
#include "sysnr.h"

static char top[64], dir[80];	/* dir: the BTF, TOP/btf */
static char kallsyms_path[128], ftrace_path[128];

static void write_file(const char *where, const char *name, const void *data, size_t size,
		       char *path_out)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", where, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
	if (path_out)
		strcpy(path_out, path);
}

static void write_btf(const char *name, const struct btf *b)
{
	__u32 size;
	const void *data = btf__raw_data(b, &size);

	assert_non_null(data);
	write_file(dir, name, data, size, NULL);
}

static const char kallsyms[] =
	"ffffffff81000000 T ip_send_skb\n"
	"ffffffff81001000 T vfs_open\n"
	"ffffffff81002000 T vfs_read\n"
	"ffffffff81003000 T vfs_write\n"
	"ffffffff81004000 T vfs_kprobe_hook\n"
	"ffffffff81005000 T dup_sys_ipc\n"
	"ffffffffc0000000 t dummy_xmit\t[dummy]\n"
	"ffffffffc0001000 t dummy_init\t[dummy]\n"
	/* Static functions of one name: two files' in vmlinux, a module's. */
	"ffffffff81005000 t dup_show\n"
	"ffffffff81006000 t dup_show\n"
	"ffffffffc0002000 t dup_show\t[dummy]\n"
	/* Two of one name whose BTF prototypes differ. */
	"ffffffff81007000 t twin_show\n"
	"ffffffff81008000 t twin_show\n";

/* vfs_notrace is not here (notrace): globs leave it out. */
static const char ftrace[] =
	"ip_send_skb\nvfs_open\nvfs_read\nvfs_write\nvfs_kprobe_hook\ndup_sys_ipc\n"
	"dummy_xmit [dummy]\ndummy_init [dummy]\n"
	"dup_show\ndup_show\ndup_show [dummy]\ntwin_show\ntwin_show\n";

/* ip_send_skb, and tracepoints as in the fixture (with a stub, from templates, without). */
static void build_kernel_functions(void)
{
	int p;

	T.ip_send_skb = func("ip_send_skb", proto(T.ints.int_t, "net", T.net_ptr, "skb", T.skb_ptr, NULL));
	trace_typedef("kfree_skb", proto(0, "", T.void_ptr, "", T.skb_ptr, "", T.void_ptr, NULL));
	func("__bpf_trace_kfree_skb", proto(0, "__data", T.void_ptr, "skb", T.skb_ptr,
					    "location", T.void_ptr, NULL));
	p = proto(0, "", T.void_ptr, "", T.skb_ptr, NULL);
	trace_typedef("net_dev_queue", p);
	trace_typedef("sched_skb_event", p);
	trace_typedef("net_dev_start_xmit", p);
	func("__bpf_trace_sched_template", proto(0, "__data", T.void_ptr, "other", T.skb_ptr, NULL));
	func("__bpf_trace_net_dev_template", proto(0, "__data", T.void_ptr, "skb", T.skb_ptr, NULL));
	trace_typedef("nostub", proto(0, "", T.void_ptr, "", T.ints.int_t, "", T.skb_ptr, NULL));
}

static int make_kernel_dir(void **state)
{
	struct btf *mod;
	int rw, raw_tp;

	snprintf(top, sizeof(top), "/tmp/ksnoop-test-targets-XXXXXX");
	btf = fx_fixture("kernel");
	if (!mkdtemp(top) || !btf)
		return -1;
	snprintf(dir, sizeof(dir), "%s/btf", top);
	if (mkdir(dir, 0700))
		return -1;
	/*
	 * The fixture's types (compiled, tests/fixture/kernel.c); its
	 * functions but for the corrupt one (the kernel's BTF loads).
	 */
	build_scalars();
	build_enums();
	build_sock();
	build_sk_buff();
	build_other_structs();
	build_addresses();
	build_kernel_functions();
	rw = proto(T.ints.long_t, "fd", T.ints.int_t, "count", T.ints.ulong_t, NULL);
	func("vfs_open", rw);
	func("vfs_read", rw);
	func("vfs_write", rw);
	func("vfs_notrace", rw);
	/* "*kprobe*": tracing it would recurse into the tracer. */
	func("vfs_kprobe_hook", rw);
	/* Twice, as 6.1's vmlinux BTF has __ia32_compat_sys_ipc. */
	func("dup_sys_ipc", rw);
	func("dup_sys_ipc", rw);
	/* One FUNC for three functions (the module's deduplicated into vmlinux's). */
	func("dup_show", rw);
	func("twin_show", rw);
	func("twin_show", proto(T.ints.int_t, "x", T.ints.int_t, NULL));
	/* The kernel has raw_tp cookies (6.10 on): its raw_tp link has one. */
	raw_tp = btf__add_struct(btf, "bpf_raw_tp_link", 8);
	btf__add_field(btf, "cookie", T.ints.ulong_t, 0, 0);
	assert_true(raw_tp > 0);
	write_btf("vmlinux", btf);
	mod = btf__new_empty_split(btf);
	assert_non_null(mod);
	fx_func(mod, "dummy_xmit", fx_proto(mod, T.ints.int_t, "skb", T.skb_ptr, NULL));
	fx_func(mod, "dummy_init", fx_proto(mod, T.ints.int_t, NULL));
	write_btf("dummy", mod);
	btf__free(mod);
	write_file(top, "kallsyms", kallsyms, strlen(kallsyms), kallsyms_path);
	write_file(top, "ftrace", ftrace, strlen(ftrace), ftrace_path);
	return 0;
}

static int remove_kernel_dir(void **state)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/dummy", dir);
	unlink(path);
	rmdir(dir);
	unlink(kallsyms_path);
	unlink(ftrace_path);
	rmdir(top);
	return free_btf(state);
}

/* ---- expansion: specs in, targets out ---- */

static const struct targets_cfg cfg = {
	.resolve = { .max_bytes = KSNOOP_DEFAULT_VALUE_SIZE, .str_bytes = KSNOOP_DEFAULT_STR_SIZE },
	.func_kind = ATTACH_FENTRY,
	.glob_kind = ATTACH_KPROBE,
	.tp_cookies = true,
};

/* The specs, the kernel and the targets of one test. */
struct expansion {
	struct spec specs[4];
	int nspecs;
	struct kernel *k;
	struct target_list l;
	char names[512];	/* "module:name kind from_glob; ..." */
};

static struct expansion *x;

static int free_expansion(void **state)
{
	if (!x)
		return 0;
	targets__free(&x->l);
	for (int i = 0; i < x->nspecs; i++)
		spec__free(&x->specs[i]);
	kernel__free(x->k);
	free(x);
	x = NULL;
	return 0;
}

/* Expand TEXTS (NULL-terminated) as tracing does, with C; its errno. */
static int expand_with(const struct targets_cfg *c, const char *const *texts)
{
	struct ks_error e;
	size_t len = 0;
	int err, i;

	free_expansion(NULL);
	x = calloc(1, sizeof(*x));
	assert_non_null(x);
	x->k = kernel__new(dir);
	assert_non_null(x->k);
	kernel__set_kallsyms_path(x->k, kallsyms_path);
	kernel__set_ftrace_path(x->k, ftrace_path);
	for (; texts[x->nspecs]; x->nspecs++)
		assert_int_equal(spec__parse(texts[x->nspecs], SPEC_KFUNC, &x->specs[x->nspecs], &e), 0);
	err = targets__add(&x->l, x->k, NULL, x->specs, x->nspecs, c);
	for (i = 0; i < x->l.n; i++) {
		const struct target *tg = &x->l.v[i];

		assert_int_equal(tg->plan.bpf.func_id, i);
		len += snprintf(x->names + len, sizeof(x->names) - len, "%s%s%s %s%s; ",
				tg->plan.sig.module ? tg->plan.sig.module : "",
				tg->plan.sig.module ? ":" : "", tg->plan.sig.name,
				tg->kind == ATTACH_FENTRY ? "fentry" : tg->kind == ATTACH_KPROBE ?
				"kprobe" : "tp", tg->from_glob ? " glob" : "");
		assert_true(len < sizeof(x->names));
	}
	return err;
}

static int expand(const char *text)
{
	const char *texts[] = { text, NULL };

	return expand_with(&cfg, texts);
}

/* The error targets__for_each_match() gives spec TEXT: what info and tracing both say. */
static int match_error(const char *text, char *msg, size_t sz)
{
	struct ks_error e = {};
	struct kernel *k = kernel__new(dir);
	struct spec s;
	int err;

	assert_non_null(k);
	kernel__set_kallsyms_path(k, kallsyms_path);
	kernel__set_ftrace_path(k, ftrace_path);
	assert_int_equal(spec__parse(text, SPEC_KFUNC, &s, &e), 0);
	err = targets__for_each_match(k, &s, NULL, NULL, &e);
	snprintf(msg, sz, "%s", e.msg);
	spec__free(&s);
	kernel__free(k);
	return err;
}

static void test_name_is_one_target(void **state)
{
	assert_int_equal(expand("vfs_read"), 0);
	assert_string_equal(x->names, "vfs_read fentry; ");
	assert_int_equal(x->l.glob_traced, 0);
	assert_ptr_equal(x->l.v[0].spec, &x->specs[0]);
	/* Every value of the prototype when none is named. */
	assert_int_equal(x->l.v[0].plan.nvalues[KSNOOP_ENTRY], 2);
}

/* ADDRS: the kallsyms address of each target, in the list's order. */
static void addrs_of(char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < x->l.n; i++)
		len += snprintf(buf + len, sz - len, "%llx ",
				(unsigned long long)x->l.v[i].plan.sig.addr);
}

/*
 * A name of several functions (static ones in two files of vmlinux and in
 * a module): a target each, attached as a kprobe at its address (fentry
 * attaches by name); the module's typed by vmlinux's FUNC, which dedup
 * left it.
 */
static void test_same_name_each_function(void **state)
{
	char addrs[256];

	assert_int_equal(expand("dup_show"), 0);
	assert_string_equal(x->names, "dup_show kprobe; dup_show kprobe; dummy:dup_show kprobe; ");
	addrs_of(addrs, sizeof(addrs));
	assert_string_equal(addrs, "ffffffff81005000 ffffffff81006000 ffffffffc0002000 ");
	assert_int_equal(x->l.v[2].plan.nvalues[KSNOOP_ENTRY], 2);
	assert_false(x->l.v[0].from_glob);
	/* One of them by its address; a name that is one function's stays fentry. */
	assert_int_equal(expand("dup_show@0xffffffff81006000"), 0);
	assert_string_equal(x->names, "dup_show kprobe; ");
	addrs_of(addrs, sizeof(addrs));
	assert_string_equal(addrs, "ffffffff81006000 ");
	assert_int_equal(expand("dummy:dup_show@ffffffffc0002000"), 0);
	assert_string_equal(x->names, "dummy:dup_show kprobe; ");
	assert_int_equal(expand("vfs_read@ffffffff81002000"), 0);
	assert_string_equal(x->names, "vfs_read fentry; ");
	addrs_of(addrs, sizeof(addrs));
	assert_string_equal(addrs, "0 ");
}

/* fentry alone (no kprobes): the one the kernel picks by name, the first of vmlinux. */
static void test_same_name_fentry_takes_first(void **state)
{
	struct targets_cfg c = cfg;
	const char *texts[] = { "dup_show", NULL };
	char addrs[256];

	c.glob_kind = ATTACH_FENTRY;
	assert_int_equal(expand_with(&c, texts), 0);
	assert_string_equal(x->names, "dup_show fentry; ");
	addrs_of(addrs, sizeof(addrs));
	assert_string_equal(addrs, "ffffffff81005000 ");
	/* Another one by its address cannot be had. */
	texts[0] = "dup_show@ffffffff81006000";
	assert_int_equal(expand_with(&c, texts), -EOPNOTSUPP);
	assert_int_equal(x->l.n, 0);
}

static void test_same_name_bad_address(void **state)
{
	char msg[KS_ERROR_MSG_MAX];

	assert_int_equal(expand("dup_show@ffffffff81009000"), -ENOENT);
	assert_int_equal(x->l.n, 0);
	assert_int_equal(match_error("dup_show@ffffffff81009000", msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "no function 'dup_show' at 0xffffffff81009000; kallsyms has these: 0xffffffff81005000, 0xffffffff81006000, 0xffffffffc0002000 [dummy]");
	assert_int_equal(match_error("vfs_read@1234", msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "no function 'vfs_read' at 0x1234; kallsyms has it at 0xffffffff81002000");
	assert_int_equal(match_error("dummy:vfs_read@1234", msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "no function 'vfs_read' in dummy");
}

/* What info is given for each function of a name: its instance, address and module. */
static int instances(const struct target_match *m, void *ctx)
{
	char *out = ctx;
	size_t len = strlen(out);

	snprintf(out + len, 512 - len, "%d/%d %llx %s%s; ", m->instance + 1, m->ninstances,
		 (unsigned long long)m->sig->addr, m->module ? m->module : "vmlinux",
		 m->err ? " err" : "");
	return 0;
}

/* Prototypes BTF cannot tell apart: each function says so; none can be traced. */
static void test_same_name_prototypes_differ(void **state)
{
	struct kernel *k = kernel__new(dir);
	char out[512] = "";
	struct ks_error e;
	struct spec s;

	assert_non_null(k);
	kernel__set_kallsyms_path(k, kallsyms_path);
	assert_int_equal(spec__parse("twin_show", SPEC_KFUNC, &s, &e), 0);
	assert_int_equal(targets__for_each_match(k, &s, instances, out, &e), 0);
	assert_string_equal(out, "1/2 ffffffff81007000 vmlinux err; 2/2 ffffffff81008000 vmlinux err; ");
	spec__free(&s);
	out[0] = 0;
	assert_int_equal(spec__parse("dup_show", SPEC_KFUNC, &s, &e), 0);
	assert_int_equal(targets__for_each_match(k, &s, instances, out, &e), 0);
	assert_string_equal(out, "1/3 ffffffff81005000 vmlinux; 2/3 ffffffff81006000 vmlinux; 3/3 ffffffffc0002000 dummy; ");
	spec__free(&s);
	kernel__free(k);
	assert_int_equal(expand("twin_show"), -EINVAL);
	assert_int_equal(x->l.n, 0);
}

/* A glob's match: how many functions have its name is known from ftrace's list. */
static int namesakes(const struct target_match *m, void *ctx)
{
	char *out = ctx;
	size_t len = strlen(out);

	snprintf(out + len, 512 - len, "%s %d; ", m->name, m->namesakes);
	return 0;
}

static void test_same_name_in_a_glob(void **state)
{
	struct kernel *k = kernel__new(dir);
	struct targets_cfg c = cfg;
	const char *texts[] = { "dup_sho?", NULL };
	char out[512] = "", addrs[256];
	struct ks_error e;
	struct spec s;

	assert_non_null(k);
	kernel__set_kallsyms_path(k, kallsyms_path);
	kernel__set_ftrace_path(k, ftrace_path);
	assert_int_equal(spec__parse("*_show", SPEC_KFUNC, &s, &e), 0);
	assert_int_equal(targets__for_each_match(k, &s, namesakes, out, &e), 0);
	/*
	 * twin_show's two FUNCs are one match (the lowest id, as
	 * kbtf__find_func() finds), with both its namesakes.
	 */
	assert_string_equal(out, "dup_show 3; twin_show 2; ");
	spec__free(&s);
	kernel__free(k);
	/*
	 * Traced, each is a match of its own: the kernel refuses a kprobe on
	 * a name several functions have, so one at each address, in no group
	 * (a group attaches by name), labelled NAME@ADDRESS.
	 */
	assert_int_equal(expand("dup_sho?"), 0);
	assert_string_equal(x->names, "dup_show kprobe glob; dup_show kprobe glob; dummy:dup_show kprobe glob; ");
	addrs_of(addrs, sizeof(addrs));
	assert_string_equal(addrs, "ffffffff81005000 ffffffff81006000 ffffffffc0002000 ");
	assert_int_equal(x->l.glob_traced, 3);
	for (int i = 0; i < x->l.n; i++)
		assert_false(groups__shared(&x->l, &x->l.v[i]));
	assert_string_equal(x->l.v[1].label, "dup_show@ffffffff81006000");
	/* fentry attaches by name: the one the kernel picks, the others left out. */
	c.glob_kind = ATTACH_FENTRY;
	assert_int_equal(expand_with(&c, texts), 0);
	assert_string_equal(x->names, "dup_show fentry glob; ");
	addrs_of(addrs, sizeof(addrs));
	assert_string_equal(addrs, "ffffffff81005000 ");
}

/* Sorted by name; vfs_notrace (not in ftrace's list) and vfs_kprobe_hook (denied) left out. */
static void test_glob_sorted_without_refused_and_denied(void **state)
{
	assert_int_equal(expand("vfs_*"), 0);
	assert_string_equal(x->names, "vfs_open kprobe glob; vfs_read kprobe glob; vfs_write kprobe glob; ");
	assert_int_equal(x->l.glob_traced, 3);
}

/*
 * A name twice in one BTF is one function (a probe attaches by name): one
 * target, or one match left out, not two.
 */
static int verdict(const struct target_match *m, void *ctx);

static void test_name_twice_in_btf_is_one_match(void **state)
{
	struct kernel *k;
	char out[512] = "";
	struct ks_error e;
	struct spec sp;

	assert_int_equal(expand("dup_sys_*"), 0);
	assert_string_equal(x->names, "dup_sys_ipc kprobe glob; ");
	assert_int_equal(x->l.glob_traced, 1);
	/* Left out (no skb): one match, so -v and -vv say it once. */
	k = kernel__new(dir);
	assert_non_null(k);
	kernel__set_kallsyms_path(k, kallsyms_path);
	kernel__set_ftrace_path(k, ftrace_path);
	assert_int_equal(spec__parse("dup_sys_*(struct sk_buff *s)", SPEC_KFUNC, &sp, &e), 0);
	assert_int_equal(targets__for_each_match(k, &sp, verdict, out, &e), 0);
	assert_string_equal(out, "dup_sys_ipc:; ");
	spec__free(&sp);
	kernel__free(k);
}

/* Named alone, a function globs deny attaches. */
static void test_denied_function_named_alone(void **state)
{
	assert_int_equal(expand("vfs_kprobe_hook"), 0);
	assert_string_equal(x->names, "vfs_kprobe_hook fentry; ");
}

static void test_module_glob(void **state)
{
	assert_int_equal(expand("dummy:*"), 0);
	assert_string_equal(x->names, "dummy:dummy_init kprobe glob; dummy:dummy_xmit kprobe glob; ");
	/* vmlinux: the kernel's own functions only. */
	assert_int_equal(expand("vmlinux:dummy_*"), -ENOENT);
	assert_int_equal(x->l.n, 0);
}

static void test_unknown_module(void **state)
{
	char msg[KS_ERROR_MSG_MAX], want[KS_ERROR_MSG_MAX];

	assert_int_equal(expand("nosuchmod:foo*"), -ENOENT);
	assert_int_equal(x->l.n, 0);
	assert_int_equal(match_error("nosuchmod:foo*", msg, sizeof(msg)), -ENOENT);
	/* A library's name taken for a module's: pointed to u: too. */
	snprintf(want, sizeof(want), "no module 'nosuchmod' with BTF in %s (for a tracepoint CATEGORY:NAME, write tp:CATEGORY:NAME; for a function of a program or library, u:nosuchmod:foo*)", dir);
	assert_string_equal(msg, want);
}

static void test_glob_matching_nothing(void **state)
{
	char msg[KS_ERROR_MSG_MAX];

	assert_int_equal(expand("zzz_*"), -ENOENT);
	assert_int_equal(x->l.n, 0);
	assert_int_equal(match_error("zzz_*", msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "no kernel function with BTF matches 'zzz_*'");
	assert_int_equal(match_error("vmlinux:zzz_*", msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "no kernel function with BTF matches 'zzz_*' in vmlinux");
	assert_int_equal(match_error("vfs_reed", msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "unknown kernel function 'vfs_reed' (did you mean 'vfs_read'?)");
}

/* Every function with an skb, in vmlinux and modules; the stubs are denied. */
static void test_type_selected_glob(void **state)
{
	assert_int_equal(expand("*(struct sk_buff *s, s->len)"), 0);
	assert_string_equal(x->names, "dummy:dummy_xmit kprobe glob; ip_send_skb kprobe glob; ");
	assert_int_equal(x->l.v[0].plan.nvalues[KSNOOP_ENTRY], 1);
	assert_string_equal(x->l.v[1].plan.values[KSNOOP_ENTRY][0].text, "s->len");
	/* A name with declarations is one function, and not a glob's match. */
	assert_int_equal(expand("ip_send_skb(struct sk_buff *s, s->len)"), 0);
	assert_string_equal(x->names, "ip_send_skb kprobe; ");
}

/* Every match left out: the values' reason, not the first function's. */
static void test_type_selected_glob_none_fits(void **state)
{
	assert_int_equal(expand("*(struct sk_buff *s, s->nosuch)"), -EINVAL);
	assert_int_equal(x->l.n, 0);
	assert_int_equal(expand("*(struct nosuch *s)"), -EINVAL);
	assert_int_equal(x->l.n, 0);
}

static void test_tracepoints(void **state)
{
	char msg[KS_ERROR_MSG_MAX];

	assert_int_equal(expand("tp:kfree_skb"), 0);
	assert_string_equal(x->names, "tp:kfree_skb tp; ");
	assert_false(x->l.tp_cookies);
	assert_int_equal(expand("tp:net_dev_*"), 0);
	assert_string_equal(x->names, "tp:net_dev_queue tp glob; tp:net_dev_start_xmit tp glob; ");
	assert_true(x->l.tp_cookies);
	/* Declarations select among every tracepoint. */
	assert_int_equal(expand("tp:*(struct sk_buff *s, s->len)"), 0);
	assert_string_equal(x->names, "tp:kfree_skb tp glob; tp:net_dev_queue tp glob; tp:net_dev_start_xmit tp glob; tp:nostub tp glob; tp:sched_skb_event tp glob; ");
	assert_int_equal(expand("tp:nosuch*"), -ENOENT);
	assert_int_equal(match_error("tp:nosuch*", msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "no tracepoint matches 'tp:nosuch*'");
	assert_int_equal(match_error("tp:kfree_skbb", msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "unknown tracepoint 'kfree_skbb' (did you mean 'tp:kfree_skb'?)");
}

/* Several specs: their targets in spec order, func_id the index. */
static void test_specs_in_order(void **state)
{
	const char *texts[] = { "vfs_write", "tp:kfree_skb", "dummy:dummy_x*", NULL };

	assert_int_equal(expand_with(&cfg, texts), 0);
	assert_string_equal(x->names, "vfs_write fentry; tp:kfree_skb tp; dummy:dummy_xmit kprobe glob; ");
	assert_int_equal(x->l.glob_traced, 1);
	targets__clear(&x->l);
	assert_int_equal(x->l.n, 0);
	assert_int_equal(x->l.glob_traced, 0);
}

/* What every plan takes from the options. */
static void test_plan_filters(void **state)
{
	struct targets_cfg c = cfg;
	const char *texts[] = { "vfs_read", NULL };
	const struct ksnoop_plan *bp;

	c.resolve.output = OUTPUT_COUNT;
	c.filter_pid = 42;
	c.filter_tid = 43;
	c.self_tgid = 7;
	c.comm = "kstest\0\0\0\0\0\0\0\0\0";
	assert_int_equal(expand_with(&c, texts), 0);
	bp = &x->l.v[0].plan.bpf;
	assert_int_equal(bp->output, KSNOOP_OUT_COUNT);
	assert_int_equal(bp->filter_pid, 42);
	assert_int_equal(bp->filter_tid, 43);
	assert_int_equal(bp->self_tgid, 7);
	assert_int_equal(bp->filter_comm, 1);
	assert_string_equal(bp->comm, "kstest");
}

/* What info shows: every match, with why the kernel would refuse it; denial is tracing's. */
static int verdict(const struct target_match *m, void *ctx)
{
	char *out = ctx;
	size_t len = strlen(out);

	snprintf(out + len, 512 - len, "%s:%s%s%s; ", m->name, m->refused ? " refused" : "",
		 m->denied ? " denied" : "", m->err ? " err" : "");
	return 0;
}

static void test_matches_for_info(void **state)
{
	struct kernel *k = kernel__new(dir);
	char out[512] = "";
	struct ks_error e;
	struct spec s;

	assert_non_null(k);
	kernel__set_kallsyms_path(k, kallsyms_path);
	kernel__set_ftrace_path(k, ftrace_path);
	assert_int_equal(spec__parse("vfs_*", SPEC_KFUNC, &s, &e), 0);
	assert_int_equal(targets__for_each_match(k, &s, verdict, out, &e), 0);
	assert_string_equal(out, "vfs_kprobe_hook: denied; vfs_notrace: refused; vfs_open:; vfs_read:; vfs_write:; ");
	spec__free(&s);
	kernel__free(k);
}

/* --min-duration: kernel functions have a return, tracepoints none. */
static void test_min_duration_needs_a_return(void **state)
{
	struct spec s[2];
	struct ks_error e;

	assert_int_equal(spec__parse("vfs_*", SPEC_KFUNC, &s[0], &e), 0);
	assert_int_equal(spec__parse("tp:kfree_skb", SPEC_KFUNC, &s[1], &e), 0);
	assert_int_equal(targets__check_min_duration(s, 1, 1000), 0);
	assert_int_equal(targets__check_min_duration(s, 2, 0), 0);
	assert_int_equal(targets__check_min_duration(s, 2, 1000), -EINVAL);
	spec__free(&s[0]);
	spec__free(&s[1]);
}

/* ---- grouping: which targets share one program ---- */

static struct target_groups g;

static int free_groups(void **state)
{
	groups__free(&g);
	return free_expansion(state);
}

/* The groups as "kind:i,j,k " per group. */
static const char *groups_str(char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = 0;
	for (int i = 0; i < g.n; i++) {
		len += snprintf(buf + len, sz - len, "%s%s:", i ? " " : "",
				g.v[i].kind == ATTACH_KPROBE ? "kprobe" :
				g.v[i].kind == ATTACH_TP ? "tp" : "usdt");
		for (int j = 0; j < g.v[i].n; j++)
			len += snprintf(buf + len, sz - len, "%s%d", j ? "," : "", g.v[i].idx[j]);
		assert_true(len < sz);
	}
	return buf;
}

static void test_group_glob_kprobes_share(void **state)
{
	char buf[256];

	assert_int_equal(expand("vfs_*"), 0);
	assert_int_equal(groups__build(&g, &x->l, 16), 0);
	assert_string_equal(groups_str(buf, sizeof(buf)), "kprobe:0,1,2");
	assert_int_equal(g.nfuncs, 3);
	for (int i = 0; i < x->l.n; i++)
		assert_true(groups__shared(&x->l, &x->l.v[i]));
}

/* Different values: a program each; a function named alone is in no group. */
static void test_group_by_plan(void **state)
{
	const char *texts[] = { "vfs_read", "vfs_*", "ip_send_sk*(skb->len)", NULL };
	char buf[256];

	assert_int_equal(expand_with(&cfg, texts), 0);
	assert_string_equal(x->names, "vfs_read fentry; vfs_open kprobe glob; vfs_read kprobe glob; vfs_write kprobe glob; ip_send_skb kprobe glob; ");
	assert_false(groups__shared(&x->l, &x->l.v[0]));
	assert_int_equal(groups__build(&g, &x->l, 16), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.nfuncs, 4);
	groups_str(buf, sizeof(buf));
	assert_true(!strcmp(buf, "kprobe:1,2,3 kprobe:4") || !strcmp(buf, "kprobe:4 kprobe:1,2,3"));
}

/* fentry loads a program per function: a glob's fentry targets are not grouped. */
static void test_group_not_fentry(void **state)
{
	struct targets_cfg c = cfg;
	const char *texts[] = { "vfs_*", NULL };

	c.glob_kind = ATTACH_FENTRY;
	assert_int_equal(expand_with(&c, texts), 0);
	assert_false(groups__shared(&x->l, &x->l.v[0]));
	assert_int_equal(groups__build(&g, &x->l, 16), 0);
	assert_int_equal(g.n, 0);
}

/*
 * Tracepoints share only where the kernel has raw_tp cookies, and only
 * with as many argument words (a raw_tp program may not read past them).
 */
static void test_group_tracepoints(void **state)
{
	char buf[256];

	assert_int_equal(expand("tp:*(struct sk_buff *s, s->len)"), 0);
	assert_int_equal(groups__build(&g, &x->l, 16), 0);
	/*
	 * kfree_skb and nostub take 2 words (the skb in the first, in the
	 * second), the three others 1: a program for each count, telling its
	 * tracepoints apart by cookie.
	 */
	groups_str(buf, sizeof(buf));
	assert_true(!strcmp(buf, "tp:0,3 tp:1,2,4") || !strcmp(buf, "tp:1,2,4 tp:0,3"));
	for (int i = 0; i < g.n; i++)
		assert_true(g.v[i].plan.flags & KSNOOP_PLAN_COOKIE);
	groups__free(&g);
	x->l.tp_cookies = false;
	assert_false(groups__shared(&x->l, &x->l.v[0]));
	assert_int_equal(groups__build(&g, &x->l, 16), 0);
	assert_int_equal(g.n, 0);
}

/* USDT probes of one plan: spread over programs, at most N/SPREAD (rounded up) each. */
static void test_group_usdt_spread(void **state)
{
	struct target *v = calloc(40, sizeof(*v));
	struct target_list l = { .v = v, .n = 40 };
	int i, total = 0;

	assert_non_null(v);
	assert_int_equal(expand("vfs_read"), 0);
	for (i = 0; i < 40; i++) {
		v[i] = x->l.v[0];
		v[i].kind = ATTACH_USDT;
		v[i].plan.bpf.func_id = i;
	}
	assert_int_equal(groups__build(&g, &l, 16), 0);
	assert_int_equal(g.n, 14);	/* 40 / 16 rounded up: 3 a program */
	for (i = 0; i < g.n; i++) {
		assert_int_equal(g.v[i].kind, ATTACH_USDT);
		assert_true(g.v[i].n == 3 || (i == g.n - 1 && g.v[i].n == 1));
		total += g.v[i].n;
	}
	assert_int_equal(total, 40);
	assert_int_equal(g.nfuncs, 0);
	assert_int_equal(g.v[g.n - 1].idx[0], 39);
	groups__free(&g);
	/* At most SPREAD probes: a program each. */
	l.n = 16;
	assert_int_equal(groups__build(&g, &l, 16), 0);
	free(v);
	assert_int_equal(g.n, 16);
}

/*
 * A glob's user functions share a program per file (one uprobe.multi link
 * has one path): two files' functions of one plan are two groups, each
 * of one file's; a function named alone is a program of its own.
 */
static void test_group_ufuncs_by_file(void **state)
{
	struct target *v = calloc(7, sizeof(*v));
	struct target_list l = { .v = v, .n = 7 };
	int i, k;

	assert_non_null(v);
	assert_int_equal(expand("vfs_read"), 0);
	for (i = 0; i < 7; i++) {
		v[i] = x->l.v[0];
		v[i].kind = ATTACH_UPROBE;
		v[i].from_glob = i < 6;
		v[i].ufunc.dev = 8;
		v[i].ufunc.ino = i % 2 ? 100 : 200;	/* interleaved: 0 2 4 and 1 3 5 */
		v[i].plan.bpf.func_id = i;
	}
	assert_true(groups__shared(&l, &v[0]));
	assert_false(groups__shared(&l, &v[6]));
	assert_int_equal(groups__build(&g, &l, 16), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.nfuncs, 6);
	for (i = 0; i < g.n; i++) {
		assert_int_equal(g.v[i].kind, ATTACH_UPROBE);
		assert_int_equal(g.v[i].n, 3);
		for (k = 1; k < g.v[i].n; k++)
			assert_int_equal(v[g.v[i].idx[k]].ufunc.ino, v[g.v[i].idx[0]].ufunc.ino);
	}
	free(v);
}

/*
 * A glob's system calls (sys:) share a program per plan, told apart by
 * their perf links' cookies, and per record size (a perf link refuses a
 * program reading past its event's record: as many argument words).
 * --count and --hist record no values: the values a plan lists do not
 * keep calls apart ('sys:*': 360 programs became 7).  Events do.
 */
static void test_group_syscalls(void **state)
{
	struct target *v = calloc(7, sizeof(*v));
	struct target_list l = { .v = v, .n = 7 };
	int i, k;

	assert_non_null(v);
	assert_int_equal(expand("vfs_read"), 0);
	for (i = 0; i < 7; i++) {
		v[i] = x->l.v[0];
		v[i].kind = ATTACH_SYSCALL;
		v[i].from_glob = i < 6;
		v[i].plan.bpf.func_id = i;
		v[i].plan.bpf.flags |= KSNOOP_PLAN_USER_MEM;
		v[i].plan.bpf.output = KSNOOP_OUT_COUNT;
		for (k = 0; k < KSNOOP_NR_KINDS; k++)
			v[i].plan.bpf.side[k].flags &= ~(KSNOOP_SIDE_STASH | KSNOOP_SIDE_UNSTASH |
							 KSNOOP_SIDE_RETRY);
		/* 0 1 2 of 3 words and 3 4 5 of 5, each with values of its own. */
		v[i].plan.sig.nslots = i < 3 ? 3 : 5;
		v[i].plan.bpf.side[KSNOOP_ENTRY].nvalues = 1 + i % 3;
		v[i].plan.bpf.side[KSNOOP_ENTRY].rec_size = 64 + 8 * (i % 3);
		v[i].plan.bpf.slot_mask = (1u << (1 + i % 3)) - 1;
	}
	assert_true(groups__shared(&l, &v[0]));
	assert_false(groups__shared(&l, &v[6]));
	assert_int_equal(groups__build(&g, &l, 16), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.nfuncs, 6);
	for (i = 0; i < g.n; i++) {
		assert_int_equal(g.v[i].kind, ATTACH_SYSCALL);
		assert_int_equal(g.v[i].n, 3);
		assert_true(g.v[i].plan.flags & KSNOOP_PLAN_COOKIE);
		for (k = 1; k < g.v[i].n; k++)
			assert_int_equal(v[g.v[i].idx[k]].plan.sig.nslots,
					 v[g.v[i].idx[0]].plan.sig.nslots);
	}
	groups__free(&g);
	/* Printed events: the values are the program's, a program each. */
	for (i = 0; i < 7; i++)
		v[i].plan.bpf.output = KSNOOP_OUT_EVENTS;
	assert_int_equal(groups__build(&g, &l, 16), 0);
	free(v);
	assert_int_equal(g.n, 6);
	for (i = 0; i < g.n; i++)
		assert_int_equal(g.v[i].n, 1);
}

/*
 * A sys: glob of more than sys_raw_min calls with numbers goes on
 * raw_syscalls, in one program whatever its calls' record sizes; a
 * smaller glob, a call without a number, or plans that would make more
 * than SYS_RAW_MAX_PROGRAMS programs keep their own events.
 */
static const char *const raw_names[] = {
	"read", "write", "openat", "close", "getpid", "mmap", "munmap", "brk", "ioctl",
	"pread64", "pwrite64", "readv", "writev", "dup", "dup3", "socket", "connect",
	"accept4", "newuname", "umount",
};
#define NRAW	((int)(sizeof(raw_names) / sizeof(raw_names[0])))

static void raw_targets(struct target *v, bool printed)
{
	int i, k;

	for (i = 0; i < NRAW; i++) {
		v[i] = x->l.v[0];
		v[i].kind = ATTACH_SYSCALL;
		v[i].from_glob = true;
		v[i].plan.sig.syscall = SIG_SYSCALL_PAIR;
		snprintf(v[i].plan.sig.attach, sizeof(v[i].plan.sig.attach), "%s", raw_names[i]);
		v[i].plan.bpf.func_id = i;
		v[i].plan.bpf.output = printed ? KSNOOP_OUT_EVENTS : KSNOOP_OUT_COUNT;
		for (k = 0; k < KSNOOP_NR_KINDS; k++)
			v[i].plan.bpf.side[k].flags &= ~(KSNOOP_SIDE_STASH | KSNOOP_SIDE_UNSTASH |
							 KSNOOP_SIDE_RETRY);
		if (printed)
			v[i].plan.bpf.side[KSNOOP_ENTRY].flags |= KSNOOP_SIDE_STASH;
		v[i].plan.sig.nslots = 2 + i % 7;
		v[i].plan.bpf.side[KSNOOP_ENTRY].nvalues = 1 + i % 7;
		v[i].plan.bpf.side[KSNOOP_ENTRY].rec_size = 64 + 8 * (i % 7);
		v[i].plan.bpf.slot_mask = ((1u << (1 + i % 7)) - 1) << 2;
	}
}

static void test_group_raw_syscalls(void **state)
{
	struct target *v = calloc(NRAW, sizeof(*v));
	struct target_list l = { .v = v, .n = NRAW, .raw_syscalls = true, .sys_raw_min = 16 };
	int i;

	assert_non_null(v);
	assert_int_equal(expand("vfs_read"), 0);
	raw_targets(v, false);
	/* Counted: one program on raw_syscalls for all, 2 to 8 words alike. */
	assert_int_equal(groups__build(&g, &l, 16), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.v[0].kind, ATTACH_SYSCALL_RAW);
	assert_int_equal(g.v[0].n, NRAW);
	assert_int_equal(g.nraw, NRAW);
	assert_int_equal(g.nsys_own, 0);
	groups__free(&g);
	/* A glob of sys_raw_min calls or fewer: their own events, by record size. */
	l.sys_raw_min = NRAW;
	assert_int_equal(groups__build(&g, &l, 16), 0);
	assert_int_equal(g.n, 7);
	for (i = 0; i < g.n; i++)
		assert_int_equal(g.v[i].kind, ATTACH_SYSCALL);
	assert_int_equal(g.nraw, 0);
	assert_int_equal(g.nsys_own, NRAW);
	groups__free(&g);
	/* A call without a number keeps its events; the others are still enough. */
	l.sys_raw_min = 16;
	snprintf(v[3].plan.sig.attach, sizeof(v[3].plan.sig.attach), "no_such_call");
	assert_int_equal(groups__build(&g, &l, 16), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.nraw, NRAW - 1);
	assert_int_equal(g.nsys_own, 1);
	for (i = 0; i < g.n; i++)
		assert_int_equal(g.v[i].kind, g.v[i].n == 1 ? ATTACH_SYSCALL : ATTACH_SYSCALL_RAW);
	groups__free(&g);
	/* Without the tracepoints, nothing changes. */
	l.raw_syscalls = false;
	assert_int_equal(groups__build(&g, &l, 16), 0);
	assert_int_equal(g.nraw, 0);
	for (i = 0; i < g.n; i++)
		assert_int_equal(g.v[i].kind, ATTACH_SYSCALL);
	groups__free(&g);
	/*
	 * Printed, values kept for the return: one program whatever each
	 * call's values, read as its func_values say; their entry values
	 * at the same offsets on both sides (the return copies the entry
	 * record) however wide a return value at the same index, and each a
	 * user read to retry where one of them is...
	 */
	l.raw_syscalls = true;
	raw_targets(v, true);
	for (i = 0; i < NRAW; i++) {
		struct ksnoop_side_plan *e = &v[i].plan.bpf.side[KSNOOP_ENTRY];
		struct ksnoop_side_plan *x = &v[i].plan.bpf.side[KSNOOP_RETURN];
		int k;

		v[i].plan.bpf.flags |= KSNOOP_PLAN_USER_MEM;
		x->flags |= KSNOOP_SIDE_UNSTASH;
		x->nvalues = e->nvalues + 1;
		x->nstashed = e->nvalues;
		for (k = 0; k < e->nvalues; k++) {
			e->values[k].acc.size = k == 1 && i % 3 == 0 ? 256 : 8;
			x->values[k].acc.size = e->values[k].acc.size;
		}
		/* a return value wider than others' entry value at its index */
		x->values[e->nvalues].acc.size = i == 4 ? 64 : 8;
		if (i == 5) {
			e->flags |= KSNOOP_SIDE_RETRY;
			x->flags |= KSNOOP_SIDE_RETRY;
		}
	}
	assert_int_equal(groups__build(&g, &l, 16), 0);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.nraw, NRAW);
	assert_int_equal(g.v[0].kind, ATTACH_SYSCALL_RAW);
	assert_true(g.v[0].plan.flags & KSNOOP_PLAN_FUNC_VALUES);
	assert_true(g.v[0].plan.side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_RETRY);
	{
		const struct ksnoop_side_plan *e = &g.v[0].plan.side[KSNOOP_ENTRY];
		const struct ksnoop_side_plan *x = &g.v[0].plan.side[KSNOOP_RETURN];
		struct ksnoop_func_values fv;

		assert_int_equal(e->nvalues, 7);
		assert_int_equal(x->nvalues, 8);
		assert_int_equal(x->stash_size, e->rec_size);
		for (i = 0; i < e->nvalues; i++) {
			assert_int_equal(x->values[i].rec_off, e->values[i].rec_off);
			assert_int_equal(x->values[i].acc.size, e->values[i].acc.size);
		}
		assert_int_equal(x->values[1].acc.size, 256);
		assert_int_equal(e->values[5].acc.size, 64);
		resolver__func_values(&v[2].plan, &fv);
		assert_int_equal(fv.nstashed, 3);
		assert_int_equal(v[2].plan.bpf.side[KSNOOP_RETURN].values[3].rec_off, x->values[3].rec_off);
	}
	groups__free(&g);
	/* ... unless their predicates differ: past the limit, their own events, said. */
	for (i = 0; i < NRAW; i++)
		v[i].plan.bpf.side[KSNOOP_ENTRY].npreds = i % (SYS_RAW_MAX_PROGRAMS + 1);
	assert_int_equal(groups__build(&g, &l, 16), 0);
	free(v);
	assert_int_equal(g.nraw, 0);
	assert_int_equal(g.nsys_plans, NRAW);
	for (i = 0; i < g.n; i++)
		assert_int_equal(g.v[i].kind, ATTACH_SYSCALL);
}

/* Numbers by event name: the headers', renamed events', and none. */
static void test_sysnr(void **state)
{
	assert_int_equal(sysnr__of("openat"), __NR_openat);
	assert_int_equal(sysnr__of("getpid"), __NR_getpid);
	assert_int_equal(sysnr__of("newuname"), __NR_uname);
	assert_int_equal(sysnr__of("umount"), __NR_umount2);
	assert_int_equal(sysnr__of("newfstat"), __NR_fstat);
	assert_int_equal(sysnr__of("sendfile64"), __NR_sendfile);
	assert_int_equal(sysnr__of("mseal"), 462);
	assert_int_equal(sysnr__of("no_such_call"), -1);
	assert_int_equal(sysnr__of(""), -1);
	assert_int_equal(sysnr__of("syscalls"), -1);
}

int main(void)
{
	const struct CMUnitTest expand_tests[] = {
		cmocka_unit_test_teardown(test_name_is_one_target, free_expansion),
		cmocka_unit_test_teardown(test_glob_sorted_without_refused_and_denied, free_expansion),
		cmocka_unit_test_teardown(test_denied_function_named_alone, free_expansion),
		cmocka_unit_test_teardown(test_name_twice_in_btf_is_one_match, free_expansion),
		cmocka_unit_test_teardown(test_same_name_each_function, free_expansion),
		cmocka_unit_test_teardown(test_same_name_fentry_takes_first, free_expansion),
		cmocka_unit_test_teardown(test_same_name_bad_address, free_expansion),
		cmocka_unit_test_teardown(test_same_name_prototypes_differ, free_expansion),
		cmocka_unit_test_teardown(test_same_name_in_a_glob, free_expansion),
		cmocka_unit_test_teardown(test_module_glob, free_expansion),
		cmocka_unit_test_teardown(test_unknown_module, free_expansion),
		cmocka_unit_test_teardown(test_glob_matching_nothing, free_expansion),
		cmocka_unit_test_teardown(test_type_selected_glob, free_expansion),
		cmocka_unit_test_teardown(test_type_selected_glob_none_fits, free_expansion),
		cmocka_unit_test_teardown(test_tracepoints, free_expansion),
		cmocka_unit_test_teardown(test_specs_in_order, free_expansion),
		cmocka_unit_test_teardown(test_plan_filters, free_expansion),
		cmocka_unit_test(test_matches_for_info),
		cmocka_unit_test(test_min_duration_needs_a_return),
	};
	const struct CMUnitTest group_tests[] = {
		cmocka_unit_test_teardown(test_group_glob_kprobes_share, free_groups),
		cmocka_unit_test_teardown(test_group_by_plan, free_groups),
		cmocka_unit_test_teardown(test_group_ufuncs_by_file, free_groups),
		cmocka_unit_test_teardown(test_group_syscalls, free_groups),
		cmocka_unit_test_teardown(test_group_raw_syscalls, free_groups),
		cmocka_unit_test(test_sysnr),
		cmocka_unit_test_teardown(test_group_not_fentry, free_groups),
		cmocka_unit_test_teardown(test_group_tracepoints, free_groups),
		cmocka_unit_test_teardown(test_group_usdt_spread, free_groups),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("expand", expand_tests, make_kernel_dir, remove_kernel_dir);
	failed += cmocka_run_group_tests_name("group", group_tests, make_kernel_dir, remove_kernel_dir);
	return failed;
}
