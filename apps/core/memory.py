"""Python's cyclic garbage collector, tuned for long runs of bulk work (imports).

The collector runs after every 700 new container objects (dicts, lists, model instances …) and then walks the
young objects; every tenth run walks older ones too, and the oldest generation holds everything Django and the
libraries created at start-up. Reading an export allocates millions of short-lived containers (parsed elements,
Portable Text, unpickled records, rows), nearly all freed by reference counting, so the collector's walks found
almost nothing yet were a tenth of an import's time (unpickling the reader's records alone: 70% of it was
collection). ``bulk_work`` lets the young generation grow much larger before a walk, and first sets aside what
exists already (``gc.freeze``), so that the walks that still happen skip it. Memory stays bounded: cycles are still
collected, only less often, and reference counting frees the rest as before.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# New containers between collections of the young generation (Python's default: 700), and how many of those runs
# between walks of the older generations (defaults 10 and 10).
BULK_THRESHOLDS = (50_000, 50, 100)


@contextmanager
def bulk_work() -> Iterator[None]:
    previous = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*BULK_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*previous)
        gc.unfreeze()
