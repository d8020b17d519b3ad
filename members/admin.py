from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group

from clubsite.admin_lookups import SafeLookups
from members.models import Member


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


# Django's own group admin, with the change list that answers any query string
# (clubsite/admin_lookups.py).
admin.site.unregister(Group)


@admin.register(Group)
class ClubGroupAdmin(SafeLookups, GroupAdmin):
    pass
