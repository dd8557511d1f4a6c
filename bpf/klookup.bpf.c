// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A kernel symbol's address by name, asked of the kernel: a syscall
 * program that userspace runs with BPF_PROG_TEST_RUN.  One lookup costs
 * microseconds, where reading /proc/kallsyms costs tens of milliseconds
 * (the kernel formats every one of its ~100,000 lines), and `info FUNC` or
 * a one-function trace needs a single name.  The name and the answer pass
 * through .bss, which userspace maps.
 */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include "ksnoop.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

char name[KSNOOP_KSYM_NAME_LEN];
int name_size;		/* strlen(name) + 1: the helper wants it exact */
__u64 addr;
long err;

SEC("syscall")
int klookup(void *ctx)
{
	int size = name_size;

	if (size < 2 || size > KSNOOP_KSYM_NAME_LEN)
		err = -22;	/* -EINVAL */
	else
		err = bpf_kallsyms_lookup_name(name, size, 0, &addr);
	return 0;
}
