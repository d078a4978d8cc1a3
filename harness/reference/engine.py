"""The bundled reference implementation: a complete Casino Hold'em table.

It is a game engine in its own right, not a wrapper around the rules oracle (it
must not import harness.rules.oracle, so the two cannot share a bug): a round moves
through its phases as a live table does, each step is verified before it
mutates anything (`verify_*` raises, `can_*` answers), and every step is logged
as an event. It speaks protocol v1 in full; see harness/protocol/__init__.py.

Phases of a round (001 rules 2-15, 004 Article 3):
  deal -> decisions (every seat calls or folds) -> AA Bonus settled on hole + flop
  -> turn and river -> dealer revealed -> ante and call settled -> done.

Mutants (the package harness/reference/mutants/) override the small rule hooks
(`dealer_qualifies`, `ante_odds`, ...) to prove that certification catches faults.

The round-state records (`Round`, `Seat`, `Phase`, `Dealt`) are in
harness/reference/rounds.py, which the store imports too: the store never imports
the engine.

By default the rounds live in memory only. Given a RoundStore (`--db FILE`,
harness/reference/store.py) the game mirrors every change of state in it before
answering, rebuilds its state from it at start-up and declares capability
`recovery`: the rounds a kill interrupted are resumed on their original cards
or voided (docs/adapter-protocol.md, "Interrupted rounds").
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np
import numpy.typing as npt

from harness import __version__
from harness.defaults import DEFAULT_PROFILE
from harness.errors import ErrorReply, InvalidCards
from harness.protocol import PROTOCOL_VERSION, Capability, ErrorCode
from harness.reference.roundlog import RoundLog
from harness.reference.rounds import Dealt, Phase, Round, Seat
from harness.rules.cards import DECK_SIZE, Card, format_cards, parse_card
from harness.rules.evaluator import Category, category_of, strength_of
from harness.rules.game import MAX_SEATS, Action
from harness.rules.profiles import NonQualifyingAnte, Profile, load_profile
from harness.rules.table import REFERENCE_TABLE, Table

if TYPE_CHECKING:
    from harness.reference.store import RoundStore

MAX_SHUFFLE_DECKS = 100_000
MAX_RNG_BYTES = 1 << 22
HISTORY_KEPT = 1000
MAX_OPEN_ROUNDS = 1024  # capability pipeline: rounds open at once; one more is refused


def production_shuffle() -> list[int]:
    """A uniformly random deck: Fisher-Yates driven by the OS's CSPRNG.

    `secrets.randbelow(i + 1)` is unbiased (rejection sampling), and j ranges over
    0..i inclusive, which is what makes every one of the 52! orders equally likely.
    """
    deck = list(range(DECK_SIZE))
    for i in range(DECK_SIZE - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def production_decks(count: int) -> npt.NDArray[np.uint8]:
    """`count` decks at once: the same unbiased Fisher-Yates, vectorised over decks.

    Used by the `shuffle` op, which samples many decks for the RNG battery. The
    draw for step i is uniform on 0..i by Lemire's method with rejection: a
    32-bit draw u from the OS's CSPRNG maps to (u * (i + 1)) >> 32 and is drawn
    again when the low 32 bits of the product fall below 2^32 mod (i + 1).
    """
    decks = np.tile(np.arange(DECK_SIZE, dtype=np.uint8), (count, 1))
    rows = np.arange(count)
    for i in range(DECK_SIZE - 1, 0, -1):
        j = _uniform_below(i + 1, count)
        held = decks[rows, i].copy()
        decks[rows, i] = decks[rows, j]
        decks[rows, j] = held
    return decks


def _uniform_below(bound: int, count: int) -> npt.NDArray[np.int64]:
    threshold = (1 << 32) % bound
    out = np.empty(count, dtype=np.int64)
    todo = np.arange(count)
    while todo.size:
        draws = np.frombuffer(secrets.token_bytes(4 * todo.size), dtype=np.uint32)
        product = draws.astype(np.uint64) * np.uint64(bound)
        accept = (product & np.uint64(0xFFFFFFFF)) >= threshold
        out[todo[accept]] = (product[accept] >> np.uint64(32)).astype(np.int64)
        todo = todo[~accept]
    return out


class ReferenceGame:
    """One Casino Hold'em table with 1 to 7 seats, speaking protocol v1.

    Methods are named like the protocol ops and take the request params as
    keyword arguments; errors are raised as ErrorReply(code, message). It
    declares capability `pipeline`: up to MAX_OPEN_ROUNDS rounds may be open at
    once, each act and result naming its own; one more `round` is refused with
    `round_in_progress` until a round finishes (docs/adapter-protocol.md).

    With a `store` the rounds survive the process: each change is committed to
    the store before the reply that reveals it, and the state is rebuilt from
    the store at construction. The rounds that were awaiting decisions then are
    *interrupted*; `recovery` says what becomes of them: "resume" (they take
    their remaining decisions and settle on their original cards) or "void"
    (voided at once, every stake returned). Without it, the first the profile's
    rules allow (`rules.interrupted_rounds`: 002 voids, the others allow both).
    Without a store nothing is written and nothing changes.
    """

    name = "chcert-reference"

    def __init__(
        self,
        profile: Profile | str = DEFAULT_PROFILE,
        store: RoundStore | None = None,
        recovery: str | None = None,
        table: Table = REFERENCE_TABLE,
        round_log: RoundLog | None = None,
    ) -> None:
        self.profile = profile if isinstance(profile, Profile) else load_profile(profile)
        self.round_log = round_log  # every round ended, written as round log v1
        # The table's limits and house rules: the game's configuration, declared in hello
        # (no rules source gives limits); no AA Bonus limits where the rules have none.
        self.table = table if self.profile.aa_table else dataclasses.replace(table, aa_bonus=None)
        if recovery not in (None, "resume", "void"):
            raise ValueError(f"recovery is 'resume' or 'void', not {recovery!r}")
        self.recovery = recovery or self.profile.interrupted_rounds[0]
        self._rounds: dict[str, Round] = {}
        self._open_rounds: set[str] = set()  # idents of the rounds still taking decisions
        self._history: list[str] = []
        self._next_round = 1  # the number in the next round's id
        self._interrupted: set[str] = set()  # open rounds a restart interrupted ("resume")
        self._store = store
        if store is not None:
            self._recover(store)

    # ------------------------------------------------------------- rule hooks

    def dealer_qualifies(self, strength: int) -> bool:
        """001 rule 11: at least a pair of fours (the profile's qualifier)."""
        return strength >= self.profile.qualifying_strength

    def ante_odds(self, category: Category) -> int:
        """001 rule 12: the ante pay table; a hand the table does not list pays even money."""
        return self.profile.ante_table.pays(category)

    def aa_bonus_odds(self, hole_and_flop: int) -> int | None:
        """001 rule 7: the AA Bonus pay table on hole + flop; None loses (rule 8)."""
        assert self.profile.aa_table is not None
        return self.profile.aa_table.pays(hole_and_flop)

    def aa_bonus_survives_fold(self) -> bool:
        """001 rule 6: a fold surrenders the AA Bonus; 004 Article 6 keeps it."""
        return not self.profile.fold_forfeits_aa_bonus

    def compare(self, player: int, dealer: int) -> int:
        """+1 if the player's hand is better, 0 on a tie, -1 if the dealer's is."""
        return (player > dealer) - (player < dealer)

    def settle_called_seat(self, seat: Seat, dealer: int) -> None:
        """001 rules 12-15: settle the ante and call of a seat that called."""
        assert seat.final_strength is not None
        call = self.call_stake(seat)
        table = self.ante_odds(category_of(seat.final_strength))
        outcome = self.compare(seat.final_strength, dealer)
        if not self.dealer_qualifies(dealer):
            seat.call_returned = call
            even_money_only = (
                self.profile.nonqualifying_ante
                is NonQualifyingAnte.PAY_TABLE_IF_PLAYER_WINS_ELSE_EVEN
                and outcome <= 0
            )
            seat.ante_returned = seat.ante * (1 + (1 if even_money_only else table))
        elif outcome > 0:
            seat.ante_returned = seat.ante * (1 + table)
            seat.call_returned = 2 * call
        elif outcome == 0:
            seat.ante_returned, seat.call_returned = seat.ante, call
        else:
            seat.ante_returned, seat.call_returned = 0, 0

    def shuffled_deck(self) -> list[int]:
        """The production shuffle (001 rule 2 onwards assume one fair 52-card deck)."""
        return production_shuffle()

    def shuffled_decks(self, count: int) -> npt.NDArray[np.uint8]:
        """Many decks of the production shuffle at once (the `shuffle` op)."""
        return production_decks(count)

    def player_strength(self, rnd: Round, seat: Seat, board: tuple[Card, ...]) -> int:
        """001 rule 13: the best five-card hand of this seat's hole cards and the board."""
        return strength_of((*seat.hole, *board))

    def call_stake(self, seat: Seat) -> int:
        """001 rule 5: the call is twice the ante (the profile's call multiple)."""
        return self.profile.call_multiple * seat.ante if seat.action is Action.CALL else 0

    # ------------------------------------------------------------------ ops

    def hello(self) -> dict[str, Any]:
        durable = self._store is not None  # capability recovery: only when a kill loses nothing
        capabilities = [c.value for c in Capability if durable or c is not Capability.RECOVERY]
        config = self.profile.declared_config() | self.table.to_config()
        if durable:
            config["recovery"] = self.recovery
        return {
            "protocol": PROTOCOL_VERSION,
            "name": self.name,
            "version": __version__,
            "capabilities": [*capabilities, f"seats:{MAX_SEATS}"],
            "config": config,
        }

    def round(self, seats: Any, cards: Any = None) -> dict[str, Any]:
        if len(self._open_rounds) >= MAX_OPEN_ROUNDS:
            raise ErrorReply(
                ErrorCode.ROUND_IN_PROGRESS,
                f"{len(self._open_rounds)} rounds are open, the most this table keeps "
                "(capability pipeline): finish one first",
            )
        bets = self._verify_bets(seats)
        order = sorted(bets)
        deal = self._stacked_deal(cards, order) if cards is not None else self._dealt(order)
        holes, dealer, flop, turn, river = deal
        ident = f"r{self._next_round}"
        self._next_round += 1
        rnd = Round(
            ident=ident,
            seats={n: Seat(n, bets[n][0], bets[n][1], holes[n]) for n in order},
            dealer=dealer,
            flop=flop,
            turn=turn,
            river=river,
        )
        for n in order:
            rnd.log("hole_dealt", n)
        rnd.log("flop_dealt")
        self._rounds[ident] = rnd
        self._open_rounds.add(ident)
        if self._store is not None:
            self._durably(self._store.open_round, rnd, self._next_round)
        return {
            "round": ident,
            "seats": [{"seat": n, "hole": format_cards(holes[n])} for n in order],
            "flop": format_cards(flop),
        }

    def act(self, round: Any, seat: Any, action: Any) -> dict[str, Any]:
        rnd = self._round(round)
        self.verify_act(rnd, seat, action)
        rnd.seats[seat].action = Action(action)
        rnd.log("action", seat)
        forgotten = None
        if all(s.action is not None for s in rnd.seats.values()):
            self._finish(rnd)
            forgotten = self._close(rnd)
        if self._store is not None:  # the decision and any settlement, in one transaction
            self._durably(self._store.record_decision, rnd, [forgotten] if forgotten else [])
        return {}

    def result(self, round: Any) -> dict[str, Any]:
        rnd = self._round(round)
        if rnd.phase is Phase.DECISIONS:
            if rnd.ident in self._interrupted:
                return self._in_progress_of(rnd)
            waiting = [n for n, s in rnd.seats.items() if s.action is None]
            raise ErrorReply(
                ErrorCode.ROUND_IN_PROGRESS, f"round {rnd.ident} waits for seats {waiting}"
            )
        return self._recorded(rnd)

    def shuffle(self, count: Any) -> dict[str, Any]:
        if isinstance(count, bool) or not isinstance(count, int):
            raise ErrorReply(ErrorCode.INVALID_REQUEST, f"count must be an integer, got {count!r}")
        if not 1 <= count <= MAX_SHUFFLE_DECKS:
            raise ErrorReply(ErrorCode.INVALID_REQUEST, f"count must be 1..{MAX_SHUFFLE_DECKS}")
        return {"decks": base64.b64encode(self.shuffled_decks(count).tobytes()).decode("ascii")}

    def rng(self, bytes: Any) -> dict[str, Any]:
        if isinstance(bytes, bool) or not isinstance(bytes, int) or not 1 <= bytes <= MAX_RNG_BYTES:
            raise ErrorReply(
                ErrorCode.INVALID_REQUEST, f"bytes must be an integer 1..{MAX_RNG_BYTES}"
            )
        return {"data": base64.b64encode(secrets.token_bytes(bytes)).decode("ascii")}

    def history(self, last: Any = 10) -> dict[str, Any]:
        if isinstance(last, bool) or not isinstance(last, int) or last < 0:
            raise ErrorReply(
                ErrorCode.INVALID_REQUEST, f"last must be a non-negative integer, got {last!r}"
            )
        idents = self._history[-last:] if last else []
        return {"rounds": [self._recorded(self._rounds[i]) for i in idents]}

    def bye(self) -> dict[str, Any]:
        return {}

    # ------------------------------------------------------------ verifying

    def verify_act(self, rnd: Round, seat: Any, action: Any) -> None:
        if rnd.phase is Phase.DONE:
            raise ErrorReply(ErrorCode.INVALID_ACTION, f"round {rnd.ident} is finished")
        if rnd.phase is Phase.VOID:
            raise ErrorReply(
                ErrorCode.INVALID_ACTION,
                f"round {rnd.ident} was interrupted and voided, its stakes returned",
            )
        if isinstance(seat, bool) or seat not in rnd.seats:
            raise ErrorReply(ErrorCode.INVALID_ACTION, f"seat {seat!r} is not in round {rnd.ident}")
        if rnd.seats[seat].action is not None:
            raise ErrorReply(ErrorCode.INVALID_ACTION, f"seat {seat} has already acted")
        if action not in (Action.CALL.value, Action.FOLD.value):
            raise ErrorReply(
                ErrorCode.INVALID_ACTION, f"action must be 'call' or 'fold', got {action!r}"
            )

    def _verify_bets(self, seats: Any) -> dict[int, tuple[int, int]]:
        """Wagers per seat; 001 rules 2-3: an ante is required, the AA Bonus only with it."""
        if not isinstance(seats, list) or not 1 <= len(seats) <= MAX_SEATS:
            raise ErrorReply(
                ErrorCode.INVALID_BET, f"seats must be a list of 1..{MAX_SEATS} wagers"
            )
        bets: dict[int, tuple[int, int]] = {}
        for entry in seats:
            if not isinstance(entry, dict):
                raise ErrorReply(
                    ErrorCode.INVALID_BET, f"a seat's wager must be an object, got {entry!r}"
                )
            number, ante, aa = entry.get("seat"), entry.get("ante", 0), entry.get("aa_bonus", 0)
            if not _is_int(number) or not 1 <= number <= MAX_SEATS or number in bets:
                raise ErrorReply(ErrorCode.INVALID_BET, f"bad or repeated seat number {number!r}")
            if not _is_int(ante) or not _is_int(aa):
                raise ErrorReply(ErrorCode.INVALID_BET, f"seat {number}: wagers must be integers")
            if aa and not ante:
                raise ErrorReply(ErrorCode.INVALID_BET, f"seat {number}: AA Bonus without an ante")
            if aa and self.profile.aa_table is None:
                raise ErrorReply(ErrorCode.INVALID_BET, "this game has no AA Bonus")
            if aa < 0:
                raise ErrorReply(ErrorCode.INVALID_BET, f"seat {number}: a negative AA Bonus")
            refused = self.table.refuses(ante, aa)  # limits and house rules
            if refused is not None:
                raise ErrorReply(ErrorCode.INVALID_BET, f"seat {number}: {refused}")
            bets[number] = (ante, aa)
        return bets

    # -------------------------------------------------------------- dealing

    def _dealt(self, order: list[int]) -> Dealt:
        """Deal from a production shuffle: one card at a time round the seats then
        the dealer, twice; then the flop, the turn and the river."""
        deck = iter(Card(i) for i in self.shuffled_deck())
        first = {n: next(deck) for n in order}
        dealer_first = next(deck)
        second = {n: next(deck) for n in order}
        dealer = (dealer_first, next(deck))
        flop = (next(deck), next(deck), next(deck))
        turn, river = next(deck), next(deck)
        return {n: (first[n], second[n]) for n in order}, dealer, flop, turn, river

    def _stacked_deal(self, cards: Any, order: list[int]) -> Dealt:
        """Test mode (capability `inject`): the cards the request stacks, verified."""
        try:
            if not isinstance(cards, dict) or not isinstance(cards.get("seats"), dict):
                raise InvalidCards(
                    "cards must be an object with 'seats', 'dealer', 'flop', 'turn', 'river'"
                )
            if sorted(cards["seats"]) != sorted(str(n) for n in order):
                raise InvalidCards(
                    f"cards are stacked for seats {sorted(cards['seats'])}, wagers for {order}"
                )
            holes = {n: _cards(cards["seats"][str(n)], 2) for n in order}
            dealer = _cards(cards.get("dealer"), 2)
            flop = _cards(cards.get("flop"), 3)
            turn, river = parse_card(cards.get("turn")), parse_card(cards.get("river"))
            every = [c for n in order for c in holes[n]] + [*dealer, *flop, turn, river]
            if len({c.index for c in every}) != len(every):
                raise InvalidCards("a card is stacked twice")
        except InvalidCards as exc:
            raise ErrorReply(ErrorCode.INVALID_CARDS, str(exc)) from exc
        return holes, dealer, flop, turn, river  # type: ignore[return-value]

    # ----------------------------------------------------------- settlement

    def _finish(self, rnd: Round) -> None:
        """All seats have decided: AA Bonus, turn and river, dealer, settlement."""
        for seat in rnd.seats.values():
            if seat.aa_bonus:
                self._settle_aa_bonus(seat, rnd.flop)
                rnd.log("aa_bonus_settled", seat.number)
        rnd.log("turn_dealt")
        rnd.log("river_dealt")
        board = (*rnd.flop, rnd.turn, rnd.river)
        rnd.dealer_strength = strength_of((*rnd.dealer, *board))
        rnd.log("dealer_revealed")
        for seat in rnd.seats.values():
            seat.final_strength = self.player_strength(rnd, seat, board)
            if seat.action is Action.CALL:
                self.settle_called_seat(seat, rnd.dealer_strength)
            else:
                seat.ante_returned = seat.call_returned = 0
            rnd.log("settled", seat.number)
        rnd.phase = Phase.DONE

    def _close(self, rnd: Round) -> str | None:
        """A round has ended (settled or voided): it joins the history, which keeps the
        last HISTORY_KEPT rounds; the id of the round it forgets, if any."""
        self._open_rounds.discard(rnd.ident)
        self._interrupted.discard(rnd.ident)
        if self.round_log is not None:
            self.round_log.write(rnd, [(s, self.call_stake(s)) for s in rnd.seats.values()])
        self._history.append(rnd.ident)
        if len(self._history) <= HISTORY_KEPT:
            return None
        forgotten = self._history.pop(0)
        del self._rounds[forgotten]
        return forgotten

    def _settle_aa_bonus(self, seat: Seat, flop: tuple[Card, Card, Card]) -> None:
        if seat.action is Action.FOLD and not self.aa_bonus_survives_fold():
            seat.aa_returned = 0
            return
        odds = self.aa_bonus_odds(strength_of((*seat.hole, *flop)))
        seat.aa_returned = 0 if odds is None else seat.aa_bonus * (1 + odds)

    def _recorded(self, rnd: Round) -> dict[str, Any]:
        """The `result` of a round that has ended, as `result` and `history` give it."""
        return self._void_result_of(rnd) if rnd.phase is Phase.VOID else self._result_of(rnd)

    def _result_of(self, rnd: Round) -> dict[str, Any]:
        assert rnd.dealer_strength is not None
        seats = []
        for seat in rnd.seats.values():
            assert seat.final_strength is not None
            seats.append(
                {
                    "seat": seat.number,
                    "action": seat.action.value if seat.action else None,
                    "hole": format_cards(seat.hole),
                    "hand": category_of(seat.final_strength).wire
                    if seat.action is Action.CALL
                    else None,
                    "wagers": {
                        "ante": {"stake": seat.ante, "returned": seat.ante_returned},
                        "call": {"stake": self.call_stake(seat), "returned": seat.call_returned},
                        "aa_bonus": {"stake": seat.aa_bonus, "returned": seat.aa_returned},
                    },
                }
            )
        return {
            "round": rnd.ident,
            "board": format_cards((*rnd.flop, rnd.turn, rnd.river)),
            "dealer": {
                "hole": format_cards(rnd.dealer),
                "hand": category_of(rnd.dealer_strength).wire,
                "qualifies": self.dealer_qualifies(rnd.dealer_strength),
            },
            "seats": seats,
            "events": list(rnd.events),
        }

    def _in_progress_of(self, rnd: Round) -> dict[str, Any]:
        """`result` of an interrupted round still taking decisions ("resume"): the cards
        and decisions the players have already seen, nothing dealt after them."""
        return {
            "round": rnd.ident,
            "status": "in_progress",
            "seats": [
                {
                    "seat": seat.number,
                    "hole": format_cards(seat.hole),
                    "action": seat.action.value if seat.action else None,
                }
                for seat in rnd.seats.values()
            ],
            "flop": format_cards(rnd.flop),
        }

    def _void_result_of(self, rnd: Round) -> dict[str, Any]:
        """`result` of a voided round: each wager returned in full, nothing else paid."""
        return {
            "round": rnd.ident,
            "status": "void",
            "seats": [
                {
                    "seat": seat.number,
                    "wagers": {
                        "ante": {"stake": seat.ante, "returned": seat.ante_returned},
                        "call": {"stake": self.call_stake(seat), "returned": seat.call_returned},
                        "aa_bonus": {"stake": seat.aa_bonus, "returned": seat.aa_returned}
                        if seat.aa_bonus
                        else None,
                    },
                }
                for seat in rnd.seats.values()
            ],
        }

    # ------------------------------------------------------------- recovery

    def _recover(self, store: RoundStore) -> None:
        """Rebuild the state a previous process left in the store (docs/adapter-protocol.md,
        "Interrupted rounds"). Rounds that awaited decisions were interrupted by its end:
        resumed as they stand, or voided now, in one transaction."""
        game = f"{type(self).__module__}:{type(self).__qualname__}"
        store.bind(game=game, profile=self._rules_id())
        self._load()
        interrupted = [r for r in self._rounds.values() if r.phase is Phase.DECISIONS]
        if self.recovery == "resume":
            self._interrupted = {r.ident for r in interrupted}
            return
        forgotten = []
        for rnd in interrupted:
            self._void(rnd)
            if (ident := self._close(rnd)) is not None:
                forgotten.append(ident)
        if interrupted:
            store.void(interrupted, forgotten)  # a failure here stops the start-up

    def _void(self, rnd: Round) -> None:
        """Void an interrupted round: every stake goes back, the call if it was made, and
        nothing else is paid (002 "malfunction", specs/clauses/s002.yaml s002-malfunction:
        "all affected game bets and payouts are rendered void"). The dealer's cards, the
        turn and the river are never dealt: they stay unseen, as they were."""
        for seat in rnd.seats.values():
            seat.ante_returned = seat.ante
            seat.call_returned = self.call_stake(seat)
            seat.aa_returned = seat.aa_bonus
        rnd.phase = Phase.VOID

    def _load(self) -> None:
        """Take the state the store holds as this game's own."""
        assert self._store is not None
        snapshot = self._store.load()
        self._rounds = snapshot.rounds
        self._history = snapshot.history
        self._next_round = snapshot.next_round
        self._open_rounds = {i for i, r in self._rounds.items() if r.phase is Phase.DECISIONS}
        self._interrupted &= self._open_rounds

    def _durably(self, write: Callable[..., None], *args: Any) -> None:
        """Commit a change to the store before any reply reveals it.

        When the store refuses (a full disk, a failing device), the state in memory is
        already ahead of it: it is reloaded from the store, so the change never happened
        for anyone, and the request is answered `internal`.
        """
        assert self._store is not None
        try:
            write(*args)
        except self._store.Error as exc:
            self._load()
            raise ErrorReply(
                ErrorCode.INTERNAL, f"the round store refused the change, nothing changed: {exc}"
            ) from exc

    def _rules_id(self) -> str:
        """The profile a store's rounds are dealt under: its name and a digest of what
        decides and renders a settlement (the declared config and the rule flags)."""
        rules = {"config": self.profile.declared_config(), "rules": self.profile.raw.get("rules")}
        text = json.dumps(rules, sort_keys=True, default=str)
        return f"{self.profile.name} (sha256 {hashlib.sha256(text.encode()).hexdigest()[:16]})"

    def _round(self, ident: Any) -> Round:
        if not isinstance(ident, str) or ident not in self._rounds:
            raise ErrorReply(ErrorCode.UNKNOWN_ROUND, f"no round {ident!r}")
        return self._rounds[ident]


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _cards(texts: Any, count: int) -> tuple[Card, ...]:
    if not isinstance(texts, list) or len(texts) != count:
        raise InvalidCards(f"expected a list of {count} cards, got {texts!r}")
    return tuple(parse_card(t) for t in texts)
