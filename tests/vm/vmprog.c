// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Workloads for the VM tests, linked statically so that the VM needs no
 * libraries for it.
 *
 *   vmprog mmap PAGES     mmap and unmap PAGES anonymous pages (the kernel's
 *                         do_mmap has 8 arguments on 6.1: two on the stack)
 *   vmprog threads N      start and join N threads, one after the other;
 *                         each ends through the exit system call, which
 *                         never returns
 *   vmprog sleep MS...    nanosleep MS milliseconds, for each MS in turn
 *                         (the kernel's hrtimer_nanosleep, one call each)
 *   vmprog udp N BYTES    send N datagrams of BYTES zero bytes to
 *                         127.0.0.1:9 from an unconnected UDP socket (the
 *                         kernel's udp_send_skb and ip_send_skb, one call
 *                         each; busybox's nc has no UDP)
 *   vmprog dgram ADDR SPORT DPORT [recv]
 *                         send one datagram from ADDR:SPORT to ADDR:DPORT
 *                         (IPv4 or IPv6), received by a socket bound there
 *                         with "recv", else dropped for want of one
 *   vmprog dgrams ADDR SPORT DPORT N
 *                         send N datagrams of 1 to N bytes from ADDR:SPORT
 *                         to a socket bound at ADDR:DPORT, receive each
 *                         (one flow whose packets differ in length, id
 *                         and checksum: --by 'skb:tuple' tests)
 *   vmprog tcp ADDR SPORT DPORT
 *                         connect from ADDR:SPORT to a listener on
 *                         ADDR:DPORT, accept, close (':tuple' tests)
 *   vmprog refused ADDR DPORT
 *                         connect from a port the kernel picks (bound to
 *                         ADDR:0, so not locked) to ADDR:DPORT where nobody
 *                         listens; print that port and succeed when the
 *                         connect was refused (the kernel gives the port
 *                         back before the tracepoint of the CLOSE)
 *   vmprog unix           one byte through an AF_UNIX datagram socket pair:
 *                         a skb with no network header
 *   vmprog execs N        N times: a child process execs vmprog (this
 *                         binary, so the comm stays) from its main thread
 *   vmprog thread-execs N the same from a second thread of the child: the
 *                         thread takes the leader's pid (the kernel's
 *                         de_thread()); each child waited for
 *   vmprog fds N          N descriptors closed by one close_range(): the
 *                         kernel's filp_close N times in one system call
 *                         (inherited descriptors from 3 up are closed first,
 *                         one by one)
 *   vmprog queue N ROUNDS each round, send N datagrams of 600 to 600+N-1
 *                         bytes to a socket bound on 127.0.0.1, then
 *                         receive them: N skbs alive at once, freed
 *                         together (no skb tracepoint says so), their
 *                         addresses used again by later rounds'
 *                         (--track --track-max tests)
 *   vmprog epoll-nest N   N epoll instances, each added to the next: adding
 *                         the K-th runs the kernel's loop check through the
 *                         K-1 below it, recursively (ep_loop_check_proc
 *                         calls itself once per level)
 *   vmprog open-threads N ROUNDS PATH [pinned]
 *                         N threads at once, each opening and closing PATH
 *                         ROUNDS times (calls of many tasks in flight
 *                         together); pinned: thread K on the K-th CPU it
 *                         may run on, one thread a CPU (N at most that
 *                         many), so that no two of them share a CPU.  An
 *                         fentry/fexit program that is preempted (7.x:
 *                         preempt=lazy) holds its per-CPU recursion guard
 *                         until it runs again, and the kernel skips every
 *                         other task's call on that CPU meanwhile (counted
 *                         as the program's recursion misses): threads that
 *                         share a CPU lose each other's calls there
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static void *nothing(void *arg)
{
	return arg;
}

static int sleeps(int n, char **ms)
{
	int i;

	for (i = 0; i < n; i++) {
		long v = strtol(ms[i], NULL, 10);
		struct timespec ts = { .tv_sec = v / 1000, .tv_nsec = v % 1000 * 1000000 };

		if (nanosleep(&ts, NULL))
			return 1;
	}
	return 0;
}

static int datagrams(long n, long bytes)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
	static char payload[1024];
	int fd, err = 0;
	long i;

	if (bytes < 0 || bytes > (long)sizeof(payload))
		return 2;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return 1;
	for (i = 0; i < n && !err; i++)
		err = sendto(fd, payload, bytes, 0, (struct sockaddr *)&to, sizeof(to)) != bytes;
	close(fd);
	return err;
}

/* ADDR:PORT, IPv4 or IPv6, in *SA; its length, or 0 if ADDR is neither. */
static socklen_t sockaddr_of(const char *addr, const char *port, struct sockaddr_in6 *sa)
{
	struct sockaddr_in *in = (struct sockaddr_in *)sa;

	memset(sa, 0, sizeof(*sa));
	if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(strtol(port, NULL, 10));
		return sizeof(*in);
	}
	if (inet_pton(AF_INET6, addr, &sa->sin6_addr) == 1) {
		sa->sin6_family = AF_INET6;
		sa->sin6_port = htons(strtol(port, NULL, 10));
		return sizeof(*sa);
	}
	return 0;
}

/* A socket of TYPE bound to ADDR:PORT, or -1. */
static int bound(int type, const char *addr, const char *port)
{
	struct sockaddr_in6 sa;
	socklen_t len = sockaddr_of(addr, port, &sa);
	int one = 1, fd = len ? socket(sa.sin6_family, type, 0) : -1;

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int dgram(char **argv, int recv_it)
{
	struct sockaddr_in6 to;
	socklen_t len = sockaddr_of(argv[0], argv[2], &to);
	int rx = recv_it ? bound(SOCK_DGRAM, argv[0], argv[2]) : -2;
	int tx = bound(SOCK_DGRAM, argv[0], argv[1]);
	char byte = 'x';
	int err = !len || rx == -1 || tx < 0 ||
		  sendto(tx, &byte, 1, 0, (struct sockaddr *)&to, len) != 1;

	if (!err && rx >= 0)
		err = recv(rx, &byte, 1, 0) != 1;
	close(tx);
	if (rx >= 0)
		close(rx);
	return err;
}

static int dgrams(char **argv, long n)
{
	struct sockaddr_in6 to;
	socklen_t len = sockaddr_of(argv[0], argv[2], &to);
	int rx = bound(SOCK_DGRAM, argv[0], argv[2]);
	int tx = bound(SOCK_DGRAM, argv[0], argv[1]);
	char buf[256];
	long i;
	int err = !len || rx < 0 || tx < 0 || n < 1 || n > (long)sizeof(buf);

	memset(buf, 'x', sizeof(buf));
	for (i = 1; !err && i <= n; i++)
		err = sendto(tx, buf, i, 0, (struct sockaddr *)&to, len) != i ||
		      recv(rx, buf, sizeof(buf), 0) != i;
	if (tx >= 0)
		close(tx);
	if (rx >= 0)
		close(rx);
	return err;
}

static int tcp(char **argv)
{
	struct sockaddr_in6 to;
	socklen_t len = sockaddr_of(argv[0], argv[2], &to);
	int lfd = bound(SOCK_STREAM, argv[0], argv[2]);
	int cfd = bound(SOCK_STREAM, argv[0], argv[1]);
	int afd = -1, err = !len || lfd < 0 || cfd < 0 || listen(lfd, 1) ||
			    connect(cfd, (struct sockaddr *)&to, len);

	if (!err)
		err = (afd = accept(lfd, NULL, NULL)) < 0;
	close(cfd);
	if (afd >= 0)
		close(afd);
	close(lfd);
	return err;
}

static int refused(char **argv)
{
	struct sockaddr_in6 to, me;
	socklen_t len = sockaddr_of(argv[0], argv[1], &to), mlen = sizeof(me);
	int fd = bound(SOCK_STREAM, argv[0], "0");	/* port 0: the kernel picks one */
	int err = !len || fd < 0 || getsockname(fd, (struct sockaddr *)&me, &mlen) ||
		  !connect(fd, (struct sockaddr *)&to, len) || errno != ECONNREFUSED;

	/* sin_port and sin6_port are at the same offset */
	if (!err)
		printf("%u\n", ntohs(me.sin6_port));
	if (fd >= 0)
		close(fd);
	return err;
}

static int unix_pair(void)
{
	int sv[2], err;
	char byte = 'x';

	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv))
		return 1;
	err = send(sv[0], &byte, 1, 0) != 1 || recv(sv[1], &byte, 1, 0) != 1;
	close(sv[0]);
	close(sv[1]);
	return err;
}

static char self[4096];

/* Become vmprog again, doing nothing (its comm stays "vmprog"). */
static void *exec_self(void *arg)
{
	char *argv[] = { "vmprog", "sleep", "0", NULL };

	execv(self, argv);
	_exit(1);
}

/* N children that exec, from their main thread or (THREAD) a second one. */
static int execs(long n, int thread)
{
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int status, err = 0;
	long i;

	if (len <= 0)
		return 1;
	self[len] = 0;
	for (i = 0; i < n && !err; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			pthread_t t;

			if (!thread)
				exec_self(NULL);
			/* The exec ends this thread (de_thread()): the join never returns. */
			if (pthread_create(&t, NULL, exec_self, NULL) == 0)
				pthread_join(t, NULL);
			_exit(1);
		}
		err = waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		      WEXITSTATUS(status) != 0;
	}
	return err;
}

/* N descriptors, 3 to N + 2, closed by one close_range(). */
static int close_many(long n)
{
	long i;
	int fd;

	for (fd = 3; fd < 1024; fd++)
		close(fd);
	for (i = 0; i < n; i++)
		if (dup(0) != 3 + i)
			return 1;
	return syscall(SYS_close_range, 3, ~0U, 0) != 0;
}

static int queue_rounds(long n, long rounds)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	socklen_t len = sizeof(to);
	static char buf[1024];
	int rx = socket(AF_INET, SOCK_DGRAM, 0), tx = socket(AF_INET, SOCK_DGRAM, 0);
	int err = rx < 0 || tx < 0 || n < 1 || n > 400 || rounds < 1;
	long r, i;

	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	err = err || bind(rx, (struct sockaddr *)&to, len) ||
	      getsockname(rx, (struct sockaddr *)&to, &len);
	for (r = 0; r < rounds && !err; r++) {
		for (i = 0; i < n && !err; i++)
			err = sendto(tx, buf, 600 + i, 0, (struct sockaddr *)&to, len) != 600 + i;
		for (i = 0; i < n && !err; i++)
			err = recv(rx, buf, sizeof(buf), 0) != 600 + i;
	}
	if (tx >= 0)
		close(tx);
	if (rx >= 0)
		close(rx);
	return err;
}

/* Each of N epoll instances added to the next one: a chain N deep. */
static int epoll_nest(long n)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int prev = -1, fd;
	long i;

	if (n < 1 || n > 4)	/* the kernel refuses a chain deeper than 4 (EPOLL_MAX_NESTS) */
		return 2;
	for (i = 0; i < n; i++) {
		fd = epoll_create1(0);
		if (fd < 0)
			return 1;
		if (prev >= 0 && epoll_ctl(fd, EPOLL_CTL_ADD, prev, &ev))
			return 1;
		prev = fd;
	}
	return 0;
}

static const char *open_path;
static long open_rounds;

static void *open_rounds_thread(void *arg)
{
	long i;
	int fd;

	cpu_set_t mine;

	/* pinned: may run on its CPU alone, or it fails before opening */
	if (arg && (pthread_getaffinity_np(pthread_self(), sizeof(mine), &mine) ||
		    CPU_COUNT(&mine) != 1 || !CPU_ISSET((long)arg - 1, &mine)))
		return (void *)open_path;
	for (i = 0; i < open_rounds; i++) {
		fd = open(open_path, O_RDONLY);
		if (fd < 0)
			return (void *)open_path;	/* failed: anything but NULL */
		close(fd);
	}
	return NULL;
}

/*
 * N threads at once, each opening PATH ROUNDS times; PINNED: thread K
 * bound to the K-th CPU of the process's set before it starts (its
 * argument is that CPU + 1).
 */
static int open_threads(long n, long rounds, const char *path, int pinned)
{
	pthread_attr_t attr;
	pthread_t t[16];
	cpu_set_t all, one;
	long i, cpu = -1;
	void *ret;
	int err = 0;

	if (n < 1 || n > 16 || rounds < 1)
		return 2;
	if (pinned && (sched_getaffinity(0, sizeof(all), &all) || CPU_COUNT(&all) < n)) {
		fprintf(stderr, "vmprog: open-threads %ld pinned: fewer CPUs\n", n);
		return 2;
	}
	open_path = path;
	open_rounds = rounds;
	for (i = 0; i < n; i++) {
		if (pthread_attr_init(&attr))
			return 1;
		if (pinned) {
			while (!CPU_ISSET(++cpu, &all))
				;
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (pthread_attr_setaffinity_np(&attr, sizeof(one), &one))
				return 1;
		}
		if (pthread_create(&t[i], &attr, open_rounds_thread, pinned ? (void *)(cpu + 1) : NULL))
			return 1;
		pthread_attr_destroy(&attr);
	}
	for (i = 0; i < n; i++)
		err |= pthread_join(t[i], &ret) || ret;
	return err;
}

int main(int argc, char **argv)
{
	long n, i;

	if (argc >= 3 && !strcmp(argv[1], "sleep"))
		return sleeps(argc - 2, argv + 2);
	if ((argc == 5 || argc == 6) && !strcmp(argv[1], "dgram"))
		return dgram(argv + 2, argc == 6 && !strcmp(argv[5], "recv"));
	if (argc == 6 && !strcmp(argv[1], "dgrams"))
		return dgrams(argv + 2, strtol(argv[5], NULL, 10));
	if (argc == 2 && !strcmp(argv[1], "unix"))
		return unix_pair();
	if (argc == 5 && !strcmp(argv[1], "tcp"))
		return tcp(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "refused"))
		return refused(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "queue"))
		return queue_rounds(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
	if ((argc == 5 || (argc == 6 && !strcmp(argv[5], "pinned"))) &&
	    !strcmp(argv[1], "open-threads"))
		return open_threads(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10), argv[4],
				    argc == 6);
	if (argc == 3 && !strcmp(argv[1], "epoll-nest"))
		return epoll_nest(strtol(argv[2], NULL, 10));
	if (argc == 4 && !strcmp(argv[1], "udp"))
		return datagrams(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
	if (argc != 3)
		return 2;
	n = strtol(argv[2], NULL, 10);
	if (!strcmp(argv[1], "execs") || !strcmp(argv[1], "thread-execs"))
		return execs(n, !strcmp(argv[1], "thread-execs"));
	if (!strcmp(argv[1], "fds"))
		return n < 1 || n > 1000 ? 2 : close_many(n);
	if (!strcmp(argv[1], "mmap")) {
		void *p = mmap(NULL, n * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		munmap(p, n * 4096);
	} else if (!strcmp(argv[1], "threads")) {
		for (i = 0; i < n; i++) {
			pthread_t t;

			if (pthread_create(&t, NULL, nothing, NULL))
				return 1;
			pthread_join(t, NULL);
		}
	} else {
		return 2;
	}
	return 0;
}
