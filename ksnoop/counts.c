// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "counts.h"
#include "escape.h"
#include "writer.h"

static int cmp_row(const void *a, const void *b)
{
	const struct count_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->func_id != y->func_id)
		return x->func_id < y->func_id ? -1 : 1;
	return (x->sub > y->sub) - (x->sub < y->sub);
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
	}
	/*
	 * --interval: this period's counts only.  Deleting while walking could
	 * skip keys, so the rows read are deleted afterwards; a call counted in
	 * between lands in the next period, with its key made again.
	 */
	for (size_t i = 0; clear && i < *n; i++) {
		key.func_id = rows[i].func_id;
		key.sub = rows[i].sub;
		bpf_map_delete_elem(counts_fd, &key);
	}
	counts__sort(rows, *n);
	*out = rows;
	return 0;
}

/* Frame I of ROW as a name (BARE: the function's name only), or in hex. */
static void frame_name(const struct counts_fmt *f, const struct count_row *row, __u32 i,
		       bool bare, char *buf, size_t sz)
{
	if (!f->symbolize || f->symbolize(f->sym_ctx, row->frames[i], buf, sz)) {
		snprintf(buf, sz, "0x%llx", (unsigned long long)row->frames[i]);
		return;
	}
	/* Folded stacks name functions only: "tcp_connect+0x1c [mod]" -> "tcp_connect". */
	if (bare)
		buf[strcspn(buf, "+ ")] = 0;
}

/* The first frame of the traced code (all of them if none is named). */
static __u32 first_frame(const struct counts_fmt *f, const struct count_row *row)
{
	__u32 top = printer__stack_top(f->symbolize, f->sym_ctx, row->frames, row->nframes);

	return top < row->nframes ? top : 0;
}

/* "outermost;...;innermost;FUNC COUNT": the function itself is the leaf. */
static void print_folded(FILE *out, const struct count_row *row, const struct counts_fmt *f)
{
	const char *func = f->func_name(f->ctx, row->func_id);
	__u32 top = first_frame(f, row), i;
	char sym[192];

	for (i = row->nframes; i-- > top;) {
		frame_name(f, row, i, true, sym, sizeof(sym));
		/* kprobes start at the function itself; fentry and tracepoints one frame out. */
		if (i == top && strcmp(sym, func) == 0)
			break;
		text_write_escaped(out, sym, strlen(sym));
		fputc(';', out);
	}
	text_write_escaped(out, func, strlen(func));
	fprintf(out, " %llu\n", (unsigned long long)row->count);
}

/* --interval: which period a JSON row belongs to, and when it closed. */
static void json_interval(struct writer *wr, const struct counts_fmt *f)
{
	if (!f->interval)
		return;
	writer__key(wr, "interval");
	writer__uint(wr, f->interval);
	writer__key(wr, "time_ns");
	writer__uint(wr, f->time_ns);
}

void counts__print(FILE *out, const struct count_row *rows, size_t n,
		   const struct counts_fmt *f)
{
	struct writer wr;
	char sym[192];
	size_t r;
	__u32 i;

	if (f->style == COUNTS_TEXT && !f->stacks)
		fprintf(out, "%12s  %s\n", "CALLS", "FUNCTION");
	for (r = 0; r < n; r++) {
		const struct count_row *row = &rows[r];
		const char *func = f->func_name(f->ctx, row->func_id);

		switch (f->style) {
		case COUNTS_FOLDED:
			if (f->stacks) {
				print_folded(out, row, f);
			} else {
				text_write_escaped(out, func, strlen(func));
				fprintf(out, " %llu\n", (unsigned long long)row->count);
			}
			break;
		case COUNTS_TEXT:
			if (!f->stacks) {
				fprintf(out, "%12llu  ", (unsigned long long)row->count);
				text_write_escaped(out, func, strlen(func));
				fputc('\n', out);
				break;
			}
			text_write_escaped(out, func, strlen(func));
			fprintf(out, ": %llu call%s\n", (unsigned long long)row->count,
				row->count == 1 ? "" : "s");
			if (row->sub < 0)
				fputs("    /* stack not taken (stacks map full) */\n", out);
			for (i = first_frame(f, row); i < row->nframes; i++) {
				frame_name(f, row, i, false, sym, sizeof(sym));
				fputs("    ", out);
				text_write_escaped(out, sym, strlen(sym));
				fputc('\n', out);
			}
			break;
		case COUNTS_JSON:
			writer__init(&wr, out, true);
			writer__begin_object(&wr, WRITER_STRUCT, 0);
			json_interval(&wr, f);
			writer__key(&wr, "func");
			writer__name(&wr, func);
			if (f->stacks) {
				writer__key(&wr, "stack");
				if (row->sub < 0) {
					writer__null(&wr, NULL);
				} else {
					writer__begin_array(&wr, WRITER_STRUCT, 0);
					for (i = first_frame(f, row); i < row->nframes; i++) {
						frame_name(f, row, i, false, sym, sizeof(sym));
						writer__name(&wr, sym);
					}
					writer__end_array(&wr);
				}
			}
			writer__key(&wr, "count");
			writer__uint(&wr, row->count);
			writer__end_object(&wr);
			fputc('\n', out);
			break;
		}
	}
}

static int cmp_func_bucket(const void *a, const void *b)
{
	const struct count_row *x = a, *y = b;

	if (x->func_id != y->func_id)
		return x->func_id < y->func_id ? -1 : 1;
	return (x->sub > y->sub) - (x->sub < y->sub);
}

/* Bucket B's range: [min, max]; B -1 is every negative value. */
static void bucket_range(__s32 b, __s64 *min, __u64 *max)
{
	if (b < 0) {
		*min = INT64_MIN;
		*max = (__u64)-1;	/* -1 */
		return;
	}
	if (b == 0) {
		*min = 0;
		*max = 0;
		return;
	}
	*min = (__s64)(1ULL << (b - 1));
	*max = b >= 64 ? UINT64_MAX : (1ULL << b) - 1;
}

static void bucket_label(__s32 b, char *buf, size_t sz)
{
	if (b < 0)
		snprintf(buf, sz, "(..., 0)");
	else if (b == 0)
		snprintf(buf, sz, "[0]");
	else if (b == 1)
		snprintf(buf, sz, "[1]");
	else if (b >= 64)
		snprintf(buf, sz, "[2^63, ...)");
	else
		snprintf(buf, sz, "[%llu, %llu)", 1ULL << (b - 1), 1ULL << b);
}

#define HIST_BAR	52

void counts__print_hist(FILE *out, struct count_row *rows, size_t n,
			const struct counts_fmt *f,
			struct hist_value (*value_of)(void *ctx, __u32 func_id))
{
	size_t i, j;

	if (n)
		qsort(rows, n, sizeof(*rows), cmp_func_bucket);
	for (i = 0; i < n; i = j) {
		const char *func = f->func_name(f->ctx, rows[i].func_id);
		struct hist_value value = value_of(f->ctx, rows[i].func_id);
		__u64 total = 0, most = 0;
		struct writer wr;

		for (j = i; j < n && rows[j].func_id == rows[i].func_id; j++) {
			total += rows[j].count;
			if (rows[j].count > most)
				most = rows[j].count;
		}
		if (f->style == COUNTS_JSON) {
			writer__init(&wr, out, true);
			writer__begin_object(&wr, WRITER_STRUCT, 0);
			json_interval(&wr, f);
			writer__key(&wr, "func");
			writer__name(&wr, func);
			writer__key(&wr, "value");
			writer__name(&wr, value.name);
			writer__key(&wr, "count");
			writer__uint(&wr, total);
			writer__key(&wr, "buckets");
			writer__begin_array(&wr, WRITER_STRUCT, 0);
			for (size_t k = i; k < j; k++) {
				__s64 min;
				__u64 max;

				bucket_range(rows[k].sub, &min, &max);
				writer__begin_object(&wr, WRITER_STRUCT, 0);
				writer__key(&wr, "min");
				if (rows[k].sub < 0)
					writer__null(&wr, NULL);
				else
					writer__uint(&wr, (__u64)min);
				writer__key(&wr, "max");
				if (rows[k].sub < 0)
					writer__int(&wr, -1);
				else
					writer__uint(&wr, max);
				writer__key(&wr, "count");
				writer__uint(&wr, rows[k].count);
				writer__end_object(&wr);
			}
			writer__end_array(&wr);
			writer__end_object(&wr);
			fputc('\n', out);
			continue;
		}
		/* Text, as bpftrace and bcc draw them: range, count, bar. */
		text_write_escaped(out, func, strlen(func));
		fputs(": ", out);
		text_write_escaped(out, value.label, strlen(value.label));
		fprintf(out, " (%llu call%s)\n", (unsigned long long)total, total == 1 ? "" : "s");
		for (size_t k = i; k < j; k++) {
			char label[48];
			int w = most ? (int)((rows[k].count * HIST_BAR + most - 1) / most) : 0;

			/* Empty buckets between two full ones show, as in bpftrace. */
			if (k > i && rows[k - 1].sub >= 0 && rows[k].sub > rows[k - 1].sub + 1)
				for (__s32 b = rows[k - 1].sub + 1; b < rows[k].sub; b++) {
					bucket_label(b, label, sizeof(label));
					fprintf(out, "%-24s %10d |%*s|\n", label, 0, HIST_BAR, "");
				}
			bucket_label(rows[k].sub, label, sizeof(label));
			fprintf(out, "%-24s %10llu |", label, (unsigned long long)rows[k].count);
			for (int c = 0; c < HIST_BAR; c++)
				fputc(c < w ? '@' : ' ', out);
			fputs("|\n", out);
		}
		fputc('\n', out);
	}
}
