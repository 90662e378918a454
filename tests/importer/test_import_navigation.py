"""Block themes' navigation menus (``wp_navigation`` posts) become menus (issue 17; docs/decisions.md, "Import
pipeline"): their navigation-link and navigation-submenu blocks become items pointing at the imported entries and
terms, or at their addresses, nested as in WordPress; blocks that are no menu item are left out with a warning."""

from __future__ import annotations

from tests.importer.conftest import WXR
from tests.importer.helpers import analyze, post, run_import, wxr

TT5 = WXR / "tt5-demo-blueprint" / "playground-content.xml"


def tree(items: list[dict]) -> list:
    """A menu's items as (type, label, target, children): the target is the entry's or term's slug, or the URL."""
    return [
        (
            item["type"],
            item["label"],
            item["url"]
            if item["type"] == "custom"
            else f"{item['referenceCollection']}/{item['target']['slug']}",
            tree(item["children"]),
        )
        for item in items
    ]


def menu(client, name: str) -> dict:
    response = client.get(f"/_cms/api/menus/{name}")
    assert response.status_code == 200, response.json()
    return response.json()["data"]


def test_a_block_themes_navigation_becomes_a_menu_of_imported_pages(admin_api):
    assert analyze(admin_api, TT5)["menus"] == [
        {"slug": "menu", "name": "Menu", "items": 0},
        {"slug": "navigation-2", "name": "Navigation", "items": 10},
    ]

    job = run_import(admin_api, TT5)

    assert (job["summary"]["kinds"]["menus"], job["summary"]["kinds"]["menuItems"]) == (2, 10)
    navigation = menu(admin_api, "navigation-2")  # post_name "navigation-2"
    assert navigation["label"] == "Navigation"
    assert tree(navigation["items"]) == [
        ("custom", "Home", "/", []),
        ("content", "About Us", "pages/about-us", []),
        ("content", "News", "pages/news", []),
        (
            "content",
            "Templates",
            "pages/templates",
            [
                ("content", "Single Page Layout", "pages/single-page-layout", []),
                ("content", "Page no title", "pages/page-no-title", []),
                ("custom", "404 Page - not found", "/apage", []),
            ],
        ),
        (
            "content",
            "Patterns",
            "pages/patterns",
            [
                ("content", "Blocks", "pages/blocks", []),
                ("content", "Page Patterns", "pages/page-patterns", []),
            ],
        ),
    ]
    assert menu(admin_api, "menu")["items"] == []  # an empty navigation is an empty menu, as in WordPress


def navigation(post_id: int, content: str, *, slug: str = "main", status: str = "publish") -> str:
    return post(
        post_id, title="Main &amp; more", slug=slug, content=content, status=status, post_type="wp_navigation"
    )


def test_navigation_links_to_terms_posts_and_addresses(admin_api):
    header = (
        "<wp:category><wp:term_id>7</wp:term_id><wp:category_nicename>news</wp:category_nicename>"
        "<wp:cat_name><![CDATA[News]]></wp:cat_name></wp:category>"
        "<wp:tag><wp:term_id>8</wp:term_id><wp:tag_slug>otters</wp:tag_slug>"
        "<wp:tag_name><![CDATA[Otters]]></wp:tag_name></wp:tag>"
    )
    links = (
        '<!-- wp:navigation-link {"label":"<strong>News</strong> &amp; views","type":"category","id":7,'
        '"url":"https://blog.example/category/news/","kind":"taxonomy"} /-->'
        '<!-- wp:navigation-submenu {"label":"Posts","type":"post","id":1,"url":"https://blog.example/?p=1",'
        '"kind":"post-type"} -->'
        '<!-- wp:navigation-link {"label":"Otters","type":"tag","id":8,"kind":"taxonomy"} /-->'
        '<!-- wp:navigation-link {"label":"Gone","type":"post","id":99,"url":"https://blog.example/gone/",'
        '"kind":"post-type"} /-->'
        "<!-- /wp:navigation-submenu -->"
        '<!-- wp:navigation-link {"label":"Shop","url":"https://shop.example/","kind":"custom"} /-->'
        "<!-- wp:page-list /-->"
    )
    items = (
        post(
            1,
            title="First",
            slug="first",
            extra='<category domain="category" nicename="news"><![CDATA[News]]></category>',
        )
        + navigation(2, links)
        + navigation(3, links, slug="old", status="trash")
    )

    job = run_import(admin_api, content=wxr(items, header=header))

    assert tree(menu(admin_api, "main")["items"]) == [
        ("taxonomy", "News & views", "category/news", []),
        (
            "content",
            "Posts",
            "posts/first",
            [
                ("taxonomy", "Otters", "post_tag/otters", []),
                # Post 99 is not in the export: the link keeps its address.
                ("custom", "Gone", "https://blog.example/gone/", []),
            ],
        ),
        ("custom", "Shop", "https://shop.example/", []),
    ]
    assert menu(admin_api, "main")["label"] == "Main & more"
    assert [warning for warning in job["summary"]["warnings"] if warning["code"].startswith("MENU")] == [
        {
            "code": "MENU_ITEM_SKIPPED",
            "message": "Navigation 2 'Main & more' holds a page-list block, which is no menu item; left out.",
            "sourceId": 2,
        },
        {
            "code": "MENU_SKIPPED",
            "message": "Navigation 3 'Main & more' is trash in WordPress; not made a menu.",
            "sourceId": 3,
        },
    ]
    assert admin_api.get("/_cms/api/menus/old").status_code == 404
