"""`chcert diff` for a person: the comparison (compare.py) as lines of text."""

from __future__ import annotations

from harness.diff.compare import (
    FailureRef,
    ResultsDiff,
    Run,
    StatusChange,
    ValueChange,
    VectorCounts,
    listed_changes,
)

DETAIL_WIDTH = 110  # messages on screen are cut; --json and results.json hold them whole


def format_diff(d: ResultsDiff, old_name: str = "OLD", new_name: str = "NEW") -> str:
    """The diff for a person: settings and verdicts, then Regressions, Fixed, Other
    changes and what is unchanged. An item is not listed on its own when its clause's
    line says it (it changed exactly as the clause did: a clause and its items all
    pass -> not_tested) or when its new failure is listed, with the reproduce command."""
    lines = [f"chcert diff: OLD {old_name} -> NEW {new_name}"]
    lines += [f"  {label}: {_describe(run)}" for label, run in (("OLD", d.old), ("NEW", d.new))]
    lines += [f"WARNING: {m} (compared all the same)" for m in d.mismatches]
    lines += [f"note: {n}" for n in d.notes]
    for v in d.verdicts:
        change = f"{v.old} (unchanged)" if v.direction == "unchanged" else f"{v.old} -> {v.new}"
        lines.append(f"  {v.name + ':':<24}{change}")
    shown, counts = listed_changes(d)
    groups: dict[str, list[str]] = {"regression": [], "improvement": [], "other": []}
    for v in d.verdicts:
        if v.direction != "unchanged":
            groups[v.direction].append(f"{v.name} {v.old} -> {v.new}")
    for c in shown:
        groups[c.direction].append(_change_line(c, counts[c.key] if c.kind == "clause" else 0))
    groups["regression"] += [_failure_line("new failure", f, True) for f in d.new_failures]
    groups["improvement"] += [_failure_line("fixed", f) for f in d.fixed_failures]
    groups["other"] += [_failure_line("gone but not passing", f) for f in d.dropped_failures]
    if d.vectors.changed:
        groups["other"].append(_vectors_line(d.vectors))
    for e in d.evidence:
        less = "less evidence" if e.direction == "regression" else "more evidence"
        groups[e.direction].append(f"{less}: {e.what} {e.old:,} -> {e.new:,}")
    groups["other"] += [value_line(v) for v in d.values]

    lines.append("")
    if d.regressed:
        lines.append(f"REGRESSED: {len(groups['regression'])} regression(s) below")
    elif d.changed:
        lines.append("no regression")
    else:
        lines.append("no change: the same verdicts, clauses, items, failures and figures")
    headings = {"regression": "Regressions", "improvement": "Fixed", "other": "Other changes"}
    for key, heading in headings.items():
        if groups[key]:
            lines += ["", f"{heading} ({len(groups[key])}):", *(f"  {e}" for e in groups[key])]
    u = d.unchanged
    lines += ["", f"Unchanged: {u.clauses} clauses, {u.items} items, {u.figures} figures"]
    return "\n".join(lines) + "\n"


def value_line(v: ValueChange) -> str:
    """A value that moved, exactly as results.json holds it: "profile
    ante_pay_table.straight_flush: 20 -> 49", "house edge (exact): 0.0215... -> 0.0035...",
    "figure claimed:house_edge: claimed 0.0216 -> 0.0035"."""
    change = f"{value_text(v.old)} -> {value_text(v.new)}"
    if v.kind == "profile":
        return f"profile {v.what}: {change}"
    if v.kind == "figure":
        return f"figure {v.key}: {v.what} {change}"
    return f"{v.what}: {change}"


def value_text(value: object) -> str:
    """A value in full (a float by its shortest exact spelling), "(absent)" for none."""
    return "(absent)" if value is None else repr(value) if isinstance(value, float) else str(value)


def _describe(run: Run) -> str:
    variation = f" (a variation of {run.extends})" if run.extends else ""
    parts = [
        run.verdict,
        f"profile {run.profile}{variation}",
        f"adapter {run.adapter}",
        f"seed {run.seed}",
        f"chcert {run.harness_version}",
    ]
    if run.started:
        parts.append(f"started {run.started}")
    return ", ".join(parts)


def _change_line(c: StatusChange, folded: int) -> str:
    if c.kind == "item" and c.clause and not c.key.startswith(c.clause + "/"):
        line = f"item {c.clause}: {c.key}"
    else:
        line = f"{c.kind} {c.key}"
    if c.kind == "clause" and c.title:
        line += f" ({c.title})"
    line += f": {_status(c.old)} -> {_status(c.new)}"
    if folded:
        line += f", and {folded} of its items likewise"
    return line + (f" ({_cut(c.detail)})" if c.detail else "")


def _failure_line(label: str, f: FailureRef, reproduce: bool = False) -> str:
    named = f.clause is None or f.item.startswith(f.clause + "/")
    line = f"{label} {f.item if named else f'{f.clause}: {f.item}'}: {_cut(f.message)}"
    return line + (f"\n      reproduce: {f.reproduce}" if reproduce and f.reproduce else "")


def _vectors_line(v: VectorCounts) -> str:
    """The counts that differ: each run holds every count, in one order (a stub zeros)."""
    parts = [f"{k} {count} -> {v.new[k]}" for k, count in v.old.items() if count != v.new[k]]
    return "vectors: " + ", ".join(parts)


def _status(status: str | None) -> str:
    return "(absent)" if status is None else status


def _cut(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= DETAIL_WIDTH else line[: DETAIL_WIDTH - 3] + "..."
