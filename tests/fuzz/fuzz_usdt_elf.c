// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: usdt__read() on a whole file, as `ksnoop usdt FILE:...`
 * and `ksnoop info usdt FILE` read it.  Seeds are real ELF files with SDT
 * notes (tests/fuzz/gen-corpus); the fuzzer truncates and corrupts them.
 * A malformed file must give an error with a reason, never a crash, and a
 * file whose section headers lie past its end (a truncated program) must
 * be refused, not read as a file without probes.
 */
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include "fuzz_usdt.h"

/* True if DATA is a little-endian ELF file with section headers past its end. */
static bool headers_past_end(const uint8_t *data, size_t size)
{
	uint64_t shoff, need;
	uint16_t shnum, shentsize;

	if (size < EI_NIDENT || memcmp(data, ELFMAG, SELFMAG) || data[EI_DATA] != ELFDATA2LSB)
		return false;
	if (data[EI_CLASS] == ELFCLASS64 && size >= sizeof(Elf64_Ehdr)) {
		const Elf64_Ehdr *eh = (const void *)data;

		shoff = eh->e_shoff;
		shnum = eh->e_shnum;
		shentsize = eh->e_shentsize;
	} else if (data[EI_CLASS] == ELFCLASS32 && size >= sizeof(Elf32_Ehdr)) {
		const Elf32_Ehdr *eh = (const void *)data;

		shoff = eh->e_shoff;
		shnum = eh->e_shnum;
		shentsize = eh->e_shentsize;
	} else {
		return false;
	}
	need = (uint64_t)shnum * shentsize;
	return shnum && (shoff > size || need > size - shoff);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bool truncated = headers_past_end(data, size);
	int err = fuzz_read_and_check(fuzz_file(data, size));

	check(!truncated || err);
	return 0;
}
