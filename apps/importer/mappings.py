"""Checks of what an import is told to do with the export's post types and authors, made before a job exists, so a
typo is refused with its reason instead of surfacing in the middle of a run (or not at all)."""

from __future__ import annotations

from typing import Any

from apps.accounts.models import User
from apps.importer.models import ImportAnalysis
from apps.schema import services as schema_services


def mapping_slug_problem(post_type: str, collection: Any) -> str | None:
    """The collection slug rule, naming the post type that is mapped (the import creates the collection)."""
    problem = schema_services.slug_problem(collection)
    if problem is None:
        return None
    return f"Post type '{post_type}' cannot go into '{collection}': not a valid collection slug. {problem}"


def find_user(wanted: str) -> User | None:
    """The user an author mapping names: by id, else by email (case aside)."""
    return User.objects.filter(pk=wanted).first() or User.objects.filter(email__iexact=wanted).first()


def author_mapping_problems(analysis: ImportAnalysis, author_mappings: dict[str, Any]) -> dict[str, str]:
    """A mapping whose login is not in the export, or whose user does not exist, is a typo: refused rather than
    giving the author a guest byline nobody asked for."""
    logins = sorted(author["login"] for author in analysis.result.get("authors", []))
    problems = {}
    for login, wanted in author_mappings.items():
        if login not in logins:
            problems[f"authorMappings.{login}"] = (
                f"The export has no author '{login}'; it has: {', '.join(logins) or 'none'}."
            )
        elif not wanted or find_user(str(wanted)) is None:
            problems[f"authorMappings.{login}"] = f"No user has the id or email '{wanted}'."
    return problems
