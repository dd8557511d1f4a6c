// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Whether this kernel gives a program of a type a per-CPU private stack,
 * asked of the verifier directly, for live/46-ufunc-session.sh and, in
 * the x86-64 guests, vm/tests/91-ufunc-session.sh: `ksnoop
 * -v` must say uprobe programs run on the task's stack exactly where the
 * kernel would have given kprobe-type programs (uprobes are that type) a
 * private stack.  Found by what the verifier does, not by a version and
 * an architecture: 6.18's verifier here gives one to tracepoint programs
 * and not to kprobe-type ones.
 *
 * The program: a main frame and a subprogram of 504 bytes each, the one
 * calling the other.  Their combined stack (1,024 bytes) is over the
 * limit of 512, so the verifier refuses it unless each frame runs on a
 * private stack of its own (a subprogram's frame of 64 bytes or more).
 * Written here from the verifier's rule, not from ksnoop's probe.
 *
 * Usage: priv_stack kprobe|tracepoint|raw_tracepoint.  Prints "yes" or
 * "no" (and the verifier's first line on stderr); exits 2 on bad usage.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#define FRAME 504

static const struct bpf_insn two_frames[] = {
	{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -FRAME },
	{ .code = BPF_JMP | BPF_CALL, .src_reg = BPF_PSEUDO_CALL, .imm = 2 },
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
	{ .code = BPF_JMP | BPF_EXIT },
	{ .code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -FRAME },
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

int main(int argc, char **argv)
{
	static char log[16384];
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_buf = log, .log_size = sizeof(log), .log_level = 1);
	enum bpf_prog_type type;
	char *eol;
	int fd;

	if (argc != 2)
		goto usage;
	if (!strcmp(argv[1], "kprobe"))
		type = BPF_PROG_TYPE_KPROBE;
	else if (!strcmp(argv[1], "tracepoint"))
		type = BPF_PROG_TYPE_TRACEPOINT;
	else if (!strcmp(argv[1], "raw_tracepoint"))
		type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	else
		goto usage;
	fd = bpf_prog_load(type, "two_frames", "GPL", two_frames,
			   sizeof(two_frames) / sizeof(two_frames[0]), &opts);
	if (fd >= 0) {
		close(fd);
		puts("yes");
		return 0;
	}
	/* The verifier's reason, its first line: "combined stack size ... Too large". */
	eol = strchr(log, '\n');
	if (eol)
		*eol = '\0';
	fprintf(stderr, "priv_stack: %s: %s%s%s\n", argv[1], strerror(errno), log[0] ? ": " : "", log);
	puts("no");
	return 0;
usage:
	fprintf(stderr, "usage: priv_stack kprobe|tracepoint|raw_tracepoint\n");
	return 2;
}
