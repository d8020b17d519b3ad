"""The club's identity: its name and the home page's introduction, in Russian and English.

One row, edited by organisers in the admin (``scoring/admin/club.py``), so a club renames
itself or rewrites its welcome without a redeploy. Every page reads it through the context
processor ``scoring.context_processors.club``, from the cache (``Club.shown``); no template
names the club itself. The Russian texts are the site's own language; an empty English one
falls back to them.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, ClassVar

from django.core.cache import cache
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

DEFAULT_NAME = "Клуб преферанса и бостона"
DEFAULT_NAME_EN = "Preferans and Boston club"
DEFAULT_INTRO = (
    "Сайт нашего клуба для подсчёта очков в преферанс (пулька) и бостон — раздача за "
    "раздачей, по клубным правилам."
)
DEFAULT_INTRO_EN = (
    "Our club's site for scoring Preferans (the pulka) and Boston deal by deal: live score "
    "sheets, season standings and the house tariffs."
)
ENGLISH = "en"
RUSSIAN = "ru"

IDENTITY_SECONDS = 60
"""How long the club's identity is shown from the cache at most. Saving it (the admin, a
restore by ``import_club``) replaces it at once in a cache every app server shares; without
``REDIS_URL`` the other processes' own copies, and a database loaded beneath the site, are
read again within this time."""


@dataclass(frozen=True, slots=True)
class ClubIdentity:
    """What the pages show of the club, in one language."""

    name: str
    intro: str


class Club(models.Model):
    """The one row of the club's identity (its primary key is always 1), and the club's
    own settings."""

    ONLY_PK = 1
    ORGANISER, PLAYERS = "organiser", "players"
    ACCEPTANCE = (
        (ORGANISER, _("an organiser")),
        (PLAYERS, _("an organiser, or every member seated at it")),
    )

    name = models.CharField(
        _("name"),
        max_length=100,
        default=DEFAULT_NAME,
        help_text=_("The club's name on every page, in Russian."),
    )
    name_en = models.CharField(
        _("name in English"),
        max_length=100,
        blank=True,
        default=DEFAULT_NAME_EN,
        help_text=_("The name on the English pages; left empty, they show the Russian name."),
    )
    intro = models.TextField(
        _("introduction"),
        max_length=2000,
        blank=True,
        default=DEFAULT_INTRO,
        help_text=_(
            "The welcome under the name on the home page, in Russian. Plain text: an empty "
            "line starts a new paragraph."
        ),
    )
    intro_en = models.TextField(
        _("introduction in English"),
        max_length=2000,
        blank=True,
        default=DEFAULT_INTRO_EN,
        help_text=_("The welcome on the English home page; left empty, it shows the Russian one."),
    )
    import_acceptance = models.CharField(
        _("an imported record counts once accepted by"),
        max_length=10,
        choices=ACCEPTANCE,
        default=ORGANISER,
        help_text=_(
            "An imported game record is shown at once but counts in the standings only "
            "once accepted. Every member seated at it accepting is enough only at a table "
            "with two members or more; any of them may reject it, and an organiser may "
            "always decide."
        ),
    )

    account_table_money = models.DecimalField(
        _("table money drawn from members' accounts"),
        max_digits=9,
        decimal_places=2,
        default=Decimal(0),
        validators=[MinValueValidator(Decimal(0))],
        help_text=_(
            "Drawn from the account of each member checked in when an evening is closed, "
            "once; 0: none. The season's table money is collected at the door instead: "
            "set one of them, not both."
        ),
    )
    # Provisional, then final (issue 32, item 6): a finished club table waits for its
    # players' confirmation or the window (scoring/selectors/confirmations.py).
    confirm_tables = models.BooleanField(
        _("players confirm a finished table"),
        default=False,
        help_text=_(
            "On: a finished table is provisional until every member seated at it confirms "
            "its result (one tap on the table page) or the correction window passes; while "
            "it is provisional a player may reopen it to correct a deal, once final only an "
            "organiser, with a reason. Off: a table is final as soon as it finishes."
        ),
    )
    confirm_minutes = models.PositiveSmallIntegerField(
        _("correction window, minutes"),
        default=30,
        validators=[MinValueValidator(1), MaxValueValidator(1440)],
        help_text=_(
            "How long after a table finishes its result stays open to correction when not "
            "every player has confirmed it."
        ),
    )

    class Meta:
        verbose_name = _("club")
        verbose_name_plural = _("club")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(condition=Q(id=1), name="club_is_one_row"),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.pk = self.ONLY_PK
        super().save(*args, **kwargs)
        keys = [_identity_key(RUSSIAN), _identity_key(ENGLISH)]
        transaction.on_commit(lambda: cache.delete_many(keys))

    @classmethod
    def shown(cls, language: str | None) -> ClubIdentity:
        """The identity in ``language`` as every page shows it: read once, then kept in the
        cache (a query on every page for two lines that an organiser changes once a year)."""
        key = _identity_key(language)
        identity = cache.get(key)
        if identity is None:
            identity = cls.load().identity(language)
            cache.set(key, identity, IDENTITY_SECONDS)
        return identity  # type: ignore[no-any-return]

    @classmethod
    def load(cls) -> Club:
        """The club's row; an unsaved one with the default texts should it be missing (the
        migration creates it, and the admin offers no delete)."""
        return cls.objects.filter(pk=cls.ONLY_PK).first() or cls(pk=cls.ONLY_PK)

    def identity(self, language: str | None) -> ClubIdentity:
        """The name and introduction shown on pages in ``language`` (Russian unless it is
        English and the English text is given)."""
        english = language == ENGLISH
        return ClubIdentity(
            name=(english and self.name_en) or self.name,
            intro=(english and self.intro_en) or self.intro,
        )


def _identity_key(language: str | None) -> str:
    # Any language but English is shown the Russian texts.
    return f"club-identity:{ENGLISH if language == ENGLISH else RUSSIAN}"
