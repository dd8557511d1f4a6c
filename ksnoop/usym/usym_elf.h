/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The bounded ELF symbol reader (usym_elf.c): an ELF file's load segments
 * and function symbols, read by pread() with every size checked first.
 * The user stack symbolizer names addresses with it; the USDT site writer
 * (usdt_specs.c) finds semaphores and file offsets with it.
 */
#ifndef KSNOOP_USYM_ELF_H
#define KSNOOP_USYM_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "usym.h"

struct usym_sym {
	__u64 addr;
	__u64 size;
	__u32 name;		/* offset in strtab */
	bool ifunc;		/* STT_GNU_IFUNC: the resolver, not what calls run */
};

struct usym_load {
	__u64 off, filesz, vaddr;
};

/* What one ELF file gives: its load segments and function symbols. */
struct usym_obj {
	__u64 dev, ino;
	__u64 used;		/* cache tick of the last use */
	struct usym_sym *syms;
	size_t nsyms;
	char *strtab;		/* a copy, its last byte forced to NUL */
	size_t strtab_len;
	int nloads;
	struct usym_load loads[USYM_MAX_LOADS];
	/* Its symbols are .symtab's (else .dynsym's: stripped); its GNU build-id */
	bool full_symtab;
	__u8 build_id_len;
	__u8 build_id[USYM_MAX_BUILD_ID];
	/* An executable (ET_EXEC, or a PIE), not a library; its PT_TLS (the first) */
	bool is_exec, has_tls;
	__u64 tls_memsz, tls_align;
	/* Written by Go's linker (a .go.buildinfo or .note.go.buildid section) */
	bool is_go;
};

/*
 * Read the ELF file FD (SIZE bytes) or the buffer BUF (SIZE bytes, FD < 0)
 * into O, by pread() of the pieces needed, each size-checked before it is
 * read: never mapped, so a file cut short under us is an error, not a
 * SIGBUS.  0, or a negative errno: O then holds what could be used (maybe
 * nothing) and must be freed all the same.
 */
int usym_obj__read(struct usym_obj *o, int fd, const void *buf, __u64 size);
void usym_obj__free(struct usym_obj *o);

/*
 * The symbols of O's separate debug file FD (SIZE bytes: the file
 * /usr/lib/debug/.build-id/NN/REST.debug names by O's build-id, libc6-dbg's
 * for glibc), with the same checks and limits: used in place of O's own
 * when its build-id is O's and it has a .symtab.  O keeps its own load
 * segments (the debug file's hold no bytes).  0, or a negative errno and O
 * unchanged.
 */
int usym_obj__read_debug(struct usym_obj *o, int fd, __u64 size);
/* Bytes O keeps (for the cache's limit). */
size_t usym_obj__bytes(const struct usym_obj *o);
bool usym_obj__vaddr(const struct usym_obj *o, __u64 off, __u64 *vaddr);
/* The function holding VADDR, or NULL. */
const struct usym_sym *usym_obj__find(const struct usym_obj *o, __u64 vaddr);
/* A symbol's name, at most USYM_MAX_NAME - 1 bytes of it (see %.*s). */
int usym_obj__name_len(const struct usym_obj *o, const struct usym_sym *s);

/* The file offset of the link-time address VADDR in the file (a PT_LOAD of O's). */
bool usym_obj__file_off(const struct usym_obj *o, __u64 vaddr, __u64 *off);

/* A symbol looked up by name. */
struct usym_named {
	const char *name;
	__u64 addr;		/* its link-time address, if found */
	bool found;
	bool ambiguous;		/* two symbols of the name, at two addresses */
	bool tls;		/* a TLS symbol: its value, the offset in the TLS segment */
};

/*
 * The load segments of the ELF file FD (SIZE bytes) into O, and the
 * symbols LOOK names (NLOOK of them, sorted by name, without duplicates)
 * looked up in its one symbol table (.symtab, else .dynsym), with the
 * limits and checks of usym_obj__read().  Defined data or code symbols
 * only (not TLS, not absolute).  0 or a negative errno; O is freed with
 * usym_obj__free() either way.
 */
int usym_elf__lookup(int fd, __u64 size, struct usym_named *look, size_t nlook,
		     struct usym_obj *o);

#endif
