// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The events ring buffer made on a thread of its own (ringbuf_ahead.h says why). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "ringbuf_ahead.h"
#include "stop.h"

struct ringbuf_ahead {
	pthread_t thread;
	bool running;		/* the thread not joined yet */
	__u32 bytes;
	int fd;			/* the map; -1: failed, or taken */
};

static void *make_ringbuf(void *arg)
{
	struct ringbuf_ahead *r = arg;

	/* The name bpf/ksnoop.bpf.c gives it, as bpftool and -v show maps. */
	r->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "events", 0, 0, r->bytes, NULL);
	return NULL;
}

struct ringbuf_ahead *ringbuf_ahead__start(__u32 bytes)
{
	struct ringbuf_ahead *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->bytes = bytes;
	r->fd = -1;
	r->running = stop__thread_create(&r->thread, make_ringbuf, r) == 0;
	if (!r->running) {
		free(r);
		return NULL;
	}
	return r;
}

static void join(struct ringbuf_ahead *r)
{
	if (r->running)
		pthread_join(r->thread, NULL);
	r->running = false;
}

int ringbuf_ahead__take(struct ringbuf_ahead *r)
{
	int fd;

	if (!r)
		return -1;
	join(r);
	fd = r->fd;
	r->fd = -1;
	return fd < 0 ? -1 : fd;
}

void ringbuf_ahead__free(struct ringbuf_ahead *r)
{
	if (!r)
		return;
	join(r);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}
