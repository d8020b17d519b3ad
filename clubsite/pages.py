"""Pages kept whole in the cache, and filled in for each request with what is his own.

A page of the standings, a profile or a table is the same for everyone but for a few parts:
the header's name and "Sign out" (with its CSRF token), the admin link, the "Me" tab, the
messages, and on some pages his own buttons or balance. Each such part is marked in the
template (``{% own name %}…{% endown %}``, ``clubsite/templatetags/pages.py``). The rest
is made once, as a visitor who is not signed in sees it, and kept under the version of
what it shows (a table's revision, the standings stamp: a new one is a new key, so a kept
page never outlives what it was made from), the language, and the address it answers (its
header's links carry it); each part marked is left in it as a mark. Every request, a
visitor's or a member's, takes that same kept page and has the marks filled in for it
(``fill``): a few small partials, rendered for him.

The spectators of a table and the readers of the standings are the many; this is what
makes each of their requests, and a member's, cost about what an idle live poll does
(docs/performance.md).
"""

from __future__ import annotations

import hashlib
import io
import re
import uuid
from collections.abc import Callable, Iterable, Mapping
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages import get_messages
from django.core.cache import cache
from django.core.handlers.base import BaseHandler
from django.core.handlers.wsgi import WSGIRequest
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.tasks import task
from django.template import engines
from django.template.context import make_context
from django.utils import translation
from django.utils.translation import get_language

PAGE_SECONDS = 60
"""How long a kept page lives at most. Its key names the version of its content; the
header's club name is not in it (an organiser may rename the club in the admin), and shows
on kept pages within this time."""

type Version = Callable[..., str | None]
"""What a page shows, as a version string, from the view's arguments (a query at most);
None when there is no such thing to show (the view answers, a 404 say)."""

type Own = Callable[..., Mapping[str, Any]]
"""What the parts of a page that are his own need besides what every page's template gets
(his user, messages, CSRF token), from the request and the view's arguments."""

type Rights = Callable[..., str | None]
"""What a signed-in member may do on a page, as a string, from the request and the view's
arguments: members with the same rights are shown the same parts, but for their person's
(``PERSON``). None where his parts show more of him than his rights (the page's own parts
are then rendered for him)."""

PERSON = b"base.html#"
"""The parts of the frame every page shares (``base.html``) are a person's: his name, Sign
out and its token, the admin link, the "Me" tab, his messages. A page's own parts show what
his rights let him do there, besides a token and a write key (``TOKEN``, ``KEY``)."""

TOKEN, KEY = b"request#token", b"request#key"
"""Marks in a page kept for those with the same rights: the request's CSRF token, and a
fresh write key, one per form (each write form drawn gets a key of its own)."""

_SHARED = "_page_shared"
"""Set on a request while the page kept for everyone is made from it."""

_MARK = re.compile(rb"<!--own:([\w./-]+#[\w-]+)-->")

type Kept = tuple[bytes, ...]
"""A kept page as its bytes split at its marks: the text before the first mark, the first
mark's part name, the text after it, and so on. Split once when it is made, the page is
filled by joining (no search through a 100 KB page per request), and kept as bytes, which
the cache reads and the response sends without decoding and encoding it again."""

WARMING = "clubsite.warming"
"""In the environ of the requests ``warm`` makes pages with: they make them."""

FORMAT = "b"
"""In every key: a deploy that changes what is kept under a key changes it too."""


def own_mark(name: str) -> str:
    """The mark left in a kept page where the part ``name`` (``"base.html#account"``) goes."""
    return f"<!--own:{name}-->"


def is_shared(request: HttpRequest | None) -> bool:
    """Whether ``request`` is making the page kept for everyone (its own parts are marks)."""
    return request is not None and getattr(request, _SHARED, False)


def kept_page(
    version: Version,
    own: Own | None = None,
    *,
    members: bool = True,
    last_while_made: bool = False,
    rights: Rights | None = None,
) -> Callable[[Callable[..., HttpResponse]], Any]:
    """The view's page kept under ``version`` of what it shows, filled in for each request
    with his own parts (``own`` gives what they need). ``members=False``: a signed-in
    member's page is made for him whole (the table pages: a scorer's form, his buttons).
    ``last_while_made``: a page that takes long to make (a board, a profile) is made by the
    task worker, where one runs, and until it is, each reader gets the last page made at
    the address (``_last_made``). ``rights``: a signed-in member's page is the kept page with
    its own parts filled in as for everyone with his rights, kept too, and then his
    person's parts (``_kept_for_rights``).

    The kept page is the view's answer to a visitor who is not signed in, with every
    ``{% own %}`` part a mark; only a complete HTML page (200) that sets no cookie and used
    no CSRF token is kept, else the view answers this request itself. An htmx request asks
    for a region of the page (``clubsite.http.page_or_partial``), under the same address:
    the view answers it itself, and its answer is never kept as the page."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if (
                request.method not in ("GET", "HEAD")
                or getattr(request, "htmx", False)
                or (not members and request.user.is_authenticated)
            ):
                return view(request, *args, **kwargs)
            made_from = version(request, *args, **kwargs)
            if made_from is None:
                return view(request, *args, **kwargs)
            address = request.build_absolute_uri()
            key = page_key(address, made_from, get_language())
            if rights is not None and own is not None and _plain_member(request):
                may = rights(request, *args, **kwargs)
                if may is not None:
                    page = _kept_for_rights(view, request, key, may, own, args, kwargs)
                    if page is not None:
                        return HttpResponse(fill(page, request, {}))
            # A visitor's own parts are every visitor's (no name, no token): his page
            # filled in is kept too, beside the page it was filled from.
            visitor = _plain_visitor(request)
            if visitor and (filled := cache.get(visitor_key(key))) is not None:
                return HttpResponse(filled)
            kept: Kept | None = cache.get(key)
            last = False  # the page is this version's
            if kept is None and last_while_made and WARMING not in request.META:
                kept = _last_made(request, address, key)
                last = kept is not None
            if kept is None:
                kept = _made_and_kept(view, request, key, args, kwargs)
                if kept is None:
                    return view(request, *args, **kwargs)
                if last_while_made:
                    cache.set(last_made_key(address), key, PAGE_SECONDS)
            parts = own(request, *args, **kwargs) if own is not None else {}
            filled = fill(kept, request, parts)
            if visitor and not last:  # the last page is not this version's
                cache.set(visitor_key(key), filled, PAGE_SECONDS)
            return HttpResponse(filled)

        return wrapped

    return decorator


def _last_made(request: HttpRequest, address: str, key: str) -> Kept | None:
    """The last page made at ``address``, this request's, when the page of the version now
    (``key``) is not made yet and the task worker is asked to make it (the first reader
    to come asks): a board took ×100 the bare view to make, and after a finish every
    reader came for it at once (docs/performance.md). None where no worker runs (each
    request would wait for the task), or when no page made in the last ``PAGE_SECONDS``
    is kept: the reader makes it. So a reader is shown what the page showed a moment
    ago, for as long as the worker takes (seconds), and never a page older than
    ``PAGE_SECONDS``."""
    if not pages_made_task.get_backend().supports_defer:
        return None
    last = cache.get(last_made_key(address))
    kept: Kept | None = cache.get(last) if last is not None and last != key else None
    if kept is not None and cache.add(making_key(key), True, PAGE_SECONDS):
        pages_made_task.enqueue([request.get_full_path()])
    return kept


def _kept_for_rights(
    view: Callable[..., HttpResponse],
    request: HttpRequest,
    key: str,
    may: str,
    own: Own,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Kept | None:
    """The page kept under ``key`` with its own parts filled in for those who ``may`` what
    this request's member may, and his person's parts left marks (``PERSON``), as are the
    token and the write keys in his parts; kept beside it. A scorer's form and sheet took
    half of his table page's time to fill in, for each request (docs/performance.md)."""
    rights_key = f"{key}:rights:{may}"
    page: Kept | None = cache.get(rights_key)
    if page is not None:
        return page
    kept = cache.get(key) or _made_and_kept(view, request, key, args, kwargs)
    if kept is None:
        return None
    # Stand-ins put where the token and each key go, then made marks.
    token, write_key = _stand_in("token"), _stand_in("key")
    stand_ins = {"csrf_token": token, "new_key": lambda: write_key}
    filled = fill(kept, request, own(request, *args, **kwargs), stand_ins, skip=PERSON)
    filled = filled.replace(token.encode(), own_mark(TOKEN.decode()).encode())
    filled = filled.replace(write_key.encode(), own_mark(KEY.decode()).encode())
    page = tuple(_MARK.split(filled))
    cache.set(rights_key, page, PAGE_SECONDS)
    return page


def _stand_in(name: str) -> str:
    """A text no page holds (``name`` and a random hex), rendered where a person's own value
    goes and replaced afterwards."""
    return f"{name}{uuid.uuid4().hex}"


def _made_and_kept(
    view: Callable[..., HttpResponse],
    request: HttpRequest,
    key: str,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> Kept | None:
    """The page made for everyone (``_made_for_everyone``), kept under ``key``."""
    kept = _made_for_everyone(view, request, *args, **kwargs)
    if kept is not None:
        cache.set(key, kept, PAGE_SECONDS)
    return kept


def _plain_member(request: HttpRequest) -> bool:
    """Whether ``request`` is a signed-in member's with no message waiting."""
    return request.user.is_authenticated and not len(get_messages(request))


def _plain_visitor(request: HttpRequest) -> bool:
    """Whether ``request`` is a visitor's who is not signed in and has no message waiting."""
    return not request.user.is_authenticated and not len(get_messages(request))


def kept_for_visitors(version: Version) -> Callable[[Callable[..., HttpResponse]], Any]:
    """``kept_page`` for visitors only: a signed-in member's page is made for him whole."""
    return kept_page(version, members=False)


def _made_for_everyone(
    view: Callable[..., HttpResponse], request: HttpRequest, *args: Any, **kwargs: Any
) -> Kept | None:
    """The view's page as a visitor who is not signed in sees it, its own parts marks; None
    if it is not to be kept."""
    user = request.user
    csrf_used = request.META.get("CSRF_COOKIE_NEEDS_UPDATE", False)
    request.META["CSRF_COOKIE_NEEDS_UPDATE"] = False
    request.user = AnonymousUser()
    setattr(request, _SHARED, True)
    try:
        response = view(request, *args, **kwargs)
    finally:
        request.user = user
        delattr(request, _SHARED)
        # A CSRF token in the kept page would be everyone's: such a page is not kept.
        took_token = request.META["CSRF_COOKIE_NEEDS_UPDATE"]
        request.META["CSRF_COOKIE_NEEDS_UPDATE"] = csrf_used or took_token
    if took_token or not _keepable(response):
        return None
    return tuple(_MARK.split(response.content))


def fill(
    page: Kept,
    request: HttpRequest,
    own: Mapping[str, Any],
    over: Mapping[str, Any] | None = None,
    *,
    skip: bytes | None = None,
) -> bytes:
    """``page`` with each mark replaced by its part rendered for ``request`` (with the
    context processors' context, as the page was, ``own``, and ``over`` above all), but
    the marks of the parts whose names start with ``skip``, left as they are."""
    names = {name for name in page[1::2] if not (skip and name.startswith(skip))}
    parts = {name: own_mark(name.decode()).encode() for name in set(page[1::2]) - names}
    over = dict(over or {})
    frame = {name for name in names if name.startswith(PERSON)} if _plain_member(request) else set()
    if TOKEN in names or frame:  # one token on the page, as a page rendered whole has
        over["csrf_token"] = get_token(request)
        parts[TOKEN] = over["csrf_token"].encode()
    if frame:
        parts |= _frame(request, frame, parts[TOKEN])
    parts |= _rendered(names - frame - {TOKEN, KEY}, request, own, over)
    page_parts = list(page)
    page_parts[1::2] = [
        str(uuid.uuid4()).encode() if name == KEY and KEY in names else parts[name]
        for name in page[1::2]
    ]
    return b"".join(page_parts)


def _rendered(
    names: set[bytes], request: HttpRequest, own: Mapping[str, Any], over: Mapping[str, Any]
) -> dict[bytes, bytes]:
    """The parts ``names`` rendered for ``request``, as ``fill`` renders them."""
    templates = {name: _part(name) for name in names}
    if not templates:
        return {}
    context = make_context(dict(own), request)
    # One context for every part: the context processors run once.
    with context.bind_template(next(iter(templates.values()))):
        context.update(dict(over))
        return {name: template.render(context).encode() for name, template in templates.items()}


_FRAMES: dict[tuple[Any, ...], dict[bytes, list[bytes]]] = {}
"""The frame's parts as made for each person (``_person``) in this process, split at his
token; emptied when it holds ``FRAMES_KEPT``."""

FRAMES_KEPT = 1_000


def _frame(request: HttpRequest, names: set[bytes], token: bytes) -> dict[bytes, bytes]:
    """The frame's parts ``names`` (``PERSON``) for the plain member of ``request``, with
    ``token`` in them: made once for each person (``_person``) this process serves, held
    in its memory. Rendering them took a seventh to a fifth of a member's kept page in
    process (docs/performance.md), and they are the same on every page he opens, but for
    his token. His person is all they show, so they are never older than he is (a new
    name is a new person)."""
    key = (_person(request), frozenset(names))
    made = _FRAMES.get(key)
    if made is None:
        stand_in = _stand_in("token").encode()
        rendered = _rendered(names, request, {}, {"csrf_token": stand_in.decode()})
        made = {name: text.split(stand_in) for name, text in rendered.items()}
        if len(_FRAMES) >= FRAMES_KEPT:
            _FRAMES.clear()
        _FRAMES[key] = made
    return {name: token.join(pieces) for name, pieces in made.items()}


def _person(request: HttpRequest) -> tuple[Any, ...]:
    """All that the frame's parts (``base.html``'s ``{% own %}``) read for a plain member, but
    his token: his name and address, whether the admin is his (``can_use_admin`` reads
    these flags), whether the page is his "Me" tab's, and the language. A part that comes
    to read more of him or of the request has it added here."""
    user: Any = request.user
    match = request.resolver_match
    url_name, username = (match.url_name, match.kwargs.get("username")) if match else (None, None)
    return (
        get_language(),
        user.pk,
        user.username,
        user.name,
        user.is_active,
        user.is_staff,
        bool(getattr(user, "is_organiser", False)),
        url_name,
        username == user.username,
    )


def _part(name: bytes) -> Any:
    return engines["django"].engine.get_template(name.decode())  # type: ignore[attr-defined]


def page_key(address: str, made_from: str, language: str) -> str:
    """The key of the page at ``address`` (absolute: the page's share link is) made from
    ``made_from`` in ``language``."""
    return f"page:{FORMAT}:{made_from}:{language}:{_digest(address)}"


def _digest(address: str) -> str:
    """``address`` in a key: of a length that does not grow with the address."""
    return hashlib.sha256(address.encode()).hexdigest()


def visitor_key(key: str) -> str:
    """The key of the page kept under ``key`` as it is filled in for a visitor."""
    return f"{key}:visitor"


def last_made_key(address: str) -> str:
    """The key of the key of the last page made at ``address`` in the active language."""
    return f"page-last:{FORMAT}:{get_language()}:{_digest(address)}"


def making_key(key: str) -> str:
    """The key saying the task worker has been asked to make the page kept under ``key``."""
    return f"{key}:making"


def _keepable(response: HttpResponse) -> bool:
    return (
        response.status_code == 200
        and not response.streaming
        and not response.cookies
        and response.get("Content-Type", "").startswith("text/html")
    )


@task
def pages_made_task(paths: list[str]) -> int:
    """``warm``, by the task worker."""
    return warm(paths)


def warm(paths: Iterable[str]) -> int:
    """The pages at ``paths`` (``/standings/preferans/?sort=games``) made and kept now, in
    each of the site's languages, as a visitor who opens them at ``SITE_URL`` would have
    them made: so that after a change the task worker, not the first reader, pays for
    making them. Goes through the site's middleware as a request does (the key and the page
    name the address); sends no request signal (the task's database connection is left as
    it is). Returns how many answers were kept pages (200)."""
    handler = BaseHandler()
    handler.load_middleware()
    made = 0
    # Each request's LocaleMiddleware activates its language in this thread, and nothing
    # puts it back: the worker's next task would speak the last page's.
    with translation.override(translation.get_language()):
        for path in paths:
            for language, _name in settings.LANGUAGES:
                response = handler.get_response(WSGIRequest(_environ(path, language)))
                made += response.status_code == 200
    return made


def _environ(path: str, language: str) -> dict[str, Any]:
    """A visitor's GET of ``path`` at ``SITE_URL`` in ``language``, as a WSGI server hands
    it to the site."""
    site = urlsplit(settings.SITE_URL)
    secure = site.scheme == "https"
    path, _, query = path.partition("?")
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SCRIPT_NAME": "",
        "SERVER_NAME": site.hostname or "localhost",
        "SERVER_PORT": str(site.port or (443 if secure else 80)),
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": site.netloc,
        "HTTP_ACCEPT_LANGUAGE": language,
        "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": site.scheme or "http",
        "wsgi.input": io.BytesIO(),
        "wsgi.errors": io.StringIO(),
        WARMING: True,
    }
    if secure:  # as the proxy in front of the site says it (SECURE_PROXY_SSL_HEADER)
        environ["HTTP_X_FORWARDED_PROTO"] = "https"
    return environ
