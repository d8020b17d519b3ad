"""The write paths, by topic: every change to tariffs, tables and ratings, each in one
transaction. Call sites use ``services.<name>``; the topic modules hold the code."""

from scoring.services.ratings import RATING_MODEL, ratings_after_finish, ratings_rebuild
from scoring.services.tables import (
    AlreadyImported,
    deal_create,
    deal_delete,
    deal_edit,
    deal_preview,
    deal_undo,
    seat_names_for,
    table_digests_fill,
    table_export,
    table_finish,
    table_import,
    table_open,
    table_reopen,
)
from scoring.services.tariffs import (
    TableChange,
    tables_in_play,
    tariff_change_preview,
    tariff_copy,
    tariff_export,
    tariff_import,
    tariff_publish,
)

__all__ = [
    "RATING_MODEL",
    "AlreadyImported",
    "TableChange",
    "deal_create",
    "deal_delete",
    "deal_edit",
    "deal_preview",
    "deal_undo",
    "ratings_after_finish",
    "ratings_rebuild",
    "seat_names_for",
    "table_digests_fill",
    "table_export",
    "table_finish",
    "table_import",
    "table_open",
    "table_reopen",
    "tables_in_play",
    "tariff_change_preview",
    "tariff_copy",
    "tariff_export",
    "tariff_import",
    "tariff_publish",
]
