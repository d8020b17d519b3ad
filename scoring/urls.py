from django.urls import path

from scoring import views

app_name = "scoring"

urlpatterns = [
    path("", views.home, name="home"),
    path("rules/", views.rules, name="rules"),
]
