"""A tournament's standings: tour points added up, best N of M, tie-breaks, cards, cut.

``rank`` orders the players by:

1. ``total``: the points of the counted tours (all, or the best ``best_of``) plus the
   judges' penalties (signed: a penalty of −10 is given as ``Decimal(-10)``);
2. then the larger total result (whists over the counted tours);
3. then head-to-head among the players still tied: for each tour two of them shared a
   table, a point to the one placed higher there; more points ranks higher;
4. then opponents' strength: the sum of the totals of every opponent met (each meeting
   counted), larger first.

Players equal on all four share a rank (listed by key). A yellow card is earned by a tour
result below ``yellow_below``; ``cards`` adds the judges' own; ``disqualify_at`` cards
disqualify. Disqualified players are listed last, with ``rank`` ``None``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from decimal import Decimal

from scoring.engine.errors import N_, RuleError
from scoring.engine.text import Text
from scoring.engine.tournament.points import TourScore


@dataclass(frozen=True)
class Line:
    """One player's line of the standings: ``tours`` his score in each tour (``None`` when
    he did not play it), ``counted`` which of them count (best N of M), ``total`` his
    points (counted tours + ``penalty``), ``result_total`` his whists over the counted
    tours, his yellow ``cards``, and ``tie_break``: the words that say what separated him
    from the player above on equal points (empty when nothing had to)."""

    player: str
    rank: int | None
    total: Decimal
    tours: tuple[TourScore | None, ...]
    counted: tuple[bool, ...]
    result_total: Decimal
    cards: int
    disqualified: bool
    tie_break: Text
    penalty: Decimal = Decimal(0)


def _counted(scores: list[TourScore | None], best_of: int | None) -> tuple[bool, ...]:
    """Which tours count: every tour played, or the best ``best_of`` by points (the
    earlier tour first among equal points)."""
    played = [i for i, score in enumerate(scores) if score is not None]
    if best_of is not None:
        played = sorted(played, key=lambda i: (-scores[i].points, i))[:best_of]  # type: ignore[union-attr]
    return tuple(i in played for i in range(len(scores)))


def rank(
    tours: Sequence[Mapping[str, TourScore]],
    *,
    best_of: int | None = None,
    penalties: Mapping[str, Decimal] | None = None,
    yellow_below: Decimal | None = None,
    cards: Mapping[str, int] | None = None,
    disqualify_at: int = 2,
    players: Sequence[str] = (),
) -> list[Line]:
    """The standings after ``tours`` (each: player → his ``TourScore`` in that tour),
    ordered as the module docstring says. ``players``: anyone to list though he has no
    tour yet (after the cut, the players who did not reach the final still appear)."""
    penalties = penalties or {}
    cards = cards or {}
    everyone = list(dict.fromkeys([*players, *(p for tour in tours for p in tour)]))
    lines: dict[str, Line] = {}
    for player in everyone:
        scores = [tour.get(player) for tour in tours]
        counted = _counted(scores, best_of)
        chosen = [s for s, c in zip(scores, counted, strict=True) if c and s is not None]
        penalty = Decimal(penalties.get(player, 0))
        earned = sum(
            1
            for s in scores
            if s is not None and yellow_below is not None and s.result < yellow_below
        )
        total_cards = earned + cards.get(player, 0)
        lines[player] = Line(
            player=player,
            rank=None,
            total=sum((s.points for s in chosen), Decimal(0)) + penalty,
            tours=tuple(scores),
            counted=counted,
            result_total=sum((s.result for s in chosen), Decimal(0)),
            cards=total_cards,
            disqualified=total_cards >= disqualify_at,
            tie_break=Text(""),
            penalty=penalty,
        )
    totals = {p: line.total for p, line in lines.items()}

    def head_to_head(player: str, group: set[str]) -> int:
        """Meetings with the others of ``group``: +1 placed above one, −1 below."""
        wins = 0
        for index, score in enumerate(lines[player].tours):
            for other in score.opponents if score is not None else ():
                theirs = lines[other].tours[index] if other in group else None
                if score is not None and theirs is not None:
                    wins += (score.place < theirs.place) - (score.place > theirs.place)
        return wins

    def strength(player: str) -> Decimal:
        return sum(
            (totals.get(o, Decimal(0)) for s in lines[player].tours if s for o in s.opponents),
            Decimal(0),
        )

    ordered: list[tuple[tuple[Decimal, Decimal, int, Decimal], Line]] = []
    for disqualified in (False, True):
        pool = [line for line in lines.values() if line.disqualified == disqualified]
        groups: dict[tuple[Decimal, Decimal], set[str]] = {}
        for line in pool:
            groups.setdefault((line.total, line.result_total), set()).add(line.player)
        keyed = []
        for line in pool:
            group = groups[(line.total, line.result_total)]
            h2h = head_to_head(line.player, group) if len(group) > 1 else 0
            key = (line.total, line.result_total, h2h, strength(line.player))
            keyed.append((key, line))
        keyed.sort(key=lambda kl: (*(-k for k in kl[0]), kl[1].player))
        ordered.extend((key, line) for key, line in keyed)
    result: list[Line] = []
    previous: tuple[Decimal, Decimal, int, Decimal] | None = None
    for index, (key, line) in enumerate(ordered):
        place: int | None = None
        if not line.disqualified:
            place = result[-1].rank if previous == key and result else index + 1
        why = _tie_break(key, previous) if previous is not None and not line.disqualified else None
        result.append(replace(line, rank=place, tie_break=why or Text("")))
        previous = key
    return result


def _tie_break(
    key: tuple[Decimal, Decimal, int, Decimal], above: tuple[Decimal, Decimal, int, Decimal]
) -> Text | None:
    """What separated a line from the one above on equal points, in words."""
    if key[0] != above[0]:
        return None
    if key[1] != above[1]:
        return Text(
            N_("equal points; the total result decides: %(mine)s against %(above)s"),
            mine=key[1],
            above=above[1],
        )
    if key[2] != above[2]:
        return Text(
            N_("equal points and result; head-to-head decides: %(mine)s against %(above)s"),
            mine=key[2],
            above=above[2],
        )
    if key[3] != above[3]:
        return Text(
            N_(
                "equal points, result and head-to-head; opponents' strength decides: "
                "%(mine)s against %(above)s"
            ),
            mine=key[3],
            above=above[3],
        )
    return Text(N_("equal on every tie-break: the same rank"))


@dataclass(frozen=True)
class CutTie:
    """Players equal on every tie-break who straddle the cut's line: ``players`` (in the
    standings' order) share places ``first`` to ``last``, and ``free`` of those places
    are inside the cut — how many of them the judges choose to go on."""

    players: tuple[str, ...]
    first: int
    last: int
    free: int


def cut_tie(lines: Sequence[Line], keep: int) -> CutTie | None:
    """The tie at the cut's line of ``lines`` (as ``rank`` ordered them) when keeping
    ``keep`` players, or ``None`` when the line falls between two ranks. Ranks among the
    players not disqualified are their positions, so a shared rank ``r`` has ``r − 1``
    players above it."""
    eligible = [line for line in lines if not line.disqualified]
    if keep < 1 or len(eligible) <= keep or eligible[keep - 1].rank != eligible[keep].rank:
        return None
    shared = eligible[keep].rank
    assert shared is not None  # noqa: S101 - a player not disqualified has a rank
    tied = tuple(line.player for line in eligible if line.rank == shared)
    return CutTie(players=tied, first=shared, last=shared + len(tied) - 1, free=keep - shared + 1)


def _check_decided(tie: CutTie | None, decided: Collection[str]) -> CutTie:
    """``tie``, once ``decided`` names exactly ``tie.free`` of its players; else
    ``RuleError`` in words."""
    if tie is None:
        raise RuleError(
            N_("nobody is tied at the cut: the judges' decision does not apply"), field="cut"
        )
    strangers = [player for player in decided if player not in tie.players]
    if strangers:
        raise RuleError(
            N_("%(players)s are not tied at the cut"),
            field="cut",
            players=", ".join(sorted(strangers)),
        )
    if len(set(decided)) != tie.free:
        raise RuleError(
            N_("choose %(free)s of the players tied for places %(first)s–%(last)s"),
            field="cut",
            free=tie.free,
            first=tie.first,
            last=tie.last,
        )
    return tie


def cut(
    lines: Sequence[Line], keep: int, *, decided: Collection[str] | None = None
) -> tuple[str, ...]:
    """The best ``keep`` players of ``lines`` (as ``rank`` ordered them), the disqualified
    left out. When players sharing a rank straddle the line, the judges decide between
    them: ``decided`` names those of the tied who go on (exactly as many as the places
    free among them); without it, ``RuleError``. A ``decided`` that names a player not
    tied at the line, the wrong number of them, or that finds no tie, is ``RuleError``."""
    if keep < 1:
        raise RuleError(N_("the cut keeps at least one player"), field="cut")
    eligible = [line for line in lines if not line.disqualified]
    tie = cut_tie(lines, keep)
    if decided is None:
        if tie is not None:
            raise RuleError(
                N_(
                    "%(players)s are equal on every tie-break at the cut: "
                    "the judges decide who goes on"
                ),
                field="cut",
                players=", ".join(tie.players),
            )
        return tuple(line.player for line in eligible[:keep])
    tie = _check_decided(tie, decided)
    chosen = set(decided)
    return tuple(
        line.player
        for line in eligible
        if line.rank is not None and (line.rank < tie.first or line.player in chosen)
    )


def with_decision(
    lines: Sequence[Line], keep: int, decided: Collection[str], reason: str
) -> list[Line]:
    """``lines`` with the judges' decision at a tied cut written in: the chosen players of
    the tie first (sharing its first place: they are still equal), then the others of it
    (sharing the place after the chosen), and each of the tie's lines saying «the judges'
    decision: ``reason``» — the first one after what separated the tie from the line
    above, if anything did. ``RuleError`` as ``cut`` when the decision does not fit."""
    tie = _check_decided(cut_tie(lines, keep), decided)
    chosen = set(decided)
    group = [line for line in lines if line.player in tie.players]
    ordered = [line for line in group if line.player in chosen]
    ordered += [line for line in group if line.player not in chosen]
    words = Text(N_("the judges' decision: %(reason)s"), reason=reason)
    # What separated the tie from the line above is the same for each of its players
    # (they are equal on every key): it stays on the first line, before the decision.
    above = group[0].tie_break
    decided_lines = []
    for index, line in enumerate(ordered):
        place = tie.first if line.player in chosen else tie.first + tie.free
        why = words
        if index == 0 and above:
            why = Text(N_("%(before)s; %(decision)s"), before=above, decision=words)
        decided_lines.append(replace(line, rank=place, tie_break=why))
    start = next(i for i, line in enumerate(lines) if line.player in tie.players)
    rest = [line for line in lines if line.player not in tie.players]
    return [*rest[:start], *decided_lines, *rest[start:]]


def with_final(at_cut: Sequence[Line], now: Sequence[Line], finalists: Sequence[str]) -> list[Line]:
    """The standings of an event with a cut: the ``finalists`` first, in the order of
    ``now`` (``rank`` over the tours that count for the final: all of them when the cut
    carries the points, else the final's alone), then everyone else as ``at_cut`` ranked
    them (``rank`` over the tours up to the cut), ranks running on; the disqualified of
    either last. A finalist always ranks above a player who did not reach the final."""
    kept = set(finalists)
    final = [line for line in now if line.player in kept and not line.disqualified]
    others = [line for line in at_cut if line.player not in kept and not line.disqualified]
    out = {line.player for line in final} | {line.player for line in others}
    disqualified = [line for line in now if line.disqualified and line.player not in out]
    disqualified += [
        line
        for line in at_cut
        if line.disqualified and line.player not in out and line.player not in kept
    ]
    result: list[Line] = []
    for part in (final, others):
        first = len(result)
        for index, line in enumerate(part):
            shared = index and part[index - 1].rank == line.rank
            place = result[-1].rank if shared else first + index + 1
            result.append(replace(line, rank=place))
    result.extend(replace(line, rank=None) for line in disqualified)
    return result
