"""Editing in the rich-text editor beyond typing (issue 19), on the real entry editor page and checked through the
REST API: plugin block types from the Insert menu with the form their schema declares, links to entries chosen with
the entry search."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from playwright.sync_api import expect

from apps.plugins import registry
from tests.browser.portable_text import (
    new_note,
    rich_collection,
    select_backwards,
    stored_body,
)
from tests.factories import make_collection

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def blocks_plugin():
    registry.load([*settings.CMS_PLUGINS, "tests.plugins.blocks"])
    yield
    registry.load(settings.CMS_PLUGINS)


def test_a_plugin_block_is_inserted_from_the_menu_and_edited_through_its_form(studio, blocks_plugin):
    rich_collection()
    paragraph = {
        "_type": "block",
        "_key": "p1",
        "style": "normal",
        "markDefs": [],
        "children": [{"_type": "span", "_key": "s1", "text": "Before the quote.", "marks": []}],
    }
    entry_id = new_note(studio, [paragraph])
    page = studio.page
    studio.open("notes", entry_id, "body")
    toolbar = page.get_by_role("toolbar")
    toolbar.get_by_role("button", name="Insert", exact=True).click()
    # The built-in callout plugin is enabled too: both are offered, in the order of their plugins' ids.
    menu = page.get_by_role("group", name="Insert a block")
    assert menu.get_by_role("button").all_inner_texts() == ["Pull quote", "Callout"]
    menu.get_by_role("button", name="Pull quote").click()
    form = page.get_by_role("group", name="Insert Pull quote")
    form.get_by_role("button", name="Insert Pull quote").click()
    # The required field is checked before anything is inserted.
    expect(form).to_contain_text("Quotation is required.")
    form.get_by_label("Quotation (required)").fill("Less is more.")
    form.get_by_label("Attribution").fill("Mies")
    form.get_by_label("Size").select_option("large")
    form.get_by_label("Highlighted").check()
    form.get_by_label("Columns wide").fill("2.5")
    form.get_by_role("button", name="Insert Pull quote").click()
    expect(form).to_contain_text("Enter a whole number.")
    form.get_by_label("Columns wide").fill("6")
    form.get_by_role("button", name="Insert Pull quote").click()
    card = page.locator('.pt-card[data-block-type="pullQuote"]')
    expect(card).to_contain_text("Quotation: Less is more.")
    studio.save()
    body = stored_body(studio, entry_id)
    assert body[0] == paragraph
    [quote] = [block for block in body if block["_type"] == "pullQuote"]
    assert {key: value for key, value in quote.items() if key != "_key"} == {
        "_type": "pullQuote",
        "text": "Less is more.",
        "attribution": "Mies",
        "size": "large",
        "highlighted": True,
        "width": 6,
    }

    # An existing block opens the same form; what is not changed stays as it was.
    page.locator('.pt-card[data-block-type="pullQuote"]').get_by_role(
        "button", name="Edit pull quote"
    ).click()
    form = page.get_by_role("group", name="Edit Pull quote")
    expect(form.get_by_label("Quotation (required)")).to_have_value("Less is more.")
    # The editor page with everything the island draws (toolbar, a block's card, its form) meets the page checks.
    studio.check("portable-text-plugin-form", mobile=True)
    form.get_by_label("Attribution").fill("")
    form.get_by_role("button", name="Apply").click()
    studio.save()
    [edited] = [block for block in stored_body(studio, entry_id) if block["_type"] == "pullQuote"]
    assert edited == {key: value for key, value in quote.items() if key != "attribution"}
    assert studio.problems == []


def test_a_link_to_an_entry_is_chosen_with_the_entry_search(studio):
    rich_collection()
    make_collection("pages", label="Pages", fields=[{"slug": "title", "type": "string"}])
    about = studio.api.post("/_cms/api/content/pages", {"data": {"title": "About us"}}, format="json")
    other = studio.api.post("/_cms/api/content/pages", {"data": {"title": "Contact"}}, format="json")
    assert about.status_code == other.status_code == 201
    about_id = about.json()["data"]["item"]["id"]
    entry_id = new_note(studio, [])
    page = studio.page
    studio.open("notes", entry_id, "body")
    editable = page.get_by_role("textbox", name="Body")
    editable.click()
    page.keyboard.type("Read about us")
    # The editor applies typing asynchronously: select only once the text is there, or a key press lands early.
    expect(editable).to_have_text("Read about us")
    select_backwards(page, "about us")
    page.get_by_role("toolbar").get_by_role("button", name="Link", exact=True).click()
    page.get_by_role("button", name="Link to an entry").click()
    search = page.get_by_role("group", name="Link to an entry")
    # It starts in this entry's collection; all collections, or another one, are a choice away.
    expect(search.get_by_label("Collection")).to_have_value("notes")
    search.get_by_label("Collection").select_option("")
    search.get_by_label("Find an entry").fill("abo")
    expect(search.get_by_role("button", name=re.compile("^About us"))).to_have_count(1)
    expect(search.get_by_role("button", name=re.compile("^Contact"))).to_have_count(0)
    search.get_by_role("button", name=re.compile("^About us")).click()
    expect(editable).to_be_focused()
    studio.save()
    [block] = stored_body(studio, entry_id)
    [link] = block["markDefs"]
    assert link == {
        "_type": "link",
        "_key": link["_key"],
        "href": f"/_cms/api/content/pages/{about_id}",
        "referenceCollection": "pages",
        "referenceId": about_id,
    }
    assert [(span["text"], span["marks"]) for span in block["children"]] == [
        ("Read ", []),
        ("about us", [link["_key"]]),
    ]
    # The href is the entry's own address in the API.
    assert studio.api.get(link["href"]).json()["data"]["item"]["data"]["title"] == "About us"
    assert studio.problems == []


# What Google Docs puts on the clipboard, in miniature: a wrapper <b> that is not bold, inline styles, a class on a
# span, an empty paragraph between real ones, a heading, a link and a list.
GOOGLE_DOCS_HTML = (
    '<meta charset="utf-8"><b style="font-weight:normal;" id="docs-internal-guid-1234">'
    '<h2 dir="ltr" style="line-height:1.38;margin-top:18pt"><span style="font-size:16pt;color:#000000">'
    "Pasted heading</span></h2>"
    '<p dir="ltr" style="line-height:1.38"><span style="font-weight:400">Some </span>'
    '<strong style="font-weight:700">bold</strong><span> text and </span>'
    '<a href="https://example.com/docs" style="text-decoration:none"><span style="color:#1155cc">a link</span></a>'
    "<span>.</span></p>"
    '<p dir="ltr"><span style="font-weight:400"></span></p>'
    '<p dir="ltr"><span class="c7 c12" style="color:#ff0000;background-color:#ffff00">Styled words</span></p>'
    '<ul style="margin-top:0"><li dir="ltr" style="list-style-type:disc"><p dir="ltr"><span>First</span></p></li>'
    '<li dir="ltr" style="list-style-type:disc"><p dir="ltr"><span>Second</span></p></li></ul></b>'
)


def test_pasting_html_gives_clean_portable_text(studio):
    rich_collection()
    entry_id = new_note(studio, [])
    page = studio.page
    studio.open("notes", entry_id, "body")
    editable = page.get_by_role("textbox", name="Body")
    editable.click()
    page.evaluate(
        """([html]) => {
            const target = document.querySelector('.pt-editable')
            const data = new DataTransfer()
            data.setData('text/html', html)
            data.setData('text/plain', 'Pasted heading')
            target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }))
        }""",
        [GOOGLE_DOCS_HTML],
    )
    expect(page.locator(".pt-editable li, .pt-editable .pt-li").filter(has_text="Second")).to_have_count(1)
    studio.save()
    body = stored_body(studio, entry_id)
    shape = [
        (
            block["style"],
            block.get("listItem"),
            [(span["text"], span["marks"]) for span in block["children"]],
        )
        for block in body
    ]
    link = next(block for block in body if block["markDefs"])["markDefs"]
    assert link == [{"_type": "link", "_key": link[0]["_key"], "href": "https://example.com/docs"}]
    assert shape == [
        ("h2", None, [("Pasted heading", [])]),
        (
            "normal",
            None,
            [
                ("Some ", []),
                ("bold", ["strong"]),
                (" text and ", []),
                ("a link", [link[0]["_key"]]),
                (".", []),
            ],
        ),
        ("normal", None, [("Styled words", [])]),
        ("normal", "bullet", [("First", [])]),
        ("normal", "bullet", [("Second", [])]),
    ]
    assert studio.problems == []


def test_markdown_shortcuts_format_as_people_type(studio):
    rich_collection()
    entry_id = new_note(studio, [])
    page = studio.page
    studio.open("notes", entry_id, "body")
    page.get_by_role("textbox", name="Body").click()
    page.keyboard.type("## Heading")
    page.keyboard.press("Enter")
    page.keyboard.type("Some **bold** text")
    page.keyboard.press("Enter")
    page.keyboard.type("- bullet")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    page.keyboard.type("1. numbered")
    expect(page.locator(".pt-editable .pt-li-number")).to_have_count(1)
    studio.save()
    shape = [
        (block["style"], block.get("listItem"), [(span["text"], span["marks"]) for span in block["children"]])
        for block in stored_body(studio, entry_id)
    ]
    assert shape == [
        ("h2", None, [("Heading", [])]),
        ("normal", None, [("Some ", []), ("bold", ["strong"]), (" text", [])]),
        ("normal", "bullet", [("bullet", [])]),
        ("normal", "number", [("numbered", [])]),
    ]
    assert studio.problems == []
