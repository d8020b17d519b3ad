"""Operations on the whole club at once: the backup (export and restore) and the demo
club of the quick start."""
