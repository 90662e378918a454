"""Reading runtime fields, which live inside a JSON column.

Sorting, filtering and uniqueness on them go through expression indexes generated when a field is created
(``apps.core.db.indexes``). An expression index is only used when the query spells the same expression: ``JsonKey``
is the one way queries read a key, and the index DDL takes its text from the same backend method. Keys are field slugs
(``^[a-z][a-z0-9_]*$``), so they appear in SQL as literals, which both planners need in order to match an index.
"""

from __future__ import annotations

from django.db.models import BooleanField, Expression, FloatField, TextField

from apps.core.db.backends import get_db_backend
from apps.core.db.backends.base import checked_key


def json_scalar_param(value):
    """A scalar as ``JsonKey`` yields it, for comparisons: text on PostgreSQL (``->>``), native on SQLite."""
    return get_db_backend().json_scalar_param(value)


class JsonKey(Expression):
    """The scalar value of ``key`` in a JSON column, as text (or a number when ``numeric``)."""

    def __init__(self, column: str, key: str, *, numeric: bool = False):
        super().__init__(output_field=FloatField() if numeric else TextField())
        self.column = column
        self.key = checked_key(key)
        self.numeric = numeric

    def resolve_expression(self, query=None, allow_joins=True, reuse=None, summarize=False, for_save=False):
        resolved = self.copy()
        resolved.target = query.resolve_ref(self.column, allow_joins, reuse, summarize)
        return resolved

    def as_sql(self, compiler, connection):
        column_sql, params = compiler.compile(self.target)
        return get_db_backend(connection).json_key_sql(column_sql, self.key, numeric=self.numeric), params

    def get_group_by_cols(self):
        return [self]

    def __repr__(self) -> str:
        return f"JsonKey({self.column!r}, {self.key!r}, numeric={self.numeric})"


class JsonPick(Expression):
    """The JSON object in ``column`` with only the named keys (those it has), as text: a projection of the data that
    leaves the stored text of the rest unread by the answer."""

    def __init__(self, column: str, keys):
        super().__init__(output_field=TextField())
        self.column = column
        self.keys = [checked_key(key) for key in keys]

    def resolve_expression(self, query=None, allow_joins=True, reuse=None, summarize=False, for_save=False):
        resolved = self.copy()
        resolved.target = query.resolve_ref(self.column, allow_joins, reuse, summarize)
        return resolved

    def as_sql(self, compiler, connection):
        column_sql, params = compiler.compile(self.target)
        return get_db_backend(connection).json_pick_sql(column_sql, self.keys), params

    def __repr__(self) -> str:
        return f"JsonPick({self.column!r}, {self.keys!r})"


class SameJson(Expression):
    """Whether two JSON columns of the row hold the same value, compared as stored: text on SQLite (as written),
    ``jsonb`` on PostgreSQL. Casting both to text instead made PostgreSQL write out every document twice more for a
    list page, the most expensive part of one (issue 21)."""

    conditional = True

    def __init__(self, left: str, right: str):
        super().__init__(output_field=BooleanField())
        self.left, self.right = left, right

    def resolve_expression(self, query=None, allow_joins=True, reuse=None, summarize=False, for_save=False):
        resolved = self.copy()
        resolved.targets = [
            query.resolve_ref(name, allow_joins, reuse, summarize) for name in (self.left, self.right)
        ]
        return resolved

    def as_sql(self, compiler, connection):
        (left, left_params), (right, right_params) = (compiler.compile(target) for target in self.targets)
        return f"({left} = {right})", [*left_params, *right_params]

    def __repr__(self) -> str:
        return f"SameJson({self.left!r}, {self.right!r})"
