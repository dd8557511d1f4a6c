// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * USDT notes as compilers write them for less common arguments, for
 * ksnoop's live tests (42-usdt-forms).  Built with gcc -O2, its notes hold
 * (gcc 12, sdt.h 4.8):
 *
 *   bystruct  "-4@%edi 16@%rax 24@8(%rsp) -4@%ecx"   structs passed by value
 *   real      "-4@%edi 8f@%rax"                      a double ("f": a float)
 *   mixed     three call sites passing 3, 1 and 5 ints
 *   plain     two ints; none: no argument
 *
 * (clang -O2 writes the structs as "16@-16(%rsp) 24@8(%rsp)".)
 *
 *   usdt_forms fire N    call every probe N times (mixed: each of its three
 *                        sites once per round, in that order), then exit
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

struct pair {
	long a, b;		/* 16 bytes */
};

struct triple {
	long a, b, c;		/* 24 bytes */
};

__attribute__((noinline)) static void structs(int n, struct pair p, struct triple t)
{
	DTRACE_PROBE4(ksnoop_forms, bystruct, n, p, t, n + 1);
}

__attribute__((noinline)) static void real(int n, double d)
{
	DTRACE_PROBE2(ksnoop_forms, real, n, d);
}

/* One probe, three call sites that pass different numbers of arguments. */
__attribute__((noinline)) static void mixed(int n)
{
	DTRACE_PROBE3(ksnoop_forms, mixed, n, n + 1, n + 2);
	DTRACE_PROBE1(ksnoop_forms, mixed, n + 10);
	DTRACE_PROBE5(ksnoop_forms, mixed, n + 100, n + 101, n + 102, n + 103, n + 104);
}

__attribute__((noinline)) static void plain(int n)
{
	DTRACE_PROBE2(ksnoop_forms, plain, n, n * 2);
	DTRACE_PROBE(ksnoop_forms, none);
}

int main(int argc, char **argv)
{
	int i, n;

	if (argc != 3 || sscanf(argv[2], "%d", &n) != 1) {
		fprintf(stderr, "usage: usdt_forms fire N\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		struct pair p = { i, 2 };
		struct triple t = { i, 4, 5 };

		structs(i, p, t);
		real(i, i / 2.0);
		mixed(i);
		plain(i);
	}
	return 0;
}
