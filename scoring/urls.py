from django.urls import path, register_converter

from scoring import views
from scoring.views import (
    accounts,
    app,
    calendar,
    confirmations,
    deals,
    evenings,
    guests,
    history,
    judging,
    notices,
    rules,
    standings,
    tables,
    tariffs,
    tournaments,
)

app_name = "scoring"
register_converter(standings.GameConverter, "game")

urlpatterns = [
    # First: every idle viewer's poll resolves it, every two seconds (each pattern tried
    # before it is a regular expression run for nothing: docs/performance.md, issue 33).
    path("tables/<int:pk>/live/", tables.table_live, name="table_live"),
    path("", views.home, name="home"),
    path("rules/", rules.rules, name="rules"),
    # The installable app (scoring/views/app.py): the worker controls what is under its URL.
    path("manifest.webmanifest", app.manifest, name="manifest"),
    path("sw.js", app.service_worker, name="service_worker"),
    path("offline/<str:language>/", app.offline, name="offline"),
    # Tariff pages (scoring/views/tariffs.py)
    path("tariffs/", tariffs.tariff_list, name="tariff_list"),
    path(
        "tariffs/preferans/<int:pk>/",
        tariffs.preferans_tariff_detail,
        name="preferans_tariff_detail",
    ),
    path("tariffs/boston/<int:pk>/", tariffs.boston_tariff_detail, name="boston_tariff_detail"),
    # Tables (scoring/views/tables.py)
    path("tables/", tables.table_list, name="table_list"),
    path("tables/new/<str:game>/", tables.table_open, name="table_open"),
    path("tables/import/", tables.table_import, name="table_import"),
    path("tables/<int:pk>/", tables.table_detail, name="table_detail"),
    path("tables/<int:pk>/print/", tables.table_print, name="table_print"),
    path("tables/<int:pk>/sheet.png", tables.table_sheet_png, name="table_sheet_png"),
    path("tables/<int:pk>/export/", tables.table_export, name="table_export"),
    path("tables/<int:pk>/deals/", deals.deal_create, name="deal_create"),
    path("tables/<int:pk>/undo/", deals.deal_undo, name="deal_undo"),
    path("tables/<int:pk>/deals/<int:deal_pk>/edit/", deals.deal_edit, name="deal_edit"),
    path("tables/<int:pk>/deals/<int:deal_pk>/delete/", deals.deal_delete, name="deal_delete"),
    path("tables/<int:pk>/finish/", tables.table_finish, name="table_finish"),
    path("tables/<int:pk>/reopen/", tables.table_reopen, name="table_reopen"),
    path("tables/<int:pk>/judge/", judging.table_judge, name="table_judge"),
    path("tables/<int:pk>/judge/swap/", judging.table_seats_swap, name="table_seats_swap"),
    path(
        "tables/<int:pk>/judge/substitute/",
        judging.table_seat_substitute,
        name="table_seat_substitute",
    ),
    path("tables/<int:pk>/decide/", tables.table_decide, name="table_decide"),
    path("tables/<int:pk>/confirm/", confirmations.table_confirm, name="table_confirm"),
    path("tables/<int:pk>/control-time/", tables.control_time_mark, name="control_time_mark"),
    path(
        "tables/<int:pk>/control-time/clear/",
        tables.control_time_clear,
        name="control_time_clear",
    ),
    # The members' accounts (scoring/views/accounts.py): the cash book and its CSV
    path("accounts/", accounts.account_book, name="account_book"),
    path("accounts/entries.csv", accounts.account_csv, name="account_csv"),
    # Club evenings (scoring/views/evenings.py): check-in, the draw, the ledger
    path("evenings/", evenings.evening_list, name="evening_list"),
    path("evenings/new/", evenings.evening_create, name="evening_create"),
    # Evenings announced ahead (scoring/views/calendar.py): answers, the iCal feeds
    path("evenings/calendar/", calendar.evening_calendar, name="evening_calendar"),
    path("evenings/calendar.ics", calendar.calendar_feed, name="calendar_feed"),
    path(
        "evenings/calendar/<str:token>.ics",
        calendar.member_calendar_feed,
        name="member_calendar_feed",
    ),
    path("evenings/calendar/link/", calendar.calendar_link_reset, name="calendar_link_reset"),
    path("evenings/schedule/", calendar.evening_schedule, name="evening_schedule"),
    path("evenings/<int:pk>/answer/", calendar.evening_answer, name="evening_answer"),
    path("evenings/<int:pk>/cancel/", calendar.evening_cancel, name="evening_cancel"),
    # A reminder's one-tap answer, and a member's own messages (scoring/views/notices.py)
    path(
        "evenings/<int:pk>/answer/<str:token>/",
        notices.evening_answer_link,
        name="evening_answer_link",
    ),
    path("messages/telegram/link/", notices.telegram_link, name="telegram_link"),
    path("messages/telegram/unlink/", notices.telegram_unlink, name="telegram_unlink"),
    path("messages/push/subscribe/", notices.push_subscribe, name="push_subscribe"),
    path("messages/push/unsubscribe/", notices.push_unsubscribe, name="push_unsubscribe"),
    path("telegram/webhook/", notices.telegram_webhook, name="telegram_webhook"),
    path(
        "evenings/<int:pk>/check-in-answered/",
        calendar.evening_check_in_answered,
        name="evening_check_in_answered",
    ),
    path("evenings/<int:pk>/", evenings.evening_detail, name="evening_detail"),
    path("evenings/<int:pk>/check-in/", evenings.evening_check_in, name="evening_check_in"),
    path(
        "evenings/<int:pk>/check-in-guest/",
        evenings.evening_check_in_guest,
        name="evening_check_in_guest",
    ),
    path("evenings/<int:pk>/check-out/", evenings.evening_check_out, name="evening_check_out"),
    path("evenings/<int:pk>/sits-out/", evenings.evening_sits_out, name="evening_sits_out"),
    path("evenings/<int:pk>/apart/", evenings.evening_apart, name="evening_apart"),
    path("evenings/<int:pk>/draw/", evenings.evening_draw, name="evening_draw"),
    path("evenings/<int:pk>/swap/", evenings.evening_swap, name="evening_swap"),
    path("evenings/<int:pk>/open/", evenings.evening_open, name="evening_open"),
    path("evenings/<int:pk>/ledger/", evenings.evening_ledger, name="evening_ledger"),
    path("evenings/<int:pk>/ledger.csv", evenings.evening_ledger_csv, name="evening_ledger_csv"),
    path("evenings/<int:pk>/settle/", evenings.settlement_mark, name="settlement_mark"),
    path("evenings/<int:pk>/close/", evenings.evening_close, name="evening_close"),
    path("evenings/<int:pk>/expense/", accounts.shared_expense, name="shared_expense"),
    path("evenings/<int:pk>/guest-paid/", accounts.guest_paid, name="guest_paid"),
    path(
        "evenings/<int:pk>/settle-by-account/",
        accounts.settlement_by_account,
        name="settlement_by_account",
    ),
    # Tournaments (scoring/views/tournaments.py): the field, tours, standings, judges
    path("tournaments/", tournaments.tournament_list, name="tournament_list"),
    path("tournaments/<int:pk>/", tournaments.tournament_detail, name="tournament_detail"),
    path("tournaments/<int:pk>/screen/", tournaments.tournament_screen, name="tournament_screen"),
    path("tournaments/<int:pk>/standings.csv", tournaments.tournament_csv, name="tournament_csv"),
    path(
        "tournaments/<int:pk>/protocol/",
        tournaments.tournament_protocol,
        name="tournament_protocol",
    ),
    path("tournaments/<int:pk>/enter/", tournaments.entry_add, name="tournament_entry_add"),
    path("tournaments/<int:pk>/check-in/", tournaments.entry_check_in, name="tournament_check_in"),
    path("tournaments/<int:pk>/start/", tournaments.tournament_start, name="tournament_start"),
    path("tournaments/<int:pk>/seat/", tournaments.tour_seat, name="tour_seat"),
    path("tournaments/<int:pk>/tours/<int:number>/", tournaments.tour_seating, name="tour_seating"),
    path(
        "tournaments/<int:pk>/tours/<int:number>/protocol/",
        tournaments.tour_protocol,
        name="tour_protocol",
    ),
    path(
        "tournaments/<int:pk>/tours/<int:number>/cards/",
        tournaments.tour_cards,
        name="tour_cards",
    ),
    path(
        "tournaments/<int:pk>/tours/<int:number>/close/",
        tournaments.tour_close,
        name="tour_close",
    ),
    path(
        "tournaments/<int:pk>/tours/<int:number>/tables/<int:table>/extra-time/",
        tournaments.table_extra_time,
        name="tour_table_extra_time",
    ),
    path(
        "tournaments/<int:pk>/tours/<int:number>/tables/<int:table>/confirm/",
        confirmations.tour_table_confirm,
        name="tour_table_confirm",
    ),
    path("tournaments/<int:pk>/penalties/", tournaments.penalty_add, name="penalty_add"),
    path(
        "tournaments/<int:pk>/penalties/<int:penalty>/reverse/",
        tournaments.penalty_reverse,
        name="penalty_reverse",
    ),
    path("tournaments/<int:pk>/cut/", tournaments.cut_decide, name="cut_decide"),
    path(
        "tournaments/<int:pk>/cut/reverse/",
        tournaments.cut_decision_reverse,
        name="cut_decision_reverse",
    ),
    # Guests (scoring/views/guests.py): organisers merge a guest's history into a member
    path("guests/", guests.guest_list, name="guest_list"),
    path("guests/<int:pk>/merge/", guests.guest_merge, name="guest_merge"),
    # The club's paper history (scoring/views/history.py): organisers bring past results in
    path("club/history/", history.history_upload, name="history_upload"),
    path("club/history/confirm/", history.history_confirm, name="history_confirm"),
    path("club/history/template.csv", history.history_template, name="history_template"),
    path("club/history/members/", history.history_members, name="history_members"),
    path(
        "club/history/members/confirm/",
        history.history_members_confirm,
        name="history_members_confirm",
    ),
    # Standings (scoring/views/standings.py): seasons, leaderboards, CSV downloads
    path("seasons/", standings.season_list, name="season_list"),
    path("seasons/<int:pk>/<game:game>/", standings.season_standings, name="season_standings"),
    path(
        "seasons/<int:pk>/<game:game>.csv",
        standings.season_standings_csv,
        name="season_standings_csv",
    ),
    path("standings/<game:game>/", standings.standings, name="standings"),
    path("standings/<game:game>.csv", standings.standings_csv, name="standings_csv"),
]
