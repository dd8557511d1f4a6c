// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record files: the format (recfile.h, docs/RECORD-FORMAT.md), its writer
 * and its reader.  The writer knows nothing of how records were captured
 * and the reader nothing of how they will be printed: `record` (cmd_record.c)
 * hands the writer what cmd_trace.c's ring buffer delivers, and `report`
 * (cmd_report.c) hands what the reader returns to the printer.
 *
 * Why blocks: zlib over the whole file would make a file cut short (ksnoop
 * killed, a full disk) unreadable from the cut on and, worse, give no sign
 * of where the damage is; a block is written whole or found incomplete,
 * and each says how long it is and what its checksum is.
 *
 * Why a BTF of our own: the printer walks the types of the values, and a
 * file read on another machine (another kernel, or none with BTF) must
 * carry them.  vmlinux BTF is ~5 MB; the types a few values reach are a
 * few KiB, once pointers stop the walk (a pointer prints as its address).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <time.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "recfile.h"

/* A block's header, as written (host byte order, see the HEADER's byte-order mark). */
struct block_hdr {
	__u32 type;
	__u32 raw_len;
	__u32 stored_len;
	__u32 crc;
};

#define BYTE_ORDER_MARK	0x01020304u

/* ---- a growing byte buffer, and a bounded cursor over one ---- */

struct buf {
	char *p;
	size_t len, cap;
	bool failed;		/* out of memory: every later put is dropped */
};

/* N more bytes at the end of B, uninitialised; NULL once out of memory. */
static char *buf_reserve(struct buf *b, size_t n)
{
	if (b->failed)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		char *p;

		while (cap < b->len + n)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

static void buf_put(struct buf *b, const void *data, size_t n)
{
	char *p = buf_reserve(b, n);

	if (p && n)
		memcpy(p, data, n);
}

static void buf_u32(struct buf *b, __u32 v) { buf_put(b, &v, sizeof(v)); }
static void buf_u64(struct buf *b, __u64 v) { buf_put(b, &v, sizeof(v)); }

static void buf_str(struct buf *b, const char *s)
{
	size_t n = s ? strnlen(s, RECFILE_MAX_STR - 1) : 0;

	buf_u32(b, n);
	buf_put(b, s, n);
}

struct cursor {
	const char *p;
	size_t left;
	bool bad;		/* read past the end: every later read gives 0 */
};

static const void *cur_take(struct cursor *c, size_t n)
{
	const void *p = c->p;

	if (c->bad || n > c->left) {
		c->bad = true;
		return NULL;
	}
	c->p += n;
	c->left -= n;
	return p;
}

static __u32 cur_u32(struct cursor *c)
{
	const void *p = cur_take(c, 4);
	__u32 v = 0;

	if (p)
		memcpy(&v, p, 4);
	return v;
}

static __u64 cur_u64(struct cursor *c)
{
	const void *p = cur_take(c, 8);
	__u64 v = 0;

	if (p)
		memcpy(&v, p, 8);
	return v;
}

/* A string into BUF of SZ bytes (NUL-terminated); too long or holding a NUL: bad. */
static void cur_str_to(struct cursor *c, char *buf, size_t sz)
{
	__u32 n = cur_u32(c);
	const char *p = n < sz ? cur_take(c, n) : NULL;

	if (!p || memchr(p, 0, n)) {
		c->bad = true;
		buf[0] = 0;
		return;
	}
	memcpy(buf, p, n);
	buf[n] = 0;
}

static char *cur_str(struct cursor *c)
{
	char tmp[RECFILE_MAX_STR];

	cur_str_to(c, tmp, sizeof(tmp));
	return c->bad ? NULL : strdup(tmp);
}

/* ---- user frames' names: one per (process, address) ---- */

/*
 * An open-addressed table of (pid, addr): the writer's says which frames
 * the file names already, the reader's holds their names (NAME: an
 * offset + 1 into NAMES; 0, an empty slot).  At most half full.
 */
struct usym_entry {
	__u64 addr;
	__u32 pid;
	__u32 name;
};

struct usym_table {
	struct usym_entry *v;
	size_t cap, n;		/* cap: a power of two, or 0 */
	__u64 seed;		/* random, per table: see usym_slot() */
	struct buf names;	/* the reader's: NUL-terminated names */
};

/*
 * A file chooses its pids and addresses: with a fixed hash it could put
 * a million names on one chain (a million squared probes).  Every bit of
 * the key reaches the slot's (splitmix64's finalizer) and the key is
 * XORed with a seed the file cannot know.
 */
static size_t usym_hash(const struct usym_table *t, __u32 pid, __u64 addr)
{
	__u64 h = addr ^ t->seed ^ (pid * 0x9e3779b97f4a7c15ULL);

	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

static struct usym_entry *usym_slot(const struct usym_table *t, __u32 pid, __u64 addr)
{
	size_t i = usym_hash(t, pid, addr);

	for (i &= t->cap - 1; t->v[i].name; i = (i + 1) & (t->cap - 1))
		if (t->v[i].addr == addr && t->v[i].pid == pid)
			break;
	return &t->v[i];
}

static const struct usym_entry *usym_find(const struct usym_table *t, __u32 pid, __u64 addr)
{
	const struct usym_entry *u = t->cap ? usym_slot(t, pid, addr) : NULL;

	return u && u->name ? u : NULL;
}

/* Room for one more entry: -ENOMEM, or 0. */
static int usym_grow(struct usym_table *t)
{
	struct usym_table n = { .cap = t->cap ? t->cap * 2 : 1024 };
	size_t i;

	if ((t->n + 1) * 2 <= t->cap)
		return 0;
	if (!t->cap && getrandom(&t->seed, sizeof(t->seed), GRND_NONBLOCK) != sizeof(t->seed))
		t->seed = (__u64)(uintptr_t)t ^ (__u64)time(NULL) * 0x9e3779b97f4a7c15ULL;
	n.seed = t->seed;
	n.v = calloc(n.cap, sizeof(*n.v));
	if (!n.v)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++)
		if (t->v[i].name)
			*usym_slot(&n, t->v[i].pid, t->v[i].addr) = t->v[i];
	free(t->v);
	t->v = n.v;
	t->cap = n.cap;
	return 0;
}

static void usym_free(struct usym_table *t)
{
	free(t->v);
	free(t->names.p);
}

/* ---- the minimal BTF ---- */

/* Types a walk from one value may pass through, nested (libbpf's own bound is 32). */
#define COPY_MAX_DEPTH	64
#define ID_BUSY		0xffffffffu	/* being copied: a cycle in the source */

struct btf_source {
	const struct btf *btf;
	__u32 *map;		/* source id -> new id (0: not copied yet) */
	__u32 n;
};

struct btf_copier {
	struct btf *dst;
	struct btf_source *srcs;
	int nsrcs;
	__u32 fn_proto;		/* the empty prototype function pointers point at */
};

static struct btf_source *copier_source(struct btf_copier *c, const struct btf *btf)
{
	struct btf_source *s;
	int i;

	for (i = 0; i < c->nsrcs; i++)
		if (c->srcs[i].btf == btf)
			return &c->srcs[i];
	s = realloc(c->srcs, (c->nsrcs + 1) * sizeof(*s));
	if (!s)
		return NULL;
	c->srcs = s;
	s = &s[c->nsrcs];
	s->btf = btf;
	s->n = btf__type_cnt(btf);
	s->map = calloc(s->n, sizeof(*s->map));
	if (!s->map)
		return NULL;
	c->nsrcs++;
	return s;
}

static int copy_type(struct btf_copier *c, struct btf_source *s, __u32 id, int depth);

/* A pointer's new target: void, or the empty prototype for a function pointer. */
static int pointee(struct btf_copier *c, struct btf_source *s, __u32 target)
{
	const struct btf_type *t = btf__type_by_id(s->btf, btfu_strip(s->btf, target));

	if (!t || !btf_is_func_proto(t))
		return 0;
	if (!c->fn_proto) {
		int id = btf__add_func_proto(c->dst, 0);

		if (id < 0)
			return id;
		c->fn_proto = id;
	}
	return c->fn_proto;
}

/* Every type T refers to, copied first; their new ids in REFS (at most N). */
static int copy_refs(struct btf_copier *c, struct btf_source *s, const struct btf_type *t,
		     __u32 *refs, int n, int depth)
{
	int i, vlen = btf_vlen(t), id = 0;

	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		id = pointee(c, s, t->type);
		refs[0] = id;
		return id < 0 ? id : 1;
	case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE: case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
		id = copy_type(c, s, t->type, depth + 1);
		refs[0] = id;
		return id < 0 ? id : 1;
	case BTF_KIND_ARRAY:
		id = copy_type(c, s, btf_array(t)->type, depth + 1);
		refs[0] = id;
		if (id >= 0)
			id = copy_type(c, s, btf_array(t)->index_type, depth + 1);
		refs[1] = id;
		return id < 0 ? id : 2;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		if (vlen > n)
			return -E2BIG;
		for (i = 0; i < vlen && id >= 0; i++)
			refs[i] = id = copy_type(c, s, btf_members(t)[i].type, depth + 1);
		return id < 0 ? id : vlen;
	default:
		return 0;
	}
}

/* REFS written into the copy NT of T, in copy_refs()'s order. */
static void patch_refs(struct btf_type *nt, const __u32 *refs)
{
	int i;

	switch (btf_kind(nt)) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
		nt->type = refs[0];
		break;
	case BTF_KIND_ARRAY:
		btf_array(nt)->type = refs[0];
		btf_array(nt)->index_type = refs[1];
		break;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		for (i = 0; i < btf_vlen(nt); i++)
			btf_members(nt)[i].type = refs[i];
		break;
	}
}

/* Source type ID copied into c->dst (and what it reaches); its new id, or a negative errno. */
static int copy_type(struct btf_copier *c, struct btf_source *s, __u32 id, int depth)
{
	const struct btf_type *t;
	__u32 refs[BTF_MAX_VLEN + 1];
	int nid, err;

	if (!id)
		return 0;
	if (id >= s->n || depth > COPY_MAX_DEPTH || s->map[id] == ID_BUSY)
		return -ELOOP;
	if (s->map[id])
		return s->map[id];
	t = btf__type_by_id(s->btf, id);
	/* A function (or anything a value cannot be) where a value's type was: void. */
	if (!t || btf_is_func(t) || btf_is_var(t) || btf_is_datasec(t) || btf_is_decl_tag(t))
		return 0;
	if (btf_is_func_proto(t))
		return pointee(c, s, id);
	s->map[id] = ID_BUSY;
	err = copy_refs(c, s, t, refs, BTF_MAX_VLEN, depth);
	if (err < 0)
		return err;
	nid = btf__add_type(c->dst, s->btf, t);
	if (nid < 0)
		return nid;
	patch_refs((struct btf_type *)btf__type_by_id(c->dst, nid), refs);
	s->map[id] = nid;
	return nid;
}

static int copy_value_types(struct btf_copier *c, const struct capture_plan *src,
			    struct capture_plan *dst)
{
	struct btf_source *s = copier_source(c, src->sig.btf);
	int kind, i, id;

	if (!s)
		return -ENOMEM;
	for (kind = 0; kind < KSNOOP_NR_KINDS; kind++) {
		for (i = 0; i < src->nvalues[kind]; i++) {
			struct value_desc *vd = &dst->values[kind][i];

			id = copy_type(c, s, vd->type_id, 0);
			if (id < 0)
				return id;
			vd->type_id = id;
			id = copy_type(c, s, vd->obj_id, 0);
			if (id < 0)
				return id;
			vd->obj_id = id;
		}
	}
	return 0;
}

struct btf *recfile__minimal_btf(const struct recfile_target *targets, int n,
				 struct capture_plan *plans_out)
{
	struct btf_copier c = { .dst = btf__new_empty() };
	int i, err = 0;

	if (!c.dst)
		return NULL;
	for (i = 0; i < n && !err; i++) {
		plans_out[i] = targets[i].plan;
		if (i == 0 && targets[i].plan.sig.btf)
			btf__set_pointer_size(c.dst, btf__pointer_size(targets[i].plan.sig.btf));
		if (targets[i].plan.sig.btf)
			err = copy_value_types(&c, &targets[i].plan, &plans_out[i]);
	}
	for (i = 0; i < c.nsrcs; i++)
		free(c.srcs[i].map);
	free(c.srcs);
	if (err) {
		btf__free(c.dst);
		errno = -err;
		return NULL;
	}
	return c.dst;
}

/* ---- writing ---- */

struct recfile_writer {
	int fd;
	bool own_fd;
	bool begun;		/* the header went out: the file is a recording */
	char *path;		/* removed if the run ends before it began */
	char *tmp;		/* --force: the new file, renamed over path when it begins */
	bool failed;		/* a write failed: nothing more goes out */
	__u64 bytes;
	struct buf events;	/* records not yet written, delta-coded (RECFILE_BLOCK_DELTA) */
	size_t events_raw;	/* their bytes as records: a block's size as the reader decodes it */
	__u64 records;
	/*
	 * The last record as it came, padded, as words: what the next one is
	 * XORed with.  Words from prev_len on are zero (a shorter record and
	 * a block's start XOR with zeros); prev_cap words are allocated.
	 */
	__u64 *prev;
	size_t prev_len, prev_cap;	/* prev_len 0: the block's first record */
	bool tree;		/* a recording of --tree: END carries its counters */
	bool track;		/* of --track: END carries the tree's and its own */
	struct usym_table usyms;	/* the user frames named so far */
	struct buf usym_block;	/* USYMS not written yet: count u32, then the entries */
	__u32 usym_pending;
	size_t usym_bytes;	/* of the names written, each counted with a NUL (the reader's) */
	ZSTD_CCtx *zc;		/* one compression context for every block */
	char *zbuf;		/* a block as written: its header, then the zstd frame */
	size_t zcap;
};

/*
 * A recording carries every captured value and the kernel's symbol
 * addresses (which kptr_restrict hides from other users): it is created
 * 0600, as perf creates its data files.  And -o may name a file in a
 * directory others can write (/tmp), where someone else may have put a
 * symbolic link (to a file of ours), a FIFO (open() would wait for a
 * reader, forever) or a file of their own under that name.  So a new file
 * is created with O_EXCL, which follows no link; --force replaces only a
 * regular file this user owns, by renaming a new 0600 file over it when
 * the recording begins: a run that fails first leaves the old file as it
 * was, and a file with other hard links is not rewritten under them.
 */

static const char *file_kind(mode_t mode)
{
	return S_ISLNK(mode) ? "a symbolic link (not followed)" : S_ISFIFO(mode) ? "a FIFO" :
	       S_ISDIR(mode) ? "a directory" : S_ISSOCK(mode) ? "a socket" :
	       S_ISCHR(mode) || S_ISBLK(mode) ? "a device" : "not a regular file";
}

/*
 * May --force replace PATH?  0: yes (*EXISTS says whether it is there);
 * else why not.  O_PATH opens nothing (a FIFO does not block, a device
 * is not touched) and with O_NOFOLLOW gives the link itself.
 */
static int check_replaceable(const char *path, bool *exists, struct ks_error *e)
{
	int fd = open(path, O_PATH | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), err = 0;
	struct stat st;

	*exists = fd >= 0;
	if (fd < 0)
		return errno == ENOENT ? 0 : ks_fail(e, ks_runtime_errno(-errno),
					     "record: cannot check '%s': %s", path, strerror(errno));
	if (fstat(fd, &st))
		err = ks_fail(e, ks_runtime_errno(-errno), "record: cannot check '%s': %s",
			      path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		err = ks_fail(e, -EPERM, "record: '%s' is %s: --force replaces only a regular file",
			      path, file_kind(st.st_mode));
	else if (st.st_uid != geteuid())
		err = ks_fail(e, -EPERM, "record: '%s' belongs to uid %u, not to this user (uid %u): not replaced",
			      path, (unsigned int)st.st_uid, (unsigned int)geteuid());
	close(fd);
	return err;
}

/* --force: check PATH, then a new file beside it, renamed over it in begin. */
static int open_replacement(struct recfile_writer *w, const char *path, struct ks_error *e)
{
	bool exists;
	int err = check_replaceable(path, &exists, e);

	if (err)
		return err;
	if (asprintf(&w->tmp, "%s.XXXXXX", path) < 0) {
		w->tmp = NULL;
		return ks_fail(e, -ENOMEM, "out of memory");
	}
	/* mkostemp: O_EXCL, mode 0600. */
	w->fd = mkostemp(w->tmp, O_CLOEXEC);
	if (w->fd < 0) {
		err = -errno;
		free(w->tmp);
		w->tmp = NULL;
		return ks_fail(e, ks_runtime_errno(err), "record: cannot create a file beside '%s': %s",
			       path, strerror(-err));
	}
	return 0;
}

static int open_new(struct recfile_writer *w, const char *path, struct ks_error *e)
{
	int err;

	w->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (w->fd >= 0)
		return 0;
	err = -errno;
	if (err == -EEXIST)
		return ks_fail(e, -EINVAL, "record: '%s' exists; --force overwrites it", path);
	return ks_fail(e, err, "record: cannot create '%s': %s", path, strerror(-err));
}

struct recfile_writer *recfile_writer__open(const char *path, bool force, struct ks_error *e)
{
	struct recfile_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w) {
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	if (!strcmp(path, "-")) {
		w->fd = STDOUT_FILENO;
		return w;
	}
	w->own_fd = true;
	w->path = strdup(path);
	err = !w->path ? ks_fail(e, -ENOMEM, "out of memory") :
	      force ? open_replacement(w, path, e) : open_new(w, path, e);
	if (err) {
		free(w->path);
		free(w);
		return NULL;
	}
	return w;
}

/* --force: the new file takes PATH's name, if PATH is still one --force may replace. */
static int replace_file(struct recfile_writer *w, struct ks_error *e)
{
	bool exists;
	int err = check_replaceable(w->path, &exists, e);

	/* Nothing there at the check: nothing of anyone's is replaced if something came since. */
	if (!err && renameat2(AT_FDCWD, w->tmp, AT_FDCWD, w->path, exists ? 0 : RENAME_NOREPLACE)) {
		err = -errno;
		err = ks_fail(e, err == -EEXIST ? -EPERM : ks_runtime_errno(err),
			      "record: cannot rename the new file to '%s': %s", w->path, strerror(-err));
	}
	if (err)
		return err;
	free(w->tmp);
	w->tmp = NULL;
	return 0;
}

static int write_all(struct recfile_writer *w, const void *data, size_t n, struct ks_error *e)
{
	const char *p = data;

	while (n && !w->failed) {
		ssize_t k = write(w->fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int err = k < 0 ? -errno : -EIO;

			w->failed = true;
			return ks_fail(e, ks_runtime_errno(err),
				       "record: writing failed after %llu bytes: %s; the file holds what was written before",
				       (unsigned long long)w->bytes, strerror(-err));
		}
		p += k;
		n -= k;
		w->bytes += k;
	}
	return w->failed ? -EIO : 0;
}

/*
 * One block, compressed by zstd at level 1: events must go out faster than
 * they come.  On a megabyte of small USDT events (bench/run's record row)
 * zstd -1 took a quarter of zlib -1's time and stored half the bytes; zstd
 * adds no checksum of its own (the block's CRC-32 is the one).
 */
static int write_block(struct recfile_writer *w, __u32 type, const void *raw, size_t len,
		       struct ks_error *e)
{
	struct block_hdr h = { .type = type | RECFILE_BLOCK_ZSTD, .raw_len = len };
	size_t cap = sizeof(h) + ZSTD_compressBound(len), stored;

	if (len > RECFILE_MAX_BLOCK)
		return ks_fail(e, -E2BIG, "record: a block of %zu bytes is more than a reader takes (%u)",
			       len, RECFILE_MAX_BLOCK);
	if (!w->zc && !(w->zc = ZSTD_createCCtx()))
		return ks_fail(e, -ENOMEM, "out of memory");
	if (cap > w->zcap) {
		char *z = realloc(w->zbuf, cap);

		if (!z)
			return ks_fail(e, -ENOMEM, "out of memory");
		w->zbuf = z;
		w->zcap = cap;
	}
	stored = ZSTD_compressCCtx(w->zc, w->zbuf + sizeof(h), cap - sizeof(h), raw, len, 1);
	if (ZSTD_isError(stored))
		return ks_fail(e, -EIO, "record: compressing a block failed: %s",
			       ZSTD_getErrorName(stored));
	h.stored_len = stored;
	h.crc = crc32(0, (const Bytef *)w->zbuf + sizeof(h), stored);
	memcpy(w->zbuf, &h, sizeof(h));
	return write_all(w, w->zbuf, sizeof(h) + stored, e);
}

static void put_meta(struct buf *b, const struct recfile_meta *m)
{
	int i;

	buf_u32(b, BYTE_ORDER_MARK);
	buf_u32(b, RECFILE_VERSION);
	buf_str(b, m->version);
	buf_str(b, m->release);
	buf_str(b, m->machine);
	buf_u64(b, m->start_ns);
	buf_str(b, m->clock);
	buf_u64(b, m->clock_offset_ns);
	buf_u32(b, m->kind);
	buf_u32(b, m->stack);
	buf_u32(b, m->nspecs);
	for (i = 0; i < m->nspecs; i++)
		buf_str(b, m->specs[i]);
	/* Format 5: after the specs, so that everything before reads as in 4. */
	buf_str(b, m->host);
	buf_u32(b, m->output);
	buf_str(b, m->by);
	buf_u64(b, m->hist_min);
	buf_u64(b, m->hist_step);
	buf_u32(b, m->hist_nbuckets);
}

static void put_value(struct buf *b, const struct value_desc *vd)
{
	buf_str(b, vd->text);
	buf_u32(b, vd->type_id);
	buf_u32(b, vd->obj_id);
	buf_u32(b, vd->how);
	buf_u32(b, vd->size);
	buf_u32(b, vd->obj_size);
	buf_u32(b, vd->bit_off | vd->bit_size << 8 | vd->errno_names << 16 | (__u32)vd->shift << 24);
	buf_u32(b, vd->fmt);
	buf_str(b, vd->obj_name);
}

/* PLAN of a target named LABEL (its BTF ids already the file's). */
static void put_plan(struct buf *b, const char *label, const struct capture_plan *plan)
{
	int kind, i;

	buf_str(b, label);
	buf_str(b, plan->sig.name);
	buf_u64(b, plan->sig.addr);
	buf_u32(b, plan->sig.syscall);
	buf_u32(b, sizeof(plan->bpf));
	buf_put(b, &plan->bpf, sizeof(plan->bpf));
	for (kind = 0; kind < KSNOOP_NR_KINDS; kind++) {
		buf_u32(b, plan->nvalues[kind]);
		for (i = 0; i < plan->nvalues[kind]; i++)
			put_value(b, &plan->values[kind][i]);
	}
	buf_str(b, plan->hist_text);
	buf_str(b, plan->hist_label);
}

/* Does BTF hold a function prototype (which only a function pointer reaches here)? */
static bool has_func_proto(const struct btf *btf)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n; id++)
		if (btf_is_func_proto(btf__type_by_id(btf, id)))
			return true;
	return false;
}

static int write_btf_and_plans(struct recfile_writer *w, const struct recfile_target *targets,
			       int n, bool *fn_ptrs, struct ks_error *e)
{
	struct capture_plan *plans = calloc(n ? n : 1, sizeof(*plans));
	struct btf *btf = plans ? recfile__minimal_btf(targets, n, plans) : NULL;
	struct buf b = {};
	const void *raw;
	__u32 size;
	int i, err;

	if (!btf) {
		err = plans ? -errno : -ENOMEM;
		free(plans);
		return ks_fail(e, err, "record: cannot copy the plans' types: %s", strerror(-err));
	}
	*fn_ptrs = has_func_proto(btf);
	raw = btf__raw_data(btf, &size);
	err = raw ? write_block(w, RECFILE_BTF, raw, size, e) :
		    ks_fail(e, -ENOMEM, "out of memory");
	buf_u32(&b, n);
	for (i = 0; i < n; i++)
		put_plan(&b, targets[i].label, &plans[i]);
	if (!err)
		err = b.failed ? ks_fail(e, -ENOMEM, "out of memory") :
				 write_block(w, RECFILE_PLANS, b.p, b.len, e);
	free(b.p);
	free(plans);
	btf__free(btf);
	return err;
}

int recfile_writer__begin(struct recfile_writer *w, const struct recfile_meta *meta,
			  const struct recfile_target *targets, int n,
			  const char *ksyms, size_t ksyms_len, bool names_addresses,
			  struct ks_error *e)
{
	bool fn_ptrs = false;

	struct buf b = {};
	int err, i;

	for (i = 0; i < n; i++) {
		w->tree |= targets[i].plan.bpf.tree != KSNOOP_TREE_NONE;
		w->track |= targets[i].plan.bpf.track != KSNOOP_TRACK_NONE;
	}
	if (w->tmp) {
		err = replace_file(w, e);
		if (err)
			return err;
	}
	w->begun = true;
	put_meta(&b, meta);
	err = write_all(w, RECFILE_MAGIC, RECFILE_MAGIC_LEN, e);
	if (!err)
		err = b.failed ? ks_fail(e, -ENOMEM, "out of memory") :
				 write_block(w, RECFILE_HEADER, b.p, b.len, e);
	free(b.p);
	if (!err)
		err = write_btf_and_plans(w, targets, n, &fn_ptrs, e);
	if (!err && ksyms && (names_addresses || fn_ptrs))
		err = write_block(w, RECFILE_KSYMS, ksyms, ksyms_len, e);
	return err;
}

bool recfile_writer__has_usym(const struct recfile_writer *w, __u32 pid, __u64 addr)
{
	return usym_find(&w->usyms, pid, addr);
}

int recfile_writer__usym(struct recfile_writer *w, __u32 pid, __u64 addr, const char *name,
			 struct ks_error *e)
{
	size_t n = strnlen(name, RECFILE_MAX_USYM_NAME - 1);

	if (w->usyms.n >= RECFILE_MAX_USYMS || w->usym_bytes + n + 1 > RECFILE_MAX_USYM_BYTES)
		return -E2BIG;
	if (!n)
		return 0;
	if (usym_grow(&w->usyms))
		return ks_fail(e, -ENOMEM, "out of memory");
	if (!w->usym_pending)
		buf_u32(&w->usym_block, 0);
	buf_u32(&w->usym_block, pid);
	buf_u64(&w->usym_block, addr);
	buf_u32(&w->usym_block, n);
	buf_put(&w->usym_block, name, n);
	if (w->usym_block.failed)
		return ks_fail(e, -ENOMEM, "out of memory");
	*usym_slot(&w->usyms, pid, addr) = (struct usym_entry){ addr, pid, 1 };
	w->usyms.n++;
	w->usym_bytes += n + 1;
	w->usym_pending++;
	return 0;
}

/* The names given since the last block, before the events that use them. */
static int flush_usyms(struct recfile_writer *w, struct ks_error *e)
{
	int err;

	if (!w->usym_pending)
		return 0;
	memcpy(w->usym_block.p, &w->usym_pending, 4);
	err = write_block(w, RECFILE_USYMS, w->usym_block.p, w->usym_block.len, e);
	w->usym_block.len = 0;
	w->usym_pending = 0;
	return err;
}

int recfile_writer__flush(struct recfile_writer *w, struct ks_error *e)
{
	int err;

	if (!w->events.len)
		return 0;
	err = flush_usyms(w, e);
	if (err)
		return err;
	err = write_block(w, RECFILE_EVENTS | RECFILE_BLOCK_DELTA, w->events.p, w->events.len, e);
	w->events.len = 0;
	w->events_raw = 0;
	/* A block decodes on its own: a file cut after it still reports. */
	if (w->prev_len)
		memset(w->prev, 0, w->prev_len);
	w->prev_len = 0;
	return err;
}

/* PREV grown to NWORDS words, the new ones zero. */
static int prev_reserve(struct recfile_writer *w, size_t nwords)
{
	__u64 *p;

	if (nwords <= w->prev_cap)
		return 0;
	p = realloc(w->prev, nwords * 8);
	if (!p)
		return -ENOMEM;
	memset(p + w->prev_cap, 0, (nwords - w->prev_cap) * 8);
	w->prev = p;
	w->prev_cap = nwords;
	return 0;
}

/*
 * Eight words of a record at REC against PREV: the changed ones XORed to
 * OUT (PREV takes their new value), a bit each in the mask byte returned.
 * Of a small event's words nearly all are unchanged: a group that is the
 * same costs its loads, XORs and ORs (unrolled), and only a changed group
 * is looked at word by word.
 */
static inline unsigned int delta_group(const unsigned char *rec, __u64 *prev, unsigned char **out)
{
	__u64 x[8], any = 0;
	unsigned int m = 0, j;

#pragma GCC unroll 8
	for (j = 0; j < 8; j++) {
		__u64 v;

		memcpy(&v, rec + 8 * j, 8);
		x[j] = v ^ prev[j];
		any |= x[j];
	}
	if (!any)
		return 0;
	for (j = 0; j < 8; j++) {
		if (!x[j])
			continue;
		memcpy(*out, &x[j], 8);
		*out += 8;
		prev[j] ^= x[j];
		m |= 1u << j;
	}
	return m;
}

int recfile_writer__event(struct recfile_writer *w, const void *rec, size_t size,
			  struct ks_error *e)
{
	size_t padded = (size + 7) & ~(size_t)7, nwords = padded / 8, nmask = (nwords + 7) / 8;
	size_t groups = size / 64, k;
	unsigned char *mask, *out, tail[64] = { 0 };
	char *o;

	if (w->failed)
		return -EIO;
	if (prev_reserve(w, nmask * 8))
		return ks_fail(e, -ENOMEM, "out of memory");
	/* A shorter record than the last: the words past it XOR with zeros. */
	if (w->prev_len > padded)
		memset((char *)w->prev + padded, 0, w->prev_len - padded);
	/*
	 * RECFILE_BLOCK_DELTA: the size, a bit per 8-byte word of the record
	 * (padded), set where the word differs from the record before's, and
	 * those words XORed with it.  Of a USDT event's 48 words 2 or 3 differ.
	 */
	o = buf_reserve(&w->events, 8 + nmask + padded);	/* at most; trimmed below */
	if (!o)
		return ks_fail(e, -ENOMEM, "out of memory");
	memcpy(o, &(__u64){ size }, 8);
	mask = (unsigned char *)o + 8;
	out = mask + nmask;
	for (k = 0; k < groups; k++)
		mask[k] = delta_group((const unsigned char *)rec + 64 * k, w->prev + 8 * k, &out);
	if (k < nmask) {
		/* The last words, padded with zeros to a group, as PREV is past them. */
		memcpy(tail, (const unsigned char *)rec + 64 * k, size - 64 * k);
		mask[k] = delta_group(tail, w->prev + 8 * k, &out);
	}
	w->events.len = (char *)out - w->events.p;
	w->prev_len = padded;
	w->events_raw += 8 + padded;
	w->records++;
	return w->events_raw >= RECFILE_EVENTS_BLOCK ? recfile_writer__flush(w, e) : 0;
}

int recfile_writer__finish(struct recfile_writer *w, const struct recfile_totals *t,
			   struct ks_error *e)
{
	struct recfile_totals tot = *t;
	int err = recfile_writer__flush(w, e);

	tot.records = w->records;
	if (!err)
		err = write_block(w, RECFILE_END, &tot, w->track ? sizeof(tot) :
					       w->tree ? RECFILE_END_TREE_SIZE : RECFILE_END_SIZE, e);
	if (!err && w->own_fd && close(w->fd)) {
		err = ks_fail(e, ks_runtime_errno(-errno), "record: closing the file failed: %s",
			      strerror(errno));
	}
	if (w->own_fd)
		w->fd = -1;
	return err;
}

__u64 recfile_writer__bytes(const struct recfile_writer *w)
{
	return w->bytes;
}

__u64 recfile_writer__records(const struct recfile_writer *w)
{
	return w->records;
}

void recfile_writer__free(struct recfile_writer *w)
{
	if (!w)
		return;
	if (w->own_fd && w->fd >= 0)
		close(w->fd);
	/* Nothing attached (a function that does not exist ...): no empty file left to refuse next time. */
	if (w->tmp)
		unlink(w->tmp);
	else if (w->own_fd && !w->begun && w->path)
		unlink(w->path);
	free(w->tmp);
	free(w->path);
	free(w->events.p);
	usym_free(&w->usyms);
	free(w->usym_block.p);
	free(w->prev);
	free(w->zbuf);
	ZSTD_freeCCtx(w->zc);
	free(w);
}

/* ---- reading ---- */

struct recfile {
	FILE *f;
	const char *where;
	__u64 off;		/* bytes read */
	__u64 cut;		/* cut short: where the last complete block ends */
	struct recfile_meta meta;
	struct btf *btf;
	int ntargets;
	struct recfile_target *targets;
	char *ksyms;
	size_t ksyms_len;
	struct usym_table usyms;	/* USYMS: user frames' names (format 6) */
	char *block;		/* the current EVENTS block, decompressed */
	size_t block_len, pos;
	ZSTD_DCtx *zd;
	bool ended;
	bool has_totals;
	struct recfile_totals totals;
};

/* A bad file: exit status 2 (ks_error.h: -ENOEXEC is "malformed input"). */
#define BAD_FILE	(-ENOEXEC)

static int bad(struct recfile *r, struct ks_error *e, __u64 at, const char *what)
{
	return ks_fail(e, BAD_FILE, "report: '%s': %s at byte %llu", r->where, what,
		       (unsigned long long)at);
}

/*
 * Read N bytes; 1 if the file ends before them (having read some or
 * none: a cut), 0 if read, negative on a read error.
 */
static int read_exact(struct recfile *r, void *p, size_t n, struct ks_error *e)
{
	size_t got = fread(p, 1, n, r->f);

	r->off += got;
	if (got == n)
		return 0;
	if (ferror(r->f))
		return ks_fail(e, -EIO, "report: reading '%s' failed at byte %llu", r->where,
			       (unsigned long long)r->off);
	return 1;
}

/* A version-2 block: zlib's stream into RAW, exactly LEN bytes; nonzero if not. */
static int inflate_to(char *raw, size_t len, const char *stored, size_t stored_len)
{
	uLongf got = len;

	return uncompress((Bytef *)raw, &got, (const Bytef *)stored, stored_len) != Z_OK || got != len;
}

/*
 * The next block, decompressed into *OUT (malloc'd, *LEN bytes).  1: a
 * block; 0: the file ends cleanly between blocks, or is cut inside one
 * (r->cut set); negative: a bad block.
 */
static int read_block(struct recfile *r, __u32 *type, char **out, size_t *len,
		      struct ks_error *e)
{
	__u64 start = r->off;
	struct block_hdr h;
	__u32 how;
	size_t raw_len;
	char *stored, *raw;
	bool whole;
	int err;

	err = read_exact(r, &h, sizeof(h), e);
	if (err < 0)
		return err;
	if (err) {
		if (r->off != start)
			r->cut = start;
		return 0;
	}
	how = h.type & ~RECFILE_BLOCK_TYPE;
	h.type &= RECFILE_BLOCK_TYPE;
	if (h.type < RECFILE_HEADER || h.type > RECFILE_USYMS ||
	    (how & ~(RECFILE_BLOCK_ZSTD | RECFILE_BLOCK_DELTA)) ||
	    ((how & RECFILE_BLOCK_DELTA) && h.type != RECFILE_EVENTS))
		return bad(r, e, start, "unknown block type");
	if (h.raw_len > RECFILE_MAX_BLOCK ||
	    h.stored_len > (how & RECFILE_BLOCK_ZSTD ? ZSTD_compressBound(RECFILE_MAX_BLOCK) :
						       compressBound(RECFILE_MAX_BLOCK)))
		return bad(r, e, start, "block longer than a reader takes");
	stored = malloc(h.stored_len ? h.stored_len : 1);
	if (!stored)
		return ks_fail(e, -ENOMEM, "out of memory");
	err = read_exact(r, stored, h.stored_len, e);
	if (err) {
		free(stored);
		if (err > 0)
			r->cut = start;
		return err < 0 ? err : 0;
	}
	/* The checksum first: the decompressed size is allocated only for a block that is whole. */
	whole = crc32(0, (Bytef *)stored, h.stored_len) == h.crc;
	raw = whole ? malloc(h.raw_len ? h.raw_len : 1) : NULL;
	if (!whole)
		err = bad(r, e, start, "block checksum does not match");
	else if (!raw || (how & RECFILE_BLOCK_ZSTD && !r->zd && !(r->zd = ZSTD_createDCtx())))
		err = ks_fail(e, -ENOMEM, "out of memory");
	/* Either stops at raw_len bytes: a block that decompresses to more is refused. */
	else if (how & RECFILE_BLOCK_ZSTD ?
		 (raw_len = ZSTD_decompressDCtx(r->zd, raw, h.raw_len, stored, h.stored_len),
		  ZSTD_isError(raw_len) || raw_len != h.raw_len) :
		 inflate_to(raw, h.raw_len, stored, h.stored_len))
		err = bad(r, e, start, "block does not decompress to its length");
	free(stored);
	if (err) {
		free(raw);
		return err;
	}
	*type = h.type | (how & RECFILE_BLOCK_DELTA);
	*out = raw;
	*len = h.raw_len;
	return 1;
}

/*
 * Format 5's fields after the specs: the host and what a plain report
 * prints.  An older file's host is its file name (as given to report).
 */
static void parse_meta_v5(struct recfile *r, struct cursor *c, __u32 version)
{
	struct recfile_meta *m = &r->meta;

	if (version < 5) {
		m->host = strdup(r->where);
		m->by = strdup("");
		c->bad = !m->host || !m->by;
		return;
	}
	m->host = cur_str(c);
	m->output = cur_u32(c);
	m->by = cur_str(c);
	m->hist_min = cur_u64(c);
	m->hist_step = cur_u64(c);
	m->hist_nbuckets = cur_u32(c);
}

static int parse_meta(struct recfile *r, const char *p, size_t len, __u64 at, struct ks_error *e)
{
	struct cursor c = { .p = p, .left = len };
	struct recfile_meta *m = &r->meta;
	__u32 i, version;

	if (cur_u32(&c) != BYTE_ORDER_MARK)
		return bad(r, e, at, "header in another byte order, or not a header");
	version = cur_u32(&c);
	if (version < RECFILE_OLDEST_VERSION || version > RECFILE_VERSION) {
		return ks_fail(e, BAD_FILE, "report: '%s': format version %u; this ksnoop reads versions %u to %u",
			       r->where, version, RECFILE_OLDEST_VERSION, RECFILE_VERSION);
	}
	m->format = version;
	m->version = cur_str(&c);
	m->release = cur_str(&c);
	m->machine = cur_str(&c);
	m->start_ns = cur_u64(&c);
	m->clock = cur_str(&c);
	m->clock_offset_ns = cur_u64(&c);
	m->kind = cur_u32(&c);
	m->stack = cur_u32(&c);
	i = cur_u32(&c);
	if (c.bad || i > RECFILE_MAX_SPECS || m->kind > RECFILE_USDT)
		return bad(r, e, at, "header does not parse");
	m->specs = calloc(i ? i : 1, sizeof(*m->specs));
	if (!m->specs)
		return ks_fail(e, -ENOMEM, "out of memory");
	for (; m->nspecs < (int)i && !c.bad; m->nspecs++)
		m->specs[m->nspecs] = cur_str(&c);
	if (!c.bad)
		parse_meta_v5(r, &c, version);
	/* --hist=linear's range as the command line bounds it: its top fits 64 bits. */
	if (c.bad || m->output > RECFILE_OUT_HIST ||
	    m->hist_nbuckets > KSNOOP_HIST_LINEAR_MAX || (m->hist_step && !m->hist_nbuckets) ||
	    (__int128)m->hist_min + (__int128)m->hist_step * m->hist_nbuckets > INT64_MAX)
		return bad(r, e, at, "header does not parse");
	return 0;
}

static int parse_btf(struct recfile *r, const char *p, size_t len, __u64 at, struct ks_error *e)
{
	r->btf = btf__new(p, len);
	if (!r->btf) {
		r->btf = NULL;
		return bad(r, e, at, "BTF does not parse");
	}
	if (!btfu_refs_valid(r->btf))
		return bad(r, e, at, "BTF refers to types it does not have");
	return 0;
}

/* Is the value VD, at PLAN's offset VP in a record of REC_SIZE bytes, one the printer can take? */
static bool value_ok(const struct recfile *r, const struct value_desc *vd,
		     const struct ksnoop_value_plan *vp, __u32 rec_size)
{
	__u32 n = btf__type_cnt(r->btf);

	if (vd->type_id >= n || vd->obj_id >= n || vd->how > PRINT_SKB_PACKET || vd->fmt >= FMT_NR)
		return false;
	/* A packet (version 6): its header at least; pcap_events.c bounds the bytes after it. */
	if (vd->how == PRINT_SKB_PACKET &&
	    (r->meta.format < 6 || vd->size < sizeof(struct ksnoop_skb_packet)))
		return false;
	if (vp->rec_off < sizeof(struct ksnoop_event) || vp->rec_off % 8 ||
	    vp->rec_off > rec_size - sizeof(struct ksnoop_value) ||
	    vd->size > rec_size - sizeof(struct ksnoop_value) - vp->rec_off)
		return false;
	if (vd->bit_size > 64 || vd->bit_off + vd->bit_size > 8 * vd->size)
		return false;
	if (vd->shift > 63)
		return false;
	/* ':strv' is one struct ksnoop_strv, as this ksnoop lays it out (version 4). */
	if (vd->how == PRINT_STRV && vd->size != sizeof(struct ksnoop_strv))
		return false;
	/* A stack's frames are read from its len: the slot must hold them all. */
	if ((vd->how == PRINT_STACK || vd->how == PRINT_USTACK) &&
	    vd->size < KSNOOP_STACK_DEPTH * 8)
		return false;
	return true;
}

static bool plan_ok(const struct recfile *r, const struct capture_plan *plan)
{
	const struct ksnoop_plan *bp = &plan->bpf;
	int kind, i;

	if (bp->output != KSNOOP_OUT_EVENTS || plan->sig.syscall > SIG_SYSCALL_PAIR)
		return false;
	/* --tree: a role, and no more calls a tree than the option takes. */
	if (bp->tree > KSNOOP_TREE_INNER || bp->tree_max_calls > KSNOOP_TREE_CALLS_LIMIT)
		return false;
	for (kind = 0; kind < KSNOOP_NR_KINDS; kind++) {
		const struct ksnoop_side_plan *side = &bp->side[kind];

		/* A stashed entry side prints nothing itself (nvalues 0): fewer, never more. */
		if (plan->nvalues[kind] > side->nvalues || side->nvalues > KSNOOP_MAX_VALUES ||
		    side->rec_size > KSNOOP_MAX_RECORD)
			return false;
		if (!plan->nvalues[kind])
			continue;
		if (side->rec_size < sizeof(struct ksnoop_event))
			return false;
		for (i = 0; i < plan->nvalues[kind]; i++)
			if (!value_ok(r, &plan->values[kind][i], &side->values[i], side->rec_size))
				return false;
	}
	return true;
}

static int parse_value(struct cursor *c, struct value_desc *vd)
{
	__u32 bits;

	vd->text = cur_str(c);
	vd->type_id = cur_u32(c);
	vd->obj_id = cur_u32(c);
	vd->how = cur_u32(c);
	vd->size = cur_u32(c);
	vd->obj_size = cur_u32(c);
	bits = cur_u32(c);
	vd->bit_off = bits & 0xff;
	vd->bit_size = bits >> 8 & 0xff;
	vd->errno_names = bits >> 16 & 1;
	vd->shift = bits >> 24;
	vd->fmt = cur_u32(c);
	cur_str_to(c, vd->obj_name, sizeof(vd->obj_name));
	return c->bad || !vd->text ? -1 : 0;
}

static int parse_target(struct recfile *r, struct cursor *c, struct recfile_target *t)
{
	struct capture_plan *plan = &t->plan;
	const void *bp;
	__u32 n, size;
	int kind, i;

	t->label = cur_str(c);
	cur_str_to(c, plan->sig.name, sizeof(plan->sig.name));
	plan->sig.addr = cur_u64(c);
	plan->sig.syscall = cur_u32(c);
	plan->sig.btf = r->btf;
	/*
	 * A plan of an older ksnoop is shorter: what it lacks is zero (the
	 * variables of user functions, which only BPF reads), down to the plan
	 * of the first version 2 files.
	 */
	size = cur_u32(c);
	if (size > sizeof(plan->bpf) || size < RECFILE_MIN_PLAN || !(bp = cur_take(c, size)))
		return -1;
	memset(&plan->bpf, 0, sizeof(plan->bpf));
	memcpy(&plan->bpf, bp, size);
	for (kind = 0; kind < KSNOOP_NR_KINDS; kind++) {
		n = cur_u32(c);
		if (n > KSNOOP_MAX_VALUES)
			return -1;
		/* Counted as soon as parsed, whole or not: recfile__free() frees its text. */
		for (i = 0; i < (int)n; i++)
			if (plan->nvalues[kind]++, parse_value(c, &plan->values[kind][i]))
				return -1;
	}
	cur_str_to(c, plan->hist_text, sizeof(plan->hist_text));
	cur_str_to(c, plan->hist_label, sizeof(plan->hist_label));
	return c->bad || !t->label || !plan_ok(r, plan) ? -1 : 0;
}

static int parse_plans(struct recfile *r, const char *p, size_t len, __u64 at, struct ks_error *e)
{
	struct cursor c = { .p = p, .left = len };
	__u32 n = cur_u32(&c);
	char what[64];

	/*
	 * Each target holds its BPF plan: a count the block cannot hold is
	 * refused before the targets are allocated (memory stays within a
	 * small multiple of the block's size).
	 */
	if (c.bad || n > RECFILE_MAX_TARGETS || n > len / sizeof(struct ksnoop_plan))
		return bad(r, e, at, "plans do not parse");
	r->targets = calloc(n ? n : 1, sizeof(*r->targets));
	if (!r->targets)
		return ks_fail(e, -ENOMEM, "out of memory");
	for (; r->ntargets < (int)n; r->ntargets++) {
		if (parse_target(r, &c, &r->targets[r->ntargets])) {
			r->ntargets++;	/* freed with the others */
			snprintf(what, sizeof(what), "plan %d does not parse or fit its BTF",
				 r->ntargets - 1);
			return bad(r, e, at, what);
		}
	}
	return 0;
}

/* The blocks before the events, in their order. */
static int read_preamble(struct recfile *r, struct ks_error *e)
{
	static const __u32 order[] = { RECFILE_HEADER, RECFILE_BTF, RECFILE_PLANS };
	__u64 at;
	__u32 type;
	size_t len, i;
	char *p;
	int err;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		at = r->off;
		err = read_block(r, &type, &p, &len, e);
		if (err < 0)
			return err;
		if (!err)
			return bad(r, e, at, "file ends before its plans");
		if (type != order[i])
			err = bad(r, e, at, "block out of order");
		else if (type == RECFILE_HEADER)
			err = parse_meta(r, p, len, at, e);
		else if (type == RECFILE_BTF)
			err = parse_btf(r, p, len, at, e);
		else
			err = parse_plans(r, p, len, at, e);
		free(p);
		if (err)
			return err;
	}
	return 0;
}

static int next_block(struct recfile *r, struct ks_error *e);

struct recfile *recfile__open(FILE *f, const char *where, struct ks_error *e)
{
	struct recfile *r = calloc(1, sizeof(*r));
	char magic[RECFILE_MAGIC_LEN];
	int err;

	if (!r) {
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	r->f = f;
	r->where = where;
	err = read_exact(r, magic, sizeof(magic), e);
	if (!err && memcmp(magic, RECFILE_MAGIC, sizeof(magic)))
		err = ks_fail(e, BAD_FILE, "report: '%s' is not a ksnoop recording", where);
	else if (err > 0)
		err = ks_fail(e, BAD_FILE, "report: '%s' is not a ksnoop recording (too short)", where);
	if (!err)
		err = read_preamble(r, e);
	/* KSYMS, if there is one, before the first record is printed. */
	if (!err && next_block(r, e) < 0)
		err = -1;
	if (err) {
		recfile__free(r);
		return NULL;
	}
	return r;
}

void recfile__free(struct recfile *r)
{
	int i, kind, v;

	if (!r)
		return;
	for (i = 0; i < r->meta.nspecs; i++)
		free(r->meta.specs[i]);
	free(r->meta.specs);
	ZSTD_freeDCtx(r->zd);
	free(r->meta.version);
	free(r->meta.release);
	free(r->meta.machine);
	free(r->meta.host);
	free(r->meta.by);
	free(r->meta.clock);
	for (i = 0; i < r->ntargets; i++) {
		free(r->targets[i].label);
		for (kind = 0; kind < KSNOOP_NR_KINDS; kind++)
			for (v = 0; v < r->targets[i].plan.nvalues[kind]; v++)
				free((char *)r->targets[i].plan.values[kind][v].text);
	}
	free(r->targets);
	btf__free(r->btf);
	free(r->ksyms);
	usym_free(&r->usyms);
	free(r->block);
	free(r);
}

const struct recfile_meta *recfile__meta(const struct recfile *r) { return &r->meta; }
int recfile__ntargets(const struct recfile *r) { return r->ntargets; }
const struct btf *recfile__btf(const struct recfile *r) { return r->btf; }
__u64 recfile__cut(const struct recfile *r) { return r->cut; }
__u64 recfile__offset(const struct recfile *r) { return r->off; }

const struct recfile_target *recfile__target(const struct recfile *r, int i)
{
	return i >= 0 && i < r->ntargets ? &r->targets[i] : NULL;
}

const char *recfile_target__name(const struct recfile_target *t)
{
	if (!t)
		return "?";
	return t->label && *t->label ? t->label : t->plan.sig.name;
}

const char *recfile__ksyms(const struct recfile *r, size_t *len)
{
	*len = r->ksyms_len;
	return r->ksyms;
}

const struct recfile_totals *recfile__totals(const struct recfile *r)
{
	return r->has_totals ? &r->totals : NULL;
}

/* Does record REC of SIZE bytes fit its target's plan, value by value? */
static bool record_ok(const struct recfile *r, const void *rec, size_t size)
{
	const struct ksnoop_event *ev = rec;
	const struct ksnoop_side_plan *side;
	const struct capture_plan *plan;
	int i;

	if (size < sizeof(*ev) || ev->func_id >= (__u32)r->ntargets || ev->kind >= KSNOOP_NR_KINDS)
		return false;
	plan = &r->targets[ev->func_id].plan;
	side = &plan->bpf.side[ev->kind];
	if (size < side->rec_size)
		return false;
	/* A tree's inner call is 1 to KSNOOP_TREE_MAX_DEPTH below its root, as BPF keeps them. */
	if (plan->bpf.tree == KSNOOP_TREE_INNER && (!ev->depth || ev->depth > KSNOOP_TREE_MAX_DEPTH))
		return false;
	for (i = 0; i < plan->nvalues[ev->kind]; i++) {
		struct ksnoop_value vh;

		memcpy(&vh, (const char *)rec + side->values[i].rec_off, sizeof(vh));
		if (vh.len > side->rec_size - side->values[i].rec_off - sizeof(vh))
			return false;
	}
	return true;
}

/*
 * A RECFILE_BLOCK_DELTA events block (*P, *LEN) decoded into records as
 * version 2 stores them (size, record, padding), in place of it: each
 * record's words that its mask marks XORed with the record before's, the
 * others the record before's.  Bounded: the decoded block no longer than
 * a block a reader takes, every mask and word inside the block.
 */
static int undelta(struct recfile *r, char **p, size_t *len, __u64 at, struct ks_error *e)
{
	const unsigned char *in = (const unsigned char *)*p, *end = in + *len;
	struct buf out = {};
	size_t prev_off = 0, prev_words = 0;

	while (in < end) {
		__u64 size, nwords, nmask, k;
		const unsigned char *mask;
		size_t off;

		if (end - in < 8)
			goto bad_block;
		memcpy(&size, in, 8);
		in += 8;
		nwords = (size + 7) / 8;
		nmask = (nwords + 7) / 8;
		if (size > RECFILE_MAX_BLOCK || (__u64)(end - in) < nmask ||
		    out.len + 8 + nwords * 8 > RECFILE_MAX_BLOCK)
			goto bad_block;
		mask = in;
		in += nmask;
		buf_u64(&out, size);
		off = out.len;
		if (!buf_reserve(&out, nwords * 8))
			break;
		for (k = 0; k < nwords; k++) {
			__u64 v = 0, pv;

			if (mask[k / 8] >> (k % 8) & 1) {
				if (end - in < 8)
					goto bad_block;
				memcpy(&v, in, 8);
				in += 8;
			}
			if (k < prev_words) {
				memcpy(&pv, out.p + prev_off + 8 * k, 8);
				v ^= pv;
			}
			memcpy(out.p + off + 8 * k, &v, 8);
		}
		prev_off = off;
		prev_words = nwords;
	}
	if (out.failed) {
		free(out.p);
		return ks_fail(e, -ENOMEM, "out of memory");
	}
	free(*p);
	*p = out.p ? out.p : calloc(1, 1);
	*len = out.len;
	return *p ? 0 : ks_fail(e, -ENOMEM, "out of memory");
bad_block:
	free(out.p);
	return bad(r, e, at, "delta-coded records do not fit their block");
}

/* One name of a USYMS block into R's table; false: it does not fit. */
static bool take_usym(struct recfile *r, struct cursor *c)
{
	__u32 pid = cur_u32(c);
	__u64 addr = cur_u64(c);
	__u32 n = cur_u32(c);
	const char *name = n && n < RECFILE_MAX_USYM_NAME ? cur_take(c, n) : NULL;
	struct usym_entry *u;
	char *at;

	if (!name || memchr(name, 0, n) || usym_find(&r->usyms, pid, addr) ||
	    r->usyms.names.len + n + 1 > RECFILE_MAX_USYM_BYTES || usym_grow(&r->usyms))
		return false;
	at = buf_reserve(&r->usyms.names, n + 1);
	if (!at)
		return false;
	memcpy(at, name, n);
	at[n] = 0;
	u = usym_slot(&r->usyms, pid, addr);
	*u = (struct usym_entry){ addr, pid, (__u32)(at - r->usyms.names.p) + 1 };
	r->usyms.n++;
	return true;
}

/*
 * USYMS: a count, then per name pid u32, addr u64, STR name (1 to 511
 * bytes, no NUL); every (pid, addr) named once in a file, at most
 * RECFILE_MAX_USYMS in all, nothing after the last.
 */
static int take_usyms(struct recfile *r, const char *p, size_t len, __u64 at,
		      struct ks_error *e)
{
	struct cursor c = { .p = p, .left = len };
	__u32 n = cur_u32(&c), i;

	if (r->meta.format < 6)
		return bad(r, e, at, "user symbols in a file of a format before 6");
	if (!n || n > RECFILE_MAX_USYMS - r->usyms.n)
		return bad(r, e, at, "user symbols: no name, or more than a reader takes");
	for (i = 0; i < n; i++)
		if (!take_usym(r, &c))
			return r->usyms.names.failed ? ks_fail(e, -ENOMEM, "out of memory") :
			       bad(r, e, at, "user symbol that does not fit, or named twice");
	return c.left ? bad(r, e, at, "data after the user symbols") : 0;
}

int recfile__usymbolize(void *ctx, __u32 pid, __u64 addr, char *buf, size_t sz)
{
	const struct recfile *r = ctx;
	const struct usym_entry *u = usym_find(&r->usyms, pid, addr);

	if (!u || !sz)
		return -ENOENT;
	snprintf(buf, sz, "%s", r->usyms.names.p + u->name - 1);
	return 0;
}

/* A block after the plans: KSYMS kept, USYMS' names, END's totals, EVENTS made current. */
static int take_block(struct recfile *r, __u32 type, char *p, size_t len, __u64 at,
		      struct ks_error *e)
{
	switch (type & RECFILE_BLOCK_TYPE) {
	case RECFILE_KSYMS:
		if (r->ksyms || r->block || r->usyms.n) {
			free(p);
			return bad(r, e, at, "kernel symbols out of order");
		}
		r->ksyms = p;
		r->ksyms_len = len;
		return 0;
	case RECFILE_USYMS: {
		int err = take_usyms(r, p, len, at, e);

		free(p);
		return err;
	}
	case RECFILE_EVENTS:
		if (type & RECFILE_BLOCK_DELTA) {
			int err = undelta(r, &p, &len, at, e);

			if (err) {
				free(p);
				return err;
			}
		}
		free(r->block);
		r->block = p;
		r->block_len = len;
		r->pos = 0;
		return 0;
	case RECFILE_END:
		/* --track's counters came with format 7. */
		if (len != RECFILE_END_SIZE && len != RECFILE_END_TREE_SIZE &&
		    (len != sizeof(r->totals) || r->meta.format < 7)) {
			free(p);
			return bad(r, e, at, "end block of the wrong size");
		}
		memset(&r->totals, 0, sizeof(r->totals));
		memcpy(&r->totals, p, len);
		free(p);
		r->has_totals = true;
		r->ended = true;
		return 0;
	default:
		free(p);
		return bad(r, e, at, "block out of order");
	}
}

/* The next block after the plans; 0: the file ended (cut or not). */
static int next_block(struct recfile *r, struct ks_error *e)
{
	__u64 at = r->off;
	__u32 type;
	size_t len;
	char *p;
	int err = read_block(r, &type, &p, &len, e);

	if (err <= 0) {
		r->ended = true;
		if (!err && !r->cut)
			r->cut = at;	/* ended between blocks, without END */
		return err;
	}
	err = take_block(r, type, p, len, at, e);
	if (!err && r->ended && fgetc(r->f) != EOF)
		err = bad(r, e, r->off, "data after the end block");
	return err ? err : 1;
}

int recfile__next(struct recfile *r, const void **rec, size_t *size, struct ks_error *e)
{
	int err;

	while (!r->ended) {
		if (r->block && r->pos < r->block_len) {
			__u64 n;

			if (r->block_len - r->pos < 8)
				return bad(r, e, r->off, "record length cut inside its block");
			memcpy(&n, r->block + r->pos, 8);
			if (n > r->block_len - r->pos - 8 || !record_ok(r, r->block + r->pos + 8, n))
				return bad(r, e, r->off, "record does not fit its block or plan");
			*rec = r->block + r->pos + 8;
			*size = n;
			/* The last record's padding may be left out. */
			r->pos += 8 + (size_t)((n + 7) & ~7ULL);
			if (r->pos > r->block_len)
				r->pos = r->block_len;
			return 1;
		}
		err = next_block(r, e);
		if (err < 0)
			return err;
	}
	return 0;
}
