"""The bundled, known-good Casino Hold'em implementation (adapter spec `reference`)."""

from harness.reference.engine import ReferenceGame, production_decks, production_shuffle

__all__ = ["ReferenceGame", "production_decks", "production_shuffle"]
