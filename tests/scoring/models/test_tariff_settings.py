"""The house settings are declared once (scoring/models/tariff_settings.py); the model,
``to_rules()``, the admin, the tariff pages and docs/rules.md all follow the declarations."""

from __future__ import annotations

import dataclasses
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from scoring import services
from scoring.admin.tariffs import BostonTariffAdmin, PreferansTariffAdmin
from scoring.engine.boston.rules import BostonRules
from scoring.engine.preferans.rules import PRESETS, PreferansRules
from scoring.models import BostonTariff, PreferansTariff
from scoring.models import tariff_settings as ts
from scoring.models.tariff_settings import BOSTON_SETTINGS, PREFERANS_SETTINGS, Setting
from scoring.pages import tariffs as views

RULES_MD = Path(settings.BASE_DIR) / "docs" / "rules.md"
GAMES = [
    pytest.param(PreferansTariff, PREFERANS_SETTINGS, PreferansRules, id="preferans"),
    pytest.param(BostonTariff, BOSTON_SETTINGS, BostonRules, id="boston"),
]


# -- the declarations and the engine ------------------------------------------------------


@pytest.mark.parametrize(("model", "declared", "rules_type"), GAMES)
def test_every_column_is_declared_once_and_feeds_an_engine_rule(model, declared, rules_type):
    names = [s.name for s in declared]
    rules = {f.name for f in dataclasses.fields(rules_type)}
    columns = {f.name for f in model._meta.fields} - {"id", "name", "description"}

    assert len(names) == len(set(names))
    assert set(names) == columns - {"changed_at", "changed_by"}
    assert {s.engine_name for s in declared} <= rules


def test_every_preferans_rule_has_a_column():
    rules = {f.name for f in dataclasses.fields(PreferansRules)}

    assert {s.engine_name for s in PREFERANS_SETTINGS} == rules


@pytest.mark.parametrize(("model", "declared", "rules_type"), GAMES)
def test_a_column_defaults_to_the_engine_default(model, declared, rules_type):
    for setting in declared:
        field = model._meta.get_field(setting.name)
        assert field.default == setting.from_engine(rules_type()), setting.name
        assert field.help_text, setting.name


def test_a_new_tariff_plays_the_engine_defaults():
    assert PreferansTariff().to_rules() == PreferansRules()
    assert BostonTariff().to_rules() == BostonRules()


def test_boston_columns_give_back_every_preset():
    for system in ("payment-tariff", "value-card"):
        rules = BostonRules.preset(system)
        assert BostonTariff(**BostonTariff.fields_from_rules(rules)).to_rules() == rules


@pytest.mark.parametrize("preset", list(PRESETS))
def test_columns_give_back_every_preset(preset):
    rules = PreferansRules.preset(preset)

    assert PreferansTariff(**PreferansTariff.fields_from_rules(rules)).to_rules() == rules


def test_a_list_rule_is_gathered_from_its_columns_in_order():
    tariff = PreferansTariff(value_6=3, value_misere=12, obligation_10=0)

    rules = tariff.to_rules()

    assert rules.contract_values == (3, 4, 6, 8, 10, 12)
    assert rules.whist_obligations == (4, 2, 1, 1, 0)


def test_rates_and_lists_change_form_between_column_and_engine():
    rules = PreferansRules().with_overrides({"whist_rate": "3/2", "passout_exit": [6, 7]})

    fields = PreferansTariff.fields_from_rules(rules)

    assert fields["whist_rate"] == Decimal("1.5")
    assert fields["passout_exit"] == "6, 7"
    assert fields["half_whist_levels"] == "6, 7"


def test_boston_multipliers_follow_their_suit_not_their_position():
    rules = BostonRules().with_overrides(
        {
            "suit_order": ["hearts", "spades", "clubs", "diamonds"],
            "column_multipliers": [9, 1, 2, 3],
        }
    )

    fields = BostonTariff.fields_from_rules(rules)

    assert fields["hearts_multiplier"] == 9
    assert fields["spades_multiplier"] == 1


# -- a new setting costs one declaration --------------------------------------------------


def test_a_declared_setting_makes_its_column_with_its_limits():
    setting = ts._whole("concede_undertricks", "passouts", "Undertricks of a concession.")
    field = setting.column(3)

    assert type(field).__name__ == "PositiveIntegerField"
    assert field.default == 3
    assert [v.limit_value for v in field._validators] == [1]

    choice = ts._choice(
        "stalingrad", "rates", "6♠ whisted by both.", (("no", "no"), ("yes", "yes")), 3
    )
    assert choice.column("no").choices == [("no", "no"), ("yes", "yes")]
    assert Setting(
        name="r", kind="rate", section="rates", help_text="x", minimum=Decimal(0)
    ).column(Decimal(1)).validators[0].limit_value == Decimal(0)


# -- the admin ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("admin_class", "declared", "sections"),
    [
        (PreferansTariffAdmin, PREFERANS_SETTINGS, ts.PREFERANS_SECTIONS),
        (BostonTariffAdmin, BOSTON_SETTINGS, ts.BOSTON_SECTIONS),
    ],
)
def test_the_admin_shows_each_setting_in_its_declared_section_in_order(
    admin_class, declared, sections
):
    fieldsets = admin_class.fieldsets
    by_title = {}
    for title, options in fieldsets:
        flat = []
        for line in options["fields"]:
            flat += list(line) if isinstance(line, tuple) else [line]
        by_title[str(title)] = flat

    for section in sections:
        expected = [s.name for s in declared if s.section == section.key]
        shown = by_title[str(section.title)]
        assert [name for name in shown if name in expected] == expected


# -- the tariff pages ---------------------------------------------------------------------


def section_text(html: str) -> str:
    """The settings part of a tariff page, as text (its name and version left out)."""
    body = html[html.index("</h1>") : html.index("</article>")]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", body))


def other_value(setting: Setting, rules: Any) -> Any:
    """A valid column value for ``setting`` that differs from its value in ``rules``."""
    value = setting.from_engine(rules)
    if setting.kind == "flag":
        return not value
    if setting.kind == "choice":
        return next(code for code, _label in setting.choices if code != value)
    if setting.kind == "rate":
        return value + 1
    if setting.kind == "numbers":
        items = list(ts.numbers(value))
        return ts.numbers_text([*items[:-1], items[-1] + 1])
    return value - 1 if value == setting.maximum else value + 1


def page(client: Client, game: str, tariff: Any) -> str:
    response = client.get(reverse(f"scoring:{game}_tariff_detail", args=[tariff.pk]))
    assert response.status_code == 200
    return response.content.decode()


def imported(game: str, rules: Any, name: str) -> Any:
    document = {"format": "house-tariff/1", "game": game, "name": name, "rules": rules.to_dict()}
    return services.tariff_import(document, by=None)


# Every setting visible at once: whist pass-outs, dark games, a whister duty, conceding,
# a series of pass-outs ended from a level.
PAGE_BASE = PreferansRules.preset("classic").with_overrides(
    {"passout_mode": "whists", "concede": True, "passout_series_ends_on": "made_game_from_level"}
)


@pytest.mark.django_db
@pytest.mark.parametrize("setting", PREFERANS_SETTINGS, ids=lambda s: s.name)
def test_every_preferans_setting_shows_on_the_tariff_page(client: Client, setting: Setting):
    base = imported("preferans", PAGE_BASE, "base")
    fields = PreferansTariff.fields_from_rules(PAGE_BASE)
    fields[setting.name] = other_value(setting, PAGE_BASE)
    changed = imported("preferans", PreferansTariff(**fields).to_rules(), "changed")

    assert section_text(page(client, "preferans", base)) != section_text(
        page(client, "preferans", changed)
    )


@pytest.mark.django_db
@pytest.mark.parametrize("setting", BOSTON_SETTINGS, ids=lambda s: s.name)
def test_every_boston_setting_shows_on_the_tariff_page(client: Client, setting: Setting):
    base = imported("boston", BostonRules(), "base")
    fields = BostonTariff.fields_from_rules(BostonRules())
    fields[setting.name] = other_value(setting, BostonRules())
    changed = imported("boston", BostonTariff(**fields).to_rules(), "changed")

    assert section_text(page(client, "boston", base)) != section_text(
        page(client, "boston", changed)
    )


# A setting declared only here, feeding an engine rule that exists (``bombs``): the page and
# the admin pick it up with no template or admin change.
THROWAWAY = Setting(
    name="throwaway_bombs",
    kind="flag",
    section="dark",
    help_text="A house rule declared only in this test.",
    label="A throwaway house rule",
    rule="bombs",
)
THROWAWAY_IN_WORDS = dataclasses.replace(
    THROWAWAY,
    reading=ts.Reading(
        term='Throwaway <span lang="ru">(одноразовое)</span>',
        texts=((True, "on, with the price %(price)s"), (False, "off")),
        params=(("price", "passout_ladder"),),
    ),
)


@pytest.mark.django_db
def test_a_setting_declared_without_words_is_listed_with_its_label(client: Client, monkeypatch):
    monkeypatch.setattr(views, "PREFERANS_SETTINGS", (*PREFERANS_SETTINGS, THROWAWAY))
    tariff = imported("preferans", PreferansRules.preset("classic"), "with bombs")

    html = page(client, "preferans", tariff)

    dark = html[html.index('id="dark"') : html.index('aria-labelledby="settlement"')]
    assert "<dt>A throwaway house rule</dt><dd>yes</dd>" in dark


@pytest.mark.django_db
def test_a_setting_says_itself_in_the_words_of_its_declaration(client: Client, monkeypatch):
    monkeypatch.setattr(views, "PREFERANS_SETTINGS", (*PREFERANS_SETTINGS, THROWAWAY_IN_WORDS))
    tariff = imported("preferans", PreferansRules.preset("classic"), "with bombs")

    html = page(client, "preferans", tariff)

    dark = html[html.index('id="dark"') : html.index('aria-labelledby="settlement"')]
    ladder = ", ".join(map(str, PreferansRules.preset("classic").passout_ladder))
    term = 'Throwaway <span lang="ru">(одноразовое)</span>'
    assert f"<dt>{term}</dt><dd>on, with the price {ladder}</dd>" in dark


def test_a_new_setting_is_in_its_admin_section_with_its_label():
    admin_fieldsets = ts.fieldsets(
        (*PREFERANS_SETTINGS, THROWAWAY), ts.PREFERANS_SECTIONS, ("name", "description"), ()
    )

    dark_title = next(s.title for s in ts.PREFERANS_SECTIONS if s.key == "dark")
    dark = next(options for title, options in admin_fieldsets if title is dark_title)
    assert dark["fields"][-1] == "throwaway_bombs"
    assert ts.labels((THROWAWAY,)) == {"throwaway_bombs": "A throwaway house rule"}


@pytest.mark.django_db
@pytest.mark.parametrize("preset", PRESETS)
def test_every_preferans_setting_is_on_the_page_as_a_row_in_a_table_or_in_another_row(
    preset: str,
):
    """Nothing declared is dropped: each setting has a row, stands in a table that is on
    the page, or is said in the row of a setting that is on it."""
    rules = PreferansRules.preset(preset)
    sections = ts.page_sections(
        rules, PREFERANS_SETTINGS, ts.PREFERANS_SECTIONS, {"help_mountain": "1"}
    )
    rows = {row.name for s in sections for b in s.blocks for row in b.rows}
    tables = {b.table for s in sections for b in s.blocks if b.table}
    by_name = {s.name: s for s in PREFERANS_SETTINGS}

    for setting in PREFERANS_SETTINGS:
        reading = setting.reading or ts.Reading()
        if reading.only_if and not by_name[reading.only_if].value(rules):
            continue
        assert (
            setting.name in rows
            or reading.table in tables
            or reading.shown_with in rows
            or by_name[reading.shown_with].reading.table in tables  # type: ignore[union-attr]
        ), setting.name


def test_the_readings_name_declared_settings():
    names = {s.name for s in PREFERANS_SETTINGS}
    for setting in PREFERANS_SETTINGS:
        reading = setting.reading or ts.Reading()
        params = {name for _key, name in reading.params} - {"help_mountain"}
        assert params <= names, setting.name
        assert {reading.shown_with, reading.only_if, reading.depends} - {""} <= names


@pytest.mark.django_db
def test_a_new_boston_setting_is_listed_under_its_section(client: Client, monkeypatch):
    throwaway = dataclasses.replace(
        THROWAWAY,
        name="throwaway_honours",
        section="value_card",
        label="A throwaway Boston rule",
        rule="card_pays_honours",
    )
    monkeypatch.setattr(views, "BOSTON_SETTINGS", (*BOSTON_SETTINGS, throwaway))
    tariff = imported("boston", BostonRules(), "base")

    html = page(client, "boston", tariff)

    card = html[html.index('id="value-card"') : html.index('id="value-card-table"')]
    expected = "yes" if BostonRules().card_pays_honours else "no"
    assert f"<dt>A throwaway Boston rule</dt><dd>{expected}</dd>" in card


@pytest.mark.django_db
def test_every_boston_setting_the_template_writes_out_is_declared(client: Client):
    assert {s.name for s in BOSTON_SETTINGS} >= views.BOSTON_WRITTEN_OUT


# -- docs/rules.md ------------------------------------------------------------------------


def test_docs_settings_table_matches_the_declarations():
    text = RULES_MD.read_text(encoding="utf-8")

    assert ts.docs_with_tables(text, ts.docs_tables()) == text, (
        "docs/rules.md's settings table is out of date: run scoring.models.tariff_settings."
        "update_docs() (docs/contributing.md)"
    )
    assert ts.RULES_DOC == RULES_MD


def test_update_docs_rewrites_only_the_generated_table(tmp_path: Path):
    path = tmp_path / "rules.md"
    begin = ts.DOCS_BEGIN.format(game="preferans")
    path.write_text(f"# Rules\n\n{begin}\n| old |\n{ts.DOCS_END}\n\nAfter.\n", encoding="utf-8")

    assert ts.update_docs(path)
    text = path.read_text(encoding="utf-8")
    assert "| old |" not in text
    assert "| `bombs` | no | no | no | yes |" in text
    assert text.startswith("# Rules\n") and text.endswith(f"{ts.DOCS_END}\n\nAfter.\n")
    assert not ts.update_docs(path)


def test_docs_boston_table_names_every_boston_setting():
    text = RULES_MD.read_text(encoding="utf-8")
    table = text[text.index("### House settings", text.index("## Boston")) :]

    for setting in BOSTON_SETTINGS:
        assert f"`{setting.engine_name}`" in table, setting.engine_name
