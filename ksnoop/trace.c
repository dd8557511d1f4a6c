// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `ksnoop [trace] SPEC...`: parse every spec, resolve every target, attach
 * all of them (or none), then print events until a count, a duration or a
 * signal ends the run, and say on stderr how many were printed and lost.
 *
 * Attach mode: fentry/fexit are cheaper and see arguments at return; when
 * the kernel refuses them (no BTF trampolines, restricted ftrace) ksnoop
 * falls back to kprobes for every function, so one run uses one mode.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "cli.h"
#include "log.h"
#include "print.h"
#include "target.h"

/* How often the loop wakes to check the clock and the lost-event counter. */
#define POLL_INTERVAL_MS 100
#define LOST_REPORT_INTERVAL_NS 1000000000ULL

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct trace {
	const struct options *opts;
	int nspecs;
	struct spec *specs;
	struct capture_plan *plans;
	struct printer printer;
	__u64 printed;
	__u64 check_at;		/* when handle_event() should hand back control */
	bool output_closed;
};

static __u64 now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct trace *t = ctx;
	const struct ksnoop_event *ev = data;

	if (size < sizeof(*ev) || ev->func_id >= (__u32)t->nspecs)
		return 0;
	if (t->opts->count && t->printed >= t->opts->count)
		return -ECANCELED;
	printer__event(&t->printer, &t->plans[ev->func_id], data, size);
	t->printed++;
	/*
	 * Under a flood ring_buffer__poll() may not return for a long time:
	 * look at the clock now and then, so --duration and the lost-event
	 * warnings still happen on time.
	 */
	if ((t->printed & 1023) == 0 && now_ns(CLOCK_MONOTONIC) >= t->check_at)
		return -EAGAIN;
	return 0;
}

static int attach_kind_for(enum spec_kind kind, enum attach_mode mode)
{
	if (kind == SPEC_TP)
		return ATTACH_TP;
	return mode == MODE_KPROBE ? ATTACH_KPROBE : ATTACH_FENTRY;
}

/* Parse and resolve every spec for MODE; 0, or an exit status. */
static int resolve_all(struct trace *t, struct kernel *k, char **argv, enum attach_mode mode)
{
	struct resolve_opts ropts = {
		.max_bytes = t->opts->max_bytes,
		.str_bytes = t->opts->str_bytes,
		.args_at_return = mode != MODE_KPROBE,
	};
	struct spec_error serr;
	char msg[512];
	int i, err;

	for (i = 0; i < t->nspecs; i++) {
		struct spec *s = &t->specs[i];
		struct signature sig;

		if (!s->text) {
			err = spec__parse(argv[i], SPEC_KFUNC, s, &serr);
			if (err) {
				log_error("spec '%s': column %d: %s", argv[i], serr.pos, serr.msg);
				return KSNOOP_EXIT_USAGE;
			}
		}
		if (s->kind == SPEC_TP)
			err = kernel__tp(k, s->target, &sig, msg, sizeof(msg));
		else
			err = kernel__func(k, s->target, &sig, msg, sizeof(msg));
		if (err) {
			log_error("spec '%s': %s", argv[i], msg);
			return err == -ENOENT || err == -EINVAL ? KSNOOP_EXIT_USAGE : KSNOOP_EXIT_RUNTIME;
		}
		err = resolver__resolve(s, &sig, &ropts, &t->plans[i], &serr);
		if (err) {
			if (serr.pos)
				log_error("spec '%s': column %d: %s", argv[i], serr.pos, serr.msg);
			else
				log_error("spec '%s': %s", argv[i], serr.msg);
			return KSNOOP_EXIT_USAGE;
		}
		t->plans[i].bpf.func_id = i;
		t->plans[i].bpf.filter_pid = t->opts->pid;
		t->plans[i].bpf.filter_tid = t->opts->tid;
		if (t->opts->has_comm) {
			t->plans[i].bpf.filter_comm = 1;
			memcpy(t->plans[i].bpf.comm, t->opts->comm, sizeof(t->plans[i].bpf.comm));
		}
		log_info("%s: %s%s%s, %d entry value(s), %d return value(s)", argv[i],
			 s->kind == SPEC_TP ? "tracepoint" : "function in ",
			 s->kind == SPEC_TP ? "" : (sig.module ? sig.module : "vmlinux"),
			 "", t->plans[i].nvalues[KSNOOP_ENTRY], t->plans[i].nvalues[KSNOOP_RETURN]);
	}
	return 0;
}

/* Attach everything in MODE; on failure nothing stays attached. */
static int attach_all(struct trace *t, enum attach_mode mode, struct attacher **out,
		      char *msg, size_t sz)
{
	struct attacher *a = attacher__new(t->opts->buffer_bytes);
	int i, err;

	if (!a)
		return -ENOMEM;
	for (i = 0; i < t->nspecs; i++) {
		err = attacher__add(a, &t->plans[i], attach_kind_for(t->specs[i].kind, mode),
				    msg, sz);
		if (err) {
			attacher__free(a);
			return err;
		}
	}
	*out = a;
	return 0;
}

static bool has_kernel_funcs(const struct trace *t)
{
	int i;

	for (i = 0; i < t->nspecs; i++)
		if (t->specs[i].kind == SPEC_KFUNC)
			return true;
	return false;
}

static int run_loop(struct trace *t, struct attacher *a)
{
	struct ring_buffer *rb;
	__u64 start = now_ns(CLOCK_MONOTONIC), last_lost_check = start, lost_seen = 0;
	int err = 0;

	rb = ring_buffer__new(attacher__ringbuf_fd(a), handle_event, t, NULL);
	if (!rb) {
		log_error("failed to set up the ring buffer: %s", strerror(errno));
		return KSNOOP_EXIT_RUNTIME;
	}
	t->check_at = start + POLL_INTERVAL_MS * 1000000ULL;
	while (!stop_requested) {
		__u64 now;

		err = ring_buffer__poll(rb, POLL_INTERVAL_MS);
		if (err < 0 && err != -EINTR && err != -EAGAIN && err != -ECANCELED) {
			log_error("reading events failed: %s", strerror(-err));
			break;
		}
		err = 0;
		/* Flush per batch: prompt on a pipe, cheap under a flood. */
		if (fflush(stdout) || ferror(stdout)) {
			t->output_closed = true;
			break;
		}
		now = now_ns(CLOCK_MONOTONIC);
		t->check_at = now + POLL_INTERVAL_MS * 1000000ULL;
		if (now - last_lost_check >= LOST_REPORT_INTERVAL_NS) {
			__u64 lost = attacher__counter(a, KSNOOP_CNT_LOST);

			if (lost > lost_seen)
				log_warn("%llu events lost so far (ring buffer full; try --buffer)",
					 (unsigned long long)lost);
			lost_seen = lost;
			last_lost_check = now;
		}
		if (t->opts->count && t->printed >= t->opts->count)
			break;
		if (t->opts->duration_ms && now - start >= t->opts->duration_ms * 1000000ULL)
			break;
	}
	/* Drain what is already in the buffer, within the count. */
	if (!t->output_closed) {
		t->check_at = now_ns(CLOCK_MONOTONIC) + POLL_INTERVAL_MS * 1000000ULL;
		ring_buffer__consume(rb);
	}
	ring_buffer__free(rb);
	if (fflush(stdout) || ferror(stdout))
		t->output_closed = true;
	return err ? KSNOOP_EXIT_RUNTIME : 0;
}

int do_trace(int argc, char **argv, const struct options *opts)
{
	struct trace t = { .opts = opts, .nspecs = argc };
	struct kernel k = { .btf_dir = opts->btf_dir };
	struct attacher *a = NULL;
	struct print_opts popts = {
		.format = opts->json ? FORMAT_JSON : FORMAT_TEXT,
		.zeros = opts->zeros,
		.clock_offset_ns = (__s64)(now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC)),
	};
	enum attach_mode mode = opts->mode;
	char msg[512], fentry_msg[512] = "";
	struct sigaction sa = { .sa_handler = on_signal };
	int ret, i, err;

	if (argc < 1) {
		log_error("expected at least one SPEC (see --help)");
		return KSNOOP_EXIT_USAGE;
	}
	t.specs = calloc(argc, sizeof(*t.specs));
	t.plans = calloc(argc, sizeof(*t.plans));
	if (!t.specs || !t.plans) {
		log_error("out of memory");
		ret = KSNOOP_EXIT_RUNTIME;
		goto out;
	}
	printer__init(&t.printer, stdout, &popts);

	/* Spec errors first: they need no kernel at all. */
	for (i = 0; i < argc; i++) {
		struct spec_error serr;

		if (spec__parse(argv[i], SPEC_KFUNC, &t.specs[i], &serr)) {
			log_error("spec '%s': column %d: %s", argv[i], serr.pos, serr.msg);
			ret = KSNOOP_EXIT_USAGE;
			goto out;
		}
	}
	if (kernel__open(&k, msg, sizeof(msg))) {
		log_error("%s", msg);
		ret = KSNOOP_EXIT_RUNTIME;
		goto out;
	}
	ret = resolve_all(&t, &k, argv, mode);
	if (ret)
		goto out;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	err = attach_all(&t, mode, &a, msg, sizeof(msg));
	if (err && mode == MODE_AUTO && has_kernel_funcs(&t)) {
		/* fentry refused: try kprobes, which need plans without args at return. */
		snprintf(fentry_msg, sizeof(fentry_msg), "%s", msg);
		log_info("fentry/fexit failed (%s); trying kprobes", msg);
		mode = MODE_KPROBE;
		ret = resolve_all(&t, &k, argv, mode);
		if (ret)
			goto out;
		if (!attacher__have_kprobes()) {
			log_error("cannot trace kernel functions on this kernel: fentry was refused (%s) and kprobes are not available (CONFIG_KPROBES is off); tracepoints (tp:NAME) and USDT probes still work",
				  fentry_msg);
			ret = KSNOOP_EXIT_RUNTIME;
			goto out;
		}
		err = attach_all(&t, mode, &a, msg, sizeof(msg));
	}
	if (err) {
		if (mode == MODE_KPROBE && !attacher__have_kprobes())
			log_error("cannot trace kernel functions on this kernel: kprobes are not available (CONFIG_KPROBES is off); tracepoints (tp:NAME) and USDT probes still work");
		else if (fentry_msg[0])
			log_error("%s (fentry was refused too: %s)", msg, fentry_msg);
		else
			log_error("%s", msg);
		ret = KSNOOP_EXIT_RUNTIME;
		goto out;
	}
	if (has_kernel_funcs(&t))
		log_info("attached with %s", mode == MODE_KPROBE ? "kprobe/kretprobe" : "fentry/fexit");
	log_info("tracing %d target(s); Ctrl-C to stop", t.nspecs);

	ret = run_loop(&t, a);
	if (!t.output_closed) {
		__u64 drops = attacher__counter(a, KSNOOP_CNT_STASH_DROP);

		fprintf(stderr, "ksnoop: %llu events printed, %llu lost",
			(unsigned long long)t.printed,
			(unsigned long long)attacher__counter(a, KSNOOP_CNT_LOST));
		if (drops)
			fprintf(stderr, ", %llu calls not followed (stash full)",
				(unsigned long long)drops);
		fputc('\n', stderr);
	}
out:
	attacher__free(a);
	for (i = 0; t.specs && i < argc; i++)
		spec__free(&t.specs[i]);
	free(t.specs);
	free(t.plans);
	kernel__close(&k);
	return ret;
}
