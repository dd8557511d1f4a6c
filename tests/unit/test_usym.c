// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the user stack symbolizer (ksnoop/usym/usym.c): addresses of
 * this test program itself, named through its own /proc/PID/maps and ELF
 * symbols; a /proc of our own making for processes that are gone, files
 * swapped under a path and mappings without a file; damaged ELF files.
 * And what a hostile traced process can do (issue 25): crafted ELF files,
 * a reused pid, huge maps, maps that block, paths that lead elsewhere.
 */
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "usym.h"
#include "usym_int.h"
#include "../usdt/hostile_elf.h"

/* A function of ours to find: out of line, longer than the offsets used. */
__attribute__((noinline)) int usym_target(int x)
{
	volatile int v = x;

	for (int i = 0; i < 8; i++)
		v = v * 3 + i;
	return v;
}

static char exe[PATH_MAX];

/* This program's executable mapping that holds ADDR, as its maps line. */
static void own_map_line(uintptr_t addr, char *line, size_t sz)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long long s, e;

	assert_non_null(f);
	while (fgets(line, sz, f))
		if (sscanf(line, "%llx-%llx", &s, &e) == 2 && addr >= s && addr < e) {
			fclose(f);
			return;
		}
	fclose(f);
	fail_msg("no mapping holds %#lx", (unsigned long)addr);
}

static void test_self(void **state)
{
	struct usym *u = usym__new(NULL);
	uintptr_t at = (uintptr_t)usym_target + 5;
	char buf[PATH_MAX + 128], want[PATH_MAX + 128];

	assert_non_null(u);
	assert_int_equal(usym__symbolize(u, getpid(), at, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "usym_target+0x5 (%s)", exe);
	assert_string_equal(buf, want);
	/* No mapping holds address 16: nothing known. */
	assert_int_equal(usym__symbolize(u, getpid(), 16, buf, sizeof(buf)), -ENOENT);
	usym__free(u);
}

static char dir[] = "/tmp/ksnoop-usym-XXXXXX";

static void write_maps(const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/4242", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/4242/maps", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void remove_maps(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/4242/maps", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/4242", dir);
	rmdir(path);
}

/* A process seen once stays named after it is gone. */
static void test_gone_process(void **state)
{
	uintptr_t at = (uintptr_t)usym_target + 3;
	char line[PATH_MAX + 256], buf[PATH_MAX + 128], want[PATH_MAX + 128];
	struct usym *u;

	own_map_line(at, line, sizeof(line));
	write_maps(line);
	u = usym__new(dir);
	assert_non_null(u);
	snprintf(want, sizeof(want), "usym_target+0x3 (%s)", exe);
	assert_int_equal(usym__symbolize(u, 4242, at, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	remove_maps();
	assert_int_equal(usym__symbolize(u, 4242, at, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	/* A process never seen, and gone: nothing known. */
	assert_int_equal(usym__symbolize(u, 4343, at, buf, sizeof(buf)), -ENOENT);
	usym__free(u);
}

/*
 * The file at the path is not the one mapped (another inode): no symbols
 * from it, the address and the offset instead.  A mapping without a file
 * is an address; [vdso] and the like an address in it.
 */
static void test_not_the_mapped_file(void **state)
{
	uintptr_t at = (uintptr_t)usym_target;
	unsigned long long s, e, off, ino;
	char line[PATH_MAX + 256], maps[3 * PATH_MAX], buf[PATH_MAX + 128], want[PATH_MAX + 128];
	unsigned int maj, min;
	struct usym *u;
	int n;

	own_map_line(at, line, sizeof(line));
	assert_int_equal(sscanf(line, "%llx-%llx %*4s %llx %x:%x %llu %n", &s, &e, &off, &maj, &min,
				&ino, &n), 6);
	snprintf(maps, sizeof(maps),
		 "%llx-%llx r-xp %llx %x:%x %llu %s\n"
		 "10000-20000 r-xp 00000000 00:00 0 \n"
		 "30000-31000 r-xp 00000000 00:00 0 [vdso]\n"
		 "40000-50000 rw-p 00000000 00:00 0 /not/executable\n"
		 "garbage line\n",
		 s, e, off, maj, min, ino + 1, exe);
	write_maps(maps);
	u = usym__new(dir);
	assert_non_null(u);
	assert_int_equal(usym__symbolize(u, 4242, at, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "0x%llx (%s+0x%llx)", (unsigned long long)at, exe,
		 (unsigned long long)(at - s + off));
	assert_string_equal(buf, want);
	assert_int_equal(usym__symbolize(u, 4242, 0x10010, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x10010");
	assert_int_equal(usym__symbolize(u, 4242, 0x30020, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x30020 ([vdso]+0x20)");
	/* Not executable: not a code mapping. */
	assert_int_equal(usym__symbolize(u, 4242, 0x40000, buf, sizeof(buf)), -ENOENT);
	remove_maps();
	usym__free(u);
}

static int first_object(struct dl_phdr_info *info, size_t size, void *base)
{
	*(uintptr_t *)base = info->dlpi_addr;
	return 1;
}

/* Where this program is loaded: the first object dl_iterate_phdr() names. */
static uintptr_t load_base(void)
{
	uintptr_t base = 0;

	dl_iterate_phdr(first_object, &base);
	return base;
}

/*
 * A frame at a function's first byte (a breakpoint, a probe at entry) is
 * that function's, at +0x0, not the end of the one before.
 */
static void test_symbol_start(void **state)
{
	struct usym *u = usym__new(NULL);
	uintptr_t at = (uintptr_t)usym_target;
	char buf[PATH_MAX + 128], want[PATH_MAX + 128];
	int fd;

	assert_non_null(u);
	assert_int_equal(usym__symbolize(u, getpid(), at, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "usym_target+0x0 (%s)", exe);
	assert_string_equal(buf, want);
	usym__free(u);
	/* The same by file address. */
	fd = open(exe, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(usym__file_symbol(fd, at - load_base(), buf, sizeof(buf)), 0);
	close(fd);
	assert_string_equal(buf, "usym_target+0x0");
}

/* A global a USDT location could name ("-4@usym_data_target(%rip)"). */
int usym_data_target = 7;

/*
 * Symbols by name (usym_elf__lookup(), for USDT locations): a data
 * symbol's link-time address, a function's, a name that is not there;
 * and a file offset from a link-time address.
 */
static void test_lookup_by_name(void **state)
{
	struct usym_named look[3] = { { .name = "no_such_symbol_here" },
				      { .name = "usym_data_target" }, { .name = "usym_target" } };
	struct usym_obj o = {};
	struct stat st;
	__u64 off;
	int fd = open(exe, O_RDONLY);

	assert_true(fd >= 0 && !fstat(fd, &st));
	/* Sorted by name, as the caller must give them. */
	assert_int_equal(usym_elf__lookup(fd, st.st_size, look, 3, &o), 0);
	assert_false(look[0].found);
	assert_true(look[1].found && !look[1].ambiguous);
	assert_int_equal(look[1].addr, (uintptr_t)&usym_data_target - load_base());
	assert_true(look[2].found);
	assert_int_equal(look[2].addr, (uintptr_t)usym_target - load_base());
	assert_true(o.nloads > 0);
	assert_true(usym_obj__file_off(&o, look[2].addr, &off));
	assert_false(usym_obj__file_off(&o, ~0ULL, &off));
	usym_obj__free(&o);
	close(fd);
	/* Not an ELF file: refused. */
	fd = open("/proc/self/cmdline", O_RDONLY);
	assert_true(fd >= 0);
	memset(&o, 0, sizeof(o));
	assert_int_equal(usym_elf__lookup(fd, 16, look, 3, &o), -ENOEXEC);
	usym_obj__free(&o);
	close(fd);
}

/* Write the first LEN bytes of this program, with PATCH applied, to a file. */
static int damaged_copy(size_t len, size_t patch_at, const void *patch, size_t patch_len)
{
	char path[PATH_MAX];
	int in = open(exe, O_RDONLY), out;
	char *b = malloc(len);
	ssize_t got;

	assert_true(in >= 0 && b);
	got = pread(in, b, len, 0);
	assert_true(got > 0);
	close(in);
	if (patch && patch_at + patch_len <= (size_t)got)
		memcpy(b + patch_at, patch, patch_len);
	snprintf(path, sizeof(path), "%s/elf", dir);
	out = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(out >= 0);
	assert_int_equal(write(out, b, got), got);
	free(b);
	unlink(path);
	return out;
}

/* Untrusted ELF: not ELF, cut short, section headers pointing anywhere. */
static void test_damaged_elf(void **state)
{
	const unsigned long long huge = 0x7fffffffffff0000ULL;
	const unsigned short many = 0xffff;
	char buf[512];
	struct stat st;
	int fd;

	assert_int_equal(stat(exe, &st), 0);
	/* The whole file: found by its own address (ours less the load base). */
	fd = damaged_copy(st.st_size, 0, NULL, 0);
	assert_int_equal(usym__file_symbol(fd, (uintptr_t)usym_target + 7 - load_base(), buf,
					   sizeof(buf)), 0);
	assert_string_equal(buf, "usym_target+0x7");
	assert_int_equal(usym__file_symbol(fd, 0, buf, sizeof(buf)), -ENOENT);
	close(fd);
	/* Not ELF. */
	fd = damaged_copy(st.st_size, 0, "\x7f" "ELG", 4);
	assert_int_equal(usym__file_symbol(fd, 0x1000, buf, sizeof(buf)), -ENOENT);
	close(fd);
	/* Cut after the headers: no section table to read. */
	fd = damaged_copy(4096, 0, NULL, 0);
	assert_int_equal(usym__file_symbol(fd, 0x1000, buf, sizeof(buf)), -ENOENT);
	close(fd);
	/* e_shoff far beyond the end; then e_shnum at its largest. */
	fd = damaged_copy(st.st_size, 0x28, &huge, sizeof(huge));
	assert_int_equal(usym__file_symbol(fd, 0x1000, buf, sizeof(buf)), -ENOENT);
	close(fd);
	fd = damaged_copy(st.st_size, 0x3c, &many, sizeof(many));
	usym__file_symbol(fd, 0x1000, buf, sizeof(buf));	/* no crash, whatever it finds */
	close(fd);
	/* e_phoff far beyond the end: no segments, still symbols by file address. */
	fd = damaged_copy(st.st_size, 0x20, &huge, sizeof(huge));
	usym__file_symbol(fd, 0x1000, buf, sizeof(buf));
	close(fd);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* DIR/PID/NAME holding TEXT. */
static void write_proc(int pid, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", dir, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/%s", dir, pid, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A stat line whose start time (field 22) is START; a ") " in the name. */
static void write_stat(int pid, unsigned long long start)
{
	char text[512];

	snprintf(text, sizeof(text), "%d (a) b) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 %llu 0 0\n",
		 pid, start);
	write_proc(pid, "stat", text);
}

static void remove_proc(int pid)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/%d'", dir, pid);
	assert_int_equal(system(cmd), 0);
}

/*
 * A pid reused by another process (another start time) is named from the
 * new process's maps, never from what was kept of the old one.
 */
static void test_pid_reuse(void **state)
{
	uintptr_t at = (uintptr_t)usym_target + 3;
	char line[PATH_MAX + 256], buf[PATH_MAX + 128], want[PATH_MAX + 128];
	unsigned long long s, e;
	struct usym *u;

	own_map_line(at, line, sizeof(line));
	assert_int_equal(sscanf(line, "%llx-%llx", &s, &e), 2);
	write_proc(4242, "maps", line);
	write_stat(4242, 100);
	u = usym__new(dir);
	assert_non_null(u);
	snprintf(want, sizeof(want), "usym_target+0x3 (%s)", exe);
	assert_int_equal(usym__symbolize(u, 4242, at, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	/* The same process: kept. */
	assert_int_equal(usym__symbolize(u, 4242, at, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	/* Another one under pid 4242, with an anonymous mapping there. */
	snprintf(line, sizeof(line), "%llx-%llx r-xp 00000000 00:00 0 \n", s, e);
	write_proc(4242, "maps", line);
	write_stat(4242, 200);
	assert_int_equal(usym__symbolize(u, 4242, at, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)at);
	assert_string_equal(buf, want);
	usym__free(u);
	remove_proc(4242);
}

/* A stat line of a process started at START running a program whose code starts at CODE. */
static void write_stat_exec(int pid, unsigned long long start, unsigned long long code)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "%d (sh) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 %llu 4096 1 "
		 "18446744073709551615 %llu %llu %llu 0\n", pid, start, code, code + 0x1000,
		 0x7ffc0000ULL + code);
	write_proc(pid, "stat", text);
}

/*
 * The exec cases' start: this program's mapping of AT as a maps LINE
 * (PATH_MAX + 256 bytes), its start in *START, the name AT must get in
 * WANT (PATH_MAX + 128 bytes), and a symbolizer over the fake /proc.
 */
static struct usym *exec_case(uintptr_t at, char *line, char *want, unsigned long long *start)
{
	unsigned long long end;
	struct usym *u;

	own_map_line(at, line, PATH_MAX + 256);
	assert_int_equal(sscanf(line, "%llx-%llx", start, &end), 2);
	snprintf(want, PATH_MAX + 128, "usym_target+0x3 (%s)", exe);
	u = usym__new(dir);
	assert_non_null(u);
	return u;
}

/* PID has exec'd another program (its code at 0x1000). */
static void became_other(int pid)
{
	write_proc(pid, "maps", "1000-2000 r-xp 00000000 00:00 0 \n");
	write_stat_exec(pid, 100, 0x1000);
}

/* PID runs this program (its maps LINE, code at START), read at attach. */
static void remembered(struct usym *u, int pid, const char *line, unsigned long long start)
{
	write_proc(pid, "maps", line);
	write_stat_exec(pid, 100, start);
	usym__remember(u, pid);
}

/* An exec case: this program's address AT, named WANT, in U. */
struct exec_fix {
	uintptr_t at;
	char line[PATH_MAX + 256], buf[PATH_MAX + 128], want[PATH_MAX + 128];
	unsigned long long start;
	struct usym *u;
};

/* A new exec case whose PID runs this program, read at attach. */
static struct exec_fix *exec_start(int pid)
{
	static struct exec_fix f;

	f.at = (uintptr_t)usym_target + 3;
	f.u = exec_case(f.at, f.line, f.want, &f.start);
	remembered(f.u, pid, f.line, f.start);
	return &f;
}

/*
 * Maps read before the process execs (usym__remember at attach, -p of a
 * shell that becomes the traced program: live/45-apps' PostgreSQL) are
 * read again at the exec, which keeps pid and start time: the new
 * program's addresses are named at once, not left unknown until a re-read
 * is due; the old program's (events printed after the exec) still are.
 */
static void test_exec_after_remember(void **state)
{
	uintptr_t at = (uintptr_t)usym_target + 3;
	char line[PATH_MAX + 256], buf[PATH_MAX + 128], want[PATH_MAX + 128];
	unsigned long long s;
	struct usym *u = exec_case(at, line, want, &s);

	/* 4244 execs this program; 4245 execs another one from it. */
	write_proc(4244, "maps", "1000-2000 r-xp 00000000 00:00 0 \n");
	write_stat_exec(4244, 100, 0x1000);
	write_proc(4245, "maps", line);
	write_stat_exec(4245, 100, s);
	usym__remember(u, 4244);
	usym__remember(u, 4245);
	/* The execs: same pids, same start time, other programs. */
	write_proc(4244, "maps", line);
	write_stat_exec(4244, 100, s);
	write_proc(4245, "maps", "1000-2000 r-xp 00000000 00:00 0 \n");
	write_stat_exec(4245, 100, 0x1000);
	assert_int_equal(usym__symbolize(u, 4244, at, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	/* 4245: its new program's address, and its old one's, each in its maps. */
	assert_int_equal(usym__symbolize(u, 4245, 0x1010, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x1010");
	assert_int_equal(usym__symbolize(u, 4245, at, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	usym__free(u);
	remove_proc(4244);
	remove_proc(4245);
}

/*
 * A process that execs and then exits: its program's addresses are named
 * from the maps read before the exec until it is reaped, and after.  A
 * zombie's stat keeps its start time with 0 for code and stack and its
 * maps are empty: that is no second exec, and what was read stays
 * (live/34-ustack's execd case: the traced program becomes cat, which
 * ends before the printer names the second frame).
 */
static void test_exec_then_zombie(void **state)
{
	struct exec_fix *f = exec_start(4246);

	/* The exec: another program. */
	became_other(4246);
	assert_int_equal(usym__symbolize(f->u, 4246, f->at, f->buf, sizeof(f->buf)), 0);
	assert_string_equal(f->buf, f->want);
	/* Exited, not reaped: the same start time, code and stack 0, no maps. */
	write_proc(4246, "maps", "");
	write_proc(4246, "stat", "4246 (cat) Z 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 100 0 0 "
		   "18446744073709551615 0 0 0 0\n");
	assert_int_equal(usym__symbolize(f->u, 4246, f->at, f->buf, sizeof(f->buf)), 0);
	assert_string_equal(f->buf, f->want);
	assert_int_equal(usym__symbolize(f->u, 4246, f->at + 1, f->buf, sizeof(f->buf)), 0);
	snprintf(f->want, sizeof(f->want), "usym_target+0x4 (%s)", exe);
	assert_string_equal(f->buf, f->want);
	/* Reaped: gone, what was read still names it. */
	remove_proc(4246);
	assert_int_equal(usym__symbolize(f->u, 4246, f->at, f->buf, sizeof(f->buf)), 0);
	snprintf(f->want, sizeof(f->want), "usym_target+0x3 (%s)", exe);
	assert_string_equal(f->buf, f->want);
	usym__free(f->u);
}

/*
 * An exec read half way: the new program's stack is set up before its
 * code is mapped (load_elf_binary()), and a stat read there says code 0
 * with a stack.  That is no program of its own: a second exec after it
 * would drop the maps carried from before the first (live/34-ustack's
 * execd case at load 7: 1 of 6 frames named).
 */
static void test_exec_half_way(void **state)
{
	struct exec_fix *f = exec_start(4247);

	/* In the exec: code 0, a stack, only the stack mapped. */
	write_proc(4247, "maps", "7ffc0000-7ffd0000 rw-p 00000000 00:00 0 [stack]\n");
	write_proc(4247, "stat", "4247 (sh) R 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 100 4096 1 "
		   "18446744073709551615 0 0 2147287040 0\n");
	assert_int_equal(usym__symbolize(f->u, 4247, f->at, f->buf, sizeof(f->buf)), 0);
	assert_string_equal(f->buf, f->want);
	/* The exec done: another program. */
	became_other(4247);
	assert_int_equal(usym__symbolize(f->u, 4247, 0x1010, f->buf, sizeof(f->buf)), 0);
	assert_string_equal(f->buf, "0x1010");
	assert_int_equal(usym__symbolize(f->u, 4247, f->at, f->buf, sizeof(f->buf)), 0);
	assert_string_equal(f->buf, f->want);
	usym__free(f->u);
	remove_proc(4247);
}

#define MANY_PROCS	100
#define MANY_MAPS	2000

/* Opens of a maps file seen on inotify descriptor FD so far. */
static int maps_opens(int fd)
{
	char b[64 * 1024] __attribute__((aligned(8)));
	int n = 0;
	ssize_t len;

	while ((len = read(fd, b, sizeof(b))) > 0)
		for (char *p = b; p < b + len;) {
			struct inotify_event *ev = (void *)p;

			n += ev->len && !strcmp(ev->name, "maps");
			p += sizeof(*ev) + ev->len;
		}
	return n;
}

/*
 * More processes than the old cache held, each with many mappings: every
 * process's maps are read once, not again at each event.
 */
static void test_many_processes(void **state)
{
	char path[PATH_MAX], buf[256], want[64];
	char *maps = malloc(MANY_MAPS * 64);
	int in = inotify_init1(IN_NONBLOCK), pid, i, round;
	double t0 = now_s();
	struct usym *u;

	assert_true(maps && in >= 0);
	for (pid = 5000; pid < 5000 + MANY_PROCS; pid++) {
		for (i = 0, maps[0] = 0; i < MANY_MAPS; i++)
			sprintf(maps + strlen(maps), "%x-%x r-xp 00000000 00:00 0 \n",
				0x100000 + i * 0x1000, 0x101000 + i * 0x1000);
		write_proc(pid, "maps", maps);
		write_stat(pid, 7);
		snprintf(path, sizeof(path), "%s/%d", dir, pid);
		assert_true(inotify_add_watch(in, path, IN_OPEN) >= 0);
	}
	u = usym__new(dir);
	assert_non_null(u);
	for (round = 0; round < 3; round++)
		for (pid = 5000; pid < 5000 + MANY_PROCS; pid++) {
			unsigned int at = 0x100000 + (MANY_MAPS - 1) * 0x1000 + 0x10;

			assert_int_equal(usym__symbolize(u, pid, at, buf, sizeof(buf)), 0);
			snprintf(want, sizeof(want), "0x%x", at);
			assert_string_equal(buf, want);
		}
	usym__free(u);
	assert_int_equal(maps_opens(in), MANY_PROCS);
	assert_true(now_s() - t0 < 20);
	close(in);
	free(maps);
	for (pid = 5000; pid < 5000 + MANY_PROCS; pid++)
		remove_proc(pid);
}

/*
 * Maps that block for ever (a FIFO nobody writes): the answer comes within
 * about USYM_REQUEST_MS, unnamed; that process is given up at once from
 * then on; another process is named by a fresh child.
 */
static void test_stuck_child(void **state)
{
	uintptr_t at = (uintptr_t)usym_target + 3;
	char path[PATH_MAX], line[PATH_MAX + 256], buf[PATH_MAX + 128], want[PATH_MAX + 128];
	struct usym *u = usym__new(dir);
	double t0;

	assert_non_null(u);
	write_stat(4343, 1);
	snprintf(path, sizeof(path), "%s/4343/maps", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	t0 = now_s();
	assert_int_not_equal(usym__symbolize(u, 4343, at, buf, sizeof(buf)), 0);
	assert_true(now_s() - t0 >= USYM_REQUEST_MS / 1000.0 * 0.9);
	assert_true(now_s() - t0 < USYM_REQUEST_MS / 1000.0 + 2);
	t0 = now_s();
	assert_int_not_equal(usym__symbolize(u, 4343, at, buf, sizeof(buf)), 0);
	assert_true(now_s() - t0 < 0.2);
	own_map_line(at, line, sizeof(line));
	write_proc(4242, "maps", line);
	assert_int_equal(usym__symbolize(u, 4242, at, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "usym_target+0x3 (%s)", exe);
	assert_string_equal(buf, want);
	usym__free(u);
	remove_proc(4343);
	remove_proc(4242);
}

/* A writer blocked opening FIFO: it gets through once anyone opens it to read. */
static pid_t fifo_watch(const char *fifo)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (!pid) {
		alarm(60);
		_exit(open(fifo, O_WRONLY) >= 0 ? 0 : 1);
	}
	usleep(100 * 1000);	/* blocked in open() by now */
	return pid;
}

/*
 * Paths in the maps are the process's to choose: a deleted file's
 * "X (deleted)" may be a symlink it made to a FIFO (root must not open
 * it: no reader ever comes), and a path that is a symlink to the very
 * file mapped is not followed either.
 */
static void test_paths_not_followed(void **state)
{
	uintptr_t at = (uintptr_t)usym_target;
	char fifo[PATH_MAX], gone[PATH_MAX + 16], link[PATH_MAX], maps[3 * PATH_MAX + 256];
	char buf[PATH_MAX + 128], want[PATH_MAX + 128];
	struct stat fst, est;
	struct usym *u;
	pid_t w;
	int status;

	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(gone, sizeof(gone), "%s/gone.so (deleted)", dir);
	snprintf(link, sizeof(link), "%s/link.so", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(symlink(fifo, gone), 0);
	assert_int_equal(symlink(exe, link), 0);
	assert_int_equal(stat(fifo, &fst), 0);
	assert_int_equal(stat(exe, &est), 0);
	snprintf(maps, sizeof(maps),
		 "10000-20000 r-xp 00000000 %x:%x %llu %s\n%lx-%lx r-xp 00000000 %x:%x %llu %s\n",
		 major(fst.st_dev), minor(fst.st_dev), (unsigned long long)fst.st_ino, gone,
		 /* The whole file: usym_target's offset grows with the binary (past 1 MiB). */
		 (unsigned long)load_base(), (unsigned long)load_base() + ((unsigned long)est.st_size | 0xfff) + 1,
		 major(est.st_dev), minor(est.st_dev), (unsigned long long)est.st_ino, link);
	write_proc(4444, "maps", maps);
	w = fifo_watch(fifo);
	u = usym__new(dir);
	assert_non_null(u);
	assert_int_equal(usym__symbolize(u, 4444, 0x10010, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "0x10010 (%s+0x10)", gone);
	assert_string_equal(buf, want);
	/* Nobody opened the FIFO: the writer still waits (an open wakes it at once). */
	for (int i = 0; i < 100; i++) {
		assert_int_equal(waitpid(w, &status, WNOHANG), 0);
		usleep(10 * 1000);
	}
	kill(w, SIGKILL);
	waitpid(w, &status, 0);
	assert_int_equal(usym__symbolize(u, 4444, at, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "0x%lx (%s+0x%lx)", (unsigned long)at, link,
		 (unsigned long)(at - load_base()));
	assert_string_equal(buf, want);
	usym__free(u);
	unlink(fifo);
	unlink(gone);
	unlink(link);
	remove_proc(4444);
}

/* Peak memory of this process, in KB. */
static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * The ELF file of KIND read in a child process of ours that must finish
 * within 10 s and grow by less than 64 MB; the address 0x1000 must be
 * named WANT (NULL: not named).
 */
static void crafted(const char *kind, const char *want)
{
	char path[PATH_MAX];
	int fd, status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s.so", dir, kind);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	craft_elf(fd, kind);
	unlink(path);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		long before = max_rss_kb();
		char buf[512];
		int ret;

		alarm(10);
		ret = usym__file_symbol(fd, 0x1000, buf, sizeof(buf));
		if (max_rss_kb() - before > 64 * 1024)
			_exit(3);
		_exit(want ? ret || strcmp(buf, want) : ret != -ENOENT);
	}
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status))
		fail_msg("%s: killed by signal %d (10 s limit: SIGALRM is %d)", kind,
			 WTERMSIG(status), SIGALRM);
	if (WEXITSTATUS(status) == 3)
		fail_msg("%s: more than 64 MB used", kind);
	assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * Crafted files: a string table without a NUL is read once, names cut at
 * USYM_MAX_NAME - 1 bytes; many headers over one table, or over a huge
 * hole, are refused, in bounded time and memory.
 */
static void test_crafted_elf(void **state)
{
	char want[USYM_MAX_NAME + 8];

	memset(want, 'A', USYM_MAX_NAME - 1);
	strcpy(want + USYM_MAX_NAME - 1, "+0x0");
	crafted("nonul", want);
	crafted("overlap", NULL);
	crafted("sparse", NULL);
}

static int setup(void **state)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0 || !mkdtemp(dir))
		return -1;
	exe[n] = 0;
	return 0;
}

static int teardown(void **state)
{
	rmdir(dir);
	return 0;
}

/* Where main() returns to: in glibc's __libc_start_call_main, a static function. */
static uintptr_t main_caller;

/*
 * A frame in a stripped library is named from its debug file, found by
 * build-id under /usr/lib/debug (libc6-dbg: make deps installs it), as
 * bpftrace names it: main's caller in glibc's .symtab, not its .dynsym.
 */
static void test_debug_file_by_build_id(void **state)
{
	struct usym *u = usym__new(NULL);
	char buf[PATH_MAX + 128];

	if (access("/usr/lib/debug/.build-id", X_OK))
		fail_msg("no /usr/lib/debug/.build-id: install libc6-dbg (make deps)");
	assert_non_null(u);
	assert_int_equal(usym__symbolize(u, getpid(), main_caller, buf, sizeof(buf)), 0);
	if (strncmp(buf, "__libc_start_call_main+0x", 25) || !strstr(buf, "libc.so.6)"))
		fail_msg("main's caller named '%s', not __libc_start_call_main+0x... (libc.so.6)",
			 buf);
	usym__free(u);
}

int main(void)
{
	main_caller = (uintptr_t)__builtin_return_address(0) - 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_debug_file_by_build_id),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_symbol_start),
		cmocka_unit_test(test_lookup_by_name),
		cmocka_unit_test(test_gone_process),
		cmocka_unit_test(test_not_the_mapped_file),
		cmocka_unit_test(test_damaged_elf),
		cmocka_unit_test(test_pid_reuse),
		cmocka_unit_test(test_exec_after_remember),
		cmocka_unit_test(test_exec_then_zombie),
		cmocka_unit_test(test_exec_half_way),
		cmocka_unit_test(test_many_processes),
		cmocka_unit_test(test_stuck_child),
		cmocka_unit_test(test_paths_not_followed),
		cmocka_unit_test(test_crafted_elf),
	};

	return cmocka_run_group_tests_name("usym", tests, setup, teardown);
}
