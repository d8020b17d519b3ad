"""The rules engine: pure Python scoring of Preferans and Boston (no Django in here).

The web views, the ``score`` command and the tests all call the same functions; see
``preferans`` and ``boston`` for each game and ``record`` for the JSON game record.
"""
