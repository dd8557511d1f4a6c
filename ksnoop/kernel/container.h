/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a container is to ksnoop: a cgroup v2 directory (--cgroup, the
 * task's cgroup of each event, --by cgroup) and a network namespace
 * (--netns).  Userspace only: the programs compare ids the plan holds.
 */
#ifndef KSNOOP_CONTAINER_H
#define KSNOOP_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "ks_error.h"

/*
 * Levels below the root a cgroup path may have: the kernel sets no limit
 * by default (cgroup.max.depth), systemd's and Kubernetes' trees are 3 to
 * 6 deep; a walk over a path stops here.
 */
#define CONTAINER_MAX_LEVEL	64
/* Lines of /proc/self/mountinfo read to find the cgroup2 mount. */
#define CONTAINER_MAX_MOUNTS	65536
/* cgroup ids whose path is kept (--by cgroup rows, -v events); more are looked up each time. */
#define CGROUP_NAMES_CACHE	256
#define CGROUP_PATH_MAX		4096

/* --cgroup PATH: the cgroup's id (its kernfs node: the directory's handle) and level. */
struct cgroup_target {
	__u64 id;
	__u32 level;
};

/*
 * PATH as a cgroup v2 directory.  -ENOENT: it does not exist; -EINVAL:
 * it is not a directory of a cgroup2 file system; -EOPNOTSUPP (exit 1):
 * ksnoop sees the hierarchy from a cgroup namespace or a mount of a
 * subtree, so the level BPF needs is not known.  E says which, one line.
 */
int container__cgroup(const char *path, struct cgroup_target *t, struct ks_error *e);

/*
 * The level of the cgroup at PATH (canonical, no "." or "..") under the
 * cgroup2 mount at MNT: its components after MNT.  -EINVAL: PATH is not
 * under MNT, or deeper than CONTAINER_MAX_LEVEL.
 */
int container__cgroup_level(const char *mnt, const char *path, __u32 *level);

/*
 * The mount point of the cgroup2 file system in TEXT (mountinfo's lines),
 * into MNT (SZ bytes), and whether it mounts the hierarchy's root (*WHOLE).
 * -ENOENT: none.
 */
int container__cgroup2_mount(const char *text, char *mnt, size_t sz, bool *whole);

/*
 * --netns INODE|PATH: a network namespace's inode number, given as such
 * or as a file of one (/run/netns/NAME, /proc/PID/ns/net).  -EINVAL: not
 * a number above 0 nor a network namespace; -ENOENT: no such file.
 */
int container__netns(const char *arg, __u32 *ino, struct ks_error *e);

/*
 * Cgroup ids named by their paths under the cgroup2 root ("/",
 * "/system.slice/x.service"), as /proc/PID/cgroup writes them: looked up
 * through the kernel's file handle of the id (open_by_handle_at(), as
 * root), kept per id.  An id that names nothing (a cgroup removed since)
 * is its number.
 */
struct cgroup_names;
struct cgroup_names *cgroup_names__new(void);
void cgroup_names__free(struct cgroup_names *n);
/* ID's path (or number), valid until the next call. */
const char *cgroup_names__get(struct cgroup_names *n, __u64 id);

#endif
