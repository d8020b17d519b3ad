"""The Organisers group: the members who edit house tariffs (and seasons) in the admin.

Its permissions are created here rather than left to the post_migrate signal, so the group
is complete in the same migration run that creates it. The seasons migration adds its own
models' permissions to this group when seasons arrive.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations

GROUP = "Organisers"  # members.models.ORGANISERS, copied: a migration must not change later
EDIT = ("add", "change", "delete", "view")
PERMISSIONS = {
    "preferanstariff": EDIT,
    "bostontariff": EDIT,
    "bostonpaymentrow": EDIT,
    "bostoncardrow": EDIT,
    # A version is a frozen snapshot: organisers may look at it, never edit it.
    "preferanstariffversion": ("view",),
    "bostontariffversion": ("view",),
}


def create_group(apps, schema_editor):
    # The usual idiom: permissions normally appear after the whole migrate run.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _created = Group.objects.get_or_create(name=GROUP)
    codenames = [
        f"{action}_{model}" for model, actions in PERMISSIONS.items() for action in actions
    ]
    permissions = Permission.objects.filter(
        content_type__app_label="scoring", codename__in=codenames
    )
    group.permissions.add(*permissions)


def remove_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name=GROUP).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0002_preset_tariffs"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_group, remove_group)]
