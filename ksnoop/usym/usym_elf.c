// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ELF symbol reader of the user stack symbolizer, written for files a
 * hostile process chose (see issue 25 for what broke libelf's use here).
 *
 * Only what naming needs is read: the program headers (file offset to
 * address), the GNU build-id note, and ONE symbol table, .symtab, else
 * .dynsym, with its string table.  A stripped file's .symtab may be in a
 * separate debug file found by its build-id (usym_obj__read_debug()).  Each piece is checked against the file's size and a limit
 * (usym.h) before it is read with pread() into memory of our own; nothing
 * is mapped, so a file truncated while we read it gives a short read and
 * an error, never a SIGBUS.  The string table is copied once and its last
 * byte forced to NUL, so no name can run past it and no string is scanned
 * more than once; a file with two tables of one kind, or a table that
 * overlaps its strings, is refused.  Work is linear in the bytes read,
 * which are capped, and memory is the copy plus one entry per function.
 *
 * Files of this machine's byte order only (a process maps those), 32- or
 * 64-bit.
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "usym_elf.h"

/* Symbols read per pread() of the symbol table. */
#define CHUNK_SYMS		4096

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HOST_DATA ELFDATA2LSB
#else
#define HOST_DATA ELFDATA2MSB
#endif

struct src {
	int fd;
	const unsigned char *buf;
	__u64 size;
	bool is64;
};

/* LEN bytes at OFF, all inside the file, or -EIO (cut short, even now). */
static int src_read(const struct src *s, void *dst, size_t len, __u64 off)
{
	size_t done = 0;
	ssize_t n;

	if (off > s->size || len > s->size - off)
		return -EIO;
	if (s->fd < 0) {
		memcpy(dst, s->buf + off, len);
		return 0;
	}
	while (done < len) {
		n = pread(s->fd, (char *)dst + done, len - done, off + done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	return 0;
}

struct shdr {
	__u32 name, type, link;
	__u64 off, size, entsize;
};

struct ehdr {
	__u64 phoff, shoff;
	__u32 phnum, shnum, phentsize, shentsize;
	__u32 type, shstrndx;
};

static int read_ehdr(struct src *s, struct ehdr *h)
{
	unsigned char id[EI_NIDENT];
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;
	int err = src_read(s, id, sizeof(id), 0);

	if (err || memcmp(id, ELFMAG, SELFMAG) || id[EI_DATA] != HOST_DATA ||
	    (id[EI_CLASS] != ELFCLASS64 && id[EI_CLASS] != ELFCLASS32))
		return -ENOEXEC;
	s->is64 = id[EI_CLASS] == ELFCLASS64;
	if (s->is64) {
		if (src_read(s, &e64, sizeof(e64), 0))
			return -ENOEXEC;
		*h = (struct ehdr){ e64.e_phoff, e64.e_shoff, e64.e_phnum, e64.e_shnum,
				    e64.e_phentsize, e64.e_shentsize, e64.e_type, e64.e_shstrndx };
	} else {
		if (src_read(s, &e32, sizeof(e32), 0))
			return -ENOEXEC;
		*h = (struct ehdr){ e32.e_phoff, e32.e_shoff, e32.e_phnum, e32.e_shnum,
				    e32.e_phentsize, e32.e_shentsize, e32.e_type, e32.e_shstrndx };
	}
	return 0;
}

static int read_shdr(const struct src *s, const struct ehdr *h, __u32 i, struct shdr *sh)
{
	__u64 off = h->shoff + (__u64)i * h->shentsize;
	Elf64_Shdr s64;
	Elf32_Shdr s32;

	if (s->is64) {
		if (h->shentsize < sizeof(s64) || src_read(s, &s64, sizeof(s64), off))
			return -EIO;
		*sh = (struct shdr){ s64.sh_name, s64.sh_type, s64.sh_link, s64.sh_offset,
				     s64.sh_size, s64.sh_entsize };
	} else {
		if (h->shentsize < sizeof(s32) || src_read(s, &s32, sizeof(s32), off))
			return -EIO;
		*sh = (struct shdr){ s32.sh_name, s32.sh_type, s32.sh_link, s32.sh_offset,
				     s32.sh_size, s32.sh_entsize };
	}
	return 0;
}

/* Where the dynamic section is, for is_executable(); the notes, for the build-id. */
struct dyn_seg {
	__u64 off, size;
	int nnotes;
	struct { __u64 off, size; } notes[USYM_MAX_NOTES];
};

/* What a user function's variables need: the TLS segment, and the dynamic one. */
static void note_phdr(struct usym_obj *o, struct dyn_seg *dyn, __u32 type, __u64 off,
		      __u64 filesz, __u64 memsz, __u64 align)
{
	if (type == PT_DYNAMIC && !dyn->size) {
		dyn->off = off;
		dyn->size = filesz;
	}
	if (type == PT_NOTE && dyn->nnotes < USYM_MAX_NOTES) {
		dyn->notes[dyn->nnotes].off = off;
		dyn->notes[dyn->nnotes++].size = filesz;
	}
	if (type == PT_TLS && !o->has_tls) {
		o->has_tls = true;
		o->tls_memsz = memsz;
		o->tls_align = align;
	}
}

/*
 * An executable, not a library: ET_EXEC, or ET_DYN marked DF_1_PIE (a
 * PT_INTERP does not tell: glibc's libc.so.6 has one, to run as a program).
 */
static bool is_executable(const struct src *s, const struct ehdr *h, const struct dyn_seg *dyn)
{
	__u64 i, n, tag, val;
	Elf64_Dyn d64;
	Elf32_Dyn d32;

	if (h->type == ET_EXEC)
		return true;
	n = dyn->size / (s->is64 ? sizeof(d64) : sizeof(d32));
	for (i = 0; h->type == ET_DYN && i < n && i < USYM_MAX_DYNAMIC; i++) {
		if (s->is64) {
			if (src_read(s, &d64, sizeof(d64), dyn->off + i * sizeof(d64)))
				return false;
			tag = d64.d_tag;
			val = d64.d_un.d_val;
		} else {
			if (src_read(s, &d32, sizeof(d32), dyn->off + i * sizeof(d32)))
				return false;
			tag = d32.d_tag;
			val = d32.d_un.d_val;
		}
		if (tag == DT_NULL)
			return false;
		if (tag == DT_FLAGS_1)
			return val & DF_1_PIE;
	}
	return false;
}

static void read_phdrs(const struct src *s, const struct ehdr *h, struct usym_obj *o,
		       struct dyn_seg *dyn)
{
	Elf64_Phdr p64;
	Elf32_Phdr p32;
	__u32 i;

	if (h->phnum > USYM_MAX_PHDRS)
		return;
	for (i = 0; i < h->phnum && o->nloads < USYM_MAX_LOADS; i++) {
		__u64 off = h->phoff + (__u64)i * h->phentsize;
		struct usym_load l;

		if (s->is64) {
			if (h->phentsize < sizeof(p64) || src_read(s, &p64, sizeof(p64), off))
				return;
			note_phdr(o, dyn, p64.p_type, p64.p_offset, p64.p_filesz, p64.p_memsz,
				  p64.p_align);
			if (p64.p_type != PT_LOAD)
				continue;
			l = (struct usym_load){ p64.p_offset, p64.p_filesz, p64.p_vaddr };
		} else {
			if (h->phentsize < sizeof(p32) || src_read(s, &p32, sizeof(p32), off))
				return;
			note_phdr(o, dyn, p32.p_type, p32.p_offset, p32.p_filesz, p32.p_memsz,
				  p32.p_align);
			if (p32.p_type != PT_LOAD)
				continue;
			l = (struct usym_load){ p32.p_offset, p32.p_filesz, p32.p_vaddr };
		}
		o->loads[o->nloads++] = l;
	}
}

/* The GNU build-id among the notes of BUF (LEN bytes) into ID; its length or 0. */
static size_t find_build_id(const __u8 *buf, size_t len, __u8 *id)
{
	size_t at = 0, name, desc;
	Elf64_Nhdr nh;	/* the same layout for 32-bit files */

	while (len - at >= sizeof(nh)) {
		memcpy(&nh, buf + at, sizeof(nh));
		at += sizeof(nh);
		name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
		if (name > len - at || desc > len - at - name)
			return 0;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp(buf + at, "GNU", 4) && nh.n_descsz && nh.n_descsz <= USYM_MAX_BUILD_ID) {
			memcpy(id, buf + at + name, nh.n_descsz);
			return nh.n_descsz;
		}
		at += name + desc;
	}
	return 0;
}

/* The build-id of the PT_NOTE segments DYN found into O, each read up to USYM_MAX_NOTE_BYTES. */
static void read_build_id(const struct src *s, const struct dyn_seg *dyn, struct usym_obj *o)
{
	__u8 *buf = malloc(USYM_MAX_NOTE_BYTES);

	for (int i = 0; buf && i < dyn->nnotes && !o->build_id_len; i++) {
		size_t len = dyn->notes[i].size < USYM_MAX_NOTE_BYTES ? dyn->notes[i].size :
									  USYM_MAX_NOTE_BYTES;

		if (!src_read(s, buf, len, dyn->notes[i].off))
			o->build_id_len = find_build_id(buf, len, o->build_id);
	}
	free(buf);
}

static void read_loads(const struct src *s, const struct ehdr *h, struct usym_obj *o)
{
	struct dyn_seg dyn = {};

	read_phdrs(s, h, o, &dyn);
	o->is_exec = is_executable(s, h, &dyn);
	read_build_id(s, &dyn, o);
}

/* The number of sections: e_shnum, or section 0's size when that is 0. */
static int count_sections(const struct src *s, struct ehdr *h)
{
	struct shdr sh0;

	if (!h->shoff)
		return -ENOENT;
	if (!h->shnum) {
		if (read_shdr(s, h, 0, &sh0))
			return -EIO;
		h->shnum = sh0.size > USYM_MAX_SECTIONS ? USYM_MAX_SECTIONS + 1 : sh0.size;
	}
	if (h->shnum > USYM_MAX_SECTIONS)
		return -E2BIG;
	/* Every header inside the file, checked once for all. */
	if (h->shoff > s->size || (__u64)h->shnum * h->shentsize > s->size - h->shoff)
		return -EIO;
	return 0;
}

/*
 * The section names, for is_go_section(): at most USYM_MAX_SHSTRTAB bytes
 * of them (a real file's are a few hundred), its last byte forced to NUL.
 * NULL where there are none or they cannot be read: nothing is named.
 */
static char *read_section_names(const struct src *s, const struct ehdr *h, __u64 *len)
{
	struct shdr str;
	char *names;

	if (!h->shstrndx || h->shstrndx >= h->shnum || read_shdr(s, h, h->shstrndx, &str) ||
	    str.type != SHT_STRTAB || !str.size || str.size > USYM_MAX_SHSTRTAB)
		return NULL;
	names = malloc(str.size);
	if (names && src_read(s, names, str.size, str.off)) {
		free(names);
		return NULL;
	}
	if (names)
		names[str.size - 1] = 0;
	*len = str.size;
	return names;
}

/* A section only Go's linker writes: its build information, its build id. */
static bool is_go_section(const char *names, __u64 len, const struct shdr *sh)
{
	const char *name = names && sh->name < len ? names + sh->name : "";

	return strcmp(name, ".go.buildinfo") == 0 || strcmp(name, ".note.go.buildid") == 0;
}

/*
 * The one symbol table to read (.symtab, else .dynsym) and its strings;
 * O->is_go where a section says Go's linker wrote the file.
 * Two tables of a kind: refused (a real file has one; a hostile one has
 * a hundred headers over one table to make us read it a hundred times).
 */
static int find_symtab(const struct src *s, struct ehdr *h, struct shdr *sym, struct shdr *str,
		       struct usym_obj *o)
{
	__u32 i, nsymtab = 0, ndynsym = 0;
	struct shdr sh, dyn = {}, tab = {};
	int err = count_sections(s, h);
	char *names = NULL;
	__u64 nameslen = 0;

	if (!err)
		names = read_section_names(s, h, &nameslen);
	for (i = 0; !err && i < h->shnum; i++) {
		err = read_shdr(s, h, i, &sh);
		if (err)
			break;
		o->is_go |= is_go_section(names, nameslen, &sh);
		if (sh.type == SHT_SYMTAB && !nsymtab++)
			tab = sh;
		else if (sh.type == SHT_DYNSYM && !ndynsym++)
			dyn = sh;
	}
	free(names);
	if (err)
		return err;
	if (nsymtab > 1 || ndynsym > 1)
		return -EINVAL;
	if (!nsymtab && !ndynsym)
		return -ENOENT;
	*sym = nsymtab ? tab : dyn;
	if (sym->link >= h->shnum || read_shdr(s, h, sym->link, str) || str->type != SHT_STRTAB)
		return -EINVAL;
	return 0;
}

/* The tables' sizes against the file and our limits; no overlap. */
static int check_tables(const struct src *s, const struct shdr *sym, const struct shdr *str)
{
	size_t entsize = s->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);

	if (sym->entsize != entsize || sym->size % entsize || !str->size)
		return -EINVAL;
	if (sym->size / entsize > USYM_MAX_SYMS || str->size > USYM_MAX_STRTAB)
		return -E2BIG;
	if (sym->off > s->size || sym->size > s->size - sym->off ||
	    str->off > s->size || str->size > s->size - str->off)
		return -EIO;
	if (sym->off < str->off + str->size && str->off < sym->off + sym->size)
		return -EINVAL;
	return 0;
}

static bool is_function(unsigned char info, __u16 shndx, __u64 value)
{
	unsigned char type = ELF64_ST_TYPE(info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && shndx != SHN_UNDEF && value;
}

static int add_sym(struct usym_obj *o, size_t *cap, __u64 addr, __u64 size, __u32 name,
		   bool ifunc)
{
	struct usym_sym *n;

	if (o->nsyms == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		n = realloc(o->syms, *cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		o->syms = n;
	}
	o->syms[o->nsyms++] = (struct usym_sym){ addr, size, name, ifunc };
	return 0;
}

/* The N symbols of a chunk read at BUF: the named functions kept. */
static int keep_functions(const struct src *s, struct usym_obj *o, const void *buf, size_t n,
			  size_t *cap)
{
	const Elf64_Sym *s64 = buf;
	const Elf32_Sym *s32 = buf;
	int err = 0;

	for (size_t i = 0; i < n && !err; i++) {
		__u64 value = s->is64 ? s64[i].st_value : s32[i].st_value;
		__u64 size = s->is64 ? s64[i].st_size : s32[i].st_size;
		__u32 name = s->is64 ? s64[i].st_name : s32[i].st_name;
		unsigned char info = s->is64 ? s64[i].st_info : s32[i].st_info;
		__u16 shndx = s->is64 ? s64[i].st_shndx : s32[i].st_shndx;

		/* Name 0 is "", a name past the strings is no name. */
		if (!is_function(info, shndx, value) || !name || name >= o->strtab_len)
			continue;
		err = add_sym(o, cap, value, size, name, ELF64_ST_TYPE(info) == STT_GNU_IFUNC);
	}
	return err;
}

static int read_syms(const struct src *s, const struct shdr *sym, struct usym_obj *o)
{
	size_t entsize = sym->entsize, n = sym->size / entsize, cap = 0, done, k;
	void *buf = malloc(CHUNK_SYMS * entsize);
	int err = buf ? 0 : -ENOMEM;

	for (done = 0; !err && done < n; done += k) {
		k = n - done < CHUNK_SYMS ? n - done : CHUNK_SYMS;
		err = src_read(s, buf, k * entsize, sym->off + done * entsize);
		if (!err)
			err = keep_functions(s, o, buf, k, &cap);
	}
	free(buf);
	return err;
}

static int cmp_sym(const void *a, const void *b)
{
	const struct usym_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Sized symbols after unsized ones at one address: found first going back. */
	return (x->size > y->size) - (x->size < y->size);
}

static int read_strings(const struct src *s, const struct shdr *str, struct usym_obj *o)
{
	int err;

	o->strtab = malloc(str->size);
	if (!o->strtab)
		return -ENOMEM;
	err = src_read(s, o->strtab, str->size, str->off);
	if (err)
		return err;
	o->strtab[str->size - 1] = 0;
	o->strtab_len = str->size;
	return 0;
}

/* O's symbols from the file S (its header H): all or nothing. */
static int read_symbols(struct src *s, struct ehdr *h, struct usym_obj *o)
{
	struct shdr sym, str;
	int err = find_symtab(s, h, &sym, &str, o);

	if (!err)
		err = check_tables(s, &sym, &str);
	if (!err)
		err = read_strings(s, &str, o);
	if (!err)
		err = read_syms(s, &sym, o);
	if (err) {
		/* A table cut short names nothing. */
		free(o->syms);
		free(o->strtab);
		o->syms = NULL;
		o->strtab = NULL;
		o->nsyms = o->strtab_len = 0;
		return err;
	}
	o->full_symtab = sym.type == SHT_SYMTAB;
	if (o->nsyms)
		qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
	return 0;
}

int usym_obj__read(struct usym_obj *o, int fd, const void *buf, __u64 size)
{
	struct src s = { .fd = fd, .buf = buf, .size = size };
	struct ehdr h;
	int err = read_ehdr(&s, &h);

	if (err)
		return err;
	read_loads(&s, &h, o);
	return read_symbols(&s, &h, o);
}

int usym_obj__read_debug(struct usym_obj *o, int fd, __u64 size)
{
	struct src s = { .fd = fd, .size = size };
	struct usym_obj d = {};
	struct ehdr h;
	int err = read_ehdr(&s, &h);

	if (err)
		return err;
	read_loads(&s, &h, &d);
	if (!o->build_id_len || d.build_id_len != o->build_id_len ||
	    memcmp(d.build_id, o->build_id, o->build_id_len))
		return -ESTALE;
	err = read_symbols(&s, &h, &d);
	if (!err && (!d.full_symtab || !d.nsyms))
		err = -ENOENT;
	if (err) {
		usym_obj__free(&d);
		return err;
	}
	usym_obj__free(o);
	o->syms = d.syms;
	o->nsyms = d.nsyms;
	o->strtab = d.strtab;
	o->strtab_len = d.strtab_len;
	o->full_symtab = true;
	return 0;
}

void usym_obj__free(struct usym_obj *o)
{
	free(o->syms);
	free(o->strtab);
	o->syms = NULL;
	o->strtab = NULL;
}

size_t usym_obj__bytes(const struct usym_obj *o)
{
	return sizeof(*o) + o->nsyms * sizeof(*o->syms) + o->strtab_len;
}

bool usym_obj__vaddr(const struct usym_obj *o, __u64 off, __u64 *vaddr)
{
	for (int i = 0; i < o->nloads; i++) {
		const struct usym_load *l = &o->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = off - l->off + l->vaddr;
			return true;
		}
	}
	return false;
}

const struct usym_sym *usym_obj__find(const struct usym_obj *o, __u64 vaddr)
{
	size_t lo = 0, hi = o->nsyms, i;
	int k;

	/* The first symbol above VADDR: lo. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Back over the symbols at that address: one whose size holds VADDR. */
	for (i = lo, k = 0; i-- > 0 && k < USYM_MAX_ALIASES; k++) {
		const struct usym_sym *s = &o->syms[i];

		if (s->addr != o->syms[lo - 1].addr)
			break;
		if (!s->size || vaddr - s->addr < s->size)
			return s;
	}
	return NULL;
}

int usym_obj__name_len(const struct usym_obj *o, const struct usym_sym *s)
{
	size_t left = o->strtab_len - s->name;

	return strnlen(o->strtab + s->name, left < USYM_MAX_NAME ? left : USYM_MAX_NAME - 1);
}

bool usym_obj__file_off(const struct usym_obj *o, __u64 vaddr, __u64 *off)
{
	for (int i = 0; i < o->nloads; i++) {
		const struct usym_load *l = &o->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*off = vaddr - l->vaddr + l->off;
			return true;
		}
	}
	return false;
}

static int cmp_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct usym_named *)elem)->name);
}

/* The N symbols of a chunk at BUF: those named in LOOK's names counted. */
static void match_names(const struct src *s, const struct usym_obj *o, const void *buf, size_t n,
			struct usym_named *look, size_t nlook)
{
	const Elf64_Sym *s64 = buf;
	const Elf32_Sym *s32 = buf;

	for (size_t i = 0; i < n; i++) {
		__u64 value = s->is64 ? s64[i].st_value : s32[i].st_value;
		__u32 name = s->is64 ? s64[i].st_name : s32[i].st_name;
		unsigned char type = ELF64_ST_TYPE(s->is64 ? s64[i].st_info : s32[i].st_info);
		__u16 shndx = s->is64 ? s64[i].st_shndx : s32[i].st_shndx;
		struct usym_named *l;

		/* Defined, and an address (or a TLS offset where asked: not absolute). */
		if (shndx == SHN_UNDEF || shndx == SHN_ABS || type == STT_SECTION ||
		    type == STT_FILE || !name || name >= o->strtab_len)
			continue;
		l = bsearch(o->strtab + name, look, nlook, sizeof(*look), cmp_name);
		if (!l || (type == STT_TLS) != l->tls)
			continue;
		/* Two symbols of one name at two addresses: which is meant is not known. */
		if (l->found && l->addr != value)
			l->ambiguous = true;
		l->addr = value;
		l->found = true;
	}
}

int usym_elf__lookup(int fd, __u64 size, struct usym_named *look, size_t nlook,
		     struct usym_obj *o)
{
	struct src s = { .fd = fd, .size = size };
	struct shdr sym, str;
	struct ehdr h;
	size_t entsize, n, done, k;
	void *buf = NULL;
	int err = read_ehdr(&s, &h);

	if (err)
		return err;
	read_loads(&s, &h, o);
	if (!nlook)
		return 0;
	err = find_symtab(&s, &h, &sym, &str, o);
	if (!err)
		err = check_tables(&s, &sym, &str);
	if (!err)
		err = read_strings(&s, &str, o);
	if (err)
		return err;
	entsize = sym.entsize;
	n = sym.size / entsize;
	buf = malloc(CHUNK_SYMS * entsize);
	if (!buf)
		return -ENOMEM;
	for (done = 0; !err && done < n; done += k) {
		k = n - done < CHUNK_SYMS ? n - done : CHUNK_SYMS;
		err = src_read(&s, buf, k * entsize, sym.off + done * entsize);
		if (!err)
			match_names(&s, o, buf, k, look, nlook);
	}
	free(buf);
	return err;
}
