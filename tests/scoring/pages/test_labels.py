"""The engine's words through the catalogue: every message template the engine (and the
services) mark with ``N_`` is in locale/ru with a Russian translation, every ``RuleError``
is raised with a marked template, and ``labels`` writes a message's parameters as the
site writes them (suits as signs, contracts in words, numbers in the language's format)
while ``str()`` stays English for the ``score`` command."""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from gettext import GNUTranslations
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from scoring.engine.boston import BostonRules, BostonSetup, BostonTable
from scoring.engine.boston.deals import Card
from scoring.engine.errors import N_, Grouped, RuleError
from scoring.engine.preferans import Pulka, PulkaSetup
from scoring.engine.preferans.deals import Game
from scoring.engine.preferans.rules import PreferansRules
from scoring.engine.text import Text
from scoring.pages.labels import contract_text, deal_title, engine_text, rule_error_text

ROOT = Path(settings.BASE_DIR)
ENGINE = ROOT / "scoring" / "engine"
MO = ROOT / "locale" / "ru" / "LC_MESSAGES" / "django.mo"


def marked_templates(folder: Path) -> dict[str, str]:
    """Every string literal marked ``N_("…")`` under ``folder``, with where it is."""
    found = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "N_":
                (argument,) = node.args
                assert isinstance(argument, ast.Constant), f"{path}:{node.lineno}"
                found[argument.value] = f"{path.relative_to(ROOT)}:{node.lineno}"
    return found


def test_every_marked_template_has_a_russian_translation() -> None:
    with MO.open("rb") as compiled:
        catalogue = GNUTranslations(compiled)._catalog  # type: ignore[attr-defined]
    templates = marked_templates(ROOT / "scoring")

    assert len(marked_templates(ENGINE)) > 130  # the walk finds the engine's messages
    missing = {t: where for t, where in templates.items() if not catalogue.get(t)}
    assert missing == {}
    # A translation keeps the template's parameters (the .po's python-format check is
    # in tests/clubsite/test_i18n.py); spot-check one that the tricks refusal uses.
    assert catalogue["must add up to %(total)s, got %(got)s"] == (
        "взятки должны составлять %(total)s, а указано %(got)s"
    )


def _first_argument_is_marked(call: ast.Call) -> bool:
    first = call.args[0]
    if isinstance(first, ast.Call):
        return getattr(first.func, "id", None) == "N_"
    # A template chosen earlier (``fail(name, N_(…))``, ``BAD_TEXT_AT``): a name; an
    # error moved to another deal or field keeps its own (``self.template``).
    if isinstance(first, ast.Attribute):
        return first.attr == "template"
    return isinstance(first, ast.Name)


def test_every_engine_error_and_worded_text_is_raised_with_a_marked_template() -> None:
    unmarked = []
    for path in sorted(ENGINE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = getattr(node.func, "id", None)
            if name == "RuleError" and not _first_argument_is_marked(node):
                unmarked.append(f"{path.relative_to(ROOT)}:{node.lineno}")
            first = node.args[0]
            words = re.sub(r"%\(\w+\)s", "", str(getattr(first, "value", "")))
            worded = isinstance(first, ast.Constant) and any(c.isalpha() for c in words)
            if name == "Text" and worded:  # a Text with words must be in the catalogue
                unmarked.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert unmarked == []


def test_str_stays_english_and_names_the_place() -> None:
    error = RuleError(N_("must add up to %(total)s, got %(got)s"), field="tricks", total=10, got=9)

    assert str(error) == "tricks: must add up to 10, got 9"
    assert str(error.at_deal(3)) == "deal 3, tricks: must add up to 10, got 9"
    assert error.at_deal(3).params == {"total": 10, "got": 9}


@pytest.mark.parametrize(
    ("error", "russian"),
    [
        (
            RuleError(N_("must add up to %(total)s, got %(got)s"), field="tricks", total=10, got=9),
            "взятки должны составлять 10, а указано 9",
        ),
        (
            RuleError(N_("contract %(contract)s is played alone"), contract="grand-open-misere"),
            "заказ «большой открытый мизер» играют без партнёра",
        ),
        (
            RuleError(N_("half-whist is not allowed on a %(level)s"), level=8),
            "на 8 полвиста не бывает",
        ),
        (  # a record's size is written grouped, as Russian writes it (a no-break space)
            RuleError(
                N_("a game record has at most %(limit)s deals; this one has %(count)s"),
                limit=Grouped(1000),
                count=Grouped(85_000),
            ),
            "в записи игры не больше 1\xa0000 раздач, а в этой 85\xa0000",
        ),
        (  # a service's message marked with N_ is translated where it is shown
            RuleError(N_("there is no deal to undo"), field="deal"),
            "отменять нечего: раздач нет",
        ),
    ],
)
def test_a_rule_error_in_russian(error: RuleError, russian: str) -> None:
    with translation.override("ru"):
        assert rule_error_text(error) == russian


def test_a_rule_error_on_the_english_site_names_the_contract_in_english_words() -> None:
    error = RuleError(N_("contract %(contract)s is played alone"), contract="grand-open-misere")

    with translation.override("en"):
        assert rule_error_text(error) == "contract grand open misère is played alone"
    assert str(error) == "contract grand-open-misere is played alone"  # the command's key


def test_a_located_error_names_the_deal_and_the_field_in_russian() -> None:
    error = RuleError(
        N_("must be an active player (the 4-player dealer sits out)"), field="declarer"
    )

    with translation.override("ru"):
        text = rule_error_text(error.at_deal(4), located=True)

    assert text == "раздача 4, играющий: должен быть игроком на руках (сдающий вчетвером не играет)"


def test_a_value_card_explanation_in_russian() -> None:
    # Value card, hearts ×4: 7 tricks made with 9, three honours (unit 6 → 24), two
    # overtricks at 3 × 4 = 12 each: 9 × 4 + 24 + 2 × 12 = 36 + 24 + 24 = 84.
    table = BostonTable(
        BostonSetup(players=("A", "B", "C", "D"), rules=BostonRules(system="value-card"))
    )
    card = Card(declarer=0, contract="7", column="hearts", tricks=9, honours=3)

    transfer = table.play(card).transfers[0]

    assert transfer.arithmetic == "7 tricks (hearts) 36 + three honours 24 + 2 overtricks × 12 = 84"
    with translation.override("ru"):
        assert engine_text(transfer.arithmetic) == (
            "взяток: 7 (♥) 36 + три онёра 24 + взяток сверх: 2 × 12 = 84"
        )


def test_a_closing_pool_explains_itself_in_russian() -> None:
    # Sochi, target 1: a made 6♠ is worth 2 pool points; 1 fits under the target, the rest
    # helps nobody (every pool would close) and goes off the mountain.
    rules = PreferansRules.preset("sochi")
    pulka = Pulka(PulkaSetup(players=("A", "B", "C"), rules=rules, pool_target=1))
    game = Game(declarer=0, level=6, suit="S", answers={1: "pass", 2: "pass"})

    entries = pulka.play(game).entries
    closing = next(e for e in entries if e.kind == "pool")

    assert closing.calc == "2; 1 up to the target"
    with translation.override("ru"):
        assert engine_text(closing.calc) == "2; 1 до закрытия пули"


def test_a_text_survives_a_copy_with_its_template() -> None:
    import copy
    import pickle

    text = Text(N_("%(calc)s × %(factor)s dark"), calc=Text(N_("p%(number)s"), number=2), factor=2)

    for twin in (pickle.loads(pickle.dumps(text)), copy.deepcopy(text)):  # noqa: S301
        assert twin == "p2 × 2 dark"
        with translation.override("ru"):
            assert engine_text(twin) == "распасы 2 × 2 тёмная"


@pytest.mark.parametrize(
    ("contract", "russian"),
    [
        ("7H", "7♥"),
        ("10N", "10БК"),
        ("small-misere", "маленький мизер"),
        ("piccolissimo", "пикколиссимо"),
        ("open boston", "открытый бостон"),
        ("9", "9"),
    ],
)
def test_contracts_in_russian(contract: str, russian: str) -> None:
    with translation.override("ru"):
        assert contract_text(contract) == russian


def test_a_value_card_deal_title_has_its_contract_in_words_and_its_column_as_a_sign() -> None:
    deal = {
        "kind": "card",
        "contract": "four-tour-misere",
        "column": "diamonds",
        "declarer": "Анна",
    }

    with translation.override("ru"):
        assert deal_title(deal) == "таблица стоимости мизер четырёх туров ♦ · Анна"
    with translation.override("en"):
        assert deal_title(deal) == "value card misère of four tours ♦ · Анна"


def test_fractions_and_names_are_written_as_they_are() -> None:
    error = RuleError(N_("%(name)s is not a player at this table"), name="'Зоя'")
    with translation.override("ru"):
        assert rule_error_text(error) == "'Зоя' не играет за этим столом"
    assert engine_text(Text("%(calc)s", calc=Fraction(1, 2))) == "1/2"
