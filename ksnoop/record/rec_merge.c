// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The k-way merge of recordings by wall time (rec_merge.h): a binary
 * heap of the sources that still have an event, keyed by that event's
 * wall time and then the source's index.  A source whose event was
 * handed out is read again only at the next call, so the record the
 * caller holds stays valid until then.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "ksnoop.h"
#include "rec_merge.h"

struct merge_head {
	const void *rec;
	size_t size;
	__int128 wall;		/* time_ns + the source's clock offset */
};

struct rec_merge {
	struct rec_merge_source *src;
	struct merge_head *head;	/* per source: its next event */
	int *heap;			/* source indices, the earliest first */
	int n, nheap;
	int taken;			/* the source handed out last (-1: none) */
};

/* Whether source A's event goes before source B's: earlier, or as early and given first. */
static bool merge_before(const struct rec_merge *m, int a, int b)
{
	if (m->head[a].wall != m->head[b].wall)
		return m->head[a].wall < m->head[b].wall;
	return a < b;
}

static void heap_swap(struct rec_merge *m, int i, int j)
{
	int t = m->heap[i];

	m->heap[i] = m->heap[j];
	m->heap[j] = t;
}

static void sift_down(struct rec_merge *m, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, best = i;

		if (l < m->nheap && merge_before(m, m->heap[l], m->heap[best]))
			best = l;
		if (r < m->nheap && merge_before(m, m->heap[r], m->heap[best]))
			best = r;
		if (best == i)
			return;
		heap_swap(m, i, best);
		i = best;
	}
}

static void sift_up(struct rec_merge *m, int i)
{
	while (i > 0 && merge_before(m, m->heap[i], m->heap[(i - 1) / 2])) {
		heap_swap(m, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

/* Source I's next event into its head: 1 an event, 0 its end, negative an error. */
static int read_head(struct rec_merge *m, int i, struct ks_error *e)
{
	struct merge_head *h = &m->head[i];
	int ret = m->src[i].next(m->src[i].ctx, &h->rec, &h->size, e);

	if (ret <= 0)
		return ret;
	if (h->size < sizeof(struct ksnoop_event))
		return ks_fail(e, -ENOEXEC, "report: a record of %zu bytes is shorter than its header",
			       h->size);
	h->wall = (__int128)((const struct ksnoop_event *)h->rec)->time_ns +
		  m->src[i].clock_offset_ns;
	return 1;
}

struct rec_merge *rec_merge__new(const struct rec_merge_source *src, int n,
				 struct ks_error *e)
{
	struct rec_merge *m;
	int i, ret;

	if (n < 1 || n > REC_MERGE_MAX_SOURCES) {
		ks_fail(e, -EINVAL, "report: %d recordings; a report merges 1 to %d",
			n, REC_MERGE_MAX_SOURCES);
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m) {
		m->src = calloc(n, sizeof(*m->src));
		m->head = calloc(n, sizeof(*m->head));
		m->heap = calloc(n, sizeof(*m->heap));
	}
	if (!m || !m->src || !m->head || !m->heap) {
		rec_merge__free(m);
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	memcpy(m->src, src, n * sizeof(*src));
	m->n = n;
	m->taken = -1;
	for (i = 0; i < n; i++) {
		ret = read_head(m, i, e);
		if (ret < 0) {
			rec_merge__free(m);
			return NULL;
		}
		if (ret) {
			m->heap[m->nheap++] = i;
			sift_up(m, m->nheap - 1);
		}
	}
	return m;
}

int rec_merge__next(struct rec_merge *m, const void **rec, size_t *size, int *source,
		    struct ks_error *e)
{
	int ret;

	/* The source handed out last is at the top still: its next event, or it leaves. */
	if (m->taken >= 0) {
		ret = read_head(m, m->taken, e);
		if (ret < 0)
			return ret;
		if (!ret)
			m->heap[0] = m->heap[--m->nheap];
		if (m->nheap)
			sift_down(m, 0);
		m->taken = -1;
	}
	if (!m->nheap)
		return 0;
	m->taken = m->heap[0];
	*rec = m->head[m->taken].rec;
	*size = m->head[m->taken].size;
	*source = m->taken;
	return 1;
}

void rec_merge__free(struct rec_merge *m)
{
	if (!m)
		return;
	free(m->src);
	free(m->head);
	free(m->heap);
	free(m);
}

int rec_merge__recfile_next(void *ctx, const void **rec, size_t *size, struct ks_error *e)
{
	return recfile__next(ctx, rec, size, e);
}
