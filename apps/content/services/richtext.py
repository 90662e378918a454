"""Rich text brought in from elsewhere: HTML pasted into the studio's editor (a web page, Google Docs, Word).

The HTML goes through the same converter as imported posts (``apps.core.portabletext_html``), which keeps headings,
lists, links and the marks that inline styles spell (Google Docs writes bold as ``font-weight:700``) and drops
classes, styles and empty paragraphs. Keys are random, not sequential: the blocks are inserted into a document whose
keys they must not collide with."""

from __future__ import annotations

from apps.accounts.permissions import Actor, authorize
from apps.core.portabletext import new_key, normalize
from apps.core.portabletext_html import html_to_portable_text


def portable_text_from_html(*, actor: Actor, html: str) -> list[dict]:
    """Clean Portable Text for ``html``; an empty list when it holds nothing visible."""
    authorize(actor, "content.convert")
    blocks, _ = normalize(html_to_portable_text(html, keys=new_key))
    return blocks
