// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksb-bare OBJ: load a BPF object, attach every program in it, say
 * "tracing" on stderr (the word bench/run waits for, as with ksnoop -v),
 * and stay attached until SIGINT or SIGTERM. Used for the bare tp_btf
 * probe of bench/bare.bpf.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
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
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "ksb-bare: tracing %d target(s)\n", n);
	while (!stop)
		pause();
	for (i = 0; i < n; i++)
		bpf_link__destroy(links[i]);
	bpf_object__close(obj);
	return 0;
}
