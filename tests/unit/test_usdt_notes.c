// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Many SDT notes (issue #11): a file with tens of thousands of call sites
 * is read and matched in n log n, and one with more than USDT_MAX_NOTES is
 * refused with a one-line reason.  The ELF files are written here: an ELF
 * header, one note section, its name table and the section headers.  The
 * old reader and matcher were quadratic; the alarm in main() turns a
 * return of that into a failure rather than a stall.
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "spec.h"
#include "usdt.h"
#include "usdt_front.h"

static char path[] = "/tmp/ksnoop-notes-XXXXXX";

/* Append one stapsdt note for PROVIDER:NAME to BUF at *LEN. */
static void put_note(char *buf, size_t *len, const char *provider, const char *name)
{
	Elf64_Nhdr nh = { .n_namesz = 8, .n_type = 3 };
	__u64 addrs[3] = { 0x1000 + *len, 0, 0 };
	size_t slen = strlen(provider) + strlen(name) + 3;

	nh.n_descsz = sizeof(addrs) + slen;
	memcpy(buf + *len, &nh, sizeof(nh));
	memcpy(buf + *len + sizeof(nh), "stapsdt", 8);
	*len += sizeof(nh) + 8;
	memcpy(buf + *len, addrs, sizeof(addrs));
	/* provider, name, and no arguments: "" */
	sprintf(buf + *len + sizeof(addrs), "%s%c%s%c", provider, 0, name, 0);
	buf[*len + sizeof(addrs) + slen - 1] = 0;
	*len += (nh.n_descsz + 3) & ~3u;
}

/* An ELF file at PATH with N notes; probe I is p:n<I % DISTINCT>. */
static void write_elf(int n, int distinct)
{
	static const char shstr[] = "\0.note.stapsdt\0.shstrtab";
	size_t cap = (size_t)n * 64 + 4096, len = sizeof(Elf64_Ehdr), notes_off = len;
	char *buf = calloc(1, cap), name[32];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr sh[3] = {};
	int fd, i;

	assert_non_null(buf);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "n%d", i % distinct);
		put_note(buf, &len, "p", name);
	}
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_NOTE, .sh_offset = notes_off,
			      .sh_size = len - notes_off, .sh_addralign = 4 };
	sh[2] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = len,
			      .sh_size = sizeof(shstr), .sh_addralign = 1 };
	memcpy(buf + len, shstr, sizeof(shstr));
	len = (len + sizeof(shstr) + 7) & ~7ul;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(*eh);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 3;
	eh->e_shstrndx = 2;
	eh->e_shoff = len;
	memcpy(buf + len, sh, sizeof(sh));
	len += sizeof(sh);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	free(buf);
}

static int remove_file(void **state)
{
	if (strcmp(path + strlen(path) - 6, "XXXXXX"))
		unlink(path);
	strcpy(path + strlen(path) - 6, "XXXXXX");
	return 0;
}

static void test_many_notes_read_in_order(void **state)
{
	struct usdt_file *f;
	struct ks_error e;

	write_elf(60000, 60000);
	assert_int_equal(usdt__read(path, &f, &e), 0);
	assert_int_equal(f->nprobes, 60000);
	assert_string_equal(f->probes[0].name, "n0");
	assert_string_equal(f->probes[59999].name, "n59999");
	usdt__free(f);
}

/* Every match distinct: the old pairwise duplicate check was n^2 / 2. */
static int match(const char *probe, struct usdt_match **ms)
{
	struct usdt_front *fe = usdt_front__new(NULL);
	char text[128];
	struct ks_error e;
	struct spec s;
	int n;

	assert_non_null(fe);
	snprintf(text, sizeof(text), "%s:%s", path, probe);
	assert_int_equal(spec__parse(text, SPEC_USDT, &s, &e), 0);
	n = usdt_front__match(fe, &s, 0, ms, &e);
	if (n > 0) {
		struct usdt_match *m = *ms;

		/* Names point into the front end: check them before it goes. */
		assert_string_equal(m[0].name, "n0");
		assert_string_equal(m[n - 1].sig.name, n > 1 ? "p:n29999" : "p:n0");
	}
	free(*ms);
	spec__free(&s);
	usdt_front__free(fe);
	return n;
}

static void test_many_distinct_probes_matched(void **state)
{
	struct usdt_match *ms;

	write_elf(60000, 30000);
	assert_int_equal(match("p:*", &ms), 30000);
	assert_int_equal(match("p:n0", &ms), 1);
}

static void test_too_many_notes_refused(void **state)
{
	struct usdt_file *f;
	struct ks_error e;
	char want[256];

	write_elf(USDT_MAX_NOTES + 1, 10);
	assert_int_equal(usdt__read(path, &f, &e), -E2BIG);
	assert_null(f);
	snprintf(want, sizeof(want), "'%s' has more than %d USDT notes, the most ksnoop reads",
		 path, USDT_MAX_NOTES);
	assert_string_equal(e.msg, want);
	remove_file(state);
	write_elf(USDT_MAX_NOTES, 10);
	assert_int_equal(usdt__read(path, &f, &e), 0);
	assert_int_equal(f->nprobes, USDT_MAX_NOTES);
	usdt__free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_many_notes_read_in_order, remove_file),
		cmocka_unit_test_teardown(test_many_distinct_probes_matched, remove_file),
		cmocka_unit_test_teardown(test_too_many_notes_refused, remove_file),
	};

	/* Seconds, where quadratic matching took minutes under the sanitizers. */
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
