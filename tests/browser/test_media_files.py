"""Media files in a real browser: the sandbox every file is served under (issue 17) still lets an image show and a
sound play, opened on its own as well as embedded by a page of another origin (a front end)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from apps.media.storage import media_url
from tests.factories import make_media, png_bytes, wav_bytes

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture
def front_end():
    """Serves one HTML page from its own origin on the loopback address (Chrome lets only loopback pages embed
    loopback resources); ``front_end(html)`` gives its address."""
    page = {"html": b""}

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page["html"])))
            self.end_headers()
            self.wfile.write(page["html"])

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()

    def serve(html: str) -> str:
        page["html"] = html.encode()
        return f"http://127.0.0.1:{server.server_address[1]}/"

    yield serve
    server.shutdown()
    server.server_close()


def test_sandboxed_files_still_display_and_play(chromium, base_url, front_end, transactional_db):
    image = media_url(make_media(content=png_bytes(size=(40, 30)), filename="logo.png").storage_key)
    sound = media_url(make_media(content=wav_bytes(8000), filename="jingle.wav").storage_key)
    context = chromium.new_context()
    page = context.new_page()
    page.set_default_timeout(20_000)
    try:
        # Opened on its own: the image document shows the picture; the media document loads the sound (it fetches
        # the file again as media, which `default-src 'none'` alone would block).
        page.goto(image)
        assert page.eval_on_selector("img", "image => image.naturalWidth") == 40
        page.goto(sound)
        page.wait_for_function("document.querySelector('video, audio')?.readyState >= 1")
        assert page.eval_on_selector("video, audio", "player => player.duration") == 1

        # Embedded by a front end's page on another origin: neither header applies to an <img> or an <audio>.
        page.goto(front_end(f'<img src="{image}"><audio src="{sound}" preload="auto"></audio>'))
        page.wait_for_function(
            "document.querySelector('img').complete && document.querySelector('audio').readyState >= 1"
        )
        assert page.eval_on_selector("img", "image => image.naturalWidth") == 40
        assert page.eval_on_selector("audio", "player => player.duration") == 1
    finally:
        context.close()
