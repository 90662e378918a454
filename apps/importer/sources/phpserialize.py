"""A safe reader for PHP's ``serialize()`` format, in which WordPress stores structured meta values.

WordPress exports post, term and comment meta as the strings it keeps in the database; arrays and objects are
PHP-serialized (``a:1:{s:3:"foo";s:3:"bar";}``). This reads that format into plain Python values without running
anything: no classes are looked up or instantiated, no code is evaluated.

==============================  =====================================================================
PHP                             Python
==============================  =====================================================================
``N;`` ``b:1;`` ``i:7;``        None, bool, int
``d:0.5;`` (also INF, NAN)      float
``s:5:"bytes";``                str (the length counts UTF-8 bytes; invalid UTF-8 is replaced)
``a:2:{…}``                     list when the keys are 0, 1, … in order; otherwise dict (keys as str)
``O:8:"stdClass":1:{…}``        dict of the properties plus ``"__php_class__": "stdClass"``; private and
                                protected property names lose PHP's ``\\0Class\\0`` / ``\\0*\\0`` prefix
``E:11:"Suit:Hearts";``         str ``"Suit:Hearts"`` (PHP 8.1 enum case)
``r:2;`` ``R:2;``               the value already read at that position (PHP's references)
==============================  =====================================================================

``C:`` (a class's own serialization) and anything malformed raise ``PhpSerializeError``; ``maybe_unserialize``
then keeps the original string, as WordPress does when ``unserialize()`` fails. Nesting is limited to
``MAX_DEPTH`` so a hostile value cannot exhaust the stack.
"""

from __future__ import annotations

import math
import re
from typing import Any

MAX_DEPTH = 64
PHP_CLASS_KEY = "__php_class__"

# WordPress's is_serialized(): a type letter and ":" (or "N;"), ending in ";" or "}".
_LOOKS_SERIALIZED = re.compile(r"^(?:N;|b:[01];|[id]:[-+0-9.eEINFA]+;|[sSaOCE]:\d+:.*[;}])$", re.DOTALL)
_INTEGER = re.compile(rb"[-+]?\d+")
_FLOAT = re.compile(rb"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|INF)|NAN")


_CANONICAL_INTEGER = re.compile(r"-?[1-9]\d*|0")


def _php_key(key: int | str) -> int | str:
    return int(key) if isinstance(key, str) and _CANONICAL_INTEGER.fullmatch(key) else key


class PhpSerializeError(ValueError):
    """The value is not (valid, supported) PHP serialize() output."""


def is_serialized(value: Any) -> bool:
    """Whether a string looks like PHP serialize() output (WordPress's ``is_serialized()`` test)."""
    return isinstance(value, str) and bool(_LOOKS_SERIALIZED.match(value.strip()))


def maybe_unserialize(value: Any) -> Any:
    """The unserialized value when ``value`` is valid serialized data, else ``value`` unchanged."""
    if not is_serialized(value):
        return value
    try:
        return unserialize(value.strip())
    except PhpSerializeError:
        return value


def unserialize(data: str | bytes) -> Any:
    """Read one serialized value; the whole input must be that value."""
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    reader = _Reader(raw)
    value = reader.value(0)
    if reader.position != len(raw):
        raise PhpSerializeError(f"Unexpected data after the value at byte {reader.position}.")
    return value


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.position = 0
        # Every value read, in order, for r:/R: back-references (PHP numbers them from 1).
        self.values: list[Any] = []

    def fail(self, message: str) -> PhpSerializeError:
        return PhpSerializeError(f"{message} (at byte {self.position}).")

    def expect(self, token: bytes) -> None:
        if not self.data.startswith(token, self.position):
            raise self.fail(f"Expected {token.decode()!r}")
        self.position += len(token)

    def until(self, token: bytes) -> bytes:
        end = self.data.find(token, self.position)
        if end < 0:
            raise self.fail(f"Missing {token.decode()!r}")
        chunk = self.data[self.position : end]
        self.position = end + len(token)
        return chunk

    def integer(self, terminator: bytes) -> int:
        chunk = self.until(terminator)
        if not _INTEGER.fullmatch(chunk):
            raise self.fail(f"Expected a whole number, found {chunk[:20]!r}")
        return int(chunk)

    def length_prefixed(self) -> bytes:
        length = self.integer(b":")
        if length < 0:
            raise self.fail("Negative length")
        self.expect(b'"')
        end = self.position + length
        if end > len(self.data):
            raise self.fail("String runs past the end of the data")
        chunk = self.data[self.position : end]
        self.position = end
        self.expect(b'"')
        return chunk

    def text(self, chunk: bytes) -> str:
        return chunk.decode("utf-8", errors="replace")

    def value(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise self.fail(f"Nested more than {MAX_DEPTH} levels deep")
        if self.position + 1 >= len(self.data) and self.data[self.position : self.position + 1] != b"N":
            raise self.fail("Unexpected end of data")
        kind = self.data[self.position : self.position + 1]
        if kind == b"N":
            self.expect(b"N;")
            return self.remember(None)
        self.position += 1
        self.expect(b":")
        if kind == b"b":
            flag = self.until(b";")
            if flag not in (b"0", b"1"):
                raise self.fail("A boolean is 0 or 1")
            return self.remember(flag == b"1")
        if kind == b"i":
            return self.remember(self.integer(b";"))
        if kind == b"d":
            chunk = self.until(b";")
            if not _FLOAT.fullmatch(chunk):
                raise self.fail(f"Expected a number, found {chunk[:20]!r}")
            number = {b"INF": math.inf, b"-INF": -math.inf, b"+INF": math.inf, b"NAN": math.nan}.get(chunk)
            return self.remember(float(chunk) if number is None else number)
        if kind == b"s":
            text = self.text(self.length_prefixed())
            self.expect(b";")
            return self.remember(text)
        if kind == b"E":
            text = self.text(self.length_prefixed())
            self.expect(b";")
            return self.remember(text)
        if kind in (b"r", b"R"):
            index = self.integer(b";")
            if not 1 <= index <= len(self.values):
                raise self.fail(f"Reference to value {index}, which does not exist")
            # PHP does not count references themselves as values for numbering.
            return self.values[index - 1]
        if kind == b"a":
            return self.array(depth)
        if kind == b"O":
            return self.object(depth)
        if kind == b"C":
            raise self.fail("Objects with their own serialization (C:) are not supported")
        raise self.fail(f"Unknown type {kind.decode(errors='replace')!r}")

    def remember(self, value: Any) -> Any:
        self.values.append(value)
        return value

    def pairs(self, count: int, depth: int) -> list[tuple[Any, Any]]:
        if count < 0 or count > len(self.data) - self.position:
            raise self.fail("Impossible element count")
        self.expect(b"{")
        items = []
        for _ in range(count):
            key_kind = self.data[self.position : self.position + 1]
            if key_kind not in (b"i", b"s"):
                raise self.fail("Array keys are integers or strings")
            # Keys are not values for reference numbering.
            before = len(self.values)
            key = self.value(depth + 1)
            del self.values[before:]
            items.append((key, self.value(depth + 1)))
        self.expect(b"}")
        return items

    def array(self, depth: int) -> list | dict:
        count = self.integer(b":")
        slot = len(self.values)
        self.values.append(None)
        # PHP makes a key like "3" the integer 3 (zend_symtable_update), so keys are compared as PHP sees them.
        items = [(_php_key(key), value) for key, value in self.pairs(count, depth)]
        result: list | dict
        if all(key == index for index, (key, _) in enumerate(items)):
            result = [value for _, value in items]
        else:
            result = {str(key): value for key, value in items}
        self.values[slot] = result
        return result

    def object(self, depth: int) -> dict:
        class_name = self.text(self.length_prefixed())
        self.expect(b":")
        count = self.integer(b":")
        slot = len(self.values)
        self.values.append(None)
        result: dict[str, Any] = {PHP_CLASS_KEY: class_name}
        for key, value in self.pairs(count, depth):
            name = str(key)
            if name.startswith("\0"):
                # Private ("\0Class\0name") and protected ("\0*\0name") properties.
                name = name.rsplit("\0", 1)[-1]
            result[name] = value
        self.values[slot] = result
        return result
