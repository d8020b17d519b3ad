"""The Boston game record (game-format.md): JSON in, the result document out.

Names become seats here and seats become names again on the way out; the engine itself
only knows seats. Any input, however malformed, ends in a result or a RuleError naming
the deal and the field.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from scoring.engine import fields
from scoring.engine.boston.deals import (
    SUIT_CLASSES,
    TOURS,
    Adjustment,
    Ask,
    Card,
    Chips,
    Deal,
    Independence,
    Pass,
)
from scoring.engine.boston.rules import CARD_ROWS, SETTING_MAX, SUITS, SYSTEMS, BostonRules
from scoring.engine.boston.table import BostonResult, BostonSetup, score_boston
from scoring.engine.errors import N_, RuleError
from scoring.engine.money import exact_number

FORMAT = "pulka/1"
RESULT_FORMAT = "pulka-result/1"
GAME = "boston"

# "members" (optional): the club's usernames, one per player (docs/operations.md).
RECORD_KEYS = (
    "format",
    "game",
    "rules",
    "players",
    "members",
    "chip_price",
    "preference_suit",
    "double_tour_from",
    "deals",
)
_PLAYED = ("kind", "declarer", "partner", "suit", "trump", "tour", "tricks", "note")
DEAL_KEYS: dict[str, tuple[str, ...]] = {
    "ask": _PLAYED,
    "independence": _PLAYED,
    "card": (
        "kind",
        "declarer",
        "partner",
        "contract",
        "column",
        "tricks",
        "honours",
        "tour",
        "note",
    ),
    "pass": ("kind", "note"),
    "adjust": ("kind", "reason", "transfers", "note"),
}
DEAL_KINDS = tuple(DEAL_KEYS)
MAX_DEALS = 100_000

Names = tuple[str, ...]


def score_record(data: Mapping[str, Any]) -> dict[str, Any]:
    """Score a whole Boston game record and return its result document
    (``pulka-result/1``); a bad record raises RuleError naming the deal and the field."""
    setup, deals = parse_record(data)
    return result_document(score_boston(setup, deals))


def parse_record(data: Mapping[str, Any]) -> tuple[BostonSetup, tuple[Deal, ...]]:
    """The table setup and the deals of a Boston game record, checked field by field."""
    if not isinstance(data, Mapping):
        raise RuleError(N_("a game record must be a JSON object"))
    fields.check_keys(data, RECORD_KEYS)
    _expect(data, "format", FORMAT)
    _expect(data, "game", GAME)
    names = fields.players(data, (4,))
    setup = BostonSetup(
        players=names,
        rules=parse_rules(data.get("rules", SYSTEMS[0])),
        chip_price=fields.price(data, "chip_price"),
        double_tour_from=_double_tour_from(data.get("double_tour_from")),
        preference_suit=_preference_suit(data.get("preference_suit")),
    )
    raw_deals = data.get("deals", [])
    if not isinstance(raw_deals, list) or len(raw_deals) > MAX_DEALS:
        raise RuleError(
            N_("must be a list of at most %(limit)s deals"), field="deals", limit=MAX_DEALS
        )
    deals = tuple(parse_deal(raw, names, number) for number, raw in enumerate(raw_deals, start=1))
    return setup, deals


def parse_rules(raw: Any) -> BostonRules:
    """A record's ``rules``: a preset name, or an object with ``preset`` (default the
    payment tariff) and settings to override."""
    if isinstance(raw, str):
        return BostonRules.preset(raw)
    if not isinstance(raw, Mapping):
        raise RuleError(N_("must be a preset name or an object with a preset"), field="rules")
    preset = raw.get("preset", SYSTEMS[0])
    if not isinstance(preset, str) or preset not in SYSTEMS:
        raise RuleError(
            N_("must be one of %(choices)s"), field="rules.preset", choices=", ".join(SYSTEMS)
        )
    overrides = {key: value for key, value in raw.items() if key != "preset"}
    return BostonRules.preset(preset).with_overrides(overrides)


def parse_deal(raw: Any, names: Names, number: int) -> Deal:
    """One deal of the record as an engine deal; errors are located at ``number``."""
    try:
        return _read_deal(raw, names)
    except RuleError as err:
        raise err.at_deal(number) from None


def result_document(result: BostonResult) -> dict[str, Any]:
    """The result document of a scored table, exactly as game-format.md shows it."""
    names = result.players
    return {
        "format": RESULT_FORMAT,
        "game": GAME,
        "players": {
            name: {"chips": exact_number(chips), "money": str(cash)}
            for name, chips, cash in zip(names, result.chips, result.money, strict=True)
        },
        "deals": [
            {
                "n": deal.number,
                "entries": [
                    ["chips", names[t.payer], names[t.payee], exact_number(t.chips)]
                    for t in deal.transfers
                ],
            }
            for deal in result.deals
        ],
        "payments": [
            [names[payer], names[payee], str(amount)] for payer, payee, amount in result.payments
        ],
    }


def to_record(setup: BostonSetup, deals: Iterable[Deal]) -> dict[str, Any]:
    """The game record of a Boston table (export); ``parse_record`` reads it back to the
    same setup and deals."""
    names = setup.players
    record: dict[str, Any] = {
        "format": FORMAT,
        "game": GAME,
        "rules": rules_record(setup.rules),
        "players": list(names),
        "chip_price": str(setup.chip_price),
    }
    if setup.preference_suit is not None:
        record["preference_suit"] = setup.preference_suit
    if setup.double_tour_from is not None:
        record["double_tour_from"] = setup.double_tour_from
    record["deals"] = [deal_record(deal, names) for deal in deals]
    return record


def rules_record(rules: BostonRules) -> str | dict[str, Any]:
    """A record's ``rules``: the preset name, plus the settings that differ from it."""
    preset = BostonRules.preset(rules.system).to_dict()
    changed = {key: value for key, value in rules.to_dict().items() if preset[key] != value}
    return {"preset": rules.system, **changed} if changed else rules.system


def deal_record(deal: Deal, names: Names) -> dict[str, Any]:
    """One engine deal as a record's deal object (seats become names)."""
    match deal:
        case Pass():
            return {"kind": "pass"}
        case Adjustment():
            transfers = [[names[a], names[b], chips] for a, b, chips in deal.transfers]
            return {"kind": "adjust", "reason": deal.reason, "transfers": transfers}
        case Ask() | Independence():
            kind = "ask" if isinstance(deal, Ask) else "independence"
            played: dict[str, Any] = {"kind": kind, "declarer": names[deal.declarer]}
            if deal.partner is not None:
                played["partner"] = names[deal.partner]
            # Written back as entered: a deal given by its trump keeps its trump.
            if deal.trump is not None:
                played["trump"] = deal.trump
            else:
                played["suit"] = deal.suit
            return {**played, "tour": deal.tour, "tricks": deal.tricks}
        case Card():
            partner = None if deal.partner is None else names[deal.partner]
            return {
                "kind": "card",
                "declarer": names[deal.declarer],
                "partner": partner,
                "contract": deal.contract,
                "column": deal.column,
                "tricks": deal.tricks,
                "honours": deal.honours,
                "tour": deal.tour,
            }
    raise RuleError(N_("unknown kind of deal"), field="kind")


def _expect(data: Mapping[str, Any], key: str, wanted: str) -> None:
    # The dispatcher has checked these already; a direct caller may not have.
    if key in data and data[key] != wanted:
        raise RuleError(N_('must be "%(wanted)s"'), field=key, wanted=wanted)


def _double_tour_from(raw: Any) -> int | None:
    if raw is None:
        return None
    return fields.integer(raw, "double_tour_from", low=1, high=MAX_DEALS)


def _read_deal(raw: Any, names: Names) -> Deal:
    if not isinstance(raw, Mapping):
        raise RuleError(N_("must be an object"))
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in DEAL_KEYS:
        raise RuleError(
            N_("must be one of %(choices)s"), field="kind", choices=", ".join(DEAL_KINDS)
        )
    fields.check_keys(raw, DEAL_KEYS[kind])
    if "note" in raw:
        fields.text(raw["note"], "note")
    if kind == "ask":
        return _ask(raw, names)
    if kind == "independence":
        return _independence(raw, names)
    if kind == "card":
        return _card(raw, names)
    if kind == "adjust":
        return _adjustment(raw, names)
    return Pass()


def _ask(raw: Mapping[str, Any], names: Names) -> Ask:
    suit, trump = _suit_or_trump(raw)
    return Ask(
        declarer=fields.seat(_given(raw, "declarer"), names, "declarer"),
        partner=_partner(raw, names),
        suit=suit,
        trump=trump,
        tour=_choice(raw.get("tour", "simple"), TOURS, "tour"),
        tricks=_tricks(raw),
    )


def _independence(raw: Mapping[str, Any], names: Names) -> Independence:
    if raw.get("partner") is not None:
        raise RuleError(N_("independence is played alone"), field="partner")
    suit, trump = _suit_or_trump(raw)
    return Independence(
        declarer=fields.seat(_given(raw, "declarer"), names, "declarer"),
        suit=suit,
        trump=trump,
        tour=_choice(raw.get("tour", "simple"), TOURS, "tour"),
        tricks=_tricks(raw),
    )


def _suit_or_trump(raw: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """A payment-tariff deal's (suit class, trump) as given, each checked; the deal refuses
    both at once. Whether the table has a preference suit to derive a trump's class from is
    the table's check (``score_deal``): a deal is read without the head."""
    suit, trump = raw.get("suit"), raw.get("trump")
    if trump is None:
        return _choice(_given(raw, "suit"), SUIT_CLASSES, "suit"), None
    if suit is not None:
        suit = _choice(suit, SUIT_CLASSES, "suit")
    return suit, _choice(trump, SUITS, "trump")


def _preference_suit(raw: Any) -> str | None:
    return None if raw is None else _choice(raw, SUITS, "preference_suit")


def _card(raw: Mapping[str, Any], names: Names) -> Card:
    return Card(
        declarer=fields.seat(_given(raw, "declarer"), names, "declarer"),
        partner=_partner(raw, names),
        contract=_choice(_given(raw, "contract"), CARD_ROWS, "contract"),
        column=_choice(_given(raw, "column"), SUITS, "column"),
        tricks=_tricks(raw),
        honours=fields.integer(raw.get("honours", 0), "honours"),
        tour=_choice(raw.get("tour", "simple"), TOURS, "tour"),
    )


def _adjustment(raw: Mapping[str, Any], names: Names) -> Adjustment:
    reason = raw.get("reason")
    if reason is None or (isinstance(reason, str) and not reason.strip()):
        raise RuleError(N_("an adjustment needs a reason"), field="reason")
    transfers = _given(raw, "transfers")
    if not isinstance(transfers, list) or not transfers:
        raise RuleError(N_("must list at least one [payer, payee, chips]"), field="transfers")
    return Adjustment(
        reason=fields.text(reason, "reason"),
        transfers=tuple(_chips(item, names) for item in transfers),
    )


def _chips(item: Any, names: Names) -> Chips:
    if not isinstance(item, list) or len(item) != 3:
        raise RuleError(N_("each transfer must be [payer, payee, chips]"), field="transfers")
    payer, payee, chips = item
    return (
        fields.seat(payer, names, "transfers"),
        fields.seat(payee, names, "transfers"),
        fields.integer(chips, "transfers", low=1, high=SETTING_MAX),
    )


def _partner(raw: Mapping[str, Any], names: Names) -> int | None:
    partner = raw.get("partner")
    return None if partner is None else fields.seat(partner, names, "partner")


def _tricks(raw: Mapping[str, Any]) -> int:
    return fields.integer(_given(raw, "tricks"), "tricks", low=0, high=13)


def _given(raw: Mapping[str, Any], key: str) -> Any:
    if key not in raw:
        raise RuleError(N_("must be given"), field=key)
    return raw[key]


def _choice(value: Any, choices: tuple[str, ...], field: str) -> str:
    if not isinstance(value, str) or value not in choices:
        raise RuleError(N_("must be one of %(choices)s"), field=field, choices=", ".join(choices))
    return value
