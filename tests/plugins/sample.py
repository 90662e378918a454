"""A plugin used by the tests: it contributes an MCP tool, an import source, and hooks that record their calls (one
of which fails, to show that a failing plugin does not undo the change that triggered it)."""

from __future__ import annotations

from apps.accounts.models import Role
from apps.plugins.base import ImportSourceContribution, Plugin, ToolContribution

CALLS: list[tuple[str, dict]] = []


def echo(actor, arguments: dict) -> dict:
    return {"echo": arguments.get("text", ""), "user": actor.user_id}


def analyze(source) -> dict:
    return {"postTypes": []}


def fetch(source):
    yield {
        "sourceId": 1,
        "postType": "post",
        "status": "publish",
        "slug": "hello",
        "title": "Hello",
        "content": [],
    }


class SamplePlugin(Plugin):
    id = "sample"
    name = "Sample"
    version = "2.0.0"
    description = "Test contributions."

    def mcp_tools(self):
        return [
            ToolContribution(
                name="sample_echo",
                description="Echo the text back.",
                input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
                handler=echo,
                scope="content:read",
                min_role=Role.SUBSCRIBER,
                read_only=True,
            )
        ]

    def import_sources(self):
        return [ImportSourceContribution(id="sample-feed", name="Sample feed", analyze=analyze, fetch=fetch)]

    def hooks(self):
        def remember(hook):
            def record(**payload):
                CALLS.append((hook, payload))

            return record

        def explode(**payload):
            from apps.plugins.models import PluginState

            PluginState.objects.create(plugin_id="written-by-a-failing-hook")
            raise RuntimeError("the sample plugin fails on purpose")

        return {
            "content.create": remember("content.create"),
            "content.publish": remember("content.publish"),
            "content.delete": remember("content.delete"),
            "media.upload": remember("media.upload"),
            "content.update": explode,
        }


plugin = SamplePlugin
