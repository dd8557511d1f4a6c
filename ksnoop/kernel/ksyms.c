// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * /proc/kallsyms lists every symbol as "ADDR TYPE NAME [MODULE]".  Only text
 * symbols (t, T, w, W) matter for tracing.  The table keeps the file's
 * order (pointers into it stay valid); a name index is sorted only once a
 * few lookups have been made: one lookup (`info FUNC`, one spec) scans,
 * which costs less than sorting 100,000 names.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "ksyms.h"

struct ksyms {
	struct ksym *syms;	/* a mapping of SYMS_BYTES */
	size_t nr, syms_bytes;
	char *text;		/* the names ("name\0" or "name\0module\0"), a mapping */
	size_t text_len, text_bytes;
	const struct ksym **by_addr;	/* built by the first ksyms__by_addr() */
	size_t naddr;
	const struct ksym **by_name;	/* built after KSYMS_SCANS lookups */
	size_t finds;
	const char *types;	/* kallsyms type letters kept: functions, or data */
};

#define KSYMS_SCANS	16

/* By name, then in the file's order (equal names: static functions). */
static int cmp_name(const void *a, const void *b)
{
	const struct ksym *x = *(const struct ksym *const *)a, *y = *(const struct ksym *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x > y) - (x < y);
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	if (ks->text)
		munmap(ks->text, ks->text_bytes);
	if (ks->syms)
		munmap(ks->syms, ks->syms_bytes);
	free(ks->by_addr);
	free(ks->by_name);
	free(ks);
}

/*
 * The two tables that grow while kallsyms is read (the symbols and their
 * names, some MB) are mappings of their own, grown with mremap(): never
 * copied as they grow, whatever malloc's thresholds are by then.  *P holds
 * *CAP bytes; make it hold NEED.  0 or -ENOMEM.
 */
static int grow_map(void **p, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 1 << 20;
	void *q;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	q = *p ? mremap(*p, *cap, ncap, MREMAP_MAYMOVE) :
		 mmap(NULL, ncap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q == MAP_FAILED)
		return -ENOMEM;
	/*
	 * Fault the new part in with one call rather than a fault a page:
	 * it is written right away, and a page fault is dear in a VM.
	 * Kernels before 5.14 refuse: then the pages fault as usual.
	 */
	madvise((char *)q + *cap, ncap - *cap, MADV_POPULATE_WRITE);
	*p = q;
	*cap = ncap;
	return 0;
}

/*
 * While loading, a symbol's name and module are offsets into the text
 * (it moves as it grows and shrinks); ksyms__load() makes them pointers.
 */
static int ksyms_add(struct ksyms *ks, size_t name, size_t mod, unsigned long long addr)
{
	if (grow_map((void **)&ks->syms, &ks->syms_bytes, (ks->nr + 1) * sizeof(*ks->syms)))
		return -ENOMEM;
	ks->syms[ks->nr].name = (const char *)name;
	ks->syms[ks->nr].module = (const char *)mod;
	ks->syms[ks->nr].addr = addr;
	ks->nr++;
	return 0;
}

static unsigned long long parse_hex(const char *s)
{
	unsigned long long v = 0;

	for (;; s++) {
		if (*s >= '0' && *s <= '9')
			v = v << 4 | (*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			v = v << 4 | (*s - 'a' + 10);
		else
			return v;
	}
}

/* Append N bytes at S to the names; the offset they start at, or -1. */
static size_t text_append(struct ksyms *ks, const char *s, size_t n)
{
	size_t at = ks->text_len;

	if (grow_map((void **)&ks->text, &ks->text_bytes, at + n))
		return (size_t)-1;
	memcpy(ks->text + at, s, n);
	ks->text_len += n;
	return at;
}

/* One line "ADDR TYPE NAME [\tMODULE]", NUL-terminated; 0 or -ENOMEM. */
static int parse_line(struct ksyms *ks, char *line)
{
	char *type, *name, *mod = NULL, *end;
	size_t at, mat = (size_t)-1;

	type = strchr(line, ' ');
	if (!type)
		return 0;
	type++;
	if (!*type || !strchr(ks->types, *type) || type[1] != ' ')
		return 0;
	name = type + 2;
	end = name + strcspn(name, " \t");
	if (*end) {
		*end = 0;
		mod = end + 1;
		mod += strspn(mod, " \t[");
		mod[strcspn(mod, "]")] = 0;
	}
	at = text_append(ks, name, end - name + 1);
	if (at == (size_t)-1)
		return -ENOMEM;
	if (mod && *mod) {
		mat = text_append(ks, mod, strlen(mod) + 1);
		if (mat == (size_t)-1)
			return -ENOMEM;
	}
	return ksyms_add(ks, at, mat, parse_hex(line));
}

/*
 * The file is read a chunk at a time into one buffer and parsed in place;
 * what is kept (the names, "name\0" or "name\0module\0") goes into one
 * block.  No allocation per symbol and no copy of the whole file: reading
 * kallsyms is on the path of every command that looks a kernel function up.
 */
#define KSYMS_CHUNK	(256 << 10)

static struct ksyms *load_types(const char *path, const char *types)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	char *buf = malloc(KSYMS_CHUNK + 1);
	size_t have = 0, i;
	int fd = -1, err = 0;
	bool skipping = false;

	if (!ks || !buf) {
		err = -ENOMEM;
		goto out;
	}
	ks->types = types;
	fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	for (;;) {
		/* /proc/kallsyms fills whatever a read asks for: few, large reads. */
		ssize_t r = read(fd, buf + have, KSYMS_CHUNK - have);
		char *line, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto out;
		}
		have += r;
		buf[have] = 0;
		line = buf;
		/* The rest of a line too long for the buffer: up to its newline. */
		if (skipping) {
			nl = memchr(buf, '\n', have);
			skipping = !nl;
			line = nl ? nl + 1 : buf + have;
		}
		for (; (nl = memchr(line, '\n', buf + have - line)); line = nl + 1) {
			*nl = 0;
			err = parse_line(ks, line);
			if (err)
				goto out;
		}
		/* A line longer than the buffer is no kallsyms line: dropped whole. */
		if (line == buf && have == KSYMS_CHUNK) {
			line = buf + have;
			skipping = true;
		}
		have = buf + have - line;
		memmove(buf, line, have);
		if (r == 0)
			break;
	}
	if (have && !skipping) {	/* the last line, without its newline */
		buf[have] = 0;
		err = parse_line(ks, buf);
		if (err)
			goto out;
	}
	for (i = 0; i < ks->nr; i++) {
		size_t m = (size_t)ks->syms[i].module;

		ks->syms[i].name = ks->text + (size_t)ks->syms[i].name;
		ks->syms[i].module = m == (size_t)-1 ? NULL : ks->text + m;
	}
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	if (err) {
		ksyms__free(ks);
		errno = -err;
		return NULL;
	}
	return ks;
}

/*
 * NAME found at P in the complete lines LINES..P: its line's symbol, if it
 * is a function's name there ("ADDR t NAME" or "ADDR t NAME\t[MODULE]").
 */
static bool name_line(const char *lines, const char *p, size_t len, const char *types,
		      struct ksym_found *f)
{
	const char *line = p, *mod;
	size_t mlen;

	if (p - lines < 3 || p[-1] != ' ' || p[-3] != ' ' || !p[-2] || !strchr(types, p[-2]) ||
	    (p[len] != '\n' && p[len] != '\t' && p[len]))
		return false;
	while (line > lines && line[-1] != '\n')
		line--;
	f->addr = parse_hex(line);
	f->module[0] = 0;
	if (p[len] == '\t' && p[len + 1] == '[') {
		mod = p + len + 2;
		mlen = strcspn(mod, "]\n");
		snprintf(f->module, sizeof(f->module), "%.*s", (int)mlen, mod);
	}
	return true;
}

/* The names ksyms__scan_names() looks for, sorted, each with its index. */
struct want_name {
	const char *name;
	size_t len;
	int i;
};

static int want_cmp(const void *a, const void *b)
{
	const struct want_name *x = a, *y = b;
	int c = memcmp(x->name, y->name, x->len < y->len ? x->len : y->len);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

/*
 * The symbols of the complete lines LINES..END whose names are wanted:
 * each line's name looked up in the sorted WANT (N of them), not each
 * name searched for in the text (64 names made 64 passes over some MB).
 */
static void scan_lines(const char *lines, const char *end, const struct want_name *want, int n,
		       const char *types, struct ksym_found *out, int max, int *counts)
{
	const char *line, *next, *name, *sp;
	struct want_name key;
	struct ksym_found f;
	int lo, hi, mid, c;

	for (line = lines; line < end; line = next) {
		next = memchr(line, '\n', end - line);
		next = next ? next + 1 : end;
		/* "ADDR t NAME" or "ADDR t NAME\t[MODULE]" */
		sp = memchr(line, ' ', next - line);
		if (!sp || next - sp < 4)
			continue;
		name = sp + 3;
		key.name = name;
		key.len = strcspn(name, "\t\n");
		if (name + key.len > next)
			continue;
		for (lo = 0, hi = n; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			c = want_cmp(&key, &want[mid]);
			if (c > 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		/* A name wanted twice is counted for each. */
		for (; lo < n && !want_cmp(&key, &want[lo]); lo++) {
			int i = want[lo].i;

			if (name_line(lines, name, key.len, types, &f) && counts[i]++ < max)
				out[(size_t)i * max + counts[i] - 1] = f;
		}
	}
}

int ksyms__scan_names(const char *path, const char *const *names, int nnames, const char *types,
		      struct ksym_found *out, int max, int *counts)
{
	size_t have = 0;
	char *buf = malloc(KSYMS_CHUNK + 1), *end;
	struct want_name *want = calloc(nnames ? nnames : 1, sizeof(*want));
	int fd = -1, i, n = 0, err = 0;
	ssize_t r;

	if (!buf || !want) {
		free(buf);
		free(want);
		return -ENOMEM;
	}
	for (i = 0; i < nnames; i++) {
		counts[i] = 0;
		/* An empty name is no symbol's. */
		if (names[i][0])
			want[n++] = (struct want_name){ names[i], strlen(names[i]), i };
	}
	qsort(want, n, sizeof(*want), want_cmp);
	fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		err = -errno;
	while (!err) {
		r = read(fd, buf + have, KSYMS_CHUNK - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			break;
		}
		have += r;
		buf[have] = 0;
		/* Complete lines only (the last one may lack its newline); the rest waits. */
		end = r ? memrchr(buf, '\n', have) : buf + have;
		end = end ? end + (r != 0) : buf;
		scan_lines(buf, end, want, n, types, out, max, counts);
		/* A buffer without a newline holds no line of kallsyms: dropped. */
		if (end == buf && have == KSYMS_CHUNK)
			end = buf + have;
		memmove(buf, end, buf + have - end);
		have = buf + have - end;
		if (r == 0)
			break;
	}
	free(buf);
	free(want);
	if (fd >= 0)
		close(fd);
	return err;
}

int ksyms__scan_name_types(const char *path, const char *name, const char *types,
			   struct ksym_found *out, int max)
{
	int n, err = ksyms__scan_names(path, &name, 1, types, out, max, &n);

	return err ? err : n;
}

int ksyms__scan_name(const char *path, const char *name, struct ksym_found *out, int max)
{
	return ksyms__scan_name_types(path, name, "tTwW", out, max);
}

/* Functions: text and weak symbols (t, T, w, W). */
struct ksyms *ksyms__load(const char *path)
{
	return load_types(path, "tTwW");
}

/* Data: initialised, zeroed and read-only (d, D, b, B, r, R, v, V). */
struct ksyms *ksyms__load_data(const char *path)
{
	return load_types(path, "dDbBrRvV");
}

/* Sort the name index, once: 0 or -ENOMEM. */
static int index_by_name(struct ksyms *ks)
{
	size_t i;

	if (ks->by_name)
		return 0;
	ks->by_name = malloc(ks->nr * sizeof(*ks->by_name));
	if (!ks->by_name)
		return -ENOMEM;
	for (i = 0; i < ks->nr; i++)
		ks->by_name[i] = &ks->syms[i];
	qsort(ks->by_name, ks->nr, sizeof(*ks->by_name), cmp_name);
	return 0;
}

/* The index of the first of equal names NAME in by_name, or ks->nr. */
static size_t first_by_name(const struct ksyms *ks, const char *name)
{
	size_t lo = 0, hi = ks->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ks->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ks->nr && strcmp(ks->by_name[lo]->name, name) == 0 ? lo : ks->nr;
}

const struct ksym *ksyms__find(struct ksyms *ks, const char *name)
{
	const struct ksym *one;
	size_t i;

	/* Scanning, the first will do: no need to count the others. */
	if (!ks->by_name && ks->finds < KSYMS_SCANS) {
		ks->finds++;
		for (i = 0; i < ks->nr; i++)
			if (strcmp(ks->syms[i].name, name) == 0)
				return &ks->syms[i];
		return NULL;
	}
	return ksyms__find_all(ks, name, &one, 1) ? one : NULL;
}

size_t ksyms__find_all(struct ksyms *ks, const char *name, const struct ksym **out, size_t max)
{
	size_t i, n = 0;

	if (!ks->nr)
		return 0;
	if (!ks->by_name && ++ks->finds <= KSYMS_SCANS) {
		for (i = 0; i < ks->nr; i++)
			if (strcmp(ks->syms[i].name, name) == 0 && n++ < max)
				out[n - 1] = &ks->syms[i];
		return n;
	}
	if (index_by_name(ks))
		return 0;
	/* Equal names sort in the file's order, as the scan finds them. */
	for (i = first_by_name(ks, name); i < ks->nr && strcmp(ks->by_name[i]->name, name) == 0; i++)
		if (n++ < max)
			out[n - 1] = ks->by_name[i];
	return n;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct ksym *x = *(const struct ksym *const *)a, *y = *(const struct ksym *const *)b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static int index_by_addr(struct ksyms *ks)
{
	size_t i;

	ks->by_addr = malloc((ks->nr ? ks->nr : 1) * sizeof(*ks->by_addr));
	if (!ks->by_addr)
		return -ENOMEM;
	for (i = 0; i < ks->nr; i++)
		if (ks->syms[i].addr)
			ks->by_addr[ks->naddr++] = &ks->syms[i];
	qsort(ks->by_addr, ks->naddr, sizeof(*ks->by_addr), cmp_addr);
	return 0;
}

const struct ksym *ksyms__by_addr(struct ksyms *ks, unsigned long long addr,
				  unsigned long long *off)
{
	size_t lo = 0, hi;

	if (!ks->by_addr && index_by_addr(ks))
		return NULL;
	hi = ks->naddr;
	/* The last symbol at or below ADDR. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->by_addr[mid]->addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr - ks->by_addr[lo - 1]->addr > KSYMS_MAX_OFFSET)
		return NULL;
	*off = addr - ks->by_addr[lo - 1]->addr;
	return ks->by_addr[lo - 1];
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks->nr;
}

const struct ksym *ksyms__at(const struct ksyms *ks, size_t i)
{
	return i < ks->nr ? &ks->syms[i] : NULL;
}
