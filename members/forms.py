"""Forms of the members' pages: signing in, a member's own settings, the password reset by
e-mail, and an organiser's invitation."""

from __future__ import annotations

import unicodedata
from typing import Any

from django import forms
from django.contrib.auth import forms as auth_forms
from django.contrib.auth.base_user import BaseUserManager
from django.urls import NoReverseMatch, resolve, reverse
from django.utils.translation import gettext_lazy as _

from members.models import CHANNELS, NOTICE_CHOICES, NOTICE_KINDS, Member, choice_name


class SignInForm(auth_forms.AuthenticationForm):
    """Django's sign-in form (it checks the password and that the account is active)."""


def same_address(one: str, other: str) -> bool:
    """E-mail addresses compared as Django's password reset compares them: case and
    Unicode compatibility forms do not count."""

    def folded(address: str) -> str:
        return unicodedata.normalize("NFKC", address).casefold()

    return folded(one) == folded(other)


def _address_taken(email: str, *, other_than: Member | None = None) -> bool:
    """Whether another member already uses ``email``. The password reset mails every
    account with the address, so two members sharing one would each get the other's
    links; the forms keep addresses apart (no database constraint: a club's existing
    members may already share one, and a migration must not fail on that)."""
    members = Member.objects.filter(email__iexact=email)
    if other_than is not None:
        members = members.exclude(pk=other_than.pk)
    return any(same_address(email, member.email) for member in members)


TAKEN_ADDRESS = _("Another member already uses this address.")


def is_a_page(username: str) -> bool:
    """Whether ``/members/<username>/``, the member's page, would be another page of the
    site: a member called "settings" or "sign-in" would be hidden behind it. (A name no URL
    takes, one with a slash, is refused by the username's own validator.)"""
    try:
        page = resolve(reverse("members:detail", args=[username])).url_name
    except NoReverseMatch:
        return False
    return page != "detail"


KIND_NAMES = {
    "reminder": _("The day before an evening I answered"),
    "table_finished": _("My table finished: my result and who pays whom"),
    "seated": _("A seat found for me off the waiting list"),
    "evening_summary": _("The evening's summary"),
}
"""The grid's rows (``NOTICE_KINDS``)."""

CHANNEL_NAMES = {"email": _("E-mail"), "telegram": _("Telegram"), "push": _("Web push")}
"""The grid's columns (``CHANNELS``)."""


class MemberSettingsForm(forms.ModelForm):  # type: ignore[type-arg]
    """A member's own settings: the name sheets and standings show (blank falls back to
    the username; tables already opened keep the name they were opened with), the e-mail
    address and what to e-mail. Changing the address asks for the password: whoever holds
    the address can reset the password, so a session left open on the club's laptop must
    not be enough to take the account."""

    current_password = forms.CharField(
        label=_("Your password"),
        required=False,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
        help_text=_("Needed only to change your e-mail address."),
    )

    class Meta:
        model = Member
        fields = ("display_name", "email", *NOTICE_CHOICES)
        help_texts = {
            "email": _("For resetting your password and for the messages below."),
        }

    def grid(self) -> list[tuple[Any, list[forms.BoundField]]]:
        """The message choices as the page's grid: one row a message, one column a way
        (``CHANNEL_NAMES``)."""
        return [
            (KIND_NAMES[kind], [self[choice_name(channel, kind)] for channel in CHANNELS])
            for kind in NOTICE_KINDS
        ]

    def clean_email(self) -> str:
        email = BaseUserManager.normalize_email(self.cleaned_data["email"])
        if email and _address_taken(email, other_than=self.instance):
            raise forms.ValidationError(TAKEN_ADDRESS, code="taken")
        return email

    def clean(self) -> dict[str, Any] | None:
        cleaned = super().clean()
        if "email" in self.changed_data and not self.instance.check_password(
            self.cleaned_data.get("current_password", "")
        ):
            self.add_error(
                "current_password",
                forms.ValidationError(
                    _("Enter your password to change your e-mail address."),
                    code="password_needed",
                ),
            )
        return cleaned


class InviteForm(forms.ModelForm):  # type: ignore[type-arg]
    """An organiser's invitation: the new member's username, the name the club shows and
    the address the link goes to."""

    class Meta:
        model = Member
        fields = ("username", "display_name", "email")
        help_texts = {
            "username": _(
                "What the member signs in with, and part of their page's address: "
                "letters, digits and @ . + - _ only."
            ),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["email"].required = True

    def clean_username(self) -> str:
        # In Unicode's normal form (NFKC), as Django's sign-in reads what is typed: "ｂｏｒｉｓ"
        # in full-width letters is "boris", and could never sign in as himself otherwise.
        username: str = Member.normalize_username(self.cleaned_data["username"])
        if Member.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError(
                _("A member with that username already exists."), code="unique"
            )
        if is_a_page(username):
            raise forms.ValidationError(
                _("This username is the name of a page of the site; choose another."),
                code="reserved",
            )
        return username

    def clean_email(self) -> str:
        email = BaseUserManager.normalize_email(self.cleaned_data["email"])
        if _address_taken(email):
            raise forms.ValidationError(TAKEN_ADDRESS, code="taken")
        return email


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset form, for its address field only: the view hands the address to
    ``members.services.password_reset_request``, which looks for no member in the request
    (the task does), so the page answers alike, and in the same time, whether or not the
    address belongs to anyone. Deactivated members get nothing; a member without a
    password yet — invited, or restored from a backup — gets a link too."""
