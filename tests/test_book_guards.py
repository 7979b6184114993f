"""The book's doctests guard its numbers: perturb the model and they must fail.

Each perturbation makes a copy of ``H100_TC`` with one parameter replaced the default
machine (:func:`schedlab.core.hardware.using`; the pages' examples use the default), runs every
``>>>`` example of every page, and expects failures. ``H100_TC`` itself is frozen and never
touched. The unperturbed run must pass, so a failure under perturbation is the model's
doing, not a broken example.
"""

import dataclasses
import doctest
from pathlib import Path

import pytest

import schedlab
from schedlab import H100_TC
from schedlab.core.hardware import default, using
from tests.site_build import NOTEBOOK_PAGES

BOOK = Path(__file__).resolve().parents[1] / "book"
#: The pages that compute (the glossary and references pages quote no model number).
PAGES = sorted(BOOK / f"{page}.md" for page in NOTEBOOK_PAGES)


def run_book_doctests() -> dict[str, tuple[int, int]]:
    """(failed, attempted) per page, every page's examples in a fresh namespace."""
    parser = doctest.DocTestParser()
    results = {}
    for page in PAGES:
        test = parser.get_doctest(page.read_text(encoding="utf-8"), {}, page.name, str(page), 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        runner.run(test, out=lambda _: None)
        results[page.name] = (runner.failures, runner.tries)
    return results


@pytest.fixture
def perturb():
    """Run the pages on ``dataclasses.replace(H100_TC, **changes)``; H100_TC stays as it was."""
    before = dataclasses.asdict(H100_TC)

    def run(**changes):
        schedlab.clear_caches()  # a cold start, as a fresh build would have
        with using(dataclasses.replace(H100_TC, **changes)) as hw:
            assert default() is hw
            return run_book_doctests()

    yield run
    schedlab.clear_caches()
    assert dataclasses.asdict(H100_TC) == before and default() is H100_TC


def test_every_page_has_doctests_and_they_pass_unperturbed():
    results = run_book_doctests()
    assert set(results) >= {"index.md", "space.md", "landscape.md", "shapes.md", "gpus.md", "sensitivity.md",
                            "searching.md", "guides.md", "buckets.md", "model.md"}
    for page, (failed, tried) in results.items():
        assert tried > 0, f"{page} has no doctest guarding its numbers"
        assert failed == 0, f"{page}: {failed} of {tried} doctests fail on the unperturbed model"


@pytest.mark.parametrize(
    "changes, pages",
    [
        # pruning: a smaller shared-memory limit changes the launchable count and the reasons
        # (and so the space every search strategy walks, and the configs the A100 loses against the H100;
        # and the guides page's: every tuner walks that space, the corners are its vertices)
        ({"smem_limit": 200 * 1024}, {"index.md", "space.md", "searching.md", "gpus.md", "guides.md"}),
        # a 10 % faster clock changes every time and TFLOPS figure (and the local searches' trial
        # counts, and where coordinate descent gets stuck; and the baselines' regrets and the bucket covers;
        # and the lecture H100's column of the GPU comparison; the guides page's trials under every truth)
        ({"clock_hz": H100_TC.clock_hz * 1.1}, {"landscape.md", "model.md", "shapes.md", "searching.md",
                                                 "buckets.md", "gpus.md", "guides.md"}),
        # half the L2 bandwidth changes which tiles win (and every strategy's trials to 5 %, and which
        # configurations cover the decode M, and what the lecture H100's optimum costs on the other GPUs)
        ({"l2_bw_bytes_per_s": H100_TC.l2_bw_bytes_per_s / 2}, {"landscape.md", "sensitivity.md", "searching.md",
                                                                 "buckets.md", "gpus.md", "guides.md"}),
        # fewer SMs: more waves for the same blocks (the model page's wave count, every TFLOPS figure;
        # the guides page's plateaus and trials)
        ({"n_sm": 114}, {"landscape.md", "model.md", "shapes.md", "gpus.md", "guides.md"}),
        # half the HBM bandwidth: the memory-bound decode shape slows down (its TFLOPS, the transfer matrix,
        # the lecture H100's decode TFLOPS beside the other GPUs; the guides page's decode study)
        ({"hbm_bw_bytes_per_s": H100_TC.hbm_bw_bytes_per_s / 2}, {"shapes.md", "gpus.md", "guides.md"}),
    ],
    ids=["smem_limit", "clock", "l2_bandwidth", "n_sm", "hbm_bandwidth"],
)
def test_perturbed_model_fails_the_book_doctests(perturb, changes, pages):
    results = perturb(**changes)
    failing = {page for page, (failed, _) in results.items() if failed}
    assert pages <= failing, f"perturbing {changes} left these pages' doctests passing: {pages - failing}"
