"""URL slugs: lowercase, whitespace to hyphens, punctuation removed, letters of every script kept (Django's unicode
slugify), at most 80 characters, cut at a hyphen when one is near the limit."""

from django.utils.text import slugify as django_slugify

MAX_SLUG_LENGTH = 80


def slugify(text: str, max_length: int = MAX_SLUG_LENGTH) -> str:
    slug = django_slugify(text.replace("_", "-"), allow_unicode=True)
    if len(slug) <= max_length:
        return slug
    cut = slug[:max_length]
    hyphen = cut.rfind("-")
    return (cut[:hyphen] if hyphen >= max_length // 2 else cut).strip("-")
