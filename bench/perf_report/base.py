"""What every part of the report writes with: its lines, its verdicts
(the rows of "Targets at a glance"), a command list, a note on other
processes' CPU use."""

from .stats import cpu_use


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
