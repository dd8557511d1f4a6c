// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: SDT notes, wrapped in a well-formed ELF file.
 *
 * Fuzzing whole files (fuzz_usdt_elf) spends most inputs on headers libelf
 * rejects.  Here the first input byte picks the ELF class (32 or 64 bits)
 * and the rest is the raw content of one SHT_NOTE section: note headers,
 * owner names and descriptors (three addresses, provider, name and the
 * argument string), all of it the fuzzer's.  The file around it is built
 * correctly, so every input reaches ksnoop's own note parsing.
 */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include "fuzz_usdt.h"

/* Section names: "" (null section), the notes, the name table itself. */
static const char shstrtab[] = "\0.note.stapsdt\0.shstrtab";
#define NAME_NOTES	1
#define NAME_SHSTRTAB	15

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

/* Where things go: ELF header | notes | .shstrtab | 3 section headers. */
struct layout {
	size_t notes, strtab, shdrs, total;
};

static struct layout layout(size_t ehdr_size, size_t shdr_size, size_t notes_size)
{
	struct layout l;

	l.notes = ALIGN8(ehdr_size);
	l.strtab = ALIGN8(l.notes + notes_size);
	l.shdrs = ALIGN8(l.strtab + sizeof(shstrtab));
	l.total = l.shdrs + 3 * shdr_size;
	return l;
}

static void fill_ident(unsigned char *ident, int cls)
{
	memcpy(ident, ELFMAG, SELFMAG);
	ident[EI_CLASS] = cls;
	ident[EI_DATA] = ELFDATA2LSB;
	ident[EI_VERSION] = EV_CURRENT;
}

/*
 * build_elf64() and build_elf32(): the same file in either class, from one
 * body; only the header types, the class and the machine differ.
 */
#define DEFINE_BUILD_ELF(NAME, EHDR, SHDR, CLASS, MACHINE)			\
static unsigned char *NAME(const void *notes, size_t n, size_t *size)	\
{									\
	struct layout l = layout(sizeof(EHDR), sizeof(SHDR), n);	\
	unsigned char *b = calloc(1, l.total);				\
	EHDR *eh = (EHDR *)b;						\
	SHDR *sh = (SHDR *)(b + l.shdrs);				\
									\
	if (!b)								\
		abort();						\
	fill_ident(eh->e_ident, CLASS);					\
	eh->e_type = ET_DYN;						\
	eh->e_machine = MACHINE;					\
	eh->e_version = EV_CURRENT;					\
	eh->e_ehsize = sizeof(*eh);					\
	eh->e_shentsize = sizeof(*sh);					\
	eh->e_shnum = 3;						\
	eh->e_shstrndx = 2;						\
	eh->e_shoff = l.shdrs;						\
	memcpy(b + l.notes, notes, n);					\
	memcpy(b + l.strtab, shstrtab, sizeof(shstrtab));		\
	sh[1] = (SHDR){ .sh_name = NAME_NOTES, .sh_type = SHT_NOTE,	\
			.sh_offset = l.notes, .sh_size = n,		\
			.sh_addralign = 4 };				\
	sh[2] = (SHDR){ .sh_name = NAME_SHSTRTAB, .sh_type = SHT_STRTAB, \
			.sh_offset = l.strtab, .sh_size = sizeof(shstrtab), \
			.sh_addralign = 1 };				\
	*size = l.total;						\
	return b;							\
}

DEFINE_BUILD_ELF(build_elf64, Elf64_Ehdr, Elf64_Shdr, ELFCLASS64, EM_X86_64)
DEFINE_BUILD_ELF(build_elf32, Elf32_Ehdr, Elf32_Shdr, ELFCLASS32, EM_386)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *elf;
	size_t elf_size;

	if (size < 1)
		return 0;
	if (data[0] & 1)
		elf = build_elf32(data + 1, size - 1, &elf_size);
	else
		elf = build_elf64(data + 1, size - 1, &elf_size);
	(void)fuzz_read_and_check(fuzz_file(elf, elf_size));
	free(elf);
	return 0;
}
