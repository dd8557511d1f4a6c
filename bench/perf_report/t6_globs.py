"""Table 6: many functions at once (globs, info, tracepoint lists, completion)."""

from .stats import DASH, stats, stat, med, errors_of, fmt, cell, sgn, intmed, ratio, pct_over


class GlobsTable:
    """Table 6."""

    def globs(self):
        res = self.res
        if not (res.has_table("glob") or res.has_table("info") or res.has_table("globcall")
                or res.has_table("tplist") or res.has_table("complete")):
            return
        self.w("""## 6. Many functions at once

A whole run of `ksnoop 'tcp_*'` (every argument of each of 300 and more
functions, on entry and on return) against `ksnoop tcp_sendmsg`, and
bpftrace's `kprobe:tcp_*` (entry only, a count per probe) against its
`kprobe:tcp_sendmsg`, in the VM (TCG) on both kernels: *attach* from exec
until the tracer is attached, one second of *trace*, *detach* from SIGINT
(bpftrace: the end of its `-c` command) until it has exited. ksnoop's
target: the whole `tcp_*` run within 2× that of one function, and faster
than bpftrace's `kprobe:tcp_*`.
""")
        if res.has_table("glob"):
            self.w()
            self.commands((v, "vm-glob-" + v) for v in
                          ("ksnoop-glob", "ksnoop-one", "bpftrace-glob", "bpftrace-one"))
            self.w()
            kernels = res.kernels("glob")
            self.w("| kernel | run | attach s | trace s | detach s | total s | ÷ one function | "
                   "ksnoop ÷ bpftrace (total) | target |")
            self.w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
            self.glob_notes = []
            for k in kernels:
                self.glob_rows(k)
            self.w()
            self.w("Why it is cheap: functions whose plans differ only in their values share "
                   "one program (each function's ways to its values are in a map, at the index "
                   "its BPF cookie gives), so `tcp_*` loads two programs, not one per signature; "
                   "where the kernel has kprobe.multi (6.12) each program attaches all its "
                   "functions through one link. Debian's 6.1 has no kprobe.multi: every "
                   "function gets a kprobe and a kretprobe of its own, and the kernel "
                   "destroys each one under a global mutex after an RCU and a tracepoint SRCU "
                   "grace period (`perf_kprobe_destroy()`), one after another whatever the "
                   "number of threads that close them.")
            self.w()
            for note in self.glob_notes:
                self.w(note)
                self.w()
        if res.has_table("globcall"):
            self.globcall_table()
        if res.has_table("info"):
            self.info_table()
        if res.has_table("tplist"):
            self.tp_list_table()
        if res.has_table("complete"):
            self.complete_table()

    def globcall_stat(self, kernel, variant, expr):
        values = []
        for r in self.res.of("globcall", variant):
            if r.fields.get("kernel") == kernel and not r.failed and r.fields.get("ns_per_iter"):
                values.append(expr(r))
        return stats(values)

    def globcall_table(self):
        """A glob's per-call cost with fentry against kprobe(.multi), VM; no target."""
        res = self.res
        self.w("A glob's cost per call, fentry against kprobes, in the VM (TCG): the table-1 "
               "workload (`ksb-loop open`, one `open()`+`close()` per iteration) traced by a glob "
               "matching `do_sys_openat2()`, the file name on entry (one record per call); "
               "`--mode fentry` loads a program per function, `--mode kprobe` (a glob's default) "
               "attaches one program to all matches through kprobe.multi where the kernel has "
               "it (6.12; on 6.1 a kprobe per function). Every traced run follows an untraced "
               "one; added cost against that neighbour. Informational, no target.")
        self.w()
        self.commands((v, "vm-globcall-" + v) for v in ("untraced", "fentry", "kprobe"))
        self.w()
        kernels = res.kernels("globcall")
        self.w("| kernel | variant | attached as | ns per call | added ns per call "
               "| events printed / lost | ÷ fentry (added) |")
        self.w("| --- | --- | --- | --- | --- | --- | --- |")
        for k in kernels:
            added = {v: self.globcall_stat(k, v, lambda r: r.num("ns_per_iter") - r.num("base"))
                     for v in ("fentry", "kprobe")}
            a_f = med(added["fentry"])
            for v, label in (("untraced", "untraced"), ("fentry", "**ksnoop** `--mode fentry`"),
                             ("kprobe", "**ksnoop** `--mode kprobe`")):
                st = self.globcall_stat(k, v, lambda r: r.num("ns_per_iter"))
                if not st:
                    errs = "; ".join(sorted({r.fields.get("error", "") for r in res.of("globcall", v)
                                             if r.fields.get("kernel") == k and r.failed}))
                    self.w("| %s | %s | failed: `%s` | | | | |" % (k, label, errs or "no result"))
                    continue
                how = sorted({r.fields.get("attach", "") for r in res.of("globcall", v)
                              if r.fields.get("kernel") == k and not r.failed} - {""})
                pl = DASH
                if v != "untraced":
                    pl = "%s / %s" % (intmed(self.globcall_stat(k, v, lambda r: r.num("printed"))),
                                      intmed(self.globcall_stat(k, v, lambda r: r.num("lost"))))
                self.w("| %s | %s | %s | %s | %s | %s | %s |"
                       % (k, label, ", ".join(how) or DASH, cell(st),
                          cell(added[v]) if v != "untraced" else DASH, pl,
                          (ratio(med(added[v]), a_f) if a_f is None or a_f > 0 else
                           "— (fentry's added cost, %s ns, is not above the noise)" % sgn(a_f))
                          if v == "kprobe" else DASH))
        self.w()

    def glob_stat(self, kernel, variant, key):
        return stats(r.num(key) for r in self.res.of("glob", variant)
                     if r.fields.get("kernel") == kernel and r.fields.get(key, "") != "")

    def glob_rows(self, kernel):
        res = self.res
        total = {v: med(self.glob_stat(kernel, v, "total_ms"))
                 for v in ("ksnoop-glob", "ksnoop-one", "bpftrace-glob", "bpftrace-one")}
        kg, ko, bg = total["ksnoop-glob"], total["ksnoop-one"], total["bpftrace-glob"]
        if kg is None or ko is None:
            t = "not measured"
        else:
            t = "≤ 2× one function: **%s** (%s×)" % ("met" if kg <= 2 * ko else "missed", ratio(kg, ko))
            links = med(self.glob_stat(kernel, "ksnoop-glob", "links"))
            progs = med(self.glob_stat(kernel, "ksnoop-glob", "programs")) or 0
            if kg > 2 * ko and links and links > 2 * progs:
                t += ("; cause: no kprobe.multi, %s kprobes destroyed one at a time "
                      "(below the table)" % fmt(links))
            if bg is not None:
                t += "; faster than bpftrace: **%s**" % ("met" if kg < bg else "missed")
                if kg >= bg:
                    t += ("; cause: a kprobe and a kretprobe per function to detach, "
                          "bpftrace an entry kprobe (below the table)")
        rows = (("ksnoop-glob", "**ksnoop** `tcp_*`", "ksnoop-one", t),
                ("ksnoop-one", "ksnoop, one function", None, "reference"),
                ("bpftrace-glob", "bpftrace `kprobe:tcp_*`", "bpftrace-one", "reference"),
                ("bpftrace-one", "bpftrace, one function", None, "reference"))
        for v, label, one, target in rows:
            st = self.glob_stat(kernel, v, "total_ms")
            if not st:
                errs = "; ".join(sorted({r.fields.get("error", "") for r in res.of("glob", v)
                                         if r.fields.get("kernel") == kernel and r.failed}))
                self.w("| %s | %s | failed: `%s` | | | | | | |" % (kernel, label, errs or "no result"))
                continue
            funcs = med(self.glob_stat(kernel, v, "funcs"))
            progs = med(self.glob_stat(kernel, v, "programs"))
            if funcs and v == "ksnoop-glob":
                label += " (%d functions, %d programs)" % (funcs, progs or 0)
            vs_bt = DASH
            if v.startswith("ksnoop"):
                bt = total["bpftrace-glob" if v == "ksnoop-glob" else "bpftrace-one"]
                vs_bt = ratio(st.median, bt) if bt else DASH
            self.w("| %s | %s | %s | %s | %s | %s | %s | %s | %s |"
                   % (kernel, label, cell(self.glob_stat(kernel, v, "attach_ms"), 2, 1000),
                      cell(self.glob_stat(kernel, v, "trace_ms"), 2, 1000),
                      cell(self.glob_stat(kernel, v, "detach_ms"), 2, 1000),
                      cell(st, 2, 1000),
                      ratio(st.median, total[one]) if one and total[one] else DASH, vs_bt, target))
        if None not in (kg, bg) and kg >= bg:
            kd = med(self.glob_stat(kernel, "ksnoop-glob", "detach_ms"))
            bd = med(self.glob_stat(kernel, "bpftrace-glob", "detach_ms"))
            ka = med(self.glob_stat(kernel, "ksnoop-glob", "attach_ms"))
            ba = med(self.glob_stat(kernel, "bpftrace-glob", "attach_ms"))
            links = med(self.glob_stat(kernel, "ksnoop-glob", "links"))
            if None not in (kd, bd, ka, ba) and links:
                self.glob_notes.append(
                    f"On {kernel} ksnoop's `tcp_*` run is not faster than bpftrace's "
                    f"({ratio(kg, bg)}×). It attaches faster ({fmt(ka / 1000, 2)} s against "
                    f"{fmt(ba / 1000, 2)} s) and detaches slower ({fmt(kd / 1000, 2)} s against "
                    f"{fmt(bd / 1000, 2)} s): it removes {fmt(links)} probes, a kprobe and a "
                    f"kretprobe per function ({kd / links:.0f} ms each), where bpftrace's "
                    f"`kprobe:tcp_*` has an entry kprobe per function only; the kernel "
                    f"destroys them one at a time (above), so the detach grows with the "
                    f"probes, and ksnoop's work is twice bpftrace's.")
        if kg is not None and ko is not None:
            self.verdict("`tcp_*` within 2× one function, %s (VM)" % kernel,
                         "ksnoop %s s vs %s s; bpftrace `kprobe:tcp_*` %s s"
                         % (fmt(kg / 1000, 2), fmt(ko / 1000, 2),
                            fmt(bg / 1000, 2) if bg is not None else "?"), t)

    def info_table(self):
        res = self.res
        one = med(stat(res, "info", "one", "wall_ms"))
        many = med(stat(res, "info", "many", "wall_ms"))
        bcc = med(stat(res, "info", "bcc-one", "wall_ms"))
        n = med(stat(res, "info", "many", "funcs"))
        self.w("`ksnoop info` of %s functions against one, and of one function against bcc's "
               "ksnoop `info` of the same function, natively, interleaved (the targets: "
               "1,000 functions at most 3× one; one function at most 0.7× bcc's time):"
               % (fmt(n) if n else "1,000"))
        self.w()
        self.commands((v, "info-" + v) for v in ("one", "many", "bcc-one") if res.cmd("info-" + v))
        self.w()
        if one is None or many is None:
            t = "not measured"
        else:
            t = "≤ 3× one function: **%s** (%s×)" % ("met" if many <= 3 * one else "missed", ratio(many, one))
        if one is None or bcc is None:
            t_bcc = "not measured"
        elif one <= 0.7 * bcc:
            t_bcc = "≤ 0.7× bcc: **met** (%s×)" % ratio(one, bcc)
        else:
            t_bcc = "≤ 0.7× bcc: **missed** (%s×, %s %% over 0.7×)" % (ratio(one, bcc), pct_over(one, 0.7 * bcc))
        self.w("| run | wall ms | ÷ ksnoop, one function | ksnoop ÷ bcc (one function) | target |")
        self.w("| --- | --- | --- | --- | --- |")
        for v, label, target in (("many", "**ksnoop info**, %s functions" % (fmt(n) if n else "?"), t),
                                 ("one", "**ksnoop info**, one function", t_bcc),
                                 ("bcc-one", "bcc's ksnoop info, one function", "reference")):
            st = stat(res, "info", v, "wall_ms")
            if not st:
                if v == "bcc-one" and not res.of("info", v):
                    continue  # a run from before this row existed
                self.w("| %s | failed: `%s` | | | |" % (label, errors_of(res, "info", v) or "no result"))
                continue
            self.w("| %s | %s | %s | %s | %s |"
                   % (label, cell(st), ratio(st.median, one),
                      ratio(one, bcc) if v == "one" else DASH, target))
        self.w()
        self.verdict("`ksnoop info` of 1,000 functions ≤ 3× one",
                     "%s ms vs %s ms" % (fmt(many), fmt(one)), t)
        self.verdict("`ksnoop info FUNC` ≤ 0.7× bcc's ksnoop `info FUNC` (native)",
                     "ksnoop %s ms; bcc %s ms" % (fmt(one), fmt(bcc) if bcc is not None else "?"), t_bcc)

    def tp_list_table(self):
        """Every tracepoint listed, ksnoop against bpftrace (native; target ≤ 1×)."""
        res = self.res
        ks = med(stat(res, "tplist", "ksnoop", "wall_us"))
        bt = med(stat(res, "tplist", "bpftrace", "wall_us"))
        self.w("Every tracepoint listed, natively, interleaved: `ksnoop info 'tp:*'` (each one's "
               "prototype, typed from BTF) against `bpftrace -l 'tracepoint:*'` (names from "
               "tracefs), both in a mount namespace with tracefs mounted, output counted "
               "through a pipe (the target: ksnoop at most bpftrace's time):")
        self.w()
        self.commands((v, "tplist-" + v) for v in ("ksnoop", "bpftrace") if res.cmd("tplist-" + v))
        self.w()
        if ks is None or bt is None:
            t = "not measured"
        else:
            t = "≤ 1× bpftrace: **%s** (%s×)" % ("met" if ks <= bt else "missed", ratio(ks, bt))
        self.w("| run | wall ms | lines | ÷ bpftrace | target |")
        self.w("| --- | --- | --- | --- | --- |")
        for v, label, target in (("ksnoop", "**ksnoop info 'tp:*'**", t),
                                 ("bpftrace", "bpftrace -l 'tracepoint:*'", "reference")):
            st = stat(res, "tplist", v, "wall_us")
            if not st:
                if res.of("tplist", v):
                    self.w("| %s | failed: `%s` | | | |" % (label, errors_of(res, "tplist", v) or "no result"))
                continue
            lines = med(stat(res, "tplist", v, "lines"))
            self.w("| %s | %s | %s | %s | %s |"
                   % (label, cell(st, 1, 1000), fmt(lines), ratio(st.median, bt), target))
        self.w()
        self.verdict("`ksnoop info 'tp:*'` ≤ bpftrace `-l 'tracepoint:*'` (native)",
                     "ksnoop %s ms; bpftrace %s ms" % (fmt((ks or 0) / 1000, 1), fmt((bt or 0) / 1000, 1)), t)

    def complete_table(self):
        """Shell completion: one `ksnoop __complete` process per kind of word (target < 100 ms)."""
        res = self.res
        kinds = ("option", "function", "tp-category", "argument", "member", "usdt-probe")
        self.w("Shell completion, natively: one `ksnoop __complete WORD...` process per <Tab> "
               "(what `completions/ksnoop.bash` runs), one word of each kind, interleaved "
               "(the target: each under 100 ms):")
        self.w()
        self.commands((v, "complete-" + v) for v in kinds if res.cmd("complete-" + v))
        self.w()
        self.w("| word | wall ms | candidates | target |")
        self.w("| --- | --- | --- | --- |")
        worst = None
        for v in kinds:
            st = stat(res, "complete", v, "wall_us")
            if not st:
                if res.of("complete", v):
                    self.w("| %s | failed: `%s` | | |" % (v, errors_of(res, "complete", v) or "no result"))
                    worst = float("inf")
                continue
            worst = max(worst or 0, st.median)
            met = "met" if st.median < 100000 else "missed"
            self.w("| %s | %s | %s | < 100 ms: **%s** |"
                   % (v, cell(st, 1, 1000), fmt(med(stat(res, "complete", v, "lines"))), met))
        self.w()
        t = ("not measured" if worst is None else
             "< 100 ms: **%s**" % ("met" if worst < 100000 else "missed"))
        self.verdict("each `ksnoop __complete` < 100 ms (native)",
                     "slowest median %s ms" % (fmt((worst or 0) / 1000, 1) if worst != float("inf") else "failed"), t)
