"""Invalid UTF-8 in an export: each bad byte sequence becomes U+FFFD, and the lines where that happened are reported.

A WordPress export is UTF-8, and one stray byte (a Latin-1 "é" pasted into a post by an old plugin) made expat refuse
the whole file as not well-formed. The bytes are checked chunk by chunk as the reader streams the file, before expat
sees them: a chunk of ASCII costs one ``isascii()``, any other one a decode that is thrown away, and a sequence cut by
the chunk's end waits for the next chunk. A file whose XML declaration names another encoding, or that starts with a
UTF-16 byte order mark, is left to expat as it is. Anything else wrong with the file is still an error of its own.
"""

from __future__ import annotations

import codecs
import re

REPLACEMENT = "\ufffd".encode()
_DECLARATION = re.compile(
    rb"^(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?encoding\s*=\s*[\"']([A-Za-z0-9._-]+)[\"']", re.ASCII
)


def is_utf8(start: bytes) -> bool:
    """Whether a document beginning with ``start`` is UTF-8: XML's default, unless declared or marked otherwise."""
    if start.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    declared = _DECLARATION.match(start)
    return declared is None or declared.group(1).lower() in (b"utf-8", b"utf8")


class Utf8Repair:
    """Feeds chunks through ``repair``; ``lines`` collects the (1-based) lines where bytes were replaced."""

    def __init__(self) -> None:
        self.pending = b""
        self.newlines = 0  # newlines in what was passed on so far
        self.lines: list[int] = []

    def repair(self, data: bytes, *, final: bool) -> bytes:
        if self.pending:
            data, self.pending = self.pending + data, b""
        if data.isascii():
            self.newlines += data.count(b"\n")
            return data
        parts: list[bytes] = []
        position = 0
        while position < len(data):
            try:
                _, consumed = codecs.utf_8_decode(memoryview(data)[position:], "strict", final)
            except UnicodeDecodeError as error:
                bad, after = position + error.start, position + error.end
                parts += [data[position:bad], REPLACEMENT]
                line = self.newlines + data.count(b"\n", 0, bad) + 1
                if not self.lines or self.lines[-1] != line:
                    self.lines.append(line)
                position = after
                continue
            parts.append(data[position : position + consumed])
            position += consumed
            # Not final: what is left is a sequence the next chunk completes.
            self.pending = data[position:]
            break
        output = b"".join(parts)
        self.newlines += output.count(b"\n")
        return output
