"""Import sources: where content comes from (``wxr``: an uploaded WordPress export) and what it needs."""
