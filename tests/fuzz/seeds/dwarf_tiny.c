// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * fuzz_dwarf's seed: a static program without libc, built -g by gcc and
 * clang (tests/fuzz/gen-corpus), whose DWARF has one of each kind the
 * converter handles: bitfields, a union, enums, typedefs, a pointer cycle,
 * arrays, a function pointer, a TLS variable, an inlined function.
 */
typedef unsigned int u32;
enum mode { M_OFF = -1, M_ON = 1 };
struct item;
typedef int (*cb_t)(struct item *, long);
struct item {
	struct item *next;
	unsigned flags : 3, kind : 5;
	union { long l; char c[8]; } u;
	enum mode mode;
	u32 grid[2][2];
	cb_t cb;
	const volatile double w;
};
struct item g_item;
__thread int t_count;

static inline __attribute__((always_inline)) int inl(int x)
{
	return x + 1;
}

__attribute__((noinline)) int use(struct item *it, long n, const char *s)
{
	return it->cb ? it->cb(it, n) : inl((int)n) + s[0] + t_count;
}

void _start(void)
{
	use(&g_item, 1, "x");
	for (;;)
		;
}
