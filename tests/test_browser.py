"""Each page in headless Chromium as a reader meets it: renders offline without errors, solutions folded on
screen and printed open, tables readable in both themes, on a phone and on paper, sharp described figures,
interactive figures that draw and hover, and search.

Each page is loaded once per layout (a laptop in light and in dark mode, a phone, paper) and every check of that
layout runs on the loaded page; a check's failures are collected under its name, so one failing check still names
itself and the others still run. Chromium is Debian's (`make test` installs it where missing); Playwright only
drives it.
"""

import functools
import http.server
import re
import shutil
import threading
from urllib.parse import quote

import pytest
from playwright.sync_api import sync_playwright

from tests.site_build import BOOK, NOTEBOOK_PAGES, PAGES, PROSE_PAGES

pytestmark = [pytest.mark.site, pytest.mark.slow]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# As root and offline: no sandbox, and none of Chromium's own background connections.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Every request that does not go to the test's own server (it is refused, and reported).
OUTSIDE = re.compile(r"^(?!http://127\.0\.0\.1[:/]).*")


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
        # headless Chromium hides scrollbars unless told not to: the table test looks for them
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, ignore_default_args=["--hide-scrollbars"])
        yield b
        b.close()


def load(tab, url):
    """Open ``url`` in ``tab`` and wait until the network is idle and the page's scripts have run.

    Network idle alone is not enough: on a page whose inline Plotly figures take the parser long, the network
    falls idle while the document is still loading, before the theme's deferred script has set the theme
    and the toggle buttons exist.
    """
    response = tab.goto(url, wait_until="networkidle")
    tab.wait_for_load_state("load")
    return response


class Loaded:
    """A page loaded in its own browser context: the tab, the HTTP response, and what went wrong while loading
    (console errors, failed requests, requests to anywhere but the test's server, which are refused); with
    ``paper``, shown as printed (print media emulated)."""

    def __init__(self, browser, server, path, mode="light", width=1280, paper=False):
        self.paper, self.path = paper, path
        self.context = browser.new_context(viewport={"width": width, "height": 900})
        self.errors, self.outside = [], []
        # every request off localhost is refused (the page must work offline) and noted
        self.context.route(OUTSIDE, lambda route: (self.outside.append(route.request.url), route.abort()))
        # the theme reads the reader's choice from localStorage, as its switch leaves it (mode and theme)
        self.context.add_init_script(
            f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');"
        )
        self.tab = self.context.new_page()
        self.tab.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.tab.on("pageerror", lambda e: self.errors.append(str(e)))
        self.tab.on("requestfailed", lambda r: self.errors.append(f"failed: {r.url}"))
        self.response = load(self.tab, f"{server}/{path}")
        self.theme = self.tab.evaluate("document.documentElement.dataset.theme")
        self.show_as_laid_out()

    def show_as_laid_out(self):
        """Back to the page's own media (a check may have looked at it on screen or on paper)."""
        self.tab.emulate_media(media="print" if self.paper else "screen")

    def close(self):
        self.context.close()


@pytest.fixture
def open_page(server, browser):
    """``open_page(path, mode="light", width=1280)``: a :class:`Loaded` page in that theme and viewport width."""
    opened = []

    def _open(path, mode="light", width=1280):
        opened.append(Loaded(browser, server, path, mode, width))
        assert opened[-1].theme == mode, f"{path}: not in {mode} mode"
        return opened[-1].tab

    yield _open
    for page in opened:
        page.close()


#: Pages with exercise solutions (read from the sources, so a new page with solutions is checked too).
SOLUTION_PAGES = tuple(p for p in PAGES if "{solution-start}" in (BOOK / f"{p}.md").read_text(encoding="utf-8"))
#: Pages with tables and figures (the prose pages and the references page have none).
TABLE_PAGES = tuple(p for p in NOTEBOOK_PAGES if p not in PROSE_PAGES)
#: Pages with an interactive Plotly figure, and a knob value its hover must name.
PLOTLY_PAGES = ("landscape", "shapes")
PHONE_WIDTH_PX = 390
#: The widths a reader meets: a laptop (the text column is about 688 px), a phone, and paper (A4 less 1 cm
#: margins, 190 mm at 96 px per inch, with print media emulated).
PRINT_WIDTH_PX = 718


def test_some_pages_have_solutions():
    assert len(SOLUTION_PAGES) >= 5, SOLUTION_PAGES


def test_no_page_says_contents():
    """目录 is the label of the theme's on-page table of contents; the snippet test relies on no page using it."""
    assert not [p for p in PAGES if "目录" in (BOOK / f"{p}.md").read_text(encoding="utf-8")]


#: WCAG 2 contrast of each table cell's text on its effective background (ancestors' backgrounds composed).
CONTRAST_JS = """
() => {
  const rgba = (s) => { const m = s.match(/[\\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const over = (top, under) => { const a = top[3]; return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1); };
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c[3] > 0) layers.push(c);
      if (c[3] >= 1) break;
    }
    return layers.reverse().reduce((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  const luminance = (c) => { const [r, g, b] = c.slice(0, 3).map((v) => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const cells = [...document.querySelectorAll("article table :is(td, th, caption)")].filter((el) => el.innerText.trim());
  return cells.map((el) => {
    const bg = background(el);
    const fg = over(rgba(getComputedStyle(el).color), bg);
    const [hi, lo] = [luminance(fg), luminance(bg)].sort((a, b) => b - a);
    return {text: el.innerText.trim().slice(0, 30), ratio: (hi + 0.05) / (lo + 0.05), fg: fg.slice(0, 3), bg: bg.slice(0, 3)};
  });
}
"""


PHONE_JS = """
(viewport) => {
  const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
  const boxed = (table) => { for (let e = table; e; e = e.parentElement) { if (scrolls(e) && e.clientWidth <= viewport) return true; } return false; };
  const tables = [...document.querySelectorAll("article table")];
  const unboxed = tables.filter((t) => t.getBoundingClientRect().width > viewport && !boxed(t)).map((t) => t.innerText.slice(0, 40));
  // a word laid out on more than one line: text between the places where a line may break
  // (spaces, CJK punctuation, hyphens and dashes; Chinese text itself has none, see custom.css)
  const broken = [];
  for (const cell of document.querySelectorAll("article table :is(td, th)")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /[^\\s，。、；：（）\\-–—]{2,}/gu;
      for (let m = re.exec(node.data); m; m = re.exec(node.data)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  return {pageWidth: document.documentElement.scrollWidth, unboxed, broken};
}
"""


FIGURES_JS = """
() => [...document.querySelectorAll("article figure")].map((fig) => {
  // an interactive figure's static twin (img.schedlab-print-twin) is shown on paper only: not the figure's image
  const img = fig.querySelector("img:not(.schedlab-print-twin)"), cap = fig.querySelector("figcaption");
  const number = cap.querySelector(".caption-number");
  const caption = cap.innerText.replace(number ? number.innerText : "", "").replace(/\\s+/g, " ").trim();
  const weight = Number(getComputedStyle(cap.querySelector("p") || cap).fontWeight);
  // an interactive (Plotly) figure has no image: it draws its own vector graphics, with its words as text
  if (!img) return {interactive: !!fig.querySelector(".plotly-graph-div"), caption, weight};
  return {src: img.getAttribute("src"), alt: img.alt, caption, natural: img.naturalWidth, shown: img.getBoundingClientRect().width,
          weight};
})
"""


CLIPPED_JS = """
(print) => {
  // A table is cut when a box around it (or the table itself) holds more than it shows sideways, unless the box
  // scrolls and draws a scrollbar the reader sees (not on paper: paper does not scroll), or when the table or
  // its caption reaches past the viewport.
  const cut = [];
  const vw = document.documentElement.clientWidth;
  for (const table of document.querySelectorAll("article table")) {
    const name = (table.querySelector("caption") || table).innerText.trim().slice(0, 40);
    for (let e = table; e && e.tagName !== "ARTICLE"; e = e.parentElement) {
      const style = getComputedStyle(e);
      if (style.overflowX === "visible" || e.scrollWidth <= e.clientWidth + 1) continue;
      const scrolls = ["auto", "scroll"].includes(style.overflowX);
      const bar = e.offsetHeight - e.clientHeight - parseFloat(style.borderTopWidth) - parseFloat(style.borderBottomWidth);
      if (print || !scrolls || bar < 8) cut.push(`${name}: ${e.tagName.toLowerCase()}.${e.className} shows ${e.clientWidth} of ${e.scrollWidth} px` + (print ? "" : ` (scrollbar ${bar} px)`));
    }
    const box = [table, table.querySelector("caption")].filter(Boolean);
    for (const el of box) {
      let clip = null;
      for (let e = el.parentElement; e; e = e.parentElement) if (getComputedStyle(e).overflowX !== "visible") { clip = e.getBoundingClientRect(); break; }
      const r = el.getBoundingClientRect(), right = Math.min(clip ? clip.right : vw, vw);
      if (el.tagName === "CAPTION" ? r.right > right + 1 : (!clip && r.right > vw + 1)) cut.push(`${name}: ${el.tagName.toLowerCase()} reaches ${Math.round(r.right)} px of ${Math.round(right)}`);
    }
  }
  return cut;
}
"""


#: Each exercise solution as laid out: how many blocks its body has, how many of them show (height, visible,
#: not transparent), and whether its fold button shows.
SOLUTIONS_JS = """
() => [...document.querySelectorAll("article div.solution")].map((solution) => {
  const title = solution.querySelector(":scope > .admonition-title");
  const body = [...solution.children].filter((c) => c !== title);
  const shows = (el) => { const s = getComputedStyle(el);
    return el.getBoundingClientRect().height > 0 && s.visibility === "visible" && Number(s.opacity) > 0; };
  const button = title.querySelector("button.toggle-button");
  return {title: title.innerText.trim(), body: body.length, shown: body.filter(shows).length,
          button: !!button && button.getClientRects().length > 0};
})
"""


#: Numbers in table cells laid out over two lines ("98% [89, 1" / "00]"). A number is a run of digits with its
#: decimal point or comma, a trailing % and a leading minus that follows a space or bracket (in "750-800" the
#: hyphen is a range's, and a line may break after it). The run is split when a piece of it starts at or
#: below the first piece's bottom.
SPLIT_NUMBERS_JS = """
() => {
  const split = [];
  for (const cell of document.querySelectorAll("article table :is(td, th)")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/(?:(?<=^|[\\s(\\[])[-−])?\\d+(?:[.,]\\d+)*%?/gu)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const pieces = [...range.getClientRects()].filter((r) => r.width > 0);
        if (pieces.some((r) => r.top >= pieces[0].bottom - 1)) split.push(`${m[0]} in "${cell.innerText.trim().slice(0, 40)}"`);
      }
    }
  }
  return split;
}
"""


#: Inline-code words in prose laid out over two lines although narrower than their line: "--gpu" shown as
#: "-" / "-gpu" reads as another option. A word wider than its line may wrap (it cannot fit otherwise).
SPLIT_CODE_JS = """
() => {
  const split = [];
  for (const code of document.querySelectorAll("article :is(p, li) code.literal")) {
    const line = code.closest("p, li").clientWidth;
    const walker = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\\S+/gu)) {
        const range = document.createRange();
        range.setStart(node, m.index); range.setEnd(node, m.index + m[0].length);
        const pieces = [...range.getClientRects()].filter((r) => r.width > 0);
        const width = pieces.reduce((sum, r) => sum + r.width, 0);
        if (pieces.some((r) => r.top >= pieces[0].bottom - 1) && width <= line) split.push(m[0]);
      }
    }
  }
  return split;
}
"""


IMAGES_JS = """
() => [...document.querySelectorAll("article .cell_output img:not(.schedlab-print-twin)")].map((img) => ({src: img.getAttribute("src"),
  natural: img.naturalWidth, shown: img.getBoundingClientRect().width}))
"""


# -- The checks: each takes the loaded page and the site folder, and returns what it found wrong --------------


def renders_offline_without_errors(page, site):
    tab, problems = page.tab, []
    if page.response.status != 200:
        problems.append(f"HTTP {page.response.status}")
    if tab.locator("article h1").count() != 1:
        problems.append(f"{tab.locator('article h1').count()} article headings, not 1")
    if not tab.locator("article").inner_text().strip():
        problems.append("an empty article")
    broken = tab.evaluate("[...document.images].filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
    if broken:
        problems.append(f"images that did not load: {broken}")
    if tab.locator(".math").count():
        tab.wait_for_selector("mjx-container", timeout=10_000)  # MathJax (served locally) typeset the math
    if page.errors:
        problems.append(f"console errors: {page.errors}")
    if page.outside:
        problems.append(f"requests leaving localhost: {page.outside}")
    return problems


def solutions_start_collapsed_and_open_on_click(page, site):
    """Run last on its page: it opens the solutions."""
    solutions, problems = page.tab.locator("div.solution"), []
    if not solutions.count():
        return ["no solution rendered"]
    for i in range(solutions.count()):
        solution = solutions.nth(i)
        body = solution.locator(":scope > :not(.admonition-title)")
        if not body.count():
            problems.append(f"solution {i} has no body")
            continue
        solution.scroll_into_view_if_needed()
        if any(body.nth(j).is_visible() for j in range(body.count())):
            problems.append(f"solution {i} shows open")
        solution.locator(":scope > .admonition-title button.toggle-button").click()
        body.first.wait_for(state="visible", timeout=5_000)
        if not all(body.nth(j).is_visible() for j in range(body.count())):
            problems.append(f"solution {i} did not open")
    return problems


def table_cells_read(page, site):
    cells = page.tab.evaluate(CONTRAST_JS)
    if not cells:
        return ["no table cell found"]
    poor = [c for c in cells if c["ratio"] < 4.5]  # WCAG 2 AA for body text
    return [f"{len(poor)} of {len(cells)} cells under 4.5:1, e.g. {poor[:3]}"] if poor else []


def phone_keeps_tables_readable(page, site):
    """At 390 px a wide table scrolls in its own box, no word is split across lines, the page never scrolls sideways."""
    got, problems = page.tab.evaluate(PHONE_JS, PHONE_WIDTH_PX), []
    if got["pageWidth"] > PHONE_WIDTH_PX:
        problems.append(f"the page is {got['pageWidth']} px wide on a {PHONE_WIDTH_PX} px phone")
    if got["unboxed"]:
        problems.append(f"tables wider than the phone without a scroll box: {got['unboxed']}")
    if got["broken"]:
        problems.append(f"words broken across lines in table cells: {got['broken'][:10]}")
    return problems


def figures_are_sharp_described_and_captioned_in_body_weight(page, site):
    figs, problems = page.tab.evaluate(FIGURES_JS), []
    if not figs:
        return ["no figure"]
    for f in figs:
        if not f["caption"]:
            problems.append("a figure without a caption")
        if f["weight"] != 400:
            problems.append(f"caption in weight {f['weight']}, not the body text's 400")
        if "interactive" in f:
            if not f["interactive"]:
                problems.append("a figure with neither an image nor a Plotly figure")
            continue  # vector graphics and text: sharp at any size; its words are its own, not an alt text
        if f["alt"] != f["caption"]:
            problems.append(f"alt text {f['alt']!r} is not the caption {f['caption']!r}")
        if not (f["src"].endswith(".svg") or f["natural"] >= 2 * f["shown"]):
            problems.append(
                f"{f['src']} has {f['natural']} px for {f['shown']:.0f} CSS px (under 2x: blurred on phones)"
            )
    return problems


#: Tables that still scroll sideways at 1280 px (wider than the 960 px a wide table may take there), by page and
#: the start of the caption: each page's owner is to transpose, split or drop a column of it. An entry no longer
#: needed fails the check, so the list only shrinks.
STILL_SCROLL_AT_1280 = {}

DESKTOP_FIT_JS = """
async () => {
  // Folded outputs (hide-output: reference tables) are opened, as a reader who wants them does, then folded again.
  const folded = [...document.querySelectorAll("article details:not([open])")].filter((d) => d.querySelector("table"));
  folded.forEach((d) => { d.open = true; });
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  await new Promise((done) => setTimeout(done, 100)); // table-scroll.js widens a wide table's box when it is resized
  const out = [...document.querySelectorAll("article div.output > table")].map((t) => {
    const box = t.parentElement, r = box.getBoundingClientRect();
    return {caption: (t.querySelector("caption") || t).innerText.trim().slice(0, 60), table: t.offsetWidth,
            shown: box.clientWidth, right: Math.round(r.right), toc: !!document.querySelector(".bd-sidebar-secondary.hide")};
  });
  folded.forEach((d) => { d.open = false; });
  return out;
}
"""


def desktop_tables_fit_without_scrolling(page, site):
    """At 1280 px every table shows whole, without scrolling sideways: one wider than the text column takes the
    contents column's room too (custom.css, table-scroll.js) and stays inside the window. The tables named in
    STILL_SCROLL_AT_1280 are the known exceptions, and each must still be one."""
    problems, expected = [], STILL_SCROLL_AT_1280.get(page.path.removesuffix(".html"), ())
    tables = page.tab.evaluate(DESKTOP_FIT_JS)
    for t in tables:
        known = t["caption"].startswith(expected) if expected else False
        if t["table"] > t["shown"] + 1 and not known:
            problems.append(f"{t['caption']!r}: {t['table']} px shown in {t['shown']} px (scrolls sideways)")
        if t["right"] > 1280:
            problems.append(f"{t['caption']!r}: its box reaches {t['right']} px of 1280")
    for start in expected:
        if not any(t["caption"].startswith(start) and t["table"] > t["shown"] + 1 for t in tables):
            problems.append(f"{start!r} fits now: remove it from STILL_SCROLL_AT_1280")
    return problems


def no_table_is_cut(page, site):
    """At 1280 px, 390 px and on paper every table fits, or scrolls in a box with a drawn scrollbar (not on paper)."""
    return page.tab.evaluate(CLIPPED_JS, page.paper)


def solutions_print_open(page, site):
    """On paper every solution prints with its content (an instructor prints the lecture), without the fold
    button and its hint; on the same page on screen the check sees them folded, so it can tell the two apart."""
    page.tab.emulate_media(media="screen")
    on_screen = page.tab.evaluate(SOLUTIONS_JS)
    page.tab.emulate_media(media="print")
    printed, problems = page.tab.evaluate(SOLUTIONS_JS), []
    if not on_screen or not all(s["body"] for s in on_screen):
        problems.append(f"a solution without a body: {on_screen}")
    if [s["title"] for s in on_screen if s["shown"]]:
        problems.append(f"solutions not folded on screen: {on_screen}")
    folded = [s["title"] for s in printed if s["shown"] < s["body"]]
    if folded:
        problems.append(f"solutions printed folded, their content hidden: {folded}")
    if [s["title"] for s in printed if s["button"]]:
        problems.append(f"the fold button prints: {printed}")
    return problems


def no_number_splits_across_lines(page, site):
    """On paper a table cell may wrap between words, never inside a number (the print rule once let every
    cell break anywhere: "98% [89, 1" / "00]", "328" / "9")."""
    split = page.tab.evaluate(SPLIT_NUMBERS_JS)
    return [f"numbers split across lines: {split[:10]}"] if split else []


def inline_code_words_stay_whole(page, site):
    split = page.tab.evaluate(SPLIT_CODE_JS)
    return [f"inline code split across lines at {PHONE_WIDTH_PX} px: {split}"] if split else []


def figure_text_is_legible(page, site):
    """At 390 px no figure shows text under 9 CSS px, nor a text colour under 4.5:1 on what lies under it.

    Each PNG carries its smallest text's size in its own pixels and its lowest contrast
    (schedlab.figures.style.legibility); the phone shows it at ``shown`` of its ``natural`` pixels.
    """
    from PIL import Image

    from schedlab.figures.style import LEGIBILITY_KEYS, MIN_CONTRAST, MIN_TEXT_CSS_PX

    size_key, contrast_key, smallest_key, faintest_key = LEGIBILITY_KEYS
    problems = []
    for img in page.tab.evaluate(IMAGES_JS):
        meta = Image.open(site / img["src"]).text
        if size_key not in meta:
            problems.append(f"{img['src']} carries no legibility record (not made by schedlab.figures?)")
            continue
        css_px = float(meta[size_key]) * img["shown"] / img["natural"]
        if css_px < MIN_TEXT_CSS_PX:
            problems.append(f"{meta[smallest_key]!r} is {css_px:.1f} CSS px on a phone")
        if float(meta[contrast_key]) < MIN_CONTRAST:
            problems.append(f"{meta[faintest_key]!r} at {meta[contrast_key]}:1")
    return problems


SHOWN_JS = """() => [...document.querySelectorAll("article .schedlab-explorer, article img.schedlab-print-twin")].map(
  (e) => ({twin: e.tagName === "IMG", width: e.getBoundingClientRect().width, complete: e.tagName !== "IMG" || e.complete,
           natural: e.naturalWidth || 0}))"""


def interactive_figure_prints_as_its_static_twin(page, site):
    """On screen the Plotly figure and not its twin; on paper the twin, whole, and not the Plotly figure."""
    screen, problems = page.tab.evaluate(SHOWN_JS), []
    if not (screen and any(e["twin"] for e in screen)):
        problems.append("no interactive figure with a static twin")
    if not all((e["width"] > 0) != e["twin"] for e in screen):
        problems.append(f"on screen {screen}")
    page.tab.emulate_media(media="print")
    paper = page.tab.evaluate(SHOWN_JS)
    if not all((e["width"] > 0) == e["twin"] for e in paper):
        problems.append(f"on paper {paper}")
    if not all(e["natural"] > 0 for e in paper if e["twin"]):
        problems.append(f"a twin image did not load: {paper}")
    return problems


def interactive_figure_draws_offline_and_hovers(page, site):
    """With every request off localhost refused, Plotly (served from _static) draws the figure, and hovering
    a point shows its label: a configuration's knob tuple and time, or a shape pair's cost."""
    tab = page.tab
    plot = tab.locator("article .plotly-graph-div").first
    plot.wait_for(timeout=15_000)
    plot.scroll_into_view_if_needed()
    tab.wait_for_selector("article .plotly-graph-div .main-svg", timeout=15_000)
    points = tab.locator("article .plotly-graph-div :is(g.point, g.hm, .heatmaplayer image, .nsewdrag)")
    if not points.count():
        return ["the Plotly figure drew nothing"]
    box = tab.locator("article .plotly-graph-div .nsewdrag").first.bounding_box()
    hover = ""
    for fx, fy in ((0.02, 0.98), (0.05, 0.9), (0.1, 0.5), (0.3, 0.3), (0.5, 0.5), (0.12, 0.12)):
        tab.mouse.move(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
        tab.wait_for_timeout(300)
        hover = " ".join(t or "" for t in tab.locator("article .plotly-graph-div .hoverlayer").all_text_contents())
        if hover.strip():
            break
    tab.mouse.move(0, 0)
    if not re.search(r"\(\d+, \d+, \d+, \d+, \d+, \d+\)", hover):
        return [f"hover shows no configuration: {hover!r}"]
    return []


# -- Each page once per layout, every check of that layout on it ------------------------------------------------

ALL = PAGES
#: Per layout: (viewport width, colour mode, paper), and each check with the pages it applies to, in the order
#: they run (a check that changes the page, opening solutions, runs last).
LAYOUTS = {
    "1280": (
        (1280, "light", False),
        [
            (renders_offline_without_errors, ALL),
            (table_cells_read, TABLE_PAGES),
            (figures_are_sharp_described_and_captioned_in_body_weight, TABLE_PAGES),
            (no_table_is_cut, TABLE_PAGES),
            (desktop_tables_fit_without_scrolling, TABLE_PAGES),
            (interactive_figure_prints_as_its_static_twin, PLOTLY_PAGES),
            (interactive_figure_draws_offline_and_hovers, PLOTLY_PAGES),
            (solutions_start_collapsed_and_open_on_click, SOLUTION_PAGES),
        ],
    ),
    "dark": ((1280, "dark", False), [(table_cells_read, TABLE_PAGES)]),
    "390": (
        (PHONE_WIDTH_PX, "light", False),
        [
            (phone_keeps_tables_readable, ALL),
            (inline_code_words_stay_whole, ALL),
            (figures_are_sharp_described_and_captioned_in_body_weight, TABLE_PAGES),
            (figure_text_is_legible, TABLE_PAGES),
            (no_table_is_cut, TABLE_PAGES),
        ],
    ),
    "print": (
        (PRINT_WIDTH_PX, "light", True),
        [
            (solutions_print_open, SOLUTION_PAGES),  # looks at the page on screen first, then on paper
            (no_table_is_cut, TABLE_PAGES),
            (no_number_splits_across_lines, TABLE_PAGES),
        ],
    ),
}
LOADS = [
    (page, layout) for layout, (_, checks) in LAYOUTS.items() for page in PAGES if any(page in on for _, on in checks)
]


@pytest.mark.parametrize("page, layout", LOADS, ids=[f"{p}-{layout}" for p, layout in LOADS])
def test_page_as_a_reader_meets_it(browser, server, built_site, page, layout):
    """Load the page once in this layout and run each of its checks; report every check that found something."""
    (width, mode, paper), checks = LAYOUTS[layout]
    loaded = Loaded(browser, server, f"{page}.html", mode, width, paper)
    failures = [] if loaded.theme == mode else [f"theme: not in {mode} mode"]
    try:
        for check, pages in checks:
            if page not in pages:
                continue
            try:
                problems = check(loaded, built_site)
            except Exception as err:  # a timeout or a missing element: that check fails, the others still run
                problems = [f"{type(err).__name__}: {err}"]
            failures += [f"{check.__name__}: {problem}" for problem in problems]
            loaded.show_as_laid_out()
    finally:
        loaded.close()
    assert not failures, f"{page} at {layout}:\n" + "\n".join(failures)


# -- The checks can fail ---------------------------------------------------------------------------------------


def test_the_clip_check_sees_a_cut_table(open_page):
    """A table squeezed into a box that hides its overflow is reported, on screen and paper."""
    tab = open_page("landscape.html")
    tab.evaluate(
        """() => { const d = document.createElement("div"); d.style.cssText = "width: 100px; overflow: hidden";
        d.innerHTML = "<table><caption>t</caption><tr><td>" + "x ".repeat(200) + "</td></tr></table>";
        d.querySelector("td").style.whiteSpace = "nowrap"; document.querySelector("article").append(d); }"""
    )
    assert tab.evaluate(CLIPPED_JS, False)
    tab.emulate_media(media="print")
    assert tab.evaluate(CLIPPED_JS, True)


def test_the_number_check_sees_a_split_number(open_page):
    """A number in a cell too narrow for it, allowed to break anywhere, is reported."""
    tab = open_page("measured.html", width=PRINT_WIDTH_PX)
    tab.evaluate(
        """() => { const d = document.createElement("div"); d.style.width = "3ch";
        d.innerHTML = "<table><tr><td style='overflow-wrap: anywhere'>98%\\u00a0[89,\\u00a0100]</td></tr></table>";
        document.querySelector("article").append(d); }"""
    )
    tab.emulate_media(media="print")
    assert tab.evaluate(SPLIT_NUMBERS_JS)


# -- Search ----------------------------------------------------------------------------------------------------


def search_results(open_page, query):
    """The search page's results for ``query``: [(page, snippet text)] in the order shown."""
    tab = open_page(f"search.html?q={quote(query)}")
    tab.wait_for_selector("#search-results .search-summary:not(:empty)", timeout=15_000)
    items = tab.locator("#search-results ul.search > li")
    results = []
    for i in range(items.count()):
        item = items.nth(i)
        page = item.locator("a").first.get_attribute("href").split(".html")[0]
        item.locator("p.context").wait_for(timeout=10_000)  # the snippet, fetched from the page
        results.append((page, item.locator("p.context").inner_text()))
    return results


#: The lecture's terms, and the page a search must rank first where that is checked.
QUERIES = {"屋顶线": None, "共享内存": "space", "调度空间": None, "寄存器": None, "代价模型": None}


@pytest.mark.parametrize("query", QUERIES)
def test_chinese_search_finds_the_lectures_terms_with_clean_snippets(open_page, query):
    results = search_results(open_page, query)
    assert results, f"search for {query} found nothing"
    for page, snippet in results:
        assert query in snippet, f"{query}: the snippet of {page} does not show the word: {snippet!r}"
        assert "目录" not in snippet, f"{query}: the snippet of {page} is cut from the theme's table of contents"
        assert "显示代码" not in snippet, f"{query}: the snippet of {page} shows a collapsed cell's label"
        dirty = re.findall(r">>>|\\[a-zA-Z]+|\\[()\[\]]|\$", snippet)
        assert not dirty, f"{query}: the snippet of {page} shows code or TeX {dirty}: {snippet!r}"
    if QUERIES[query]:  # 共享内存 is the pruning page's subject
        assert results[0][0] == QUERIES[query], f"{query} ranks {[page for page, _ in results]}"
