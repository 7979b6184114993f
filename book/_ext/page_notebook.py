"""A page's executed notebook turned into one that reads as the page in plain Jupyter.

MyST-NB executes each page and writes the notebook it ran (``jupyter_execute/PAGE.ipynb``), but its Markdown
cells keep the page's source: ``{glue:text}`` roles where the page shows numbers, cross-reference, glossary and
citation roles, directive fences, targets and footnotes, none of which Jupyter renders. :func:`page_notebook`
writes each of them as the page shows it: a glued value as its text, a reference as the number or title it
resolves to (plain text: a downloaded notebook has no site beside it to link to), a term as its text, a
citation as its label; a hidden ``{doctest}`` (a guard of the page's numbers, not teaching) is left out. Code
cells keep their outputs; the cells the page hides are collapsed (``jupyter.source_hidden``), a figure's
caption follows it, and the ``myst_nb.glue`` import becomes a stand-in that needs no Sphinx.

Everything here works on plain data (an ``nbformat`` notebook, dicts of what the references resolve to), so
it is tested without a build; ``notebook_download`` feeds it from Sphinx.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import nbformat

#: MyST syntax Jupyter shows raw: a role, a directive fence, a target, a labelled equation, a footnote,
#: a block break or a MyST comment. Nothing in a converted notebook's Markdown may match (tests/test_notebooks).
MYST_LEFT = {
    "role": re.compile(r"\{[A-Za-z][\w.:-]*\}`"),
    "directive": re.compile(r"^\s*(`{3,}|:{3,})\s*\{[\w.:-]+\}", re.M),
    "target": re.compile(r"^\s*\([\w.:-]+\)=\s*$", re.M),
    "equation label": re.compile(r"\$\$\s*\([\w.:-]+\)"),
    "footnote": re.compile(r"\[\^[^\]]+\]"),
    "block break": re.compile(r"^\+\+\+", re.M),
    "comment": re.compile(r"^% ", re.M),
}

#: Tags with which a page hides a cell's code (MyST-NB), and those with which it hides the outputs.
HIDDEN_SOURCE_TAGS = {"remove-cell", "remove-input", "hide-input", "hide-cell"}
HIDDEN_OUTPUT_TAGS = {"remove-output", "hide-output"}

#: The page's import of myst-nb's glue, and what the notebook runs instead: the values are already in its text.
GLUE_IMPORT = "from myst_nb import glue"
GLUE_STAND_IN = (
    "from IPython.display import display as _display\n\n\n"
    "def glue(name, value, display=True):  # 网页上 myst_nb.glue 把数值写进正文；笔记本的正文里已经写好\n"
    "    if display:\n"
    "        _display(value)"
)


@dataclass(frozen=True)
class Refs:
    """What the page's references resolve to, as the site shows them (plain strings).

    Attributes
    ----------
    titles : dict
        label or document name -> title (``{ref}``, ``{doc}``).
    numbers : dict
        label -> numbered name, "图 3", "练习 12" (``{numref}``, exercises and solutions).
    equations : dict
        equation label -> "(3)" (``{eq}``).
    citations : dict
        BibTeX key -> label, "Lit61" (``{cite}``).
    """

    titles: dict[str, str] = field(default_factory=dict)
    numbers: dict[str, str] = field(default_factory=dict)
    equations: dict[str, str] = field(default_factory=dict)
    citations: dict[str, str] = field(default_factory=dict)


def _lookup(table: dict[str, str], key: str, what: str, page: str) -> str:
    if key not in table:
        raise KeyError(f"{page}: {what} {key!r} does not resolve (not in the build's {what}s)")
    return table[key]


def glued_text(record: dict, spec: str) -> str:
    """A glue record's value as ``{glue:text}`key:spec``` shows it: its ``text/plain``, formatted by ``spec``.

    Examples
    --------
    >>> glued_text({"data": {"text/plain": "3.371409192326163"}}, ".1f")
    '3.4'
    >>> glued_text({"data": {"text/plain": "'(16, 16, 128, 1, 4, 1)'"}}, "")
    '(16, 16, 128, 1, 4, 1)'
    """
    plain = record["data"]["text/plain"]
    try:
        value = ast.literal_eval(plain)
    except (ValueError, SyntaxError):
        value = plain
    return format(value, spec) if spec else str(value)


_ROLE = re.compile(r"\{([A-Za-z][\w.:-]*)\}`([^`]+)`")
_EXPLICIT = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)  # "text <target>"


def _role(name: str, content: str, glue: dict, refs: Refs, page: str) -> str:
    explicit = _EXPLICIT.match(content)
    text, target = (explicit[1], explicit[2]) if explicit else (None, content)
    if name in ("glue:text", "glue"):
        key, _, spec = content.partition(":")
        return glued_text(_lookup(glue, key, "glue record", page), spec)
    if name == "term":
        return text or target
    if name == "ref":
        return text or _lookup(refs.titles, target, "label", page)
    if name == "doc":
        return text or _lookup(refs.titles, target.removesuffix(".md").lstrip("/"), "document", page)
    if name == "numref":
        number = _lookup(refs.numbers, target, "numbered label", page)
        return text.replace("%s", number.split()[-1]).replace("{number}", number.split()[-1]) if text else number
    if name == "eq":
        return _lookup(refs.equations, target, "equation", page)
    if name.startswith("cite"):
        labels = [_lookup(refs.citations, key.strip(), "citation", page) for key in target.split(",")]
        return "[" + "; ".join(labels) + "]"
    raise ValueError(f"{page}: the role {{{name}}} has no notebook form (book/_ext/page_notebook.py)")


def _footnotes(text: str, numbers: dict[str, int]) -> str:
    """Footnote references as superscript numbers and definitions as numbered lines (Jupyter has no footnotes)."""

    def number(name: str) -> int:
        return numbers.setdefault(name, len(numbers) + 1)

    text = re.sub(r"^\[\^([^\]]+)\]:\s*", lambda m: f"<sup>{number(m[1])}</sup> ", text, flags=re.M)
    return re.sub(r"\[\^([^\]]+)\]", lambda m: f"<sup>{number(m[1])}</sup>", text)


_FENCE = re.compile(r"^(?P<fence>`{3,}|:{3,})\s*\{(?P<name>[\w.:-]+)\}[ \t]*(?P<arg>.*)$")


def _directive(name: str, arg: str, options: dict[str, str], body: str, refs: Refs, page: str) -> str | None:
    """A directive as Markdown (None to leave it out)."""
    if name == "doctest":
        if "hide" in options:
            return None  # a guard of the page's numbers (run by the doctest builder and pytest), not shown
        return f"```pycon\n{body.strip()}\n```"
    if name == "admonition":
        return "\n".join(f"> {line}".rstrip() for line in [f"**{arg}**", "", *body.strip().splitlines()])
    if name == "exercise":
        head = _lookup(refs.numbers, options["label"], "exercise", page) if "label" in options else "练习"
        return f"**{head}**{('：' + arg) if arg else ''}\n\n{body.strip()}"
    if name == "solution-start":
        return f"**解答（{_lookup(refs.numbers, arg.strip(), 'exercise', page)}）**"
    if name in ("solution-end", "toctree"):
        return None  # the toctree: the index's text links every chapter already
    if name in ("note", "tip", "important", "warning", "seealso"):
        return "\n".join(f"> {line}".rstrip() for line in body.strip().splitlines())
    raise ValueError(f"{page}: the directive {{{name}}} has no notebook form (book/_ext/page_notebook.py)")


def _directives(text: str, refs: Refs, page: str) -> str:
    """Each directive fence in ``text`` replaced by its Markdown form (nested fences included)."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            out.append(lines[i])
            i += 1
            continue
        fence = opening["fence"]
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == fence), None)
        if end is None:
            raise ValueError(f"{page}: the {{{opening['name']}}} fence opened at {lines[i]!r} is never closed")
        inner = lines[i + 1 : end]
        options = {}
        while inner and (option := re.match(r"^:([\w-]+):\s*(.*)$", inner[0])):
            options[option[1]] = option[2]
            inner = inner[1:]
        body = _directives("\n".join(inner), refs, page)
        shown = _directive(opening["name"], opening["arg"].strip(), options, body, refs, page)
        if shown is not None:
            out.append(shown)
        i = end + 1
    return "\n".join(out)


def markdown_as_page(text: str, glue: dict, refs: Refs, page: str, footnotes: dict[str, int] | None = None) -> str:
    """A Markdown cell's source written as the page shows it, in Markdown Jupyter renders.

    ``footnotes`` numbers the page's footnotes across its cells (updated in place).

    Examples
    --------
    >>> refs = Refs(titles={"model": "模型"}, numbers={"fig-a": "图 3"}, citations={"k": "Lit61"})
    >>> glue = {"n": {"data": {"text/plain": "2.345"}}}
    >>> markdown_as_page("(x)=\\n慢 {glue:text}`n:.1f` 倍（{numref}`fig-a`，{ref}`model`），{term}`SM <流多处理器>`{cite}`k`", glue, refs, "p")
    '慢 2.3 倍（图 3，模型），SM[Lit61]'
    """
    footnotes = {} if footnotes is None else footnotes
    text = _directives(text, refs, page)
    text = re.sub(r"^\s*\([\w.:-]+\)=\s*\n?", "", text, flags=re.M)  # targets
    text = re.sub(r"^% .*\n?", "", text, flags=re.M)  # MyST comments
    text = re.sub(r"(\$\$)\s*\(([\w.:-]+)\)", lambda m: m[1], text)  # "$$ (eq-x)": numbered below
    text = _ROLE.sub(lambda m: _role(m[1], m[2], glue, refs, page), text)
    return _footnotes(text, footnotes).strip()


def _number_equations(text: str, refs: Refs) -> str:
    """Labelled display equations (``$$ ... $$ (label)``) with the page's number as a ``\\tag``."""

    def tagged(m: re.Match) -> str:
        number = refs.equations.get(m[2], "").strip("()")
        return f"$$\n{m[1]}\n\\tag{{{number}}}\n$$" if number else f"$$\n{m[1]}\n$$"

    return re.sub(r"^\$\$\n((?:(?!\$\$).)*?)\n\$\$[ \t]*\(([\w.:-]+)\)[ \t]*$", tagged, text, flags=re.S | re.M)


def _code_cell(cell, glue: dict, refs: Refs, page: str, footnotes: dict[str, int]) -> list:
    """A code cell as the notebook keeps it (hidden parts collapsed), followed by its figure's caption."""
    tags = set(cell.metadata.get("tags", []))
    jupyter = dict(cell.metadata.get("jupyter", {}))
    if tags & HIDDEN_SOURCE_TAGS:
        jupyter["source_hidden"] = True
    if tags & HIDDEN_OUTPUT_TAGS or "remove-cell" in tags:
        jupyter["outputs_hidden"] = True
    if jupyter:
        cell.metadata["jupyter"] = jupyter
    cell.source = "\n".join(GLUE_STAND_IN if line == GLUE_IMPORT else line for line in cell.source.split("\n"))
    for output in cell.get("outputs", []):
        data = output.get("data", {})
        if "image/png" in data and "plotly-graph-div" in "".join(data.get("text/html", "")):
            del data["text/html"]  # the Plotly figure draws only on the site (its JavaScript is served there)
    figure = cell.metadata.get("mystnb", {}).get("figure")
    if not figure or "caption" not in figure:
        return [cell]
    caption = markdown_as_page(figure["caption"], glue, refs, page, footnotes)
    number = refs.numbers.get(figure.get("name", ""), "图")
    shown = nbformat.v4.new_markdown_cell(f"*{number}：{caption}*")
    shown.id = f"{cell.get('id', 'figure')}-caption"[:64]  # stable: a rebuild writes the same notebook
    return [cell, shown]


def page_notebook(executed, glue: dict, refs: Refs, page: str, first_cells: list):
    """The notebook a reader downloads for ``page``: ``first_cells``, then ``executed`` read as the page.

    Parameters
    ----------
    executed : nbformat.NotebookNode
        The notebook MyST-NB ran (not changed).
    glue : dict
        The page's glue records (name -> output, as in ``jupyter_execute/PAGE.glue.json``).
    refs : Refs
        What the page's references resolve to.
    page : str
        The page's name, for errors.
    first_cells : list
        Cells put first (the install cell).

    Raises
    ------
    KeyError
        A glue name or reference the build did not resolve.
    ValueError
        A role or directive with no notebook form.
    """
    notebook = nbformat.from_dict(executed)  # a deep copy
    cells = list(first_cells)
    footnotes: dict[str, int] = {}
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            text = markdown_as_page(_number_equations(cell.source, refs), glue, refs, page, footnotes)
            if text:
                cell.source = text
                cells.append(cell)
        elif cell.cell_type == "code":
            cells.extend(_code_cell(cell, glue, refs, page, footnotes))
        else:
            cells.append(cell)
    notebook.cells = cells
    notebook.nbformat_minor = max(notebook.nbformat_minor, 5)  # cell ids
    for i, cell in enumerate(cells):
        cell.setdefault("id", f"cell-{i}")
    notebook.metadata.pop("source_map", None)
    notebook.metadata.pop("jupytext", None)  # a plain .ipynb, not paired with a MyST file
    return notebook
