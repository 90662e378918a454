"""``manage.py mcp_tools``: the built-in tools as ``tools/list`` shows them, as JSON (``make mcp-tools`` writes it to
``docs/mcp-tools.json``, the snapshot a test compares the server against)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand

from apps.mcp import registry


def snapshot() -> list[dict]:
    return [tool.describe() for tool in registry.builtin_tools()]


class Command(BaseCommand):
    help = "Print the MCP tool list (names, titles, descriptions, input schemas, annotations) as JSON."

    def handle(self, *args, **options):
        self.stdout.write(json.dumps(snapshot(), indent=2, ensure_ascii=False))
