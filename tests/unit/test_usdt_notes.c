// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Many SDT notes (issue #11): a file with tens of thousands of call sites
 * is read and matched in n log n, and one with more than USDT_MAX_NOTES is
 * refused with a one-line reason.  Notes as compilers write them (issue
 * #25): structs passed by value and floats leave their probe out, not the
 * file; call sites of one probe passing different numbers of arguments
 * are matches of their own.  The ELF files are written here: an ELF
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
#include "usdt_note.h"
#include "usdt_front.h"

static char path[] = "/tmp/ksnoop-notes-XXXXXX";

/* Append one stapsdt note for PROVIDER:NAME passing ARGS to BUF at *LEN. */
static void put_note(char *buf, size_t *len, const char *provider, const char *name,
		     const char *args)
{
	Elf64_Nhdr nh = { .n_namesz = 8, .n_type = 3 };
	__u64 addrs[3] = { 0x1000 + *len, 0, 0 };
	size_t slen = strlen(provider) + strlen(name) + strlen(args) + 3;

	nh.n_descsz = sizeof(addrs) + slen;
	memcpy(buf + *len, &nh, sizeof(nh));
	memcpy(buf + *len + sizeof(nh), "stapsdt", 8);
	*len += sizeof(nh) + 8;
	memcpy(buf + *len, addrs, sizeof(addrs));
	sprintf(buf + *len + sizeof(addrs), "%s%c%s%c%s", provider, 0, name, 0, args);
	buf[*len + sizeof(addrs) + slen - 1] = 0;
	*len += (nh.n_descsz + 3) & ~3u;
}

static void finish_elf(char *buf, size_t len);

/* An ELF file at PATH with N notes; probe I is p:n<I % DISTINCT>. */
static void write_elf(int n, int distinct)
{
	size_t cap = (size_t)n * 64 + 4096, len = sizeof(Elf64_Ehdr);
	char *buf = calloc(1, cap), name[32];
	int i;

	assert_non_null(buf);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "n%d", i % distinct);
		put_note(buf, &len, "p", name, "");
	}
	finish_elf(buf, len);
}

/* NOTES[i] = { NAME, ARGS } of provider "forms", in an ELF file at PATH. */
static void write_notes(const char *const notes[][2], int n)
{
	size_t len = sizeof(Elf64_Ehdr);
	char *buf = calloc(1, 4096 + 512 * n);
	int i;

	assert_non_null(buf);
	for (i = 0; i < n; i++)
		put_note(buf, &len, "forms", notes[i][0], notes[i][1]);
	finish_elf(buf, len);
}

/* BUF holds the notes up to LEN: the headers around them, into PATH; frees BUF. */
static void finish_elf(char *buf, size_t len)
{
	static const char shstr[] = "\0.note.stapsdt\0.shstrtab";
	size_t notes_off = sizeof(Elf64_Ehdr);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)buf;
	Elf64_Shdr sh[3] = {};
	int fd;

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

/* The argument strings gcc 12 and clang 14 write at -O0 and -O2 (sdt.h 4.8). */
static const char *const compiler_notes[][2] = {
	{ "bystruct", "-4@%edi 16@%rax 24@8(%rsp) -4@%ecx" },			/* gcc -O2 */
	{ "bystruct_clang", "-4@-36(%rsp) 16@-16(%rsp) 24@8(%rsp) -4@-40(%rsp)" },
	{ "real", "-4@%edi 8f@%rax" },
	{ "odd", "-16@%rsi 16f@8(%rsp) 32@24(%rsp) 3@-16(%rsp) 12@-32(%rbp) 1@%cl" },
	{ "plain", "-4@%edi -4@%eax" },
};

static void test_compiler_forms_read(void **state)
{
	struct usdt_file *f;
	struct ks_error e;

	write_notes(compiler_notes, 5);
	assert_int_equal(usdt__read(path, &f, &e), 0);
	assert_int_equal(f->nprobes, 5);
	assert_int_equal(f->probes[0].nargs, 4);
	assert_int_equal(f->probes[0].args[1].size, 16);
	assert_string_equal(f->probes[0].args[1].loc, "%rax");
	assert_int_equal(f->probes[0].args[2].size, 24);
	assert_string_equal(f->probes[0].args[2].loc, "8(%rsp)");
	assert_true(f->probes[2].args[1].is_float);
	assert_int_equal(f->probes[2].args[1].size, 8);
	assert_true(f->probes[3].args[0].is_signed);
	assert_int_equal(f->probes[3].args[0].size, 16);
	assert_int_equal(f->probes[3].args[3].size, 3);
	assert_int_equal(f->probes[3].nargs, 6);
	usdt__free(f);
}

/* gcc 12 on aarch64 (usdt_forms.c, -O2): a memory location holds a space. */
static const char *const arm64_notes[][2] = {
	{ "mixed", "-4@[sp, 12] 8@x1  4@5 -4@[x0] -8@[x29, -16]" },
};

static void test_arm64_forms_read(void **state)
{
	static const char *const locs[] = { "[sp, 12]", "x1", "5", "[x0]", "[x29, -16]" };
	struct usdt_file *f;
	struct ks_error e;
	int i;

	write_notes(arm64_notes, 1);
	assert_int_equal(usdt__read(path, &f, &e), 0);
	assert_int_equal(f->nprobes, 1);
	assert_int_equal(f->probes[0].nargs, 5);
	for (i = 0; i < 5; i++)
		assert_string_equal(f->probes[0].args[i].loc, locs[i]);
	assert_true(f->probes[0].args[0].is_signed);
	assert_int_equal(f->probes[0].args[1].size, 8);
	assert_false(f->probes[0].args[2].is_signed);
	assert_int_equal(f->probes[0].args[4].size, 8);
	usdt__free(f);
}

/* The matches of PROBE in the file at PATH; names point into *FE. */
static int match_in(const char *probe, struct usdt_front **fe, struct usdt_match **ms)
{
	char text[128];
	struct ks_error e;
	struct spec s;
	int n;

	*fe = usdt_front__new(NULL);
	assert_non_null(*fe);
	snprintf(text, sizeof(text), "%s:%s", path, probe);
	assert_int_equal(spec__parse(text, SPEC_USDT, &s, &e), 0);
	n = usdt_front__match(*fe, &s, 0, ms, &e);
	spec__free(&s);
	return n;
}

static const struct usdt_match *named(const struct usdt_match *ms, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(ms[i].name, name))
			return &ms[i];
	fail_msg("no match '%s'", name);
	return NULL;
}

/* Each such probe is left out with its reason; the others stay traceable. */
static void test_compiler_forms_left_out(void **state)
{
	struct usdt_front *fe;
	struct usdt_match *ms;
	int n;

	write_notes(compiler_notes, 5);
	n = match_in("forms:*", &fe, &ms);
	assert_int_equal(n, 5);
	assert_string_equal(named(ms, n, "bystruct")->unreadable,
			    "arg1 is at '%rax', a 16-byte value (a struct or __int128 passed by value), which libbpf cannot read");
	assert_string_equal(named(ms, n, "bystruct_clang")->unreadable,
			    "arg1 is at '-16(%rsp)', a 16-byte value (a struct or __int128 passed by value), which libbpf cannot read");
	assert_string_equal(named(ms, n, "real")->unreadable,
			    "arg1 is at '%rax', a floating-point value, which libbpf cannot read");
	assert_string_equal(named(ms, n, "odd")->unreadable,
			    "arg0 is at '%rsi', a 16-byte value (a struct or __int128 passed by value), which libbpf cannot read");
	assert_string_equal(named(ms, n, "plain")->unreadable, "");
	assert_int_equal(named(ms, n, "plain")->sig.nparams, 2);
	free(ms);
	usdt_front__free(fe);
}

/*
 * Call sites passing 3, 1 and 5 ints (and 3 again): one match per count,
 * each typed by its own sites, its argument types ending where its
 * arguments do (the BPF site check relies on the 0 after the last).
 */
static void test_sites_differing_in_count(void **state)
{
	static const char *const notes[][2] = {
		{ "mixed", "-4@%edi -4@%eax -4@%edx" },
		{ "mixed", "-4@%eax" },
		{ "mixed", "-4@%eax -4@%edx -4@%ecx -4@%esi -4@%edi" },
		{ "mixed", "-4@%edi -4@%eax -4@%edx" },
	};
	const __u8 s32 = 4 | KSNOOP_USDT_SIGNED;
	const __u8 three[KSNOOP_MAX_ARGS] = { s32, s32, s32 }, one[KSNOOP_MAX_ARGS] = { s32 };
	struct usdt_front *fe;
	struct usdt_match *ms;

	write_notes(notes, 4);
	assert_int_equal(match_in("forms:mixed", &fe, &ms), 3);
	assert_int_equal(ms[0].sig.nparams, 3);
	assert_int_equal(ms[1].sig.nparams, 1);
	assert_int_equal(ms[2].sig.nparams, 5);
	assert_memory_equal(ms[0].site_types, three, KSNOOP_MAX_ARGS);
	assert_memory_equal(ms[1].site_types, one, KSNOOP_MAX_ARGS);
	assert_int_equal(ms[2].site_types[4], s32);
	assert_int_equal(ms[2].site_types[5], 0);
	for (int i = 0; i < 3; i++) {
		assert_true(ms[i].typed_sites);
		assert_int_equal(ms[i].nsites, 4);
	}
	assert_int_equal(ms[0].ntyped, 2);
	assert_int_equal(ms[1].ntyped, 1);
	free(ms);
	usdt_front__free(fe);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_many_notes_read_in_order, remove_file),
		cmocka_unit_test_teardown(test_many_distinct_probes_matched, remove_file),
		cmocka_unit_test_teardown(test_too_many_notes_refused, remove_file),
		cmocka_unit_test_teardown(test_compiler_forms_read, remove_file),
		cmocka_unit_test_teardown(test_arm64_forms_read, remove_file),
		cmocka_unit_test_teardown(test_compiler_forms_left_out, remove_file),
		cmocka_unit_test_teardown(test_sites_differing_in_count, remove_file),
	};

	/* Seconds, where quadratic matching took minutes under the sanitizers. */
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
