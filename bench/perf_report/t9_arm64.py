"""Table 9: arm64, a kernel function's cost per call (arm64 VM)."""

import re

from .stats import DASH, stats, stat, padd, med, errors_of, fmt, cell, sgn, intmed, ratio, pct_over


def is_arm64_run(table, variant):
    """A raw result of table 9 (its runs, its CPU phases)."""
    return table == "arm64" or (table == "cpu" and variant in ("setup-arm64", "arm64"))


class Arm64Table:
    """Table 9, alone too (bench/run --only-arm64)."""

    ARM64_HEADING = "## 9. arm64: kernel-function cost per call (arm64 VM)"

    def arm64(self):
        """Table 9: table 1's kprobe rows in the arm64 VM (PARTS=arm64)."""
        res = self.res
        m = res.m
        if not res.has_table("arm64"):
            if m("arm64_rc", "skipped") not in ("skipped", "0", ""):
                self.w(self.ARM64_HEADING)
                self.w()
                self.w("Not measured: %s." % m("arm64_rc"))
                self.w()
            return
        self.w(self.ARM64_HEADING)
        self.w()
        if m("only") == "arm64":
            elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
            self.w(f"""Measured on its own by `bench/run --only-arm64` ({m("run_date")}, {elapsed:.1f}
minutes, {m("vm_rounds")} rounds{", --quick sizes" if m("quick") == "1" else ""}; tree at commit {m("commit")}),
not in the run the header describes.
""")
        info = (res.lines("arm64-info") or [""])[0].split()
        bt_ver = info[3].replace("_", " ") if len(info) > 3 else "?"
        guest = re.sub(r" ncpu.*", "", re.sub(r"^kernel ", "", m("arm64_info") or "6.1 arm64 cloud kernel"))
        tcg = ("a host thread per vCPU (`thread=multi`), as table 1" if m("arm64_tcg", "multi") == "multi"
               else "both vCPUs in one host thread (`thread=single`)")
        self.w(f"""Table 1's kprobe rows on the second architecture: Debian bookworm's
arm64 cloud kernel ({guest}) under `qemu-system-aarch64 -M virt -cpu max`,
software emulation of another instruction set (TCG, {tcg};
`tests/vm/run --arch arm64`, {m("arm64_boot") or "boot time not recorded"}). Everything in the guest is
arm64's: ksnoop cross-built by `make ARCH=arm64` (`{m("arm64_ksnoop")}`, sha256
{m("arm64_ks_sha")}), `ksb-loop` by `aarch64-linux-gnu-gcc -static`, and Debian's
arm64 bpftrace ({bt_ver}) and bash, fetched with `apt-get download` through the
arm64 VM's private apt configuration with the libraries their ELF headers
name (`readelf -d`: `ldd` cannot run an arm64 program here), put in the guest
with `--bin` and `--file`. What that was: {m("arm64_peers") or "not fetched"}.
The 6.1 arm64 kernel has no BPF
trampolines (fentry is refused), so both tracers attach kprobes. Emulating
aarch64 on x86-64 inflates every absolute number far more than table 1's
VM: **compare the ratios only**. The same loop as table 1
(`ksb-loop open {m("open_n")}`), tracers on CPU 0, the loop on CPU 1,
output on `/dev/null`, every traced run after an untraced run.

Commands (in the arm64 VM):
""")
        for v in ("untraced", "ksnoop-kprobe", "ksnoop-filtered-kprobe", "bpftrace-kprobe", "bare-kprobe"):
            if res.cmd("vm-arm64-" + v):
                self.w("- %s: `%s`" % (v, res.cmd("vm-arm64-" + v)))
        self.w()
        self.disturbance("arm64")

        def added(v):
            return med(padd(res, "arm64", v))

        a_ks, a_bt = added("ksnoop-kprobe"), added("bpftrace-kprobe")
        a_filt, a_bare = added("ksnoop-filtered-kprobe"), added("bare-kprobe")
        t_ks = self.target_arm64(a_ks, a_bt)
        groups = self.arm64_groups()
        if groups and a_ks is not None and (a_ks < stats(groups[0]).median) != (a_ks < a_bt):
            t_ks = ("unsettled: %s; in bpftrace's %d cheap rounds ksnoop is %s× (below the table)"
                    % (t_ks, len(groups[0]), ratio(a_ks, stats(groups[0]).median)))
        t_filt = self.target_filter(a_filt, a_bare, padd(res, "arm64", "bare-kprobe"))
        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost | ratio (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- |")
        rows = (("untraced", "untraced `open`+`close` loop", DASH, DASH),
                ("ksnoop-kprobe", "**ksnoop**, kprobe/kretprobe (`%s`)" % "do_sys_openat2(filename, return)",
                 "÷ bpftrace: %s" % ratio(a_ks, a_bt), t_ks),
                ("bpftrace-kprobe", "bpftrace, kprobe/kretprobe, the same values", DASH, "reference"),
                ("ksnoop-filtered-kprobe", "ksnoop, filtered out (`do_sys_openat2(dfd == 12345)`)",
                 "÷ bare kprobe: %s" % ratio(a_filt, a_bare), t_filt),
                ("bare-kprobe", "bare kprobe (bpftrace `kprobe {}`)", DASH, "reference"))
        for v, label, rt, target in rows:
            st = stat(res, "arm64", v, "ns_per_iter")
            if not st:
                if res.of("arm64", v):
                    self.w("| %s | failed: `%s` | | | | %s |"
                           % (label, errors_of(res, "arm64", v) or "no result", target))
                continue
            pl = DASH
            if v.startswith("ksnoop"):
                pl = "%s / %s" % (intmed(stat(res, "arm64", v, "printed")), intmed(stat(res, "arm64", v, "lost")))
            self.w("| %s | %s | %s | %s | %s | %s |"
                   % (label, cell(st), DASH if v == "untraced" else cell(padd(res, "arm64", v)), pl, rt, target))
        self.w()
        if a_ks is not None and a_bt is not None and a_bt > 0:
            k_ks, k_bt = med(padd(res, "kfunc", "ksnoop-kprobe")), med(padd(res, "kfunc", "bpftrace-kprobe"))
            x86 = (" Table 1 (x86-64, same loop and specs) has %s× for the same pair."
                   % ratio(k_ks, k_bt)) if k_ks is not None and k_bt else ""
            self.w("On arm64, ksnoop's traced call adds %s× what bpftrace's adds (kprobe and kretprobe "
                   "both, the same values printed).%s" % (ratio(a_ks, a_bt), x86))
            self.w()
        self.arm64_split(a_ks)
        self.loss_note("arm64", ("ksnoop-kprobe", "ksnoop-filtered-kprobe"))
        self.verdict("traced call < bpftrace (kprobe, arm64 VM)",
                     "ksnoop %s ns; bpftrace kprobe %s ns" % (sgn(a_ks), sgn(a_bt)), t_ks)
        self.verdict("filtered-out call ≤ 1.2× a bare kprobe (arm64 VM)",
                     "filtered out %s ns; bare kprobe %s ns" % (sgn(a_filt), sgn(a_bare)), t_filt)

    def arm64_groups(self):
        """bpftrace's added costs per round in two groups, (cheap, dear),
        when some rounds are above 3× its cheapest; else None."""
        added = sorted(r.num("ns_per_iter") - r.num("base") for r in self.res.of("arm64", "bpftrace-kprobe")
                       if not r.failed)
        if len(added) < 2 or added[0] <= 0 or added[-1] <= 3 * added[0]:
            return None
        low = [x for x in added if x <= 3 * added[0]]
        return low, added[len(low):]

    def arm64_split(self, a_ks):
        """The two groups of arm64_groups(), said with the ratio to each:
        a median over such rounds hides it."""
        groups = self.arm64_groups()
        if groups is None or a_ks is None:
            return
        low, high = groups
        added = low + high
        self.w("bpftrace's rounds fall into two groups: %d of %d added %s–%s ns per call (ksnoop's "
               "median is %s× their median), %d added %s–%s ns (%s×). The ratio above is the median "
               "over all rounds. Likely reason, not measured apart here: bpftrace's perf buffer "
               "wakes its reader for every event, an inter-processor interrupt to the other vCPU "
               "each time, whose cost under multi-threaded TCG depends on when the host runs that "
               "vCPU's thread (the machine was busy, see above); ksnoop's ring buffer wakes its "
               "reader once per sixteenth of the buffer or 10 ms (table 1's reading notes)."
               % (len(low), len(added), fmt(low[0]), fmt(low[-1]), ratio(a_ks, stats(low).median),
                  len(high), fmt(high[0]), fmt(high[-1]), ratio(a_ks, stats(high).median)))
        self.w()

    @staticmethod
    def target_arm64(a, bt):
        """arm64's traced call: less than bpftrace's (table 1's second half)."""
        if a is None or bt is None:
            return "not measured"
        if a < bt:
            return "< bpftrace: **met** (%s×)" % ratio(a, bt)
        return "< bpftrace: **missed** (%s×, %s %% over)" % (ratio(a, bt), pct_over(a, bt))

    def arm64_only(self):
        """Table 9 alone, for splice_arm64(): its section, its verdicts and
        its raw lines."""
        self.arm64()
        raw = [r.line for r in self.res.runs if is_arm64_run(r.table, r.variant)]
        return self.text(), self.verdicts, raw
