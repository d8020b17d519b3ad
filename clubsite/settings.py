"""Settings for the club site, read only from environment variables.

With nothing set, this is the local quick start: DEBUG on, SQLite in ``db.sqlite3``.
Production sets at least ``DJANGO_DEBUG=0``, ``DJANGO_SECRET_KEY``,
``DJANGO_ALLOWED_HOSTS`` and ``DATABASE_URL`` (``postgres://user:pass@host:5432/name``).
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_bool(name: str, *, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {raw!r}.")


def env_int(name: str, *, default: int) -> int:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}.") from None


def env_list(name: str, *, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


# Core

DEBUG = env_bool("DJANGO_DEBUG", default=True)

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off.")
    # Only ever used with DEBUG on, on a developer's machine.
    SECRET_KEY = "django-insecure-local-quick-start-only-never-use-in-production"  # noqa: S105

ALLOWED_HOSTS = env_list(
    "DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1"] if DEBUG else []
)
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.forms",
    "django_htmx",
    "axes",
    # The database task queue's table and its `db_worker` command (TASKS below).
    "django_tasks_db",
    "members",
    "scoring",
]

AUTH_USER_MODEL = "members.Member"
LOGIN_URL = "members:login"
LOGIN_REDIRECT_URL = "scoring:home"
# A form refused by the CSRF check keeps what was typed and offers to sign in again.
CSRF_FAILURE_VIEW = "clubsite.csrf.csrf_failure"
LOGOUT_REDIRECT_URL = "scoring:home"

# django-axes checks every sign-in first and refuses it while the username is locked out
# from that address; the member backend (Django's ModelBackend, loading a session's member
# with whether he is an organiser) then checks the password.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "members.backends.MemberBackend",
]

MIDDLEWARE = [
    # First: every log line of the request, the other middleware's included, carries its id.
    "clubsite.middleware.RequestIdMiddleware",
    # /healthz answers here, before sessions, CSRF, sign-in, the host check and the https
    # redirect: a load balancer probes the app server's own address over plain http.
    "clubsite.middleware.HealthCheckMiddleware",
    # Whether Pushpin sent the request (its signature, GRIP_URL's key), and the GRIP
    # instructions of an answer to it (hold the stream on these channels): clubsite.events.
    "django_grip.GripMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    # A sign-in from an address paused for guessing usernames: refused before any work.
    "members.middleware.SignInPauseMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "clubsite.viewer.ViewerMiddleware",  # whose pages these are: a shared phone forgets them
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Outside the views and the middleware below, whose 400 and 403 answers it sees.
    "clubsite.middleware.HtmxErrorPageMiddleware",
    # A database outage met by a view answers the "try again" page (503), not a 500.
    "clubsite.middleware.DatabaseUnavailableMiddleware",
    # Last, as django-axes asks: it turns a locked-out sign-in into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "clubsite.urls"
WSGI_APPLICATION = "clubsite.wsgi.application"
ASGI_APPLICATION = "clubsite.asgi.application"

# Widgets are drawn with the project's templates as well as Django's, so a widget can have
# its own (scoring.pages.forms.Segmented: templates/scoring/widgets/segmented.html).
FORM_RENDERER = "django.forms.renderers.TemplatesSetting"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                # ``club``: the club's name and introduction (an organiser edits them).
                "scoring.context_processors.club",
                # ``can_use_admin``: the admin in the menu, for organisers only.
                "scoring.context_processors.admin_link",
            ],
            # ``{% own %}``: a page's parts filled in for each request (clubsite/pages.py).
            "libraries": {"pages": "clubsite.templatetags.pages"},
        },
    },
]

# Database

# The dev server starts a thread per request, so persistent connections only pay off
# under a real application server.
DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DJANGO_CONN_MAX_AGE", default=0 if DEBUG else 60),
        conn_health_checks=True,
    )
}

# PostgreSQL bounds what gunicorn's timeout does not (with threaded workers it never stops
# a slow request, docs/deploy.md): a statement running longer than
# DJANGO_DB_STATEMENT_TIMEOUT seconds is cancelled (the request fails, the worker goes
# on), and an unreachable server is given up after DJANGO_DB_CONNECT_TIMEOUT seconds
# instead of the system's TCP timeout (minutes). 0 turns either off.
#
# With the timeout, no parallel workers for the site's statements: PostgreSQL plans them
# for a scan of a few thousand rows, such as a member's seats, and starting them costs more
# than they save — the reads of a member's page after a finish took 68 ms with them and
# 54 ms without (medians, 100,000 tables, 2 cores) — and they take cores from the other
# requests. Both go as the connection's startup options, which PgBouncer does not pass on
# (docs/deploy.md).
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    if (_connect_timeout := env_int("DJANGO_DB_CONNECT_TIMEOUT", default=5)) > 0:
        _options.setdefault("connect_timeout", _connect_timeout)
    if (_statement_timeout := env_int("DJANGO_DB_STATEMENT_TIMEOUT", default=30)) > 0:
        _server = f"-c statement_timeout={_statement_timeout}s -c max_parallel_workers_per_gather=0"
        _options["options"] = " ".join(filter(None, [_options.get("options"), _server]))

# Connections to PostgreSQL come from a pool in each process (psycopg_pool, through
# Django's OPTIONS["pool"]) when DEBUG is off, or with DJANGO_DB_POOL=1: a request takes a
# connection that is already open and gives it back when it ends, and nothing asks the
# server whether the connection still works (Django's health check was a `SELECT 1` round
# trip per request, about as much as the idle live poll's own query). A connection the
# server closed while it waited in the pool is seen on its socket and replaced before any
# request gets it (clubsite/db.py). DJANGO_DB_POOL_SIZE connections at most per process
# (default 4: one per gunicorn thread, each thread holds one at a time); a request waits
# at most DJANGO_DB_CONNECT_TIMEOUT seconds for one (an unreachable server: then the "try
# again" page). DJANGO_DB_POOL=0 goes back to one persistent connection per thread
# (DJANGO_CONN_MAX_AGE) checked with a query at each request's first use.
#
# After an outage the site must serve again within seconds of the database's return. The
# pool replaces a lost connection in the background, waiting 1, 2, 4, 8… s between tries:
# after a 30 s outage its next try could be half a minute away, each request meanwhile
# waiting its timeout for a connection that is not coming. ``reconnect_timeout`` makes it
# give such a replacement up after 2 s (tries at 0, 1 and 2 s); the next request that
# finds no connection then asks for one at once.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
    "DJANGO_DB_POOL", default=not DEBUG
):
    from clubsite.db import WatchedConnection, unbroken

    DATABASES["default"]["CONN_MAX_AGE"] = 0  # Django refuses a pool with persistent ones
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = False  # the pool checks (``unbroken``)
    DATABASES["default"]["OPTIONS"]["pool"] = {
        "min_size": 1,
        "max_size": env_int("DJANGO_DB_POOL_SIZE", default=4),
        "timeout": env_int("DJANGO_DB_CONNECT_TIMEOUT", default=5) or 30,
        "check": unbroken,
        "reconnect_timeout": 2,
        # Tells the breaker in front of the pool whether the database can be reached: while
        # it cannot, requests are answered 503 at once (clubsite/db.py, ``Outage``).
        "connection_class": WatchedConnection,
    }

# SQLite (the quick start's database) lets one writer in at a time. A transaction that
# began as a reader and then writes fails at once ("database is locked": two scorers saving
# at the same moment got a 500 nineteen times in twenty); begun IMMEDIATE, every atomic
# block takes the write lock first and waits its turn, up to ``timeout`` seconds.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    _options = DATABASES["default"].setdefault("OPTIONS", {})
    _options.setdefault("transaction_mode", "IMMEDIATE")
    _options.setdefault("timeout", 20)

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# What is derived from a table revision (the drawn sheet, the rendered sheet region and
# history, the sheet's picture; scoring/live/) is kept in Django's cache under keys that
# carry the database's epoch and the revision, so nothing can go stale.
#
# With REDIS_URL (redis://host:6379/0) the cache is one Redis that every app server shares
# (Django's own Redis backend): a revision's sheet is rendered once for all of them.
# DJANGO_CACHE_KEY_PREFIX tells two sites sharing one Redis database apart. Redis keeps
# each entry a day at most; give it a memory limit and `maxmemory-policy allkeys-lru`
# (docs/deploy.md), as old revisions are never asked for again.
#
# Without it each process keeps its own (local memory), and a process that misses simply
# works the revision out again. Old revisions fall out first (least recently used); 500
# entries of at most ~40 kB bound the memory per process. A table's revision itself is
# then never kept (scoring.live.revisions): another process's write would not move it, so
# each poll reads it from the database (one query, at most once a second per process).
REDIS_URL = os.environ.get("REDIS_URL", "").strip()

# Pushed updates (docs/deploy-by-hand.md, "Pushed updates: Pushpin"): a viewer's page holds a
# stream (Server-Sent Events) open at Pushpin, which asked an app server once which
# channels it listens on (django-eventstream, over GRIP: the app servers stay synchronous
# and hold no connection); when a table's revision moves, the app server that committed
# it publishes to Pushpin (scoring.live.push), and every page on the table's channel
# fetches its changed regions. GRIP_URL is Pushpin's publish address with the key it signs
# its requests with: http://127.0.0.1:5561?key=…&verify-iss=pushpin. Without it
# nothing is published and /events/ answers 204, which tells a page to go on polling.
GRIP_URL = os.environ.get("GRIP_URL", "").strip()
if REDIS_URL:
    CACHES = {
        "default": {
            # Django's Redis backend, with a Redis that does not answer taken as a miss
            # (clubsite/cache.py): the pages are then made from the database, slower.
            "BACKEND": "clubsite.cache.FailSoftRedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("DJANGO_CACHE_KEY_PREFIX", "clubsite").strip(),
            "OPTIONS": {
                # An unreachable Redis is given up within half a second (and then left
                # alone for two: clubsite/cache.py) rather than holding a worker thread for
                # the system's TCP timeout.
                "socket_connect_timeout": 0.5,
                "socket_timeout": 1,
            },
        }
    }
    # A signed-in member's session read from Redis, not the database: each of his requests
    # is one query fewer (his session is still written to the database, which keeps it
    # when Redis is flushed or does not answer).
    SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 500},
        }
    }

# Background tasks (Django's tasks framework): work that need not hold up a request, the
# ratings after a finish (scoring/services/ratings.py) among it. By default each task runs
# at once, inside the call that enqueues it, so the quick start, `make run` and the tests
# need no worker. DJANGO_TASKS=database stores tasks in the database (django-tasks-db),
# where `manage.py db_worker` runs them: production does that (docs/deploy.md).
_tasks = os.environ.get("DJANGO_TASKS", "immediate").strip().lower() or "immediate"
_TASK_BACKENDS = {
    "immediate": "django.tasks.backends.immediate.ImmediateBackend",
    "database": "django_tasks_db.DatabaseBackend",
}
if _tasks not in _TASK_BACKENDS:
    raise ImproperlyConfigured(f"DJANGO_TASKS must be immediate or database, not {_tasks!r}.")
TASKS = {"default": {"BACKEND": _TASK_BACKENDS[_tasks]}}

# Passwords

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Internationalisation: Russian first, English second.

LANGUAGE_CODE = "ru"
LANGUAGES = [("ru", "Русский"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = os.environ.get("DJANGO_TIME_ZONE", "Europe/Moscow")
USE_TZ = True

# Static files: WhiteNoise serves them; hashed and compressed once DEBUG is off
# (which needs `manage.py collectstatic` at deploy time).

STATIC_URL = "static/"
# Where `collectstatic` puts the files WhiteNoise serves once DEBUG is off.
STATIC_ROOT = Path(os.environ.get("DJANGO_STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        ),
    },
}
# Fixed when settings load, so a test run (which flips DEBUG off at runtime) serves static
# files the way the quick start does instead of looking for a collected STATIC_ROOT.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# The fonts the sheet's PNG picture is drawn with (scoring/share.py): Debian's
# fonts-dejavu-core puts them here; `manage.py check` warns when they are missing.
SHEET_FONT_DIR = Path(os.environ.get("DJANGO_SHEET_FONT_DIR") or "/usr/share/fonts/truetype/dejavu")
# How many sheet pictures are drawn at once, by all the app servers sharing the cache (each
# process alone without REDIS_URL); the others wait 0.25 s, then get a 503 (docs/deploy.md).
CLUB_PICTURE_RENDERS = env_int("CLUB_PICTURE_RENDERS", default=1)
# How many tables a member (not an organiser) may open, and game records import, in an
# hour; 0: no limit (scoring/services/limits.py, docs/deploy.md).
CLUB_TABLES_PER_HOUR = env_int("CLUB_TABLES_PER_HOUR", default=20)
CLUB_IMPORTS_PER_HOUR = env_int("CLUB_IMPORTS_PER_HOUR", default=10)

# Content Security Policy (Django 6 built-in). Strict from day one: no inline script or
# style, no eval. Scripts come only from this site's own files ('self'); no nonce: the site
# has no inline script for one to allow, and a nonce drawn per response would make every
# page differ from the next, which a page kept whole in the cache cannot
# (``clubsite.pages``).

SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}

X_FRAME_OPTIONS = "DENY"

# Cookies: the session cookie is never readable by scripts; SameSite=Lax keeps it off
# cross-site POSTs (CSRF protection checks those as well).

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"

# HTTPS and cookies once DEBUG is off.

if not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    # Secure cookies travel over HTTPS only. DJANGO_SECURE_COOKIES=0 is for trying a
    # production build over plain http on one's own machine (`make serve-prod`), never
    # for a real deployment: `check --deploy` warns about it.
    SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", default=True)
    CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
    SECURE_HSTS_SECONDS = env_int("DJANGO_SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env_bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
    # Behind a TLS-terminating proxy the app sees plain HTTP; trust the proxy's header
    # only when told to, or SSL redirects loop forever.
    if env_bool("DJANGO_TRUST_X_FORWARDED_PROTO", default=False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# Sign-in rate limit (django-axes): five failed attempts for one username from one
# address lock that pair out for 15 minutes; a successful sign-in clears the count.
# Attempts are kept in the database, so every app server behind a load balancer sees them.

AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "axes_lockout.html"

# Behind reverse proxies REMOTE_ADDR is the nearest proxy's, the same for everyone: the
# lock would then be per username, and anyone could lock a member out. With
# DJANGO_TRUSTED_PROXY_COUNT=N the client's address is the one the outermost of the N
# proxies appended to X-Forwarded-For (entries further left are the client's own say) —
# but only for a request that came from a proxy, one of DJANGO_TRUSTED_PROXIES (addresses
# or networks; the loopback by default, as gunicorn's FORWARDED_ALLOW_IPS; a Unix socket's
# empty address counts as local). A client reaching gunicorn directly (its port open to
# the network) would otherwise name a new address in the header at every guess.
TRUSTED_PROXY_COUNT = env_int("DJANGO_TRUSTED_PROXY_COUNT", default=0)
TRUSTED_PROXIES = env_list("DJANGO_TRUSTED_PROXIES", default=["127.0.0.1", "::1"])


def _from_a_proxy(address: str, proxies: list[str]) -> bool:
    import ipaddress

    if not address:  # a Unix socket: only the machine's own processes connect
        return True
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def client_ip(request: object) -> str | None:
    """The sign-in's client address for django-axes, given TRUSTED_PROXY_COUNT and
    TRUSTED_PROXIES."""
    from django.conf import settings  # the live value (tests override it)

    proxies = settings.TRUSTED_PROXY_COUNT
    meta: dict[str, str] = getattr(request, "META", {})
    remote = meta.get("REMOTE_ADDR")
    if proxies <= 0 or not _from_a_proxy(remote or "", settings.TRUSTED_PROXIES):
        return remote
    forwarded = [part.strip() for part in meta.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    forwarded = [part for part in forwarded if part]
    if proxies <= len(forwarded):
        return forwarded[-proxies]
    return remote


AXES_CLIENT_IP_CALLABLE = client_ip


def axes_username(request: object, credentials: dict[str, object] | None) -> str | None:
    """The username django-axes records, cut to its 255-character column: the sign-in
    forms do not limit what is typed, and a longer one would fail the insert (PostgreSQL)
    and answer 500. Real usernames have at most 150 characters, so none is changed."""
    source = credentials or getattr(request, "POST", {})
    username = source.get("username")
    return None if username is None else str(username)[:255]


AXES_USERNAME_CALLABLE = axes_username

# E-mail (password resets, invitations): Django 6.1's MAILERS. With DJANGO_EMAIL_HOST set,
# SMTP through that server; without it every message is written to the console (stdout),
# so the quick start needs nothing and a developer reads the links there. A production
# site without DJANGO_EMAIL_HOST would write password links into its logs: `check
# --deploy` warns about it (members/checks.py).

_email_host = os.environ.get("DJANGO_EMAIL_HOST", "").strip()
if _email_host:
    _email_security = os.environ.get("DJANGO_EMAIL_SECURITY", "starttls").strip().lower()
    _email_ports = {"starttls": 587, "ssl": 465, "none": 25}
    if _email_security not in _email_ports:
        raise ImproperlyConfigured(
            f"DJANGO_EMAIL_SECURITY must be starttls, ssl or none, not {_email_security!r}."
        )
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": _email_host,
                "port": env_int("DJANGO_EMAIL_PORT", default=_email_ports[_email_security]),
                "username": os.environ.get("DJANGO_EMAIL_USER", ""),
                "password": os.environ.get("DJANGO_EMAIL_PASSWORD", ""),
                "use_tls": _email_security == "starttls",
                "use_ssl": _email_security == "ssl",
                # A mail server that does not answer fails the send (logged) instead of
                # holding a worker thread for the system's TCP timeout.
                "timeout": env_int("DJANGO_EMAIL_TIMEOUT", default=10),
            },
        }
    }
else:
    # Printed readable (8-bit text, UTF-8 headers), not as base64: clubsite/mail.py.
    MAILERS = {"default": {"BACKEND": "clubsite.mail.ReadableConsoleBackend"}}
DEFAULT_FROM_EMAIL = os.environ.get("DJANGO_DEFAULT_FROM_EMAIL", "").strip() or "club@localhost"

# Every e-mail is sent by the task members.tasks.send_email (TASKS above: at once, or by
# the worker); a failed send is logged, tried again later by the worker (members.tasks.
# SEND_RETRIES), and never breaks the request.

# Where the links in e-mails and Telegram posts sent by the task worker point (it has no
# request to take the host from): the site's address as members open it.
SITE_URL = os.environ.get("DJANGO_SITE_URL", "").strip().rstrip("/") or (
    "http://127.0.0.1:8000"
    if DEBUG or not ALLOWED_HOSTS
    else f"https://{ALLOWED_HOSTS[0].lstrip('.')}"
)

# Telegram (scoring/services/notifications.py): with a bot's token and the club chat's id
# set, a finished table and an evening's summary are posted to the chat through the Bot
# API, as tasks. Unset: nothing is sent. TELEGRAM_API_URL is for tests (a local fake).
TELEGRAM_BOT_TOKEN = os.environ.get("TELEGRAM_BOT_TOKEN", "").strip()
TELEGRAM_CHAT_ID = os.environ.get("TELEGRAM_CHAT_ID", "").strip()
TELEGRAM_API_URL = (
    os.environ.get("TELEGRAM_API_URL", "").strip().rstrip("/") or "https://api.telegram.org"
)
TELEGRAM_TIMEOUT = env_int("TELEGRAM_TIMEOUT", default=10)
# A member's own messages by Telegram (scoring/services/notices.py): the bot's username for
# the link on the settings page (t.me/<bot>?start=…), and the secret the Bot API sends with
# each update to /telegram/webhook/ (setWebhook's secret_token; docs/operations.md). Without
# both, members cannot link a chat.
TELEGRAM_BOT_USERNAME = os.environ.get("TELEGRAM_BOT_USERNAME", "").strip().lstrip("@")
TELEGRAM_WEBHOOK_SECRET = os.environ.get("TELEGRAM_WEBHOOK_SECRET", "").strip()

# Web push (scoring/services/notices.py): the VAPID key pair (the public key as the
# browser's applicationServerKey, base64url; the private key base64url or PEM) and the
# contact the push services may write to (mailto: or https:). Any of them unset: push is
# off, and the settings page says so.
VAPID_PUBLIC_KEY = os.environ.get("VAPID_PUBLIC_KEY", "").strip()
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "").strip()
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "").strip()
WEBPUSH_TIMEOUT = env_int("WEBPUSH_TIMEOUT", default=10)

# A password link (reset or invitation) works once, for this many days.
PASSWORD_RESET_TIMEOUT = 60 * 60 * 24 * 3

# Logging: everything to the console; the process manager keeps the logs. Plain text by
# default; DJANGO_LOG_FORMAT=json writes one JSON object per line (for a log collector),
# each with the request's id (clubsite/logs.py, clubsite/middleware.py).

LOG_LEVEL = os.environ.get("DJANGO_LOG_LEVEL", "INFO").upper()
LOG_FORMAT = os.environ.get("DJANGO_LOG_FORMAT", "plain").strip().lower() or "plain"
if LOG_FORMAT not in ("plain", "json"):
    raise ImproperlyConfigured(f"DJANGO_LOG_FORMAT must be plain or json, not {LOG_FORMAT!r}.")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
        "json": {"()": "clubsite.logs.JsonFormatter"},
    },
    "filters": {
        "request_id": {"()": "clubsite.logs.RequestIdFilter"},
        # A refused request (403, 400) is one line, not a traceback; 500s keep theirs.
        "client_errors_on_one_line": {"()": "clubsite.logs.ClientErrorsOnOneLine"},
        "as_warning": {"()": "clubsite.logs.AsWarning"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["request_id", "client_errors_on_one_line"],
        },
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        # Failed sign-ins and lockouts are warnings; axes' INFO lines (a banner at every
        # process start, one per attempt) would also land on every command's stderr.
        "axes": {"level": "WARNING"},
        # A request with a Host not in ALLOWED_HOSTS is answered 400; Django logs it at
        # ERROR (with a traceback), which a bot probing the address makes every few
        # minutes: one warning line instead, and nothing for Sentry.
        "django.security.DisallowedHost": {"filters": ["as_warning"]},
    },
}

# Whether visitors who are not signed in may see the standings (leaderboards, CSV).
STANDINGS_PUBLIC = env_bool("DJANGO_STANDINGS_PUBLIC", default=True)

# Error reporting: with SENTRY_DSN set, unhandled errors (and ERROR log lines) go to Sentry,
# tagged with the request id; without it nothing is loaded and nothing is sent. No personal
# data: no cookies, no user names or addresses, no request bodies.

SENTRY_DSN = os.environ.get("SENTRY_DSN", "").strip()
if SENTRY_DSN:
    import sentry_sdk
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        integrations=[DjangoIntegration()],
        send_default_pii=False,
        environment=os.environ.get("SENTRY_ENVIRONMENT") or "production",
        release=os.environ.get("SENTRY_RELEASE") or None,
        traces_sample_rate=float(os.environ.get("SENTRY_TRACES_SAMPLE_RATE") or 0),
    )
