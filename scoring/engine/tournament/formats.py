"""A tournament's format: how many tours, how each is seated, how long a tour lasts, how
results become points, and the presets that reproduce published events (issue 32).

A ``Format`` is frozen and checked when built (``RuleError`` in words for a choice that
cannot work). ``to_dict`` / ``from_dict`` give the plain JSON the site stores, so an
organiser may start from a preset and edit any field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

from scoring.engine.errors import N_, RuleError
from scoring.engine.tournament.points import Band, PointsRule, check_rule

SEATING_MODES = ("random", "swiss", "interval", "schedule")
"""``random``: drawn from the seed (tour 1 is always random or schedule); ``swiss``: by the
standings, leaders together, avoiding repeat opponents; ``interval``: over the standings
with a step (1-2-3-4 with step 1, 1-3-5-7 with step 2); ``schedule``: the tour of a
schedule published before the event (``seating.schedule``)."""

LENGTH_KINDS = ("pool", "deals", "time")


@dataclass(frozen=True)
class Length:
    """How long a tour lasts. ``pool``: until the pool reaches ``pool`` (``deals``, when
    given, caps the number of deals: Gambler's pool 10, at most 18 deals); ``deals``: a
    fixed number of ``deals``; ``time``: ``minutes`` of play (the control time, then the
    last round; a judge may add extra time per table). ``minutes`` may also be given with
    ``pool`` or ``deals`` as a time limit."""

    kind: str
    pool: int | None = None
    deals: int | None = None
    minutes: int | None = None


@dataclass(frozen=True)
class Cut:
    """After tour ``after`` only the best ``keep`` players play on (``standings.cut``); the
    tours after the cut last ``deals`` deals each (``None``: as the format's ``length``).
    ``carry``: whether the finalists keep the points of the tours before the cut (else
    the final's standings start from 0)."""

    after: int
    keep: int
    deals: int | None = None
    carry: bool = True


@dataclass(frozen=True)
class Format:
    """A tournament's format (module docstring).

    ``tours``: the number of tours, those after a cut included. ``seating``: one mode per
    tour (``SEATING_MODES``), the first ``random`` or ``schedule``. ``interval``: the step
    for ``interval`` tours. ``best_of``: only the best N tours count (``None``: all).
    ``table_size``: 4 or 3, the preferred table (mixed 3 and 4 when the field does not
    divide; Boston is always 4). ``yellow_below``: a tour result below this many whists
    earns a yellow card (``None``: no automatic cards); ``cards_to_disqualify`` cards
    disqualify. ``bye_points``: what a bye scores. ``timeout_scores_zero``: a table
    stopped by the time scores 0 for each of its players (Gambler). ``tariff``: the
    Preferans preset the format is meant for (``None``: the club's choice).
    """

    name: str
    tours: int
    seating: tuple[str, ...]
    length: Length
    points: PointsRule
    best_of: int | None = None
    cut: Cut | None = None
    table_size: int = 4
    interval: int = 2
    yellow_below: Decimal | None = None
    cards_to_disqualify: int = 2
    bye_points: Decimal = Decimal(0)
    timeout_scores_zero: bool = False
    tariff: str | None = None
    game: str = "preferans"

    def __post_init__(self) -> None:
        check_format(self)

    def seating_for(self, tour: int) -> str:
        """The seating mode of ``tour`` (1-based)."""
        return self.seating[tour - 1]

    def length_for(self, tour: int) -> Length:
        """The length of ``tour`` (1-based): the cut's deals after the cut."""
        if self.cut is not None and tour > self.cut.after and self.cut.deals is not None:
            return Length("deals", deals=self.cut.deals, minutes=self.length.minutes)
        return self.length

    def to_dict(self) -> dict[str, Any]:
        """The format as plain JSON (numbers as strings where they are ``Decimal``)."""
        return _plain(asdict(self))  # type: ignore[no-any-return]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Format:
        """The format ``to_dict`` wrote (``RuleError`` for a bad value)."""
        try:
            points = dict(data["points"])
            rule = PointsRule(
                kind=points.get("kind", "raw"),
                bands=tuple(
                    Band(_decimal_or_none(b["upto"]), Decimal(b["factor"]))
                    for b in points.get("bands", ())
                ),
                places=tuple(Decimal(p) for p in points.get("places", ())),
                sole_positive=_decimal_or_none(points.get("sole_positive")),
                second_negative=_decimal_or_none(points.get("second_negative")),
            )
            cut = data.get("cut")
            return cls(
                name=str(data["name"]),
                tours=int(data["tours"]),
                seating=tuple(str(m) for m in data["seating"]),
                length=Length(**dict(data["length"])),
                points=rule,
                best_of=data.get("best_of"),
                cut=Cut(**dict(cut)) if cut is not None else None,
                table_size=int(data.get("table_size", 4)),
                interval=int(data.get("interval", 2)),
                yellow_below=_decimal_or_none(data.get("yellow_below")),
                cards_to_disqualify=int(data.get("cards_to_disqualify", 2)),
                bye_points=Decimal(data.get("bye_points", 0)),
                timeout_scores_zero=bool(data.get("timeout_scores_zero", False)),
                tariff=data.get("tariff"),
                game=str(data.get("game", "preferans")),
            )
        except (KeyError, TypeError, ValueError, ArithmeticError) as error:
            if isinstance(error, RuleError):
                raise
            raise RuleError(
                N_("the format cannot be read: %(error)s"), field="format", error=str(error)
            ) from error


def _decimal_or_none(value: Any) -> Decimal | None:
    return None if value is None else Decimal(value)


def _plain(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _positive(value: int | None, template: str, field: str) -> None:
    """Refuse ``value`` unless it is ``None`` or a whole number of at least 1."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise RuleError(template, field=field)


def check_format(fmt: Format) -> None:
    """Refuse a format that cannot be played (``RuleError`` in words, on its field)."""
    _positive(fmt.tours, N_("the tours must be a whole number, at least 1"), "tours")
    if fmt.game not in ("preferans", "boston"):
        raise RuleError(N_("unknown game %(game)s"), field="game", game=fmt.game)
    if len(fmt.seating) != fmt.tours:
        raise RuleError(
            N_("give one seating mode per tour: %(tours)s tours, %(modes)s modes"),
            field="seating",
            tours=fmt.tours,
            modes=len(fmt.seating),
        )
    for mode in fmt.seating:
        if mode not in SEATING_MODES:
            raise RuleError(
                N_("unknown seating mode %(mode)s; use: %(modes)s"),
                field="seating",
                mode=mode,
                modes=", ".join(SEATING_MODES),
            )
    if fmt.seating[0] not in ("random", "schedule"):
        raise RuleError(
            N_("the first tour is seated at random or by the schedule: there are no standings yet"),
            field="seating",
        )
    if "schedule" in fmt.seating and fmt.seating[0] != "schedule":
        raise RuleError(
            N_("a schedule is published before the event: it seats the first tours"),
            field="seating",
        )
    if "schedule" in fmt.seating:
        first_other = next((i for i, m in enumerate(fmt.seating) if m != "schedule"), fmt.tours)
        if "schedule" in fmt.seating[first_other:]:
            raise RuleError(
                N_("a schedule is published before the event: it seats the first tours"),
                field="seating",
            )
    length = fmt.length
    if length.kind not in LENGTH_KINDS:
        raise RuleError(
            N_("unknown tour length %(length)s; use: %(kinds)s"),
            field="length",
            length=length.kind,
            kinds=", ".join(LENGTH_KINDS),
        )
    _positive(length.pool, N_("the pool must be a whole number, at least 1"), "length")
    _positive(length.deals, N_("the deals must be a whole number, at least 1"), "length")
    _positive(length.minutes, N_("the minutes must be a whole number, at least 1"), "length")
    if length.kind == "pool" and length.pool is None:
        raise RuleError(N_("a tour played to a pool needs the pool's size"), field="length")
    if length.kind == "deals" and length.deals is None:
        raise RuleError(N_("a tour of fixed deals needs their number"), field="length")
    if length.kind == "time" and length.minutes is None:
        raise RuleError(N_("a tour played to time needs its minutes"), field="length")
    _positive(fmt.best_of, N_("best N of M: N must be a whole number, at least 1"), "best_of")
    if fmt.best_of is not None and fmt.best_of > fmt.tours:
        raise RuleError(
            N_("best %(best)s of %(tours)s tours: cannot count more tours than are played"),
            field="best_of",
            best=fmt.best_of,
            tours=fmt.tours,
        )
    if fmt.cut is not None:
        _positive(fmt.cut.after, N_("the cut comes after a tour: 1 or later"), "cut")
        _positive(fmt.cut.deals, N_("the deals must be a whole number, at least 1"), "cut")
        if fmt.cut.after >= fmt.tours:
            raise RuleError(
                N_("the cut after tour %(after)s leaves no tour to play: the format has %(tours)s"),
                field="cut",
                after=fmt.cut.after,
                tours=fmt.tours,
            )
        smallest = 4 if fmt.game == "boston" else 3
        if fmt.cut.keep < smallest:
            raise RuleError(
                N_("the cut must keep at least %(count)s players: one table"),
                field="cut",
                count=smallest,
            )
    if fmt.table_size not in (3, 4) or (fmt.game == "boston" and fmt.table_size != 4):
        raise RuleError(N_("a Preferans table has 3 or 4 players"), field="table_size")
    _positive(fmt.interval, N_("the interval is at least 1"), "interval")
    _positive(
        fmt.cards_to_disqualify,
        N_("the yellow cards that disqualify: a whole number, at least 1"),
        "cards_to_disqualify",
    )
    if fmt.yellow_below is not None and fmt.yellow_below >= 0:
        raise RuleError(
            N_("a yellow card is for a loss: the threshold must be below 0"), field="yellow_below"
        )
    check_rule(fmt.points)


def _d(value: str | int) -> Decimal:
    return Decimal(value)


FSPR = Format(
    name="fspr",
    tours=4,
    seating=("random",) * 4,
    length=Length("time", minutes=180),
    points=PointsRule("raw"),
    table_size=4,
    tariff="fspr_leningrad",
)
"""ФСПР (Russian federation events, issue 32): four at a table, the dealer sits out,
Leningrad rules on the «ФСПР Ленинградская» tariff, **played to time**, seating drawn by
the judges, the raw result counts. The issue gives no number of tours or minutes: 4 tours
of 3 hours are a starting point for the organiser to edit."""

GAMBLER = Format(
    name="gambler",
    tours=5,
    seating=("random", "swiss", "swiss", "swiss", "swiss"),
    length=Length("pool", pool=10, deals=18),
    points=PointsRule(
        "bands",
        bands=(Band(_d(200), _d(1)), Band(_d(650), _d("0.1")), Band(None, _d(0))),
    ),
    cut=Cut(after=3, keep=6),
    table_size=3,
    yellow_below=_d(-1000),
    cards_to_disqualify=2,
    timeout_scores_zero=True,
    tariff="leningrad",
)
"""Gambler, «Питер на 3-х» (issue 32): Swiss, 5 tours; the field cut after tour 3 (30 → 6);
a tour is pool 10 with at most 18 deals; a tour result counts in full up to 200 whists,
one in ten between 200 and 650, nothing beyond; worse than −1000 in a tour: a yellow card;
two yellow cards disqualify; a time-out scores 0. Three at a table («на 3-х»), Leningrad
(«Питер») rules."""

PLAYELEPHANT = Format(
    name="playelephant",
    tours=6,
    seating=("random", "swiss", "swiss", "swiss", "swiss", "swiss"),
    length=Length("deals", deals=6),
    points=PointsRule(
        "bands",
        bands=(Band(_d(50), _d(1)), Band(_d(100), _d("0.5")), Band(None, _d("0.1"))),
    ),
    cut=Cut(after=5, keep=9, deals=9),
    table_size=3,
    tariff="rostov",
)
"""PlayElephant, «Ростовчанин» (issue 32): 5 tours of 6 deals, then a final of 9 players
over 9 deals (tour 6); results count in full up to 50 whists, ×0.5 between 51 and 100,
×0.1 above 100. Rostov rules; the 9 finalists make three tables of 3."""

LEAGUE_NIGHT = Format(
    name="league_night",
    tours=1,
    seating=("random",),
    length=Length("pool", pool=200, minutes=240),
    points=PointsRule(
        "places",
        places=(_d(3), _d(2), _d(0)),
        sole_positive=_d(4),
        second_negative=_d(1),
    ),
    table_size=3,
)
"""A league night, scored as the Serbian league (issue 32): one tour, a game of 200 in
4 hours; points 3 / 2 / 0 for 1st / 2nd / 3rd at the table, 4 for a sole positive player,
2nd scores 1 if negative; ties in the standings go to the larger result (``standings``).
A season of such nights ranks by the points."""

PRESETS: dict[str, Format] = {
    "fspr": FSPR,
    "gambler": GAMBLER,
    "playelephant": PLAYELEPHANT,
    "league_night": LEAGUE_NIGHT,
}
"""The presets by key (each documented where it is built, with the issue's numbers)."""

__all__ = ["PRESETS", "Band", "Cut", "Format", "Length", "PointsRule"]
