"""An agent does an editor's whole task over MCP (issue 23), as a real one would: the official Python SDK with its
OAuth client provider, the person signing in by email link and consenting with the default scopes in Chromium, then
the agent uploads an image, makes a term and a byline, creates a post (fixing a validation error from the message
alone), schedules it, updates a menu and reads everything back compactly. Every answer the tool server sends is checked
against the official JSON Schema of the protocol version it was sent under, and every tool result against the tool's
declared outputSchema. The SDK speaks 2025-11-25; the read-back is then repeated with the same token under every
other version the server supports, each answer checked against that version's schema."""

from __future__ import annotations

import base64
import json
import queue
import re
import threading
from datetime import UTC, datetime, timedelta
from urllib.parse import parse_qs, urlsplit

import anyio
import jsonschema
import pytest
import requests
from mcp.client.auth import OAuthClientProvider
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from apps.accounts.models import Role
from apps.accounts.permissions import Actor
from apps.content.models import Entry
from apps.menus import services as menu_services
from apps.taxonomy import services as taxonomy_services
from tests.browser.test_email_link_returns import sign_in_by_email
from tests.factories import make_collection, make_user, png_bytes
from tests.mcp.test_sdk_client import MemoryStorage, Recorder, http_client
from tests.mcp.wire import LEGACY, MODERN, check_message, check_output, envelope, headers_for

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CALLBACK = "http://127.0.0.1:9/callback"
DEFAULT_SCOPES = {"content:read", "content:write", "media:read", "media:write", "schema:read"}


@pytest.fixture
def site():
    """What the site owner set up: a posts collection with a required title and a cover image, tags, a main menu."""
    make_collection(
        "posts",
        label="Posts",
        fields=[
            ("title", "string", {"required": True}),
            ("body", "portableText"),
            ("cover", "image"),
        ],
        supports=["drafts", "revisions", "search", "scheduling"],
    )
    system = Actor.system()
    taxonomy_services.taxonomy_create(actor=system, name="tag", label="Tags", collections=["posts"])
    menu_services.menu_create(actor=system, name="main", label="Main")
    return make_user(Role.EDITOR, email="editor@example.com")


def result_of(answer) -> dict:
    assert not answer.is_error, answer.content[0].text
    return answer.structured_content


class Agent:
    """The agent's whole session, run on a thread of its own (the SDK is async; the browser's API is the test
    thread's). The person's part (sign-in and consent) is handed over through two queues."""

    def __init__(self, endpoint: str):
        self.endpoint = endpoint
        self.recorder = Recorder()
        self.storage = MemoryStorage()
        self.to_person: queue.Queue[str] = queue.Queue()
        self.from_person: queue.Queue[AuthorizationCodeResult] = queue.Queue()
        self.outcome: dict = {}
        self.failure: BaseException | None = None
        self.schemas: dict[str, dict] = {}
        self.sizes: dict[str, int] = {}

    def start(self) -> threading.Thread:
        def run():
            try:
                anyio.run(self.session)
            except BaseException as exc:  # reported to the test thread, which fails on it
                self.failure = exc

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    async def call(self, mcp: ClientSession, name: str, arguments: dict):
        answer = await mcp.call_tool(name, arguments)
        self.sizes[name] = self.sizes.get(name, 0) + len(answer.content[0].text)
        if not answer.is_error:
            # The result an agent gets matches what the tool promised.
            jsonschema.validate(answer.structured_content, self.schemas[name])
        return answer

    async def session(self) -> None:
        async def redirect_handler(url: str) -> None:
            self.to_person.put(url)

        async def callback_handler() -> AuthorizationCodeResult:
            return await anyio.to_thread.run_sync(lambda: self.from_person.get(timeout=120))

        provider = OAuthClientProvider(
            server_url=self.endpoint,
            # No scope asked for: the server's default, the least privilege an editor's agent needs.
            client_metadata=OAuthClientMetadata(
                client_name="Editorial agent",
                redirect_uris=[CALLBACK],
                grant_types=["authorization_code", "refresh_token"],
                token_endpoint_auth_method="none",
            ),
            storage=self.storage,
            redirect_handler=redirect_handler,
            callback_handler=callback_handler,
        )
        async with (
            http_client(self.recorder, auth=provider) as http,
            streamable_http_client(self.endpoint, http_client=http) as (read, write),
            ClientSession(read, write) as mcp,
        ):
            await mcp.initialize()
            self.schemas = {tool.name: tool.output_schema for tool in (await mcp.list_tools()).tools}
            await self.work(mcp)

    async def work(self, mcp: ClientSession) -> None:
        out = self.outcome
        image = base64.b64encode(png_bytes(size=(64, 48))).decode()
        media = result_of(
            await self.call(
                mcp, "media_upload", {"data": image, "filename": "harbour.png", "alt": "Boats in the harbour"}
            )
        )
        out["media"] = media
        term = result_of(
            await self.call(mcp, "taxonomy_create_term", {"taxonomy": "tag", "label": "Harbours"})
        )
        out["term"] = term
        byline = result_of(await self.call(mcp, "byline_create", {"displayName": "Ada Lovelace"}))
        out["byline"] = byline
        post = {
            "collection": "posts",
            "data": {"body": "## The quay\n\nBoats, **music** and food.", "cover": media["id"]},
            "taxonomies": {"tag": [term["slug"]]},
            "bylines": [{"bylineId": byline["id"]}],
        }
        refused = await self.call(mcp, "content_create", post)
        assert refused.is_error
        message = refused.content[0].text
        out["refusal"] = message
        # The agent fixes its call from the message alone: it names the missing value by its JSON pointer.
        pointer = re.search(r"/data/(\w+)", message).group(1)
        post["data"][pointer] = "An evening on the quay"
        created = result_of(await self.call(mcp, "content_create", post))
        entry = created["item"]
        out["entry"] = entry
        when = (datetime.now(UTC) + timedelta(days=1)).replace(microsecond=0)
        out["scheduledAt"] = when
        result_of(
            await self.call(
                mcp,
                "content_schedule",
                {
                    "collection": "posts",
                    "id": entry["id"],
                    "scheduledAt": when.isoformat().replace("+00:00", "Z"),
                },
            )
        )
        result_of(await self.call(mcp, "menu_update", {"name": "main", "label": "Main menu"}))
        result_of(
            await self.call(
                mcp,
                "menu_set_items",
                {
                    "name": "main",
                    "items": [
                        {"type": "custom", "label": "Home", "url": "/"},
                        {"type": "content", "referenceCollection": "posts", "referenceId": entry["id"]},
                    ],
                },
            )
        )
        out["list"] = result_of(await self.call(mcp, "content_list", {"collection": "posts"}))
        out["get"] = result_of(
            await self.call(
                mcp, "content_get", {"collection": "posts", "id": entry["id"], "fields": ["title", "cover"]}
            )
        )
        out["menu"] = result_of(await self.call(mcp, "menu_get", {"name": "main"}))


def person_signs_in_and_consents(page, agent: Agent, email: str) -> None:
    """The person's part: the agent's authorization URL in the browser, sign-in by email link, consent as offered."""
    page.route("http://127.0.0.1:9/**", lambda route: route.fulfill(status=200, body="connected"))
    page.goto(agent.to_person.get(timeout=60))
    page.wait_for_url("**/_cms/admin/login?next=**")
    sign_in_by_email(page, email)
    page.wait_for_url("**/_cms/oauth/authorize?**")
    ticked = {box.get_attribute("value") for box in page.get_by_role("checkbox").all() if box.is_checked()}
    # Offered as asked for (nothing): the default, least-privilege scopes, admin and schema:write left unticked.
    assert ticked == DEFAULT_SCOPES
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(f"{CALLBACK}?**")
    query = {key: values[0] for key, values in parse_qs(urlsplit(page.url).query).items()}
    agent.from_person.put(
        AuthorizationCodeResult(code=query["code"], state=query.get("state"), iss=query.get("iss"))
    )


def test_an_agent_does_an_editors_task_end_to_end(browser, base_url, site):
    agent = Agent(f"{base_url}/_cms/api/mcp")
    thread = agent.start()
    person_signs_in_and_consents(browser.page, agent, site.email)
    thread.join(timeout=180)
    assert not thread.is_alive(), "the agent's session did not finish"
    if agent.failure is not None:
        raise agent.failure
    assert agent.recorder.problems == []
    assert set(agent.storage.tokens.scope.split()) == DEFAULT_SCOPES

    out = agent.outcome
    assert out["refusal"].startswith("[VALIDATION_ERROR]")
    assert "/data/title" in out["refusal"]
    stored = Entry.objects.get(pk=out["entry"]["id"])
    assert stored.status == "scheduled"
    assert stored.scheduled_at == out["scheduledAt"]
    assert stored.data["title"] == "An evening on the quay"
    assert stored.data["cover"] == {"id": out["media"]["id"]}
    assert out["entry"]["bylines"][0]["displayName"] == "Ada Lovelace"
    assert [term["slug"] for term in out["entry"]["terms"]["tag"]] == ["harbours"]
    # Read back compactly: the list names the entry in a few hundred bytes, the get only what was asked for.
    [listed] = out["list"]["items"]
    assert listed["id"] == stored.pk and listed["data"]["title"] == "An evening on the quay"
    assert "compact" in out["list"]
    assert set(out["get"]["item"]["data"]) == {"title", "cover"}
    assert out["menu"]["label"] == "Main menu"
    # The entry's item is labelled with its title, as the agent left the label out.
    assert [item["label"] for item in out["menu"]["items"]] == ["Home", "An evening on the quay"]
    assert len(json.dumps(out["list"])) < 2000

    # The same reads under every protocol version, with the agent's token: valid under each version's schema, and the
    # same answers.
    reads = {
        "content_list": {"collection": "posts"},
        "content_get": {"collection": "posts", "id": stored.pk, "fields": ["title", "cover"]},
        "menu_get": {"name": "main"},
    }
    token = agent.storage.tokens.access_token
    for version in (*LEGACY, MODERN):
        for name, arguments in reads.items():
            body = envelope(version, "tools/call", {"name": name, "arguments": arguments})
            answer = requests.post(
                agent.endpoint, json=body, headers=headers_for(version, body, token), timeout=30
            )
            assert answer.status_code == 200, (version, name, answer.text[:300])
            message = answer.json()
            check_message(version, "tools/call", message)
            value = json.loads(message["result"]["content"][0]["text"])
            check_output(name, value)
            expected = {"content_list": out["list"], "content_get": out["get"], "menu_get": out["menu"]}[name]
            assert value == expected, (version, name)
