"""Checks: how a clause is judged against an implementation, one exchange at a time.

Two kinds of work run against the implementation under test:

* `replay_vector` plays one hand-worked vector (a stacked round) and compares the
  game's settlement with the vector's expected values;
* registered checks (`@check("name", requires=...)`) are named in the clause
  catalogs (`checks: [declared-ante-table]`) and judge what vectors cannot:
  the declared pay tables, limit enforcement, information hiding, deck integrity.

The worker (harness/run/worker.py) owns the outcome, by the exception's type
(harness/errors.py): a missing capability is NotTested, a CheckFailure or any
other GameFault is the game's fault (the clause fails), and any other exception
is an error of the harness, reported as such. A ProtocolViolation (hang, crash, garbage) is the
game's fault too and becomes a CheckFailure with its evidence.

The package keeps the registry apart from the checks; imports point one way,
registry <- replies <- the concern modules <- this one:

    registry      Context, CheckFailure, NotTested, Check, Registry and REGISTRY
                  (CHECKS is its name -> Check dict), run_check, game_faults_fail
    replies       asking the game and reading its replies (request_ok, stake, ...)
    declarations  declared-* and declared-limits
    dealing       stacked-deal, deck-integrity, dealt-cards-distinct
    hiding        information-hiding: nothing hidden shown before the decisions
    settlement    replay_vector, compare_settlement, repro_vector; aa-bonus-locked,
                  aa-bonus-timing, history-recall
    corpus        replay_corpus: the generated vectors, pipelined
    refusals      replay_refusal: bad requests refused, no money moved, game still usable
    randomness    rng-battery
    recovery      recovery-declared, recovery-kills: a round survives its game's crash
    simulation    rtp-simulation, seeded_deals
    differential  differential: stacked seat-hands against the oracle, shrunk and
                  attributed (harness/differential/ plans the rounds)

Importing this package imports every concern module, which registers its checks.
"""

from __future__ import annotations

from harness.checks import (  # noqa: F401
    dealing,
    declarations,
    differential,
    hiding,
    randomness,
    recovery,
    settlement,
    simulation,
)
from harness.checks.corpus import replay_corpus
from harness.checks.refusals import replay_refusal
from harness.checks.registry import (
    CHECKS,
    MERGES,
    REGISTRY,
    Check,
    CheckFailure,
    CheckFunc,
    Context,
    NotTested,
    Registry,
    check,
    game_faults_fail,
    run_check,
)
from harness.checks.settlement import compare_settlement, replay_vector, repro_vector
from harness.checks.simulation import RTP_CONFIDENCE, seeded_deals

__all__ = [
    "CHECKS",
    "MERGES",
    "REGISTRY",
    "RTP_CONFIDENCE",
    "Check",
    "CheckFailure",
    "CheckFunc",
    "Context",
    "NotTested",
    "Registry",
    "check",
    "compare_settlement",
    "game_faults_fail",
    "replay_corpus",
    "replay_refusal",
    "replay_vector",
    "repro_vector",
    "run_check",
    "seeded_deals",
]
