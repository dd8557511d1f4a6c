// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Events to pcapng blocks.  An event's record came from our BPF program,
 * but its packet bytes, lengths and names are traced memory: every
 * offset and length is checked against the record's size here, and
 * pcapng__from_skb() checks the packet's own.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "pcap_events.h"
#include "pcapng.h"

struct pcap_events {
	FILE *f;
	struct pcapng_writer *w;
	__s64 clock_offset_ns;
	__u64 written;
	__u64 skipped;
};

struct pcap_events *pcap_events__open(const char *path, __s64 clock_offset_ns,
				      struct ks_error *e)
{
	struct pcap_events *pe = calloc(1, sizeof(*pe));
	int err;

	if (!pe) {
		ks_fail(e, -ENOMEM, "out of memory");
		return NULL;
	}
	pe->clock_offset_ns = clock_offset_ns;
	pe->f = fopen(path, "we");
	if (!pe->f) {
		/* A path the user gave that cannot be written is theirs to fix (exit 2). */
		ks_fail(e, -EINVAL, "--pcap: cannot write '%s': %s", path, strerror(errno));
		free(pe);
		return NULL;
	}
	pe->w = pcapng__new(pe->f);
	if (!pe->w) {
		err = errno ? -errno : -EIO;
		ks_fail(e, err == -ENOMEM ? err : -EINVAL, "--pcap: cannot write '%s': %s", path,
			strerror(-err));
		fclose(pe->f);
		free(pe);
		return NULL;
	}
	return pe;
}

void pcap_events__comment(const struct ksnoop_event *ev, const char *name, char *buf,
			  size_t size)
{
	char comm[KSNOOP_COMM_LEN + 1], *esc;
	bool plain;
	int n;

	memcpy(comm, ev->comm, KSNOOP_COMM_LEN);
	comm[KSNOOP_COMM_LEN] = '\0';
	/* Escaped only when escaping changes it: no allocation per packet. */
	plain = text_is_printable(comm, strlen(comm));
	esc = plain ? NULL : text_escaped_dup(comm);
	n = snprintf(buf, size, "%s%s comm=%s pid=%u tid=%u", name,
		     ev->kind == KSNOOP_RETURN ? " (entry, reported at the return)" : "",
		     plain ? comm : esc ? esc : "?", ev->tgid, ev->tid);
	free(esc);
	if (n >= 0 && (size_t)n < size && (ev->flags & KSNOOP_EV_OBJECT))
		snprintf(buf + n, size - n, " object=0x%llx story=%u",
			 (unsigned long long)ev->object, ev->session);
}

/* ERR (-errno) from writing the file, said in E: a runtime failure. */
static int write_failed(int err, struct ks_error *e)
{
	return ks_fail(e, ks_runtime_errno(err), "--pcap: writing failed: %s", strerror(-err));
}

/* One packet value VH (with AVAIL bytes after its header) of event EV. */
static int write_packet(struct pcap_events *pe, const struct ksnoop_event *ev, const char *name,
			const struct ksnoop_value *vh, size_t avail, struct ks_error *e)
{
	char if_name[KSNOOP_IFNAMSIZ + 1], comment[PCAPNG_MAX_COMMENT];
	struct pcapng_packet p;
	int err;

	if ((vh->status & KSNOOP_STATUS_MASK) != KSNOOP_OK || vh->len > avail ||
	    pcapng__from_skb(vh + 1, vh->len, &p, if_name)) {
		pe->skipped++;
		return 0;
	}
	pcap_events__comment(ev, name, comment, sizeof(comment));
	p.comment = comment;
	p.time_ns = ev->time_ns + pe->clock_offset_ns;
	err = pcapng__packet(pe->w, &p);
	if (err)
		return write_failed(err, e);
	pe->written++;
	return 0;
}

int pcap_events__event(struct pcap_events *pe, const struct capture_plan *plan,
		       const char *name, const void *data, size_t size, struct ks_error *e)
{
	const struct ksnoop_event *ev = data;
	const struct ksnoop_side_plan *side;
	int i, err;

	if (size < sizeof(*ev) || ev->kind >= KSNOOP_NR_KINDS)
		return 0;
	side = &plan->bpf.side[ev->kind];
	/* A stashed entry's packet comes with its return, among that side's values. */
	for (i = 0; i < plan->nvalues[ev->kind] && i < KSNOOP_MAX_VALUES; i++) {
		__u32 off = side->values[i].rec_off;
		const struct ksnoop_value *vh;

		if (plan->values[ev->kind][i].how != PRINT_SKB_PACKET || off > size ||
		    size - off < sizeof(*vh))
			continue;
		vh = (const void *)((const char *)data + off);
		err = write_packet(pe, ev, name, vh, size - off - sizeof(*vh), e);
		if (err)
			return err;
	}
	return 0;
}

__u64 pcap_events__written(const struct pcap_events *pe)
{
	return pe->written;
}

__u64 pcap_events__skipped(const struct pcap_events *pe)
{
	return pe->skipped + pcapng__refused(pe->w);
}

int pcap_events__flush(struct pcap_events *pe, struct ks_error *e)
{
	int err = pcapng__flush(pe->w);

	return err ? write_failed(err, e) : 0;
}

int pcap_events__close(struct pcap_events *pe, struct ks_error *e)
{
	int err;

	if (!pe)
		return 0;
	err = pcap_events__flush(pe, e);
	pcapng__free(pe->w);
	if (fclose(pe->f) && !err)
		err = ks_fail(e, ks_runtime_errno(-errno), "--pcap: closing failed: %s",
			      strerror(errno));
	free(pe);
	return err;
}
