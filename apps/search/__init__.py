"""Full-text search over entries: the index, its backends (PostgreSQL, SQLite), search, suggest, rebuild, stats."""
