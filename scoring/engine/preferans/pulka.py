"""Scoring a pulka deal by deal (preferans.md §4–§9).

``Pulka`` holds the sheet as it stands and plays one deal at a time: it checks the whole
deal first (a ``RuleError`` leaves the sheet unchanged), works out what the rules write,
then writes it through the pool-closing rule of §8. ``score_pulka`` replays a record.
"""

from __future__ import annotations

import copy
import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import NamedTuple

from scoring.engine.errors import N_, RuleError
from scoring.engine.money import Payment, payments, to_cents
from scoring.engine.preferans.deals import (
    SUITS,
    Adjustment,
    Amount,
    Concede,
    Deal,
    Entry,
    Game,
    Misere,
    Passout,
)
from scoring.engine.preferans.rules import SOCHI, PreferansRules
from scoring.engine.text import Text

MAX_POOL_TARGET = 10_000
MAX_ADJUSTMENT = 1_000_000
ANSWERS = frozenset(("whist", "pass", "half"))
MAX_CONTROL_TIME_DEAL = 100_000
MAX_FAST_TRICKS = 3
"""The widow premium's fast tricks: an ace or king-queen of a suit 1, ace-king 2, two aces 3."""
SAME_DEALER_PASSOUTS = 3
"""Classic: the dealer deals again after a pass-out, up to this many in a row (§6)."""


@dataclass(frozen=True, slots=True)
class PulkaSetup:
    """The agreed conditions in the sheet's centre (seed fields 1–4) and the tariff.

    ``control_time_deal`` is the number of deals (adjustments not counted) played when the
    control time was reached (seed field 3, §13.12), ``None`` while it has not been.
    """

    players: tuple[str, ...]
    rules: PreferansRules = SOCHI
    first_dealer: int = 0
    pool_target: int = 20
    whist_price: Decimal = Decimal(1)
    control_time_deal: int | None = None

    def __post_init__(self) -> None:
        if len(self.players) not in (3, 4):
            raise RuleError(N_("a pulka has 3 or 4 players"), field="players")
        if not 0 <= self.first_dealer < len(self.players):
            raise RuleError(N_("must be one of the players"), field="first_dealer")
        if not 0 < self.pool_target <= MAX_POOL_TARGET:
            raise RuleError(
                N_("must be from %(low)s to %(high)s"),
                field="pool_target",
                low=1,
                high=MAX_POOL_TARGET,
            )
        if self.control_time_deal is not None and not (
            0 <= self.control_time_deal <= MAX_CONTROL_TIME_DEAL
        ):
            raise RuleError(
                N_("must be from %(low)s to %(high)s"),
                field="control_time_deal",
                low=0,
                high=MAX_CONTROL_TIME_DEAL,
            )

    @property
    def size(self) -> int:
        """The number of players, 3 or 4."""
        return len(self.players)


class DealResult(NamedTuple):
    """What one deal wrote: ``dealer`` is ``None`` for an adjustment (not a deal).

    A named tuple like ``Entry``: one is built per deal on the hot path."""

    n: int
    dealer: int | None
    entries: tuple[Entry, ...]


@dataclass(frozen=True, slots=True)
class PulkaResult:
    """The sheet's totals and its settlement (§9).

    ``first_dealer`` is the seat the arrow points at (§13.13) and ``dealer`` the seat that
    deals next; ``last_round`` tells whether the control time has been reached and
    ``deals_left`` how many deals the last round still has at least (§13.12).
    """

    setup: PulkaSetup
    pool: tuple[Amount, ...]
    mountain: tuple[Amount, ...]
    whists: tuple[tuple[Amount, ...], ...]
    """``whists[i][j]``: all whists ``i`` wrote on ``j``."""
    balances: tuple[Fraction, ...]
    money: tuple[Decimal, ...]
    payments: tuple[Payment, ...]
    complete: bool
    deals: tuple[DealResult, ...]
    first_dealer: int = 0
    dealer: int = 0
    last_round: bool = False
    deals_left: int | None = None


class Pulka:
    """A pulka in play: the sheet plus what the next deal depends on (dealer, pass-out
    series, dark row, bombs, the last round)."""

    def __init__(self, setup: PulkaSetup) -> None:
        self.setup = setup
        self.rules = setup.rules
        n = setup.size
        self.pool: list[Amount] = [0] * n
        self.mountain: list[Amount] = [0] * n
        self.whists: list[list[Amount]] = [[0] * n for _ in range(n)]
        self.dealer = setup.first_dealer
        self.passouts_in_series = 0
        self.dark_row = 0
        self.same_dealer_passouts = 0
        self.bombs: list[list[int]] = [[] for _ in range(n)]
        self.closed = False
        self.deals: list[DealResult] = []
        self.played = 0
        """Deals played so far, adjustments not counted (§13.12)."""
        self.control_time_deal: int | None = None
        """``played`` when the control time was reached; ``None`` before."""
        self.circles_left: int | None = None
        """In the last round: how many more times the deal must pass to the first dealer
        before the pulka is complete; ``None`` before the control time."""
        # Looked up on every deal, so worked out once: seats by dealer, amounts by level.
        self._active = [_active_seats(n, dealer) for dealer in range(n)]
        self._active_set = [frozenset(seats) for seats in self._active]
        self._defenders = [
            [
                tuple(s for s in _clockwise_after(n, declarer) if n == 3 or s != dealer)
                for declarer in range(n)
            ]
            for dealer in range(n)
        ]
        self._rates = {level: _Rates.of(self.rules, level) for level in (6, 7, 8, 9, 10)}
        # §13.9: overflow is handed out in seat order, counted from the first dealer.
        self._writing_order = tuple((seat - setup.first_dealer) % n for seat in range(n))
        if setup.control_time_deal == 0:
            self._reach_control_time()

    # -- what the next deal may be -------------------------------------------------------

    @property
    def complete(self) -> bool:
        """Every pool has reached the target (§8), or the last round is over (§13.12)."""
        return self.circles_left == 0 or min(self.pool) >= self.setup.pool_target

    @property
    def first_dealer(self) -> int:
        """The seat the arrow points at: who dealt first (§13.13). ``dealer`` is the seat
        that deals next."""
        return self.setup.first_dealer

    @property
    def last_round(self) -> bool:
        """The control time has been reached: the round is being finished (§13.12)."""
        return self.circles_left is not None

    def deals_left(self) -> int | None:
        """How many deals the last round has left (``None`` before the control time).

        Counted as if the deal passed after every deal; a dealer who deals again after a
        pass-out (``passout_same_dealer``) adds deals, so it is the least number left.
        """
        if self.circles_left is None:
            return None
        if self.circles_left == 0:
            return 0
        n = self.setup.size
        to_first = (self.setup.first_dealer - self.dealer) % n or n
        return to_first + (self.circles_left - 1) * n

    def mark_control_time(self) -> None:
        """The control time is reached now (the scorer's button or the table's clock):
        the round is finished from here (§13.12). Marking it again changes nothing.

        The setup then says so too (``control_time_deal``), so the pulka is the one a
        replay of its record gives."""
        if self.circles_left is None:
            self._reach_control_time()
            self.setup = dataclasses.replace(self.setup, control_time_deal=self.played)

    def _reach_control_time(self) -> None:
        self.control_time_deal = self.played
        at_first = self.dealer == self.setup.first_dealer
        self.circles_left = (0 if at_first else 1) + (self.rules.last_round == "one_more_circle")

    def active_seats(self) -> tuple[int, ...]:
        """The seats that hold cards: everyone but the 4-player dealer (§1)."""
        return self._active[self.dealer]

    def defenders(self, declarer: int) -> tuple[int, ...]:
        """The declarer's opponents in the order they speak: clockwise after him."""
        return self._defenders[self.dealer][declarer]

    def lowest_contract(self) -> int:
        """The lowest level allowed now: the pass-out exit after a series (§6)."""
        k = self.passouts_in_series
        if k == 0:
            return 6
        ladder = self.rules.passout_exit
        return ladder[min(k, len(ladder)) - 1]

    def passout_price(self) -> int:
        """The per-trick price ``p_k`` of the next pass-out of the series (§6): past the
        ladder's end the last step repeats, or the ladder starts again (§14.4)."""
        ladder = self.rules.passout_ladder
        if self.rules.passout_ladder_repeat == "cycle":
            return ladder[self.passouts_in_series % len(ladder)]
        return ladder[min(self.passouts_in_series + 1, len(ladder)) - 1]

    def bomb(self, seat: int) -> int:
        """The multiplier of the bomb ``seat`` would play next (1: none) (§7)."""
        queue = self.bombs[seat]
        return queue[0] if queue else 1

    def close(self) -> None:
        """Close the pulka early (an organiser at the control time): no more deals."""
        self.closed = True

    def copy(self) -> Pulka:
        """The pulka in the same state, to play on independently, made without replaying:
        what playing changes is copied; the setup, the lookup tables and the deal results
        (immutable) are shared."""
        twin = copy.copy(self)
        twin.pool = self.pool.copy()
        twin.mountain = self.mountain.copy()
        twin.whists = [row.copy() for row in self.whists]
        twin.bombs = [queue.copy() for queue in self.bombs]
        twin.deals = self.deals.copy()
        return twin

    # -- playing ---------------------------------------------------------------------------

    def play(self, deal: Deal) -> DealResult:
        """Check ``deal``, write it on the sheet and move the game on.

        Raises ``RuleError`` (naming the deal number and field) and changes nothing when
        the deal breaks the rules.
        """
        n = len(self.deals) + 1
        try:
            self._check(deal)
        except RuleError as error:
            raise error.at_deal(n) from None
        dealer: int | None = None if isinstance(deal, Adjustment) else self.dealer
        entries = self._write(self._score(deal), as_entered=isinstance(deal, Adjustment))
        self._advance(deal)
        result = DealResult(n, dealer, tuple(entries))
        self.deals.append(result)
        return result

    def result(self) -> PulkaResult:
        """The sheet as it stands, settled."""
        balances = settle(self.rules, self.pool, self.mountain, self.whists)
        money = to_cents(balances, self.setup.whist_price)
        return PulkaResult(
            setup=self.setup,
            pool=tuple(self.pool),
            mountain=tuple(self.mountain),
            whists=tuple(tuple(row) for row in self.whists),
            balances=tuple(balances),
            money=tuple(money),
            payments=tuple(payments(money)),
            complete=self.complete,
            deals=tuple(self.deals),
            first_dealer=self.setup.first_dealer,
            dealer=self.dealer,
            last_round=self.last_round,
            deals_left=self.deals_left(),
        )

    # -- checking (§10) ----------------------------------------------------------------------

    def _check(self, deal: Deal) -> None:
        if isinstance(deal, Adjustment):
            self._check_adjustment(deal)
            return
        if self.closed:
            raise RuleError(N_("the pulka was closed; only adjustments are allowed"), field="kind")
        if self.complete:
            raise RuleError(N_("the pulka is complete; only adjustments are allowed"), field="kind")
        if isinstance(deal, Concede):
            self._check_concede(deal)
            return
        if deal.dark and not self.rules.dark_games:
            raise RuleError(N_("dark games are not played under this tariff"), field="dark")
        if isinstance(deal, Game):
            self._check_game(deal)
        elif isinstance(deal, Misere):
            self._check_declarer(deal.declarer)
            if not 0 <= deal.tricks <= 10:
                raise RuleError(N_("must be from 0 to 10"), field="tricks")
        else:
            self._check_passout(deal)

    def _check_declarer(self, declarer: int) -> None:
        if declarer not in self.active_seats():
            raise RuleError(
                N_("must be an active player (the 4-player dealer sits out)"), field="declarer"
            )

    def _check_contract(self, declarer: int, level: int, suit: str) -> None:
        """The declarer, the contract and the pass-out exit (§6, §10)."""
        self._check_declarer(declarer)
        if level not in (6, 7, 8, 9, 10):
            raise RuleError(N_("the level must be from 6 to 10"), field="contract")
        if suit not in SUITS:
            raise RuleError(N_("the suit must be S, C, D, H or N"), field="contract")
        lowest = self.lowest_contract()
        if level < lowest:
            raise RuleError(
                N_("after %(count)s pass-out(s) the lowest contract is %(level)s"),
                field="contract",
                count=self.passouts_in_series,
                level=lowest,
            )

    def _check_concede(self, concede: Concede) -> None:
        if not self.rules.concede:
            raise RuleError(
                N_("conceding a contract is not allowed under this tariff"), field="kind"
            )
        self._check_contract(concede.declarer, concede.level, concede.suit)
        undertricks = self._undertricks(concede)
        if not 1 <= undertricks <= concede.level:
            raise RuleError(
                N_("a %(level)s is conceded with 1 to %(level)s undertricks"),
                field="undertricks",
                level=concede.level,
            )

    def _undertricks(self, concede: Concede) -> int:
        """The record's undertricks, or the club's usual number (``concede_undertricks``)."""
        if concede.undertricks is None:
            return self.rules.concede_undertricks
        return concede.undertricks

    def _check_game(self, game: Game) -> None:
        rules = self.rules
        self._check_contract(game.declarer, game.level, game.suit)
        defenders = self.defenders(game.declarer)
        answers = [game.answers.get(s) for s in defenders]
        if len(game.answers) != len(defenders) or None in answers:
            raise RuleError(N_("give an answer for each defender and nobody else"), field="answers")
        if not ANSWERS.issuperset(answers):
            raise RuleError(N_("each answer must be whist, pass or half"), field="answers")
        if "half" in answers:
            if answers != ["pass", "half"]:
                raise RuleError(
                    N_("half-whist is said by the second defender after the first passed"),
                    field="answers",
                )
            if game.level not in rules.half_whist_levels:
                raise RuleError(
                    N_("half-whist is not allowed on a %(level)s"),
                    field="answers",
                    level=game.level,
                )
        both_whist = answers == ["whist", "whist"]
        if rules.stalingrad and (game.level, game.suit) == (6, "S") and not both_whist:
            raise RuleError(N_("6♠ is whisted by both (Stalingrad)"), field="answers")
        if game.level == 10 and not rules.ten_is_whisted and answers != ["pass", "pass"]:
            raise RuleError(N_("a 10 is not whisted under this tariff"), field="answers")
        if "whist" in answers:
            if game.tricks is None:
                raise RuleError(N_("give every active player's tricks"), field="tricks")
            self._check_tricks(game.tricks, self._active_set[self.dealer], 10)
        elif game.tricks is not None:
            raise RuleError(N_("tricks are not entered when nobody whists"), field="tricks")
        if game.fast_tricks:
            if not rules.widow_premium:
                raise RuleError(
                    N_("the widow premium is not played under this tariff"), field="fast_tricks"
                )
            if not 0 <= game.fast_tricks <= MAX_FAST_TRICKS:
                raise RuleError(
                    N_("must be from %(low)s to %(high)s"),
                    field="fast_tricks",
                    low=0,
                    high=MAX_FAST_TRICKS,
                )
            if game.tricks is None:
                raise RuleError(
                    N_("the widow premium is written only on a game that was played"),
                    field="fast_tricks",
                )

    def _check_passout(self, passout: Passout) -> None:
        tricks, dealer_tricks = self._passout_tricks(passout)
        if dealer_tricks is not None:
            if self.setup.size != 4 or not self.rules.dealer_takes_widow_tricks:
                raise RuleError(
                    N_("only a 4-player dealer playing the widow takes tricks"),
                    field="dealer_tricks",
                )
            if not 0 <= dealer_tricks <= 2:
                raise RuleError(N_("the dealer takes 0–2 widow tricks"), field="dealer_tricks")
        self._check_tricks(tricks, self._active_set[self.dealer], 10 - (dealer_tricks or 0))
        if passout.looked and not passout.dark:
            raise RuleError(N_("only a dark pass-out records who looked"), field="looked")
        if not set(passout.looked) <= set(self.active_seats()):
            raise RuleError(N_("must name active players"), field="looked")

    def _passout_tricks(self, passout: Passout) -> tuple[Mapping[int, int], int | None]:
        """The active seats' tricks and the 4-player dealer's widow tricks, which a record
        may give either in ``tricks`` or as ``dealer_tricks``."""
        tricks, dealer_tricks = passout.tricks, passout.dealer_tricks
        if self.setup.size == 4 and self.dealer in tricks:
            in_tricks = tricks[self.dealer]
            if dealer_tricks is not None and dealer_tricks != in_tricks:
                raise RuleError(
                    N_("the dealer's tricks are given twice, differently"), field="dealer_tricks"
                )
            tricks = {s: t for s, t in tricks.items() if s != self.dealer}
            dealer_tricks = in_tricks
        return tricks, dealer_tricks

    @staticmethod
    def _check_tricks(tricks: Mapping[int, int], seats: frozenset[int], total: int) -> None:
        if tricks.keys() != seats:
            raise RuleError(
                N_("give the tricks of every active player and nobody else"), field="tricks"
            )
        values = tricks.values()
        if min(values) < 0 or max(values) > 10:
            raise RuleError(N_("each player's tricks must be from 0 to 10"), field="tricks")
        got = sum(values)
        if got != total:
            raise RuleError(
                N_("must add up to %(total)s, got %(got)s"), field="tricks", total=total, got=got
            )

    def _check_adjustment(self, adjustment: Adjustment) -> None:
        if not adjustment.reason.strip():
            raise RuleError(N_("an adjustment needs a reason"), field="reason")
        n = self.setup.size
        amounts = [*adjustment.pool.values(), *adjustment.mountain.values()]
        amounts += [amount for _, _, amount in adjustment.whists]
        if any(abs(a) > MAX_ADJUSTMENT for a in amounts):
            raise RuleError(
                N_("amounts must be within ±%(limit)s"), field="amount", limit=MAX_ADJUSTMENT
            )
        for name, part in (("pool", adjustment.pool), ("mountain", adjustment.mountain)):
            if any(not 0 <= s < n for s in part):
                raise RuleError(N_("must name players of this pulka"), field=name)
        for writer, on, _ in adjustment.whists:
            if not (0 <= writer < n and 0 <= on < n) or writer == on:
                raise RuleError(N_("whists are written by one player on another"), field="whists")

    # -- what the rules write (§4–§7) ------------------------------------------------------

    def _score(self, deal: Deal) -> list[Entry]:
        if isinstance(deal, Game):
            return self._multiplied(deal.declarer, deal.dark, self._score_game(deal))
        if isinstance(deal, Misere):
            return self._multiplied(deal.declarer, deal.dark, self._score_misere(deal))
        if isinstance(deal, Passout):
            return self._score_passout(deal)
        if isinstance(deal, Concede):
            return self._score_concede(deal)
        return _score_adjustment(deal)

    def _multiplied(self, declarer: int, dark: bool, entries: list[Entry]) -> list[Entry]:
        """Every amount of a dark contract or one played on a bomb, multiplied (§7)."""
        factors = []
        if dark:
            factors.append((self.rules.dark_multiplier, N_("%(calc)s × %(factor)s dark")))
        if self.rules.bombs and self.bombs[declarer]:
            factors.append((self.bomb(declarer), N_("%(calc)s × %(factor)s bomb")))
        if not factors:
            return entries
        factor = math.prod(f for f, _ in factors)
        return [
            Entry(e.kind, e.player, e.amount * factor, e.rule, _times(e.calc, factors), e.on)
            for e in entries
        ]

    def _score_game(self, game: Game) -> list[Entry]:
        declarer = game.declarer
        rates = self._rates[game.level]
        defenders = self.defenders(declarer)
        answers = [game.answers[s] for s in defenders]
        if game.tricks is None:  # nobody whisted (checked): no play
            entries = [Entry("pool", declarer, rates.value, "game-unplayed", f"{rates.value}")]
            if "half" in answers:
                half = Fraction(rates.obligation, 2)
                amount = _exact(half * rates.whist)
                calc = f"{half} × {rates.whist} = {amount}"
                entries.append(Entry("whists", defenders[1], amount, "half-whist", calc, declarer))
            return entries
        return self._score_played(game, game.tricks, defenders, answers, rates)

    def _score_played(
        self,
        game: Game,
        tricks: Mapping[int, int],
        defenders: tuple[int, ...],
        answers: Sequence[str],
        rates: _Rates,
    ) -> list[Entry]:
        declarer = game.declarer
        defence = 10 - tricks[declarer]
        under = max(0, game.level - tricks[declarer])
        consolation = under * rates.consolation
        whisters = [s for s, a in zip(defenders, answers, strict=True) if a == "whist"]
        entries: list[Entry] = []
        if under == 0:
            entries.append(Entry("pool", declarer, rates.value, "game-made", f"{rates.value}"))
        else:
            entries.append(
                Entry(
                    "mountain",
                    declarer,
                    under * rates.remise,
                    "remise",
                    f"{under} × {rates.remise} = {under * rates.remise}",
                )
            )

        # Whists on the declarer: (writer, amount, rule, arithmetic); zero amounts are not
        # written.
        whists: list[tuple[int, Amount, str, str]] = []
        # Gentleman's whist: one whister on a remise shares everything with the passer.
        split = under and len(whisters) == 1 and self.rules.lone_whist == "gentleman"
        if split:
            # §14.9: a passer who writes no consolation adds none to the split either.
            consoling = 2 if self.rules.consolation_by_passer else 1
            share = _exact(Fraction(defence * rates.whist + consoling * consolation, 2))
            calc = f"({defence} × {rates.whist} + {consoling} × {consolation}) / 2 = {share}"
            whists += [(s, share, "gentleman-split", calc) for s in defenders]
        elif len(whisters) == 2:
            for w in whisters:
                amount = tricks[w] * rates.whist
                whists.append(
                    (w, amount, "whists-for-tricks", f"{tricks[w]} × {rates.whist} = {amount}")
                )
        else:  # a lone whister is paid for the passer's tricks too (greedy)
            amount = defence * rates.whist
            whists.append(
                (whisters[0], amount, "lone-whist", f"{defence} × {rates.whist} = {amount}")
            )
        if under:
            calc = f"{under} × {rates.consolation} = {consolation}"
            if not split:
                whists += [
                    (s, consolation, "consolation", calc)
                    for s in defenders
                    if s in whisters or self.rules.consolation_by_passer
                ]
            if self.setup.size == 4 and self.rules.consolation_by_dealer:
                whists.append((self.dealer, consolation, "consolation-dealer", calc))
        if game.fast_tricks and self.rules.widow_premium:
            whists += self._widow_premium(game.fast_tricks, rates, defenders)
        entries += [
            Entry("whists", writer, amount, rule, calc, declarer)
            for writer, amount, rule, calc in whists
            if amount
        ]
        if not under or self.rules.duty_on_remise:
            entries += self._whister_duty(rates, tricks, whisters, defence)
        return entries

    def _widow_premium(
        self, fast: int, rates: _Rates, defenders: tuple[int, ...]
    ) -> list[tuple[int, Amount, str, str]]:
        """The widow premium (docs/rules.md, ФСПР): the fast tricks × the whist per trick,
        made or not; with 4 players the dealer writes it all on the declarer, with 3 each
        opponent writes half, whoever dealt."""
        pot = fast * rates.whist
        if self.setup.size == 4:
            return [(self.dealer, pot, "widow-premium", f"{fast} × {rates.whist} = {pot}")]
        half = _exact(Fraction(pot, 2))
        calc = f"{fast} × {rates.whist} / 2 = {half}"
        return [(s, half, "widow-premium", calc) for s in defenders]

    def _whister_duty(
        self,
        rates: _Rates,
        tricks: Mapping[int, int],
        whisters: list[int],
        defence: int,
    ) -> list[Entry]:
        """Mountain for whisters who fell short of the defence obligation (§4.3 step 5,
        §13.3, §13.4)."""
        obligation, rate = rates.obligation, rates.penalty
        if self.rules.whister_duty == "none" or obligation == 0:
            return []
        if len(whisters) == 1:
            shortfalls = [(whisters[0], Fraction(obligation - defence))]
        else:
            shortfalls = self._two_whister_shortfalls(obligation, tricks, whisters, defence)
        return [
            Entry(
                "mountain",
                seat,
                _exact(short * rate),
                "whister-duty",
                f"{_exact(short)} × {rate} = {_exact(short * rate)}",
            )
            for seat, short in shortfalls
            if short > 0
        ]

    def _two_whister_shortfalls(
        self, obligation: int, tricks: Mapping[int, int], whisters: list[int], defence: int
    ) -> list[tuple[int, Fraction]]:
        """Each whister's shortfall in tricks under ``two_whister_duty`` (and, at
        obligation 1, ``duty_at_one``); the second whister is the later one clockwise."""
        mode = self.rules.two_whister_duty
        first, second = whisters
        pair_short = Fraction(obligation - defence)
        if mode == "pair":
            weaker = first if tricks[first] < tricks[second] else second
            return [(weaker, pair_short)]
        if mode == "proportional":
            if pair_short <= 0:
                return []
            half = Fraction(obligation, 2)
            deficits = [(w, max(Fraction(0), half - tricks[w])) for w in whisters]
            total = sum(d for _, d in deficits)
            return [(w, pair_short * d / total) for w, d in deficits]
        if mode == "personal_if_pair_short" and pair_short <= 0:
            return []
        if obligation == 1:
            at_one = self.rules.duty_at_one
            if at_one == "second":
                return [(second, Fraction(1 - defence))]
            if at_one == "second_own":
                return [(second, Fraction(1 - tricks[second]))]
            if at_one == "both":
                return [(w, Fraction(1 - defence)) for w in whisters]
            if at_one == "none":  # §14.6
                return []
            return [(w, Fraction(1 - tricks[w])) for w in whisters]
        quota = obligation // 2
        return [
            (first, Fraction(quota - tricks[first])),
            (second, Fraction(obligation - quota - tricks[second])),
        ]

    def _score_concede(self, concede: Concede) -> list[Entry]:
        """A conceded contract (§13.11): the undertricks into the declarer's mountain and,
        with ``concede_consolation``, consolation from every consoling player."""
        declarer = concede.declarer
        rates = self._rates[concede.level]
        under = self._undertricks(concede)
        remise = _exact(under * rates.remise)
        entries = [
            Entry("mountain", declarer, remise, "concede", f"{under} × {rates.remise} = {remise}")
        ]
        consolation = _exact(under * rates.consolation)
        if self.rules.concede_consolation and consolation:
            consolers = list(self.defenders(declarer))
            if self.setup.size == 4 and self.rules.consolation_by_dealer:
                consolers.append(self.dealer)
            calc = f"{under} × {rates.consolation} = {consolation}"
            entries += [
                Entry("whists", s, consolation, "concede-consolation", calc, declarer)
                for s in consolers
            ]
        return entries

    def _score_misere(self, misere: Misere) -> list[Entry]:
        rules = self.rules
        if misere.tricks == 0:
            value = rules.misere_value
            return [Entry("pool", misere.declarer, value, "misere-made", f"{value}")]
        penalty = misere.tricks * rules.misere_penalty
        calc = f"{misere.tricks} × {rules.misere_penalty} = {penalty}"
        entries = [Entry("mountain", misere.declarer, penalty, "misere-failed", calc)]
        if rules.misere_consolation:  # §14.2
            consolation = misere.tricks * rules.misere_consolation
            calc = f"{misere.tricks} × {rules.misere_consolation} = {consolation}"
            consolers = list(self.defenders(misere.declarer))
            if self.setup.size == 4 and rules.consolation_by_dealer:
                consolers.append(self.dealer)
            entries += [
                Entry("whists", s, consolation, "misere-consolation", calc, misere.declarer)
                for s in consolers
            ]
        return entries

    def _score_passout(self, passout: Passout) -> list[Entry]:
        rules = self.rules
        tricks, dealer_tricks = self._passout_tricks(passout)
        widow_dealer = None
        if self.setup.size == 4 and rules.dealer_takes_widow_tricks:
            widow_dealer = self.dealer
            tricks = {**tricks, self.dealer: dealer_tricks or 0}
        # A dark pass-out doubles everything written for tricks (seed 001: «удваиваются»).
        dark = 2 if passout.dark else 1
        price = self.passout_price() * dark
        label = Text(
            N_("p%(number)s × 2 dark") if passout.dark else N_("p%(number)s"),
            number=self.passouts_in_series + 1,
        )
        seats = sorted(tricks)
        if rules.passout_mode == "whists":
            return self._passout_whists(seats, tricks, price, dark, label, widow_dealer)
        relief = min(tricks.values()) if rules.passout_amnesty else 0
        entries = []
        for s in seats:
            counted = tricks[s] - relief
            if counted:
                entries.append(
                    Entry(
                        "mountain",
                        s,
                        counted * price,
                        "passout",
                        Text(
                            "%(count)s × %(price)s (%(label)s)",
                            count=counted,
                            price=price,
                            label=label,
                        ),
                    )
                )
            if tricks[s] == 0 and s != widow_dealer:
                entries += self._zero_bonus(
                    s, price, price, Text("%(price)s (%(label)s)", price=price, label=label)
                )
        return entries

    def _zero_bonus(self, seat: int, price: int, standard: int, calc: str) -> list[Entry]:
        """What a zero-trick player writes on a pass-out (§6, §13.6): ``price`` is the
        deal's per-trick price, ``standard`` the mode's usual bonus (mountain mode: the
        price; whist mode: 1 point, doubled when dark) and ``calc`` its arithmetic."""
        bonus = self.rules.passout_zero_bonus
        if bonus == "none":
            return []
        if bonus == "one":
            return [Entry("pool", seat, 1, "passout-zero", "1")]
        if bonus == "mountain":
            return [Entry("mountain", seat, -2 * price, "passout-zero", f"−2 × {price}")]
        return [Entry("pool", seat, standard, "passout-zero", calc)]

    def _passout_whists(
        self,
        seats: list[int],
        tricks: Mapping[int, int],
        price: int,
        dark: int,
        label: Text,
        widow_dealer: int | None,
    ) -> list[Entry]:
        """Rostov: the fewest-tricks players write whists on the others (§6)."""
        fewest = min(tricks.values())
        low = [s for s in seats if tricks[s] == fewest]
        per_trick = self.rules.passout_whists * price
        # §14.3: players tied for fewest share the amount, each his part rounded down.
        share = len(low) if self.rules.passout_whists_tie == "split" else 1
        entries = []
        for writer in low:
            for s in seats:
                if s not in low:
                    amount = tricks[s] * per_trick // share
                    calc = Text(
                        "%(tricks)s × %(whists)s × %(price)s (%(label)s)",
                        tricks=tricks[s],
                        whists=self.rules.passout_whists,
                        price=price,
                        label=label,
                    )
                    if share > 1:
                        calc = Text(
                            N_("%(calc)s, shared by %(count)s: %(amount)s"),
                            calc=calc,
                            count=share,
                            amount=amount,
                        )
                    if amount:
                        entries.append(Entry("whists", writer, amount, "passout-whists", calc, s))
        for s in seats:
            if tricks[s] == 0 and s != widow_dealer:
                entries += self._zero_bonus(s, price, dark, f"{dark}")
        return entries

    # -- writing on the sheet (§8) ----------------------------------------------------------

    def _write(self, entries: Iterable[Entry], *, as_entered: bool = False) -> list[Entry]:
        """Write a deal's entries on the sheet, pool points through §8 in the order of
        §13.9: every player's own points first (a negative correction too), then the
        overflow of each, in seat order from the first dealer, right after the deal's last
        pool entry.

        ``as_entered`` (an adjustment) keeps the first edition's order instead: each pool
        entry's overflow right after it, in the order the adjustment lists them. An
        adjustment mixing a raised and a lowered pool could otherwise close a pulka it did
        not close before (help landing in the pool lowered after it), and a stored table
        would stop replaying; §13.9 is about a deal's own points (two zero-trick bonuses),
        not about corrections, which are written as the scorer gave them."""
        entries = list(entries)
        last = -1
        for i, entry in enumerate(entries):
            if entry.kind == "pool":
                last = i
        written: list[Entry] = []
        overflow: list[tuple[int, Amount, bool]] = []
        # §14.7: a zero-trick bonus past the target may come off the mountain, helping none.
        bonus_helps = self.rules.zero_bonus_when_closed == "help"
        shift = self.rules.overflow_floor == "shift_all" and not as_entered
        for i, entry in enumerate(entries):
            kind, player, amount, rule, calc, on = entry
            if kind == "pool":
                if amount > 0:
                    rest = self._write_own_pool(entry, written)
                    if rest:
                        overflow.append((player, rest, bonus_helps or rule != "passout-zero"))
                else:
                    self.pool[player] += amount
                    written.append(entry)
                if overflow and (as_entered or i == last):
                    overflow.sort(key=lambda item: self._writing_order[item[0]])
                    for seat, points, helps in overflow:
                        self._write_overflow(seat, points, written, helps=helps)
                    overflow.clear()
                continue
            elif kind == "mountain":
                if shift and amount < 0:
                    self._lower_mountain(player, -amount, rule, calc, written)
                    continue
                self.mountain[player] += amount
            elif on is not None:
                self.whists[player][on] += amount
            written.append(entry)
        return written

    def _write_own_pool(self, entry: Entry, written: list[Entry]) -> Amount:
        """The player's own pool points up to the target; returns what overflows."""
        target = self.setup.pool_target
        seat = entry.player
        own = min(entry.amount, max(0, target - self.pool[seat]))
        if own == entry.amount:
            self.pool[seat] += own
            written.append(entry)
            return 0
        if own:
            self.pool[seat] += own
            written.append(
                Entry(
                    "pool",
                    seat,
                    own,
                    entry.rule,
                    Text(N_("%(calc)s; %(own)s up to the target"), calc=entry.calc, own=own),
                )
            )
        return entry.amount - own

    def _write_overflow(
        self, seat: int, rest: Amount, written: list[Entry], *, helps: bool = True
    ) -> None:
        """Points past ``seat``'s target: help for open pools (``help_to``; none when
        ``helps`` is false, §14.7), then off his own mountain (``overflow_floor``) (§8,
        §13.8, §14.8)."""
        target = self.setup.pool_target
        per_point = self.rules.help_whists_per_point
        while rest > 0 and helps:
            helped = self._help_target(seat)
            if helped is None:
                break
            given = min(rest, target - self.pool[helped])
            self.pool[helped] += given
            self.whists[seat][helped] += given * per_point
            written.append(Entry("pool", helped, given, "help", f"{given}"))
            written.append(
                Entry(
                    "whists",
                    seat,
                    given * per_point,
                    "help",
                    f"{given} × {per_point} = {given * per_point}",
                    helped,
                )
            )
            rest -= given
        if rest > 0:
            ratio = Fraction(self.rules.pool_weight, self.rules.mountain_weight)
            off = _exact(rest * ratio)
            calc = f"−{rest} × {ratio}"
            if self.rules.overflow_floor == "zero" and off > self.mountain[seat]:
                off = _exact(max(Fraction(0), Fraction(self.mountain[seat])))
                calc = Text(N_("%(calc)s, stopped at 0: −%(off)s"), calc=calc, off=off)
            if off:
                self._lower_mountain(seat, off, "overflow", calc, written)

    def _lower_mountain(
        self, seat: int, off: Amount, rule: str, calc: str, written: list[Entry]
    ) -> None:
        """Take ``off`` (> 0) off ``seat``'s mountain. With ``overflow_floor = shift_all``
        (§14.8) the part that would take it below 0 is written instead on every other
        player's mountain: the balances are the same (§9 is translation-invariant)."""
        own = off
        if self.rules.overflow_floor == "shift_all":
            own = _exact(min(Fraction(off), max(Fraction(0), Fraction(self.mountain[seat]))))
        if own:
            self.mountain[seat] -= own
            written.append(Entry("mountain", seat, -own, rule, calc))
        shifted = _exact(off - own)
        if not shifted:
            return
        moved = Text(
            N_("%(calc)s: %(amount)s below zero, written on the others"),
            calc=calc,
            amount=shifted,
        )
        for other in range(self.setup.size):
            if other != seat:
                self.mountain[other] += shifted
                written.append(Entry("mountain", other, shifted, "overflow-shifted", moved))

    def _help_target(self, helper: int) -> int | None:
        """The open pool ``helper``'s overflow goes to (``help_to``): the opponent with the
        largest unclosed pool (ties: first clockwise), or the first unclosed pool
        clockwise, or none."""
        how = self.rules.help_to
        if how == "none":
            return None
        n = self.setup.size
        target = self.setup.pool_target
        best: int | None = None
        for step in range(1, n):
            seat = (helper + step) % n
            if self.pool[seat] < target:
                if how == "clockwise":
                    return seat
                if best is None or self.pool[seat] > self.pool[best]:
                    best = seat
        return best

    # -- moving the game on -----------------------------------------------------------------

    def _advance(self, deal: Deal) -> None:
        if isinstance(deal, Adjustment):
            return
        before = self.dealer
        if isinstance(deal, Passout):
            self._after_passout(deal)
        else:
            self._after_contract(deal)
        self.played += 1
        first = self.setup.first_dealer
        if self.circles_left and self.dealer != before and self.dealer == first:
            self.circles_left -= 1
        if self.circles_left is None and self.setup.control_time_deal == self.played:
            self._reach_control_time()

    def _after_contract(self, deal: Game | Misere | Concede) -> None:
        """A game, misère or concession: bombs, the pass-out series (§13.7), the deal
        passes. A concession neither plays a bomb nor ends the series (§13.11), unless
        ``concede_ends_passouts`` (§14.5)."""
        if isinstance(deal, Concede):
            if self.rules.concede_ends_passouts:
                self.passouts_in_series = 0
        else:
            if self.rules.bombs and self.bombs[deal.declarer] and _made(deal):
                self.bombs[deal.declarer].pop(0)
            if self._ends_series(deal):
                self.passouts_in_series = 0
        self.dark_row = 0
        self.same_dealer_passouts = 0
        self.dealer = (self.dealer + 1) % self.setup.size

    def _ends_series(self, deal: Game | Misere) -> bool:
        """Whether ``deal`` ends a pass-out series (``passout_series_ends_on``, §13.7)."""
        rules = self.rules
        mode = rules.passout_series_ends_on
        if isinstance(deal, Misere):
            if mode == "whisted_made_game" or not rules.misere_ends_passouts:
                return False
            return mode != "made_game_from_level" or deal.tricks == 0
        if mode == "any_deal":
            return True
        if mode == "played_game":
            return any(answer != "pass" for answer in deal.answers.values())
        if mode == "whisted_made_game":
            if deal.tricks is None:
                return False
            taken = deal.tricks[deal.declarer]
            return taken >= deal.level and 10 - taken >= rules.obligation(deal.level)
        return _made(deal) and deal.level >= rules.passout_series_end_level

    def _after_passout(self, passout: Passout) -> None:
        self.passouts_in_series += 1
        self.dark_row = self.dark_row + 1 if passout.dark else 0
        if passout.dark and self.rules.bombs:
            self._draw_bombs(passout)
        if self.rules.passout_same_dealer:
            self.same_dealer_passouts += 1
            if self.same_dealer_passouts < SAME_DEALER_PASSOUTS:
                return
        self.same_dealer_passouts = 0
        self.dealer = (self.dealer + 1) % self.setup.size

    def _draw_bombs(self, passout: Passout) -> None:
        """Bombs for a dark pass-out: ×2, ×4, ×8 by the row, one rank lower for a player
        who looked; the 4-player dealer one lower if anyone looked (§7)."""
        rank = min(self.dark_row, 3)
        ranks = {s: rank - (s in passout.looked) for s in self.active_seats()}
        if self.setup.size == 4:
            ranks[self.dealer] = rank - bool(passout.looked)
        for seat in sorted(ranks):
            if ranks[seat] > 0:
                self.bombs[seat].append(2 ** ranks[seat])


@dataclass(frozen=True, slots=True)
class _Rates:
    """A level's value, obligation and per-trick amounts (§3), worked out once."""

    value: int
    obligation: int
    whist: Amount
    remise: Amount
    consolation: Amount
    penalty: Amount

    @classmethod
    def of(cls, rules: PreferansRules, level: int) -> _Rates:
        value = rules.value(level)
        return cls(
            value=value,
            obligation=rules.obligation(level),
            whist=_exact(rules.whist_rate * value),
            remise=_exact(rules.remise_rate * value),
            # §14.1: a fixed consolation per undertrick replaces the rate at every level.
            consolation=rules.consolation_fixed or _exact(rules.consolation_rate * value),
            penalty=_exact(rules.whister_penalty_rate * value),
        )


def _active_seats(n: int, dealer: int) -> tuple[int, ...]:
    return tuple(s for s in range(n) if n == 3 or s != dealer)


def _clockwise_after(n: int, seat: int) -> list[int]:
    return [(seat + step) % n for step in range(1, n)]


def _made(deal: Game | Misere) -> bool:
    if isinstance(deal, Misere):
        return deal.tricks == 0
    return deal.tricks is None or deal.tricks[deal.declarer] >= deal.level


def _score_adjustment(adjustment: Adjustment) -> list[Entry]:
    entries = [
        Entry("mountain", s, a, "adjustment", adjustment.reason)
        for s, a in sorted(adjustment.mountain.items())
        if a
    ]
    entries += [
        Entry("pool", s, a, "adjustment", adjustment.reason)
        for s, a in sorted(adjustment.pool.items())
        if a
    ]
    entries += [
        Entry("whists", w, a, "adjustment", adjustment.reason, on)
        for w, on, a in adjustment.whists
        if a
    ]
    return entries


def _times(calc: str, factors: list[tuple[int, str]]) -> Text:
    """``calc`` in brackets, times each (factor, template) in turn: «(4) × 2 dark × 2 bomb»."""
    text = Text("(%(calc)s)", calc=calc)
    for factor, template in factors:
        text = Text(template, calc=text, factor=factor)
    return text


def _exact(value: Amount) -> Amount:
    """An int where the amount is whole, so the sheet shows 8, not 8/1."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


def settle(
    rules: PreferansRules,
    pool: Sequence[Amount],
    mountain: Sequence[Amount],
    whists: Sequence[Sequence[Amount]],
) -> list[Fraction]:
    """Each player's balance in whists by the «средняя гора» method (§9); sums to 0.

    With ``settlement_pools = ignored`` the pool term is dropped (§13.2).
    """
    n = len(pool)
    divisor = n if rules.settlement_divisor == "players" else n - 1
    factor = Fraction(n, divisor)
    if rules.settlement_pools == "ignored":
        pool = [0] * n
    avg_pool = Fraction(sum(pool), n)
    avg_mountain = Fraction(sum(mountain), n)
    return [
        factor
        * (
            rules.pool_weight * (pool[i] - avg_pool)
            - rules.mountain_weight * (mountain[i] - avg_mountain)
        )
        + sum(whists[i][j] - whists[j][i] for j in range(n))
        for i in range(n)
    ]


def joining_player_entry(pool: Sequence[Amount], mountain: Sequence[Amount]) -> tuple[int, int]:
    """What a player joining mid-game writes (Kodeks §3.1.2, §9): the others' average
    pool rounded down and average mountain rounded up (rounded against him)."""
    n = len(pool)
    return math.floor(Fraction(sum(pool), n)), math.ceil(Fraction(sum(mountain), n))


def score_pulka(setup: PulkaSetup, deals: Iterable[Deal]) -> PulkaResult:
    """Replay every deal of a pulka and settle it; a bad deal raises ``RuleError``."""
    pulka = Pulka(setup)
    for deal in deals:
        pulka.play(deal)
    return pulka.result()
