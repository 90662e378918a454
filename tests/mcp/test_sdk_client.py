"""The official MCP SDK client against the live server: the handshake-era ``ClientSession`` over
``streamable_http_client``, ``mcp.Client`` in auto mode (which settles on the stateless 2026-07-28 revision), and the
OAuth flow of ``OAuthClientProvider``. Every answer the server sends is checked against the official JSON Schema of
the protocol version it was sent under (an httpx response hook records problems; the test asserts there are none).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
import pytest
import requests
from django.test import Client as DjangoClient
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from mcp.shared.exceptions import MCPError

from apps.accounts.models import Role
from apps.mcp.management.commands.mcp_tools import snapshot
from tests.factories import make_token, make_user
from tests.mcp.wire import MODERN, check_message, check_output, check_refusal

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SNAPSHOT = Path(__file__).resolve().parents[2] / "docs" / "mcp-tools.json"
MARKDOWN = "## Why\n\nBecause *Markdown* is what agents write.\n\n1. first\n2. second\n\n> quoted\n"


@pytest.fixture
def base_url(live_server, settings):
    settings.CMS_BASE_URL = live_server.url
    return live_server.url


@pytest.fixture
def endpoint(base_url):
    return f"{base_url}/_cms/api/mcp"


class Recorder:
    """Checks every answer of the endpoint against the schema of its protocol version."""

    def __init__(self):
        self.problems: list[str] = []
        self.seen: list[tuple[str, str | None, int]] = []

    async def __call__(self, response: httpx2.Response) -> None:
        request = response.request
        if request.method != "POST" or not request.url.path.endswith("/_cms/api/mcp"):
            return
        await response.aread()
        body = json.loads(request.content)
        method = body.get("method")
        try:
            if response.status_code == 202:
                assert "id" not in body or "method" not in body, f"a request answered 202: {body}"
                assert response.content == b""
                self.seen.append(("-", method, 202))
                return
            message = response.json()
            version = request.headers.get("mcp-protocol-version")
            if method == "initialize" and "result" in message:
                version = message["result"]["protocolVersion"]
            if response.status_code in (401, 403, 405, 406, 413, 415, 429, 503):
                # A refusal of the transport: valid under every version, with the request's id or null.
                check_refusal(message)
            else:
                check_message(version or MODERN, method, message)
                if method == "tools/call" and not message.get("result", {}).get("isError", True):
                    check_output(body["params"]["name"], json.loads(message["result"]["content"][0]["text"]))
            self.seen.append((version or "-", method, response.status_code))
        except AssertionError as exc:
            self.problems.append(f"{method}: {exc}")


def http_client(recorder: Recorder, token: str | None = None, auth=None) -> httpx2.AsyncClient:
    headers = {"Authorization": f"Bearer {token}"} if token else None
    return httpx2.AsyncClient(headers=headers, auth=auth, timeout=30, event_hooks={"response": [recorder]})


def structured(result) -> dict:
    assert result.is_error is False, result.content[0].text
    value = json.loads(result.content[0].text)
    assert result.structured_content == value
    return value


def test_tools_list_matches_the_committed_snapshot():
    assert json.loads(SNAPSHOT.read_text()) == snapshot(), (
        "run `make mcp-tools` and commit docs/mcp-tools.json"
    )


def test_an_agent_session_does_everything_in_one_go(endpoint):
    token = make_token(make_user(Role.ADMIN), ["admin"])[1]
    recorder = Recorder()

    async def session() -> None:
        async with (
            http_client(recorder, token) as http,
            streamable_http_client(endpoint, http_client=http) as (read, write),
            ClientSession(read, write) as mcp,
        ):
            initialized = await mcp.initialize()
            assert initialized.protocol_version == "2025-11-25"
            assert initialized.server_info.name == "cms"
            listed = await mcp.list_tools()
            assert [tool.name for tool in listed.tools] == [tool["name"] for tool in snapshot()]

            async def call(name: str, arguments: dict) -> dict:
                return structured(await mcp.call_tool(name, arguments))

            await call(
                "schema_create_collection",
                {"slug": "posts", "label": "Posts", "supports": ["drafts", "revisions", "search"]},
            )
            await call(
                "schema_create_field",
                {
                    "collection": "posts",
                    "slug": "title",
                    "label": "Title",
                    "type": "string",
                    "required": True,
                    "searchable": True,
                },
            )
            await call(
                "schema_create_field",
                {"collection": "posts", "slug": "body", "label": "Body", "type": "portableText"},
            )
            await call("taxonomy_create", {"name": "tag", "label": "Tags", "collections": ["posts"]})
            await call("taxonomy_create_term", {"taxonomy": "tag", "slug": "agents", "label": "Agents"})
            created = await call(
                "content_create",
                {
                    "collection": "posts",
                    "data": {"title": "Written by an agent", "body": MARKDOWN},
                    "taxonomies": {"tag": ["agents"]},
                },
            )
            entry_id = created["item"]["id"]
            assert [term["slug"] for term in created["item"]["terms"]["tag"]] == ["agents"]
            updated = await call(
                "content_update",
                {
                    "collection": "posts",
                    "id": entry_id,
                    "data": {"body": "Replaced."},
                    "_rev": created["_rev"],
                },
            )
            stale = await mcp.call_tool(
                "content_update",
                {"collection": "posts", "id": entry_id, "data": {"title": "x"}, "_rev": created["_rev"]},
            )
            assert stale.is_error is True
            assert stale.content[0].text.startswith("[CONFLICT] ")
            published = await call("content_publish", {"collection": "posts", "id": entry_id})
            assert published["item"]["status"] == "published"
            found = await call("search", {"query": "agent", "collections": ["posts"]})
            assert [(hit["id"], hit["title"]) for hit in found["items"]] == [
                (entry_id, "Written by an agent")
            ]
            revisions = await call("revision_list", {"collection": "posts", "id": entry_id})
            first = revisions["items"][-1]
            assert (first["action"], "title" in first["changedFields"]) == ("create", True)
            saved = await call("revision_get", {"revisionId": first["id"]})
            assert saved["data"]["title"] == "Written by an agent"
            await call("revision_restore", {"revisionId": first["id"]})
            got = await call(
                "content_get", {"collection": "posts", "id": "written-by-an-agent", "format": "markdown"}
            )
            assert got["item"]["data"]["body"] == MARKDOWN
            assert got["item"]["liveData"]["body"] == "Replaced.\n"
            assert got["_rev"] != updated["_rev"]

            missing = await mcp.call_tool("content_get", {"collection": "posts", "id": "nope"})
            assert missing.is_error is True
            assert missing.content[0].text == "[NOT_FOUND] No entry 'nope' in 'posts'."
            with pytest.raises(MCPError) as unknown:
                await mcp.call_tool("no_such_tool", {})
            assert unknown.value.error.code == -32602

    anyio.run(session)
    assert recorder.problems == []
    assert {version for version, _, _ in recorder.seen} >= {"2025-11-25"}


def test_scope_refusals_reach_the_sdk_as_json_rpc_errors(endpoint):
    token = make_token(make_user(Role.ADMIN), ["content:read"])[1]
    recorder = Recorder()

    async def session() -> None:
        async with (
            http_client(recorder, token) as http,
            streamable_http_client(endpoint, http_client=http) as (read, write),
            ClientSession(read, write) as mcp,
        ):
            await mcp.initialize()
            with pytest.raises(MCPError) as refused:
                await mcp.call_tool("schema_list_collections", {})
            assert refused.value.error.code == -32600
            assert refused.value.error.message == "Insufficient scope: requires schema:read"

    anyio.run(session)
    assert recorder.problems == []


def test_the_client_in_auto_mode_speaks_2026_07_28(endpoint):
    token = make_token(make_user(Role.ADMIN), ["content:read", "content:write", "schema:write"])[1]
    recorder = Recorder()

    async def session() -> None:
        async with (
            http_client(recorder, token) as http,
            Client(streamable_http_client(endpoint, http_client=http)) as client,
        ):
            assert client.protocol_version == MODERN
            tools = await client.list_tools()
            assert len(tools.tools) == len(snapshot())
            made = await client.call_tool("schema_create_collection", {"slug": "notes", "label": "Notes"})
            assert structured(made)["slug"] == "notes"
            await client.call_tool(
                "schema_create_field",
                {"collection": "notes", "slug": "title", "label": "Title", "type": "string"},
            )
            entry = structured(
                await client.call_tool("content_create", {"collection": "notes", "data": {"title": "Hi"}})
            )
            got = structured(
                await client.call_tool("content_get", {"collection": "notes", "id": entry["item"]["id"]})
            )
            assert got["item"]["data"] == {"title": "Hi"}
            bad = await client.call_tool(
                "content_create", {"collection": "notes", "data": {}, "colour": "red"}
            )
            assert bad.is_error is True
            assert bad.content[0].text.startswith("[VALIDATION_ERROR] colour: Unknown argument")
            with pytest.raises(MCPError) as refused:
                await client.call_tool("media_list", {})
            assert refused.value.error.code == -32600

    anyio.run(session)
    assert recorder.problems == []
    assert ("2026-07-28", "server/discover", 200) in recorder.seen
    assert all(version == MODERN for version, _, _ in recorder.seen)


def test_no_token_is_401_with_the_challenge(endpoint, base_url):
    response = requests.post(
        endpoint,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json, text/event-stream"},
        timeout=10,
    )
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == (
        f'Bearer resource_metadata="{base_url}/.well-known/oauth-protected-resource", '
        'scope="content:read content:write media:read media:write schema:read"'
    )


# --- OAuth -----------------------------------------------------------------------------------------------------------


class MemoryStorage:
    def __init__(self):
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


REDIRECT = "http://127.0.0.1:53682/callback"
APPROVED = ("content:read", "schema:read")


def _consent(session_cookie: tuple[str, str], url: str) -> AuthorizationCodeResult:
    """The signed-in user's browser: open the consent page, approve what it asks for, follow nothing further."""
    browser = requests.Session()
    browser.cookies.set(*session_cookie)
    page = browser.get(url, timeout=10)
    assert page.status_code == 200, page.text[:500]
    form = {
        name: value
        for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text)
    }
    offered = re.findall(r'name="scope" value="([^"]+)" checked', page.text)
    # The user approves reading only, whatever the client asked for.
    form["scope"] = [scope for scope in offered if scope in APPROVED]
    form["decision"] = "approve"
    answer = browser.post(
        url.split("?")[0], data=form, headers={"Referer": url}, allow_redirects=False, timeout=10
    )
    assert answer.status_code == 302, answer.text[:500]
    query = {key: values[0] for key, values in parse_qs(urlsplit(answer.headers["Location"]).query).items()}
    return AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))


def _signed_in_cookie(user) -> tuple[str, str]:
    browser = DjangoClient()
    browser.force_login(user)
    cookie = browser.cookies["sessionid"]
    return "sessionid", cookie.value


def test_the_oauth_flow_of_the_sdk_client(endpoint, base_url):
    user = make_user(Role.ADMIN)
    cookie = _signed_in_cookie(user)
    recorder = Recorder()
    storage = MemoryStorage()
    redirected: list[str] = []

    async def redirect_handler(url: str) -> None:
        redirected.append(url)

    async def callback_handler() -> AuthorizationCodeResult:
        return await anyio.to_thread.run_sync(_consent, cookie, redirected[-1])

    provider = OAuthClientProvider(
        server_url=endpoint,
        client_metadata=OAuthClientMetadata(
            client_name="SDK test",
            redirect_uris=[REDIRECT],
            grant_types=["authorization_code", "refresh_token"],
            token_endpoint_auth_method="none",
            scope="content:read schema:read",
        ),
        storage=storage,
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )

    async def session() -> None:
        async with (
            http_client(recorder, auth=provider) as http,
            streamable_http_client(endpoint, http_client=http) as (read, write),
            ClientSession(read, write) as mcp,
        ):
            await mcp.initialize()
            listed = structured(await mcp.call_tool("schema_list_collections", {}))
            assert listed == {"items": [], "nextCursor": None}
            with pytest.raises(MCPError) as refused:
                await mcp.call_tool("content_create", {"collection": "x", "data": {}})
            assert refused.value.error.message == "Insufficient scope: requires content:write"

    anyio.run(session)
    assert recorder.problems == []
    assert storage.client is not None and storage.tokens is not None
    assert set(storage.tokens.scope.split()) == {"content:read", "schema:read"}
    assert parse_qs(urlsplit(redirected[0]).query)["resource"] == [endpoint]
    assert recorder.seen[0] == ("-", "initialize", 401)

    # The same token is refused by the REST API, for which it was not issued (RFC 8707 audience).
    rest = requests.get(
        f"{base_url}/_cms/api/schema/collections",
        headers={"Authorization": f"Bearer {storage.tokens.access_token}"},
        timeout=10,
    )
    assert rest.status_code == 401


def test_a_token_issued_for_the_rest_api_is_refused_by_the_tool_server(endpoint, base_url):
    from tests.accounts import oauth_helpers

    user = make_user(Role.ADMIN)
    browser = DjangoClient()
    browser.force_login(user)
    api = DjangoClient()
    client_id = oauth_helpers.register_client(_JsonPoster(api))
    verifier, challenge = oauth_helpers.pkce()
    code = oauth_helpers.authorization_code(browser, client_id, challenge, resource=f"{base_url}/_cms/api")
    token = oauth_helpers.exchange(api, client_id, code, verifier).json()["access_token"]
    response = requests.post(
        endpoint,
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Accept": "application/json", "Authorization": f"Bearer {token}"},
        timeout=10,
    )
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


class _JsonPoster:
    """Django's test client with DRF's ``format="json"`` spelling, which the OAuth helpers use."""

    def __init__(self, client):
        self.client = client

    def post(self, path, data, format=None):
        return self.client.post(path, json.dumps(data), content_type="application/json")


def test_every_tool_succeeds_through_the_sdk_client(endpoint):
    from apps.accounts.permissions import Actor
    from apps.site import services as site_services
    from apps.taxonomy import services as taxonomy_services
    from apps.webhooks import delivery
    from tests.factories import make_collection, make_media, png_bytes

    token = make_token(make_user(Role.ADMIN), ["admin"])[1]
    make_collection(
        "posts",
        supports=["drafts", "revisions", "scheduling", "search"],
        fields=[("title", "string", {"required": True, "searchable": True}), ("body", "portableText")],
    )
    taxonomy_services.taxonomy_create(
        actor=Actor.system(), name="category", label="Categories", collections=["posts"]
    )
    media_id = make_media(filename="photo.png").pk
    site_services.widget_area_create(actor=Actor.system(), name="sidebar", label="Sidebar")
    recorder = Recorder()
    called: set[str] = set()

    async def session() -> None:
        async with (
            http_client(recorder, token) as http,
            Client(streamable_http_client(endpoint, http_client=http)) as client,
        ):

            async def call(name: str, arguments: dict | None = None) -> dict:
                called.add(name)
                return structured(await client.call_tool(name, arguments or {}))

            await call("schema_list_collections")
            await call("schema_get_collection", {"slug": "posts"})
            await call("schema_create_collection", {"slug": "scratch", "label": "Scratch"})
            await call("schema_update_collection", {"slug": "scratch", "public": True})
            await call(
                "schema_create_field",
                {"collection": "scratch", "slug": "note", "label": "Note", "type": "text"},
            )
            changed = await call(
                "schema_update_field", {"collection": "scratch", "fieldSlug": "note", "label": "A note"}
            )
            assert changed["label"] == "A note"
            await call("schema_delete_field", {"collection": "scratch", "fieldSlug": "note"})
            await call("schema_delete_collection", {"slug": "scratch"})
            await call(
                "schema_update_collection",
                {
                    "slug": "posts",
                    "urlPattern": "/blog/{slug}",
                    "previewUrl": "https://site.example/p?t={token}",
                },
            )
            await call("taxonomy_create", {"name": "tag", "label": "Tags", "collections": ["posts"]})
            assert len((await call("taxonomy_list"))["items"]) == 2
            assert (await call("taxonomy_update", {"name": "tag", "label": "Keywords"}))[
                "label"
            ] == "Keywords"
            await call("taxonomy_create_term", {"taxonomy": "category", "slug": "news", "label": "News"})
            assert (await call("taxonomy_list_terms", {"taxonomy": "category"}))["items"][0]["slug"] == "news"
            await call("taxonomy_create_term", {"taxonomy": "category", "slug": "old", "label": "Old"})
            renamed = {"taxonomy": "category", "termSlug": "old", "slug": "older"}
            assert (await call("taxonomy_update_term", renamed))["slug"] == "older"
            tree = await call("taxonomy_list_terms", {"taxonomy": "category", "tree": True})
            assert [(term["slug"], term["children"]) for term in tree["items"]] == [
                ("news", []),
                ("older", []),
            ]
            await call("taxonomy_delete_term", {"taxonomy": "category", "termSlug": "older"})
            item = (
                await call(
                    "content_create",
                    {
                        "collection": "posts",
                        "data": {"title": "One", "body": "*Hi*"},
                        "taxonomies": {"category": ["news"]},
                    },
                )
            )["item"]
            target = {"collection": "posts", "id": item["id"]}
            assert (await call("content_list", {"collection": "posts"}))["items"][0]["id"] == item["id"]
            got = await call("content_get", target)
            await call("content_update", {**target, "data": {"title": "Two"}, "_rev": got["_rev"]})
            await call("content_publish", target)
            assert (await call("path_resolve", {"path": "/blog/one"}))["item"]["url"] == "/blog/one"
            assert (await call("content_preview", target))["url"].startswith("https://site.example/p?t=")
            await call("content_update", {**target, "data": {"title": "Three"}})
            assert (await call("content_compare", target))["hasChanges"] is True
            assert (await call("content_discard_draft", target))["item"]["data"]["title"] == "Two"
            await call("content_unpublish", target)
            await call("content_schedule", {**target, "scheduledAt": "2099-06-01T08:00:00Z"})
            await call("content_unschedule", target)
            copy = (await call("content_duplicate", target))["item"]
            assert len((await call("content_translations", target))["items"]) == 1
            revisions = await call("revision_list", target)
            assert (await call("revision_get", {"revisionId": revisions["items"][-1]["id"]}))[
                "action"
            ] == "create"
            await call("revision_restore", {"revisionId": revisions["items"][-1]["id"]})
            await call("content_delete", target)
            assert [
                entry["id"]
                for entry in (await call("content_list_trashed", {"collection": "posts"}))["items"]
            ] == [item["id"]]
            await call("content_restore", target)
            await call("content_delete", {"collection": "posts", "id": copy["id"]})
            await call("content_permanent_delete", {"collection": "posts", "id": copy["id"]})
            assert (await call("media_list"))["items"][0]["id"] == media_id
            await call("media_get", {"id": media_id})
            await call("media_update", {"id": media_id, "alt": "Alt"})
            assert "s=" in (await call("media_rendition_url", {"id": media_id, "w": 2}))["url"]
            assert (await call("media_usages", {"id": media_id}))["items"] == []
            await call("media_delete", {"id": media_id})
            uploaded = await call(
                "media_upload", {"data": base64.b64encode(png_bytes()).decode(), "filename": "up.png"}
            )
            recorded = await call("media_create", {"storageKey": uploaded["storageKey"]})
            assert (recorded["id"], recorded["deduplicated"]) == (uploaded["id"], True)
            byline = await call("byline_create", {"displayName": "Ada Guest"})
            assert (await call("byline_list", {"kind": "guest"}))["items"][0]["id"] == byline["id"]
            await call("byline_get", {"id": byline["id"]})
            await call("byline_update", {"id": byline["id"], "bio": "Writes."})
            await call("byline_delete", {"id": byline["id"]})
            await call("menu_create", {"name": "main", "label": "Main"})
            await call(
                "menu_set_items",
                {
                    "name": "main",
                    "items": [{"type": "content", "referenceCollection": "posts", "referenceId": item["id"]}],
                },
            )
            assert len((await call("menu_list"))["items"]) == 1
            assert len((await call("menu_get", {"name": "main"}))["items"]) == 1
            assert (await call("menu_update", {"name": "main", "label": "Primary"}))["label"] == "Primary"
            await call("menu_delete", {"name": "main"})
            await call("section_create", {"title": "Note", "content": "A *note*."})
            assert len((await call("section_list"))["items"]) == 1
            await call("section_get", {"slug": "note"})
            assert (await call("section_update", {"sectionSlug": "note", "title": "Aside"}))[
                "title"
            ] == "Aside"
            await call("section_delete", {"slug": "note"})
            assert (await call("widget_area_list"))["items"][0]["widgets"] == []
            sidebar = {
                "name": "sidebar",
                "widgets": [{"type": "content", "title": "About", "content": "*Hi*"}],
            }
            assert len((await call("widget_area_set_widgets", sidebar))["widgets"]) == 1
            assert (await call("search", {"query": "one", "status": "draft"}))["items"][0]["id"] == item["id"]
            moved = await call("redirect_create", {"source": "/old", "location": "/blog/one"})
            await call("redirect_update", {"id": moved["id"], "status": 308})
            assert (await call("redirect_list"))["items"][0]["status"] == 308
            await call("redirect_delete", {"id": moved["id"]})
            hook = await call(
                "webhook_create", {"url": "https://hooks.example.com/cms", "payloadMode": "ids"}
            )
            hooks["id"] = hook["id"]
            assert (await call("webhook_list"))["items"][0]["id"] == hook["id"]
            await call("webhook_get", {"id": hook["id"]})
            await call("webhook_update", {"id": hook["id"], "description": "The site"})
            await call("webhook_rotate_secret", {"id": hook["id"], "gracePeriodSeconds": 0})
            await call("settings_get")
            assert (await call("settings_update", {"tagline": "Made by tools"}))["tagline"] == "Made by tools"

    async def webhooks() -> None:
        async with (
            http_client(recorder, token) as http,
            Client(streamable_http_client(endpoint, http_client=http)) as client,
        ):
            called.add("webhook_deliveries")
            sent = structured(await client.call_tool("webhook_deliveries", {"id": hooks["id"]}))["items"]
            assert [item["eventType"] for item in sent] == ["settings.updated"]
            called.add("webhook_redeliver")
            structured(await client.call_tool("webhook_redeliver", {"deliveryId": sent[0]["id"]}))
            called.add("webhook_delete")
            structured(await client.call_tool("webhook_delete", {"id": hooks["id"]}))

    hooks: dict[str, str] = {}
    anyio.run(session)
    # The worker's first step, in this thread: the settings change becomes a delivery (nothing is sent).
    delivery.fan_out(10)
    anyio.run(webhooks)
    assert recorder.problems == []
    assert called == {tool["name"] for tool in snapshot()}
