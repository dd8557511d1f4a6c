// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: one SDT note argument ("-4@%edi", "8@-16(%rbp)"), as
 * usdt__parse_arg() reads it from a note's argument string.  On success
 * the size is one ksnoop can capture and the location is a non-empty,
 * NUL-terminated copy of what followed the '@'.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "usdt.h"

#define check(cond) do { if (!(cond)) __builtin_trap(); } while (0)

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
	} else {
		check(ret == -EINVAL);
	}
	free(s);
	return 0;
}
