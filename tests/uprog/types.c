// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Types for the DWARF -> BTF converter's tests (tests/unit/test_dwarf.c):
 * built -g by gcc and clang at -O0 and -O2 (Makefile: build/uprog/), each
 * binary's DWARF converted by ksnoop/dwarf/ and compared with what
 * `pahole -J` makes of the same binary.  Every type is used by a global so
 * that both compilers keep it.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef unsigned int u32_t;
typedef u32_t id_t2;			/* a typedef of a typedef */

enum color { RED, GREEN = 5, BLUE = 1000 };
enum sign { NEG = -3, ZERO = 0, POS = 7 };
enum big { BIG_LOW = 1, BIG_HIGH = 0x100000000ULL };
enum __attribute__((packed)) small { S_A = 1, S_B = 200 };	/* one byte */

struct bits {
	unsigned int a : 3;
	unsigned int b : 5;
	signed int c : 7;
	unsigned long long wide : 40;
	unsigned char tail;
	bool flag : 1;
};

union word {
	uint64_t u;
	int32_t halves[2];
	unsigned char bytes[8];
};

struct node;
typedef int (*visit_fn)(struct node *n, void *ctx);

struct node {
	struct node *next;			/* a pointer cycle */
	const char *name;
	volatile int hits;
	visit_fn visit;
	int matrix[2][3];			/* two dimensions */
	union {					/* anonymous members */
		long l;
		struct {
			short lo, hi;
		};
	};
	enum color color;
	double weight;
	float ratio;
	id_t2 id;
};

struct packet {
	u32_t len;
	unsigned char data[];			/* flexible */
};

struct opaque;					/* declared only */
struct holder {
	struct opaque *hidden;
	struct bits bits;
	union word word;
	enum sign sign;
	enum big big;
	enum small small;
	char *const restrict_me;
};

/* 80 typedefs on top of each other: deeper than the converter follows. */
typedef int deep0_t;
typedef deep0_t deep1_t;
typedef deep1_t deep2_t;
typedef deep2_t deep3_t;
typedef deep3_t deep4_t;
typedef deep4_t deep5_t;
typedef deep5_t deep6_t;
typedef deep6_t deep7_t;
typedef deep7_t deep8_t;
typedef deep8_t deep9_t;
typedef deep9_t deep10_t;
typedef deep10_t deep11_t;
typedef deep11_t deep12_t;
typedef deep12_t deep13_t;
typedef deep13_t deep14_t;
typedef deep14_t deep15_t;
typedef deep15_t deep16_t;
typedef deep16_t deep17_t;
typedef deep17_t deep18_t;
typedef deep18_t deep19_t;
typedef deep19_t deep20_t;
typedef deep20_t deep21_t;
typedef deep21_t deep22_t;
typedef deep22_t deep23_t;
typedef deep23_t deep24_t;
typedef deep24_t deep25_t;
typedef deep25_t deep26_t;
typedef deep26_t deep27_t;
typedef deep27_t deep28_t;
typedef deep28_t deep29_t;
typedef deep29_t deep30_t;
typedef deep30_t deep31_t;
typedef deep31_t deep32_t;
typedef deep32_t deep33_t;
typedef deep33_t deep34_t;
typedef deep34_t deep35_t;
typedef deep35_t deep36_t;
typedef deep36_t deep37_t;
typedef deep37_t deep38_t;
typedef deep38_t deep39_t;
typedef deep39_t deep40_t;
typedef deep40_t deep41_t;
typedef deep41_t deep42_t;
typedef deep42_t deep43_t;
typedef deep43_t deep44_t;
typedef deep44_t deep45_t;
typedef deep45_t deep46_t;
typedef deep46_t deep47_t;
typedef deep47_t deep48_t;
typedef deep48_t deep49_t;
typedef deep49_t deep50_t;
typedef deep50_t deep51_t;
typedef deep51_t deep52_t;
typedef deep52_t deep53_t;
typedef deep53_t deep54_t;
typedef deep54_t deep55_t;
typedef deep55_t deep56_t;
typedef deep56_t deep57_t;
typedef deep57_t deep58_t;
typedef deep58_t deep59_t;
typedef deep59_t deep60_t;
typedef deep60_t deep61_t;
typedef deep61_t deep62_t;
typedef deep62_t deep63_t;
typedef deep63_t deep64_t;
typedef deep64_t deep65_t;
typedef deep65_t deep66_t;
typedef deep66_t deep67_t;
typedef deep67_t deep68_t;
typedef deep68_t deep69_t;
typedef deep69_t deep70_t;
typedef deep70_t deep71_t;
typedef deep71_t deep72_t;
typedef deep72_t deep73_t;
typedef deep73_t deep74_t;
typedef deep74_t deep75_t;
typedef deep75_t deep76_t;
typedef deep76_t deep77_t;
typedef deep77_t deep78_t;
typedef deep78_t deep79_t;
typedef deep79_t deep80_t;
deep80_t g_deep;

id_t2 g_id;
struct node g_node = { .name = "g" };
struct holder g_holder;
struct packet *g_packet;
union word g_word;
__thread long tls_counter = 3;
long long g_counter = 7;

/* Always inlined: DWARF has it, with no out-of-line copy. */
static inline __attribute__((always_inline)) int twice(int x)
{
	return 2 * x;
}

__attribute__((noinline)) int node_visit(struct node *n, void *ctx, long depth)
{
	return n && n->visit ? n->visit(n, ctx) + (int)depth : twice((int)depth);
}

__attribute__((noinline)) unsigned long bits_sum(const struct bits *b, enum color c,
					      unsigned char small)
{
	return b->a + b->b + b->c + b->wide + c + small;
}

__attribute__((noinline)) long by_value(struct bits b)
{
	return b.a;
}

__attribute__((noinline)) int log_fmt(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	return n;
}

int main(int argc, char **argv)
{
	g_holder.sign = argc > 5 ? NEG : POS;
	g_holder.big = BIG_HIGH;
	g_holder.small = S_B;
	tls_counter += argc;
	g_counter += node_visit(&g_node, argv, argc) + (long)bits_sum(&g_holder.bits, BLUE, 1);
	g_counter += by_value(g_holder.bits) + log_fmt("%d", argc);
	return (int)(g_counter & 1) + (g_packet ? g_packet->len : 0) + (int)g_word.u;
}
