// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * SDT note reader.  The note's descriptor is three target-sized addresses
 * (pc, base, semaphore) followed by three NUL-terminated strings (provider,
 * name, arguments); we read it with libelf's note iterator so alignment and
 * byte order are handled the ELF way.  Anything malformed is an error with
 * a reason, never a crash: these files come from the user.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "usdt_note.h"

#define SDT_NOTE_TYPE	3
#define SDT_NOTE_OWNER	"stapsdt"

void usdt__free(struct usdt_file *f)
{
	int i;

	if (!f)
		return;
	for (i = 0; i < f->nprobes; i++) {
		free(f->probes[i].provider);
		free(f->probes[i].name);
	}
	free(f->probes);
	free(f->path);
	free(f);
}

int usdt__parse_arg(const char *spec, struct usdt_arg *arg)
{
	const char *at = strchr(spec, '@');
	const char *p = spec;
	long size;
	char *end;

	memset(arg, 0, sizeof(*arg));
	if (!at || at == spec)
		return -EINVAL;
	if (*p == '-') {
		arg->is_signed = true;
		p++;
	} else if (*p == '+') {
		p++;
	}
	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	size = strtol(p, &end, 10);
	/* sdt.h 4.x writes "8f@": a float or double. */
	if (*end == 'f') {
		arg->is_float = true;
		end++;
	}
	if (end != at || errno || size < 1 || size > USDT_MAX_ARG_SIZE)
		return -EINVAL;
	if (!at[1] || strlen(at + 1) >= sizeof(arg->loc))
		return -EINVAL;
	arg->size = size;
	strcpy(arg->loc, at + 1);
	return 0;
}

bool usdt__arg_is_int(const struct usdt_arg *arg)
{
	return !arg->is_float && (arg->size == 1 || arg->size == 2 || arg->size == 4 || arg->size == 8);
}

bool usdt__arg_libbpf(const struct usdt_arg *arg)
{
	return usdt__arg_is_int(arg) && usdt_arch__libbpf_parses(arg->loc);
}

const char *usdt__arg_unreadable(const struct usdt_arg *arg, char why[USDT_WHY_MAX])
{
	struct usdt_loc l;

	/* The value first: a struct is unreadable wherever it is. */
	if (arg->is_float)
		return "a floating-point value";
	if (usdt__arg_is_int(arg))
		return usdt__arg_libbpf(arg) ? NULL : usdt_arch__parse_loc(arg->loc, &l);
	snprintf(why, USDT_WHY_MAX, "a %d-byte value (a struct%s passed by value)", arg->size,
		 arg->size == 16 ? " or __int128" : "");
	return why;
}

static int parse_args(const char *s, struct usdt_probe *pr)
{
	char buf[64];
	const char *p = s;

	while (*p) {
		size_t n;
		int depth;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		/* aarch64 writes a space inside brackets: "-4@[sp, 12]". */
		for (n = 0, depth = 0; p[n] && (p[n] != ' ' || depth > 0); n++)
			depth += p[n] == '[' ? 1 : p[n] == ']' ? -1 : 0;
		if (n >= sizeof(buf) || pr->nargs >= USDT_MAX_ARGS)
			return -EINVAL;
		memcpy(buf, p, n);
		buf[n] = 0;
		if (usdt__parse_arg(buf, &pr->args[pr->nargs]))
			return -EINVAL;
		pr->nargs++;
		p += n;
	}
	return 0;
}

/* One note's descriptor into PR; 0 or -EINVAL. */
static int parse_note(const char *desc, size_t len, int elf_class, struct usdt_probe *pr)
{
	size_t asz = elf_class == ELFCLASS32 ? 4 : 8;
	const char *prov, *name, *args, *end = desc + len;
	__u64 v[3] = {};
	int i;

	if (len < 3 * asz + 3)
		return -EINVAL;
	for (i = 0; i < 3; i++) {
		if (asz == 8) {
			memcpy(&v[i], desc + 8 * i, 8);
		} else {
			__u32 w;

			memcpy(&w, desc + 4 * i, 4);
			v[i] = w;
		}
	}
	prov = desc + 3 * asz;
	name = memchr(prov, 0, end - prov);
	if (!name || ++name >= end)
		return -EINVAL;
	args = memchr(name, 0, end - name);
	if (!args || ++args > end)
		return -EINVAL;
	if (!memchr(args, 0, end - args) || !*prov || !*name)
		return -EINVAL;
	pr->pc = v[0];
	pr->base = v[1];
	pr->sema = v[2];
	pr->provider = strdup(prov);
	pr->name = strdup(name);
	if (!pr->provider || !pr->name)
		return -ENOMEM;
	return parse_args(args, pr);
}

/* A new zeroed probe at the end of F's list, grown geometrically. */
static int add_probe(struct usdt_file *f, struct usdt_probe **pr)
{
	struct usdt_probe *probes;
	int cap;

	if (f->nprobes >= USDT_MAX_NOTES)
		return -E2BIG;
	if (f->nprobes == f->cap) {
		cap = f->cap ? 2 * f->cap : 16;
		if (cap > USDT_MAX_NOTES)
			cap = USDT_MAX_NOTES;
		probes = realloc(f->probes, cap * sizeof(*probes));
		if (!probes)
			return -ENOMEM;
		f->probes = probes;
		f->cap = cap;
	}
	*pr = &f->probes[f->nprobes];
	memset(*pr, 0, sizeof(**pr));
	return 0;
}

int usdt__open(const char *path, struct ks_error *e)
{
	struct stat st;
	int fd, err;

	/*
	 * Open first, then look at what was opened: a path checked and then
	 * opened again could be another file by then.  O_NONBLOCK: opening a
	 * FIFO must not wait for a writer.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		if (err == -EISDIR)
			goto isdir;
		/* usdt './prog*:*:*': globs are for PROVIDER and NAME only. */
		if (err == -ENOENT && strpbrk(path, "*?["))
			return ks_fail(e, err, "'%s': no such file (BINARY is not a glob: "
				       "name one program or library)", path);
		return ks_fail(e, err, "'%s': %s", path, strerror(-err));
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return ks_fail(e, err, "'%s': %s", path, strerror(-err));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		goto isdir;
	}
	/* A FIFO or a device would block or never end: programs are files. */
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ks_fail(e, -ENOEXEC, "'%s' is not a regular file, so not a program or library",
			       path);
	}
	return fd;
isdir:
	return ks_fail(e, -EISDIR, "'%s' is a directory, not a program or library", path);
}

int usdt__read(const char *path, struct usdt_file **out, struct ks_error *e)
{
	int fd = usdt__open(path, e), err;

	*out = NULL;
	if (fd < 0)
		return fd;
	err = usdt__read_fd(fd, path, out, e);
	close(fd);
	return err;
}

/*
 * Where SCN says .stapsdt.base is now, if it is that section: prelink moved
 * a library's sections and left the notes as the linker wrote them, so
 * each note records the base it was linked against beside its site.
 */
static bool stapsdt_base_addr(Elf *elf, size_t shstrndx, const GElf_Shdr *sh, __u64 *addr)
{
	const char *name = elf_strptr(elf, shstrndx, sh->sh_name);

	if (!name || strcmp(name, ".stapsdt.base"))
		return false;
	*addr = sh->sh_addr;
	return true;
}

/*
 * Each site where the file has it now: moved by .stapsdt.base's address
 * less the note's base, when both are known, as libbpf moves the sites it
 * attaches (usdt.c, collect_usdt_targets()), so that ksnoop's own sites,
 * the load bias of a probe's variables and libbpf's uprobes agree.  The
 * semaphore stays as the note has it, as libbpf leaves it.
 */
static void apply_stapsdt_base(struct usdt_file *f, __u64 base_addr)
{
	int i;

	for (i = 0; i < f->nprobes && base_addr; i++)
		if (f->probes[i].base)
			f->probes[i].pc += base_addr - f->probes[i].base;
}

int usdt__read_fd(int fd, const char *path, struct usdt_file **out, struct ks_error *e)
{
	__u64 base_addr = 0;
	size_t shstrndx = 0;
	struct usdt_file *f = NULL;
	Elf_Scn *scn = NULL;
	Elf *elf = NULL;
	struct stat st;
	GElf_Ehdr eh;
	int err = 0, cls;

	*out = NULL;
	if (fstat(fd, &st)) {
		err = -errno;
		return ks_fail(e, err, "'%s': %s", path, strerror(-err));
	}
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		err = ks_fail(e, -ENOEXEC, "'%s' is not an ELF file", path);
		goto out;
	}
	/* Section headers past the end of the file: truncated or corrupt. */
	if (eh.e_shoff > (GElf_Off)st.st_size ||
	    (GElf_Off)eh.e_shnum * eh.e_shentsize > (GElf_Off)st.st_size - eh.e_shoff) {
		err = ks_fail(e, -ENOEXEC, "'%s' is a truncated or malformed ELF file", path);
		goto out;
	}
	cls = gelf_getclass(elf);
	if (elf_getshdrstrndx(elf, &shstrndx))
		shstrndx = 0;	/* no names: no .stapsdt.base, the notes as written */
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		err = -ENOMEM;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (shstrndx && sh.sh_type == SHT_PROGBITS &&
		    stapsdt_base_addr(elf, shstrndx, &sh, &base_addr))
			continue;
		if (sh.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data) {
			err = ks_fail(e, -ENOEXEC, "'%s': cannot read a note section: %s", path,
				      elf_errmsg(-1));
			goto out;
		}
		while ((off = gelf_getnote(data, off, &nh, &noff, &doff)) > 0) {
			struct usdt_probe *pr;

			if (nh.n_type != SDT_NOTE_TYPE || nh.n_namesz != sizeof(SDT_NOTE_OWNER) ||
			    strcmp((const char *)data->d_buf + noff, SDT_NOTE_OWNER))
				continue;
			err = add_probe(f, &pr);
			if (err == -E2BIG) {
				ks_fail(e, err, "'%s' has more than %d USDT notes, the most ksnoop reads",
					path, USDT_MAX_NOTES);
				goto out;
			}
			if (err)
				goto out;
			err = parse_note((const char *)data->d_buf + doff, nh.n_descsz, cls, pr);
			f->nprobes++;
			if (err) {
				err = ks_fail(e, -ENOEXEC, "'%s': malformed USDT note #%d", path,
					      f->nprobes);
				goto out;
			}
		}
	}
	apply_stapsdt_base(f, base_addr);
out:
	if (elf)
		elf_end(elf);
	if (err) {
		if (err == -ENOMEM)
			ks_fail(e, err, "out of memory");
		usdt__free(f);
		return err;
	}
	*out = f;
	return 0;
}

int usdt__process_objects(int pid, char ***paths)
{
	char fname[64], *line = NULL, **list = NULL;
	size_t cap = 0;
	int n = 0, i;
	FILE *fp;

	snprintf(fname, sizeof(fname), "/proc/%d/maps", pid);
	fp = fopen(fname, "re");
	if (!fp)
		return -errno;
	while (getline(&line, &cap, fp) > 0) {
		char perms[8], path[4096];
		char **nl;
		bool seen = false;

		/* ADDR-ADDR PERMS OFFSET DEV INODE PATH */
		if (sscanf(line, "%*s %7s %*s %*s %*s %4095[^\n]", perms, path) != 2)
			continue;
		if (perms[2] != 'x' || path[0] != '/')
			continue;
		for (i = 0; i < n && !seen; i++)
			seen = strcmp(list[i], path) == 0;
		if (seen)
			continue;
		nl = realloc(list, (n + 1) * sizeof(*nl));
		if (!nl)
			break;
		list = nl;
		list[n] = strdup(path);
		if (list[n])
			n++;
	}
	free(line);
	fclose(fp);
	*paths = list;
	return n;
}

int usdt__process_object_named(int pid, const char *name,
			       bool (*matches)(const char *file, const char *name),
			       char *out, size_t sz)
{
	char **paths = NULL;
	int n, i, found = 0;

	n = usdt__process_objects(pid, &paths);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		const char *base = strrchr(paths[i], '/') ? strrchr(paths[i], '/') + 1 : paths[i];

		if (!found && matches(base, name) && strlen(paths[i]) < sz) {
			snprintf(out, sz, "%s", paths[i]);
			found = 1;
		}
		free(paths[i]);
	}
	free(paths);
	return found ? 0 : -ENOENT;
}

const char *usdt__skip_number(const char *p)
{
	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	return p;
}
