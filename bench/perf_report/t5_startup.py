"""Table 5: start-up and memory."""

import os

from .stats import DASH, stat, derived, med, errors_of, fmt, cell, ratio, pct_over


class StartupTable:
    """Table 5."""

    def startup(self):
        res = self.res
        self.w("""## 5. Start-up and memory

Start-up: from just before `fork()`+`exec` until the first line of an event
arrives on the tracer's terminal (`bench/startup.c`: the tracer runs on a
pseudo-terminal so that every tracer's stdio is line-buffered; the helper
triggers the traced event every millisecond while it waits). So it covers
parsing, BTF, loading and verification, attaching, and one event's trip
through the buffer. The tracer runs under `/usr/bin/time -v` (its exec is
included) and **peak RSS** is time's "Maximum resident set size". *Exit
after SIGINT* is how long the tracer took to detach and exit when asked.
""")
        if res.has_table("startup-tp"):
            self.startup_native()
        if res.has_table("startup-attach"):
            self.startup_attach()
        if res.has_table("startup-kfunc"):
            self.startup_vm()
        if res.has_table("usdt-bulk"):
            self.usdt_bulk()

    def usdt_bulk(self):
        res = self.res
        self.w("Bulk USDT attach, native: every `hotspot` probe of the JVM's `libjvm.so` "
               "(42 probes, 529 call sites) against one of them, each a whole run with one "
               "second of tracing (attach, trace, detach, exit). The target: all probes add at "
               "most 30 % over one.")
        self.w()
        self.commands((v, "bulk-" + v) for v in ("ksnoop-all", "ksnoop-one", "bpftrace-all"))
        self.w()
        all_ = med(stat(res, "usdt-bulk", "ksnoop-all", "wall_ms"))
        one = med(stat(res, "usdt-bulk", "ksnoop-one", "wall_ms"))
        bt = med(stat(res, "usdt-bulk", "bpftrace-all", "wall_ms"))
        if all_ is None or one is None:
            t = "not measured"
        elif all_ <= 1.3 * one:
            t = "≤ 1.3× one probe: **met** (%s×)" % ratio(all_, one)
        else:
            t = "≤ 1.3× one probe: **missed** (%s×)" % ratio(all_, one)
            st_all = stat(res, "usdt-bulk", "ksnoop-all", "wall_ms")
            st_one = stat(res, "usdt-bulk", "ksnoop-one", "wall_ms")
            # A miss inside the rounds' own spread is not a measured change.
            if st_all.min <= 1.3 * st_one.max:
                t += ("; within this run's spread: its fastest round, %s ms, is %s× the "
                      "slowest one-probe round" % (fmt(st_all.min), ratio(st_all.min, st_one.max)))
        self.w("| run | wall ms | ÷ ksnoop, one probe | ksnoop ÷ this | target |")
        self.w("| --- | --- | --- | --- | --- |")
        for v, label, target in (("ksnoop-all", "**ksnoop**, hotspot:*", t),
                                 ("ksnoop-one", "ksnoop, one probe", "reference"),
                                 ("bpftrace-all", self.bt_name() + ", hotspot:*", "reference")):
            st = stat(res, "usdt-bulk", v, "wall_ms")
            if not st:
                self.w("| %s | failed: `%s` | | | |" % (label, errors_of(res, "usdt-bulk", v)))
                continue
            self.w("| %s | %s | %s | %s | %s |"
                   % (label, cell(st), ratio(st.median, one),
                      DASH if v.startswith("ksnoop") else ratio(all_, st.median), target))
        self.w()
        self.w("Why it is cheap: libbpf attaches all call sites of one probe through one "
               "uprobe.multi link, and ksnoop destroys the 42 links from several threads at "
               "exit: each link waits for a grace period before it lets go, and overlapping "
               "waits share one (one after another they took 1.5 s).")
        self.w()
        self.verdict("bulk USDT attach ≤ 1.3× one probe (hotspot:*)",
                     "ksnoop %s ms vs %s ms; bpftrace %s ms" % (fmt(all_), fmt(one), fmt(bt)), t)

    def startup_native(self):
        res = self.res
        self.w("Tracepoint spec, native (the target: start-up under 100 ms on this machine):")
        self.w()
        self.disturbance("native")
        self.w("- ksnoop: `%s`\n- bpftrace: `%s`\n" % (res.cmd("su-tp-ksnoop"), res.cmd("su-tp-bpftrace")))
        s_ks = self.s_ks = med(stat(res, "startup-tp", "ksnoop", "startup_ms"))
        s_bt = med(stat(res, "startup-tp", "bpftrace", "startup_ms"))
        if s_ks is None:
            t = "not measured"
        elif s_ks < 100:
            t = "< 100 ms: **met**"
        else:
            t = "< 100 ms: **missed** by %s ms (%s %%)" % (fmt(s_ks - 100), pct_over(s_ks, 100))
        self.w("| tracer | start-up ms | peak RSS MiB | exit after SIGINT, ms | ksnoop ÷ bpftrace (start-up) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        for tracer, label, rt, target in (("ksnoop", "**ksnoop**", ratio(s_ks, s_bt), t),
                                          ("bpftrace", self.bt_name(), DASH, "reference")):
            self.w("| %s | %s | %s | %s | %s | %s |"
                   % (label, cell(stat(res, "startup-tp", tracer, "startup_ms"), 1),
                      cell(stat(res, "startup-tp", tracer, "rss_kb"), 1, 1024),
                      cell(stat(res, "startup-tp", tracer, "stop_ms"), 1), rt, target))
        self.w()
        self.verdict("start-up < 100 ms on this machine (tracepoint)",
                     "ksnoop %s ms; bpftrace %s ms" % (fmt(s_ks, 1), fmt(s_bt, 1)), t)
        e = errors_of(res, "startup-tp", "ksnoop") + errors_of(res, "startup-tp", "bpftrace")
        if e:
            self.w("Errors in some rounds: `%s`" % e)
            self.w()

    def startup_attach(self):
        res = self.res
        self.w("Exec to attached, native, a single-target trace (the target: at most 10 ms, issue #46): "
               "from just before `fork()`+`exec` until ksnoop's stderr says `tracing` (`-v`), "
               "no `time(1)` and no event; interleaved with the rows above. Where the time went, "
               "from when each `-v` line arrived: *resolved* is exec until the spec's line "
               "(arguments parsed, BTF read, the spec resolved), *load + attach* until the "
               "\"loaded ... attached\" line, *to tracing* the rest; ksnoop's own figures in "
               "that line are `load_s` (open + load + verify) and `attach_s` (since the "
               "attacher started, load included), to 10 ms.")
        self.w()
        self.commands([("ksnoop", "su-attach-ksnoop")])
        self.w()
        a = stat(res, "startup-attach", "ksnoop", "attached_ms")
        am = med(a)
        if am is None:
            t = "not measured"
        elif am <= 10:
            t = "≤ 10 ms: **met**"
        else:
            t = "≤ 10 ms: **missed** by %s ms (%s %% over)" % (fmt(am - 10, 1), pct_over(am, 10))
        self.w("| run | exec to attached, ms | resolved, ms | load + attach, ms | to tracing, ms "
               "| ksnoop's load_s / attach_s | exit after SIGINT, ms | target |")
        self.w("| --- | --- | --- | --- | --- | --- | --- | --- |")
        if not a:
            self.w("| **ksnoop** `%s` | failed: `%s` | | | | | | %s |"
                   % (res.m("tp_spec", "tp:sys_enter(id)"), errors_of(res, "startup-attach", "ksnoop")
                      or "no result", t))
        else:
            load = derived(res, "startup-attach", "ksnoop",
                           lambda r: r.num("loaded_ms") - r.num("resolved_ms"))
            rest = derived(res, "startup-attach", "ksnoop",
                           lambda r: r.num("attached_ms") - r.num("loaded_ms"))
            self.w("| **ksnoop** `%s` | %s | %s | %s | %s | %s / %s s | %s | %s |"
                   % (res.m("tp_spec", "tp:sys_enter(id)"), cell(a, 1),
                      cell(stat(res, "startup-attach", "ksnoop", "resolved_ms"), 1),
                      cell(load, 1), cell(rest, 1),
                      fmt(med(stat(res, "startup-attach", "ksnoop", "load_s")), 2),
                      fmt(med(stat(res, "startup-attach", "ksnoop", "attach_s")), 2),
                      cell(stat(res, "startup-attach", "ksnoop", "stop_ms"), 1), t))
        self.w()
        self.verdict("single-target trace, exec to attached ≤ 10 ms (native)",
                     "ksnoop %s ms" % (fmt(am, 1) if am is not None else "?"), t)

    def startup_vm(self):
        res = self.res
        tracers = ("ksnoop", "ksnoop-kprobe", "bcc-ksnoop", "bpftrace")
        self.w("Kernel-function spec, in the VM (software emulation: compare the ratios only):")
        self.w()
        self.commands((v, "vm-su-" + v) for v in tracers)
        self.w()
        k_ks = med(stat(res, "startup-kfunc", "ksnoop", "startup_ms"))
        self.w("| tracer | start-up ms (TCG) | peak RSS MiB | exit after SIGINT, ms (TCG) | ksnoop ÷ this tracer (start-up) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        for v in tracers:
            s = stat(res, "startup-kfunc", v, "startup_ms")
            label = "**%s**" % v if v.startswith("ksnoop") else v
            if not s:
                self.w("| %s | failed: `%s` | | | | |" % (label, errors_of(res, "startup-kfunc", v)))
                continue
            rt = DASH if v == "ksnoop" else ratio(k_ks, s.median)
            self.w("| %s | %s | %s | %s | %s | %s |"
                   % (label, cell(s), cell(stat(res, "startup-kfunc", v, "rss_kb"), 1, 1024),
                      cell(stat(res, "startup-kfunc", v, "stop_ms")), rt,
                      "informational (TCG)" if v == "ksnoop" else "reference"))
        self.w()

    def light_skeleton(self):
        """5c: measured by hand with bench/vm-lskel.sh, not by bench/run;
        the text is bench/lskel.md's, as it is."""
        path = os.path.join(os.path.dirname(__file__), os.pardir, "lskel.md")
        with open(path, encoding="utf-8") as f:
            self.w(f.read().rstrip("\n"))
        self.w()
