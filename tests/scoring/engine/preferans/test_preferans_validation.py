"""Bad input is rejected with a clear error and changes nothing (preferans.md §10), and the
game record reader's format checks (game-format.md).

Each rejected deal must name its field and deal number, and leave the sheet, the dealer,
the pass-out series and the bombs exactly as they were.
"""

from __future__ import annotations

import copy
from decimal import Decimal
from typing import Any

import pytest

from scoring.engine.errors import RuleError
from scoring.engine.preferans import (
    Adjustment,
    Game,
    Misere,
    Passout,
    PreferansRules,
    Pulka,
    PulkaSetup,
)
from scoring.engine.preferans.record import parse_record, score_record

A, B, C, D = 0, 1, 2, 3
NAMES = ("A", "B", "C", "D")
WH, PA, HA = "whist", "pass", "half"
SOCHI = PreferansRules.preset("sochi")
LENINGRAD = PreferansRules.preset("leningrad")
CLASSIC = PreferansRules.preset("classic")


def game(
    declarer: int,
    level: int,
    answers: dict[int, str],
    tricks: dict[int, int] | None = None,
    *,
    dark: bool = False,
    suit: str = "S",
) -> Game:
    return Game(declarer, level, suit, answers, tricks, dark)


def po(a: int, b: int, c: int, *, dark: bool = False) -> Passout:
    return Passout({A: a, B: b, C: c}, dark=dark)


def snapshot(sheet: Pulka) -> tuple[Any, ...]:
    return (
        sheet.result(),
        sheet.dealer,
        sheet.passouts_in_series,
        copy.deepcopy(sheet.bombs),
        sheet.lowest_contract(),
    )


S3: dict[str, Any] = {}
S4A: dict[str, Any] = {"players": 4, "first_dealer": A}
TARGET2: dict[str, Any] = {"pool_target": 2}
FULL = Adjustment("carried over", pool={A: 2, B: 2, C: 2})

# (tariff, table, deals before, the bad deal, field, message part). The deal number is
# len(before) + 1: adjustments are numbered like deals.
REJECTED = [
    # Tricks must add up to 10.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 7, {B: WH, C: WH}, {A: 7, B: 2, C: 2}),
        "tricks",
        "must add up to 10, got 11",
        id="tricks-sum-11",
    ),
    pytest.param(
        SOCHI,
        S3,
        [po(4, 3, 3)],
        po(4, 3, 2),
        "tricks",
        "must add up to 10, got 9",
        id="passout-tricks-sum-9",
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: WH, C: PA}, {A: 7, B: 3}),
        "tricks",
        "every active player",
        id="tricks-missing-player",
    ),
    # 4 players: the dealer holds no cards in a game.
    pytest.param(
        SOCHI,
        S4A,
        [],
        game(B, 6, {C: WH, D: PA}, {A: 0, B: 6, C: 2, D: 2}),
        "tricks",
        "every active player",
        id="tricks-for-4p-dealer",
    ),
    # Widow: the Classic dealer takes 0–2 tricks; only where the widow rule is on.
    pytest.param(
        CLASSIC,
        S4A,
        [],
        Passout({B: 3, C: 2, D: 2}, dealer_tricks=3),
        "dealer_tricks",
        "0–2",
        id="widow-3-tricks",
    ),
    pytest.param(
        CLASSIC,
        S4A,
        [],
        Passout({A: 3, B: 3, C: 2, D: 2}),
        "dealer_tricks",
        "0–2",
        id="widow-3-tricks-in-tricks",
    ),
    pytest.param(
        CLASSIC,
        S4A,
        [],
        Passout({B: 4, C: 3, D: 2}, dealer_tricks=2),
        "tricks",
        "must add up to 8, got 9",
        id="widow-sum",
    ),
    pytest.param(
        SOCHI,
        S4A,
        [],
        Passout({B: 4, C: 3, D: 2}, dealer_tricks=1),
        "dealer_tricks",
        "widow",
        id="widow-off",
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        Passout({A: 4, B: 3, C: 2}, dealer_tricks=1),
        "dealer_tricks",
        "widow",
        id="widow-3-players",
    ),
    # Declarer or defender who is not active: the 4-player dealer.
    pytest.param(
        SOCHI,
        S4A,
        [],
        game(A, 6, {B: PA, C: PA}),
        "declarer",
        "active player",
        id="declarer-is-4p-dealer",
    ),
    pytest.param(
        SOCHI, S4A, [], Misere(A, 0), "declarer", "active player", id="misere-by-4p-dealer"
    ),
    pytest.param(
        SOCHI,
        S4A,
        [],
        game(B, 6, {C: PA, A: PA}),
        "answers",
        "each defender",
        id="defender-is-4p-dealer",
    ),
    pytest.param(
        SOCHI, S3, [], game(A, 6, {B: PA}), "answers", "each defender", id="answer-missing"
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: PA, C: "double"}),
        "answers",
        "whist, pass or half",
        id="answer-unknown",
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {A: PA, B: PA, C: PA}),
        "answers",
        "each defender",
        id="declarer-answers",
    ),
    # Contract level outside 6–10, and the suit.
    pytest.param(
        SOCHI, S3, [], game(A, 5, {B: PA, C: PA}), "contract", "from 6 to 10", id="level-5"
    ),
    pytest.param(
        SOCHI, S3, [], game(A, 11, {B: PA, C: PA}), "contract", "from 6 to 10", id="level-11"
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: PA, C: PA}, suit="X"),
        "contract",
        "S, C, D, H or N",
        id="suit-unknown",
    ),
    # Half-whist only at the levels of half_whist_levels (6, 7), by the second defender.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 8, {B: PA, C: HA}),
        "answers",
        "not allowed on a 8",
        id="half-whist-at-8",
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 10, {B: PA, C: HA}),
        "answers",
        "not allowed on a 10",
        id="half-whist-at-10",
    ),
    pytest.param(
        PreferansRules().with_overrides({"half_whist_levels": [6]}),
        S3,
        [],
        game(A, 7, {B: PA, C: HA}),
        "answers",
        "not allowed on a 7",
        id="half-whist-at-7-when-only-6",
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: HA, C: PA}),
        "answers",
        "second defender",
        id="half-whist-by-first-defender",
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: WH, C: HA}, {A: 6, B: 3, C: 1}),
        "answers",
        "second defender",
        id="half-whist-after-whist",
    ),
    # A 10 is not whisted when ten_is_whisted is off.
    pytest.param(
        PreferansRules().with_overrides({"ten_is_whisted": False}),
        S3,
        [],
        game(A, 10, {B: WH, C: PA}, {A: 10, B: 0, C: 0}),
        "answers",
        "10",
        id="ten-whisted-when-off",
    ),
    # Contract below the pass-out exit: Leningrad 7, Classic 8 after three.
    pytest.param(
        LENINGRAD,
        S3,
        [po(4, 3, 3)],
        game(A, 6, {B: PA, C: PA}),
        "contract",
        "the lowest contract is 7",
        id="below-exit-leningrad",
    ),
    pytest.param(
        CLASSIC,
        S3,
        [po(4, 3, 3)] * 3,
        game(A, 7, {B: PA, C: PA}),
        "contract",
        "the lowest contract is 8",
        id="below-exit-classic-3",
    ),
    # Dark deals where dark games are off.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: PA, C: PA}, dark=True),
        "dark",
        "dark games",
        id="dark-game-sochi",
    ),
    pytest.param(
        LENINGRAD, S3, [], po(4, 3, 3, dark=True), "dark", "dark games", id="dark-passout-leningrad"
    ),
    pytest.param(
        SOCHI, S3, [], Misere(A, 0, dark=True), "dark", "dark games", id="dark-misere-sochi"
    ),
    pytest.param(
        CLASSIC,
        S3,
        [],
        Passout({A: 4, B: 3, C: 3}, looked=frozenset({B})),
        "looked",
        "dark pass-out",
        id="looked-on-light-passout",
    ),
    # An adjustment needs a reason.
    pytest.param(
        SOCHI,
        S3,
        [],
        Adjustment("", mountain={A: 1}),
        "reason",
        "reason",
        id="adjustment-no-reason",
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        Adjustment("   ", mountain={A: 1}),
        "reason",
        "reason",
        id="adjustment-blank-reason",
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        Adjustment("fix", whists=((A, A, 5),)),
        "whists",
        "one player on another",
        id="adjustment-whists-on-self",
    ),
    # No deal on a complete pulka (every pool at the target).
    pytest.param(
        SOCHI, TARGET2, [FULL], game(A, 6, {B: PA, C: PA}), "kind", "complete", id="complete-game"
    ),
    pytest.param(SOCHI, TARGET2, [FULL], po(4, 3, 3), "kind", "complete", id="complete-passout"),
    pytest.param(SOCHI, TARGET2, [FULL], Misere(B, 0), "kind", "complete", id="complete-misere"),
    # Tricks: given when nobody whisted (both pass / half), missing when somebody did.
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: PA, C: PA}, {A: 6, B: 2, C: 2}),
        "tricks",
        "nobody whists",
        id="tricks-when-both-pass",
    ),
    pytest.param(
        SOCHI,
        S3,
        [],
        game(A, 6, {B: PA, C: HA}, {A: 6, B: 2, C: 2}),
        "tricks",
        "nobody whists",
        id="tricks-on-half-whist",
    ),
    pytest.param(
        SOCHI, S3, [], game(A, 6, {B: WH, C: PA}), "tricks", "tricks", id="no-tricks-when-whisted"
    ),
    pytest.param(SOCHI, S3, [], Misere(A, 11), "tricks", "0 to 10", id="misere-11-tricks"),
]


@pytest.mark.parametrize(("tariff", "table", "before", "deal", "field", "message"), REJECTED)
def test_rejected_deal_changes_nothing(tariff, table, before, deal, field, message):
    sheet = Pulka(
        PulkaSetup(
            players=NAMES[: table.get("players", 3)],
            rules=tariff,
            first_dealer=table.get("first_dealer", 0),
            pool_target=table.get("pool_target", 20),
        )
    )
    for earlier in before:
        sheet.play(earlier)
    was = snapshot(sheet)
    with pytest.raises(RuleError) as error:
        sheet.play(deal)
    number = len(before) + 1
    assert error.value.field == field
    assert error.value.deal == number
    assert message in error.value.message
    assert str(error.value).startswith(f"deal {number}, {field}: ")
    assert snapshot(sheet) == was


def test_error_text_names_deal_and_field():
    sheet = Pulka(PulkaSetup(players=NAMES[:3]))
    with pytest.raises(RuleError) as error:
        sheet.play(game(A, 7, {B: WH, C: WH}, {A: 7, B: 2, C: 2}))
    assert str(error.value) == "deal 1, tricks: must add up to 10, got 11"


def test_number_is_not_used_up_by_a_rejected_deal():
    sheet = Pulka(PulkaSetup(players=NAMES[:3]))
    sheet.play(po(4, 3, 3))
    with pytest.raises(RuleError) as error:
        sheet.play(po(4, 3, 4))
    assert error.value.deal == 2
    assert sheet.play(po(4, 3, 3)).n == 2


def test_complete_pulka_still_takes_adjustments():
    sheet = Pulka(PulkaSetup(players=NAMES[:3], pool_target=2))
    sheet.play(FULL)
    assert sheet.result().complete
    result = sheet.play(Adjustment("late correction", mountain={B: 3}))
    assert result.dealer is None
    assert sheet.result().mountain == (0, 3, 0)


def test_closed_pulka_rejects_deals_but_takes_adjustments():
    sheet = Pulka(PulkaSetup(players=NAMES[:3]))
    sheet.play(po(4, 3, 3))
    sheet.close()
    was = snapshot(sheet)
    for deal in (game(A, 6, {B: PA, C: PA}), po(4, 3, 3), Misere(A, 0)):
        with pytest.raises(RuleError) as error:
            sheet.play(deal)
        assert (error.value.field, error.value.deal) == ("kind", 2)
        assert "closed" in error.value.message
        assert snapshot(sheet) == was
    sheet.play(Adjustment("correction", pool={A: 1}))
    assert sheet.result().pool == (1, 0, 0)


# -- the game record reader (game-format.md) ----------------------------------------------------


def record(*deals: dict[str, Any], **head: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "format": "pulka/1",
        "game": "preferans",
        "rules": "sochi",
        "players": ["Anna", "Boris", "Vera"],
        "deals": list(deals),
    }
    data.update(head)
    return data


OK_GAME = {
    "kind": "game",
    "declarer": "Anna",
    "contract": "6S",
    "answers": {"Boris": "pass", "Vera": "pass"},
}


def game_with(**fields: Any) -> dict[str, Any]:
    return {**OK_GAME, **fields}


FORMAT_ERRORS = [
    # (record, deal number or None for the head, field, message part)
    pytest.param(
        record({"kind": "bid"}),
        1,
        "kind",
        "game, misere, passout, concede or adjust",
        id="unknown-kind",
    ),
    pytest.param(
        record(OK_GAME, {"declarer": "Anna"}), 2, "kind", "game, misere, passout", id="missing-kind"
    ),
    pytest.param(
        record(game_with(colour="red")), 1, "colour", "unknown field", id="unknown-deal-field"
    ),
    pytest.param(
        record({"kind": "misere", "declarer": "Anna", "tricks": {"Anna": 0}, "answers": {}}),
        1,
        "answers",
        "unknown field",
        id="field-of-another-kind",
    ),
    pytest.param(record(colour="red"), None, "colour", "unknown field", id="unknown-head-field"),
    pytest.param(record(game_with(contract="11S")), 1, "contract", "level 6–10", id="contract-11"),
    pytest.param(record(game_with(contract="5S")), 1, "contract", "level 6–10", id="contract-5"),
    pytest.param(
        record(game_with(contract="6X")), 1, "contract", "level 6–10", id="contract-bad-suit"
    ),
    pytest.param(
        record(game_with(contract="6s")), 1, "contract", "level 6–10", id="contract-lower-case"
    ),
    pytest.param(
        record(game_with(contract="six spades")), 1, "contract", "level 6–10", id="contract-words"
    ),
    pytest.param(record(game_with(contract=6)), 1, "contract", "level 6–10", id="contract-number"),
    pytest.param(
        record(game_with(declarer="Gleb")),
        1,
        "declarer",
        "'Gleb' is not a player",
        id="unknown-declarer",
    ),
    pytest.param(
        record(game_with(answers={"Boris": "pass", "Gleb": "pass"})),
        1,
        "answers",
        "'Gleb' is not a player",
        id="unknown-player-in-answers",
    ),
    pytest.param(
        record({"kind": "passout", "tricks": {"Anna": 5, "Boris": 5, "Gleb": 0}}),
        1,
        "tricks",
        "'Gleb' is not a player",
        id="unknown-player-in-tricks",
    ),
    pytest.param(
        record(
            {
                "kind": "passout",
                "tricks": {"Anna": 4, "Boris": 3, "Vera": 3},
                "dark": True,
                "looked": ["Gleb"],
            },
            rules="classic",
        ),
        1,
        "looked",
        "'Gleb' is not a player",
        id="unknown-player-looked",
    ),
    pytest.param(
        record(OK_GAME, first_dealer="Gleb"),
        None,
        "first_dealer",
        "'Gleb' is not a player",
        id="unknown-first-dealer",
    ),
    pytest.param(
        record({"kind": "adjust", "reason": "x", "whists": [["Anna", "Gleb", 5]]}),
        1,
        "whists",
        "'Gleb' is not a player",
        id="unknown-player-in-whists",
    ),
    # Wrong types.
    pytest.param(
        record({"kind": "passout", "tricks": {"Anna": "4", "Boris": 3, "Vera": 3}}),
        1,
        "tricks",
        "whole number",
        id="tricks-string",
    ),
    pytest.param(
        record({"kind": "passout", "tricks": {"Anna": 4.0, "Boris": 3, "Vera": 3}}),
        1,
        "tricks",
        "whole number",
        id="tricks-float",
    ),
    pytest.param(
        record({"kind": "passout", "tricks": [4, 3, 3]}), 1, "tricks", "object", id="tricks-list"
    ),
    pytest.param(
        record({"kind": "passout", "tricks": {"Anna": 11, "Boris": 0, "Vera": 0}}),
        1,
        "tricks",
        "0–10",
        id="tricks-out-of-range",
    ),
    pytest.param(record(game_with(dark="yes")), 1, "dark", "true or false", id="dark-string"),
    pytest.param(
        record(game_with(answers=["pass", "pass"])), 1, "answers", "object", id="answers-list"
    ),
    pytest.param(
        record(game_with(answers={"Boris": "pass", "Vera": "no"})),
        1,
        "answers",
        "whist, pass or half",
        id="answer-word",
    ),
    pytest.param(
        record({"kind": "misere", "declarer": "Anna", "tricks": 0}),
        1,
        "tricks",
        "object",
        id="misere-tricks-number",
    ),
    pytest.param(
        record({"kind": "misere", "declarer": "Anna", "tricks": {"Boris": 0}}),
        1,
        "tricks",
        "declarer's tricks only",
        id="misere-other-player",
    ),
    pytest.param(
        record(
            {"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}, "looked": "Boris"}
        ),
        1,
        "looked",
        "list",
        id="looked-not-list",
    ),
    pytest.param(
        record(
            {"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}, "dealer_tricks": 3}
        ),
        1,
        "dealer_tricks",
        "0–2",
        id="dealer-tricks-3",
    ),
    pytest.param(
        record({"kind": "adjust", "pool": {"Anna": 1}}),
        1,
        "reason",
        "an adjustment needs a reason",
        id="adjust-no-reason",
    ),
    pytest.param(
        record({"kind": "adjust", "reason": "x", "pool": {"Anna": "1"}}),
        1,
        "pool",
        "whole number",
        id="adjust-pool-string",
    ),
    pytest.param(
        record({"kind": "adjust", "reason": "x", "whists": [["Anna", "Boris"]]}),
        1,
        "whists",
        "[writer, on, amount]",
        id="adjust-whists-shape",
    ),
    pytest.param(
        record(OK_GAME, pool_target="20"),
        None,
        "pool_target",
        "whole number",
        id="pool-target-string",
    ),
    pytest.param(record(OK_GAME, pool_target=0), None, "pool_target", "1–", id="pool-target-0"),
    pytest.param(
        record(OK_GAME, whist_price=0.5), None, "whist_price", "decimal string", id="price-float"
    ),
    pytest.param(
        record(OK_GAME, whist_price="half"), None, "whist_price", "decimal string", id="price-word"
    ),
    pytest.param(
        record(OK_GAME, players=["Anna", "Boris"]), None, "players", "3 or 4", id="two-players"
    ),
    pytest.param(
        record(OK_GAME, players=["Anna", "Anna", "Vera"]),
        None,
        "players",
        "distinct",
        id="same-name-twice",
    ),
    pytest.param(
        record(OK_GAME, players="Anna, Boris, Vera"), None, "players", "3 or 4", id="players-string"
    ),
    pytest.param(
        record(OK_GAME, rules="moscow"), None, "rules", "unknown preset", id="unknown-preset"
    ),
    pytest.param(
        record(OK_GAME, rules={"preset": "sochi", "passout_ladder": "1,2,3"}),
        None,
        "rules.passout_ladder",
        "list of whole numbers",
        id="override-bad-type",
    ),
    pytest.param(
        record(OK_GAME, rules={"preset": "sochi", "colour": "red"}),
        None,
        "rules.colour",
        "unknown setting",
        id="override-unknown",
    ),
    pytest.param(record(OK_GAME, deals={"1": OK_GAME}), None, "deals", "list", id="deals-object"),
    pytest.param(record(OK_GAME, "not a deal"), 2, "deal", "object", id="deal-not-object"),
]


@pytest.mark.parametrize(("data", "deal", "field", "message"), FORMAT_ERRORS)
def test_record_format_errors(data, deal, field, message):
    with pytest.raises(RuleError) as error:
        parse_record(data)
    assert error.value.field == field
    assert error.value.deal == deal
    assert message in error.value.message


RULE_ERRORS_IN_RECORDS = [
    # Rule checks happen while scoring; the error carries the deal number of the record.
    pytest.param(
        record(
            OK_GAME,
            {
                "kind": "game",
                "declarer": "Anna",
                "contract": "7S",
                "answers": {"Boris": "whist", "Vera": "whist"},
                "tricks": {"Anna": 7, "Boris": 2, "Vera": 2},
            },
        ),
        2,
        "tricks",
        "must add up to 10, got 11",
        id="tricks-sum-deal-2",
    ),
    pytest.param(
        record(
            {"kind": "passout", "tricks": {"Anna": 4, "Boris": 3, "Vera": 3}},
            game_with(contract="6H"),
            rules="leningrad",
        ),
        2,
        "contract",
        "lowest contract is 7",
        id="below-exit-deal-2",
    ),
    pytest.param(record(game_with(dark=True)), 1, "dark", "dark games", id="dark-in-sochi"),
    pytest.param(
        record(
            {
                "kind": "game",
                "declarer": "Anna",
                "contract": "6S",
                "answers": {"Boris": "whist", "Vera": "pass"},
            }
        ),
        1,
        "tricks",
        "tricks",
        id="whisted-without-tricks",
    ),
    pytest.param(
        record(
            {
                "kind": "game",
                "declarer": "Anna",
                "contract": "6S",
                "answers": {"Boris": "pass", "Vera": "pass"},
                "tricks": {"Anna": 6, "Boris": 2, "Vera": 2},
            }
        ),
        1,
        "tricks",
        "nobody whists",
        id="tricks-without-whist",
    ),
    pytest.param(
        record(game_with(declarer="Anna"), players=["Anna", "Boris", "Vera", "Gleb"]),
        1,
        "declarer",
        "active player",
        id="4p-dealer-declares",
    ),
]


@pytest.mark.parametrize(("data", "deal", "field", "message"), RULE_ERRORS_IN_RECORDS)
def test_record_rule_errors(data, deal, field, message):
    with pytest.raises(RuleError) as error:
        score_record(data)
    assert error.value.field == field
    assert error.value.deal == deal
    assert message in error.value.message
    assert str(error.value).startswith(f"deal {deal}, {field}: ")


def test_valid_record_reads():
    setup, deals = parse_record(record(OK_GAME, whist_price="0.50", first_dealer="Boris"))
    assert setup.players == ("Anna", "Boris", "Vera")
    assert setup.first_dealer == B
    assert setup.whist_price == Decimal("0.50")
    assert deals == [Game(A, 6, "S", {B: "pass", C: "pass"}, None, False)]
