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
 * Two probes have notes written here in inline assembly (HAND_PROBE), in
 * forms libbpf 1.5 refuses and ksnoop attaches itself, with their values
 * in round I (K = I % 4):
 *
 *   ripsym   "-4@ksnoop_counter(%rip) -4@40+ksnoop_stats(%rip)
 *             -4@ksnoop_stats+44(%rip) 8@%REG -4@$-7"
 *            (PostgreSQL 15's form: a global from the instruction pointer)
 *            1000 + I, 2000 + I, 3000 + I, I, -7
 *   indexed  "-4@(%B,%X,4) -4@-8(%B,%X,4) 8@%X -8@8(%L,%X,8)"
 *            (a scaled index: B = &ints[2], X = K, L = longs)
 *            ints[2 + K] = 102 + K, ints[K] = 100 + K, K, longs[K + 1] = -(K + 1)
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

/*
 * A probe whose note is written here, not by sys/sdt.h (which lets the
 * compiler choose the locations): ARGS is inline-assembly text, "%0" the
 * register of operand 0, "%%" a '%'.  The note is sys/sdt.h's: the site's
 * address (the nop), the .stapsdt.base it was linked against, no
 * semaphore, then provider, name and arguments.
 */
#define HAND_PROBE(provider, name, args)					\
	"990: nop\n"								\
	".pushsection .note.stapsdt,\"?\",\"note\"\n"			\
	".balign 4\n"								\
	".4byte 992f-991f, 994f-993f, 3\n"					\
	"991: .asciz \"stapsdt\"\n"						\
	"992: .balign 4\n"							\
	"993: .8byte 990b\n"							\
	".8byte _.stapsdt.base\n"						\
	".8byte 0\n"								\
	".asciz \"" provider "\"\n"						\
	".asciz \"" name "\"\n"							\
	".asciz \"" args "\"\n"							\
	"994: .balign 4\n"							\
	".popsection\n"							\
	".ifndef _.stapsdt.base\n"						\
	".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n"	\
	".weak _.stapsdt.base\n"						\
	".hidden _.stapsdt.base\n"						\
	"_.stapsdt.base: .space 1\n"						\
	".size _.stapsdt.base, 1\n"						\
	".popsection\n"							\
	".endif\n"

/* Globals the ripsym probe names: in the program's symbol table. */
int ksnoop_counter;
struct {
	int pad[10];
	int v;			/* offset 40 */
	int w;			/* offset 44 */
} ksnoop_stats;

__attribute__((noinline)) static void ripsym(int n)
{
	ksnoop_counter = 1000 + n;
	ksnoop_stats.v = 2000 + n;
	ksnoop_stats.w = 3000 + n;
	__asm__ __volatile__(HAND_PROBE("ksnoop_forms", "ripsym",
					"-4@ksnoop_counter(%%rip) -4@40+ksnoop_stats(%%rip) "
					"-4@ksnoop_stats+44(%%rip) 8@%0 -4@$-7")
			     : : "r"((long)n) : "memory");
}

__attribute__((noinline)) static void indexed(int n)
{
	int ints[8] = { 100, 101, 102, 103, 104, 105, 106, 107 };
	long longs[8] = { 0, -1, -2, -3, -4, -5, -6, -7 };
	long k = n % 4;

	__asm__ __volatile__(HAND_PROBE("ksnoop_forms", "indexed",
					"-4@(%0,%1,4) -4@-8(%0,%1,4) 8@%1 -8@8(%2,%1,8)")
			     : : "r"(&ints[2]), "r"(k), "r"(longs) : "memory");
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
		ripsym(i);
		indexed(i);
	}
	return 0;
}
