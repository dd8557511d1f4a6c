// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The C++ counterpart of types.c for the DWARF -> BTF converter's tests: a
 * class with a method (its `this` the first parameter), a namespace, a
 * reference parameter, an enum class.
 */
#include <cstdint>

namespace shop {

enum class state : int16_t { idle = -1, busy = 2 };

class Conn {
public:
	int fd;
	state st;
	uint64_t bytes : 48;
	uint64_t flags : 16;
	static int instances;

	__attribute__((noinline)) long read(char *buf, unsigned long len);
};

int Conn::instances;

long Conn::read(char *buf, unsigned long len)
{
	bytes += len;
	return buf ? (long)len + fd : -1;
}

__attribute__((noinline)) int touch(Conn &c, const Conn &&other)
{
	return c.fd + other.fd;
}

} // namespace shop

shop::Conn g_conn;

int main(int argc, char **argv)
{
	g_conn.fd = argc;
	return (int)g_conn.read(argv[0], 1) + shop::touch(g_conn, shop::Conn{});
}
