"""What the live sheet keeps between requests, so that a table's pages cost next to
nothing until its next write.

Every write moves a table's revision on, and everything derived from one revision never
changes; so each thing is kept under a key that names the revision (``keys``) and never
goes stale: the engine's replayed game of each revision in this process (``snapshots``),
and the rendered fragments in Django's cache (``fragments``).
"""
