"""`python -m harness.cli`: the `chcert` command, where the entry point is not installed."""

import sys

from harness.cli import main

sys.exit(main())
