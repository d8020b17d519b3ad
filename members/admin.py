from typing import Any

from axes.admin import AccessAttemptAdmin, AccessFailureLogAdmin, AccessLogAdmin
from axes.models import AccessAttempt, AccessFailureLog, AccessLog
from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.http import HttpRequest
from django_tasks_db.admin import DBTaskResultAdmin
from django_tasks_db.models import DBTaskResult

from clubsite.admin_lookups import SafeLookups
from members.models import Member
from scoring.services.members import member_save


@admin.register(Member)
class MemberAdmin(SafeLookups, UserAdmin):  # type: ignore[type-arg]
    list_display = ("username", "display_name", "email", "is_staff", "is_active")
    search_fields = ("username", "display_name", "first_name", "last_name", "email")
    fieldsets = (
        *UserAdmin.fieldsets,  # type: ignore[misc]
        ("Club", {"fields": ("display_name", "email_table_finished", "email_evening_summary")}),
    )
    add_fieldsets = (
        *UserAdmin.add_fieldsets,
        ("Club", {"fields": ("display_name",)}),
    )

    def save_model(self, request: HttpRequest, obj: Member, form: Any, change: bool) -> None:
        member_save(member=obj)  # a new name: the standings follow


# Django's own group admin, with the change list that answers any query string
# (clubsite/admin_lookups.py).
admin.site.unregister(Group)


@admin.register(Group)
class ClubGroupAdmin(SafeLookups, GroupAdmin):
    pass


# django-axes' sign-in logs (attempts, and the access and failure logs), likewise: as axes
# registers them, ``?attempt_time__year=9999`` was a 500 (its date hierarchy overflowed)
# and ``?username__regex=(`` one on PostgreSQL. Only what axes registered is replaced
# (AXES_ENABLE_ADMIN turns them all off; the failure log is optional).
class ClubAccessAttemptAdmin(SafeLookups, AccessAttemptAdmin):  # type: ignore[misc] # axes is untyped
    pass


class ClubAccessLogAdmin(SafeLookups, AccessLogAdmin):  # type: ignore[misc] # axes is untyped
    pass


class ClubAccessFailureLogAdmin(SafeLookups, AccessFailureLogAdmin):  # type: ignore[misc] # axes is untyped
    pass


# django-tasks-db's task results (the rating and e-mail tasks), likewise.
class ClubTaskResultAdmin(SafeLookups, DBTaskResultAdmin):
    pass


for _model, _model_admin in (
    (DBTaskResult, ClubTaskResultAdmin),
    (AccessAttempt, ClubAccessAttemptAdmin),
    (AccessLog, ClubAccessLogAdmin),
    (AccessFailureLog, ClubAccessFailureLogAdmin),
):
    if admin.site.is_registered(_model):
        admin.site.unregister(_model)
        admin.site.register(_model, _model_admin)
