"""What one payer pays in a Boston deal, with the arithmetic that explains it.

Two systems (boston.md §1 and §2): the payment tariff prices asks and independences by
tricks over or short; the value card prices a row of the card in a suit column. Who pays
whom is the table's business (``table.py``); here is only the amount per payer.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.engine.boston.deals import Ask, Card, Independence, suit_class
from scoring.engine.boston.rules import MISERE_ROWS, TRICK_ROWS, BostonRules
from scoring.engine.text import N_, Text


@dataclass(frozen=True, slots=True)
class Amount:
    """The chips each payer pays: ``won`` says which side pays (the opponents when the
    declaring side won); ``rule`` is a short key, ``arithmetic`` the sum in words."""

    won: bool
    chips: int
    rule: str
    arithmetic: str


def tariff_amount(
    rules: BostonRules,
    deal: Ask | Independence,
    double: bool,
    preference_suit: str | None = None,
) -> Amount:
    """The payment tariff's amount per payer for an ask or an independence (§1), at a table
    whose preference suit is ``preference_suit`` (needed only by a deal given by trump)."""
    major = suit_class(deal, preference_suit) == "major"
    required, base, rate, no_trick_count = rules.ask_terms(deal.contract)
    tricks = deal.tricks
    slam = rules.slam_multiplier
    if tricks == 13:
        # Slam: everything doubles, consolation and every overtrick alike.
        outcome, over = "slam", 13 - required
        chips = slam * base + over * slam * rate
        sum_text: str = Text(
            N_("slam ×%(times)s: %(sum)s"),
            times=slam,
            sum=f"{slam * base} + {over} × {slam * rate} = {chips}",
        )
    elif tricks >= required:
        outcome, over = "won", tricks - required
        chips = base + rate * over
        sum_text = f"{base} + {rate} × {over} = {chips}"
    elif tricks == 0:
        # The seed counts S tricks here (13, or 5 for the unsupported ask), not the
        # tricks actually short.
        outcome = "no-trick"
        chips = slam * base + no_trick_count * slam * rate
        sum_text = Text(
            N_("no trick ×%(times)s: %(sum)s"),
            times=slam,
            sum=f"{slam * base} + {no_trick_count} × {slam * rate} = {chips}",
        )
    else:
        outcome, short = "lost", required - tricks
        chips = base + rate * short
        sum_text = f"{base} + {rate} × {short} = {chips}"
    if major:
        chips *= rules.major_multiplier
        sum_text = Text(
            N_("%(sum)s, major ×%(times)s = %(chips)s"),
            sum=sum_text,
            times=rules.major_multiplier,
            chips=chips,
        )
    chips, sum_text = _tour(rules, double, chips, sum_text)
    won = outcome in ("won", "slam")
    return Amount(won, chips, f"{deal.contract}-{outcome}", sum_text)


def card_amount(rules: BostonRules, deal: Card, double: bool) -> Amount:
    """The value card's amount per payer for a contract row in a column (§2)."""
    multiplier = rules.column_multiplier(deal.column)
    if deal.contract in TRICK_ROWS:
        amount = _trick_row(rules, deal, multiplier)
    else:
        amount = _fixed_row(rules, deal, multiplier)
    chips, sum_text = _tour(rules, double, amount.chips, amount.arithmetic)
    return Amount(amount.won, chips, amount.rule, sum_text)


def card_required(rules: BostonRules, deal: Card) -> int:
    """Tricks the declaring side needs for a value-card row (misères: the most it may
    take)."""
    if deal.contract == "5" and deal.partner is not None:
        return rules.together_required
    if deal.contract in TRICK_ROWS:
        return int(deal.contract)
    if deal.contract == "piccolissimo":
        return rules.piccolissimo_tricks
    if deal.contract in MISERE_ROWS:
        return 0
    return 13


def _trick_row(rules: BostonRules, deal: Card, multiplier: int) -> Amount:
    """A trick contract 5–12: cell + honours + overtricks when made, cell + undertricks
    when failed."""
    row = TRICK_ROWS.index(deal.contract)
    required = card_required(rules, deal)
    cell = rules.contract_units[row] * multiplier
    per_trick = rules.overtrick_units[row] * multiplier
    parts = [
        Text(
            "%(row)s (%(column)s) %(cell)s",
            row=_row_label(rules, deal),
            column=deal.column,
            cell=cell,
        )
    ]
    chips = cell
    won = deal.tricks >= required
    if won:
        honours = _honours_cell(rules, deal, row, multiplier)
        if honours:
            chips += honours
            held = (
                N_("three honours %(chips)s") if deal.honours == 3 else N_("four honours %(chips)s")
            )
            parts.append(Text(held, chips=honours))
        extra, counted = deal.tricks - required, rules.card_pays_overtricks
        words = (N_("%(count)s overtrick × %(chips)s"), N_("%(count)s overtricks × %(chips)s"))
    else:
        extra, counted = required - deal.tricks, rules.card_pays_undertricks
        words = (N_("%(count)s undertrick × %(chips)s"), N_("%(count)s undertricks × %(chips)s"))
    if extra and counted:
        chips += extra * per_trick
        parts.append(Text(words[extra > 1], count=extra, chips=per_trick))
    rule = "card-made" if won else "card-failed"
    return Amount(won, chips, rule, Text("%(sum)s = %(chips)s", sum=_plus(parts), chips=chips))


def _plus(parts: list[Text]) -> Text:
    """``parts`` joined by « + », each still translatable."""
    total = parts[0]
    for part in parts[1:]:
        total = Text("%(left)s + %(right)s", left=total, right=part)
    return total


def _honours_cell(rules: BostonRules, deal: Card, row: int, multiplier: int) -> int:
    if not rules.card_pays_honours or not deal.honours:
        return 0
    units = rules.three_honours_units if deal.honours == 3 else rules.four_honours_units
    return units[row] * multiplier


def _fixed_row(rules: BostonRules, deal: Card, multiplier: int) -> Amount:
    """Slam by two, a misère or a Boston: the cell, made or failed."""
    cell = rules.special_unit(deal.contract) * multiplier
    if deal.contract in MISERE_ROWS:
        won, kind = deal.tricks == card_required(rules, deal), "misere"
    else:
        won, kind = deal.tricks == 13, deal.contract.removeprefix("open-")
    rule = f"{kind}-{'made' if won else 'failed'}"
    # The contract is written with spaces, «small misere» (the site names it in words).
    text = Text(
        "%(contract)s %(column)s = %(cell)s",
        contract=deal.contract.replace("-", " "),
        column=deal.column,
        cell=cell,
    )
    return Amount(won, cell, rule, text)


def _row_label(rules: BostonRules, deal: Card) -> Text:
    if deal.contract == "5" and deal.partner is not None:
        return Text(N_("%(count)s together"), count=rules.together_required)
    return Text(N_("%(count)s tricks"), count=int(deal.contract))


def _tour(rules: BostonRules, double: bool, chips: int, sum_text: str) -> tuple[int, str]:
    if not double:
        return chips, sum_text
    chips *= rules.double_tour_multiplier
    return chips, Text(
        N_("%(sum)s, double tour ×%(times)s = %(chips)s"),
        sum=sum_text,
        times=rules.double_tour_multiplier,
        chips=chips,
    )
