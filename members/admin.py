from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from members.models import Member


@admin.register(Member)
class MemberAdmin(UserAdmin):  # type: ignore[type-arg]
    list_display = ("username", "display_name", "email", "is_staff", "is_active")
    search_fields = ("username", "display_name", "first_name", "last_name", "email")
    fieldsets = (
        *UserAdmin.fieldsets,  # type: ignore[misc]
        ("Club", {"fields": ("display_name",)}),
    )
    add_fieldsets = (
        *UserAdmin.add_fieldsets,
        ("Club", {"fields": ("display_name",)}),
    )
