"""``manage.py mcp_tools``: the built-in tools as ``tools/list`` shows them, as JSON (``make mcp-tools`` writes it to
``docs/mcp-tools.json``, the snapshot a test compares the server against)."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from apps.mcp import reference, registry


def snapshot() -> list[dict]:
    return [tool.describe() for tool in registry.builtin_tools()]


class Command(BaseCommand):
    help = (
        "Print the MCP tool list (names, titles, descriptions, input schemas, annotations) as JSON, or with --doc "
        "rewrite the tool reference of that Markdown page (docs/mcp.md)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--doc", help="The Markdown page whose tool reference is rewritten.")

    def handle(self, *args, **options):
        if options["doc"]:
            page = Path(options["doc"])
            page.write_text(reference.rewritten(page.read_text()))
            return
        self.stdout.write(json.dumps(snapshot(), indent=2, ensure_ascii=False))
