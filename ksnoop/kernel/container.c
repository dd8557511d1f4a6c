// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Containers, as the kernel knows them: cgroup v2 directories and
 * network namespaces, turned into the numbers the programs compare.
 *
 * A cgroup v2's id is its kernfs node's, which is also what the
 * directory's file handle holds (name_to_handle_at(): 8 bytes) and what
 * bpf_get_current_cgroup_id() returns.  BPF decides "in this cgroup or
 * below" by the task's ancestor at the cgroup's level, so the level is
 * counted here, from the cgroup2 mount: that is the absolute level only
 * when the mount shows the whole hierarchy from ksnoop's own cgroup
 * namespace being the initial one; otherwise --cgroup is refused rather
 * than left to match nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/nsfs.h>
#include <sched.h>
#include "container.h"

/* /proc/self/ns/cgroup's inode in the initial cgroup namespace (PROC_CGROUP_INIT_INO). */
#define CGROUP_INIT_NS_INO	0xEFFFFFFBU

int container__cgroup_level(const char *mnt, const char *path, __u32 *level)
{
	size_t n = strlen(mnt);
	const char *p;
	__u32 l = 0;

	/* "/sys/fs/cgroup/" as "/sys/fs/cgroup"; "/" as "". */
	while (n > 0 && mnt[n - 1] == '/')
		n--;
	if (strncmp(path, mnt, n) || (path[n] && path[n] != '/'))
		return -EINVAL;
	/* Each component after MNT is a level: '/' followed by a name. */
	for (p = path + n; *p; p++) {
		if (*p == '/' && p[1] && p[1] != '/' && ++l > CONTAINER_MAX_LEVEL)
			return -EINVAL;
	}
	*level = l;
	return 0;
}

/* Field I (0-based, space-separated) of LINE into OUT; false if it has fewer. */
static bool field(const char *line, int i, char *out, size_t sz)
{
	const char *p = line, *end;

	for (; i > 0; i--) {
		p = strchr(p, ' ');
		if (!p)
			return false;
		p++;
	}
	end = strpbrk(p, " \n");
	if (!end)
		end = p + strlen(p);
	if ((size_t)(end - p) >= sz)
		return false;
	memcpy(out, p, end - p);
	out[end - p] = 0;
	return true;
}

int container__cgroup2_mount(const char *text, char *mnt, size_t sz, bool *whole)
{
	char root[PATH_MAX], fstype[32];
	const char *line = text, *sep;
	int n = 0;

	for (; line && *line && n < CONTAINER_MAX_MOUNTS; n++) {
		const char *next = strchr(line, '\n');

		/* ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - FSTYPE ... */
		sep = strstr(line, " - ");
		if (sep && (!next || sep < next) && field(sep + 3, 0, fstype, sizeof(fstype)) &&
		    !strcmp(fstype, "cgroup2") && field(line, 3, root, sizeof(root)) &&
		    field(line, 4, mnt, sz)) {
			*whole = !strcmp(root, "/");
			return 0;
		}
		line = next ? next + 1 : NULL;
	}
	return -ENOENT;
}

/* /proc/self/mountinfo, whole (bounded by its lines when parsed). */
static char *read_mountinfo(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	if (m) {
		while ((c = getc_unlocked(f)) != EOF && len < (64u << 20))
			putc_unlocked(c, m);
		fclose(m);
	}
	fclose(f);
	return buf;
}

/* The cgroup2 mount point into MNT; -EOPNOTSUPP if it is not the whole hierarchy. */
static int cgroup2_mount(char *mnt, size_t sz, struct ks_error *e)
{
	char *text = read_mountinfo();
	struct stat st;
	bool whole = false;
	int err;

	if (!text)
		return ks_fail(e, -EIO, "--cgroup: cannot read /proc/self/mountinfo: %s",
			       strerror(errno));
	err = container__cgroup2_mount(text, mnt, sz, &whole);
	free(text);
	if (err)
		return ks_fail(e, -EOPNOTSUPP, "--cgroup: no cgroup2 file system is mounted");
	if (!whole || (stat("/proc/self/ns/cgroup", &st) == 0 && st.st_ino != CGROUP_INIT_NS_INO))
		return ks_fail(e, -EOPNOTSUPP,
			       "--cgroup: ksnoop sees a part of the cgroup tree (a cgroup namespace); run it with the host's (cgroupns=host)");
	return 0;
}

/* The cgroup id in the directory's file handle (kernfs: 8 bytes, the node's id). */
static int cgroup_id(const char *path, __u64 *id)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0))
		return -errno;
	if (h.fh.handle_bytes != sizeof(__u64))
		return -EINVAL;
	*id = h.id;
	return 0;
}

int container__cgroup(const char *path, struct cgroup_target *t, struct ks_error *e)
{
	char mnt[PATH_MAX], real[PATH_MAX];
	struct statfs fs;
	struct stat st;
	int err;

	if (stat(path, &st))
		return ks_fail(e, errno == ENOENT ? -ENOENT : -EINVAL, "--cgroup: '%s': %s", path,
			       strerror(errno));
	if (!S_ISDIR(st.st_mode) || statfs(path, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC)
		return ks_fail(e, -EINVAL, "--cgroup: '%s' is not a cgroup v2 directory", path);
	err = cgroup2_mount(mnt, sizeof(mnt), e);
	if (err)
		return err;
	if (!realpath(path, real) || container__cgroup_level(mnt, real, &t->level))
		return ks_fail(e, -EINVAL, "--cgroup: '%s' is not under the cgroup2 mount '%s'",
			       path, mnt);
	err = cgroup_id(path, &t->id);
	if (err)
		return ks_fail(e, -EIO, "--cgroup: '%s': no cgroup id: %s", path, strerror(-err));
	return 0;
}

int container__netns(const char *arg, __u32 *ino, struct ks_error *e)
{
	unsigned long long v;
	struct stat st;
	char *end;
	int fd, type;

	if (*arg >= '0' && *arg <= '9') {
		errno = 0;
		v = strtoull(arg, &end, 10);
		if (errno || *end || !v || v > 0xffffffffULL)
			return ks_fail(e, -EINVAL, "--netns: '%s' is not a namespace's inode number (1 to 4294967295)",
				       arg);
		*ino = v;
		return 0;
	}
	fd = open(arg, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ks_fail(e, errno == ENOENT ? -ENOENT : -EINVAL, "--netns: '%s': %s", arg,
			       strerror(errno));
	type = ioctl(fd, NS_GET_NSTYPE);
	if (type != CLONE_NEWNET || fstat(fd, &st)) {
		close(fd);
		return ks_fail(e, -EINVAL, "--netns: '%s' is not a network namespace (give /run/netns/NAME, /proc/PID/ns/net or an inode number)",
			       arg);
	}
	close(fd);
	*ino = st.st_ino;
	return 0;
}

/* ---- cgroup ids to paths ---- */

struct cgroup_name {
	__u64 id;
	char *path;
};

struct cgroup_names {
	char mnt[PATH_MAX];
	int mnt_fd;		/* -1: no cgroup2 mount, ids print as numbers */
	int handle_type;
	int n;
	struct cgroup_name v[CGROUP_NAMES_CACHE];
	char buf[CGROUP_PATH_MAX];
};

struct cgroup_names *cgroup_names__new(void)
{
	struct cgroup_names *n = calloc(1, sizeof(*n));
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	bool whole;
	char *text;
	int mount_id;

	if (!n)
		return NULL;
	n->mnt_fd = -1;
	text = read_mountinfo();
	if (text && !container__cgroup2_mount(text, n->mnt, sizeof(n->mnt), &whole) &&
	    !name_to_handle_at(AT_FDCWD, n->mnt, &h.fh, &mount_id, 0)) {
		n->handle_type = h.fh.handle_type;
		n->mnt_fd = open(n->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	free(text);
	return n;
}

void cgroup_names__free(struct cgroup_names *n)
{
	int i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++)
		free(n->v[i].path);
	if (n->mnt_fd >= 0)
		close(n->mnt_fd);
	free(n);
}

/* ID's path under the mount into BUF, or -errno. */
static int lookup_path(struct cgroup_names *n, __u64 id)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64), .fh.handle_type = n->handle_type, .id = id };
	char link[64], full[PATH_MAX];
	size_t ml = strlen(n->mnt);
	ssize_t len;
	int fd;

	if (n->mnt_fd < 0)
		return -ENOENT;
	fd = open_by_handle_at(n->mnt_fd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, full, sizeof(full) - 1);
	close(fd);
	if (len < 0)
		return -errno;
	full[len] = 0;
	if (strncmp(full, n->mnt, ml) || (full[ml] && full[ml] != '/'))
		return -ENOENT;
	snprintf(n->buf, sizeof(n->buf), "%s", full[ml] ? full + ml : "/");
	return 0;
}

const char *cgroup_names__get(struct cgroup_names *n, __u64 id)
{
	static char num[24];
	int i;

	if (!n) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)id);
		return num;
	}
	for (i = 0; i < n->n; i++)
		if (n->v[i].id == id)
			return n->v[i].path;
	if (lookup_path(n, id)) {
		snprintf(n->buf, sizeof(n->buf), "%llu", (unsigned long long)id);
		return n->buf;
	}
	if (n->n < CGROUP_NAMES_CACHE) {
		n->v[n->n].path = strdup(n->buf);
		if (n->v[n->n].path) {
			n->v[n->n].id = id;
			return n->v[n->n++].path;
		}
	}
	return n->buf;
}
