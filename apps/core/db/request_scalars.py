"""Values read alongside a request's first query.

Some checks every request makes are one scalar each (the schema's version token). Instead of a round trip of their
own, they are selected as extra columns of the first query nearly every API request makes (its bearer token lookup)
and kept for the rest of that request. A request without such a query, and code outside requests (commands, the
worker), simply finds nothing kept and queries as before.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db.models import Expression

_REQUEST_SCALARS: dict[str, Callable[[], Expression]] = {}
_kept_scalars: ContextVar[dict[str, Any] | None] = ContextVar("cms_request_scalars", default=None)
_PREFIX = "_request_scalar_"
NOT_KEPT = object()


def register_request_scalar(name: str, expression: Callable[[], Expression]) -> None:
    """Have ``expression`` (a one-row scalar, e.g. a ``Subquery``) read alongside each request's first query.
    Register from ``AppConfig.ready()``: the queries that carry the values are compiled once, at first use."""
    _REQUEST_SCALARS[name] = expression


def request_scalar_annotations() -> dict[str, Expression]:
    """The annotations that carry the registered scalars, for the query that carries them."""
    return {_PREFIX + name: expression() for name, expression in _REQUEST_SCALARS.items()}


def keep_request_scalars(row) -> None:
    """Keep the scalars ``row`` was annotated with for the rest of the current request (if there is one)."""
    kept = _kept_scalars.get()
    if kept is not None:
        for name in _REQUEST_SCALARS:
            kept[name] = getattr(row, _PREFIX + name, NOT_KEPT)


def request_scalar(name: str):
    """The value kept for ``name`` in this request, or ``NOT_KEPT``."""
    kept = _kept_scalars.get()
    return NOT_KEPT if kept is None else kept.get(name, NOT_KEPT)


def keep_request_scalar(name: str, value) -> None:
    """Keep ``value`` for ``name`` for the rest of this request: what a request without the carrying query read itself,
    so that it reads it once."""
    kept = _kept_scalars.get()
    if kept is not None:
        kept[name] = value


def forget_request_scalar(name: str) -> None:
    """Drop a kept value once this request has changed what it reflects (later reads query it again)."""
    kept = _kept_scalars.get()
    if kept is not None:
        kept.pop(name, None)


@contextmanager
def request_scalars_scope():
    """The span of one request (RequestContextMiddleware), outside which nothing is kept."""
    reset = _kept_scalars.set({})
    try:
        yield
    finally:
        _kept_scalars.reset(reset)
