// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A FUSE file system that stops answering, for the symbolizer's live test
 * (tests/live/65-hostile-usym.sh, issue 25): any user can mount FUSE on a
 * stock Debian, and a reader of a file whose server has taken a request
 * and never answers sleeps uninterruptibly, through SIGKILL.
 *
 *   fuse_stall MNT FILE    mount at MNT (as root, allow_other) one file,
 *                          MNT/evil.so, with FILE's bytes; answer the first
 *                          open (the traced process maps it), then take
 *                          every request and answer none
 *
 * Speaks the kernel's FUSE protocol (<linux/fuse.h>) itself: no libfuse,
 * no fusermount.  Ends at SIGTERM; the kernel then fails what waits.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <sys/mount.h>
#include <sys/stat.h>

#define FILE_NODE	2
#define BUF_SIZE	(FUSE_MIN_READ_BUFFER + (1 << 20))

static char *data;
static size_t data_len;
static int opens;

static void reply(int fd, __u64 unique, int error, const void *body, size_t len)
{
	struct fuse_out_header oh = { .len = sizeof(oh) + len, .error = error, .unique = unique };
	char *b = malloc(sizeof(oh) + len);

	memcpy(b, &oh, sizeof(oh));
	if (len)
		memcpy(b + sizeof(oh), body, len);
	if (write(fd, b, sizeof(oh) + len) < 0 && errno != ENOENT)
		perror("fuse reply");
	free(b);
}

static void fill_attr(struct fuse_attr *a, __u64 node)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->nlink = 1;
	a->mode = node == FILE_NODE ? S_IFREG | 0755 : S_IFDIR | 0755;
	a->size = node == FILE_NODE ? data_len : 0;
	a->blocks = (a->size + 511) / 512;
	a->blksize = 4096;
}

/* The attributes of NODE, cached for an hour: no further GETATTR. */
static void attr_reply(int fd, __u64 unique, __u64 node)
{
	struct fuse_attr_out out = { .attr_valid = 3600 };

	fill_attr(&out.attr, node);
	reply(fd, unique, 0, &out, sizeof(out));
}

static void lookup(int fd, __u64 unique, const char *name)
{
	struct fuse_entry_out out = { .nodeid = FILE_NODE, .entry_valid = 3600,
				      .attr_valid = 3600 };

	if (strcmp(name, "evil.so")) {
		reply(fd, unique, -ENOENT, NULL, 0);
		return;
	}
	fill_attr(&out.attr, FILE_NODE);
	reply(fd, unique, 0, &out, sizeof(out));
}

static void do_read(int fd, __u64 unique, const struct fuse_read_in *in)
{
	size_t off = in->offset < data_len ? in->offset : data_len;
	size_t n = data_len - off < in->size ? data_len - off : in->size;

	reply(fd, unique, 0, data + off, n);
}

/* Answer one request. */
static void serve(int fd, const struct fuse_in_header *h, const void *arg)
{
	struct fuse_init_out init = { .major = FUSE_KERNEL_VERSION, .minor = 31,
				      .max_readahead = 1 << 20, .max_write = 1 << 20 };
	struct fuse_open_out open_out = { .open_flags = FOPEN_KEEP_CACHE };

	switch (h->opcode) {
	case FUSE_INIT:
		reply(fd, h->unique, 0, &init, sizeof(init));
		break;
	case FUSE_LOOKUP:
		lookup(fd, h->unique, arg);
		break;
	case FUSE_GETATTR:
		attr_reply(fd, h->unique, h->nodeid);
		break;
	case FUSE_OPEN:
		reply(fd, h->unique, 0, &open_out, sizeof(open_out));
		break;
	case FUSE_READ:
		do_read(fd, h->unique, arg);
		break;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		break;
	case FUSE_RELEASE:
	case FUSE_FLUSH:
		reply(fd, h->unique, 0, NULL, 0);
		break;
	default:
		reply(fd, h->unique, -ENOSYS, NULL, 0);
	}
}

static void load(const char *path)
{
	int fd = open(path, O_RDONLY);
	struct stat st;

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		exit(1);
	}
	data_len = st.st_size;
	data = malloc(data_len + 1);
	if (!data || read(fd, data, data_len) != (ssize_t)data_len) {
		perror("read");
		exit(1);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	char opts[128], *buf = malloc(BUF_SIZE);
	struct fuse_in_header *h = (void *)buf;
	int fd;
	ssize_t n;

	if (argc != 3 || !buf) {
		fprintf(stderr, "usage: %s MNT FILE\n", argv[0]);
		return 2;
	}
	load(argv[2]);
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("/dev/fuse");
		return 1;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other", fd);
	if (mount("fuse_stall", argv[1], "fuse.fuse_stall", MS_NOSUID | MS_NODEV, opts)) {
		perror("mount");
		return 1;
	}
	printf("mounted\n");
	fflush(stdout);
	while ((n = read(fd, buf, BUF_SIZE)) > 0 || (n < 0 && (errno == EINTR || errno == ENOENT))) {
		if (n <= 0)
			continue;
		/* The first open is the traced process's; from the second on, no answer. */
		if (h->opcode == FUSE_OPEN && opens++ >= 1)
			break;
		serve(fd, h, buf + sizeof(*h));
	}
	/* Take requests, answer none. */
	while ((n = read(fd, buf, BUF_SIZE)) > 0 || (n < 0 && (errno == EINTR || errno == ENOENT)))
		;
	return 0;
}
