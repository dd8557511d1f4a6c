// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
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
	return (x->stack_id > y->stack_id) - (x->stack_id < y->stack_id);
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
		r->stack_id = key.stack_id;
		r->count = v;
		if (key.stack_id >= 0 && stacks_fd >= 0 &&
		    bpf_map_lookup_elem(stacks_fd, &key.stack_id, r->frames) == 0)
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
		key.stack_id = rows[i].stack_id;
		bpf_map_delete_elem(counts_fd, &key);
	}
	counts__sort(rows, *n);
	*out = rows;
	return 0;
}

/* Frame I of ROW as a name; FALSE when it is the tracer's own. */
static bool frame_name(const struct counts_fmt *f, const struct count_row *row, __u32 i,
		       bool bare, char *buf, size_t sz)
{
	if (!f->symbolize || f->symbolize(f->sym_ctx, row->frames[i], buf, sz)) {
		snprintf(buf, sz, "0x%llx", (unsigned long long)row->frames[i]);
		return true;
	}
	if (printer__tracer_frame(buf))
		return false;
	/* Folded stacks name functions only: "tcp_connect+0x1c [mod]" -> "tcp_connect". */
	if (bare)
		buf[strcspn(buf, "+ ")] = 0;
	return true;
}

/*
 * First frame that is not the tracer's: named, and not one of its own
 * (programs loaded after kallsyms was read have no name at all).
 */
static __u32 first_frame(const struct counts_fmt *f, const struct count_row *row)
{
	char sym[192];
	__u32 i;

	for (i = 0; i < row->nframes; i++)
		if (f->symbolize && !f->symbolize(f->sym_ctx, row->frames[i], sym, sizeof(sym)) &&
		    !printer__tracer_frame(sym))
			break;
	return i < row->nframes ? i : 0;
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
			if (row->stack_id < 0)
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
			writer__key(&wr, "func");
			writer__name(&wr, func);
			if (f->stacks) {
				writer__key(&wr, "stack");
				if (row->stack_id < 0) {
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
