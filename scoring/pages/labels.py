"""Words for the engine's keys (deal kinds, the rule behind each entry) and its messages,
in the member's language, and every way the site writes a deal: its title in the log and
on the printed sheet, the lines of what it wrote (log, preview and print). The engine
speaks in stable English keys and templates (``RuleError``, ``Text``); the site translates
them here and nowhere else, but for the suits and the contracts' names, which model
choices need too (``scoring.models.vocabulary``)."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.utils import formats
from django.utils.text import format_lazy
from django.utils.translation import gettext, ngettext, pgettext
from django.utils.translation import gettext_lazy as _

from scoring.engine.boston import trump_class
from scoring.engine.errors import Grouped, RuleError
from scoring.engine.text import Text
from scoring.models.vocabulary import (
    CARD_CONTRACT_WORDS,
    PREFERANS_SUITS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
)

DEAL_KINDS = {
    "game": _("game"),
    "misere": _("misère"),
    "passout": _("pass-out"),
    "concede": _("conceded contract"),
    "adjust": _("adjustment"),
    "ask": _("ask"),
    "independence": _("independence"),
    "card": _("value card"),
    "pass": _("pass round"),
}
ENTRY_KINDS = {
    # Where a Preferans entry is written on the sheet.
    "pool": _("pool"),
    "mountain": _("mountain"),
    "whists": _("whists"),
}
ANSWERS = {"pass": _("pass"), "whist": _("whist"), "half": _("half-whist")}
"""A Preferans defender's answers."""
SUIT_CLASSES = {"minor": _("minor"), "major": _("major")}
"""The payment tariff's suit classes (младшая / старшая)."""
RULES = {
    # Preferans (preferans.md §4–§8, §13, §14)
    "game-made": _("contract made"),
    "game-unplayed": _("nobody whisted"),
    "remise": _("remise"),
    "whists-for-tricks": _("whists for tricks"),
    "lone-whist": _("lone whist, paid for the passer's tricks"),
    "gentleman-split": _("gentleman's whist, shared"),
    "consolation": _("consolation"),
    "consolation-dealer": _("the dealer's consolation"),
    "widow-premium": _("widow premium (fast tricks)"),
    "whister-duty": _("whister short of his duty"),
    "half-whist": _("half-whist"),
    "misere-made": _("misère made"),
    "misere-failed": _("misère failed"),
    "misere-consolation": _("consolation on a failed misère"),
    "passout": _("pass-out tricks"),
    "passout-zero": _("pass-out without a trick"),
    "passout-whists": _("pass-out whists"),
    "concede": _("contract conceded"),
    "concede-consolation": _("consolation on a conceded contract"),
    "help": _("help"),
    "overflow": _("past the target, off the mountain"),
    "overflow-shifted": _("below zero, written on the others' mountains"),
    "adjustment": _("adjustment"),
    # Boston (boston.md §1–§2)
    "supported-won": _("supported ask won"),
    "supported-slam": _("supported ask, slam"),
    "supported-lost": _("supported ask lost"),
    "supported-no-trick": _("supported ask, no trick"),
    "unsupported-won": _("unsupported ask won"),
    "unsupported-slam": _("unsupported ask, slam"),
    "unsupported-lost": _("unsupported ask lost"),
    "unsupported-no-trick": _("unsupported ask, no trick"),
    "independence-won": _("independence won"),
    "independence-slam": _("independence, slam"),
    "independence-lost": _("independence lost"),
    "independence-no-trick": _("independence, no trick"),
    "card-made": _("contract made"),
    "card-failed": _("contract failed"),
    "boston-made": _("Boston made"),
    "boston-failed": _("Boston failed"),
    "slam-by-two-made": _("slam by two made"),
    "slam-by-two-failed": _("slam by two failed"),
}


def seat_letters() -> str:
    """The seats' letters in seat order, as the reader's language writes them: А Б В Г in
    Russian, A B C D in English (docs/rules.md, "Seat letters").

    For display only (the sheet's sectors, the new-table form, the rules page): a game
    record names its seats by position, and nothing stored or exported carries a letter,
    so an English page may letter them A B C D without a record changing."""
    return pgettext("the seats' letters, in seat order", "ABCD")


def seat_letter(seat: int) -> str:
    """The letter of seat ``seat`` (0 is the first) in the reader's language."""
    return seat_letters()[seat]


RECORD_FIELDS = {
    # A game record's fields (game-format.md) as a located message names them; a field
    # not listed (a tariff setting, «rules.pool_weight») is named by its key.
    "players": _("players"),
    "deals": _("deals"),
    "kind": _("kind of deal"),
    "declarer": _("declarer"),
    "partner": _("partner"),
    "contract": _("contract"),
    "answers": _("answers"),
    "tricks": _("tricks"),
    "dealer_tricks": _("dealer's widow tricks"),
    "undertricks": _("undertricks"),
    "fast_tricks": _("fast tricks in the widow"),
    "dark": _("dark"),
    "looked": _("looked before passing"),
    "reason": _("reason"),
    "whists": _("whists"),
    "pool": _("pool"),
    "mountain": _("mountain"),
    "amount": _("amount"),
    "transfers": _("transfers"),
    "column": _("column"),
    "honours": _("honours"),
    "trump": _("trump"),
    "suit": _("suit"),
    "tour": _("tour"),
    "note": _("note"),
}


DOWN = {
    # A concession's undertricks as players say them: «уход без трёх».
    1: _("one down"),
    2: _("two down"),
    3: _("three down"),
    4: _("four down"),
    5: _("five down"),
    6: _("six down"),
    7: _("seven down"),
    8: _("eight down"),
    9: _("nine down"),
    10: _("ten down"),
}


def deal_title(deal: dict[str, Any], *, preference_suit: str | None = None) -> str:
    """A stored deal as the log shows it, e.g. «игра 7♥ · Анна»; a conceded contract as
    players say it, «Вера 7♠ — уход без трёх» (give it the undertricks it was scored
    with when the record leaves them to the tariff); a Boston ask or independence with
    its suit and the declarer's partner, e.g. «прикуп ♥ старшая · Анна · партнёр: Вера» at
    a table whose preference suit is ``preference_suit`` (hearts)."""
    if deal.get("kind") == "concede":
        return _concede_title(deal)
    parts = [str(DEAL_KINDS.get(deal.get("kind", ""), deal.get("kind", "")))]
    if deal.get("contract"):
        parts[0] += f" {contract_text(deal['contract'])}"
    if played := boston_suit(deal, preference_suit):
        parts[0] += f" {played}"
    if deal.get("column") in SUIT_SYMBOLS:  # a value-card contract's column
        parts[0] += f" {SUIT_SYMBOLS[deal['column']]}"
    if deal.get("declarer"):
        parts.append(str(deal["declarer"]))
    if deal.get("partner"):  # a Boston side of two
        parts.append(str(_("partner: %(name)s")) % {"name": deal["partner"]})
    return " · ".join(parts)


def deal_words(
    deal: dict[str, Any], players: Sequence[str] = (), *, preference_suit: str | None = None
) -> str:
    """A stored deal in words, to confirm or report it: its title in the log and, for a
    Preferans game, the defenders' answers in the order they speak (clockwise from the
    declarer among ``players``, the seats in order), e.g. «игра 7♣ · Вера · вист–пас», and
    the widow premium's fast tricks where it has them («… · 2 быстрые взятки в прикупе»).
    (The record's answers are a mapping, and PostgreSQL keeps no key order.)"""
    title = deal_title(deal, preference_suit=preference_suit)
    answers = deal.get("answers")
    if deal.get("kind") != "game" or not isinstance(answers, dict) or not answers:
        return title
    seats = {name: i for i, name in enumerate(players)}
    start = seats.get(deal.get("declarer"), 0)  # type: ignore[arg-type]

    def speaks(name: str) -> tuple[int, str]:
        return ((seats.get(name, len(seats)) - start) % max(len(seats), 1), name)

    said = "–".join(str(ANSWERS.get(answers[n], answers[n])) for n in sorted(answers, key=speaks))
    fast = deal.get("fast_tricks")
    if isinstance(fast, int) and fast > 0:  # the widow premium (docs/rules.md, ФСПР)
        widow = ngettext(
            "%(count)s fast trick in the widow", "%(count)s fast tricks in the widow", fast
        ) % {"count": fast}
        return f"{title} · {said} · {widow}"
    return f"{title} · {said}"


def suit_label(suit: str) -> Any:
    """A Boston suit with its symbol, e.g. «♥ червы» (lazy: it is a form's choice too)."""
    return format_lazy("{} {}", SUIT_SYMBOLS[suit], SUIT_NAMES[suit])


def boston_suit(deal: dict[str, Any], preference_suit: str | None) -> str:
    """How a stored payment-tariff deal was played, as the log shows it: its trump and the
    class that trump gives at a table with ``preference_suit`` («♥ старшая»), or the class
    entered («старшая»); "" for other deals."""
    trump, suit = deal.get("trump"), deal.get("suit")
    if trump in SUIT_SYMBOLS:
        symbol = SUIT_SYMBOLS[trump]
        if preference_suit is None:  # the engine refuses such a deal; nothing to derive
            return symbol
        return f"{symbol} {SUIT_CLASSES[trump_class(trump, preference_suit)]}"
    if suit in SUIT_CLASSES:
        return str(SUIT_CLASSES[suit])
    return ""


def _concede_title(deal: dict[str, Any]) -> str:
    undertricks = deal.get("undertricks")
    down = DOWN.get(undertricks) if isinstance(undertricks, int) else None
    values = {
        "declarer": deal.get("declarer", ""),
        "contract": contract_text(deal.get("contract", "")),
    }
    if down is None:
        return str(_("%(declarer)s %(contract)s — conceded")) % values
    return str(_("%(declarer)s %(contract)s — conceded, %(down)s")) % (values | {"down": down})


def contract_text(contract: Any) -> str:
    """A stored contract in words: a Preferans contract with its suit as a sign, e.g.
    ``"7H"`` → «7♥»; a value-card row by its name, e.g. ``"small-misere"`` → «маленький
    мизер» (the engine's arithmetic writes it with spaces, «small misere»)."""
    if not isinstance(contract, str):
        return str(contract)
    row = contract.replace(" ", "-")
    if row in CARD_CONTRACT_WORDS:
        return str(CARD_CONTRACT_WORDS[row])
    if contract[:-1].isdigit() and contract[-1] in PREFERANS_SUITS:
        return f"{contract[:-1]}{PREFERANS_SUITS[contract[-1]]}"
    return contract


def rule_error_text(error: RuleError, *, located: bool = False) -> str:
    """The engine's (or a service's) refusal in the member's language: its template
    through the catalogue, its parameters written as the site writes them. ``located``
    puts the deal and the field in front, e.g. «раздача 3, взятки: …» (for an uploaded
    record or tariff, or a correction refused for a later deal: no form field shows it)."""
    text = engine_text(Text(str(error.template), **error.params))
    if not located:
        return text
    where = [] if error.deal is None else [gettext("deal %(n)s") % {"n": error.deal}]
    if error.field:
        where.append(str(RECORD_FIELDS.get(error.field, error.field)))
    return f"{', '.join(where)}: {text}" if where else text


def engine_text(text: Any) -> str:
    """Words the engine wrote (a ``Text``: an explanation, a message) in the member's
    language; a plain string (numbers, a note, a name) is shown as it is."""
    if not isinstance(text, Text):
        return str(text)
    template = gettext(text.template)
    if not text.params:
        return template
    return template % {name: _param(name, value) for name, value in text.params.items()}


def _param(name: str, value: Any) -> str:
    """A message's parameter as the site writes it: a suit as its sign, a contract or a
    kind of deal in words, a number in the language's format; the parameter's name says
    which it is (docs/contributing.md)."""
    if isinstance(value, Text):
        return engine_text(value)
    if name in ("suit", "column", "trump") and isinstance(value, str):
        return str(SUIT_SYMBOLS.get(value) or PREFERANS_SUITS.get(value) or value)
    if name == "contract":
        return contract_text(value)
    if name == "kind" and value in DEAL_KINDS:
        return str(DEAL_KINDS[value])
    if isinstance(value, Grouped):
        return formats.number_format(value, force_grouping=True)
    if isinstance(value, int | Decimal) and not isinstance(value, bool):
        return formats.number_format(value)
    return str(value)


def rule_label(key: str) -> str:
    """The words for an entry's rule key (the key itself when it has none)."""
    return str(RULES.get(key, key))


def entry_text(entry: Any, names: tuple[str, ...]) -> str:
    """A Preferans sheet entry in words, e.g. «Анна → Борис: whists 4»."""
    label = ENTRY_KINDS[entry.kind]
    if entry.on is not None:
        return f"{names[entry.player]} → {names[entry.on]}: {label} {entry.amount}"
    return f"{names[entry.player]}: {label} {entry.amount}"


def transfer_text(transfer: Any, names: tuple[str, ...]) -> str:
    """A Boston payment in words, e.g. «Анна → Борис: 12»."""
    return f"{names[transfer.payer]} → {names[transfer.payee]}: {transfer.chips}"
