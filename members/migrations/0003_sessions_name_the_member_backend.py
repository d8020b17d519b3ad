"""Sessions signed in before ``members.backends.MemberBackend`` name Django's ModelBackend,
which the site no longer lists: they are made to name the member backend, so that nobody
signed in is signed out by the change."""

from django.contrib.auth import BACKEND_SESSION_KEY
from django.db import migrations

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
MEMBER_BACKEND = "members.backends.MemberBackend"


def rename_backend(old: str, new: str):
    def rename(apps, schema_editor):
        from django.contrib.sessions.backends.db import SessionStore

        store = SessionStore()
        Session = apps.get_model("sessions", "Session")
        for session in Session.objects.iterator():
            data = store.decode(session.session_data)  # {} if it no longer decodes
            if data.get(BACKEND_SESSION_KEY) == old:
                data[BACKEND_SESSION_KEY] = new
                session.session_data = store.encode(data)
                session.save(update_fields=["session_data"])

    return rename


class Migration(migrations.Migration):
    dependencies = [
        ("members", "0002_email_choices"),
        ("sessions", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(
            rename_backend(MODEL_BACKEND, MEMBER_BACKEND),
            rename_backend(MEMBER_BACKEND, MODEL_BACKEND),
        ),
    ]
