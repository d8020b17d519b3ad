"""Guests, for organisers: the list of guests who played, and merging one's history into
a member (``services.guests.guest_merge``). HTTP only; a POST answers with a redirect."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from members.http import SignedInRequest
from scoring.engine.errors import RuleError
from scoring.models import Guest
from scoring.pages.forms import GuestMergeForm
from scoring.permissions import can_merge_guest
from scoring.services.guests import guest_merge as merge


@login_required
def guest_list(request: SignedInRequest) -> HttpResponse:
    if not can_merge_guest(request.user):
        raise PermissionDenied
    guests = Guest.objects.annotate(tables=Count("seats")).order_by("name", "pk")
    # The members to merge into, read once for every guest's form (not once per form).
    members = list(GuestMergeForm().fields["member"].queryset)  # type: ignore[attr-defined]
    return render(request, "scoring/guest_list.html", {"guests": guests, "members": members})


@login_required
@require_POST
def guest_merge(request: SignedInRequest, pk: int) -> HttpResponse:
    if not can_merge_guest(request.user):
        raise PermissionDenied
    guest = get_object_or_404(Guest, pk=pk)
    form = GuestMergeForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("choose the member the guest is"))
        return redirect("scoring:guest_list")
    member = form.cleaned_data["member"]
    try:
        tables = merge(guest=guest, member=member, by=request.user)
    except RuleError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _("%(guest)s's %(n)s tables are %(member)s's now")
            % {"guest": guest.name, "n": len(tables), "member": member.name},
        )
    return redirect("scoring:guest_list")
