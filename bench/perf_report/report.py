"""The report: every part, in order (each table its own module), and
write_report(), which writes it or splices one part into an existing one."""

import os

from .base import ReportBase
from .data import Results
from .header import HeaderPart
from .splice import (splice_arm64, splice_kfunc, splice_native, splice_record, splice_session, splice_track,
                     splice_tree)
from .summary import SummaryParts
from .t1_kfunc import KfuncTable
from .t2_usdt import UsdtTable
from .t3_tracepoint import TracepointTables
from .t4_throughput import ThroughputTable
from .t4b_record import RecordTable
from .t5_startup import StartupTable
from .t6_globs import GlobsTable
from .t7_tree import TreeTable
from .t8_track import TrackTable
from .t9_arm64 import Arm64Table
from .t10_session import SessionTable
from .t11_ufunc import UfuncTable
from .t12_syscalls import SyscallsTable


class Report(ReportBase, HeaderPart, KfuncTable, UsdtTable, TracepointTables, ThroughputTable,
             RecordTable, StartupTable, GlobsTable, TreeTable, TrackTable, Arm64Table, SessionTable,
             UfuncTable, SyscallsTable, SummaryParts):
    """docs/PERFORMANCE.md of one Results: the parts write into one list of
    lines, and some read what an earlier one found (self.f_ks ...)."""

    def write(self):
        self.header()
        self.kfunc()
        self.usdt()
        self.tracepoint()
        self.tracepoint_filtered()
        self.aggregation()
        self.prog_cost()
        self.syscall_pair()
        self.pfilter_cost()
        self.throughput()
        self.recording()
        self.startup()
        self.light_skeleton()
        self.globs()
        self.tree()
        self.track()
        self.arm64()
        self.session()
        self.ufunc()
        self.syscalls_all()
        self.trouble()
        self.targets()
        self.profiles()
        self.findings_part()
        self.raw()
        return self.text()


def write_report(data, out):
    """Write the report of DATA (BenchData) to the file OUT; data of
    bench/run --only-kfunc replaces table 1 of an existing OUT in place,
    --only-tree table 7,
    --only-arm64 table 9, --only-record table 4b, --only-session table 10."""
    if data.meta.get("only") == "kfunc" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_kfunc(f.read(), *Report(Results(data)).kfunc_only())
    elif data.meta.get("only") == "tree" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_tree(f.read(), *Report(Results(data)).tree_only())
    elif data.meta.get("only") == "arm64" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_arm64(f.read(), *Report(Results(data)).arm64_only())
    elif data.meta.get("only") == "track" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_track(f.read(), *Report(Results(data)).track_only())
    elif data.meta.get("only") == "record" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_record(f.read(), *Report(Results(data)).recording_only())
    elif data.meta.get("only") == "session" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_session(f.read(), *Report(Results(data)).session_only())
    elif data.meta.get("only") == "native" and os.path.isfile(out):
        with open(out, encoding="utf-8") as f:
            text = splice_native(f.read(), Report(Results(data)).write())
    else:
        text = Report(Results(data)).write()
    with open(out + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(out + ".tmp", out)
