"""Data of one part alone (bench/run --only-tree, --only-track,
--only-arm64, --only-record, --only-session) spliced into an existing report: its
section, its rows of "Targets at a glance" and its raw results."""

from .t4b_record import RecordTable, is_record_run
from .t7_tree import TreeTable, is_tree_run
from .t8_track import TrackTable, is_track_run
from .t9_arm64 import Arm64Table, is_arm64_run
from .t10_session import SessionTable, is_session_run


def splice_track(old, section, verdicts, raw):
    """The report OLD with table 8 replaced by SECTION (inserted before
    "Targets at a glance" if it had none), its "`--track`" rows of the
    targets replaced by VERDICTS and its raw results by RAW."""
    return splice_part(old, TrackTable.TRACK_HEADING, lambda x: x.startswith("| `--track"), is_track_run,
                       section, verdicts, raw)


def splice_tree(old, section, verdicts, raw):
    """The report OLD with table 7 replaced by SECTION (inserted before
    "Targets at a glance" if it had none), its "`--tree`" rows of the
    targets replaced by VERDICTS and its raw results by RAW."""
    return splice_part(old, TreeTable.TREE_HEADING, lambda x: x.startswith("| `--tree`"), is_tree_run,
                       section, verdicts, raw)


def splice_part(old, heading, is_verdict, is_run, section, verdicts, raw,
                before=("## Targets at a glance", "## Raw results")):
    """The report OLD with the part under HEADING replaced by SECTION
    (inserted before "Targets at a glance" if it had none), its rows of the
    targets that start with VERDICT_PREFIX replaced by VERDICTS, and its raw
    results that IS_RUN(table, variant) selects by RAW."""
    lines = old.split("\n")

    def find(prefix, start=0):
        return next((i for i in range(start, len(lines)) if lines[i].startswith(prefix)), None)

    begin = find(heading)
    if begin is None:
        begin = end = next((i for i in map(find, before) if i is not None), len(lines))
    else:
        end = find("## ", begin + 1) or len(lines)
    lines[begin:end] = section.rstrip("\n").split("\n") + [""]
    at = find("## Targets at a glance")
    if at is not None:
        lines = [x for i, x in enumerate(lines) if i <= at or not is_verdict(x)]
        last = at
        for i in range(at + 1, len(lines)):
            if lines[i].startswith("|"):
                last = i
            elif last > at:
                break
        lines[last + 1:last + 1] = verdicts
    at = find("## Raw results")
    if at is not None:
        start = find("```", at)
        stop = find("```", start + 1) if start is not None else None
        if stop is not None:
            kept = [x for x in lines[start + 1:stop]
                    if len(x.split()) < 2 or not is_run(*x.split()[:2])]
            lines[start + 1:stop] = kept + raw
    return "\n".join(lines)


ARM64_VERDICTS = ("(kprobe, arm64 VM)", "(arm64 VM)")


def ends_with(marks):
    """A target row whose first cell ends in one of MARKS."""
    return lambda x: x.startswith("|") and x.split(" | ")[0].endswith(marks)


def splice_arm64(old, section, verdicts, raw):
    """The report OLD with table 9 replaced by SECTION (inserted before
    "Targets at a glance" if it had none), its arm64 rows of the targets
    (those ending in "(arm64 VM)") replaced by VERDICTS and its raw
    results by RAW."""
    return splice_part(old, Arm64Table.ARM64_HEADING, ends_with(ARM64_VERDICTS), is_arm64_run,
                       section, verdicts, raw)


def splice_record(old, section, verdicts, raw):
    """The report OLD with table 4b replaced by SECTION (inserted before
    table 5, or "Targets at a glance", if it had none), its rows of the
    targets (those ending in RecordTable.RECORD_MARK) replaced by VERDICTS and
    its raw results by RAW."""
    return splice_part(old, RecordTable.RECORD_HEADING, ends_with(RecordTable.RECORD_MARK), is_record_run,
                       section, verdicts, raw,
                       before=("## 5. ", "## Targets at a glance", "## Raw results"))


def splice_session(old, section, verdicts, raw):
    """The report OLD with table 10 replaced by SECTION (inserted before
    "Targets at a glance" if it had none), its "kprobe.session:" rows of
    the targets replaced by VERDICTS and its raw results by RAW."""
    return splice_part(old, SessionTable.SESSION_HEADING, lambda x: x.startswith(SessionTable.SESSION_MARK),
                       is_session_run, section, verdicts, raw)
