"""TRANSITIONAL: the one DRF serializer left here, for ``apps/content/api/serializers.py``, whose entry serializer
still nests a term reference as a DRF field. The shape is declared in ``apps/taxonomy/presenters.py``
(``TermRefOut``); delete this module when content's answers are TypedDicts importing it from there (issue 18)."""

from __future__ import annotations

from rest_framework import serializers


class TermRefOut(serializers.Serializer):
    """A term as entries show it."""

    id = serializers.CharField()
    slug = serializers.CharField()
    label = serializers.CharField()
    parentId = serializers.CharField(allow_null=True)
