// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <unistd.h>
#include <sys/mount.h>
#include <bpf/btf.h>
#include "kbtf.h"
#include "klookup.h"
#include "ksyms.h"
#include "suggest.h"
#include "btf_util.h"
#include "log.h"
#include "syscall.h"
#include "kernel.h"

struct kernel {
	const char *btf_dir;		/* default /sys/kernel/btf */
	const char *kallsyms_path;	/* default /proc/kallsyms */
	const char *ftrace_path;	/* default tracefs's available_filter_functions */
	struct kbtf *kbtf;
	struct ksyms *ksyms;
	/* Read before attaching; kept, since signatures name their modules from it. */
	struct ksyms *old_ksyms;
	int ksyms_err;			/* kallsyms could not be read: not again */
	struct ksyms *data_ksyms;	/* data symbols, for ':sym' only */
	int data_ksyms_err;
	/*
	 * kernel__prefetch_ksyms(): the thread filling ksyms (or ksyms_err),
	 * or for a glob ftrace's list (and kallsyms only if that is unreadable)
	 */
	bool ksyms_reading;
	bool prefetch_ftrace;
	pthread_t ksyms_thread;
	/* ... or, for functions named one by one, the kernel's own lookup */
	struct klookup *klookup;
	bool klookup_tried;
	/* Modules' names kallsyms' text gave (func_instance.module points here). */
	char **modnames;
	size_t nmodnames;
	int text_scans;		/* names searched for in kallsyms' text so far */
	/*
	 * The functions the specs name one by one (kernel__want_instances()),
	 * searched for all at once in kallsyms' text at the first ask: name
	 * I's first instances at want_found[I * KERNEL_MAX_INSTANCES...],
	 * want_counts[I] of them (want_found: NULL until that search ends).
	 */
	char **want;
	int nwant;
	bool want_many;		/* more than KERNEL_MAX_WANT: the table instead */
	struct ksym_found *want_found;
	int *want_counts;
	/*
	 * ftrace's available_filter_functions, sorted; read for globs only.
	 * Where it can be read it alone decides what a glob can trace: every
	 * function in it is in kallsyms (ftrace names its call sites from
	 * there), so all of kallsyms is not read and sorted.
	 */
	char **ftrace;
	size_t nftrace;
	int ftrace_state;		/* 0: not read, 1: read, -1: unreadable */
};

struct kernel *kernel__new(const char *btf_dir)
{
	struct kernel *k = calloc(1, sizeof(*k));

	if (k)
		k->btf_dir = btf_dir;
	return k;
}

void kernel__set_kallsyms_path(struct kernel *k, const char *path)
{
	k->kallsyms_path = path;
}

void kernel__set_ftrace_path(struct kernel *k, const char *path)
{
	k->ftrace_path = path;
}

bool kernel__by_name(const struct kernel *k)
{
	return k->klookup != NULL;
}

int kernel__open(struct kernel *k, struct ks_error *e)
{
	int err;

	if (!k->kbtf) {
		k->kbtf = kbtf__open(k->btf_dir);
		if (!k->kbtf) {
			err = -errno;
			/* The kernel's BTF, not the user's to fix: a runtime errno. */
			return ks_fail(e, ks_runtime_errno(err),
				       "cannot read kernel BTF from %s/vmlinux: %s (the kernel needs CONFIG_DEBUG_INFO_BTF)",
				       k->btf_dir ? k->btf_dir : "/sys/kernel/btf", strerror(-err));
		}
	}
	return 0;
}

const struct btf *kernel__running_vmlinux(struct kernel *k)
{
	return k->kbtf && !k->btf_dir ? kbtf__vmlinux(k->kbtf) : NULL;
}

const struct btf *kernel__vmlinux(struct kernel *k)
{
	return k->kbtf ? kbtf__vmlinux(k->kbtf) : NULL;
}

static void read_ftrace(struct kernel *k);

/*
 * The thread fills K's ksyms (or ksyms_err), or first (for a glob) its
 * ftrace list, itself: nothing reads them before take_prefetched() has
 * joined it.
 */
static void *read_ksyms(void *arg)
{
	struct kernel *k = arg;

	if (k->prefetch_ftrace) {
		read_ftrace(k);
		if (k->ftrace_state > 0)
			return NULL;
	}
	k->ksyms = ksyms__load(k->kallsyms_path);
	k->ksyms_err = k->ksyms ? 0 : -errno;
	return NULL;
}

void kernel__prefetch_ksyms(struct kernel *k, bool glob)
{
	/* Reading first: while it is, the thread owns ksyms and the ftrace list. */
	if (k->ksyms_reading || k->ksyms || k->ksyms_err)
		return;
	if (!glob && !k->klookup_tried) {
		k->klookup_tried = true;
		k->klookup = klookup__open();
	}
	k->prefetch_ftrace = glob && !k->ftrace_state;
	if (glob || !k->klookup)
		k->ksyms_reading = pthread_create(&k->ksyms_thread, NULL, read_ksyms, k) == 0;
}

int kernel__symbol_addr(struct kernel *k, const char *name, __u64 *addr)
{
	struct ksym_found f;

	if (!k->klookup_tried) {
		k->klookup_tried = true;
		k->klookup = klookup__open();
	}
	if (k->klookup && klookup__find(k->klookup, name, addr) == 0 && *addr)
		return 0;
	if (ksyms__scan_name_types(k->kallsyms_path, name, "dDbBrRtTA", &f, 1) < 1 || !f.addr)
		return -ENOENT;
	*addr = f.addr;
	return 0;
}

/* Wait for the thread kernel__prefetch_ksyms() started, if any: then its table is K's. */
static void take_prefetched(struct kernel *k)
{
	if (!k->ksyms_reading)
		return;
	pthread_join(k->ksyms_thread, NULL);
	k->ksyms_reading = false;
}

/* kallsyms only for kernel functions: tracepoints start faster without it. */
static int kernel__open_ksyms(struct kernel *k, struct ks_error *e)
{
	int err = 0;

	take_prefetched(k);
	if (k->ksyms)
		return 0;
	/* Asked per printed function pointer too: one failed read is enough. */
	if (k->ksyms_err)
		err = k->ksyms_err;
	else if (!(k->ksyms = ksyms__load(k->kallsyms_path)))
		err = k->ksyms_err = -errno;
	if (err)
		return ks_fail(e, ks_runtime_errno(err), "cannot read %s: %s",
			       k->kallsyms_path ? k->kallsyms_path : "/proc/kallsyms",
			       strerror(-err));
	return 0;
}

/* A module's name as a frame shows it: the kernel's are under 56; a recording's are anyone's. */
#define SYM_MAX_MODULE	64

/*
 * "name+0xoff [module]" into BUF.  A name too long for BUF (a recording's
 * kallsyms may hold one of any length) is cut and ends in "...", so that
 * the offset and module always show.
 */
static void sym_name(const struct ksym *sym, unsigned long long off, char *buf, size_t sz)
{
	char tail[SYM_MAX_MODULE + 32];
	size_t name_len = strlen(sym->name), tail_len;

	tail_len = snprintf(tail, sizeof(tail), "%s%.0llx%s%.*s%s", off ? "+0x" : "", off,
			    sym->module ? " [" : "", SYM_MAX_MODULE,
			    sym->module ? sym->module : "", sym->module ? "]" : "");
	if (name_len + tail_len < sz || sz < tail_len + 8)
		snprintf(buf, sz, "%s%s", sym->name, tail);
	else
		snprintf(buf, sz, "%.*s...%s", (int)(sz - tail_len - 4), sym->name, tail);
}

int kernel__symbolize(struct kernel *k, __u64 addr, char *buf, size_t sz)
{
	const struct ksym *sym;
	unsigned long long off;

	if (kernel__open_ksyms(k, NULL))
		return -ENOENT;
	sym = ksyms__by_addr(k->ksyms, addr, &off);
	if (!sym)
		return -ENOENT;
	sym_name(sym, off, buf, sz);
	return 0;
}

/*
 * Text and data lie apart: whichever symbol is nearer below ADDR holds it
 * (the last function before .data is up to KSYMS_MAX_OFFSET away too).
 */
int kernel__symbolize_any(struct kernel *k, __u64 addr, char *buf, size_t sz)
{
	const struct ksym *text = NULL, *data = NULL;
	unsigned long long toff = 0, doff = 0;

	if (!kernel__open_ksyms(k, NULL))
		text = ksyms__by_addr(k->ksyms, addr, &toff);
	if (!k->data_ksyms && !k->data_ksyms_err &&
	    !(k->data_ksyms = ksyms__load_data(k->kallsyms_path)))
		k->data_ksyms_err = -errno;
	if (k->data_ksyms)
		data = ksyms__by_addr(k->data_ksyms, addr, &doff);
	if (data && (!text || doff < toff))
		sym_name(data, doff, buf, sz);
	else if (text)
		sym_name(text, toff, buf, sz);
	else
		return -ENOENT;
	return 0;
}

void kernel__reread_ksyms(struct kernel *k)
{
	take_prefetched(k);
	if (!k->ksyms)
		return;
	ksyms__free(k->old_ksyms);
	k->old_ksyms = k->ksyms;
	k->ksyms = NULL;
}

void kernel__free(struct kernel *k)
{
	size_t i;

	if (!k)
		return;
	/* The thread may be filling the ftrace list still. */
	take_prefetched(k);
	for (i = 0; i < k->nftrace; i++)
		free(k->ftrace[i]);
	free(k->ftrace);
	klookup__close(k->klookup);
	for (i = 0; i < k->nmodnames; i++)
		free(k->modnames[i]);
	free(k->modnames);
	for (i = 0; i < (size_t)k->nwant; i++)
		free(k->want[i]);
	free(k->want);
	free(k->want_found);
	free(k->want_counts);
	kbtf__free(k->kbtf);
	ksyms__free(k->ksyms);
	ksyms__free(k->old_ksyms);
	ksyms__free(k->data_ksyms);
	free(k);
}

/* Suggest among functions that have BTF: those are the ones we can trace. */
static void suggest_funcs(struct btf *btf, const char *module, void *ctx)
{
	struct suggest *s = ctx;
	__u32 id, n = btf__type_cnt(btf);
	__u32 start = btf__base_btf(btf) ? btf__type_cnt(btf__base_btf(btf)) : 1;

	(void)module;
	for (id = start; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_func(t))
			suggest__consider(s, btfu_name(btf, t->name_off));
	}
}

/*
 * Whether NAME is a kernel symbol (1) or not (0), and the module that owns
 * it in *MODULE (NULL: vmlinux); a negative errno with E.  The kernel's own
 * lookup answers when it is exact (a symbol in vmlinux's text, or none at
 * all); a module's symbol, or no lookup, takes kallsyms.
 */
static int kernel__find_sym(struct kernel *k, const char *name, const char **module,
			    struct ks_error *e)
{
	const struct ksym *sym;
	__u64 addr;
	int err;

	*module = NULL;
	if (k->klookup && !k->ksyms && !k->ksyms_reading) {
		err = klookup__find(k->klookup, name, &addr);
		if (err == -ENOENT)
			return 0;
		if (!err && klookup__in_vmlinux_text(k->klookup, addr))
			return 1;
	}
	err = kernel__open_ksyms(k, e);
	if (err)
		return err;
	sym = ksyms__find(k->ksyms, name);
	if (sym)
		*module = sym->module;
	return sym != NULL;
}

int kernel__func(struct kernel *k, const char *name, struct signature *sig,
		 struct ks_error *e)
{
	const char *sym_module, *module;
	struct btf *btf;
	bool is_sym;
	__u32 id;
	int err;

	err = kernel__open(k, e);
	if (!err)
		err = kernel__find_sym(k, name, &sym_module, e);
	if (err < 0)
		return err;
	is_sym = err;
	err = kbtf__find_func(k->kbtf, name, sym_module, !is_sym, &btf, &id, &module);
	if (err) {
		struct suggest s;

		if (is_sym)
			return ks_fail(e, -ENOENT,
				       "'%s'%s%s%s has no BTF type information, so its arguments are unknown",
				       name, sym_module ? " (module " : "",
				       sym_module ? sym_module : "", sym_module ? ")" : "");
		suggest__init(&s, name);
		kbtf__for_each(k->kbtf, suggest_funcs, &s);
		if (suggest__best(&s))
			return ks_fail(e, -ENOENT, "unknown kernel function '%s' (did you mean '%s'?)",
				       name, suggest__best(&s));
		return ks_fail(e, -ENOENT, "unknown kernel function '%s'", name);
	}
	err = signature__from_func(btf, id, sig, e);
	sig->module = module;
	sig->user_tags = kbtf__user_tags(k->kbtf);
	/* signature__from_func wrote "takes ...": prefix the name. */
	if (err)
		return ks_prefix(e, "'%s' ", name);
	if (!is_sym)
		return ks_fail(e, -EINVAL,
			       "'%s' is in BTF but not in kallsyms (inlined or removed at build time), so it cannot be traced",
			       name);
	return 0;
}

/* Is SYM MODULE's ("vmlinux": the kernel's own; NULL: anyone's)? */
static bool sym_in_module(const struct ksym *sym, const char *module)
{
	if (!module)
		return true;
	if (strcmp(module, "vmlinux") == 0)
		return !sym->module;
	return sym->module && strcmp(sym->module, module) == 0;
}

/*
 * Each search of kallsyms' text costs the kernel's walk of every symbol
 * (~20 ms); reading the table costs about two: after this many names, the
 * table is read.
 */
#define KERNEL_TEXT_SCANS	2

/* MODULE's name kept as long as K (instances outlive the lookup); NULL for "" or no memory. */
static const char *keep_module_name(struct kernel *k, const char *module)
{
	char **v;
	size_t i;

	if (!*module)
		return NULL;
	for (i = 0; i < k->nmodnames; i++)
		if (strcmp(k->modnames[i], module) == 0)
			return k->modnames[i];
	v = realloc(k->modnames, (k->nmodnames + 1) * sizeof(*v));
	if (!v)
		return NULL;
	k->modnames = v;
	v[k->nmodnames] = strdup(module);
	return v[k->nmodnames] ? v[k->nmodnames++] : NULL;
}

/* FOUND[0..N), what kallsyms' text gave for one name, as instances in MODULE's (NULL: anyone's). */
static int found_instances(struct kernel *k, const struct ksym_found *found, int n,
			   const char *module, struct func_instance *out, int max)
{
	int i, count = 0;

	for (i = 0; i < n && i < KERNEL_MAX_INSTANCES; i++) {
		struct ksym sym = { NULL, keep_module_name(k, found[i].module), found[i].addr };

		if (found[i].module[0] && !sym.module)
			return -ENOMEM;
		if (!sym_in_module(&sym, module))
			continue;
		if (count < max)
			out[count] = (struct func_instance){ sym.module, sym.addr };
		count++;
	}
	return count;
}

/*
 * Functions (t, T, w, W) of NAMES in one walk of kallsyms: the kernel's
 * iterator where klookup has it (and kallsyms is the running kernel's),
 * else its text.  ksyms__scan_names()'s contract.
 */
static int scan_functions(struct kernel *k, const char *const *names, int n,
			  struct ksym_found *found, int max, int *counts)
{
	bool iter = !k->kallsyms_path && k->klookup;
	int err = -EOPNOTSUPP;

	if (iter)
		err = klookup__scan(k->klookup, k->kbtf ? kbtf__vmlinux(k->kbtf) : NULL, names, n,
				    "tTwW", found, max, counts);
	if (err == -EOPNOTSUPP) {
		if (iter)
			log_info("kallsyms: %d name(s) searched for in /proc/kallsyms' text, not by the iterator",
				 n);
		err = ksyms__scan_names(k->kallsyms_path, names, n, "tTwW", found, max, counts);
	}
	return err;
}

/*
 * kernel__func_instances() for a function named alone, whose symbol the
 * kernel gave by name: kallsyms searched for the name (scan_functions()),
 * not read into a table.  The count, or a negative errno.
 */
static int instances_in_text(struct kernel *k, const char *name, const char *module,
			     struct func_instance *out, int max)
{
	static struct ksym_found found[KERNEL_MAX_INSTANCES];
	int n, err = scan_functions(k, &name, 1, found, KERNEL_MAX_INSTANCES, &n);

	return err ? err : found_instances(k, found, n, module, out, max);
}

/*
 * The most names searched for together: the kernel's iterator takes 64
 * (klookup.c), the text's one pass any number, each line's name looked up
 * among them (`info` of 1,000 functions: one walk, no table read and
 * sorted).  Told more, the table is read instead.
 */
#define KERNEL_MAX_WANT		1024

void kernel__want_instances(struct kernel *k, const char *name)
{
	char **v;
	int i;

	if (k->want_found || !*name)
		return;
	/* More names than one search takes: the table, one walk for them all. */
	if (k->nwant >= KERNEL_MAX_WANT) {
		k->want_many = true;
		return;
	}
	for (i = 0; i < k->nwant; i++)
		if (strcmp(k->want[i], name) == 0)
			return;
	v = realloc(k->want, (k->nwant + 1) * sizeof(*v));
	if (!v)
		return;
	k->want = v;
	if ((v[k->nwant] = strdup(name)))
		k->nwant++;
}

/*
 * kernel__func_instances() for a name kernel__want_instances() was told:
 * all those names searched for in one read of kallsyms' text (each read
 * costs the kernel's walk of every symbol: 0.56 s in a TCG guest), the
 * first time one is asked.  The count; -ENOENT when NAME was not told
 * (or the search could not be made: the caller reads the table).
 */
static int wanted_instances(struct kernel *k, const char *name, const char *module,
			    struct func_instance *out, int max)
{
	struct ksym_found *found;
	int i, err, *counts;

	for (i = 0; i < k->nwant && strcmp(k->want[i], name); i++)
		;
	if (i == k->nwant || k->nwant < 2)
		return -ENOENT;
	if (!k->want_found) {
		found = calloc((size_t)k->nwant * KERNEL_MAX_INSTANCES, sizeof(*found));
		counts = calloc(k->nwant, sizeof(*counts));
		err = found && counts ? scan_functions(k, (const char *const *)k->want, k->nwant,
						       found, KERNEL_MAX_INSTANCES, counts) : -ENOMEM;
		if (err) {
			free(found);
			free(counts);
			return err;
		}
		k->want_found = found;
		k->want_counts = counts;
		k->text_scans++;
	}
	return found_instances(k, k->want_found + (size_t)i * KERNEL_MAX_INSTANCES,
			       k->want_counts[i], module, out, max);
}

int kernel__func_instances(struct kernel *k, const char *name, const char *module,
			   struct func_instance *out, int max, struct ks_error *e)
{
	const struct ksym *syms[KERNEL_MAX_INSTANCES];
	size_t n, i;
	int err, count = 0;

	if (!k->ksyms && !k->ksyms_reading && !k->ksyms_err && !k->want_many) {
		/* The specs' names at once; a few others one by one; for more, the table. */
		err = wanted_instances(k, name, module, out, max);
		if (err == -ENOENT && ++k->text_scans <= KERNEL_TEXT_SCANS)
			err = instances_in_text(k, name, module, out, max);
		if (err >= 0 || err == -ENOMEM)
			return err == -ENOMEM ? ks_fail(e, err, "out of memory") : err;
	}
	err = kernel__open_ksyms(k, e);
	if (err)
		return err;
	n = ksyms__find_all(k->ksyms, name, syms, KERNEL_MAX_INSTANCES);
	for (i = 0; i < n && i < KERNEL_MAX_INSTANCES; i++) {
		if (!sym_in_module(syms[i], module))
			continue;
		if (count < max)
			out[count] = (struct func_instance){ syms[i]->module, syms[i]->addr };
		count++;
	}
	return count;
}

int kernel__instance_sig(struct kernel *k, const struct func_instance *in,
			 struct signature *sig, struct ks_error *e)
{
	char name[sizeof(sig->attach)];
	const char *owner;
	struct btf *btf;
	__u32 id;
	int n, err;

	/* The BTF name: sig->name may be shown otherwise. */
	snprintf(name, sizeof(name), "%s", sig->attach);
	/* A module's own FUNC, or vmlinux's where dedup left the module none. */
	if (kbtf__find_func(k->kbtf, name, in->module, 0, &btf, &id, &owner))
		return ks_fail(e, -ENOENT, "'%s'%s%s%s has no BTF type information, so its arguments are unknown",
			       name, in->module ? " (module " : "", in->module ? in->module : "",
			       in->module ? ")" : "");
	if (btf != sig->btf || id != sig->func_id) {
		err = signature__from_func(btf, id, sig, e);
		sig->user_tags = kbtf__user_tags(k->kbtf);
		if (err)
			return ks_prefix(e, "'%s' ", name);
	}
	sig->module = in->module;
	sig->addr = in->addr;
	n = kbtf__func_protos(k->kbtf, btf, name);
	if (n < 0)
		return ks_fail(e, -ENOMEM, "out of memory");
	if (n > 1)
		return ks_fail(e, -EINVAL, "%s BTF has several prototypes for '%s' and does not say which is this one's",
			       owner ? owner : "vmlinux", name);
	return 0;
}

static const char *tp_base_name(const char *name)
{
	const char *colon = strrchr(name, ':');

	return colon ? colon + 1 : name;
}

/*
 * A tracepoint's category (its TRACE_SYSTEM: "sched" in sched:sched_switch)
 * is not in BTF; tracefs has it, as events/CATEGORY/NAME.  Tracepoints
 * without a trace event (DECLARE_TRACE alone) have none.
 */
static const char *tp_events_dir_mounted(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing/events",
		"/sys/kernel/debug/tracing/events",
	};

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (access(dirs[i], X_OK) == 0)
			return dirs[i];
	return NULL;
}

/*
 * Where tracefs is not mounted, mount it for ksnoop alone: in a mount
 * namespace of its own (this thread's, which reads tracefs and attaches),
 * made private first so that the system's mounts stay as they are.  Tried
 * once; NULL when it cannot be (no CAP_SYS_ADMIN, no tracefs).
 */
static const char *tp_events_dir(void)
{
	static bool tried;
	const char *dir = tp_events_dir_mounted();

	if (dir || tried)
		return dir;
	tried = true;
	if (unshare(CLONE_NEWNS)) {
		log_info("tracefs: cannot make a mount namespace: %s", strerror(errno));
		return NULL;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	    mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		log_info("tracefs: cannot mount it: %s", strerror(errno));
		return NULL;
	}
	log_info("tracefs: mounted on /sys/kernel/tracing for ksnoop alone");
	return tp_events_dir_mounted();
}

const char *kernel__events_dir(void)
{
	return tp_events_dir();
}

#define TRACEFS_HOWTO "mount -t tracefs tracefs /sys/kernel/tracing"

/* Room for a syscall event's format file (a few hundred bytes). */
#define SYSCALL_FORMAT_MAX 8192

/* DIR/syscalls/EVENT/format into BUF: 0, or -errno. */
static int read_syscall_format(const char *dir, const char *event, char *buf, size_t sz)
{
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	if (strlen(event) > SPEC_MAX_NAME)
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/syscalls/%s/format", dir, event);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fread(buf, 1, sz - 1, f);
	buf[n] = 0;
	fclose(f);
	return n ? 0 : -EIO;
}

/*
 * A syscall event names: "sys_enter_NAME" or "sys_exit_NAME" (EVENT true),
 * or a syscall for sys:NAME; SHOWN as the spec wrote it.  Its signature
 * from the format files, or -ENOENT with E (the closest syscall named).
 */
static int syscall_sig(struct kernel *k, const char *name, bool event, const char *shown,
		       struct signature *sig, struct ks_error *e)
{
	static char enter[SYSCALL_FORMAT_MAX], exit_[SYSCALL_FORMAT_MAX];
	const char *dir = tp_events_dir(), *call = name;
	char ev[SPEC_MAX_NAME + 16], sdir[PATH_MAX];
	struct dirent *de;
	struct suggest s;
	bool is_exit = false;
	DIR *d;
	int err;

	if (!dir)
		return ks_fail(e, -EOPNOTSUPP, "system calls are described in tracefs, which is not mounted and cannot be mounted here (%s)",
			       TRACEFS_HOWTO);
	if (event) {
		is_exit = !strncmp(name, "sys_exit_", 9);
		call = name + (is_exit ? 9 : 10);
	}
	snprintf(ev, sizeof(ev), "sys_enter_%s", call);
	err = read_syscall_format(dir, ev, enter, sizeof(enter));
	if (!err) {
		snprintf(ev, sizeof(ev), "sys_exit_%s", call);
		err = read_syscall_format(dir, ev, exit_, sizeof(exit_));
	}
	if (!err) {
		err = signature__from_syscall(kbtf__vmlinux(k->kbtf), shown, event ? name : call,
					      !event || !is_exit ? enter : NULL,
					      !event || is_exit ? exit_ : NULL, sig, e);
		return err == -EINVAL ? ks_fail(e, -EINVAL, "cannot trace %s: %s", shown, ks_message(e)) : err;
	}
	suggest__init(&s, call);
	snprintf(sdir, sizeof(sdir), "%s/syscalls", dir);
	d = opendir(sdir);
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "sys_enter_", 10))
			suggest__consider(&s, de->d_name + 10);
	if (d)
		closedir(d);
	if (suggest__best(&s))
		return ks_fail(e, -ENOENT, "unknown system call '%s' (did you mean '%s%s%s'?)", call,
			       event ? "tp:syscalls:" : "sys:",
			       event ? (is_exit ? "sys_exit_" : "sys_enter_") : "", suggest__best(&s));
	return ks_fail(e, -ENOENT, "unknown system call '%s'", call);
}

/* NAME ("sys_enter_openat", "syscalls:sys_exit_*") a syscall event's? */
static bool is_syscall_event(const char *name)
{
	const char *base = strrchr(name, ':');

	if (base && (base - name != 8 || strncmp(name, "syscalls", 8)))
		return false;
	base = base ? base + 1 : name;
	return !strncmp(base, "sys_enter_", 10) || !strncmp(base, "sys_exit_", 9);
}

static int cmp_str(const void *a, const void *b);

/*
 * FN for each syscall event (EVENTS) or syscall (sys:) whose name matches
 * the glob PATTERN, in name order; *COUNT of them.
 */
static int syscall_glob(struct kernel *k, const char *pattern, bool events,
			int (*fn)(const struct signature *sig, void *ctx), void *ctx,
			int *count, struct ks_error *e)
{
	const char *dir = tp_events_dir();
	char sdir[PATH_MAX], shown[SPEC_MAX_NAME + 32], **names = NULL;
	struct signature sig;
	struct dirent *de;
	size_t n = 0, cap = 0, i;
	int err = 0;
	DIR *d;

	*count = 0;
	if (!dir)
		return ks_fail(e, -EOPNOTSUPP, "system calls are described in tracefs, which is not mounted and cannot be mounted here (%s)",
			       TRACEFS_HOWTO);
	snprintf(sdir, sizeof(sdir), "%s/syscalls", dir);
	d = opendir(sdir);
	if (!d)
		return ks_fail(e, -errno, "cannot read %s: %s", sdir, strerror(errno));
	while ((de = readdir(d))) {
		const char *name = de->d_name;

		if (!events && strncmp(name, "sys_enter_", 10))
			continue;
		if (!events)
			name += 10;
		else if (strncmp(name, "sys_e", 5))
			continue;
		if (fnmatch(pattern, name, 0))
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*nn));

			if (!nn) {
				err = -ENOMEM;
				break;
			}
			names = nn;
		}
		names[n] = strdup(name);
		if (!names[n]) {
			err = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n && !err; i++) {
		struct ks_error se;

		snprintf(shown, sizeof(shown), "%s%s", events ? "tp:syscalls:" : "sys:", names[i]);
		if (syscall_sig(k, names[i], events, shown, &sig, &se))
			continue;
		err = fn(&sig, ctx);
		++*count;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (err)
		return ks_fail(e, err, "%s", err == -ENOMEM ? "out of memory" : strerror(-err));
	return 0;
}

/*
 * The category of NAME's trace event that matches CAT (a glob), copied to
 * OUT; CAT NULL: any.  1 found, 0 not, -errno if DIR cannot be read.
 */
static int tp_category(const char *dir, const char *cat, const char *name, char *out,
		       size_t out_sz)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int found = 0;

	if (cat && !strpbrk(cat, "*?[")) {
		if (snprintf(path, sizeof(path), "%s/%s/%s", dir, cat, name) >= (int)sizeof(path))
			return 0;
		if (access(path, F_OK))
			return 0;
		snprintf(out, out_sz, "%s", cat);
		return 1;
	}
	d = opendir(dir);
	if (!d)
		return -errno;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.' || (cat && fnmatch(cat, de->d_name, 0)))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/%s", dir, de->d_name, name) >= (int)sizeof(path))
			continue;
		if (access(path, F_OK) == 0) {
			snprintf(out, out_sz, "%s", de->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

/*
 * The category in SPEC ("CAT:NAME", NAME at BASE), checked where tracefs
 * says: 0 (also when tracefs is not there: the name alone is unique), or
 * -ENOENT with E.
 */
static int tp_check_category(const char *spec, const char *name, struct ks_error *e)
{
	const char *dir = tp_events_dir();
	char cat[NAME_MAX + 1], real[NAME_MAX + 1];

	snprintf(cat, sizeof(cat), "%.*s", (int)(name - 1 - spec), spec);
	if (!dir || tp_category(dir, cat, name, real, sizeof(real)) != 0)
		return 0;
	if (tp_category(dir, NULL, name, real, sizeof(real)) == 1)
		return ks_fail(e, -ENOENT, "tracepoint '%s' is in category '%s', not '%s'", name,
			       real, cat);
	return ks_fail(e, -ENOENT, "tracepoint '%s' has no category (no trace event in %s): write tp:%s",
		       name, dir, name);
}

/*
 * Tracepoints are the btf_trace_<name> typedefs: the name of the first one
 * at or after *ID (which is updated), or NULL at the end.
 */
static const char *next_tp_name(const struct btf *btf, __u32 *id)
{
	__u32 n = btf__type_cnt(btf);

	for (; *id < n; (*id)++) {
		const struct btf_type *t = btf__type_by_id(btf, *id);
		const char *tn;

		if (!btf_is_typedef(t))
			continue;
		tn = btfu_name(btf, t->name_off);
		if (strncmp(tn, "btf_trace_", 10) == 0)
			return tn + 10;
	}
	return NULL;
}

/*
 * A name in category syscalls, or like a syscall event's, that names none:
 * how a system call's events are named, in BUF; else false.
 */
static bool syscall_event_hint(const char *pattern, char *buf, size_t sz)
{
	const char *base = tp_base_name(pattern);

	if (strncmp(base, "sys_enter_", 10) && strncmp(base, "sys_exit_", 9) &&
	    strncmp(pattern, "syscalls:", 9))
		return false;
	snprintf(buf, sz, "a system call's events are tp:syscalls:sys_enter_NAME and "
		 "tp:syscalls:sys_exit_NAME; sys:NAME traces both as one call");
	return true;
}

int kernel__tp(struct kernel *k, const char *name, struct signature *sig,
	       struct ks_error *e)
{
	char hint[KS_ERROR_MSG_MAX];
	const char *base = tp_base_name(name);
	struct btf *btf;
	struct suggest s;
	const char *tn;
	__u32 id;
	int err;

	err = kernel__open(k, e);
	if (err)
		return err;
	if (!strncmp(name, "sys:", 4))
		return syscall_sig(k, name + 4, false, name, sig, e);
	btf = kbtf__vmlinux(k->kbtf);
	if (signature__from_tp(btf, base, sig) == 0)
		return base == name ? 0 : tp_check_category(name, base, e);
	if (is_syscall_event(name)) {
		char shown[SPEC_MAX_NAME + 32];

		snprintf(shown, sizeof(shown), "tp:syscalls:%s", base);
		return syscall_sig(k, base, true, shown, sig, e);
	}
	if (syscall_event_hint(name, hint, sizeof(hint)))
		return ks_fail(e, -ENOENT, "unknown tracepoint '%s': %s", name, hint);
	suggest__init(&s, base);
	for (id = 1; (tn = next_tp_name(btf, &id)); id++)
		suggest__consider(&s, tn);
	if (suggest__best(&s))
		return ks_fail(e, -ENOENT, "unknown tracepoint '%s' (did you mean 'tp:%s'?)", name,
			       suggest__best(&s));
	return ks_fail(e, -ENOENT, "unknown tracepoint '%s'", name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A tracepoint a glob matched: its name and btf_trace_ typedef. */
struct tp_match {
	const char *name;
	__u32 id;
};

static int cmp_tp_match(const void *a, const void *b)
{
	return strcmp(((const struct tp_match *)a)->name, ((const struct tp_match *)b)->name);
}

typedef int (*kernel_sig_fn)(const struct signature *sig, void *ctx);

/* sys:GLOB: every system call it matches, and one at least. */
static int sys_glob(struct kernel *k, const char *pattern, kernel_sig_fn fn, void *ctx,
		    struct ks_error *e)
{
	int nsys = 0;
	int err = syscall_glob(k, pattern + 4, false, fn, ctx, &nsys, e);

	if (!err && !nsys)
		return ks_fail(e, -ENOENT, "no system call matches '%s'", pattern);
	return err;
}

/*
 * CATEGORY:GLOB (BASE is the GLOB): the category in CAT and in *DIR the
 * tracefs directory of events that says which category a match is in; a
 * glob alone: *DIR NULL.  0, or a negative errno with E.
 */
static int tp_glob_category(const char *pattern, const char *base, char *cat, size_t sz,
			    const char **dir, struct ks_error *e)
{
	*dir = NULL;
	if (base == pattern)
		return 0;
	if ((size_t)(base - 1 - pattern) >= sz)
		return ks_fail(e, -ENOENT, "no tracepoint category '%.*s'",
			       (int)(base - 1 - pattern), pattern);
	snprintf(cat, sz, "%.*s", (int)(base - 1 - pattern), pattern);
	*dir = tp_events_dir();
	/* Not the spec's fault, the machine's: a runtime failure. */
	if (!*dir)
		return ks_fail(e, -EOPNOTSUPP,
			       "tracepoint categories are in tracefs, which is not mounted "
			       "(mount -t tracefs tracefs /sys/kernel/tracing), or write tp:%s",
			       base);
	return 0;
}

struct tp_matches {
	struct tp_match *v;
	size_t n, cap;
};

static int tp_matches__add(struct tp_matches *m, const char *name, __u32 id)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 64;
		struct tp_match *nv = realloc(m->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		m->v = nv;
		m->cap = cap;
	}
	m->v[m->n++] = (struct tp_match){ name, id };
	return 0;
}

/*
 * The tracepoints of BTF whose names match BASE (in category CAT, with
 * DIR), into M in name order, as a user scanning a list expects.  0, or
 * a negative errno with E.
 */
static int find_tp_matches(const struct btf *btf, const char *base, const char *dir,
			   const char *cat, struct tp_matches *m, struct ks_error *e)
{
	char found[NAME_MAX + 1];
	const char *tn;
	__u32 id;
	int err;

	for (id = 1; (tn = next_tp_name(btf, &id)); id++) {
		if (fnmatch(base, tn, 0))
			continue;
		if (dir) {
			err = tp_category(dir, cat, tn, found, sizeof(found));
			if (err < 0)
				return ks_fail(e, err, "cannot read %s: %s", dir, strerror(-err));
			if (!err)
				continue;
		}
		if (tp_matches__add(m, tn, id))
			return ks_fail(e, -ENOMEM, "out of memory");
	}
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), cmp_tp_match);
	return 0;
}

/* FN on the signature of each of M: parameter names from the stubs, indexed once. */
static int call_tp_matches(struct btf *btf, const struct tp_matches *m, kernel_sig_fn fn,
			   void *ctx, struct ks_error *e)
{
	struct tp_stubs *stubs;
	struct signature sig;
	size_t i;
	int err;

	if (!m->n)
		return 0;
	stubs = tp_stubs__new(btf);
	err = stubs ? 0 : -ENOMEM;
	for (i = 0; i < m->n && !err; i++)
		if (signature__from_tp_typedef(stubs, m->v[i].name, m->v[i].id, &sig) == 0)
			err = fn(&sig, ctx);
	tp_stubs__free(stubs);
	if (err)
		return ks_fail(e, err, "%s", err == -ENOMEM ? "out of memory" : strerror(-err));
	return 0;
}

int kernel__tp_glob(struct kernel *k, const char *pattern,
		    int (*fn)(const struct signature *sig, void *ctx), void *ctx,
		    struct ks_error *e)
{
	const char *base = tp_base_name(pattern);
	char cat[NAME_MAX + 1] = "", hint[KS_ERROR_MSG_MAX];
	struct tp_matches m = {};
	const char *dir;
	struct btf *btf;
	int err, nsys = 0;

	err = kernel__open(k, e);
	if (err)
		return err;
	if (!strncmp(pattern, "sys:", 4))
		return sys_glob(k, pattern, fn, ctx, e);
	if (is_syscall_event(pattern) || !strncmp(pattern, "syscalls:", 9)) {
		err = syscall_glob(k, base, true, fn, ctx, &nsys, e);
		if (err)
			return err;
	}
	err = tp_glob_category(pattern, base, cat, sizeof(cat), &dir, e);
	if (err)
		return err;
	btf = kbtf__vmlinux(k->kbtf);
	err = find_tp_matches(btf, base, dir, cat, &m, e) ?: call_tp_matches(btf, &m, fn, ctx, e);
	free(m.v);
	if (err || m.n || nsys)
		return err;
	if (syscall_event_hint(pattern, hint, sizeof(hint)))
		return ks_fail(e, -ENOENT, "no tracepoint matches 'tp:%s': %s", pattern, hint);
	return ks_fail(e, -ENOENT, "no tracepoint matches 'tp:%s'", pattern);
}

/* ---- globs over kernel functions ---- */

struct match_ctx {
	const char *pattern;
	struct func_match *v;
	size_t n, cap;
};

static int match_one(struct btf *btf, const char *module, __u32 id, const char *name, void *ctx)
{
	struct match_ctx *mc = ctx;

	if (fnmatch(mc->pattern, name, 0))
		return 0;
	if (mc->n == mc->cap) {
		struct func_match *v = realloc(mc->v, (mc->cap = mc->cap ? 2 * mc->cap : 256) *
						      sizeof(*v));

		if (!v)
			return -ENOMEM;
		mc->v = v;
	}
	mc->v[mc->n++] = (struct func_match){ btf, module, name, id };
	return 0;
}

static int cmp_match(const void *a, const void *b)
{
	const struct func_match *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	/* vmlinux before modules, then by module. */
	if (!x->module || !y->module)
		c = !!x->module - !!y->module;
	else
		c = strcmp(x->module, y->module);
	/* The same name twice in one BTF: the first (as kbtf__find_func() finds). */
	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/*
 * One match per name in each BTF: 6.1's vmlinux BTF has some functions
 * twice (__ia32_compat_sys_ipc ...), and a probe attaches by name, so
 * the second would be the same function traced (and left out, and said
 * with -v) twice.  M is sorted; the number kept.
 */
static size_t unique_matches(struct func_match *m, size_t n)
{
	size_t i, kept = 0;

	for (i = 0; i < n; i++)
		if (!kept || m[i].btf != m[kept - 1].btf || strcmp(m[i].name, m[kept - 1].name))
			m[kept++] = m[i];
	return kept;
}

int kernel__match_funcs(struct kernel *k, const char *module, const char *pattern,
			struct func_match **out, struct ks_error *e)
{
	struct match_ctx mc = { .pattern = pattern };
	int err;

	*out = NULL;
	err = kernel__open(k, e);
	if (err)
		return err;
	err = kbtf__for_each_func(k->kbtf, module, match_one, &mc);
	if (err) {
		free(mc.v);
		if (err == -ENOENT)
			return ks_fail(e, -ENOENT, "no module '%s' with BTF in %s (for a tracepoint CATEGORY:NAME, write tp:CATEGORY:NAME; for a function of a program or library, u:%s:%s)",
				       module, k->btf_dir ? k->btf_dir : "/sys/kernel/btf", module, pattern);
		return ks_fail(e, -ENOMEM, "out of memory");
	}
	if (mc.n) {
		qsort(mc.v, mc.n, sizeof(*mc.v), cmp_match);
		mc.n = unique_matches(mc.v, mc.n);
	}
	*out = mc.v;
	return (int)(mc.n > INT32_MAX ? INT32_MAX : mc.n);
}

/*
 * Functions a glob leaves out: what the BPF programs and their probes run
 * through (tracing them recurses, or the kernel drops the nested call and
 * counts a miss) and the low-level primitives every probe hits.  Named
 * explicitly, they still attach.
 */
static const char *const deny_globs[] = {
	"bpf_*", "__bpf_*", "___bpf_*",
	"migrate_disable", "migrate_enable",
	"rcu_read_lock*", "rcu_read_unlock*", "__rcu_read_lock", "__rcu_read_unlock",
	"preempt_count_add", "preempt_count_sub",
	"lock_acquire", "lock_release", "lockdep_*",
	"*kprobe*", "*rethook*", "*fprobe*", "ftrace_*", "__ftrace_*", "arch_ftrace_*",
	"update_prog_stats", "inc_misses_counter",
	/* Hash maps the programs look up (stash, entry times, --tree's sessions). */
	"htab_*", "__htab_*", "lookup_elem_raw", "lookup_nulls_elem_raw",
};

static int cmp_str(const void *a, const void *b);

/* available_filter_functions: "name" or "name [module]" per line. */
static void read_ftrace(struct kernel *k)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/available_filter_functions",
		"/sys/kernel/debug/tracing/available_filter_functions",
	};
	char line[512];
	size_t cap = 0, i;
	FILE *f = NULL;

	k->ftrace_state = -1;
	if (k->ftrace_path)
		f = fopen(k->ftrace_path, "r");
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && !f && !k->ftrace_path; i++)
		f = fopen(paths[i], "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, " \t\n")] = 0;
		if (!*line)
			continue;
		if (k->nftrace == cap) {
			char **v = realloc(k->ftrace, (cap = cap ? 2 * cap : 4096) * sizeof(*v));

			if (!v)
				goto fail;
			k->ftrace = v;
		}
		if (!(k->ftrace[k->nftrace] = strdup(line)))
			goto fail;
		k->nftrace++;
	}
	fclose(f);
	qsort(k->ftrace, k->nftrace, sizeof(*k->ftrace), cmp_str);
	k->ftrace_state = 1;
	return;
fail:
	/* Without the list, the kernel's own refusals at attach time decide. */
	fclose(f);
	for (i = 0; i < k->nftrace; i++)
		free(k->ftrace[i]);
	free(k->ftrace);
	k->ftrace = NULL;
	k->nftrace = 0;
}

bool kernel__func_denied(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(deny_globs) / sizeof(deny_globs[0]); i++)
		if (!fnmatch(deny_globs[i], name, 0))
			return true;
	return false;
}

const char *kernel__func_refused(struct kernel *k, const struct func_match *m)
{

	take_prefetched(k);
	if (!k->ftrace_state)
		read_ftrace(k);
	if (k->ftrace_state > 0)
		return bsearch(&m->name, k->ftrace, k->nftrace, sizeof(*k->ftrace), cmp_str) ? NULL :
		       "ftrace cannot hook it (notrace, or not in available_filter_functions)";
	if (kernel__open_ksyms(k, NULL) == 0 && !ksyms__find(k->ksyms, m->name))
		return "not in kallsyms (inlined or removed at build time)";
	return NULL;
}

int kernel__func_namesakes(struct kernel *k, const struct func_match *m)
{
	const struct ksym *one;
	char **at;
	size_t lo, hi;

	if (k->ftrace_state > 0) {
		at = bsearch(&m->name, k->ftrace, k->nftrace, sizeof(*k->ftrace), cmp_str);
		if (!at)
			return 0;
		/* Equal names are next to each other. */
		for (lo = hi = at - k->ftrace; lo > 0 && !strcmp(k->ftrace[lo - 1], m->name); lo--)
			;
		for (; hi + 1 < k->nftrace && !strcmp(k->ftrace[hi + 1], m->name); hi++)
			;
		return (int)(hi - lo + 1);
	}
	return k->ksyms ? (int)ksyms__find_all(k->ksyms, m->name, &one, 1) : 0;
}

int kernel__func_sig(struct kernel *k, const struct func_match *m, struct signature *sig,
		     struct ks_error *e)
{
	int err = signature__from_func(m->btf, m->id, sig, e);

	sig->module = m->module;
	sig->user_tags = kbtf__user_tags(k->kbtf);
	return err;
}
