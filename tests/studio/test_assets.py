"""The committed editor bundle is what its sources build (issue 19): `make run` serves the built files without Node,
so a source change without `make assets` would ship an editor nobody built from the code under review. build.json
(written by apps/studio/frontend/build.mjs) records the sha256 of every source and output; this recomputes them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "apps" / "studio" / "static" / "studio" / "editor" / "build.json"
STALE = "the committed editor build does not match its sources: run make assets and commit the result"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def record() -> dict:
    return json.loads(RECORD.read_text(encoding="utf-8"))


def test_the_committed_build_matches_its_sources():
    built = record()
    sources = ROOT / built["sourceRoot"]
    current = {
        path.relative_to(sources).as_posix(): sha256(path)
        for path in sorted((sources / "src").rglob("*"))
        if path.is_file()
    }
    for name in ("package.json", "package-lock.json", "build.mjs"):
        current[name] = sha256(sources / name)
    assert current == built["sources"], STALE


def test_the_committed_outputs_are_the_ones_built():
    built = record()
    outputs = ROOT / built["outputRoot"]
    current = {path.name: sha256(path) for path in sorted(outputs.iterdir()) if path.name != "build.json"}
    assert current == built["outputs"], STALE
    assert {"portable-text.js", "portable-text.css", "THIRD-PARTY-LICENSES.txt"} <= set(current)


def test_every_bundled_package_is_pinned_and_its_licence_shipped():
    built = record()
    sources = ROOT / built["sourceRoot"]
    lock = json.loads((sources / "package-lock.json").read_text(encoding="utf-8"))
    locked = {
        name.rsplit("node_modules/", 1)[1]: item["version"] for name, item in lock["packages"].items() if name
    }
    notices = (ROOT / built["outputRoot"] / "THIRD-PARTY-LICENSES.txt").read_text(encoding="utf-8")
    assert built["packages"], "no bundled package recorded"
    for name, version in built["packages"].items():
        assert locked.get(name) == version, f"{name} {version} is not the locked version"
        assert f"{name} {version} (" in notices, f"{name}'s licence is missing from THIRD-PARTY-LICENSES.txt"
    package = json.loads((sources / "package.json").read_text(encoding="utf-8"))
    for name, spec in {**package["dependencies"], **package["devDependencies"]}.items():
        assert spec[0].isdigit(), f"{name} is not pinned to an exact version: {spec}"


def test_the_bundle_names_no_machine_path_and_has_no_source_map():
    outputs = ROOT / record()["outputRoot"]
    for name in ("portable-text.js", "portable-text.css"):
        text = (outputs / name).read_text(encoding="utf-8")
        assert "sourceMappingURL" not in text
        # Where the build ran (this checkout, its parent, the builder's home) must not leak into what is served.
        for place in (str(ROOT), str(ROOT.parent), str(Path.home())):
            assert place not in text, f"{name} names the build machine's {place}"
        assert "node_modules" not in text
