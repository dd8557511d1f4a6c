// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A shared library with a USDT probe, for ksnoop's live tests. */
#include <sys/sdt.h>

void usdt_lib_hit(int i)
{
	DTRACE_PROBE2(ksnoop_lib, hit, i, i * 10);
}
