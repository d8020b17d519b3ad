"""The members' rules page says each setting of preferans.md §14 and the widow premium
in plain words, in Russian and English, when the club's tariff uses it, and says nothing
of them when it does not."""

from __future__ import annotations

import pytest

from scoring import services
from scoring.models import PreferansTariff
from tests.scoring.views.test_rules import SOCHI, page, read

pytestmark = pytest.mark.django_db

CHANGES = {
    "consolation_fixed": 10,
    "misere_consolation": 5,
    "passout_whists_tie": "split",
    "passout_mode": "whists",
    "passout_ladder_repeat": "cycle",
    "concede": True,
    "concede_ends_passouts": True,
    "zero_bonus_when_closed": "mountain",
    "consolation_by_passer": False,
    "duty_at_one": "none",
    "overflow_floor": "shift_all",
    "widow_premium": True,
}
ENGLISH = [
    "each whister; a passer beside a lone whister writes none",
    "writes the undertricks × 10 whists, at every level",
    "each other player writes each trick × 5 whists on the declarer",
    "and share what they write: each writes his part, rounded down",
    "after its last step starts again from the first",
    "A conceded contract ends a series of pass-outs.",
    "If his pool is already closed, the part past it comes off his own mountain",
    "two whisters are not charged for it, even if neither took a trick",
    "written instead on every other player's mountain, which settles the same",
    "Widow premium (быстрые взятки в прикупе)",
    "an ace or a king-queen of one suit 1, an ace-king of one suit 2, two aces 3",
]
RUSSIAN = [
    "каждый вистующий (пасующий при одном вистующем не пишет)",
    "пишет на играющего недобор × 10 вистов на любой игре",
    "каждый другой игрок пишет на играющего каждую взятку × 5 вистов",
    "каждый пишет свою часть, с округлением вниз",
    "после последней ступени цены начинаются сначала",
    "Уход прерывает серию распасов.",
    "Если его пуля уже закрыта, то, что сверх неё, списывается с его горы",
    "двоих вистующих за неё не наказывают",
    "пишется вместо этого в горы всем остальным",
    "Премия за прикуп (быстрые взятки в прикупе)",
    "туз с королём одной масти — 2, два туза — 3",
]


@pytest.mark.parametrize(("language", "sentences"), [("en", ENGLISH), ("ru", RUSSIAN)])
def test_each_setting_in_use_is_said(language, sentences):
    sochi = PreferansTariff.objects.get(name=SOCHI)
    for name, value in CHANGES.items():
        setattr(sochi, name, value)
    services.tariff_publish(sochi, by=None)

    text = read(page(language)).text

    missing = [sentence for sentence in sentences if sentence not in text]
    assert missing == []


@pytest.mark.parametrize(("language", "sentences"), [("en", ENGLISH), ("ru", RUSSIAN)])
def test_nothing_is_said_of_a_setting_not_in_use(language, sentences):
    text = read(page(language)).text
    # The settings table at the end names every setting; the prose says none of them.
    said = [sentence for sentence in sentences if sentence in text]
    assert said == []
