"""The search query language, parsed once in Python so that both databases read it alike and no input can break it.

The grammar is PostgreSQL's ``websearch_to_tsquery``: words are all required; ``"quoted words"`` must appear as a
phrase; ``-word`` or ``-"a phrase"`` excludes; ``or`` between words offers alternatives, binding looser than the
implied AND (``a b or c`` is ``(a AND b) OR c``). Everything else (parentheses, stray quotes, FTS operators such as
``NEAR``, ``AND``, ``*``, ``:``, ``^``) is plain text: it is only ever passed to the databases inside quotes, where
their tokenizers split it into words. A group of alternatives with nothing required (``-word`` alone) matches
nothing, on both databases, rather than everything.

- PostgreSQL gets the query rewritten in websearch syntax with every item quoted (``to_websearch``), for
  ``websearch_to_tsquery``.
- SQLite gets an FTS5 expression of quoted strings joined by AND, OR and NOT (``to_fts5``).
"""

from __future__ import annotations

from dataclasses import dataclass

from apps.search.documents import clean_text

MAX_QUERY_CHARS = 500


@dataclass(frozen=True)
class Group:
    """Alternatives are groups: every ``include`` must match and no ``exclude``. Items are words or phrases."""

    include: tuple[str, ...]
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchQuery:
    groups: tuple[Group, ...]

    @property
    def is_empty(self) -> bool:
        return not self.groups

    def to_websearch(self) -> str:
        def group(g: Group) -> str:
            return " ".join([*(f'"{item}"' for item in g.include), *(f'-"{item}"' for item in g.exclude)])

        return " or ".join(group(g) for g in self.groups)

    def to_fts5(self) -> str:
        def quoted(item: str) -> str:
            return '"' + item.replace('"', '""') + '"'

        def group(g: Group) -> str:
            expression = "(" + " AND ".join(quoted(item) for item in g.include) + ")"
            if g.exclude:
                expression = f"({expression} NOT ({' OR '.join(quoted(item) for item in g.exclude)}))"
            return expression

        return " OR ".join(group(g) for g in self.groups)


def _has_word(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _items(text: str) -> list[tuple[str, bool] | None]:
    """The query as items: (text, excluded) for words and phrases, None for an ``or`` between alternatives."""
    items: list[tuple[str, bool] | None] = []
    position, length = 0, len(text)
    while position < length:
        char = text[position]
        if char.isspace():
            position += 1
            continue
        negated = False
        if char == "-":
            # One or more dashes before a word or a phrase exclude it; dashes alone are nothing.
            while position < length and text[position] == "-":
                position += 1
            if position >= length or text[position].isspace():
                continue
            negated = True
            char = text[position]
        if char == '"':
            end = text.find('"', position + 1)
            end = length if end == -1 else end
            items.append((text[position + 1 : end], negated))
            position = end + 1
            continue
        end = position
        while end < length and not text[end].isspace() and text[end] != '"':
            end += 1
        word = text[position:end]
        position = end
        if not negated and word.lower() == "or":
            items.append(None)
        else:
            items.append((word, negated))
    return items


def parse(text: str) -> SearchQuery:
    """Parse user input; never fails. Items without a letter or digit are dropped (they match nothing anywhere)."""
    text = clean_text(text or "")[: MAX_QUERY_CHARS * 2]
    groups: list[Group] = []
    include: list[str] = []
    exclude: list[str] = []

    def close() -> None:
        if include:
            groups.append(Group(tuple(dict.fromkeys(include)), tuple(dict.fromkeys(exclude))))
        include.clear()
        exclude.clear()

    for item in _items(text):
        if item is None:
            close()
            continue
        words, negated = item
        words = " ".join(words.split())
        if not _has_word(words):
            continue
        (exclude if negated else include).append(words)
    close()
    return SearchQuery(tuple(dict.fromkeys(groups)))
