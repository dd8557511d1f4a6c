// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "usdt_note.h"
#include "usdt_front.h"

/* One ELF file: its probes and the BTF its arguments are typed with. */
struct usdt_bin {
	char *path;		/* as the user named it */
	/*
	 * The file, opened once: notes, BTF, libbpf and the kernel all read
	 * it through fd_path, so a path swapped meanwhile (a symlink, a
	 * rename) cannot send uprobes or semaphore counts into another file.
	 */
	int fd;
	char *fd_path;		/* /proc/self/fd/N (allocated: matches point to it) */
	dev_t dev;
	ino_t ino;
	struct usdt_file *notes;
	struct btf *base;	/* the binary's .BTF or --btf, if any */
	struct btf *btf;	/* ours: int types for arguments, split on base */
	__u32 int_ids[2][9];	/* [signed][size] */
};

struct usdt_front {
	char *btf_file;
	struct usdt_bin *bins;
	int nbins;
	struct btf **var_btfs;	/* usdt_front__type_vars()'s, split on a variables' BTF */
	int nvar_btfs;
};

struct usdt_front *usdt_front__new(const char *btf_file)
{
	struct usdt_front *fe = calloc(1, sizeof(*fe));

	if (fe && btf_file && !(fe->btf_file = strdup(btf_file))) {
		free(fe);
		return NULL;
	}
	return fe;
}

void usdt_front__free(struct usdt_front *fe)
{
	int i;

	if (!fe)
		return;
	for (i = 0; i < fe->nbins; i++) {
		close(fe->bins[i].fd);
		free(fe->bins[i].fd_path);
		free(fe->bins[i].path);
		usdt__free(fe->bins[i].notes);
		btf__free(fe->bins[i].btf);
		btf__free(fe->bins[i].base);
	}
	free(fe->bins);
	for (i = 0; i < fe->nvar_btfs; i++)
		btf__free(fe->var_btfs[i]);
	free(fe->var_btfs);
	free(fe->btf_file);
	free(fe);
}

/* BINARY:PROVIDER:NAME, split at the last two colons. */
static int split_target(const char *t, char *bin, size_t bsz, char *prov, size_t psz,
			char *name, size_t nsz)
{
	const char *c2 = strrchr(t, ':'), *c1;

	if (!c2 || c2 == t)
		return -EINVAL;
	for (c1 = c2 - 1; c1 > t && *c1 != ':'; c1--)
		;
	if (*c1 != ':' || c1 == t || c1 + 1 == c2 || !c2[1])
		return -EINVAL;
	if ((size_t)(c1 - t) >= bsz)
		return -ENAMETOOLONG;
	if ((size_t)(c2 - c1 - 1) >= psz)
		return -E2BIG;
	if (strlen(c2 + 1) >= nsz)
		return -EOVERFLOW;
	snprintf(bin, bsz, "%.*s", (int)(c1 - t), t);
	snprintf(prov, psz, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
	snprintf(name, nsz, "%s", c2 + 1);
	return 0;
}

/* A library named without a '/' names a mapped file: LIB itself, or LIB.anything. */
static bool lib_file_named(const char *file, const char *lib)
{
	size_t n = strlen(lib);

	return strcmp(file, lib) == 0 || (strncmp(file, lib, n) == 0 && file[n] == '.');
}

/*
 * --btf FILE: raw BTF, or an ELF file with a .BTF section (btf__parse()).
 * What libbpf says of a file that is neither is no errno strerror() knows
 * (its own codes from 4000, "Unknown error 4001" for a text file), or one
 * that names something else (EIO for an empty file or a directory,
 * ENODATA for an ELF file without .BTF): the message says what the file
 * is not, and strerror() is kept for the file that cannot be opened.
 */
static struct btf *parse_btf_file(const char *path, struct ks_error *e)
{
	struct btf *btf;
	struct stat st;
	int err;

	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		ks_fail(e, -EISDIR, "cannot read BTF from '%s': it is a directory", path);
		return NULL;
	}
	btf = btf__parse(path, NULL);
	if (btf)
		return btf;
	err = errno;
	if (err == ENOENT || err == EACCES || err == EPERM || err == ENOMEM || err == ELOOP ||
	    err == ENAMETOOLONG || err == ENOTDIR)
		ks_fail(e, -ENOENT, "cannot read BTF from '%s': %s", path, strerror(err));
	else
		ks_fail(e, -ENOEXEC, "cannot read BTF from '%s': neither raw BTF nor an ELF file with a .BTF section",
			path);
	return NULL;
}

static struct usdt_bin *get_bin(struct usdt_front *fe, const char *path, struct ks_error *e)
{
	struct usdt_bin *b, *bins;
	struct usdt_file *notes;
	struct stat st;
	int i, fd, err;

	for (i = 0; i < fe->nbins; i++)
		if (strcmp(fe->bins[i].path, path) == 0)
			return &fe->bins[i];
	fd = usdt__open(path, e);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st)) {
		err = -errno;
		ks_fail(e, err, "'%s': %s", path, strerror(-err));
	} else {
		err = usdt__read_fd(fd, path, &notes, e);
	}
	if (err) {
		close(fd);
		return NULL;
	}
	bins = realloc(fe->bins, (fe->nbins + 1) * sizeof(*bins));
	if (!bins) {
		close(fd);
		usdt__free(notes);
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	fe->bins = bins;
	b = &bins[fe->nbins++];
	memset(b, 0, sizeof(*b));
	b->fd = fd;
	if (asprintf(&b->fd_path, "/proc/self/fd/%d", fd) < 0)
		b->fd_path = NULL;
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	b->path = strdup(path);
	b->notes = notes;
	if (!b->path || !b->fd_path) {
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	if (fe->btf_file) {
		b->base = parse_btf_file(fe->btf_file, e);
		if (!b->base)
			return NULL;
	} else {
		b->base = btf__parse_elf(b->fd_path, NULL);	/* NULL: no .BTF, casts fail */
	}
	if (b->base && !btfu_refs_valid(b->base)) {
		ks_fail(e, -ENOEXEC, "'%s': invalid BTF: a type refers to one that does not exist",
			fe->btf_file ? fe->btf_file : path);
		return NULL;
	}
	b->btf = b->base ? btf__new_empty_split(b->base) : btf__new_empty();
	if (!b->btf) {
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	return b;
}

static __u32 int_type(struct usdt_bin *b, int size, bool is_signed)
{
	static const char *const names[2][9] = {
		{ [1] = "__u8", [2] = "__u16", [4] = "__u32", [8] = "__u64" },
		{ [1] = "__s8", [2] = "__s16", [4] = "__s32", [8] = "__s64" },
	};
	int id;

	if (!b->int_ids[is_signed][size]) {
		id = btf__add_int(b->btf, names[is_signed][size], size,
				  is_signed ? BTF_INT_SIGNED : 0);
		if (id > 0)
			b->int_ids[is_signed][size] = id;
	}
	return b->int_ids[is_signed][size];
}

/*
 * Argument types of one call site: KSNOOP_USDT_SIGNED | size, per argument
 * (0 past the last: the count is part of the types).  Other widths share
 * one code: their probes are never traced (usdt__arg_unreadable()).
 */
static void site_types(const struct usdt_probe *pr, __u8 *types)
{
	int i;

	memset(types, 0, KSNOOP_MAX_ARGS);
	for (i = 0; i < pr->nargs && i < KSNOOP_MAX_ARGS; i++)
		types[i] = (usdt__arg_is_int(&pr->args[i]) ? pr->args[i].size : 0x7f) |
			   (pr->args[i].is_signed ? KSNOOP_USDT_SIGNED : 0);
}

static int fill_match(struct usdt_bin *b, const struct usdt_probe *pr, const struct spec *spec,
		      struct usdt_match *m, struct ks_error *e)
{
	struct signature *sig = &m->sig;
	int i;

	memset(m, 0, sizeof(*m));
	m->path = b->path;
	m->attach_path = b->fd_path;
	m->dev = b->dev;
	m->ino = b->ino;
	m->provider = pr->provider;
	m->name = pr->name;
	site_types(pr, m->site_types);
	snprintf(sig->name, sizeof(sig->name), "%s:%s", pr->provider, pr->name);
	snprintf(sig->attach, sizeof(sig->attach), "%s", pr->name);
	sig->btf = b->btf;
	sig->has_return = false;
	sig->nparams = pr->nargs;
	sig->nslots = pr->nargs;
	/* No integer type for a struct or a float: the probe is not traced. */
	for (i = 0; i < pr->nargs; i++)
		if (!usdt__arg_is_int(&pr->args[i]))
			sig->nparams = sig->nslots = 0;
	for (i = 0; i < sig->nparams; i++) {
		sig->params[i].name = signature__arg_name(i);
		sig->params[i].slot = i;
		sig->params[i].type_id = int_type(b, pr->args[i].size, pr->args[i].is_signed);
		if (!sig->params[i].type_id)
			return ks_fail(e, -ENOMEM, "out of memory");
	}
	m->has_btf = b->base != NULL;
	return 0;
}

/* One match to be: a call site standing for all sites like it. */
struct probe_ref {
	const struct usdt_probe *pr;
	bool typed_sites;	/* other sites of the probe pass other types */
	int nsites;		/* call sites of the probe, all types */
	int ntyped;		/* call sites of these types */
	const struct usdt_probe *unreadable;	/* a site ksnoop cannot read */
	int bad_arg;		/* and its argument that says why */
	bool own_attach;	/* a site libbpf refuses: ksnoop attaches them all */
};

static int same_probe(const struct usdt_probe *x, const struct usdt_probe *y)
{
	int c = strcmp(x->provider, y->provider);

	return c ? c : strcmp(x->name, y->name);
}

static int same_types(const struct usdt_probe *x, const struct usdt_probe *y)
{
	__u8 tx[KSNOOP_MAX_ARGS], ty[KSNOOP_MAX_ARGS];

	site_types(x, tx);
	site_types(y, ty);
	return memcmp(tx, ty, sizeof(tx));
}

/* By provider and name, argument types, then place in the file (note order). */
static int probe_cmp(const void *a, const void *b)
{
	const struct usdt_probe *x = ((const struct probe_ref *)a)->pr;
	const struct usdt_probe *y = ((const struct probe_ref *)b)->pr;
	int c = same_probe(x, y);

	if (!c)
		c = same_types(x, y);
	return c ? c : (x > y) - (x < y);
}

static int place_cmp(const void *a, const void *b)
{
	const struct usdt_probe *x = ((const struct probe_ref *)a)->pr;
	const struct usdt_probe *y = ((const struct probe_ref *)b)->pr;

	return (x > y) - (x < y);
}

/*
 * The probes of NOTES that PROV:NAME (globs) matches, one per probe and set
 * of argument types, in note order: call sites of one probe that pass the
 * same types are one match (libbpf attaches to them all); sites that pass
 * other types are a match of their own, typed from their own note.
 * Sorting finds the duplicates in n log n: a file may hold up to
 * USDT_MAX_NOTES notes.  Returns the count, *OUT to free(), or -ENOMEM.
 */
static int matching_probes(const struct usdt_file *notes, const char *prov, const char *name,
			   struct probe_ref **out)
{
	struct probe_ref *prs = calloc(notes->nprobes ? notes->nprobes : 1, sizeof(*prs));
	int i, n = 0, k = 0;

	*out = prs;
	if (!prs)
		return -ENOMEM;
	for (i = 0; i < notes->nprobes; i++)
		if (!fnmatch(prov, notes->probes[i].provider, 0) &&
		    !fnmatch(name, notes->probes[i].name, 0))
			prs[n++].pr = &notes->probes[i];
	qsort(prs, n, sizeof(*prs), probe_cmp);
	/*
	 * Sites of one probe are side by side now: count them, find one with
	 * an argument nobody reads (the probe is left out), and one with an
	 * argument libbpf does not parse (it refuses the whole probe, so
	 * ksnoop attaches every site of it itself).
	 */
	for (i = 0; i < n; i = k) {
		const struct usdt_probe *bad = NULL;
		char why[USDT_WHY_MAX];
		bool own = false;
		int bad_arg = 0;

		for (k = i; k < n && !same_probe(prs[i].pr, prs[k].pr); k++)
			for (int a = 0; a < prs[k].pr->nargs && !bad; a++) {
				const struct usdt_arg *arg = &prs[k].pr->args[a];

				if (usdt__arg_unreadable(arg, why)) {
					bad = prs[k].pr;
					bad_arg = a;
				}
				own |= !usdt__arg_libbpf(arg);
			}
		for (int j = i; j < k; j++) {
			prs[j].nsites = k - i;
			prs[j].unreadable = bad;
			prs[j].bad_arg = bad_arg;
			prs[j].own_attach = own && !bad;
		}
	}
	k = 0;
	for (i = 0; i < n; i++) {
		if (k && !same_probe(prs[k - 1].pr, prs[i].pr)) {
			if (!same_types(prs[k - 1].pr, prs[i].pr)) {
				prs[k - 1].ntyped++;
				continue;
			}
			prs[k - 1].typed_sites = prs[i].typed_sites = true;
		}
		prs[i].ntyped = 1;
		prs[k++] = prs[i];
	}
	qsort(prs, k, sizeof(*prs), place_cmp);
	return k;
}

int usdt_front__match(struct usdt_front *fe, const struct spec *spec, int pid,
		      struct usdt_match **out, struct ks_error *e)
{
	char bin[PATH_MAX], prov[SPEC_MAX_NAME + 1], name[SPEC_MAX_NAME + 1], path[PATH_MAX];
	struct probe_ref *prs;
	struct usdt_match *ms = NULL;
	struct usdt_bin *b;
	int i, n = 0, err = 0;

	*out = NULL;
	err = split_target(spec->target, bin, sizeof(bin), prov, sizeof(prov), name, sizeof(name));
	switch (err) {
	case 0:
		break;
	case -ENAMETOOLONG:
		return ks_fail(e, -EINVAL, "the path is longer than %d bytes", PATH_MAX - 1);
	case -E2BIG:
		return ks_fail(e, -EINVAL, "the provider name is longer than %d characters",
			       SPEC_MAX_NAME);
	case -EOVERFLOW:
		return ks_fail(e, -EINVAL, "the probe name is longer than %d characters",
			       SPEC_MAX_NAME);
	default:
		/* BINARY:FUNC is a function of the binary, not a probe. */
		if (strchr(spec->target, ':') && strchr(spec->target, ':') == strrchr(spec->target, ':'))
			return ks_fail(e, -EINVAL, "expected BINARY:PROVIDER:NAME, got '%s'; a function of a program or library is traced as \"u:%s\"",
				       spec->target, spec->target);
		return ks_fail(e, -EINVAL, "expected BINARY:PROVIDER:NAME, got '%s'", spec->target);
	}
	snprintf(path, sizeof(path), "%s", bin);
	/* With -p, a library may be named as the process has it mapped. */
	if (pid > 0 && !strchr(bin, '/'))
		usdt__process_object_named(pid, bin, lib_file_named, path, sizeof(path));
	b = get_bin(fe, path, e);
	if (!b)
		return e->err;
	if (!b->notes->nprobes)
		return ks_fail(e, -ESRCH, "'%s' has no USDT probes", path);
	n = matching_probes(b->notes, prov, name, &prs);
	ms = n > 0 ? calloc(n, sizeof(*ms)) : NULL;
	if (n < 0 || (n && !ms)) {
		free(prs);
		return ks_fail(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		err = fill_match(b, prs[i].pr, spec, &ms[i], e);
		ms[i].typed_sites = prs[i].typed_sites;
		ms[i].nsites = prs[i].nsites;
		ms[i].ntyped = prs[i].ntyped;
		ms[i].own_attach = prs[i].own_attach;
		ms[i].glob = strpbrk(prov, "*?[") || strpbrk(name, "*?[");
		if (prs[i].unreadable) {
			const struct usdt_arg *arg = &prs[i].unreadable->args[prs[i].bad_arg];
			char why[USDT_WHY_MAX];

			snprintf(ms[i].unreadable, sizeof(ms[i].unreadable),
				 "arg%d is at '%s', %s, which libbpf cannot read", prs[i].bad_arg,
				 arg->loc, usdt__arg_unreadable(arg, why));
		}
		if (err) {
			free(prs);
			free(ms);
			return err;
		}
	}
	free(prs);
	if (!n)
		return ks_fail(e, -ESRCH, "no USDT probe '%s:%s' in '%s'", prov, name, path);
	*out = ms;
	return n;
}

/* A BTF of ours on top of VARS' (the front end keeps it), or NULL. */
static struct btf *var_btf(struct usdt_front *fe, const struct sig_vars *vars)
{
	struct btf **v = realloc(fe->var_btfs, (fe->nvar_btfs + 1) * sizeof(*v));

	if (!v)
		return NULL;
	fe->var_btfs = v;
	v[fe->nvar_btfs] = btf__new_empty_split((struct btf *)vars->btf);
	return v[fe->nvar_btfs] ? v[fe->nvar_btfs++] : NULL;
}

int usdt_front__type_vars(struct usdt_front *fe, struct usdt_match *ms, int n,
			  const struct sig_vars *vars, struct ks_error *e)
{
	struct usdt_bin b = {};
	int i, k, id;

	if (!vars->n)
		return 0;
	b.btf = var_btf(fe, vars);
	if (!b.btf)
		return ks_fail(e, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		struct signature *sig = &ms[i].sig;

		for (k = 0; k < sig->nparams; k++) {
			const struct btf_type *t = btf__type_by_id(sig->btf, sig->params[k].type_id);

			id = t ? int_type(&b, t->size, btf_int_encoding(t) & BTF_INT_SIGNED) : 0;
			if (!id)
				return ks_fail(e, -ENOMEM, "out of memory");
			sig->params[k].type_id = id;
		}
		sig->btf = b.btf;
		sig->vars = vars->v;
		sig->nvars = vars->n;
		sig->uvar_tls_delta = vars->tls_delta;
		sig->uvar_rseq_off = vars->rseq_off;
		ms[i].has_btf = true;
	}
	return 0;
}
