"""The book's doctests guard its numbers: perturb the model and they must fail.

Each perturbation makes a copy of ``H100_TC`` with one parameter replaced the lecture's machine
(:func:`schedlab.core.hardware.lecture_machine_replaced`, used here and nowhere else: the pages'
examples use ``hw=None`` and the name ``"h100-lecture"``, which both mean that machine), runs the
``>>>`` examples of each page it must break, one test per page, and stops at the page's first
failing example. ``H100_TC`` itself is frozen and never touched. The unperturbed examples must
pass, so a failure under perturbation is the model's doing, not a broken example: that run is the
book's own doctests, which pytest collects from book/*.md (``--doctest-glob``, in `make test`).
"""

import dataclasses
import doctest

import pytest

import schedlab
from schedlab.core.hardware import H100_TC, check_hardware, lecture_machine_replaced
from tests.site_build import BOOK, NOTEBOOK_PAGES


def page_doctest(page: str) -> doctest.DocTest:
    """The ``>>>`` examples of ``book/<page>.md``, in a fresh namespace."""
    path = BOOK / f"{page}.md"
    return doctest.DocTestParser().get_doctest(path.read_text(encoding="utf-8"), {}, path.name, str(path), 0)


def first_failure(page: str) -> str | None:
    """Run the page's examples until the first that fails (wrong output or an exception); describe it, or None."""
    runner = doctest.DebugRunner(optionflags=doctest.ELLIPSIS)
    try:
        runner.run(page_doctest(page), out=lambda _: None)
    except doctest.DocTestFailure as failure:
        return f"line {failure.example.lineno + 1}: {failure.example.source.strip()}"
    except doctest.UnexpectedException as error:
        return f"line {error.example.lineno + 1}: {error.example.source.strip()} raised {error.exc_info[1]!r}"
    return None


@pytest.fixture
def perturb():
    """Run the pages on ``dataclasses.replace(H100_TC, **changes)``; H100_TC stays as it was."""
    before = dataclasses.asdict(H100_TC)

    def run(page, **changes):
        schedlab.clear_caches()  # a cold start, as a fresh build would have
        with lecture_machine_replaced(dataclasses.replace(H100_TC, **changes)) as hw:
            assert check_hardware(None) is hw
            return first_failure(page)

    yield run
    schedlab.clear_caches()
    assert dataclasses.asdict(H100_TC) == before and check_hardware(None) is H100_TC


@pytest.mark.parametrize("page", NOTEBOOK_PAGES)
def test_every_notebook_page_has_doctests(page):
    assert page_doctest(page).examples, f"{page}.md has no doctest guarding its numbers"


#: id -> (the changes to H100_TC, the pages whose doctests they must break); a page not listed may break too.
PERTURBATIONS = {
    # pruning: a smaller shared-memory limit changes the launchable count and the reasons
    # (and so the space every search strategy walks, and the configs the A100 loses against the H100;
    # and the guides page's: every tuner walks that space, the corners are its vertices)
    "smem_limit": ({"smem_limit": 200 * 1024}, ["index", "space", "searching", "gpus", "guides"]),
    # a 10 % faster clock changes every time and TFLOPS figure (and the local searches' trial
    # counts, and where coordinate descent gets stuck; and the baselines' regrets and the bucket covers;
    # and the lecture H100's column of the GPU comparison; the guides page's trials under every truth)
    "clock": (
        {"clock_hz": H100_TC.clock_hz * 1.1},
        ["landscape", "model", "shapes", "searching", "buckets", "gpus", "guides"],
    ),
    # half the L2 bandwidth changes which tiles win (and every strategy's trials to 5 %, and which
    # configurations cover the decode M, and what the lecture H100's optimum costs on the other GPUs)
    "l2_bandwidth": (
        {"l2_bw_bytes_per_s": H100_TC.l2_bw_bytes_per_s / 2},
        ["landscape", "sensitivity", "searching", "buckets", "gpus", "guides"],
    ),
    # fewer SMs: more waves for the same blocks (the model page's wave count, every TFLOPS figure;
    # the guides page's plateaus and trials)
    "n_sm": ({"n_sm": 114}, ["landscape", "model", "shapes", "gpus", "guides"]),
    # half the HBM bandwidth: the memory-bound decode shape slows down (its TFLOPS, the transfer matrix,
    # the lecture H100's decode TFLOPS beside the other GPUs; the guides page's decode study)
    "hbm_bandwidth": ({"hbm_bw_bytes_per_s": H100_TC.hbm_bw_bytes_per_s / 2}, ["shapes", "gpus", "guides"]),
}


@pytest.mark.slow
@pytest.mark.parametrize(
    "perturbation, page",
    [(name, page) for name, (_, pages) in PERTURBATIONS.items() for page in pages],
)
def test_perturbed_model_fails_the_pages_doctests(perturb, perturbation, page):
    changes, _ = PERTURBATIONS[perturbation]
    assert perturb(page, **changes) is not None, f"perturbing {changes} left {page}.md's doctests passing"
