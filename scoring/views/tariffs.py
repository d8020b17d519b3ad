"""Read-only tariff pages for members (the admin is the organisers' editor); what they
show is ``scoring.pages.tariffs``."""

from __future__ import annotations

from typing import Any

from django.db.models import Max, QuerySet
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render

from clubsite.http import HtmxHttpRequest
from scoring.models import BostonTariff, PreferansTariff
from scoring.models.tariffs import Tariff
from scoring.pages.tariffs import boston_tariff_context, preferans_tariff_context, tariff_lines


def _tariffs(model: type[Tariff]) -> QuerySet[Any]:
    """Tariffs with the number of their current version (one query)."""
    return model._default_manager.annotate(version=Max("versions__number"))


def tariff_list(request: HtmxHttpRequest) -> HttpResponse:
    preferans = list(_tariffs(PreferansTariff).order_by("name"))
    boston = list(_tariffs(BostonTariff).order_by("name"))
    return render(request, "scoring/tariff_list.html", tariff_lines(preferans, boston))


def preferans_tariff_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    tariff = get_object_or_404(_tariffs(PreferansTariff), pk=pk)
    return render(request, "scoring/tariff_preferans_detail.html", preferans_tariff_context(tariff))


def boston_tariff_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    tariff = get_object_or_404(
        _tariffs(BostonTariff).prefetch_related("payment_rows", "card_rows"), pk=pk
    )
    return render(request, "scoring/tariff_boston_detail.html", boston_tariff_context(tariff))
