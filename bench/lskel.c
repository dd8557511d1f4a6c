// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksb-lskel: the load of ksnoop's kprobe program pair, through libbpf (the
 * path ksnoop takes) against a light skeleton (bpftool gen skeleton -L: a
 * loader program replays map creation and program loads in the kernel,
 * no ELF parsing or relocation in userspace).  docs/PERFORMANCE.md
 * ("Light skeleton") has what it measured.
 *
 *   ksb-lskel libbpf|light LOADS FUNC
 *
 * Loads LOADS instances of the kprobe pair (ksnoop loads one per group of
 * targets with the same plan: one for a function, one per distinct plan of
 * a glob) and attaches the first instance's entry program to kernel
 * function FUNC ("-": none) by a kprobe perf event, the same code for both ways (the
 * attach is not what differs), so that a light load is shown to give a
 * program that attaches.  The libbpf way opens build/ksnoop.bpf.o's
 * skeleton with only the kprobe pair autoloaded, as attach.c does; the
 * light way the same source built with KSNOOP_KPROBES_ONLY.  The plan
 * (.rodata) is left zero both ways: the verifier's work is the same in
 * both, so it is not what is compared.
 *
 * One line: "mode=M loads=N open_load_ms=X per_load_ms=Y cpu_ms=C attach_ms=Z":
 * wall-clock time of the loads, per load, this process's CPU time in them
 * (user and system: the verifier runs in the caller's system time, a light
 * loader's BPF_PROG_RUN too), and the attach.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ksnoop.h"
#include "ksnoop.skel.h"
#include "ksnoop_kprobe.lskel.h"

#define MAX_LOADS 1000

/* This process's CPU time so far, user and system. */
static double cpu_ms(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The kprobe PMU's type, from sysfs; -1 if none. */
static int kprobe_pmu_type(void)
{
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "r");
	int type = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

/* PROG_FD attached at FUNC's entry; the link's fd or -errno. */
static int attach_kprobe(int prog_fd, const char *func)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int type = kprobe_pmu_type(), pfd, lfd;

	if (type < 0)
		return -ENOENT;
	attr.type = type;
	attr.config1 = (__u64)(unsigned long)func;
	pfd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	lfd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, NULL);
	if (lfd < 0) {
		lfd = -errno;
		close(pfd);
	}
	return lfd;
}

static struct ksnoop_bpf *load_libbpf(void)
{
	struct ksnoop_bpf *skel = ksnoop_bpf__open();
	struct bpf_program *p;

	if (!skel)
		return NULL;
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, p == skel->progs.ksnoop_kprobe ||
					     p == skel->progs.ksnoop_kretprobe);
	if (ksnoop_bpf__load(skel)) {
		ksnoop_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

int main(int argc, char **argv)
{
	static struct ksnoop_bpf *heavy[MAX_LOADS];
	static struct ksnoop_kprobe *light[MAX_LOADS];
	double t0, t1, t2, c0, c1;
	int n, i, fd, lfd;
	bool is_light;

	if (argc != 4 || (strcmp(argv[1], "libbpf") && strcmp(argv[1], "light"))) {
		fprintf(stderr, "usage: ksb-lskel libbpf|light LOADS FUNC\n");
		return 2;
	}
	is_light = !strcmp(argv[1], "light");
	n = atoi(argv[2]);
	if (n < 1 || n > MAX_LOADS) {
		fprintf(stderr, "ksb-lskel: LOADS must be 1..%d\n", MAX_LOADS);
		return 2;
	}
	t0 = now_ms();
	c0 = cpu_ms();
	for (i = 0; i < n; i++) {
		if (is_light)
			light[i] = ksnoop_kprobe__open_and_load();
		else
			heavy[i] = load_libbpf();
		if (is_light ? !light[i] : !heavy[i]) {
			fprintf(stderr, "ksb-lskel: load %d failed: %s\n", i, strerror(errno));
			return 1;
		}
	}
	t1 = now_ms();
	c1 = cpu_ms();
	fd = is_light ? light[0]->progs.ksnoop_kprobe.prog_fd :
			bpf_program__fd(heavy[0]->progs.ksnoop_kprobe);
	lfd = strcmp(argv[3], "-") ? attach_kprobe(fd, argv[3]) : dup(fd);
	t2 = now_ms();
	if (lfd < 0) {
		fprintf(stderr, "ksb-lskel: attach to '%s' failed: %s\n", argv[3], strerror(-lfd));
		return 1;
	}
	printf("mode=%s loads=%d open_load_ms=%.1f per_load_ms=%.2f cpu_ms=%.1f attach_ms=%.1f\n",
	       argv[1], n, t1 - t0, (t1 - t0) / n, c1 - c0, t2 - t1);
	close(lfd);
	for (i = 0; i < n; i++)
		if (is_light)
			ksnoop_kprobe__destroy(light[i]);
		else
			ksnoop_bpf__destroy(heavy[i]);
	return 0;
}
