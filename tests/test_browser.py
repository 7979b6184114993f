"""Each page in headless Chromium: renders, no console errors, no request leaving localhost.

Chromium is Debian's (`make test` installs it where missing); Playwright only drives it.
"""

import functools
import http.server
import shutil
import threading
from urllib.parse import urlparse

import pytest
from playwright.sync_api import sync_playwright

from tests.site_build import PAGES

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# As root and offline: no sandbox, and none of Chromium's own background connections.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server(built_site):
    handler = functools.partial(_QuietHandler, directory=str(built_site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_offline_without_errors(server, browser, page):
    tab = browser.new_page()
    errors, outside = [], []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    tab.on("request", lambda r: outside.append(r.url) if urlparse(r.url).hostname not in ("127.0.0.1", None) else None)
    response = tab.goto(f"{server}/{page}.html", wait_until="networkidle")
    assert response.status == 200
    assert tab.locator("article h1").count() == 1
    assert tab.locator("article").inner_text().strip()
    broken = tab.evaluate("[...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
    assert not broken, f"images that did not load: {broken}"
    if tab.locator(".math").count():
        tab.wait_for_selector("mjx-container", timeout=10_000)  # MathJax (served locally) typeset the math
    tab.close()
    assert not errors, f"console errors on {page}: {errors}"
    assert not outside, f"requests leaving localhost from {page}: {outside}"
