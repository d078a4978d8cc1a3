"""`chcert vectors check | generate`: validate the catalogs and vectors; write the corpus."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from harness.cli.common import Parser


def register(sub: Any) -> None:
    vec = sub.add_parser("vectors", help="work with the vector sets")
    vec_sub = vec.add_subparsers(dest="vectors_command", required=True, parser_class=Parser)
    check = vec_sub.add_parser(
        "check", help="validate every catalog and vector file, the corpus too"
    )
    check.set_defaults(func=check_vectors)
    gen = vec_sub.add_parser(
        "generate", help="write the generated corpus, vectors/generated/ (docs/corpus.md)"
    )
    gen.add_argument(
        "--check",
        action="store_true",
        help="generate in memory and compare with the stored files; exit 1 if they differ",
    )
    gen.set_defaults(func=generate)


def generate(args: argparse.Namespace) -> int:
    """Write the generated corpus, or (--check) compare it with a fresh generation."""
    from harness.vectors.corpus import CorpusError, CorpusMismatch, generate_corpus

    started = time.perf_counter()

    def progress(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        summary = generate_corpus(check=args.check, progress=progress)
    except (CorpusError, CorpusMismatch) as exc:
        print(f"chcert: {exc}", file=sys.stderr)
        return 1
    for name, counts in summary["profiles"].items():
        clauses = ", ".join(f"{c} {n}" for c, n in counts["clauses"].items())
        print(f"  {name}: {counts['vectors']} vectors ({clauses})")
    verb = "reproduced exactly" if args.check else "written"
    print(
        f"{summary['vectors']} vectors {verb} ({summary['generator']}, seed {summary['seed']}) "
        f"in {time.perf_counter() - started:.0f} s"
    )
    return 0


def check_vectors(args: argparse.Namespace) -> int:
    """Validate every catalog and vector file; print the counts."""
    from harness._schema import check_schemas
    from harness.checks.coverage import check_coverage
    from harness.rules.catalogs import clause_index, load_catalogs
    from harness.vectors.corpus import CORPUS_DIR
    from harness.vectors.refusals import load_all_refusals, refusal_files
    from harness.vectors.settlement import load_all_vectors, load_vector_file, vector_files

    schemas = check_schemas()
    catalogs = load_catalogs()
    clauses = clause_index(catalogs)
    vectors = load_all_vectors(clauses)
    refusals = load_all_refusals(clauses)
    report = check_coverage(catalogs, vectors, refusals)
    out_of_scope = sum(len(c.out_of_scope) for c in catalogs)
    print(f"{schemas} schemas, each a valid JSON Schema (draft 2020-12)")
    print(
        f"{len(catalogs)} catalogs: {report.clauses} clauses, {out_of_scope} passages out of scope"
    )
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(report.by_verification.items()))
    print(f"  clauses verified by: {kinds}")
    print(f"{len(vectors)} vectors in {len(vector_files())} files")
    for name, count in sorted(report.vectors_per_profile.items()):
        print(f"  {name}: {count} vectors")
    print(f"{len(refusals)} refusal vectors in {len(refusal_files())} files (docs/refusals.md)")
    corpus = [
        v for path in sorted(CORPUS_DIR.glob("*.json")) for v in load_vector_file(path, clauses)
    ]
    print(f"{len(corpus)} generated vectors in {CORPUS_DIR.name}/ (docs/corpus.md)")
    for problem in report.problems:
        print(f"PROBLEM: {problem}")
    print("OK" if not report.problems else f"{len(report.problems)} problems")
    return 0 if not report.problems else 1
