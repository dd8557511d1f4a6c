// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: one SDT note argument ("-4@%edi", "8@-16(%rbp)"), as
 * usdt__parse_arg() reads it from a note's argument string.  On success
 * the size is one ksnoop can capture and the location is a non-empty,
 * NUL-terminated copy of what followed the '@'.  The location is then
 * decoded (usdt_arch__parse_loc()) and made a BPF spec
 * (usdt_own__arg_spec()): registers inside struct pt_regs, a scale of 1,
 * 2, 4 or 8, a symbol only from the instruction pointer, and a spec
 * exactly when ksnoop calls the argument readable.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <asm/ptrace.h>
#include "ksnoop_usdt.h"
#include "usdt_note.h"
#include "usdt_specs.h"

#define check(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static bool reg_ok(int off)
{
	return off >= 0 && off + 8 <= (int)sizeof(struct pt_regs) && off % 8 == 0;
}

static void check_loc(const struct usdt_arg *arg)
{
	char why[USDT_WHY_MAX];
	const char *reason, *spec_why;
	struct usdt_bpf_arg spec;
	struct usdt_loc l;
	bool readable;
	int ret;

	memset(&l, 0xa5, sizeof(l));
	reason = usdt_arch__parse_loc(arg->loc, &l);
	if (!reason) {
		check(memchr(l.sym, 0, sizeof(l.sym)));
		switch (l.kind) {
		case USDT_LOC_CONST:
			check(l.base == -1 && l.index == -1 && !l.sym[0]);
			break;
		case USDT_LOC_REG:
			check(reg_ok(l.base) && l.index == -1 && !l.sym[0]);
			break;
		case USDT_LOC_MEM:
			check(l.base == -1 || reg_ok(l.base));
			check(l.index == -1 || reg_ok(l.index));
			check(l.base != -1 || l.index != -1);
			check(l.scale == 1 || l.scale == 2 || l.scale == 4 || l.scale == 8);
			check(!l.sym[0] || (l.ip_rel && l.index == -1));
			break;
		default:
			check(0);
		}
	} else {
		check(reason[0]);
	}
	readable = !usdt__arg_unreadable(arg, why);
	ret = usdt_own__arg_spec(arg, 0x1000, 0x2000, &spec, &spec_why);
	/* A location only libbpf takes (a wrapped offset) is still libbpf's. */
	if (ret == 0)
		check(readable && spec.arg_bitshift == 64 - 8 * arg->size);
	else
		check(ret == -EINVAL && spec_why && spec_why[0] &&
		      (!readable || usdt__arg_libbpf(arg) || l.kind == USDT_LOC_MEM));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usdt_arg arg;
	char *s = malloc(size + 1);
	const char *at;
	int ret;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;	/* the note's strings end at the first NUL */
	memset(&arg, 0xa5, sizeof(arg));
	ret = usdt__parse_arg(s, &arg);
	if (ret == 0) {
		at = strchr(s, '@');
		check(at);
		check(arg.size >= 1 && arg.size <= USDT_MAX_ARG_SIZE);
		check(arg.is_signed == (s[0] == '-'));
		check(memchr(arg.loc, 0, sizeof(arg.loc)));
		check(arg.loc[0] && strcmp(arg.loc, at + 1) == 0);
		check_loc(&arg);
	} else {
		check(ret == -EINVAL);
	}
	free(s);
	return 0;
}
