"""Signing in and out; a member's page and own settings; changing and resetting a password
(Django's auth views, with the site's templates); and the organisers' members page."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect, render, resolve_url
from django.template.loader import render_to_string
from django.urls import reverse, reverse_lazy
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from clubsite.http import HtmxHttpRequest
from clubsite.pages import kept_page
from members import selectors, services
from members.forms import (
    CHANNEL_NAMES,
    InviteForm,
    MemberSettingsForm,
    PasswordResetForm,
    SignInForm,
)
from members.http import SignedInRequest
from members.models import Member
from scoring import permissions
from scoring.pages import profiles
from scoring.selectors import accounts, evenings
from scoring.selectors import profiles as profile_reads
from scoring.selectors.standings import stamp_column, standings_cached
from scoring.services.members import member_save
from scoring.services.notices import telegram_linking_configured, webpush_configured


def _safe_next(request: HtmxHttpRequest) -> str:
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
def sign_in(request: HtmxHttpRequest) -> HttpResponse:
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
def sign_out(request: HtmxHttpRequest) -> HttpResponse:
    logout(request)
    return redirect(settings.LOGOUT_REDIRECT_URL)


def _profile_version(request: HtmxHttpRequest, username: str) -> str | None:
    """What a member's page shows a visitor: what his profile is cached under (the standings
    stamp, his latest seat, today); None for no such member."""
    found = profile_reads.page_version(username)
    if found is None or not found[1]:
        return None
    latest_seat, stamp = found
    return f"{stamp}:{latest_seat}:{timezone.localdate()}"


def _own_parts(
    request: HtmxHttpRequest, username: str, member: Member | None = None
) -> dict[str, Any]:
    """What of a member's page is the viewer's own: for the member himself the links to his
    settings (and an organiser's to the members page); for him and the organisers, the
    balance of his club evenings' unpaid payments (a few queries per evening he came to)
    and of his account. Nothing (no query) for anyone else."""
    user = request.user
    own_page = user.is_authenticated and user.get_username() == username
    if not own_page and not permissions.is_organiser(user):
        return {}
    if member is None:
        member = get_object_or_404(Member.objects.prefetch_related("groups"), username=username)
    return {
        "own_page": own_page,
        # The member's groups are prefetched: no query of its own.
        "manages_members": own_page and permissions.can_manage_members(member),
        "club_balance": evenings.club_balance(member),
        **_account(request, member),
    }


@require_http_methods(["GET", "HEAD"])
@kept_page(_profile_version, _own_parts, last_while_made=True)
def member_detail(request: HtmxHttpRequest, username: str) -> HttpResponse:
    """A member's page: their tables, statistics, head-to-head and charts (all from the
    results stored when each table finished: a constant number of queries), and for the
    member themselves the links to their settings (and an organiser's to the members
    page); for the member and organisers, the balance of his club evenings' unpaid
    payments (a few queries per evening he came to)."""
    # With his latest seat and the standings stamp, which his profile is cached under.
    members = Member.objects.prefetch_related("groups").annotate(
        latest_seat=profile_reads.latest_seat_column(), standings_stamp=stamp_column()
    )
    member = get_object_or_404(members, username=username)
    return render(
        request,
        "members/member_detail.html",
        {
            "member": member,
            "name": member.name,
            "profile_section": _profile_section(request, member),
            **_own_parts(request, username, member),
        },
    )


ACCOUNT_ENTRIES = 20
"""How many of his latest account entries a member's page shows."""


def _account(request: HtmxHttpRequest, member: Member) -> dict[str, Any]:
    """His account with the club, for him and the organisers: the balance (the sum of
    his entries) and the latest entries; nothing for anyone else."""
    if not permissions.can_see_balance(request.user, member):
        return {}
    return {
        "account_balance": accounts.balance(member),
        "entries": accounts.entries(member)[:ACCOUNT_ENTRIES],
    }


def _profile_section(request: HtmxHttpRequest, member: Any) -> str:
    """The member's results, statistics, head-to-head, charts and tables (the latest, or
    all with ``?tables=all``; the head-to-head's first few per game, or all with
    ``?rivals=all``), kept in the cache until the standings change (a finish, a reopen, a
    rating, a name) or he sits at a new table: no query then, whatever his history
    (``member`` carries his latest seat and the stamp)."""
    season = request.GET.get("season") or ""
    if season != "all" and not (season.isdigit() and len(season) < 10):
        season = ""  # not a season: the chart shows the default one, as for none
    all_tables = request.GET.get("tables") == "all"
    all_rivals = request.GET.get("rivals") == "all"
    today = timezone.localdate()  # the chart's default season is today's
    made_from = (
        member.pk,
        member.latest_seat,
        season,
        int(all_tables),
        int(all_rivals),
        get_language(),
        today,
    )

    def make() -> str:
        shown = profiles.profile(
            member, season=season or None, all_tables=all_tables, all_rivals=all_rivals
        )
        return render_to_string(
            "members/member_detail.html#profile", {"profile": shown, "name": member.name}
        )

    return standings_cached(member.standings_stamp or "", "profile", made_from, make)


# -- one's own settings and password ---------------------------------------------------


@sensitive_post_parameters("current_password")
@login_required
@require_http_methods(["GET", "HEAD", "POST"])
def member_settings(request: SignedInRequest) -> HttpResponse:
    """The signed-in member's display name, e-mail address and e-mail choices."""
    member = get_object_or_404(Member.objects.prefetch_related("groups"), pk=request.user.pk)
    form = MemberSettingsForm(request.POST if request.method == "POST" else None, instance=member)
    if request.method == "POST" and form.is_valid():
        member_save(member=form.save(commit=False))  # a new name: the standings follow
        messages.success(request, _("Your settings are saved."))
        return redirect("members:settings")
    return render(
        request,
        "members/member_settings.html",
        {
            "member": member,
            "form": form,
            "manages_members": permissions.can_manage_members(member),
            "channel_names": CHANNEL_NAMES.values(),
            "telegram": {
                "configured": telegram_linking_configured(),
                "linked": member.telegram_chat_id is not None,
            },
            "push": {
                "configured": webpush_configured(),
                "public_key": settings.VAPID_PUBLIC_KEY,
                "devices": member.push_subscriptions.count() if webpush_configured() else 0,
            },
        },
    )


password_change = auth_views.PasswordChangeView.as_view(
    template_name="members/password_change.html",
    success_url=reverse_lazy("members:password_change_done"),
)
"""A signed-in member changes their password (the old one first); their other sessions
end, this one goes on."""

password_change_done = auth_views.PasswordChangeDoneView.as_view(
    template_name="members/password_change_done.html"
)


class PasswordResetView(auth_views.PasswordResetView):
    """Asks for an address and answers "if it is a member's, a link is on its way" either
    way, so the page never tells whether an address belongs to anyone. The e-mail is in
    the language of the page it was asked from."""

    form_class = PasswordResetForm
    template_name = "members/password_reset.html"
    subject_template_name = "members/email/password_reset_subject.txt"
    email_template_name = "members/email/password_reset.txt"
    success_url = reverse_lazy("members:password_reset_done")

    def form_valid(self, form: Any) -> HttpResponse:
        # Not Django's form.save(): it looks the members up and renders their links in the
        # request (its time then told a member's address from a stranger's), and the link
        # went into the task's row. The task does both, at send time.
        services.password_reset_request(email=form.cleaned_data["email"], site=_site(self.request))
        return HttpResponseRedirect(self.get_success_url())


password_reset = PasswordResetView.as_view()
password_reset_done = auth_views.PasswordResetDoneView.as_view(
    template_name="members/password_reset_done.html"
)


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    """The e-mailed link (a reset or an invitation): a new password for the member, who
    then signs in as usual (the link signs nobody in). A deactivated member's link does
    not work. Setting the password also clears the member's sign-in lockout, which is how
    a member locked out by wrong guesses gets back in without an organiser."""

    template_name = "members/password_reset_confirm.html"
    success_url = reverse_lazy("members:password_reset_complete")

    def get_user(self, uidb64: str) -> Any:
        user = super().get_user(uidb64)
        return user if user is not None and user.is_active else None

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        services.member_unlock(member=form.user)
        return response


password_reset_confirm = PasswordResetConfirmView.as_view()
password_reset_complete = auth_views.PasswordResetCompleteView.as_view(
    template_name="members/password_reset_complete.html"
)


# -- the organisers' members page --------------------------------------------------------


@dataclass(frozen=True)
class MemberRow:
    """One member on the organisers' page, with what the organiser may do there."""

    member: Member
    locked_out: bool
    may_change_membership: bool
    balance: Decimal  # his account with the club (scoring.selectors.accounts)

    @property
    def needs_password(self) -> bool:
        """Invited (or restored from a backup) and no password set yet."""
        return not self.member.has_usable_password()


def _organiser(request: HtmxHttpRequest) -> Member:
    """The signed-in member, with their groups, if they may manage members; else 403."""
    actor = get_object_or_404(Member.objects.prefetch_related("groups"), pk=request.user.pk)
    if not permissions.can_manage_members(actor):
        raise PermissionDenied
    return actor


def _members_page(request: HtmxHttpRequest, actor: Member, invite: InviteForm) -> HttpResponse:
    locked = selectors.locked_out_usernames()
    balances = accounts.balances()
    rows = [
        MemberRow(
            member,
            locked_out=member.username in locked,
            may_change_membership=permissions.can_change_membership(actor, member),
            balance=balances.get(member.pk, accounts.ZERO),
        )
        for member in selectors.members_for_organisers()
    ]
    return render(request, "members/member_manage.html", {"rows": rows, "invite": invite})


@login_required
@require_http_methods(["GET", "HEAD"])
def member_manage(request: SignedInRequest) -> HttpResponse:
    """Every member with their state (active, no password yet, deactivated, locked out)
    and the buttons for it, and the invitation form."""
    return _members_page(request, _organiser(request), InviteForm())


def _site(request: HttpRequest) -> services.Site:
    return services.Site(domain=request.get_host(), use_https=request.is_secure())


@login_required
@require_POST
def member_invite(request: SignedInRequest) -> HttpResponse:
    actor = _organiser(request)
    form = InviteForm(request.POST)
    if form.is_valid():
        try:
            member = services.member_invite(
                username=form.cleaned_data["username"],
                display_name=form.cleaned_data["display_name"],
                email=form.cleaned_data["email"],
                by=actor,
                site=_site(request),
            )
        except IntegrityError:  # the same username, invited by someone else meanwhile
            form.add_error("username", _("A member with that username already exists."))
        else:
            messages.success(
                request,
                _("%(name)s is invited: the link to set a password is on its way to %(email)s.")
                % {"name": member.name, "email": member.email},
            )
            return redirect("members:manage")
    return _members_page(request, actor, form)


def _managed(username: str) -> Member:
    return get_object_or_404(Member, username=username)


def _membership_refusal(actor: Member, member: Member) -> str:
    if member.pk == actor.pk:
        return _("You cannot deactivate or reactivate yourself.")
    return _("Only an administrator can deactivate or reactivate an administrator.")


def _set_active(request: HtmxHttpRequest, username: str, *, active: bool) -> HttpResponse:
    actor = _organiser(request)
    member = _managed(username)
    if not permissions.can_change_membership(actor, member):
        messages.error(request, _membership_refusal(actor, member))
    elif member.is_active == active:
        if active:
            text = _("%(name)s is a member already.")
        else:
            text = _("%(name)s is deactivated already.")
        messages.info(request, text % {"name": member.name})
    else:
        services.member_set_active(member=member, active=active, by=actor)
        if active:
            text = _("%(name)s is a member again and can sign in.")
        else:
            text = _("%(name)s is deactivated: they can no longer sign in. Their tables stay.")
        messages.success(request, text % {"name": member.name})
    return redirect("members:manage")


@login_required
@require_POST
def member_deactivate(request: SignedInRequest, username: str) -> HttpResponse:
    return _set_active(request, username, active=False)


@login_required
@require_POST
def member_reactivate(request: SignedInRequest, username: str) -> HttpResponse:
    return _set_active(request, username, active=True)


@login_required
@require_POST
def member_unlock(request: SignedInRequest, username: str) -> HttpResponse:
    """Clears the member's failed sign-ins, so a lockout ends now."""
    actor = _organiser(request)
    member = _managed(username)
    if services.member_unlock(member=member, by=actor):
        text = _("%(name)s can sign in again: the failed attempts are cleared.")
    else:
        text = _("%(name)s had no failed sign-ins to clear.")
    messages.success(request, text % {"name": member.name})
    return redirect("members:manage")


@login_required
@require_POST
def member_send_link(request: SignedInRequest, username: str) -> HttpResponse:
    """E-mails again the invitation's link to a member who has no password yet (the first
    link expired or went astray, or the member came from a backup). A member who has a
    password resets it himself."""
    actor = _organiser(request)
    member = _managed(username)
    if not member.is_active:
        messages.error(request, _("%(name)s is deactivated.") % {"name": member.name})
    elif member.has_usable_password():
        messages.error(
            request,
            _("%(name)s has a password already; they can reset it from the sign-in page.")
            % {"name": member.name},
        )
    elif not member.email:
        messages.error(request, _("%(name)s has no e-mail address.") % {"name": member.name})
    else:
        services.password_link_send(member=member, by=actor, site=_site(request))
        messages.success(
            request,
            _("The link to set a password is on its way to %(email)s.") % {"email": member.email},
        )
    return redirect("members:manage")
