"""docs/mcp.md's tool reference is generated from the registry (``make mcp-tools``): the committed page must equal a
fresh rendering, and each example call must be valid input of its tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.mcp import reference, registry

PAGE = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"


def test_the_committed_tool_reference_is_current():
    assert reference.committed_part(PAGE.read_text()) == reference.render(), (
        "run `make mcp-tools` and commit docs/mcp.md"
    )


def test_the_reference_lists_every_tool_with_its_scope_and_role():
    rendered = reference.render()
    for tool in registry.builtin_tools():
        assert f"| `{tool.name}` | `{tool.scope}` | " in rendered


@pytest.mark.parametrize(
    "tool", [tool for tool in registry.builtin_tools() if tool.example is not None], ids=lambda t: t.name
)
def test_declared_examples_are_valid_input(tool):
    tool.input_model.model_validate(reference.example_call(tool))


def test_rewriting_keeps_the_prose_around_the_reference():
    page = f"# Title\n\nProse.\n\n{reference.BEGIN}\nstale\n{reference.END}\n\nMore prose.\n"
    rewritten = reference.rewritten(page)
    assert rewritten == f"# Title\n\nProse.\n\n{reference.render()}\n\nMore prose.\n"
    assert reference.rewritten(rewritten) == rewritten
