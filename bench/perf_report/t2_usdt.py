"""Table 2: a USDT probe's cost per hit (native)."""

from .stats import stat, padd, med, errors_of, cell, sgn, ratio


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
        self.w("| %s, empty action (bare uprobe) | %s | %s | — | reference |"
               % (self.bt_name(), cell(stat(res, "usdt", "bpftrace-bare", "ns_per_iter")), cell(padd(res, "usdt", "bpftrace-bare"))))
        self.w("| %s, printing the arguments | %s | %s | — | reference |"
               % (self.bt_name(), cell(stat(res, "usdt", "bpftrace", "ns_per_iter")), cell(padd(res, "usdt", "bpftrace"))))
        measured = stat(res, "usdt", "ksnoop", "ns_per_iter")
        if res.feature("ksnoop-usdt") and measured:
            if u_bt is None:
                t = "not measured (bpftrace failed: `%s`)" % errors_of(res, "usdt", "bpftrace")
            elif u_ks is None:
                t = "not measured"
            else:
                t = self.half_bt(padd(res, "usdt", "ksnoop"), padd(res, "usdt", "bpftrace"),
                                 padd(res, "usdt", "bpftrace-bare"),
                                 "a bare uprobe (bpftrace's empty action: the trap alone)", "the row above")
            self.w("| **ksnoop** `usdt` | %s | %s | %s | %s |"
                   % (cell(measured), cell(padd(res, "usdt", "ksnoop")), ratio(u_ks, u_bt), t))
            self.bt_cheaper("a hit", padd(res, "usdt", "ksnoop"), padd(res, "usdt", "bpftrace"),
                            "both pay the uprobe's trap (the bare row); bpftrace 0.27 sends one `printf` "
                            "record through a BPF ring buffer and formats in user space; ksnoop's event "
                            "carries its header and the string read in BPF as bpftrace's `str()` does.")
            self.verdict("USDT hit ≤ ½ %s (native)" % self.bt_name(), "ksnoop %s ns; bpftrace %s" % (sgn(u_ks), sgn(u_bt)), t)
        else:
            self.w("| **ksnoop** `usdt` | not implemented yet | | | TODO: filled in by bench/run once "
                   "`ksnoop usdt BIN:PROV:NAME` works |")
            self.verdict("USDT hit ≤ ½ %s (native)" % self.bt_name(), "ksnoop: not implemented yet", "TODO")
        self.w()
