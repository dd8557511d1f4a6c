// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * C++ user functions traced by their demangled names (live/46-ufunc.sh):
 * a method of a class in a namespace, an overloaded function, a template
 * instance.  `appcc N` calls each N times.  The values come from volatile
 * reads, so that -O2 neither folds a call away nor specialises a
 * function for its one caller's constants (gcc: noipa; clang has no
 * such clones of a function whose address is taken nowhere, noinline
 * is enough).
 */
#include <cstdio>
#include <cstdlib>

#ifdef __clang__
#define TRACED __attribute__((noinline, used))
#else
#define TRACED __attribute__((noipa, used))
#endif

namespace ns {

class Conn {
public:
	int fd;
	TRACED long read(char *buf, unsigned long len);
};

long Conn::read(char *buf, unsigned long len)
{
	return buf ? (long)len + fd : -1;
}

TRACED long f(int x)
{
	return x * 2L;
}

TRACED long f(double x)
{
	return (long)(x * 3);
}

template <typename T> TRACED T add(T a, T b)
{
	return a + b;
}

template long add<long>(long, long);

} // namespace ns

static volatile int four = 4, five = 5, forty = 40, two = 2;
static volatile double two_and_a_half = 2.5;

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1, sum = 0;
	ns::Conn c{3};
	char buf[8] = "";

	for (long i = 0; i < n; i++) {
		sum += c.read(buf, five);
		sum += ns::f(four);
		sum += ns::f(two_and_a_half);
		sum += ns::add<long>(forty, two);
	}
	printf("%ld\n", sum);
	return 0;
}
