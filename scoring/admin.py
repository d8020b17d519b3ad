"""Admin registrations for the scoring app (tariffs and seasons, once they exist)."""
