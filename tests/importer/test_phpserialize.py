"""PHP unserialize: WordPress's meta formats, round trips of generated values, and hostile input that must not run."""

import contextlib
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.importer.sources.phpserialize import (
    MAX_DEPTH,
    PhpSerializeError,
    is_serialized,
    maybe_unserialize,
    unserialize,
)


def serialize(value) -> str:
    """PHP's serialize() for the values our reader returns (lengths count UTF-8 bytes, like PHP)."""
    if value is None:
        return "N;"
    if isinstance(value, bool):
        return f"b:{int(value)};"
    if isinstance(value, int):
        return f"i:{value};"
    if isinstance(value, float):
        return f"d:{value!r};"
    if isinstance(value, str):
        return f's:{len(value.encode())}:"{value}";'
    items = enumerate(value) if isinstance(value, list) else value.items()
    body = "".join(
        (f"i:{key};" if isinstance(key, int) else serialize(key)) + serialize(item) for key, item in items
    )
    return f"a:{len(value)}:{{{body}}}"


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(min_size=1), children, max_size=4)
    ),
    max_leaves=12,
)


def as_php_sees_it(value):
    """PHP arrays cannot tell {"0": a, "1": b} (or {}) from [a, b] (or []): we read those as lists."""
    if isinstance(value, dict):
        value = {key: as_php_sees_it(item) for key, item in value.items()}
        if list(value) == [str(index) for index in range(len(value))]:
            return list(value.values())
        return value
    if isinstance(value, list):
        return [as_php_sees_it(item) for item in value]
    return value


@given(values)
def test_round_trip_of_generated_values(value):
    assert unserialize(serialize(value)) == as_php_sees_it(value)


@given(st.text())
def test_any_text_is_either_unserialized_or_kept(text):
    result = maybe_unserialize(text)
    assert result == text or is_serialized(text)


@given(st.binary())
def test_arbitrary_bytes_raise_only_our_error(data):
    with contextlib.suppress(PhpSerializeError):
        unserialize(data)


def test_wordpress_meta_shapes():
    assert unserialize('a:1:{s:3:"key";s:13:"¯\\_(ツ)_/¯";}') == {"key": "¯\\_(ツ)_/¯"}  # lengths in bytes
    assert unserialize('a:2:{i:0;s:1:"a";i:1;s:1:"b";}') == ["a", "b"]
    assert unserialize('a:2:{i:1;s:1:"a";i:0;s:1:"b";}') == {"1": "a", "0": "b"}
    assert unserialize('a:1:{i:0;s:0:"";}') == [""]  # _menu_item_classes of a plain menu item
    assert unserialize("b:1;") is True and unserialize("N;") is None and unserialize("i:-42;") == -42
    assert (
        unserialize("d:0.5;") == 0.5
        and unserialize("d:INF;") == math.inf
        and math.isnan(unserialize("d:NAN;"))
    )
    assert unserialize('E:11:"Suit:Hearts";') == "Suit:Hearts"


def test_objects_become_dictionaries_without_running_anything():
    private = 'O:4:"Evil":2:{s:9:"\x00Evil\x00cmd";s:6:"rm -rf";s:7:"\x00*\x00prot";i:1;}'
    assert unserialize(private) == {"__php_class__": "Evil", "cmd": "rm -rf", "prot": 1}
    assert unserialize('O:8:"stdClass":1:{s:3:"tag";s:5:"album";}') == {
        "__php_class__": "stdClass",
        "tag": "album",
    }


def test_references_point_at_values_already_read():
    assert unserialize("a:3:{i:0;i:7;i:1;r:2;i:2;R:2;}") == [7, 7, 7]
    with pytest.raises(PhpSerializeError):
        unserialize("a:1:{i:0;r:9;}")


@pytest.mark.parametrize(
    "data",
    [
        's:5:"abc";',  # length longer than the string
        's:2:"abc";',  # shorter
        "a:2:{i:0;i:1;}",  # fewer elements than announced
        "a:999999999:{}",  # an impossible count is refused before any work
        'C:3:"Foo":4:{data}',  # a class's own serialization
        "i:12abc;",
        "b:2;",
        "x:1;",
        "a:1:{d:0.5;i:1;}",  # keys are integers or strings
        "i:1;trailing",
        "",
        's:-1:"";',
    ],
)
def test_malformed_data_is_refused(data):
    with pytest.raises(PhpSerializeError):
        unserialize(data)
    assert maybe_unserialize(data) == data


def test_nesting_is_limited():
    deep = "a:1:{i:0;" * (MAX_DEPTH + 5) + "N;" + "}" * (MAX_DEPTH + 5)
    with pytest.raises(PhpSerializeError, match="levels deep"):
        unserialize(deep)
    assert maybe_unserialize(deep) == deep


def test_only_serialized_looking_text_is_touched():
    for plain in ("1", "default", "a:b", "http://example.test/a:1:{}", "s:3:abc"):
        assert maybe_unserialize(plain) == plain
    assert maybe_unserialize(" a:0:{} ") == []
    assert maybe_unserialize(5) == 5


def test_numeric_string_keys_are_integers_as_in_php():
    assert unserialize('a:2:{s:1:"0";s:1:"a";s:1:"1";s:1:"b";}') == ["a", "b"]
    assert unserialize('a:1:{s:2:"01";i:1;}') == {"01": 1}
