// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* System call numbers by event name (sysnr.h). */
#include <asm/unistd.h>
#include <stddef.h>
#include <string.h>
#include "sysnr.h"

/*
 * Calls newer than the build's headers (bookworm's are 6.1's): since 5.1
 * a new call has one number on every architecture but alpha.  Checked on
 * 6.18 against each event's __syscall_nr.
 */
#ifndef __NR_cachestat
#define __NR_cachestat		451
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2		452
#endif
#ifndef __NR_futex_wake
#define __NR_futex_wake		454
#define __NR_futex_wait		455
#define __NR_futex_requeue	456
#endif
#ifndef __NR_statmount
#define __NR_statmount		457
#define __NR_listmount		458
#endif
#ifndef __NR_lsm_get_self_attr
#define __NR_lsm_get_self_attr	459
#define __NR_lsm_set_self_attr	460
#define __NR_lsm_list_modules	461
#endif
#ifndef __NR_mseal
#define __NR_mseal		462
#endif
#ifndef __NR_setxattrat
#define __NR_setxattrat		463
#define __NR_getxattrat		464
#define __NR_listxattrat	465
#define __NR_removexattrat	466
#endif
#ifndef __NR_open_tree_attr
#define __NR_open_tree_attr	467
#endif
#ifndef __NR_file_getattr
#define __NR_file_getattr	468
#define __NR_file_setattr	469
#endif

struct sysnr {
	const char *name;
	int nr;
};

#define SYSNR(n) { #n, __NR_##n },
static const struct sysnr from_headers[] = {
#include "sysnr_names.h"
};

/* Events named apart from their numbers, and the calls added since 6.1. */
static const struct sysnr by_event[] = {
#ifdef __NR_stat
	{ "newstat", __NR_stat },
#endif
#ifdef __NR_lstat
	{ "newlstat", __NR_lstat },
#endif
	{ "newfstat", __NR_fstat },
	{ "newuname", __NR_uname },
	{ "umount", __NR_umount2 },
	{ "sendfile64", __NR_sendfile },
	{ "cachestat", __NR_cachestat },
	{ "fchmodat2", __NR_fchmodat2 },
	{ "futex_wake", __NR_futex_wake },
	{ "futex_wait", __NR_futex_wait },
	{ "futex_requeue", __NR_futex_requeue },
	{ "statmount", __NR_statmount },
	{ "listmount", __NR_listmount },
	{ "lsm_get_self_attr", __NR_lsm_get_self_attr },
	{ "lsm_set_self_attr", __NR_lsm_set_self_attr },
	{ "lsm_list_modules", __NR_lsm_list_modules },
	{ "mseal", __NR_mseal },
	{ "setxattrat", __NR_setxattrat },
	{ "getxattrat", __NR_getxattrat },
	{ "listxattrat", __NR_listxattrat },
	{ "removexattrat", __NR_removexattrat },
	{ "open_tree_attr", __NR_open_tree_attr },
	{ "file_getattr", __NR_file_getattr },
	{ "file_setattr", __NR_file_setattr },
#if defined(__x86_64__)
	/* x86-64's own, 6.11 and 6.16 */
	{ "uretprobe", 335 },
	{ "uprobe", 336 },
#endif
};

static int lookup(const struct sysnr *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return v[i].nr;
	return -1;
}

int sysnr__of(const char *name)
{
	int nr = lookup(by_event, sizeof(by_event) / sizeof(by_event[0]), name);

	if (nr < 0)
		nr = lookup(from_headers, sizeof(from_headers) / sizeof(from_headers[0]), name);
	return nr >= 0 && nr < SYSNR_MAX ? nr : -1;
}
