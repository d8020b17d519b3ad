"""Tournaments, the pure rules: formats, seating, tour points, standings, substitutes.

No Django here (the engine's contract): the site stores a tournament and its tours and
calls these functions with plain keys (a player's id as a string) and ``Decimal`` results.
docs/tournaments.md tells an organiser what each choice does.

* ``formats`` — ``Format`` (tours, seating per tour, tour length, points rule, best N of M,
  cut, table size, yellow cards) and its ``PRESETS``;
* ``seating`` — ``seat_tour`` (random, Swiss, interval, schedule), ``schedule``, ``precheck``;
* ``points`` — ``PointsRule`` and ``score_table``: a table's results into tour points;
* ``standings`` — ``rank``: the standings with tie-breaks, ``cut`` (with the judges'
  ``decided`` players when a tie straddles its line: ``cut_tie``, ``with_decision``), and
  ``with_final`` (the finalists above those the cut left out);
* ``substitute`` — ``substitute_entry``: a newcomer's pool and mountain (Kodeks 3.1.2).

Interface changes (each in a commit whose subject starts "tournament: interface"):
none yet. Added since the first interface commit, nothing changed: ``check_format``,
``check_rule``, ``points.timeout_scores``, ``standings.with_final``,
``standings.cut_tie``, ``standings.with_decision``, ``standings.cut``'s ``decided``.
"""
