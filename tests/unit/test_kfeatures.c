// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests for ksnoop/kernel/kfeatures.c's pure half: KSNOOP_FEATURES parsing,
 * the -v line, and the decisions taken from a feature set (the attach
 * mode of a run, the attach kind of a function, whether a run can go
 * ahead and what it says if not).  Nothing here probes the kernel.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "kfeatures.h"
#include "ksnoop.h"

/* A kernel that has everything; tests take features away. */
static struct kernel_features everything(void)
{
	struct kernel_features f = { 0 };
	int i;

	for (i = 0; i < FEAT__COUNT; i++)
		f.have[i] = f.probed[i] = true;
	return f;
}

static struct kernel_features without(enum kernel_feature a, enum kernel_feature b)
{
	struct kernel_features f = everything();

	f.have[a] = false;
	f.have[b] = false;
	if (a == FEAT_FENTRY || b == FEAT_FENTRY)
		f.fentry_err = -EOPNOTSUPP;
	return f;
}

/* ---- KSNOOP_FEATURES ---- */

static void test_parse_off_and_on(void **state)
{
	struct kernel_features f = everything();
	struct ks_error e = { 0 };

	f.have[FEAT_TP_COOKIES] = false;
	assert_int_equal(kfeatures__parse("-fentry,-kprobe_multi,+tp_cookies", &f, &e), 0);
	assert_false(f.have[FEAT_FENTRY]);
	assert_false(f.have[FEAT_KPROBE_MULTI]);
	assert_true(f.have[FEAT_TP_COOKIES]);
	assert_true(f.have[FEAT_KPROBES]);
	assert_true(f.injected[FEAT_FENTRY]);
	assert_true(f.injected[FEAT_KPROBE_MULTI]);
	assert_true(f.injected[FEAT_TP_COOKIES]);
	assert_false(f.injected[FEAT_KPROBES]);
}

/* A name without a sign turns the feature on; the last word on one wins. */
static void test_parse_bare_name_and_repeats(void **state)
{
	struct kernel_features f = { 0 };
	struct ks_error e = { 0 };

	assert_int_equal(kfeatures__parse("ringbuf,kprobes,-kprobes", &f, &e), 0);
	assert_true(f.have[FEAT_RINGBUF]);
	assert_false(f.have[FEAT_KPROBES]);
	assert_true(f.injected[FEAT_KPROBES]);
}

static void test_parse_every_name(void **state)
{
	struct kernel_features f = { 0 };
	struct ks_error e = { 0 };
	char spec[256];
	int i;

	for (i = 0; i < FEAT__COUNT; i++) {
		snprintf(spec, sizeof(spec), "+%s", kfeatures__name(i));
		assert_int_equal(kfeatures__parse(spec, &f, &e), 0);
		assert_true(f.have[i]);
	}
}

/* EMPTY: nothing changes. */
static void test_parse_empty(void **state)
{
	struct kernel_features f = everything(), before = f;
	struct ks_error e = { 0 };

	assert_int_equal(kfeatures__parse("", &f, &e), 0);
	assert_memory_equal(&f, &before, sizeof(f));
}

/* SPEC is refused with a message holding WANT, and F is not half-changed where it matters. */
static void refused(const char *spec, const char *want)
{
	struct kernel_features f = everything();
	struct ks_error e = { 0 };

	assert_int_equal(kfeatures__parse(spec, &f, &e), -EINVAL);
	assert_int_equal(e.err, -EINVAL);
	if (!strstr(e.msg, want))
		fail_msg("'%s': message '%s' lacks '%s'", spec, e.msg, want);
	assert_non_null(strstr(e.msg, "KSNOOP_FEATURES"));
}

static void test_parse_errors(void **state)
{
	refused("-fentri", "'-fentri' is not");
	refused("-fentry,nope", "'nope' is not");
	refused("fentry;kprobes", "'fentry;kprobes' is not");
	refused("-", "'-' is not");
	refused("+-fentry", "'+-fentry' is not");
	refused(",fentry", "'' is not");
	refused("fentry,,kprobes", "'' is not");
	refused("fentry,", "after the last ','");
	refused("-kprobe", "is not [+|-]NAME, NAME one of fentry, kprobes, kprobe_multi, uprobe_sleepable, tp_cookies, ringbuf, kprobe_session, uprobe_multi, fsession, uprobe_session, raw_syscalls");
	refused("-kprobe_sessions", "'-kprobe_sessions' is not");
	refused("-fsessions", "'-fsessions' is not");
	refused("-uprobe.session", "'-uprobe.session' is not");
}

/* The session features by the names -v and 89-session.sh use, each on its own. */
static void test_parse_sessions(void **state)
{
	struct kernel_features f = everything();
	struct ks_error e = { 0 };

	assert_int_equal(kfeatures__parse("-fsession", &f, &e), 0);
	assert_false(f.have[FEAT_FSESSION]);
	assert_true(f.injected[FEAT_FSESSION]);
	assert_true(f.have[FEAT_KPROBE_SESSION]);
	assert_true(f.have[FEAT_UPROBE_SESSION]);
	assert_false(f.injected[FEAT_UPROBE_SESSION]);
	assert_int_equal(kfeatures__parse("-uprobe_session,+fsession", &f, &e), 0);
	assert_true(f.have[FEAT_FSESSION]);
	assert_false(f.have[FEAT_UPROBE_SESSION]);
	assert_true(f.injected[FEAT_UPROBE_SESSION]);
	assert_true(f.have[FEAT_KPROBE_SESSION]);
	assert_string_equal(kfeatures__name(FEAT_FSESSION), "fsession");
	assert_string_equal(kfeatures__name(FEAT_UPROBE_SESSION), "uprobe_session");
}

/* ---- the -v line ---- */

static void test_describe(void **state)
{
	struct kernel_features f = without(FEAT_FENTRY, FEAT_KPROBE_MULTI);
	struct ks_error e = { 0 };
	char line[512];

	kfeatures__describe(&f, "6.1.0-test", line, sizeof(line));
	assert_string_equal(line, "kernel 6.1.0-test: fentry no (Operation not supported), kprobes yes, "
			    "kprobe_multi no, uprobe_sleepable yes, tp_cookies yes, ringbuf yes, "
			    "kprobe_session yes, uprobe_multi yes, fsession yes, uprobe_session yes, raw_syscalls yes");
	assert_int_equal(kfeatures__parse("-uprobe_sleepable,-fentry", &f, &e), 0);
	kfeatures__describe(&f, "6.12", line, sizeof(line));
	assert_string_equal(line, "kernel 6.12: fentry no (KSNOOP_FEATURES), kprobes yes, kprobe_multi no, "
			    "uprobe_sleepable no (KSNOOP_FEATURES), tp_cookies yes, ringbuf yes, "
			    "kprobe_session yes, uprobe_multi yes, fsession yes, uprobe_session yes, raw_syscalls yes");
}

/* arm64's 6.1 refuses fentry with the kernel's own ENOTSUPP (524), which libc does not name. */
static void test_describe_no_trampolines(void **state)
{
	struct kernel_features f = without(FEAT_FENTRY, FEAT_KPROBE_MULTI);
	char line[512];

	f.fentry_err = -524;
	kfeatures__describe(&f, "6.1.0-50-cloud-arm64", line, sizeof(line));
	assert_string_equal(line, "kernel 6.1.0-50-cloud-arm64: fentry no (no BPF trampolines in this "
			    "kernel's build for its architecture, ENOTSUPP), kprobes yes, kprobe_multi no, "
			    "uprobe_sleepable yes, tp_cookies yes, ringbuf yes, kprobe_session yes, "
			    "uprobe_multi yes, fsession yes, uprobe_session yes, raw_syscalls yes");
}

/* A run that traces no kernel function does not ask about fentry or kprobe.multi. */
static void test_describe_not_probed(void **state)
{
	struct kernel_features f = everything();
	struct ks_error e = { 0 };
	char line[512];

	f.probed[FEAT_FENTRY] = f.probed[FEAT_KPROBE_MULTI] = f.probed[FEAT_KPROBE_SESSION] = false;
	f.have[FEAT_FENTRY] = f.have[FEAT_KPROBE_MULTI] = f.have[FEAT_KPROBE_SESSION] = false;
	f.probed[FEAT_FSESSION] = f.have[FEAT_FSESSION] = false;
	f.have[FEAT_UPROBE_SESSION] = false;
	kfeatures__describe(&f, "6.12", line, sizeof(line));
	assert_string_equal(line, "kernel 6.12: fentry not probed, kprobes yes, kprobe_multi not probed, "
			    "uprobe_sleepable yes, tp_cookies yes, ringbuf yes, kprobe_session not probed, "
			    "uprobe_multi yes, fsession not probed, uprobe_session no, raw_syscalls yes");
	/* Injected: said as injected, probed or not. */
	assert_int_equal(kfeatures__parse("-kprobe_multi", &f, &e), 0);
	kfeatures__describe(&f, "6.12", line, sizeof(line));
	assert_non_null(strstr(line, "kprobe_multi no (KSNOOP_FEATURES)"));
}

/* A short buffer holds the start of the line, terminated. */
static void test_describe_truncates(void **state)
{
	struct kernel_features f = everything();
	char line[20];

	memset(line, 'x', sizeof(line));
	kfeatures__describe(&f, "6.12", line, sizeof(line));
	assert_string_equal(line, "kernel 6.12: fentry");
}

static void test_describe_unprivileged(void **state)
{
	struct kernel_features f = { .unprivileged = true };
	char line[256];

	kfeatures__describe(&f, "6.12", line, sizeof(line));
	assert_non_null(strstr(line, "not probed"));
}

/* ---- decisions ---- */

/*
 * A glob's user functions attach through uprobe.multi where the kernel
 * has it, and not where KSNOOP_FEATURES turns it off (the fallback's
 * test), nor where nothing could be probed.
 */
static void test_ufunc_multi(void **state)
{
	struct kernel_features f = everything(), unpriv = everything();
	struct ks_error e = { 0 };
	char line[512];

	assert_true(kfeatures__ufunc_multi(&f));
	assert_int_equal(kfeatures__parse("-uprobe_multi", &f, &e), 0);
	assert_false(f.have[FEAT_UPROBE_MULTI]);
	assert_false(kfeatures__ufunc_multi(&f));
	kfeatures__describe(&f, "6.12", line, sizeof(line));
	assert_non_null(strstr(line, ", uprobe_multi no (KSNOOP_FEATURES)"));
	assert_int_equal(kfeatures__parse("+uprobe_multi", &f, &e), 0);
	assert_true(kfeatures__ufunc_multi(&f));
	/* 6.1 has no uprobe.multi: probed and absent. */
	f.have[FEAT_UPROBE_MULTI] = f.injected[FEAT_UPROBE_MULTI] = false;
	assert_false(kfeatures__ufunc_multi(&f));
	kfeatures__describe(&f, "6.1", line, sizeof(line));
	assert_non_null(strstr(line, "kprobe_session yes, uprobe_multi no"));
	unpriv.unprivileged = true;
	assert_false(kfeatures__ufunc_multi(&unpriv));
}

/* The mode of a run, for each kernel and each --mode. */
static void test_attach_mode(void **state)
{
	struct kernel_features all = everything(), no_fentry = without(FEAT_FENTRY, FEAT_FENTRY),
			       no_kprobes = without(FEAT_KPROBES, FEAT_KPROBES),
			       neither = without(FEAT_FENTRY, FEAT_KPROBES),
			       locked_out = neither;

	locked_out.unprivileged = true;
	assert_int_equal(kfeatures__attach_mode(&all, MODE_AUTO), MODE_AUTO);
	assert_int_equal(kfeatures__attach_mode(&no_kprobes, MODE_AUTO), MODE_AUTO);
	/* No fentry: kprobes from the start, nothing resolved twice. */
	assert_int_equal(kfeatures__attach_mode(&no_fentry, MODE_AUTO), MODE_KPROBE);
	assert_int_equal(kfeatures__attach_mode(&neither, MODE_AUTO), MODE_AUTO);
	/* Not allowed to probe: nothing is known, the attach will say. */
	assert_int_equal(kfeatures__attach_mode(&locked_out, MODE_AUTO), MODE_AUTO);
	/* --mode is obeyed whatever the kernel has (check_run says if it cannot be). */
	assert_int_equal(kfeatures__attach_mode(&no_fentry, MODE_FENTRY), MODE_FENTRY);
	assert_int_equal(kfeatures__attach_mode(&no_kprobes, MODE_KPROBE), MODE_KPROBE);
	assert_int_equal(kfeatures__attach_mode(&all, MODE_KPROBE), MODE_KPROBE);
}

static void test_func_kind(void **state)
{
	struct kernel_features all = everything(), no_kprobes = without(FEAT_KPROBES, FEAT_KPROBES),
			       no_multi = without(FEAT_KPROBE_MULTI, FEAT_KPROBE_MULTI);

	/* A function named alone: fentry; a glob's: kprobes, one program per plan. */
	assert_int_equal(kfeatures__func_kind(&all, MODE_AUTO, false), ATTACH_FENTRY);
	assert_int_equal(kfeatures__func_kind(&all, MODE_AUTO, true), ATTACH_KPROBE);
	/* Without kprobe.multi a glob's functions still share a program, a kprobe each. */
	assert_int_equal(kfeatures__func_kind(&no_multi, MODE_AUTO, true), ATTACH_KPROBE);
	/* No kprobes: fentry for globs too. */
	assert_int_equal(kfeatures__func_kind(&no_kprobes, MODE_AUTO, true), ATTACH_FENTRY);
	assert_int_equal(kfeatures__func_kind(&all, MODE_FENTRY, true), ATTACH_FENTRY);
	assert_int_equal(kfeatures__func_kind(&all, MODE_KPROBE, false), ATTACH_KPROBE);
	assert_int_equal(kfeatures__func_kind(&no_kprobes, MODE_KPROBE, false), ATTACH_KPROBE);
}

/* check_run fails with -EOPNOTSUPP and a message holding each of WANT (NULL-terminated). */
static void check_fails(const struct kernel_features *f, bool funcs, enum attach_mode mode, ...)
{
	struct ks_error e = { 0 };
	const char *want;
	va_list ap;

	assert_int_equal(kfeatures__check_run(f, funcs, mode, &e), -EOPNOTSUPP);
	assert_int_equal(e.err, -EOPNOTSUPP);
	va_start(ap, mode);
	while ((want = va_arg(ap, const char *)))
		if (!strstr(e.msg, want))
			fail_msg("message '%s' lacks '%s'", e.msg, want);
	va_end(ap);
}

static void test_check_run(void **state)
{
	struct kernel_features all = everything(), no_fentry = without(FEAT_FENTRY, FEAT_FENTRY),
			       no_kprobes = without(FEAT_KPROBES, FEAT_KPROBES),
			       neither = without(FEAT_FENTRY, FEAT_KPROBES),
			       no_ringbuf = without(FEAT_RINGBUF, FEAT_RINGBUF);
	struct ks_error e = { 0 };
	int mode;

	for (mode = MODE_AUTO; mode <= MODE_KPROBE; mode++)
		assert_int_equal(kfeatures__check_run(&all, true, mode, &e), 0);
	assert_int_equal(kfeatures__check_run(&no_fentry, true, MODE_AUTO, &e), 0);
	assert_int_equal(kfeatures__check_run(&no_kprobes, true, MODE_AUTO, &e), 0);
	/* Tracepoints and USDT probes need neither. */
	assert_int_equal(kfeatures__check_run(&neither, false, MODE_AUTO, &e), 0);
	assert_int_equal(kfeatures__check_run(&neither, false, MODE_KPROBE, &e), 0);

	check_fails(&neither, true, MODE_AUTO, "cannot trace kernel functions on this kernel: ",
		    "fentry/fexit are refused (Operation not supported)", "kprobes are not available",
		    "tracepoints (tp:NAME) and USDT probes still work", NULL);
	check_fails(&no_kprobes, true, MODE_KPROBE, "cannot trace kernel functions on this kernel: ",
		    "kprobes are not available (CONFIG_KPROBES is off)", "still work", NULL);
	check_fails(&no_fentry, true, MODE_FENTRY, "--mode fentry: this kernel refuses fentry/fexit",
		    "--mode kprobe works", NULL);
	check_fails(&neither, true, MODE_FENTRY, "--mode fentry", "still work", NULL);
	check_fails(&no_ringbuf, false, MODE_AUTO, "no BPF ring buffer", NULL);

	/* Injected off: the message says so rather than quote an errno. */
	assert_int_equal(kfeatures__parse("-fentry", &no_kprobes, &e), 0);
	check_fails(&no_kprobes, true, MODE_AUTO, "fentry/fexit are refused (turned off by KSNOOP_FEATURES)",
		    NULL);

	/* Not allowed to load programs: nothing known, the attach says why (needs root). */
	neither.unprivileged = true;
	neither.have[FEAT_RINGBUF] = false;
	assert_int_equal(kfeatures__check_run(&neither, true, MODE_AUTO, &e), 0);
}

/* ---- where entry values wait for the return ---- */

/* A plan whose entry values print with the return (a return predicate, -L). */
static struct ksnoop_plan stash_plan(__u32 entry_bytes)
{
	struct ksnoop_plan bp = { 0 };

	bp.side[KSNOOP_ENTRY].flags = KSNOOP_SIDE_STASH;
	bp.side[KSNOOP_ENTRY].rec_size = entry_bytes;
	bp.side[KSNOOP_RETURN].flags = KSNOOP_SIDE_UNSTASH;
	bp.side[KSNOOP_RETURN].enabled = 1;
	return bp;
}

/* KEEP, and a WHY holding WANT (NULL: none). */
static void keeps(const struct kernel_features *f, enum attach_kind kind, const struct ksnoop_plan *bp,
		  enum entry_keep keep, const char *want)
{
	const char *why = "unset";

	assert_int_equal(kfeatures__entry_keep(f, kind, bp, &why), keep);
	if (!want) {
		assert_null(why);
		return;
	}
	assert_non_null(why);
	if (!strstr(why, want))
		fail_msg("why '%s' lacks '%s'", why, want);
}

static void test_entry_keep(void **state)
{
	struct kernel_features all = everything(),
			       no_session = without(FEAT_KPROBE_SESSION, FEAT_KPROBE_SESSION),
			       no_fsession = without(FEAT_FSESSION, FEAT_FSESSION),
			       injected = everything(),
			       no_usession = without(FEAT_UPROBE_SESSION, FEAT_UPROBE_SESSION),
			       no_umulti = without(FEAT_UPROBE_MULTI, FEAT_UPROBE_MULTI), uinjected;
	struct ksnoop_plan bp = stash_plan(64 + 16 + 256), none = { 0 }, retry = { 0 }, big, tree, track,
			   ustack;
	struct ks_error e = { 0 };

	/* A kernel with kprobe.session (6.10 on): kprobes keep entries in session slots. */
	keeps(&all, ATTACH_KPROBE, &bp, KEEP_SESSION, NULL);
	/* 6.1 (probed): the stash, and why. */
	keeps(&no_session, ATTACH_KPROBE, &bp, KEEP_STASH, "no kprobe.session in this kernel");
	/* Forced for comparison: KSNOOP_FEATURES=-kprobe_session, whatever --mode says. */
	assert_int_equal(kfeatures__parse("-kprobe_session", &injected, &e), 0);
	keeps(&injected, ATTACH_KPROBE, &bp, KEEP_STASH, "kprobe_session turned off by KSNOOP_FEATURES");
	/* fentry/fexit: fsession's cookie where the kernel has it (7.0 on), else the stash. */
	keeps(&all, ATTACH_FENTRY, &bp, KEEP_SESSION, NULL);
	keeps(&no_fsession, ATTACH_FENTRY, &bp, KEEP_STASH, "no fsession in this kernel (7.0 on)");
	/* fsession's and kprobe.session's features are each their kind's alone. */
	keeps(&no_fsession, ATTACH_KPROBE, &bp, KEEP_SESSION, NULL);
	keeps(&no_session, ATTACH_FENTRY, &bp, KEEP_SESSION, NULL);
	keeps(&injected, ATTACH_FENTRY, &bp, KEEP_SESSION, NULL);
	assert_int_equal(kfeatures__parse("-fsession", &injected, &e), 0);
	keeps(&injected, ATTACH_FENTRY, &bp, KEEP_STASH, "fsession turned off by KSNOOP_FEATURES");
	/* fsession takes what kprobe.session takes: not a record larger than a slot, not --tree. */
	big = stash_plan(KSNOOP_SESSION_REC_MAX + 8);
	keeps(&all, ATTACH_FENTRY, &big, KEEP_STASH, "larger than a session slot");
	tree = bp;
	tree.tree = KSNOOP_TREE_ROOT;
	keeps(&all, ATTACH_FENTRY, &tree, KEEP_STASH, "--tree");
	/* User functions: uprobe.session where the kernel has it (6.13 on), else the stash. */
	keeps(&all, ATTACH_UPROBE, &bp, KEEP_SESSION, NULL);
	keeps(&no_usession, ATTACH_UPROBE, &bp, KEEP_STASH, "no uprobe.session in this kernel (6.13 on)");
	/* A uprobe.session link is a uprobe.multi one: none without them. */
	keeps(&no_umulti, ATTACH_UPROBE, &bp, KEEP_STASH, "no uprobe.multi links");
	no_umulti.unprivileged = true;
	no_umulti.have[FEAT_UPROBE_MULTI] = true;
	keeps(&no_umulti, ATTACH_UPROBE, &bp, KEEP_STASH, "no uprobe.multi links");
	/* uprobe.session's feature is its kind's alone. */
	keeps(&no_usession, ATTACH_KPROBE, &bp, KEEP_SESSION, NULL);
	keeps(&no_session, ATTACH_UPROBE, &bp, KEEP_SESSION, NULL);
	/* Forced for comparison: KSNOOP_FEATURES=-uprobe_session. */
	uinjected = everything();
	assert_int_equal(kfeatures__parse("-uprobe_session", &uinjected, &e), 0);
	keeps(&uinjected, ATTACH_UPROBE, &bp, KEEP_STASH, "uprobe_session turned off by KSNOOP_FEATURES");
	keeps(&uinjected, ATTACH_KPROBE, &bp, KEEP_SESSION, NULL);
	/* Counted by user stack (-s, --ustack): the pair of programs with the stack map. */
	ustack = bp;
	ustack.flags |= KSNOOP_PLAN_COUNT_USTACK;
	keeps(&all, ATTACH_UPROBE, &ustack, KEEP_STASH, "counted by user stack");
	/* What a slot cannot hold, --tree: the stash, as for kernel functions. */
	big = stash_plan(KSNOOP_SESSION_REC_MAX + 8);
	keeps(&all, ATTACH_UPROBE, &big, KEEP_STASH, "larger than a session slot");
	tree = bp;
	tree.tree = KSNOOP_TREE_ROOT;
	keeps(&all, ATTACH_UPROBE, &tree, KEEP_STASH, "--tree");
	/* Tracepoints: no cookie at all. */
	keeps(&all, ATTACH_SYSCALL, &bp, KEEP_STASH, "tracepoints have no session cookie");
	/* Nothing of the entry with the return: no stash at all. */
	keeps(&all, ATTACH_KPROBE, &none, KEEP_NONE, NULL);
	/* An entry held back for a user fault: the stash, said nowhere (not a choice). */
	retry.side[KSNOOP_ENTRY].flags = KSNOOP_SIDE_RETRY;
	keeps(&all, ATTACH_KPROBE, &retry, KEEP_STASH, NULL);
	/* What a session slot cannot hold, or the stash's other users: the stash. */
	big = stash_plan(KSNOOP_SESSION_REC_MAX + 8);
	keeps(&all, ATTACH_KPROBE, &big, KEEP_STASH, "larger than a session slot");
	big = stash_plan(KSNOOP_SESSION_REC_MAX);
	keeps(&all, ATTACH_KPROBE, &big, KEEP_SESSION, NULL);
	tree = bp;
	tree.tree = KSNOOP_TREE_ROOT;
	keeps(&all, ATTACH_KPROBE, &tree, KEEP_STASH, "--tree");
	track = bp;
	track.track = 1;
	keeps(&all, ATTACH_KPROBE, &track, KEEP_STASH, "--track");
}

/*
 * Where the kernel would give kprobe-type programs a private stack, -v
 * says uprobe programs run on the task's (bpf/taskstack.bpf.h) and why;
 * elsewhere nothing.  The features line stays as it was either way.
 */
static void test_uprobe_stack(void **state)
{
	struct kernel_features f = everything();
	const char *said;
	char line[512];

	assert_null(kfeatures__uprobe_stack(&f));
	f.priv_stack = true;
	said = kfeatures__uprobe_stack(&f);
	assert_non_null(said);
	assert_non_null(strstr(said, "uprobe programs run on the task's stack"));
	assert_non_null(strstr(said, "per-CPU private stack"));
	assert_non_null(strstr(said, "tail call"));
	kfeatures__describe(&f, "7.3", line, sizeof(line));
	assert_null(strstr(line, "stack"));
	assert_non_null(strstr(line, "raw_syscalls yes"));
	assert_int_equal(line[strlen(line) - 1], 's');
}

int main(void)
{
	const struct CMUnitTest parse_tests[] = {
		cmocka_unit_test(test_parse_off_and_on),
		cmocka_unit_test(test_parse_bare_name_and_repeats),
		cmocka_unit_test(test_parse_every_name),
		cmocka_unit_test(test_parse_empty),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_sessions),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_describe_no_trampolines),
		cmocka_unit_test(test_describe_not_probed),
		cmocka_unit_test(test_describe_truncates),
		cmocka_unit_test(test_describe_unprivileged),
	};
	const struct CMUnitTest decision_tests[] = {
		cmocka_unit_test(test_ufunc_multi),
		cmocka_unit_test(test_attach_mode),
		cmocka_unit_test(test_func_kind),
		cmocka_unit_test(test_check_run),
		cmocka_unit_test(test_entry_keep),
		cmocka_unit_test(test_uprobe_stack),
	};
	int failed = 0;

	failed += cmocka_run_group_tests_name("features_parse", parse_tests, NULL, NULL);
	failed += cmocka_run_group_tests_name("features_decide", decision_tests, NULL, NULL);
	return failed ? 1 : 0;
}
