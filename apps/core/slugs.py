"""URL slugs: lowercase, whitespace to hyphens, punctuation removed, letters of every script kept (Django's unicode
slugify), at most 80 characters, cut at a hyphen when one is near the limit."""

from django.db.models import QuerySet
from django.utils.text import slugify as django_slugify

MAX_SLUG_LENGTH = 80


def slugify(text: str, max_length: int = MAX_SLUG_LENGTH) -> str:
    slug = django_slugify(text.replace("_", "-"), allow_unicode=True)
    if len(slug) <= max_length:
        return slug
    cut = slug[:max_length]
    hyphen = cut.rfind("-")
    return (cut[:hyphen] if hyphen >= max_length // 2 else cut).strip("-")


def free_slug(existing: QuerySet, base: str, *, max_length: int = MAX_SLUG_LENGTH) -> str:
    """``base`` if no row of ``existing`` has it as its ``slug``, else ``base-2``, ``base-3`` … within the length limit.

    One range query on the slug index finds every "base-…" slug at once; LIKE would scan the table on SQLite, whose
    LIKE is case-insensitive and cannot use the index."""
    if not existing.filter(slug=base).exists():
        return base
    taken = set(existing.filter(slug__gte=f"{base}-", slug__lt=f"{base}.").values_list("slug", flat=True))
    number = 2
    while True:
        suffix = f"-{number}"
        if len(base) + len(suffix) <= max_length:
            candidate = base + suffix
            if candidate not in taken:
                return candidate
        else:
            # Near the length limit the base is shortened, so the candidate is outside the range read above.
            candidate = base[: max_length - len(suffix)].rstrip("-") + suffix
            if not existing.filter(slug=candidate).exists():
                return candidate
        number += 1
