/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ELF files crafted against the user stack symbolizer (issue 25), written
 * by the hostile test program (usdt_hostile.c) and the unit tests
 * (tests/unit/test_usym.c):
 *
 *   nonul    one symbol table of NSYMS functions (16 bytes each from
 *            0x1000) whose STR_BIG-byte string table has no NUL
 *   overlap  100 symbol table headers over one table of NSYMS
 *   sparse   1,000 headers over a 48 MB table of zeros that is a hole
 *
 * Each has one PT_LOAD over its first 64 KB, file offset = address.
 */
#ifndef KSNOOP_HOSTILE_ELF_H
#define KSNOOP_HOSTILE_ELF_H

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NSYMS		20000
#define STR_BIG		(20u << 20)
#define SPARSE_SYMS	(2u << 20)

static void hostile_die(const char *what)
{
	perror(what);
	exit(1);
}

static void pwrite_all(int fd, const void *b, size_t n, off_t off)
{
	if (pwrite(fd, b, n, off) != (ssize_t)n)
		hostile_die("pwrite");
}

/*
 * An ELF file: one PT_LOAD over the first 64 KB, section 1 a string table
 * of STRSZ bytes at STROFF, NSYMTAB symbol table headers (sections 2...)
 * all over one table of SYMSZ bytes at SYMOFF.  The caller writes the
 * tables' contents.
 */
static void write_headers(int fd, uint64_t stroff, uint64_t strsz, uint64_t symoff,
			  uint64_t symsz, int nsymtab, uint64_t shoff)
{
	Elf64_Ehdr eh = {
		.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT },
		.e_type = ET_DYN, .e_machine = EM_X86_64, .e_version = EV_CURRENT,
		.e_phoff = sizeof(Elf64_Ehdr), .e_shoff = shoff,
		.e_ehsize = sizeof(Elf64_Ehdr), .e_phentsize = sizeof(Elf64_Phdr), .e_phnum = 1,
		.e_shentsize = sizeof(Elf64_Shdr), .e_shnum = 2 + nsymtab,
	};
	Elf64_Phdr ph = { .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_filesz = 0x10000,
			  .p_memsz = 0x10000, .p_align = 0x1000 };
	Elf64_Shdr sh[2] = { {}, { .sh_type = SHT_STRTAB, .sh_offset = stroff, .sh_size = strsz } };
	Elf64_Shdr st = { .sh_type = SHT_SYMTAB, .sh_offset = symoff, .sh_size = symsz,
			  .sh_link = 1, .sh_entsize = sizeof(Elf64_Sym), .sh_info = 1 };

	pwrite_all(fd, &eh, sizeof(eh), 0);
	pwrite_all(fd, &ph, sizeof(ph), sizeof(eh));
	pwrite_all(fd, sh, sizeof(sh), shoff);
	for (int i = 0; i < nsymtab; i++)
		pwrite_all(fd, &st, sizeof(st), shoff + (2 + i) * sizeof(st));
}

/* NSYMS functions 16 bytes apart from 0x1000, named into a table of 'A's. */
static void write_syms(int fd, uint64_t symoff, uint64_t strsz)
{
	static Elf64_Sym s[NSYMS];

	for (int i = 0; i < NSYMS; i++)
		s[i] = (Elf64_Sym){ .st_name = 1 + (uint64_t)i * 64 % (strsz - 1),
				    .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
				    .st_shndx = 1, .st_value = 0x1000 + 16 * i, .st_size = 16 };
	pwrite_all(fd, s, sizeof(s), symoff);
}

static void write_strings(int fd, uint64_t off, uint64_t n)
{
	char *b = malloc(n);

	if (!b)
		hostile_die("malloc");
	memset(b, 'A', n);
	pwrite_all(fd, b, n, off);
	free(b);
}

/* Write the ELF file of KIND (nonul, overlap, sparse) into FD, empty. */
static void craft_elf(int fd, const char *kind)
{
	const uint64_t symsz = NSYMS * sizeof(Elf64_Sym), symoff = 0x10000;

	if (!strcmp(kind, "overlap")) {
		write_headers(fd, symoff + symsz, 1 << 20, symoff, symsz, 100, 0x2000);
		write_syms(fd, symoff, 1 << 20);
		write_strings(fd, symoff + symsz, 1 << 20);
	} else if (!strcmp(kind, "sparse")) {
		write_headers(fd, 0x8000, 0x1000, 1 << 20, SPARSE_SYMS * sizeof(Elf64_Sym), 1000,
			      0x10000);
		write_strings(fd, 0x8000, 0x1000);
		if (ftruncate(fd, (1 << 20) + SPARSE_SYMS * sizeof(Elf64_Sym)))
			hostile_die("ftruncate");
	} else {
		write_headers(fd, symoff + symsz, STR_BIG, symoff, symsz, 1, 0x2000);
		write_syms(fd, symoff, STR_BIG);
		write_strings(fd, symoff + symsz, STR_BIG);
	}
}

#endif
