"""The Organisers group runs seasons: it may add, change, view and delete them in the admin.

As in 0003, the permissions are created here rather than left to the post_migrate signal,
so the group is complete in the same migration run that creates the Season model.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Organisers"  # members.models.ORGANISERS, copied: a migration must not change later
CODENAMES = ("add_season", "change_season", "delete_season", "view_season")


def grant(apps, schema_editor):
    # The usual idiom: permissions normally appear after the whole migrate run.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=GROUP)
    group.permissions.add(
        *Permission.objects.filter(content_type__app_label="scoring", codename__in=CODENAMES)
    )


def revoke(apps, schema_editor):
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for group in Group.objects.filter(name=GROUP):
        group.permissions.remove(
            *Permission.objects.filter(content_type__app_label="scoring", codename__in=CODENAMES)
        )


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0004_seasons_and_results"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(grant, revoke)]
