"""Markdown summaries of a certification and of a comparison, for a CI page.

A vendor's pipeline shows what a run found on the page of the run itself: GitHub Actions
renders the Markdown a step appends to `$GITHUB_STEP_SUMMARY`, and a GitLab job keeps a
Markdown file as an artifact (docs/ci.md). `chcert certify --summary-md FILE` and
`chcert diff --summary-md FILE` append one here; the file is appended to because
GitHub's is shared by the steps of a job.

The renderers are pure: a certification's summary reads only the run's `Results`
(harness/results/model.py, what results.json holds, docs/results.md), a comparison's only the
`ResultsDiff` of harness/diff/compare.py, which knows no renderer. Reasons are put in
words by harness/report/words.py, as in the report; a stub written when the test runner
stopped, or a file of an older chcert, reads as a `Results` with its sections absent.

Text that comes from the run (messages, reasons, names, commands) is never trusted to be
Markdown: it is escaped, so a `|` cannot split a table cell, a `*` cannot start emphasis,
a `<` cannot open HTML, and a backtick in a command cannot end its code span early.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.diff.compare import FailureRef, ResultsDiff, Run, StatusChange, listed_changes
from harness.diff.text import value_line
from harness.report.words import (
    close_text,
    plan_line,
    reason_text,
    table_summary,
    variation_summary,
    why_text,
)
from harness.results.model import Failure, Gap, Reason, Results
from harness.results.outcomes import Status

SHOWN = 20  # failures, gaps, reasons and changes listed; results.json and the PDF hold all
MESSAGE_WIDTH = 300  # a message longer than this is cut in a table cell

# Characters that would mean something where run text lands (inline, on one line, or in
# a table cell): each is backslash-escaped, as CommonMark allows for any ASCII
# punctuation. `[` opens a link or an image (`]` alone is literal), `<` HTML or an
# autolink, `|` a table cell, `$` GitHub's math, `&` an entity; `#`, `>`, `-` and digits
# mean something only at the start of a line, where run text never is.
SPECIAL = frozenset("\\`*_[<|~&$")

VERDICT_LINES = {
    "PASS": "Certified: every applicable clause passed or was attested (docs/verdict.md).",
    "FAIL": "Not certified: something failed (docs/verdict.md).",
    "INCOMPLETE": "Not certified: something applicable was not tested (docs/verdict.md).",
}


# ---------------------------------------------------------------------------- escaping


def escape(text: object) -> str:
    """Run text as literal Markdown on one line: specials escaped, line breaks spaces."""
    line = " ".join(str(text).split())
    return "".join("\\" + ch if ch in SPECIAL else ch for ch in line)


def code(text: object, in_table: bool = False) -> str:
    """A code span holding `text` literally: its fence is one backtick longer than the
    longest run of backticks inside, padded with a space when the text starts or ends
    with one (CommonMark strips the padding). In a table cell a `|` is escaped even in a
    code span (GitHub's table rule), else it would end the cell."""
    line = " ".join(str(text).split())
    if not line:
        return ""
    longest = run = 0
    for ch in line:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    padded = f" {line} " if line.startswith("`") or line.endswith("`") else line
    if in_table:
        padded = padded.replace("|", "\\|")
    return f"{fence}{padded}{fence}"


def cut(text: object, width: int = MESSAGE_WIDTH) -> str:
    """A long message shortened for a cell: results.json and the report hold it whole."""
    line = " ".join(str(text).split())
    return line if len(line) <= width else line[: width - 3] + "..."


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A GitHub table of cells already escaped (escape, code)."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell or " " for cell in row) + " |" for row in rows]
    return lines


def value(data: object) -> str:
    """A scalar of results.json as a cell: counts with thousands separators, booleans as
    yes/no, a list of scalars joined, anything nested as compact JSON in a code span."""
    if data is None:
        return "-"
    if isinstance(data, bool):
        return "yes" if data else "no"
    if isinstance(data, int):
        return f"{data:,}"
    if isinstance(data, float):
        return f"{data:.6g}"
    if isinstance(data, str):
        return escape(cut(data))
    if isinstance(data, list) and all(_scalar(x) for x in data):
        return ", ".join(value(x) for x in data)
    return code(cut(json.dumps(data, sort_keys=True, default=str)), in_table=True)


# ---------------------------------------------------------------------------- certify


def certify_markdown(results: Results | Mapping[str, Any]) -> str:
    """A certification's summary: the verdict as a heading, the two verdicts and the run's
    settings, clause and vector counts, the failures (each with how to reproduce it),
    why the run is incomplete and what was not tested, and the sample sizes. A parsed
    results.json is read first."""
    if not isinstance(results, Results):
        results = Results.from_json(results)
    lines = [f"## chcert certify: {escape(results.verdict)}", ""]
    lines += [VERDICT_LINES[results.verdict], ""]
    lines += table(["", ""], _settings(results))
    lines += ["", *_counts(results)]
    lines += _failures(results.failures)
    lines += _incomplete(results.incomplete_reasons)
    lines += _gaps(results.gaps)
    lines += _samples(results)
    return "\n".join(lines) + "\n"


def _settings(results: Results) -> Iterator[list[str]]:
    manifest = results.manifest
    version = manifest.harness_version if manifest else ""
    rows: list[tuple[str, str]] = [
        ("implementation", escape(results.implementation_verdict)),
        ("published figures", escape(results.publication_verdict)),
        ("profile", escape(results.profile.name or "-")),
        *_variation(results),
        *_table(results),
        ("adapter", code(results.adapter or "-", in_table=True)),
        ("seed", value(manifest.seed if manifest else None)),
        ("chcert", escape(version or "-")),
    ]
    if manifest and manifest.report_id:
        rows.append(("report", escape(manifest.report_id)))
    if manifest and manifest.plan is not None:
        rows.append(("run plan", escape(plan_line(manifest.plan))))
    if results.selection is not None:
        shown = " ".join(f"{k} {v}" for k, v in results.selection.expressions.items()) or "paths"
        rows.append(("selection", f"{code(shown, in_table=True)}: never a certificate"))
    for label, cell in rows:
        yield [f"**{label}**", cell]


def _variation(results: Results) -> list[tuple[str, str]]:
    """An approved variation's row (none for a bundled profile, or an older file)."""
    line = variation_summary(results.profile)
    return [("variation", escape(cut(line, 1000)))] if line else []


def _table(results: Results) -> list[tuple[str, str]]:
    """The table the game declared and the stakes played at it (schema 6 on)."""
    line = table_summary(results.table)
    return [("table", escape(cut(line)))] if line else []


def _counts(results: Results) -> list[str]:
    status = Counter(c.status for c in results.clauses)
    v = results.vectors
    return [
        f"**Clauses:** {len(results.clauses)}: {status[Status.PASS]} passed, "
        f"{status[Status.FAIL]} failed, {status[Status.NOT_TESTED]} not tested, "
        f"{status[Status.ATTESTED]} attested",
        "",
        f"**Vectors:** {v.total:,}: {v.passed:,} passed, {v.failed:,} failed, "
        f"{v.errors:,} errors, {v.not_tested:,} not tested",
    ]


def _failures(failures: list[Failure]) -> list[str]:
    if not failures:
        return []
    rows = (
        [
            escape(f.clause or "-"),
            code(f.item or "-", in_table=True),
            escape(f.kind),
            escape(cut(f.message)),
            code(f.reproduce, in_table=True),
        ]
        for f in failures[:SHOWN]
    )
    lines = ["", f"### Failures ({len(failures)})", ""]
    lines += table(["clause", "item", "kind", "message", "reproduce"], rows)
    return lines + _more(len(failures), "failures")


def _incomplete(reasons: list[Reason]) -> list[str]:
    said = [text for text in map(reason_text, reasons) if text]
    if not said:
        return []
    lines = ["", "### Why it is incomplete", ""]
    lines += [f"- {escape(cut(text))}" for text in said[:SHOWN]]
    return lines + _more(len(said), "reasons")


def _gaps(gaps: list[Gap]) -> list[str]:
    """Each clause not tested: why, as the report says it, and every way to close it."""
    if not gaps:
        return []
    rows = (
        [
            escape(g.clause or "-"),
            escape(cut(g.title)),
            escape(cut("; ".join(map(why_text, g.why)), 200)),
            escape(close_text(g.to_close)),
        ]
        for g in gaps[:SHOWN]
    )
    lines = ["", f"### Not tested ({len(gaps)})", ""]
    lines += table(["clause", "title", "why", "to close"], rows)
    return lines + _more(len(gaps), "clauses not tested")


def _samples(results: Results) -> list[str]:
    """The samples the verdict rests on, each against the certificate's minimum
    (results.json `evidence`, docs/verdict.md#evidence), and the seed that drew them: a
    reader judges a PASS by its sample sizes as much as by its verdict."""
    evidence = results.evidence
    if evidence is None or not evidence.samples:
        return []
    rows = [
        [
            escape(s.what or "?"),
            value(s.size),
            value(s.minimum),
            "met" if s.met and s.judged else "**below**" if s.judged else "not run",
        ]
        for s in evidence.samples
    ]
    seed = results.manifest.seed if results.manifest else None
    drawn = f", drawn from seed {value(seed)}" if seed is not None else ""
    source = escape(evidence.minimums.source)
    lines = ["", f"### Sample sizes{drawn}", ""]
    lines += table(["sample", "size", "minimum", ""], rows)
    return [*lines, "", f"Minimums from {source}."]


# ---------------------------------------------------------------------------- diff


def diff_markdown(d: ResultsDiff, old_name: str = "OLD", new_name: str = "NEW") -> str:
    """A comparison's summary: the one-line verdict as a heading, both runs side by side,
    warnings and notes, then the regressions, the fixes and the other changes, listed as
    `chcert diff` lists them (harness/diff/compare.py listed_changes: an item its clause's
    line or its failure's line already says is not listed again)."""
    groups = _groups(d)
    if d.regressed:
        verdict = f"REGRESSED: {len(groups['regression'])} regression(s)"
    elif d.changed:
        verdict = "no regression"
    else:
        verdict = "no change"
    lines = [f"## chcert diff: {verdict}", ""]
    lines += [f"OLD {code(old_name)} -> NEW {code(new_name)}", ""]
    lines += table(["", "OLD", "NEW"], _runs(d))
    said = [f"> **WARNING:** {escape(m)} (compared all the same)" for m in d.mismatches]
    said += [f"- note: {escape(n)}" for n in d.notes]
    lines += ["", *said] if said else []
    headings = {"regression": "Regressions", "improvement": "Fixed", "other": "Other changes"}
    for key, entries in groups.items():
        if entries:
            lines += ["", f"### {headings[key]} ({len(entries)})", ""]
            lines += entries[:SHOWN] + _more(len(entries), "changes")
    u = d.unchanged
    lines += ["", f"Unchanged: {u.clauses} clauses, {u.items} items, {u.figures} figures"]
    return "\n".join(lines) + "\n"


def _runs(d: ResultsDiff) -> Iterator[list[str]]:
    verdicts = {v.name: (v.old, v.new) for v in d.verdicts}
    labels = {"implementation_verdict": "implementation", "publication_verdict": "figures"}
    for name, (old, new) in verdicts.items():
        yield [f"**{labels.get(name, name)}**", escape(old or "-"), escape(new or "-")]
    yield ["**profile**", escape(_profile(d.old)), escape(_profile(d.new))]
    yield [
        "**adapter**",
        code(d.old.adapter or "-", in_table=True),
        code(d.new.adapter or "-", in_table=True),
    ]
    yield ["**seed**", value(d.old.seed), value(d.new.seed)]
    yield ["**chcert**", escape(d.old.harness_version or "-"), escape(d.new.harness_version or "-")]


def _profile(run: Run) -> str:
    """A run's profile, and the one it varies when it is an approved variation."""
    return f"{run.profile or '-'}" + (f" (a variation of {run.extends})" if run.extends else "")


def _groups(d: ResultsDiff) -> dict[str, list[str]]:
    """Each change as a Markdown list entry, by direction."""
    shown, counts = listed_changes(d)
    groups: dict[str, list[str]] = {"regression": [], "improvement": [], "other": []}
    for v in d.verdicts:
        if v.direction != "unchanged":
            groups[v.direction].append(f"- {escape(v.name)} {escape(v.old)} -> {escape(v.new)}")
    for c in shown:
        groups[c.direction].append(_change(c, counts[c.key] if c.kind == "clause" else 0))
    groups["regression"] += [_failure("new failure", f, reproduce=True) for f in d.new_failures]
    groups["improvement"] += [_failure("fixed", f) for f in d.fixed_failures]
    groups["other"] += [_failure("gone but not passing", f) for f in d.dropped_failures]
    if d.vectors.changed:
        keys = dict.fromkeys([*d.vectors.old, *d.vectors.new])
        parts = [
            f"{k} {d.vectors.old.get(k, '-')} -> {d.vectors.new.get(k, '-')}"
            for k in keys
            if d.vectors.old.get(k) != d.vectors.new.get(k)
        ]
        groups["other"].append("- vectors: " + escape(", ".join(parts)))
    for e in d.evidence:
        less = "less evidence" if e.direction == "regression" else "more evidence"
        groups[e.direction].append(f"- {less}: {escape(e.what)} {value(e.old)} -> {value(e.new)}")
    groups["other"] += [f"- {escape(value_line(v))}" for v in d.values]
    return groups


def _change(c: StatusChange, folded: int) -> str:
    name = code(c.key)
    if c.kind == "item" and c.clause and not c.key.startswith(c.clause + "/"):
        name = f"{code(c.clause)}: {code(c.key)}"
    line = f"- {c.kind} {name}"
    if c.kind == "clause" and c.title:
        line += f" ({escape(c.title)})"
    line += f": {_status(c.old)} -> {_status(c.new)}"
    if folded:
        line += f", and {folded} of its items likewise"
    return line + (f" ({escape(cut(c.detail))})" if c.detail else "")


def _failure(label: str, f: FailureRef, reproduce: bool = False) -> str:
    named = f.clause is None or f.item.startswith(f.clause + "/")
    item = code(f.item) if named else f"{code(f.clause)}: {code(f.item)}"
    line = f"- {label} {item}: {escape(cut(f.message))}"
    if reproduce and f.reproduce:
        line += f"\n  - reproduce: {code(f.reproduce)}"
    return line


def _status(status: str | None) -> str:
    return "(absent)" if status is None else escape(status)


# ---------------------------------------------------------------------------- the file


def append_markdown(path: Path, text: str) -> bool:
    """Append a summary to `path`, created if missing, after a blank line when it holds
    others (GitHub's step summary is shared by a job's steps). A file that fails now,
    after the check before the run, costs a line on stderr, never the run's verdict."""
    try:
        follows = path.is_file() and path.stat().st_size > 0
        with path.open("a", encoding="utf-8") as fh:
            fh.write("\n" + text if follows else text)
    except OSError as exc:
        print(f"chcert: --summary-md {path}: not written ({exc})", file=sys.stderr)
        return False
    return True


# ---------------------------------------------------------------------------- reading


def _more(total: int, what: str, shown: int = SHOWN) -> list[str]:
    if total <= shown:
        return []
    return ["", f"... and {total - shown} more {what} (results.json and report.pdf hold all)"]


def _scalar(data: Any) -> bool:
    return data is None or isinstance(data, str | int | float | bool)
