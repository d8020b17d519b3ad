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

urlpatterns = [
    path("sign-in/", views.sign_in, name="login"),
    path("sign-out/", views.sign_out, name="logout"),
    path("<username:username>/", views.member_detail, name="detail"),
]
