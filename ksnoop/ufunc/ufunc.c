// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * User functions as targets (ufunc.h).  The file is untrusted: opened once
 * (usdt__open(): a regular file, never a FIFO), its symbols read by the
 * bounded ELF reader, never mapped; the uprobe attaches through the
 * opened file's /proc/self/fd link, so the file traced is the file read.
 * The loader's cache is untrusted too, in the sense that it is read with
 * every offset checked against what was read.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "dwarf_btf.h"
#include "demangle.h"
#include "ufunc.h"
#include "usdt_note.h"
#include "usym_elf.h"

/* Entries of one standard library directory looked at, at most. */
#define UFUNC_MAX_DIRENTS	65536

struct ufunc_bin {
	char *path;
	char *fd_path;
	int fd;
	dev_t dev;
	ino_t ino;
	struct usym_obj obj;
	/* Its debug information (dwarf_btf.h), opened at the first function typed. */
	struct dwbtf *dw;
	bool dw_tried;
	char *dw_where;		/* where the types came from, or why there are none */
	char *dw_why;		/* dwbtf's error where there are none: where it looked */
	/* Its separate debug file's symbols (debug_syms()), read once where named. */
	struct usym_obj dbg;
	bool dbg_tried, has_dbg;
	/* Each symbol's C++ names (demangle.h), NULL where it has none: symbol i's at i. */
	char **plain;
	char **full;
};

struct ufunc_front {
	struct ufunc_bin *bins;
	int nbins;
	/* Each spec's signatures' BTF (untyped_sigs(), typed_btf()), kept for their plans. */
	struct btf **btfs;
	int nbtfs;
	/* Why functions are untyped or refused (ufunc_match's where, refused), kept. */
	char **notes;
	int nnotes;
};

static void free_names(struct ufunc_bin *b)
{
	size_t i;

	for (i = 0; b->plain && i < b->obj.nsyms; i++) {
		free(b->plain[i]);
		free(b->full[i]);
	}
	free(b->plain);
	free(b->full);
}

struct ufunc_front *ufunc_front__new(void)
{
	return calloc(1, sizeof(struct ufunc_front));
}

void ufunc_front__free(struct ufunc_front *fe)
{
	int i;

	if (!fe)
		return;
	for (i = 0; i < fe->nbins; i++) {
		usym_obj__free(&fe->bins[i].obj);
		usym_obj__free(&fe->bins[i].dbg);
		if (fe->bins[i].fd >= 0)
			close(fe->bins[i].fd);
		free(fe->bins[i].path);
		free(fe->bins[i].fd_path);
		dwbtf__close(fe->bins[i].dw);
		free(fe->bins[i].dw_where);
		free(fe->bins[i].dw_why);
		free_names(&fe->bins[i]);
	}
	free(fe->bins);
	for (i = 0; i < fe->nbtfs; i++)
		btf__free(fe->btfs[i]);
	free(fe->btfs);
	for (i = 0; i < fe->nnotes; i++)
		free(fe->notes[i]);
	free(fe->notes);
	free(fe);
}

const char *ufunc_match__types_where(const struct ufunc_match *m)
{
	if (m->where)
		return m->where;
	if (m->refused)
		return m->refused;
	return m->typed ? "its debug info" : "untyped: arguments arg0..arg5 are integers";
}

/* ---- finding BINARY ---- */

#if defined(__x86_64__)
#define LDCACHE_ARCH	0x0300	/* FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
#define LDCACHE_ARCH	0x0a00	/* FLAG_AARCH64_LIB64 */
#else
#define LDCACHE_ARCH	0
#endif
#define LDCACHE_MAGIC	"glibc-ld.so.cache1.1"
#define LDCACHE_HEADER	48	/* magic, version, nlibs, len_strings, flags, ... */
#define LDCACHE_ENTRY	24	/* flags, key, value, osversion, hwcap */

/* Is FILE (a soname or a file name) what NAME names: NAME itself, or NAME.so*? */
static bool lib_name_matches(const char *file, const char *name)
{
	size_t n = strlen(name);

	return strcmp(file, name) == 0 ||
	       (strncmp(file, name, n) == 0 && strncmp(file + n, ".so", 3) == 0);
}

static const char *ldcache_str(const char *buf, size_t len, size_t base, __u32 off)
{
	if (off >= len - base || !memchr(buf + base + off, 0, len - base - off))
		return NULL;
	return buf + base + off;
}

/* NAME in the loader's cache (glibc's format 1.1), every offset checked. */
static int ldcache_find(const char *buf, size_t len, const char *name, char *out, size_t sz)
{
	const char *m = memmem(buf, len, LDCACHE_MAGIC, strlen(LDCACHE_MAGIC));
	size_t base, i;
	__u32 nlibs;

	if (!m || (size_t)(m - buf) > len - LDCACHE_HEADER)
		return -ENOENT;
	base = m - buf;
	memcpy(&nlibs, buf + base + 20, 4);
	if (nlibs > (len - base - LDCACHE_HEADER) / LDCACHE_ENTRY)
		return -EINVAL;
	for (i = 0; i < nlibs; i++) {
		const char *ent = buf + base + LDCACHE_HEADER + i * LDCACHE_ENTRY;
		__s32 flags;
		__u32 key, value;
		const char *k, *v;

		memcpy(&flags, ent, 4);
		memcpy(&key, ent + 4, 4);
		memcpy(&value, ent + 8, 4);
		if ((flags & 0xff) != 3 || (LDCACHE_ARCH && (flags & 0xff00) != LDCACHE_ARCH))
			continue;
		k = ldcache_str(buf, len, base, key);
		v = ldcache_str(buf, len, base, value);
		if (k && v && lib_name_matches(k, name) && strlen(v) < sz) {
			snprintf(out, sz, "%s", v);
			return 0;
		}
	}
	return -ENOENT;
}

static int ldcache_lookup(const char *name, char *out, size_t sz)
{
	int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf;
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < LDCACHE_HEADER ||
	    (unsigned long long)st.st_size > UFUNC_MAX_LDCACHE) {
		close(fd);
		return -ENOENT;
	}
	buf = malloc(st.st_size);
	n = buf ? pread(fd, buf, st.st_size, 0) : -1;
	close(fd);
	err = n == st.st_size ? ldcache_find(buf, n, name, out, sz) : -EIO;
	free(buf);
	return err;
}

/* NAME in the standard directories, as the loader looks when the cache has not got it. */
static int stddirs_lookup(const char *name, char *out, size_t sz)
{
	static const char *const dirs[] = {
#if defined(__x86_64__)
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
		"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
#endif
		"/lib64", "/usr/lib64", "/lib", "/usr/lib",
	};
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;
		int seen = 0, found = 0;

		if (!d)
			continue;
		while (!found && seen++ < UFUNC_MAX_DIRENTS && (de = readdir(d)))
			if (lib_name_matches(de->d_name, name) &&
			    (size_t)snprintf(out, sz, "%s/%s", dirs[i], de->d_name) < sz)
				found = 1;
		closedir(d);
		if (found)
			return 0;
	}
	return -ENOENT;
}

/* BINARY as a file: a path as given, a library's name where the loader (or PID) has it. */
static int find_binary(const struct spec *s, int pid, char *out, size_t sz, struct ks_error *e)
{
	if (strchr(s->binary, '/')) {
		snprintf(out, sz, "%s", s->binary);
		return 0;
	}
	/* With PID: the first object it maps whose file name is NAME or NAME.so*. */
	if (pid > 0 && !usdt__process_object_named(pid, s->binary, lib_name_matches, out, sz))
		return 0;
	if (!ldcache_lookup(s->binary, out, sz) || !stddirs_lookup(s->binary, out, sz))
		return 0;
	ks_fail(e, -ENOENT, "no library '%s'%s in the loader's cache or directories (a program is named by its path: './%s')",
		s->binary, pid > 0 ? " mapped by that process," : "", s->binary);
	e->pos = s->binary_pos;
	return e->err;
}

/*
 * B's C++ names, each symbol's demangled once (names a spec matches, names
 * shown); functions only, as the matching reads them.  0 or -ENOMEM.
 */
static int demangle_names(struct ufunc_bin *b)
{
	const struct usym_obj *o = &b->obj;
	char buf[DEMANGLE_MAX_OUT];
	size_t i;

	if (!demangle__available() || !o->nsyms)
		return 0;
	b->plain = calloc(o->nsyms, sizeof(*b->plain));
	b->full = calloc(o->nsyms, sizeof(*b->full));
	if (!b->plain || !b->full)
		return -ENOMEM;
	for (i = 0; i < o->nsyms; i++) {
		const char *name = o->strtab + o->syms[i].name;

		if (!o->syms[i].size || !demangle__cxx(name, false, buf, sizeof(buf)))
			continue;
		b->plain[i] = strdup(buf);
		if (!b->plain[i])
			return -ENOMEM;
		if (demangle__cxx(name, true, buf, sizeof(buf)) && !(b->full[i] = strdup(buf)))
			return -ENOMEM;
	}
	return 0;
}

/* Symbol I of B as shown: its C++ name with its parameters, else its own. */
static const char *shown_name(const struct ufunc_bin *b, size_t i)
{
	if (b->full && b->full[i])
		return b->full[i];
	if (b->plain && b->plain[i])
		return b->plain[i];
	return b->obj.strtab + b->obj.syms[i].name;
}

/* Symbol I of B named as a typed prototype names it: C++ without its parameters. */
static const char *plain_name(const struct ufunc_bin *b, size_t i)
{
	if (b->plain && b->plain[i])
		return b->plain[i];
	return b->obj.strtab + b->obj.syms[i].name;
}

/* The file at PATH, opened and its symbols read once. */
static struct ufunc_bin *get_bin(struct ufunc_front *fe, const char *path, struct ks_error *e)
{
	struct ufunc_bin *b, *bins;
	struct stat st;
	int i, fd, err;

	for (i = 0; i < fe->nbins; i++)
		if (strcmp(fe->bins[i].path, path) == 0)
			return &fe->bins[i];
	fd = usdt__open(path, e);
	if (fd < 0)
		return NULL;
	bins = fstat(fd, &st) ? NULL : realloc(fe->bins, (fe->nbins + 1) * sizeof(*bins));
	if (!bins) {
		close(fd);
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	fe->bins = bins;
	b = &bins[fe->nbins++];
	memset(b, 0, sizeof(*b));
	b->fd = fd;
	b->dev = st.st_dev;
	b->ino = st.st_ino;
	b->path = strdup(path);
	if (asprintf(&b->fd_path, "/proc/self/fd/%d", fd) < 0)
		b->fd_path = NULL;
	if (!b->path || !b->fd_path) {
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	err = usym_obj__read(&b->obj, fd, NULL, st.st_size);
	err = err ?: demangle_names(b);
	if (err == -ENOMEM)
		ks_fail(e, err, "out of memory");
	else if (err == -ENOENT)
		ks_fail(e, -ENOEXEC, "'%s' has no symbol table (.symtab or .dynsym): its functions have no names", path);
	else if (err)
		ks_fail(e, -ENOEXEC, "'%s' is not an ELF file whose symbols can be read (%s)", path,
			strerror(-err));
	return err ? NULL : b;
}

/* ---- signatures ---- */

/* M's signature from FUNC ID of BTF, named as the user named it; a probe inside has no return. */
static int match_sig(struct ufunc_match *m, const struct btf *btf, __u32 id, struct ks_error *e)
{
	int err = signature__from_func(btf, id, &m->sig, e);

	if (err)
		return err;
	/* A probe inside the function is named by its offset, as the spec gave it. */
	if (m->off)
		snprintf(m->sig.name, sizeof(m->sig.name), "%.*s+0x%llx", SPEC_MAX_NAME - 20,
			 m->shown, (unsigned long long)m->off);
	else
		snprintf(m->sig.name, sizeof(m->sig.name), "%s", m->shown);
	snprintf(m->sig.attach, sizeof(m->sig.attach), "%s", m->name);
	m->sig.has_return = !m->off;
	return 0;
}

/* A BTF the front end keeps for its plans; NULL when out of memory (BTF freed). */
static struct btf *keep_btf(struct ufunc_front *fe, struct btf *btf)
{
	struct btf **bv = btf ? realloc(fe->btfs, (fe->nbtfs + 1) * sizeof(*bv)) : NULL;

	if (!bv) {
		btf__free(btf);
		return NULL;
	}
	fe->btfs = bv;
	fe->btfs[fe->nbtfs++] = btf;
	return btf;
}

/*
 * The untyped signatures of one spec's matches (those debug info did not
 * type), in a BTF of their own: long FUNC(unsigned long arg0, ..., unsigned
 * long arg5).  Every FUNC is added before any signature is read: a
 * signature's names point into the BTF's strings, which adding moves.
 */
static int untyped_sigs(struct ufunc_front *fe, struct ufunc_match *ms, int n,
			struct ks_error *e)
{
	struct btf *btf = keep_btf(fe, btf__new_empty());
	__u32 *ids = calloc(n > 0 ? n : 1, sizeof(*ids));
	int ulong, slong, proto, i, err = 0;

	if (!btf || !ids) {
		free(ids);
		return ks_fail(e, -ENOMEM, "out of memory");
	}
	ulong = btf__add_int(btf, "unsigned long", 8, 0);
	slong = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	proto = ulong > 0 && slong > 0 ? btf__add_func_proto(btf, slong) : -ENOMEM;
	for (i = 0; i < UFUNC_UNTYPED_ARGS && proto > 0 && !err; i++)
		err = btf__add_func_param(btf, signature__arg_name(i), ulong);
	for (i = 0; i < n && proto > 0 && !err; i++) {
		int id = ms[i].typed ? 0 : btf__add_func(btf, ms[i].shown, BTF_FUNC_GLOBAL, proto);

		err = id < 0 ? id : 0;
		ids[i] = id;
	}
	for (i = 0; i < n && proto > 0 && !err; i++)
		if (!ms[i].typed)
			err = match_sig(&ms[i], btf, ids[i], e);
	free(ids);
	if (proto < 0 || (err && !e->err))
		return ks_fail(e, -ENOMEM, "out of memory");
	return err;
}

/* A line of text the front end keeps (a match's where or refused); NULL when out of memory. */
static const char *keep_note(struct ufunc_front *fe, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static const char *keep_note(struct ufunc_front *fe, const char *fmt, ...)
{
	char **notes = realloc(fe->notes, (fe->nnotes + 1) * sizeof(*notes));
	va_list ap;
	int n;

	if (!notes)
		return NULL;
	fe->notes = notes;
	va_start(ap, fmt);
	n = vasprintf(&notes[fe->nnotes], fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : notes[fe->nnotes++];
}

/* SIZE zeroed bytes the front end keeps with its notes; NULL when out of memory. */
static void *keep_zeroed(struct ufunc_front *fe, size_t size)
{
	char **notes = realloc(fe->notes, (fe->nnotes + 1) * sizeof(*notes));

	if (!notes)
		return NULL;
	fe->notes = notes;
	notes[fe->nnotes] = calloc(1, size);
	return notes[fe->nnotes] ? notes[fe->nnotes++] : NULL;
}

/* B's debug information, opened once; NULL where it has none (B->dw_where says where it looked). */
static struct dwbtf *bin_dwarf(struct ufunc_bin *b)
{
	struct ks_error e = {};
	int n;

	if (b->dw_tried)
		return b->dw;
	b->dw_tried = true;
	if (dwbtf__open_fd(b->fd, b->path, NULL, &b->dw, &e)) {
		b->dw = NULL;
		b->dw_why = strdup(e.msg);
		n = asprintf(&b->dw_where, "no debug info (%s): arguments arg0..arg5 are integers",
			     e.msg);
	} else {
		n = asprintf(&b->dw_where, "types from %s", dwbtf__source(b->dw));
	}
	if (n < 0)
		b->dw_where = NULL;
	return b->dw;
}

/*
 * The symbols of B's separate debug file, read once by the same bounded
 * reader: Debian's libc6-dbg has the .symtab whose local functions (the
 * implementations an IFUNC picks from, __strlen_avx2 ...) the library's
 * .dynsym leaves out.  Its addresses are the library's.  NULL where B has
 * no separate debug file, or it cannot be read.
 */
static const struct usym_obj *debug_syms(struct ufunc_bin *b)
{
	struct ks_error e = {};
	const char *src;
	struct stat st;
	int fd;

	if (b->dbg_tried)
		return b->has_dbg ? &b->dbg : NULL;
	b->dbg_tried = true;
	src = bin_dwarf(b) ? dwbtf__source(b->dw) : NULL;
	if (!src || strcmp(src, b->path) == 0 || strstr(src, " (.BTF)"))
		return NULL;
	fd = usdt__open(src, &e);
	if (fd < 0)
		return NULL;
	b->has_dbg = !fstat(fd, &st) && !usym_obj__read(&b->dbg, fd, NULL, st.st_size);
	close(fd);
	return b->has_dbg ? &b->dbg : NULL;
}

/* Up to UFUNC_IFUNC_LISTED names of O's functions named __NAME_*, ", "-joined onto BUF. */
static int ifunc_candidates(const struct usym_obj *o, const char *name, char *buf, size_t sz,
			    int found)
{
	size_t i, n = strlen(name), len;

	for (i = 0; o && i < o->nsyms; i++) {
		const char *s = o->strtab + o->syms[i].name;

		if (!o->syms[i].size || o->syms[i].ifunc || strncmp(s, "__", 2) ||
		    strncmp(s + 2, name, n) || s[2 + n] != '_')
			continue;
		len = strlen(buf);
		if (found < UFUNC_IFUNC_LISTED)
			snprintf(buf + len, sz - len, "%s%s", found ? ", " : "", s);
		found++;
	}
	return found;
}

/*
 * M, an IFUNC: a uprobe there fires once, when the loader runs its
 * resolver, never for a call (calls go where the resolver pointed them).
 * Refused, naming the implementations found (__NAME_*) to trace instead.
 */
static int refuse_ifunc(struct ufunc_bin *b, const struct ufunc_match *m, struct ks_error *e)
{
	char cands[512] = "";
	int n = ifunc_candidates(&b->obj, m->name, cands, sizeof(cands), 0);

	n = ifunc_candidates(debug_syms(b), m->name, cands, sizeof(cands), n);
	if (!n)
		return ks_fail(e, -EINVAL, "'%s' is an IFUNC in '%s': its resolver runs once, at load, and picks the implementation calls go to; trace that implementation (no function '__%s_*' found in the file or its debug file)",
			       m->shown, b->path, m->name);
	return ks_fail(e, -EINVAL, "'%s' is an IFUNC in '%s': its resolver runs once, at load, and picks the implementation calls go to; trace that implementation: %s%s",
		       m->shown, b->path, cands, n > UFUNC_IFUNC_LISTED ? ", ..." : "");
}

/*
 * What the ABI puts where a uprobe does not read (x86-64 and arm64: a
 * struct, union or floating-point return is not in rax/x0, an argument
 * wider than a register takes a pair or the stack by rules of its own):
 * WHY filled and true, or false.  dwbtf refuses such parameters by value
 * already; the return and the width are ours to check.
 */
static bool unplaceable(const struct btf *btf, __u32 func_id, char *why, size_t sz)
{
	const struct btf_type *fn = btf__type_by_id(btf, func_id);
	const struct btf_type *proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	const struct btf_type *t;
	const struct btf_param *p;
	int i, ret;

	if (!proto || !btf_is_func_proto(proto))
		return snprintf(why, sz, "has no prototype"), true;
	ret = proto->type ? btf__resolve_type(btf, proto->type) : 0;
	t = ret > 0 ? btf__type_by_id(btf, ret) : NULL;
	if (t && (btf_is_struct(t) || btf_is_union(t) || btf_is_float(t)))
		return snprintf(why, sz, "returns a %s by value, which the ABI does not return in %s",
				btf_is_float(t) ? "floating-point value" : "struct or union",
				"the integer register a uretprobe reads"), true;
	p = btf_params(proto);
	for (i = 0; i < btf_vlen(proto); i++)
		if (p[i].type && btf__resolve_size(btf, p[i].type) > 8)
			return snprintf(why, sz, "parameter %d '%s' is wider than a register (%lld bytes)",
					i + 1, btf__name_by_offset(btf, p[i].name_off) ?: "",
					(long long)btf__resolve_size(btf, p[i].type)), true;
	return false;
}

/* E, dwbtf's refusal naming M by its symbol: named as shown instead (C++ demangled). */
static int shown_in_error(struct ks_error *e, const struct ufunc_match *m)
{
	char sym[SPEC_MAX_NAME + 3], *at;
	struct ks_error named = *e;

	snprintf(sym, sizeof(sym), "'%s'", m->name);
	at = strcmp(m->name, m->shown) ? strstr(e->msg, sym) : NULL;
	if (!at)
		return e->err;
	return ks_fail(e, named.err, "%.*s'%s'%s", (int)(at - e->msg), named.msg, m->shown,
		       named.msg + (at - e->msg) + strlen(sym));
}

/*
 * M typed from B's debug info: 1 with *ID its FUNC in the debug info's
 * BTF; 0 untyped (M->where says why: no debug info, none for M, a probe
 * inside a function, a compiler's clone, static namesakes); or a negative errno with E, the
 * debug info refusing it (a struct by value, a variadic tail ...).
 */
static int type_match(struct ufunc_front *fe, struct ufunc_bin *b, struct ufunc_match *m,
		      __u32 *id, struct ks_error *e)
{
	struct dwbtf *dw;
	char why[200];
	int err;

	if (m->ifunc)
		return refuse_ifunc(b, m, e);
	if (m->off) {
		m->where = "a probe inside a function: arguments arg0..arg5 are integers, the registers there";
		return 0;
	}
	/* gcc's f.constprop.0, f.isra.0, f.part.0, f.cold: not the declaration's ABI. */
	if (strchr(m->name, '.')) {
		m->where = keep_note(fe, "'%s' is a compiler's copy whose arguments need not be its declaration's: arguments arg0..arg5 are integers",
				     m->shown);
		return 0;
	}
	/* Static functions of one name: dwbtf finds one by name, maybe the other. */
	if (m->namesakes > 1) {
		m->where = keep_note(fe, "%d functions are named '%s' and its debug info is looked up by name: arguments arg0..arg5 are integers",
				     m->namesakes, m->shown);
		return 0;
	}
	dw = bin_dwarf(b);
	if (!dw) {
		m->where = b->dw_where;
		return 0;
	}
	err = dwbtf__func(dw, m->name, id, e);
	if (err == -ENOENT) {
		m->where = keep_note(fe, "%s: arguments arg0..arg5 are integers", e->msg);
		memset(e, 0, sizeof(*e));
		return 0;
	}
	if (err)
		return shown_in_error(e, m);
	if (unplaceable(dwbtf__btf(dw), *id, why, sizeof(why)))
		return ks_fail(e, -EINVAL, "'%s': '%s' %s: not traced", b->path, m->shown, why);
	m->where = b->dw_where;
	return 1;
}

/*
 * A copy of the debug info's BTF as it is now: the signatures point into
 * its strings, which the next function converted (another spec's) would
 * move in the original.
 */
static struct btf *typed_btf(struct ufunc_front *fe, struct dwbtf *dw)
{
	__u32 size;
	const void *raw = btf__raw_data(dwbtf__btf(dw), &size);

	return keep_btf(fe, raw ? btf__new(raw, size) : NULL);
}

/* A glob's match refused: left out with why (add_ufunc_spec()), not the spec's error. */
static int refuse_match(struct ufunc_front *fe, struct ufunc_match *m, struct ks_error *e)
{
	if (!m->glob || e->err == -ENOMEM)
		return e->err;
	m->refused = keep_note(fe, "%s", e->msg) ?: "refused by its debug info";
	m->typed = false;
	memset(e, 0, sizeof(*e));
	return 0;
}

/* ---- variables (@NAME, @tls:NAME) ---- */

/* Where the executable's thread-local variables are (sig_vars). */
struct tls_place {
	__s64 delta;		/* its TLS block from the thread pointer */
	__u64 rseq_off;		/* glibc's __rseq_offset, 0: none */
};

/*
 * The link-time address of glibc's __rseq_offset in B (a static glibc's;
 * a dynamic one keeps it in the loader), or 0: the distance from a
 * thread's pointer to the rseq area it registers with the kernel, which
 * the capture program reads where the kernel's copy of the thread pointer
 * may be stale (arm64's tpidr_el0: the pre-exec value until the thread
 * first leaves the CPU).
 */
static __u64 rseq_offset_var(const struct ufunc_bin *b)
{
	struct usym_named look = { .name = "__rseq_offset" };
	struct usym_obj o = {};
	struct stat st;
	int err;

	if (fstat(b->fd, &st))
		return 0;
	err = usym_elf__lookup(b->fd, st.st_size, &look, 1, &o);
	usym_obj__free(&o);
	return !err && look.found && !look.ambiguous && !look.tls ? look.addr : 0;
}

/*
 * Where the executable's TLS block starts from the thread pointer, from
 * its PT_TLS: the loader gives the executable the first block, at a place
 * the ABI fixes; a library's block it places at run time (not known here).
 */
static int tls_place(const struct ufunc_bin *b, struct tls_place *place, struct ks_error *e)
{
	__u64 align = b->obj.tls_align ? b->obj.tls_align : 1;

	if (!b->obj.is_exec)
		return ks_fail(e, -EINVAL, "'%s' is a library, not an executable: where the loader puts a library's TLS block is decided at run time, so its thread-local variables are not read",
			       b->path);
	if (!b->obj.has_tls)
		return ks_fail(e, -ENOEXEC, "'%s' has no TLS segment (PT_TLS)", b->path);
	if ((align & (align - 1)) || align > UFUNC_MAX_TLS_ALIGN || b->obj.tls_memsz > UFUNC_MAX_TLS)
		return ks_fail(e, -ENOEXEC, "'%s': its TLS segment (%llu bytes, aligned to %llu) is not one a loader accepts",
			       b->path, (unsigned long long)b->obj.tls_memsz, (unsigned long long)align);
#if defined(__x86_64__)
	/* Variant II: the block ends at the thread pointer (fs_base). */
	place->delta = -(__s64)((b->obj.tls_memsz + align - 1) & ~(align - 1));
#elif defined(__aarch64__)
	/* Variant I: after the 16-byte thread control block at tpidr_el0, aligned. */
	place->delta = (__s64)((16 + align - 1) & ~(align - 1));
#else
#error "ksnoop knows where the executable's TLS block is on x86-64 and arm64 only"
#endif
	place->rseq_off = rseq_offset_var(b);
	return 0;
}

/* An item's variable, or NULL: "@NAME" or "@tls:NAME". */
static const char *item_var(const struct spec_item *it, bool *tls)
{
	if (!it->base || it->base[0] != '@')
		return NULL;
	*tls = strncmp(it->base, "@tls:", 5) == 0;
	return it->base + (*tls ? 5 : 1);
}

/*
 * The thread-local NAME whose DWARF has no location (gcc 12 on aarch64
 * writes none): its type from the DWARF, its offset in the TLS segment
 * from B's STT_TLS symbol of the name.  0, or -ENOENT.
 */
static int tls_from_symtab(struct ufunc_bin *b, const char *name, struct sig_var *v)
{
	struct usym_named look = { .name = name, .tls = true };
	struct usym_obj o = {};
	struct ks_error e = {};
	struct stat st;
	int err;

	if (dwbtf__var_type(b->dw, name, &v->type_id, &e) || fstat(b->fd, &st))
		return -ENOENT;
	err = usym_elf__lookup(b->fd, st.st_size, &look, 1, &o);
	usym_obj__free(&o);
	if (err || !look.found || look.ambiguous)
		return -ENOENT;
	v->addr = look.addr;
	return 0;
}

/* VAR of S's item IT, typed from B's debug info into *V. */
static int type_var(struct ufunc_front *fe, struct ufunc_bin *b, const struct spec_item *it,
		    struct sig_var *v, struct tls_place *place, struct ks_error *e)
{
	bool want_tls = false, tls = false;
	const char *name = item_var(it, &want_tls);
	struct ks_error why = {};
	int err;

	if (!bin_dwarf(b))
		err = ks_fail(e, -EINVAL, "'%s': '%s' has no debug info, which its variables are typed from (%s)",
			      it->base, b->path, b->dw_why ?: "none found");
	else if ((err = dwbtf__var(b->dw, name, &v->type_id, &v->addr, &tls, &why)) &&
		 want_tls && err == -ENOENT && !tls_from_symtab(b, name, v))
		err = 0, tls = true;
	else if (err)
		err = ks_fail(e, err == -ENOMEM ? err : -EINVAL, "'%s': %s", it->base,
			      ks_message(&why));
	if (!err && tls != want_tls)
		err = ks_fail(e, -EINVAL, "'%s': '%s' is %sa thread-local variable of '%s': write '@%s%s'",
			      it->base, name, tls ? "" : "not ", b->path, tls ? "tls:" : "", name);
	else if (!err && tls)
		err = tls_place(b, place, e);
	if (err) {
		e->pos = it->base_pos;
		return err;
	}
	v->tls = tls;
	v->name = keep_note(fe, "%s", it->base);
	return v->name ? 0 : ks_fail(e, -ENOMEM, "out of memory");
}

/*
 * S's variables, each once, typed in B's debug info (before its BTF is
 * copied for the signatures): *OUT kept by the front end, *N of them.
 */
static int spec_vars(struct ufunc_front *fe, struct ufunc_bin *b, const struct spec *s,
		     struct sig_var **out, int *n, struct tls_place *place, struct ks_error *e)
{
	struct sig_var *v;
	bool tls;
	int i, j, err;

	*n = 0;
	for (i = 0; i < s->nitems && !item_var(&s->items[i], &tls); i++)
		;
	if (i == s->nitems)
		return 0;
	v = keep_zeroed(fe, SPEC_MAX_ITEMS * sizeof(*v));
	if (!v)
		return ks_fail(e, -ENOMEM, "out of memory");
	*out = v;
	for (i = 0; i < s->nitems; i++) {
		if (!item_var(&s->items[i], &tls))
			continue;
		for (j = 0; j < *n && strcmp(v[j].name, s->items[i].base); j++)
			;
		if (j < *n)
			continue;
		err = type_var(fe, b, &s->items[i], &v[*n], place, e);
		if (err)
			return err;
		(*n)++;
	}
	return 0;
}

int ufunc_front__vars(struct ufunc_front *fe, const char *path, const struct spec *spec,
		      struct sig_vars *out, struct ks_error *e)
{
	struct ufunc_bin *b = get_bin(fe, path, e);
	struct tls_place place = {};
	struct sig_var *v = NULL;
	int err;

	memset(out, 0, sizeof(*out));
	if (!b)
		return e->err;
	err = spec_vars(fe, b, spec, &v, &out->n, &place, e);
	out->tls_delta = place.delta;
	out->rseq_off = place.rseq_off;
	if (err || !out->n)
		return err;
	out->v = v;
	out->btf = typed_btf(fe, b->dw);
	return out->btf ? 0 : ks_fail(e, -ENOMEM, "out of memory");
}

/* M's signature reads the spec's variables: typed in the same BTF, at M's address. */
static int match_vars(struct ufunc_front *fe, struct ufunc_bin *b, struct ufunc_match *m,
		      const struct sig_var *vars, int nvars, const struct tls_place *place,
		      struct ks_error *e)
{
	if (!nvars || m->refused)
		return 0;
	if (!m->typed) {
		ks_fail(e, -EINVAL, "'%s': '%s' is not typed from debug info (%s): variables (@NAME) are read only with typed arguments",
			b->path, m->shown, m->where ?: "no debug info");
		return refuse_match(fe, m, e);
	}
	m->sig.vars = vars;
	m->sig.nvars = nvars;
	m->sig.uvar_ip = m->addr + m->off;
	m->sig.uvar_tls_delta = place->delta;
	m->sig.uvar_rseq_off = place->rseq_off;
	return 0;
}

/*
 * Each match's signature: typed where B's debug info has the function,
 * else untyped (all of a spec's typed ones from one copy of the BTF).
 */
static int match_sigs(struct ufunc_front *fe, struct ufunc_bin *b, const struct spec *s,
		      struct ufunc_match *ms, int n, struct ks_error *e)
{
	__u32 *ids = calloc(n > 0 ? n : 1, sizeof(*ids));
	struct sig_var *vars = NULL;
	struct btf *btf = NULL;
	int i, r, ntyped = 0, nvars = 0, err = 0;
	struct tls_place place = {};

	if (!ids)
		return ks_fail(e, -ENOMEM, "out of memory");
	for (i = 0; i < n && !err; i++) {
		r = type_match(fe, b, &ms[i], &ids[i], e);
		ms[i].typed = r > 0;
		ntyped += r > 0;
		err = r < 0 ? refuse_match(fe, &ms[i], e) : 0;
	}
	if (!err)
		err = spec_vars(fe, b, s, &vars, &nvars, &place, e);
	if (!err && ntyped && !(btf = typed_btf(fe, b->dw)))
		err = ks_fail(e, -ENOMEM, "out of memory");
	for (i = 0; i < n && btf && !err; i++) {
		if (!ms[i].typed || !(r = match_sig(&ms[i], btf, ids[i], e)))
			continue;
		if (r == -EINVAL) {
			struct ks_error why = *e;

			ks_fail(e, r, "'%s': '%s' %s", b->path, ms[i].shown, ks_message(&why));
		}
		err = refuse_match(fe, &ms[i], e);
	}
	free(ids);
	err = err ?: untyped_sigs(fe, ms, n, e);
	for (i = 0; i < n && !err; i++)
		err = match_vars(fe, b, &ms[i], vars, nvars, &place, e);
	return err;
}

/* ---- matching ---- */

struct match_list {
	struct ufunc_match *v;
	int n;
};

static const char *sym_name(const struct usym_obj *o, const struct usym_sym *s)
{
	return o->strtab + s->name;
}

/* A match of symbol S (of B, or of its debug file), named NAME, SHOWN and PLAIN. */
static struct ufunc_match *add_match_named(struct match_list *l, const struct ufunc_bin *b,
					   const struct usym_sym *s, __u64 off, const char *name,
					   const char *shown, const char *plain)
{
	struct ufunc_match *v = realloc(l->v, (l->n + 1) * sizeof(*v)), *m;

	if (!v)
		return NULL;
	l->v = v;
	m = &v[l->n++];
	memset(m, 0, sizeof(*m));
	m->path = b->path;
	m->attach_path = b->fd_path;
	m->dev = b->dev;
	m->ino = b->ino;
	m->name = name;
	m->shown = shown;
	m->plain = plain;
	m->addr = s->addr + off;
	m->off = off;
	m->size = s->size;
	m->ifunc = s->ifunc;
	return m;
}

static struct ufunc_match *add_match(struct match_list *l, const struct ufunc_bin *b,
				     const struct usym_sym *s, __u64 off)
{
	size_t i = s - b->obj.syms;

	return add_match_named(l, b, s, off, sym_name(&b->obj, s), shown_name(b, i),
			       plain_name(b, i));
}

/*
 * S's functions in B's debug file, where B's own table names none: a
 * library's local functions (libc's __strlen_avx2), C names as they are.
 */
static int match_debug_names(struct ufunc_bin *b, const struct spec *s, struct match_list *l)
{
	const struct usym_obj *o = debug_syms(b);
	__u64 last = 0;
	size_t i;

	for (i = 0; o && i < o->nsyms; i++) {
		const struct usym_sym *sy = &o->syms[i];
		const char *name = sym_name(o, sy);

		if (!sy->size || sy->addr == last ||
		    !demangle__name_matches(s->target, s->is_glob, name, NULL, NULL))
			continue;
		if (l->n >= UFUNC_MAX_MATCHES)
			return -E2BIG;
		if (!add_match_named(l, b, sy, s->uoffset, name, name, name))
			return -ENOMEM;
		last = sy->addr;
	}
	return 0;
}

/*
 * The functions of B whose names S names (or match its glob), one per
 * address: a name's aliases at one address are one function, and
 * functions of one name at several addresses (statics) each one.
 */
static int match_names(const struct ufunc_bin *b, const struct spec *s, struct match_list *l)
{
	const struct usym_obj *o = &b->obj;
	__u64 last = 0;
	size_t i;

	for (i = 0; i < o->nsyms; i++) {
		const struct usym_sym *sy = &o->syms[i];
		const char *name = sym_name(o, sy);

		if (!sy->size || sy->addr == last)
			continue;
		if (!demangle__name_matches(s->target, s->is_glob, name,
					    b->plain ? b->plain[i] : NULL, b->full ? b->full[i] : NULL))
			continue;
		if (l->n >= UFUNC_MAX_MATCHES)
			return -E2BIG;
		if (!add_match(l, b, sy, s->uoffset))
			return -ENOMEM;
		last = sy->addr;
	}
	return 0;
}

/* 0xADDRESS: the function holding it (a probe inside it has no return). */
static int match_address(const struct ufunc_bin *b, const struct spec *s, struct match_list *l,
			 struct ks_error *e)
{
	const struct usym_sym *sy = usym_obj__find(&b->obj, s->uaddr);

	if (!sy || !sy->size || s->uaddr - sy->addr >= sy->size) {
		ks_fail(e, -ENOENT, "no function at 0x%llx in '%s'", (unsigned long long)s->uaddr,
			b->path);
		e->pos = s->target_pos;
		return e->err;
	}
	return add_match(l, b, sy, s->uaddr - sy->addr) ? 0 : -ENOMEM;
}

/* Each match's file offset and signature; a +OFFSET past its function is refused. */
static int finish_matches(struct ufunc_front *fe, struct ufunc_bin *b, const struct spec *s,
			  struct match_list *l, struct ks_error *e)
{
	int i, j;

	for (i = 0; i < l->n; i++) {
		struct ufunc_match *m = &l->v[i];

		if (m->off >= m->size) {
			ks_fail(e, -ERANGE, "offset 0x%llx is past the end of '%s' (%llu bytes)",
				(unsigned long long)m->off, m->name, (unsigned long long)m->size);
			e->pos = s->target_pos;
			return e->err;
		}
		if (!usym_obj__file_off(&b->obj, m->addr, &m->file_off))
			return ks_fail(e, -ENOEXEC, "'%s': function '%s' at 0x%llx is in no loaded segment",
				       b->path, m->name, (unsigned long long)m->addr);
		m->glob = s->is_glob;
		for (j = 0; j < l->n; j++)
			m->namesakes += strcmp(l->v[j].name, m->name) == 0;
	}
	return match_sigs(fe, b, s, l->v, l->n, e);
}

static int no_match(const struct ufunc_bin *b, const struct spec *s, struct ks_error *e)
{
	ks_fail(e, -ENOENT, s->is_glob ? "no function of '%s' matches '%s'" :
		"no function '%2$s' in '%1$s' ('ksnoop info u:%3$s' lists its functions)",
		b->path, s->target, s->binary);
	e->pos = s->target_pos;
	return e->err;
}

/*
 * A Go program's functions have no return to trace: Go grows a goroutine's
 * stack by copying it elsewhere and walks it for the garbage collector and
 * panics, and the return address a uretprobe puts there breaks both (the
 * program crashes).  Its entries are traced.  0, or -EINVAL at S's 'return'.
 */
static int refuse_go_return(const struct ufunc_bin *b, const struct spec *s, struct ks_error *e)
{
	int i;

	for (i = 0; b->obj.is_go && i < s->nitems; i++) {
		if (!spec_item__is_return(&s->items[i]))
			continue;
		ks_fail(e, -EINVAL, "'%s' is a Go program: a uretprobe corrupts a goroutine's stack (Go moves and walks its stacks), so no return of its functions is traced; their entry is (leave out 'return')",
			b->path);
		e->pos = s->items[i].base_pos;
		return e->err;
	}
	return 0;
}

int ufunc_front__match(struct ufunc_front *fe, const struct spec *s, int pid,
		       struct ufunc_match **out, struct ks_error *e)
{
	struct match_list l = {};
	struct ufunc_bin *b;
	char path[4096];
	int err;

	*out = NULL;
	err = find_binary(s, pid, path, sizeof(path), e);
	if (err)
		return err;
	b = get_bin(fe, path, e);
	if (!b) {
		if (!e->pos)
			e->pos = s->binary_pos;
		return e->err;
	}
	err = refuse_go_return(b, s, e);
	if (err)
		return err;
	err = s->uaddr ? match_address(b, s, &l, e) : match_names(b, s, &l);
	if (!err && !l.n && !s->uaddr)
		err = match_debug_names(b, s, &l);
	if (err == -E2BIG)
		ks_fail(e, err, "'%s' matches more than %d functions of '%s'", s->target,
			UFUNC_MAX_MATCHES, b->path);
	else if (err == -ENOMEM)
		ks_fail(e, err, "out of memory");
	else if (!err && !l.n)
		err = no_match(b, s, e);
	if (!err)
		err = finish_matches(fe, b, s, &l, e);
	/* A Go program's function: its entry only (refuse_go_return()). */
	for (int i = 0; !err && b->obj.is_go && i < l.n; i++)
		l.v[i].sig.has_return = false;
	if (err) {
		free(l.v);
		return err;
	}
	*out = l.v;
	return l.n;
}

/* `info u:BINARY` of a stripped file: its debug info's functions, by address. */
struct dwarf_func {
	const char *name;	/* owned by the dwbtf */
	__u64 addr;
};

struct dwarf_funcs {
	struct dwarf_func *v;
	size_t n;
};

static int add_dwarf_func(const char *name, __u64 addr, void *ctx)
{
	struct dwarf_funcs *l = ctx;
	struct dwarf_func *v;

	if (l->n >= UFUNC_MAX_DWARF_FUNCS)
		return -E2BIG;
	v = realloc(l->v, (l->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	l->v = v;
	l->v[l->n++] = (struct dwarf_func){ .name = name, .addr = addr };
	return 0;
}

static int dwarf_func_cmp(const void *a, const void *b)
{
	const struct dwarf_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * FN for each function B's debug info has an out-of-line copy of, in
 * address order, one per address; its size is not known (0).  -ENOENT
 * with E where B has no debug info either.
 */
static int each_dwarf_func(struct ufunc_bin *b,
			   int (*fn)(const char *name, __u64 addr, __u64 size, void *ctx),
			   void *ctx, struct ks_error *e)
{
	struct dwarf_funcs l = {};
	struct dwbtf *dw = bin_dwarf(b);
	size_t i;
	int err;

	if (!dw)
		return ks_fail(e, -ENOENT, "'%s' defines no function symbols, and no debug info names them (%s)",
			       b->path, b->dw_why ?: "none found");
	err = dwbtf__each_func(dw, add_dwarf_func, &l);
	if (err == -E2BIG)
		ks_fail(e, err, "'%s': more than %d functions in its debug info", b->path,
			UFUNC_MAX_DWARF_FUNCS);
	else if (err)
		ks_fail(e, err, "out of memory");
	if (!err && l.n)
		qsort(l.v, l.n, sizeof(*l.v), dwarf_func_cmp);
	for (i = 0; i < l.n && !err; i++)
		if (l.v[i].addr && (i == 0 || l.v[i].addr != l.v[i - 1].addr))
			err = fn(l.v[i].name, l.v[i].addr, 0, ctx);
	free(l.v);
	return err;
}

int ufunc_front__each(struct ufunc_front *fe, const char *binary, int pid,
		      int (*fn)(const char *name, __u64 addr, __u64 size, void *ctx), void *ctx,
		      struct ks_error *e)
{
	struct spec s = { .binary = (char *)binary, .binary_pos = 0 };
	const struct usym_obj *o;
	struct ufunc_bin *b;
	char path[4096];
	__u64 last = 0;
	size_t i;
	int err = find_binary(&s, pid, path, sizeof(path), e), listed = 0;

	if (err)
		return err;
	b = get_bin(fe, path, e);
	if (!b)
		return e->err;
	o = &b->obj;
	for (i = 0; i < o->nsyms && !err; i++) {
		if (!o->syms[i].size || o->syms[i].addr == last)
			continue;
		last = o->syms[i].addr;
		listed++;
		err = fn(shown_name(b, i), o->syms[i].addr, o->syms[i].size, ctx);
	}
	/* Stripped (strip keeps .dynsym, which defines none of a program's own). */
	if (!err && !listed)
		err = each_dwarf_func(b, fn, ctx, e);
	return err;
}

/* What ufunc_front__each_var() passes on: FN, for the variables B reads. */
struct var_walk {
	const struct ufunc_bin *b;
	int (*fn)(const char *name, bool tls, void *ctx);
	void *ctx;
};

static int each_readable_var(const char *name, bool tls, void *ctx)
{
	struct var_walk *w = ctx;

	return tls && !w->b->obj.is_exec ? 0 : w->fn(name, tls, w->ctx);
}

int ufunc_front__each_var(struct ufunc_front *fe, const char *binary, int pid,
			  int (*fn)(const char *name, bool tls, void *ctx), void *ctx,
			  struct ks_error *e)
{
	struct spec s = { .binary = (char *)binary };
	struct var_walk w = { .fn = fn, .ctx = ctx };
	struct ufunc_bin *b;
	char path[4096];
	int err = find_binary(&s, pid, path, sizeof(path), e);

	if (err)
		return err;
	b = get_bin(fe, path, e);
	if (!b)
		return e->err;
	if (!bin_dwarf(b))
		return ks_fail(e, -ENOENT, "'%s' has no debug info (%s)", b->path,
			       b->dw_why ?: "none found");
	w.b = b;
	return dwbtf__each_var(b->dw, each_readable_var, &w);
}
