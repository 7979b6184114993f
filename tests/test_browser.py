"""Each page in headless Chromium: renders, no console errors, no request leaving localhost; and as a reader
meets it: solutions collapsed, tables readable in both themes and on a phone, sharp described figures, search.

Chromium is Debian's (`make test` installs it where missing); Playwright only drives it.
"""

import functools
import http.server
import re
import shutil
import threading
from urllib.parse import quote, urlparse

import pytest
from playwright.sync_api import sync_playwright

from tests.site_build import BOOK, NOTEBOOK_PAGES, PAGES

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


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_offline_without_errors(server, browser, page):
    tab = browser.new_page()
    errors, outside = [], []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.on("pageerror", lambda e: errors.append(str(e)))
    tab.on("requestfailed", lambda r: errors.append(f"failed: {r.url}"))
    tab.on("request", lambda r: outside.append(r.url) if urlparse(r.url).hostname not in ("127.0.0.1", None) else None)
    response = load(tab, f"{server}/{page}.html")
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


# -- The lecture as a reader meets it: themes, phones, solutions, figures, search -------------------------------

#: Pages with exercise solutions (read from the sources, so a new page with solutions is checked too).
SOLUTION_PAGES = tuple(p for p in PAGES if "{solution-start}" in (BOOK / f"{p}.md").read_text(encoding="utf-8"))
PHONE_WIDTH_PX = 390


@pytest.fixture
def open_page(server, browser):
    """``open_page(path, mode="light", width=1280)``: a tab showing ``path`` in that theme and viewport width."""
    contexts = []

    def _open(path, mode="light", width=1280):
        ctx = browser.new_context(viewport={"width": width, "height": 900})
        contexts.append(ctx)
        # the theme reads the reader's choice from localStorage, as its switch leaves it (mode and theme)
        ctx.add_init_script(f"localStorage.setItem('mode', '{mode}'); localStorage.setItem('theme', '{mode}');")
        tab = ctx.new_page()
        load(tab, f"{server}/{path}")
        assert tab.evaluate("document.documentElement.dataset.theme") == mode, f"{path}: not in {mode} mode"
        return tab

    yield _open
    for ctx in contexts:
        ctx.close()


def test_some_pages_have_solutions():
    assert len(SOLUTION_PAGES) >= 5, SOLUTION_PAGES


@pytest.mark.parametrize("page", SOLUTION_PAGES)
def test_solutions_start_collapsed_and_open_on_click(open_page, page):
    tab = open_page(f"{page}.html")
    solutions = tab.locator("div.solution")
    assert solutions.count() >= 1, f"{page}: no solution rendered"
    for i in range(solutions.count()):
        solution = solutions.nth(i)
        body = solution.locator(":scope > :not(.admonition-title)")
        assert body.count() >= 1, f"{page}: solution {i} has no body"
        solution.scroll_into_view_if_needed()
        assert not any(body.nth(j).is_visible() for j in range(body.count())), f"{page}: solution {i} shows open"
        solution.locator(":scope > .admonition-title button.toggle-button").click()
        body.first.wait_for(state="visible", timeout=5_000)
        assert all(body.nth(j).is_visible() for j in range(body.count())), f"{page}: solution {i} did not open"


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
#: Pages with tables (the index and the references page have none).
TABLE_PAGES = tuple(p for p in NOTEBOOK_PAGES if p != "index")


@pytest.mark.parametrize("mode", ["light", "dark"])
@pytest.mark.parametrize("page", TABLE_PAGES)
def test_every_table_cell_reads_in_both_themes(open_page, page, mode):
    cells = open_page(f"{page}.html", mode=mode).evaluate(CONTRAST_JS)
    assert cells, f"{page}: no table cell found"
    poor = [c for c in cells if c["ratio"] < 4.5]  # WCAG 2 AA for body text
    assert not poor, f"{page} ({mode}): {len(poor)} of {len(cells)} cells under 4.5:1, e.g. {poor[:3]}"


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


@pytest.mark.parametrize("page", PAGES)
def test_phone_layout_keeps_tables_readable(open_page, page):
    """At 390 px a wide table scrolls in its own box, no word is split across lines, the page never scrolls sideways."""
    got = open_page(f"{page}.html", width=PHONE_WIDTH_PX).evaluate(PHONE_JS, PHONE_WIDTH_PX)
    assert got["pageWidth"] <= PHONE_WIDTH_PX, (
        f"{page}: the page is {got['pageWidth']} px wide on a {PHONE_WIDTH_PX} px phone"
    )
    assert not got["unboxed"], f"{page}: tables wider than the phone without a scroll box: {got['unboxed']}"
    assert not got["broken"], f"{page}: words broken across lines in table cells: {got['broken'][:10]}"


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


@pytest.mark.parametrize("width", [1280, PHONE_WIDTH_PX])
@pytest.mark.parametrize("page", TABLE_PAGES)
def test_figures_are_sharp_described_and_captioned_in_body_weight(open_page, page, width):
    figs = open_page(f"{page}.html", width=width).evaluate(FIGURES_JS)
    assert figs, f"{page}: no figure"
    for f in figs:
        assert f["caption"], f"{page}: a figure without a caption"
        assert f["weight"] == 400, f"{page}: caption in weight {f['weight']}, not the body text's 400"
        if "interactive" in f:
            assert f["interactive"], f"{page}: a figure with neither an image nor a Plotly figure"
            continue  # vector graphics and text: sharp at any size; its words are its own, not an alt text
        assert f["alt"] == f["caption"], f"{page}: alt text {f['alt']!r} is not the caption {f['caption']!r}"
        sharp = f["src"].endswith(".svg") or f["natural"] >= 2 * f["shown"]
        assert sharp, (
            f"{page}: {f['src']} has {f['natural']} px for {f['shown']:.0f} CSS px (under 2x: blurred on phones)"
        )


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


def test_no_page_says_contents():
    """目录 is the label of the theme's on-page table of contents; the snippet test relies on no page using it."""
    assert not [p for p in PAGES if "目录" in (BOOK / f"{p}.md").read_text(encoding="utf-8")]


@pytest.mark.parametrize("query", ["屋顶线", "共享内存", "调度空间", "寄存器", "代价模型"])
def test_chinese_search_finds_the_lectures_terms_with_clean_snippets(open_page, query):
    results = search_results(open_page, query)
    assert results, f"search for {query} found nothing"
    for page, snippet in results:
        assert query in snippet, f"{query}: the snippet of {page} does not show the word: {snippet!r}"
        assert "目录" not in snippet, f"{query}: the snippet of {page} is cut from the theme's table of contents"
        assert "显示代码" not in snippet, f"{query}: the snippet of {page} shows a collapsed cell's label"
        dirty = re.findall(r">>>|\\[a-zA-Z]+|\\[()\[\]]|\$", snippet)
        assert not dirty, f"{query}: the snippet of {page} shows code or TeX {dirty}: {snippet!r}"


def test_search_ranks_the_pruning_page_first_for_shared_memory(open_page):
    pages = [page for page, _ in search_results(open_page, "共享内存")]
    assert pages[0] == "space", f"共享内存 ranks {pages}"


# -- Tables that never cut, figures a phone can read, figures to explore ---------------------------------------

#: The widths a reader meets: a laptop (the text column is about 688 px), a phone, and paper (A4 less 1 cm
#: margins, 190 mm at 96 px per inch, with print media emulated).
PRINT_WIDTH_PX = 718
LAYOUTS = {"1280": (1280, "screen"), "390": (PHONE_WIDTH_PX, "screen"), "print": (PRINT_WIDTH_PX, "print")}

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


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("page", TABLE_PAGES)
def test_no_table_is_cut(open_page, page, layout):
    """At 1280 px, 390 px and on paper every table fits, or scrolls in a box with a drawn scrollbar (not on paper)."""
    width, media = LAYOUTS[layout]
    tab = open_page(f"{page}.html", width=width)
    tab.emulate_media(media=media)
    cut = tab.evaluate(CLIPPED_JS, media == "print")
    assert not cut, f"{page} at {layout}: tables cut: {cut}"


def test_the_clip_check_sees_a_cut_table(open_page):
    """The check above can fail: a table squeezed into a box that hides its overflow is reported, on screen and paper."""
    tab = open_page("landscape.html")
    tab.evaluate(
        """() => { const d = document.createElement("div"); d.style.cssText = "width: 100px; overflow: hidden";
        d.innerHTML = "<table><caption>t</caption><tr><td>" + "x ".repeat(200) + "</td></tr></table>";
        d.querySelector("td").style.whiteSpace = "nowrap"; document.querySelector("article").append(d); }"""
    )
    assert tab.evaluate(CLIPPED_JS, False)
    tab.emulate_media(media="print")
    assert tab.evaluate(CLIPPED_JS, True)


IMAGES_JS = """
() => [...document.querySelectorAll("article .cell_output img:not(.schedlab-print-twin)")].map((img) => ({src: img.getAttribute("src"),
  natural: img.naturalWidth, shown: img.getBoundingClientRect().width}))
"""


@pytest.mark.parametrize("page", TABLE_PAGES)
def test_figure_text_is_legible_on_a_phone(open_page, built_site, page):
    """At 390 px no figure shows text under 9 CSS px, nor a text colour under 4.5:1 on what lies under it.

    Each PNG carries its smallest text's size in its own pixels and its lowest contrast
    (schedlab.figures.style.legibility); the phone shows it at ``shown`` of its ``natural`` pixels.
    """
    from PIL import Image

    from schedlab.figures.style import LEGIBILITY_KEYS, MIN_CONTRAST, MIN_TEXT_CSS_PX

    size_key, contrast_key, smallest_key, faintest_key = LEGIBILITY_KEYS
    for img in open_page(f"{page}.html", width=PHONE_WIDTH_PX).evaluate(IMAGES_JS):
        meta = Image.open(built_site / img["src"]).text
        assert size_key in meta, f"{page}: {img['src']} carries no legibility record (not made by schedlab.figures?)"
        css_px = float(meta[size_key]) * img["shown"] / img["natural"]
        assert css_px >= MIN_TEXT_CSS_PX, f"{page}: {meta[smallest_key]!r} is {css_px:.1f} CSS px on a phone"
        assert float(meta[contrast_key]) >= MIN_CONTRAST, f"{page}: {meta[faintest_key]!r} at {meta[contrast_key]}:1"


#: Pages with an interactive Plotly figure, and a knob value its hover must name.
PLOTLY_PAGES = ("landscape", "shapes")


@pytest.mark.parametrize("page", PLOTLY_PAGES)
def test_interactive_figure_prints_as_its_static_twin(open_page, page):
    """On screen the Plotly figure and not its twin; on paper the twin, whole, and not the Plotly figure."""
    tab = open_page(f"{page}.html")
    shown = """() => [...document.querySelectorAll("article .schedlab-explorer, article img.schedlab-print-twin")].map(
      (e) => ({twin: e.tagName === "IMG", width: e.getBoundingClientRect().width, complete: e.tagName !== "IMG" || e.complete,
               natural: e.naturalWidth || 0}))"""
    screen = tab.evaluate(shown)
    assert screen and any(e["twin"] for e in screen), f"{page}: no interactive figure with a static twin"
    assert all((e["width"] > 0) != e["twin"] for e in screen), f"{page}: on screen {screen}"
    tab.emulate_media(media="print")
    paper = tab.evaluate(shown)
    assert all((e["width"] > 0) == e["twin"] for e in paper), f"{page}: on paper {paper}"
    assert all(e["natural"] > 0 for e in paper if e["twin"]), f"{page}: a twin image did not load: {paper}"


@pytest.mark.parametrize("page", PLOTLY_PAGES)
def test_interactive_figure_draws_offline_and_hovers(browser, server, page):
    """With every request off localhost refused, Plotly (served from _static) draws the figure, and hovering
    a point shows its label: a configuration's knob tuple and time, or a shape pair's cost."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.route(re.compile(r"^(?!http://127\.0\.0\.1[:/]).*"), lambda route: route.abort())
    tab = ctx.new_page()
    errors = []
    tab.on("pageerror", lambda e: errors.append(str(e)))
    load(tab, f"{server}/{page}.html")
    plot = tab.locator("article .plotly-graph-div").first
    plot.wait_for(timeout=15_000)
    plot.scroll_into_view_if_needed()
    tab.wait_for_selector("article .plotly-graph-div .main-svg", timeout=15_000)
    points = tab.locator("article .plotly-graph-div :is(g.point, g.hm, .heatmaplayer image, .nsewdrag)")
    assert points.count(), f"{page}: the Plotly figure drew nothing"
    box = tab.locator("article .plotly-graph-div .nsewdrag").first.bounding_box()
    hover = ""
    for fx, fy in ((0.02, 0.98), (0.05, 0.9), (0.1, 0.5), (0.3, 0.3), (0.5, 0.5), (0.12, 0.12)):
        tab.mouse.move(box["x"] + fx * box["width"], box["y"] + fy * box["height"])
        tab.wait_for_timeout(300)
        hover = " ".join(t or "" for t in tab.locator("article .plotly-graph-div .hoverlayer").all_text_contents())
        if hover.strip():
            break
    ctx.close()
    assert not errors, f"{page}: {errors}"
    assert re.search(r"\(\d+, \d+, \d+, \d+, \d+, \d+\)", hover), f"{page}: hover shows no configuration: {hover!r}"
