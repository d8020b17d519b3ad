"""Admin change lists that answer any query string without a 500.

Django's change list turns most bad filters into "an error in the lookup" (a redirect to
the plain list with ``?e=1``), but not all: a date hierarchy at year 9999
(``?starts_on__year=9999`` asks for dates up to year 10000) or with a huge number overflows
Python's dates, and a filter the database refuses (a NUL character or an integer beyond
bigint on PostgreSQL) fails when the page counts its rows. ``SafeLookups`` makes those the
same redirect, and refuses regular-expression lookups (400), whose patterns the database
compiles: a broken one is an error there (SQLite's reads like an outage, a 503), and
``__range`` lookups, which the admin cannot read from a query string. A search
for text holding a NUL character finds nothing, without asking the database: no row holds
one (the site refuses it everywhere, PostgreSQL cannot store it), and PostgreSQL refuses it
in a query. The change list's search form already refuses such a ``?q=``; the admin's
autocomplete (``/admin/autocomplete/?term=``) searches with the term as it came, which was a
500 on PostgreSQL.

Every model admin of the site mixes it in (members/admin.py re-registers Django's group
admin and django-axes' sign-in logs with it; tests/clubsite/test_hostile_input.py checks
that none is left out).
"""

from __future__ import annotations

from typing import Any

from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views.main import ChangeList
from django.db import DataError, NotSupportedError, transaction
from django.db.models import QuerySet
from django.http import HttpRequest

#: Lookups a query string may not name: a regular expression the database compiles, and a
#: range, which the admin passes on as one string (its letters taken as the two bounds; a
#: single letter was a 500, an IndexError building the query).
UNSAFE_LOOKUPS = ("__regex", "__iregex", "__range")


class SafeChangeList(ChangeList):
    """A change list whose filters and count never fail with a 500 (module docstring)."""

    def get_filters(self, request: HttpRequest) -> Any:
        try:
            return super().get_filters(request)
        except (ValueError, OverflowError) as error:  # a date beyond 9999, a huge number
            raise IncorrectLookupParameters(error) from error

    def get_results(self, request: HttpRequest) -> None:
        # In a savepoint: on PostgreSQL a refused query spoils the transaction around it.
        try:
            with transaction.atomic(using=self.queryset.db):
                super().get_results(request)
        except (DataError, NotSupportedError, OverflowError, ValueError) as error:
            raise IncorrectLookupParameters(error) from error


class SafeLookups:
    """Mixed into a ``ModelAdmin``: its change list is a ``SafeChangeList``."""

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> type[ChangeList]:
        return SafeChangeList

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Any], search_term: str
    ) -> tuple[QuerySet[Any], bool]:
        if "\x00" in search_term:
            return queryset.none(), False
        return super().get_search_results(request, queryset, search_term)  # type: ignore[misc, no-any-return]

    def lookup_allowed(self, lookup: str, value: str, request: HttpRequest) -> bool:
        if lookup.endswith(UNSAFE_LOOKUPS):
            return False
        return super().lookup_allowed(lookup, value, request)  # type: ignore[misc, no-any-return]
