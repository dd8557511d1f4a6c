// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the user stack symbolizer keeps: the executable mappings of the
 * processes seen, and the symbols of the files mapped.  It runs in
 * usym.c's child process; everything it reads is untrusted.
 *
 * A user return address means something only in the process it came from:
 * /proc/PID/maps says which file is mapped there and at which file offset;
 * the file's program headers turn the offset into the address the file's
 * symbols use; its .symtab (or, stripped, .dynsym) names the function.
 *
 * Events are printed a little after they happen, and a short-lived process
 * may be gone by then: its maps are read at its first address and kept
 * (least recently used dropped first, within USYM_MAX_PROCS processes and
 * USYM_MAX_KEPT_MAPS bytes), and read again only for an address they do
 * not hold, at most once a second.  They are kept with the process's start
 * time (/proc/PID/stat, field 22), checked at every address: a pid reused
 * by another process starts a new entry, never names from the old one.
 * An exec keeps the pid and the start time but maps another program: the
 * start of its code and of its stack (fields 26 and 28, new at every exec)
 * are kept beside the start time, and when they change the maps are read
 * at once (for -p they were read at attach, maybe of the shell that then
 * became the traced program: live/45-apps' PostgreSQL).  An event's time
 * is not compared with the exec's, so the program before the exec keeps
 * its mappings behind the new ones (looked up after them; one program
 * back): its events printed after the exec are still named.
 *
 * A stripped file (.dynsym only: glibc's libc.so.6 names no static
 * function) takes its symbols from its debug file when one is installed,
 * USYM_DEBUG_ROOT/.build-id/NN/REST.debug by its build-id note (the
 * debug file's own build-id must match): __libc_start_call_main, not
 * libc.so.6+0x2724a.  The path is made of hex digits only; the file,
 * root's, is read with the same bounded reader.
 *
 * Symbols are read once per file, keyed by the device and inode the maps
 * give, through /proc/PID/map_files (the very file mapped, even deleted or
 * replaced since, or in another mount namespace).  Without it (not root)
 * the path is the fallback, never for a deleted file, and opened O_PATH
 * and O_NOFOLLOW first: only a regular file with the mapped device and
 * inode is then opened for reading, so no FIFO, device or symlink target
 * a process names is ever opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "usym_int.h"

#define REREAD_NS		(1000ULL * 1000 * 1000)
#define DELETED			" (deleted)"

struct usym_map {
	__u64 start, end, pgoff;
	__u64 dev, ino;
	__u32 path;		/* offset in the process's paths */
	bool before_exec;	/* the program's before the last exec */
};

/* Which process, and which program it runs: all 0 when unknown (gone). */
struct usym_ident {
	__u64 start_time;	/* clock ticks after boot */
	__u64 start_code;	/* changed by every exec */
	__u64 start_stack;
};

struct usym_proc {
	__u32 pid;
	struct usym_ident id;
	int nmaps;
	struct usym_map *maps;
	char *paths;		/* "" first: anonymous mappings */
	size_t paths_len;
	__u64 read_ns;		/* when the maps were read */
	__u64 used;		/* tick at the last lookup */
};

struct usym_cache {
	char proc_dir[PATH_MAX / 2];
	struct usym_shared *shared;
	struct usym_proc procs[USYM_MAX_PROCS];
	int nprocs;
	size_t maps_bytes;
	struct usym_obj objs[USYM_MAX_OBJECTS];
	int nobjs;
	size_t obj_bytes;
	__u64 tick;
};

__u64 usym__mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct usym_cache *usym_cache__new(const char *proc_dir, struct usym_shared *shared)
{
	struct usym_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	snprintf(c->proc_dir, sizeof(c->proc_dir), "%s", proc_dir ? proc_dir : "/proc");
	c->shared = shared;
	return c;
}

static size_t proc_bytes(const struct usym_proc *p)
{
	return p->nmaps * sizeof(*p->maps) + p->paths_len;
}

static void drop_proc(struct usym_cache *c, struct usym_proc *p)
{
	c->maps_bytes -= proc_bytes(p);
	free(p->maps);
	free(p->paths);
	memset(p, 0, sizeof(*p));
}

void usym_cache__free(struct usym_cache *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < c->nprocs; i++)
		drop_proc(c, &c->procs[i]);
	for (i = 0; i < c->nobjs; i++)
		usym_obj__free(&c->objs[i]);
	free(c);
}

static void set_stage(struct usym_cache *c, __u32 stage, __u32 pid, __u64 dev, __u64 ino)
{
	if (!c->shared)
		return;
	c->shared->pid = pid;
	c->shared->dev = dev;
	c->shared->ino = ino;
	__atomic_store_n(&c->shared->stage, stage, __ATOMIC_SEQ_CST);
}

/* ---- processes ---- */

/*
 * PID's start time, start of code and of stack (fields 22, 26 and 28 of
 * its stat, after the comm in parentheses) into ID; all 0 if it is gone,
 * or has exited and is not reaped yet: a zombie's stat keeps its start
 * time but says 0 for code and stack, which is no other program (an
 * exec, to proc_map()) but no program at all, and its maps are empty.
 * All 0 too in the middle of an exec: the new program's stack is set up
 * before its code is mapped and start_code set (load_elf_binary()), and
 * an ident of code 0 taken there would be a program of its own, a second
 * exec that dropped the maps carried from before the first (live/34-ustack,
 * execd, at load 7).
 */
static void proc_ident(struct usym_cache *c, __u32 pid, struct usym_ident *id)
{
	unsigned long long t, code = 0, stack = 0;
	char path[PATH_MAX], buf[1024], *p;
	ssize_t n;
	int fd, i;

	*id = (struct usym_ident){};
	snprintf(path, sizeof(path), "%s/%u/stat", c->proc_dir, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* Fields 3 to 21 skipped: 19 spaces after the ')'. */
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	n = p ? sscanf(p, " %llu %*s %*s %*s %llu %*s %llu", &t, &code, &stack) : 0;
	if (n < 1 || (n == 3 && !code))
		return;
	*id = (struct usym_ident){ t, code, stack };
}

static bool same_ident(const struct usym_ident *a, const struct usym_ident *b)
{
	return a->start_time == b->start_time && a->start_code == b->start_code &&
	       a->start_stack == b->start_stack;
}

static int add_path(struct usym_proc *p, size_t *cap, const char *path, size_t len, __u32 *off)
{
	char *n;

	if (p->paths_len + len + 1 > *cap) {
		size_t c = *cap ? 2 * *cap : 4096;

		while (c < p->paths_len + len + 1)
			c *= 2;
		n = realloc(p->paths, c);
		if (!n)
			return -ENOMEM;
		p->paths = n;
		*cap = c;
	}
	memcpy(p->paths + p->paths_len, path, len);
	p->paths[p->paths_len + len] = 0;
	*off = p->paths_len;
	p->paths_len += len + 1;
	return 0;
}

static int push_map(struct usym_proc *p, const struct usym_map *m)
{
	if (!(p->nmaps & (p->nmaps - 1))) {
		struct usym_map *nm = realloc(p->maps, (p->nmaps ? 2 * p->nmaps : 1) * sizeof(*nm));

		if (!nm)
			return -ENOMEM;
		p->maps = nm;
	}
	p->maps[p->nmaps++] = *m;
	return 0;
}

/* One line of maps into P; 0, 1 if not an executable mapping, or -errno. */
static int parse_map_line(const char *line, struct usym_proc *p, size_t *cap)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	struct usym_map m;
	char perms[5];
	int n = 0;
	const char *path;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
		   &maj, &min, &ino, &n) < 7 || !n || start >= end || perms[2] != 'x')
		return 1;
	m = (struct usym_map){ start, end, pgoff, makedev(maj, min), ino, 0, false };
	path = line + n;
	if (*path && *path != '\n' && add_path(p, cap, path, strcspn(path, "\n"), &m.path))
		return -ENOMEM;
	return push_map(p, &m);
}

/*
 * The mappings of OLD (PID's entry before this read) that FRESH keeps
 * behind its own: after an exec (EXECD) OLD's program's, marked before the
 * exec; else those OLD kept from before the last exec.  0 or -ENOMEM.
 */
static int carry_maps(struct usym_proc *fresh, const struct usym_proc *old, bool execd)
{
	size_t cap = fresh->paths_len;
	struct usym_map m;
	int err = 0;

	for (int i = 0; !err && i < old->nmaps && fresh->nmaps < 2 * USYM_MAX_MAPS; i++) {
		if (old->maps[i].before_exec == execd)
			continue;
		m = old->maps[i];
		m.before_exec = true;
		m.path = 0;
		if (old->paths[old->maps[i].path])
			err = add_path(fresh, &cap, old->paths + old->maps[i].path,
				       strlen(old->paths + old->maps[i].path), &m.path);
		if (!err)
			err = push_map(fresh, &m);
	}
	return err;
}

/* PID's executable mappings into P (empty); 0 or -errno (gone: -ENOENT). */
static int read_maps(struct usym_cache *c, __u32 pid, struct usym_proc *p)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0, pcap = 0, bytes = 0;
	ssize_t len;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "%s/%u/maps", c->proc_dir, pid);
	set_stage(c, USYM_STAGE_MAPS, pid, 0, 0);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (add_path(p, &pcap, "", 0, &(__u32){0}))
		err = -ENOMEM;
	while (!err && p->nmaps < USYM_MAX_MAPS && bytes < USYM_MAX_MAPS_BYTES &&
	       (len = getline(&line, &cap, f)) > 0) {
		bytes += len;
		err = parse_map_line(line, p, &pcap);
		err = err > 0 ? 0 : err;
	}
	free(line);
	fclose(f);
	return err;
}

static const struct usym_map *find_map(const struct usym_proc *p, __u64 addr)
{
	for (int i = 0; i < p->nmaps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

static struct usym_proc *lru_proc(struct usym_cache *c)
{
	struct usym_proc *p = NULL;

	for (int i = 0; i < c->nprocs; i++)
		if (c->procs[i].pid && (!p || c->procs[i].used < p->used))
			p = &c->procs[i];
	return p;
}

/* A slot for PID's maps: its own, a free one, or the least recently used. */
static struct usym_proc *proc_slot(struct usym_cache *c, __u32 pid)
{
	struct usym_proc *p;
	int i;

	for (i = 0; i < c->nprocs; i++)
		if (c->procs[i].pid == pid)
			return &c->procs[i];
	for (i = 0; i < c->nprocs; i++)
		if (!c->procs[i].pid)
			return &c->procs[i];
	if (c->nprocs < USYM_MAX_PROCS)
		return &c->procs[c->nprocs++];
	p = lru_proc(c);
	drop_proc(c, p);
	return p;
}

/* Room for NEW bytes of maps: the least recently used processes dropped. */
static void make_room(struct usym_cache *c, size_t new)
{
	struct usym_proc *p;

	while (c->maps_bytes + new > USYM_MAX_KEPT_MAPS) {
		p = lru_proc(c);
		if (!p)
			return;
		drop_proc(c, p);
	}
}

/*
 * Whether PID is still the program ID said (after its maps were read: an
 * exec between the two reads would put one program's maps under the
 * other's ident).  A process gone or exiting since is: what was read is.
 */
static bool still_ident(struct usym_cache *c, __u32 pid, const struct usym_ident *id)
{
	struct usym_ident now;

	proc_ident(c, pid, &now);
	return !now.start_time || !id->start_time || same_ident(&now, id);
}

/* P (PID's slot, maybe of another process before) read anew. */
static void refresh_proc(struct usym_cache *c, struct usym_proc *p, __u32 pid,
			 const struct usym_ident *id, __u64 now)
{
	struct usym_proc fresh = { .pid = pid, .id = *id, .read_ns = now };
	bool execd = p->pid == pid && !same_ident(id, &p->id);

	/*
	 * Gone, a zombie (no start time from proc_ident(): its maps would
	 * read empty) or unreadable: what was read while it lived stays.
	 */
	if ((p->pid == pid && !id->start_time) || read_maps(c, pid, &fresh) || !still_ident(c, pid, id) ||
	    (p->pid == pid && carry_maps(&fresh, p, execd))) {
		free(fresh.maps);
		free(fresh.paths);
		if (p->pid == pid)
			p->read_ns = now;
		return;
	}
	drop_proc(c, p);	/* P is empty now: not a candidate */
	make_room(c, proc_bytes(&fresh));
	*p = fresh;
	c->maps_bytes += proc_bytes(p);
}

/* The mapping of PID that holds ADDR, reading the maps if need be. */
static const struct usym_map *proc_map(struct usym_cache *c, __u32 pid, __u64 addr,
				       struct usym_proc **pp)
{
	struct usym_proc *p = proc_slot(c, pid);
	struct usym_ident id;
	const struct usym_map *m;
	__u64 now;
	bool same;

	proc_ident(c, pid, &id);
	same = p->pid == pid && (!id.start_time || same_ident(&id, &p->id));

	*pp = p;
	if (same) {
		p->used = ++c->tick;
		m = find_map(p, addr);
		now = usym__mono_ns();
		if (m || now - p->read_ns < REREAD_NS)
			return m;
	} else {
		now = usym__mono_ns();
		/* Another process under this pid: nothing of the old one is used. */
		if (p->pid == pid && id.start_time != p->id.start_time)
			drop_proc(c, p);
	}
	refresh_proc(c, p, pid, &id, now);
	p->used = ++c->tick;
	return p->pid == pid ? find_map(p, addr) : NULL;
}

/* ---- files ---- */

static bool same_file(int fd, const struct usym_map *m, struct stat *st)
{
	return !fstat(fd, st) && S_ISREG(st->st_mode) && st->st_dev == m->dev &&
	       st->st_ino == m->ino;
}

/*
 * Open PATH as an O_PATH handle (no open of a FIFO or a device happens),
 * check it is the mapped regular file, and only then open it to read.
 */
static int open_checked(const char *path, int flags, const struct usym_map *m, struct stat *st)
{
	char self[64];
	int h = open(path, O_PATH | O_CLOEXEC | flags), fd = -1;

	if (h < 0)
		return -1;
	if (same_file(h, m, st)) {
		snprintf(self, sizeof(self), "/proc/self/fd/%d", h);
		fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	}
	close(h);
	if (fd >= 0 && !same_file(fd, m, st)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static bool is_deleted(const char *path)
{
	size_t n = strlen(path), d = strlen(DELETED);

	return n >= d && !strcmp(path + n - d, DELETED);
}

/* The mapped file, or -1: map_files, else (not root) the path if not deleted. */
static int open_mapped(struct usym_cache *c, __u32 pid, const struct usym_map *m,
		       const char *path, struct stat *st)
{
	char mf[PATH_MAX];
	int fd;

	snprintf(mf, sizeof(mf), "%s/%u/map_files/%llx-%llx", c->proc_dir, pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open_checked(mf, 0, m, st);
	if (fd >= 0 || path[0] != '/' || is_deleted(path))
		return fd;
	return open_checked(path, O_NOFOLLOW, m, st);
}

static bool bad_file(const struct usym_cache *c, const struct usym_map *m)
{
	const struct usym_shared *s = c->shared;

	for (__u32 i = 0; s && i < s->nbad_files && i < USYM_MAX_BAD; i++)
		if (s->bad_files[i].dev == m->dev && s->bad_files[i].ino == m->ino)
			return true;
	return false;
}

/* A slot for a new file: a free one, or the least recently used ones emptied. */
static struct usym_obj *obj_slot(struct usym_cache *c)
{
	struct usym_obj *o = NULL;
	int i;

	if (c->nobjs < USYM_MAX_OBJECTS)
		return &c->objs[c->nobjs++];
	for (i = 0; i < c->nobjs; i++)
		if (!o || c->objs[i].used < o->used)
			o = &c->objs[i];
	c->obj_bytes -= usym_obj__bytes(o);
	usym_obj__free(o);
	return o;
}

/* Files over the limit together: the least recently used emptied. */
static void trim_objs(struct usym_cache *c, struct usym_obj *keep)
{
	while (c->obj_bytes > USYM_MAX_OBJ_BYTES) {
		struct usym_obj *o = NULL;

		for (int i = 0; i < c->nobjs; i++)
			if (&c->objs[i] != keep && c->objs[i].strtab &&
			    (!o || c->objs[i].used < o->used))
				o = &c->objs[i];
		if (!o)
			return;
		c->obj_bytes -= usym_obj__bytes(o);
		usym_obj__free(o);
		o->nsyms = o->strtab_len = 0;
		o->dev = o->ino = 0;	/* read again when needed */
	}
}

/* A stripped O's symbols from its debug file by build-id, if one is installed. */
static void read_debug_file(struct usym_obj *o)
{
	char path[sizeof(USYM_DEBUG_ROOT) + 2 * USYM_MAX_BUILD_ID + 32], *p;
	struct stat st;
	int fd;

	if (o->full_symtab || o->build_id_len < 2)
		return;
	p = path + snprintf(path, sizeof(path), "%s/.build-id/%02x/", USYM_DEBUG_ROOT,
			    o->build_id[0]);
	for (int i = 1; i < o->build_id_len; i++)
		p += sprintf(p, "%02x", o->build_id[i]);
	strcpy(p, ".debug");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		usym_obj__read_debug(o, fd, st.st_size);
	close(fd);
}

static struct usym_obj *obj_of(struct usym_cache *c, __u32 pid, const struct usym_map *m,
			       const char *path)
{
	struct usym_obj *o;
	struct stat st;
	int i, fd;

	if (!m->ino || path[0] == '[' || bad_file(c, m))
		return NULL;
	for (i = 0; i < c->nobjs; i++)
		if (c->objs[i].dev == m->dev && c->objs[i].ino == m->ino) {
			c->objs[i].used = ++c->tick;
			return &c->objs[i];
		}
	o = obj_slot(c);
	memset(o, 0, sizeof(*o));
	o->dev = m->dev;
	o->ino = m->ino;
	o->used = ++c->tick;
	/* A file that cannot be read stays known, without symbols. */
	set_stage(c, USYM_STAGE_FILE, pid, m->dev, m->ino);
	fd = open_mapped(c, pid, m, path, &st);
	if (fd >= 0) {
		usym_obj__read(o, fd, NULL, st.st_size);
		close(fd);
		read_debug_file(o);
	}
	c->obj_bytes += usym_obj__bytes(o);
	trim_objs(c, o);
	return o;
}

static void name_addr(const struct usym_map *m, const char *path, const struct usym_obj *o,
		      __u64 addr, char *buf, size_t sz)
{
	__u64 off = addr - m->start + m->pgoff, vaddr = off;
	const struct usym_sym *s = NULL;
	bool placed = false;

	if (o) {
		placed = usym_obj__vaddr(o, off, &vaddr);
		if (placed)
			s = usym_obj__find(o, vaddr);
	}
	if (s)
		snprintf(buf, sz, "%.*s+0x%llx (%s)", usym_obj__name_len(o, s),
			 o->strtab + s->name, (unsigned long long)(vaddr - s->addr), path);
	else
		snprintf(buf, sz, "0x%llx (%s+0x%llx)", (unsigned long long)addr, path,
			 (unsigned long long)(placed ? vaddr : off));
}

int usym_cache__symbolize(struct usym_cache *c, __u32 pid, __u64 addr, char *buf, size_t sz)
{
	struct usym_proc *p;
	const struct usym_map *m = proc_map(c, pid, addr, &p);
	const struct usym_obj *o;
	const char *path;
	int ret = -ENOENT;

	if (m) {
		path = p->paths + m->path;
		ret = 0;
		if (!path[0]) {
			snprintf(buf, sz, "0x%llx", (unsigned long long)addr);
		} else {
			o = obj_of(c, pid, m, path);
			name_addr(m, path, o, addr, buf, sz);
		}
	}
	set_stage(c, USYM_STAGE_IDLE, 0, 0, 0);
	return ret;
}
