// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What is x86-64 about USDT arguments, all in this file (usdt_arm64.c is
 * aarch64's): the locations as GCC and Clang write them in
 * AT&T syntax, the registers and where each is in struct pt_regs, and
 * which locations libbpf (1.5) parses itself.
 *
 *   %edi  %r14d             a register
 *   $5  $-1                 a constant
 *   -16(%rbp)  (%rsp)       a register plus an offset
 *   NBuffers(%rip)          a symbol, addressed from the instruction pointer,
 *   40+CheckpointStats(%rip)  with an offset (PostgreSQL 15, gcc 12)
 *   -1204(%rbp,%rax,4)      base + index * scale + offset (scaled index)
 *
 * The note's text comes from the file: anything else is refused with a
 * reason, never read past its end.
 */
#include <asm/ptrace.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "usdt_note.h"

#if !defined(__x86_64__)
#error "usdt_x86.c reads x86-64 USDT argument locations: build usdt_<arch>.c instead"
#endif

struct reg {
	const char *names[4];	/* 64-, 32-, 16- and 8-bit names */
	int off;		/* offsetof(struct pt_regs, ...) */
};

/* The general registers libbpf reads (not %ah..%dh: they are bits 8-15). */
static const struct reg regs[] = {
	{ { "rip", "eip", "", "" }, offsetof(struct pt_regs, rip) },
	{ { "rax", "eax", "ax", "al" }, offsetof(struct pt_regs, rax) },
	{ { "rbx", "ebx", "bx", "bl" }, offsetof(struct pt_regs, rbx) },
	{ { "rcx", "ecx", "cx", "cl" }, offsetof(struct pt_regs, rcx) },
	{ { "rdx", "edx", "dx", "dl" }, offsetof(struct pt_regs, rdx) },
	{ { "rsi", "esi", "si", "sil" }, offsetof(struct pt_regs, rsi) },
	{ { "rdi", "edi", "di", "dil" }, offsetof(struct pt_regs, rdi) },
	{ { "rbp", "ebp", "bp", "bpl" }, offsetof(struct pt_regs, rbp) },
	{ { "rsp", "esp", "sp", "spl" }, offsetof(struct pt_regs, rsp) },
	{ { "r8", "r8d", "r8w", "r8b" }, offsetof(struct pt_regs, r8) },
	{ { "r9", "r9d", "r9w", "r9b" }, offsetof(struct pt_regs, r9) },
	{ { "r10", "r10d", "r10w", "r10b" }, offsetof(struct pt_regs, r10) },
	{ { "r11", "r11d", "r11w", "r11b" }, offsetof(struct pt_regs, r11) },
	{ { "r12", "r12d", "r12w", "r12b" }, offsetof(struct pt_regs, r12) },
	{ { "r13", "r13d", "r13w", "r13b" }, offsetof(struct pt_regs, r13) },
	{ { "r14", "r14d", "r14w", "r14b" }, offsetof(struct pt_regs, r14) },
	{ { "r15", "r15d", "r15w", "r15b" }, offsetof(struct pt_regs, r15) },
};

#define NREGS	(sizeof(regs) / sizeof(regs[0]))

/* The register named by R's N bytes (no '%'), or NULL; *WIDTH: 0 for 64 bits. */
static const struct reg *find_reg(const char *r, size_t n, int *width)
{
	size_t i, k;

	for (i = 0; i < NREGS; i++)
		for (k = 0; k < 4; k++)
			if (regs[i].names[k][0] && strlen(regs[i].names[k]) == n &&
			    !strncmp(regs[i].names[k], r, n)) {
				*width = (int)k;
				return &regs[i];
			}
	return NULL;
}

static bool is_ip(const struct reg *r)
{
	return r == &regs[0];
}

/* A decimal or 0x number at *P, at most 2^63; advances *P.  false: none. */
static bool take_unsigned(const char **p, __u64 *v)
{
	const char *s = *p;
	__u64 u = 0;
	int base = 10, d;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2])) {
		base = 16;
		s += 2;
	}
	if (!isdigit((unsigned char)*s) && !(base == 16 && isxdigit((unsigned char)*s)))
		return false;
	for (;; s++) {
		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (base == 16 && isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			break;
		if (u > ((__u64)1 << 63) / base)
			return false;
		u = u * base + d;
		if (u > ((__u64)1 << 63))
			return false;
	}
	*v = u;
	*p = s;
	return true;
}

/* A signed 64-bit number: an optional sign, then take_unsigned(). */
static bool take_number(const char **p, __s64 *v)
{
	const char *s = *p;
	bool neg = false;
	__u64 u;

	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (!take_unsigned(&s, &u) || (!neg && u == ((__u64)1 << 63)))
		return false;
	*v = neg ? (__s64)(0 - u) : (__s64)u;
	*p = s;
	return true;
}

static bool sym_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || c == '.' ||
	       (!first && (isdigit((unsigned char)c) || c == '$' || c == '@'));
}

/*
 * Terms of a displacement: compilers write one or two ("-8",
 * "40+CheckpointStats"); a few more are taken, no expression is computed.
 */
#define LOC_MAX_TERMS	5

/*
 * The displacement before '(': numbers and at most one symbol joined by
 * '+' or '-' ("40+CheckpointStats", "CheckpointStats+40", "-8").
 */
static const char *take_disp(const char **pp, struct usdt_loc *l)
{
	const char *p = *pp;
	int terms = 0;

	while (*p && *p != '(') {
		bool neg = false;
		__u64 u;
		__s64 v;

		if (*p == '+' || *p == '-')
			neg = *p++ == '-';
		else if (terms)
			return "a location ksnoop does not parse";
		if (++terms > LOC_MAX_TERMS)
			return "a location ksnoop does not parse";
		if (sym_char(*p, true)) {
			size_t n = 0;

			if (l->sym[0] || neg)
				return "an expression of symbols ksnoop does not compute";
			while (sym_char(p[n], n == 0))
				n++;
			if (n >= sizeof(l->sym))
				return "a symbol name too long";
			memcpy(l->sym, p, n);
			l->sym[n] = 0;
			p += n;
			continue;
		}
		if (!take_unsigned(&p, &u) || u > INT64_MAX)
			return "a location ksnoop does not parse";
		v = neg ? -(__s64)u : (__s64)u;
		if (__builtin_add_overflow(l->off, v, &l->off))
			return "an offset too large";
	}
	*pp = p;
	return NULL;
}

/* "%reg" up to one of END's characters (or the string's end). */
static const char *take_reg(const char **pp, const char *end, const struct reg **r, int *width)
{
	const char *p = *pp;
	size_t n;

	if (*p != '%')
		return "a location ksnoop does not parse";
	n = strcspn(p + 1, end);
	*r = find_reg(p + 1, n, width);
	if (!*r)
		return "not a general register";
	*pp = p + 1 + n;
	return NULL;
}

const char *usdt_arch__parse_loc(const char *loc, struct usdt_loc *l)
{
	const struct reg *base = NULL, *index = NULL;
	const char *p = loc, *why;
	__s64 scale = 1;
	int width;

	memset(l, 0, sizeof(*l));
	l->base = l->index = -1;
	l->scale = 1;
	if (*p == '$') {
		p++;
		if (!take_number(&p, &l->off) || *p)
			return sym_char(loc[1], true) ? "a symbol's address as a constant" :
							 "a constant ksnoop does not parse";
		l->kind = USDT_LOC_CONST;
		return NULL;
	}
	if (*p == '%') {
		why = take_reg(&p, "", &base, &width);
		if (why)
			return why;
		l->kind = USDT_LOC_REG;
		l->base = base->off;
		return NULL;
	}
	why = take_disp(&p, l);
	if (why)
		return why;
	if (*p != '(')
		return l->sym[0] ? "a symbol's absolute address" : "a location ksnoop does not parse";
	p++;
	if (*p == '%') {
		why = take_reg(&p, ",)", &base, &width);
		if (why)
			return why;
	}
	if (*p == ',') {
		p++;
		why = take_reg(&p, ",)", &index, &width);
		if (why)
			return why;
		if (is_ip(index) || width)
			return "an index that is not a 64-bit register";
		if (*p == ',') {
			p++;
			if (!take_number(&p, &scale) ||
			    (scale != 1 && scale != 2 && scale != 4 && scale != 8))
				return "a scale other than 1, 2, 4 or 8";
		}
	}
	if (*p != ')' || p[1])
		return "a location ksnoop does not parse";
	if (!base && !index)
		return "a location ksnoop does not parse";
	if (l->sym[0] && (!base || !is_ip(base) || index))
		return "a symbol's absolute address";
	l->kind = USDT_LOC_MEM;
	l->base = base ? base->off : -1;
	l->ip_rel = base && is_ip(base);
	l->index = index ? index->off : -1;
	l->scale = (int)scale;
	return NULL;
}

/*
 * libbpf 1.5's x86-64 note parser (usdt.c, parse_usdt_arg()): "$NUM",
 * "%REG", "NUM(%REG)" and "(%REG)", REG a general register or %rip.
 */
bool usdt_arch__libbpf_parses(const char *loc)
{
	const char *p = loc, *q;
	int width;

	if (*p == '$')
		return (q = usdt__skip_number(p + 1)) && !*q;
	if (*p == '%')
		return find_reg(p + 1, strlen(p + 1), &width) != NULL;
	if (*p != '(') {
		q = usdt__skip_number(p);
		if (!q || *q != '(')
			return false;
		p = q;
	}
	q = strchr(p, ')');
	if (p[1] != '%' || !q || q[1] || memchr(p, ',', q - p))
		return false;
	return find_reg(p + 2, q - p - 2, &width) != NULL;
}
