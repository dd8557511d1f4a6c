// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * System calls for live/32-syscalls.sh, made directly (libc may pick
 * another call): openat of MISSING N times (each fails, ENOENT) and of
 * EXISTING M times (each succeeds), then, with PORT, one connect to
 * 127.0.0.1:PORT (refused: nothing listens there); with GETPIDS, that
 * many getpid calls, and with COMPAT that many more as a 32-bit task
 * makes them (x86-64: int 0x80, the ia32 table's 20, which is writev's
 * number in the 64-bit one; elsewhere none).
 *
 *	syscall_prog MISSING N EXISTING M [PORT [GETPIDS [COMPAT]]]
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int count(const char *s)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*end || n < 0 || n > 100000) {
		fprintf(stderr, "syscall_prog: not a count: %s\n", s);
		exit(2);
	}
	return (int)n;
}

static void compat_getpid(void)
{
#if defined(__x86_64__)
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "r8", "r9", "r10", "r11", "memory");
	(void)ret;
#endif
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int i, n, m, fd;

	if (argc < 5 || argc > 8) {
		fprintf(stderr, "usage: syscall_prog MISSING N EXISTING M [PORT [GETPIDS [COMPAT]]]\n");
		return 2;
	}
	n = count(argv[2]);
	m = count(argv[4]);
	for (i = 0; i < n; i++)
		if (syscall(SYS_openat, AT_FDCWD, argv[1], O_RDONLY) >= 0)
			return 1;
	for (i = 0; i < m; i++) {
		fd = syscall(SYS_openat, AT_FDCWD, argv[3], O_RDONLY);
		if (fd < 0)
			return 1;
		close(fd);
	}
	if (argc >= 6) {
		fd = socket(AF_INET, SOCK_STREAM, 0);
		sin.sin_port = htons(count(argv[5]));
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		connect(fd, (struct sockaddr *)&sin, sizeof(sin));
		close(fd);
	}
	for (i = 0; argc >= 7 && i < count(argv[6]); i++)
		syscall(SYS_getpid);
	for (i = 0; argc >= 8 && i < count(argv[7]); i++)
		compat_getpid();
	return 0;
}
