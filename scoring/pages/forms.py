"""Forms check the shape of what a member typed; the engine checks the rules.

A deal form is built for the table as it stands (who is active, who deals, what the tariff
allows) and turns its fields into one deal of the game record (game-format.md), which the
services hand to the engine. Engine errors come back onto the field they name.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, ClassVar

from django import forms
from django.db.models import OuterRef, Subquery
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from members.models import Member
from scoring.engine.boston import CARD_ROWS, SUITS, BostonTable
from scoring.engine.errors import RuleError
from scoring.engine.preferans import Pulka
from scoring.engine.preferans.rules import LEVELS
from scoring.models import Evening, Guest, PreferansTariffVersion, Table
from scoring.models.tables import validate_played_on
from scoring.models.vocabulary import CARD_CONTRACT_WORDS, PREFERANS_SUITS, SUIT_SYMBOLS
from scoring.pages.labels import ANSWERS as ANSWER_WORDS
from scoring.pages.labels import (
    DEAL_KINDS,
    SUIT_CLASSES,
    rule_error_text,
    seat_letter,
    suit_label,
)
from scoring.selectors.players import SeatCandidates

TRICKS = [(n, str(n)) for n in range(11)]
BOSTON_TRICKS = [(n, str(n)) for n in range(14)]
SUIT_CHOICES = tuple(PREFERANS_SUITS.items())
ANSWERS = tuple(ANSWER_WORDS.items())

# Engine field names → the form field that shows the error.
ERROR_FIELDS = {
    "contract": "level",
    "answers": "answers",
    "tricks": "tricks",
    "dealer_tricks": "tricks",
    "looked": "looked",
    "kind": "kind",
    "declarer": "declarer",
    "partner": "partner",
    "dark": "dark",
    "reason": "reason",
    "honours": "honours",
    "column": "column",
    "suit": "suit",
    "trump": "trump",
    "undertricks": "undertricks",
    "fast_tricks": "fast_tricks",
    "whists": "adjust",
    "pool": "adjust",
    "mountain": "adjust",
    "transfers": "adjust",
    "amount": "adjust",
}


PRINTED_GROUPS = ("answers", "tricks", "adjust")
"""Places of ``ERROR_FIELDS`` that are no field: the deal templates print their errors
beside the group of fields (``form.errors.tricks``)."""


def rule_error_to_form(form: forms.Form, error: RuleError) -> None:
    """Put the engine's message, in the member's language, once, where the form shows the
    field it names: on that field, beside a group of fields, else on the form (a deal form
    lists a field its kind does not show in its summary: ``ErrorSummary``)."""
    text = rule_error_text(error)
    place = ERROR_FIELDS.get(error.field or "")
    if place in form.fields:
        form.add_error(place, text)
    elif place in PRINTED_GROUPS:
        form.errors[place] = form.error_class([text])
    else:
        form.add_error(None, text)


class ErrorSummary:
    """The deal forms' summary above their fields: the errors of fields that the kind being
    entered does not show (a form posted from an old page, or by hand), named by their
    labels. A shown field prints its own errors, so each message appears once.

    ``SHOWN`` lists, per kind, the fields (or name prefixes, ``"tricks:"``) whose errors
    the kind's template prints beside them; the kind itself is always shown."""

    SHOWN: ClassVar[Mapping[str, tuple[str, ...]]] = {}

    def summary(self) -> list[str]:
        assert isinstance(self, forms.Form)  # noqa: S101 - mixed into the deal forms
        shown = ("kind", *self.SHOWN.get(self.kind_value(), ()))  # type: ignore[attr-defined]
        return [
            f"{field.label}: {error}"
            for field in self
            if not field.name.startswith(shown)
            for error in field.errors
        ]


def add_group_error(form: forms.Form, group: str, message: Any) -> None:
    """An error on a group of fields (``PRINTED_GROUPS``), which is no field of its own:
    kept in ``form.errors`` under the group's name, so the form is invalid and the
    template prints it beside the group."""
    form.errors[group] = form.error_class([str(message)])


class Segmented(forms.RadioSelect):
    """A choice drawn as a row of buttons for a thumb: radio inputs styled as buttons
    (static/css/site.css ``.segmented``), so it works without JavaScript and from a keyboard
    (arrow keys move within the row). Its template writes the options itself rather than
    including a template per option: the deal form has some eighty of them."""

    template_name = "scoring/widgets/segmented.html"


NOT_CONCEDED = _("conceding a contract is not allowed under this tariff")
"""The engine's refusal (``Pulka._check_concede``), in the member's language."""


UNPLAYED_TRICKS = _(
    "tricks are entered only when somebody whists: nobody did, so nobody played. Choose "
    "«whist», or save again without them (they are cleared)"
)


ROWS_BY_DECLARER = ("game", "misere")
"""The kinds whose rows belong to the declarer: a game's answers are his defenders', a
misère's tricks his own."""

ROWS_OF_ANOTHER_DEAL = _(
    "The answers and tricks on the form were for another declarer or another kind of deal, "
    "so nothing was saved. They now fit your choice: check them and save again."
)


class DrawnRows:
    """The deal forms' rows belong to one kind (and, for some kinds, one declarer): the
    page draws every kind's and shows the chosen one's, and says which it shows in
    ``drawn``, kept up to date by static/js/deal-form.js."""

    def _rows_of_another_deal(self, data: dict[str, Any]) -> bool:
        """A deal posted with the rows of another: the kind or the declarer was changed
        without the fields following (a page without JavaScript, no «Show fields»). Its
        rows would be stored for the wrong players, or missing, so it is refused and the
        form drawn again for the deal chosen. A form posted without ``drawn`` (by hand,
        from an older page) is judged as before."""
        assert isinstance(self, forms.Form)  # noqa: S101 - mixed into the deal forms
        drawn = self.data.get("drawn")
        if not drawn or "kind" not in data:
            return False
        if drawn == self.drawn_now():
            return False
        self.add_error(None, ROWS_OF_ANOTHER_DEAL)
        return True

    def drawn_now(self) -> str:
        """What the form's rows are drawn for: the kind and, where the rows depend on
        him (a game's answers, a misère's tricks), the declarer, e.g. ``game:Boris``."""
        kind = self.kind_value()  # type: ignore[attr-defined]
        declarer = self.declarer_value() if kind in ROWS_BY_DECLARER else ""  # type: ignore[attr-defined]
        return f"{kind}:{declarer}"


class KindField(forms.ChoiceField):
    """The deal kinds a table offers. A kind of the game that the table's tariff does not
    allow is refused in words that say so (``refused``), not as an unknown choice: a
    scorer who posts one from an old page learns why."""

    def __init__(self, *, refused: Mapping[str, Promise], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.refused = dict(refused)

    def validate(self, value: Any) -> None:
        if value in self.refused:
            raise forms.ValidationError(str(self.refused[value]), code="not_allowed")
        super().validate(value)


UNDERTRICKS = [(n, str(n)) for n in range(1, 11)]
FAST_TRICKS = [(n, str(n)) for n in range(4)]
"""The widow premium's fast tricks: an ace or king-queen of a suit 1, ace-king 2, two aces 3."""
"""A concession's undertricks: 1 up to the level (the engine refuses more than the level)."""


class PreferansDealForm(DrawnRows, ErrorSummary, forms.Form):
    """One Preferans deal. Fields for every active seat are present; the engine decides
    which answers and tricks apply (the declarer's own answer is ignored).

    A conceded contract (уход, preferans.md §13.11) is offered only when the tariff
    allows conceding; its undertricks start at the tariff's usual number and are always
    stored, so the deal keeps its number if the table later moves to another tariff."""

    KINDS = tuple(
        (kind, DEAL_KINDS[kind]) for kind in ("game", "misere", "passout", "concede", "adjust")
    )
    kind = KindField(label=_("deal"), choices=KINDS, initial="game", refused={}, widget=Segmented)
    fields_template = "scoring/preferans/_deal_fields.html"
    SHOWN: ClassVar[Mapping[str, tuple[str, ...]]] = {
        # As scoring/preferans/_deal_fields.html shows them (whist_amount prints no error).
        "game": ("declarer", "level", "suit", "answer:", "tricks:", "fast_tricks", "dark"),
        "misere": ("declarer", "tricks:", "dark"),
        "passout": ("tricks:", "dealer_tricks", "dark", "looked"),
        "concede": ("declarer", "level", "suit", "undertricks"),
        "adjust": ("reason", "pool:", "mountain:", "whist_writer", "whist_on"),
    }

    @staticmethod
    def shape(pulka: Pulka) -> tuple[int, ...]:
        """What an empty form depends on besides its table's players and rules: all that
        ``__init__`` reads of the pulka's state. Few shapes recur all evening, so the table
        page renders each once."""
        return (pulka.dealer, pulka.lowest_contract())

    def __init__(self, *args: Any, pulka: Pulka, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pulka = pulka
        names = pulka.setup.players
        rules = pulka.rules
        self.kinds = tuple((k, label) for k, label in self.KINDS if k != "concede" or rules.concede)
        kind = self.fields["kind"]
        assert isinstance(kind, KindField)  # noqa: S101 - declared above
        kind.choices = self.kinds
        kind.refused = {} if rules.concede else {"concede": NOT_CONCEDED}
        self.active = [names[s] for s in pulka.active_seats()]
        self.dealer = names[pulka.dealer]
        self.everyone = list(names)
        # The first hand (the player after the dealer) speaks first, so he declares more
        # often than anyone: the form starts on him rather than on seat А.
        self.first_hand = names[(pulka.dealer + 1) % pulka.setup.size]
        active_choices = [(n, n) for n in self.active]
        self.fields["declarer"] = forms.ChoiceField(
            label=_("declarer"),
            choices=active_choices,
            required=False,
            initial=self.first_hand,
            widget=Segmented,
        )
        levels = [n for n in LEVELS if n >= pulka.lowest_contract()]
        self.fields["level"] = forms.TypedChoiceField(
            label=_("contract"),
            choices=[(n, str(n)) for n in levels],
            coerce=int,
            required=False,
            widget=Segmented,
        )
        self.fields["suit"] = forms.ChoiceField(
            label=_("suit"), choices=SUIT_CHOICES, required=False, initial="S", widget=Segmented
        )
        self.usual_undertricks = rules.concede_undertricks
        if rules.concede:
            self.fields["undertricks"] = forms.TypedChoiceField(
                label=_("undertricks"),
                choices=UNDERTRICKS,
                coerce=int,
                required=False,
                initial=rules.concede_undertricks,
                widget=Segmented,
            )
        for name in self.active:
            self.fields[f"answer:{name}"] = forms.ChoiceField(
                label=name, choices=ANSWERS, required=False, initial="pass", widget=Segmented
            )
            self.fields[f"tricks:{name}"] = forms.TypedChoiceField(
                label=name, choices=TRICKS, coerce=int, required=False, widget=Segmented
            )
        self.widow = pulka.setup.size == 4 and rules.dealer_takes_widow_tricks
        if self.widow:
            self.fields["dealer_tricks"] = forms.TypedChoiceField(
                label=_("dealer's widow tricks"),
                choices=TRICKS[:3],
                coerce=int,
                required=False,
                initial=0,
                widget=Segmented,
            )
        # The widow premium's fast tricks (docs/rules.md, ФСПР): one tap, asked only where
        # the tariff plays it.
        self.premium = rules.widow_premium
        if self.premium:
            self.fields["fast_tricks"] = forms.TypedChoiceField(
                label=_("fast tricks in the widow"),
                choices=FAST_TRICKS,
                coerce=int,
                required=False,
                initial=0,
                widget=Segmented,
            )
        if rules.dark_games:
            self.fields["dark"] = forms.BooleanField(label=_("dark (в тёмную)"), required=False)
            self.fields["looked"] = forms.MultipleChoiceField(
                label=_("looked before passing"),
                choices=active_choices,
                required=False,
                widget=forms.CheckboxSelectMultiple,
            )
        # An adjustment's reason: drawn (hidden) with every kind's fields, so on the
        # correction's page beside the correction's own reason, which keeps ``id_reason``.
        self.fields["reason"] = forms.CharField(
            label=_("reason"),
            max_length=200,
            required=False,
            widget=forms.TextInput(attrs={"id": "id_adjust_reason"}),
        )
        for name in self.everyone:
            self.fields[f"pool:{name}"] = forms.IntegerField(
                label=name, required=False, min_value=-10_000, max_value=10_000
            )
            self.fields[f"mountain:{name}"] = forms.IntegerField(
                label=name, required=False, min_value=-10_000, max_value=10_000
            )
        everyone = [(n, n) for n in self.everyone]
        self.fields["whist_writer"] = forms.ChoiceField(
            label=_("whists written by"),
            choices=[("", "—"), *everyone],
            required=False,
            widget=Segmented,
        )
        self.fields["whist_on"] = forms.ChoiceField(
            label=_("on"), choices=[("", "—"), *everyone], required=False, widget=Segmented
        )
        self.fields["whist_amount"] = forms.IntegerField(
            label=_("whists"), required=False, min_value=-100_000, max_value=100_000
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self._rows_of_another_deal(data):
            return data
        if data.get("kind") == "game":
            self._refuse_unplayed_tricks(data)
        return data

    def _refuse_unplayed_tricks(self, data: dict[str, Any]) -> None:
        """Tricks entered for a game nobody whisted are refused on the tricks row, not
        dropped (docs/rules.md): the scorer may have meant a whist and forgotten to say
        so. The form comes back without them, so that Save again stores the game both
        passed, or «whist» shows the tricks to enter again."""
        said = [data.get(f"answer:{n}") or "pass" for n in self.defenders()]
        given = [n for n in self.active if data.get(f"tricks:{n}") not in (None, "")]
        if not given or "whist" in said:
            return
        if said not in (["pass", "pass"], ["pass", "half"]):
            return  # answers the engine refuses: it says what is wrong with them first
        add_group_error(self, "tricks", UNPLAYED_TRICKS)
        posted: Any = self.data  # a QueryDict (immutable) or a dict: copy, then drop them
        self.data = posted = posted.copy()
        for name in self.active:
            posted.pop(f"tricks:{name}", None)

    def kind_value(self) -> str:
        """The kind being entered (for drawing the right fields)."""
        kind = self["kind"].value()
        return kind if kind in dict(self.kinds) else "game"

    def defenders(self) -> list[str]:
        """The answering players for the chosen declarer, in speaking order."""
        names = self.pulka.setup.players
        declarer = self.declarer_value()
        return [names[s] for s in self.pulka.defenders(names.index(declarer))]

    def declarer_value(self) -> str:
        """The declarer being entered: the one chosen, else the first hand."""
        declarer = self["declarer"].value()
        return declarer if declarer in self.active else self.first_hand

    def answer_fields(self) -> list[forms.BoundField]:
        """The defenders' answers, in speaking order."""
        return [self[f"answer:{n}"] for n in self.defenders()]

    def answer_rows(self) -> list[tuple[forms.BoundField, str, bool]]:
        """Every active player's answer row as (field, player, hidden): the defenders' in
        speaking order, then the declarer's own, hidden. The page shows the rows of
        whoever is chosen as declarer without asking the server (deal-form.js)."""
        declarer = self.declarer_value()
        return [(self[f"answer:{n}"], n, False) for n in self.defenders()] + [
            (self[f"answer:{declarer}"], declarer, True)
        ]

    def trick_fields(self) -> list[forms.BoundField]:
        """Tricks of the players who hold cards (a misère: the declarer's only)."""
        if self.kind_value() == "misere":
            return [self[f"tricks:{self.declarer_value()}"]]
        return [self[f"tricks:{n}"] for n in self.active]

    def trick_rows(self) -> list[tuple[forms.BoundField, str, bool]]:
        """Every active player's tricks as (field, player, hidden): a misère shows the
        declarer's only, the other kinds everybody's (deal-form.js switches them)."""
        shown = {field.name for field in self.trick_fields()}
        return [(self[f"tricks:{n}"], n, f"tricks:{n}" not in shown) for n in self.active]

    def adjustment_fields(self) -> list[tuple[str, forms.BoundField, forms.BoundField]]:
        """(player, pool, mountain) for an adjustment."""
        return [(n, self[f"pool:{n}"], self[f"mountain:{n}"]) for n in self.everyone]

    def deal(self) -> dict[str, Any]:
        """The deal in game-record form (call after ``is_valid()``)."""
        data = self.cleaned_data
        kind = data["kind"]
        deal: dict[str, Any] = {"kind": kind}
        if kind == "adjust":
            return self._adjustment(deal)
        if data.get("dark"):
            deal["dark"] = True
        if kind == "passout":
            deal["tricks"] = {n: data.get(f"tricks:{n}") for n in self.active}
            if self.widow:
                deal["dealer_tricks"] = data.get("dealer_tricks") or 0
            if data.get("looked"):
                deal["looked"] = list(data["looked"])
            return deal
        deal["declarer"] = data.get("declarer")
        if kind == "concede":
            deal["contract"] = f"{data.get('level')}{data.get('suit') or 'S'}"
            deal["undertricks"] = data.get("undertricks") or self.usual_undertricks
            return deal
        if kind == "misere":
            declarer = data.get("declarer")
            deal["tricks"] = {declarer: data.get(f"tricks:{declarer}")}
            return deal
        deal["contract"] = f"{data.get('level')}{data.get('suit') or 'S'}"
        defenders = [n for n in self.active if n != data.get("declarer")]
        deal["answers"] = {n: data.get(f"answer:{n}") or "pass" for n in defenders}
        if "whist" in deal["answers"].values():
            deal["tricks"] = {n: data.get(f"tricks:{n}") for n in self.active}
            if self.premium and data.get("fast_tricks"):
                deal["fast_tricks"] = data["fast_tricks"]
        return deal

    def _adjustment(self, deal: dict[str, Any]) -> dict[str, Any]:
        data = self.cleaned_data
        deal["reason"] = data.get("reason") or ""
        deal["pool"] = {n: data[f"pool:{n}"] for n in self.everyone if data.get(f"pool:{n}")}
        deal["mountain"] = {
            n: data[f"mountain:{n}"] for n in self.everyone if data.get(f"mountain:{n}")
        }
        if data.get("whist_writer") and data.get("whist_on") and data.get("whist_amount"):
            deal["whists"] = [[data["whist_writer"], data["whist_on"], data["whist_amount"]]]
        return deal

    @classmethod
    def initial_from(cls, deal: dict[str, Any]) -> dict[str, Any]:
        """Form values that show a stored deal (for editing)."""
        initial: dict[str, Any] = {"kind": deal.get("kind", "game")}
        contract = deal.get("contract")
        if contract:
            initial["level"], initial["suit"] = int(contract[:-1]), contract[-1]
        keys = (
            "declarer",
            "reason",
            "dark",
            "dealer_tricks",
            "looked",
            "undertricks",
            "fast_tricks",
        )
        for key in keys:
            if key in deal:
                initial[key] = deal[key]
        for prefix in ("answers", "tricks", "pool", "mountain"):
            for name, value in (deal.get(prefix) or {}).items():
                initial[
                    f"{prefix.removesuffix('s')}:{name}"
                    if prefix == "answers"
                    else f"{prefix}:{name}"
                ] = value
        if deal.get("whists"):
            writer, on, amount = deal["whists"][0]
            initial |= {"whist_writer": writer, "whist_on": on, "whist_amount": amount}
        return initial


class BostonDealForm(DrawnRows, ErrorSummary, forms.Form):
    """One Boston deal: a payment-tariff ask or independence, a value-card contract, a
    pass, or an adjustment."""

    KINDS = (
        ("ask", _("ask (прикуп)")),
        ("independence", _("independence")),
        ("card", _("value card contract")),
        ("pass", _("pass round")),
        ("adjust", _("adjustment")),
    )
    SYSTEM_KINDS: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "payment-tariff": ("ask", "independence"),
        "value-card": ("card",),
    }
    """The contracts each scoring system scores (the engine refuses the other's: its
    ``_require_system``); a pass round and an adjustment are every table's."""
    NOT_SCORED: ClassVar[Mapping[str, Promise]] = {
        "ask": _("an ask or independence is not scored at a value-card table"),
        "independence": _("an ask or independence is not scored at a value-card table"),
        "card": _("a value-card contract is not scored at a payment-tariff table"),
    }
    """The engine's refusals (``boston.table.score_deal``), in the member's language."""
    kind = KindField(label=_("deal"), choices=KINDS, initial="ask", refused={}, widget=Segmented)
    suit = forms.ChoiceField(
        label=_("suit"), choices=list(SUIT_CLASSES.items()), required=False, widget=Segmented
    )
    tour = forms.ChoiceField(
        label=_("tour"),
        choices=(("simple", _("simple")), ("double", _("double"))),
        required=False,
        initial="simple",
        widget=Segmented,
    )
    tricks = forms.TypedChoiceField(
        label=_("tricks of the declaring side"),
        choices=BOSTON_TRICKS,
        coerce=int,
        required=False,
        widget=Segmented,
    )
    contract = forms.ChoiceField(
        label=_("contract"),
        choices=[(r, CARD_CONTRACT_WORDS.get(r, r)) for r in CARD_ROWS],
        required=False,
        widget=Segmented,
    )
    column = forms.ChoiceField(
        label=_("column"),
        choices=[(s, suit_label(s)) for s in SUITS],
        required=False,
        widget=Segmented,
    )
    honours = forms.TypedChoiceField(
        label=_("honours"),
        choices=((0, "0"), (3, "3"), (4, "4")),
        coerce=int,
        required=False,
        initial=0,
        widget=Segmented,
    )
    reason = forms.CharField(
        label=_("reason"),
        max_length=200,
        required=False,
        widget=forms.TextInput(attrs={"id": "id_adjust_reason"}),  # see PreferansDealForm
    )
    amount = forms.IntegerField(label=_("chips"), required=False, min_value=1, max_value=100_000)
    fields_template = "scoring/boston/_deal_fields.html"
    SHOWN: ClassVar[Mapping[str, tuple[str, ...]]] = {
        # As scoring/boston/_deal_fields.html shows them (amount prints no error).
        "ask": ("declarer", "partner", "trump", "suit", "tour", "tricks"),
        "independence": ("declarer", "trump", "suit", "tour", "tricks"),
        "card": ("declarer", "partner", "contract", "column", "honours", "tour", "tricks"),
        "adjust": ("reason", "payer", "payee"),
    }

    @staticmethod
    def shape(table: BostonTable) -> tuple[int, ...]:
        """An empty Boston form reads nothing of the table's state (see ``PreferansDealForm``):
        its preference suit is the table's own, fixed when it opens."""
        return ()

    def __init__(
        self,
        *args: Any,
        players: tuple[str, ...],
        preference_suit: str | None = None,
        system: str = "payment-tariff",
        **kwargs: Any,
    ) -> None:
        """The deal form of a table of ``players`` scored by ``system``, which offers that
        system's contracts only (a contract of the other is refused in the engine's
        words, not as an unknown choice). At a table with a ``preference_suit``
        an ask or independence is entered by its trump (♠ ♣ ♦ ♥), and the engine derives
        minor or major from it; the class can still be chosen instead, when the trump is
        not known (a deal copied from a paper sheet that wrote only «старшая»). Without a
        preference suit (a table opened before the site asked for it) the class is
        entered as before, minor unless chosen."""
        super().__init__(*args, **kwargs)
        self.preference_suit = preference_suit
        own = self.SYSTEM_KINDS.get(system, ())
        self.kinds = tuple(
            (k, label) for k, label in self.KINDS if k in own or k not in self.NOT_SCORED
        )
        # The kinds this table offers: the template draws only their fields.
        self.offers = frozenset(k for k, _label in self.kinds)
        kind = self.fields["kind"]
        assert isinstance(kind, KindField)  # noqa: S101 - declared above
        kind.choices = self.kinds
        kind.initial = self.kinds[0][0]
        kind.refused = {k: why for k, why in self.NOT_SCORED.items() if k not in own}
        choices = [(n, n) for n in players]
        if preference_suit is not None:
            self.fields["trump"] = forms.ChoiceField(
                label=_("trump"),
                choices=[("", "—"), *SUIT_SYMBOLS.items()],
                required=False,
                widget=Segmented,
            )
            suit = self.fields["suit"]
            assert isinstance(suit, forms.ChoiceField)  # noqa: S101 - declared above
            suit.label = _("or the suit")
            suit.choices = [("", "—"), *SUIT_CLASSES.items()]
        self.fields["declarer"] = forms.ChoiceField(
            label=_("declarer"), choices=choices, required=False, widget=Segmented
        )
        self.fields["partner"] = forms.ChoiceField(
            label=_("partner"), choices=[("", "—"), *choices], required=False, widget=Segmented
        )
        self.fields["payer"] = forms.ChoiceField(
            label=_("payer"), choices=choices, required=False, widget=Segmented
        )
        self.fields["payee"] = forms.ChoiceField(
            label=_("payee"), choices=choices, required=False, widget=Segmented
        )

    def kind_value(self) -> str:
        kind = self["kind"].value()
        return kind if kind in dict(self.kinds) else self.kinds[0][0]

    def preference_hint(self) -> Any:
        """What the trump means at this table, e.g. «Preference suit ♥ hearts: …»."""
        if self.preference_suit is None:
            return ""
        return _("Preference suit %(suit)s: a trump in it is major, any other minor.") % {
            "suit": suit_label(self.preference_suit)
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self._rows_of_another_deal(data):
            return data
        # With a preference suit neither field has a default: a deal with neither would
        # otherwise be minor without anybody having said so.
        played = data.get("kind") in ("ask", "independence")
        if played and "trump" in self.fields and not (data.get("trump") or data.get("suit")):
            self.add_error("trump", _("choose the trump (or, if it is not known, minor or major)"))
        return data

    def deal(self) -> dict[str, Any]:
        data = self.cleaned_data
        kind = data["kind"]
        if kind == "pass":
            return {"kind": "pass"}
        if kind == "adjust":
            return {
                "kind": "adjust",
                "reason": data.get("reason") or "",
                "transfers": [[data.get("payer"), data.get("payee"), data.get("amount")]],
            }
        deal: dict[str, Any] = {"kind": kind, "declarer": data.get("declarer")}
        if kind == "card":
            deal |= {
                "partner": data.get("partner") or None,
                "contract": data.get("contract"),
                "column": data.get("column"),
                "honours": data.get("honours") or 0,
            }
        else:
            if kind == "ask" and data.get("partner"):
                deal["partner"] = data["partner"]
            # Both given are passed on for the engine to refuse ("not both").
            if data.get("trump"):
                deal["trump"] = data["trump"]
            if data.get("suit") or not data.get("trump"):
                deal["suit"] = data.get("suit") or "minor"
        deal["tour"] = data.get("tour") or "simple"
        deal["tricks"] = data.get("tricks")
        return deal

    @classmethod
    def initial_from(cls, deal: dict[str, Any]) -> dict[str, Any]:
        initial = {k: v for k, v in deal.items() if k != "transfers"}
        if deal.get("transfers"):
            payer, payee, amount = deal["transfers"][0]
            initial |= {"payer": payer, "payee": payee, "amount": amount}
        return initial


class ReasonForm(forms.Form):
    """Why a deal is corrected or deleted, or a table reopened (the history keeps it). Like
    every ``CharField``, it refuses a NUL character (which PostgreSQL cannot store)."""

    reason = forms.CharField(label=_("reason"), max_length=200)


class FinishForm(forms.Form):
    """Finishing a table: an optional reason for the history (an organiser closing early)."""

    reason = forms.CharField(label=_("reason"), max_length=200, required=False)


class EarlyCloseForm(ReasonForm):
    """An organiser closing a table that is not complete: why, and whether it counts in
    the standings — asked every time, with no default (a member may open tables only for
    an organiser to close them; docs/permissions.md)."""

    counts = forms.TypedChoiceField(
        label=_("counts in the standings"),
        choices=(("yes", _("yes")), ("no", _("no"))),
        coerce=lambda value: value == "yes",
        widget=forms.RadioSelect,
        error_messages={"required": _("Say whether the table counts in the standings.")},
    )


def reason_refusal(form: forms.Form, missing: str) -> RuleError:
    """Why a reason form was refused: ``missing`` when no reason was given, else what is
    wrong with the one given (too long, a NUL character)."""
    if str(form.data.get("reason") or "").strip():
        return RuleError(
            " ".join(str(e) for e in form.errors.get("reason", [missing])), field="reason"
        )
    return RuleError(missing, field="reason")


class SeatWidget(Segmented):
    """A seat's members as a row of buttons: the club's regulars, and the other members
    (if any) in a ``<details>`` under them, one tap further, the same radio group; the
    first button, «—», leaves the seat to a guest's name (or, beyond the fewest seats,
    empty)."""

    template_name = "scoring/widgets/seat.html"

    def __init__(self, *args: Any, others: frozenset[str] = frozenset(), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.others = others

    def get_context(self, name: str, value: Any, attrs: Any) -> dict[str, Any]:
        context = super().get_context(name, value, attrs)
        options = [o for _name, group, _i in context["widget"]["optgroups"] for o in group]
        shown = [o for o in options if str(o["value"]) not in self.others]
        more = [o for o in options if str(o["value"]) in self.others]
        context["widget"] |= {
            "shown": shown,
            "more": more,
            "more_open": any(o["selected"] for o in more),
        }
        return context


class TableOpenForm(forms.Form):
    """Open a table: the tariff version, the players and the seed sheet's fields, each
    choice a row of buttons for a thumb (``Segmented``), as the deal form's. A three-player
    pulka of regulars opens in three taps: the club's tariff is chosen
    (``selectors.tariffs.opening_tariff``), seat А is the member opening it when he plays,
    the first dealer is seat А; two seats and «Open the table» are left."""

    version = forms.ModelChoiceField(
        label=_("tariff"),
        queryset=PreferansTariffVersion.objects.none(),
        widget=Segmented,
        empty_label=None,
    )
    first_dealer = forms.TypedChoiceField(
        label=_("first dealer"),
        choices=lambda: [(i, seat_letter(i)) for i in range(4)],
        coerce=int,
        initial=0,
        widget=Segmented,
    )
    pool_target = forms.IntegerField(
        label=_("pool target"), min_value=1, max_value=10_000, initial=20
    )
    price = forms.DecimalField(
        label=_("price of a whist"),
        min_value=Decimal(0),
        max_value=Decimal(1_000_000),
        decimal_places=2,
        initial=1,
    )
    control_time = forms.TimeField(
        label=_("control time"),
        required=False,
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
    )
    preference_suit = forms.ChoiceField(
        label=_("preference suit"),
        # A callable, so that the suits' names are in the language of the request.
        choices=lambda: [(s, suit_label(s)) for s in SUIT_SYMBOLS],
        help_text=_("The suit turned at the first deal: the major suit of the payment tariff."),
        widget=Segmented,
    )

    CONDITIONS = ("first_dealer", "pool_target", "control_time", "preference_suit")
    """The fields a game may do without (``conditions`` names those it keeps)."""

    def __init__(
        self,
        *args: Any,
        game: str,
        versions: Any,
        players: tuple[int, ...],
        conditions: tuple[str, ...],
        price_label: Any,
        candidates: SeatCandidates,
        default_tariff: Any = None,
        **kwargs: Any,
    ) -> None:
        """A form for a table of ``game``: under one of ``versions`` (the newest version of
        ``default_tariff`` chosen), with as many players as ``players`` allows (seats
        beyond the fewest are optional) taken from ``candidates`` (seat А is
        ``candidates.me``), and of the optional ``CONDITIONS`` only ``conditions``."""
        super().__init__(*args, **kwargs)
        self.game = game
        self.candidates = candidates
        self.by_pk = {str(m.pk): m for m in candidates.everyone}
        others = frozenset(str(m.pk) for m in candidates.others)
        choices = [("", "—"), *((str(m.pk), m.name) for m in candidates.everyone)]
        self.seats_needed = min(players)
        for i in range(4):
            # A seat is a member, or a guest typed by name (the form checks one of them).
            self.fields[f"player_{i}"] = forms.ChoiceField(
                label=_("seat %(n)s") % {"n": seat_letter(i)},
                choices=choices,
                required=False,
                widget=SeatWidget(others=others),
            )
            self.fields[f"guest_{i}"] = forms.CharField(
                label=_("or a guest's name"), max_length=60, required=False
            )
        if candidates.me is not None:
            self.fields["player_0"].initial = str(candidates.me.pk)
        version_field = self.fields["version"]
        assert isinstance(version_field, forms.ModelChoiceField)  # noqa: S101
        version_field.queryset = _newest_versions(versions)
        # Read once: the buttons are drawn from this list (the queryset checks a choice).
        newest = list(version_field.queryset)
        version_field.choices = [(v.pk, v.tariff.name) for v in newest]
        chosen = getattr(default_tariff, "pk", None)
        version_field.initial = next((v.pk for v in newest if v.tariff_id == chosen), None)
        self.fields["price"].label = price_label
        for name in self.CONDITIONS:
            if name not in conditions:
                del self.fields[name]

    def seat_fields(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        """Each seat's two fields: a member, or a guest's name."""
        return [(self[f"player_{i}"], self[f"guest_{i}"]) for i in range(4)]

    def choice_fields(self) -> list[forms.BoundField]:
        """The rows of buttons after the seats: the first dealer, the preference suit."""
        return [self[n] for n in ("first_dealer", "preference_suit") if n in self.fields]

    def condition_fields(self) -> list[forms.BoundField]:
        """The typed conditions, each with its usual value: the pool, the price, the
        control time."""
        return [self[n] for n in ("pool_target", "price", "control_time") if n in self.fields]

    def _seat(self, data: dict[str, Any], i: int) -> Member | Guest | None:
        guest = " ".join((data.get(f"guest_{i}") or "").split())
        member = self.by_pk.get(data.get(f"player_{i}") or "")
        return member or (Guest(name=guest) if guest else None)

    def members(self) -> list[Member | Guest]:
        """The seated players, clockwise: members, and guests (not saved yet)."""
        return [p for i in range(4) if (p := self._seat(self.cleaned_data, i)) is not None]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        for i in range(4):
            if f"player_{i}" in self.errors:  # not one of the members offered: said so
                continue
            if data.get(f"player_{i}") and (data.get(f"guest_{i}") or "").strip():
                self.add_error(f"guest_{i}", _("A seat is a member or a guest, not both."))
            elif i < self.seats_needed and self._seat(data, i) is None:
                self.add_error(f"player_{i}", _("Choose a member or type a guest's name."))
        chosen = [data[f"player_{i}"] for i in range(4) if data.get(f"player_{i}")]
        if len(set(chosen)) != len(chosen):
            raise forms.ValidationError(_("Each member can take one seat only."))
        seated = [p for i in range(4) if (p := self._seat(data, i)) is not None]
        if data.get("first_dealer", 0) >= max(len(seated), 1):
            self.add_error("first_dealer", _("Choose one of the seated players."))
        return data


def _newest_versions(model: Any) -> Any:
    """Each tariff's newest version: new tables always start on the current rules."""
    newest = model.objects.filter(tariff=OuterRef("tariff")).order_by("-number")
    return (
        model.objects.filter(number=Subquery(newest.values("number")[:1]))
        .select_related("tariff")
        .order_by("tariff__name")
    )


class ImportForm(forms.Form):
    """Bring in a game record (a paper sheet typed up, another club's export)."""

    record = forms.FileField(label=_("game record (JSON)"))
    game = forms.ChoiceField(label=_("game"), choices=Table.GAMES)
    played_on = forms.DateField(label=_("date"), required=False, validators=[validate_played_on])


class HistoryUploadForm(forms.Form):
    """A CSV of the club's past results, for its dry run (``services.history``)."""

    file = forms.FileField(label=_("file of past results (CSV)"))


class MembersUploadForm(forms.Form):
    """A CSV of the club's members (``username,name,email``), for its dry run; prefixed on
    the page, beside the form of past results."""

    file = forms.FileField(label=_("file of members (CSV)"))


class HistoryConfirmForm(forms.Form):
    """The file the dry run showed, sent back to be imported: its bytes (base64) and name.
    The import reads them again from the start; nothing the page said is trusted."""

    content = forms.CharField(widget=forms.HiddenInput)
    file_name = forms.CharField(widget=forms.HiddenInput, required=False, max_length=200)


class EveningForm(forms.ModelForm):  # type: ignore[type-arg]
    """A new club evening: date, place, game and the table size the draw prefers."""

    class Meta:
        model = Evening
        fields = ("played_on", "place", "game", "table_size")
        # A date input takes and shows ISO dates only, whatever the page's language: a
        # Russian page's «06.12.2026» left it empty (issue 30).
        widgets: ClassVar[dict[str, Any]] = {
            "played_on": forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
        }


class ScheduleForm(forms.ModelForm):  # type: ignore[type-arg]
    """An evening announced ahead, or (``until``) a weekly series on its weekday."""

    until = forms.DateField(
        label=_("every week until"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("Empty: one evening."),
    )

    class Meta:
        model = Evening
        fields = ("played_on", "starts_at", "place", "game", "table_size", "seats")
        widgets: ClassVar[dict[str, Any]] = {
            "played_on": forms.DateInput(attrs={"type": "date"}),
            "starts_at": forms.TimeInput(attrs={"type": "time"}),
            "seats": forms.NumberInput(attrs={"min": 3, "max": 400}),
        }
        help_texts: ClassVar[dict[str, Any]] = {
            "seats": _("Empty: no limit. Answers beyond it wait for a seat."),
        }


class DrawForm(forms.Form):
    """Draw the next round: a seed to draw again as before, or empty for a fresh one."""

    seed = forms.IntegerField(label=_("seed"), required=False, min_value=0, max_value=999_999)


class GuestForm(forms.Form):
    """A guest checked in at an evening: his name (no account)."""

    name = forms.CharField(label=_("guest's name"), max_length=60, strip=True)


class GuestMergeForm(forms.Form):
    """The member a guest turned out to be (his history is merged into the member's)."""

    member = forms.ModelChoiceField(
        label=_("member"),
        queryset=Member.objects.filter(is_active=True).order_by("display_name", "username"),
    )


class PairForm(forms.Form):
    """Two players of the evening (party keys): a "not together" request (members), or a
    swap in the draw."""

    first = forms.ChoiceField(label=_("first"))
    second = forms.ChoiceField(label=_("second"))

    def __init__(self, *args: Any, choices: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name in ("first", "second"):
            field = self.fields[name]
            assert isinstance(field, forms.ChoiceField)  # noqa: S101
            field.choices = choices
