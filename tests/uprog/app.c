// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A program of our own whose functions tests/live/46-ufunc.sh traces as
 * user functions (u:BINARY:FUNC): 0 to 8 integer and pointer arguments (the
 * last two on the stack), a struct by pointer, a recursive function,
 * threads, negative errors, a string on a page not touched before the
 * call.  Built by gcc and clang at -O0 and -O2, with -g: typed from DWARF.
 *
 *   app [ROUNDS]    each round calls every function once
 *   app spin N      a round every 20 ms for N seconds (a process for -p)
 *   app peek ADDR   uf_peek(ADDR): a pointer of the caller's choice (a
 *                   kernel address: a tracer must not read it)
 *   app libc SIZE PATH   malloc(SIZE) and fopen(PATH, "r"): glibc's own
 *                   functions, typed from libc6-dbg
 *   app tree        after a line on stdin (a tracer attaches with -p
 *                   first), tree_request(1), which succeeds, then
 *                   tree_request(2), which fails; then "done" on stdout:
 *                   user functions and a tracepoint (task_rename) inside
 *                   each, for --tree with a user function as ROOT, and
 *                   a user function's stacks (-s)
 *   app inflight    inflight_work(2, 1), held inside on a line of stdin
 *                   (a tracer attaches with -p meanwhile: a call in
 *                   flight when tracing starts), then a round; then
 *                   "done 35" on stdout
 *   app asleep      two threads on one CPU: uf_name(1, P), where P is
 *                   a page userfaultfd holds back, so that a sleepable
 *                   entry program paging it in sleeps there, mid-record;
 *                   meanwhile uf_name(2, "bee") runs whole; then P is
 *                   given ("asleep-page").  Prints "asleep 11 3" (the
 *                   returns); exits 3 where userfaultfd is refused
 *
 * The functions are noinline and used, so every build has an out-of-line
 * copy; the values they get are fixed, so the test knows them.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, used))

/* Side effects the optimiser must keep, so calls are not folded away. */
volatile long uf_sink;

NOINLINE long uf_zero(void)
{
	return uf_sink + 7;
}

NOINLINE long uf_add(long a, long b)
{
	uf_sink += a;
	return a + b;
}

NOINLINE long uf_six(long a, long b, long c, long d, long e, long f)
{
	uf_sink += f;
	return a + b + c + d + e + f;
}

/* A negative errno for odd inputs. */
NOINLINE int uf_fail(int x)
{
	uf_sink += x;
	return x & 1 ? -22 : x;
}

/* Called through a pointer the optimiser cannot see through: real recursion at -O2 too. */
/* A negative errno as a long, the whole register: -ENOENT for large keys. */
NOINLINE long uf_lookup(long key)
{
	uf_sink += key;
	return key > 100 ? -2 : key;
}

NOINLINE long uf_depth(int n);
static long (*volatile depth_fn)(int) = uf_depth;

NOINLINE long uf_depth(int n)
{
	if (n <= 0)
		return 0;
	uf_sink += n;
	return 1 + depth_fn(n - 1);
}

/*
 * --tree's ROOT: user functions (uf_depth recursing) and a tracepoint of
 * the kernel (task:task_rename, from prctl) inside; -ENOENT where X > 1,
 * as uf_lookup's -ENOENT (its first failing call) says.
 */
NOINLINE int tree_request(int x)
{
	uf_add(x, 1);
	uf_depth(2);
	prctl(PR_SET_NAME, x > 1 ? "kstree-fail" : "kstree-ok");
	return uf_lookup(x > 1 ? 200 : 5) < 0 ? -2 : 0;
}

/*
 * A call in flight when tracing starts: inflight_work(2, 1) waits inside
 * for a line on stdin (a tracer attaches meanwhile), then calls
 * inflight_work(1, 0), which calls inflight_work(0, 0): their entries run
 * traced, the outer call's did not.  Returns 35, 15 and 5.
 */
NOINLINE long inflight_work(long n, int wait);
static long (*volatile inflight_fn)(long, int) = inflight_work;

NOINLINE long inflight_work(long n, int wait)
{
	char line[16];

	if (wait && !fgets(line, sizeof(line), stdin))
		return -1;
	uf_sink += n;
	return n <= 0 ? 5 : 10 * n + inflight_fn(n - 1, 0);
}

NOINLINE size_t uf_name(int id, const char *name)
{
	uf_sink += id;
	return strlen(name);
}

/* Eight arguments: x86-64 passes the last two on the stack (arm64: x0-x7). */
NOINLINE long uf_eight(long a, long b, long c, long d, long e, long f, long g, long h)
{
	uf_sink += h;
	return a + b + c + d + e + f + g + h;
}

struct req {
	int id;
	unsigned short flags;
	const char *path;
	struct req *next;
};

/* A struct by pointer: its members read through it. */
NOINLINE int uf_req(const struct req *r)
{
	uf_sink += r->id;
	return r->path[0] == '/' ? r->id : -1;
}

/* A struct by value: where the ABI puts it a uprobe does not read (refused). */
struct pair {
	long x, y;
};

NOINLINE long uf_byval(struct pair p)
{
	uf_sink += p.y;
	return p.x + p.y;
}

/* A pointer it never reads: what the tracer does with it is the tracer's. */
NOINLINE long uf_peek(const void *p)
{
	uf_sink += (long)p & 1;
	return 0;
}

static NOINLINE long uf_static(long v)
{
	uf_sink += v;
	return v * 2;
}

NOINLINE long uf_thread_work(long tag)
{
	uf_sink += tag;
	return tag * 10;
}

static void *thread_main(void *arg)
{
	uf_thread_work((long)arg);
	return NULL;
}

static const char fresh_text[] = "fresh-page-string";

/* A string in a fresh mapping: its page is not touched before the call. */
static const char *fresh_string(void)
{
	const char *text = fresh_text;
	char *p = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return text;
	/* Written through a file, so the page is not faulted in by us. */
	{
		FILE *f = tmpfile();

		if (!f)
			return text;
		fwrite(text, 1, sizeof(fresh_text), f);
		rewind(f);
		if (fread(p + 4096 * 8, 1, sizeof(fresh_text), f) != sizeof(fresh_text))
			p[4096 * 8] = 0;
		fclose(f);
	}
	return p + 4096 * 8;
}

static void round_once(int round)
{
	pthread_t t[3];
	const char *fresh;
	long i;

	uf_zero();
	uf_add(40 + round, 2);
	uf_six(1, 2, 3, 4, 5, 6);
	uf_fail(3);
	uf_fail(4);
	uf_lookup(5);
	uf_lookup(200);
	uf_depth(3);
	uf_name(7, "hello-ufunc");
	fresh = fresh_string();
	uf_name(8, fresh);
	if (fresh != fresh_text)
		munmap((char *)fresh - 4096 * 8, 1 << 16);
	uf_static(21);
	uf_eight(1, 2, 3, 4, 5, 6, 7, 8);
	{
		struct req inner = { .id = 5, .path = "inner" };
		struct req r = { .id = 17, .flags = 3, .path = "/srv/req-path", .next = &inner };

		uf_req(&r);
		uf_byval((struct pair){ 1, 2 });
	}
	for (i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)(i + 1));
	for (i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	uf_sink += getpid() & 1;
}

struct asleep_call {
	int id;
	const char *name;
	size_t ret;
};

static void *asleep_thread(void *arg)
{
	struct asleep_call *c = arg;

	c->ret = uf_name(c->id, c->name);
	return NULL;
}

/* A page that faults to userfaultfd UFFD until given (NULL: refused). */
static char *held_page(int *uffd, long page)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	char *p;

	*uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (*uffd < 0 || ioctl(*uffd, UFFDIO_API, &api))
		return NULL;
	p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	reg.range.start = (unsigned long)p;
	reg.range.len = page;
	return ioctl(*uffd, UFFDIO_REGISTER, &reg) ? NULL : p;
}

/*
 * app asleep: the first call waits inside for its page (in a tracer's
 * entry program, or in strlen() untraced) while the second, on the same
 * CPU, runs whole: a tracer that builds records in a per-CPU buffer gives
 * the first call the second's entry values.  The order is told by the
 * fault's message, not by time.
 */
static int run_asleep(void)
{
	long page = sysconf(_SC_PAGESIZE);
	struct asleep_call a = { .id = 1 }, b = { .id = 2, .name = "bee" };
	struct uffdio_copy copy = { .len = page };
	struct pollfd pfd = { .events = POLLIN };
	struct uffd_msg msg;
	pthread_attr_t attr;
	cpu_set_t all, one;
	pthread_t ta, tb;
	char *src;
	int cpu, seen;

	a.name = held_page(&pfd.fd, page);
	src = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!a.name || src == MAP_FAILED || sched_getaffinity(0, sizeof(all), &all)) {
		perror("app: userfaultfd");
		return 3;
	}
	strcpy(src, "asleep-page");
	for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &all); cpu++)
		;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	pthread_attr_init(&attr);
	if (pthread_attr_setaffinity_np(&attr, sizeof(one), &one) ||
	    pthread_create(&ta, &attr, asleep_thread, &a))
		return 1;
	seen = poll(&pfd, 1, 30000) == 1 && read(pfd.fd, &msg, sizeof(msg)) == sizeof(msg) &&
	       msg.event == UFFD_EVENT_PAGEFAULT;
	if (pthread_create(&tb, &attr, asleep_thread, &b))
		return 1;
	pthread_join(tb, NULL);
	copy.dst = (unsigned long)a.name;
	copy.src = (unsigned long)src;
	if (ioctl(pfd.fd, UFFDIO_COPY, &copy))
		perror("app: UFFDIO_COPY");
	pthread_join(ta, NULL);
	printf("asleep %zu %zu%s\n", a.ret, b.ret, seen ? "" : " (no fault seen)");
	fflush(stdout);
	return seen ? 0 : 1;
}

int main(int argc, char **argv)
{
	int rounds, i;

	if (argc > 2 && strcmp(argv[1], "peek") == 0)
		return (int)uf_peek((const void *)strtoull(argv[2], NULL, 0));
	if (argc > 3 && strcmp(argv[1], "libc") == 0) {
		void *p = malloc(strtoul(argv[2], NULL, 0));
		FILE *f = fopen(argv[3], "r");

		free(p);
		if (f)
			fclose(f);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "tree") == 0) {
		char line[16];
		int ok;

		if (!fgets(line, sizeof(line), stdin))
			return 1;
		ok = tree_request(1) == 0 && tree_request(2) == -2;
		printf("done\n");
		fflush(stdout);
		return ok ? 0 : 1;
	}
	if (argc > 1 && strcmp(argv[1], "inflight") == 0) {
		long outer = inflight_work(2, 1);

		round_once(0);
		printf("done %ld\n", outer);
		fflush(stdout);
		return outer == 35 ? 0 : 1;
	}
	if (argc > 1 && strcmp(argv[1], "asleep") == 0)
		return run_asleep();
	if (argc > 2 && strcmp(argv[1], "spin") == 0) {
		rounds = atoi(argv[2]) * 50;
		for (i = 0; i < rounds; i++) {
			round_once(0);
			usleep(20000);
		}
		return 0;
	}
	rounds = argc > 1 ? atoi(argv[1]) : 1;
	for (i = 0; i < rounds; i++)
		round_once(i);
	return 0;
}
