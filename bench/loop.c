// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksb-loop: the workloads of bench/run, one small static program.
 *
 *   ksb-loop [-C CPU] [-o FILE] MODE ARGS...
 *
 *   ksb-loop open N PATH        open(PATH)+close N times (do_sys_openat2)
 *   ksb-loop syscall N          N getppid() syscalls (raw_syscalls:sys_enter)
 *   ksb-loop openat N PATH      N openat(PATH) syscalls (syscalls:sys_enter_openat
 *                               and sys_exit_openat), each fd closed; a
 *                               missing PATH is no error (each call fails,
 *                               ENOENT, and is the only syscall per iteration)
 *   ksb-loop usdt N             N hits of the USDT probe ksb:tick (arg0 = i,
 *                               arg1 = a short string, arg2 = a struct pointer)
 *   ksb-loop ufunc N            N calls of ksb_ufunc(i, tag), a function of
 *                               two typed arguments (a user function target:
 *                               build with -g for its DWARF)
 *   ksb-loop ustruct N          N calls of ksb_ustruct(p), p a pointer to a
 *                               struct ksb_payload (seq, kind, name[20]) whose
 *                               seq is i: a struct event when traced as
 *                               u:LOOP:ksb_ustruct(p) (build with -g)
 *   ksb-loop udp N PORT         N one-byte UDP datagrams to 127.0.0.1:PORT
 *                               (net:net_dev_queue once each, on lo); the
 *                               program binds PORT itself and never reads
 *                               it: once the receive buffer is full each
 *                               datagram is dropped there, with no ICMP
 *   ksb-loop flood SECS [RATE]  getppid() for SECS seconds, paced at RATE
 *                               calls per second (0 or absent: as fast as
 *                               possible)
 *
 * open, syscall, openat, usdt, ufunc, ustruct and udp print one line "ns_per_iter=X iters=N secs=S";
 * flood prints "calls=N secs=S rate=R" (rate = calls per second achieved).
 * -o FILE writes that line to FILE instead of stdout (for `bpftrace -c`,
 * whose child shares bpftrace's stdout). -C CPU pins the program to one CPU
 * (instead of taskset, which would hide ksb-loop from `bpftrace -c` and its
 * USDT probe lookup).
 * Time comes from clock_gettime(CLOCK_MONOTONIC), a vDSO call that neither
 * enters the kernel nor fires the traced tracepoint.
 *
 * Built with gcc -static so that it runs unchanged in the busybox VM; the
 * USDT probe is a <sys/sdt.h> probe (Debian's systemtap-sdt-dev) without a
 * semaphore: untraced it is a single nop.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/sdt.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static long parse_long(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < 0) {
		fprintf(stderr, "ksb-loop: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void report(uint64_t t0, uint64_t t1, long n)
{
	printf("ns_per_iter=%.1f iters=%ld secs=%.3f\n",
	       n ? (double)(t1 - t0) / (double)n : 0.0, n, (double)(t1 - t0) / 1e9);
}

struct ksb_payload {
	long seq;
	int kind;
	char name[20];
};

static int do_open(long n, const char *path)
{
	uint64_t t0, t1;
	long i;
	int fd;

	/* One untimed call: page in the path walk, fail early if missing. */
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	close(fd);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		fd = open(path, O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	t1 = now_ns();
	report(t0, t1, n);
	return 0;
}

static int do_syscall(long n)
{
	uint64_t t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	t1 = now_ns();
	report(t0, t1, n);
	return 0;
}

static int do_openat(long n, const char *path)
{
	uint64_t t0, t1;
	long i;
	int fd;

	/* One untimed call: page in the path walk. */
	fd = openat(AT_FDCWD, path, O_RDONLY);
	if (fd >= 0)
		close(fd);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		fd = openat(AT_FDCWD, path, O_RDONLY);
		if (fd >= 0)
			close(fd);
	}
	t1 = now_ns();
	report(t0, t1, n);
	return 0;
}

static int do_usdt(long n)
{
	static const char name[] = "ksb-tick";
	struct ksb_payload p = { .kind = 7, .name = "payload" };
	uint64_t t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		p.seq = i;
		DTRACE_PROBE3(ksb, tick, i, name, &p);
	}
	t1 = now_ns();
	report(t0, t1, n);
	return 0;
}

/* Not inlined, not elided: each call is a call a uprobe can see. */
__attribute__((noinline)) long ksb_ufunc(long seq, int tag)
{
	__asm__ volatile("" ::: "memory");
	return seq + tag;
}

volatile long ksb_sink;

static int do_ufunc(long n)
{
	uint64_t t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < n; i++)
		ksb_sink = ksb_ufunc(i, 7);
	t1 = now_ns();
	report(t0, t1, n);
	return 0;
}

/* A struct pointer argument: its members are dumped from the DWARF. */
__attribute__((noinline)) long ksb_ustruct(const struct ksb_payload *p)
{
	__asm__ volatile("" ::: "memory");
	return p->seq;
}

static int do_ustruct(long n)
{
	struct ksb_payload p = { .kind = 7, .name = "payload" };
	uint64_t t0, t1;
	long i;

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		p.seq = i;
		ksb_sink = ksb_ustruct(&p);
	}
	t1 = now_ns();
	report(t0, t1, n);
	return 0;
}

static int do_udp(long n, long port)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	uint64_t t0, t1;
	int rx, tx;
	long i;

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 || bind(rx, (struct sockaddr *)&to, sizeof(to)) ||
	    connect(tx, (struct sockaddr *)&to, sizeof(to))) {
		perror("udp");
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		send(tx, "x", 1, 0);
	t1 = now_ns();
	report(t0, t1, n);
	return 0;
}

/* getppid() for SECS seconds at RATE per second (0: unpaced). */
static int do_flood(double secs, long rate)
{
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(secs * 1e9), t = t0;
	long calls = 0;

	if (!rate) {
		while (t < end) {
			int k;

			for (k = 0; k < 256; k++)
				syscall(SYS_getppid);
			calls += 256;
			t = now_ns();
		}
	} else {
		/* Busy pacing: never ahead of RATE, catch up in small bursts. */
		while (t < end) {
			long due = (long)((double)(t - t0) * (double)rate / 1e9);
			int k;

			if (calls >= due) {
				t = now_ns();
				continue;
			}
			for (k = 0; k < 64 && calls < due; k++, calls++)
				syscall(SYS_getppid);
			t = now_ns();
		}
	}
	printf("calls=%ld secs=%.3f rate=%.0f\n", calls, (double)(t - t0) / 1e9,
	       (double)calls / ((double)(t - t0) / 1e9));
	return 0;
}

int main(int argc, char **argv)
{
	while (argc >= 3 && argv[1][0] == '-' && argv[1][1] && !argv[1][2]) {
		if (argv[1][1] == 'o') {
			if (!freopen(argv[2], "w", stdout)) {
				perror(argv[2]);
				return 2;
			}
		} else if (argv[1][1] == 'C') {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET((int)parse_long(argv[2], "CPU"), &set);
			if (sched_setaffinity(0, sizeof(set), &set)) {
				perror("sched_setaffinity");
				return 2;
			}
		} else {
			break;
		}
		argv += 2;
		argc -= 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && !strcmp(argv[1], "open"))
		return do_open(parse_long(argv[2], "N"), argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "syscall"))
		return do_syscall(parse_long(argv[2], "N"));
	if (argc >= 4 && !strcmp(argv[1], "openat"))
		return do_openat(parse_long(argv[2], "N"), argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "usdt"))
		return do_usdt(parse_long(argv[2], "N"));
	if (argc >= 3 && !strcmp(argv[1], "ufunc"))
		return do_ufunc(parse_long(argv[2], "N"));
	if (argc >= 3 && !strcmp(argv[1], "ustruct"))
		return do_ustruct(parse_long(argv[2], "N"));
	if (argc >= 4 && !strcmp(argv[1], "udp"))
		return do_udp(parse_long(argv[2], "N"), parse_long(argv[3], "PORT"));
	if (argc >= 3 && !strcmp(argv[1], "flood"))
		return do_flood(atof(argv[2]), argc >= 4 ? parse_long(argv[3], "RATE") : 0);
	fprintf(stderr,
		"usage: ksb-loop [-C CPU] [-o FILE] { open N PATH | syscall N | openat N PATH |\n"
		"                                    usdt N | ufunc N | ustruct N | udp N PORT |\n"
		"                                    flood SECS [RATE] }\n");
	return 2;
}
