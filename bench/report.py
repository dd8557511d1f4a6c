#!/usr/bin/python3
"""bench/report.py: docs/PERFORMANCE.md from the raw results of bench/run.

    bench/report.py WORKDIR [--out FILE]

bench/run measures and writes raw numbers into WORKDIR; this computes the
statistics (medians, min-max, added cost per round, ratios, targets) and
writes the report, prose included. Python 3 standard library only.

What WORKDIR holds: bench.json (written by bench/run), one object:

    runs       one per run: {"table", "variant", "round", "fields"}, the
               fields as the programs printed them (key=value words, kept
               as text); table "cpu", variant PHASE: CPU ticks while a part ran
    commands   KEY -> each command line as run
    meta       KEY -> the machine, versions, sizes, times
    features   "ksnoop-usdt" -> true or false
    listings   NAME -> lines:
               samples   TRACER LINE: what each tracer printed for one open()
               kernel, hangs, waits
                         guest kernel trouble, tracers that ignored SIGINT,
                         waits for an earlier tracer (from the VM part)
               prof.filt, prof.startup, prof.small, prof.large
                         perf report listings
               tree-sample, tree-kernel
                         one --tree tree as ksnoop prints it, guest
                         kernel trouble (table 7's boot)
               arm64-info
                         "arm64 MACHINE bpftrace VERSION" from the arm64 guest
               track-verbose, track-kernel
                         ksnoop -v on the skb glob, guest kernel
                         trouble (table 8's boot)

bench/run hands the same data to write_report() directly. A directory kept
by the shell bench/run before it (results, commands, meta, features and
one file per listing) is read too.

A missing table or listing leaves its part of the report out, as bench/run's
--no-vm, --no-native and --no-profile do. Data of bench/run --only-tree
(meta "only" = "tree") replaces table 7, its rows in "Targets at a glance"
and its raw results in an existing report, and leaves the rest as it was;
data of bench/run --only-arm64 (meta "only" = "arm64") does the same for
table 9.
data of --only-track (meta "only" = "track") does the same for table 8.
table 9, and of bench/run --only-record (meta "only" = "record") for
table 4b. Data of bench/run --only-native (meta "only" = "native")
replaces the native tables and their targets, and keeps every section it
did not measure (the VM tables), each marked as kept from the earlier run.
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in bench/ (tests/live/05-docs maps every file)

import argparse  # noqa: E402

from perf_report import BenchData, Run, parse_fields, write_report  # noqa: E402

# What bench/run, session.py, vm.py and native.py import from here.
__all__ = ["BenchData", "Run", "parse_fields", "write_report"]


def main():
    parser = argparse.ArgumentParser(description="Write docs/PERFORMANCE.md from bench/run's raw results.")
    parser.add_argument("workdir", help="the directory bench/run measured into (--keep keeps it)")
    parser.add_argument("--out", default="docs/PERFORMANCE.md", help="the report (default: %(default)s)")
    args = parser.parse_args()
    data = BenchData.load(args.workdir)
    if data is None:
        sys.exit("bench/report.py: %s has no %s (a directory kept by bench/run --keep?)"
                 % (args.workdir, BenchData.FILE))
    write_report(data, args.out)


if __name__ == "__main__":
    main()
