// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The call sites of a USDT probe that libbpf refuses, made ready for
 * ksnoop to attach itself (usdt_specs.h).  Everything comes from the file:
 * the notes (usdt_note.c), the load segments and the symbols that locations
 * name (usym_elf.c's bounded reader).  What is x86-64 about a location is
 * decoded by usdt_arch__parse_loc(); this file only places the pieces.
 *
 * Sites are where usdt__read_fd() says: moved, as libbpf moves them, by
 * .stapsdt.base's address less the note's base (only prelink made them
 * differ), so a %rip symbol is found from the site where the file has it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "ksnoop_usdt.h"
#include "usdt_specs.h"
#include "usym_elf.h"

/* libbpf's enum __bpf_usdt_arg_type (usdt.bpf.h). */
enum { BPF_USDT_ARG_CONST, BPF_USDT_ARG_REG, BPF_USDT_ARG_REG_DEREF };

int usdt_own__arg_spec(const struct usdt_arg *arg, __u64 pc, __u64 sym_addr,
		       struct usdt_bpf_arg *out, const char **why)
{
	char buf[USDT_WHY_MAX];
	struct usdt_loc l;
	int shift;

	memset(out, 0, sizeof(*out));
	*why = usdt__arg_unreadable(arg, buf);
	if (*why)
		return -EINVAL;
	*why = usdt_arch__parse_loc(arg->loc, &l);
	if (*why)
		return -EINVAL;
	out->arg_signed = arg->is_signed;
	out->arg_bitshift = 64 - 8 * arg->size;
	switch (l.kind) {
	case USDT_LOC_CONST:
		out->arg_type = BPF_USDT_ARG_CONST;
		out->val_off = l.off;
		return 0;
	case USDT_LOC_REG:
		out->arg_type = BPF_USDT_ARG_REG;
		out->reg_off = l.base;
		return 0;
	case USDT_LOC_MEM:
		break;
	}
	if (l.index < 0) {
		/* At the uprobe, the IP is the site's run-time address. */
		out->arg_type = BPF_USDT_ARG_REG_DEREF;
		out->reg_off = l.base;
		out->val_off = l.off + (l.sym[0] ? sym_addr - pc : 0);
		return 0;
	}
	if (l.off < INT32_MIN || l.off > INT32_MAX) {
		*why = "an offset wider than 32 bits";
		return -EINVAL;
	}
	shift = l.scale == 8 ? 3 : l.scale == 4 ? 2 : l.scale == 2 ? 1 : 0;
	out->arg_type = KSNOOP_USDT_ARG_INDEXED;
	out->reg_off = l.base < 0 ? 0 : l.base;
	out->val_off = KSNOOP_USDT_IDX_PACK(l.off, l.index, shift) |
		       (l.base < 0 ? KSNOOP_USDT_IDX_NOBASE : 0);
	return 0;
}

static bool is_probe(const struct usdt_probe *pr, const char *provider, const char *name)
{
	return !strcmp(pr->provider, provider) && !strcmp(pr->name, name);
}

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct usym_named *)a)->name, ((const struct usym_named *)b)->name);
}

/*
 * The symbols the sites' locations name, each once and sorted, into
 * *LOOK (names point into LOCS, which holds the decoded locations).
 */
static int symbols_named(const struct usdt_file *f, const char *provider, const char *name,
			 struct usdt_loc *locs, struct usym_named **look, size_t *nlook)
{
	size_t n = 0, i, k;
	struct usym_named *v;
	int p, a;

	*look = NULL;
	*nlook = 0;
	for (p = 0; p < f->nprobes; p++) {
		if (!is_probe(&f->probes[p], provider, name))
			continue;
		for (a = 0; a < f->probes[p].nargs; a++)
			if (!usdt_arch__parse_loc(f->probes[p].args[a].loc, &locs[n]) && locs[n].sym[0])
				n++;
	}
	if (!n)
		return 0;
	v = calloc(n, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		v[i].name = locs[i].sym;
	qsort(v, n, sizeof(*v), cmp_named);
	for (i = k = 0; i < n; i++)
		if (!k || strcmp(v[k - 1].name, v[i].name))
			v[k++] = v[i];
	*look = v;
	*nlook = k;
	return 0;
}

/* The link-time address of SYM, from LOOK; 0 or -ENOEXEC with E. */
static int symbol_addr(const struct usym_named *look, size_t nlook, const char *sym,
		       const char *path, __u64 *addr, struct ks_error *e)
{
	struct usym_named key = { .name = sym };
	const struct usym_named *l = bsearch(&key, look, nlook, sizeof(*look), cmp_named);

	if (!l || !l->found)
		return ks_fail(e, -ENOEXEC, "symbol '%s' is not in the symbol tables of '%s'", sym,
			       path);
	if (l->ambiguous)
		return ks_fail(e, -ENOEXEC, "'%s' has two symbols '%s' at different addresses", path,
			       sym);
	*addr = l->addr;
	return 0;
}

/* One site's offsets and spec; 0, or a negative errno with E. */
static int fill_site(const struct usdt_probe *pr, const struct usym_obj *o,
		     const struct usym_named *look, size_t nlook, const char *path, __u64 cookie,
		     struct usdt_own_site *s, struct ks_error *e)
{
	int a, err;

	if (!usym_obj__file_off(o, pr->pc, &s->file_off))
		return ks_fail(e, -ENOEXEC, "'%s': USDT probe %s:%s at 0x%llx is in no loaded segment",
			       path, pr->provider, pr->name, (unsigned long long)pr->pc);
	if (pr->sema && !usym_obj__file_off(o, pr->sema, &s->sema_off))
		return ks_fail(e, -ENOEXEC,
			       "'%s': the semaphore of USDT probe %s:%s at 0x%llx is in no loaded segment",
			       path, pr->provider, pr->name, (unsigned long long)pr->sema);
	s->pc = pr->pc;
	s->spec.usdt_cookie = cookie;
	s->spec.arg_cnt = pr->nargs;
	for (a = 0; a < pr->nargs; a++) {
		struct usdt_loc l;
		const char *why;
		__u64 sym = 0;

		if (!usdt_arch__parse_loc(pr->args[a].loc, &l) && l.sym[0]) {
			err = symbol_addr(look, nlook, l.sym, path, &sym, e);
			if (err)
				return err;
		}
		if (usdt_own__arg_spec(&pr->args[a], pr->pc, sym, &s->spec.args[a], &why))
			return ks_fail(e, -ENOEXEC, "USDT probe %s:%s: arg%d is at '%s', %s", pr->provider,
				       pr->name, a, pr->args[a].loc, why);
	}
	return 0;
}

int usdt_own__sites(int fd, const char *path, const char *provider, const char *name,
		    __u64 cookie, struct usdt_own_site **out, struct ks_error *e)
{
	struct usdt_own_site *sites = NULL;
	struct usym_named *look = NULL;
	struct usdt_loc *locs = NULL;
	struct usym_obj o = {};
	struct usdt_file *f;
	size_t nlook = 0;
	struct stat st;
	int err, p, n = 0, nsites = 0, nargs = 0;

	*out = NULL;
	err = usdt__read_fd(fd, path, &f, e);
	if (err)
		return err;
	for (p = 0; p < f->nprobes; p++)
		if (is_probe(&f->probes[p], provider, name)) {
			nsites++;
			nargs += f->probes[p].nargs;
		}
	if (!nsites) {
		err = ks_fail(e, -ESRCH, "no USDT probe '%s:%s' in '%s'", provider, name, path);
		goto out;
	}
	sites = calloc(nsites, sizeof(*sites));
	locs = calloc(nargs ? nargs : 1, sizeof(*locs));
	if (!sites || !locs) {
		err = ks_fail(e, -ENOMEM, "out of memory");
		goto out;
	}
	err = symbols_named(f, provider, name, locs, &look, &nlook);
	if (!err && fstat(fd, &st))
		err = -errno;
	if (!err)
		err = usym_elf__lookup(fd, st.st_size, look, nlook, &o);
	if (err == -ENOMEM) {
		ks_fail(e, err, "out of memory");
		goto out;
	}
	if (err) {
		err = ks_fail(e, -ENOEXEC, "'%s': cannot read its load segments and symbols (%s)",
			      path, strerror(-err));
		goto out;
	}
	for (p = 0; p < f->nprobes && !err; p++)
		if (is_probe(&f->probes[p], provider, name))
			err = fill_site(&f->probes[p], &o, look, nlook, path, cookie, &sites[n++], e);
out:
	usym_obj__free(&o);
	free(look);
	free(locs);
	usdt__free(f);
	if (err) {
		free(sites);
		return err;
	}
	*out = sites;
	return n;
}
