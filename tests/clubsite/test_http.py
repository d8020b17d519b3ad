"""The page or its partial, and the partial or a redirect: each decided once, in
``clubsite.http``, by whether htmx sent the request."""

from __future__ import annotations

from typing import Any, cast

import pytest
from django.contrib import messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpResponse
from django.test import RequestFactory, override_settings
from django_htmx.middleware import HtmxDetails

from clubsite.http import HtmxHttpRequest, page_or_partial, partial_or_redirect

PAGE = (
    "<h1>{{ title }}</h1>"
    '{% partialdef region inline %}<p id="region">{{ region }}</p>{% endpartialdef %}'
)
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "OPTIONS": {"loaders": [("django.template.loaders.locmem.Loader", {"page.html": PAGE})]},
    }
]


def _request(*, htmx: bool, method: str = "get") -> HtmxHttpRequest:
    headers = {"HX-Request": "true"} if htmx else {}
    request = getattr(RequestFactory(), method)("/", headers=headers)
    request.htmx = HtmxDetails(request)
    request._messages = CookieStorage(request)
    return cast(HtmxHttpRequest, request)


def _never() -> dict[str, Any]:
    raise AssertionError("built a context nobody renders")


@override_settings(TEMPLATES=TEMPLATES)
def test_a_plain_request_gets_the_page_and_htmx_its_partial() -> None:
    context = {"title": "Tables", "region": "four players"}
    page = page_or_partial(_request(htmx=False), "page.html#region", context)
    assert page.content.decode() == '<h1>Tables</h1><p id="region">four players</p>'
    partial = page_or_partial(_request(htmx=True), "page.html#region", context, status=409)
    assert partial.content.decode() == '<p id="region">four players</p>'
    assert partial.status_code == 409
    assert "HX-Retarget" not in partial


@override_settings(TEMPLATES=TEMPLATES)
def test_each_context_is_built_only_for_its_answer() -> None:
    page = page_or_partial(
        _request(htmx=False), "page.html#region", _never, page=lambda: {"title": "All"}
    )
    assert "<h1>All</h1>" in page.content.decode()
    partial = page_or_partial(
        _request(htmx=True),
        "page.html#region",
        lambda: {"region": "only this"},
        page=_never,
        retarget_to="#region",
    )
    assert partial.content.decode() == '<p id="region">only this</p>'
    assert partial["HX-Retarget"] == "#region"


def test_a_template_without_its_partial_is_a_mistake() -> None:
    with pytest.raises(ValueError, match="names no partial"):
        page_or_partial(_request(htmx=True), "page.html", {})


def test_htmx_gets_the_redrawn_partial_and_a_plain_post_the_message_and_a_redirect() -> None:
    redrawn = HttpResponse("the sheet")
    request = _request(htmx=True, method="post")
    assert partial_or_redirect(request, lambda: redrawn, "/tables/1/", message="Saved.") is redrawn
    assert list(messages.get_messages(request)) == []

    request = _request(htmx=False, method="post")
    response = partial_or_redirect(
        request,
        lambda: pytest.fail("drew the partial for a plain POST"),
        "/tables/1/",
        message="Refused.",
        level=messages.ERROR,
    )
    assert (response.status_code, response["Location"]) == (302, "/tables/1/")
    [message] = messages.get_messages(request)
    assert (message.level, message.message) == (messages.ERROR, "Refused.")
