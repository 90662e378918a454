"""Redirect URIs at client registration: each item is one URI (the toolkit stores them space-separated, so a space
would smuggle in more), https or loopback http, without a fragment or user credentials."""

from __future__ import annotations

import sys
import unicodedata
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st
from oauth2_provider.models import get_application_model

from apps.accounts.services.oauth_clients import RegistrationRefused, validate_redirect_uri

REGISTER = "/_cms/api/oauth/register"
SMUGGLED = "https://a/cb http://evil.example/cb javascript:alert(1)"
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")

# Every character that separates or hides: whitespace of any kind and the control characters (C0, DEL, C1).
SEPARATORS = [
    chr(code)
    for code in range(sys.maxunicode + 1)
    if chr(code).isspace() or unicodedata.category(chr(code)) == "Cc"
]

PCHAR = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@"
segment = st.text(alphabet=PCHAR, max_size=12)
path = st.lists(segment, max_size=4).map(lambda parts: "/" + "/".join(parts))
query = st.one_of(st.just(""), st.text(alphabet=PCHAR + "/?", max_size=20).map(lambda text: "?" + text))
port = st.one_of(st.just(""), st.integers(1, 65535).map(lambda number: f":{number}"))
domain = st.from_regex(
    r"[a-z0-9]([a-z0-9-]{0,15}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,15}[a-z0-9])?){0,3}", fullmatch=True
)
https_uri = st.builds(lambda host, p, path, q: f"https://{host}{p}{path}{q}", domain, port, path, query)
loopback_uri = st.builds(
    lambda host, p, path, q: f"http://{host}{p}{path}{q}", st.sampled_from(LOOPBACK), port, path, query
)
valid_uri = st.one_of(https_uri, loopback_uri)


@given(uri=valid_uri)
def test_one_https_or_loopback_uri_is_accepted_as_it_is(uri):
    assert validate_redirect_uri(uri) == uri


@given(first=valid_uri, separator=st.sampled_from(SEPARATORS), rest=st.text(max_size=40))
def test_a_space_or_control_character_anywhere_is_refused(first, separator, rest):
    for uri in (f"{first}{separator}{rest}", f"{rest}{separator}{first}"):
        with pytest.raises(RegistrationRefused) as refused:
            validate_redirect_uri(uri)
        assert refused.value.error == "invalid_redirect_uri"


@given(
    uri=st.one_of(
        st.text(max_size=80), valid_uri.flatmap(lambda base: st.text(max_size=20).map(base.__add__))
    )
)
def test_whatever_passes_is_one_uri_the_rules_allow(uri):
    try:
        accepted = validate_redirect_uri(uri)
    except RegistrationRefused as refused:
        assert refused.error == "invalid_redirect_uri"
        return
    # What is stored (space-separated by the toolkit) comes back as exactly this one URI.
    assert accepted == uri and " ".join([accepted]).split() == [uri]
    assert all(0x20 < ord(char) < 0x7F for char in uri)
    parts = urlsplit(uri)
    assert parts.scheme == "https" or (
        parts.scheme == "http" and parts.hostname in {"127.0.0.1", "localhost", "::1"}
    )
    assert parts.hostname and parts.username is None and parts.password is None and "#" not in uri


@pytest.mark.parametrize(
    ("uri", "description"),
    [
        ("https://a:99999/cb", "'https://a:99999/cb': not a valid URI (check the host and the port)."),
        ("https://[::1/cb", "'https://[::1/cb': not a valid URI (check the host and the port)."),
        (
            "https://a/100%",
            "'https://a/100%': each redirect URI must be one URI, without spaces, control characters or other "
            "characters RFC 3986 does not allow (percent-encode them); send several as separate items of "
            "redirect_uris.",
        ),
    ],
)
def test_malformed_uris_are_refused_plainly(uri, description):
    with pytest.raises(RegistrationRefused) as refused:
        validate_redirect_uri(uri)
    assert (refused.value.error, refused.value.description) == ("invalid_redirect_uri", description)


def test_several_uris_smuggled_in_one_string_are_refused(api):
    response = api.post(
        REGISTER,
        {"client_name": "x", "redirect_uris": [SMUGGLED], "token_endpoint_auth_method": "none"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {
        "error": "invalid_redirect_uri",
        "error_description": (
            f"{SMUGGLED!r}: each redirect URI must be one URI, without spaces, control characters or other "
            "characters RFC 3986 does not allow (percent-encode them); send several as separate items of "
            "redirect_uris."
        ),
    }
    assert not get_application_model().objects.exists()
