"""Table 1: a kernel function's cost per traced call (VM), against bcc's ksnoop and bpftrace."""

from .base import KEPT_MARK
from .stats import DASH, stat, padd, med, errors_of, fmt, cell, sgn, intmed, ratio, pct_over


def is_kfunc_run(table, variant):
    """A raw result of table 1 (its runs and its boot's CPU phase)."""
    return table == "kfunc" or (table == "cpu" and variant in ("setup2", "vm"))


def is_kfunc_verdict(row):
    """A row of "Targets at a glance" that table 1 decides (an earlier
    splice's "(kept from ...)" mark aside)."""
    first = row.split(" | ")[0].split(KEPT_MARK)[0]
    return (row.startswith("| ") and not row.startswith("| `--tree`")
            and first.endswith(("fentry, VM)", "(kprobe, VM)")))


class KfuncTable:
    """Table 1, and the targets it decides; alone too (bench/run --only-kfunc)."""

    KFUNC_HEADING = "## 1. Kernel function: cost per traced call (VM)"

    def kfunc_only(self):
        """Table 1 alone, for splice_kfunc(): its section, its verdicts and
        its raw lines."""
        self.kfunc()
        raw = [r.line for r in self.res.runs if is_kfunc_run(r.table, r.variant)]
        return self.text(), self.verdicts, raw

    def kfunc(self):
        res = self.res
        m = res.m
        self.w(self.KFUNC_HEADING)
        self.w()
        if m("only") == "kfunc":
            elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
            self.w(f"""Measured on its own by `bench/run --only-kfunc` ({m("run_date")}, {elapsed:.1f}
minutes, {m("vm_rounds")} rounds in the VM{", --quick sizes" if m("quick") == "1" else ""}; ksnoop {m("ks_ver")},
sha256 {m("ks_sha")}, tree at commit {m("commit")}; bpftrace {m("bt_vm_ver")} in the VM), not in the run the
header describes; load average {m("load_start")} at the start, {m("load_end")} at the end.
""")
        if not res.has_table("kfunc"):
            if res.m("vm_rc") == "skipped":
                self.w("Not measured in this run (--no-vm).")
            else:
                self.w("Not measured: the VM run did not produce results (`tests/vm/run` "
                       "status %s)." % res.m("vm_rc"))
            self.w()
            return
        self.w(f"""Workload: `ksb-loop open {res.m("open_n")} /tmp/ksb/target-file`, a loop of
`open()` + `close()` on one file, i.e. one `do_sys_openat2()` call per
iteration; reported as ns per iteration. Every tracer captures the same thing,
the file name (a user-space string) on entry and the return value, except
where noted. ksnoop and bcc's ksnoop run in the background and are stopped
with SIGINT after the loop; bpftrace runs the loop itself (`-c`, which starts
it after attaching). Same VM boot for every row. bpftrace runs in the VM
as it is: {"sid's (the chroot's program, the libraries `ldd` lists for it there and its loader, about 270 MB, under /opt/sid: bench/vm.py sid_bundle())" if res.m("bt_vm_ver") == res.m("bt_ver") and res.m("bt_sid") else "the system's (`tests/vm/run --bin` copies it with the LLVM and clang libraries `ldd` lists, about 200 MB)"}; bpftrace there: {res.m("bt_vm_ver") or "?"}.

Commands (in the VM; `ksb-loop` is `bench/loop.c`):
""")
        for v in ("untraced", "ksnoop-fentry", "ksnoop-kprobe", "bcc-ksnoop", "bpftrace-kfunc",
                  "bpftrace-kprobe", "ksnoop-filtered-fentry", "ksnoop-filtered-kprobe",
                  "bare-kfunc", "bare-kprobe", "ksnoop-return-only", "ksnoop-fentry-stopped"):
            if res.cmd("vm-" + v):
                self.w("- %s: `%s`" % (v, res.cmd("vm-" + v)))
        self.w()

        def added(v):
            return med(padd(res, "kfunc", v))

        a_fen, a_kp, a_bcc = added("ksnoop-fentry"), added("ksnoop-kprobe"), added("bcc-ksnoop")
        a_btkf, a_btkp = added("bpftrace-kfunc"), added("bpftrace-kprobe")
        a_ffen, a_fkp = added("ksnoop-filtered-fentry"), added("ksnoop-filtered-kprobe")
        a_bkf, a_bkp = added("bare-kfunc"), added("bare-kprobe")
        a_ret, a_stop = added("ksnoop-return-only"), added("ksnoop-fentry-stopped")

        t_fen = self.target_cost(a_fen, a_bcc, a_btkf, "bpftrace kfunc")
        t_kp = self.target_cost(a_kp, a_bcc, a_btkp, "bpftrace kprobe")
        if None not in (a_kp, a_fen, a_bcc) and a_kp > a_bcc / 2:
            t_kp += ("; cause: the kprobe and kretprobe themselves, %s ns over fentry for the "
                     "same work, which bcc pays too (below the table)" % fmt(a_kp - a_fen))
        t_ffen = self.target_filter(a_ffen, a_bkf, padd(res, "kfunc", "bare-kfunc"))
        t_fkp = self.target_filter(a_fkp, a_bkp, padd(res, "kfunc", "bare-kprobe"))

        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost "
               "| ksnoop ÷ peer (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        row = self.kfunc_row
        row("untraced", "untraced", DASH, DASH)
        row("ksnoop-fentry", "**ksnoop**, fentry/fexit (default)",
            "bcc %s; bpftrace kfunc %s; bpftrace kprobe %s"
            % (ratio(a_fen, a_bcc), ratio(a_fen, a_btkf), ratio(a_fen, a_btkp)), t_fen)
        row("ksnoop-kprobe", "**ksnoop**, kprobe/kretprobe",
            "bcc %s; bpftrace kprobe %s" % (ratio(a_kp, a_bcc), ratio(a_kp, a_btkp)), t_kp)
        row("bcc-ksnoop", "bcc's ksnoop (kprobes; prints the return value only, see below)",
            DASH, "reference")
        row("bpftrace-kfunc", "bpftrace, kfunc/kretfunc", DASH, "reference")
        row("bpftrace-kprobe", "bpftrace, kprobe/kretprobe", DASH, "reference")
        row("ksnoop-filtered-fentry", "**ksnoop** filtered out (`dfd == 12345`), fentry",
            "bare kfunc %s" % ratio(a_ffen, a_bkf), t_ffen)
        row("ksnoop-filtered-kprobe", "**ksnoop** filtered out (`dfd == 12345`), kprobe",
            "bare kprobe %s" % ratio(a_fkp, a_bkp), t_fkp)
        row("bare-kfunc", "bare fentry probe (bpftrace `kfunc {}`)", DASH, "reference")
        row("bare-kprobe", "bare kprobe (bpftrace `kprobe {}`)", DASH, "reference")
        row("ksnoop-return-only", "*diagnostic:* ksnoop, return value only "
            "(`do_sys_openat2(return)`, fentry): one record per call, what bcc's ksnoop prints",
            "bcc %s" % ratio(a_ret, a_bcc), DASH)
        row("ksnoop-fentry-stopped", "*diagnostic:* ksnoop fentry, reader stopped (SIGSTOP) "
            "during the loop: the BPF side alone",
            "ksnoop fentry %s" % ratio(a_stop, a_fen), DASH)
        self.w()
        self.disturbance("vm")

        if None not in (a_fen, a_bcc, a_ret, a_stop) and a_fen > 0:
            self.w(f"""Reading the diagnostic rows:

- **Records per call.** For this spec ksnoop sends two records per call
  (entry, with a 256-byte slot reserved for the file name, and return);
  bcc's ksnoop sends one (the return; it cannot read the name). With the
  return value only, ksnoop adds {sgn(a_ret)} ns per call, {ratio(a_ret, a_bcc)}× bcc's.
- **Wake-ups.** With ksnoop's reader stopped, the BPF side alone adds
  {sgn(a_stop)} ns, {100 * a_stop / a_fen:.0f} % of the full cost ({ratio(a_fen, a_stop)}× the BPF side).
  The reader is woken once per sixteenth of the ring buffer written, or
  when it was last woken 10 ms ago or more (`BPF_RB_NO_WAKEUP` otherwise),
  no longer for nearly every record; what remains is the
  reader's own work, and in the VM its virtual CPU competes with the
  workload's for the host's two cores.""")
            if not a_fen <= a_bcc / 2:
                self.w("""
So the ½-of-bcc target is missed on these counts: one record per call in
fentry mode (fexit sees the arguments too) is the lever left.""")
            if a_kp is not None and a_btkp is not None and a_btkf is not None and not a_kp <= a_bcc / 2:
                mech = a_kp - a_fen
                self.w(f"""
- **kprobe mode.** The same BPF work (the same two records, the same string)
  costs {fmt(mech)} ns more through a kprobe and a kretprobe than through
  fentry and fexit ({ratio(a_kp, a_fen)}× ksnoop's fentry row); bpftrace shows the same
  step, {fmt(a_btkp - a_btkf)} ns between its kprobe and kfunc rows. That is the probes
  themselves under emulation, and bcc's ksnoop, kprobes too, pays it as
  well: without it, ksnoop's {fmt(a_fen)} ns would be {ratio(a_fen, a_bcc - mech)}× the
  {fmt(a_bcc - mech)} ns left of bcc's. So the ½-of-bcc target in kprobe mode is
  missed by the attach mechanism both share, not by ksnoop's program.""")
            self.w()
            self.verdict("traced call ≤ 1.3× the BPF side alone (wake-ups batched; fentry, VM)",
                         "ksnoop %s ns; reader stopped %s ns" % (sgn(a_fen), sgn(a_stop)),
                         "≤ 1.3×: %s (%s×)" % ("**met**" if a_fen <= 1.3 * a_stop else "**missed**",
                                               ratio(a_fen, a_stop)))

        self.verdict("traced call ≤ ½ bcc's ksnoop and ≤ ½ bpftrace (fentry, VM)",
                     "ksnoop %s ns; bcc %s; bpftrace kfunc %s" % (sgn(a_fen), sgn(a_bcc), sgn(a_btkf)),
                     t_fen)
        self.verdict("traced call ≤ ½ bcc's ksnoop and ≤ ½ bpftrace (kprobe, VM)",
                     "ksnoop %s ns; bcc %s; bpftrace kprobe %s" % (sgn(a_kp), sgn(a_bcc), sgn(a_btkp)),
                     t_kp)
        self.verdict("filtered-out call ≤ 1.2× bare probe (fentry, VM)",
                     "ksnoop %s ns; bare kfunc %s" % (sgn(a_ffen), sgn(a_bkf)), t_ffen)
        self.verdict("filtered-out call ≤ 1.2× bare probe (kprobe, VM)",
                     "ksnoop %s ns; bare kprobe %s" % (sgn(a_fkp), sgn(a_bkp)), t_fkp)

        self.w("What each tracer printed for one `open()` of the target file:")
        self.w()
        self.w("```")
        for tracer in ("ksnoop", "bcc-ksnoop", "bpftrace"):
            self.w("# " + tracer)
            for line in res.lines("samples"):
                if line.startswith(tracer + " "):
                    self.w(line[len(tracer) + 1:])
        self.w("""```

bcc's ksnoop cannot show `filename`: it reads every pointer with
`bpf_probe_read_kernel()`, so a user-space string is not captured, and it
prints only the return record. Its row is therefore *cheaper* work than the
others (no string copy), yet it is the peer the target names.
""")
        self.kfunc_notes = True

    def kfunc_row(self, v, label, ratios, target):
        res = self.res
        s = stat(res, "kfunc", v, "ns_per_iter")
        added = DASH if v == "untraced" else cell(padd(res, "kfunc", v))
        printed_lost = DASH
        if v.startswith("ksnoop"):
            printed_lost = "%s / %s" % (intmed(stat(res, "kfunc", v, "printed")),
                                        intmed(stat(res, "kfunc", v, "lost")))
        if not s:
            self.w("| %s | failed: `%s` | | | | %s |"
                   % (label, errors_of(res, "kfunc", v) or "no result", target))
        else:
            self.w("| %s | %s | %s | %s | %s | %s |" % (label, cell(s), added, printed_lost, ratios, target))

    @staticmethod
    def target_cost(a, bcc, bt, bt_name):
        """Traced call: at most half of bcc's ksnoop and half of bpftrace
        (issue #46: 0.27's, in each mode)."""
        if None in (a, bcc, bt):
            return "not measured"
        half = bcc / 2
        if a <= half:
            text = "≤ ½ bcc: **met** (%s×)" % ratio(a, bcc)
        else:
            text = "≤ ½ bcc: **missed** (%s× bcc, %s %% over ½)" % (ratio(a, bcc), pct_over(a, half))
        if a <= bt / 2:
            text += "; ≤ ½ %s: **met** (%s×)" % (bt_name, ratio(a, bt))
        else:
            text += "; ≤ ½ %s: **missed** (%s×, %s %% over ½)" % (bt_name, ratio(a, bt), pct_over(a, bt / 2))
        return text

    @staticmethod
    def target_filter(a, bare, bare_stats):
        """Filtered-out call: at most 1.2 times a bare probe's added cost."""
        if a is None or bare is None:
            return "not measured"
        if bare <= 0 or bare_stats.min <= 0:
            return ("cannot be judged in the VM: the bare probe's added cost, %s ns, is not above "
                    "the run-to-run noise (see table 3b for a native measurement)" % cell(bare_stats))
        if a <= 0:
            return ("≤ 1.2× bare: **met** as far as the VM can tell: the filtered-out call is not "
                    "measurably dearer than an untraced one (%s ns), the bare probe adds %s ns "
                    "(table 3b resolves it natively)" % (sgn(a), sgn(bare)))
        if a <= bare * 1.2:
            return "≤ 1.2× bare: **met** (%s×)" % ratio(a, bare)
        return "≤ 1.2× bare: **missed** (%s×, %s %% over 1.2×)" % (ratio(a, bare), pct_over(a, bare * 1.2))
