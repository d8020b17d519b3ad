"""Importing a game record that a member uploads: reading the file within its limit,
matching its players to the club's members (or guests) and its rules to a house tariff,
then ``tables.table_import``. The view only parses the form and answers."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from members.models import Member
from scoring import games
from scoring.engine.errors import RuleError
from scoring.engine.record import MAX_RECORD_BYTES, load
from scoring.models import Guest, Table
from scoring.permissions import is_organiser
from scoring.selectors.tariffs import version_with_rules
from scoring.services.limits import imports_per_hour_check
from scoring.services.tables import MEMBERS_FIELD, Player, table_import


def record_import(*, upload: Any, game: str, played_on: Any, by: Member) -> Table:
    """Import an uploaded game record (``upload``, a file of the ``game`` named) as a
    finished table played by the club's members it names; ``RuleError`` when the file,
    its players or its rules do not fit or ``by`` has imported the most games an hour
    allows (``limits``), ``AlreadyImported`` for a game the club has."""
    imports_per_hour_check(by=by)
    if upload.size > MAX_RECORD_BYTES:  # refused before a byte of it is read
        raise RuleError(
            _("the file is larger than %(limit)s MB, the limit for a game record")
            % {"limit": f"{MAX_RECORD_BYTES / 1_000_000:g}"}
        )
    try:
        text = upload.read().decode("utf-8")
    except UnicodeDecodeError:
        raise RuleError(_("the file is not UTF-8 text")) from None
    record = load(text)
    if record["game"] != game:
        raise RuleError(_("the record is a %(game)s game") % {"game": record["game"]}, field="game")
    members = members_of(record)
    if by not in members and not is_organiser(by):
        raise RuleError(_("import a game you played in"), field="players")
    version = version_for(record)
    return table_import(
        record,
        version=version,
        members=members,
        by=by,
        played_on=played_on,
    )


def members_of(record: Any) -> list[Player]:
    """The club members a record's players are: by the usernames of its ``members`` field
    when it has one (a club export's: a display name may have changed since), seat by
    seat; a username this club does not have falls back to the player's name; ``null``
    is a guest's seat, seated again as a new guest of the player's name."""
    names = record.get("players")
    if MEMBERS_FIELD not in record:
        return list(members_named(names))
    usernames = record[MEMBERS_FIELD]
    if (
        not isinstance(usernames, list)
        or not all(u is None or isinstance(u, str) for u in usernames)
        or not isinstance(names, list)
        or len(usernames) != len(names)
    ):
        raise RuleError(
            _("must list one username for each player, in the players' order"),
            field=MEMBERS_FIELD,
        )
    by_username = {m.username: m for m in Member.objects.filter(username__in=usernames)}
    if not all(isinstance(n, str) and n.strip() for n in names):
        raise RuleError(_("must list the players' names"), field="players")
    return [
        # null: a guest's seat (no account), who comes back as a guest of that name
        Guest(name=name[: Guest._meta.get_field("name").max_length])
        if username is None
        else by_username[username]
        if username in by_username
        else members_named([name])[0]
        for username, name in zip(usernames, names, strict=True)
    ]


def members_named(names: Any) -> list[Member]:
    """The club members a record's player names refer to (display name or username)."""
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise RuleError(_("must list the players' names"), field="players")
    found = []
    for name in names:
        member = Member.objects.filter(Q(display_name=name) | Q(username=name)).first()
        if member is None:
            raise RuleError(_("no member is called %(name)s") % {"name": name}, field="players")
        found.append(member)
    return found


def version_for(record: Any) -> Any:
    """The newest tariff version whose rules are the record's rules."""
    game = games.of(record["game"])
    version = version_with_rules(game, game.parse_rules(record.get("rules", game.default_rules)))
    if version is None:
        raise RuleError(
            _("no house tariff has this record's rules; add one in the admin first"),
            field="rules",
        )
    return version
