"""`chcert diff OLD NEW`: two results.json compared; exit 1 when NEW regressed (docs/ci.md).

The comparison is compare.py's, and renders nothing; text.py writes it for a person,
and harness/report/markdown.py as a CI page's summary (`--summary-md`). The command,
harness/cli/diff.py, is the one place that knows all three.
"""

from __future__ import annotations

from harness.diff.compare import (
    DiffInputError,
    diff_results,
    load_results_file,
    status_direction,
)
from harness.diff.text import format_diff

__all__ = [
    "EXIT_REGRESSED",
    "EXIT_SAME",
    "DiffInputError",
    "diff_results",
    "format_diff",
    "load_results_file",
    "status_direction",
]

EXIT_SAME = 0
EXIT_REGRESSED = 1
