"""A guest's name, checked before it is stored (docs/evenings.md, Guests): a guest is
shown by his name, so a name nothing visible is left of, or one a member is shown by,
would let the sheets and the evening say that a member played what a guest did."""

from __future__ import annotations

from members.models import NAME_FIELDS, Member, shown_name
from scoring.engine.errors import N_, RuleError
from scoring.models.guests import guest_name_cleaned, name_key


def guest_name_check(*, name: str, field: str = "players") -> str:
    """``name`` as a guest's name is kept (``guest_name_cleaned``), or ``RuleError`` when
    nothing visible is left of it or it is a member's shown name (compared by
    ``name_key``: the case, full-width letters, spaces and invisible characters make no
    difference)."""
    cleaned = guest_name_cleaned(name)
    if not cleaned:
        raise RuleError(
            N_("a guest's name must have letters one can see, not only spaces or invisible marks"),
            field=field,
        )
    key = name_key(cleaned)
    for row in Member.objects.values_list(*NAME_FIELDS).iterator():
        member = shown_name(*row)
        if name_key(member) == key:
            raise RuleError(
                N_(
                    "%(name)s is a member's name: choose the member, or tell the guest "
                    "apart (a surname or an initial)"
                ),
                field=field,
                name=member,
            )
    return cleaned
