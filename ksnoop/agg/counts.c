// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "counts.h"

static int cmp_row(const void *a, const void *b)
{
	const struct count_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->func_id != y->func_id)
		return x->func_id < y->func_id ? -1 : 1;
	if (x->has_key && memcmp(x->key, y->key, sizeof(x->key)))
		return memcmp(x->key, y->key, sizeof(x->key));
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	return (x->usub > y->usub) - (x->usub < y->usub);
}

void counts__sort(struct count_row *rows, size_t n)
{
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_row);
}

/* One more row at the end of *ROWS (N of them, room for *CAP): NULL if out of memory. */
static struct count_row *add_row(struct count_row **rows, size_t *n, size_t *cap)
{
	struct count_row *r;

	if (*n == *cap) {
		r = realloc(*rows, (*cap = *cap ? 2 * *cap : 64) * sizeof(*r));
		if (!r)
			return NULL;
		*rows = r;
	}
	r = &(*rows)[(*n)++];
	memset(r, 0, sizeof(*r));
	return r;
}

/* The return addresses of stack ID in the stacks map, innermost first: how many. */
static __u32 stack_frames(int stacks_fd, __s32 id, __u64 frames[KSNOOP_STACK_DEPTH])
{
	__u32 n = 0;

	if (id < 0 || stacks_fd < 0 || bpf_map_lookup_elem(stacks_fd, &id, frames))
		return 0;
	while (n < KSNOOP_STACK_DEPTH && frames[n])
		n++;
	return n;
}

/* A key of the counts map, or with --by of the by_counts map. */
union count_map_key {
	struct ksnoop_count_key plain;
	struct ksnoop_by_key by;
};

/* How a map's keys become rows (STACKS: the stacks map) and rows keys again. */
struct row_kind {
	void (*row)(struct count_row *r, const union count_map_key *k, int stacks_fd);
	void (*key)(union count_map_key *k, const struct count_row *r);
};

static void plain_row(struct count_row *r, const union count_map_key *k, int stacks_fd)
{
	r->func_id = k->plain.func_id;
	r->sub = k->plain.sub;
	r->nframes = stack_frames(stacks_fd, k->plain.sub, r->frames);
	r->usub = k->plain.usub;
	r->tgid = k->plain.tgid;
	r->nuframes = stack_frames(stacks_fd, k->plain.usub, r->uframes);
}

static void plain_key(union count_map_key *k, const struct count_row *r)
{
	k->plain.func_id = r->func_id;
	k->plain.sub = r->sub;
	k->plain.usub = r->usub;
	k->plain.tgid = r->tgid;
}

static void by_row(struct count_row *r, const union count_map_key *k, int stacks_fd)
{
	r->func_id = k->by.func_id;
	r->sub = k->by.sub;
	r->has_key = true;
	r->usub = -1;
	memcpy(r->key, k->by.key, sizeof(r->key));
}

static void by_key(union count_map_key *k, const struct count_row *r)
{
	k->by.func_id = r->func_id;
	k->by.sub = r->sub;
	memcpy(k->by.key, r->key, sizeof(k->by.key));
}

static const struct row_kind plain_rows = { plain_row, plain_key };
static const struct row_kind by_rows = { by_row, by_key };

struct ksnoop_count_val counts__combine(const struct ksnoop_count_val *v, int n, bool is_signed)
{
	struct ksnoop_count_val all = { 0 };
	int i;

	for (i = 0; i < n; i++) {
		if (!v[i].count)
			continue;
		if (!all.count || (is_signed ? (__s64)v[i].max > (__s64)all.max : v[i].max > all.max))
			all.max = v[i].max;
		if (!all.count || (is_signed ? (__s64)v[i].min < (__s64)all.min : v[i].min < all.min))
			all.min = v[i].min;
		all.count += v[i].count;
		all.sum += v[i].sum;
	}
	return all;
}

/*
 * How many values a lookup in map FD gives: one, or the possible CPUs' of
 * a per-CPU map (agg.bpf.h); negative: an errno.
 */
static int values_per_key(int fd)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_map_get_info_by_fd(fd, &info, &len))
		return -errno;
	if (info.type != BPF_MAP_TYPE_PERCPU_HASH)
		return 1;
	return libbpf_num_possible_cpus();
}

/* Every key of map FD as a row of KIND, the busiest first; CLEAR: deleted. */
static int collect_rows(int fd, int stacks_fd, bool clear, const struct counts_src *src,
			const struct row_kind *kind, struct count_row **out, size_t *n)
{
	union count_map_key key, next;
	struct count_row *rows = NULL, *r;
	struct ksnoop_count_val *v, one;
	int ncpus = values_per_key(fd);
	void *prev = NULL;
	size_t cap = 0, i;

	*out = NULL;
	*n = 0;
	if (ncpus < 0)
		return ncpus;
	v = calloc(ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(&key, 0, sizeof(key));
	memset(&next, 0, sizeof(next));
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, v))
			continue;	/* deleted meanwhile */
		r = add_row(&rows, n, &cap);
		if (!r) {
			free(rows);
			free(v);
			*n = 0;
			return -ENOMEM;
		}
		kind->row(r, &key, stacks_fd);
		one = ncpus == 1 ? v[0] :
		      counts__combine(v, ncpus, src && src->value_of &&
						    src->value_of(src->ctx, r->func_id).is_signed);
		r->count = one.count;
		r->max = one.max;
		r->min = one.min;
		r->sum = one.sum;
	}
	free(v);
	/*
	 * --interval: this period's counts only.  Deleting while walking could
	 * skip keys, so the rows read are deleted afterwards; a call counted in
	 * between lands in the next period, with its key made again.
	 */
	for (i = 0; clear && i < *n; i++) {
		memset(&key, 0, sizeof(key));
		kind->key(&key, &rows[i]);
		bpf_map_delete_elem(fd, &key);
	}
	counts__sort(rows, *n);
	*out = rows;
	return 0;
}

int counts__collect(int counts_fd, int stacks_fd, bool clear, const struct counts_src *src,
		    struct count_row **out, size_t *n)
{
	return collect_rows(counts_fd, stacks_fd, clear, src, &plain_rows, out, n);
}

int counts__collect_by(int by_fd, bool clear, const struct counts_src *src,
		       struct count_row **out, size_t *n)
{
	return collect_rows(by_fd, -1, clear, src, &by_rows, out, n);
}

/* A number key as its value prints in an event (printer__key()). */
static void key_as_value(const struct counts_fmt *f, struct by_kind kind,
			 struct report_key *key, struct key_text *buf)
{
	const struct print_opts o = {
		.symbolize = f->symbolize, .sym_ctx = f->sym_ctx,
	};

	printer__key(&o, kind.btf, kind.desc, key->num, buf->text, sizeof(buf->text),
		     buf->name, sizeof(buf->name));
	key->text = buf->text[0] ? buf->text : NULL;
	key->name = buf->name[0] ? buf->name : NULL;
}

/* One part of kind BY of ROW's key, its bytes at KB, into KEY. */
static void key_part(const struct counts_fmt *f, const __u8 *kb, size_t room, enum ksnoop_by by,
		     struct by_kind kind, struct report_key *key, struct key_text *buf)
{
	memset(key, 0, sizeof(*key));
	if (by == KSNOOP_BY_COMM || by == KSNOOP_BY_STR) {
		/* Bounded: a char array's bytes need not end in a NUL. */
		room = room < KSNOOP_BY_SIZE ? room : KSNOOP_BY_SIZE;
		memcpy(buf->str, kb, room);
		buf->str[room] = 0;
		key->is_str = true;
		key->str = buf->str;
		return;
	}
	if (by == KSNOOP_BY_SKB_TUPLE || by == KSNOOP_BY_SOCK_TUPLE) {
		key->is_tuple = true;
		if (by == KSNOOP_BY_SKB_TUPLE)
			tuple__from_skb(kb, room, &key->tuple);
		else
			tuple__from_sock(kb, room, &key->tuple);
		return;
	}
	if (room >= sizeof(key->num))
		memcpy(&key->num, kb, sizeof(key->num));
	/* A cgroup prints as its path: a string key, cut to the room a number's text has. */
	if (by == KSNOOP_BY_CGROUP && f->cgroup_name) {
		snprintf(buf->text, sizeof(buf->text), "%s", f->cgroup_name(f->cgroup_ctx, key->num));
		key->is_str = true;
		key->str = buf->text;
		return;
	}
	key->is_signed = by == KSNOOP_BY_INT && kind.is_signed;
	if (by == KSNOOP_BY_INT && kind.desc && kind.btf)
		key_as_value(f, kind, key, buf);
}

int counts__key(const struct counts_fmt *f, const struct count_row *row, struct by_kind kind,
		struct report_key *keys, struct key_text *buf)
{
	int i, n = kind.nparts ? kind.nparts : 1;
	enum ksnoop_by by;
	size_t off;

	if (n > KSNOOP_BY_PARTS)
		n = KSNOOP_BY_PARTS;
	for (i = 0; i < n; i++) {
		by = kind.nparts ? kind.part[i] : kind.by;
		off = kind.nparts ? kind.off[i] : 0;
		if (off >= sizeof(row->key))
			off = sizeof(row->key) - 1;
		key_part(f, row->key + off, sizeof(row->key) - off, by, kind, &keys[i], &buf[i]);
		keys[i].by = f->nby ? f->by_names[i < f->nby ? i : 0] : f->by;
	}
	return n;
}

/* --by's names, a column each: its parts', or BY, the one. */
static const char *const *counts_by_names(const struct counts_fmt *f)
{
	return f->nby ? f->by_names : &f->by;
}

/* Frame I of ROW as a name, or in hex. */
static void frame_name(const struct counts_fmt *f, const struct count_row *row, __u32 i,
		       char *buf, size_t sz)
{
	if (!f->symbolize || f->symbolize(f->sym_ctx, row->frames[i], buf, sz))
		snprintf(buf, sz, "0x%llx", (unsigned long long)row->frames[i]);
}

/* The first frame of the traced code (all of them if none is named). */
static __u32 first_frame(const struct counts_fmt *f, const struct count_row *row)
{
	__u32 top = printer__stack_top(f->symbolize, f->sym_ctx, row->frames, row->nframes);

	return top < row->nframes ? top : 0;
}

#define FRAME_NAME_MAX	192

/* --count --ustack: ROW's user frames, named in its process, into C. */
static void user_frames(const struct counts_fmt *f, const struct count_row *row,
			char (*names)[FRAME_NAME_MAX], const char **frames, struct report_count *c)
{
	void *uctx = f->usym_ctx_of ? f->usym_ctx_of(f->ctx, row->source) : f->usym_ctx;
	__u32 j;

	c->ustacks = true;
	c->pid = row->tgid;
	c->uframes = frames;
	for (j = 0; j < row->nuframes; j++) {
		if (!f->usymbolize ||
		    f->usymbolize(uctx, row->tgid, row->uframes[j], names[j], FRAME_NAME_MAX))
			snprintf(names[j], FRAME_NAME_MAX, "0x%llx", (unsigned long long)row->uframes[j]);
		frames[j] = names[j];
	}
	c->nuframes = row->nuframes;
}

void counts__print(struct report *r, const struct count_row *rows, size_t n,
		   const struct counts_fmt *f)
{
	char names[KSNOOP_STACK_DEPTH][FRAME_NAME_MAX];
	const char *frames[KSNOOP_STACK_DEPTH];
	char unames[KSNOOP_STACK_DEPTH][FRAME_NAME_MAX];
	const char *uframes[KSNOOP_STACK_DEPTH];
	size_t i;
	__u32 j;

	report__counts_begin(r, f->stacks || f->ustacks, counts_by_names(f), f->nby ? f->nby : !!f->by);
	for (i = 0; i < n; i++) {
		const struct count_row *row = &rows[i];
		/* A user function's -s: its rows are per user stack, no kernel stack. */
		bool user = f->user_func && f->user_func(f->ctx, row->func_id);
		struct report_key key[KSNOOP_BY_PARTS];
		struct key_text kt[KSNOOP_BY_PARTS];
		struct report_count c = {
			.func = f->func_name(f->ctx, row->func_id),
			.count = row->count,
			.stacks = f->stacks && !user,
			.no_stack = row->sub < 0,
			.frames = frames,
		};

		if (row->has_key) {
			c.nkeys = counts__key(f, row, f->by_kind(f->ctx, row->func_id), key, kt);
			c.key = key;
		}

		for (j = f->stacks ? first_frame(f, row) : row->nframes; j < row->nframes; j++) {
			frame_name(f, row, j, names[c.nframes], FRAME_NAME_MAX);
			frames[c.nframes] = names[c.nframes];
			c.nframes++;
		}
		if (f->ustacks || (f->stacks && user))
			user_frames(f, row, unames, uframes, &c);
		report__count(r, &c);
	}
}

static int cmp_func_bucket(const void *a, const void *b)
{
	const struct count_row *x = a, *y = b;

	if (x->func_id != y->func_id)
		return x->func_id < y->func_id ? -1 : 1;
	if (x->has_key && memcmp(x->key, y->key, sizeof(x->key)))
		return memcmp(x->key, y->key, sizeof(x->key));
	return (x->sub > y->sub) - (x->sub < y->sub);
}

/* Rows I and J belong to one histogram: the same function and key. */
static bool same_hist(const struct count_row *rows, size_t i, size_t j)
{
	return rows[j].func_id == rows[i].func_id &&
	       (!rows[i].has_key || !memcmp(rows[j].key, rows[i].key, sizeof(rows[i].key)));
}

/* One histogram: where its rows start, how many, how many calls. */
struct hist_group {
	size_t first, n;
	__u64 total;
};

/* By function, as the rows are sorted; a function's keys the busiest first. */
static int cmp_group(const void *a, const void *b, void *rows_)
{
	const struct hist_group *x = a, *y = b;
	const struct count_row *rows = rows_;

	if (rows[x->first].func_id != rows[y->first].func_id)
		return rows[x->first].func_id < rows[y->first].func_id ? -1 : 1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return (x->first > y->first) - (x->first < y->first);
}

/* ROWS (sorted by function, key, bucket) cut into histograms, *N of them. */
static struct hist_group *hist_groups(const struct count_row *rows, size_t n, size_t *ngroups)
{
	struct hist_group *g = calloc(n, sizeof(*g));
	size_t i, k = 0;

	if (!g)
		return NULL;
	for (i = 0; i < n; i++) {
		if (i == 0 || !same_hist(rows, g[k - 1].first, i))
			g[k++].first = i;
		g[k - 1].n++;
		g[k - 1].total += rows[i].count;
	}
	qsort_r(g, k, sizeof(*g), cmp_group, (void *)rows);
	*ngroups = k;
	return g;
}

/* One histogram, G's rows, to R. */
static void print_one_hist(struct report *r, const struct count_row *rows,
			   const struct hist_group *g, struct report_bucket *buckets,
			   const struct counts_fmt *f,
			   struct hist_value (*value_of)(void *ctx, __u32 func_id))
{
	const struct count_row *row = &rows[g->first];
	struct hist_value value = value_of(f->ctx, row->func_id);
	struct report_key key[KSNOOP_BY_PARTS];
	struct key_text kt[KSNOOP_BY_PARTS];
	struct report_hist h = {
		.func = f->func_name(f->ctx, row->func_id),
		.scale = f->scale,
		.value_name = value.name,
		.value_label = value.label,
		.total = g->total,
		.nbuckets = g->n,
		.buckets = buckets,
	};
	size_t j;

	h.scale.duration = value.duration;
	/* The highest bucket's largest value is the histogram's. */
	h.has_max = f->exact_max;
	h.max = row[g->n - 1].max;
	if (row->has_key) {
		h.nkeys = counts__key(f, row, f->by_kind(f->ctx, row->func_id), key, kt);
		h.key = key;
	}
	for (j = 0; j < g->n; j++) {
		buckets[j].bucket = row[j].sub;
		buckets[j].count = row[j].count;
	}
	report__hist(r, &h);
}

int counts__print_hist(struct report *r, struct count_row *rows, size_t n,
		       const struct counts_fmt *f,
		       struct hist_value (*value_of)(void *ctx, __u32 func_id))
{
	struct report_bucket *buckets;
	struct hist_group *groups;
	size_t i, ngroups;

	if (!n)
		return 0;
	qsort(rows, n, sizeof(*rows), cmp_func_bucket);
	buckets = calloc(n, sizeof(*buckets));
	groups = hist_groups(rows, n, &ngroups);
	if (!buckets || !groups) {
		free(buckets);
		free(groups);
		return -ENOMEM;
	}
	for (i = 0; i < ngroups; i++)
		print_one_hist(r, rows, &groups[i], buckets, f, value_of);
	free(groups);
	free(buckets);
	return 0;
}

void counts__stats(const struct count_row *row, const struct counts_fmt *f,
		   struct hist_value value, struct report_key *key, struct key_text *kt,
		   struct report_stats *s)
{
	*s = (struct report_stats){
		.func = f->func_name(f->ctx, row->func_id),
		.value_name = value.name,
		.value_label = value.label,
		.duration = value.duration,
		.is_signed = value.is_signed && !value.duration,
		.count = row->count,
		.sum = row->sum,
		.min = row->min,
		.max = row->max,
	};
	if (row->has_key) {
		s->nkeys = counts__key(f, row, f->by_kind(f->ctx, row->func_id), key, kt);
		s->key = key;
	}
}

void counts__print_stats(struct report *r, const struct count_row *rows, size_t n,
			 const struct counts_fmt *f,
			 struct hist_value (*value_of)(void *ctx, __u32 func_id))
{
	struct report_stats s;
	struct report_key key[KSNOOP_BY_PARTS];
	struct key_text kt[KSNOOP_BY_PARTS];
	size_t i;

	report__stats_begin(r, counts_by_names(f), f->nby ? f->nby : !!f->by);
	for (i = 0; i < n; i++) {
		counts__stats(&rows[i], f, value_of(f->ctx, rows[i].func_id), key, kt, &s);
		report__stats(r, &s);
	}
}
