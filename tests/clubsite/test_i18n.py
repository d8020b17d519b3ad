"""The Russian translation: the pages speak Russian by default, English on request, and the
catalogue in ``locale/ru`` is complete, with its compiled ``.mo`` matching the ``.po``.

The pages are fetched with a plain ``django.test.Client()`` that sends no Accept-Language
(the ``client`` fixture in conftest.py asks for English)."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass, field
from gettext import GNUTranslations
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext

from scoring.models import BostonTariff, PreferansTariff
from tests import factories

LC_MESSAGES = Path(settings.BASE_DIR) / "locale" / "ru" / "LC_MESSAGES"
PO = LC_MESSAGES / "django.po"
MO = LC_MESSAGES / "django.mo"
SOCHI = "Сочи (Sochi)"
PAYMENT = "Бостон: тариф платежей (payment tariff)"


def page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def assert_russian(html: str, russian: list[str], english: list[str]) -> None:
    assert '<html lang="ru">' in html
    for text in russian:
        assert text in html, f"no {text!r}"
    for text in english:
        assert text not in html, f"untranslated {text!r}"


# -- the pages ------------------------------------------------------------------------------

NAVIGATION = ["Столы", "Турнирная таблица", "Тарифы", "Правила", "Войти"]
ENGLISH_NAVIGATION = [">Tables<", ">Standings<", ">Tariffs<", ">Rules<", ">Sign in<"]


@pytest.mark.django_db
def test_home_page_is_russian_by_default() -> None:
    factories.pulka()

    html = page(Client(), reverse("scoring:home"))

    assert_russian(
        html,
        [*NAVIGATION, "Сейчас играют", "Последние завершённые столы", "Все столы", "Преферанс #"],
        [*ENGLISH_NAVIGATION, "In play now", "Latest finished tables", "All tables", "Preferans #"],
    )


@pytest.mark.django_db
def test_table_list_is_russian() -> None:
    html = page(Client(), reverse("scoring:table_list"))

    assert_russian(
        html,
        ["Новая пулька", "Новый стол в бостон", "Идёт игра", "Завершённые", "Пока нет."],
        ["Open a pulka", "Open a Boston table", ">In play<", ">Finished<", "None yet."],
    )


@pytest.mark.django_db
def test_table_page_is_russian_for_a_viewer_and_a_player() -> None:
    table = factories.pulka()
    url = reverse("scoring:table_detail", args=[table.pk])
    client = Client()

    viewer = page(client, url)
    client.force_login(table.seats.first().member)
    player = page(client, url)

    sheet = ["Результат", "Раздачи", "Раздач пока нет.", "Сейчас сдаёт:", "деньги", "Печать"]
    sheet_en = [">Result<", ">Deals<", "No deals yet.", "Deals now:", ">money<", ">Print<"]
    assert_russian(viewer, sheet, sheet_en)
    assert_russian(
        player,
        [*sheet, "Следующая раздача", "Записать раздачу", "Откуда эти числа?", "играющий"],
        [*sheet_en, "Next deal", "Save deal", "Why these numbers?", ">declarer<"],
    )


@pytest.mark.django_db
def test_opening_a_table_is_russian() -> None:
    client = Client()
    client.force_login(factories.member())

    html = page(client, reverse("scoring:table_open", args=["preferans"]))

    assert_russian(
        html,
        ["Новая пулька", "Игроки по часовой стрелке", "место А", "Условия", "первый сдающий"],
        ["Open a pulka", "Players, clockwise", "seat А", "Conditions", "first dealer"],
    )
    assert "Для игры втроём оставьте место Г пустым." in html


@pytest.mark.django_db
def test_opening_a_table_in_english_letters_the_seats_a_b_c_d() -> None:
    client = Client(headers={"accept-language": "en"})
    client.force_login(factories.member())

    html = page(client, reverse("scoring:table_open", args=["preferans"]))

    for seat, letter in enumerate("ABCD"):
        assert f"<legend>seat {letter}</legend>" in html
        # The first dealer is named by the same letters (not 1–4).
        assert f'name="first_dealer" value="{seat}" id="id_first_dealer_{seat}"' in html
        assert (
            f'id="id_first_dealer_{seat}"{" checked" if seat == 0 else ""}><span>{letter}' in html
        )
    assert "Leave seat D empty for three players." in html


def test_djangos_blank_choice_label_is_russian() -> None:
    """Django 6.1's label for an empty choice is not in Django's own Russian catalogue
    yet, so locale/ru translates it; this call is also where makemessages finds the
    message (it reads tests/ as well)."""
    with translation.override("ru"):
        assert gettext("- Select an option -") == "- Выберите вариант -"


@pytest.mark.django_db
def test_sign_in_page_is_russian() -> None:
    html = page(Client(), reverse("members:login"))

    assert_russian(
        html,
        ["Войти", "Пароль", "Забыли пароль?", "Мы пришлём ссылку, чтобы выбрать новый."],
        [">Sign in<", "Password", "Forgotten your password?", "We e-mail you a link"],
    )


@pytest.mark.django_db
def test_the_members_own_pages_are_russian() -> None:
    client = Client()
    client.force_login(factories.member("Ольга", username="olga", organiser=True))

    settings_page = page(client, reverse("members:settings"))
    password = page(client, reverse("members:password_change"))
    members = page(client, reverse("members:manage"))

    assert_russian(
        settings_page,
        ["Ваши настройки", "Присылать итоги вечера", "Сменить пароль", "Участники клуба"],
        ["Your settings", "the evening's summary", "Change your password", "The club's members"],
    )
    assert_russian(password, ["Сменить пароль"], ["Change the password"])
    assert_russian(
        members,
        ["Пригласить участника", "Отправить приглашение", "Имя пользователя", "действует"],
        ["Invite a member", "Send the invitation", ">Username<", ">active<"],
    )


@pytest.mark.django_db
def test_tariff_pages_are_russian() -> None:
    client = Client()
    listing = page(client, reverse("scoring:tariff_list"))
    sochi = PreferansTariff.objects.get(name=SOCHI)
    preferans = page(client, reverse("scoring:preferans_tariff_detail", args=[sochi.pk]))
    payment = BostonTariff.objects.get(name=PAYMENT)
    boston = page(client, reverse("scoring:boston_tariff_detail", args=[payment.pk]))

    assert_russian(
        listing,
        ["Правила, по которым считается каждая игра в клубе", "версия 1 · изменён"],
        ["The rules each game at the club is scored by", "version 1 · changed"],
    )
    assert_russian(
        preferans,
        [
            "Тариф преферанса · версия 1",
            "Стоимость игр и обязанность вистовать",
            "Висты и ремизы",
            "Ответственность вистующих",
            "Распасы",
            "Цена взятки",
            "Закрытие пули и расчёт",
        ],
        [
            "Preferans tariff",
            "Values and obligations",
            "Whists and remises",
            "Whister duty",
            "Price per trick",
            "Closing and settlement",
            "<dd>yes</dd>",
            "<dd>no</dd>",
        ],
    )
    # Sochi has switches on and off: both answers are translated.
    assert "<dd>да</dd>" in preferans
    assert "<dd>нет</dd>" in preferans
    assert_russian(
        boston,
        ["Тариф бостона · версия 1", "Тариф платежей", "Выиграна: платят противники"],
        ["Boston tariff", "Payment tariff", "the opponents pay", "the declaring side pays"],
    )


@pytest.mark.django_db
def test_standings_page_is_russian() -> None:
    client = Client()

    seasons = page(client, reverse("scoring:season_list"))
    board = page(client, reverse("scoring:standings", args=["preferans"]))

    assert_russian(
        seasons,
        ["Турнирная таблица", "За всё время", "Сезоны"],
        [">Standings<", "All time", ">Seasons<"],
    )
    assert_russian(
        board,
        ["Турнирная таблица: Преферанс", "Порядок мест", "Допуск", "Как читать таблицу"],
        ["Preferans leaderboard", ">Ranking<", ">Qualification<", "How to read the table"],
    )


@pytest.mark.django_db
def test_the_language_switch_turns_the_site_english() -> None:
    table = factories.pulka()
    client = Client()
    assert "Сейчас играют" in page(client, "/")

    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})

    assert response.status_code == 302
    home = page(client, "/")
    assert '<html lang="en">' in home
    for text in ("In play now", "Latest finished tables", ">Tables<", ">Sign in<"):
        assert text in home
    assert "Сейчас играют" not in home
    sheet = page(client, reverse("scoring:table_detail", args=[table.pk]))
    assert "No deals yet." in sheet
    assert "Раздач пока нет." not in sheet

    client.post("/i18n/setlang/", {"language": "ru", "next": "/"})
    assert "Сейчас играют" in page(client, "/")


@pytest.mark.django_db
def test_the_language_switch_needs_no_csrf_token() -> None:
    # Its form carries none (a page for visitors who are not signed in has nothing of the
    # visitor's own in it, so it can be kept whole in the cache); Django's CSRF check is on.
    factories.pulka()
    client = Client(enforce_csrf_checks=True)
    home = client.get("/")
    assert "csrfmiddlewaretoken" not in home.content.decode()
    assert "csrftoken" not in home.cookies

    response = client.post("/i18n/setlang/", {"language": "en", "next": "/"})

    assert response.status_code == 302
    assert '<html lang="en">' in page(client, "/")


# -- the catalogue --------------------------------------------------------------------------


@dataclass
class Entry:
    flags: list[str] = field(default_factory=list)
    fields: dict[str, str] = field(default_factory=dict)
    line: int = 0

    @property
    def msgid(self) -> str:
        return self.fields.get("msgid", "")

    @property
    def msgstrs(self) -> list[str]:
        return [v for k, v in self.fields.items() if k.startswith("msgstr")]


def _unescape(text: str) -> str:
    escapes = {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}
    return re.sub(r"\\(.)", lambda m: escapes[m.group(1)], text)


def parse_po(path: Path) -> list[Entry]:
    """The entries of a .po file (obsolete ``#~`` entries left out)."""
    entries: list[Entry] = []
    entry = Entry()
    key = None
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            if entry.fields:
                entries.append(entry)
            entry, key = Entry(), None
            continue
        if line.startswith("#,"):
            entry.flags += [flag.strip() for flag in line[2:].split(",")]
        elif line.startswith("#"):
            continue
        elif match := re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?) "(.*)"$', line):
            key = match.group(1)
            entry.fields[key] = _unescape(match.group(2))
            entry.line = entry.line or number
        elif (match := re.match(r'^"(.*)"$', line)) and key:
            entry.fields[key] += _unescape(match.group(1))
        else:
            raise AssertionError(f"{path}:{number}: cannot read {line!r}")
    if entry.fields:
        entries.append(entry)
    return entries


def named_placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\((\w+)\)[sd]", text))


def test_catalogue_has_every_message_translated_and_none_fuzzy() -> None:
    entries = parse_po(PO)
    header, messages = entries[0], entries[1:]

    assert header.msgid == ""
    assert "Language: ru" in header.msgstrs[0]
    assert "nplurals=3;" in header.msgstrs[0]
    assert "#, fuzzy" not in PO.read_text(encoding="utf-8")
    assert len(messages) > 400
    untranslated = [e.msgid for e in messages if not all(e.msgstrs)]
    assert not untranslated, f"untranslated: {untranslated}"
    fuzzy = [e.msgid for e in entries if "fuzzy" in e.flags]
    assert not fuzzy, f"fuzzy: {fuzzy}"
    plurals = [e for e in messages if "msgid_plural" in e.fields]
    assert plurals
    assert all(len(e.msgstrs) == 3 for e in plurals)


def test_catalogue_keeps_every_placeholder() -> None:
    for entry in parse_po(PO)[1:]:
        source = named_placeholders(entry.msgid)
        allowed = source | named_placeholders(entry.fields.get("msgid_plural", ""))
        for msgstr in entry.msgstrs:
            found = named_placeholders(msgstr)
            assert source <= found <= allowed, f"line {entry.line}: {entry.msgid!r}"
            assert msgstr.count("{}") == entry.msgid.count("{}"), entry.msgid


def test_compiled_catalogue_holds_the_po_translations() -> None:
    """The committed .mo says what the .po says (read back with Python's gettext)."""
    with MO.open("rb") as mo:
        catalog = GNUTranslations(mo)._catalog  # type: ignore[attr-defined]
    for entry in parse_po(PO)[1:]:
        key = entry.msgid
        if "msgctxt" in entry.fields:
            key = f"{entry.fields['msgctxt']}\x04{key}"
        if "msgid_plural" in entry.fields:
            for n, msgstr in enumerate(entry.msgstrs):
                assert catalog[(key, n)] == msgstr, f"stale .mo: {entry.msgid!r}"
        else:
            assert catalog[key] == entry.msgstrs[0], f"stale .mo: {entry.msgid!r}"


def test_compiled_catalogue_is_the_po_compiled(tmp_path: Path) -> None:
    """Recompiling the .po gives the committed .mo (run `make messages` after editing)."""
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("msgfmt (GNU gettext) is not installed: the .mo is not recompiled")
    fresh = tmp_path / "django.mo"
    subprocess.run(
        [msgfmt, "--check-format", "-o", str(fresh), str(PO)], check=True, capture_output=True
    )
    if fresh.read_bytes() != MO.read_bytes():
        # Another gettext version may lay the file out differently: compare the content.
        with fresh.open("rb") as a, MO.open("rb") as b:
            assert GNUTranslations(a)._catalog == GNUTranslations(b)._catalog  # type: ignore[attr-defined]
