// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ksnoop info TARGET...`: what a target takes, as C would declare it.
 * The declaration comes from libbpf's btf_dump, so function pointers,
 * arrays and qualifiers are spelled exactly as in C.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "print.h"
#include "report.h"
#include "cli.h"
#include "ks_error.h"
#include "log.h"
#include "kernel.h"
#include "targets.h"
#include "usdt_note.h"
#include "ufunc.h"
#include "escape.h"

/* "sched_switch(bool preempt, struct task_struct *prev, ...)". */
static void print_tp(struct report *r, const struct signature *sig)
{
	char decl[2048], buf[512];
	size_t n;
	int i;

	/* sys:NAME returns what its sys_exit event gives. */
	n = sig->has_return ? snprintf(decl, sizeof(decl), "%s ",
				       btfu_type_str(sig->btf, sig->ret_type, NULL, buf, sizeof(buf))) : 0;
	n += snprintf(decl + n, sizeof(decl) - n, "%s(", sig->name);
	for (i = 0; i < sig->nparams && n < sizeof(decl); i++)
		n += snprintf(decl + n, sizeof(decl) - n, "%s%s", i ? ", " : "",
			      btfu_type_str(sig->btf, sig->params[i].type_id, sig->params[i].name,
					    buf, sizeof(buf)));
	if (n < sizeof(decl))
		snprintf(decl + n, sizeof(decl) - n, ")");
	report__info(r, &(struct report_info){ .kind = REPORT_INFO_TP, .sig = sig, .decl = decl });
}

/*
 * One prototype; MODULE: shown before it (a glob's match); WHY: why it
 * cannot be traced; M: which of several functions of its name it is.
 */
static void print_func(struct report *r, const struct signature *sig, const char *module,
		       const char *why, const struct target_match *m)
{
	char decl[1024];

	btfu_type_str(sig->btf, sig->proto_id, sig->name, decl, sizeof(decl));
	/* C23 aside, "f()" is not "f(void)": say no arguments the C way. */
	if (sig->nparams == 0 && !sig->variadic) {
		size_t len = strlen(decl);

		if (len >= 2 && strcmp(decl + len - 2, "()") == 0 && len + 4 < sizeof(decl))
			strcpy(decl + len - 2, "(void)");
	}
	report__info(r, &(struct report_info){
		.kind = REPORT_INFO_FUNC, .sig = sig, .decl = decl, .why = why,
		.module = module ? module : sig->module, .show_module = module != NULL,
		.instance = m->instance, .ninstances = m->ninstances,
	});
}

/* The spec info shows, and how many functions it named. */
struct info_ctx {
	struct report *r;
	const struct spec *s;
	int n;
};

/* One thing a spec names: its prototype, and why it cannot be traced. */
static int info_match(const struct target_match *m, void *ctx)
{
	struct info_ctx *ic = ctx;

	if (ic->s->kind == SPEC_TP) {
		print_tp(ic->r, m->sig);
		return 0;
	}
	ic->n++;
	if (!m->glob && !m->ninstances)
		log_info("%s: BTF from %s", ic->s->text, m->module ? m->module : "vmlinux");
	if (m->ninstances && (m->instance == 0 || ic->s->addr))
		log_info("%s: %d functions of this name in kallsyms (static functions in several files or modules)",
			 ic->s->text, m->ninstances);
	/* Found but not traceable: shown, and why. */
	print_func(ic->r, m->sig, m->glob ? m->module : NULL,
		   m->refused ? m->refused : m->err ? m->e->msg : NULL, m);
	return 0;
}

/*
 * Where the N functions' types came from: a typed match's source, or why
 * all of them were refused (a glob whose every function its debug info
 * refuses).
 */
static void log_ufunc_where(const struct spec *s, const struct ufunc_match *ms, int n)
{
	int i, shown = 0, refused = 0;
	char note[48] = "";

	for (i = 0; i < n; i++) {
		refused += ms[i].refused != NULL;
		if (ms[shown].refused && !ms[i].refused)
			shown = i;
	}
	if (refused == n) {
		log_warn("%s: %d function(s) in %s, all %d refused (%s)", s->text, n, ms[0].path, n,
			 ms[0].refused);
		return;
	}
	if (refused)
		snprintf(note, sizeof(note), ", %d refused", refused);
	log_warn("%s: %d function(s) in %s%s; %s", s->text, n, ms[0].path, note,
		 ufunc_match__types_where(&ms[shown]));
}

/*
 * u:BINARY:FUNC: each function it names, its prototype: from its debug
 * info where the file has it, else untyped (arg0..arg5, the registers the
 * ABI passes them in); a glob's match the debug info refuses, and why.
 */
static int info_ufunc(struct report *r, struct ufunc_front *fe, const struct spec *s, int pid)
{
	struct ufunc_match *ms;
	struct ks_error e;
	int n, i;

	n = ufunc_front__match(fe, s, pid, &ms, &e);
	if (n < 0) {
		targets__log_error(s->text, &e);
		return n;
	}
	for (i = 0; i < n; i++) {
		struct signature sig = ms[i].sig;

		/* A typed C++ prototype has its parameters: the name without them. */
		if (ms[i].typed)
			snprintf(sig.name, sizeof(sig.name), "%s", ms[i].plain);
		print_func(r, &sig, NULL, ms[i].refused, &(struct target_match){ .name = ms[i].shown });
	}
	log_ufunc_where(s, ms, n);
	free(ms);
	return 0;
}

/* `info u:BINARY`: one line per function (address, size, name), or a JSON record. */
static int list_ufunc(const char *name, __u64 addr, __u64 size, void *ctx)
{
	struct report *r = ctx;
	static bool titled;

	if (report__json(r)) {
		printf("{\"type\":\"function\",\"name\":");
		json_write_string(stdout, name, strlen(name));
		printf(",\"address\":\"0x%llx\",\"size\":%llu}\n", (unsigned long long)addr,
		       (unsigned long long)size);
	} else {
		if (!titled)
			printf("%-18s %8s  %s\n", "ADDRESS", "SIZE", "FUNCTION");
		titled = true;
		printf("0x%016llx %8llu  ", (unsigned long long)addr, (unsigned long long)size);
		text_write_escaped(stdout, name, strlen(name));
		putchar('\n');
	}
	return 0;
}

static int info_ufunc_list(struct report *r, struct ufunc_front *fe, const char *binary, int pid)
{
	struct ks_error e;
	int err;

	err = ufunc_front__each(fe, binary, pid, list_ufunc, r, &e);
	if (err)
		log_error("u:%s: %s", binary, ks_message(&e));
	return err;
}

/* "u:BINARY" alone: a file to list, not a spec. */
static bool is_ufunc_file(const char *arg)
{
	return strncmp(arg, "u:", 2) == 0 && arg[2] && !strchr(arg + 2, ':');
}

/*
 * Spec S, parsed as tracing parses it, looked up as tracing looks it up
 * (targets.h): the same error in the same words.
 */
static int info_spec(struct report *r, struct kernel *k, const struct spec *s)
{
	struct info_ctx ic = { .r = r, .s = s };
	struct ks_error e;
	int err;

	err = targets__for_each_match(k, s, info_match, &ic, &e);
	if (err) {
		targets__log_error(s->text, &e);
		return err;
	}
	if (s->kind == SPEC_KFUNC && (s->is_glob || s->module))
		log_info("%s: %d function(s)", s->text, ic.n);
	return 0;
}

/* Is the file ST already among SEEN[0..N) (a named file the process maps)? */
static bool seen_file(const struct stat *seen, int n, const struct stat *st)
{
	for (int i = 0; i < n; i++)
		if (seen[i].st_dev == st->st_dev && seen[i].st_ino == st->st_ino)
			return true;
	return false;
}

/* One file's probes; returns how many, or the error reading it. */
static int list_usdt_file(struct report *r, const char *path, bool named, bool titled)
{
	struct usdt_file *f;
	struct ks_error e;
	int err = usdt__read(path, &f, &e), n;

	if (err) {
		/* A mapped file we cannot read is not the user's error. */
		if (named)
			log_ks_error(&e);
		return named ? err : 0;
	}
	report__usdt(r, f, titled);
	n = f->nprobes;
	usdt__free(f);
	return n;
}

/*
 * `info usdt BINARY...` (and, with -p, the libraries the process maps).
 * Every file is shown that can be, once (a named program is also in its
 * process's maps); the error returned is the worse (ks_worse(): one the
 * user must fix before a runtime failure).  With -p the named files and
 * the process's are one listing: a program whose probes are all in its
 * libraries is no error.
 */
static int info_usdt(struct report *r, int argc, char **argv, const struct options *opts)
{
	int i, n = 0, ret = 0, total = 0, nseen = 0, got;
	struct stat *seen, st;
	char **paths = NULL;

	if (argc < 1 && !opts->pid) {
		log_error("info usdt: expected a BINARY (or -p PID)");
		return -EINVAL;
	}
	if (opts->pid) {
		n = usdt__process_objects(opts->pid, &paths);
		if (n < 0) {
			log_error("info usdt: cannot read the maps of process %u: %s", opts->pid,
				  strerror(-n));
			/* No such process (-ENOENT) is the user's; -EACCES and the like are not. */
			return n;
		}
	}
	seen = calloc(argc + n + 1, sizeof(*seen));
	for (i = 0; i < argc + n && seen; i++) {
		const char *path = i < argc ? argv[i] : paths[i - argc];

		if (!stat(path, &st)) {
			if (seen_file(seen, nseen, &st))
				continue;
			seen[nseen++] = st;
		}
		got = list_usdt_file(r, path, i < argc, argc + n > 1);
		if (got < 0)
			ret = ks_worse(ret, got);
		total += got > 0 ? got : 0;
		if (!got && i < argc && !opts->pid) {
			log_error("'%s' has no USDT probes", path);
			ret = ks_worse(ret, -ESRCH);
		} else if (!got && i < argc) {
			log_info("'%s' has no USDT probes of its own", path);
		}
	}
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	if (!seen) {
		log_error("out of memory");
		return -ENOMEM;
	}
	free(seen);
	if (!ret && !total) {
		if (argc)
			log_error("no USDT probes in '%s' nor in the files process %u maps", argv[0],
				  opts->pid);
		else
			log_error("no USDT probes in process %u", opts->pid);
		ret = -ESRCH;
	}
	return ret;
}

/*
 * `info "struct NAME"` (or "union NAME"): its members with their offsets
 * and sizes, as pahole lists them; anonymous structs and unions opened.
 * Bounded: INFO_TYPE_MAX_MEMBERS rows, BTFU_MAX_DEPTH levels (BTF is
 * input: a cycle or a huge type ends there, said as cut).
 */
#define INFO_TYPE_MAX_MEMBERS	4096
#define INFO_TYPE_DECL_MAX	160

struct type_walk {
	const struct btf *btf;
	struct report_member *m;
	char (*decls)[INFO_TYPE_DECL_MAX];
	int n;
	bool cut;
};

static void walk_members(struct type_walk *w, const struct btf_type *t, __u32 base_bits,
			 int depth)
{
	const struct btf_member *mem = btf_members(t);
	int i, vlen = btf_vlen(t);

	for (i = 0; i < vlen; i++, mem++) {
		const struct btf_type *mt = btf__type_by_id(w->btf, mem->type);
		const char *name = btf__name_by_offset(w->btf, mem->name_off);
		struct report_member *m = &w->m[w->n];
		char *decl = w->decls[w->n];

		if (w->n == INFO_TYPE_MAX_MEMBERS) {
			w->cut = true;
			return;
		}
		w->n++;
		m->decl = decl;
		m->depth = depth;
		m->bit_off = base_bits + btf_member_bit_offset(t, i);
		m->bit_size = btf_member_bitfield_size(t, i);
		m->size = btf__resolve_size(w->btf, mem->type);
		/* A struct or union of no name is opened, as pahole does (struct_group()'s too). */
		m->anonymous = mt && btf_is_composite(mt) && !mt->name_off;
		m->name = name;
		if (m->anonymous) {
			snprintf(decl, INFO_TYPE_DECL_MAX, "%s", btf_is_union(mt) ? "union" : "struct");
			if (depth + 1 < BTFU_MAX_DEPTH)
				walk_members(w, mt, m->bit_off, depth + 1);
			else
				w->cut = true;
			continue;
		}
		btfu_type_str(w->btf, mem->type, name, decl, INFO_TYPE_DECL_MAX);
		if (m->bit_size)
			snprintf(decl + strlen(decl), INFO_TYPE_DECL_MAX - strlen(decl), ":%u",
				 m->bit_size);
	}
}

static bool is_type_arg(const char *arg)
{
	return !strncmp(arg, "struct ", 7) || !strncmp(arg, "union ", 6);
}

static int info_type(struct report *r, struct kernel *k, const char *arg)
{
	bool is_union = arg[0] == 'u';
	const char *name = arg + (is_union ? 6 : 7);
	struct type_walk w = {};
	const struct btf_type *t;
	struct ks_error e;
	int id, err;

	while (*name == ' ')
		name++;
	err = kernel__open(k, &e);
	if (err) {
		log_ks_error(&e);
		return err;
	}
	w.btf = kernel__vmlinux(k);
	id = w.btf ? btf__find_by_name_kind(w.btf, name, is_union ? BTF_KIND_UNION :
							      BTF_KIND_STRUCT) : -ENOENT;
	if (id <= 0) {
		log_error("info: no %s '%s' in vmlinux BTF", is_union ? "union" : "struct", name);
		return -EINVAL;
	}
	t = btf__type_by_id(w.btf, id);
	w.m = calloc(INFO_TYPE_MAX_MEMBERS, sizeof(*w.m));
	w.decls = calloc(INFO_TYPE_MAX_MEMBERS, sizeof(*w.decls));
	if (!w.m || !w.decls) {
		free(w.m);
		free(w.decls);
		log_error("out of memory");
		return -ENOMEM;
	}
	walk_members(&w, t, 0, 0);
	report__type(r, &(struct report_type){ .name = arg, .size = t->size, .nmembers = w.n,
					       .members = w.m, .cut = w.cut });
	free(w.m);
	free(w.decls);
	return 0;
}

/* A u: argument of info: a file's functions, or a spec's prototypes. */
static int info_user(struct report *r, const char *arg, const struct options *opts)
{
	struct ufunc_front *fe = ufunc_front__new();
	struct ks_error e;
	struct spec s;
	int err;

	if (!fe) {
		log_error("out of memory");
		return -ENOMEM;
	}
	if (is_ufunc_file(arg)) {
		err = info_ufunc_list(r, fe, arg + 2, opts->pid);
	} else {
		err = spec__parse(arg, SPEC_KFUNC, &s, &e);
		if (err) {
			e.err = err;
			targets__log_error(arg, &e);
		} else {
			err = info_ufunc(r, fe, &s, opts->pid);
		}
		spec__free(&s);
	}
	ufunc_front__free(fe);
	return err;
}

/*
 * Every target is shown that can be; the error returned is the worse
 * (ks_worse(): one the user must fix before a runtime failure).
 */
int do_info(int argc, char **argv, const struct options *opts)
{
	struct kernel *k;
	struct spec *specs;
	struct report r;
	struct ks_error e;
	int i, n = 0, ret = 0, err;

	if (argc < 1) {
		log_error("info: expected at least one function or tp:TRACEPOINT");
		return -EINVAL;
	}
	report__init(&r, stdout, opts->format);
	if (strcmp(argv[0], "usdt") == 0)
		return info_usdt(&r, argc - 1, argv + 1, opts);
	specs = calloc(argc, sizeof(*specs));
	k = kernel__new(opts->btf_dir);
	if (!specs || !k) {
		free(specs);
		kernel__free(k);
		log_error("out of memory");
		return -ENOMEM;
	}
	/* A spec that does not parse is reported; the others are shown. */
	for (i = 0; i < argc; i++) {
		if (is_ufunc_file(argv[i]) || strncmp(argv[i], "u:", 2) == 0) {
			ret = ks_worse(ret, info_user(&r, argv[i], opts));
			continue;
		}
		if (is_type_arg(argv[i])) {
			ret = ks_worse(ret, info_type(&r, k, argv[i]));
			continue;
		}
		err = spec__parse(argv[i], SPEC_KFUNC, &specs[n], &e);
		if (!err) {
			n++;
			continue;
		}
		e.err = err;	/* -ENOMEM comes without a message */
		targets__log_error(argv[i], &e);
		spec__free(&specs[n]);
		ret = ks_worse(ret, err);
	}
	targets__prefetch(k, specs, n);
	err = n ? kernel__open(k, &e) : 0;
	if (err) {
		log_ks_error(&e);
		ret = ks_worse(ret, err);
		n = 0;
	}
	for (i = 0; i < n; i++)
		ret = ks_worse(ret, info_spec(&r, k, &specs[i]));
	for (i = 0; i < argc; i++)
		spec__free(&specs[i]);
	free(specs);
	kernel__free(k);
	return ret;
}
