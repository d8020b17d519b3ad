"""The Preferans game record (game-format.md): reading it, scoring it, writing it back."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from scoring.engine import fields
from scoring.engine.errors import N_, RuleError
from scoring.engine.money import exact_number, two_decimals
from scoring.engine.preferans.deals import (
    Adjustment,
    Answer,
    Concede,
    Deal,
    Game,
    Misere,
    Passout,
)
from scoring.engine.preferans.pulka import (
    MAX_CONTROL_TIME_DEAL,
    MAX_POOL_TARGET,
    Pulka,
    PulkaResult,
    PulkaSetup,
    score_pulka,
)
from scoring.engine.preferans.rules import PreferansRules
from scoring.engine.tournament.substitute import Substitution, play_with_substitutes, seatings

HEAD_FIELDS = (
    "format",
    "game",
    "rules",
    "players",
    "members",  # optional: the club's usernames, one per player (docs/operations.md)
    "first_dealer",
    "pool_target",
    "whist_price",
    "control_time_deal",
    "substitutes",  # optional: seats that changed hands mid-pulka (``parse_substitutes``)
    "deals",
)
SUBSTITUTE_FIELDS = ("after_deal", "left", "player", "member")
MAX_SUBSTITUTES = 50
DEAL_FIELDS = {
    "game": ("kind", "declarer", "contract", "answers", "tricks", "dark", "fast_tricks", "note"),
    "misere": ("kind", "declarer", "tricks", "dark", "note"),
    "passout": ("kind", "tricks", "dark", "looked", "dealer_tricks", "note"),
    "concede": ("kind", "declarer", "contract", "undertricks", "note"),
    "adjust": ("kind", "reason", "pool", "mountain", "whists", "note"),
}
CONTRACT = re.compile(r"(6|7|8|9|10)([SCDHN])")
MAX_DEALS = 100_000


def parse_record(data: Mapping[str, Any]) -> tuple[PulkaSetup, list[Deal]]:
    """The setup and deals of a Preferans record, or a ``RuleError`` naming the field."""
    fields.check_keys(data, HEAD_FIELDS)
    players = fields.players(data, (3, 4))
    raw_deals = data.get("deals", [])
    if not isinstance(raw_deals, list) or len(raw_deals) > MAX_DEALS:
        raise RuleError(
            N_("must be a list of at most %(limit)s deals"), field="deals", limit=MAX_DEALS
        )
    substitutions = parse_substitutes(data, players, len(raw_deals))
    held = seatings(players, substitutions)
    first_dealer = 0
    if "first_dealer" in data:  # who dealt first: a player who sat down then
        first_dealer = fields.seat(data["first_dealer"], held[0], "first_dealer")
    control_time_deal = None
    if "control_time_deal" in data:
        control_time_deal = fields.integer(
            data["control_time_deal"], "control_time_deal", low=0, high=MAX_CONTROL_TIME_DEAL
        )
    setup = PulkaSetup(
        players=players,
        rules=parse_rules(data.get("rules", "sochi")),
        first_dealer=first_dealer,
        pool_target=fields.integer(
            data.get("pool_target", 20), "pool_target", low=1, high=MAX_POOL_TARGET
        ),
        whist_price=fields.price(data, "whist_price"),
        control_time_deal=control_time_deal,
    )
    deals = [
        parse_deal(raw, held[sum(s.after_deal < n for s in substitutions)], n)
        for n, raw in enumerate(raw_deals, start=1)
    ]
    return setup, deals


def parse_substitutes(
    data: Mapping[str, Any], players: tuple[str, ...], deal_count: int
) -> list[Substitution]:
    """The record's ``substitutes`` (Kodeks 3.1.2; docs/tournaments.md): in the order they
    came, each ``{"after_deal": 3, "left": "Vera", "player": "Dima"}`` says that after the
    record's first 3 deals Vera left her seat and Dima took it. ``players`` are the seats'
    holders at the end; the deals before a substitution name the leaver, those after it
    the newcomer. ``member`` (optional) is the leaver's username in the club that wrote
    the record, as the head's ``members`` is the players'. A ``RuleError`` names the
    field: a newcomer who holds no seat then, a name that sat at the table already, a
    deal number out of the record or out of order."""
    raw = data.get("substitutes", [])
    if not isinstance(raw, list) or len(raw) > MAX_SUBSTITUTES:
        raise RuleError(
            N_("must be a list of at most %(limit)s substitutes"),
            field="substitutes",
            limit=MAX_SUBSTITUTES,
        )
    entries: list[tuple[int, str, str, str]] = []
    for i, item in enumerate(raw):
        where = f"substitutes[{i}]"
        entry = fields.mapping(item, where)
        fields.check_keys(entry, SUBSTITUTE_FIELDS, where=where)
        if deal_count == 0:
            raise RuleError(N_("a substitute comes after a deal"), field=f"{where}.after_deal")
        after = fields.integer(
            entry.get("after_deal"), f"{where}.after_deal", low=1, high=deal_count
        )
        if entries and after < entries[-1][0]:
            raise RuleError(
                N_("the substitutes must be in the order they came"), field=f"{where}.after_deal"
            )
        left = fields.text(entry.get("left"), f"{where}.left", max_length=100)
        came = fields.text(entry.get("player"), f"{where}.player", max_length=100)
        if entry.get("member") is not None:
            fields.text(entry["member"], f"{where}.member", max_length=150)
        entries.append((after, left, came, where))
    holders, seen = list(players), set(players)
    found: list[Substitution] = []
    for after, left, came, where in reversed(entries):
        if came not in holders:
            raise RuleError(
                N_("%(player)s holds no seat after this substitute"),
                field=f"{where}.player",
                player=came,
            )
        if left in seen:
            raise RuleError(N_("names must be distinct"), field=f"{where}.left")
        seat = holders.index(came)
        holders[seat] = left
        seen.add(left)
        found.append(Substitution(after, seat, left, came))
    return list(reversed(found))


def parse_rules(raw: Any) -> PreferansRules:
    """A preset name, or an object with ``preset`` and settings to override."""
    if isinstance(raw, str):
        return PreferansRules.preset(raw)
    overrides = dict(fields.mapping(raw, "rules"))
    preset = overrides.pop("preset", "sochi")
    if not isinstance(preset, str):
        raise RuleError(N_("must be a preset name"), field="rules.preset")
    return PreferansRules.preset(preset).with_overrides(overrides)


def parse_deal(raw: Any, players: tuple[str, ...], n: int) -> Deal:
    """One deal of the record; ``n`` is its 1-based number for messages."""
    data = fields.mapping(raw, "deal", n)
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in DEAL_FIELDS:
        raise RuleError(
            N_("must be game, misere, passout, concede or adjust"), field="kind", deal=n
        )
    fields.check_keys(data, DEAL_FIELDS[kind], deal=n)
    if "note" in data:
        fields.text(data["note"], "note", n)
    reader = _Reader(players, n)
    if kind == "game":
        return reader.game(data)
    if kind == "misere":
        return reader.misere(data)
    if kind == "passout":
        return reader.passout(data)
    if kind == "concede":
        return reader.concede(data)
    return reader.adjustment(data)


class _Reader:
    """Reads the fields of deal ``n``, turning player names into seats."""

    def __init__(self, players: tuple[str, ...], n: int) -> None:
        self.players = players
        self.n = n

    def seat(self, name: Any, field: str) -> int:
        """The seat of the player called ``name``."""
        return fields.seat(name, self.players, field, self.n)

    def dark(self, data: Mapping[str, Any]) -> bool:
        """The deal's ``dark`` flag (default false)."""
        return fields.boolean(data.get("dark", False), "dark", self.n)

    def tricks(self, raw: Any, field: str = "tricks") -> dict[int, int]:
        """Tricks by seat, each 0–10."""
        tricks = fields.mapping(raw, field, self.n)
        return {
            self.seat(name, field): fields.integer(t, field, self.n, low=0, high=10)
            for name, t in tricks.items()
        }

    def amounts(self, raw: Any, field: str) -> dict[int, int]:
        """Whole amounts by seat (an adjustment's pool or mountain)."""
        amounts = fields.mapping(raw, field, self.n)
        return {
            self.seat(name, field): fields.integer(a, field, self.n) for name, a in amounts.items()
        }

    def contract(self, data: Mapping[str, Any]) -> tuple[int, str]:
        """The level and suit of ``contract``, e.g. ``"7S"`` → ``(7, "S")``."""
        contract = data.get("contract")
        match = CONTRACT.fullmatch(contract) if isinstance(contract, str) else None
        if match is None:
            raise RuleError(
                N_("must be a level 6–10 and a suit S, C, D, H or N, e.g. 7H"),
                field="contract",
                deal=self.n,
            )
        return int(match.group(1)), match.group(2)

    def concede(self, data: Mapping[str, Any]) -> Concede:
        """A conceded contract (§13.11); ``undertricks`` 1 … level, or omitted."""
        declarer = self.seat(data.get("declarer"), "declarer")
        level, suit = self.contract(data)
        undertricks = None
        if "undertricks" in data:
            undertricks = fields.integer(
                data["undertricks"], "undertricks", self.n, low=1, high=level
            )
        return Concede(declarer=declarer, level=level, suit=suit, undertricks=undertricks)

    def game(self, data: Mapping[str, Any]) -> Game:
        """A contract with its answers and, when somebody whisted, its tricks."""
        level, suit = self.contract(data)
        answers: dict[int, Answer] = {}
        for name, answer in fields.mapping(data.get("answers"), "answers", self.n).items():
            if answer not in ("whist", "pass", "half"):
                raise RuleError(
                    N_("each answer must be whist, pass or half"), field="answers", deal=self.n
                )
            answers[self.seat(name, "answers")] = answer
        tricks = self.tricks(data["tricks"]) if "tricks" in data else None
        fast_tricks = 0
        if "fast_tricks" in data:
            fast_tricks = fields.integer(data["fast_tricks"], "fast_tricks", self.n, low=0, high=3)
        return Game(
            declarer=self.seat(data.get("declarer"), "declarer"),
            level=level,
            suit=suit,
            answers=answers,
            tricks=tricks,
            dark=self.dark(data),
            fast_tricks=fast_tricks,
        )

    def misere(self, data: Mapping[str, Any]) -> Misere:
        """A misère: the declarer's tricks only."""
        declarer = self.seat(data.get("declarer"), "declarer")
        tricks = self.tricks(data.get("tricks"))
        if set(tricks) != {declarer}:
            raise RuleError(N_("give the declarer's tricks only"), field="tricks", deal=self.n)
        return Misere(declarer=declarer, tricks=tricks[declarer], dark=self.dark(data))

    def passout(self, data: Mapping[str, Any]) -> Passout:
        """A pass-out with its tricks, widow tricks and who looked."""
        looked = data.get("looked", [])
        if not isinstance(looked, list):
            raise RuleError(N_("must be a list of players"), field="looked", deal=self.n)
        dealer_tricks = None
        if "dealer_tricks" in data:
            dealer_tricks = fields.integer(
                data["dealer_tricks"], "dealer_tricks", self.n, low=0, high=2
            )
        return Passout(
            tricks=self.tricks(data.get("tricks")),
            dealer_tricks=dealer_tricks,
            dark=self.dark(data),
            looked=frozenset(self.seat(name, "looked") for name in looked),
        )

    def adjustment(self, data: Mapping[str, Any]) -> Adjustment:
        """A manual entry with its reason."""
        reason = data.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise RuleError(N_("an adjustment needs a reason"), field="reason", deal=self.n)
        reason = fields.text(reason, "reason", self.n)
        raw_whists = data.get("whists", [])
        if not isinstance(raw_whists, list):
            raise RuleError(
                N_("must be a list of [writer, on, amount]"), field="whists", deal=self.n
            )
        whists = []
        for item in raw_whists:
            if not isinstance(item, list) or len(item) != 3:
                raise RuleError(
                    N_("must be a list of [writer, on, amount]"), field="whists", deal=self.n
                )
            writer, on, amount = item
            whists.append(
                (
                    self.seat(writer, "whists"),
                    self.seat(on, "whists"),
                    fields.integer(amount, "whists", self.n),
                )
            )
        return Adjustment(
            reason=reason,
            pool=self.amounts(data.get("pool", {}), "pool"),
            mountain=self.amounts(data.get("mountain", {}), "mountain"),
            whists=tuple(whists),
        )


def score_record(data: Mapping[str, Any]) -> dict[str, Any]:
    """Score a Preferans record and return the result document of game-format.md."""
    setup, deals = parse_record(data)
    substitutions = parse_substitutes(data, setup.players, len(deals))
    if not substitutions:
        return result_document(score_pulka(setup, deals))
    pulka = Pulka(replace(setup, players=seatings(setup.players, substitutions)[0]))
    play_with_substitutes(pulka, deals, substitutions)
    return result_document(pulka.result())


def result_document(result: PulkaResult) -> dict[str, Any]:
    """The result document (game-format.md, "Output") of a scored pulka."""
    names = result.setup.players
    players = {
        name: {
            "pool": exact_number(result.pool[i]),
            "mountain": exact_number(result.mountain[i]),
            "whists": {
                names[j]: exact_number(result.whists[i][j]) for j in range(len(names)) if j != i
            },
            "balance": two_decimals(result.balances[i]),
            "money": str(result.money[i]),
        }
        for i, name in enumerate(names)
    }
    deals = [
        {
            "n": deal.n,
            "dealer": None if deal.dealer is None else names[deal.dealer],
            "entries": [
                ["whists", names[e.player], names[e.on], exact_number(e.amount)]
                if e.on is not None
                else [e.kind, names[e.player], exact_number(e.amount)]
                for e in deal.entries
            ],
        }
        for deal in result.deals
    ]
    return {
        "format": "pulka-result/1",
        "game": "preferans",
        "complete": result.complete,
        "players": players,
        "deals": deals,
        "payments": [[names[a], names[b], str(amount)] for a, b, amount in result.payments],
    }


def to_record(
    setup: PulkaSetup, deals: list[Deal], substitutions: Sequence[Substitution] = ()
) -> dict[str, Any]:
    """The game record of a pulka (export): ``parse_record`` reads it back unchanged.
    ``setup`` names the seats' holders at the end; where ``substitutions`` came, each deal
    names the players who held the seats then and ``first_dealer`` one who sat down
    first, and ``substitutes`` says who left after which deal (``parse_substitutes``)."""
    names = setup.players
    held = seatings(names, substitutions)
    record: dict[str, Any] = {
        "format": "pulka/1",
        "game": "preferans",
        "rules": {"preset": "sochi", **setup.rules.to_dict()},
        "players": list(names),
        "first_dealer": held[0][setup.first_dealer],
        "pool_target": setup.pool_target,
        "whist_price": str(setup.whist_price),
    }
    if setup.control_time_deal is not None:
        record["control_time_deal"] = setup.control_time_deal
    if substitutions:
        record["substitutes"] = [
            {"after_deal": s.after_deal, "left": s.left, "player": s.came} for s in substitutions
        ]
    record["deals"] = [
        deal_record(deal, held[sum(s.after_deal < n for s in substitutions)])
        for n, deal in enumerate(deals, start=1)
    ]
    return record


def deal_record(deal: Deal, names: tuple[str, ...]) -> dict[str, Any]:
    """One deal as the record writes it."""
    out: dict[str, Any]
    if isinstance(deal, Game):
        out = {
            "kind": "game",
            "declarer": names[deal.declarer],
            "contract": f"{deal.level}{deal.suit}",
            "answers": {names[s]: a for s, a in deal.answers.items()},
        }
        if deal.tricks is not None:
            out["tricks"] = {names[s]: t for s, t in deal.tricks.items()}
        if deal.fast_tricks:
            out["fast_tricks"] = deal.fast_tricks
    elif isinstance(deal, Misere):
        out = {
            "kind": "misere",
            "declarer": names[deal.declarer],
            "tricks": {names[deal.declarer]: deal.tricks},
        }
    elif isinstance(deal, Concede):
        out = {
            "kind": "concede",
            "declarer": names[deal.declarer],
            "contract": f"{deal.level}{deal.suit}",
        }
        if deal.undertricks is not None:
            out["undertricks"] = deal.undertricks
        return out
    elif isinstance(deal, Passout):
        out = {"kind": "passout", "tricks": {names[s]: t for s, t in deal.tricks.items()}}
        if deal.dealer_tricks is not None:
            out["dealer_tricks"] = deal.dealer_tricks
        if deal.looked:
            out["looked"] = [names[s] for s in sorted(deal.looked)]
    else:
        return {
            "kind": "adjust",
            "reason": deal.reason,
            "pool": {names[s]: a for s, a in deal.pool.items()},
            "mountain": {names[s]: a for s, a in deal.mountain.items()},
            "whists": [[names[w], names[on], a] for w, on, a in deal.whists],
        }
    if deal.dark:
        out["dark"] = True
    return out
