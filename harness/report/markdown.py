"""Markdown summaries of a certification and of a comparison, for a CI page.

A vendor's pipeline shows what a run found on the page of the run itself: GitHub Actions
renders the Markdown a step appends to `$GITHUB_STEP_SUMMARY`, and a GitLab job keeps a
Markdown file as an artifact (docs/ci.md). `chcert certify --summary-md FILE` and
`chcert diff --summary-md FILE` append one here; the file is appended to because
GitHub's is shared by the steps of a job.

The renderers are pure: a certification's summary reads only the results dict (what
results.json holds, docs/results.md), a comparison's only the `ResultsDiff` of
harness/diff/compare.py, which knows no renderer. Every key is read with .get: a stub
written when the test runner stopped, a file of an older chcert, or a section another
version adds or reshapes still renders, with what it holds.

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

from harness.diff.compare import FailureRef, ResultsDiff, StatusChange, listed_changes
from harness.plan import plan_line

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


def certify_markdown(results: Mapping[str, Any]) -> str:
    """A certification's summary: the verdict as a heading, the two verdicts and the run's
    settings, clause and vector counts, the failures (each with how to reproduce it),
    why the run is incomplete and what was not tested, and the sample sizes."""
    verdict = str(results.get("verdict", "?"))
    lines = [f"## chcert certify: {escape(verdict)}", ""]
    if verdict in VERDICT_LINES:
        lines += [VERDICT_LINES[verdict], ""]
    lines += table(["", ""], _settings(results))
    lines += ["", *_counts(results)]
    lines += _failures(results)
    lines += _incomplete(results)
    lines += _gaps(results)
    lines += _samples(results)
    return "\n".join(lines) + "\n"


def _settings(results: Mapping[str, Any]) -> Iterator[list[str]]:
    manifest = _mapping(results.get("manifest"))
    profile = results.get("profile")
    name = profile.get("name") if isinstance(profile, dict) else profile
    rows: list[tuple[str, str]] = [
        ("implementation", escape(results.get("implementation_verdict", "?"))),
        ("published figures", escape(results.get("publication_verdict", "?"))),
        ("profile", escape(name) if name else "-"),
        ("adapter", code(results.get("adapter") or "-", in_table=True)),
        ("seed", value(manifest.get("seed"))),
        ("chcert", escape(manifest.get("harness_version") or "-")),
    ]
    if manifest.get("report_id"):
        rows.append(("report", escape(manifest["report_id"])))
    if isinstance(manifest.get("plan"), dict):
        rows.append(("run plan", escape(plan_line(manifest["plan"]))))
    selection = _mapping(results.get("selection"))
    if results.get("selection"):
        expressions = _mapping(selection.get("expressions"))
        shown = " ".join(f"{k} {v}" for k, v in expressions.items()) or "paths"
        rows.append(("selection", f"{code(shown, in_table=True)}: never a certificate"))
    for label, cell in rows:
        yield [f"**{label}**", cell]


def _counts(results: Mapping[str, Any]) -> list[str]:
    clauses = list(_dicts(results.get("clauses")))
    status = Counter(str(c.get("status")) for c in clauses)
    vectors = _mapping(results.get("vectors"))
    return [
        f"**Clauses:** {len(clauses)}: {status['pass']} passed, {status['fail']} failed, "
        f"{status['not_tested']} not tested, {status['attested']} attested",
        "",
        f"**Vectors:** {_int(vectors.get('total'))}: {_int(vectors.get('passed'))} passed, "
        f"{_int(vectors.get('failed'))} failed, {_int(vectors.get('errors'))} errors, "
        f"{_int(vectors.get('not_tested'))} not tested",
    ]


def _failures(results: Mapping[str, Any]) -> list[str]:
    failures = list(_dicts(results.get("failures")))
    if not failures:
        return []
    rows = (
        [
            escape(f.get("clause") or "-"),
            code(f.get("item") or "-", in_table=True),
            escape(f.get("kind") or "-"),
            escape(cut(f.get("message", ""))),
            code(f.get("reproduce") or "", in_table=True),
        ]
        for f in failures[:SHOWN]
    )
    lines = ["", f"### Failures ({len(failures)})", ""]
    lines += table(["clause", "item", "kind", "message", "reproduce"], rows)
    return lines + _more(len(failures), "failures")


def _incomplete(results: Mapping[str, Any]) -> list[str]:
    reasons = [r for r in _list(results.get("incomplete_reasons")) if r]
    if not reasons:
        return []
    lines = ["", "### Why it is incomplete", ""]
    lines += [f"- {escape(cut(r))}" for r in reasons[:SHOWN]]
    return lines + _more(len(reasons), "reasons")


def _gaps(results: Mapping[str, Any]) -> list[str]:
    gaps = list(_dicts(results.get("gaps")))
    if not gaps:
        return []
    rows = (
        [
            escape(g.get("clause") or "-"),
            escape(cut(g.get("title", ""))),
            escape(cut(g.get("why", ""), 200)),
            escape(", ".join(str(t) for t in _list(g.get("to_close")))),
        ]
        for g in gaps[:SHOWN]
    )
    lines = ["", f"### Not tested ({len(gaps)})", ""]
    lines += table(["clause", "title", "why", "to close"], rows)
    return lines + _more(len(gaps), "clauses not tested")


def _samples(results: Mapping[str, Any]) -> list[str]:
    """The samples the verdict rests on, each against the certificate's minimum
    (results.json `evidence`, docs/verdict.md#evidence), and the seed that drew them: a
    reader judges a PASS by its sample sizes as much as by its verdict."""
    evidence = _mapping(results.get("evidence"))
    rows = [
        [
            escape(s.get("what", "?")),
            value(s.get("size")),
            value(s.get("minimum")),
            "met"
            if s.get("met") and s.get("judged")
            else "**below**"
            if s.get("judged")
            else "not run",
        ]
        for s in _dicts(evidence.get("samples"))
    ]
    if not rows:
        return []
    seed = _mapping(results.get("manifest")).get("seed")
    drawn = f", drawn from seed {value(seed)}" if _number(seed) else ""
    source = escape(_mapping(evidence.get("minimums")).get("source", "not recorded"))
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
    yield ["**profile**", escape(d.old.profile or "-"), escape(d.new.profile or "-")]
    yield [
        "**adapter**",
        code(d.old.adapter or "-", in_table=True),
        code(d.new.adapter or "-", in_table=True),
    ]
    yield ["**seed**", value(d.old.seed), value(d.new.seed)]
    yield ["**chcert**", escape(d.old.harness_version or "-"), escape(d.new.harness_version or "-")]


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


def _dicts(data: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(data, list):
        yield from (entry for entry in data if isinstance(entry, Mapping))


def _list(data: Any) -> list[Any]:
    return data if isinstance(data, list) else []


def _mapping(data: Any) -> Mapping[str, Any]:
    return data if isinstance(data, Mapping) else {}


def _scalar(data: Any) -> bool:
    return data is None or isinstance(data, str | int | float | bool)


def _number(data: Any) -> bool:
    return isinstance(data, int | float) and not isinstance(data, bool)


def _int(data: Any) -> str:
    return f"{data:,}" if _number(data) else "0"
