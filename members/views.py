"""Signing in and out, and a member's page."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from members.forms import DisplayNameForm, SignInForm
from members.models import Member
from scoring.selectors import profiles


def _safe_next(request: HttpRequest) -> str:
    """The ``next`` page asked for, if it is on this site; otherwise ``""``."""
    source = request.POST if request.method == "POST" else request.GET
    target = source.get("next", "")
    allowed = url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    # Coming back to the sign-in page after signing in would only ask again.
    if not allowed or urlsplit(target).path == reverse("members:login"):
        return ""
    return target


@sensitive_post_parameters("password")
@never_cache
@require_http_methods(["GET", "HEAD", "POST"])
def sign_in(request: HttpRequest) -> HttpResponse:
    next_url = _safe_next(request)
    if request.method == "POST":
        form = SignInForm(request, data=request.POST)
        if form.is_valid():
            login(request, form.get_user())
            # Not ``redirect()``: it would try a ``next`` like "home" as a URL name.
            return HttpResponseRedirect(next_url or resolve_url(settings.LOGIN_REDIRECT_URL))
    else:
        form = SignInForm(request)
    return render(request, "members/sign_in.html", {"form": form, "next": next_url})


@require_POST
def sign_out(request: HttpRequest) -> HttpResponse:
    logout(request)
    return redirect(settings.LOGOUT_REDIRECT_URL)


@require_http_methods(["GET", "HEAD", "POST"])
def member_detail(request: HttpRequest, username: str) -> HttpResponse:
    """A member's page: their tables, statistics, head-to-head and charts (all from the
    results stored when each table finished: a constant number of queries), and for the
    member themselves the form for their display name."""
    member = get_object_or_404(Member.objects.prefetch_related("groups"), username=username)
    own_page = request.user.is_authenticated and request.user.pk == member.pk
    name = member.name
    form = None
    if own_page:
        data = request.POST if request.method == "POST" else None
        form = DisplayNameForm(data, instance=member)
    if request.method == "POST":
        if form is None:
            raise PermissionDenied
        if form.is_valid():
            form.save()
            messages.success(request, _("Your display name is saved."))
            return redirect("members:detail", username=member.username)
    shown = profiles.profile(member, season=request.GET.get("season"))
    return render(
        request,
        "members/member_detail.html",
        {
            "member": member,
            "name": name,
            "form": form,
            "lines": shown.lines,
            "profile": shown,
        },
    )
