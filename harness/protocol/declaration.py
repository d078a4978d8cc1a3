"""A game's hello, read once into a typed declaration (docs/adapter-protocol.md, hello).

The controller asks the game `hello` once; every check, the results and the report
read what it declared from here: its capabilities and seats, the table it runs
(limits and house rules, harness/rules/table.py) and its configuration. The reply is kept
as the game sent it (`sent`: results.json `implementation`, the report's record of
what was certified); a field the game sent in a shape protocol v1 does not know
reads as absent here, and the declaration checks judge the shape itself
(harness/checks/declarations.py).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from harness.protocol import seats_capability
from harness.rules.table import Table, table_of


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@dataclass(frozen=True)
class Declaration:
    """What a game declared in its hello (the module's docstring)."""

    sent: dict[str, Any] = field(default_factory=dict)

    @functools.cached_property
    def declared(self) -> list[str]:
        """The capabilities it declares, in its order (a list of strings; else none)."""
        caps = self.sent.get("capabilities")
        return [c for c in caps if isinstance(c, str)] if isinstance(caps, list) else []

    @functools.cached_property
    def capabilities(self) -> frozenset[str]:
        return frozenset(self.declared)

    @functools.cached_property
    def seats(self) -> int:
        """The seats it deals (`seats:N`; 1 when it declares none)."""
        return seats_capability(self.declared)

    @functools.cached_property
    def config(self) -> dict[str, Any]:
        """Its `config` object ({} when it sent none, or not an object)."""
        return _object(self.sent.get("config"))

    @functools.cached_property
    def table(self) -> Table | None:
        """The table it declares (limits, house rules); None when its ante limits are not
        a range (the declared-limits check's finding)."""
        return table_of(self.config)

    @property
    def limits(self) -> dict[str, Any]:
        """`config.limits` as sent ({} when not an object)."""
        return _object(self.config.get("limits"))

    def limit(self, wager: str) -> tuple[int, int] | None:
        """`config.limits.<wager>` as sent when it is a pair of integers, else None."""
        pair = self.limits.get(wager)
        if isinstance(pair, list) and len(pair) == 2 and all(type(v) is int for v in pair):
            return pair[0], pair[1]
        return None

    @property
    def house_rules(self) -> dict[str, Any]:
        """`config.house_rules` as sent ({} when not an object)."""
        return _object(self.config.get("house_rules"))

    @property
    def offers_aa_bonus(self) -> bool:
        """Whether it declares an AA Bonus pay table: one that does not is never asked to
        take one, whatever the profile offers."""
        return bool(self.config.get("aa_bonus_pay_table"))

    @property
    def recovery(self) -> Any:
        """`config.recovery`: what it does with a round a failure interrupts."""
        return self.config.get("recovery")

    @property
    def name(self) -> str:
        return str(self.sent.get("name", "?"))
