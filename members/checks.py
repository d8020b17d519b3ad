"""System checks of the members app."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import CheckMessage, Tags, Warning, register

CONSOLES = (
    "django.core.mail.backends.console.EmailBackend",
    "clubsite.mail.ReadableConsoleBackend",  # the site's own, printed readable
)


@register(Tags.security, deploy=True)
def check_email_is_sent(**kwargs: Any) -> list[CheckMessage]:
    """A production site whose e-mail goes to the console writes every password link
    into its log and mails nobody: ``check --deploy`` says so."""
    backend = getattr(settings, "MAILERS", {}).get("default", {}).get("BACKEND")
    if settings.DEBUG or backend not in CONSOLES:
        return []
    return [
        Warning(
            "E-mail is written to the console: password resets and invitations reach "
            "nobody, and their links land in the log.",
            hint="Set DJANGO_EMAIL_HOST (and DJANGO_EMAIL_USER, DJANGO_EMAIL_PASSWORD) "
            "to send through an SMTP server; docs/deploy.md.",
            id="members.W001",
        )
    ]
