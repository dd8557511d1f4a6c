// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "ksnoop.h"
#include "klookup.skel.h"
#include "ksymscan.skel.h"
#include "log.h"
#include "klookup.h"

struct klookup {
	struct klookup_bpf *skel;
	/* vmlinux's text and init text, to tell its symbols from modules' */
	__u64 stext, etext, sinittext, einittext;
	/* ksymscan.bpf.c's iterator: loaded at the first search (scan_state 1), or not (-1) */
	struct ksymscan_bpf *scan;
	int scan_state;
};

static void (*lend_begin)(const struct btf *btf);
static void (*lend_end)(void);

void klookup__set_btf_lender(void (*begin)(const struct btf *btf), void (*end)(void))
{
	lend_begin = begin;
	lend_end = end;
}

void klookup__close(struct klookup *kl)
{
	if (!kl)
		return;
	klookup_bpf__destroy(kl->skel);
	ksymscan_bpf__destroy(kl->scan);
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

/*
 * The iterator loaded, the first time: with VMLINUX (ksnoop's parse of its
 * BTF) lent to libbpf for its CO-RE offsets and attach target, where the
 * program's owner set a lender (else libbpf parses its own).  -v says
 * which way names are searched for.  KSNOOP_KSYM_ITER=0: never (the tests
 * compare both ways).
 */
static struct ksymscan_bpf *scan_prog(struct klookup *kl, const struct btf *vmlinux)
{
	const char *env = getenv("KSNOOP_KSYM_ITER");
	int err;

	if (kl->scan_state)
		return kl->scan;
	kl->scan_state = -1;
	if (env && strcmp(env, "0") == 0) {
		log_info("kallsyms: namesakes searched for in /proc/kallsyms' text (KSNOOP_KSYM_ITER=0)");
		return NULL;
	}
	if (vmlinux && lend_begin)
		lend_begin(vmlinux);
	kl->scan = ksymscan_bpf__open_and_load();
	err = kl->scan ? 0 : -errno;
	if (vmlinux && lend_end)
		lend_end();
	if (err) {
		log_info("kallsyms: namesakes searched for in /proc/kallsyms' text (the kernel's iterator: %s)",
			 strerror(-err));
		return NULL;
	}
	kl->scan_state = 1;
	log_info("kallsyms: namesakes searched for by the kernel's iterator (iter/ksym), not in /proc/kallsyms");
	return kl->scan;
}

/*
 * Hit H into OUT (see klookup.h) for every name it is whole: the one whose
 * key found it, and any other sharing that key (the first
 * KSNOOP_KSYM_PREFIX bytes of a long name: HUF_compress1X_usingCTable_-
 * internal_bmi2 and ..._default), or the same name told twice.
 */
static void take_hit(const struct ksnoop_ksym_hit *h, const char *const *names, int nnames,
		     const char *types, struct ksym_found *out, int max, int *counts)
{
	struct ksym_found *f;
	int i;

	if (h->want >= (__u32)nnames || !h->type || !strchr(types, h->type))
		return;
	for (i = 0; i < nnames; i++) {
		if (strncmp(h->name, names[i], sizeof(h->name)) != 0 || counts[i]++ >= max)
			continue;
		f = &out[(size_t)i * max + counts[i] - 1];
		f->addr = h->addr;
		snprintf(f->module, sizeof(f->module), "%.*s", (int)sizeof(f->module) - 1, h->module);
	}
}

/* NAME's key in the iterator's map (include/ksnoop.h). */
static void name_key(const char *name, size_t len, struct ksnoop_ksym_key *key)
{
	memset(key, 0, sizeof(*key));
	memcpy(key->prefix, name, len < KSNOOP_KSYM_PREFIX ? len : KSNOOP_KSYM_PREFIX);
	key->len = len < KSNOOP_KSYM_PREFIX ? len : KSNOOP_KSYM_LONG;
}

int klookup__scan(struct klookup *kl, const struct btf *vmlinux, const char *const *names,
		  int nnames, const char *types, struct ksym_found *out, int max, int *counts)
{
	struct ksymscan_bpf *skel = kl ? scan_prog(kl, vmlinux) : NULL;
	struct ksnoop_ksym_key key, next;
	struct bpf_link *link;
	int i, fd, mfd, err = 0;
	char buf[256];
	size_t len;
	__u32 n, pair;
	ssize_t r;

	if (!skel || nnames > KSNOOP_KSYM_SCAN_MAX)
		return -EOPNOTSUPP;
	mfd = bpf_map__fd(skel->maps.want);
	/* The last walk's names out, these in. */
	memset(skel->bss->pairs, 0, sizeof(skel->bss->pairs));
	while (!bpf_map_get_next_key(mfd, NULL, &next))
		if (bpf_map_delete_elem(mfd, &next))
			return -errno;
	for (i = 0; i < nnames; i++) {
		len = strlen(names[i]);
		if (!len || len >= KSNOOP_KSYM_SCAN_NAME)
			return -EOPNOTSUPP;
		name_key(names[i], len, &key);
		pair = KSNOOP_KSYM_PAIR(names[i][0], names[i][1]);
		skel->bss->pairs[pair / 64] |= 1ULL << (pair % 64);
		n = i;
		/* A key already there finds this name's symbols too (take_hit()). */
		if (bpf_map_update_elem(mfd, &key, &n, BPF_NOEXIST) && errno != EEXIST)
			return -errno;
		counts[i] = 0;
	}
	skel->bss->nhits = 0;
	skel->bss->unread = 0;
	link = bpf_program__attach_iter(skel->progs.ksym_scan, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		err = -errno;
	/* The program writes nothing out: reading to the end is the walk. */
	while (!err && (r = read(fd, buf, sizeof(buf))) != 0)
		if (r < 0 && errno != EINTR)
			err = -errno;
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	if (err)
		return err;
	n = skel->bss->nhits;
	if (n > KSNOOP_KSYM_SCAN_HITS || skel->bss->unread)
		return -EOPNOTSUPP;
	for (i = 0; i < (int)n; i++)
		take_hit(&skel->bss->hits[i], names, nnames, types, out, max, counts);
	return 0;
}
