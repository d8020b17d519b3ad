"""The organisers' tariff editor: the real admin, driven through its forms.

POST data is read from the change form the admin renders (as a browser would submit it),
then the test changes the fields it is about.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.forms.models import model_to_dict
from django.test import Client
from django.urls import reverse

from scoring import services
from scoring.engine.record import score_record
from scoring.models import (
    BostonPaymentRow,
    BostonTariff,
    BostonTariffVersion,
    PreferansTariff,
    PreferansTariffVersion,
)
from tests.factories import member
from tests.html_forms import form_data

SOCHI = "Сочи (Sochi)"
PAYMENT = "Бостон: тариф платежей (payment tariff)"

# -- helpers ------------------------------------------------------------------------------


def change_url(tariff: Any) -> str:
    return reverse(f"admin:scoring_{tariff._meta.model_name}_change", args=[tariff.pk])


def changelist_url(model: Any) -> str:
    return reverse(f"admin:scoring_{model._meta.model_name}_changelist")


def edit(data: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``data`` with ``changes`` applied: True/False tick or untick a checkbox."""
    data = dict(data)
    for name, value in changes.items():
        if value is False:
            data.pop(name, None)
        elif value is True:
            data[name] = "on"
        else:
            data[name] = str(value)
    return data


def change_form(client: Client, tariff: Any) -> dict[str, Any]:
    response = client.get(change_url(tariff))
    assert response.status_code == 200
    return form_data(response.content.decode(), f"{tariff._meta.model_name}_form")


def post_change(client: Client, tariff: Any, changes: dict[str, Any]) -> Any:
    """Open the tariff's change form, change some fields, press Save."""
    data = edit(change_form(client, tariff), changes) | {"_save": "Save"}
    return client.post(change_url(tariff), data)


def row_field(data: dict[str, Any], prefix: str, row: Any, field: str) -> str:
    """The POST name of ``field`` of inline ``row`` (found by its id in the form)."""
    for name, value in data.items():
        if name.startswith(f"{prefix}-") and name.endswith("-id") and value == str(row.pk):
            return name.removesuffix("-id") + f"-{field}"
    raise AssertionError(f"row {row} not in the form")


def snapshot(tariff: Any) -> dict[str, Any]:
    """Everything an admin save could change: the tariff, its rows and its versions."""
    tariff.refresh_from_db()
    state: dict[str, Any] = {
        "tariff": model_to_dict(tariff),
        "changed_at": tariff.changed_at,
        "versions": list(tariff.versions.values_list("number", "rules")),
    }
    if isinstance(tariff, BostonTariff):
        state["payment"] = list(tariff.payment_rows.values())
        state["card"] = list(tariff.card_rows.values())
    return state


@pytest.fixture
def examples() -> Path:
    """The spec's example records, copied beside the engine tests."""
    return Path(__file__).parents[1] / "engine" / "examples"


# -- the form reads like the rule book ----------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("model", [PreferansTariff, BostonTariff])
def test_fieldsets_hold_every_setting_once_with_help_text(client, organiser, model):
    tariff = model.objects.first()
    response = client.get(change_url(tariff))

    assert response.status_code == 200
    adminform = response.context["adminform"]
    shown = [
        name
        for fieldset in adminform.model_admin.get_fieldsets(response.wsgi_request, tariff)
        for line in fieldset[1]["fields"]
        for name in (line if isinstance(line, tuple) else (line,))
    ]
    editable = {f.name for f in model._meta.concrete_fields if f.editable and not f.primary_key}
    assert len(shown) == len(set(shown))
    assert editable <= set(shown)
    for name, field in adminform.form.fields.items():
        assert field.help_text, f"{name} has no help text"
    for inline in response.context["inline_admin_formsets"]:
        for form in inline.formset.forms:
            for name, field in form.fields.items():
                if name not in ("id", "tariff"):
                    assert field.help_text, f"{inline.opts.model.__name__}.{name}"


@pytest.mark.django_db
def test_preferans_fieldsets_follow_the_rule_book(client, organiser):
    response = client.get(change_url(PreferansTariff.objects.get(name=SOCHI)))

    titles = [str(fieldset.name) for fieldset in response.context["adminform"]]
    assert [t.split(" (")[0] for t in titles[1:]] == [
        "Values and obligations",
        "Whists and remises",
        "Whister duty",
        "Half-whist and tens",
        "Conceding a contract",
        "Pass-outs",
        "Dark games and bombs",
        "Closing and settlement",
        "Versions",
    ]


@pytest.mark.django_db
def test_boston_rows_are_edited_as_tables(client, organiser):
    tariff = BostonTariff.objects.get(name=PAYMENT)
    response = client.get(change_url(tariff))

    inlines = response.context["inline_admin_formsets"]
    assert [len(inline.formset.forms) for inline in inlines] == [3, 17]
    assert all(inline.opts.template.endswith("tabular.html") for inline in inlines)
    html = response.content.decode()
    assert "payment_rows-0-base" in html
    assert "card_rows-16-unit" in html
    assert "payment_rows-3-base" not in html  # no extra row to add


@pytest.mark.django_db
def test_changelist_shows_version_and_import_button(client, organiser):
    response = client.get(changelist_url(PreferansTariff))

    html = response.content.decode()
    assert response.status_code == 200
    assert SOCHI in html
    assert '<td class="field-current_version">1</td>' in html
    assert reverse("admin:scoring_preferanstariff_import") in html


# -- saving -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_valid_edit_is_saved_and_published(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)

    response = post_change(client, tariff, {"whist_rate": "2", "description": "house rule"})

    assert response.status_code == 302
    tariff.refresh_from_db()
    assert tariff.description == "house rule"
    assert tariff.changed_by == organiser
    assert tariff.current_version.to_rules() == tariff.to_rules()
    assert tariff.to_rules().whist_rate == 2


@pytest.mark.django_db
def test_adding_a_boston_tariff_starts_from_the_preset_rows(client, organiser):
    url = reverse("admin:scoring_bostontariff_add")
    data = form_data(client.get(url).content.decode(), "bostontariff_form")
    data |= {"name": "Домашний бостон", "_save": "Save"}

    response = client.post(url, data)

    assert response.status_code == 302
    tariff = BostonTariff.objects.get(name="Домашний бостон")
    assert tariff.payment_rows.count() == 3
    assert tariff.card_rows.count() == 17
    assert tariff.versions.count() == 1
    assert tariff.to_rules() == BostonTariff.objects.get(name=PAYMENT).to_rules()
    assert tariff.current_version.to_rules() == tariff.to_rules()


# -- validation: an impossible tariff is refused with a message on the field --------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("obligation_6", 5, "4"),
        ("value_7", 0, "1"),
        ("whist_rate", "0", "0.01"),
        ("passout_ladder", "", ""),
        ("passout_exit", "6, 11", "every step must be a contract level from 6 to 10"),
        ("half_whist_levels", "5", "every level must be from 6 to 10"),
        ("passout_ladder", "1, x", "whole numbers"),
        ("misere_penalty", 1001, "at most 1000"),
    ],
)
def test_preferans_bad_input_is_refused_on_its_field(client, organiser, field, value, message):
    tariff = PreferansTariff.objects.get(name=SOCHI)
    before = snapshot(tariff)

    response = post_change(client, tariff, {field: value})

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert field in errors
    assert message in " ".join(errors[field])
    assert f"field-{field}" in response.content.decode()
    assert snapshot(tariff) == before
    assert PreferansTariffVersion.objects.filter(tariff=tariff).count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("passout_ladder", "1, x", "Введите целые числа через запятую, например 1, 2, 3."),
        ("half_whist_levels", "6 7", "Введите игры через запятую."),
        ("passout_exit", "6;7", "Введите целые числа через запятую, например 1, 2, 3."),
    ],
)
def test_a_list_the_rules_cannot_read_is_refused_in_words_only(
    client, organiser, field, value, message
):
    """Issue 30, finding 10: a list the engine could not read showed Python's own error
    («invalid literal for int() with base 10: 'x'») above the form, beside the field's
    message. Only the field's message is said, in the organiser's language."""
    tariff = PreferansTariff.objects.get(name=SOCHI)
    before = snapshot(tariff)

    client.cookies.load({"django_language": "ru"})
    response = post_change(client, tariff, {field: value})

    form = response.context["adminform"].form
    assert form.errors == {field: [message]}
    assert "invalid literal" not in response.content.decode()
    assert snapshot(tariff) == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("slam_multiplier", 2_000_000, "must be 1–1000000"),
        ("together_required", 5, "6"),
        ("piccolissimo_tricks", 2, "1"),
        ("hearts_multiplier", 0, "1"),
    ],
)
def test_boston_bad_setting_is_refused_on_its_field(client, organiser, field, value, message):
    tariff = BostonTariff.objects.get(name=PAYMENT)
    before = snapshot(tariff)

    response = post_change(client, tariff, {field: value})

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert message in " ".join(errors[field])
    assert snapshot(tariff) == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("prefix", "row", "field", "value", "message"),
    [
        ("payment_rows", "supported", "base", 2_000_000, "must be 1–1000000"),
        ("payment_rows", "independence", "required", 14, "13"),
        ("payment_rows", "unsupported", "rate", 0, "1"),
        ("card_rows", "7", "unit", 2_000_000, "must be 1–1000000"),
        ("card_rows", "9", "overtrick", 1_000_001, "must be 1–1000000"),
        ("card_rows", "5", "three_honours", "", "A trick row needs this value."),
        ("card_rows", "open-boston", "unit", 1_000_001, "must be 1–1000000"),
    ],
)
def test_boston_impossible_row_is_refused_and_nothing_saved(
    client, organiser, prefix, row, field, value, message
):
    tariff = BostonTariff.objects.get(name=PAYMENT)
    if prefix == "payment_rows":
        instance = tariff.payment_rows.get(contract=row)
    else:
        instance = tariff.card_rows.get(row=row)
    data = change_form(client, tariff)
    before = snapshot(tariff)

    data[row_field(data, prefix, instance, field)] = str(value)
    data["description"] = "this must not be saved either"
    response = client.post(change_url(tariff), data | {"_save": "Save"})

    assert response.status_code == 200
    formset = next(
        inline.formset
        for inline in response.context["inline_admin_formsets"]
        if inline.formset.prefix == prefix
    )
    form = next(f for f in formset.forms if f.instance.pk == instance.pk)
    assert message in " ".join(form.errors[field])
    assert snapshot(tariff) == before
    assert BostonTariffVersion.objects.filter(tariff=tariff).count() == 1


@pytest.mark.django_db
def test_boston_row_cannot_be_added_twice(client, organiser):
    url = reverse("admin:scoring_bostontariff_add")
    data = form_data(client.get(url).content.decode(), "bostontariff_form")
    data |= {"name": "Двойной", "payment_rows-1-contract": "supported", "_save": "Save"}

    response = client.post(url, data)

    assert response.status_code == 200
    payment = response.context["inline_admin_formsets"][0].formset
    assert "duplicate" in str(payment.non_form_errors())
    assert not BostonTariff.objects.filter(name="Двойной").exists()
    assert not BostonPaymentRow.objects.filter(tariff__name="Двойной").exists()


# -- copy and export actions --------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(("model", "name"), [(PreferansTariff, SOCHI), (BostonTariff, PAYMENT)])
def test_copy_action_makes_a_numbered_copy_with_the_same_rules(client, organiser, model, name):
    tariff = model.objects.get(name=name)
    action = {"action": "copy_tariff", "_selected_action": [tariff.pk], "index": "0"}

    first = client.post(changelist_url(model), action)
    second = client.post(changelist_url(model), action)

    copy = model.objects.get(name=f"{name} (copy)")
    again = model.objects.get(name=f"{name} (copy 2)")
    assert first.status_code == 302
    assert first["Location"] == change_url(copy)
    assert second["Location"] == change_url(again)
    for new in (copy, again):
        assert new.to_rules() == tariff.to_rules()
        assert new.current_version.number == 1
        assert new.changed_by == organiser
    if model is BostonTariff:
        assert copy.payment_rows.count() == 3
        assert copy.card_rows.count() == 17


@pytest.mark.django_db
def test_copy_from_the_change_form(client, organiser):
    tariff = PreferansTariff.objects.get(name=SOCHI)

    response = client.post(
        change_url(tariff), {"CHANGE_FORM-action": "copy_tariff", "_selected_action": tariff.pk}
    )

    copy = PreferansTariff.objects.get(name=f"{SOCHI} (copy)")
    assert response.status_code == 302
    assert response["Location"] == change_url(copy)


@pytest.mark.django_db
@pytest.mark.parametrize(("model", "name"), [(PreferansTariff, SOCHI), (BostonTariff, PAYMENT)])
def test_export_action_downloads_the_tariff_as_json(client, organiser, model, name):
    tariff = model.objects.get(name=name)

    response = client.post(
        changelist_url(model),
        {"action": "export_json", "_selected_action": [tariff.pk], "index": "0"},
    )

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert "attachment" in response["Content-Disposition"]
    assert json.loads(response.content) == services.tariff_export(tariff)


@pytest.mark.django_db
def test_export_of_several_tariffs_is_a_list(client, organiser):
    tariffs = list(PreferansTariff.objects.order_by("name"))

    response = client.post(
        changelist_url(PreferansTariff),
        {"action": "export_json", "_selected_action": [t.pk for t in tariffs], "index": "0"},
    )

    assert json.loads(response.content) == [services.tariff_export(t) for t in tariffs]


# -- import -------------------------------------------------------------------------------


def upload(data: Any, name: str = "tariff.json") -> SimpleUploadedFile:
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return SimpleUploadedFile(name, text.encode(), content_type="application/json")


def import_url(model: Any) -> str:
    return reverse(f"admin:scoring_{model._meta.model_name}_import")


@pytest.mark.django_db
def test_import_form_is_shown_with_csrf(client, organiser):
    response = client.get(import_url(PreferansTariff))

    html = response.content.decode()
    assert response.status_code == 200
    assert 'enctype="multipart/form-data"' in html
    assert "csrfmiddlewaretoken" in html


@pytest.mark.django_db
def test_import_creates_a_tariff_that_scores_the_same(client, organiser, examples):
    leningrad = PreferansTariff.objects.get(name="Ленинград (Leningrad)")
    document = services.tariff_export(leningrad) | {"name": "Питер у нас"}

    response = client.post(import_url(PreferansTariff), {"file": upload(document)})

    imported = PreferansTariff.objects.get(name="Питер у нас")
    assert response.status_code == 302
    assert response["Location"] == change_url(imported)
    assert imported.to_rules() == leningrad.to_rules()
    assert imported.current_version.number == 1
    record = json.loads((examples / "leningrad-remise-gentleman.json").read_text())
    expected = json.loads((examples / "leningrad-remise-gentleman.expected.json").read_text())
    record["rules"] = {"preset": "leningrad", **imported.to_rules().to_dict()}
    assert score_record(record) == expected


@pytest.mark.django_db
def test_import_under_a_new_name(client, organiser):
    document = services.tariff_export(BostonTariff.objects.get(name=PAYMENT))

    response = client.post(
        import_url(BostonTariff), {"file": upload(document), "name": "Бостон клуба"}
    )

    assert response.status_code == 302
    tariff = BostonTariff.objects.get(name="Бостон клуба")
    assert tariff.card_rows.count() == 17
    assert tariff.to_rules() == BostonTariff.objects.get(name=PAYMENT).to_rules()


def _sochi_with(**rules: Any) -> dict[str, Any]:
    document = services.tariff_export(PreferansTariff.objects.get(name=SOCHI))
    return document | {"name": "Новый", "rules": document["rules"] | rules}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        (lambda: {"format": "other"}, "house-tariff/1"),
        (lambda: _sochi_with(whist_obligations=[5, 2, 1, 1, 1]), "from 0 to 4"),
        (lambda: _sochi_with(passout_ladder=[]), "must not be empty"),
        (lambda: _sochi_with(whist_rate="1/3"), "at most two decimals"),
        (lambda: _sochi_with() | {"name": SOCHI}, "exists already"),
        (
            lambda: services.tariff_export(BostonTariff.objects.get(name=PAYMENT)),
            "boston tariff",
        ),
        (lambda: [_sochi_with(), _sochi_with() | {"name": "Второй", "rules": 1}], "tariff 2"),
        ("[]", "empty list"),
    ],
)
def test_bad_import_shows_the_message_and_saves_nothing(client, organiser, content, message):
    data = content() if callable(content) else content
    before = (PreferansTariff.objects.count(), PreferansTariffVersion.objects.count())

    response = client.post(import_url(PreferansTariff), {"file": upload(data)})

    assert response.status_code == 200
    assert message in str(response.context["form"].errors)
    assert message in response.content.decode()
    assert (PreferansTariff.objects.count(), PreferansTariffVersion.objects.count()) == before


# -- who may reach the tariff admin -------------------------------------------------------

TARIFF_PAGES = [
    ("admin:scoring_preferanstariff_changelist", None),
    ("admin:scoring_preferanstariff_add", None),
    ("admin:scoring_preferanstariff_change", SOCHI),
    ("admin:scoring_preferanstariff_import", None),
    ("admin:scoring_bostontariff_changelist", None),
    ("admin:scoring_bostontariff_change", PAYMENT),
    ("admin:scoring_bostontariff_import", None),
    ("admin:scoring_preferanstariffversion_changelist", None),
]


def page_url(name: str, tariff: str | None) -> str:
    if tariff is None:
        return reverse(name)
    model = PreferansTariff if "preferans" in name else BostonTariff
    return reverse(name, args=[model.objects.get(name=tariff).pk])


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "tariff"), TARIFF_PAGES)
def test_ordinary_member_is_sent_to_the_admin_sign_in(client, name, tariff):
    client.force_login(member("Pyotr"))
    url = page_url(name, tariff)

    response = client.get(url)

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "tariff"), TARIFF_PAGES)
def test_staff_who_is_not_an_organiser_gets_403(client, name, tariff):
    staff = member("Stas", is_staff=True)
    # Even holding the model permissions does not make a staff member an organiser.
    staff.user_permissions.add(*Permission.objects.filter(content_type__app_label="scoring"))
    client.force_login(staff)

    response = client.get(page_url(name, tariff))

    assert response.status_code == 403


@pytest.mark.django_db
def test_staff_who_is_not_an_organiser_cannot_post_either(client):
    client.force_login(member("Stas", is_staff=True))
    tariff = PreferansTariff.objects.get(name=SOCHI)

    edit_response = client.post(change_url(tariff), {"name": "x", "_save": "Save"})
    copy_response = client.post(
        changelist_url(PreferansTariff),
        {"action": "copy_tariff", "_selected_action": [tariff.pk], "index": "0"},
    )
    import_response = client.post(import_url(PreferansTariff), {"file": upload(_sochi_with())})

    assert [edit_response.status_code, copy_response.status_code] == [403, 403]
    assert import_response.status_code == 403
    assert PreferansTariff.objects.count() == 5  # the five presets, none added


@pytest.mark.django_db
def test_admin_index_hides_tariffs_from_staff_who_are_not_organisers(client):
    client.force_login(member("Stas", is_staff=True))

    response = client.get(reverse("admin:index"))

    assert response.status_code == 200
    assert "preferanstariff" not in response.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(("name", "tariff"), TARIFF_PAGES)
def test_organiser_reaches_every_tariff_page(client, organiser, name, tariff):
    response = client.get(page_url(name, tariff))

    assert response.status_code == 200


@pytest.mark.django_db
def test_superuser_counts_as_an_organiser(client):
    client.force_login(member("Root", is_staff=True, is_superuser=True))

    response = client.get(reverse("admin:scoring_preferanstariff_changelist"))

    assert response.status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("model", "name", "list_title", "page_title"),
    [
        (
            "preferanstariffversion",
            SOCHI,
            "Выберите версию тарифа преферанса для просмотра",
            "Версия тарифа преферанса",
        ),
        (
            "bostontariffversion",
            PAYMENT,
            "Выберите версию тарифа бостона для просмотра",
            "Версия тарифа бостона",
        ),
    ],
)
def test_the_versions_pages_are_titled_in_good_russian(
    client, organiser, model, name, list_title, page_title
):
    """Issue 30, finding 10: Django's «Выберите %s для просмотра» read «Выберите версия
    тарифа…»."""
    tariff = (PreferansTariff if model.startswith("preferans") else BostonTariff).objects.get(
        name=name
    )
    client.cookies.load({"django_language": "ru"})

    listed = client.get(reverse(f"admin:scoring_{model}_changelist")).content.decode()
    shown = client.get(
        reverse(f"admin:scoring_{model}_change", args=[tariff.current_version.pk])
    ).content.decode()

    assert f"<h1>{list_title}</h1>" in listed
    assert f"<h1>{page_title}</h1>" in shown
    assert "Выберите версия" not in listed
    assert "Просмотреть версия" not in shown


@pytest.mark.django_db
def test_organiser_may_look_at_versions_but_not_edit_them(client, organiser):
    version = PreferansTariff.objects.get(name=SOCHI).current_version
    url = reverse("admin:scoring_preferanstariffversion_change", args=[version.pk])

    response = client.get(url)
    post = client.post(url, {"number": 7})

    assert response.status_code == 200
    # The settings in words, not the engine's JSON keys.
    assert "<dt>Value of a 6</dt><dd>2</dd>" in response.content.decode()
    assert "contract_values" not in response.content.decode()
    assert post.status_code == 403
    assert client.get(reverse("admin:scoring_preferanstariffversion_add")).status_code == 403
    version.refresh_from_db()
    assert version.number == 1


@pytest.mark.django_db
def test_the_organisers_group_comes_from_the_migration():
    from django.contrib.auth.models import Group

    group = Group.objects.get(name="Organisers")
    codenames = set(group.permissions.values_list("codename", flat=True))
    for model in ("preferanstariff", "bostontariff", "bostonpaymentrow", "bostoncardrow"):
        assert {f"{a}_{model}" for a in ("add", "change", "delete", "view")} <= codenames
    assert "view_preferanstariffversion" in codenames
    assert "change_preferanstariffversion" not in codenames
    assert "change_bostontariffversion" not in codenames


# -- deleting -----------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_tariff_no_table_played_is_deleted_with_its_versions(client, organiser):
    copy = services.tariff_copy(BostonTariff.objects.get(name=PAYMENT), name="Лишний", by=None)
    url = reverse("admin:scoring_bostontariff_delete", args=[copy.pk])

    page = client.get(url)
    response = client.post(url, {"post": "yes"})

    assert page.status_code == 200
    assert "Лишний, version 1" in page.content.decode()
    assert response.status_code == 302
    assert not BostonTariff.objects.filter(name="Лишний").exists()
    assert not BostonTariffVersion.objects.filter(tariff_id=copy.pk).exists()
    assert not BostonPaymentRow.objects.filter(tariff_id=copy.pk).exists()


@pytest.mark.django_db
def test_a_tariff_a_table_played_cannot_be_deleted(client, organiser):
    from tests.factories import pulka

    tariff = PreferansTariff.objects.get(name=SOCHI)
    pulka(tariff=SOCHI)
    url = reverse("admin:scoring_preferanstariff_delete", args=[tariff.pk])

    page = client.get(url)
    response = client.post(url, {"post": "yes"})
    bulk = client.post(
        changelist_url(PreferansTariff),
        {"action": "delete_selected", "_selected_action": [tariff.pk], "post": "yes"}
        | {"index": "0"},
    )

    assert "played at 1 table" in page.content.decode()
    assert response.status_code == 200
    assert bulk.status_code == 200
    assert PreferansTariff.objects.filter(pk=tariff.pk).exists()
    assert tariff.versions.count() == 1


@pytest.mark.parametrize(
    ("name", "before", "after", "words"),
    [
        ("whist_rate", "1", "3/2", ("Ставка виста", "1", "1,5")),
        (
            "lone_whist",
            "greedy",
            "gentleman",
            ("Один вистующий при ремизе", "жлобский", "джентльменский"),
        ),
        ("supported_rate", 2, 3, ("прикуп купленный (8 вдвоём): за взятку", "2", "3")),
        ("open_boston_unit", 200, 250, ("Таблица стоимости: Открытый бостон", "200", "250")),
        ("contract_values", [2, 4], [2, 6], ("Стоимость игр", "2, 4", "2, 6")),
        (
            "system",
            "payment-tariff",
            "value-card",
            ("Система подсчёта", "тариф платежей", "таблица стоимости"),
        ),
    ],
)
def test_the_change_preview_names_each_setting_in_the_organisers_language(
    name, before, after, words
):
    from django.utils import translation

    from scoring.admin.tariffs import setting_words

    with translation.override("ru"):
        assert setting_words(name, before, after) == words
