// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A hostile traced process, for ksnoop -s (tests/live/65-hostile-usym.sh):
 * it writes an ELF file crafted against the user stack symbolizer, maps it
 * executable, and fires its USDT probe `ksnoop_hostile:hit` with a faked
 * frame-pointer chain whose return addresses lie in that mapping, so that
 * ksnoop, as root, reads the file to name them.
 *
 *   usdt_hostile nonul DIR N      one symbol table of 20,000 functions whose
 *                                 20 MB string table has no NUL
 *   usdt_hostile overlap DIR N    100 symbol table headers over one table
 *   usdt_hostile sparse DIR N     1,000 headers over a 48 MB table of a
 *                                 sparse file (a few KB on disk)
 *   usdt_hostile truncate DIR S   the nonul file, fired at once, then cut to
 *                                 4 KB 0.3 s later; exits S s after that
 *   usdt_hostile deleted DIR FIFO the file deleted and a symlink
 *                                 "DIR/deleted.so (deleted)" -> FIFO made;
 *                                 fires once (maps read), waits for DIR/go,
 *                                 unmaps the file and fires into where it was
 *   usdt_hostile file PATH N      maps PATH (any file), fires N times, and
 *                                 lives 2 s more
 *
 * Each probe fired prints nothing; the program says "fired N" at the end.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/sdt.h>
#include <sys/stat.h>
#include "hostile_elf.h"

struct frame {
	struct frame *next;
	uintptr_t ret;
};

static struct frame frames[4];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/*
 * Fire with rbp pointing at FRAMES: the kernel's user stack walk follows
 * them.  No frame pointer of its own, nothing on the stack between the
 * push and the pop (the probe is a nop).
 */
static __attribute__((noinline, optimize("omit-frame-pointer"))) void fire_with(struct frame *bp)
{
	__asm__ volatile("push %%rbp\n\tmov %0, %%rbp" : : "r"(bp) : "memory");
	DTRACE_PROBE(ksnoop_hostile, hit);
	__asm__ volatile("pop %%rbp" : : : "memory");
}

/* A chain of three frames returning into BASE + 0x1100, 0x1200, 0x1300 (0: none). */
static void fire_into(uintptr_t base)
{
	for (int i = 0; i < 3; i++)
		frames[i] = (struct frame){ i < 2 ? &frames[i + 1] : NULL, base + 0x1000 + 0x100 * (i + 1) };
	fire_with(base ? frames : NULL);
}

/* The file of KIND in DIR, written; its fd. */
static int craft(const char *dir, const char *kind, char *path, size_t sz)
{
	int fd;

	snprintf(path, sz, "%s/%s.so", dir, kind);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0755);
	if (fd < 0)
		die(path);
	craft_elf(fd, kind);
	return fd;
}

static uintptr_t map_exec(int fd)
{
	void *p = mmap(NULL, 0x10000, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);

	if (p == MAP_FAILED)
		die("mmap");
	return (uintptr_t)p;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

static void fire_n(uintptr_t base, int n)
{
	for (int i = 0; i < n; i++) {
		fire_into(base);
		sleep_ms(10);
	}
	printf("fired %d\n", n);
	fflush(stdout);
}

/*
 * Cut the file to 4 KB once ksnoop has begun to read it, for S seconds:
 * whoever reads it through a mapping then faults (SIGBUS).
 */
static void truncate_later(int fd, int s)
{
	sleep_ms(300);
	if (ftruncate(fd, 4096))
		die("ftruncate");
	sleep(s);
}

/*
 * Fire once with nothing in the file's mapping (ksnoop reads the maps,
 * which show "PATH (deleted)"), wait for DIR/go, unmap it and fire into
 * where it was: map_files has no entry for it now.
 */
static void deleted(const char *dir, const char *fifo)
{
	char path[4096], link[4200], go[4200];
	int fd = craft(dir, "deleted", path, sizeof(path)), i;
	uintptr_t base = map_exec(fd);

	close(fd);
	unlink(path);
	snprintf(link, sizeof(link), "%s (deleted)", path);
	if (symlink(fifo, link))
		die("symlink");
	fire_into(0);
	snprintf(go, sizeof(go), "%s/go", dir);
	for (i = 0; i < 1000 && access(go, F_OK); i++)
		sleep_ms(10);
	munmap((void *)base, 0x10000);
	fire_n(base, 1);
}

int main(int argc, char **argv)
{
	char path[4096];
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: %s nonul|overlap|sparse|truncate|deleted|file ...\n", argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "deleted")) {
		deleted(argv[2], argv[3]);
		return 0;
	}
	if (!strcmp(argv[1], "file")) {
		fd = open(argv[2], O_RDONLY);
		if (fd < 0)
			die(argv[2]);
		fire_n(map_exec(fd), atoi(argv[3]));
		sleep(2);	/* its maps stay readable meanwhile */
		return 0;
	}
	fd = craft(argv[2], argv[1], path, sizeof(path));
	if (!strcmp(argv[1], "truncate")) {
		fire_n(map_exec(fd), 3);
		truncate_later(fd, atoi(argv[3]));
		return 0;
	}
	fire_n(map_exec(fd), atoi(argv[3]));
	return 0;
}
