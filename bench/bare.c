// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksb-bare OBJ: load a BPF object, attach every program in it, say
 * "tracing" on stderr (the word bench/run waits for, as with ksnoop -v),
 * and stay attached until SIGINT or SIGTERM. Used for the bare tp_btf
 * probes of bench/bare.bpf.c.  An object with a ring buffer named
 * "events" has it read every 10 ms (its program wakes no one: each poll's
 * timeout, then a read of what is there), each record counted; the count
 * goes to stderr at the end.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;
static unsigned long long nrecords;

static int on_record(void *ctx, void *data, size_t size)
{
	(void)ctx;
	(void)data;
	(void)size;
	nrecords++;
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map, *events;
	struct ring_buffer *rb = NULL;
	struct bpf_link *links[16];
	int n = 0, i, err;

	if (argc != 2) {
		fprintf(stderr, "usage: ksb-bare OBJ\n");
		return 2;
	}
	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "ksb-bare: open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	/* A floor's .rodata is its self_tgid alone (bench/bare.bpf.c). */
	bpf_object__for_each_map(map, obj) {
		size_t size;
		__u32 *ro;

		if (!strstr(bpf_map__name(map), ".rodata"))
			continue;
		ro = (__u32 *)bpf_map__initial_value(map, &size);
		if (ro && size >= sizeof(*ro))
			*ro = getpid();
	}
	err = bpf_object__load(obj);
	if (err) {
		fprintf(stderr, "ksb-bare: load: %s\n", strerror(-err));
		return 1;
	}
	bpf_object__for_each_program(prog, obj) {
		if (n == 16)
			break;
		links[n] = bpf_program__attach(prog);
		if (!links[n]) {
			fprintf(stderr, "ksb-bare: attach %s: %s\n", bpf_program__name(prog),
				strerror(errno));
			return 1;
		}
		n++;
	}
	events = bpf_object__find_map_by_name(obj, "events");
	if (events) {
		rb = ring_buffer__new(bpf_map__fd(events), on_record, NULL, NULL);
		if (!rb) {
			fprintf(stderr, "ksb-bare: ring buffer: %s\n", strerror(errno));
			return 1;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "ksb-bare: tracing %d target(s)\n", n);
	while (!stop) {
		/* Not woken: what the timeout finds is read, as ksnoop reads it. */
		if (rb && ring_buffer__poll(rb, 10) >= 0)
			ring_buffer__consume(rb);
		else if (!rb)
			pause();
	}
	if (rb) {
		ring_buffer__consume(rb);
		ring_buffer__free(rb);
		fprintf(stderr, "ksb-bare: %llu records read\n", nrecords);
	}
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	bpf_object__close(obj);
	return 0;
}
