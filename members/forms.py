"""Forms of the members' pages: signing in, and a member's own display name."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import AuthenticationForm

from members.models import Member


class SignInForm(AuthenticationForm):
    """Django's sign-in form (it checks the password and that the account is active)."""


class DisplayNameForm(forms.ModelForm):  # type: ignore[type-arg]
    """The name sheets and standings show for a member; blank falls back to the username.
    Tables already opened keep the name they were opened with."""

    class Meta:
        model = Member
        fields = ("display_name",)
