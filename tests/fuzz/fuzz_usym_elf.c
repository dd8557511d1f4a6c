// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: the user stack symbolizer's ELF reader
 * (usym_obj__read(), ksnoop/usym/usym_elf.c) on whole files, which a traced
 * process may have crafted (issue 25).  Read from a buffer and again
 * through a file descriptor (the pread() path ksnoop takes), the two must
 * agree; what is kept is bounded by the input (the string table copied
 * once, one entry per function symbol, nothing else); every symbol's
 * name lies inside the strings, which end in a NUL; lookups stay inside;
 * lookups by name (usym_elf__lookup()) end and keep their strings ended;
 * the file read again as its own debug file (build-id matched, .symtab
 * taken: usym_obj__read_debug()) keeps the same bounds.
 * libFuzzer's -timeout and -rss_limit_mb catch work or memory that grows
 * faster than the file.
 */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "usym_int.h"

#define check(cond) do { if (!(cond)) __builtin_trap(); } while (0)

static int memfd_of(const uint8_t *data, size_t size)
{
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("ksnoop-fuzz-usym", MFD_CLOEXEC);
		if (fd < 0) {
			perror("memfd_create");
			abort();
		}
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
		perror("memfd write");
		abort();
	}
	return fd;
}

static void check_obj(const struct usym_obj *o, size_t size)
{
	check(o->nloads >= 0 && o->nloads <= USYM_MAX_LOADS);
	check(o->nsyms <= USYM_MAX_SYMS && o->nsyms <= size / sizeof(Elf32_Sym));
	check(o->strtab_len <= size && o->strtab_len <= USYM_MAX_STRTAB);
	check(!o->nsyms || (o->strtab && o->strtab[o->strtab_len - 1] == 0));
	check(usym_obj__bytes(o) <= sizeof(*o) + 2 * size + o->nsyms * sizeof(*o->syms));
	for (size_t i = 0; i < o->nsyms; i++) {
		check(o->syms[i].name && o->syms[i].name < o->strtab_len);
		check(i == 0 || o->syms[i - 1].addr <= o->syms[i].addr);
		check(usym_obj__name_len(o, &o->syms[i]) < USYM_MAX_NAME);
	}
}

/* Names for the addresses of a few symbols and around them: inside. */
static void check_lookups(const struct usym_obj *o)
{
	for (size_t i = 0; i < o->nsyms && i < 64; i++) {
		__u64 at[3] = { o->syms[i].addr, o->syms[i].addr + 1, o->syms[i].addr - 1 };

		for (int k = 0; k < 3; k++) {
			const struct usym_sym *s = usym_obj__find(o, at[k]);

			check(!s || (s >= o->syms && s < o->syms + o->nsyms && s->addr <= at[k]));
		}
	}
	for (int i = 0; i < o->nloads; i++) {
		__u64 vaddr;

		if (usym_obj__vaddr(o, o->loads[i].off, &vaddr))
			usym_obj__find(o, vaddr);
	}
}

/*
 * Symbols by name (usym_elf__lookup(), for USDT locations): what it finds
 * is what the function-symbol reader sees of the same file, and the load
 * segments are the same.
 */
static void check_named(const uint8_t *data, size_t size)
{
	struct usym_named look[3] = { { .name = "" }, { .name = "f" }, { .name = "main" } };
	struct usym_obj o = {};
	int err = usym_elf__lookup(memfd_of(data, size), size, look, 3, &o);
	__u64 off;

	check(err <= 0);
	check(o.nloads >= 0 && o.nloads <= USYM_MAX_LOADS);
	check(!o.strtab_len || o.strtab[o.strtab_len - 1] == 0);
	for (int i = 0; i < 3; i++)
		check(!look[i].ambiguous || look[i].found);
	for (int i = 0; i < 3; i++)
		if (look[i].found && usym_obj__file_off(&o, look[i].addr, &off))
			check(off < UINT64_MAX);
	usym_obj__free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usym_obj a = {}, b = {};
	int ea = usym_obj__read(&a, -1, data, size);
	int eb = usym_obj__read(&b, memfd_of(data, size), NULL, size);

	check(ea <= 0 && ea == eb && a.nsyms == b.nsyms && a.nloads == b.nloads);
	check(!a.nsyms || !memcmp(a.syms, b.syms, a.nsyms * sizeof(*a.syms)));
	check(ea == 0 || (a.nsyms == 0 && !a.strtab));
	check(a.build_id_len <= USYM_MAX_BUILD_ID && a.build_id_len == b.build_id_len);
	check_obj(&a, size);
	check_lookups(&a);
	/* The file as its own debug file: same build-id, its .symtab (if any) taken. */
	if (!usym_obj__read_debug(&b, memfd_of(data, size), size)) {
		check(b.full_symtab && b.nsyms);
		check_obj(&b, size);
		check_lookups(&b);
	}
	usym_obj__free(&a);
	usym_obj__free(&b);
	check_named(data, size);
	return 0;
}
