from django.urls import path, register_converter

from members import views


class UsernameConverter:
    """``<username:username>``: any text but a slash or a NUL character. No username holds
    a NUL, and PostgreSQL refuses one in a query (a 500): such a URL is a 404 at once."""

    regex = "[^/\x00]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(UsernameConverter, "username")

app_name = "members"

# The fixed pages come before ``<username>/``: a member cannot be called like one of them
# (the invitation form refuses such a username).
urlpatterns = [
    path("sign-in/", views.sign_in, name="login"),
    path("sign-out/", views.sign_out, name="logout"),
    path("settings/", views.member_settings, name="settings"),
    path("password/", views.password_change, name="password_change"),
    path("password/done/", views.password_change_done, name="password_change_done"),
    path("password-reset/", views.password_reset, name="password_reset"),
    path("password-reset/sent/", views.password_reset_done, name="password_reset_done"),
    path(
        "password-reset/<uidb64>/<token>/",
        views.password_reset_confirm,
        name="password_reset_confirm",
    ),
    path("password-reset/done/", views.password_reset_complete, name="password_reset_complete"),
    path("manage/", views.member_manage, name="manage"),
    path("manage/invite/", views.member_invite, name="invite"),
    path("manage/<username:username>/deactivate/", views.member_deactivate, name="deactivate"),
    path("manage/<username:username>/reactivate/", views.member_reactivate, name="reactivate"),
    path("manage/<username:username>/unlock/", views.member_unlock, name="unlock"),
    path("manage/<username:username>/send-link/", views.member_send_link, name="send_link"),
    path("<username:username>/", views.member_detail, name="detail"),
]
