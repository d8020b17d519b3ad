"""The accounts' forms: a line of the cash book and an evening's shared expense (shape
only; the services judge the amounts)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from members.models import Member
from scoring.models import AccountEntry, Evening

CASH_BOOK_KINDS = (AccountEntry.TOP_UP, AccountEntry.REFUND, AccountEntry.CORRECTION)
"""What an organiser records by hand; the other kinds come from the evening's writes."""


class AccountEntryForm(forms.Form):
    """A line of the cash book: whose account, a top-up, a refund or a correction, the
    amount (a correction's with its sign) and why."""

    member = forms.ModelChoiceField(
        label=_("member"),
        queryset=Member.objects.filter(is_active=True).order_by("display_name", "username"),
    )
    kind = forms.ChoiceField(
        label=_("kind"),
        choices=[(k, label) for k, label in AccountEntry.KINDS if k in CASH_BOOK_KINDS],
    )
    amount = forms.DecimalField(
        label=_("amount"),
        max_digits=9,
        decimal_places=2,
        localize=True,
        help_text=_("A correction takes a sign: -50 takes 50 from the balance."),
    )
    reason = forms.CharField(label=_("why"), max_length=200, required=False, strip=True)


class SharedExpenseForm(forms.Form):
    """An evening's shared expense: what it was, the total, and who shares it (members
    checked in at the evening)."""

    reason = forms.CharField(label=_("what for"), max_length=200, strip=True)
    total = forms.DecimalField(label=_("total"), max_digits=9, decimal_places=2, localize=True)
    members = forms.ModelMultipleChoiceField(
        label=_("shared by"),
        queryset=Member.objects.none(),
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args: Any, evening: Evening, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["members"]
        assert isinstance(field, forms.ModelMultipleChoiceField)  # noqa: S101
        field.queryset = Member.objects.filter(attendances__evening=evening).order_by(
            "display_name", "username"
        )
