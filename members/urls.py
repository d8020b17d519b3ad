from django.urls import path

from members import views

app_name = "members"

urlpatterns = [
    path("sign-in/", views.sign_in, name="login"),
    path("sign-out/", views.sign_out, name="logout"),
    path("<str:username>/", views.member_detail, name="detail"),
]
