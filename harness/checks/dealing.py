"""Dealing: the game deals what was stacked, and its decks and rounds hold each card once
(what it may show before the decisions is harness/checks/hiding.py's concern)."""

from __future__ import annotations

import base64
import binascii

from harness.checks.registry import CheckFailure, Context, check
from harness.checks.replies import (
    PIPELINE_ROUNDS,
    freed_on_failure,
    open_round,
    open_rounds,
    parse,
    request_ok,
    requests_ok,
    settled_result,
    settled_results,
    stake,
)
from harness.protocol import Capability
from harness.protocol.messages import Dealt, Settled, StackedCards, fields_of, seat_stakes
from harness.results.model import Outcome


@check("stacked-deal", requires={Capability.INJECT})
def stacked_deal(ctx: Context) -> None:
    """A stacked round deals exactly the stacked hole cards, flop, turn and river."""
    cards: StackedCards = {
        "seats": {"1": ["As", "Kd"]},
        "dealer": ["7c", "7h"],
        "flop": ["2s", "9d", "Jc"],
        "turn": "4h",
        "river": "Qs",
    }
    shown = open_round(ctx, [seat_stakes(1, stake(ctx))], cards)
    request_ok(ctx, "act", round=shown.round, seat=1, action="call")
    result = settled_result(ctx, shown.round)
    dealt = {
        "hole": list(shown.seats[0].hole),
        "flop": list(shown.flop),
        "board": list(result.board),
        "dealer": list(result.dealer.hole),
    }
    want = {
        "hole": cards["seats"]["1"],
        "flop": cards["flop"],
        "board": [*cards["flop"], cards["turn"], cards["river"]],
        "dealer": cards["dealer"],
    }
    if dealt != want:
        raise CheckFailure("the game did not deal the stacked cards", expected=want, actual=dealt)


@check("deck-integrity", requires={Capability.SHUFFLE})
def deck_integrity(ctx: Context) -> None:
    """Every deck of the production shuffle is a permutation of the 52 cards."""
    count = 200
    reply = request_ok(ctx, "shuffle", count=count)
    try:
        raw = base64.b64decode(reply["decks"], validate=True)
    except (binascii.Error, TypeError, ValueError) as exc:
        raise CheckFailure("shuffle reply is not base64", actual=str(reply)[:200]) from exc
    if len(raw) != 52 * count:
        raise CheckFailure(
            "shuffle returned the wrong number of bytes", expected=52 * count, actual=len(raw)
        )
    full = set(range(52))
    for i in range(count):
        deck = raw[52 * i : 52 * (i + 1)]
        if set(deck) != full:
            missing = sorted(full - set(deck))
            raise CheckFailure(
                f"deck {i} is not a permutation of 52 cards",
                expected="each index 0..51 once",
                actual={"missing": missing, "deck": list(deck)},
            )


DEALT_ROUNDS = 200


@check("dealt-cards-distinct")
def dealt_cards_distinct(ctx: Context) -> Outcome:
    """Every round dealt by the game's own shuffle shows 2 x seats + 2 + 5 distinct cards.

    Unlike deck-integrity this needs no `shuffle` op: it looks at the rounds as
    played, every seat calling so that the whole board and the dealer are shown.
    """
    seats = list(range(1, min(ctx.seats, 7) + 1))
    wagers = [seat_stakes(s, stake(ctx)) for s in seats]
    # A game with capability pipeline plays PIPELINE_ROUNDS rounds at once, any other one.
    size = PIPELINE_ROUNDS if Capability.PIPELINE in ctx.capabilities else 1
    for first in range(0, DEALT_ROUNDS, size):
        opened = open_rounds(ctx, wagers, min(size, DEALT_ROUNDS - first))
        # Every seat calls whatever it holds: the acts go out together. The results are
        # asked after them, so that a refused act, not the reply to a round left
        # undecided, is what the check meets.
        with freed_on_failure(ctx, opened):
            requests_ok(
                ctx,
                [
                    ("act", {"round": d.round, "seat": s, "action": "call"})
                    for d in opened
                    for s in seats
                ],
            )
            results = settled_results(ctx, opened)
        for number, (dealt, result) in enumerate(zip(opened, results, strict=True), first):
            _all_distinct(dealt, result, number, len(seats))
    return Outcome(evidence={"dealt_rounds": DEALT_ROUNDS, "seats": len(seats)})


def _all_distinct(dealt: Dealt, result: Settled, number: int, seats: int) -> None:
    """Round `number` shows each of its 2 x seats + 7 cards once, or a CheckFailure."""
    shown = [*(c for e in dealt.seats for c in e.hole), *result.board, *result.dealer.hole]
    cards = parse(shown, "the cards shown", number)
    if len(cards) != 2 * seats + 7 or len(set(cards)) != len(cards):
        repeated = sorted({str(c) for c in cards if cards.count(c) > 1})
        raise CheckFailure(
            f"round {number} shows {len(cards)} cards, {len(set(cards))} distinct"
            + (f" ({', '.join(repeated)} twice)" if repeated else ""),
            expected=f"{2 * seats + 7} distinct cards",
            actual=[str(c) for c in cards],
            evidence={"round": fields_of(dealt), "result": fields_of(result)},
        )
