// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "counts.h"

static int cmp_row(const void *a, const void *b)
{
	const struct count_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->func_id != y->func_id)
		return x->func_id < y->func_id ? -1 : 1;
	if (x->sub != y->sub)
		return x->sub < y->sub ? -1 : 1;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return (x->usub > y->usub) - (x->usub < y->usub);
}

void counts__sort(struct count_row *rows, size_t n)
{
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_row);
}

int counts__collect(int counts_fd, int stacks_fd, bool clear, struct count_row **out,
		    size_t *n)
{
	struct ksnoop_count_key key, next, *prev = NULL;
	struct count_row *rows = NULL, *r;
	size_t cap = 0;
	__u64 v;

	*out = NULL;
	*n = 0;
	while (bpf_map_get_next_key(counts_fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(counts_fd, &key, &v))
			continue;	/* deleted meanwhile */
		if (*n == cap) {
			r = realloc(rows, (cap = cap ? 2 * cap : 64) * sizeof(*r));
			if (!r) {
				free(rows);
				return -ENOMEM;
			}
			rows = r;
		}
		r = &rows[(*n)++];
		memset(r, 0, sizeof(*r));
		r->func_id = key.func_id;
		r->sub = key.sub;
		r->count = v;
		if (key.sub >= 0 && stacks_fd >= 0 &&
		    bpf_map_lookup_elem(stacks_fd, &key.sub, r->frames) == 0)
			while (r->nframes < KSNOOP_STACK_DEPTH && r->frames[r->nframes])
				r->nframes++;
		r->usub = key.usub;
		r->tgid = key.tgid;
		if (key.usub >= 0 && stacks_fd >= 0 &&
		    bpf_map_lookup_elem(stacks_fd, &key.usub, r->uframes) == 0)
			while (r->nuframes < KSNOOP_STACK_DEPTH && r->uframes[r->nuframes])
				r->nuframes++;
	}
	/*
	 * --interval: this period's counts only.  Deleting while walking could
	 * skip keys, so the rows read are deleted afterwards; a call counted in
	 * between lands in the next period, with its key made again.
	 */
	for (size_t i = 0; clear && i < *n; i++) {
		key.func_id = rows[i].func_id;
		key.sub = rows[i].sub;
		key.usub = rows[i].usub;
		key.tgid = rows[i].tgid;
		bpf_map_delete_elem(counts_fd, &key);
	}
	counts__sort(rows, *n);
	*out = rows;
	return 0;
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
	__u32 j;

	c->ustacks = true;
	c->pid = row->tgid;
	c->uframes = frames;
	for (j = 0; j < row->nuframes; j++) {
		if (!f->usymbolize ||
		    f->usymbolize(f->usym_ctx, row->tgid, row->uframes[j], names[j], FRAME_NAME_MAX))
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

	report__counts_begin(r, f->stacks || f->ustacks);
	for (i = 0; i < n; i++) {
		const struct count_row *row = &rows[i];
		struct report_count c = {
			.func = f->func_name(f->ctx, row->func_id),
			.count = row->count,
			.stacks = f->stacks,
			.no_stack = row->sub < 0,
			.frames = frames,
		};

		for (j = f->stacks ? first_frame(f, row) : row->nframes; j < row->nframes; j++) {
			frame_name(f, row, j, names[c.nframes], FRAME_NAME_MAX);
			frames[c.nframes] = names[c.nframes];
			c.nframes++;
		}
		if (f->ustacks)
			user_frames(f, row, unames, uframes, &c);
		report__count(r, &c);
	}
}

static int cmp_func_bucket(const void *a, const void *b)
{
	const struct count_row *x = a, *y = b;

	if (x->func_id != y->func_id)
		return x->func_id < y->func_id ? -1 : 1;
	return (x->sub > y->sub) - (x->sub < y->sub);
}

/*
 * One histogram a function: ROWS[I..) while the function is the same,
 * into BUCKETS; returns the first row of the next function.
 */
static size_t one_hist(const struct count_row *rows, size_t n, size_t i,
		       struct report_bucket *buckets, struct report_hist *h)
{
	size_t j;

	h->total = 0;
	h->nbuckets = 0;
	for (j = i; j < n && rows[j].func_id == rows[i].func_id; j++) {
		h->total += rows[j].count;
		buckets[h->nbuckets].bucket = rows[j].sub;
		buckets[h->nbuckets++].count = rows[j].count;
	}
	h->buckets = buckets;
	return j;
}

int counts__print_hist(struct report *r, struct count_row *rows, size_t n,
		       const struct counts_fmt *f,
		       struct hist_value (*value_of)(void *ctx, __u32 func_id))
{
	struct report_bucket *buckets;
	size_t i, next;

	if (!n)
		return 0;
	buckets = calloc(n, sizeof(*buckets));
	if (!buckets)
		return -ENOMEM;
	qsort(rows, n, sizeof(*rows), cmp_func_bucket);
	for (i = 0; i < n; i = next) {
		struct hist_value value = value_of(f->ctx, rows[i].func_id);
		struct report_hist h = {
			.func = f->func_name(f->ctx, rows[i].func_id),
			.value_name = value.name,
			.value_label = value.label,
		};

		next = one_hist(rows, n, i, buckets, &h);
		report__hist(r, &h);
	}
	free(buckets);
	return 0;
}
