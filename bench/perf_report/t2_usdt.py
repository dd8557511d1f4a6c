"""Table 2: a USDT probe's cost per hit (native)."""

from .stats import stat, padd, med, errors_of, cell, sgn, ratio, pct_over


class UsdtTable:
    """Table 2."""

    def usdt(self):
        res = self.res
        self.w("## 2. USDT probe: cost per hit (native)")
        self.w()
        if not res.has_table("usdt"):
            return
        self.disturbance("native")
        self.w(f"""Workload: `ksb-loop usdt {res.m("usdt_n")}`, a loop over a `<sys/sdt.h>` probe
`DTRACE_PROBE3(ksb, tick, i, name, &payload)` (no semaphore: untraced, the
probe is one `nop`); reported as ns per loop iteration. Tracers capture
`arg0` (a long), `arg1` (a string) and `arg2` (a pointer).

Commands:
""")
        self.commands((v, "usdt-" + v) for v in ("untraced", "bpftrace-bare", "bpftrace", "ksnoop"))
        self.w()
        u_bt = med(padd(res, "usdt", "bpftrace"))
        u_ks = med(padd(res, "usdt", "ksnoop"))
        self.w("| variant | ns per hit | added ns per hit | ksnoop ÷ bpftrace (added) | target |")
        self.w("| --- | --- | --- | --- | --- |")
        self.w("| untraced | %s | — | — | — |" % cell(stat(res, "usdt", "untraced", "ns_per_iter"), 1))
        self.w("| bpftrace, empty action (bare uprobe) | %s | %s | — | reference |"
               % (cell(stat(res, "usdt", "bpftrace-bare", "ns_per_iter")), cell(padd(res, "usdt", "bpftrace-bare"))))
        self.w("| bpftrace, printing the arguments | %s | %s | — | reference |"
               % (cell(stat(res, "usdt", "bpftrace", "ns_per_iter")), cell(padd(res, "usdt", "bpftrace"))))
        measured = stat(res, "usdt", "ksnoop", "ns_per_iter")
        if res.feature("ksnoop-usdt") and measured:
            if u_bt is None:
                t = "not measured (bpftrace failed: `%s`)" % errors_of(res, "usdt", "bpftrace")
            elif u_ks is None:
                t = "not measured"
            elif u_ks < u_bt:
                t = "< bpftrace: **met** (%s×)" % ratio(u_ks, u_bt)
            else:
                t = "< bpftrace: **missed** (%s×, %s %% over)" % (ratio(u_ks, u_bt), pct_over(u_ks, u_bt))
            self.w("| **ksnoop** `usdt` | %s | %s | %s | %s |"
                   % (cell(measured), cell(padd(res, "usdt", "ksnoop")), ratio(u_ks, u_bt), t))
            self.verdict("USDT hit < bpftrace (native)", "ksnoop %s ns; bpftrace %s" % (sgn(u_ks), sgn(u_bt)), t)
        else:
            self.w("| **ksnoop** `usdt` | not implemented yet | | | TODO: filled in by bench/run once "
                   "`ksnoop usdt BIN:PROV:NAME` works |")
            self.verdict("USDT hit < bpftrace (native)", "ksnoop: not implemented yet", "TODO")
        self.w()
