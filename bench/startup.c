// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ksb-startup: how long a tracer takes from exec until it prints its first
 * event, and its peak RSS.
 *
 *   ksb-startup { -m TEXT | -a TEXT } [-w open|syscall|none] [-f PATH] [-i USEC]
 *               [-t SECS] [-s SECS] [-r RSSFILE] [-e ERRFILE] -- TRACER ARGS...
 *
 * The tracer runs on a pseudo-terminal, so that every tracer's stdio is
 * line-buffered as it would be for a user at a terminal. "{PID}" in an
 * argument is replaced by this program's pid (for pid filters).
 * While it starts, this program keeps the traced event happening: every
 * USEC microseconds (default 1000) it opens PATH (-w open, for
 * do_sys_openat2) or calls getppid() (-w syscall, for sys_enter). The
 * start-up time is from just before fork()+exec until the first output
 * line that contains TEXT arrives: the probe is live, one event went
 * through the tracer's buffer and was printed. It then sends SIGINT to the
 * tracer's process group and waits for it to exit.
 *
 * With -r, the tracer runs under `/usr/bin/time -v -o RSSFILE` (Debian's
 * `time` package), and "Maximum resident set size" is read from RSSFILE;
 * the exec of time(1) itself is included in the start-up time.
 *
 * Output, one line: "startup_ms=X first_output_ms=Z stop_ms=S killed=K
 * [rss_kb=Y]": stop_ms is how long the tracer took to exit after SIGINT,
 * killed=1 if it had to be killed after -s SECS (default 60): then "hang:"
 * lines on stderr say where its threads were just before, time(1) reports
 * nothing and rss_kb is left out. When time(1) has exited, this waits (up to 60 s
 * more) until nothing of the tracer's process group is left, so that the
 * next measurement never overlaps a tracer still detaching; linger_ms says
 * how long that took, 60000 or more if something was still there.
 * Exit status 1 if TEXT never appeared.
 *
 * With -a TEXT instead of -m, the time is taken to the first line of the
 * tracer's *stderr* that contains TEXT (ksnoop -v's "tracing N target(s)":
 * exec to attached, no event needed; -w none triggers nothing) and printed
 * as attached_ms=X. The tracer's stderr is then a pipe: every line of it
 * goes to ERRFILE prefixed with "+MS " (milliseconds since the fork, when
 * this program read it), so where the time went can be read off ksnoop
 * -v's lines (resolved, loaded, tracing).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ksb-startup { -m TEXT | -a TEXT } [-w open|syscall|none] [-f PATH] [-i USEC]\n"
		"                   [-t SECS] [-s SECS] [-r RSSFILE] [-e ERRFILE] -- TRACER ARGS...\n");
	exit(2);
}

/* Read up to SZ-1 bytes of FILE into BUF; "" if it cannot be read. */
static void slurp(const char *file, char *buf, size_t sz)
{
	int fd = open(file, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sz - 1) : -1;

	buf[n > 0 ? n : 0] = 0;
	if (fd >= 0)
		close(fd);
}

/*
 * Before a tracer that ignored SIGINT is killed: say on stderr, one
 * "hang:" line per thread, where every thread of its process group is
 * (state, wchan, the top of its kernel stack), so a report can tell a
 * tracer stuck in the kernel from one busy in user space.
 */
static void dump_group(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[96], buf[1024], comm[64], wchan[64], state = '?';
		int pid = atoi(e->d_name), pgrp = 0;
		DIR *td;
		struct dirent *te;
		const char *p;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		slurp(path, buf, sizeof(buf));
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %c %*d %d", &state, &pgrp) != 2 || pgrp != pgid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		slurp(path, comm, sizeof(comm));
		comm[strcspn(comm, "\n")] = 0;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		td = opendir(path);
		while (td && (te = readdir(td))) {
			int tid = atoi(te->d_name);
			char *q;

			if (tid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid, tid);
			slurp(path, buf, sizeof(buf));
			p = strrchr(buf, ')');
			if (!p || sscanf(p + 1, " %c", &state) != 1)
				state = '?';
			snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", pid, tid);
			slurp(path, wchan, sizeof(wchan));
			snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", pid, tid);
			slurp(path, buf, 400);
			for (q = buf; *q; q++)
				if (*q == '\n')
					*q = ' ';
			fprintf(stderr, "hang: %s pid %d tid %d state %c wchan %s stack %s\n",
				comm, pid, tid, state, wchan[0] ? wchan : "-", buf[0] ? buf : "-");
		}
		if (td)
			closedir(td);
	}
	closedir(d);
}

static long read_rss(const char *file)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "Maximum resident set size (kbytes):");

		if (p)
			kb = atol(p + strlen("Maximum resident set size (kbytes):"));
	}
	fclose(f);
	return kb;
}

/*
 * -a: read what the tracer wrote on stderr, copy each whole line to OUT
 * prefixed with its arrival time (ms since T0), and say whether a line
 * held TEXT. Returns -1 at end of file.
 */
static char errline[4096];
static size_t errlen;

static int err_lines(int fd, FILE *out, uint64_t t0, const char *text)
{
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));
	uint64_t t = now_ns();
	int found = 0;

	if (n <= 0)
		return -1;
	for (ssize_t k = 0; k < n; k++) {
		if (errlen < sizeof(errline) - 1)
			errline[errlen++] = buf[k];
		if (buf[k] != '\n')
			continue;
		errline[errlen] = 0;
		fprintf(out, "+%.2f %s", (double)(t - t0) / 1e6, errline);
		if (text && strstr(errline, text))
			found = 1;
		errlen = 0;
	}
	fflush(out);
	return found;
}

int main(int argc, char **argv)
{
	const char *text = NULL, *path = "/", *rssfile = NULL, *errfile = "/dev/null";
	const char *err_text = NULL;
	int workload_open = 1, opt, master, i, status = 0, errpipe[2] = { -1, -1 };
	FILE *errout = NULL;
	long interval_us = 1000;
	double timeout_s = 120, stop_s = 60;
	char **targv, pidstr[32], window[8192];
	size_t wlen = 0;
	uint64_t t0, t_found = 0, t_first = 0, deadline, t_stop = 0, t_exit = 0;
	int killed = 0;
	pid_t child_pgid;
	double linger_ms = 0;
	long rss;
	pid_t child;

	while ((opt = getopt(argc, argv, "+m:a:w:f:i:t:s:r:e:")) != -1) {
		switch (opt) {
		case 'm': text = optarg; break;
		case 'a': err_text = optarg; break;
		case 'w':
			if (!strcmp(optarg, "open"))
				workload_open = 1;
			else if (!strcmp(optarg, "syscall"))
				workload_open = 0;
			else if (!strcmp(optarg, "none"))
				workload_open = -1;
			else
				usage();
			break;
		case 'f': path = optarg; break;
		case 'i': interval_us = atol(optarg); break;
		case 't': timeout_s = atof(optarg); break;
		case 's': stop_s = atof(optarg); break;
		case 'r': rssfile = optarg; break;
		case 'e': errfile = optarg; break;
		default: usage();
		}
	}
	if (!text == !err_text || optind >= argc || interval_us <= 0)
		usage();
	if (err_text) {
		errout = fopen(errfile, "w");
		if (!errout || pipe(errpipe)) {
			perror("ksb-startup: -a");
			return 2;
		}
	}

	/* argv for exec: [time -v -o RSSFILE] TRACER ARGS, {PID} substituted */
	targv = calloc(argc + 8, sizeof(*targv));
	if (!targv)
		return 2;
	snprintf(pidstr, sizeof(pidstr), "%d", (int)getpid());
	i = 0;
	if (rssfile) {
		targv[i++] = "/usr/bin/time";
		targv[i++] = "-v";
		targv[i++] = "-o";
		targv[i++] = (char *)rssfile;
	}
	for (; optind < argc; optind++) {
		char *a = argv[optind], *p = strstr(a, "{PID}");

		if (p) {
			char *b = malloc(strlen(a) + 32);

			if (!b)
				return 2;
			sprintf(b, "%.*s%s%s", (int)(p - a), a, pidstr, p + 5);
			a = b;
		}
		targv[i++] = a;
	}

	master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master < 0 || grantpt(master) || unlockpt(master)) {
		perror("ksb-startup: pseudo-terminal");
		return 2;
	}

	t0 = now_ns();
	child = fork();
	if (child < 0) {
		perror("fork");
		return 2;
	}
	child_pgid = child;	/* the child calls setsid(): its pid is the group */
	if (child == 0) {
		int slave, err;

		setsid();
		slave = open(ptsname(master), O_RDWR);	/* controlling terminal */
		err = errpipe[1] >= 0 ? errpipe[1] :
			open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (slave < 0 || err < 0)
			_exit(127);
		dup2(slave, 1);
		dup2(err, 2);
		if (errpipe[0] >= 0)
			close(errpipe[0]);
		close(0);
		open("/dev/null", O_RDONLY);
		close(master);
		execvp(targv[0], targv);
		perror(targv[0]);
		_exit(127);
	}

	if (errpipe[1] >= 0)
		close(errpipe[1]);
	deadline = t0 + (uint64_t)(timeout_s * 1e9);
	for (;;) {
		struct pollfd pfd[2] = { { .fd = master, .events = POLLIN },
					 { .fd = errpipe[0], .events = POLLIN } };
		struct timespec ts = { 0, interval_us * 1000 };
		uint64_t t;
		ssize_t n;

		if (workload_open < 0) {
			/* nothing to trigger */
		} else if (workload_open) {
			int fd = open(path, O_RDONLY);

			if (fd >= 0)
				close(fd);
		} else {
			syscall(SYS_getppid);
		}
		if (ppoll(pfd, errpipe[0] >= 0 ? 2 : 1, &ts, NULL) > 0 && pfd[1].revents) {
			int r = err_lines(errpipe[0], errout, t0, err_text);

			if (r > 0) {
				t_found = now_ns();
				break;
			}
			if (r < 0) {
				close(errpipe[0]);
				errpipe[0] = -1;
			}
		}
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (wlen > sizeof(window) / 2) {
				/* keep the tail, in case TEXT spans two reads */
				memmove(window, window + wlen - 256, 256);
				wlen = 256;
			}
			n = read(master, window + wlen, sizeof(window) - 1 - wlen);
			t = now_ns();
			if (n <= 0)
				break;	/* the tracer went away */
			if (!t_first)
				t_first = t;
			wlen += n;
			window[wlen] = 0;
			if (text && strstr(window, text)) {
				t_found = t;
				break;
			}
		}
		if (now_ns() > deadline)
			break;
		if (waitpid(child, &status, WNOHANG) == child) {
			child = 0;
			break;
		}
	}

	if (child > 0) {
		uint64_t stop_by;

		t_stop = now_ns();
		stop_by = t_stop + (uint64_t)(stop_s * 1e9);
		kill(-child, SIGINT);
		/* Drain the terminal so the tracer never blocks writing to it. */
		for (;;) {
			struct pollfd pfd = { .fd = master, .events = POLLIN };
			pid_t w = waitpid(child, &status, WNOHANG);

			if (w == child) {
				t_exit = now_ns();
				break;
			}
			if (now_ns() > stop_by) {
				dump_group(child);
				kill(-child, SIGKILL);
				waitpid(child, &status, 0);
				killed = 1;
				break;
			}
			if (poll(&pfd, 1, 20) > 0 && read(master, window, sizeof(window)) <= 0)
				usleep(10000);
			if (errpipe[0] >= 0) {
				struct pollfd epfd = { .fd = errpipe[0], .events = POLLIN };

				if (poll(&epfd, 1, 0) > 0 && err_lines(errpipe[0], errout, t0, NULL) < 0) {
					close(errpipe[0]);
					errpipe[0] = -1;
				}
			}
		}
	}

	/* time(1) is gone; is the tracer (its child) gone too? */
	{
		uint64_t t_w = now_ns(), until = t_w + 60ULL * 1000000000ULL;

		while (kill(-child_pgid, 0) == 0 && now_ns() < until)
			usleep(10000);
		linger_ms = (double)(now_ns() - t_w) / 1e6;
		if (kill(-child_pgid, 0) == 0) {
			kill(-child_pgid, SIGKILL);
			linger_ms = 60000;
		}
	}
	if (errpipe[0] >= 0) /* the rest, e.g. ksnoop's summary */
		while (err_lines(errpipe[0], errout, t0, NULL) >= 0)
			;
	if (errout)
		fclose(errout);
	if (err_text)
		printf("attached_ms=%.2f ", t_found ? (double)(t_found - t0) / 1e6 : -1.0);
	printf("startup_ms=%.2f first_output_ms=%.2f stop_ms=%.1f killed=%d linger_ms=%.0f",
	       t_found ? (double)(t_found - t0) / 1e6 : -1.0,
	       t_first ? (double)(t_first - t0) / 1e6 : -1.0,
	       t_exit ? (double)(t_exit - t_stop) / 1e6 : -1.0, killed, linger_ms);
	rss = rssfile ? read_rss(rssfile) : -1;
	if (rss >= 0)
		printf(" rss_kb=%ld", rss);
	putchar('\n');
	return t_found ? 0 : 1;
}
