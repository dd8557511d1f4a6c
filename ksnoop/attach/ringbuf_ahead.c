// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The kernel's features and the events ring buffer, made on a thread of its own (ringbuf_ahead.h says why). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "kfeatures.h"
#include "ringbuf_ahead.h"
#include "stop.h"

struct ringbuf_ahead {
	pthread_t thread;
	bool running;		/* the thread not joined yet */
	__u32 bytes;
	bool funcs;		/* the run traces kernel functions (kfeatures__probe_early()) */
	int fd;			/* the map; -1: failed, or taken */
	pthread_mutex_t lock;
	pthread_cond_t probed_cond;
	bool probed;		/* FEATURES is done (under LOCK) */
	struct kernel_features features;
};

/* What the main thread asks for first, first: the features, then the ring buffer. */
static void *make_ahead(void *arg)
{
	struct ringbuf_ahead *r = arg;

	kfeatures__probe_early(&r->features, r->funcs);
	pthread_mutex_lock(&r->lock);
	r->probed = true;
	pthread_cond_signal(&r->probed_cond);
	pthread_mutex_unlock(&r->lock);
	/* The name bpf/ksnoop.bpf.c gives it, as bpftool and -v show maps. */
	r->fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "events", 0, 0, r->bytes, NULL);
	return NULL;
}

struct ringbuf_ahead *ringbuf_ahead__start(__u32 bytes, bool funcs)
{
	struct ringbuf_ahead *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->bytes = bytes;
	r->funcs = funcs;
	r->fd = -1;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->probed_cond, NULL);
	r->running = stop__thread_create(&r->thread, make_ahead, r) == 0;
	if (!r->running) {
		pthread_mutex_destroy(&r->lock);
		pthread_cond_destroy(&r->probed_cond);
		free(r);
		return NULL;
	}
	return r;
}

const struct kernel_features *ringbuf_ahead__features(struct ringbuf_ahead *r)
{
	if (!r)
		return NULL;
	pthread_mutex_lock(&r->lock);
	while (!r->probed)
		pthread_cond_wait(&r->probed_cond, &r->lock);
	pthread_mutex_unlock(&r->lock);
	return &r->features;
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
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->probed_cond);
	free(r);
}
