// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>
#include <fcntl.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "kbtf.h"

/*
 * The FUNCs of one BTF, sorted by name: a lookup is a binary search, not
 * libbpf's scan of every type (vmlinux has ~150,000), and a glob walks
 * them in name order.
 */
struct func_index {
	struct func_entry *e;
	__u32 n;
	bool built;
};

struct func_entry {
	const char *name;	/* points into the BTF */
	__u32 id;
};

struct kbtf_module {
	char *name;
	struct btf *btf;
	struct func_index idx;
};

struct kbtf {
	char *dir;
	struct btf *vmlinux;
	struct func_index vmlinux_idx;
	struct kbtf_module *mods;
	int nmods;
	int all_loaded;		/* every module in dir has been tried */
	int user_tags;		/* -1: not looked yet; else vmlinux has __user tags */
};

/*
 * vmlinux BTF (some MB) handed to libbpf in one piece (btf__new() copies
 * it), on the path of every command.  Kernels since 6.16 let
 * /sys/kernel/btf/vmlinux be mapped: no copy into a buffer of ours.  Older
 * ones are read into one mapping faulted in with one call (sysfs gives a
 * page per read; btf__parse() would read into a buffer of its own and copy
 * that, faulting both a page at a time).  A file that is not raw BTF (an
 * ELF file with a .BTF section) goes to btf__parse().  NULL, errno set.
 */
#define KBTF_MAX_RAW	(1 << 30)

static struct btf *btf_from_mapping(int fd, size_t size)
{
	struct btf *btf = NULL;
	void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);

	if (map == MAP_FAILED)
		return NULL;
	btf = btf__new(map, size);
	munmap(map, size);
	return btf;
}

static struct btf *btf_from_reads(int fd, size_t size)
{
	struct btf *btf = NULL;
	size_t n = 0;
	char *buf;
	ssize_t r;

	buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
		   -1, 0);
	if (buf == MAP_FAILED)
		return NULL;
	while (n < size) {
		r = pread(fd, buf + n, size - n, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	if (n == size)
		btf = btf__new(buf, size);
	munmap(buf, size);
	return btf;
}

/*
 * btf__new() copies the BTF into a buffer of its own: 5 MB and more,
 * faulted in 4 KiB at a time (1,500 faults, a third of the parse here).
 * Transparent huge pages take the copy in three faults where the kernel
 * gives them on request (THP "madvise", Debian's default): a heap chunk
 * of the copy's size (and one huge page more) is advised and freed first,
 * and malloc() hands the same memory to libbpf.  Should malloc() place
 * the copy elsewhere, only the gain is lost.  The allocator's thresholds
 * are its defaults again afterwards (128 KiB: M_MMAP_THRESHOLD and
 * M_TRIM_THRESHOLD in mallopt(3)).  btf__new() of this kernel's vmlinux:
 * 7.7 -> 5.5 ms (median of 15), 1,544 -> 178 page faults.
 */
#define THP_SIZE		(2UL << 20)
#define MALLOC_DEFAULT_THRESHOLD	(128 * 1024)

static void huge_pages_for_next_malloc(size_t size)
{
	size_t page = sysconf(_SC_PAGESIZE), sz = size + THP_SIZE;
	uintptr_t start, end;
	char *p;

	if (sz < size || sz > INT_MAX / 4)
		return;
	mallopt(M_MMAP_THRESHOLD, 2 * sz);
	mallopt(M_TRIM_THRESHOLD, 4 * sz);
	p = malloc(sz);
	if (!p)
		return;
	start = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
	end = ((uintptr_t)p + sz) & ~(uintptr_t)(page - 1);
	madvise((void *)start, end - start, MADV_HUGEPAGE);
	free(p);
}

static void malloc_defaults(void)
{
	mallopt(M_MMAP_THRESHOLD, MALLOC_DEFAULT_THRESHOLD);
	mallopt(M_TRIM_THRESHOLD, MALLOC_DEFAULT_THRESHOLD);
}

struct btf *kbtf__parse_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct btf *btf = NULL;
	struct stat st;

	if (fd < 0)
		return btf__parse(path, NULL);
	if (!fstat(fd, &st) && st.st_size > 0 && st.st_size <= KBTF_MAX_RAW) {
		huge_pages_for_next_malloc(st.st_size);
		btf = btf_from_mapping(fd, st.st_size);
		if (!btf)
			btf = btf_from_reads(fd, st.st_size);
		malloc_defaults();
	}
	close(fd);
	return btf ?: btf__parse(path, NULL);
}

struct kbtf *kbtf__open(const char *dir)
{
	char path[PATH_MAX];
	struct kbtf *kb;
	int err;

	kb = calloc(1, sizeof(*kb));
	if (!kb)
		return NULL;
	kb->user_tags = -1;
	kb->dir = strdup(dir ? dir : "/sys/kernel/btf");
	if (!kb->dir)
		goto nomem;
	snprintf(path, sizeof(path), "%s/vmlinux", kb->dir);
	kb->vmlinux = kbtf__parse_file(path);
	if (!kb->vmlinux) {
		err = errno;
		kbtf__free(kb);
		errno = err;
		return NULL;
	}
	btfu_keep_dump(kb->vmlinux);
	return kb;
nomem:
	kbtf__free(kb);
	errno = ENOMEM;
	return NULL;
}

struct kbtf *kbtf__from_btf(struct btf *vmlinux)
{
	struct kbtf *kb = calloc(1, sizeof(*kb));

	if (!kb)
		return NULL;
	kb->vmlinux = vmlinux;
	kb->all_loaded = 1;
	kb->user_tags = -1;
	btfu_keep_dump(vmlinux);
	return kb;
}

void kbtf__free(struct kbtf *kb)
{
	int i;

	if (!kb)
		return;
	for (i = 0; i < kb->nmods; i++) {
		free(kb->mods[i].name);
		btfu_drop_dump(kb->mods[i].btf);
		btf__free(kb->mods[i].btf);
		free(kb->mods[i].idx.e);
	}
	free(kb->mods);
	free(kb->vmlinux_idx.e);
	btfu_drop_dump(kb->vmlinux);
	btf__free(kb->vmlinux);
	free(kb->dir);
	free(kb);
}

bool kbtf__user_tags(struct kbtf *kb)
{
	if (kb->user_tags < 0)
		kb->user_tags = btfu_has_user_tags(kb->vmlinux);
	return kb->user_tags;
}

struct btf *kbtf__vmlinux(struct kbtf *kb)
{
	return kb->vmlinux;
}

struct btf *kbtf__module(struct kbtf *kb, const char *module)
{
	struct kbtf_module *m;
	char path[PATH_MAX];
	struct btf *btf;
	int i;

	for (i = 0; i < kb->nmods; i++)
		if (strcmp(kb->mods[i].name, module) == 0) {
			if (!kb->mods[i].btf)
				errno = ENOENT;
			return kb->mods[i].btf;
		}
	if (!kb->dir || strchr(module, '/') || strcmp(module, "vmlinux") == 0) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", kb->dir, module);
	btf = btf__parse_split(path, kb->vmlinux);
	/* Remember failures too, so a missing module is looked up once. */
	m = realloc(kb->mods, (kb->nmods + 1) * sizeof(*m));
	if (!m) {
		btf__free(btf);
		errno = ENOMEM;
		return NULL;
	}
	kb->mods = m;
	m[kb->nmods].name = strdup(module);
	if (!m[kb->nmods].name) {
		btf__free(btf);
		errno = ENOMEM;
		return NULL;
	}
	memset(&m[kb->nmods].idx, 0, sizeof(m[kb->nmods].idx));
	m[kb->nmods++].btf = btf;
	if (btf)
		btfu_keep_dump(btf);
	if (!btf)
		errno = ENOENT;
	return btf;
}

static void load_all_modules(struct kbtf *kb)
{
	struct dirent *de;
	DIR *d;

	if (kb->all_loaded)
		return;
	kb->all_loaded = 1;
	d = opendir(kb->dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "vmlinux") == 0)
			continue;
		kbtf__module(kb, de->d_name);
	}
	closedir(d);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct func_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Index BTF's own FUNCs (a split BTF's, not its base's); -ENOMEM or 0. */
static int index_build(struct func_index *idx, const struct btf *btf)
{
	const struct btf *base = btf__base_btf(btf);
	__u32 id, n = btf__type_cnt(btf), start = base ? btf__type_cnt(base) : 1;

	if (idx->built)
		return 0;
	idx->e = malloc((n - start + 1) * sizeof(*idx->e));
	if (!idx->e)
		return -ENOMEM;
	idx->n = 0;
	for (id = start; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (t && btf_is_func(t))
			idx->e[idx->n++] = (struct func_entry){ btfu_name(btf, t->name_off), id };
	}
	qsort(idx->e, idx->n, sizeof(*idx->e), cmp_entry);
	idx->built = true;
	return 0;
}

static int find_in(struct func_index *idx, const struct btf *btf, const char *name, __u32 *id)
{
	struct func_entry *e;
	__u32 lo = 0, hi;

	if (index_build(idx, btf))
		return -ENOMEM;
	/* The first entry named NAME (the lowest id, as libbpf's scan found). */
	hi = idx->n;
	while (lo < hi) {
		__u32 mid = lo + (hi - lo) / 2;

		if (strcmp(idx->e[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	e = lo < idx->n ? &idx->e[lo] : NULL;
	if (!e || strcmp(e->name, name))
		return -ENOENT;
	*id = e->id;
	return 0;
}

static struct func_index *module_index(struct kbtf *kb, const struct btf *btf)
{
	int i;

	for (i = 0; i < kb->nmods; i++)
		if (kb->mods[i].btf == btf)
			return &kb->mods[i].idx;
	return NULL;
}

int kbtf__func_protos(struct kbtf *kb, const struct btf *btf, const char *name)
{
	struct func_index *idx = btf == kb->vmlinux ? &kb->vmlinux_idx : module_index(kb, btf);
	__u32 i, id, first = 0;
	int n = 0;

	if (!idx || find_in(idx, btf, name, &id))
		return 0;
	/* find_in() found the first of them: the others follow it. */
	for (i = 0; i < idx->n && idx->e[i].id != id; i++)
		;
	for (; i < idx->n && strcmp(idx->e[i].name, name) == 0; i++) {
		__u32 proto = btf__type_by_id(btf, idx->e[i].id)->type;

		if (!n || proto != first)
			n++;
		if (n == 1)
			first = proto;
	}
	return n;
}

int kbtf__find_func(struct kbtf *kb, const char *name, const char *module,
		    int search_all, struct btf **btf, __u32 *id,
		    const char **module_out)
{
	struct btf *b;
	int i;

	if (module) {
		b = kbtf__module(kb, module);
		if (b && find_in(module_index(kb, b), b, name, id) == 0) {
			*btf = b;
			*module_out = module;
			return 0;
		}
	}
	if (find_in(&kb->vmlinux_idx, kb->vmlinux, name, id) == 0) {
		*btf = kb->vmlinux;
		*module_out = NULL;
		return 0;
	}
	if (!search_all)
		return -ENOENT;
	load_all_modules(kb);
	for (i = 0; i < kb->nmods; i++) {
		if (kb->mods[i].btf && find_in(&kb->mods[i].idx, kb->mods[i].btf, name, id) == 0) {
			*btf = kb->mods[i].btf;
			*module_out = kb->mods[i].name;
			return 0;
		}
	}
	return -ENOENT;
}

void kbtf__for_each(struct kbtf *kb, void (*fn)(struct btf *btf, const char *module, void *ctx),
		    void *ctx)
{
	int i;

	fn(kb->vmlinux, NULL, ctx);
	for (i = 0; i < kb->nmods; i++)
		if (kb->mods[i].btf)
			fn(kb->mods[i].btf, kb->mods[i].name, ctx);
}

static int funcs_in(struct func_index *idx, struct btf *btf, const char *module,
		    kbtf_func_fn fn, void *ctx)
{
	__u32 i;
	int err = index_build(idx, btf);

	for (i = 0; !err && i < idx->n; i++)
		err = fn(btf, module, idx->e[i].id, idx->e[i].name, ctx);
	return err;
}

int kbtf__for_each_func(struct kbtf *kb, const char *module, kbtf_func_fn fn, void *ctx)
{
	struct btf *b;
	int i, err;

	if (module && strcmp(module, "vmlinux") == 0)
		return funcs_in(&kb->vmlinux_idx, kb->vmlinux, NULL, fn, ctx);
	if (module) {
		b = kbtf__module(kb, module);
		if (!b)
			return -ENOENT;
		return funcs_in(module_index(kb, b), b, module, fn, ctx);
	}
	err = funcs_in(&kb->vmlinux_idx, kb->vmlinux, NULL, fn, ctx);
	load_all_modules(kb);
	for (i = 0; !err && i < kb->nmods; i++)
		if (kb->mods[i].btf)
			err = funcs_in(&kb->mods[i].idx, kb->mods[i].btf, kb->mods[i].name, fn, ctx);
	return err;
}
