// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * User stack symbolizer, for the stacks of USDT probes: the part that
 * runs in ksnoop, and the child process that does the work.
 *
 * Naming an address reads what a traced process chose: its maps, and ELF
 * files it mapped and may have crafted, perhaps on a FUSE file system
 * whose server stops answering (then a read sleeps uninterruptibly, even
 * through SIGKILL).  ksnoop runs as root and holds BPF links, so none of
 * that happens in ksnoop: a child process, forked when the symbolizer is
 * created and holding no file descriptor but its socket (so that a child
 * stuck for ever holds no link, no output pipe), keeps the cache
 * (usym_cache.c) and answers one (pid, address) request at a time over a
 * socketpair, under resource limits (address space, CPU time, no file
 * writes, few descriptors).
 *
 * ksnoop waits USYM_REQUEST_MS for an answer, USYM_PID_BUDGET_MS in all
 * for one process.  A child that does not answer in time is killed and
 * not waited for (it may never die); what it was reading, as it wrote in
 * memory both share, is given up: the file (every later child skips it)
 * or the process.  A signal (SIGINT: stop) ends the wait at once.  A new
 * child is started at the next request, USYM_MAX_CHILDREN in all; after
 * that, addresses are printed unnamed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "usym_int.h"

/*
 * Sanitizer builds (tests) let the child report: its stderr stays, and it
 * may write a sanitizer log file.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
#define SANITIZED		1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define SANITIZED		1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED		0
#endif

/* Processes whose time is counted (a table indexed by pid). */
#define PID_SLOTS		256
#define CHILD_SOCK		3
#define CHILD_MAX_FDS		64
#define REPLY_MAX		(PATH_MAX + 2 * USYM_MAX_NAME)

struct usym_req {
	__u64 seq;
	__u64 addr;
	__u32 pid;
};

struct usym_reply {
	__u64 seq;
	__s32 ret;
	char name[REPLY_MAX];
};

struct pid_cost {
	__u32 pid;
	bool bad;
	__u64 spent_ms;
};

struct usym {
	char proc_dir[PATH_MAX / 2];
	struct usym_shared *shared;
	pid_t child;		/* 0: none running */
	int sock;
	int nchildren;		/* started so far */
	pid_t killed[USYM_MAX_CHILDREN];	/* reaped when they are gone */
	int nkilled;
	__u64 seq;
	struct pid_cost pids[PID_SLOTS];
};

static __u64 mono_ms(void)
{
	return usym__mono_ns() / 1000000;
}

/* ---- the child ---- */

/*
 * Only the socket, as CHILD_SOCK; stdin, stdout and stderr /dev/null: a
 * child stuck for ever holds no BPF link and no pipe anyone reads to EOF.
 */
static void child_fds(int sock)
{
	int fd;

	if (sock != CHILD_SOCK && dup2(sock, CHILD_SOCK) < 0)
		_exit(1);
	if (close_range(CHILD_SOCK + 1, ~0U, 0))
		for (fd = CHILD_SOCK + 1; fd < 65536; fd++)
			close(fd);
	fd = open("/dev/null", O_RDWR);
	if (fd < 0)
		_exit(1);
	for (int i = 0; i < 3 - SANITIZED; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

/* The address space it has (ASan's shadow counts) and USYM_CHILD_MEM more. */
static void child_limits(void)
{
	unsigned long long pages = 0;
	struct rlimit cpu = { USYM_CHILD_CPU_S, USYM_CHILD_CPU_S + 1 };
	struct rlimit zero = { 0, 0 }, fds = { CHILD_MAX_FDS, CHILD_MAX_FDS }, as;
	FILE *f = fopen("/proc/self/statm", "re");

	if (!f || fscanf(f, "%llu", &pages) != 1)
		_exit(1);
	fclose(f);
	as.rlim_cur = as.rlim_max = pages * sysconf(_SC_PAGESIZE) + USYM_CHILD_MEM;
	if (setrlimit(RLIMIT_AS, &as) || setrlimit(RLIMIT_CPU, &cpu) ||
	    (!SANITIZED && setrlimit(RLIMIT_FSIZE, &zero)) || setrlimit(RLIMIT_CORE, &zero) ||
	    setrlimit(RLIMIT_NOFILE, &fds))
		_exit(1);
}

static void child_serve(struct usym_cache *c)
{
	struct usym_reply *r = malloc(sizeof(*r));
	struct usym_req q;

	if (!r)
		_exit(1);
	while (recv(CHILD_SOCK, &q, sizeof(q), 0) == sizeof(q)) {
		r->seq = q.seq;
		r->name[0] = 0;
		r->ret = usym_cache__symbolize(c, q.pid, q.addr, r->name, sizeof(r->name));
		if (send(CHILD_SOCK, r, offsetof(struct usym_reply, name) + strlen(r->name) + 1,
			 MSG_NOSIGNAL) < 0)
			break;
	}
	_exit(0);
}

static void __attribute__((noreturn)) child_main(struct usym *u, int sock, pid_t parent)
{
	struct usym_cache *c;

	child_fds(sock);
	/* Dies with ksnoop; the stop signals are ksnoop's to act on. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(0);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	child_limits();
	c = usym_cache__new(u->proc_dir, u->shared);
	if (!c)
		_exit(1);
	child_serve(c);
	_exit(0);
}

/* ---- ksnoop's side ---- */

static void reap(struct usym *u)
{
	int i = 0;

	while (i < u->nkilled)
		if (waitpid(u->killed[i], NULL, WNOHANG) != 0)
			u->killed[i] = u->killed[--u->nkilled];
		else
			i++;
}

static int spawn(struct usym *u)
{
	pid_t parent = getpid(), pid;
	int sv[2];

	reap(u);
	if (u->nchildren >= USYM_MAX_CHILDREN)
		return -EAGAIN;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (!pid)
		child_main(u, sv[1], parent);
	close(sv[1]);
	u->sock = sv[0];
	u->child = pid;
	u->nchildren++;
	return 0;
}

/* Kill the child and do not wait: it may sleep in the kernel for ever. */
static void abandon(struct usym *u)
{
	if (!u->child)
		return;
	kill(u->child, SIGKILL);
	close(u->sock);
	u->sock = -1;
	if (waitpid(u->child, NULL, WNOHANG) == 0)
		u->killed[u->nkilled++] = u->child;
	u->child = 0;
}

struct usym *usym__new(const char *proc_dir)
{
	struct usym *u = calloc(1, sizeof(*u));
	int err;

	if (!u)
		return NULL;
	snprintf(u->proc_dir, sizeof(u->proc_dir), "%s", proc_dir ? proc_dir : "/proc");
	u->sock = -1;
	u->shared = mmap(NULL, sizeof(*u->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (u->shared == MAP_FAILED) {
		err = -errno;
		free(u);
		errno = -err;
		return NULL;
	}
	err = spawn(u);
	if (err) {
		usym__free(u);
		errno = -err;
		return NULL;
	}
	return u;
}

void usym__free(struct usym *u)
{
	if (!u)
		return;
	abandon(u);
	reap(u);
	if (u->shared && u->shared != MAP_FAILED)
		munmap(u->shared, sizeof(*u->shared));
	free(u);
}

/* The answer to request SEQ within TIMEOUT_MS: 0, -ETIMEDOUT, -EINTR or -EPIPE. */
static int await_reply(struct usym *u, __u64 seq, struct usym_reply *r, int timeout_ms)
{
	__u64 end = mono_ms() + timeout_ms, now;
	struct pollfd pfd = { .fd = u->sock, .events = POLLIN };
	ssize_t n;

	for (;;) {
		now = mono_ms();
		if (now >= end)
			return -ETIMEDOUT;
		n = poll(&pfd, 1, end - now);
		if (n < 0)
			return errno == EINTR ? -EINTR : -EPIPE;
		if (!n)
			return -ETIMEDOUT;
		n = recv(u->sock, r, sizeof(*r), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		/* EOF, an error, a message cut short: the child is not well. */
		if (n <= (ssize_t)offsetof(struct usym_reply, name))
			return -EPIPE;
		if (r->seq == seq) {
			r->name[sizeof(r->name) - 1] = 0;
			return 0;
		}
	}
}

/* The child took too long or died: give up what it was reading. */
static void blame(struct usym *u, struct pid_cost *pc)
{
	struct usym_shared *s = u->shared;

	if (s->stage == USYM_STAGE_FILE && s->nbad_files < USYM_MAX_BAD) {
		s->bad_files[s->nbad_files].dev = s->dev;
		s->bad_files[s->nbad_files].ino = s->ino;
		s->nbad_files++;
	} else {
		pc->bad = true;
	}
}

static struct pid_cost *pid_cost(struct usym *u, __u32 pid)
{
	struct pid_cost *pc = &u->pids[pid % PID_SLOTS];

	if (pc->pid != pid)
		*pc = (struct pid_cost){ .pid = pid };
	return pc;
}

int usym__symbolize(struct usym *u, __u32 pid, __u64 addr, char *buf, size_t sz)
{
	struct pid_cost *pc = pid_cost(u, pid);
	struct usym_req q = { .seq = ++u->seq, .addr = addr, .pid = pid };
	struct usym_reply *r;
	__u64 start = mono_ms(), left = USYM_PID_BUDGET_MS - pc->spent_ms;
	int err;

	if (pc->bad || (!u->child && spawn(u)))
		return -ENOENT;
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	u->shared->stage = USYM_STAGE_IDLE;
	if (send(u->sock, &q, sizeof(q), MSG_DONTWAIT | MSG_NOSIGNAL) != sizeof(q))
		err = -EPIPE;
	else
		err = await_reply(u, q.seq, r, left < USYM_REQUEST_MS ? left : USYM_REQUEST_MS);
	pc->spent_ms += mono_ms() - start;
	if (pc->spent_ms >= USYM_PID_BUDGET_MS)
		pc->bad = true;
	if (err && err != -EINTR)
		blame(u, pc);
	if (err)
		abandon(u);
	else if (!r->ret)
		snprintf(buf, sz, "%s", r->name);
	err = err ?: r->ret;
	free(r);
	return err;
}

void usym__remember(struct usym *u, __u32 pid)
{
	char buf[USYM_MAX_NAME];

	/* No mapping holds address 0: the maps are read, nothing is named. */
	usym__symbolize(u, pid, 0, buf, sizeof(buf));
}

int usym__file_symbol(int fd, __u64 vaddr, char *buf, size_t sz)
{
	struct usym_obj o = {};
	const struct usym_sym *s = NULL;
	struct stat st;

	if (fstat(fd, &st))
		return -errno;
	if (!usym_obj__read(&o, fd, NULL, st.st_size))
		s = usym_obj__find(&o, vaddr);
	if (s)
		snprintf(buf, sz, "%.*s+0x%llx", usym_obj__name_len(&o, s), o.strtab + s->name,
			 (unsigned long long)(vaddr - s->addr));
	usym_obj__free(&o);
	return s ? 0 : -ENOENT;
}
