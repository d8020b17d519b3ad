"""The club's members brought in from paper (issue 34), beside the paper history
(``services.history``): a CSV of ``username,name,email`` (the e-mail optional).
``members_plan`` is the dry run — the members it would invite and every row refused, with
its line and reason — and ``members_import`` writes them, only when nothing is refused, in
one transaction: each an account without a password, as the organisers' members page
invites (``members.services.member_invite``); the view then mails the link to those with
an address.
"""

from __future__ import annotations

import csv
import logging
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Q

from members.models import Member
from scoring.engine.errors import N_, RuleError
from scoring.engine.history import Refusal, check_size
from scoring.services import locking

logger = logging.getLogger(__name__)

MEMBER_COLUMNS = ("username", "name", "email")
MAX_MEMBER_ROWS = 1_000


@dataclass(frozen=True)
class PlannedMember:
    """A member the file would invite: its line, username (normalised), name and e-mail."""

    line: int
    username: str
    name: str
    email: str


@dataclass(frozen=True)
class MembersPlan:
    """What a members' file would bring in: the new members and every refused row."""

    members: tuple[PlannedMember, ...]
    refused: tuple[Refusal, ...]

    @property
    def ready(self) -> bool:
        """Whether the file may be imported: someone to invite, nothing refused."""
        return bool(self.members) and not self.refused


class MembersRefused(RuleError):
    """An import of a members' file with refused rows: nothing was written."""

    def __init__(self, plan: MembersPlan) -> None:
        super().__init__(
            N_("nothing was imported: %(count)s rows of the file are refused"),
            field="file",
            count=len(plan.refused),
        )
        self.plan = plan


def members_plan(*, content: bytes) -> MembersPlan:
    """The dry run of a members' CSV (``content``, its bytes): the members it would invite
    and every row refused — a bad username, no name, a bad e-mail, a username twice in the
    file or a member's already. ``RuleError`` for a file that cannot be read at all (too
    large, not UTF-8, no ``username`` and ``name`` columns). Writes nothing."""
    check_size(len(content))
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise RuleError(
            N_("the file is not UTF-8 text: save it from the spreadsheet as «CSV UTF-8»"),
            field="file",
        ) from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise RuleError(N_("the file is empty: it needs a header and rows"), field="file")
    delimiter = ";" if lines[0].count(";") > lines[0].count(",") else ","
    reader = csv.reader(lines, delimiter=delimiter)
    columns = [name.strip().casefold() for name in next(reader)]
    if "username" not in columns or "name" not in columns or set(columns) - set(MEMBER_COLUMNS):
        raise RuleError(
            N_("the header must be username,name,email (email may be left out)"), field="file"
        )
    members: list[PlannedMember] = []
    refused: list[Refusal] = []
    seen: dict[str, int] = {}  # a username's key: the line that has it
    for cells in reader:
        if not any(cell.strip() for cell in cells):
            continue  # a blank line
        if len(members) + len(refused) >= MAX_MEMBER_ROWS:
            raise RuleError(
                N_("the file has more than %(limit)s rows; split it in parts"),
                field="file",
                limit=MAX_MEMBER_ROWS,
            )
        line = reader.line_num
        named = {c: v.strip() for c, v in zip(columns, cells, strict=False)}
        try:
            member = _planned_member(line, named, seen)
        except RuleError as error:
            refused.append(Refusal(line, error))
        else:
            seen[member.username.casefold()] = line
            members.append(member)
    taken = _usernames_taken([m.username for m in members])
    for member in [m for m in members if m.username.casefold() in taken]:
        members.remove(member)
        refused.append(
            Refusal(
                member.line,
                RuleError(
                    N_("%(username)s is a member's username already"),
                    field="username",
                    username=member.username,
                ),
            )
        )
    refused.sort(key=lambda r: r.line)
    return MembersPlan(tuple(members), tuple(refused))


def _planned_member(line: int, named: dict[str, str], seen: dict[str, int]) -> PlannedMember:
    username = Member.normalize_username(named.get("username", ""))
    name, email = named.get("name", ""), named.get("email", "")
    if not username:
        raise RuleError(N_("the username is empty"), field="username")
    try:
        Member._meta.get_field("username").run_validators(username)
    except ValidationError:
        raise RuleError(
            N_("%(username)s is not a username: letters, digits and @ . + - _ only, at most 150"),
            field="username",
            username=username,
        ) from None
    if username.casefold() in seen:
        raise RuleError(
            N_("%(username)s is on line %(line)s already"),
            field="username",
            username=username,
            line=seen[username.casefold()],
        )
    name_length = Member._meta.get_field("display_name").max_length or 150
    if not name or len(name) > name_length:
        raise RuleError(
            N_("the name is required, at most %(limit)s characters"),
            field="name",
            limit=name_length,
        )
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise RuleError(
                N_("%(email)s is not an e-mail address"), field="email", email=email
            ) from None
    return PlannedMember(line, username, name, email)


def _usernames_taken(usernames: list[str]) -> set[str]:
    """Which of ``usernames`` (case aside) are members' already: one query."""
    if not usernames:
        return set()
    query = Q()
    for username in usernames:
        query |= Q(username__iexact=username)
    return {u.casefold() for u in Member.objects.filter(query).values_list("username", flat=True)}


def members_import(*, content: bytes, by: Member) -> list[Member]:
    """Invite the members of a members' file, in one transaction: each an account without
    a password (it cannot sign in until the mailed link sets one). ``MembersRefused``
    (nothing written) when any row is refused; ``RuleError`` when the file cannot be read
    or has nobody to invite. The new members, for the caller to mail their links."""
    with transaction.atomic():
        locking.take_turns("scoring.history.members")  # two uploads: the second sees the first
        plan = members_plan(content=content)
        if plan.refused:
            raise MembersRefused(plan)
        if not plan.members:
            raise RuleError(N_("the file has no members to import"), field="file")
        created = []
        for planned in plan.members:
            member = Member(
                username=planned.username, display_name=planned.name, email=planned.email
            )
            member.set_unusable_password()
            member.save()
            created.append(member)
        logger.info("%s imported %s members", by.username, len(created))
        return created
