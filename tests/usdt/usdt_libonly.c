// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program with no USDT probes of its own whose library has one, for
 * `ksnoop -p PID info usdt ./usdt_libonly` (42-usdt-forms).
 *
 *   usdt_libonly S    call libksnoop_usdt.so's probe once, then sleep S seconds
 */
#include <stdlib.h>
#include <unistd.h>

void usdt_lib_hit(int i);

int main(int argc, char **argv)
{
	usdt_lib_hit(1);
	sleep(argc > 1 ? atoi(argv[1]) : 1);
	return 0;
}
