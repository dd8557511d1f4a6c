// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Shell completion (cmd_complete.c) on a kernel made of files: the resolver
 * fixture's BTF as vmlinux (ip_send_skb, struct sk_buff, tracepoints), a
 * module "dummy" (split BTF), a tracefs events directory and a /proc of
 * two processes.  Each test gives the words of a command line and
 * compares every candidate printed.
 */
#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../include/resolve_fixture.h"
#include "cmd_complete.h"

static char top[64], btf_dir[96], events[96], proc[96];

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
}

static void write_btf(const char *name, const struct btf *b)
{
	char path[160];
	__u32 size;
	const void *data = btf__raw_data(b, &size);

	assert_non_null(data);
	snprintf(path, sizeof(path), "%s/%s", btf_dir, name);
	write_file(path, data, size);
}

/* DIR/A/B..., made as directories (tracefs's events/CATEGORY/NAME, /proc/PID). */
static void make_dirs(const char *dir, const char *const *paths)
{
	char path[256];

	for (; *paths; paths++) {
		snprintf(path, sizeof(path), "%s/%s", dir, *paths);
		assert_int_equal(mkdir(path, 0700), 0);
	}
}

/* The fixture's types, ip_send_skb and two tracepoints (no corrupt function: BTF loads). */
static int build_kernel_btf(void)
{
	btf = fx_fixture("kernel");
	if (!btf)
		return -1;
	build_scalars();
	build_enums();
	build_sock();
	build_sk_buff();
	build_other_structs();
	build_addresses();
	func("ip_send_skb", proto(T.ints.int_t, "net", T.net_ptr, "skb", T.skb_ptr, NULL));
	trace_typedef("kfree_skb", proto(0, "", T.void_ptr, "", T.skb_ptr, "", T.void_ptr, NULL));
	func("__bpf_trace_kfree_skb", proto(0, "__data", T.void_ptr, "skb", T.skb_ptr,
					    "location", T.void_ptr, NULL));
	trace_typedef("sched_skb_event", proto(0, "", T.void_ptr, "", T.skb_ptr, NULL));
	return 0;
}

static int make_kernel(void **state)
{
	static const char *const event_dirs[] = {
		"sched", "sched/sched_switch", "sched/sched_wakeup", "skb", "skb/kfree_skb",
		"syscalls", "syscalls/sys_enter_openat", "syscalls/sys_exit_openat",
		"syscalls/sys_enter_open", NULL,
	};
	static const char *const proc_dirs[] = { "1", "4242", "self", NULL };
	struct btf *mod;
	char path[160];

	snprintf(top, sizeof(top), "/tmp/ksnoop-test-complete-XXXXXX");
	if (build_kernel_btf() || !mkdtemp(top))
		return -1;
	snprintf(btf_dir, sizeof(btf_dir), "%s/btf", top);
	snprintf(events, sizeof(events), "%s/events", top);
	snprintf(proc, sizeof(proc), "%s/proc", top);
	if (mkdir(btf_dir, 0700) || mkdir(events, 0700) || mkdir(proc, 0700))
		return -1;
	write_btf("vmlinux", btf);
	mod = btf__new_empty_split(btf);
	assert_non_null(mod);
	fx_func(mod, "dummy_xmit", fx_proto(mod, T.ints.int_t, "skb", T.skb_ptr, NULL));
	fx_func(mod, "dummy_init", fx_proto(mod, T.ints.int_t, NULL));
	write_btf("dummy", mod);
	btf__free(mod);
	make_dirs(events, event_dirs);
	make_dirs(proc, proc_dirs);
	snprintf(path, sizeof(path), "%s/1/comm", proc);
	write_file(path, "init\n", 5);
	snprintf(path, sizeof(path), "%s/4242/comm", proc);
	write_file(path, "nginx\n", 6);
	return 0;
}

static int remove_kernel(void **state)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	assert_int_equal(system(cmd), 0);
	return free_btf(state);
}

/* A few of main.c's options: each kind of value once. */
static const struct option opts[] = {
	{ "json", no_argument, NULL, 'j' },
	{ "pid", required_argument, NULL, 'p' },
	{ "comm", required_argument, NULL, 'c' },
	{ "mode", required_argument, NULL, 256 },
	{ "hist", optional_argument, NULL, 257 },
	{ "by", required_argument, NULL, 258 },
	{ "btf", required_argument, NULL, 259 },
	{ "btf-dir", required_argument, NULL, 260 },
	{ NULL, 0, NULL, 0 },
};
static const char *const cmds[] = { "info", "trace", "usdt", NULL };

/* The candidates for WORDS (NULL-terminated), one a line, as printed. */
static char *complete(const char *const *words)
{
	const struct complete_src src = {
		.btf_dir = btf_dir, .events = events, .proc = proc,
		.opts = opts, .shortopts = ":jp:c:", .cmds = cmds,
	};
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int n = 0;

	assert_non_null(f);
	while (words[n])
		n++;
	assert_int_equal(complete__words(&src, n, (char **)words, f), 0);
	fclose(f);
	return buf;
}

#define EXPECT(want, ...)							\
	do {									\
		char *got = complete((const char *const[]){ __VA_ARGS__, NULL });	\
		assert_string_equal(got, want);					\
		free(got);							\
	} while (0)

static void test_options(void **state)
{
	EXPECT("--json\n", "--j");
	EXPECT("--btf\n--by\n", "--b");
	/* -- alone: every option (the test-only one hidden), short ones not. */
	EXPECT("--btf\n--by\n--comm\n--hist=\n--json\n--mode\n--pid\n", "--");
	EXPECT("--btf\n--by\n--comm\n--hist=\n--json\n--mode\n--pid\n-c\n-j\n-p\n", "-");
}

static void test_option_values(void **state)
{
	EXPECT("fentry\nkprobe\n", "--mode", "");
	EXPECT("kprobe\n", "-j", "--mode", "k");
	EXPECT("--hist=linear:\n--hist=log2\n", "--hist=");
	EXPECT("cgroup\ncomm\ncpu\n", "--by", "c");
	/* --by KEY,KEY: after a comma, the words not given yet, at most three keys. */
	EXPECT("comm,cgroup\ncomm,cpu\ncomm,pid\ncomm,tid\n", "--by", "comm,");
	EXPECT("comm,pid\n", "--by", "comm,p");
	EXPECT("skb->len,pid,tid\n", "--by", "skb->len,pid,t");
	EXPECT("--by=tid,cgroup\n--by=tid,comm\n--by=tid,cpu\n", "--by=tid,c");
	EXPECT("", "--by", "comm,pid,tid,");
	EXPECT("1\n4242\n", "-p", "");
	EXPECT("4242\n", "--pid", "4");
	EXPECT("--pid=4242\n", "--pid=4");
	EXPECT("--comm=init\n", "--comm=i");
	EXPECT("nginx\n", "-c", "ng");
	/* -jp: a cluster ending with the option that takes the value. */
	EXPECT("1\n4242\n", "-jp", "");
	/* A value given: the next word is a SPEC again. */
	EXPECT("ip_send_skb\n", "--mode", "kprobe", "ip_send_");
}

static void test_commands_and_functions(void **state)
{
	EXPECT("info\nip_send_skb\n", "i");
	EXPECT("ip_send_skb\n", "ip_send_s");
	/* A module's name, then its functions. */
	EXPECT("dummy:\n", "dumm");
	EXPECT("dummy:dummy_init\ndummy:dummy_xmit\n", "dummy:");
	EXPECT("vmlinux:ip_send_skb\n", "vmlinux:ip_send");
	EXPECT("", "nosuchmodule:x");
	/* After the command: specs, and no command again. */
	EXPECT("ip_send_skb\n", "trace", "i");
	EXPECT("__bpf_trace_kfree_skb\ndummy:\nip_send_skb\nsys:\ntp:\nu:\nusdt\nvmlinux:\n", "info", "");
	EXPECT("", "info", "ip_send_skb", "us");
}

static void test_tracepoints(void **state)
{
	EXPECT("tp:\ntrace\n", "t");
	/* Categories from tracefs, names from BTF's btf_trace_ typedefs. */
	EXPECT("tp:sched:\ntp:sched_skb_event\n", "tp:sch");
	EXPECT("tp:sched:sched_switch\ntp:sched:sched_wakeup\n", "tp:sched:");
	EXPECT("tp:skb:kfree_skb\n", "tp:skb:k");
	EXPECT("sys:open\nsys:openat\n", "sys:op");
}

static void test_arguments(void **state)
{
	EXPECT("ip_send_skb(net\n", "ip_send_skb(n");
	/* A pointer to a struct also with ->: its members come next (net's is not complete). */
	EXPECT("ip_send_skb(net\nip_send_skb(return\nip_send_skb(skb\nip_send_skb(skb->\n", "ip_send_skb(");
	EXPECT("ip_send_skb(skb->len == 84, skb\nip_send_skb(skb->len == 84, skb->\n",
	       "ip_send_skb(skb->len == 84, s");
	EXPECT("dummy:dummy_xmit(skb\ndummy:dummy_xmit(skb->\n", "dummy:dummy_xmit(s");
	EXPECT("ip_send_skb@ffffffff81000000(skb\nip_send_skb@ffffffff81000000(skb->\n",
	       "ip_send_skb@ffffffff81000000(s");
	/* A tracepoint's names are its stub's; it has no return. */
	EXPECT("tp:kfree_skb(location\ntp:kfree_skb(skb\ntp:kfree_skb(skb->\n", "tp:kfree_skb(");
	EXPECT("tp:skb:kfree_skb(skb\ntp:skb:kfree_skb(skb->\n", "tp:skb:kfree_skb(s");
	EXPECT("", "nosuch(");
}

static void test_members(void **state)
{
	EXPECT("ip_send_skb(skb->len\nip_send_skb(skb->lval\n", "ip_send_skb(skb->l");
	/* Through a pointer member, and . after a struct member. */
	EXPECT("ip_send_skb(skb->next->len\nip_send_skb(skb->next->lval\n",
	       "ip_send_skb(skb->next->l");
	EXPECT("ip_send_skb(*skb->s16v\nip_send_skb(*skb->sk\nip_send_skb(*skb->sk->\n", "ip_send_skb(*skb->s");
	/* A struct member also with '.'. */
	EXPECT("ip_send_skb(skb->common\nip_send_skb(skb->common.\n", "ip_send_skb(skb->com");
	EXPECT("", "ip_send_skb(skb->nosuch->");
	EXPECT("", "ip_send_skb(skb->len->");
}

/* A directory of files under TOP: a hidden one, a visible one, names a terminal would act on. */
static void make_files(char *dir, size_t sz)
{
	static const char *const names[] = {
		".hidden", "prog", "esc\033[31mred", "two\nlines", "bad\xff" "byte", "caf\xc3\xa9",
		NULL,
	};
	char path[256];
	int i;

	snprintf(dir, sz, "%s/files", top);
	if (mkdir(dir, 0700))
		assert_int_equal(errno, EEXIST);
	for (i = 0; names[i]; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		write_file(path, "", 0);
	}
}

/* A dot-file only when the word starts with '.', as bash offers them. */
static void test_dot_files(void **state)
{
	char dir[128], word[160], want[512];

	make_files(dir, sizeof(dir));
	snprintf(word, sizeof(word), "%s/", dir);
	snprintf(want, sizeof(want), "%s/caf\xc3\xa9:\n%s/prog:\n", dir, dir);
	EXPECT(want, "usdt", word);
	snprintf(word, sizeof(word), "%s/.h", dir);
	snprintf(want, sizeof(want), "%s/.hidden:\n", dir);
	EXPECT(want, "usdt", word);
}

/*
 * A name holding a control character (ESC, a newline) or bytes that are
 * not UTF-8 is never offered: printed raw it would act on the terminal,
 * or be two candidates.  Well-formed UTF-8 is a name like any other.
 */
static void test_unsafe_names_left_out(void **state)
{
	char dir[128], word[160], want[512];

	make_files(dir, sizeof(dir));
	snprintf(word, sizeof(word), "%s/", dir);
	snprintf(want, sizeof(want), "%s/caf\xc3\xa9\n%s/prog\n", dir, dir);
	EXPECT(want, "info", "usdt", word);
	snprintf(word, sizeof(word), "%s/e", dir);
	EXPECT("", "usdt", word);
	snprintf(word, sizeof(word), "%s/t", dir);
	EXPECT("", "usdt", word);
}

/* --opt=VALUE holds its value: the next word is a SPEC, not the option's value. */
/*
 * A user function's variables after '@': the globals and thread-local
 * variables of the file's debug info (tests/uprog/vars.c), "@NAME" and
 * "@tls:NAME", filtered by what is typed.
 */
static void test_ufunc_variables(void **state)
{
	char word[4096], want[8192];
	const char *v = KSNOOP_UPROG_DIR "/vars-gcc-O0-pie";

	snprintf(word, sizeof(word), "u:%s:uv_work(arg, @uv_c", v);
	snprintf(want, sizeof(want), "u:%1$s:uv_work(arg, @uv_cfgp\nu:%1$s:uv_work(arg, @uv_config\nu:%1$s:uv_work(arg, @uv_counter\n", v);
	EXPECT(want, word);
	snprintf(word, sizeof(word), "u:%s:uv_work(@tls:", v);
	snprintf(want, sizeof(want), "u:%1$s:uv_work(@tls:uv_tls_id\nu:%1$s:uv_work(@tls:uv_tls_state\n", v);
	EXPECT(want, word);
	/* A member after the name is not a variable's name. */
	snprintf(word, sizeof(word), "u:%s:uv_work(@uv_config.", v);
	EXPECT("", word);
}

/*
 * A USDT probe's variables after '@' (tests/uprog/usdtvars.c), the file
 * taken from BINARY:PROVIDER:NAME; a probe's library, its own.
 */
static void test_usdt_variables(void **state)
{
	char word[4096], want[8192];
	const char *v = KSNOOP_UPROG_DIR "/usdtvars-gcc-O2";

	snprintf(word, sizeof(word), "%s:uvapp:hit(arg0, @uv_", v);
	snprintf(want, sizeof(want), "%1$s:uvapp:hit(arg0, @uv_counter\n%1$s:uvapp:hit(arg0, @uv_site\n%1$s:uvapp:hit(arg0, @uv_state\n", v);
	EXPECT(want, "usdt", word);
	snprintf(word, sizeof(word), "%s:uvapp:hit(@tls:", v);
	snprintf(want, sizeof(want), "%s:uvapp:hit(@tls:uv_tls\n", v);
	EXPECT(want, "usdt", word);
	snprintf(word, sizeof(word), "%s:uvapp:hit(@uv_state.", v);
	EXPECT("", "usdt", word);
	/* A library's thread-local variables are not read: not offered. */
	snprintf(word, sizeof(word), "%s/libusdtvars.so:uvlib:hit(@", KSNOOP_UPROG_DIR);
	snprintf(want, sizeof(want), "%s/libusdtvars.so:uvlib:hit(@uvl_counter\n", KSNOOP_UPROG_DIR);
	EXPECT(want, "usdt", word);
}

static void test_option_with_value_in_word(void **state)
{
	EXPECT("ip_send_skb\n", "--mode=kprobe", "ip_send_s");
	EXPECT("4242\n", "--pid", "4");
	EXPECT("ip_send_skb\n", "--pid=4242", "ip_send_s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_option_values),
		cmocka_unit_test(test_commands_and_functions),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_ufunc_variables),
		cmocka_unit_test(test_usdt_variables),
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_dot_files),
		cmocka_unit_test(test_unsafe_names_left_out),
		cmocka_unit_test(test_option_with_value_in_word),
	};

	return cmocka_run_group_tests_name("complete", tests, make_kernel, remove_kernel);
}
