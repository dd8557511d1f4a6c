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
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
	long n, i;

	if (argc >= 3 && !strcmp(argv[1], "sleep"))
		return sleeps(argc - 2, argv + 2);
	if (argc == 4 && !strcmp(argv[1], "udp"))
		return datagrams(strtol(argv[2], NULL, 10), strtol(argv[3], NULL, 10));
	if (argc != 3)
		return 2;
	n = strtol(argv[2], NULL, 10);
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
