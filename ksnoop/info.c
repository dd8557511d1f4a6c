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
#include "cli.h"
#include "escape.h"
#include "ks_error.h"
#include "log.h"
#include "target.h"
#include "targets.h"
#include "usdt.h"
#include "writer.h"

/* Names and types spelled from BTF, escaped like anything from outside. */
static void print_escaped(const char *s)
{
	text_write_escaped(stdout, s, strlen(s));
}

static void print_tp(const struct signature *sig)
{
	char buf[512];
	int i;

	print_escaped(sig->name);
	fputc('(', stdout);
	for (i = 0; i < sig->nparams; i++) {
		fputs(i ? ", " : "", stdout);
		print_escaped(btfu_type_str(sig->btf, sig->params[i].type_id, sig->params[i].name,
					    buf, sizeof(buf)));
	}
	printf(");\n");
}

/* One prototype; ERR/WHY: why the function cannot be traced. */
static void print_func(const struct signature *sig, int err, const char *why)
{
	char decl[1024];

	btfu_type_str(sig->btf, sig->proto_id, sig->name, decl, sizeof(decl));
	/* C23 aside, "f()" is not "f(void)": say no arguments the C way. */
	if (sig->nparams == 0 && !sig->variadic) {
		size_t len = strlen(decl);

		if (len >= 2 && strcmp(decl + len - 2, "()") == 0 && len + 4 < sizeof(decl))
			strcpy(decl + len - 2, "(void)");
	}
	print_escaped(decl);
	if (err) {
		fputs("; /* cannot be traced: ", stdout);
		print_escaped(why);
		fputs(" */\n", stdout);
	} else {
		fputs(";\n", stdout);
	}
}

/* The spec info shows, and how many functions it named. */
struct info_ctx {
	const struct spec *s;
	int n;
};

/* One thing a spec names: its prototype, and why it cannot be traced. */
static int info_match(const struct target_match *m, void *ctx)
{
	struct info_ctx *ic = ctx;

	if (ic->s->kind == SPEC_TP) {
		print_tp(m->sig);
		return 0;
	}
	ic->n++;
	if (!m->glob)
		log_info("%s: BTF from %s", ic->s->text, m->module ? m->module : "vmlinux");
	if (m->glob && m->module) {
		print_escaped(m->module);
		fputs(": ", stdout);
	}
	/* Found but not traceable: shown, and why. */
	print_func(m->sig, m->refused ? -EINVAL : m->err, m->refused ? m->refused : m->e->msg);
	return 0;
}

/*
 * Spec S, parsed as tracing parses it, looked up as tracing looks it up
 * (targets.h): the same error in the same words.
 */
static int info_spec(struct kernel *k, const struct spec *s)
{
	struct info_ctx ic = { .s = s };
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

static void print_usdt_json(const struct usdt_file *f, const struct usdt_probe *pr)
{
	char buf[USDT_WHY_MAX];
	const char *why;
	struct writer w;
	int j;

	writer__init(&w, stdout, true);
	writer__begin_object(&w, WRITER_STRUCT, 0);
	writer__key(&w, "binary");
	writer__name(&w, f->path);
	writer__key(&w, "provider");
	writer__name(&w, pr->provider);
	writer__key(&w, "name");
	writer__name(&w, pr->name);
	writer__key(&w, "address");
	writer__hex(&w, pr->pc);
	writer__key(&w, "semaphore");
	if (pr->sema)
		writer__hex(&w, pr->sema);
	else
		writer__null(&w, "-");
	writer__key(&w, "args");
	writer__begin_array(&w, WRITER_STRUCT, 0);
	for (j = 0; j < pr->nargs; j++) {
		writer__begin_object(&w, WRITER_STRUCT, 0);
		writer__key(&w, "size");
		writer__int(&w, pr->args[j].size);
		writer__key(&w, "signed");
		writer__bool(&w, pr->args[j].is_signed);
		writer__key(&w, "float");
		writer__bool(&w, pr->args[j].is_float);
		writer__key(&w, "location");
		writer__name(&w, pr->args[j].loc);
		/* Why libbpf cannot read it (and so attach to the probe), or null. */
		writer__key(&w, "unreadable");
		if ((why = usdt__arg_unreadable(&pr->args[j], buf)))
			writer__name(&w, why);
		else
			writer__null(&w, "-");
		writer__end_object(&w);
	}
	writer__end_array(&w);
	writer__end_object(&w);
	fputc('\n', stdout);
}

/*
 * After the arguments, those libbpf cannot read, and why: "  # not
 * readable by libbpf: arg1, a 16-byte value (...)".  Appends to ARGS at N.
 */
static size_t unreadable_args(const struct usdt_probe *pr, char *args, size_t sz, size_t n)
{
	const char *sep = "  # not readable by libbpf: ";
	char buf[USDT_WHY_MAX];
	const char *why;
	int j;

	for (j = 0; j < pr->nargs && n < sz; j++) {
		if (!(why = usdt__arg_unreadable(&pr->args[j], buf)))
			continue;
		n += snprintf(args + n, sz - n, "%sarg%d, %s", sep, j, why);
		sep = "; ";
	}
	return n;
}

/* One row; every name comes from the file's notes, so escaped. */
static void print_usdt_text(const struct usdt_probe *pr)
{
	char args[USDT_MAX_ARGS * (64 + USDT_WHY_MAX)], sema[24] = "-";
	char *prov = text_escaped_dup(pr->provider), *name = text_escaped_dup(pr->name);
	char *eargs;
	size_t n = 0;
	int j;

	args[0] = 0;
	/* s32, u8; u128 for a 16-byte struct, f64 for a double. */
	for (j = 0; j < pr->nargs && n < sizeof(args); j++)
		n += snprintf(args + n, sizeof(args) - n, "%sarg%d:%c%d@%s", j ? " " : "", j,
			      pr->args[j].is_float ? 'f' : pr->args[j].is_signed ? 's' : 'u',
			      8 * pr->args[j].size, pr->args[j].loc);
	unreadable_args(pr, args, sizeof(args), n);
	eargs = text_escaped_dup(args);
	if (pr->sema)
		snprintf(sema, sizeof(sema), "0x%016llx", (unsigned long long)pr->sema);
	if (prov && name && eargs)
		printf("%-16s %-24s 0x%016llx %-18s %s\n", prov, name,
		       (unsigned long long)pr->pc, sema, eargs);
	free(prov);
	free(name);
	free(eargs);
}

static void print_usdt_file(const struct usdt_file *f, bool json)
{
	int i;

	for (i = 0; i < f->nprobes; i++) {
		if (json)
			print_usdt_json(f, &f->probes[i]);
		else
			print_usdt_text(&f->probes[i]);
	}
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
static int list_usdt_file(const char *path, bool named, bool titled, bool *header,
			  const struct options *opts)
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
	/* The header comes with the first probe, never with an error. */
	if (f->nprobes && !opts->json && !*header) {
		printf("%-16s %-24s %-18s %-18s %s\n", "PROVIDER", "NAME", "ADDRESS",
		       "SEMAPHORE", "ARGS");
		*header = true;
	}
	if (f->nprobes && !opts->json && titled) {
		fputs("# ", stdout);
		text_write_escaped(stdout, f->path, strlen(f->path));
		fputc('\n', stdout);
	}
	print_usdt_file(f, opts->json);
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
static int info_usdt(int argc, char **argv, const struct options *opts)
{
	int i, n = 0, ret = 0, total = 0, nseen = 0, got;
	struct stat *seen, st;
	char **paths = NULL;
	bool header = false;

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
		got = list_usdt_file(path, i < argc, argc + n > 1, &header, opts);
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
	struct kernel *k;
	struct spec *specs;
	struct ks_error e;
	int i, n = 0, ret = 0, err;

	if (argc < 1) {
		log_error("info: expected at least one function or tp:TRACEPOINT");
		return -EINVAL;
	}
	if (strcmp(argv[0], "usdt") == 0)
		return info_usdt(argc - 1, argv + 1, opts);
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
		ret = ks_worse(ret, info_spec(k, &specs[i]));
	for (i = 0; i < argc; i++)
		spec__free(&specs[i]);
	free(specs);
	kernel__free(k);
	return ret;
}
