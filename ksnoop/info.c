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
#include "btf_util.h"
#include "print.h"
#include "report.h"
#include "cli.h"
#include "ks_error.h"
#include "log.h"
#include "target.h"
#include "usdt.h"

/* "sched_switch(bool preempt, struct task_struct *prev, ...)". */
static void print_tp(struct report *r, const struct signature *sig)
{
	char decl[2048], buf[512];
	size_t n;
	int i;

	n = snprintf(decl, sizeof(decl), "%s(", sig->name);
	for (i = 0; i < sig->nparams && n < sizeof(decl); i++)
		n += snprintf(decl + n, sizeof(decl) - n, "%s%s", i ? ", " : "",
			      btfu_type_str(sig->btf, sig->params[i].type_id, sig->params[i].name,
					    buf, sizeof(buf)));
	if (n < sizeof(decl))
		snprintf(decl + n, sizeof(decl) - n, ")");
	report__info(r, &(struct report_info){ .kind = REPORT_INFO_TP, .sig = sig, .decl = decl });
}

static int print_tp_cb(const struct signature *sig, void *ctx)
{
	print_tp(ctx, sig);
	return 0;
}

/* Every info_*() reports its error itself and returns its errno. */
static int info_tp(struct report *r, struct kernel *k, const char *name)
{
	struct signature sig;
	struct ks_error e;
	int err;

	if (strpbrk(name, "*?[")) {
		err = kernel__tp_glob(k, name, print_tp_cb, r, &e);
		if (err)
			log_ks_error(&e);
		return err;
	}
	err = kernel__tp(k, name, &sig, &e);
	if (err) {
		log_ks_error(&e);
		return err;
	}
	print_tp(r, &sig);
	return 0;
}

/* One prototype; MODULE: shown before it (a glob's match); WHY: why it cannot be traced. */
static void print_func(struct report *r, const struct signature *sig, const char *module,
		       const char *why)
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
	});
}

/* "tcp_v4_*", "dummy:*": every match's prototype, in name order. */
static int info_func_glob(struct report *r, struct kernel *k, const char *spec)
{
	const char *colon = strchr(spec, ':');
	char module[SPEC_MAX_NAME + 1] = "";
	const char *pattern = colon ? colon + 1 : spec;
	struct func_match *m;
	struct ks_error e;
	int n, i;

	if (colon)
		snprintf(module, sizeof(module), "%.*s", (int)(colon - spec), spec);
	n = kernel__match_funcs(k, colon ? module : NULL, pattern, &m, &e);
	if (n == 0)
		n = ks_fail(&e, -ENOENT, "no kernel function with BTF matches '%s'", spec);
	if (n < 0) {
		log_ks_error(&e);
		return n;
	}
	for (i = 0; i < n; i++) {
		struct signature sig = {};
		const char *why = kernel__func_refused(k, &m[i]);
		int err = kernel__func_sig(k, &m[i], &sig, &e);

		if (!err && why)
			err = -EINVAL;
		print_func(r, &sig, m[i].module, !err ? NULL : why ? why : e.msg);
	}
	log_info("%s: %d function(s)", spec, n);
	free(m);
	return 0;
}

static int info_func(struct report *r, struct kernel *k, const char *name)
{
	struct signature sig = {};
	struct ks_error e;
	int err;

	if (strpbrk(name, "*?[:"))
		return info_func_glob(r, k, name);
	/* Found but not traceable (-EINVAL, SIG filled): shown, and why. */
	err = kernel__func(k, name, &sig, &e);
	if (err == -ENOENT || (err && !sig.btf)) {
		log_ks_error(&e);
		return err;
	}
	log_info("%s: BTF from %s", name, sig.module ? sig.module : "vmlinux");
	print_func(r, &sig, NULL, err ? e.msg : NULL);
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
 * Every target is shown that can be; the error returned is the worse
 * (ks_worse(): one the user must fix before a runtime failure).
 */
int do_info(int argc, char **argv, const struct options *opts)
{
	struct kernel k = { .btf_dir = opts->btf_dir };
	struct report r;
	struct ks_error e;
	int i, ret;

	if (argc < 1) {
		log_error("info: expected at least one function or tp:TRACEPOINT");
		return -EINVAL;
	}
	report__init(&r, stdout, opts->json ? REPORT_JSON : REPORT_TEXT);
	if (strcmp(argv[0], "usdt") == 0)
		return info_usdt(&r, argc - 1, argv + 1, opts);
	for (i = 0; i < argc; i++)
		if (strncmp(argv[i], "tp:", 3) != 0)
			kernel__prefetch_ksyms(&k, strpbrk(argv[i], "*?[:") != NULL);
	if (k.klookup)
		log_info("kernel functions: looked up by name in the kernel (BPF), not in /proc/kallsyms");
	ret = kernel__open(&k, &e);
	if (ret) {
		log_ks_error(&e);
		kernel__close(&k);
		return ret;
	}
	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "tp:", 3) == 0)
			ret = ks_worse(ret, info_tp(&r, &k, argv[i] + 3));
		else
			ret = ks_worse(ret, info_func(&r, &k, argv[i]));
	}
	kernel__close(&k);
	return ret;
}
