"""Table 10: kprobe.session's slots against the stash, cost per call (VM:
trixie-backports' 7.3 and trixie's 6.12)."""

from .stats import DASH, stats, med, fmt, cell, sgn, intmed, ratio, pct_over, cpu_use


def is_session_run(table, variant):
    """A raw result of table 10 (its runs, its CPU phases)."""
    return table == "session" or (table == "cpu" and variant.startswith(("setup-session-", "session-")))


SPEC = "do_sys_openat2(filename, return)"          # issue #43's row, table 1's spec
KEPT = "do_sys_openat2(filename, return >= 0)"     # entry values wait for the return's predicate
SESSION_ROWS = (
    ("untraced", "untraced `open`+`close` loop"),
    ("ksnoop-session", "ksnoop `%s`, printing" % SPEC),
    ("ksnoop-stash", "the same, `KSNOOP_FEATURES=-kprobe_session`"),
    ("kept-session", "**ksnoop `%s`**, printing" % KEPT),
    ("kept-stash", "the same, `KSNOOP_FEATURES=-kprobe_session` (the stash)"),
    ("kept-session-stopped", "**ksnoop `%s`**, tracer stopped" % KEPT),
    ("kept-stash-stopped", "the same, `KSNOOP_FEATURES=-kprobe_session`, tracer stopped"),
    ("fkept-session", "**ksnoop --mode fentry `%s`** (fsession), printing" % KEPT),
    ("fkept-stash", "the same, `KSNOOP_FEATURES=-fsession` (fentry/fexit, the stash)"),
    ("fkept-session-stopped", "**ksnoop --mode fentry `%s`** (fsession), tracer stopped" % KEPT),
    ("fkept-stash-stopped", "the same, `KSNOOP_FEATURES=-fsession`, tracer stopped"),
)
# each row with kprobe.session and the row it is compared with, in the same round
SESSION_PAIRS = {"ksnoop-session": "ksnoop-stash", "kept-session": "kept-stash",
                 "kept-session-stopped": "kept-stash-stopped",
                 "fkept-session": "fkept-stash", "fkept-session-stopped": "fkept-stash-stopped"}
KEEP_WORDS = {"session": "kprobe.session slots", "stash": "the stash", "": "nothing waits (`-v` said nothing)"}
# why a kernel whose session rows kept their entries in the stash under the
# cookie (in_stash=, from ksnoop's summary) is not judged: the test VM's CPU
# (tests/vm/boot.bash: -cpu max,-cx16) and 7.x's kmalloc_nolock() (27ad413)
IN_STASH_WHY = "the kernel refused task storage (no cmpxchg16b in the emulated CPU)"


class SessionTable:
    """Table 10, alone too (bench/run --only-session)."""

    SESSION_HEADING = "## 10. Session cookies: kprobe.session slots against the stash (VM)"
    SESSION_MAX = 0.7       # issue #43: the session path's added cost per call, ÷ the stash's
    SESSION_TARGET_KERNEL = "7.3"
    SESSION_MARK = ("| kprobe.session:", "| fsession:")   # its rows of the targets (splice.py)

    def session_runs(self, kernel, variant):
        return [r for r in self.res.of("session", variant) if r.fields.get("kernel") == kernel]

    def session_added(self, kernel, variant):
        """Added ns per call of each round: the run minus its untraced neighbour."""
        return {r.round: r.num("ns_per_iter") - r.num("base")
                for r in self.session_runs(kernel, variant) if not r.failed}

    def session_med(self, kernel, variant):
        return med(stats(self.session_added(kernel, variant).values()))

    def session_ratios(self, kernel, a, b):
        """A's added cost ÷ B's, round by round (the same round: neighbours in
        time), over the rounds where B added something."""
        ra, rb = self.session_added(kernel, a), self.session_added(kernel, b)
        return [ra[k] / rb[k] for k in ra if k in rb and rb[k] > 0]

    def session_ratio(self, kernel, a, b):
        """session_ratios() as Stats, or None."""
        return stats(self.session_ratios(kernel, a, b))

    def session_prog(self, kernel, variant):
        """The BPF programs' own ns per call of each round (prog_ns: their
        run_time_ns during the loop, kernel.bpf_stats_enabled, ÷ the loop's
        calls); empty where the run did not say (before s59).  A negative
        prog_ns is a sum busybox awk's %d wrapped at 2^31 (vm-bench.sh
        before it printed %.0f): not a measurement, left out."""
        return {r.round: r.num("prog_ns") / r.num("iters")
                for r in self.session_runs(kernel, variant)
                if not r.failed and "prog_ns" in r.fields and r.num("iters") > 0 and r.num("prog_ns") >= 0}

    def session_prog_ratio(self, kernel, a, b):
        """A's program ns per call ÷ B's, round by round, as Stats, or None."""
        pa, pb = self.session_prog(kernel, a), self.session_prog(kernel, b)
        return stats(pa[k] / pb[k] for k in pa if k in pb and pb[k] > 0)

    def session_prog_verdict(self, kernel, a):
        """The target judged on the BPF programs' own time (which load does
        not stretch as it stretches wall-clock time), or None unmeasured."""
        limit, b = self.SESSION_MAX, SESSION_PAIRS[a]
        rt = self.session_prog_ratio(kernel, a, b)
        if not rt:
            return None
        why = self.session_in_stash_why(kernel, a)
        if why:
            return why
        kept, kept_b = self.session_kept(kernel, a), self.session_kept(kernel, b)
        spread = "per round %s–%s" % (fmt(rt.min, 2), fmt(rt.max, 2))
        if kept == kept_b == {""}:
            return ("does not apply: with this spec nothing waits for the return, both rows take one "
                    "path (%s× the stash's program time, %s)" % (fmt(rt.median, 2), spread))
        if kept != {"session"}:
            return ("does not apply: the entry values waited in %s (`-v`; %s× the stash's program time)"
                    % (" and ".join(sorted(KEEP_WORDS.get(k, k) for k in kept)), fmt(rt.median, 2)))
        pa, pb = self.session_prog(kernel, a), self.session_prog(kernel, b)
        each = [pa[k] / pb[k] for k in pa if k in pb and pb[k] > 0]
        below = sum(x <= limit for x in each)
        if min(below, len(each) - below) * 4 >= len(each):
            return ("unsettled: %s× the stash's program time by the median, but %d of %d rounds at or "
                    "below %s× and %d above (%s)" % (fmt(rt.median, 2), below, len(each), limit,
                                                     len(each) - below, spread))
        if rt.median <= limit:
            return "≤ %s× the stash's program time: **met** (%s×, %s)" % (limit, fmt(rt.median, 2), spread)
        return ("≤ %s× the stash's program time: **missed** (%s×, %s %% over %s×; %s)"
                % (limit, fmt(rt.median, 2), pct_over(rt.median, limit), limit, spread))

    def session_kept(self, kernel, variant):
        """Where ksnoop -v said the entry values waited, over the rounds:
        the set of keep= words ("" where it said nothing)."""
        return {r.fields.get("keep", "") for r in self.session_runs(kernel, variant) if not r.failed}

    def session_printed(self, kernel, variant, key="printed"):
        """The median of a recorded count (printed, not_followed ...) over the rounds."""
        return med(stats(r.num(key) for r in self.session_runs(kernel, variant) if not r.failed))

    def session_in_stash(self, kernel, rows=("kept-session", "kept-session-stopped", "ksnoop-session")):
        """Whether KERNEL's session rows kept entries in the stash under the
        cookie (the kernel refused kprobe.session's task storage): (N, M,
        row) of the first such row, the printing one first, N its median
        entries a run so kept and M the loop's calls a run; None where no
        run kept any."""
        for v in rows:
            good = [r for r in self.session_runs(kernel, v) if not r.failed]
            if any(r.num("in_stash") for r in good):
                return (med(stats(r.num("in_stash") for r in good)),
                        med(stats(r.num("iters") for r in good)), v)
        return None

    def session_in_stash_why(self, kernel, row="kept-session"):
        """The verdict of a kernel session_in_stash() names (for ROW's
        kind: fkept-* rows are fsession's, the others kprobe.session's), or None."""
        rows = (("fkept-session", "fkept-session-stopped") if row.startswith("fkept-") else
                ("kept-session", "kept-session-stopped", "ksnoop-session"))
        st = self.session_in_stash(kernel, rows)
        if st is None:
            return None
        n, m, v = st
        return ("cannot be judged in this VM: %s, the session path's entries waited in the stash under "
                "the cookie: %s of %s (a run, medians, row %s: the entries ksnoop's summary counted so, "
                "of the loop's calls; the guest's other opens count too)" % (IN_STASH_WHY, fmt(n), fmt(m), v))

    def session_verdict(self, kernel, a):
        """The target on KERNEL for row A against its stash row: the
        session path's added cost at most SESSION_MAX times the stash's."""
        limit, b = self.SESSION_MAX, SESSION_PAIRS[a]
        sa = stats(self.session_added(kernel, a).values())
        sb = stats(self.session_added(kernel, b).values())
        rt = self.session_ratio(kernel, a, b)
        kept, kept_b = self.session_kept(kernel, a), self.session_kept(kernel, b)
        if not sa or not sb or not rt:
            return "not measured"
        why = self.session_in_stash_why(kernel, a)
        if why:
            return why
        if kept == kept_b == {""}:
            return ("does not apply: with this spec nothing waits for the return (two events a call; "
                    "`-v` names no entry store in either row), so both rows take one path (%s×, per "
                    "round %s–%s)" % (fmt(rt.median, 2), fmt(rt.min, 2), fmt(rt.max, 2)))
        if kept != {"session"}:
            return ("does not apply: with %s the entry values waited in %s, with the stash "
                    "forced in %s (`-v`)" % ("fsession" if a.startswith("fkept-") else "kprobe.session",
                                             " and ".join(sorted(KEEP_WORDS.get(k, k) for k in kept)),
                                             " and ".join(sorted(KEEP_WORDS.get(k, k) for k in kept_b))))
        pa, pb = self.session_printed(kernel, a), self.session_printed(kernel, b)
        if pa < 0.9 * pb:
            return ("cannot be judged: with the session path ksnoop printed %s events a run (%s calls not "
                    "followed), with the stash %s: the two rows did not do the same work"
                    % (fmt(pa), fmt(self.session_printed(kernel, a, "not_followed")), fmt(pb)))
        if sb.median <= 0 or sb.min <= 0:
            return ("cannot be judged in the VM: the stash's added cost, %s ns, is not above the run-to-run "
                    "noise" % cell(sb))
        spread = "per round %s–%s" % (fmt(rt.min, 2), fmt(rt.max, 2))
        each = self.session_ratios(kernel, a, b)
        below = sum(x <= limit for x in each)
        if min(below, len(each) - below) * 4 >= len(each):
            return ("unsettled: %s× by the median, but %d of %d rounds at or below %s× and %d above "
                    "(%s): the noise is larger than the difference" % (fmt(rt.median, 2), below, len(each),
                                                                       limit, len(each) - below, spread))
        if rt.median <= limit:
            return "≤ %s× the stash: **met** (%s×, %s)" % (limit, fmt(rt.median, 2), spread)
        return ("≤ %s× the stash: **missed** (%s×, %s %% over %s×; %s)"
                % (limit, fmt(rt.median, 2), pct_over(rt.median, limit), limit, spread))

    def session(self):
        res, m = self.res, self.res.m
        if not res.has_table("session"):
            if m("session_rc", "skipped") not in ("skipped", "0", ""):
                self.w(self.SESSION_HEADING)
                self.w()
                self.w("Not measured: the VM runs did not produce results (%s)." % m("session_rc"))
                self.w()
            return
        self.w(self.SESSION_HEADING)
        self.w()
        if m("only") == "session":
            elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
            self.w(f"""Measured on its own by `bench/run --only-session` ({m("run_date")}, {elapsed:.1f}
minutes, {m("vm_rounds")} rounds in each VM{", --quick sizes" if m("quick") == "1" else ""}; ksnoop {m("ks_ver")},
sha256 {m("ks_sha")}, tree at commit {m("commit")}), not in the run the header describes;
load average {m("load_start")} at the start, {m("load_end")} at the end (1, 5, 15 minutes).
""")
        tcg = ("a host thread per vCPU (`thread=multi`)" if m("session_tcg", "multi") == "multi"
               else "both vCPUs in one host thread (`thread=single`)")
        self.w(f"""Issue #43, item 3: where the kernel has kprobe.session (6.10 on), an
entry record that waits for the call's return waits in the task's own
storage (8 slots, `bpf/session.bpf.h`; the call's session cookie names the
slot), one program running at both ends of the call; otherwise, or with
`KSNOOP_FEATURES=-kprobe_session`, an entry and a return program of their
own (`kprobe.multi` links here) keep it in the stash, a hash map keyed by
task and call frame. Two specs in kprobe mode on table 1's loop (`ksb-loop
open {m("open_n")}`, one `do_sys_openat2()` per iteration), each with kprobe.session
and with the stash forced, in the same rounds, in an order rotated by one
each round:

- `{SPEC}`, the spec the issue names (table 1's): the
  entry (with the filename) and the return are two events, so nothing
  waits for the return (unless the filename faults at entry, which it does
  not here), and `-v` says nothing of where entries wait;
- `{KEPT}`: a predicate on the return, so the entry values
  wait for it and one event per call carries both, the path kprobe.session
  serves. Printing (output on `/dev/null`), and with the tracer stopped
  (SIGSTOP while the loop runs, a 64 MiB buffer: the BPF side alone).

Every traced run follows an untraced run of its own; the added cost is the
difference to it. The ratio session ÷ stash is taken round by round (the two
runs of a round are a minute apart at most) and shown as its median and
min–max over the rounds. "Entry kept in" is what each run's `ksnoop -v`
said, and where its summary counted entries that waited in the stash under
the cookie instead (the kernel refused kprobe.session's task storage: then
the session rows measure that fallback, not the slots, and are not judged).
"BPF programs' ns per call" is the traced run's programs' own run time
during the loop (`kernel.bpf_stats_enabled` on for every row: fdinfo's
`run_time_ns` of ksnoop's program fds, after the loop less before, ÷ the
loop's calls; entry and return together): the work the two paths differ
in, which the host's load does not stretch as it stretches the loop's
wall-clock time (each run of a program reads the clock twice more, in
every row alike); its ratio is taken round by round too. Under TCG the
guest's clock is the host's, so a vCPU thread the loaded host takes off
its CPU while a program runs still lengthens that program's run time:
this column is less disturbed than the loop's time, not undisturbed.
qemu with {tcg}, as table 1; ksnoop alone in the guest. Target:
the session path at most {self.SESSION_MAX}× the stash's added cost per call, on 7.3.

Commands (in the VM; `ksb-loop` is `bench/loop.c`):
""")
        for v, _ in SESSION_ROWS:
            if res.cmd("vm-session-" + v):
                self.w("- %s: `%s`" % (v, res.cmd("vm-session-" + v)))
        self.w()
        kernels = m("session_kernels").split() or res.kernels("session")
        for k in kernels:
            info = m("session_info_" + k, "not said").split(";")[0].removeprefix("kprobe session ")
            load = m("session_load_" + k)
            self.w("- %s: `%s` (Debian %s, %s); `ksnoop -v` there: kprobe_session %s.%s"
                   % (k, m("session_uname_" + k, "?"), m("session_release_" + k, "?"),
                      m("session_boot_" + k, "boot time not said"), info,
                      " Load average when its boot ended: %s." % load if load else ""))
        self.w()
        self.session_load(kernels)
        self.w("| kernel | variant | ns per call | added ns per call | BPF programs' ns per call "
               "| events printed / lost | entry kept in | with kprobe.session ÷ stash (added, per round) "
               "| the same, programs' ns | target |")
        self.w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for k in kernels:
            self.session_rows(k)
        self.w()
        self.session_notes(kernels)
        for k in kernels:
            for v, spec in (("ksnoop-session", SPEC), ("kept-session", KEPT), ("fkept-session", KEPT)):
                verdict = self.session_verdict(k, v)
                if k != self.SESSION_TARGET_KERNEL:
                    verdict = "no target on %s (set for %s): %s" % (k, self.SESSION_TARGET_KERNEL,
                                                                   verdict.replace("**", ""))
                what, mode = ("fsession", "fentry") if v.startswith("fkept-") else ("kprobe.session", "kprobe")
                self.verdict("%s: `%s` ≤ %s× the stash per call (%s, printing, VM %s)"
                             % (what, spec, self.SESSION_MAX, mode, k),
                             "session %s ns; stash %s ns" % (sgn(self.session_med(k, v)),
                                                            sgn(self.session_med(k, SESSION_PAIRS[v]))),
                             verdict)
                pverdict = self.session_prog_verdict(k, v)
                if pverdict is None:
                    continue
                if k != self.SESSION_TARGET_KERNEL:
                    pverdict = "no target on %s (set for %s): %s" % (k, self.SESSION_TARGET_KERNEL,
                                                                    pverdict.replace("**", ""))
                self.verdict("%s: `%s` ≤ %s× the stash, BPF programs' own ns per call (%s, printing, VM %s)"
                             % (what, spec, self.SESSION_MAX, mode, k),
                             "session %s ns; stash %s ns"
                             % (fmt(med(stats(self.session_prog(k, v).values())), 0),
                                fmt(med(stats(self.session_prog(k, SESSION_PAIRS[v]).values())), 0)),
                             pverdict)

    def session_rows(self, k):
        for v, label in SESSION_ROWS:
            runs = self.session_runs(k, v)
            good = [r for r in runs if not r.failed]
            target = rt = prt = DASH
            if v in SESSION_PAIRS:
                rt = cell(self.session_ratio(k, v, SESSION_PAIRS[v]), 2)
                prt = cell(self.session_prog_ratio(k, v, SESSION_PAIRS[v]), 2)
                if not v.endswith("-stopped"):
                    target = self.session_verdict(k, v) if k == self.SESSION_TARGET_KERNEL else "no target on %s" % k
                    pv = self.session_prog_verdict(k, v) if k == self.SESSION_TARGET_KERNEL else None
                    if pv:
                        target += "; programs' own time: " + pv
            if not good:
                if runs:
                    err = next((r.fields["error"] for r in runs if r.failed), "no result")
                    self.w("| %s | %s | failed: `%s` | | | | | | | %s |" % (k, label, err, target))
                continue
            st = stats(r.num("ns_per_iter") for r in good)
            if v == "untraced":
                self.w("| %s | %s | %s | — | — | — | — | — | — | — |" % (k, label, cell(st)))
                continue
            pl = "%s / %s" % (intmed(stats(r.num("printed") for r in good)),
                              intmed(stats(r.num("lost") for r in good)))
            for key, what in (("not_followed", "calls not followed"), ("missed", "calls missed")):
                if any(r.num(key) for r in good):
                    pl += "; %s %s" % (what, intmed(stats(r.num(key) for r in good)))
            if len(runs) > len(good):
                pl += " (%d of %d rounds failed)" % (len(runs) - len(good), len(runs))
            words = dict(KEEP_WORDS, session="fsession's session slots") if v.startswith("fkept-") else KEEP_WORDS
            kept = "; ".join("%s: %d of %d" % (words.get(x, x), sum(r.fields.get("keep", "") == x for r in good),
                                               len(good)) for x in sorted(self.session_kept(k, v)))
            stashed = [r.num("in_stash") for r in good if r.fields.get("in_stash", "0") != "0"]
            if stashed:
                kept += ("; in fact the stash under the cookie, %s: %s entries a run, in %d of %d rounds"
                         % (IN_STASH_WHY, intmed(stats(stashed)), len(stashed), len(good)))
            self.w("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |"
                   % (k, label, cell(st), cell(stats(self.session_added(k, v).values())),
                      cell(stats(self.session_prog(k, v).values())), pl, kept, rt, prt, target))

    def session_load(self, kernels):
        """Other processes' CPU use while each kernel's boot ran (bench/run's
        phases session-RELEASE)."""
        said = []
        for k in kernels:
            use = cpu_use(self.res, "session-" + self.res.m("session_release_" + k, k))
            if use:
                said.append((k, use))
        if not said:
            return
        self.w("While this was measured, other processes used this share of the machine's CPU time: %s.%s"
               % ("; ".join("%s %s %% (steal %s %%)" % (k, o, st) for k, (o, st) in said),
                  " **Disturbed**: the spread shows it; re-run on a quiet machine."
                  if any(float(o) > 10 for _, (o, _) in said) else ""))
        self.w()

    def session_notes(self, kernels):
        """Where the time goes, from the rows: per kernel, the BPF side alone
        (stopped) of both paths, and what printing adds to each; a kernel
        where the session path followed (almost) no call, or kept its
        entries in the stash under the cookie, said so."""
        for k in kernels:
            calls = med(stats(r.num("iters") for r in self.session_runs(k, "kept-session") if not r.failed))
            lost = self.session_printed(k, "kept-session", "not_followed")
            if calls and lost is not None and lost >= 0.9 * calls:
                self.w(f"""**{k}: the session path followed no call.** With kprobe.session every
call was counted as not followed ({fmt(lost)} a run; the loop makes
{fmt(calls)}), while the stash followed them: its rows are the price of an
entry program that keeps nothing, so no ratio of them says anything about
the target.
""")
                continue
            st = self.session_in_stash(k)
            if st:
                self.w(f"""**{k}: the session rows measure the fallback, not the slots.** `ksnoop -v`
said the entries would wait in kprobe.session, but its summary
counted {fmt(st[0])} entries a run (the loop makes {fmt(st[1])} calls) kept
in the stash under the cookie: `bpf_task_storage_get(..., F_CREATE)` gave
no storage, so `session_keep()` (`bpf/session.bpf.h`) put the record in the
stash and the cookie names it. 7.x allocates task storage with
`kmalloc_nolock()`, which needs the CPU's cmpxchg16b, and this VM's emulated
CPU has none (`tests/vm/boot.bash`: `-cpu max,-cx16`); real x86-64 CPUs
have it. So on {k} the session path's rows are the session program, the
refused storage and the stash together, and the target is not judged here.
""")
            rows = ("kept-session", "kept-stash", "kept-session-stopped", "kept-stash-stopped")
            a = {v: self.session_med(k, v) for v in rows}
            if any(x is None for x in a.values()):
                continue
            ss, sb = (stats(self.session_added(k, v).values()) for v in ("kept-session-stopped", "kept-stash-stopped"))
            overlap = ss.min <= sb.max and sb.min <= ss.max
            self.w("%s, `%s`: with the tracer stopped (the BPF side alone) the session path%s adds %s ns "
                   "per call and the stash %s ns (medians, per-round min–max; %s× by the medians); by the "
                   "medians, printing adds %s ns more to the session path's call and %s ns more to the "
                   "stash's.%s"
                   % (k, KEPT, " (here: its fallback to the stash)" if st else "",
                      cell(ss), cell(sb), ratio(a["kept-session-stopped"], a["kept-stash-stopped"]),
                      sgn(a["kept-session"] - a["kept-session-stopped"]),
                      sgn(a["kept-stash"] - a["kept-stash-stopped"]),
                      " The two stopped rows' per-round ranges overlap: under this load the medians "
                      "do not establish which path costs more." if overlap else ""))
            self.w()

    def session_only(self):
        """Table 10 alone, for splice_session(): its section, its verdicts
        and its raw lines."""
        self.session()
        raw = [r.line for r in self.res.runs if is_session_run(r.table, r.variant)]
        return self.text(), self.verdicts, raw
