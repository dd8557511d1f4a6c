"""Tables 3, 3b, 3c, the system call pair, 3e (--filter), 3f (programs' own time) and 3g (--pcap): tracepoints' cost per call (native)."""

import os
import re

from .stats import DASH, stats, stat, padd, med, errors_of, fmt, cell, sgn, intmed, ratio, pct_over


# Why bpftrace 0.27 can be cheaper per printed event (bpftool prog dump
# xlated of bpftrace 0.27.1's tracepoint program, 2026-11-30, by hand).
BT_PRINTF_WHY = ("for one value, bpftrace 0.27's `printf` sends a 16-byte record (the format's id and the value) "
                 "with `bpf_ringbuf_output(..., 0)` into a 16 MiB ring buffer and formats the text in "
                 "user space; ksnoop's event is a 72-byte record, the header each of its lines "
                 "prints (time, CPU, task) with the value. bpftrace 0.17 sent each `printf` through a "
                 "perf buffer (7 µs a call here in the run of 2026-11-24).")

# The floors of table 3b: bench/bare.bpf.c's programs that do only the
# work a kind of traced call needs (the least any tracer doing it pays).
FLOOR_WHAT = {
    "bare-event": "a bare tp_btf program writing one 16-byte ring-buffer record a call",
    "bare-stack": "a bare tp_btf program writing one 16-byte record with bpf_get_stackid()'s id",
    "bare-count": "a bare tp_btf program adding one to a per-CPU array",
}


class TracepointTables:
    """Tables 3, 3b (a filtered-out call against a bare probe), 3c (stacks, counts, histograms) and the system call pair."""

    def tracepoint(self):
        res = self.res
        self.w("## 3. Tracepoint: cost per syscall (native)")
        self.w()
        if not res.has_table("tp"):
            return
        self.disturbance("native")
        self.w(f"""Workload: `ksb-loop syscall {res.m("tp_n")}`, a loop of `getppid()` system calls,
each of which fires `raw_syscalls:sys_enter` once; ns per call. Both tracers
filter on the workload's pid in BPF and print the syscall number. ksnoop is
attached to the workload before it starts (the workload waits on a FIFO).

Commands:
""")
        self.commands((v, "tp-" + v) for v in ("untraced", "ksnoop", "bpftrace"))
        self.w()
        t_ks = med(padd(res, "tp", "ksnoop"))
        t_bt = med(padd(res, "tp", "bpftrace"))
        t = self.half_bt(padd(res, "tp", "ksnoop"), padd(res, "tp", "bpftrace"),
                         padd(res, "tpfilt", "bare-event"), FLOOR_WHAT["bare-event"])
        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost "
               "| ksnoop ÷ bpftrace (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        self.w("| untraced | %s | — | — | — | — |" % cell(stat(res, "tp", "untraced", "ns_per_iter")))
        self.w("| **ksnoop** | %s | %s | %s / %s | %s | %s |"
               % (cell(stat(res, "tp", "ksnoop", "ns_per_iter")), cell(padd(res, "tp", "ksnoop")),
                  intmed(stat(res, "tp", "ksnoop", "printed")), intmed(stat(res, "tp", "ksnoop", "lost")),
                  ratio(t_ks, t_bt), t))
        self.w("| %s | %s | %s | — | — | reference |"
               % (self.bt_name(), cell(stat(res, "tp", "bpftrace", "ns_per_iter")), cell(padd(res, "tp", "bpftrace"))))
        self.w()
        self.verdict("tracepoint event ≤ ½ %s (native)" % self.bt_name(), "ksnoop %s ns; bpftrace %s" % (sgn(t_ks), sgn(t_bt)), t)

        # A lost event costs less than a printed one: say when ksnoop lost some.
        good = [r for r in res.of("tp", "ksnoop") if not r.failed]
        lossy = [r for r in good if r.num("lost") > 0]
        if lossy:
            clean = stats(r.num("ns_per_iter") - r.num("base") for r in good if r.num("lost") <= 0)
            self.w("ksnoop lost events in %d of %d rounds: its reader fell more than a buffer (8 MiB, "
                   "~100,000 of these records) behind a loop that makes ~2 million events a second, and a "
                   "lost event costs the traced task less than a delivered one (the reservation fails; no "
                   "copy, no wake-up). Rounds without loss: median %s added per call. bpftrace does not "
                   "report its losses when its output goes to /dev/null."
                   % (len(lossy), len(good), "+%s ns" % fmt(clean.median) if clean else "— (none)"))
            self.w()
        self.bt_cheaper("a traced call", padd(res, "tp", "ksnoop"), padd(res, "tp", "bpftrace"), BT_PRINTF_WHY)
        e = errors_of(res, "tp", "ksnoop") + errors_of(res, "tp", "bpftrace")
        if e:
            self.w("Errors in some rounds: `%s`" % e)
            self.w()

    # ---- table 3c

    def aggregation(self):
        """-s, --count and --hist per call, against a filtered-out call and bpftrace."""
        res = self.res
        if not res.has_table("agg"):
            return
        spec, hspec, fspec = res.m("agg_spec"), res.m("agg_hist_spec"), res.m("agg_filt_spec")
        self.w("## 3c. Stacks, counts and histograms per call (native tracepoint)")
        self.w()
        self.disturbance("native")
        self.w(f"""`ksb-loop syscall {fmt(res.mnum("tp_n"))}` (`getppid()`, syscall 110, every call
selected): ksnoop with `-s` (an event with the kernel stack per call),
`--count` and `--hist` (a map update in BPF, no event), side by side with
bpftrace's `kstack` (printed), `count()` and `hist()` under the same filter,
and ksnoop with the predicate never holding (`{fspec}`, a filtered-out call:
the floor every mode starts from).

Commands:
""")
        variants = ("untraced", "ksnoop-filtered", "ksnoop-stack", "bpftrace-kstack",
                    "ksnoop-count", "bpftrace-count", "ksnoop-hist", "bpftrace-hist")
        self.commands((v, "agg-" + v) for v in variants)
        self.w()
        a = {v: med(padd(res, "agg", v)) for v in variants[1:]}
        self.w("| variant | ns per call | added ns per call | ÷ filtered out (added) "
               "| ksnoop events printed / lost |")
        self.w("| --- | --- | --- | --- | --- |")
        self.w("| untraced | %s | — | — | — |" % cell(stat(res, "agg", "untraced", "ns_per_iter"), 1))
        label = {
            "ksnoop-filtered": "ksnoop, filtered out (`%s`)" % fspec,
            "ksnoop-stack": "**ksnoop** `-s '%s'`" % spec,
            "bpftrace-kstack": "%s `printf(kstack)`" % self.bt_name(),
            "ksnoop-count": "**ksnoop** `--count '%s'`" % spec,
            "bpftrace-count": "%s `count()`" % self.bt_name(),
            "ksnoop-hist": "**ksnoop** `--hist '%s'`" % hspec,
            "bpftrace-hist": "%s `hist(args->id)`" % self.bt_name(),
        }
        for v in variants[1:]:
            ev = DASH
            if v.startswith("ksnoop") and stat(res, "agg", v, "printed"):
                ev = "%s / %s" % (intmed(stat(res, "agg", v, "printed")),
                                  intmed(stat(res, "agg", v, "lost")))
            self.w("| %s | %s | %s | %s | %s |"
                   % (label[v], cell(stat(res, "agg", v, "ns_per_iter"), 1),
                      cell(padd(res, "agg", v), 1), ratio(a[v], a["ksnoop-filtered"]), ev))
        self.w()
        for ks, bt, what, floor in (("ksnoop-stack", "bpftrace-kstack", "-s per event (kernel stack)", "bare-stack"),
                                    ("ksnoop-count", "bpftrace-count", "--count per call", "bare-count"),
                                    ("ksnoop-hist", "bpftrace-hist", "--hist per call", "bare-count")):
            t = self.half_bt(padd(res, "agg", ks), padd(res, "agg", bt),
                             padd(res, "tpfilt", floor), FLOOR_WHAT[floor])
            self.verdict("%s ≤ ½ %s (tracepoint, native)" % (what, self.bt_name()),
                         "ksnoop %s ns; bpftrace %s" % (sgn(a[ks]), sgn(a[bt])), t)
        for ks, bt, what in (("ksnoop-stack", "bpftrace-kstack", "-s against `printf(kstack)`"),
                             ("ksnoop-count", "bpftrace-count", "--count against `count()`"),
                             ("ksnoop-hist", "bpftrace-hist", "--hist against `hist()`")):
            self.bt_cheaper(what, padd(res, "agg", ks), padd(res, "agg", bt),
                            "both do the same work in BPF (a map update; for -s both also walk the "
                            "kernel stack); no difference in that work is known here, so this is "
                            "this run's noise or the maps' kinds (not measured apart).")
        e = "".join(errors_of(res, "agg", v) for v in variants)
        if e:
            self.w("Errors in some rounds: `%s`" % e)
            self.w()

    # ---- table 3d

    def syscall_pair(self):
        """sys:openat(filename, return) per call, against bpftrace's enter/exit pair."""
        res = self.res
        if not res.has_table("sys"):
            return
        spec = res.m("sys_spec", "sys:openat(filename, return)")
        pred = res.m("sys_pred_spec", "sys:openat(filename, return < 0)")
        self.w("## 3d. System call, entry with return: cost per openat (native)")
        self.w()
        self.disturbance("native")
        self.w(f"""Workload: `ksb-loop openat {res.m("sys_n")} PATH`, a loop of `openat()` calls on a
path that does not exist (each fails with ENOENT: one system call per
iteration, firing `syscalls:sys_enter_openat` and `sys_exit_openat` once
each); ns per call. ksnoop's `sys:` attaches both tracepoints:
`{spec}` prints an entry event (the file name) and a return event
(the return value and the duration), two per call; `{pred}`, whose
predicate holds for every call here, keeps the entry's values per task
and prints them with the return, one event per call. bpftrace's program
prints one line per call: the entry probe keeps the `filename` pointer in
a map keyed by thread id, the exit probe prints the string with the return
value and deletes the entry. All filter on the workload's pid; ksnoop is
attached before the workload starts, as in table 3.

Commands:
""")
        self.commands((v, "sys-" + v) for v in ("untraced", "ksnoop", "ksnoop-pred", "bpftrace"))
        self.w()
        s_bt = med(padd(res, "sys", "bpftrace"))
        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost "
               "| ksnoop ÷ bpftrace (added) |")
        self.w("| --- | --- | --- | --- | --- |")
        self.w("| untraced | %s | — | — | — |" % cell(stat(res, "sys", "untraced", "ns_per_iter")))
        for v, label in (("ksnoop", "`%s`, two events per call" % spec),
                         ("ksnoop-pred", "`%s`, one event per call" % pred)):
            self.w("| **ksnoop** %s | %s | %s | %s / %s | %s |"
                   % (label, cell(stat(res, "sys", v, "ns_per_iter")), cell(padd(res, "sys", v)),
                      intmed(stat(res, "sys", v, "printed")), intmed(stat(res, "sys", v, "lost")),
                      ratio(med(padd(res, "sys", v)), s_bt)))
        self.w("| %s, `sys_enter_openat` + `sys_exit_openat`, one line per call | %s | %s | — | — |"
               % (self.bt_name(), cell(stat(res, "sys", "bpftrace", "ns_per_iter")), cell(padd(res, "sys", "bpftrace"))))
        self.w()
        s_ks = med(padd(res, "sys", "ksnoop-pred"))
        self.verdict("`sys:` call, entry values with the return, one event ≤ ½ %s (native)" % self.bt_name(),
                     "ksnoop %s ns; bpftrace %s" % (sgn(s_ks), sgn(s_bt)), self.half_bt(padd(res, "sys", "ksnoop-pred"),
                                                                           padd(res, "sys", "bpftrace")))
        self.bt_cheaper("`sys:openat` with a predicate on return, one event a call", padd(res, "sys", "ksnoop-pred"),
                        padd(res, "sys", "bpftrace"),
                        "bpftrace keeps the file name's pointer on entry, reads the string (`str()`) "
                        "on exit and sends one `printf` record; ksnoop reads the string on entry, "
                        "keeps it and sends one event with its header. " + BT_PRINTF_WHY)
        self.loss_note("sys", ("ksnoop", "ksnoop-pred"))
        e = "".join(errors_of(res, "sys", v) for v in ("ksnoop", "ksnoop-pred", "bpftrace"))
        if e:
            self.w("Errors in some rounds: `%s`" % e)
            self.w()

    # ---- 3c, the BPF programs' own time

    def kept_text(self, name):
        """bench/NAME's text, as it is, if it is there: what a script that
        bench/run does not run measured (tpcost.py, pfilter.py, pcap.py).
        A line `<!-- glance: | TARGET | MEASURED | VERDICT | -->` is not
        printed there but goes to the targets at a glance."""
        path = os.path.join(os.path.dirname(__file__), os.pardir, name)
        if not os.path.isfile(path):
            return
        with open(path, encoding="utf-8") as f:
            text = f.read().rstrip("\n")
        for line in text.split("\n"):
            m = re.match(r"^<!-- glance: (\|.*\|) -->$", line)
            if m:
                self.verdicts.append(m.group(1))
            else:
                self.w(line)
        self.w()

    def prog_cost(self):
        """Tables 3 and 3c's programs' own time per call (3f), measured by
        bench/tpcost.py."""
        self.kept_text("tpcost.md")
        # Start-up changes measured by hand (A/B of two binaries), 3h to 3j.
        self.kept_text("startup-s71.md")
        self.kept_text("startup-s72.md")
        self.kept_text("startup-s73.md")

    # ---- 3e

    def pfilter_cost(self):
        """--filter against a typed predicate (3e, issue #48), measured by
        bench/pfilter.py; then --pcap against dumpcap (3g), by bench/pcap.py."""
        self.kept_text("pfilter.md")
        self.kept_text("pcap.md")

    def loss_note(self, table, variants):
        """A sentence for each of ksnoop's VARIANTS in TABLE that lost
        events: a lost event costs the traced task less than a printed one."""
        for v in variants:
            good = [r for r in self.res.of(table, v) if not r.failed]
            lossy = [r for r in good if r.num("lost") > 0]
            if not lossy:
                continue
            clean = stats(r.num("ns_per_iter") - r.num("base") for r in good if r.num("lost") <= 0)
            self.w("%s lost events in %d of %d rounds (its reader fell a buffer behind); a lost event "
                   "costs the traced task less than a printed one. Rounds without loss: median %s added "
                   "per call." % (v, len(lossy), len(good), "+%s ns" % fmt(clean.median) if clean else "— (none)"))
            self.w()

    # ---- table 3b

    def tracepoint_filtered(self):
        res = self.res
        if not res.has_table("tpfilt"):
            return
        filt_spec = res.m("filt_spec")
        self.w("## 3b. A filtered-out call against a bare probe (native tracepoint)")
        self.w()
        self.disturbance("native")
        self.w(f"""The VM is too noisy to resolve the few hundred nanoseconds between a bare
probe and a filtered-out one (table 1), so the same question is also asked
here, on real hardware, for ksnoop's tracepoint program: `ksb-loop syscall
{fmt(res.mnum("filt_n"))}` (`getppid()` in a loop), untraced; with a `tp_btf` program on
`sys_enter` that returns at once (the bare probe, attached the way ksnoop
attaches); and with ksnoop tracing `sys_enter` with a predicate that never
holds (no pid filter, so every call is checked and filtered out).

Commands:
""")
        self.commands((v, "tpfilt-" + v) for v in ("untraced", "bare", "ksnoop-filtered")
                      + tuple(v for v in FLOOR_WHAT if res.of("tpfilt", v)))
        self.w()
        f_ks = self.f_ks = med(padd(res, "tpfilt", "ksnoop-filtered"))
        f_b = self.f_b = med(padd(res, "tpfilt", "bare"))
        if f_ks is None or f_b is None:
            t = "not measured"
        elif f_b <= 0:
            t = "cannot be judged: the bare probe's added cost is within noise"
        elif f_ks <= f_b * 1.2:
            t = "≤ 1.2× bare: **met** (%s×)" % ratio(f_ks, f_b)
        else:
            t = ("≤ 1.2× bare: **missed** (%s×, %s %% over 1.2×; +%s ns per call over the bare probe)"
                 % (ratio(f_ks, f_b), pct_over(f_ks, f_b * 1.2), fmt(f_ks - f_b)))
        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost "
               "| ksnoop ÷ bare (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        self.w("| untraced | %s | — | — | — | — |" % cell(stat(res, "tpfilt", "untraced", "ns_per_iter"), 1))
        self.w("| bare `tp_btf` probe | %s | %s | — | — | reference |"
               % (cell(stat(res, "tpfilt", "bare", "ns_per_iter"), 1), cell(padd(res, "tpfilt", "bare"), 1)))
        self.w("| **ksnoop**, filtered out (`%s`) | %s | %s | %s / %s | %s | %s |"
               % (filt_spec, cell(stat(res, "tpfilt", "ksnoop-filtered", "ns_per_iter"), 1),
                  cell(padd(res, "tpfilt", "ksnoop-filtered"), 1),
                  intmed(stat(res, "tpfilt", "ksnoop-filtered", "printed")),
                  intmed(stat(res, "tpfilt", "ksnoop-filtered", "lost")), ratio(f_ks, f_b), t))
        for v, what in FLOOR_WHAT.items():
            if res.of("tpfilt", v):
                self.w("| floor: %s | %s | %s | — | — | tables 3 and 3c's floor |"
                       % (what, cell(stat(res, "tpfilt", v, "ns_per_iter"), 1), cell(padd(res, "tpfilt", v), 1)))
        self.w()
        if any(res.of("tpfilt", v) for v in FLOOR_WHAT):
            self.w("""The floors (`bench/bare.bpf.c` built with `KSB_BARE` 1, 2, 3, every task's
calls, no pid test) are the least a tracer pays that sends each call to user
space, or its kernel stack's id, or counts it: tables 3 and 3c hold each
≤ ½ bpftrace target against them, since a target under its floor cannot be
met by any tracer doing that work.
""")
        self.verdict("filtered-out call ≤ 1.2× bare probe (tracepoint, native)",
                     "ksnoop %s ns; bare tp_btf %s" % (sgn(f_ks), sgn(f_b)), t)
        if not self.filter_missed():
            return
        if res.has("prof.filt"):
            def share(pattern):
                total = 0.0
                for line in res.lines("prof.filt"):
                    words = line.split()
                    if len(words) >= 3 and re.search(pattern, words[2]):
                        total += float(words[0].rstrip("%"))
                return "%.1f" % total
            self.w(f"""Where it goes (profile below, `perf record -C 1` on the workload's CPU during such a run):
ksnoop's program itself {share("^bpf_prog_.*ksnoop")} % of the samples,
`bpf_probe_read_kernel` with `copy_from_kernel_nofault` {share("^(bpf_probe_read_kernel|copy_from_kernel_nofault)")} %, and
`bpf_get_current_pid_tgid` {share("^bpf_get_current_pid_tgid$")} %; a bare program is ~2 %.
""")
        self.w("""What ksnoop runs for such a call (`bpf/ksnoop.bpf.c`): `prefilter_rejects()`
tests the first predicate on its argument word, read from the context,
before the gate, the task filters and the zeroing of the argument words
(`KSNOOP_PLAN_PREFILTER`, where nothing before the predicates has an
effect). What is left over the bare probe: the loads from `.rodata` that
the verifier keeps after pruning the plan's dead branches (it removes dead
code, not dead loads), and a raw_tp program against the bare probe's
tp_btf one.
""")

    def filter_missed(self):
        return (self.f_ks is not None and self.f_b is not None and self.f_b > 0
                and not self.f_ks <= self.f_b * 1.2)
