"""chcert: a certification harness for Casino Hold'em implementations.

The package is split by concern; imports point one way (see docs/architecture.md):
cards -> evaluator -> profiles -> oracle / reference -> specs, vectors ->
adapters -> plugin -> results -> report -> cli.
"""

__version__ = "0.1.0"
