"""The request of a view that only signed-in members reach (``login_required``): its
``user`` is a ``Member``, so a view types its request so rather than check it again."""

from __future__ import annotations

from clubsite.http import HtmxHttpRequest
from members.models import Member


class SignedInRequest(HtmxHttpRequest):
    """A request past ``login_required``: the user model is ``Member``, and anonymous
    visitors were sent to sign in."""

    user: Member
