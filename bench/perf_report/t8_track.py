"""Table 8: object tracking (--track), cost per call and attach time."""

from .stats import (DASH, stats, stat, padd, med, errors_of, cpu_use, fmt, cell, sgn, intmed,
                    ratio, pct_over)


def is_track_run(table, variant):
    """A raw result of table 8 (its runs, its function list, its CPU phases)."""
    return (table in ("track", "track-attach", "track-list", "tracknat")
            or (table == "cpu" and variant in ("setup4", "track", "setup5", "tracknat")))


class TrackTable:
    """Table 8, alone too (bench/run --only-track)."""

    TRACK_HEADING = "## 8. Object tracking (`--track`): cost per call, attach time"
    TRACK_IDLE_MAX = 1.3    # a call whose object is not tracked, ÷ a filtered-out call

    def track(self):
        res = self.res
        tables = ("track", "track-attach", "track-list", "tracknat")
        if not any(res.has_table(t) for t in tables):
            if res.m("track_rc", "skipped") not in ("skipped", "0", ""):
                self.w(self.TRACK_HEADING)
                self.w()
                self.w("Not measured: the VM run did not produce results (`tests/vm/run` status %s)."
                       % res.m("track_rc"))
                self.w()
            return
        m = res.m
        self.w(self.TRACK_HEADING)
        self.w()
        if m("only") == "track":
            elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
            self.w(f"""Measured on its own by `bench/run --only-track` ({m("run_date")}, {elapsed:.1f}
minutes, {m("rounds")} rounds natively and {m("vm_rounds")} in the VM{", --quick sizes" if m("quick") == "1" else ""}; ksnoop {m("ks_ver")},
sha256 {m("ks_sha")}, tree at commit {m("commit")}; bpftrace {m("bt_ver")}), not in the run the
header describes. The VM: Debian's {m("track_info") or "6.12"}, qemu with
{"both vCPUs in one host thread (`thread=single`: the skb glob patches hundreds of functions)" if m("track_tcg", "single") == "single" else "a host thread per vCPU (`thread=multi`)"}.
""")
        self.w("""Two questions of issue #29, interleaved rounds, every traced run after an
untraced run of its own loop (added cost against that neighbour), the
tracer's output on `/dev/null`:

- **A traced call whose object is not tracked** against **today's
  filtered-out call**: `--track` with a spec that binds a pointer by type
  and a predicate that never holds, so nothing is ever tracked and each
  call costs the predicate and one lookup in the tracked set, against the
  same predicate without `--track`. Natively on `tp:sys_enter` (the
  `getppid()` loop of table 3b; `struct pt_regs *` bound by type) and in
  the VM on `do_sys_openat2` (table 1's open+close loop, fentry;
  `struct open_how *` bound by type). Target: at most %s× the
  filtered-out call's added cost.
- **Attach time over every function that takes an skb** (6.12):
  whole runs of `ksnoop -v --track s '*(struct sk_buff *s)'` (start to
  "tracing N target(s)", one second of tracing, SIGINT, exited) against
  bpftrace with a kprobe on each of the same functions: the list is read
  from tracefs's `enabled_functions` while an untimed ksnoop run is
  attached (less the kprobe blacklist), and written as one program
  `kprobe:F1,kprobe:F2,... { }`; bpftrace runs a command once it has
  attached (its time is "attached") and detaches when it ends. And
  against pwru `--filter-track-skb` (attached at its "Listening for
  events"), where bench/run could give it (below).

Commands (`ksb-loop` is `bench/loop.c`):
""" % self.TRACK_IDLE_MAX)
        for key in ("tracknat-untraced", "tracknat-filtered", "tracknat-untracked", "vm-track-untraced",
                    "vm-track-filtered", "vm-track-untracked", "vm-track-skb-ksnoop", "vm-track-skb-bpftrace", "vm-track-skb-pwru"):
            if res.cmd(key):
                self.w("- %s: `%s`" % (key.replace("vm-track-", "VM ").replace("tracknat-", "native "),
                                       res.cmd(key)))
        self.w()
        for phase, what in (("tracknat", "the native rows"), ("track", "the VM part")):
            use = cpu_use(res, phase)
            if use:
                disturbed = float(use[0]) > 10 or float(use[1]) > 5
                self.w("%sWhile %s ran, other processes used %s %% of the machine's CPU time "
                       "(steal %s %%)%s" % ("**Disturbed:** " if disturbed else "", what, use[0], use[1],
                                            "; the spread shows it." if disturbed else ": quiet."))
                self.w()
        self.track_cost_table()
        self.track_attach_table()
        self.track_pwru()
        if res.has("track-verbose"):
            self.w("What `ksnoop -v` said of the skb glob (the untimed run):")
            self.w()
            self.w("```")
            for line in res.lines("track-verbose")[:12]:
                self.w(line)
            self.w("```")
            self.w()
        if res.has("track-kernel"):
            self.w("The guest kernel complained during table 8:")
            self.w()
            self.w("```")
            for line in res.lines("track-kernel")[:40]:
                self.w(line)
            self.w("```")
            self.w()

    def track_pwru(self):
        """What became of pwru, the nearest peer of --track over skbs."""
        res = self.res
        pkg = res.m("pwru")
        if res.of("track-attach", "skb-pwru"):
            self.w("pwru (Cilium's skb tracer, the nearest tool to `--track` over skbs) is Debian "
                   "trixie's package (`apt-cache policy pwru`: %s; bookworm has none), "
                   "run with bookworm's libpcap (`libpcap0.8`, the same soname; trixie's needs "
                   "glibc 2.38). `--filter-track-skb` with a pcap filter no packet here matches: "
                   "it attaches to every function of vmlinux that takes an skb and follows the "
                   "skbs its filter matched, as `--track` does." % pkg.removeprefix("deb "))
            self.w()
            if res.has("track-pwru"):
                self.w("What pwru printed while it attached (first run):")
                self.w()
                self.w("```")
                for line in res.lines("track-pwru")[:8]:
                    self.w(line)
                self.w("```")
                self.w()
            return
        if pkg.startswith("deb "):
            where = ("Debian packages it only from trixie on (`apt-cache policy pwru`: %s; "
                     "bookworm has none)" % pkg[4:])
        else:
            where = "Debian does not package it (`apt-cache policy pwru`: no candidate for %s)" % (
                pkg or "bookworm")
        self.w("pwru (Cilium's skb tracer, the nearest tool to `--track` over skbs) is not "
               "measured: %s; trixie's build needs trixie's libpcap (glibc 2.38), which does not "
               "run on this bookworm host that builds the VM's initramfs, and building it from "
               "source needs Go modules that cannot be fetched here.%s"
               % (where, (" This run: %s." % res.m("pwru_why")) if res.m("pwru_why") else ""))
        self.w()

    def track_cost_table(self):
        """(a): an untracked call against a filtered-out one, natively and in the VM."""
        res = self.res
        notes = []
        self.w("| where | variant | ns per call | added ns per call | events printed | ratio (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- | --- |")
        for table, where, fspec, tspec in (
                ("tracknat", "native, `tp:sys_enter`", res.m("filt_spec") or "tp:sys_enter(id == 12345)",
                 "--track r 'tp:sys_enter(struct pt_regs *r, id == 12345)'"),
                ("track", "VM %s, `do_sys_openat2`" % res.m("track_kernel", "trixie"),
                 "do_sys_openat2(dfd == 12345)",
                 "--track h 'do_sys_openat2(struct open_how *h, dfd == 12345)'")):
            if not res.has_table(table):
                continue
            a_f, a_u = med(padd(res, table, "filtered")), med(padd(res, table, "untracked"))
            t = self.target_track_idle(a_u, a_f, padd(res, table, "filtered"))
            rows = (("untraced", "untraced", DASH, DASH),
                    ("filtered", "ksnoop, filtered out (`%s`)" % fspec, DASH, "reference"),
                    ("untracked", "**ksnoop `%s`**, nothing tracked" % tspec,
                     "÷ filtered out: %s" % ratio(a_u, a_f), t))
            for v, label, rt, target in rows:
                st = stat(res, table, v, "ns_per_iter")
                if not st:
                    if res.of(table, v):
                        self.w("| %s | %s | failed: `%s` | | | | %s |"
                               % (where, label, errors_of(res, table, v) or "no result", target))
                    continue
                traced = v != "untraced"
                self.w("| %s | %s | %s | %s | %s | %s | %s |"
                       % (where, label, cell(st, 1), cell(padd(res, table, v), 1) if traced else DASH,
                          intmed(stat(res, table, v, "printed")) if traced else DASH, rt, target))
            self.verdict("`--track`: a call whose object is not tracked ≤ %s× a filtered-out call (%s)"
                         % (self.TRACK_IDLE_MAX, where),
                         "not tracked %s ns; filtered out %s ns" % (sgn(a_u), sgn(a_f)), t)
            if "**missed**" in t:
                notes.append("%s: a call whose object is not tracked costs %s ns more than a "
                             "filtered-out one. That is what `--track` adds to it: the bound "
                             "pointer taken from the call's words and one lookup in `tracked`, an "
                             "LRU hash (`track_call()` in `bpf/ksnoop.bpf.c`), made even while the "
                             "set is empty." % (where, fmt(a_u - a_f, 1)))
        self.w()
        for note in notes:
            self.w(note)
            self.w()

    def target_track_idle(self, a, filt, filt_stats):
        """A call whose object is not tracked: at most TRACK_IDLE_MAX times a
        filtered-out call's added cost."""
        limit = self.TRACK_IDLE_MAX
        if a is None or filt is None:
            return "not measured"
        if filt <= 0 or filt_stats.min <= 0:
            return ("cannot be judged: the filtered-out call's added cost, %s ns, is not above the "
                    "run-to-run noise (not tracked: %s ns)" % (cell(filt_stats, 1), sgn(a)))
        if a <= filt * limit:
            return "≤ %s× filtered out: **met** (%s×)" % (limit, ratio(a, filt))
        return ("≤ %s× filtered out: **missed** (%s×, %s %% over %s×)"
                % (limit, ratio(a, filt), pct_over(a, filt * limit), limit))

    def track_stat(self, variant, key):
        return stats(r.num(key) for r in self.res.of("track-attach", variant)
                     if r.fields.get(key, "") != "")

    def track_attach_table(self):
        """(b): attach time of the skb glob, ksnoop against bpftrace."""
        res = self.res
        if not (res.has_table("track-attach") or res.has_table("track-list")):
            return
        lst = next((r for r in res.of("track-list", "functions") if not r.failed), None)
        one = next((r for r in res.of("track-list", "ksnoop") if not r.failed), None)
        if one:
            self.w("The skb glob on %s: **%s functions** traced (%s programs, %s links, %s targets "
                   "with the free-path tracepoints); ftrace hooked %s functions, and bpftrace was "
                   "given %s of them (those not on the kprobe blacklist)."
                   % (res.m("track_kernel", "trixie"), one.fields.get("funcs", "?"),
                      one.fields.get("programs", "?"), one.fields.get("links", "?"),
                      one.fields.get("targets", "?"),
                      lst.fields.get("hooked", "?") if lst else "?",
                      lst.fields.get("bpftrace_probes", "?") if lst else "?"))
            self.w()
        self.w("| tracer | attached s | tracing s | detach s | whole run s | whole run ÷ bpftrace, ÷ pwru |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        total = {v: med(self.track_stat(v, "total_ms")) for v in ("skb-ksnoop", "skb-bpftrace", "skb-pwru")}
        for v, label in (("skb-ksnoop", "**ksnoop** `--track s '*(struct sk_buff *s)'`"),
                         ("skb-bpftrace", "bpftrace, a `kprobe:` on each of the same functions"),
                         ("skb-pwru", "pwru `--filter-track-skb`, every skb function of vmlinux")):
            st = self.track_stat(v, "total_ms")
            if not st:
                if res.of("track-attach", v):
                    self.w("| %s | failed: `%s` | | | | |" % (label, errors_of(res, "track-attach", v) or "no result"))
                continue
            if v == "skb-bpftrace":
                probes = med(self.track_stat(v, "probes"))
                label += " (%s probes)" % fmt(probes) if probes else ""
            if v == "skb-pwru":
                hooked, ignored = med(self.track_stat(v, "hooked")), med(self.track_stat(v, "ignored"))
                label += " (%s%s ignored)" % ("%s functions hooked, " % fmt(hooked) if hooked else "",
                                              fmt(ignored) if ignored is not None else "?")
            vs = DASH
            if v != "skb-bpftrace":
                vs = "%s, %s" % (ratio(st.median, total["skb-bpftrace"]),
                                 ratio(st.median, total["skb-pwru"]) if v == "skb-ksnoop" else DASH)
            self.w("| %s | %s | %s | %s | %s | %s |"
                   % (label, cell(self.track_stat(v, "attach_ms"), 2, 1000),
                      cell(self.track_stat(v, "trace_ms"), 2, 1000),
                      cell(self.track_stat(v, "detach_ms"), 2, 1000), cell(st, 2, 1000), vs))
        self.w()
        att = {v: med(self.track_stat(v, "attach_ms")) for v in total}

        def secs(v):
            return "%s s attached, %s s whole run" % (
                fmt(att[v] / 1000, 2) if att[v] is not None else "?",
                fmt(total[v] / 1000, 2) if total[v] is not None else "?")
        ka = att["skb-ksnoop"]
        if ka is not None:
            peers = [(name, att[v]) for name, v in (("bpftrace", "skb-bpftrace"), ("pwru", "skb-pwru"))
                     if att[v]]
            self.verdict("`--track s '*(struct sk_buff *s)'`: attach time over every skb function, "
                         "beside bpftrace and pwru (%s, VM; no target)" % res.m("track_kernel", "trixie"),
                         "ksnoop %s; bpftrace %s; pwru %s" % (secs("skb-ksnoop"), secs("skb-bpftrace"),
                                                              secs("skb-pwru")),
                         "; ".join("ksnoop attaches in %s× %s's time" % (ratio(ka, a), name) for name, a in peers)
                         or "no peer measured")

    def track_only(self):
        """Table 8 alone, for splice_track(): its section, its verdicts and
        its raw lines."""
        self.track()
        raw = [r.line for r in self.res.runs if is_track_run(r.table, r.variant)]
        return self.text(), self.verdicts, raw
