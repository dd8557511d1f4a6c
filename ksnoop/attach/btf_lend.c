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
 * Where ksnoop has no parse of its own to lend (USDT probes and user
 * functions do not open vmlinux BTF), the first load's parse is made
 * here, as ksnoop's own is (kbtf__parse_file(): the file mapped, where
 * libbpf reads it through stdio in 4 KiB pieces, 40 % of a USDT probe's
 * start-up), kept and lent to the loads after it: hotspot:* loads 19
 * instances.  libbpf's own parse is left for where sysfs has none.
 */
#include <stdbool.h>
#include <stddef.h>
#include <bpf/btf.h>
#include "btf_lend.h"
#include "kbtf.h"

struct btf *__real_btf__load_vmlinux_btf(void);
void __real_btf__free(struct btf *btf);
struct btf *__wrap_btf__load_vmlinux_btf(void);
void __wrap_btf__free(struct btf *btf);

#define SYSFS_VMLINUX	"/sys/kernel/btf/vmlinux"

static const struct btf *lent;	/* ksnoop's, between begin and end */
static struct btf *kept;	/* libbpf's first parse, between begin and end */
static bool lending;
static int nlent, nparsed;

void btf_lend__begin(const struct btf *btf)
{
	lent = btf;
	lending = true;
}

void btf_lend__end(void)
{
	lent = NULL;
	lending = false;
}

const struct btf *btf_lend__vmlinux(void)
{
	if (!kept) {
		nparsed++;
		kept = kbtf__parse_file(SYSFS_VMLINUX) ?: __real_btf__load_vmlinux_btf();
	}
	return kept;
}

void btf_lend__release(void)
{
	__real_btf__free(kept);
	kept = NULL;
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
	if (!lending) {
		nparsed++;
		return __real_btf__load_vmlinux_btf();
	}
	if (kept)
		nlent++;
	return (struct btf *)btf_lend__vmlinux();
}

void __wrap_btf__free(struct btf *btf)
{
	if (btf && (btf == lent || btf == kept))
		return;
	__real_btf__free(btf);
}
