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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/btf.h>
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
	/* Each symbol's C++ names (demangle.h), NULL where it has none: symbol i's at i. */
	char **plain;
	char **full;
};

struct ufunc_front {
	struct ufunc_bin *bins;
	int nbins;
	/* Each spec's untyped signatures' BTF (untyped_sigs()), kept for their plans. */
	struct btf **btfs;
	int nbtfs;
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
		if (fe->bins[i].fd >= 0)
			close(fe->bins[i].fd);
		free(fe->bins[i].path);
		free(fe->bins[i].fd_path);
		free_names(&fe->bins[i]);
	}
	free(fe->bins);
	for (i = 0; i < fe->nbtfs; i++)
		btf__free(fe->btfs[i]);
	free(fe->btfs);
	free(fe);
}

const char *ufunc_match__types_where(const struct ufunc_match *m)
{
	return m->typed ? "its debug info" : "no debug info read yet: arguments arg0..arg5 are integers";
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

/* A library named by PID's maps: the first object whose file name NAME names. */
static int maps_lookup(int pid, const char *name, char *out, size_t sz)
{
	char **paths = NULL;
	int n, i, found = 0;

	n = usdt__process_objects(pid, &paths);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];

		if (!found && lib_name_matches(base, name) && strlen(paths[i]) < sz) {
			snprintf(out, sz, "%s", paths[i]);
			found = 1;
		}
		free(paths[i]);
	}
	free(paths);
	return found ? 0 : -ENOENT;
}

/* BINARY as a file: a path as given, a library's name where the loader (or PID) has it. */
static int find_binary(const struct spec *s, int pid, char *out, size_t sz, struct ks_error *e)
{
	if (strchr(s->binary, '/')) {
		snprintf(out, sz, "%s", s->binary);
		return 0;
	}
	if (pid > 0 && !maps_lookup(pid, s->binary, out, sz))
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

/* M's signature from FUNC ID of BTF; a probe inside the function has no return. */
static int untyped_sig(struct ufunc_match *m, const struct btf *btf, __u32 id, struct ks_error *e)
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

/*
 * The untyped signatures of one spec's matches, in a BTF of their own:
 * long FUNC(unsigned long arg0, ..., unsigned long arg5).  Every FUNC is
 * added before any signature is read: a signature's names point into the
 * BTF's strings, which adding moves.
 */
static int untyped_sigs(struct ufunc_front *fe, struct ufunc_match *ms, int n,
			struct ks_error *e)
{
	struct btf *btf = btf__new_empty(), **bv;
	__u32 *ids = calloc(n, sizeof(*ids));
	int ulong, slong, proto, i, err = 0;

	bv = btf && ids ? realloc(fe->btfs, (fe->nbtfs + 1) * sizeof(*bv)) : NULL;
	if (!bv) {
		btf__free(btf);
		free(ids);
		return ks_fail(e, -ENOMEM, "out of memory");
	}
	fe->btfs = bv;
	fe->btfs[fe->nbtfs++] = btf;
	ulong = btf__add_int(btf, "unsigned long", 8, 0);
	slong = btf__add_int(btf, "long", 8, BTF_INT_SIGNED);
	proto = ulong > 0 && slong > 0 ? btf__add_func_proto(btf, slong) : -ENOMEM;
	for (i = 0; i < UFUNC_UNTYPED_ARGS && proto > 0 && !err; i++)
		err = btf__add_func_param(btf, signature__arg_name(i), ulong);
	for (i = 0; i < n && proto > 0 && !err; i++) {
		int id = btf__add_func(btf, ms[i].shown, BTF_FUNC_GLOBAL, proto);

		err = id < 0 ? id : 0;
		ids[i] = id;
	}
	for (i = 0; i < n && proto > 0 && !err; i++)
		err = untyped_sig(&ms[i], btf, ids[i], e);
	free(ids);
	if (proto < 0 || (err && !e->err))
		return ks_fail(e, -ENOMEM, "out of memory");
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

static struct ufunc_match *add_match(struct match_list *l, const struct ufunc_bin *b,
				     const struct usym_sym *s, __u64 off)
{
	size_t i = s - b->obj.syms;
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
	m->name = sym_name(&b->obj, s);
	m->shown = shown_name(b, i);
	m->addr = s->addr + off;
	m->off = off;
	m->size = s->size;
	return m;
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
static int finish_matches(struct ufunc_front *fe, const struct ufunc_bin *b, const struct spec *s,
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
	return untyped_sigs(fe, l->v, l->n, e);
}

static int no_match(const struct ufunc_bin *b, const struct spec *s, struct ks_error *e)
{
	ks_fail(e, -ENOENT, s->is_glob ? "no function of '%s' matches '%s'" :
		"no function '%2$s' in '%1$s' ('ksnoop info u:%3$s' lists its functions)",
		b->path, s->target, s->binary);
	e->pos = s->target_pos;
	return e->err;
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
	err = s->uaddr ? match_address(b, s, &l, e) : match_names(b, s, &l);
	if (err == -E2BIG)
		ks_fail(e, err, "'%s' matches more than %d functions of '%s'", s->target,
			UFUNC_MAX_MATCHES, b->path);
	else if (err == -ENOMEM)
		ks_fail(e, err, "out of memory");
	else if (!err && !l.n)
		err = no_match(b, s, e);
	if (!err)
		err = finish_matches(fe, b, s, &l, e);
	if (err) {
		free(l.v);
		return err;
	}
	*out = l.v;
	return l.n;
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
	int err = find_binary(&s, pid, path, sizeof(path), e);

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
		err = fn(shown_name(b, i), o->syms[i].addr, o->syms[i].size, ctx);
	}
	return err;
}
