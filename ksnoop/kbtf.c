// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "kbtf.h"

struct kbtf_module {
	char *name;
	struct btf *btf;
};

struct kbtf {
	char *dir;
	struct btf *vmlinux;
	struct kbtf_module *mods;
	int nmods;
	int all_loaded;		/* every module in dir has been tried */
	int user_tags;		/* -1: not looked yet; else vmlinux has __user tags */
};

struct kbtf *kbtf__open(const char *dir)
{
	char path[PATH_MAX];
	struct kbtf *kb;
	int err;

	kb = calloc(1, sizeof(*kb));
	if (!kb)
		return NULL;
	kb->user_tags = -1;
	kb->dir = strdup(dir ? dir : "/sys/kernel/btf");
	if (!kb->dir)
		goto nomem;
	snprintf(path, sizeof(path), "%s/vmlinux", kb->dir);
	kb->vmlinux = btf__parse(path, NULL);
	if (!kb->vmlinux) {
		err = errno;
		kbtf__free(kb);
		errno = err;
		return NULL;
	}
	return kb;
nomem:
	kbtf__free(kb);
	errno = ENOMEM;
	return NULL;
}

struct kbtf *kbtf__from_btf(struct btf *vmlinux)
{
	struct kbtf *kb = calloc(1, sizeof(*kb));

	if (!kb)
		return NULL;
	kb->vmlinux = vmlinux;
	kb->all_loaded = 1;
	kb->user_tags = -1;
	return kb;
}

void kbtf__free(struct kbtf *kb)
{
	int i;

	if (!kb)
		return;
	for (i = 0; i < kb->nmods; i++) {
		free(kb->mods[i].name);
		btf__free(kb->mods[i].btf);
	}
	free(kb->mods);
	btf__free(kb->vmlinux);
	free(kb->dir);
	free(kb);
}

bool kbtf__user_tags(struct kbtf *kb)
{
	if (kb->user_tags < 0)
		kb->user_tags = btfu_has_user_tags(kb->vmlinux);
	return kb->user_tags;
}

struct btf *kbtf__vmlinux(struct kbtf *kb)
{
	return kb->vmlinux;
}

struct btf *kbtf__module(struct kbtf *kb, const char *module)
{
	struct kbtf_module *m;
	char path[PATH_MAX];
	struct btf *btf;
	int i;

	for (i = 0; i < kb->nmods; i++)
		if (strcmp(kb->mods[i].name, module) == 0) {
			if (!kb->mods[i].btf)
				errno = ENOENT;
			return kb->mods[i].btf;
		}
	if (!kb->dir || strchr(module, '/') || strcmp(module, "vmlinux") == 0) {
		errno = ENOENT;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/%s", kb->dir, module);
	btf = btf__parse_split(path, kb->vmlinux);
	/* Remember failures too, so a missing module is looked up once. */
	m = realloc(kb->mods, (kb->nmods + 1) * sizeof(*m));
	if (!m) {
		btf__free(btf);
		errno = ENOMEM;
		return NULL;
	}
	kb->mods = m;
	m[kb->nmods].name = strdup(module);
	if (!m[kb->nmods].name) {
		btf__free(btf);
		errno = ENOMEM;
		return NULL;
	}
	m[kb->nmods++].btf = btf;
	if (!btf)
		errno = ENOENT;
	return btf;
}

static void load_all_modules(struct kbtf *kb)
{
	struct dirent *de;
	DIR *d;

	if (kb->all_loaded)
		return;
	kb->all_loaded = 1;
	d = opendir(kb->dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "vmlinux") == 0)
			continue;
		kbtf__module(kb, de->d_name);
	}
	closedir(d);
}

static int find_in(struct btf *btf, const char *name, __u32 *id)
{
	__s32 r = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);

	if (r < 0)
		return -ENOENT;
	/* In split BTF, a hit below the start id belongs to vmlinux. */
	if (btf__base_btf(btf) && (__u32)r < btf__type_cnt(btf__base_btf(btf)))
		return -ENOENT;
	*id = r;
	return 0;
}

int kbtf__find_func(struct kbtf *kb, const char *name, const char *module,
		    int search_all, struct btf **btf, __u32 *id,
		    const char **module_out)
{
	struct btf *b;
	int i;

	if (module) {
		b = kbtf__module(kb, module);
		if (b && find_in(b, name, id) == 0) {
			*btf = b;
			*module_out = module;
			return 0;
		}
	}
	if (find_in(kb->vmlinux, name, id) == 0) {
		*btf = kb->vmlinux;
		*module_out = NULL;
		return 0;
	}
	if (!search_all)
		return -ENOENT;
	load_all_modules(kb);
	for (i = 0; i < kb->nmods; i++) {
		if (kb->mods[i].btf && find_in(kb->mods[i].btf, name, id) == 0) {
			*btf = kb->mods[i].btf;
			*module_out = kb->mods[i].name;
			return 0;
		}
	}
	return -ENOENT;
}

void kbtf__for_each(struct kbtf *kb, void (*fn)(struct btf *btf, const char *module, void *ctx),
		    void *ctx)
{
	int i;

	fn(kb->vmlinux, NULL, ctx);
	for (i = 0; i < kb->nmods; i++)
		if (kb->mods[i].btf)
			fn(kb->mods[i].btf, kb->mods[i].name, ctx);
}
