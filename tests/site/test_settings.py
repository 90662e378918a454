"""Site settings over HTTP (SPEC §4.8): defaults, partial updates, validation, logo and favicon resolved."""

from __future__ import annotations

from apps.accounts.models import Role
from apps.media.storage import media_url
from tests.factories import PDF_BYTES, make_media, png_bytes

SETTINGS = "/_cms/api/settings"
DEFAULTS = {
    "siteTitle": "My Site",
    "tagline": "",
    "postsPerPage": 10,
    "url": "",
    "timezone": "UTC",
    "dateFormat": "yyyy-MM-dd",
    "logo": None,
    "favicon": None,
    "updatedAt": None,
}


def test_defaults_before_any_change(admin_api):
    assert admin_api.get(SETTINGS).json() == {"success": True, "data": DEFAULTS}


def test_put_changes_only_the_keys_sent(admin_api):
    response = admin_api.put(SETTINGS, {"siteTitle": "Field Notes", "postsPerPage": 25}, format="json")
    assert response.status_code == 200
    data = response.json()["data"]
    assert data == {
        **DEFAULTS,
        "siteTitle": "Field Notes",
        "postsPerPage": 25,
        "updatedAt": data["updatedAt"],
    }
    again = admin_api.put(
        SETTINGS,
        {
            "tagline": "Notes from the field",
            "timezone": "Europe/Paris",
            "url": "https://example.com/",
            "dateFormat": "d MMMM y",
        },
        format="json",
    ).json()["data"]
    assert (again["siteTitle"], again["postsPerPage"], again["tagline"]) == (
        "Field Notes",
        25,
        "Notes from the field",
    )
    assert (again["timezone"], again["url"], again["dateFormat"]) == (
        "Europe/Paris",
        "https://example.com",
        "d MMMM y",
    )
    assert admin_api.get(SETTINGS).json()["data"] == again


def test_logo_and_favicon_are_resolved_images(admin_api):
    logo = make_media(content=png_bytes(size=(120, 40)), alt="Logo")
    favicon = make_media(content=png_bytes(size=(32, 32), color=(0, 0, 0)))
    data = admin_api.put(SETTINGS, {"logo": logo.pk, "favicon": favicon.pk}, format="json").json()["data"]
    assert data["logo"] == {
        "id": logo.pk,
        "url": media_url(logo.storage_key),
        "alt": "Logo",
        "width": 120,
        "height": 40,
    }
    assert data["favicon"]["width"] == 32
    cleared = admin_api.put(SETTINGS, {"logo": None}, format="json").json()["data"]
    assert (cleared["logo"], cleared["favicon"]["id"]) == (None, favicon.pk)
    # Deleting the media clears the setting.
    admin_api.delete(f"/_cms/api/media/{favicon.pk}")
    assert admin_api.get(SETTINGS).json()["data"]["favicon"] is None


def test_validation(admin_api):
    pdf = make_media(content=PDF_BYTES, filename="a.pdf")
    response = admin_api.put(
        SETTINGS,
        {
            "postsPerPage": 0,
            "timezone": "Mars/Olympus",
            "url": "ftp://x",
            "logo": pdf.pk,
            "favicon": "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "postsPerPage": "Ensure this value is greater than or equal to 1."
    }
    response = admin_api.put(
        SETTINGS,
        {
            "timezone": "Mars/Olympus",
            "url": "ftp://x",
            "logo": pdf.pk,
            "favicon": "01ARZ3NDEKTSV4RRFFQ69G5FAV",
        },
        format="json",
    )
    assert response.json()["error"]["details"] == {
        "url": "The site's public address, e.g. https://example.com (or empty).",
        "timezone": "Unknown time zone 'Mars/Olympus'; use an IANA name such as Europe/Paris or UTC.",
        "logo": f"Media item {pdf.pk} is application/pdf, not an image.",
        "favicon": "No media item 01ARZ3NDEKTSV4RRFFQ69G5FAV.",
    }
    assert admin_api.put(SETTINGS, {"postsPerPage": 101}, format="json").status_code == 400
    assert admin_api.get(SETTINGS).json()["data"] == DEFAULTS


def test_unknown_keys_are_refused(admin_api):
    response = admin_api.put(SETTINGS, {"siteTitle": "X", "theme": "dark"}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "theme": "Unknown field; allowed: dateFormat, favicon, logo, postsPerPage, siteTitle, tagline, timezone, url."
    }


def test_reading_needs_content_read_and_changing_the_admin(client_for):
    assert client_for(Role.SUBSCRIBER, ["content:read"]).get(SETTINGS).status_code == 200
    editor = client_for(Role.EDITOR, ["content:write"])
    assert editor.put(SETTINGS, {"siteTitle": "x"}, format="json").status_code == 403
    assert (
        client_for(Role.ADMIN, ["content:write"]).put(SETTINGS, {"siteTitle": "x"}, format="json").status_code
        == 403
    )
    assert (
        client_for(Role.ADMIN, ["admin"]).put(SETTINGS, {"siteTitle": "x"}, format="json").status_code == 200
    )
