"""The production audit: every round a game played, from its round log, re-settled and
tested (docs/audit.md)."""
