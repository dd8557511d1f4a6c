"""After the tables: trouble, targets at a glance, profiles, findings, raw results."""

from .stats import stat, derived, med, fmt, intmed, ratio, cut


class SummaryParts:
    """The parts after the tables."""

    # ---- tracers that did not exit, guest kernel trouble

    def trouble(self):
        res = self.res
        killed = ["%s %s (round %s)" % ("native" if r.table in ("startup-tp", "startup-attach") else "VM",
                                        r.variant, r.round)
                  for r in res.runs if r.table.startswith("startup-") and r.fields.get("killed", "").startswith("1")]
        if killed:
            self.w("**A tracer did not exit within 60 s of SIGINT** and was killed: %s." % "; ".join(killed))
            if res.has("hangs"):
                self.w("Where its threads were just before (state, wait channel, top of the kernel stack):")
                self.w()
                self.w("```")
                for line in res.lines("hangs")[:20]:
                    self.w(cut(line, 300))
                self.w("```")
            self.w()
        vm_rc = res.m("vm_rc", "0")
        vm_failed = vm_rc not in ("0", "skipped", "")
        if not (res.has("kernel") or vm_failed):
            return
        self.w("### The VM run did not go cleanly")
        self.w()
        if vm_failed:
            self.w("`tests/vm/run` ended with status %s (a script failed or the VM timed out); "
                   "tables 1 and 5 hold what was reported before that." % vm_rc)
        self.w()
        if res.has("kernel"):
            self.w("The guest kernel (Debian's stock 6.1 under TCG) reported trouble; its first lines:")
            self.w()
            self.w("```")
            for line in res.lines("kernel")[:60]:
                self.w(line)
            self.w("```")
            self.w()
        if res.has("waits"):
            self.w("Before some start-up runs an earlier tracer was still exiting: %d time(s)."
                   % len(res.lines("waits")))
            self.w()

    # ---- summary of targets

    def targets(self):
        self.w("## Targets at a glance")
        self.w()
        self.w("| target | measured (added ns are medians) | verdict |")
        self.w("| --- | --- | --- |")
        for line in self.verdicts:
            self.w(line)
        self.w()

    # ---- profiles

    def profiles(self):
        res = self.res
        if not any(res.has("prof." + p) for p in ("startup", "small", "large")):
            return
        self.w("""## Where ksnoop's time goes (perf, this run)

`perf record --call-graph dwarf` on the ksnoop process: the share of its
samples spent in each user-space function and everything it calls
("children"), then in the function itself ("self"). The consumer profiles
attach to ksnoop after it has started, so they hold only the printing.
""")
        titles = (
            ("filt", "A filtered-out tracepoint call (`ksnoop '%s'`): `perf record -C 1` on the "
                     "workload's CPU, kernel and user symbols by self time:" % res.m("filt_spec")),
            ("startup", "Start-up, `ksnoop -p PID 'tp:sys_enter(id)'` until its first event:"),
            ("small", "Printing small events (text, `tp:sys_enter(id)`), %s events:" % fmt(res.mnum("drain_n"))),
            ("large", "Printing large struct events (text, `tp:sys_enter(regs)`), a 2-second flood:"),
        )
        for name, title in titles:
            if not res.has("prof." + name):
                continue
            self.w(title)
            self.w()
            self.w("```")
            for line in res.lines("prof." + name)[:16]:
                self.w(line.lstrip(" "))
            self.w("```")
            self.w()

    # ---- findings: each shown only while this run's evidence holds

    def share(self, profile, symbol):
        """A symbol's "children" percentage in a perf listing, as printed, or "0"."""
        for line in self.res.lines(profile):
            words = line.split()
            if len(words) >= 4 and words[3] == symbol:
                return words[0].replace("%", "", 1)
        return "0"

    def finding(self, text):
        self.findings += 1
        self.w("%d. %s" % (self.findings, text))

    def findings_part(self):
        res = self.res
        sh_btfdump = self.share("prof.large", "btf_dump__new")
        sh_ksyms = self.share("prof.startup", "ksyms__load")
        sh_findbtf = self.share("prof.startup", "libbpf_find_kernel_btf")
        tl = med(derived(res, "tput-max", "text-large", self.printed_per_s))
        jl = med(derived(res, "tput-max", "json-large", self.printed_per_s))
        un = med(derived(res, "tput-max", "text-large", self.unaccounted))
        self.w("""## Findings

Found with this benchmark and the profiles above; each names the code and
the evidence from this run. bench/ only measures: none is fixed here.
""")
        if float(sh_btfdump) >= 20 or (tl is not None and jl is not None and tl * 20 < jl):
            ms = "%.2f" % (1000 / tl) if tl and tl > 0 else "?"
            self.finding(f"""**Text output of a struct behind a pointer rebuilds a BTF dumper for
   every event.** `ksnoop/output/print.c`, `printer__value()`, case `PRINT_DEREF`,
   calls `btfu_type_str()` (`ksnoop/lib/btf_util.c`) per event to spell the type
   in `regs = 0x... -> (struct pt_regs){{`; that creates and frees a whole
   `btf_dump` over vmlinux BTF (libbpf 1.1's `btf_dump__new()` walks every
   type of the kernel's BTF) to print the same constant string. Evidence:
   `btf_dump__new` is {sh_btfdump} % of the consumer's samples in the
   large-text profile; text prints {fmt(tl)} large events/s against
   {fmt(jl)}/s for JSON of the same events (table 4), i.e. about
   {ms} ms per event. The string depends only on the plan:
   compute it once when resolving (e.g. keep it in `struct value_desc`).
""")
        if un is not None and un > 1000:
            stopped = ""
            sp = intmed(stat(res, "kfunc", "ksnoop-fentry-stopped", "printed"))
            if sp != "?":
                stopped = ("\n   Also table 1, \"reader stopped\": of the %s records of a run (two per\n"
                           "   call), %s were printed and 0 reported lost." % (fmt(2 * res.mnum("open_n")), sp))
            self.finding(f"""**Events still in the ring buffer at exit are neither printed nor
   counted as lost.** `ksnoop/cmd/cmd_trace.c`, `run_loop()`: after SIGINT the
   final `ring_buffer__consume()` ends at the first clock check in
   `handle_event()` after 100 ms (it returns `-EAGAIN`), and the rest of
   the buffer is dropped without a word, so the summary
   `N events printed, M lost` undercounts. Evidence: table 4, text-large,
   live max: {fmt(un)} offered events are *unaccounted* (≈ one full 8 MiB
   buffer of 240-byte records); for the runs that keep up the count is 0.{stopped}
   Stopping promptly under a flood is fine; the summary should then count
   what it discarded.
""")
        if float(sh_ksyms) >= 10:
            self.finding(f"""**Start-up reads and sorts all of `/proc/kallsyms`, even for
   tracepoints.** `ksnoop/kernel/kernel.c`, `kernel__open()` always loads it;
   `ksnoop/kernel/ksyms.c`, `ksyms__load()` reads every line through the kernel's
   kallsyms seq_file, `malloc()`s every text symbol and `qsort()`s them by
   name, to look up a handful of functions. Evidence: `ksyms__load` is
   {sh_ksyms} % of ksnoop's samples in the start-up profile of a `tp:` spec,
   which needs no kernel symbol at all; start-up is {fmt(self.s_ks, 1)} ms against
   the 100 ms target (table 5). Loading kallsyms only for kernel-function
   specs, and then scanning it once for the wanted names instead of sorting,
   removes most of it.
""")
        if float(sh_findbtf) >= 2:
            self.finding(f"""**Each traced target makes libbpf parse vmlinux BTF again.**
   `ksnoop/attach/attach.c`, `attacher__add()` → `bpf_program__set_attach_target()`:
   libbpf 1.1 loads `/sys/kernel/btf/vmlinux` (`libbpf_find_kernel_btf`,
   {sh_findbtf} % of start-up samples here, for one target) for every skeleton
   instance, although ksnoop already holds that BTF; start-up grows with the
   number of specs. Resolving the BTF id once and passing it (or reusing one
   loaded `struct btf`) avoids it.
""")
        if self.filter_missed():
            self.finding(f"""**A filtered-out call costs {ratio(self.f_ks, self.f_b)}× a bare probe** (table 3b: +{fmt(self.f_ks - self.f_b)} ns per
   call on this machine). `bpf/ksnoop.bpf.c`: such a call is rejected by
   `prefilter_rejects()` (its first predicate on its argument word alone,
   before anything else); what is left is the `.rodata` loads the verifier
   keeps (it prunes dead branches, not dead loads) and the raw_tp program's
   dispatch against the bare probe's tp_btf one.
""")
        if self.findings == 0:
            self.w("None in this run.")
            self.w()
        if self.kfunc_notes:
            self.w("""How the peers deliver events matters for table 1: bpftrace prints through
`perf_event_output()` into per-CPU perf buffers and is woken for every event;
ksnoop's BPF ring buffer wakes the reader once per sixteenth of the buffer
written, or when it last did 10 ms ago or more. bcc's
ksnoop formats nothing in BPF either, but uses a per-CPU perf buffer and
`fflush()`es stdout after every event (one `write()` each).
""")

    def raw(self):
        self.w()
        self.w("## Raw results")
        self.w()
        self.w("<details><summary>every round, as recorded (TABLE VARIANT ROUND key=value...)</summary>")
        self.w()
        self.w("```")
        for run in self.res.runs:
            self.w(run.line)
        self.w("```")
        self.w()
        self.w("</details>")
