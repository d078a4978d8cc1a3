"""Information hiding: until the last seat has decided, nothing the game says reveals
the dealer's hole cards, the turn or the river; and where the profile deals hole
cards face down, nothing said to one seat reveals another seat's cards.

A leak may take any form, so the check looks two ways (docs/information-hiding.md):

* by form: every string of every reply, keys included, at any depth, the round id
  too, is read for a hidden card written any way a game might write it: `Qs`, `qs`,
  `QsQd`, `10s`, `Q♠`, `queen of spades`, a playing-card character;
* by difference: the same visible round (wagers, hole cards, flop) is dealt with
  two sets of hidden cards, each twice. A reply field that is the same whenever the
  same cards are dealt, and changes with the hidden cards, depends on them, in
  whatever form: a card index, a hand name computed from the dealer's cards, a hash.
  A field that changes between two deals of the same cards (a clock, a counter) says
  nothing by difference; its form is still read. The deals are played in the order
  D0 D1 D1 D0, so that a field alternating from round to round is seen as noise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from harness.checks.registry import CheckFailure, Context, check
from harness.checks.replies import finish_round, request_ok, stake
from harness.errors import ErrorReply
from harness.protocol import Capability
from harness.protocol.messages import (
    Dealt,
    SeatStakes,
    Settled,
    StackedCards,
    fields_of,
    read_dealt,
    read_result,
    seat_stakes,
)
from harness.results.model import Outcome, Untested
from harness.rules.cards import RANK_CHARS, SUIT_CHARS, parse_cards
from harness.rules.evaluator import category_of, strength_of

# The visible round every deal shares: no pair, no flush or straight draw on the flop.
FLOP = ("Kh", "8c", "4d")
HOLES = {1: ("2c", "7d"), 2: ("3h", "9s")}
OTHER_HOLE = ("5c", "6s")  # seat 2's cards in the deals that test seat privacy


@dataclass(frozen=True)
class Hidden:
    """The cards no one may see before the decisions: the dealer's two, turn, river."""

    dealer: tuple[str, str]
    turn: str
    river: str

    @property
    def cards(self) -> tuple[str, ...]:
        return (*self.dealer, self.turn, self.river)


# Two disjoint sets of hidden cards whose hands differ (the dealer makes three queens
# or two pair, seat 1 high card or two pair), so a hand name computed from them
# changes too; no code is an English word ("As", "Ad"), so no message names one by chance.
HIDDEN = (
    Hidden(("Qs", "Qd"), "Qc", "Jh"),
    Hidden(("Js", "Jd"), "7h", "8d"),
)

RANK_WORDS = {
    "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "T", "10": "T", "jack": "J", "queen": "Q",
    "king": "K", "ace": "A",
}  # fmt: skip
SUIT_WORDS = {"club": "c", "diamond": "d", "heart": "h", "spade": "s"}
SUIT_SYMBOLS = {"♣": "c", "♧": "c", "♦": "d", "♢": "d", "♥": "h", "♡": "h", "♠": "s", "♤": "s"}
_RANK = "|".join(sorted(RANK_WORDS, key=len, reverse=True)) + "|[2-9tjqka]"
_SPELLED = re.compile(rf"\b({_RANK})\s*(?:of\s+)?(club|diamond|heart|spade)s?\b")
_SUITS = "".join(SUIT_SYMBOLS)
_SYMBOL = re.compile(rf"(10|[2-9tjqka])\s*([{_SUITS}])|([{_SUITS}])\s*(10|[2-9tjqka])")
WORDS = {"as", "ad", "ah"}  # words of English spelled like a card: not read as one
# A code in the protocol's own case within a longer word ("dealerQsQd", "r5JsJd"): a face
# card not after a capital, a digit rank not after a letter or digit; neither followed by
# a lower-case letter or digit ("Tsunami", "3des" are no cards). Aces are left out: "As",
# "Ad", "Ah" begin English words.
_INSIDE = re.compile(r"(?:(?<![A-Z])([TJQK])|(?<![0-9A-Za-z])(10|[2-9]))([cdhs])(?![a-z0-9])")
_RUN = re.compile(r"[0-9a-z]+")
_CODES = re.compile(r"(?:(?:10|[2-9tjqka])[cdhs])+")
# Unicode's playing cards: U+1F0A1.. spades, B hearts, C diamonds, D clubs; knight (C) skipped.
_UNICODE_SUITS = {0xA: "s", 0xB: "h", 0xC: "d", 0xD: "c"}
_UNICODE_RANKS = {1: "A", **{n: str(n) for n in range(2, 10)}, 10: "T", 11: "J", 13: "Q", 14: "K"}


def _rank(word: str) -> str:
    return RANK_WORDS.get(word, word.upper())


def cards_named(text: str) -> set[str]:
    """Every card a piece of text names, in any of the forms above (as `Qs` codes)."""
    low = text.lower()
    found: set[str] = set()
    for run in _RUN.findall(low):  # a run wholly of card codes: "qs", "qsqd", "10s"
        if _CODES.fullmatch(run) and run not in WORDS:
            found |= {_rank(m[:-1]) + m[-1] for m in re.findall(r"(?:10|[2-9tjqka])[cdhs]", run)}
    for face, digit, suit in _INSIDE.findall(text):  # the protocol's case, within a word
        found.add(_rank((face or digit).lower()) + suit)
    spaced = re.sub(r"[_\-]+", " ", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)).lower()
    for rank, suit in _SPELLED.findall(spaced):  # queen of spades, QUEEN_OF_SPADES, queenOfSpades
        found.add(_rank(rank) + SUIT_WORDS[suit])
    for rank, symbol, symbol2, rank2 in _SYMBOL.findall(low):
        found.add(_rank(rank or rank2) + SUIT_SYMBOLS[symbol or symbol2])
    for char in text:
        code = ord(char)
        if 0x1F0A1 <= code <= 0x1F0DE and (code & 0xF) in _UNICODE_RANKS:
            found.add(_UNICODE_RANKS[code & 0xF] + _UNICODE_SUITS[(code >> 4) & 0xF])
    return {c for c in found if len(c) == 2 and c[0] in RANK_CHARS and c[1] in SUIT_CHARS}


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """(path, value) of every scalar of a reply, and of every key as a value of its own."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield f"{path}.{key}<key>", key
            yield from leaves(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for n, inner in enumerate(value):
            yield from leaves(inner, f"{path}[{n}]")
    else:
        yield path, value


@dataclass
class Observed:
    """What the game said during one round, up to its last decision, reply by reply."""

    dealt: Dealt  # the round reply, read
    replies: dict[str, object] = field(default_factory=dict)  # what was asked -> ok or error,
    # as the game sent it
    seat_replies: dict[str, int] = field(default_factory=dict)  # reply name -> seat it is for

    @property
    def round_id(self) -> str | int:
        return self.dealt.round

    def flat(self) -> dict[str, object]:
        """Every scalar by its path, the round id written as <round> wherever it stands."""
        ident = str(self.round_id)
        own = re.compile(rf"(?<![0-9A-Za-z]){re.escape(ident)}(?![0-9A-Za-z])")
        out: dict[str, object] = {}
        for name, reply in self.replies.items():
            for path, value in leaves(reply, name):
                if value == self.round_id and not isinstance(value, bool):
                    value = "<round>"
                elif isinstance(value, str):
                    value = own.sub("<round>", value)
                out[path] = value
        return out


def _answer(ctx: Context, op: str, **params: object) -> object:
    """An `ok` body, or an error reply as {"error": {code, message}}: both are said aloud."""
    try:
        return ctx.adapter.request(op, **params)
    except ErrorReply as exc:
        return {"error": {"code": exc.code, "message": exc.message}}


def stacked(seats: list[int], hidden: Hidden, other_hole: bool = False) -> StackedCards:
    holes = {s: list(HOLES[s]) for s in seats}
    if other_hole and 2 in holes:
        holes[2] = list(OTHER_HOLE)
    return {
        "seats": {str(s): holes[s] for s in seats},
        "dealer": list(hidden.dealer),
        "flop": list(FLOP),
        "turn": hidden.turn,
        "river": hidden.river,
    }


def observe(
    ctx: Context, seats: list[int], cards: StackedCards | None, wagers: list[SeatStakes]
) -> tuple[Observed, Settled]:
    """Play one round, every seat calling, and keep every reply said before the last
    decision: the round reply, a `result` asked too early, an `act` for a seat not in
    the round, each seat's act but the last; then the events up to the last decision."""
    params: dict[str, object] = {"seats": wagers}
    if cards is not None:
        params["cards"] = cards
    reply = request_ok(ctx, "round", **params)
    seen = Observed(read_dealt(reply), {"round": reply})
    try:
        seen.replies["result before the decisions"] = _answer(ctx, "result", round=seen.round_id)
        absent = max(seats) + 1
        seen.replies[f"act for seat {absent}, not in the round"] = _answer(
            ctx, "act", round=seen.round_id, seat=absent, action="call"
        )
        for seat in seats[:-1]:
            name = f"act for seat {seat}"
            seen.replies[name] = request_ok(
                ctx, "act", round=seen.round_id, seat=seat, action="call"
            )
            seen.seat_replies[name] = seat
        request_ok(ctx, "act", round=seen.round_id, seat=seats[-1], action="call")
    except BaseException:
        finish_round(ctx, seen.round_id, seats)
        raise
    sent = request_ok(ctx, "result", round=seen.round_id)
    result = read_result(sent)
    if not isinstance(result, Settled):
        raise CheckFailure(
            f"round {seen.round_id!r}: every seat called, yet the round is {result.status}",
            expected="a settled round",
            actual=fields_of(result),
        )
    decisions = [i for i, e in enumerate(result.events) if e.type == "action"]
    if Capability.EVENTS in ctx.capabilities and decisions:
        seen.replies["events up to the last decision"] = sent["events"][: decisions[-1]]
    return seen, result


def _hands(hidden: Hidden, seats: list[int]) -> dict[str, str]:
    """Hand names only the hidden cards could tell: what the dealer and each seat make."""
    flop = parse_cards(list(FLOP))
    board = (*flop, *parse_cards([hidden.turn, hidden.river]))
    dealer = parse_cards(list(hidden.dealer))
    names = {
        "the dealer's hand": category_of(strength_of((*dealer, *board))).wire,
        "the dealer's hand on the flop": category_of(strength_of((*dealer, *flop))).wire,
    }
    for s in seats:
        names[f"seat {s}'s final hand"] = category_of(
            strength_of((*parse_cards(list(HOLES[s])), *board))
        ).wire
    return names


def _explain(value: Any, secret: tuple[str, ...], hands: dict[str, str]) -> str:
    """What a leaked value is, where it can be told."""
    if isinstance(value, int) and not isinstance(value, bool):
        for text in secret:
            if parse_cards([text])[0].index == value:
                return f"the byte index of {text}"
    if isinstance(value, str):
        named = cards_named(value) & set(secret)
        if named:
            return "names " + ", ".join(sorted(named))
        plain = re.sub(r"[\s_-]+", "_", value.strip().lower())
        for whose, name in hands.items():
            if re.search(rf"(?<![a-z]){name}(?![a-z])", plain):
                return f"names {whose}, {name}"
    return "a value that follows the hidden cards"


Named = dict[tuple[str, str], str]  # (path, card) -> the text naming it


def _named(seen: Observed, only: set[str] | None) -> Named:
    """Every card named in any form at any path of the replies (only: the names of the
    replies to read, for a seat's privacy)."""
    named: Named = {}
    for name, reply in seen.replies.items():
        if only is not None and name not in only:
            continue
        for path, value in leaves(reply, name):
            if isinstance(value, str):
                named |= {(path, card): value for card in cards_named(value)}
    return named


def _form_leak(plays: list[tuple[Observed, set[str]]], whose: str, only: set[str] | None) -> None:
    """A secret card named at some path of a round's replies, unless the same path names
    that card in a round where it is not secret: then the text names it whatever is dealt
    (a key "ts", a word like "js"), and says nothing of the cards."""
    named = [(seen, secret, _named(seen, only)) for seen, secret in plays]
    for seen, secret, found in named:
        for (path, card), value in found.items():
            if card not in secret:
                continue
            if any((path, card) in other and card not in hidden for _, hidden, other in named):
                continue
            raise CheckFailure(
                f"before the last decision, {path} reveals {whose} {card}: {value[:200]!r}",
                expected=f"no reply names {whose} ({', '.join(sorted(secret))})",
                actual={path: value},
                evidence={"replies": seen.replies},
            )


def _difference_leak(
    a: tuple[Observed, Observed],
    b: tuple[Observed, Observed],
    what: str,
    secrets: tuple[tuple[str, ...], tuple[str, ...]],
    hands: tuple[dict[str, str], dict[str, str]],
    only: set[str] | None = None,
) -> None:
    """A field the same in both plays of a deal and different between the two deals."""
    fa, fa2, fb, fb2 = (o.flat() for o in (*a, *b))
    for path in sorted(set(fa) | set(fb)):
        if only is not None and path.split(".")[0].split("[")[0] not in only:
            continue
        va, vb = fa.get(path, "<absent>"), fb.get(path, "<absent>")
        if va == fa2.get(path, "<absent>") and vb == fb2.get(path, "<absent>") and va != vb:
            reading = [_explain(v, c, n) for v, c, n in zip((va, vb), secrets, hands, strict=True)]
            raise CheckFailure(
                f"before the last decision, {path} changes with {what}: {va!r} "
                f"({reading[0]}) against {vb!r} ({reading[1]}), the same each time the same "
                "cards are dealt",
                expected=f"replies that do not depend on {what}",
                actual={"first deal": va, "second deal": vb},
                evidence={"first deal": a[0].replies, "second deal": b[0].replies},
            )


UNSTACKED_ROUNDS = 4


@check("information-hiding")
def information_hiding(ctx: Context) -> Outcome:
    """Before the last decision no reply, error or event reveals the dealer's cards, the
    turn or the river, in any form; nor, with hole cards face down, another seat's cards.

    Without capability `inject` the game deals its own rounds: each is read for hidden
    cards by form once its result has shown them, and the by-difference half is not
    tested."""
    seats = [1, 2] if ctx.seats >= 2 else [1]
    wagers = [seat_stakes(s, stake(ctx)) for s in seats]
    private = not ctx.profile.hole_cards_face_up and len(seats) == 2
    findings: dict[str, object] = {"seats": len(seats)}
    if not private:
        findings["seat_privacy"] = (
            "not required: the profile deals hole cards face up"
            if ctx.profile.hole_cards_face_up
            else "not applicable: the game seats one player"
        )
    if Capability.INJECT not in ctx.capabilities:
        seen_rounds = []
        for _ in range(UNSTACKED_ROUNDS):
            seen, result = observe(ctx, seats, None, wagers)
            seen_rounds.append((seen, _hidden_of(result).cards))
        _read_for_forms(seen_rounds, private)
        for seen, _ in seen_rounds:
            _round_reply_shows_only_the_deal(seen, seats, None)
        findings["rounds"] = UNSTACKED_ROUNDS
        untested = Untested(
            reason="replies were read for hidden cards by form only: telling a leak by "
            "difference (an index, a hand name) needs rounds dealt from stacked cards",
            needs="capability inject",
        )
        return Outcome(evidence=findings, untested=untested)
    plays: dict[tuple[int, bool], list[Observed]] = {}
    order = [(0, False), (1, False), (1, False), (0, False)]
    if private:
        order += [(0, True), (0, True)]
    played = []
    for deal, other in order:
        cards = stacked(seats, HIDDEN[deal], other)
        seen, _ = observe(ctx, seats, cards, wagers)
        played.append((seen, cards))
        plays.setdefault((deal, other), []).append(seen)
    _read_for_forms(
        [(seen, HIDDEN[deal].cards) for (seen, _), (deal, _o) in zip(played, order, strict=True)],
        private,
    )
    for seen, cards in played:
        _round_reply_shows_only_the_deal(seen, seats, cards)
    hands = (_hands(HIDDEN[0], seats), _hands(HIDDEN[1], seats))
    first, second = plays[(0, False)], plays[(1, False)]
    if first[0].round_id == first[1].round_id:
        raise CheckFailure(
            f"the round id {first[0].round_id!r} is given again to a round dealt the same cards",
            expected="a round id of its own for every round",
            actual=[first[0].round_id, first[1].round_id],
        )
    _id_follows_the_cards([*first, *second])
    _difference_leak((first[0], first[1]), (second[0], second[1]), "the hidden cards",
                     (HIDDEN[0].cards, HIDDEN[1].cards), hands)  # fmt: skip
    if private:
        moved = plays[(0, True)]
        only = {n for n, s in first[0].seat_replies.items() if s == 1}
        _difference_leak((first[0], first[1]), (moved[0], moved[1]),
                         "seat 2's hole cards in a reply to seat 1", (HOLES[2], OTHER_HOLE),
                         ({}, {}), only)  # fmt: skip
    findings["rounds"] = len(order)
    return Outcome(evidence=findings)


def _id_follows_the_cards(plays: list[Observed]) -> None:
    """Round ids D0 D0 D1 D1: with each run of digits read as one mark (a counter, a
    clock), the same within a deal and different between the deals, the id spells out
    something of the hidden cards ("r5QsQd"); and ids whose numbers, beyond those all four
    share, hold a hidden card's byte index in every play ("r5-43-41")."""
    shape = [re.sub(r"[0-9]+", "#", str(seen.round_id)) for seen in plays]
    if shape[0] == shape[1] and shape[2] == shape[3] and shape[0] != shape[2]:
        raise CheckFailure(
            f"the round id follows the hidden cards: {plays[0].round_id!r} and "
            f"{plays[1].round_id!r} for one deal, {plays[2].round_id!r} and "
            f"{plays[3].round_id!r} for the other",
            expected="round ids that tell nothing of the cards",
            actual=[seen.round_id for seen in plays],
        )
    numbers = [{int(n) for n in re.findall(r"[0-9]+", str(seen.round_id))} for seen in plays]
    common = set.intersection(*numbers)
    carried = []
    for k, (seen, hidden) in enumerate(
        zip(plays, [HIDDEN[0], HIDDEN[0], HIDDEN[1], HIDDEN[1]], strict=True)
    ):
        others = set().union(*(numbers[j] for j in range(4) if j // 2 != k // 2))
        own = numbers[k] - common - others
        named = sorted(c for c in hidden.cards if parse_cards([c])[0].index in own)
        if not named:
            return
        carried.append(f"{seen.round_id!r} holds the byte index of {', '.join(named)}")
    raise CheckFailure(
        "every round id holds the byte index of a hidden card: " + "; ".join(carried),
        expected="round ids that tell nothing of the cards",
        actual=[seen.round_id for seen in plays],
    )


def _hidden_of(result: Settled) -> Hidden:
    """The hidden cards of a round the game dealt itself, as its result shows them."""
    dealer, board = result.dealer.hole, result.board  # two and five: the schema's
    return Hidden((dealer[0], dealer[1]), board[3], board[4])


def _read_for_forms(plays: list[tuple[Observed, tuple[str, ...]]], private: bool) -> None:
    """Every round's replies read for its hidden cards; with private hole cards, seat 1's
    replies for seat 2's."""
    _form_leak([(seen, set(hidden)) for seen, hidden in plays], "the hidden cards", None)
    if not private:
        return
    theirs = []
    for seen, _ in plays:
        theirs.append((seen, set(seen.dealt.holes().get(2, ()))))
    seat_one = {n for n, s in plays[0][0].seat_replies.items() if s == 1}
    _form_leak(theirs, "seat 2's hole cards to seat 1:", seat_one)


def _round_reply_shows_only_the_deal(
    seen: Observed, seats: list[int], cards: StackedCards | None
) -> None:
    """Protocol v1's round reply: the round id, each seat's hole cards (the stacked ones,
    when `cards` stacked them) and the flop."""
    reply = seen.replies["round"]
    assert isinstance(reply, dict)  # the round's ok body: refused, there is no round
    extra = sorted(set(reply) - {"round", "seats", "flop"})
    shown: dict[str, object] = {
        "seats": {str(n): list(hole) for n, hole in seen.dealt.holes().items()},
        "flop": list(seen.dealt.flop),
    }
    want = shown
    if cards is not None:
        want = {"seats": {str(s): cards["seats"][str(s)] for s in seats}, "flop": cards["flop"]}
    if extra or shown != want:
        raise CheckFailure(
            "the round reply shows more or other than the seats' hole cards and the flop",
            expected={"keys": ["flop", "round", "seats"], **want},
            actual={"extra_keys": extra, **shown},
            evidence={"reply": reply},
        )
