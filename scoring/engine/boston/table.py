"""Scoring a Boston table: deals become transfers, transfers become chips and money.

``BostonTable`` scores deal by deal (the web form adds one deal at a time);
``score_boston`` folds a whole list of deals through it (import and ``manage.py score``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal

from scoring.engine.boston.amounts import Amount, card_amount, tariff_amount
from scoring.engine.boston.deals import (
    SEATS,
    Adjustment,
    Ask,
    Card,
    Deal,
    Independence,
    Pass,
)
from scoring.engine.boston.rules import SUITS, BostonRules
from scoring.engine.errors import N_, RuleError
from scoring.engine.money import Payment, payments, to_cents


@dataclass(frozen=True, slots=True)
class Transfer:
    """Chips one player pays another in one deal, with why: a short ``rule`` key (e.g.
    ``"supported-won"``, ``"card-made"``) and the ``arithmetic`` behind the number."""

    payer: int
    payee: int
    chips: int
    rule: str
    arithmetic: str


@dataclass(frozen=True, slots=True)
class DealResult:
    """What one deal wrote: its 1-based ``number`` and its transfers, in order."""

    number: int
    transfers: tuple[Transfer, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class BostonSetup:
    """A Boston table: four players in clockwise seat order, the house rules, the price of
    a chip, optionally the deal from which every tour is double, and optionally the
    preference suit (the suit turned at the first deal, boston.md §3): a payment-tariff
    deal given by its trump is major in that suit and minor in the others."""

    players: tuple[str, ...]
    rules: BostonRules = field(default_factory=BostonRules)
    chip_price: Decimal = Decimal(1)
    double_tour_from: int | None = None
    preference_suit: str | None = None

    def __post_init__(self) -> None:
        if len(self.players) != SEATS or len(set(self.players)) != SEATS:
            raise RuleError(N_("must list 4 distinct player names"), field="players")
        if not isinstance(self.rules, BostonRules):
            raise RuleError(N_("must be Boston rules"), field="rules")
        if not isinstance(self.chip_price, Decimal) or not (
            self.chip_price.is_finite() and self.chip_price >= 0
        ):
            raise RuleError(N_("must be a price of at least 0"), field="chip_price")
        start = self.double_tour_from
        if start is not None and (
            isinstance(start, bool) or not isinstance(start, int) or start < 1
        ):
            raise RuleError(N_("must be a deal number of at least 1"), field="double_tour_from")
        suit = self.preference_suit
        if suit is not None and (not isinstance(suit, str) or suit not in SUITS):
            raise RuleError(
                N_("must be one of %(choices)s"), field="preference_suit", choices=", ".join(SUITS)
            )


@dataclass(frozen=True, slots=True)
class BostonResult:
    """The table's standing: chips per seat (received − paid, summing to zero), money per
    seat (chips × chip price, to the cent, summing to zero), the payments that settle the
    table, and every deal's transfers."""

    players: tuple[str, ...]
    chips: tuple[int, ...]
    money: tuple[Decimal, ...]
    payments: tuple[Payment, ...]
    deals: tuple[DealResult, ...]


class BostonTable:
    """A Boston table scored deal by deal; an invalid deal leaves it unchanged."""

    __slots__ = ("_chips", "_deals", "setup")

    def __init__(self, setup: BostonSetup) -> None:
        self.setup = setup
        self._chips = [0] * SEATS
        self._deals: list[DealResult] = []

    def copy(self) -> BostonTable:
        """The table in the same state, to play on independently, made without replaying
        (the deal results are immutable and shared)."""
        twin = BostonTable(self.setup)
        twin._chips = self._chips.copy()
        twin._deals = self._deals.copy()
        return twin

    def play(self, deal: Deal) -> DealResult:
        """Score the next deal and add it to the table.

        Everything is computed before anything changes, so a RuleError (located at this
        deal's number) leaves the table as it was.
        """
        number = len(self._deals) + 1
        try:
            transfers = score_deal(self.setup, number, deal)
        except RuleError as err:
            raise err.at_deal(number) from None
        result = DealResult(number, transfers)
        for transfer in transfers:
            self._chips[transfer.payer] -= transfer.chips
            self._chips[transfer.payee] += transfer.chips
        self._deals.append(result)
        return result

    def result(self) -> BostonResult:
        """The standing after the deals played so far."""
        chips = tuple(self._chips)
        cash = to_cents(chips, self.setup.chip_price)
        return BostonResult(
            players=self.setup.players,
            chips=chips,
            money=tuple(cash),
            payments=tuple(payments(cash)),
            deals=tuple(self._deals),
        )


def score_boston(setup: BostonSetup, deals: Iterable[Deal]) -> BostonResult:
    """Score a whole Boston table; a RuleError names the deal number it was raised at."""
    table = BostonTable(setup)
    for deal in deals:
        table.play(deal)  # locates any RuleError at this deal's number
    return table.result()


def is_double_tour(setup: BostonSetup, number: int, deal: Ask | Independence | Card) -> bool:
    """Whether deal ``number`` pays double: entered so, or the table switched to double
    tours at or before it."""
    start = setup.double_tour_from
    return deal.tour == "double" or (start is not None and number >= start)


def score_deal(setup: BostonSetup, number: int, deal: Deal) -> tuple[Transfer, ...]:
    """The transfers of deal ``number`` at this table (the table is not changed)."""
    match deal:
        case Pass():
            return ()
        case Adjustment():
            return _adjustment(deal)
        case Ask() | Independence():
            _require_system(
                setup.rules,
                "payment-tariff",
                N_("an ask or independence is not scored at a value-card table"),
            )
            double = is_double_tour(setup, number, deal)
            amount = tariff_amount(setup.rules, deal, double, setup.preference_suit)
        case Card():
            _require_system(
                setup.rules,
                "value-card",
                N_("a value-card contract is not scored at a payment-tariff table"),
            )
            amount = card_amount(setup.rules, deal, is_double_tour(setup, number, deal))
        case _:
            raise RuleError(N_("unknown kind of deal"), field="kind")
    return _side_transfers(setup.rules, deal.declarer, deal.partner, amount)


def _require_system(rules: BostonRules, system: str, refusal: str) -> None:
    # A table keeps to one system: the two price the same words differently (independence
    # is 8 tricks in the tariff, 6 on the card).
    if rules.system != system:
        raise RuleError(refusal, field="kind")


def _adjustment(deal: Adjustment) -> tuple[Transfer, ...]:
    return tuple(
        Transfer(payer, payee, chips, "adjustment", deal.reason)
        for payer, payee, chips in deal.transfers
    )


def _side_transfers(
    rules: BostonRules, declarer: int, partner: int | None, amount: Amount
) -> tuple[Transfer, ...]:
    """Who pays whom ``amount.chips``: the declaring side's transfers, declarer first, each
    with the opponents in seat order."""
    side = (declarer,) if partner is None else (declarer, partner)
    opponents = tuple(seat for seat in range(SEATS) if seat not in side)
    if partner is None or rules.supported_payers == "each":
        pairs = [(player, opponent) for player in side for opponent in opponents]
    else:
        pairs = list(zip(side, _paired_opponents(declarer, opponents), strict=True))
    return tuple(_transfer(player, opponent, amount) for player, opponent in pairs)


def _paired_opponents(declarer: int, opponents: tuple[int, ...]) -> tuple[int, int]:
    """Under ``pairs`` the declarer's opponent is the one sitting next clockwise after
    him; the partner's opponent is the other."""
    after = next(
        (declarer + step) % SEATS
        for step in range(1, SEATS)
        if (declarer + step) % SEATS in opponents
    )
    other = next(seat for seat in opponents if seat != after)
    return after, other


def _transfer(player: int, opponent: int, amount: Amount) -> Transfer:
    payer, payee = (opponent, player) if amount.won else (player, opponent)
    return Transfer(payer, payee, amount.chips, amount.rule, amount.arithmetic)
