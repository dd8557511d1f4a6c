// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "klookup.skel.h"
#include "klookup.h"

struct klookup {
	struct klookup_bpf *skel;
	/* vmlinux's text and init text, to tell its symbols from modules' */
	__u64 stext, etext, sinittext, einittext;
};

void klookup__close(struct klookup *kl)
{
	if (!kl)
		return;
	klookup_bpf__destroy(kl->skel);
	free(kl);
}

int klookup__find(struct klookup *kl, const char *name, __u64 *addr)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	size_t len = strlen(name);
	int err;

	if (len == 0 || len >= sizeof(kl->skel->bss->name))
		return -ENOENT;
	memcpy(kl->skel->bss->name, name, len + 1);
	kl->skel->bss->name_size = len + 1;
	kl->skel->bss->addr = 0;
	kl->skel->bss->err = -EIO;
	err = bpf_prog_test_run_opts(bpf_program__fd(kl->skel->progs.klookup), &opts);
	if (err)
		return -errno;
	if (kl->skel->bss->err)
		return kl->skel->bss->err;
	*addr = kl->skel->bss->addr;
	/* Addresses hidden from the caller read as 0: no answer, not "none". */
	return *addr ? 0 : -EPERM;
}

int klookup__in_vmlinux_text(const struct klookup *kl, __u64 addr)
{
	return (addr >= kl->stext && addr < kl->etext) ||
	       (addr >= kl->sinittext && addr < kl->einittext);
}

struct klookup *klookup__open(void)
{
	struct klookup *kl = calloc(1, sizeof(*kl));
	int err;

	if (!kl)
		return NULL;
	kl->skel = klookup_bpf__open_and_load();
	if (!kl->skel) {
		err = -errno;
		goto fail;
	}
	err = klookup__find(kl, "_stext", &kl->stext);
	err = err ?: klookup__find(kl, "_etext", &kl->etext);
	if (!err && kl->stext >= kl->etext)
		err = -ERANGE;
	/* __init functions (BTF has them, and kallsyms): without, kallsyms says. */
	if (!err && (klookup__find(kl, "_sinittext", &kl->sinittext) ||
		     klookup__find(kl, "_einittext", &kl->einittext)))
		kl->sinittext = kl->einittext = 0;
	if (!err)
		return kl;
fail:
	klookup__close(kl);
	errno = err == -ENOENT ? EOPNOTSUPP : -err;
	return NULL;
}
