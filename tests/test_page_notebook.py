"""A page's executed notebook rewritten to read as the page in plain Jupyter (book/_ext/page_notebook.py), on
hand-made notebooks: no build needed. The built site's notebooks are checked in tests/test_notebooks.py."""

import sys

import nbformat
import pytest

from tests.site_build import ROOT

sys.path.insert(0, str(ROOT / "book" / "_ext"))
from page_notebook import GLUE_IMPORT, MYST_LEFT, Refs, markdown_as_page, page_notebook  # noqa: E402

REFS = Refs(
    titles={"model": "演示 2：模型", "shapes": "演示 3：形状"},
    numbers={"fig-a": "图 3", "model-ex1": "练习 12"},
    equations={"eq-l2": "(6)"},
    citations={"little1961": "Lit61", "luo2024hopper": "LBW+24"},
)
GLUE = {
    "ratio": {"data": {"text/plain": "3.371409192326163"}},
    "cfg": {"data": {"text/plain": "'(16, 16, 128, 1, 4, 1)'"}},
    "n": {"data": {"text/plain": "132"}},
}


def convert(text):
    return markdown_as_page(text, GLUE, REFS, "page")


# --- glued values, as the page prints them --------------------------------------------------


@pytest.mark.parametrize(
    "source, shown",
    [
        ("慢 {glue:text}`ratio:.1f` 倍", "慢 3.4 倍"),
        ("{glue:text}`ratio:.2f`", "3.37"),
        ("最优是 {glue:text}`cfg`", "最优是 (16, 16, 128, 1, 4, 1)"),  # a glued string without its quotes
        ("{glue:text}`n` 个 SM", "132 个 SM"),
        ("{glue}`n`", "132"),
    ],
)
def test_glued_values_are_written_as_the_page_formats_them(source, shown):
    assert convert(source) == shown


def test_an_unknown_glue_name_names_the_page_and_the_name():
    with pytest.raises(KeyError, match="page: glue record 'missing'"):
        convert("{glue:text}`missing`")


# --- references, terms and citations as text -------------------------------------------------


@pytest.mark.parametrize(
    "source, shown",
    [
        ("（{numref}`fig-a`）", "（图 3）"),
        ("见 {ref}`model`", "见 演示 2：模型"),
        ("见 {ref}`这一页 <shapes>`", "见 这一页"),
        ("{doc}`shapes`", "演示 3：形状"),
        ("（{eq}`eq-l2`）", "（(6)）"),
        ("{term}`并列`最快", "并列最快"),
        ("{term}`C6、C7 <结论 C1–C8>`", "C6、C7"),
        ("速率{cite}`little1961`", "速率[Lit61]"),
        ("{cite}`little1961,luo2024hopper`", "[Lit61; LBW+24]"),
        ("{cite:p}`little1961`", "[Lit61]"),
    ],
)
def test_references_become_what_the_page_shows(source, shown):
    assert convert(source) == shown


def test_a_role_with_no_notebook_form_fails_the_build():
    with pytest.raises(ValueError, match=r"the role \{kbd\}"):
        convert("{kbd}`Ctrl`")


# --- directives, targets, equations and footnotes -------------------------------------------


def test_hidden_doctests_and_targets_are_left_out():
    source = "(shapes)=\n# 标题\n\n```{doctest}\n:hide:\n>>> 1 + 1\n2\n\n```\n\n正文"
    assert convert(source) == "# 标题\n\n\n正文"


def test_a_shown_doctest_stays_as_a_code_block():
    assert convert("```{doctest}\n>>> 1 + 1\n2\n```") == "```pycon\n>>> 1 + 1\n2\n```"


def test_an_admonition_becomes_a_quote_with_its_title():
    source = ":::{admonition} 小结\n- 一 {glue:text}`n`\n- 二\n:::"
    assert convert(source) == "> **小结**\n>\n> - 一 132\n> - 二"


def test_an_exercise_and_its_solution_carry_the_pages_number():
    source = "```{exercise}\n:label: model-ex1\n\n做 {glue:text}`n` 次\n```\n\n```{solution-start} model-ex1\n:class: dropdown\n```"
    assert convert(source) == "**练习 12**\n\n做 132 次\n\n**解答（练习 12）**"
    assert convert("```{solution-end}\n```") == ""


def test_footnotes_are_numbered_in_order_across_cells():
    numbers = {}
    first = markdown_as_page("正文。[^b] 又一处。[^a]", GLUE, REFS, "page", numbers)
    second = markdown_as_page("[^b]: 注 b。\n[^a]: 注 a。", GLUE, REFS, "page", numbers)
    assert (first, second) == ("正文。<sup>1</sup> 又一处。<sup>2</sup>", "<sup>1</sup> 注 b。\n<sup>2</sup> 注 a。")


def test_labelled_equations_carry_the_pages_number():
    cell = nbformat.v4.new_markdown_cell("$$\nt = \\frac{a}{b}\n$$ (eq-l2)\n\n$$\nu = 1\n$$")
    notebook = page_notebook(nbformat.v4.new_notebook(cells=[cell]), GLUE, REFS, "page", [])
    assert notebook.cells[0].source == "$$\nt = \\frac{a}{b}\n\\tag{6}\n$$\n\n$$\nu = 1\n$$"


# --- code cells ----------------------------------------------------------------------------------


def _figure_cell():
    cell = nbformat.v4.new_code_cell("figures.transfer_explorer(tr)")
    cell.metadata = {
        "tags": ["remove-input"],
        "mystnb": {"figure": {"caption": "比 {glue:text}`n` 慢", "name": "fig-a"}},
    }
    cell.outputs = [
        nbformat.v4.new_output(
            "execute_result", {"image/png": "iVBOR", "text/html": '<div class="plotly-graph-div"></div>'}
        )
    ]
    return cell


def test_a_figure_keeps_its_png_and_is_followed_by_its_numbered_caption():
    notebook = page_notebook(nbformat.v4.new_notebook(cells=[_figure_cell()]), GLUE, REFS, "page", [])
    figure, caption = notebook.cells
    assert figure.metadata["jupyter"] == {"source_hidden": True}  # the page shows no code for it
    assert list(figure.outputs[0].data) == ["image/png"]  # the Plotly div draws only on the site
    assert caption.cell_type == "markdown" and caption.source == "*图 3：比 132 慢*"
    nbformat.validate(notebook)


def test_glue_cells_run_without_myst_nb_and_stay_collapsed():
    cell = nbformat.v4.new_code_cell(f"{GLUE_IMPORT}\nglue('n', 132, display=False)")
    cell.metadata = {"tags": ["remove-cell"]}
    notebook = page_notebook(nbformat.v4.new_notebook(cells=[cell]), GLUE, REFS, "page", [])
    code = notebook.cells[0]
    assert GLUE_IMPORT not in code.source
    assert code.metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    namespace = {}
    exec(code.source, namespace)  # runs the glue call, without myst_nb
    shown = []
    namespace["_display"] = shown.append
    namespace["glue"]("m", 7)
    assert shown == [7]  # glue(..., display=True) shows the value, as myst_nb.glue does


def test_the_converted_notebook_starts_with_the_given_cells_and_has_no_myst_left():
    markdown = nbformat.v4.new_markdown_cell("(x)=\n# 页\n\n见 {numref}`fig-a`[^n]\n\n[^n]: 注")
    first = nbformat.v4.new_code_cell("%pip install x")
    notebook = page_notebook(nbformat.v4.new_notebook(cells=[markdown]), GLUE, REFS, "page", [first])
    assert notebook.cells[0].source == "%pip install x"
    text = notebook.cells[1].source
    assert not [kind for kind, pattern in MYST_LEFT.items() if pattern.search(text)], text
    nbformat.validate(notebook)
