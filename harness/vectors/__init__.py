"""The test vectors (docs/vectors.md, docs/refusals.md, docs/corpus.md): settlement
vectors and refusal vectors read from vectors/, the generated corpus and its
generator, and the coverage rules `chcert vectors check` holds them to."""
