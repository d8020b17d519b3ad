"""Security in the running site: the Content Security Policy, CSRF on every write (htmx
included), and the sign-in rate limit (django-axes)."""

from __future__ import annotations

from datetime import timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from axes.models import AccessAttempt
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from members.backends import UNKNOWN_USERNAME_LIMIT
from members.models import Member
from scoring.models import DealRecord, Table
from tests import factories
from tests.factories import HTMX, post_deal

pytestmark = pytest.mark.django_db

FIRST_GAME = {**factories.FIRST_GAME, "revision": "0"}  # the table's first deal


def anna_of(table: Table) -> Member:
    return table.seats.get(position=0).member


# -- Content Security Policy ------------------------------------------------------------------


class Elements(HTMLParser):
    """The start tags of a page, with their attributes, and the open forms around each."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None], int | None]] = []
        self.forms: list[list[dict[str, str | None]]] = []  # each form's <input>s
        self._open: list[int] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form":
            self.forms.append([])
            self._open.append(len(self.forms) - 1)
        form = self._open[-1] if self._open else None
        if tag == "input" and form is not None:
            self.forms[form].append(attributes)
        self.tags.append((tag, attributes, form))

    def handle_endtag(self, tag: str) -> None:
        if tag == "form" and self._open:
            self._open.pop()


def parse(html: str) -> Elements:
    elements = Elements()
    elements.feed(html)
    return elements


def pages(table: Table) -> list[tuple[str, Member | None]]:
    """The pages checked: (URL, who looks at it)."""
    anna = anna_of(table)
    return [
        (reverse("scoring:home"), None),
        (reverse("scoring:table_list"), None),
        (reverse("scoring:table_detail", args=[table.pk]), anna),  # with the deal form
        (reverse("scoring:table_detail", args=[table.pk]), None),
        (reverse("admin:login"), None),
        (reverse("members:login"), None),
    ]


def test_every_page_has_a_strict_policy(table: Table) -> None:
    for url, viewer in pages(table):
        client = Client()
        if viewer is not None:
            client.force_login(viewer)
        response = client.get(url)
        assert response.status_code == 200, url

        policy = response.headers["Content-Security-Policy"]
        directives = {
            name: values
            for name, *values in (part.split() for part in policy.split(";") if part.strip())
        }
        assert "unsafe-inline" not in policy, url
        assert "unsafe-eval" not in policy, url
        assert "*" not in " ".join(v for values in directives.values() for v in values), url
        assert directives["default-src"] == ["'self'"]
        assert directives["object-src"] == ["'none'"]
        assert directives["base-uri"] == ["'none'"]
        assert directives["frame-ancestors"] == ["'none'"]
        assert directives["script-src"] == ["'self'"]

        # The browser would block anything inline, so the page must have none: every
        # script is a file of the site.
        elements = parse(response.content.decode())
        scripts = [attrs for tag, attrs, _ in elements.tags if tag == "script"]
        assert scripts, url
        for attrs in scripts:
            assert attrs.get("src", "").startswith("/static/"), (url, attrs)
            assert "nonce" not in attrs, (url, attrs)
        for tag, attrs, _ in elements.tags:
            assert tag != "style", url
            assert "style" not in attrs, (url, tag, attrs)
            assert not [name for name in attrs if name.startswith(("on", "hx-on"))], (url, tag)
            assert not str(attrs.get("href", "")).startswith("javascript:"), (url, tag)


def test_the_policy_is_the_same_for_every_response(table: Table) -> None:
    # No nonce drawn per response: a page kept whole in the cache (clubsite.pages) is
    # served with the policy it was made under.
    client = Client()
    url = reverse("scoring:table_list")

    first = client.get(url).headers["Content-Security-Policy"]
    second = client.get(url).headers["Content-Security-Policy"]

    assert first == second
    assert "nonce" not in first


def test_pages_may_not_be_framed(table: Table) -> None:
    response = Client().get(reverse("scoring:home"))

    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"


# -- CSRF ----------------------------------------------------------------------------------


def csrf_token(html: str) -> str:
    tokens = {
        attrs.get("value")
        for tag, attrs, _ in parse(html).tags
        if tag == "input" and attrs.get("name") == "csrfmiddlewaretoken"
    }
    assert len(tokens) == 1, tokens
    token = tokens.pop()
    assert token
    return token


def test_a_deal_posted_without_the_token_is_refused(table: Table) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(anna_of(table))
    url = reverse("scoring:deal_create", args=[table.pk])

    assert client.post(url, FIRST_GAME, **HTMX).status_code == 403
    assert client.post(url, FIRST_GAME).status_code == 403
    assert not DealRecord.objects.filter(table=table).exists()


def test_htmx_deal_entry_carries_the_token_from_the_page(table: Table) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(anna_of(table))
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    token = csrf_token(page)

    # htmx posts the form's fields, the hidden csrfmiddlewaretoken among them.
    response = client.post(
        reverse("scoring:deal_create", args=[table.pk]),
        {**FIRST_GAME, "csrfmiddlewaretoken": token},
        **HTMX,
    )

    assert response.status_code == 200
    assert DealRecord.objects.filter(table=table).count() == 1


def test_the_token_in_a_header_is_accepted_too(table: Table) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(anna_of(table))
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()

    response = client.post(
        reverse("scoring:deal_create", args=[table.pk]),
        FIRST_GAME,
        headers={"X-CSRFToken": csrf_token(page)},
        **HTMX,
    )

    assert response.status_code == 200
    assert DealRecord.objects.filter(table=table).count() == 1


def test_every_htmx_write_on_the_table_page_sends_the_token(table: Table) -> None:
    client = Client()
    client.force_login(anna_of(table))
    post_deal(client, table, FIRST_GAME)  # undo shows
    page = client.get(reverse("scoring:table_detail", args=[table.pk])).content.decode()
    elements = parse(page)

    writes = [
        (tag, attrs, form)
        for tag, attrs, form in elements.tags
        if any(f"hx-{verb}" in attrs for verb in ("post", "put", "patch", "delete"))
    ]
    # The deal form (its kind and declarer switch in the page: no write of their own;
    # undo asks first with a GET) and whatever else the table shows.
    assert any(attrs.get("hx-post", "").endswith("/deals/") for _, attrs, _ in writes)
    for tag, attrs, form in writes:
        # htmx sends a form's own fields; another element sends its enclosing form's
        # fields only when told to with hx-include="closest form".
        assert form is not None, (tag, attrs)
        assert tag == "form" or attrs.get("hx-include") == "closest form", (tag, attrs)
        names = {field.get("name") for field in elements.forms[form]}
        assert "csrfmiddlewaretoken" in names, (tag, attrs)


def test_sign_in_without_the_token_is_refused() -> None:
    factories.member("Anna", username="anna")
    client = Client(enforce_csrf_checks=True)

    response = client.post(reverse("members:login"), {"username": "anna", "password": "pw"})

    assert response.status_code == 403
    assert "_auth_user_id" not in client.session


def test_sign_in_with_the_token_from_the_page_works() -> None:
    factories.member("Anna", username="anna")
    client = Client(enforce_csrf_checks=True)
    token = csrf_token(client.get(reverse("members:login")).content.decode())

    response = client.post(
        reverse("members:login"),
        {"username": "anna", "password": "pw", "csrfmiddlewaretoken": token},
    )

    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(Member.objects.get(username="anna").pk)


# -- sign-in rate limit (django-axes) ---------------------------------------------------------


def sign_in(client: Client, username: str, password: str, **extra: Any) -> Any:
    return client.post(
        reverse("members:login"), {"username": username, "password": password}, **extra
    )


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_the_sixth_attempt_is_refused_even_with_the_right_password() -> None:
    factories.member("Anna", username="anna")
    client = Client(headers={"accept-language": "en"})

    for _ in range(4):
        response = sign_in(client, "anna", "wrong")
        assert response.status_code == 200  # the form again, with its error
        assert "Please enter a correct username and password" in response.content.decode()
    fifth = sign_in(client, "anna", "wrong")
    sixth = sign_in(client, "anna", "pw")

    assert fifth.status_code == 429
    assert sixth.status_code == 429
    assert not signed_in(client)
    page = sixth.content.decode()
    assert "Too many sign-in attempts" in page
    assert "Try again in 15 minutes" in page
    assert "Content-Security-Policy" in sixth.headers  # a normal page of the site
    # The admin's sign-in goes through the same check.
    admin = client.post(reverse("admin:login"), {"username": "anna", "password": "pw"})
    assert admin.status_code == 429


def test_the_lock_is_for_that_username_from_that_address() -> None:
    factories.member("Anna", username="anna")
    factories.member("Boris", username="boris")
    attacker = Client()
    for _ in range(5):
        sign_in(attacker, "anna", "wrong")

    # Another member signs in from the same address …
    assert sign_in(attacker, "boris", "pw").status_code == 302
    # … and Anna herself from her own.
    anna = Client()
    assert sign_in(anna, "anna", "pw", REMOTE_ADDR="192.0.2.7").status_code == 302
    assert signed_in(anna)


def test_the_lock_ends_after_fifteen_minutes() -> None:
    factories.member("Anna", username="anna")
    client = Client()
    for _ in range(5):
        sign_in(client, "anna", "wrong")
    assert sign_in(client, "anna", "pw").status_code == 429

    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=15, seconds=1))

    assert sign_in(client, "anna", "pw").status_code == 302
    assert signed_in(client)


def test_a_successful_sign_in_clears_the_failures() -> None:
    factories.member("Anna", username="anna")
    client = Client()
    for _ in range(4):
        sign_in(client, "anna", "wrong")
    assert sign_in(client, "anna", "pw").status_code == 302

    for _ in range(4):
        assert sign_in(Client(), "anna", "wrong").status_code == 200
    assert sign_in(Client(), "anna", "pw").status_code == 302


def test_force_login_is_untouched_by_the_rate_limit(table: Table) -> None:
    anna = anna_of(table)
    for _ in range(6):
        sign_in(Client(), anna.username, "wrong")

    client = Client()
    client.force_login(anna)  # tests sign in without a password: no check applies

    response = client.get(reverse("scoring:table_detail", args=[table.pk]))
    assert response.status_code == 200
    # The request's user, not a template's context: the table page is kept, made as a
    # visitor sees it, with her own parts filled in (clubsite/pages.py).
    assert response.wsgi_request.user == anna
    assert 'id="deal-form"' in response.content.decode()


def test_behind_a_proxy_the_lock_follows_the_forwarded_address(settings: Any) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    settings.TRUSTED_PROXIES = ["10.0.0.0/8"]
    factories.member("Anna", username="anna")
    proxy = {"REMOTE_ADDR": "10.0.0.1"}  # every request arrives from the proxy
    # The client's own entries (left) are not trusted: only what the proxy appended.
    attacker = {**proxy, "HTTP_X_FORWARDED_FOR": "1.2.3.4, 203.0.113.9"}
    for _ in range(5):
        sign_in(Client(), "anna", "wrong", **attacker)
    spoofed = {**proxy, "HTTP_X_FORWARDED_FOR": "198.51.100.1, 203.0.113.9"}
    assert sign_in(Client(), "anna", "pw", **spoofed).status_code == 429

    member = {**proxy, "HTTP_X_FORWARDED_FOR": "198.51.100.20"}
    assert sign_in(Client(), "anna", "pw", **member).status_code == 302


def test_a_client_that_is_no_proxy_cannot_name_its_address(settings: Any) -> None:
    """gunicorn reached directly, with DJANGO_TRUSTED_PROXY_COUNT=1: the client wrote a new
    X-Forwarded-For at every guess and was never locked out. Only a request from one of
    TRUSTED_PROXIES (the loopback by default) has its header read."""
    settings.TRUSTED_PROXY_COUNT = 1
    factories.member("Anna", username="anna")
    direct = {"REMOTE_ADDR": "203.0.113.5"}
    for n in range(5):
        sign_in(Client(), "anna", "wrong", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}", **direct)

    rotated = {"HTTP_X_FORWARDED_FOR": "192.0.2.1", **direct}
    assert sign_in(Client(), "anna", "pw", **rotated).status_code == 429
    # nginx on the same machine still passes the member's own address on.
    local = {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": "192.0.2.1"}
    assert sign_in(Client(), "anna", "pw", **local).status_code == 302


def test_without_trusted_proxies_the_forwarded_header_is_ignored() -> None:
    factories.member("Anna", username="anna")
    for n in range(5):
        sign_in(Client(), "anna", "wrong", HTTP_X_FORWARDED_FOR=f"198.51.100.{n}")

    assert sign_in(Client(), "anna", "pw", HTTP_X_FORWARDED_FOR="192.0.2.1").status_code == 429


def test_an_overlong_username_is_counted_not_an_error() -> None:
    factories.member("Anna", username="anna")
    client = Client()
    typed = "x" * 5000  # the sign-in form does not limit it; axes' column holds 255

    for _ in range(5):
        assert sign_in(client, typed, "wrong").status_code in {200, 429}

    assert AccessAttempt.objects.get().username == "x" * 255
    assert sign_in(client, typed, "wrong").status_code == 429
    assert sign_in(client, "anna", "pw").status_code == 302


def test_guesses_at_usernames_nobody_has_are_limited_per_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """django-axes counts per username and address, so random usernames were never
    locked out, and each cost a password hash (0.68 CPU-s in production). After
    UNKNOWN_USERNAME_LIMIT of them an address is refused for every username, before any
    hashing; other addresses are not affected."""
    factories.member("Anna", username="anna")
    attacker = {"REMOTE_ADDR": "203.0.113.5"}
    for n in range(UNKNOWN_USERNAME_LIMIT):
        assert sign_in(Client(), f"nobody{n}", "wrong", **attacker).status_code == 200
    hashed: list[str] = []
    for name in ("set_password", "check_password"):
        original = getattr(Member, name)
        monkeypatch.setattr(
            Member,
            name,
            lambda self, raw, _original=original, _name=name: (
                hashed.append(_name) or _original(self, raw)
            ),
        )

    refused = sign_in(Client(headers={"accept-language": "en"}), "nobody-else", "x", **attacker)
    member = sign_in(Client(), "anna", "pw", **attacker)

    assert (refused.status_code, member.status_code) == (429, 429)
    assert "came from this address" in refused.content.decode()
    assert hashed == []  # refused before any password was hashed
    elsewhere = Client()
    assert sign_in(elsewhere, "anna", "pw", REMOTE_ADDR="192.0.2.7").status_code == 302
    assert signed_in(elsewhere)


def test_a_paused_address_is_refused_before_any_query_in_its_language(
    django_assert_num_queries: Any,
) -> None:
    """A flood from a paused address costs a cache read a sign-in, not a page: no query, no
    form, no lockout page drawn (members.middleware), in the site's and the admin's
    sign-in alike; the page says when to try again, in the visitor's language."""
    attacker = {"REMOTE_ADDR": "203.0.113.9"}
    for n in range(UNKNOWN_USERNAME_LIMIT):
        sign_in(Client(), f"nobody{n}", "wrong", **attacker)

    with django_assert_num_queries(0):
        russian = sign_in(Client(headers={"accept-language": "ru"}), "x", "y", **attacker)
        admin = Client(headers={"accept-language": "en"}).post(
            reverse("admin:login"), {"username": "x", "password": "y"}, **attacker
        )

    assert (russian.status_code, admin.status_code) == (429, 429)
    assert russian["Retry-After"] == "900"
    assert "Попробуйте снова через 15 мин." in russian.content.decode()
    assert "came from this address" in admin.content.decode()
