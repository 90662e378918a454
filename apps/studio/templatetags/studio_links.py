"""``{% editor_url collection_slug entry_id %}``: the entry editor's address, from ``apps.studio.links``."""

from django import template

from apps.studio.links import editor_path

register = template.Library()


@register.simple_tag
def editor_url(collection_slug: str, entry_id: str) -> str:
    return editor_path(collection_slug, entry_id)
