"""Rows of another table carried as JSON text in a column of the query that reads the row they belong to.

A single entry's answer needs its terms and byline credits, which live in other tables. Read with their own queries,
each costs a round trip, which on PostgreSQL was half of a GET of an imported post (issue 21). ``json_rows`` turns a
queryset correlated with the outer row (``OuterRef``) into a subquery answering its rows as one JSON array of arrays,
selected beside the outer row's columns: one query instead of three. The rows come back in no guaranteed order (an
aggregate does not keep its input's order on every database), so callers include what they sort by.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Aggregate, F, QuerySet, Subquery, TextField
from django.db.models.functions import JSONArray


class _JsonArrayOfRows(Aggregate):
    """The rows of a group as a JSON array (SQLite's ``json_group_array``, PostgreSQL's ``jsonb_agg``), as text."""

    function = "JSON_GROUP_ARRAY"
    output_field = TextField()

    def as_postgresql(self, compiler, connection, **extra_context):
        return self.as_sql(
            compiler,
            connection,
            function="JSONB_AGG",
            template="%(function)s(%(expressions)s)::text",
            **extra_context,
        )


def json_rows(queryset: QuerySet, group_by: str, columns: Sequence[str]) -> Subquery:
    """A subquery answering ``queryset``'s rows as ``[[column values…], …]`` text, or NULL when it has none.
    ``queryset`` filters ``group_by`` (a column) by an ``OuterRef``, so that the rows form one group."""
    rows = (
        queryset.order_by()
        .values(group_by)
        .annotate(rows=_JsonArrayOfRows(JSONArray(*(F(column) for column in columns))))
        .values("rows")
    )
    return Subquery(rows, output_field=TextField())
