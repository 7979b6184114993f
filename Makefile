# The two commands a newcomer needs: `make html` and `make test` (see README.md); `make check` while working.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# -T: a failing cell's traceback on the console (under -j, Sphinx prints only "ExecutionError: <page>"
# and drops the log that holds it); -W: every warning an error. The builds share one environment.
SPHINX := $(BIN)/sphinx-build -c . -d _build/doctrees -T -W --keep-going -j auto
# The pages guard their numbers with doctests: `make html` runs them (the doctest builder) first,
# and again only when one of their inputs changed since they last passed.
DOCTESTS_PASSED := _build/doctest/passed
DOCTEST_INPUTS := conf.py $(wildcard book/*.md) $(shell find schedlab -name "*.py")
# Tests in parallel (pytest-xdist, one worker per core; idle workers take queued tests from busy ones). `make check` leaves out the tests marked in
# pyproject.toml as needing the built site, running sphinx-build or make, slow, or regenerating recorded data, and runs
# each Hypothesis property on a tenth of its examples (the `quick` profile, tests/conftest.py).
PYTEST := $(BIN)/python -m pytest -n auto --dist worksteal
QUICK := -m "not site and not build and not slow and not regen"
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CJK_FONT := /usr/share/fonts/truetype/wqy/wqy-microhei.ttc
CHROMIUM := /usr/bin/chromium
XELATEX := /usr/bin/xelatex
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)
# The package as a wheel: served with the site (conf.py), installed by the downloaded notebooks' first cell (each page's
# zip holds its notebook and the wheel: book/_ext/notebook_download.py). Only
# the site needs it (`make html`, `make test`): conf.py builds without it, leaving out the link and the install cell.
WHEEL := dist/schedlab-$(VERSION)-py3-none-any.whl
PDF := _build/latex/schedlab.pdf

.PHONY: html pdf wheel test check lint doctest serve bench clean distclean
# A recipe that fails leaves no target behind (latexmk writes a PDF even when xelatex stops on an error).
.DELETE_ON_ERROR:

# Python environment: the package with its test and book extras, in .venv.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip 'setuptools>=77'  # the wheel (make wheel) builds with the venv's setuptools
	$(BIN)/pip install --quiet -e '.[test,book]'
	touch $@

# System packages from Debian: a CJK font for the figures, Chromium for the browser test.
$(CJK_FONT):
	$(SUDO) apt-get update -qq
	$(SUDO) apt-get install -y -qq fonts-wqy-microhei
	rm -f $$HOME/.cache/matplotlib/fontlist-*.json

$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) apt-get install -y -qq chromium

# TeX for `make pdf` (about 600 MB): xelatex, xeCJK and ctex, latexmk, the Noto CJK and FreeFont fonts, ZapfDingbats
# (texlive-fonts-recommended: hyperref under xelatex loads it for every link), and
# poppler's pdftoppm (the PDF test renders pages with it). TEX_FILES holds one file of each package, so a machine
# that has xelatex but lacks one of the others installs them (apt-get skips what is there).
TEXMF := /usr/share/texlive/texmf-dist
TEX_FILES := $(XELATEX) $(TEXMF)/tex/latex/ctex/ctex.sty $(TEXMF)/tex/latex/capt-of/capt-of.sty \
	$(TEXMF)/fonts/type1/urw/zapfding/uzdr.pfb /usr/bin/latexmk /usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc \
	/usr/share/fonts/opentype/freefont/FreeSerif.otf /usr/share/texmf/fonts/type1/public/tex-gyre/qagr.pfb /usr/bin/pdftoppm
# System files are never deleted by .DELETE_ON_ERROR when an install fails half-way.
.PRECIOUS: $(TEX_FILES) $(CJK_FONT) $(CHROMIUM)

$(TEX_FILES) &:
	$(SUDO) apt-get update -qq
	$(SUDO) apt-get install -y -qq --no-install-recommends texlive-xetex texlive-lang-chinese texlive-latex-extra \
		texlive-fonts-recommended latexmk fonts-noto-cjk fonts-freefont-otf tex-gyre poppler-utils

wheel: $(WHEEL)

$(WHEEL): $(STAMP) pyproject.toml README.md $(shell find schedlab -name "*.py") schedlab/figures/matplotlibrc
	rm -f dist/schedlab-*.whl
	$(BIN)/pip wheel --quiet --no-deps --no-build-isolation --wheel-dir dist .

html: $(DOCTESTS_PASSED) $(WHEEL)
	$(SPHINX) -b html book _build/html
	@echo "Open _build/html/index.html (or run: make serve)"

$(DOCTESTS_PASSED): $(STAMP) $(CJK_FONT) $(DOCTEST_INPUTS)
	$(SPHINX) -b doctest book _build/doctest
	touch $@

# The whole lecture as one PDF: Sphinx's LaTeX builder (xelatex, see conf.py), then latexmk.
pdf: $(PDF)

$(PDF): $(STAMP) $(CJK_FONT) $(TEX_FILES) $(DOCTEST_INPUTS)
	$(SPHINX) -b latex book _build/latex
	# from scratch: an .aux or .toc left by a run under other settings (conf.py's latex_elements) stops xelatex
	$(MAKE) -C _build/latex clean
	$(MAKE) -C _build/latex LATEXMKOPTS="-silent -interaction=nonstopmode" all-pdf
	@echo "The PDF: $(PDF)"

doctest: $(STAMP) $(CJK_FONT)
	$(SPHINX) -b doctest book _build/doctest
	touch $(DOCTESTS_PASSED)

# Everything: lint, the site (built once, here; the tests' built_site fixture then finds it up to date),
# every test, the browser checks and the book's doctests included. `.ci/run` runs this. The site is built
# without `make html`'s doctest step: pytest runs the same examples (book/*.md) beside the other tests.
test: lint $(STAMP) $(CJK_FONT) $(CHROMIUM) $(TEX_FILES) $(WHEEL)
	$(SPHINX) -b html book _build/html
	$(PYTEST)

# The package's tests and doctests, no site build: minutes, not more.
check: lint $(CJK_FONT)
	HYPOTHESIS_PROFILE=quick $(PYTEST) $(QUICK) tests schedlab

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

serve: html
	$(BIN)/python -m http.server --bind 127.0.0.1 --directory _build/html 8000

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do $(BIN)/python $$b || exit 1; done

# `clean` removes what builds and tests leave; `distclean` the environment too.
clean:
	rm -rf _build dist build .pytest_cache .hypothesis .ruff_cache
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +

distclean: clean
	rm -rf _build $(VENV) *.egg-info
