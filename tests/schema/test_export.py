"""Schema export (SPEC §4.5): ``GET /schema`` as JSON, and as TypeScript (``?format=typescript`` or
``Accept: text/typescript``) that the TypeScript compiler accepts under ``--strict``, typing real API answers.

The compiler comes from tests/typescript (``npm ci`` there; `make test` does it when npm is available). Without it
the compile tests are skipped locally, and fail under CI, where a silent skip would hide a broken export.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from apps.accounts.models import Role
from tests.factories import make_collection, make_field

SCHEMA = "/_cms/api/schema"
TSC = Path(__file__).resolve().parents[1] / "typescript" / "node_modules" / ".bin" / "tsc"


@pytest.fixture
def tsc() -> Path:
    if not TSC.exists():
        message = (
            "the TypeScript compiler is not installed: run `npm ci` in tests/typescript (make test does)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return TSC


def compile_typescript(tsc: Path, directory: Path, files: dict[str, str]) -> subprocess.CompletedProcess:
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return subprocess.run(
        [str(tsc), "--noEmit", "--strict", "--target", "es2020", *(str(directory / name) for name in files)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def typescript_of(api) -> str:
    response = api.get(SCHEMA, {"format": "typescript"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/typescript; charset=utf-8"
    return response.content.decode()


# --- JSON -----------------------------------------------------------------------------------------------------------


def test_json_export_lists_every_collection_with_its_fields(admin_api, things):
    response = admin_api.get(SCHEMA)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    # Each collection exactly as GET /schema/collections/:slug?includeFields=true describes it.
    expected = [
        admin_api.get(f"{SCHEMA}/collections/{slug}", {"includeFields": "true"}).json()["data"]
        for slug in ("authors", "things")
    ]
    assert response.json() == {"success": True, "data": {"collections": expected}}
    assert len({field["type"] for field in expected[1]["fields"]}) == 14
    assert admin_api.get(SCHEMA, {"format": "json"}).json() == response.json()


def test_an_unknown_format_is_refused(admin_api):
    response = admin_api.get(SCHEMA, {"format": "yaml"})
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"format": '"yaml" is not a valid choice.'}


@pytest.mark.parametrize(("role", "status"), [(Role.EDITOR, 200), (Role.AUTHOR, 403)])
def test_export_needs_schema_read(client_for, role, status):
    scopes = ["schema:read"] if role >= Role.EDITOR else ["content:read"]
    client = client_for(role=role, scopes=scopes)
    response = client.get(SCHEMA, HTTP_ACCEPT="text/typescript")
    assert response.status_code == status
    if status == 403:
        # Errors stay JSON envelopes whatever the client accepts.
        assert response["Content-Type"] == "application/json"
        assert response.json()["error"] == {
            "code": "FORBIDDEN",
            "message": "Insufficient scope: requires schema:read.",
            "details": {"requiredScope": "schema:read"},
        }


# --- TypeScript -----------------------------------------------------------------------------------------------------


def test_accept_header_and_format_parameter_give_the_same_typescript(admin_api, things):
    by_parameter = typescript_of(admin_api)
    response = admin_api.get(SCHEMA, HTTP_ACCEPT="text/typescript")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/typescript; charset=utf-8"
    assert response.content.decode() == by_parameter
    assert "export interface Things extends CmsEntry {" in by_parameter
    assert "export interface Authors extends CmsEntry {" in by_parameter


def test_each_accept_header_gets_its_own_representation_request_after_request(admin_api, things):
    # The negotiation's choice is remembered per header: alternating headers must not get each other's answers.
    for accept, content_type in [
        ("text/typescript", "text/typescript; charset=utf-8"),
        ("application/json", "application/json"),
        ("text/typescript", "text/typescript; charset=utf-8"),
        ("text/html", "application/json"),
        ("*/*", "application/json"),
    ]:
        response = admin_api.get(SCHEMA, HTTP_ACCEPT=accept)
        assert response.status_code == 200
        assert response["Content-Type"] == content_type, accept


def test_typescript_types_every_field_and_marks_optional_ones(admin_api, things):
    make_field(things, "title", "string", required=True)
    text = typescript_of(admin_api)
    interface = text[text.index("export interface Things") :]
    for line in (
        '  type: "things";',
        "    s?: string;",
        "    t?: string;",
        "    n?: number;",
        "    i?: number;",
        "    b?: boolean;",
        "    d?: string;",
        '    sel?: "small" | "large";',
        '    multi?: Array<"red" | "green" | "blue">;',
        "    pt?: PortableTextBlock[];",
        "    img?: CmsImage;",
        "    f?: CmsFile;",
        "    ref?: string;",
        "    refs?: string[];",
        "    j?: unknown;",
        "    sl?: string;",
        "    title: string;",
        '  liveData?: Things["data"];',
    ):
        assert f"\n{line}\n" in interface, line


USAGE = """\
import {{ Things, Authors, CmsEntry }} from "./schema";

// An entry exactly as the API answered it, as an object literal: excess or missing properties fail to compile.
const thing: Things = {item};
const author: Authors = {author};

const size: "small" | "large" | undefined = thing.data.sel;
const colours: Array<"red" | "green" | "blue"> = thing.data.multi ?? [];
const count: number = (thing.data.i ?? 0) + (thing.data.n ?? 0);
const title: string = thing.data.title;
const alt: string | undefined = thing.data.img?.alt;
const text: string = (thing.data.pt ?? []).map((block) => (block.children ?? []).map((span) => span.text).join("")).join("");
const entries: CmsEntry[] = [thing, author];
const byline: string | undefined = thing.bylines[0]?.displayName;
const live: string | undefined = thing.liveData?.title;

// The types are precise, not `any`: each of these must be an error.
// @ts-expect-error "medium" is not an allowed value
const wrong: Things = {{ ...thing, data: {{ ...thing.data, sel: "medium" }} }};
// @ts-expect-error title is required
const untitled: Things["data"] = {{ s: "x" }};
// @ts-expect-error a count is a number
const countText: Things["data"] = {{ title: "x", i: "3" }};
// @ts-expect-error the collection's slug is the type
const mislabelled: Things = {{ ...thing, type: "authors" }};

export {{ size, colours, count, title, alt, text, entries, byline, live, wrong, untitled, countText, mislabelled }};
"""


def test_typescript_export_of_all_fourteen_types_compiles_and_types_api_answers(
    admin_api, things, authors, tsc, tmp_path
):
    make_field(things, "title", "string", required=True)
    block = {"_type": "block", "children": [{"_type": "span", "text": "Hi"}]}
    data = {
        "title": "Everything",
        "s": "ab",
        "t": "long text",
        "n": 2.5,
        "i": 3,
        "b": True,
        "d": "2026-01-31T12:00:00Z",
        "sel": "small",
        "multi": ["red"],
        "pt": [block],
        "img": {"id": "m1", "alt": "A", "width": 1, "height": 2},
        "f": {"url": "https://x.test/f.pdf", "filename": "f.pdf", "mimeType": "application/pdf", "size": 3},
        "ref": authors[0].pk,
        "refs": [authors[1].pk],
        "j": {"free": ["form"]},
        "sl": "Some Slug",
    }
    created = admin_api.post("/_cms/api/content/things", {"data": data, "status": "published"}, format="json")
    assert created.status_code == 201
    entry_id = created.json()["data"]["item"]["id"]
    # A draft change, so that the answer carries liveData too.
    changed = admin_api.patch(f"/_cms/api/content/things/{entry_id}", {"data": {"s": "cd"}}, format="json")
    item = changed.json()["data"]["item"]
    assert "liveData" in item
    author = admin_api.get(f"/_cms/api/content/authors/{authors[0].pk}").json()["data"]["item"]

    result = compile_typescript(
        tsc,
        tmp_path,
        {
            "schema.ts": typescript_of(admin_api),
            "usage.ts": USAGE.format(item=json.dumps(item, indent=2), author=json.dumps(author, indent=2)),
        },
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_labels_and_slugs_that_could_break_the_output_still_compile(admin_api, tsc, tmp_path):
    # A label closing the doc comment; slugs whose PascalCase forms could meet; slugs spelling a built-in name.
    make_collection(
        "posts", label="Posts */ export const broken = ;", fields=[{"slug": "title", "label": "T */ x"}]
    )
    make_collection("post_1", fields=[{"slug": "a"}])
    make_collection("post1", fields=[{"slug": "b", "type": "integer"}])
    make_collection("cms_entry", fields=[{"slug": "c"}])
    make_collection("cms_entry_collection", fields=[{"slug": "d"}])
    make_collection("array", fields=[{"slug": "e"}])
    text = typescript_of(admin_api)
    for declaration in (
        "export interface Posts extends CmsEntry",
        "export interface Post_1 extends CmsEntry",
        "export interface Post1 extends CmsEntry",
        "export interface ArrayCollection extends CmsEntry",
    ):
        assert declaration in text
    usage = """\
import { Post_1, Post1 } from "./schema";
const one: Post_1["data"] = { a: "text" };
const other: Post1["data"] = { b: 1 };
export { one, other };
"""
    result = compile_typescript(tsc, tmp_path, {"schema.ts": text, "usage.ts": usage})
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_typescript_of_an_empty_schema_compiles(admin_api, tsc, tmp_path):
    result = compile_typescript(tsc, tmp_path, {"schema.ts": typescript_of(admin_api)})
    assert result.returncode == 0, result.stdout + result.stderr
