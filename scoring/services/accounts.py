"""Account writes: the organisers' cash book (top-ups, refunds, corrections), the
evening's table money drawn from each attendee's account when the evening is closed, a
guest's paid from a member's account, and a payment of the evening's ledger settled
through the accounts instead of cash.

Every movement is a new ``AccountEntry``; none is ever changed or deleted. Bad input
raises ``RuleError`` (a message for the member) and records nothing.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from members.models import Member
from scoring.engine.errors import RuleError
from scoring.engine.ledger import CLUB
from scoring.models import AccountEntry, Attendance, Club, Evening, Guest, Settlement
from scoring.selectors import accounts as selectors
from scoring.selectors import evenings as evening_selectors
from scoring.services import locking

LARGEST = Decimal(100_000)
"""The largest single movement the cash book takes: a typo's extra zeros are refused."""

CASH_BOOK_KINDS = (AccountEntry.TOP_UP, AccountEntry.REFUND, AccountEntry.CORRECTION)
"""What an organiser records by hand (the form's choices, ``scoring.pages.accounts``); the
other kinds come from the evening's writes."""


def account_record(
    *, member: Member, kind: str, amount: Decimal, by: Member, reason: str = ""
) -> AccountEntry:
    """Record a top-up (``amount`` > 0 received), a refund (``amount`` > 0 given back, at
    most the balance) or a correction (signed; its reason is required)."""
    reason = " ".join(reason.split())
    if kind not in CASH_BOOK_KINDS:
        raise RuleError(_("choose a top-up, a refund or a correction"), field="kind")
    if amount == 0 or abs(amount) > LARGEST:
        raise RuleError(
            _("the amount is more than 0 and at most %(n)s") % {"n": number_format(LARGEST)},
            field="amount",
        )
    if kind != AccountEntry.CORRECTION and amount < 0:
        raise RuleError(_("type the amount without a sign"), field="amount")
    if kind == AccountEntry.CORRECTION and not reason:
        raise RuleError(_("say why the correction is made"), field="reason")
    if len(reason) > 200:
        raise RuleError(_("the reason is at most 200 characters"), field="reason")
    with transaction.atomic():
        locking.lock_row(member)  # two refunds at once cannot both pass the balance
        if kind == AccountEntry.REFUND:
            held = selectors.balance(member)
            if amount > held:
                raise RuleError(
                    _("a refund is at most the balance, %(balance)s")
                    % {"balance": number_format(held, 2)},
                    field="amount",
                )
            amount = -amount
        return AccountEntry.objects.create(
            member=member, kind=kind, amount=amount, recorded_by=by, reason=reason
        )


def evening_table_money_draw(*, evening: Evening, by: Member) -> int:
    """Draw the club's table money (``Club.account_table_money``) from the account of each
    member checked in at ``evening``, once: a member charged for it already is skipped
    (the entry is unique per evening and member). Guests pay at the door. The entry's kind
    and evening say what it is, in the reader's language; it has no reason of its own. Called inside
    the close's transaction; the number of entries recorded."""
    price = Club.load().account_table_money
    if not price:
        return 0
    charged = set(
        AccountEntry.objects.filter(evening=evening, kind=AccountEntry.TABLE_MONEY).values_list(
            "member_id", flat=True
        )
    )
    members = (
        Attendance.objects.filter(evening=evening, member__isnull=False)
        .exclude(member__in=charged)
        .values_list("member_id", flat=True)
    )
    created = AccountEntry.objects.bulk_create(
        AccountEntry(
            member_id=member_id,
            kind=AccountEntry.TABLE_MONEY,
            amount=-price,
            evening=evening,
            recorded_by=by,
        )
        for member_id in sorted(members)
    )
    return len(created)


def settlement_by_account(
    *, evening: Evening, payer: str, payee: str, amount: Decimal, by: Member
) -> Settlement:
    """Settle one payment of the evening's ledger through the accounts instead of cash,
    as payer and payee agreed at the door: the payer's account gives ``amount`` and the
    payee's receives it (two entries that sum to 0; a payment to the club is the payer's
    entry alone), and the payment is marked as paid — all or nothing. Refused for a
    guest (no account), a payment settled already, or a balance short of the amount."""
    if not payer.startswith("m") or not (payee.startswith("m") or payee == CLUB):
        raise RuleError(_("a guest has no account: settle this payment in cash"), field="payment")
    with transaction.atomic():
        locking.lock_row(evening)  # one settlement of a line at a time
        line = next(
            (
                x
                for x in evening_selectors.ledger(evening).lines
                if (x.payer, x.payee, x.amount) == (payer, payee, amount)
            ),
            None,
        )
        if line is None:
            raise RuleError(_("this payment is not in the evening's ledger"), field="payment")
        if line.settled is not None:
            raise RuleError(_("this payment is marked as paid already"), field="payment")
        giver = locking.lock_row(Member.objects.get(pk=int(payer[1:])))
        held = selectors.balance(giver)
        if held < amount:
            raise RuleError(
                _("%(name)s has %(balance)s on the account: not enough, settle in cash")
                % {"name": line.payer_name, "balance": number_format(held, 2)},
                field="payment",
            )
        # Names only: the entry is read in either language (its kind and evening say the rest).
        reason = f"{line.payer_name} → {line.payee_name}"
        entries = [AccountEntry(member=giver, amount=-amount)]
        if payee != CLUB:
            entries.append(AccountEntry(member_id=int(payee[1:]), amount=amount))
        for entry in entries:
            entry.kind, entry.evening, entry.recorded_by, entry.reason = (
                AccountEntry.SETTLEMENT,
                evening,
                by,
                reason,
            )
        AccountEntry.objects.bulk_create(entries)
        return Settlement.objects.create(
            evening=evening, payer=payer, payee=payee, amount=amount, settled_by=by
        )


def shared_expense_split(
    *, evening: Evening, members: list[Member], total: Decimal, reason: str, by: Member
) -> list[AccountEntry]:
    """Charge an evening's shared expense (food, the room) to the chosen members checked
    in at it, split to the cent: each pays ``total`` ÷ n rounded down to the cent, and the
    cents left over are paid one each by the first in name order (display name, then
    username), so the charges sum to ``total`` exactly. A balance may go below 0: the club
    paid the bill, and the member owes it."""
    reason = " ".join(reason.split())
    if not reason or len(reason) > 200:
        raise RuleError(_("say what the expense was (at most 200 characters)"), field="reason")
    if total <= 0 or total > LARGEST or total != total.quantize(Decimal("0.01")):
        raise RuleError(
            _("the amount is more than 0 and at most %(n)s") % {"n": number_format(LARGEST)},
            field="total",
        )
    here = set(
        Attendance.objects.filter(evening=evening, member__isnull=False).values_list(
            "member_id", flat=True
        )
    )
    chosen = sorted(
        {m.pk: m for m in members}.values(), key=lambda m: (m.name.casefold(), m.username)
    )
    if not chosen or any(m.pk not in here for m in chosen):
        raise RuleError(_("choose members checked in at the evening"), field="members")
    base, extra = divmod(int(total * 100), len(chosen))
    if base == 0:
        raise RuleError(_("the amount is less than a cent each"), field="total")
    shares = [Decimal(base + (i < extra)) / 100 for i in range(len(chosen))]
    with transaction.atomic():
        return AccountEntry.objects.bulk_create(
            AccountEntry(
                member=member,
                kind=AccountEntry.SHARED_EXPENSE,
                amount=-share,
                evening=evening,
                recorded_by=by,
                reason=reason,
            )
            for member, share in zip(chosen, shares, strict=True)
        )


def guest_paid_by_member(
    *, evening: Evening, guest: Guest, member: Member, by: Member
) -> AccountEntry:
    """A member pays a guest's table money: one entry of minus the club's table money
    drawn from the accounts (``Club.account_table_money``) on the member's account, the
    guest's name in its reason. Both must be checked in at the evening; once per guest
    and evening (a partial unique constraint backs the check made under the evening's lock)."""
    price = Club.load().account_table_money
    if not price:
        raise RuleError(
            _("the club draws no table money from the accounts: the guest pays at the door"),
            field="guest",
        )
    with transaction.atomic():
        locking.lock_row(evening)  # two taps at once cannot both pay for one guest
        here = Attendance.objects.filter(evening=evening)
        if not here.filter(guest=guest).exists():
            raise RuleError(_("the guest is not checked in at this evening"), field="guest")
        if not here.filter(member=member).exists():
            raise RuleError(_("choose a member checked in at the evening"), field="member")
        paid = (
            AccountEntry.objects.filter(evening=evening, guest=guest, kind=AccountEntry.GUEST)
            .select_related("member")
            .first()
        )
        if paid is not None:
            raise RuleError(
                _("%(member)s has paid for %(guest)s tonight already")
                % {"member": paid.member.name, "guest": guest.name},
                field="guest",
            )
        return AccountEntry.objects.create(
            member=member,
            kind=AccountEntry.GUEST,
            amount=-price,
            evening=evening,
            guest=guest,
            recorded_by=by,
            reason=guest.name,  # a name only: read in either language
        )
