"""Table 7: call trees (--tree), cost per call (VM)."""

from .stats import (DASH, stat, derived, padd, med, errors_of, fmt, cell, sgn, intmed, ratio,
                    pct_over)


def is_tree_run(table, variant):
    """A raw result of table 7 (its runs, its shape, its CPU phases)."""
    return table in ("tree", "tree-shape") or (table == "cpu" and variant in ("setup3", "tree"))


class TreeTable:
    """Table 7, alone too (bench/run --only-tree)."""

    TREE_HEADING = "## 7. Call trees (`--tree`): cost per call (VM)"
    TREE_IDLE_MAX = 1.3     # an inner call outside a session, ÷ a filtered-out call
    TREE_EVENTS_MAX = 1.0   # a whole error tree, ÷ the same calls as events

    def tree(self):
        res = self.res
        if not (res.has_table("tree") or res.has_table("tree-shape")):
            if res.m("tree_rc", "skipped") not in ("skipped", "0", ""):
                self.w(self.TREE_HEADING)
                self.w()
                self.w("Not measured: the VM run did not produce results (`tests/vm/run` status %s)."
                       % res.m("tree_rc"))
                self.w()
            return
        m = res.m
        self.w(self.TREE_HEADING)
        self.w()
        if m("only") == "tree":
            elapsed = (res.mnum("t_end") - res.mnum("t_start")) / 60
            self.w(f"""Measured on its own by `bench/run --only-tree` ({m("run_date")}, {elapsed:.1f}
minutes, {m("vm_rounds")} rounds in the VM{", --quick sizes" if m("quick") == "1" else ""}; ksnoop {m("ks_ver")},
sha256 {m("ks_sha")}, tree at commit {m("commit")}), not in the run the header describes;
qemu with {"a host thread per vCPU (`thread=multi`)" if m("tree_tcg", "multi") == "multi" else "both vCPUs in one host thread (`thread=single`)"}, as table 1.
""")
        dirs = m("tree_dirs", "16")
        self.w(f"""Two questions of issue #28, in the VM (Debian's 6.1, TCG), fentry mode,
the tracer's output on `/dev/null`, interleaved rounds, every traced run
after an untraced run of its own loop (added cost against that neighbour):

- **An inner function called outside any session** (the per-task check
  every inner program makes first) against **today's filtered-out call**
  (an entry predicate that never holds), on table 1's loop
  (`ksb-loop open {m("open_n")}`, one `do_sys_openat2()` per iteration): `--tree`
  with a root the loop never calls (`do_mkdirat`) and `do_sys_openat2` as
  its inner function, so every call is an inner call outside a session.
  Target: at most {self.TREE_IDLE_MAX}× the filtered-out call's added cost.
- **A whole error tree against the same calls as today's events**:
  `ksb-loop openat {m("tree_n")} PATH`, where PATH is a missing file under {dirs}
  directories, so every `openat()` fails (ENOENT) and makes one tree of
  about 50 inner calls (counted below); the same specs without `--tree`
  print one event per call (`(return)`: the return record only), and
  with `-L 1ns` each event also carries its call's duration (the entry
  is timed too), which is what every call of a tree carries. All go
  through a 64 MiB buffer (`--buffer`), so that nothing is lost: a lost
  event costs the traced task less than a printed one. Target: the tree
  at most the added cost, per failing open, of the events that carry the
  same (return and duration).

Commands (in the VM; `ksb-loop` is `bench/loop.c`):
""")
        for v in ("untraced-open", "filtered", "inner-idle", "untraced-deep", "events", "events-timed", "tree"):
            if res.cmd("vm-tree-" + v):
                self.w("- %s: `%s`" % (v, res.cmd("vm-tree-" + v)))
        self.w()
        self.disturbance("tree")
        shape = next((r for r in res.of("tree-shape", "tree") if not r.failed), None)
        ncalls = shape.num("calls") if shape else None
        if shape:
            fns = ", ".join("%s %s" % (k[3:], v) for k, v in shape.fields.items() if k.startswith("fn_"))
            self.w("One tree, counted from `ksnoop -j -c ksb-loop --tree` (the loop's last failing "
                   "`openat()`): **%d inner calls** (%s), %d levels deep, %s not recorded; the root "
                   "returned %s. The same specs without `--tree` printed %s events per failing open "
                   "(the root's return among them)."
                   % (ncalls, fns, shape.num("depth"), shape.fields.get("not_recorded", "?"),
                      shape.fields.get("return", "?"), shape.fields.get("events_per_open", "?")))
            self.w()
        elif res.of("tree-shape", "tree"):
            self.w("The tree could not be counted: `%s`." % errors_of(res, "tree-shape", "tree"))
            self.w()

        def added(v):
            return med(padd(res, "tree", v))

        a_filt, a_idle = added("filtered"), added("inner-idle")
        a_ev, a_tree = added("events"), added("tree")
        a_evt = added("events-timed")
        a_ref = a_evt if a_evt is not None else a_ev
        t_idle = self.target_tree_idle(a_idle, a_filt, padd(res, "tree", "filtered"))
        if a_tree is None or a_ref is None:
            t_tree = "not measured"
        elif a_ref <= 0:
            t_tree = "cannot be judged: the events' added cost, %s ns, is not above the noise" % sgn(a_ref)
        elif a_tree <= a_ref * self.TREE_EVENTS_MAX:
            t_tree = "≤ 1× events with durations: **met** (%s×)" % ratio(a_tree, a_ref)
        else:
            t_tree = "≤ 1× events with durations: **missed** (%s×, %s %% over)" % (
                ratio(a_tree, a_ref), pct_over(a_tree, a_ref))

        def per_open(r):
            return r.num("printed") / r.num("iters")

        self.w("| variant | ns per call | added ns per call | ksnoop events printed / lost "
               "| printed per call | ratio (added) | target |")
        self.w("| --- | --- | --- | --- | --- | --- | --- |")
        rows = (("untraced-open", "untraced, `open`+`close` loop", DASH, DASH),
                ("filtered", "ksnoop, filtered out (`do_sys_openat2(dfd == 12345)`)", DASH, "reference"),
                ("inner-idle", "**ksnoop --tree**, inner `do_sys_openat2` outside any session",
                 "÷ filtered out: %s" % ratio(a_idle, a_filt), t_idle),
                ("untraced-deep", "untraced, failing deep `openat()` loop", DASH, DASH),
                ("events", "ksnoop, the same functions as events (one per call, the return only)", DASH, DASH),
                ("events-timed", "ksnoop, the same events with their durations (`-L 1ns`)", DASH, "reference"),
                ("tree", "**ksnoop --tree**, one error tree per failing `openat()`",
                 "÷ events with durations: %s; ÷ return-only events: %s" % (ratio(a_tree, a_evt), ratio(a_tree, a_ev)),
                 t_tree))
        for v, label, rt, target in rows:
            st = stat(res, "tree", v, "ns_per_iter")
            if not st:
                if res.of("tree", v):
                    self.w("| %s | failed: `%s` | | | | | %s |"
                           % (label, errors_of(res, "tree", v) or "no result", target))
                continue
            traced = not v.startswith("untraced")
            pl = pc = DASH
            if traced:
                pl = "%s / %s" % (intmed(stat(res, "tree", v, "printed")), intmed(stat(res, "tree", v, "lost")))
                unprinted = stat(res, "tree", v, "unprinted")
                if unprinted and unprinted.max > 0:
                    pl += " (%s not printed)" % intmed(unprinted)
                pc = fmt(med(derived(res, "tree", v, per_open)), 2)
            self.w("| %s | %s | %s | %s | %s | %s | %s |"
                   % (label, cell(st), cell(padd(res, "tree", v)) if traced else DASH, pl, pc, rt, target))
        self.w()
        if ncalls and a_tree is not None and a_ev is not None:
            self.w("Per inner call of a failing open (%d calls): the tree adds %s ns, the events %s ns. "
                   "A tree is one record per call as well (each inner call's record waits in a BPF "
                   "map until the root returns, then goes to the ring buffer), plus the session's "
                   "own bookkeeping; the events variant prints every call (`printed per call` "
                   "above), the tree variant one tree per failing open, counted as one event."
                   % (ncalls, fmt(a_tree / ncalls), fmt(a_ev / ncalls)))
            self.w()
        self.loss_note("tree", ("events", "events-timed", "tree"))
        made = shape.num("events_per_open") if shape else 0
        printed = med(derived(res, "tree", "events", per_open))
        if made > 0 and printed is not None and printed < 0.95 * made:
            self.w("The events runs printed fewer events than the calls made (median %s per failing "
                   "open, of the %s one open makes), and none was lost: the reader was behind when "
                   "the loop ended, and ksnoop prints for at most a second after SIGINT, then counts "
                   "the rest as captured but not printed (`ksnoop/cmd/cmd_trace.c`, `finish_run()`). Every "
                   "one of them was written to the ring buffer while the loop ran, so the traced "
                   "task paid for all of them and the added cost stands; what the reader would have "
                   "spent on the rest is not in it.%s"
                   % (fmt(printed, 1), fmt(made),
                      " The trees were all printed." if (med(derived(res, "tree", "tree", per_open)) or 0)
                      >= 0.99 else ""))
            self.w()
        if a_tree is not None and a_ref is not None and a_ref > 0 and a_tree > a_ref:
            self.w("""Where a tree's calls cost more, from `bpf/ksnoop.bpf.c` (not measured
apart here): each inner call looks its task's session up at entry and
return (`tree_session()`, an LRU hash) and, in a session, reads the CPU's
preempt count (`in_task()`: two `bpf_probe_read_kernel()`); its record is
written into a preallocated `tree_buf` element (`bpf_map_update_elem()`
copies the element's size from `scratch`, then a lookup), and at the root's
return `tree_flush()` looks each up, copies it to the ring buffer and
deletes it. An event is one ring-buffer reservation of its own size.
Before `tree_buf` was preallocated (an element allocated and freed per
call), the same tree cost 7.9× the return-only events.
""")
        retsnoop = m("retsnoop", "")
        if retsnoop.startswith("deb "):
            self.w("retsnoop: Debian has a package (%s), but bench/run does not run it yet." % retsnoop[4:])
        else:
            checked = retsnoop or "bookworm"
            self.w(f"""retsnoop: not measured, it cannot be had here. Debian packages no
retsnoop (`apt-cache policy retsnoop` knows no such package; checked: {checked}), and building
it from source needs Rust crates (blazesym, which retsnoop links for its
symbolization) that cannot be fetched on this machine, so there is no
retsnoop row.""")
        self.w()
        if res.has("tree-sample"):
            self.w("One tree as ksnoop prints it (`ksnoop --tree '%s' ...`, the deep missing path):"
                   % "do_sys_openat2(return < 0)")
            self.w()
            self.w("```")
            for line in res.lines("tree-sample")[:80]:
                self.w(line)
            self.w("```")
            self.w()
        if res.has("tree-kernel"):
            self.w("The guest kernel reported trouble during this part; its first lines:")
            self.w()
            self.w("```")
            for line in res.lines("tree-kernel")[:40]:
                self.w(line)
            self.w("```")
            self.w()
        self.verdict("`--tree`: an inner call outside any session ≤ %s× a filtered-out call (fentry, VM)"
                     % self.TREE_IDLE_MAX,
                     "inner outside a session %s ns; filtered out %s ns" % (sgn(a_idle), sgn(a_filt)), t_idle)
        self.verdict("`--tree`: a whole error tree (%s calls) ≤ the same calls as today's events with durations "
                     "(fentry, VM)" % (fmt(ncalls) if ncalls else "~50"),
                     "tree %s ns; events with durations %s ns per failing open" % (sgn(a_tree), sgn(a_ref)), t_tree)

    def target_tree_idle(self, a, filt, filt_stats):
        """An inner call outside a session: at most TREE_IDLE_MAX times a
        filtered-out call's added cost."""
        limit = self.TREE_IDLE_MAX
        if a is None or filt is None:
            return "not measured"
        if filt <= 0 or filt_stats.min <= 0:
            return ("cannot be judged in the VM: the filtered-out call's added cost, %s ns, is not "
                    "above the run-to-run noise (inner outside a session: %s ns)" % (cell(filt_stats), sgn(a)))
        if a <= filt * limit:
            return "≤ %s× filtered out: **met** (%s×)" % (limit, ratio(a, filt))
        return ("≤ %s× filtered out: **missed** (%s×, %s %% over %s×)"
                % (limit, ratio(a, filt), pct_over(a, filt * limit), limit))

    def tree_only(self):
        """Table 7 alone, for splice_tree(): its section, its verdicts and
        its raw lines."""
        self.tree()
        raw = [r.line for r in self.res.runs if is_tree_run(r.table, r.variant)]
        return self.text(), self.verdicts, raw
