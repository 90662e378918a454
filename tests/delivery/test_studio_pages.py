"""The studio's delivery controls without a browser: the schema builder's URL pattern and preview URL (refusals
beside their controls), the Preview button's no-script path (a redirect to the front end) and who sees it."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from apps.accounts.models import Role
from tests.delivery.conftest import published
from tests.factories import make_user

pytestmark = pytest.mark.django_db


def signed_in(role: int) -> Client:
    client = Client()
    client.force_login(make_user(role))
    return client


def test_the_schema_builder_sets_and_checks_the_templates(blog):
    admin = signed_in(Role.ADMIN)
    form = {"label": "Blog", "supports": ["drafts", "revisions"], "previewUrl": ""}
    refused = admin.post("/_cms/admin/schema/blog/edit", {**form, "urlPattern": "/blog/{title}"})
    assert refused.status_code == 400
    page = refused.content.decode()
    assert (
        'id="c-url-pattern-error">Unknown placeholder(s) {title}; allowed: {slug}, {locale}, {id}.</p>'
        in page
    )
    assert 'value="/blog/{title}"' in page
    saved = admin.post("/_cms/admin/schema/blog/edit", {**form, "urlPattern": "/posts/{slug}"})
    assert saved.status_code == 302
    collection = admin.get("/_cms/api/schema/collections/blog").json()["data"]
    assert (collection["urlPattern"], collection["previewUrl"]) == ("/posts/{slug}", None)


def test_preview_without_scripts_redirects_to_the_front_end(blog):
    entry = published(blog, "Hello", "hello")
    editor = signed_in(Role.EDITOR)
    page = editor.get(f"/_cms/admin/content/blog/{entry.pk}/").content.decode()
    assert f'formaction="/_cms/admin/content/blog/{entry.pk}/preview" formtarget="_blank"' in page
    response = editor.post(f"/_cms/admin/content/blog/{entry.pk}/preview")
    assert response.status_code == 303
    address = urlsplit(response["Location"])
    assert (address.netloc, parse_qs(address.query)["path"]) == ("site.example", ["/blog/hello"])
    as_json = editor.post(f"/_cms/admin/content/blog/{entry.pk}/preview", HTTP_ACCEPT="application/json")
    assert as_json.status_code == 201
    assert set(as_json.json()["data"]) == {"token", "url", "expiresAt"}
    assert editor.get(f"/_cms/admin/content/blog/{entry.pk}/preview").status_code == 405
