// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * User stack symbolizer, for the stacks of USDT probes.
 *
 * A user return address means something only in the process it came from:
 * /proc/PID/maps says which file is mapped there and at which file offset;
 * the file's program headers turn the offset into the address the file's
 * symbols use; its .symtab (or, stripped, .dynsym) names the function.
 *
 * Events are printed a little after they happen, and a short-lived process
 * may be gone by then: its maps are read at its first address and kept
 * (for USYM_MAX_PROCS processes, the least recently used one goes), and
 * read again only for an address they do not hold, at most once every
 * USYM_REREAD_NS (a garbage frame must not make us read them per frame).
 * Symbols are read once per file, keyed by the device and inode the maps
 * give, through /proc/PID/map_files (the very file mapped, even deleted or
 * replaced since, or in another mount namespace); the path is the
 * fallback, used only when its device and inode are the mapped ones.
 *
 * Everything here is untrusted: the maps of a traced process and ELF files
 * anyone may have built.  libelf checks the bounds of sections and
 * strings; every count we walk or keep is capped (usym.h), and names are
 * cut at USYM_MAX_NAME bytes; the printer escapes what it prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "usym.h"

/* A process's maps are read again for an unknown address at most this often. */
#define USYM_REREAD_NS		(1000ULL * 1000 * 1000)
/* All the names of one file together (USYM_MAX_SYMS short names fit). */
#define USYM_MAX_NAME_BYTES	(64u << 20)
/* Sections of one file looked at for symbol tables. */
#define USYM_MAX_SECTIONS	65536
/* Symbols at one address looked at for the one that holds an address. */
#define USYM_MAX_ALIASES	16

struct usym_sym {
	__u64 addr;
	__u64 size;
	__u32 name;		/* offset in names */
};

struct usym_load {
	__u64 off, filesz, vaddr;
};

struct usym_obj {
	dev_t dev;
	__u64 ino;
	struct usym_sym *syms;
	size_t nsyms;
	char *names;
	size_t names_len, names_cap;
	int nloads;
	struct usym_load loads[USYM_MAX_LOADS];
};

struct usym_map {
	__u64 start, end, pgoff;
	dev_t dev;
	__u64 ino;
	char *path;		/* as the maps say it; "" for an anonymous mapping */
};

struct usym_proc {
	__u32 pid;
	int nmaps;
	struct usym_map *maps;
	__u64 read_ns;		/* when the maps were read */
	__u64 used;		/* u->tick at the last lookup */
};

struct usym {
	char proc_dir[PATH_MAX / 2];
	struct usym_proc procs[USYM_MAX_PROCS];
	int nprocs;
	struct usym_obj *objs;
	int nobjs;
	__u64 tick;
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct usym *usym__new(const char *proc_dir)
{
	struct usym *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	snprintf(u->proc_dir, sizeof(u->proc_dir), "%s", proc_dir ? proc_dir : "/proc");
	return u;
}

static void free_maps(struct usym_map *maps, int n)
{
	for (int i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

static void free_obj(struct usym_obj *o)
{
	free(o->syms);
	free(o->names);
}

void usym__free(struct usym *u)
{
	int i;

	if (!u)
		return;
	for (i = 0; i < u->nprocs; i++)
		free_maps(u->procs[i].maps, u->procs[i].nmaps);
	for (i = 0; i < u->nobjs; i++)
		free_obj(&u->objs[i]);
	free(u->objs);
	free(u);
}

/* ---- ELF: program headers and function symbols ---- */

static void read_loads(Elf *elf, struct usym_obj *o)
{
	size_t n, i;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n && o->nloads < USYM_MAX_LOADS; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->loads[o->nloads++] = (struct usym_load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
}

static int add_name(struct usym_obj *o, const char *name, __u32 *off)
{
	size_t n = strnlen(name, USYM_MAX_NAME - 1);
	char *p;

	if (o->names_len + n + 1 > USYM_MAX_NAME_BYTES)
		return -E2BIG;
	if (o->names_len + n + 1 > o->names_cap) {
		size_t cap = o->names_cap ? 2 * o->names_cap : 4096;

		while (cap < o->names_len + n + 1)
			cap *= 2;
		p = realloc(o->names, cap);
		if (!p)
			return -ENOMEM;
		o->names = p;
		o->names_cap = cap;
	}
	memcpy(o->names + o->names_len, name, n);
	o->names[o->names_len + n] = 0;
	*off = o->names_len;
	o->names_len += n + 1;
	return 0;
}

/* The functions of one symbol table section; 0 or a negative errno (stop). */
static int read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct usym_obj *o,
		       size_t *cap)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT), n, i;
	Elf_Data *data = elf_getdata(scn, NULL);
	struct usym_sym *s;
	GElf_Sym sym;
	const char *name;
	int err;

	if (!data || !entsize)
		return 0;
	n = data->d_size / entsize;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(data, i, &sym))
			break;
		if ((GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		     GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (o->nsyms >= USYM_MAX_SYMS)
			return -E2BIG;
		if (o->nsyms == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			s = realloc(o->syms, *cap * sizeof(*s));
			if (!s)
				return -ENOMEM;
			o->syms = s;
		}
		s = &o->syms[o->nsyms];
		err = add_name(o, name, &s->name);
		if (err)
			return err;
		s->addr = sym.st_value;
		s->size = sym.st_size;
		o->nsyms++;
	}
	return 0;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct usym_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Sized symbols after unsized ones at one address: found first going back. */
	return (x->size > y->size) - (x->size < y->size);
}

/*
 * Read FD's load segments and function symbols into O.  A file that is not
 * ELF, or whose tables are cut short, keeps what could be read (a file
 * with too many symbols keeps the first USYM_MAX_SYMS): an address is then
 * named less well, never wrongly placed.
 */
static void load_obj(struct usym_obj *o, int fd)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	size_t cap = 0;
	int nscn = 0;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return;
	if (elf_kind(elf) != ELF_K_ELF)
		goto out;
	read_loads(elf, o);
	while ((scn = elf_nextscn(elf, scn)) && nscn++ < USYM_MAX_SECTIONS) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		if (read_symtab(elf, scn, &sh, o, &cap))
			break;
	}
	if (o->nsyms)
		qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
out:
	elf_end(elf);
}

/* File offset OFF as the address the file's symbols use; false if not loaded. */
static bool file_vaddr(const struct usym_obj *o, __u64 off, __u64 *vaddr)
{
	for (int i = 0; i < o->nloads; i++) {
		const struct usym_load *l = &o->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = off - l->off + l->vaddr;
			return true;
		}
	}
	return false;
}

/* The function holding VADDR, or NULL. */
static const struct usym_sym *find_sym(const struct usym_obj *o, __u64 vaddr)
{
	size_t lo = 0, hi = o->nsyms, i;
	int k;

	/* The first symbol above VADDR: lo. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Back over the symbols at that address: one whose size holds VADDR. */
	for (i = lo, k = 0; i-- > 0 && k < USYM_MAX_ALIASES; k++) {
		const struct usym_sym *s = &o->syms[i];

		if (s->addr != o->syms[lo - 1].addr)
			break;
		if (!s->size || vaddr - s->addr < s->size)
			return s;
	}
	return NULL;
}

int usym__file_symbol(int fd, __u64 vaddr, char *buf, size_t sz)
{
	struct usym_obj o = {};
	const struct usym_sym *s;

	load_obj(&o, fd);
	s = find_sym(&o, vaddr);
	if (s)
		snprintf(buf, sz, "%s+0x%llx", o.names + s->name,
			 (unsigned long long)(vaddr - s->addr));
	free_obj(&o);
	return s ? 0 : -ENOENT;
}

/* ---- processes: their executable mappings ---- */

/* One line of /proc/PID/maps into M; false if it is not an executable mapping. */
static bool parse_map_line(const char *line, struct usym_map *m)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int maj, min;
	char perms[5];
	int n = 0;
	const char *path;
	size_t len;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, perms, &pgoff,
		   &maj, &min, &ino, &n) < 7 || !n || start >= end || perms[2] != 'x')
		return false;
	path = line + n;
	len = strcspn(path, "\n");
	m->path = strndup(path, len);
	if (!m->path)
		return false;
	m->start = start;
	m->end = end;
	m->pgoff = pgoff;
	m->dev = makedev(maj, min);
	m->ino = ino;
	return true;
}

/* PID's executable mappings; 0 or a negative errno (the process is gone: -ENOENT). */
static int read_maps(struct usym *u, __u32 pid, struct usym_map **out, int *n)
{
	char path[PATH_MAX], *line = NULL;
	struct usym_map *maps = NULL, m;
	size_t cap = 0;
	FILE *f;

	*n = 0;
	snprintf(path, sizeof(path), "%s/%u/maps", u->proc_dir, pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0 && *n < USYM_MAX_MAPS) {
		if (!parse_map_line(line, &m))
			continue;
		if (!(*n & (*n - 1))) {
			struct usym_map *nm = realloc(maps, (*n ? 2 * *n : 1) * sizeof(*nm));

			if (!nm) {
				free(m.path);
				break;
			}
			maps = nm;
		}
		maps[(*n)++] = m;
	}
	free(line);
	fclose(f);
	*out = maps;
	return 0;
}

static const struct usym_map *find_map(const struct usym_proc *p, __u64 addr)
{
	for (int i = 0; p && i < p->nmaps; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

/* A slot for PID's maps: its own, a free one, or the least recently used. */
static struct usym_proc *proc_slot(struct usym *u, __u32 pid)
{
	struct usym_proc *p = NULL;
	int i;

	for (i = 0; i < u->nprocs; i++)
		if (u->procs[i].pid == pid)
			return &u->procs[i];
	if (u->nprocs < USYM_MAX_PROCS)
		return &u->procs[u->nprocs++];
	for (i = 0; i < u->nprocs; i++)
		if (!p || u->procs[i].used < p->used)
			p = &u->procs[i];
	return p;
}

/* The mapping of PID that holds ADDR, reading the maps if need be. */
static const struct usym_map *proc_map(struct usym *u, __u32 pid, __u64 addr)
{
	struct usym_proc *p = proc_slot(u, pid);
	const struct usym_map *m = NULL;
	struct usym_map *maps;
	__u64 now;
	int n;

	p->used = ++u->tick;
	if (p->pid == pid && p->maps) {
		m = find_map(p, addr);
		if (m)
			return m;
	}
	now = mono_ns();
	if (p->pid == pid && p->maps && now - p->read_ns < USYM_REREAD_NS)
		return NULL;
	/* Gone: what was read while it lived stays. */
	if (read_maps(u, pid, &maps, &n))
		return NULL;
	free_maps(p->maps, p->nmaps);
	p->pid = pid;
	p->maps = maps;
	p->nmaps = n;
	p->read_ns = now;
	return find_map(p, addr);
}

/* ---- objects: their symbols, read once ---- */

/*
 * The mapped file: through map_files (the very file mapped), else by path
 * when that is still the same file.  -1 if neither.
 */
static int open_mapped(struct usym *u, __u32 pid, const struct usym_map *m)
{
	char path[PATH_MAX];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%u/map_files/%llx-%llx", u->proc_dir, pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		return fd;
	if (m->path[0] != '/')
		return -1;
	fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_dev != m->dev || st.st_ino != m->ino) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct usym_obj *obj_of(struct usym *u, __u32 pid, const struct usym_map *m)
{
	struct usym_obj *o;
	int i, fd;

	if (!m->ino || m->path[0] == '[')
		return NULL;
	for (i = 0; i < u->nobjs; i++)
		if (u->objs[i].dev == m->dev && u->objs[i].ino == m->ino)
			return &u->objs[i];
	if (u->nobjs >= USYM_MAX_OBJECTS)
		return NULL;
	if (!(u->nobjs & (u->nobjs - 1))) {
		o = realloc(u->objs, (u->nobjs ? 2 * u->nobjs : 1) * sizeof(*o));
		if (!o)
			return NULL;
		u->objs = o;
	}
	o = &u->objs[u->nobjs++];
	memset(o, 0, sizeof(*o));
	o->dev = m->dev;
	o->ino = m->ino;
	/* A file that cannot be read stays known, without symbols. */
	fd = open_mapped(u, pid, m);
	if (fd >= 0) {
		load_obj(o, fd);
		close(fd);
	}
	return o;
}

int usym__symbolize(struct usym *u, __u32 pid, __u64 addr, char *buf, size_t sz)
{
	const struct usym_map *m = proc_map(u, pid, addr);
	const struct usym_obj *o;
	const struct usym_sym *s = NULL;
	__u64 off, vaddr;
	bool placed = false;

	if (!m)
		return -ENOENT;
	if (!m->path[0]) {
		snprintf(buf, sz, "0x%llx", (unsigned long long)addr);
		return 0;
	}
	off = addr - m->start + m->pgoff;
	o = obj_of(u, pid, m);
	if (o) {
		placed = file_vaddr(o, off, &vaddr);
		if (placed)
			s = find_sym(o, vaddr);
	}
	if (s)
		snprintf(buf, sz, "%s+0x%llx (%s)", o->names + s->name,
			 (unsigned long long)(vaddr - s->addr), m->path);
	else
		snprintf(buf, sz, "0x%llx (%s+0x%llx)", (unsigned long long)addr, m->path,
			 (unsigned long long)(placed ? vaddr : off));
	return 0;
}
