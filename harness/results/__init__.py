"""Results and verdict (docs/results.md, docs/verdict.md): the typed model that
results.json serialises, the vocabulary of outcomes, the evidence a certificate rests
on, the one function that decides the verdict, and the building of results.json from
a run's records. The report and `chcert diff` read the model; only `build` runs at a
run's end, and nothing here runs a test.

Light on purpose: `harness.results.model` and `harness.results.outcomes` import no
numerical library, so the readers of results.json stay fast."""
