// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for the user-function front end (ksnoop/ufunc/ufunc.c):
 * u:BINARY:FUNC specs looked up in this test program itself
 * (/proc/self/exe, built with -g: typed from its DWARF) or in copies of it
 * (stripped of debug info: untyped; a symbol renamed as a compiler's
 * clone: untyped), each match's address, file offset and signature;
 * refusals with their errno and column, or a glob's match left out.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/btf.h>
#include "resolve.h"
#include "spec.h"
#include "ufunc.h"

#ifndef KSNOOP_UPROG_DIR
#error "KSNOOP_UPROG_DIR: the Makefile passes build/uprog's path"
#endif

/* Functions of ours to find: out of line, kept. */
__attribute__((noinline, used)) long ufunc_test_alpha(long a)
{
	return a * 3 + 1;
}

__attribute__((noinline, used)) long ufunc_test_beta(long a, long b)
{
	return a ^ b;
}

/* What the ABI puts where a uprobe does not read: refused. */
struct ufunc_pair {
	long x, y;
};

__attribute__((noinline, used)) long ufunc_bad_byval(struct ufunc_pair p)
{
	return p.x + p.y;
}

__attribute__((noinline, used)) double ufunc_bad_half(long v)
{
	return v / 2.0;
}

__attribute__((noinline, used)) long ufunc_bad_wide(__int128 v)
{
	return (long)(v >> 3);
}

__attribute__((noinline, used)) long ufunc_bad_many(long a, long b, long c, long d, long e, long f,
						     long g, long h, long i, long j, long k, long l,
						     long m)
{
	return a + b + c + d + e + f + g + h + i + j + k + l + m;
}

/* Typed, and converted only by a later spec than the one before it. */
struct ufunc_conn {
	int fd;
	const char *peer;
	struct ufunc_conn *next;
};

__attribute__((noinline, used)) int ufunc_late_gamma(const struct ufunc_conn *c, unsigned short port)
{
	return c->fd + port;
}

/* Variables read at a user function (@NAME, @tls:NAME): ours, typed from our DWARF. */
long ufunc_var_counter = 41;
struct ufunc_conn ufunc_var_conn = { .fd = 3, .peer = "peer-name" };
__thread long ufunc_var_tls = 7;

/* The thread pointer, as a TLS variable's address is computed from (ufunc.c tls_delta()). */
static unsigned long thread_pointer(void)
{
	unsigned long tp;

#if defined(__x86_64__)
	__asm__("mov %%fs:0, %0" : "=r"(tp));
#elif defined(__aarch64__)
	__asm__("mrs %0, tpidr_el0" : "=r"(tp));
#else
#error "the thread pointer of this architecture"
#endif
	return tp;
}

/* A copy of this program at a new temporary path, made by CMD ("%1$s" the copy); freed by the caller. */
static char *copy_self(const char *cmd)
{
	char *path = strdup("/tmp/ksnoop-test-ufunc-XXXXXX"), line[1024], self[512];
	int fd = path ? mkstemp(path) : -1;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	assert_true(fd >= 0 && n > 0);
	close(fd);
	self[n] = 0;
	/* The shell's /proc/self/exe would be the shell. */
	snprintf(line, sizeof(line), "cp '%s' %s && ", self, path);
	snprintf(line + strlen(line), sizeof(line) - strlen(line), cmd, path);
	assert_int_equal(system(line), 0);
	return path;
}

static bool is_int(const struct btf *btf, __u32 id, __u32 size, bool is_signed)
{
	const struct btf_type *t = btf__type_by_id(btf, btf__resolve_type(btf, id));

	return t && btf_is_int(t) && t->size == size &&
	       !!(btf_int_encoding(t) & BTF_INT_SIGNED) == is_signed;
}

/* SPEC's matches in a new front end, which *FE keeps (their names and BTF live there). */
static int match(const char *text, struct ufunc_front **fe, struct spec *s,
		 struct ufunc_match **ms, struct ks_error *e)
{
	struct ks_error pe;

	assert_int_equal(spec__parse(text, SPEC_KFUNC, s, &pe), 0);
	assert_int_equal(s->kind, SPEC_UFUNC);
	if (!*fe)
		*fe = ufunc_front__new();
	assert_non_null(*fe);
	return ufunc_front__match(*fe, s, 0, ms, e);
}

/* Without debug info (a copy stripped of it): untyped, and where dwbtf looked is said. */
static void test_untyped_function(void **state)
{
	char *path = copy_self("objcopy --strip-debug %1$s"), text[128];
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms;
	struct ks_error e;
	struct spec s;
	const struct btf_type *t;
	int n;

	snprintf(text, sizeof(text), "u:%s:ufunc_test_alpha(arg0, return)", path);
	n = match(text, &fe, &s, &ms, &e);
	assert_int_equal(n, 1);
	assert_string_equal(ms[0].name, "ufunc_test_alpha");
	assert_string_equal(ms[0].sig.name, "ufunc_test_alpha");
	assert_true(ms[0].sig.has_return);
	assert_int_equal(ms[0].off, 0);
	assert_true(ms[0].size > 0);
	assert_false(ms[0].glob);
	assert_false(ms[0].typed);
	assert_non_null(strstr(ufunc_match__types_where(&ms[0]), "no debug info ("));
	assert_non_null(strstr(ufunc_match__types_where(&ms[0]), "/usr/lib/debug"));
	/* Untyped: six unsigned 64-bit arguments named argN, a signed 64-bit return. */
	assert_int_equal(ms[0].sig.nparams, UFUNC_UNTYPED_ARGS);
	assert_string_equal(ms[0].sig.params[0].name, "arg0");
	assert_string_equal(ms[0].sig.params[5].name, "arg5");
	assert_true(is_int(ms[0].sig.btf, ms[0].sig.params[0].type_id, 8, false));
	assert_true(is_int(ms[0].sig.btf, ms[0].sig.ret_type, 8, true));
	t = btf__type_by_id(ms[0].sig.btf, ms[0].sig.func_id);
	assert_true(btf_is_func(t));
	assert_string_equal(btf__name_by_offset(ms[0].sig.btf, t->name_off), "ufunc_test_alpha");
	free(ms);
	spec__free(&s);
	ufunc_front__free(fe);
	unlink(path);
	free(path);
}

/* With DWARF: the parameters' names and types, the return's, where from. */
static void test_typed_function(void **state)
{
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms;
	struct ks_error e;
	struct spec s;
	int n = match("u:/proc/self/exe:ufunc_late_gamma(c->peer:str, port, return)", &fe, &s, &ms, &e);

	if (n != 1)
		print_message("%d %s\n", n, e.msg);
	assert_int_equal(n, 1);
	assert_true(ms[0].typed);
	assert_null(ms[0].refused);
	assert_string_equal(ms[0].sig.name, "ufunc_late_gamma");
	assert_true(ms[0].sig.has_return);
	assert_int_equal(ms[0].sig.nparams, 2);
	assert_string_equal(ms[0].sig.params[0].name, "c");
	assert_string_equal(ms[0].sig.params[1].name, "port");
	assert_int_equal(ms[0].sig.params[1].slot, 1);
	assert_true(is_int(ms[0].sig.btf, ms[0].sig.params[1].type_id, 2, false));
	/* An int return is signed: `return < 0` needs no cast. */
	assert_true(is_int(ms[0].sig.btf, ms[0].sig.ret_type, 4, true));
	assert_non_null(strstr(ufunc_match__types_where(&ms[0]), "types from /proc/self/exe"));
	free(ms);
	spec__free(&s);
	ufunc_front__free(fe);
}

/*
 * @NAME and @tls:NAME: each variable once, typed in the signature's BTF,
 * at the link-time address that the load bias (the function's runtime
 * address less its link-time one) makes this process's; a TLS variable at
 * its offset from the block that uvar_tls_delta puts at the thread
 * pointer; the probe's link-time address for the BPF side's bias.  The
 * resolver reads them from a base word plus that address, at the entry.
 */
static void test_variables(void **state)
{
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms;
	struct capture_plan plan = {};
	struct resolve_opts opts = { .max_bytes = 64, .str_bytes = 64 };
	struct ks_error e;
	struct spec s;
	unsigned long bias;
	const struct ksnoop_access *acc;
	int n = match("u:/proc/self/exe:ufunc_test_alpha(@ufunc_var_counter, @ufunc_var_conn.peer:str, @tls:ufunc_var_tls, @ufunc_var_counter > 40, a)",
		      &fe, &s, &ms, &e);

	if (n != 1)
		print_message("%d %s\n", n, e.msg);
	assert_int_equal(n, 1);
	assert_int_equal(ms[0].sig.nvars, 3);
	assert_int_equal(ms[0].sig.uvar_ip, ms[0].addr);
	bias = (unsigned long)ufunc_test_alpha - ms[0].addr;
	assert_string_equal(ms[0].sig.vars[0].name, "@ufunc_var_counter");
	assert_false(ms[0].sig.vars[0].tls);
	assert_int_equal(ms[0].sig.vars[0].addr + bias, (unsigned long)&ufunc_var_counter);
	assert_true(is_int(ms[0].sig.btf, ms[0].sig.vars[0].type_id, 8, true));
	assert_string_equal(ms[0].sig.vars[1].name, "@ufunc_var_conn");
	assert_int_equal(ms[0].sig.vars[1].addr + bias, (unsigned long)&ufunc_var_conn);
	assert_string_equal(ms[0].sig.vars[2].name, "@tls:ufunc_var_tls");
	assert_true(ms[0].sig.vars[2].tls);
	assert_int_equal(thread_pointer() + ms[0].sig.uvar_tls_delta + ms[0].sig.vars[2].addr,
			 (unsigned long)&ufunc_var_tls);

	assert_int_equal(resolver__resolve(&s, &ms[0].sig, &opts, &plan, &e), 0);
	assert_true(plan.bpf.flags & KSNOOP_PLAN_UVARS);
	assert_int_equal(plan.bpf.uvar_ip, ms[0].addr);
	assert_int_equal(plan.bpf.uvar_tls_delta, ms[0].sig.uvar_tls_delta);
	/* A dynamic glibc keeps __rseq_offset in its loader, not here. */
	assert_int_equal(ms[0].sig.uvar_rseq_off, 0);
	assert_int_equal(plan.bpf.uvar_rseq_off, 0);
	acc = &plan.bpf.side[KSNOOP_ENTRY].values[0].acc;
	assert_int_equal(acc->src, KSNOOP_SRC_UGLOBAL);
	assert_int_equal(acc->nsteps, 1);
	assert_int_equal(acc->steps[0], ms[0].sig.vars[0].addr);
	acc = &plan.bpf.side[KSNOOP_ENTRY].values[1].acc;
	assert_int_equal(acc->src, KSNOOP_SRC_UGLOBAL);
	assert_int_equal(acc->nsteps, 2);	/* the global holds a pointer: loaded, then +peer */
	assert_int_equal(acc->steps[0], ms[0].sig.vars[1].addr + offsetof(struct ufunc_conn, peer));
	acc = &plan.bpf.side[KSNOOP_ENTRY].values[2].acc;
	assert_int_equal(acc->src, KSNOOP_SRC_UTLS);
	assert_int_equal(acc->steps[0], ms[0].sig.vars[2].addr);
	assert_int_equal(plan.bpf.side[KSNOOP_ENTRY].preds[0].acc.src, KSNOOP_SRC_UGLOBAL);
	/* The argument still reads its register. */
	assert_int_equal(plan.bpf.side[KSNOOP_ENTRY].values[3].acc.src, KSNOOP_SRC_ARG);
	resolver__release(&plan);
	free(ms);
	spec__free(&s);
	ufunc_front__free(fe);
}

/* The link-time address of SYM in the file PATH, as nm says; 0 if none. */
static unsigned long nm_addr(const char *path, const char *sym)
{
	char cmd[PATH_MAX + 64], line[512], name[256], type;
	unsigned long addr = 0, a;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -- '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (sscanf(line, "%lx %c %255s", &a, &type, name) == 3 && !strcmp(name, sym))
			addr = a;
	pclose(p);
	return addr;
}

/*
 * @tls:NAME in a static glibc program (vars.c, linked static): the plan
 * carries where its __rseq_offset is, which the capture program reads
 * where the kernel's copy of the thread pointer may be stale (arm64's
 * main thread before it first leaves the CPU: vm/91-uvars.sh).
 */
static void test_tls_rseq_offset(void **state)
{
	const char *path = KSNOOP_UPROG_DIR "/uvars";
	struct resolve_opts opts = { .max_bytes = 64, .str_bytes = 64 };
	unsigned long want = nm_addr(path, "__rseq_offset");
	struct capture_plan plan = {};
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms;
	struct ks_error e;
	struct spec s;
	char text[PATH_MAX + 64];
	int n;

	assert_true(want != 0);
	snprintf(text, sizeof(text), "u:%s:uv_work(@tls:uv_tls_id, @uv_counter)", path);
	n = match(text, &fe, &s, &ms, &e);
	if (n != 1)
		print_message("%d %s\n", n, e.msg);
	assert_int_equal(n, 1);
	assert_int_equal(ms[0].sig.uvar_rseq_off, want);
	assert_int_equal(resolver__resolve(&s, &ms[0].sig, &opts, &plan, &e), 0);
	assert_int_equal(plan.bpf.uvar_rseq_off, want);
	resolver__release(&plan);
	free(ms);
	spec__free(&s);
	ufunc_front__free(fe);
}

/* What variables cannot do: each refused with its column, the file or the reason named. */
static void test_variable_refusals(void **state)
{
	static const struct {
		const char *spec;
		int err, pos;
		const char *says;
	} rows[] = {
		{ "u:/proc/self/exe:ufunc_test_alpha(@ufunc_var_tls)", -EINVAL, 35, "write '@tls:ufunc_var_tls'" },
		{ "u:/proc/self/exe:ufunc_test_alpha(@tls:ufunc_var_counter)", -EINVAL, 35, "is not a thread-local variable" },
		{ "u:/proc/self/exe:ufunc_test_alpha(@ufunc_var_nope)", -EINVAL, 35, "no variable 'ufunc_var_nope'" },
		{ "u:/proc/self/exe:ufunc_test_alpha+1(@ufunc_var_counter)", -EINVAL, 0, "variables (@NAME) are read only with typed arguments" },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct ufunc_front *fe = NULL;
		struct ufunc_match *ms = NULL;
		struct ks_error e = {};
		struct spec s;
		int n = match(rows[i].spec, &fe, &s, &ms, &e);

		if (n != rows[i].err || e.pos != rows[i].pos || !strstr(e.msg, rows[i].says))
			print_message("%s: %d at %d: %s\n", rows[i].spec, n, e.pos, e.msg);
		assert_int_equal(n, rows[i].err);
		assert_int_equal(e.pos, rows[i].pos);
		assert_non_null(strstr(e.msg, rows[i].says));
		free(ms);
		spec__free(&s);
		ufunc_front__free(fe);
	}
}

/* Without debug info: a variable has no type, refused naming where dwbtf looked. */
static void test_variable_without_dwarf(void **state)
{
	char *path = copy_self("objcopy --strip-debug %1$s");
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms = NULL;
	struct ks_error e = {};
	char text[256];
	struct spec s;
	int n;

	snprintf(text, sizeof(text), "u:%s:ufunc_test_alpha(a, @ufunc_var_counter)", path);
	n = match(text, &fe, &s, &ms, &e);
	assert_int_equal(n, -EINVAL);
	assert_int_equal(e.pos, (int)(strstr(text, "@") - text) + 1);
	assert_non_null(strstr(e.msg, "has no debug info, which its variables are typed from"));
	free(ms);
	spec__free(&s);
	ufunc_front__free(fe);
	unlink(path);
	free(path);
}

/*
 * A spec's typed signatures live in a BTF no later spec changes: the
 * second spec converts a function (and its struct) the first did not,
 * into the debug info's BTF; the first's stays as it was, its names
 * readable (ASan: a use after free where they moved).
 */
static void test_signatures_outlive_later_matches(void **state)
{
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms1, *ms2;
	struct ks_error e;
	struct spec s1, s2;
	__u32 types;
	int n1, n2, i;

	n1 = match("u:/proc/self/exe:ufunc_test_*", &fe, &s1, &ms1, &e);
	assert_int_equal(n1, 2);
	types = btf__type_cnt(ms1[0].sig.btf);
	n2 = match("u:/proc/self/exe:ufunc_late_gamma", &fe, &s2, &ms2, &e);
	assert_int_equal(n2, 1);
	assert_int_equal(btf__type_cnt(ms1[0].sig.btf), types);
	assert_ptr_not_equal(ms1[0].sig.btf, ms2[0].sig.btf);
	for (i = 0; i < n1; i++) {
		assert_true(ms1[i].glob);
		assert_true(ms1[i].typed);
		assert_string_equal(ms1[i].sig.params[0].name, "a");
	}
	assert_string_equal(ms1[0].name, "ufunc_test_alpha");
	assert_string_equal(ms1[1].name, "ufunc_test_beta");
	assert_string_equal(ms1[1].sig.params[1].name, "b");
	assert_string_equal(ms2[0].sig.params[0].name, "c");
	free(ms1);
	free(ms2);
	spec__free(&s1);
	spec__free(&s2);
	ufunc_front__free(fe);
}

/* A compiler's clone (f.constprop.0) found through its address is not typed as f. */
static void test_clone_untyped(void **state)
{
	char *path = copy_self("objcopy --redefine-sym ufunc_test_beta=ufunc_test_beta.constprop.0 %1$s");
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms;
	struct ks_error e;
	struct spec s;
	char text[128];

	snprintf(text, sizeof(text), "u:%s:ufunc_test_beta.constprop.0", path);
	assert_int_equal(match(text, &fe, &s, &ms, &e), 1);
	assert_false(ms[0].typed);
	assert_string_equal(ms[0].sig.params[1].name, "arg1");
	assert_non_null(strstr(ufunc_match__types_where(&ms[0]), "compiler's copy"));
	free(ms);
	spec__free(&s);
	ufunc_front__free(fe);
	unlink(path);
	free(path);
}

/*
 * Two functions of one name (statics of two files; here a copy whose
 * ufunc_test_beta is renamed ufunc_test_alpha): the debug info is looked
 * up by name, which could give one the other's prototype (beta's two
 * arguments typed as alpha's one), so both are untyped.
 */
static void test_namesakes_untyped(void **state)
{
	char *path = copy_self("objcopy --redefine-sym ufunc_test_beta=ufunc_test_alpha %1$s");
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms;
	struct ks_error e;
	struct spec s;
	char text[128];
	int i;

	snprintf(text, sizeof(text), "u:%s:ufunc_test_alpha", path);
	assert_int_equal(match(text, &fe, &s, &ms, &e), 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(ms[i].namesakes, 2);
		assert_false(ms[i].typed);
		assert_int_equal(ms[i].sig.nparams, UFUNC_UNTYPED_ARGS);
		assert_non_null(strstr(ufunc_match__types_where(&ms[i]), "2 functions are named"));
	}
	free(ms);
	spec__free(&s);
	ufunc_front__free(fe);
	unlink(path);
	free(path);
}

/* FUNC named alone is refused (-EINVAL, MSG); in a glob it is left out with MSG, the rest typed. */
static void refused_typed(const char *func, const char *msg)
{
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms = (void *)1;
	struct ks_error e = {};
	struct spec s;
	char text[128];
	int n, i, left_out = 0;

	snprintf(text, sizeof(text), "u:/proc/self/exe:%s", func);
	n = match(text, &fe, &s, &ms, &e);
	if (n != -EINVAL || !strstr(e.msg, msg))
		print_message("%s: %d \"%s\"\n", func, n, e.msg);
	assert_int_equal(n, -EINVAL);
	assert_non_null(strstr(e.msg, msg));
	assert_non_null(strstr(e.msg, func));
	assert_null(ms);
	spec__free(&s);
	assert_int_equal(match("u:/proc/self/exe:ufunc_[bt]*", &fe, &s, &ms, &e), 6);
	for (i = 0; i < 6; i++) {
		if (strcmp(ms[i].name, func) == 0) {
			assert_non_null(ms[i].refused);
			assert_non_null(strstr(ms[i].refused, msg));
			left_out++;
		} else if (strncmp(ms[i].name, "ufunc_test_", 11) == 0) {
			assert_null(ms[i].refused);
			assert_true(ms[i].typed);
		}
	}
	assert_int_equal(left_out, 1);
	free(ms);
	spec__free(&s);
	ufunc_front__free(fe);
}

static void test_typed_refusals(void **state)
{
	refused_typed("ufunc_bad_byval", "struct passed by value");
	refused_typed("ufunc_bad_half", "returns a floating-point value by value");
	refused_typed("ufunc_bad_wide", "parameter 1 'v' is wider than a register (16 bytes)");
	refused_typed("ufunc_bad_many", "takes 13 argument words");
}

/* +OFFSET and 0xADDRESS: inside a function, entry only; the same place. */
static void test_offset_and_address(void **state)
{
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms, *ma;
	struct ks_error e;
	struct spec s, sa;
	char text[128];

	assert_int_equal(match("u:/proc/self/exe:ufunc_test_alpha+1", &fe, &s, &ms, &e), 1);
	assert_int_equal(ms[0].off, 1);
	assert_false(ms[0].sig.has_return);
	assert_string_equal(ms[0].sig.name, "ufunc_test_alpha+0x1");
	snprintf(text, sizeof(text), "u:/proc/self/exe:0x%llx", (unsigned long long)ms[0].addr);
	assert_int_equal(match(text, &fe, &sa, &ma, &e), 1);
	assert_int_equal(ma[0].addr, ms[0].addr);
	assert_int_equal(ma[0].file_off, ms[0].file_off);
	assert_false(ma[0].sig.has_return);
	free(ms);
	free(ma);
	spec__free(&s);
	spec__free(&sa);
	ufunc_front__free(fe);
}

/* SPEC is refused with ERR at column POS, E's message holding MSG. */
static void refused(const char *text, int err, int pos, const char *msg)
{
	struct ufunc_front *fe = NULL;
	struct ufunc_match *ms = (void *)1;
	struct ks_error e = {};
	struct spec s;
	int n = match(text, &fe, &s, &ms, &e);

	if (n != err || e.pos != pos || !strstr(e.msg, msg))
		print_message("%s: %d, column %d, \"%s\"\n", text, n, e.pos, e.msg);
	assert_int_equal(n, err);
	assert_int_equal(e.err, err);
	assert_int_equal(e.pos, pos);
	assert_non_null(strstr(e.msg, msg));
	assert_null(ms);
	spec__free(&s);
	ufunc_front__free(fe);
}

static void test_refusals(void **state)
{
	char text[64], path[] = "/tmp/ksnoop-test-ufunc-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not elf\n", 8), 8);
	close(fd);
	refused("u:/nonexistent/app:f", -ENOENT, 3, "No such file or directory");
	refused("u:/tmp:f", -EISDIR, 3, "is a directory");
	snprintf(text, sizeof(text), "u:%s:f", path);
	refused(text, -ENOEXEC, 3, "is not an ELF file");
	refused("u:/proc/self/exe:ufunc_test_nope", -ENOENT, 18, "no function 'ufunc_test_nope'");
	refused("u:/proc/self/exe:nope_*", -ENOENT, 18, "matches 'nope_*'");
	refused("u:/proc/self/exe:ufunc_test_alpha+100000", -ERANGE, 18, "past the end");
	refused("u:/proc/self/exe:0x1", -ENOENT, 18, "no function at 0x1");
	refused("u:libksnoop_no_such_library:f", -ENOENT, 3, "no library 'libksnoop_no_such_library'");
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_untyped_function),
		cmocka_unit_test(test_typed_function),
		cmocka_unit_test(test_signatures_outlive_later_matches),
		cmocka_unit_test(test_clone_untyped),
		cmocka_unit_test(test_namesakes_untyped),
		cmocka_unit_test(test_typed_refusals),
		cmocka_unit_test(test_offset_and_address),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_variables),
		cmocka_unit_test(test_tls_rseq_offset),
		cmocka_unit_test(test_variable_refusals),
		cmocka_unit_test(test_variable_without_dwarf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
