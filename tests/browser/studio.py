"""What every studio page must pass in a real browser, and signed-in browsers by role.

``check_page(page, name)`` runs axe-core in the page and fails on any serious or critical violation, fails when the
page logged a console error, threw, or broke its Content-Security-Policy, and saves full-page screenshots to
``var/screenshots/<name>.png`` (1280 px wide, and 390 px with ``mobile=True``). With ``CMS_SCREENSHOTS=<dir>``
(``make screenshots``) the pages given a ``doc`` name are also written there as ``<doc>.png``, at a fixed viewport
size so the committed pictures do not change shape from run to run.

axe-core is the exact version pinned in tests/typescript/package.json (installed by ``npm ci`` in ``make test``),
read from disk and evaluated through the DevTools protocol, which the page's CSP does not govern: the page keeps its
strict policy (never ``bypass_csp``), so a CSP violation of the page itself still shows here.
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "tests/typescript/node_modules/axe-core/axe.min.js"
SCREENSHOTS = ROOT / "var/screenshots"
DESKTOP = {"width": 1280, "height": 800}
MOBILE = {"width": 390, "height": 844}
BLOCKING = ("serious", "critical")

# Reports every CSP violation of every document of the context to Python, across navigations. An init script runs
# through the DevTools protocol before the page's own scripts and is not subject to the page's CSP.
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cmsCspViolation(`${event.effectiveDirective} blocked ${event.blockedURI || "inline"}`
    + ` in ${event.sourceFile || event.documentURI}:${event.lineNumber}`);
});
"""


@dataclass
class Watch:
    """What went wrong in a browser context's pages since the last ``check_page``."""

    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    csp: list[str] = field(default_factory=list)

    def attach(self, page) -> None:
        page.on("console", lambda message: self._console(message))
        page.on("pageerror", lambda error: self.errors.append(str(error)))

    def _console(self, message) -> None:
        if message.type == "error":
            location = message.location or {}
            self.console.append(
                f"{message.text} ({location.get('url', '')}:{location.get('lineNumber', '')})"
            )

    def take(self, allow: tuple[str, ...] = ()) -> list[str]:
        """The problems seen so far (less those matching a pattern of ``allow``), forgetting them."""
        found = [f"console error: {text}" for text in self.console]
        found += [f"uncaught exception: {text}" for text in self.errors]
        found += [f"CSP violation: {text}" for text in self.csp]
        self.console, self.errors, self.csp = [], [], []
        return [problem for problem in found if not any(re.search(pattern, problem) for pattern in allow)]


def watch_context(context) -> Watch:
    """Start watching every page that ``context`` opens (call before opening pages)."""
    watch = Watch()
    context.expose_function("__cmsCspViolation", lambda text: watch.csp.append(text))
    context.add_init_script(CSP_LISTENER)
    context.on("page", watch.attach)
    return watch


def axe_available() -> str | None:
    """None when axe-core is installed, else why not."""
    if AXE.is_file():
        return None
    return f"{AXE.relative_to(ROOT)} is missing (npm ci --prefix tests/typescript)"


def axe_violations(page) -> list[str]:
    """The serious and critical axe-core violations of the page as it is now, one readable paragraph each."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())
    results = page.evaluate(
        """async () => {
          const found = await axe.run(document, { resultTypes: ["violations"] });
          return found.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help, url: v.helpUrl,
            nodes: v.nodes.map((n) => ({ target: n.target.join(" "), summary: n.failureSummary })),
          }));
        }"""
    )
    report = []
    for violation in results:
        if violation["impact"] not in BLOCKING:
            continue
        lines = [f"[{violation['impact']}] {violation['id']}: {violation['help']} ({violation['url']})"]
        for node in violation["nodes"][:5]:
            summary = " ".join((node["summary"] or "").split())
            lines.append(f"    at {node['target']}: {summary}")
        if len(violation["nodes"]) > 5:
            lines.append(f"    … and {len(violation['nodes']) - 5} more")
        report.append("\n".join(lines))
    return report


def _shoot(page, name: str, size: dict, doc: str | None) -> None:
    page.set_viewport_size(size)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    target = os.environ.get("CMS_SCREENSHOTS")
    if doc and target:
        # The viewport alone (not the full page): the same size every run, small enough to commit.
        directory = ROOT / target
        directory.mkdir(parents=True, exist_ok=True)
        _save_small(page.screenshot(full_page=False), directory / f"{doc}.png")


def _save_small(png: bytes, path: Path) -> None:
    """A screenshot with its colours reduced to a palette: the same picture to the eye, a fraction of the bytes."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def check_page(
    page, name: str, *, watch: Watch, mobile: bool = False, doc: str | None = None, allow=()
) -> None:
    """Fail on the page's accessibility violations (serious, critical) and on anything it logged, threw or had
    blocked by its CSP since the last check; save its screenshots. ``allow`` lists regular expressions of logged
    problems that the page is expected to produce (a 403 page's own status, say)."""
    page.wait_for_load_state("load")
    problems = []
    sizes = [("", DESKTOP)] + ([("-mobile", MOBILE)] if mobile else [])
    for suffix, size in sizes:
        _shoot(page, f"{name}{suffix}", size, f"{doc}{suffix}" if doc else None)
        problems += [f"axe at {size['width']} px: {text}" for text in axe_violations(page)]
    page.set_viewport_size(DESKTOP)
    problems += watch.take(allow)
    assert not problems, f"{name} ({page.url}):\n" + "\n".join(problems)


# --- Signed-in browsers ---------------------------------------------------------------------------------------------


@dataclass
class StudioBrowser:
    """One browser context signed in as ``user``, with its first page and the watch that ``check_page`` reads."""

    context: object
    page: object
    user: object
    watch: Watch

    def check(self, name: str, **options) -> None:
        check_page(self.page, name, watch=self.watch, **options)


def open_context(chromium, base_url: str):
    # A light colour scheme and one device pixel per CSS pixel: the same pictures on every machine.
    context = chromium.new_context(
        base_url=base_url, viewport=DESKTOP, color_scheme="light", device_scale_factor=1
    )
    watch = watch_context(context)
    page = context.new_page()
    page.set_default_timeout(20_000)
    return context, page, watch


def sign_in_context(context, base_url: str, user) -> None:
    """Give ``context`` the session cookie of ``user``, made by Django's own test client (no sign-in pages)."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base_url}])
