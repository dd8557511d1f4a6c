// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Shell completion (cmd_complete.h).  The words before the cursor say what
 * the last one is: an option's value, an option, the command, a kernel
 * SPEC (a function, MODULE:FUNC, tp:..., sys:...), a USDT binary or its
 * probes, or, inside a spec's '(', an argument name or a member after
 * NAME-> or NAME.  Each generator offers whole words; add() keeps those
 * that start with the word typed, so a generator need not filter.
 *
 * A completion is one process start per <Tab>: everything is read on
 * demand, vmlinux BTF only for kernel names, one module's BTF only after
 * "MODULE:", tracefs only after "tp:" or "sys:".
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_util.h"
#include "cmd_complete.h"
#include "escape.h"
#include "kbtf.h"
#include "ks_error.h"
#include "signature.h"
#include "kernel.h"
#include "usdt_note.h"
#include "ufunc.h"

/* Members followed after NAME-> in one word: more is not C anyone types. */
#define COMPLETE_MAX_CHAIN 8

/* The candidates so far and what they must start with. */
struct cands {
	const char *word;
	size_t wlen;
	char **v;
	int n, cap;
	int err;
};

/*
 * PREFIX NAME SUFFIX, kept if it starts with the word typed.  A candidate
 * is printed raw, one a line, for the shell to insert: one holding a
 * control character or bytes that are not UTF-8 (a file name, a USDT
 * probe's, a comm: anyone's to choose) is left out, never escaped into a
 * name that is not there.
 */
static void add3(struct cands *c, const char *prefix, const char *name, const char *suffix)
{
	char buf[4096];
	int len = snprintf(buf, sizeof(buf), "%s%s%s", prefix, name, suffix);

	if (c->err || len < 0 || (size_t)len >= sizeof(buf) || strncmp(buf, c->word, c->wlen) ||
	    !text_is_printable(buf, len))
		return;
	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 256;
		char **v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			c->err = -ENOMEM;
			return;
		}
		c->v = v;
		c->cap = cap;
	}
	c->v[c->n] = strdup(buf);
	if (!c->v[c->n]) {
		c->err = -ENOMEM;
		return;
	}
	c->n++;
}

static void add(struct cands *c, const char *s)
{
	add3(c, "", s, "");
}

/* ---- files, processes ---- */

/*
 * Paths that complete WORD after its first LEAD characters ("u:"): a
 * directory's entries, directories with '/', files with FILE_END.
 */
static void add_files(struct cands *c, size_t lead, const char *file_end)
{
	const char *path = c->word + lead, *slash = strrchr(path, '/');
	char dir[4096], prefix[4096];
	struct dirent *de;
	DIR *d;

	snprintf(prefix, sizeof(prefix), "%.*s", slash ? (int)(slash - c->word + 1) : (int)lead,
		 c->word);
	snprintf(dir, sizeof(dir), "%s", slash ? prefix + lead : ".");
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		const char *base = slash ? slash + 1 : path;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (de->d_name[0] == '.' && base[0] != '.')
			continue;
		add3(c, prefix, de->d_name, de->d_type == DT_DIR ? "/" : file_end);
	}
	closedir(d);
}

/* Running processes: their pids (COMMS false) or their names, after PREFIX. */
static void add_procs(struct cands *c, const char *proc, bool comms, const char *prefix)
{
	struct dirent *de;
	DIR *d = opendir(proc);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[512], comm[64] = "";
		FILE *f;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (!comms) {
			add3(c, prefix, de->d_name, "");
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s/comm", proc, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		if (comm[0])
			add3(c, prefix, comm, "");
	}
	closedir(d);
}

/* ---- options ---- */

/* The option WORD names ("--pid", "-p", "--pid=1"): its long name, or NULL. */
static const struct option *find_option(const struct complete_src *src, const char *word)
{
	const struct option *o;

	if (word[0] != '-' || !word[1])
		return NULL;
	for (o = src->opts; o && o->name; o++) {
		size_t len = strlen(o->name);

		if (word[1] == '-' ? !strncmp(word + 2, o->name, len) &&
				     (!word[2 + len] || word[2 + len] == '=') :
				     (o->val == word[1] && !word[2]))
			return o;
	}
	return NULL;
}

/* Does WORD (an option) take the next word as its value? */
static bool takes_next(const struct complete_src *src, const char *word)
{
	const struct option *o = find_option(src, word);
	const char *s;

	if (o)
		return o->has_arg == required_argument && !strchr(word, '=');
	/* A cluster of short options ends with the one that takes a value: -vp. */
	if (word[0] != '-' || word[1] == '-' || !word[1])
		return false;
	s = strchr(src->shortopts, word[strlen(word) - 1]);
	return s && s[1] == ':';
}

/* Whether KEY is a part of LIST ("comm,pid") before its last comma. */
static bool by_has_key(const char *list, size_t len, const char *key)
{
	size_t k = strlen(key);
	const char *p = list, *end = list + len;

	while (p < end) {
		const char *comma = memchr(p, ',', end - p);
		size_t n = comma ? (size_t)(comma - p) : (size_t)(end - p);

		if (n == k && !strncmp(p, key, k))
			return true;
		p += n + 1;
	}
	return false;
}

/*
 * --by's words after PREFIX, and after the keys typed before a comma
 * ("comm,p": comm,pid), each key once, at most KSNOOP_BY_PARTS of them.
 */
static void add_by_keys(struct cands *c, const char *prefix)
{
	static const char *const by_keys[] = { "comm", "pid", "tid", "cpu", "cgroup", NULL };
	size_t plen = strlen(prefix), len, parts = 1;
	const char *last = c->word, *p;
	char head[512];
	int i;

	if (c->wlen >= plen && !strncmp(c->word, prefix, plen))
		for (p = c->word + plen; *p; p++)
			if (*p == ',') {
				last = p + 1;
				parts++;
			}
	len = last > c->word ? (size_t)(last - c->word) : 0;
	if (parts > KSNOOP_BY_PARTS || len >= sizeof(head))
		return;
	if (len)
		snprintf(head, sizeof(head), "%.*s", (int)len, c->word);
	for (i = 0; by_keys[i]; i++)
		if (!len || !by_has_key(c->word + plen, len - plen - 1, by_keys[i]))
			add3(c, len ? head : prefix, by_keys[i], "");
}

/* The values of option O, offered after PREFIX ("" or "--hist="). */
static void add_option_values(struct cands *c, const struct complete_src *src,
			      const struct option *o, const char *prefix)
{
	const char *name = o->name;

	if (!strcmp(name, "mode")) {
		add3(c, prefix, "fentry", "");
		add3(c, prefix, "kprobe", "");
	} else if (!strcmp(name, "pid") || !strcmp(name, "tid")) {
		add_procs(c, src->proc ?: "/proc", false, prefix);
	} else if (!strcmp(name, "comm")) {
		add_procs(c, src->proc ?: "/proc", true, prefix);
	} else if (!strcmp(name, "by")) {
		add_by_keys(c, prefix);
	} else if (!strcmp(name, "format")) {
		add3(c, prefix, "perfetto", "");
	} else if (!strcmp(name, "hist")) {
		add3(c, prefix, "log2", "");
		add3(c, prefix, "linear:", "");
	} else if ((!strcmp(name, "btf") || !strcmp(name, "btf-dir") || !strcmp(name, "pcap") ||
		    !strcmp(name, "cgroup") || !strcmp(name, "netns")) && !*prefix) {
		add_files(c, 0, "");
	}
}

/* Every option: "--name" (with '=' if its value is optional), "-x". */
static void add_options(struct cands *c, const struct complete_src *src)
{
	const struct option *o;

	for (o = src->opts; o && o->name; o++) {
		/* Test-only options stay hidden. */
		if (!strcmp(o->name, "btf-dir"))
			continue;
		add3(c, "--", o->name, o->has_arg == optional_argument ? "=" : "");
		if (o->val > 0 && o->val < 256 && c->wlen < 2) {
			char s[3] = { '-', (char)o->val, '\0' };

			add(c, s);
		}
	}
}

/* ---- kernel names ---- */

/*
 * The functions of BTF (a module's: its own types only), as MODULE:NAME or
 * NAME.  A walk over the types, not kbtf's sorted index: sorting 60,000
 * names would be most of a <Tab>'s time.
 */
static void add_funcs(struct cands *c, const struct btf *btf, const char *module)
{
	const struct btf *base = btf__base_btf(btf);
	__u32 id = base ? btf__type_cnt(base) : 1, n = btf__type_cnt(btf);
	size_t skip = module ? strlen(module) + 1 : 0;

	/* Only names the word can still become are formatted. */
	if (c->wlen > skip && module && strncmp(c->word, module, skip - 1))
		return;
	for (; id < n && !c->err; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btfu_name(btf, t->name_off);

		if (!btf_is_func(t) ||
		    (c->wlen > skip && strncmp(name, c->word + skip, c->wlen - skip)))
			continue;
		add3(c, module ? module : "", module ? ":" : "", name);
	}
}

/* The modules with BTF, as "MODULE:". */
static void add_modules(struct cands *c, const char *btf_dir)
{
	struct dirent *de;
	DIR *d = opendir(btf_dir);

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			add3(c, "", de->d_name, ":");
	closedir(d);
}

/* Tracepoints vmlinux BTF types: its btf_trace_NAME typedefs, as tp:NAME. */
static void add_btf_tps(struct cands *c, const struct btf *btf)
{
	__u32 id, n = btf__type_cnt(btf);

	for (id = 1; id < n && !c->err; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btfu_name(btf, t->name_off);

		if (btf_is_typedef(t) && !strncmp(name, "btf_trace_", 10))
			add3(c, "tp:", name + 10, "");
	}
}

/* tracefs's events directory into BUF (the one tracing reads), or NULL. */
static const char *events_dir(const struct complete_src *src, char *buf, size_t sz)
{
	const char *dir = src->events ?: kernel__events_dir();

	if (!dir)
		return NULL;
	snprintf(buf, sz, "%s", dir);
	return buf;
}

/* The directories in DIR (tracefs's categories, or a category's events). */
static void add_dirs(struct cands *c, const char *dir, const char *prefix, const char *strip,
		     const char *suffix)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_type != DT_DIR || de->d_name[0] == '.' ||
		    strncmp(de->d_name, strip, strlen(strip)))
			continue;
		add3(c, prefix, de->d_name + strlen(strip), suffix);
	}
	closedir(d);
}

/* tp:[CATEGORY:]NAME: categories and events from tracefs, names from BTF. */
static void add_tps(struct cands *c, const struct complete_src *src, struct kbtf *kb)
{
	const char *cat = c->word + 3, *colon = strchr(cat, ':');
	char events[512], dir[1024], prefix[512];

	if (colon) {
		snprintf(prefix, sizeof(prefix), "tp:%.*s:", (int)(colon - cat), cat);
		if (events_dir(src, events, sizeof(events))) {
			snprintf(dir, sizeof(dir), "%s/%.*s", events, (int)(colon - cat), cat);
			add_dirs(c, dir, prefix, "", "");
		}
		return;
	}
	if (events_dir(src, events, sizeof(events)))
		add_dirs(c, events, "tp:", "", ":");
	if (kb)
		add_btf_tps(c, kbtf__vmlinux(kb));
}

/* sys:NAME: the system calls tracefs has events for. */
static void add_syscalls(struct cands *c, const struct complete_src *src)
{
	char events[512], dir[1024];

	if (!events_dir(src, events, sizeof(events)))
		return;
	snprintf(dir, sizeof(dir), "%s/syscalls", events);
	add_dirs(c, dir, "sys:", "sys_enter_", "");
}

/*
 * u:BINARY:NAME for each function of the file BINARY names; a C++ name
 * without its parameters (ns::f for ns::f(int)), which a spec takes
 * unquoted where '(' would open its values.
 */
static int add_ufunc(const char *name, __u64 addr, __u64 size, void *ctx)
{
	struct cands *c = ctx;
	const char *colon = strchr(c->word + 2, ':');
	char prefix[4096], plain[4096];

	snprintf(prefix, sizeof(prefix), "%.*s", (int)(colon - c->word + 1), c->word);
	snprintf(plain, sizeof(plain), "%.*s", (int)strcspn(name, "("), name);
	add3(c, prefix, plain, "");
	return 0;
}

/* u:BINARY, then u:BINARY:FUNC: files, then the file's functions. */
static void add_ufunc_names(struct cands *c)
{
	const char *colon = strchr(c->word + 2, ':');
	struct ufunc_front *fe;
	char binary[4096];
	struct ks_error e;

	if (!colon) {
		add_files(c, 2, ":");
		return;
	}
	fe = ufunc_front__new();
	snprintf(binary, sizeof(binary), "%.*s", (int)(colon - c->word - 2), c->word + 2);
	if (fe)
		ufunc_front__each(fe, binary, 0, add_ufunc, c, &e);
	ufunc_front__free(fe);
}

/* A SPEC's name: functions, MODULE:, MODULE:FUNC, tp:, sys:, u:. */
static void add_spec_names(struct cands *c, const struct complete_src *src, struct kbtf *kb)
{
	const char *colon = strchr(c->word, ':');
	char module[256];

	if (!strncmp(c->word, "tp:", 3)) {
		add_tps(c, src, kb);
	} else if (!strncmp(c->word, "sys:", 4)) {
		add_syscalls(c, src);
	} else if (!strncmp(c->word, "u:", 2)) {
		add_ufunc_names(c);
	} else if (colon) {
		snprintf(module, sizeof(module), "%.*s", (int)(colon - c->word), c->word);
		if (kb && !strcmp(module, "vmlinux"))
			add_funcs(c, kbtf__vmlinux(kb), "vmlinux");
		else if (kb && !strchr(module, '/') && kbtf__module(kb, module))
			add_funcs(c, kbtf__module(kb, module), module);
	} else {
		add(c, "tp:");
		add(c, "sys:");
		add(c, "u:");
		if (kb) {
			add_funcs(c, kbtf__vmlinux(kb), NULL);
			add_modules(c, src->btf_dir ?: "/sys/kernel/btf");
		}
	}
}

/* ---- inside '(': argument names, members ---- */

/* The struct or union ID is, or points to (typedefs and qualifiers skipped); 0 if none. */
static __u32 composite_of(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;

	id = btfu_strip(btf, id);
	t = btf__type_by_id(btf, id);
	if (t && btf_is_ptr(t)) {
		id = btfu_strip(btf, t->type);
		t = btf__type_by_id(btf, id);
	}
	return t && btf_is_composite(t) ? id : 0;
}

/* The type of member NAME of struct or union ID, anonymous ones searched too; 0 if none. */
static __u32 member_type(const struct btf *btf, __u32 id, const char *name, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);
	__u32 found;
	int i;

	for (i = 0; i < btf_vlen(t); i++) {
		const char *mname = btfu_name(btf, m[i].name_off);

		if (*mname && !strcmp(mname, name))
			return m[i].type;
		if (!*mname && depth < BTFU_MAX_DEPTH && composite_of(btf, m[i].type)) {
			found = member_type(btf, composite_of(btf, m[i].type), name, depth + 1);
			if (found)
				return found;
		}
	}
	return 0;
}

/*
 * NAME, a value of type TYPE, after PREFIX; a struct or a pointer to one
 * also as NAME. or NAME->, where its members are next.  (Two candidates
 * where there would be one: bash then inserts what they share and does
 * not close the quote around the spec.)
 */
static void add_value(struct cands *c, const struct btf *btf, const char *prefix,
		      const char *name, __u32 type)
{
	const struct btf_type *t = btf__type_by_id(btf, btfu_strip(btf, type));

	add3(c, prefix, name, "");
	if (composite_of(btf, type))
		add3(c, prefix, name, t && btf_is_ptr(t) ? "->" : ".");
}

/* The members of struct or union ID (those of anonymous ones too), after PREFIX. */
static void add_members(struct cands *c, const struct btf *btf, __u32 id, const char *prefix,
			int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++) {
		const char *mname = btfu_name(btf, m[i].name_off);

		if (*mname)
			add_value(c, btf, prefix, mname, m[i].type);
		else if (depth < BTFU_MAX_DEPTH && composite_of(btf, m[i].type))
			add_members(c, btf, composite_of(btf, m[i].type), prefix, depth + 1);
	}
}

/* The signature of the function or tracepoint NAME ("tp:CAT:NAME", "MODULE:FUNC"). */
static int find_sig(struct kbtf *kb, const char *name, struct signature *sig)
{
	char module[256];
	const char *colon = strrchr(name, ':'), *mod_out;
	struct ks_error e;
	struct btf *btf;
	__u32 id;
	int err;

	if (!strncmp(name, "tp:", 3))
		return signature__from_tp(kbtf__vmlinux(kb), colon + 1, sig);
	if (!strncmp(name, "sys:", 4) || strpbrk(name, "*?["))
		return -ENOENT;
	snprintf(module, sizeof(module), "%.*s", colon ? (int)(colon - name) : 0, name);
	err = kbtf__find_func(kb, colon ? colon + 1 : name, colon ? module : NULL, 1, &btf, &id,
			      &mod_out);
	return err ?: signature__from_func(btf, id, sig, &e);
}

static bool is_ident(int ch)
{
	return isalnum(ch) || ch == '_';
}

/* What add_uvar() adds to: the candidates, after PREFIX (the word up to the item). */
struct uvar_cands {
	struct cands *c;
	const char *prefix;
};

static int add_uvar(const char *name, bool tls, void *ctx)
{
	struct uvar_cands *u = ctx;

	add3(u->c, u->prefix, tls ? "@tls:" : "@", name);
	return 0;
}

/*
 * "u:BINARY:FUNC(...@" and "BINARY:PROVIDER:NAME(...@" (a USDT probe's):
 * the variables of BINARY's debug info, "@NAME" and "@tls:NAME" (each
 * once: candidates are deduplicated when printed).  BINARY is LEN bytes
 * from FROM.
 */
static void add_uvars(struct cands *c, const char *from, size_t len, const char *item)
{
	struct uvar_cands u = { .c = c };
	char binary[4096], prefix[4096];
	struct ufunc_front *fe;
	struct ks_error e;

	snprintf(binary, sizeof(binary), "%.*s", (int)len, from);
	snprintf(prefix, sizeof(prefix), "%.*s", (int)(item - c->word), c->word);
	u.prefix = prefix;
	fe = ufunc_front__new();
	if (fe)
		ufunc_front__each_var(fe, binary, 0, add_uvar, &u, &e);
	ufunc_front__free(fe);
}

/*
 * Inside "NAME(...": the item being typed (after the last '(' or ','),
 * an argument name, or NAME->MEMBER... whose last member is completed;
 * in a user function's, a variable (@NAME, @tls:NAME).
 */
static void add_items(struct cands *c, struct kbtf *kb, const char *paren)
{
	char name[512], prefix[4096], member[256];
	const char *item, *p, *sep;
	struct signature sig;
	__u32 type = 0;
	int i, depth;

	for (item = c->word + strlen(c->word); item > paren + 1 && !strchr("(,", item[-1]); item--)
		;
	while (*item && strchr(" *!(", *item))
		item++;
	if (!strncmp(c->word, "u:", 2) && *item == '@' && !strpbrk(item, ".-[")) {
		if (strchr(c->word + 2, ':'))
			add_uvars(c, c->word + 2, strchr(c->word + 2, ':') - c->word - 2, item);
		return;
	}
	/* FUNC@ADDRESS: one of several functions of the name, all of one prototype here. */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(c->word, "@("), c->word);
	if (!kb || find_sig(kb, name, &sig))
		return;
	for (p = item; is_ident(*p); p++)
		;
	snprintf(prefix, sizeof(prefix), "%.*s", (int)(item - c->word), c->word);
	if (!*p) {
		for (i = 0; i < sig.nparams; i++)
			add_value(c, sig.btf, prefix, sig.params[i].name, sig.params[i].type_id);
		if (sig.has_return)
			add3(c, prefix, "return", "");
		return;
	}
	for (i = 0; i < sig.nparams; i++)
		if (strlen(sig.params[i].name) == (size_t)(p - item) &&
		    !strncmp(sig.params[i].name, item, p - item))
			type = sig.params[i].type_id;
	for (depth = 0; type && depth < COMPLETE_MAX_CHAIN; depth++) {
		sep = p;
		p += !strncmp(p, "->", 2) ? 2 : *p == '.' ? 1 : 0;
		if (p == sep || !composite_of(sig.btf, type))
			return;
		for (sep = p; is_ident(*p); p++)
			;
		if (!*p) {
			snprintf(prefix, sizeof(prefix), "%.*s", (int)(sep - c->word), c->word);
			add_members(c, sig.btf, composite_of(sig.btf, type), prefix, 0);
			return;
		}
		snprintf(member, sizeof(member), "%.*s", (int)(p - sep), sep);
		type = member_type(sig.btf, composite_of(sig.btf, type), member, 0);
	}
}

/* ---- USDT ---- */

/* BINARY:PROVIDER:NAME for each probe of the binary the word names. */
static void add_usdt_probes(struct cands *c)
{
	const char *colon = strchr(c->word, ':');
	char path[4096], probe[512];
	struct usdt_file *f;
	struct ks_error e;
	int i;

	snprintf(path, sizeof(path), "%.*s", (int)(colon - c->word), c->word);
	if (usdt__read(path, &f, &e))
		return;
	strcat(path, ":");
	for (i = 0; i < f->nprobes; i++) {
		snprintf(probe, sizeof(probe), "%s:%s", f->probes[i].provider, f->probes[i].name);
		add3(c, path, probe, "");
	}
	usdt__free(f);
}

/*
 * Inside "BINARY:PROVIDER:NAME(...": after '@', BINARY's variables (the
 * file is what is left of the word before '(' less its last two ":X").
 */
static void add_usdt_items(struct cands *c, const char *paren)
{
	const char *item, *c1, *c2;

	for (item = c->word + strlen(c->word); item > paren + 1 && !strchr("(,", item[-1]); item--)
		;
	while (*item && strchr(" *!(", *item))
		item++;
	if (*item != '@' || strpbrk(item, ".-["))
		return;
	for (c2 = paren; c2 > c->word && *c2 != ':'; c2--)
		;
	for (c1 = c2 > c->word ? c2 - 1 : c2; c1 > c->word && *c1 != ':'; c1--)
		;
	if (c1 > c->word)
		add_uvars(c, c->word, c1 - c->word, item);
}

/* ---- the words before the cursor ---- */

/* What the word under the cursor is, from the words before it. */
struct context {
	const struct option *value_of;	/* the option it is the value of */
	const char *cmd;		/* the command (NULL: it is the first word) */
	bool usdt;			/* `info usdt` (or `usdt`): binaries */
	bool options_done;		/* after "--" */
	const char *btf_dir;		/* --btf-dir's (tests' kernels) */
	int npos;			/* words after the command */
};

static bool is_cmd(const struct complete_src *src, const char *w)
{
	int i;

	for (i = 0; src->cmds && src->cmds[i]; i++)
		if (!strcmp(src->cmds[i], w))
			return true;
	return false;
}

/* A short option's value (-p, -c): its long option. */
static const struct option *short_option(const struct complete_src *src, char ch)
{
	const struct option *o;

	for (o = src->opts; o && o->name; o++)
		if (o->val == ch)
			return o;
	return NULL;
}

static void read_context(const struct complete_src *src, int n, char **words, struct context *x)
{
	int i;

	for (i = 0; i < n - 1; i++) {
		const char *w = words[i];

		if (!x->options_done && !strcmp(w, "--")) {
			x->options_done = true;
		} else if (!x->options_done && w[0] == '-' && w[1]) {
			if (!takes_next(src, w))
				continue;
			if (++i == n - 1)
				x->value_of = find_option(src, w) ?:
					      short_option(src, w[strlen(w) - 1]);
			else if (!strcmp(w, "--btf-dir"))
				x->btf_dir = words[i];
		} else if (!x->cmd) {
			x->cmd = is_cmd(src, w) ? w : "trace";
			x->usdt = !strcmp(x->cmd, "usdt");
		} else {
			x->usdt |= !strcmp(x->cmd, "info") && x->npos == 0 && !strcmp(w, "usdt");
			x->npos++;
		}
	}
}

/* Options, their values, commands, specs, binaries: what the context asks for. */
static void add_candidates(struct cands *c, const struct complete_src *src, int n, char **words,
			   struct kbtf **kb)
{
	struct complete_src with_dir = *src;
	struct context x = {};
	const char *eq, *paren;
	int i;

	read_context(src, n, words, &x);
	if (x.btf_dir) {
		with_dir.btf_dir = x.btf_dir;
		src = &with_dir;
	}
	if (x.value_of) {
		add_option_values(c, src, x.value_of, "");
		return;
	}
	if (!x.options_done && c->word[0] == '-') {
		eq = strchr(c->word, '=');
		if (eq && find_option(src, c->word)) {
			char prefix[256];

			snprintf(prefix, sizeof(prefix), "%.*s", (int)(eq - c->word + 1), c->word);
			add_option_values(c, src, find_option(src, c->word), prefix);
		} else {
			add_options(c, src);
		}
		return;
	}
	if (x.usdt) {
		/* `usdt BINARY:` goes on to the probes; `info usdt` takes binaries. */
		if (strcmp(x.cmd, "usdt"))
			add_files(c, 0, "");
		else if (strchr(c->word, '('))
			add_usdt_items(c, strchr(c->word, '('));
		else if (strchr(c->word, ':'))
			add_usdt_probes(c);
		else
			add_files(c, 0, ":");
		return;
	}
	if (!x.cmd)
		for (i = 0; src->cmds && src->cmds[i]; i++)
			add(c, src->cmds[i]);
	if (x.cmd && !strcmp(x.cmd, "info") && x.npos == 0)
		add(c, "usdt");
	*kb = kbtf__open(src->btf_dir);
	paren = strchr(c->word, '(');
	if (paren)
		add_items(c, *kb, paren);
	else
		add_spec_names(c, src, *kb);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int complete__words(const struct complete_src *src, int n, char **words, FILE *out)
{
	struct cands c = {};
	struct kbtf *kb = NULL;
	int i;

	if (n < 1)
		return -EINVAL;
	c.word = words[n - 1];
	c.wlen = strlen(c.word);
	add_candidates(&c, src, n, words, &kb);
	if (c.v)
		qsort(c.v, c.n, sizeof(*c.v), cmp_str);
	for (i = 0; !c.err && i < c.n; i++)
		if (i == 0 || strcmp(c.v[i], c.v[i - 1]))
			fprintf(out, "%s\n", c.v[i]);
	for (i = 0; i < c.n; i++)
		free(c.v[i]);
	free(c.v);
	kbtf__free(kb);
	return c.err;
}
