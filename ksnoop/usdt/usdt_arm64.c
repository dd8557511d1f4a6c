// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What is aarch64 about USDT arguments, all in this file (usdt_x86.c is
 * x86-64's): the locations as GCC writes them, the registers and where
 * each is in struct pt_regs, and which locations libbpf (1.5) parses.
 *
 *   x1  sp  w3              a register (w3: x3's low half)
 *   5  -1                   a constant
 *   [sp, 12]  [x0]  [x29, -4]   a register plus an offset
 *   [x1, x2]  [x1, x2, lsl 3]   base + index << shift (a scaled index)
 *
 * The register offsets are those of the kernel's struct user_pt_regs on
 * arm64, a fixed ABI (x0-x30, then sp, pc): written here as numbers, so
 * that the parser builds and is unit-tested on any host.  The functions
 * are usdt_arm64__*; on aarch64 they are also the usdt_arch__* ones.
 *
 * The note's text comes from the file: anything else is refused with a
 * reason, never read past its end.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "usdt_note.h"

/* offsetof(struct user_pt_regs, regs[N]), sp and pc. */
#define ARM64_REG_OFF(n)	((n) * 8)
#define ARM64_SP_OFF		(31 * 8)

/* Register NAME of N bytes ("x0".."x30", "w0".."w30", "sp"): its offset, or -1; *W32: a w name. */
static int reg_off(const char *name, size_t n, bool *w32)
{
	int num = 0;
	size_t i;

	*w32 = false;
	if (n == 2 && !strncmp(name, "sp", 2))
		return ARM64_SP_OFF;
	if (n < 2 || n > 3 || (name[0] != 'x' && name[0] != 'w'))
		return -1;
	for (i = 1; i < n; i++) {
		if (!isdigit((unsigned char)name[i]) || (i == 1 && name[i] == '0' && n == 3))
			return -1;
		num = num * 10 + (name[i] - '0');
	}
	if (num > 30)
		return -1;
	*w32 = name[0] == 'w';
	return ARM64_REG_OFF(num);
}

/* A decimal number at *P with an optional sign (and '#', GCC's immediate); advances *P. */
static bool take_number(const char **p, __s64 *v)
{
	const char *s = *p;
	bool neg = false;
	__u64 u = 0;

	if (*s == '#')
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!isdigit((unsigned char)*s))
		return false;
	for (; isdigit((unsigned char)*s); s++) {
		if (u > ((__u64)1 << 63) / 10)
			return false;
		u = u * 10 + (*s - '0');
		if (u > ((__u64)1 << 63) || (!neg && u == ((__u64)1 << 63)))
			return false;
	}
	*v = neg ? (__s64)(0 - u) : (__s64)u;
	*p = s;
	return true;
}

static const char *skip_spaces(const char *p)
{
	while (*p == ' ')
		p++;
	return p;
}

/* A register name at *P up to a character not [a-z0-9]; advances *P. */
static const char *take_reg(const char **pp, int *off, bool *w32)
{
	const char *p = *pp;
	size_t n = 0;

	while (islower((unsigned char)p[n]) || isdigit((unsigned char)p[n]))
		n++;
	if (!n)
		return "a location ksnoop does not parse";
	*off = reg_off(p, n, w32);
	if (*off < 0)
		return "not a general register";
	*pp = p + n;
	return NULL;
}

const char *usdt_arm64__parse_loc(const char *loc, struct usdt_loc *l)
{
	const char *p = loc, *why;
	int base, index;
	bool w32;
	__s64 shift;

	memset(l, 0, sizeof(*l));
	l->base = l->index = -1;
	l->scale = 1;
	if (*p == '#' || *p == '-' || *p == '+' || isdigit((unsigned char)*p)) {
		if (!take_number(&p, &l->off) || *p)
			return "a constant ksnoop does not parse";
		l->kind = USDT_LOC_CONST;
		return NULL;
	}
	if (*p != '[') {
		why = take_reg(&p, &base, &w32);
		if (why)
			return why;
		if (*p)
			return "a location ksnoop does not parse";
		l->kind = USDT_LOC_REG;
		l->base = base;
		return NULL;
	}
	p = skip_spaces(p + 1);
	why = take_reg(&p, &base, &w32);
	if (why)
		return why;
	if (w32)
		return "a base that is not a 64-bit register";
	p = skip_spaces(p);
	if (*p == ',') {
		p = skip_spaces(p + 1);
		if (*p == '#' && p[1] == ':')
			return "a symbol's address ksnoop does not compute";
		if (islower((unsigned char)*p)) {
			why = take_reg(&p, &index, &w32);
			if (why)
				return why;
			if (w32)
				return "an index that is not a 64-bit register";
			l->index = index;
			p = skip_spaces(p);
			if (*p == ',') {
				p = skip_spaces(p + 1);
				if (strncmp(p, "lsl", 3))
					return "an index extended in a way ksnoop does not parse";
				p = skip_spaces(p + 3);
				if (!take_number(&p, &shift) || shift < 0 || shift > 3)
					return "a scale other than 1, 2, 4 or 8";
				l->scale = 1 << shift;
			}
		} else if (!take_number(&p, &l->off)) {
			return "a location ksnoop does not parse";
		}
		p = skip_spaces(p);
	}
	if (*p != ']' || p[1])
		return "a location ksnoop does not parse";
	l->kind = USDT_LOC_MEM;
	l->base = base;
	return NULL;
}

/* A register as libbpf's calc_pt_regs_off() takes it: "x0".."x30" or "sp". */
static const char *skip_libbpf_reg(const char *p)
{
	bool w32;
	size_t n = 0;

	while (islower((unsigned char)p[n]) || isdigit((unsigned char)p[n]))
		n++;
	if (!n || n > 15 || reg_off(p, n, &w32) < 0 || w32)
		return NULL;
	return p + n;
}

/*
 * libbpf 1.5's aarch64 note parser (usdt.c, parse_usdt_arg()): "[REG, NUM]",
 * "[REG]", "NUM" and "REG", REG x0-x30 or sp, spaces around each token.
 */
bool usdt_arm64__libbpf_parses(const char *loc)
{
	const char *p = skip_spaces(loc), *q;

	if ((q = usdt__skip_number(p)))
		return !*skip_spaces(q);
	if (*p != '[')
		return (q = skip_libbpf_reg(p)) && !*skip_spaces(q);
	p = skip_spaces(p + 1);
	if (!(p = skip_libbpf_reg(p)))
		return false;
	p = skip_spaces(p);
	if (*p == ',') {
		p = usdt__skip_number(skip_spaces(p + 1));
		if (!p)
			return false;
		p = skip_spaces(p);
	}
	return *p == ']' && !*skip_spaces(p + 1);
}

#if defined(__aarch64__)
const char *usdt_arch__parse_loc(const char *loc, struct usdt_loc *l)
{
	return usdt_arm64__parse_loc(loc, l);
}

bool usdt_arch__libbpf_parses(const char *loc)
{
	return usdt_arm64__libbpf_parses(loc);
}
#endif
