// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "attach.h"
#include "log.h"
#include "ksnoop.skel.h"

struct attacher {
	__u32 ringbuf_bytes;
	int ringbuf_fd;		/* from the first instance, -1 before */
	int counters_fd;
	struct ksnoop_bpf **skels;
	int nskels;
	/* Links of groups: one program, a link per function (or one multi link). */
	struct bpf_link **links;
	int nlinks;
	bool no_kprobe_multi;	/* the kernel refused kprobe.multi once */
};

struct attacher *attacher__new(__u32 ringbuf_bytes)
{
	struct attacher *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->ringbuf_bytes = ringbuf_bytes;
	a->ringbuf_fd = -1;
	a->counters_fd = -1;
	return a;
}

void attacher__free(struct attacher *a)
{
	int i;

	if (!a)
		return;
	for (i = a->nlinks - 1; i >= 0; i--)
		bpf_link__destroy(a->links[i]);
	free(a->links);
	for (i = a->nskels - 1; i >= 0; i--)
		ksnoop_bpf__destroy(a->skels[i]);
	free(a->skels);
	free(a);
}

bool attacher__have_kprobes(void)
{
	return access("/sys/bus/event_source/devices/kprobe", F_OK) == 0 ||
	       access("/sys/kernel/tracing/kprobe_events", F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/kprobe_events", F_OK) == 0;
}

static int attach_fail(char *msg, size_t sz, int err, const char *what, const char *target)
{
	snprintf(msg, sz, "failed to %s '%s': %s", what, target, strerror(-err));
	return err;
}

/* The entry record goes to the stash: whenever the return side needs it. */
static bool uses_stash(const struct ksnoop_plan *bp)
{
	return bp->side[KSNOOP_ENTRY].flags & (KSNOOP_SIDE_STASH | KSNOOP_SIDE_RETRY);
}

/* Entry times are kept for the return's duration (no stash to carry them). */
static bool uses_entry_times(const struct ksnoop_plan *bp)
{
	return bp->side[KSNOOP_ENTRY].flags & KSNOOP_SIDE_TIMED;
}

/* Does this plan need a program on KIND's side (events, a retry, a time)? */
static bool side_attached(const struct ksnoop_plan *bp, int kind)
{
	return bp->side[kind].enabled ||
	       (bp->side[kind].flags & (KSNOOP_SIDE_RETRY | KSNOOP_SIDE_TIMED));
}

/*
 * Before load: autoload only KIND's programs, set attach targets, size the
 * maps, share the first instance's ring buffer and counters.  Every libbpf
 * call is checked: an instance that kept its own ring buffer would write
 * where nobody reads.
 */
static int configure_instance(struct attacher *a, struct ksnoop_bpf *skel,
			      const struct capture_plan *plan, enum attach_kind kind,
			      bool sleepable, bool multi)
{
	const struct ksnoop_side_plan *entry = &plan->bpf.side[KSNOOP_ENTRY];
	const char *target = plan->sig.attach;
	int err = 0;

	memcpy((void *)&skel->rodata->plan, &plan->bpf, sizeof(plan->bpf));
	if (sleepable)
		skel->rodata->plan.flags |= KSNOOP_PLAN_SLEEPABLE;

	err = err ?: bpf_program__set_autoload(skel->progs.ksnoop_fentry, kind == ATTACH_FENTRY);
	err = err ?: bpf_program__set_autoload(skel->progs.ksnoop_fexit, kind == ATTACH_FENTRY);
	err = err ?: bpf_program__set_autoload(skel->progs.ksnoop_kprobe, kind == ATTACH_KPROBE);
	err = err ?: bpf_program__set_autoload(skel->progs.ksnoop_kretprobe, kind == ATTACH_KPROBE);
	err = err ?: bpf_program__set_autoload(skel->progs.ksnoop_tp, kind == ATTACH_TP);
	err = err ?: bpf_program__set_autoload(skel->progs.ksnoop_usdt, kind == ATTACH_USDT);
	if (kind == ATTACH_USDT && sleepable)
		err = err ?: bpf_program__set_flags(skel->progs.ksnoop_usdt,
						    bpf_program__flags(skel->progs.ksnoop_usdt) |
						    BPF_F_SLEEPABLE);

	if (kind == ATTACH_KPROBE && multi) {
		err = err ?: bpf_program__set_expected_attach_type(skel->progs.ksnoop_kprobe,
								   BPF_TRACE_KPROBE_MULTI);
		err = err ?: bpf_program__set_expected_attach_type(skel->progs.ksnoop_kretprobe,
								   BPF_TRACE_KPROBE_MULTI);
	}
	if (kind == ATTACH_FENTRY) {
		err = err ?: bpf_program__set_attach_target(skel->progs.ksnoop_fentry, 0, target);
		err = err ?: bpf_program__set_attach_target(skel->progs.ksnoop_fexit, 0, target);
	} else if (kind == ATTACH_TP) {
		err = err ?: bpf_program__set_attach_target(skel->progs.ksnoop_tp, 0, target);
	}

	/* The stash holds whole entry records; unused, it stays tiny. */
	if (uses_stash(&plan->bpf))
		err = err ?: bpf_map__set_value_size(skel->maps.stash, entry->rec_size);
	else
		err = err ?: bpf_map__set_max_entries(skel->maps.stash, 1);
	if (uses_stash(&plan->bpf))
		err = err ?: bpf_map__set_value_size(skel->maps.scratch, entry->rec_size);
	/*
	 * Not created at all when unused: a glob in fentry mode loads an
	 * instance per function, and every map is a file descriptor.  The
	 * verifier prunes the code that would use it (the plan says so).
	 */
	if (!uses_entry_times(&plan->bpf))
		err = err ?: bpf_map__set_autocreate(skel->maps.entry_times, false);

	if (a->ringbuf_fd >= 0) {
		err = err ?: bpf_map__reuse_fd(skel->maps.events, a->ringbuf_fd);
		err = err ?: bpf_map__reuse_fd(skel->maps.counters, a->counters_fd);
	} else {
		err = err ?: bpf_map__set_max_entries(skel->maps.events, a->ringbuf_bytes);
	}
	return err;
}

/* Open an instance for PLAN, autoload only KIND's programs, load it. */
static struct ksnoop_bpf *load_instance(struct attacher *a, const struct capture_plan *plan,
					enum attach_kind kind, bool sleepable, bool multi,
					char *msg, size_t sz, int *errp)
{
	const char *target = plan->sig.attach;
	struct ksnoop_bpf *skel, **skels;
	int err;

	skels = realloc(a->skels, (a->nskels + 1) * sizeof(*skels));
	if (!skels) {
		*errp = -ENOMEM;
		snprintf(msg, sz, "out of memory");
		return NULL;
	}
	a->skels = skels;

	skel = ksnoop_bpf__open();
	if (!skel) {
		*errp = attach_fail(msg, sz, -errno, "open the BPF object for", target);
		return NULL;
	}
	err = configure_instance(a, skel, plan, kind, sleepable, multi);
	if (err) {
		ksnoop_bpf__destroy(skel);
		*errp = attach_fail(msg, sz, err, "set up the BPF object for", target);
		return NULL;
	}

	err = ksnoop_bpf__load(skel);
	if (err) {
		ksnoop_bpf__destroy(skel);
		*errp = attach_fail(msg, sz, err,
				    kind == ATTACH_FENTRY ? "load fentry/fexit programs for" :
				    kind == ATTACH_KPROBE ? "load kprobe programs for" :
				    kind == ATTACH_USDT ? "load the USDT program for" :
				    "load the tp_btf program for", target);
		return NULL;
	}
	a->skels[a->nskels++] = skel;
	if (a->ringbuf_fd < 0) {
		a->ringbuf_fd = bpf_map__fd(skel->maps.events);
		a->counters_fd = bpf_map__fd(skel->maps.counters);
	}
	return skel;
}

int attacher__add(struct attacher *a, const struct capture_plan *plan,
		  enum attach_kind kind, char *msg, size_t sz)
{
	const char *target = plan->sig.attach;
	struct ksnoop_bpf *skel;
	struct bpf_link *link;
	int err = 0;

	skel = load_instance(a, plan, kind, false, false, msg, sz, &err);
	if (!skel)
		return err;

	switch (kind) {
	case ATTACH_FENTRY:
		if (side_attached(&plan->bpf, KSNOOP_ENTRY)) {
			link = bpf_program__attach(skel->progs.ksnoop_fentry);
			if (!link)
				return attach_fail(msg, sz, -errno, "attach fentry to", target);
			skel->links.ksnoop_fentry = link;
		}
		if (side_attached(&plan->bpf, KSNOOP_RETURN)) {
			link = bpf_program__attach(skel->progs.ksnoop_fexit);
			if (!link)
				return attach_fail(msg, sz, -errno, "attach fexit to", target);
			skel->links.ksnoop_fexit = link;
		}
		break;
	case ATTACH_KPROBE:
		if (side_attached(&plan->bpf, KSNOOP_ENTRY)) {
			link = bpf_program__attach_kprobe(skel->progs.ksnoop_kprobe, false, target);
			if (!link)
				return attach_fail(msg, sz, -errno, "attach a kprobe to", target);
			skel->links.ksnoop_kprobe = link;
		}
		if (side_attached(&plan->bpf, KSNOOP_RETURN)) {
			link = bpf_program__attach_kprobe(skel->progs.ksnoop_kretprobe, true, target);
			if (!link)
				return attach_fail(msg, sz, -errno, "attach a kretprobe to", target);
			skel->links.ksnoop_kretprobe = link;
		}
		break;
	case ATTACH_TP:
		link = bpf_program__attach(skel->progs.ksnoop_tp);
		if (!link)
			return attach_fail(msg, sz, -errno, "attach to tracepoint", target);
		skel->links.ksnoop_tp = link;
		break;
	case ATTACH_USDT:
		return -EINVAL;	/* attacher__add_usdt() */
	}
	return 0;
}

int attacher__add_usdt(struct attacher *a, const struct capture_plan *plan,
		       const char *path, const char *shown, const char *provider, const char *name,
		       int pid, char *msg, size_t sz)
{
	struct ksnoop_bpf *skel;
	struct bpf_link *link;
	int err = 0;

	/*
	 * Sleepable, so that user memory the program has not touched yet can
	 * be paged in and read; kernels without sleepable uprobes get the
	 * plain program.
	 */
	skel = load_instance(a, plan, ATTACH_USDT, true, false, msg, sz, &err);
	if (skel) {
		log_info("%s:%s: sleepable program (user memory is paged in to be read)",
			 provider, name);
	} else {
		log_info("%s:%s: sleepable uprobes refused (%s); user memory not paged in yet reads as a fault",
			 provider, name, msg);
		skel = load_instance(a, plan, ATTACH_USDT, false, false, msg, sz, &err);
	}
	if (!skel)
		return err;
	/* Every call site; the kernel counts the semaphore, if any. */
	link = bpf_program__attach_usdt(skel->progs.ksnoop_usdt, pid > 0 ? pid : -1,
					path, provider, name, NULL);
	if (!link) {
		err = -errno;
		snprintf(msg, sz, "failed to attach to USDT probe %s:%s in '%s': %s",
			 provider, name, shown, strerror(-err));
		return err;
	}
	skel->links.ksnoop_usdt = link;
	return 0;
}

/* Forget the instance loaded last (a kprobe.multi attempt the kernel refused). */
static void drop_last_instance(struct attacher *a)
{
	ksnoop_bpf__destroy(a->skels[--a->nskels]);
	if (a->nskels == 0)
		a->ringbuf_fd = a->counters_fd = -1;
}

static int keep_link(struct attacher *a, struct bpf_link *link)
{
	struct bpf_link **l = realloc(a->links, (a->nlinks + 1) * sizeof(*l));

	if (!l) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	a->links = l;
	a->links[a->nlinks++] = link;
	return 0;
}

/* kprobe.multi: one link per side for the whole group; 0, or why not. */
static int attach_multi(struct attacher *a, const struct capture_plan *plan,
			const struct attach_func *funcs, int n)
{
	struct ksnoop_bpf *skel;
	const char **syms = calloc(n, sizeof(*syms));
	__u64 *cookies = calloc(n, sizeof(*cookies));
	char msg[256];
	int i, err = 0, side, nlinks = a->nlinks;

	if (!syms || !cookies) {
		free(syms);
		free(cookies);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		syms[i] = funcs[i].name;
		cookies[i] = funcs[i].func_id;
	}
	skel = load_instance(a, plan, ATTACH_KPROBE, false, true, msg, sizeof(msg), &err);
	for (side = 0; skel && !err && side < KSNOOP_NR_KINDS; side++) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .syms = syms, .cookies = cookies,
			    .cnt = n, .retprobe = side == KSNOOP_RETURN);
		struct bpf_link *link;

		if (!side_attached(&plan->bpf, side))
			continue;
		link = bpf_program__attach_kprobe_multi_opts(side == KSNOOP_ENTRY ?
							     skel->progs.ksnoop_kprobe :
							     skel->progs.ksnoop_kretprobe, NULL, &opts);
		err = link ? keep_link(a, link) : -errno;
	}
	free(syms);
	free(cookies);
	if (skel && err) {
		/* Links first: they hold the programs. */
		while (a->nlinks > nlinks)
			bpf_link__destroy(a->links[--a->nlinks]);
		drop_last_instance(a);
	}
	return err;
}

int attacher__add_group(struct attacher *a, const struct capture_plan *plan,
			const struct attach_func *funcs, int n, bool *failed,
			char *msg, size_t sz)
{
	struct capture_plan *group = malloc(sizeof(*group));
	struct ksnoop_bpf *skel;
	int i, side, err = 0, attached = 0;

	if (!group)
		return -ENOMEM;
	memcpy(group, plan, sizeof(*group));
	group->bpf.flags |= KSNOOP_PLAN_COOKIE;
	/* Members differ in how many words they take: read those in use. */
	group->bpf.nslots = 0;
	for (i = 0; i < KSNOOP_MAX_ARGS; i++)
		if (plan->bpf.slot_mask & (1u << i))
			group->bpf.nslots = i + 1;
	if (!a->no_kprobe_multi) {
		err = attach_multi(a, group, funcs, n);
		if (!err) {
			log_info("%s and %d more: one program, kprobe.multi", funcs[0].name, n - 1);
			free(group);
			return 0;
		}
		log_info("kprobe.multi refused (%s): one kprobe per function", strerror(-err));
		a->no_kprobe_multi = true;
	}
	skel = load_instance(a, group, ATTACH_KPROBE, false, false, msg, sz, &err);
	free(group);
	if (!skel)
		return err;
	for (i = 0; i < n; i++) {
		for (side = 0; side < KSNOOP_NR_KINDS; side++) {
			LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = funcs[i].func_id,
				    .retprobe = side == KSNOOP_RETURN);
			struct bpf_link *link;

			if (!side_attached(&plan->bpf, side))
				continue;
			link = bpf_program__attach_kprobe_opts(side == KSNOOP_ENTRY ?
							       skel->progs.ksnoop_kprobe :
							       skel->progs.ksnoop_kretprobe,
							       funcs[i].name, &opts);
			err = link ? keep_link(a, link) : -errno;
			if (err)
				break;
		}
		if (err && failed && err != -ENOMEM) {
			/* A glob's function the kernel refuses: left out, said by the caller. */
			failed[i] = true;
			err = 0;
			continue;
		}
		if (err)
			return attach_fail(msg, sz, err, "attach a kprobe to", funcs[i].name);
		attached++;
	}
	log_info("%s and %d more: one program, %d functions with a kprobe each",
		 funcs[0].name, n - 1, attached);
	return 0;
}

int attacher__ringbuf_fd(const struct attacher *a)
{
	return a->ringbuf_fd;
}

__u64 attacher__counter(const struct attacher *a, enum ksnoop_counter counter)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 total = 0, *vals;
	__u32 key = counter;
	int i;

	if (a->counters_fd < 0 || ncpu <= 0)
		return 0;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return 0;
	if (bpf_map_lookup_elem(a->counters_fd, &key, vals) == 0)
		for (i = 0; i < ncpu; i++)
			total += vals[i];
	free(vals);
	return total;
}
