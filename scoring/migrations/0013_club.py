"""The club's identity (name and home-page introduction per language) as one row that
organisers edit in the admin; the Organisers group may view and change it (not add or
delete: there is exactly one). The texts are copied here, not imported, so the migration
gives the same row forever.
"""

from django.contrib.auth.management import create_permissions
from django.db import migrations, models

GROUP = "Organisers"  # members.models.ORGANISERS, copied: a migration must not change later
CODENAMES = ("change_club", "view_club")
CLUB = {
    "id": 1,
    "name": "Клуб преферанса и бостона",
    "name_en": "Preferans and Boston club",
    "intro": (
        "Сайт нашего клуба для подсчёта очков в преферанс (пулька) и бостон — раздача за "
        "раздачей, по клубным правилам."
    ),
    "intro_en": (
        "Our club's site for scoring Preferans (the pulka) and Boston deal by deal: live "
        "score sheets, season standings and the house tariffs."
    ),
}


def create_club(apps, schema_editor):
    apps.get_model("scoring", "Club").objects.get_or_create(id=1, defaults=CLUB)
    # As in 0003: the permissions normally appear only after the whole migrate run.
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


def remove_club(apps, schema_editor):
    apps.get_model("scoring", "Club").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0012_table_control_time_deal"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.CreateModel(
            name="Club",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "name",
                    models.CharField(
                        default="Клуб преферанса и бостона",
                        help_text="The club's name on every page, in Russian.",
                        max_length=100,
                        verbose_name="name",
                    ),
                ),
                (
                    "name_en",
                    models.CharField(
                        blank=True,
                        default="Preferans and Boston club",
                        help_text="The name on the English pages; left empty, they show the Russian name.",
                        max_length=100,
                        verbose_name="name in English",
                    ),
                ),
                (
                    "intro",
                    models.TextField(
                        blank=True,
                        default="Сайт нашего клуба для подсчёта очков в преферанс (пулька) и бостон — раздача за раздачей, по клубным правилам.",
                        help_text="The welcome under the name on the home page, in Russian. Plain text: an empty line starts a new paragraph.",
                        max_length=2000,
                        verbose_name="introduction",
                    ),
                ),
                (
                    "intro_en",
                    models.TextField(
                        blank=True,
                        default="Our club's site for scoring Preferans (the pulka) and Boston deal by deal: live score sheets, season standings and the house tariffs.",
                        help_text="The welcome on the English home page; left empty, it shows the Russian one.",
                        max_length=2000,
                        verbose_name="introduction in English",
                    ),
                ),
            ],
            options={
                "verbose_name": "club",
                "verbose_name_plural": "club",
                "constraints": [
                    models.CheckConstraint(condition=models.Q(("id", 1)), name="club_is_one_row")
                ],
            },
        ),
        migrations.RunPython(create_club, remove_club),
    ]
