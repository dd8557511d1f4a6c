"""Table 4b: recording against printing (native)."""

from .stats import DASH, stats, stat, derived, med, errors_of, fmt, cell, intmed, ratio, cut


def is_record_run(table, variant):
    """A raw result of table 4b (its runs, its CPU phases)."""
    return table == "record" or (table == "cpu" and variant in ("setup-record", "record"))


class RecordTable:
    """Table 4b, alone too (bench/run --only-record)."""

    RECORD_HEADING = "## 4b. Recording against printing (native)"
    RECORD_GOAL = 3         # recording sustains at least 3× the rate text printing does (issue #30)
    RECORD_MARK = "(`ksnoop record`)"   # the end of table 4b's rows in "Targets at a glance"

    def record_rates(self):
        """Table 4b's paced rates in order (0: the generator unpaced, last)."""
        rates = {int(r.variant.split("@")[1]) if r.variant.split("@")[1].isdigit() else 0
                 for r in self.res.runs if r.table == "record" and "@drain" not in r.variant}
        return sorted(rates, key=lambda x: x or float("inf"))

    def record_row(self, v, rate):
        """The runs of kind V (text, record) at RATE (0: max), as
        (offered, events, lost, lost rounds, rounds) or None if none."""
        runs = [r for r in self.res.of("record", "%s@%s" % (v, rate or "max")) if not r.failed]
        if not runs:
            return None
        return (stats(r.num("rate") for r in runs), stats(r.num("printed") for r in runs),
                stats(r.num("lost") for r in runs), sum(1 for r in runs if r.num("lost") > 0), len(runs))

    def record_sustained(self, v):
        """(offered events/s, rate) of the highest rate at which kind V lost
        nothing (median over the rounds), and whether every lower rate did
        too; (None, None) if it lost at the lowest."""
        best = (None, None)
        for rate in self.record_rates():
            row = self.record_row(v, rate)
            if row is None:
                continue
            if row[2].median > 0:
                break
            best = (row[0].median, rate)
        return best

    def recording(self):
        """Table 4b: text printing against `ksnoop record` on the paced generator."""
        res = self.res
        m = res.m
        if not res.has_table("record"):
            return
        self.w(self.RECORD_HEADING)
        self.w()
        if m("only") == "record":
            elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
            self.w(f"""Measured on its own by `bench/run --only-record` ({m("run_date")}, {elapsed:.1f}
minutes, {m("rounds")} rounds{", --quick sizes" if m("quick") == "1" else ""}; tree at commit {m("commit")},
ksnoop sha256 {m("ks_sha")}), not in the run the header describes.
""")
        self.w(f"""Issue #30: `ksnoop record -o FILE` writes the raw records (zlib blocks in this
run, which predates format 3's zstd blocks: 4c measures today's recorder)
instead of printing them. The source is table 4's generator, `ksb-loop flood
{m("flood_secs")} RATE` (`getppid()` on CPU 1, paced at RATE calls per second; RATE 0:
as fast as it goes), traced by `{m("rec_spec")}` (table 4's small event) with ksnoop on
CPU 0 filtered to its pid: (a) printing text to `/dev/null`, (b) `ksnoop record -o FILE`
with FILE on tmpfs (`{m("rec_dir")}`: the disk's speed is not measured). Each round runs
every rate and kind once, the order rotated by one each round. *offered* = the
generator's calls per second; *events* and *lost* from ksnoop's closing line ("N
events printed, M lost" or "N events recorded to FILE (B bytes), M lost"); *losing
rounds* = rounds with any loss. After each recording, `ksnoop report FILE
>/dev/null` on CPU 0 is timed (process start to exit): *report events/s* = events
it printed ÷ that time. *bytes/event* = the file's size ÷ events (header, BTF and
plans included: small files carry them over few events).

*Capacity*, as table 4's, for the small event and table 4's large one
(`{m("tput_large")}`, the 168-byte `struct pt_regs`): ksnoop (`--buffer 256M -n N`) is stopped
(SIGSTOP) while `ksb-loop syscall N` fills its buffer, then continued (N = {fmt(res.mnum("drain_n"))}
small events, a quarter of that large ones, which would overflow 256 MiB):
events ÷ seconds from SIGCONT to its exit, what each consumer keeps up with
apart from how fast the generator goes and from the scheduler's pauses (a paused
consumer loses events once the default buffer fills, whatever its speed).

A kind *sustains* a rate when the median of its lost events there is 0 (and at every
lower rate). Target (issue #30): recording sustains at least {self.RECORD_GOAL}× the
events per second that text printing does, with nothing lost at the rate where
printing starts to lose. The ratio is judged on capacity: the generator (one CPU
calling `getppid()`) offers at most a few million events a second, which the paced
runs cannot go past; loss is judged on the paced runs, in every round.

Commands:
""")
        self.w("- text: `%s`" % res.cmd("record-text"))
        self.w("- record: `%s`, then `ksnoop report FILE >/dev/null`" % res.cmd("record-record"))
        self.w("- generator: `ksb-loop -C 1 flood %s RATE`" % m("flood_secs"))
        for size in ("small", "large"):
            if res.cmd("record-drain-text-" + size):
                self.w("- capacity, %s event: `%s`, `%s`" % (size, res.cmd("record-drain-text-" + size),
                                                          res.cmd("record-drain-record-" + size)))
        self.w()
        self.disturbance("record")
        self.w("| rate asked | text: offered/s | printed | lost | losing rounds "
               "| record: offered/s | recorded | lost | losing rounds | bytes/event | report events/s |")
        self.w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        for rate in self.record_rates():
            cells = []
            for v in ("text", "record"):
                row = self.record_row(v, rate)
                if row is None:
                    err = errors_of(res, "record", "%s@%s" % (v, rate or "max"))
                    cells += ["failed: `%s`" % cut(err, 60) if err else DASH, DASH, DASH, DASH]
                    continue
                offered, events, lost, losing, n = row
                cells += [cell(offered), cell(events), cell(lost), "%d of %d" % (losing, n)]
            name = "record@%s" % (rate or "max")
            bpe = derived(res, "record", name, lambda r: r.num("bytes") / r.num("printed"))
            rps = derived(res, "record", name, lambda r: r.num("report_printed") / r.num("report_s"))
            cells += [cell(bpe, 2), cell(rps)]
            self.w("| %s | %s |" % (fmt(rate) + "/s" if rate else "max (unpaced)", " | ".join(cells)))
        self.w()
        self.record_capacity()
        self.record_verdicts()

    def record_capacity(self):
        """Table 4b's second part: what each kind drains from a full buffer."""
        res = self.res
        if not any("@drain" in r.variant for r in res.runs if r.table == "record"):
            return
        self.w("| capacity | events/s | lost | bytes/event | report events/s |")
        self.w("| --- | --- | --- | --- | --- |")
        for size, v in (("small", "text"), ("small", "record"), ("large", "text"), ("large", "record")):
            name = "%s@drain-%s" % (v, size)
            if not res.of("record", name):
                continue
            if not any(not r.failed for r in res.of("record", name)):
                self.w("| %s, %s | failed: `%s` | | | |" % (v, size, cut(errors_of(res, "record", name), 60)))
                continue
            per_s = derived(res, "record", name, self.printed_per_s)
            bpe = derived(res, "record", name, lambda r: r.num("bytes") / r.num("printed"))
            rps = derived(res, "record", name, lambda r: r.num("report_printed") / r.num("report_s"))
            self.w("| %s event, %s (%s events) | %s | %s | %s | %s |"
                   % (size, "text printing" if v == "text" else "`record -o FILE`", intmed(stat(res, "record", name, "printed")),
                      cell(per_s), cell(stat(res, "record", name, "lost")),
                      cell(bpe, 2) if v == "record" else DASH, cell(rps) if v == "record" else DASH))
        self.w()

    def record_verdicts(self):
        res = self.res
        t_rate, _ = self.record_sustained("text")
        r_rate, r_key = self.record_sustained("record")
        rates = self.record_rates()
        top = rates[-1] if rates else None
        bound = r_key is not None and r_key == top      # recording kept up with the generator's most
        t_bound = self.record_sustained("text")[1] == top and top is not None
        first_loss = next((x for x in rates
                           if self.record_row("text", x) and self.record_row("text", x)[2].median > 0), None)
        at_loss = self.record_row("record", first_loss) if first_loss is not None else None
        if first_loss is None:
            loss_txt = "printing lost nothing (median) at any rate measured"
        else:
            tr = self.record_row("text", first_loss)
            loss_txt = ("printing starts to lose at %s (offered %s/s, lost %s, %d of %d rounds); there "
                        "recording lost %s (%d of %d rounds)"
                        % ("the generator's max" if first_loss == 0 else fmt(first_loss) + "/s",
                           intmed(tr[0]), intmed(tr[2]), tr[3], tr[4],
                           intmed(at_loss[2]) if at_loss else "?", at_loss[3] if at_loss else 0,
                           at_loss[4] if at_loss else 0))
        paced = ("text %s/s%s, recording %s/s%s: %s"
                 % (fmt(t_rate) if t_rate else DASH, " (the generator's max)" if t_bound else "",
                    fmt(r_rate) if r_rate else DASH, " (the generator's max)" if bound else "",
                    ratio(r_rate, t_rate) + "×" if t_rate and r_rate else "no ratio"))
        cap_t = med(derived(res, "record", "text@drain-small", self.printed_per_s))
        cap_r = med(derived(res, "record", "record@drain-small", self.printed_per_s))
        lg_t = med(derived(res, "record", "text@drain-large", self.printed_per_s))
        lg_r = med(derived(res, "record", "record@drain-large", self.printed_per_s))
        lossless = at_loss is None or at_loss[2].max == 0
        if cap_t is None or cap_r is None:
            t = "not measured"
        else:
            x = cap_r / cap_t
            met = x >= self.RECORD_GOAL and lossless
            t = "≥ %d×: **%s** (capacity %s×" % (self.RECORD_GOAL, "met" if met else "missed", ratio(cap_r, cap_t))
            if not lossless:
                t += "; recording lost events in %d of %d rounds where printing starts to lose" % (at_loss[3], at_loss[4])
            t += ")"
        self.w("Highest paced rate sustained with nothing lost (median): %s. %s. Capacity, small event: "
               "text printing %s/s, recording %s/s (%s×); large event: %s/s and %s/s (%s×)."
               % (paced, loss_txt[0].upper() + loss_txt[1:], fmt(cap_t) if cap_t else DASH,
                  fmt(cap_r) if cap_r else DASH, ratio(cap_r, cap_t), fmt(lg_t) if lg_t else DASH,
                  fmt(lg_r) if lg_r else DASH, ratio(lg_r, lg_t)))
        self.w()
        self.record_cost()
        self.verdict("recording sustains ≥ %d× the small events/s text printing does, nothing lost where "
                     "printing loses %s" % (self.RECORD_GOAL, self.RECORD_MARK),
                     "capacity: text %s/s, record %s/s; paced, lossless: %s; %s"
                     % (fmt(cap_t) if cap_t else DASH, fmt(cap_r) if cap_r else DASH, paced, loss_txt), t)
        if lg_t and lg_r:
            x = lg_r / lg_t
            self.verdict("recording sustains ≥ %d× the large events/s (`%s`) text printing does %s"
                         % (self.RECORD_GOAL, res.m("tput_large"), self.RECORD_MARK),
                         "capacity: text %s/s, record %s/s" % (fmt(lg_t), fmt(lg_r)),
                         "≥ %d×: **%s** (%s×)" % (self.RECORD_GOAL, "met" if x >= self.RECORD_GOAL else "missed",
                                                 ratio(lg_r, lg_t)))
        name = ("record@drain-small" if res.of("record", "record@drain-small")
                else "record@%s" % (top or "max"))
        bpe = derived(res, "record", name, lambda r: r.num("bytes") / r.num("printed"))
        rps = derived(res, "record", name, lambda r: r.num("report_printed") / r.num("report_s"))
        events = stat(res, "record", name, "printed")
        self.verdict("bytes per small event on disk %s" % self.RECORD_MARK,
                     "%s bytes/event (file ÷ events, %s events a file)" % (cell(bpe, 2), intmed(events)),
                     "measured (issue #30 sets no number)")
        self.verdict("`ksnoop report` events per second %s" % self.RECORD_MARK,
                     "%s events/s (text to /dev/null, %s events a file)" % (cell(rps), intmed(events)),
                     "measured (issue #30 sets no number)")
        self.record_rows()

    def record_cost(self):
        """CPU per event, recording against printing (4c, issue #46),
        measured by bench/reccost.py, not by bench/run: bench/reccost.md's
        text, as it is."""
        self.kept_text("reccost.md")

    def record_rows(self):
        """Record, text and JSON per event, and report's events per second
        (4d, issue #47), measured by bench/recbench.py: bench/recbench.md's
        text, its glance rows after table 4b's."""
        self.kept_text("recbench.md")

    def recording_only(self):
        """Table 4b alone, for splice_record(): its section, its verdicts
        and its raw lines."""
        self.recording()
        raw = [r.line for r in self.res.runs if is_record_run(r.table, r.variant)]
        return self.text(), self.verdicts, raw
