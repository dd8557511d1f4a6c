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
 *   scaled2  "-2@(%r10,%r11,2) 8@%r11 -2@2(%r10,%r11,2)"
 *            (registers the compiler is made to use: r10 = shorts, r11 = K)
 *            shorts[K], K, shorts[K + 1]; shorts[J] = J * 101 + 300, negated when J is even
 *   cold     "-8@ksnoop_cold(%rip)"      55, on a page the program never touched
 *   unmapped "-8@ksnoop_unmapped(%rip)"  a symbol 256 MiB past ksnoop_cold: nothing there
 *   dupsym   "-4@ksnoop_dup(%rip)"       ksnoop_dup is a static here and in
 *            usdt_forms_dup.c, at two addresses: refused (fired with cold)
 *
 *   usdt_forms fire N    call every probe but cold, unmapped and dupsym N
 *                        times (mixed: each of its three sites once per round,
 *                        in that order), then exit
 *   prelinked "8@%REG -4@$-9", prelinked_rip "-4@ksnoop_counter(%rip) 8@%REG"
 *            notes as prelink leaves them (base and site 0x1000 below the
 *            file's), one site each: I, -9 and 5000 + I, I
 *
 *   usdt_forms prelinked N   call prelinked N times, then exit
 *   usdt_forms cold      fire cold, unmapped and dupsym once; print "cold page present
 *                        before B after A" (/proc/self/pagemap: 1 mapped in)
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
#define HAND_PROBE(provider, name, args) HAND_PROBE_MOVED(provider, name, args, "0")

/*
 * The same, its note as prelink leaves one: the site and .stapsdt.base
 * written SHIFT bytes below where the file has them (prelink moves the
 * sections, never the notes); a reader adds .stapsdt.base's address less
 * the note's base to the site.
 */
#define HAND_PROBE_MOVED(provider, name, args, shift)				\
	"990: nop\n"								\
	".pushsection .note.stapsdt,\"?\",\"note\"\n"			\
	".balign 4\n"								\
	".4byte 992f-991f, 994f-993f, 3\n"					\
	"991: .asciz \"stapsdt\"\n"						\
	"992: .balign 4\n"							\
	"993: .8byte 990b - " shift "\n"					\
	".8byte _.stapsdt.base - " shift "\n"					\
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

__attribute__((noinline)) static void scaled2(int n)
{
	short shorts[8] = { -300, 401, -502, 603, -704, 805, -906, 1007 };
	register long base __asm__("r10") = (long)shorts;
	register long index __asm__("r11") = n % 4;

	__asm__ __volatile__(HAND_PROBE("ksnoop_forms", "scaled2",
					"-2@(%0,%1,2) 8@%1 -2@2(%0,%1,2)")
			     : : "r"(base), "r"(index) : "memory");
}

/*
 * Notes whose base differs from .stapsdt.base's address (PRELINK_SHIFT
 * below it): one in a form libbpf attaches, one ksnoop attaches itself.
 * At the notes' own addresses, 4 KiB before the sites, an unadjusted
 * reader would attach to code that never runs this probe.
 */
#define PRELINK_SHIFT "0x1000"

__attribute__((noinline)) static void prelinked(int n)
{
	ksnoop_counter = 5000 + n;
	__asm__ __volatile__(HAND_PROBE_MOVED("ksnoop_forms", "prelinked", "8@%0 -4@$-9",
					      PRELINK_SHIFT)
			     HAND_PROBE_MOVED("ksnoop_forms", "prelinked_rip",
					      "-4@ksnoop_counter(%%rip) 8@%0", PRELINK_SHIFT)
			     : : "r"((long)n) : "memory");
}

/*
 * 55 at the start of 64 KiB of its own, which nothing here reads or
 * writes: the kernel maps a file's pages in around a fault, 64 KiB at
 * most, so a fault elsewhere leaves this page out as well.
 */
__attribute__((aligned(65536))) long ksnoop_cold[65536 / sizeof(long)] = { 55 };

/* A static of this name is in usdt_forms_dup.c too. */
static int ksnoop_dup __attribute__((used)) = 1;

/* 1 if the page of P is mapped in, 0 if not, -1 if pagemap cannot say. */
static int page_present(const void *p)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t entry = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, &entry, sizeof(entry), (off_t)((uintptr_t)p / page * sizeof(entry)));
	close(fd);
	if (n != sizeof(entry))
		return -1;
	return (int)(entry >> 63);
}

__attribute__((noinline)) static int cold(void)
{
	int before = page_present(ksnoop_cold), after;

	__asm__ __volatile__(".set ksnoop_unmapped, ksnoop_cold + 0x10000000\n"
			     HAND_PROBE("ksnoop_forms", "cold", "-8@ksnoop_cold(%%rip)")
			     HAND_PROBE("ksnoop_forms", "unmapped", "-8@ksnoop_unmapped(%%rip)")
			     HAND_PROBE("ksnoop_forms", "dupsym", "-4@ksnoop_dup(%%rip)")
			     : : : "memory");
	after = page_present(ksnoop_cold);
	printf("cold page present before %d after %d\n", before, after);
	return before < 0 || after < 0;
}

__attribute__((noinline)) static void plain(int n)
{
	DTRACE_PROBE2(ksnoop_forms, plain, n, n * 2);
	DTRACE_PROBE(ksnoop_forms, none);
}

int main(int argc, char **argv)
{
	int i, n;

	if (argc == 2 && !strcmp(argv[1], "cold"))
		return cold();
	if (argc != 3 || sscanf(argv[2], "%d", &n) != 1) {
		fprintf(stderr, "usage: usdt_forms fire N | usdt_forms prelinked N | usdt_forms cold\n");
		return 2;
	}
	if (!strcmp(argv[1], "prelinked")) {
		for (i = 0; i < n; i++)
			prelinked(i);
		return 0;
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
		scaled2(i);
	}
	return 0;
}
