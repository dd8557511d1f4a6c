// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ksnoop info TARGET...`: what a target takes, as C would declare it.
 * The declaration comes from libbpf's btf_dump, so function pointers,
 * arrays and qualifiers are spelled exactly as in C.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "btf_util.h"
#include "cli.h"
#include "log.h"
#include "target.h"

static void print_tp(const struct signature *sig)
{
	char buf[512];
	int i;

	printf("%s(", sig->name);
	for (i = 0; i < sig->nparams; i++)
		printf("%s%s", i ? ", " : "",
		       btfu_type_str(sig->btf, sig->params[i].type_id, sig->params[i].name,
				     buf, sizeof(buf)));
	printf(");\n");
}

static int print_tp_cb(const struct signature *sig, void *ctx)
{
	(void)ctx;
	print_tp(sig);
	return 0;
}

static int info_tp(struct kernel *k, const char *name)
{
	struct signature sig;
	char msg[512];
	int err;

	if (strpbrk(name, "*?[")) {
		err = kernel__tp_glob(k, name, print_tp_cb, NULL);
		if (err == -ENOENT) {
			log_error("no tracepoint matches 'tp:%s'", name);
			return KSNOOP_EXIT_USAGE;
		}
		return err ? KSNOOP_EXIT_RUNTIME : 0;
	}
	err = kernel__tp(k, name, &sig, msg, sizeof(msg));
	if (err) {
		log_error("%s", msg);
		return err == -ENOENT ? KSNOOP_EXIT_USAGE : KSNOOP_EXIT_RUNTIME;
	}
	print_tp(&sig);
	return 0;
}

static int info_func(struct kernel *k, const char *name)
{
	struct signature sig = {};
	char msg[512], decl[1024];
	int err;

	err = kernel__func(k, name, &sig, msg, sizeof(msg));
	if (err == -ENOENT || (err && !sig.btf)) {
		log_error("%s", msg);
		return err == -ENOENT ? KSNOOP_EXIT_USAGE : KSNOOP_EXIT_RUNTIME;
	}
	log_info("%s: BTF from %s", name, sig.module ? sig.module : "vmlinux");
	btfu_type_str(sig.btf, sig.proto_id, sig.name, decl, sizeof(decl));
	/* C23 aside, "f()" is not "f(void)": say no arguments the C way. */
	if (sig.nparams == 0 && !sig.variadic) {
		size_t len = strlen(decl);

		if (len >= 2 && strcmp(decl + len - 2, "()") == 0 && len + 4 < sizeof(decl))
			strcpy(decl + len - 2, "(void)");
	}
	if (err)
		printf("%s; /* cannot be traced: %s */\n", decl, msg);
	else
		printf("%s;\n", decl);
	return 0;
}

int do_info(int argc, char **argv, const struct options *opts)
{
	struct kernel k = { .btf_dir = opts->btf_dir };
	int i, ret = 0, r;
	char msg[512];

	if (argc < 1) {
		log_error("info: expected at least one function or tp:TRACEPOINT");
		return KSNOOP_EXIT_USAGE;
	}
	if (kernel__open(&k, msg, sizeof(msg))) {
		log_error("%s", msg);
		kernel__close(&k);
		return KSNOOP_EXIT_RUNTIME;
	}
	for (i = 0; i < argc; i++) {
		if (strncmp(argv[i], "tp:", 3) == 0)
			r = info_tp(&k, argv[i] + 3);
		else
			r = info_func(&k, argv[i]);
		/* Keep going, report the worst: a usage error beats a runtime one. */
		if (r > ret)
			ret = r;
	}
	kernel__close(&k);
	return ret;
}
