// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libbpf 1.5 reads and parses vmlinux BTF in every bpf_object__load() (and
 * in bpf_program__set_attach_target()) and frees it when the load ends:
 * for one tracepoint natively that was 30 % of ksnoop's CPU time from
 * exec to attached (1,350 reads of 4 KiB from sysfs, a copy, a parse and
 * the fresh pages of both), on top of ksnoop's own parse of the same
 * file, and it is paid again for every program instance (112 for
 * sys:*).  libbpf 1.5 takes no parsed BTF (btf_custom_path is a file, and
 * only for CO-RE), so the two calls are wrapped at link time; libbpf only
 * reads the BTF it gets (type and name lookups, the base of module BTF).
 */
#include <stddef.h>
#include <bpf/btf.h>
#include "btf_lend.h"

struct btf *__real_btf__load_vmlinux_btf(void);
void __real_btf__free(struct btf *btf);
struct btf *__wrap_btf__load_vmlinux_btf(void);
void __wrap_btf__free(struct btf *btf);

static const struct btf *lent;
static int nlent, nparsed;

void btf_lend__begin(const struct btf *btf)
{
	lent = btf;
}

void btf_lend__end(void)
{
	lent = NULL;
}

int btf_lend__lent(void)
{
	return nlent;
}

int btf_lend__parsed(void)
{
	return nparsed;
}

struct btf *__wrap_btf__load_vmlinux_btf(void)
{
	if (lent) {
		nlent++;
		return (struct btf *)lent;
	}
	nparsed++;
	return __real_btf__load_vmlinux_btf();
}

void __wrap_btf__free(struct btf *btf)
{
	if (btf && btf == lent)
		return;
	__real_btf__free(btf);
}
