// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The waits of tests/lib/cases.sh, blocked in the kernel instead of polled
 * by the shell: a shell's loop of grep, wc and sleep forked three or four
 * processes every 0.1 s, and in a guest under TCG each poll cost ~0.13 s
 * of its CPU (tests/README.md, "Waiting without polling"), as much as the
 * ksnoop being waited for.  Static, for the guests too; no library.
 *
 *   kswait match PID FILE SECONDS RE
 *                      until a line of FILE matches RE (POSIX basic, as
 *                      grep's): 0; PID exited and no line matches: 2;
 *                      PID stalled (below): 1
 *   kswait exit PID FILE SECONDS
 *                      until PID exits: 0; stalled: 1
 *   kswait lines FILE N SECONDS
 *                      until FILE has N lines: 0; after SECONDS: 1
 *   kswait held PID [prog|link|map]
 *                      the ids of the BPF objects PID holds (its fds'
 *                      "KIND_id:" lines in /proc/PID/fdinfo; a link's
 *                      has its program's too), sorted, each followed by
 *                      a space, no newline (as cases.sh's held_ids said
 *                      them); without KIND, three lines: prog, link, map
 *
 * Stalled, as cases.sh's _ks_stalled said it: no progress for SECONDS
 * (PID's page faults and CPU time in /proc/PID/stat, and FILE's size, all
 * unchanged), or 10 times SECONDS in all (a ksnoop that spins).  Both
 * count steps of 0.1 s of waiting, not the clock: a guest that got no CPU
 * for a while has not waited, and a wake-up (FILE written, PID gone)
 * between two steps is no step.  PID's exit wakes the wait (a pidfd), and
 * so does FILE being written (inotify; for match and lines, looked at
 * again 10 ms later, a burst of writes at once); PID need not be our
 * child, and an exited child left for the shell to reap counts as exited.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

#define STEP_NS 100000000LL

enum { WAIT_MATCH, WAIT_EXIT, WAIT_LINES };

struct wait {
	int mode;
	int pid;
	const char *file;
	long steps_idle;	/* SECONDS * 10 */
	long steps_all;		/* SECONDS * 100, or for lines SECONDS * 10 */
	regex_t re;
	long lines;
	int pidfd;		/* -1: no PID, or pidfd_open failed (polled) */
	int ino;		/* inotify, -1 if FILE cannot be watched */
	char seen[160];		/* the last progress read */
};

static void usage(void)
{
	fprintf(stderr, "usage: kswait match PID FILE SECONDS RE | exit PID FILE SECONDS | lines FILE N SECONDS | held PID [prog|link|map]\n");
	exit(3);
}

static long number(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0)
		usage();
	return v;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Whether PID has exited: gone, or a zombie its parent has not reaped. */
static int exited(const struct wait *w)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	if (w->pidfd >= 0) {
		struct pollfd pfd = { .fd = w->pidfd, .events = POLLIN };

		return poll(&pfd, 1, 0) > 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/stat", w->pid);
	f = fopen(path, "r");
	if (!f)
		return 1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

/* What changes while PID works: minflt, utime, stime, and FILE's size. */
static void progress(const struct wait *w, char *out, size_t sz)
{
	char path[64], buf[1024], *p, *field[16];
	struct stat st;
	long long size = -1;
	int i = 0;
	FILE *f;
	size_t n = 0;

	if (w->file && stat(w->file, &st) == 0)
		size = st.st_size;
	snprintf(path, sizeof(path), "/proc/%d/stat", w->pid);
	f = fopen(path, "r");
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	/* Past "(comm) ": the state is field 0 here, minflt 7, utime 11, stime 12. */
	p = strrchr(buf, ')');
	for (p = p ? p + 2 : buf + n; i < 16 && (field[i] = strsep(&p, " ")); i++)
		;
	if (i < 13)
		snprintf(out, sz, "- - - %lld", size);
	else
		snprintf(out, sz, "%s %s %s %lld", field[7], field[11], field[12], size);
}

/* Whether FILE now says what W waits for. */
static int file_done(struct wait *w)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long lines = 0;
	int done = 0;
	FILE *f = fopen(w->file, "r");

	if (!f)
		return 0;
	while (!done && (len = getline(&line, &cap, f)) >= 0) {
		if (w->mode == WAIT_LINES) {
			/* wc -l counts newlines: a last line without one is not yet a line. */
			lines += len > 0 && line[len - 1] == '\n';
			done = lines >= w->lines;
			continue;
		}
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = '\0';
		done = regexec(&w->re, line, 0, NULL, 0) == 0;
	}
	free(line);
	fclose(f);
	return done;
}

static void watch(struct wait *w)
{
	w->pidfd = -1;
	w->ino = -1;
	if (w->pid > 0)
		w->pidfd = syscall(SYS_pidfd_open, w->pid, 0);
	/* exit's FILE only measures progress: its writes need not wake us. */
	if (w->file && w->mode != WAIT_EXIT) {
		w->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (w->ino >= 0 && inotify_add_watch(w->ino, w->file, IN_MODIFY | IN_CLOSE_WRITE) < 0) {
			close(w->ino);
			w->ino = -1;
		}
	}
}

/* Block until the next step is due, FILE is written or PID exits. */
static void block(struct wait *w, long long until)
{
	struct pollfd pfd[2];
	char drain[4096];
	long long left = until - now_ns();
	int n = 0;

	if (w->ino >= 0)
		pfd[n++] = (struct pollfd){ .fd = w->ino, .events = POLLIN };
	if (w->pidfd >= 0)
		pfd[n++] = (struct pollfd){ .fd = w->pidfd, .events = POLLIN };
	if (left > 0 && poll(pfd, n, (int)((left + 999999) / 1000000)) > 0 && w->ino >= 0)
		while (read(w->ino, drain, sizeof(drain)) > 0)
			;
}

static int run(struct wait *w)
{
	long steps = 0, idle = 0;
	long long next = now_ns() + STEP_NS;
	char now[sizeof(w->seen)];

	watch(w);
	if (w->pid > 0)
		progress(w, w->seen, sizeof(w->seen));
	for (;;) {
		if (w->mode != WAIT_EXIT && file_done(w))
			return 0;
		if (w->pid > 0 && exited(w)) {
			if (w->mode == WAIT_EXIT)
				return 0;
			return file_done(w) ? 0 : 2;
		}
		block(w, next);
		if (now_ns() < next) {
			/* Woken early: no step yet.  A burst of writes is one look. */
			nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
			continue;
		}
		next = now_ns() + STEP_NS;
		steps++;
		if (w->mode == WAIT_LINES) {
			if (steps >= w->steps_all)
				return file_done(w) ? 0 : 1;
			continue;
		}
		progress(w, now, sizeof(now));
		if (strcmp(now, w->seen) == 0) {
			idle++;
		} else {
			idle = 0;
			memcpy(w->seen, now, sizeof(now));
		}
		if (idle >= w->steps_idle || steps >= w->steps_all)
			return 1;
	}
}

#define HELD_MAX 4096

struct ids {
	unsigned long v[HELD_MAX];
	int n;
};

static int cmp_id(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

static void print_ids(struct ids *ids, int line)
{
	int i;

	qsort(ids->v, ids->n, sizeof(ids->v[0]), cmp_id);
	for (i = 0; i < ids->n; i++)
		if (i == 0 || ids->v[i] != ids->v[i - 1])
			printf("%lu ", ids->v[i]);
	if (line)
		putchar('\n');
}

/* held: the ids of PID's fds' "KIND_id:" lines, as grep and sort -un said them. */
static int held(const char *pid, const char *only)
{
	static const char *const kinds[] = { "prog_id:", "link_id:", "map_id:" };
	static struct ids ids[3];
	char path[300], line[256];
	struct dirent *d;
	DIR *dir;
	int k;

	snprintf(path, sizeof(path), "/proc/%s/fdinfo", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid, d->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			for (k = 0; k < 3; k++)
				if (!strncmp(line, kinds[k], strlen(kinds[k])) && ids[k].n < HELD_MAX)
					ids[k].v[ids[k].n++] = strtoul(line + strlen(kinds[k]), NULL, 10);
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	for (k = 0; k < 3; k++)
		if (!only || !strncmp(kinds[k], only, strlen(only)))
			print_ids(&ids[k], !only);
	return 0;
}

int main(int argc, char **argv)
{
	struct wait w = { .pidfd = -1, .ino = -1 };
	long secs;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "held") && (argc == 3 || argc == 4)) {
		if (argc == 4 && strcmp(argv[3], "prog") && strcmp(argv[3], "link") &&
		    strcmp(argv[3], "map"))
			usage();
		return held(argv[2], argc == 4 ? argv[3] : NULL);
	}
	if (!strcmp(argv[1], "match") && argc == 6) {
		w.mode = WAIT_MATCH;
		if (regcomp(&w.re, argv[5], REG_NOSUB)) {
			fprintf(stderr, "kswait: bad regular expression '%s'\n", argv[5]);
			return 3;
		}
	} else if (!strcmp(argv[1], "exit") && argc == 5) {
		w.mode = WAIT_EXIT;
	} else if (!strcmp(argv[1], "lines") && argc == 5) {
		w.mode = WAIT_LINES;
		w.file = argv[2];
		w.lines = number(argv[3]);
		w.steps_all = number(argv[4]) * 10;
		return run(&w);
	} else {
		usage();
	}
	w.pid = (int)number(argv[2]);
	w.file = argv[3];
	secs = number(argv[4]);
	w.steps_idle = secs * 10;
	w.steps_all = secs * 100;
	if (w.pid <= 0)
		usage();
	return run(&w);
}
