"""What every part of the report writes with: its lines, its verdicts
(the rows of "Targets at a glance"), a command list, a note on other
processes' CPU use."""

from .stats import cpu_use

# How a row of "Targets at a glance" that a splice kept from an earlier
# run is marked, after its target (splice.merge_targets()).
KEPT_TEXT = "kept from the previous report: "
KEPT_MARK = " (" + KEPT_TEXT


class ReportBase:
    def __init__(self, res):
        self.res = res
        self.out = []
        self.verdicts = []
        self.findings = 0
        # values one table finds and a later part (findings) reads
        self.f_ks = self.f_b = self.s_ks = None
        self.kfunc_notes = False

    def w(self, text=""):
        """Append text; a multi-line string is several lines."""
        self.out.append(text)

    def commands(self, pairs):
        for label, key in pairs:
            self.w("- %s: `%s`" % (label, self.res.cmd(key)))

    def verdict(self, target, measured, verdict):
        self.verdicts.append("| %s | %s | %s |" % (target, measured, verdict))

    def disturbance(self, phase):
        """A sentence on other processes' CPU use while PHASE ran."""
        use = cpu_use(self.res, phase)
        if not use:
            return
        other, steal = use
        if float(other) > 10 or float(steal) > 5:
            self.w("**Disturbed:** while this was measured, other processes used %s %% of the "
                   "machine's CPU time (steal %s %%); the spread shows it. Re-run on a quiet "
                   "machine." % (other, steal))
        else:
            self.w("While this was measured, other processes used %s %% of the CPU time "
                   "(steal %s %%): quiet." % (other, steal))
        self.w()

    def text(self):
        return "\n".join(self.out) + "\n"

    def bt_name(self):
        """The native bpftrace as the report names it: "bpftrace 0.27"
        (major.minor of the version the run printed)."""
        ver = self.res.m("bt_ver").lstrip("v").split(".")
        return "bpftrace " + ".".join(ver[:2]) if ver[0] else "bpftrace"

    def half_bt(self, ks_st, bt_st, floor=None, floor_what="", floor_where="table 3b"):
        """Issue #46's target for a traced call: at most half the native
        bpftrace's added cost (KS_ST and BT_ST: Stats of the added cost).
        The verdict cell; a miss whose rounds reach the target is said to
        be unsettled, and one where FLOOR (Stats: the added cost of a bare
        program doing only FLOOR_WHAT, the least any tracer doing that work
        pays) is above half bpftrace's is said to be out of reach."""
        name = self.bt_name()
        ks, bt = (s.median if s else None for s in (ks_st, bt_st))
        if ks is None or bt is None:
            return "not measured"
        if bt <= 0:
            return "cannot be judged: %s's added cost is not above zero" % name
        r = ks / bt
        if r <= 0.5:
            return "≤ ½ %s: **met** (%.2f×)" % (name, r)
        more = "; %s is cheaper here (why: below the table)" % name if r > 1 else ""
        if ks_st.min <= 0.5 * bt_st.max:
            more += ("; unsettled at this run's load: ksnoop's cheapest round (%.0f ns) is within ½ of "
                     "%s's dearest (%.0f ns)" % (ks_st.min, name, bt_st.max))
        if floor and floor.median > 0.5 * bt:
            more += ("; out of reach for any tracer doing this work: ½ %s is %.0f ns, under the floor, "
                     "%s (%.0f ns, %s); ksnoop is %.2f× the floor"
                     % (name, 0.5 * bt, floor_what, floor.median, floor_where, ks / floor.median))
        return "≤ ½ %s: **missed** (%.2f×)%s" % (name, r, more)

    def bt_cheaper(self, what, ks, bt, why):
        """The line under a table where the native bpftrace's added cost
        (BT, Stats) is below ksnoop's (KS): WHY, and whether this run's
        rounds settle it."""
        if not ks or not bt or ks.median <= bt.median:
            return
        name = self.bt_name()
        text = ("**%s is cheaper than ksnoop here** (%s: %.0f against %.0f ns added, medians). Why: %s"
                % (name, what, bt.median, ks.median, why))
        if ks.min <= bt.max:
            text += (" The rounds overlap (ksnoop %.0f–%.0f, %s %.0f–%.0f ns): at this run's load the "
                     "difference is not settled." % (ks.min, ks.max, name, bt.min, bt.max))
        self.w(text)
        self.w()
