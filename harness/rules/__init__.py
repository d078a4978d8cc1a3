"""The game's rules: cards and hand evaluation, the pay tables and rules of a profile,
the table a game declares, the clause catalogs, and the rules oracle that settles a
round from them (docs/architecture.md). Pure: nothing here talks to a game."""
