"""What an export holds, counted in one streaming pass (SPEC §4.10 rule 3, the analysis step).

``analyze_records(records)`` reads what a source yields (site info, authors, terms, items, skipped things) without
keeping items, and returns plain counts: post types with their statuses, taxonomies and their terms, authors with
their post counts, attachments, reusable blocks, menus, custom fields and what is skipped. Which collection each post
type maps to, and whether that collection is ready, is decided against the database by ``services``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from apps.importer.items import Author, ImportItem, Notice, SiteInfo, Skipped, Term
from apps.importer.navigation import navigation_items
from apps.importer.slugs import base_slug

# WordPress's own bookkeeping, never content: revisions and autosaves, customizer and editor state, caches, the
# site editor's templates and styles, privacy requests. Menu items, block themes' navigations, attachments and
# reusable blocks are imported, but as menus, media and sections rather than entries.
INTERNAL_TYPES = frozenset(
    {
        "revision",
        "custom_css",
        "customize_changeset",
        "oembed_cache",
        "user_request",
        "wp_global_styles",
        "wp_template",
        "wp_template_part",
        "wp_font_family",
        "wp_font_face",
        "auto-draft",
    }
)
SPECIAL_TYPES = frozenset({"attachment", "nav_menu_item", "wp_block", "wp_navigation"})
# Terms of these taxonomies are not content labels: menus become menus; the others describe editor state.
NON_CONTENT_TAXONOMIES = frozenset({"nav_menu", "wp_theme", "wp_template_part_area", "link_category"})
# Language plugins' bookkeeping taxonomies: their data becomes locales and translation groups.
LANGUAGE_TAXONOMIES = frozenset({"language", "post_translations", "term_language", "term_translations"})


def is_content_type(post_type: str) -> bool:
    return post_type not in INTERNAL_TYPES and post_type not in SPECIAL_TYPES


def is_content_taxonomy(taxonomy: str) -> bool:
    return taxonomy not in NON_CONTENT_TAXONOMIES and taxonomy not in LANGUAGE_TAXONOMIES


def analyze_records(records: Iterable[Any]) -> dict[str, Any]:
    site: dict[str, Any] = {}
    types: dict[str, Counter] = defaultdict(Counter)
    type_taxonomies: dict[str, set[str]] = defaultdict(set)
    type_has_featured: set[str] = set()
    taxonomy_terms: dict[str, set[str]] = defaultdict(set)
    taxonomy_parented: set[str] = set()
    authors: dict[str, dict[str, Any]] = {}
    author_posts: Counter = Counter()
    custom_fields: Counter = Counter()
    skipped: Counter = Counter()
    skipped_notes: list[dict[str, Any]] = []
    menus: dict[str, dict[str, Any]] = {}
    reusable: list[dict[str, Any]] = []
    attachments = 0
    items = 0
    languages: Counter = Counter()
    for record in records:
        if isinstance(record, SiteInfo):
            site = record.to_dict()
            site.pop("exportedAt", None)
            site.pop("generator", None)
        elif isinstance(record, Author):
            authors[record.login] = {
                "login": record.login,
                "email": record.email,
                "displayName": record.display_name or record.login,
            }
        elif isinstance(record, Term):
            if record.taxonomy == "nav_menu":
                menus.setdefault(
                    record.slug, {"slug": record.slug, "name": record.name or record.slug, "items": 0}
                )
            elif is_content_taxonomy(record.taxonomy):
                taxonomy_terms[record.taxonomy].add(record.slug)
                if record.parent:
                    taxonomy_parented.add(record.taxonomy)
        elif isinstance(record, (Skipped, Notice)):
            if len(skipped_notes) < 100:
                skipped_notes.append(record.to_dict())
        elif isinstance(record, ImportItem):
            items += 1
            post_type = record.post_type
            if post_type in INTERNAL_TYPES:
                skipped[post_type] += 1
            elif post_type == "attachment":
                attachments += 1
            elif post_type == "nav_menu_item":
                for menu in (record.menu_item.menus if record.menu_item else []) or []:
                    menus.setdefault(menu, {"slug": menu, "name": menu, "items": 0})["items"] += 1
            elif post_type == "wp_block":
                reusable.append({"id": record.source_id, "title": record.title})
            elif post_type == "wp_navigation":
                if record.status == "publish":
                    menus[f"wp_navigation:{record.source_id}"] = {
                        "slug": base_slug(record) or "navigation",
                        "name": record.title or record.slug,
                        "items": len(navigation_items(record.raw_content)[0]),
                    }
            else:
                types[post_type][record.status] += 1
                for ref in record.terms:
                    if is_content_taxonomy(ref.taxonomy):
                        type_taxonomies[post_type].add(ref.taxonomy)
                        # Terms used by items but missing from the header (post formats) are created too.
                        taxonomy_terms[ref.taxonomy].add(ref.slug)
                if record.featured_image is not None:
                    type_has_featured.add(post_type)
                for login in dict.fromkeys([record.author, *record.authors]):
                    if login:
                        author_posts[login] += 1
                        authors.setdefault(login, {"login": login, "email": "", "displayName": login})
                for key in record.meta:
                    if not key.startswith("_"):
                        custom_fields[key] += 1
                if record.language is not None:
                    languages[record.language.code] += 1
    return {
        "site": site,
        "itemCount": items,
        "postTypes": [
            {
                "name": name,
                "count": sum(statuses.values()),
                "statuses": dict(sorted(statuses.items())),
                "taxonomies": sorted(type_taxonomies[name]),
                "featuredImages": name in type_has_featured,
            }
            for name, statuses in sorted(types.items())
        ],
        "taxonomies": [
            {
                "name": name,
                "terms": len(slugs),
                "hierarchical": name == "category" or name in taxonomy_parented,
                "postTypes": sorted(t for t, names in type_taxonomies.items() if name in names),
            }
            for name, slugs in sorted(taxonomy_terms.items())
        ],
        "authors": [
            {**author, "posts": author_posts.get(login, 0)} for login, author in sorted(authors.items())
        ],
        "attachments": attachments,
        "reusableBlocks": reusable,
        "menus": sorted(menus.values(), key=lambda menu: menu["slug"]),
        "customFields": [{"key": key, "count": count} for key, count in sorted(custom_fields.items())],
        "languages": [{"code": code, "count": count} for code, count in sorted(languages.items())],
        "skipped": [
            {"postType": name, "count": count, "reason": "WordPress-internal type"}
            for name, count in sorted(skipped.items())
        ],
        "notes": skipped_notes,
    }
