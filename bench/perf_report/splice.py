"""Data of one part alone (bench/run --only-tree, --only-track,
--only-arm64, --only-record, --only-session) spliced into an existing report: its
section, its rows of "Targets at a glance" and its raw results; and the
native tables of bench/run --only-native, with the other sections kept."""

import re

from .base import KEPT_MARK, KEPT_TEXT
from .t1_kfunc import KfuncTable, is_kfunc_run, is_kfunc_verdict
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


def splice_kfunc(old, section, verdicts, raw):
    """The report OLD with table 1 replaced by SECTION, the targets it
    decides replaced by VERDICTS and its raw results by RAW."""
    return splice_part(old, KfuncTable.KFUNC_HEADING, is_kfunc_verdict, is_kfunc_run,
                       section, verdicts, raw, before=("## 2. ", "## Targets at a glance", "## Raw results"))


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


# Rows of "Targets at a glance" an --only-native run does not measure: kept
# from the earlier run (the VM tables', table 6's info rows, table 8's).
NATIVE_KEEPS = ("VM", "`ksnoop info", "`--track", "`tcp_*`", "by hand")
# Parts of a native section an --only-native run does not write: table 5's
# start-up notes measured by hand and its VM rows, carried over from OLD
# (from the line starting with the first text up to the one starting with
# the second).
NATIVE_CARRY = {"5.": ("**Start-up cut", "Bulk USDT attach")}


def splice_native(old, new):
    """An --only-native report: NEW (the native tables of this run) with
    every section of OLD that NEW lacks (the VM tables) kept in its place
    under a line saying from which run it comes, the targets NEW does not
    judge kept, and OLD's raw results of the tables NEW lacks."""
    def sections(text):
        lines = text.split("\n")
        heads = [i for i, x in enumerate(lines) if x.startswith("## ") or x.startswith("### ")]
        top = lines[:heads[0]] if heads else lines
        parts = [(lines[h], lines[h:e]) for h, e in zip(heads, heads[1:] + [len(lines)])]
        return top, parts

    def key(heading):
        words = heading.split()
        return words[1] if len(words) > 1 and words[1][:1].isdigit() else heading

    old_top, old_parts = sections(old)
    top, new_parts = sections(new)
    when = next((x.split("(", 1)[1].split(",")[0] for x in old_top if x.startswith("Measured by `bench/run` (")),
                "an earlier run")
    ver = re.search(r"bpftrace (v[0-9]+(?:\.[0-9]+)*)", "\n".join(old_top))
    kept = ("*Not measured by this run (`bench/run --only-native`): kept as the run of %s measured "
            "it (bpftrace there: %s).*" % (when, ver.group(1) if ver else "see that run"))
    new_by = {key(h): body for h, body in new_parts
              if not any(x.startswith("Not measured in this run") for x in body)}
    old_keys = {key(h) for h, _ in old_parts}
    out, used = list(top), set()

    def put(k, body):
        used.add(k)
        out.extend(body)
        # sections of NEW the old report did not have go after the one before them in NEW
        keys = [key(h) for h, _ in new_parts]
        for nk in keys[keys.index(k) + 1:] if k in keys else []:
            if nk in old_keys or nk in used or nk not in new_by:
                break
            used.add(nk)
            out.extend(new_by[nk])

    for heading, body in old_parts:
        k = key(heading)
        if k in used:
            continue
        if k in new_by:
            new_body = new_by[k]
            if k.startswith("## Targets"):
                new_body = merge_targets(new_body, old_parts, KEPT_TEXT + "run of %s, bpftrace %s"
                                         % (when, ver.group(1) if ver else "of that run"))
            elif k.startswith("## Raw"):
                new_body = merge_raw(new_body, body)
            elif k in NATIVE_CARRY:
                new_body = carry(new_body, body, NATIVE_CARRY[k], kept)
            put(k, new_body)
        else:
            put(k, body[:1] + ["", kept] + body[1:])
    for heading, body in new_parts:
        if key(heading) not in used and key(heading) in new_by:
            out += body
    return "\n".join(out)


def carry(new, old, marks, kept):
    """NEW with OLD's lines from the one starting with MARKS[0] up to the
    one starting with MARKS[1] inserted before NEW's line starting with
    MARKS[1], KEPT said before them."""
    first = next((i for i, x in enumerate(old) if x.startswith(marks[0])), None)
    stop = next((i for i, x in enumerate(old) if x.startswith(marks[1])), None)
    at = next((i for i, x in enumerate(new) if x.startswith(marks[1])), len(new))
    if first is None or stop is None or stop <= first:
        return new
    return new[:at] + [kept, ""] + old[first:stop] + new[at:]


def merge_targets(body, old_parts, kept):
    """NEW's rows of the targets, then OLD's rows of what it did not
    measure, each marked KEPT (from which run).  A row OLD had kept from
    an earlier run keeps its own mark, which names the run that measured
    it; rows are matched by their target, without the mark."""
    def target(row):
        return row.split(" | ")[0].split(KEPT_MARK)[0]

    def mark(row):
        return row if KEPT_MARK in row.split(" | ")[0] else row.replace(" | ", " (%s) | " % kept, 1)

    old = next((b for h, b in old_parts if h.startswith("## Targets")), [])
    have = {target(x) for x in body if x.startswith("| ")}
    keep = [mark(x) for x in old
            if x.startswith("| ") and target(x) not in have
            and any(m in target(x) for m in NATIVE_KEEPS)]
    last = max((i for i, x in enumerate(body) if x.startswith("|")), default=len(body) - 1)
    return body[:last + 1] + keep + body[last + 1:]


def merge_raw(body, old):
    def runs(lines):
        start = next((i for i, x in enumerate(lines) if x.startswith("```")), None)
        stop = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("```")), None) \
            if start is not None else None
        return start, stop
    s, e = runs(body)
    os_, oe = runs(old)
    if None in (s, e, os_, oe):
        return body
    tables = {x.split()[0] for x in body[s + 1:e] if x.split()}
    kept = [x for x in old[os_ + 1:oe] if x.split() and x.split()[0] not in tables]
    return body[:e] + kept + body[e:]
