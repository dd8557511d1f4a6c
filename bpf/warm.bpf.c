// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Nothing to run: an object the ring buffer's thread loads once and
 * closes (ksnoop/attach/ringbuf_ahead.c).  libbpf probes the kernel the
 * first time a process loads an object (which BTF kinds it takes, global
 * data, mmapable arrays, bpf_probe_read_kernel(), binding a map to a
 * program: some 16 small loads) and keeps the answers for the process.
 * Loaded here, those probes run beside the main thread's parse of
 * vmlinux BTF instead of inside the first capture program's load.  What
 * this object holds is what makes libbpf ask: BTF with a function and a
 * data section, a .rodata variable, a call of bpf_probe_read_kernel().
 * A socket filter: a section no handler of ksnoop's takes
 * (prune_hook.c), loaded without a target, never attached.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* Zero: the read below is dead code the verifier never walks. */
const volatile __u64 warm_addr = 0;

SEC("socket")
int warm(void *ctx)
{
	__u64 v = 0;

	if (warm_addr)
		bpf_probe_read_kernel(&v, sizeof(v), (void *)warm_addr);
	return v != 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
