"""Running an import job: the source's records become entries, terms, bylines, sections, menus and media.

A job goes through phases, each safe to run again: ``prepare`` (collections, fields and taxonomies), ``terms``
(the export's categories, tags and other terms, parents before children), ``items`` (every source item in document
order), ``links`` (what could only be resolved once every item was in: featured images, reusable-block references,
menus) and ``media`` (when asked). Items are committed in batches together with the job's cursor: an item that
fails becomes a draft holding its original content in ``_importError`` (SPEC §7) and the batch goes on; a crash or
a lost database connection loses at most the uncommitted batch, which a resume redoes.

Every source item is recorded with what it became (``ImportRecord``) and a fingerprint of its content, so running the
same import again skips unchanged items and updates changed ones instead of duplicating them.

The phases share one ``RunState`` (``state``): ``terms``, ``items`` (with ``entries``, ``bylines`` and ``sections``
for what the items become), ``links`` (with ``menus``) and ``media``; ``driver`` runs them in order.
"""

from apps.importer.pipeline.driver import PHASES, run_job
from apps.importer.pipeline.state import OpenReader

__all__ = ["PHASES", "OpenReader", "run_job"]
