"""The lecture's seed script runs, unmodified, on this package.

The seed imports ``sched_lab`` and ``console`` from its own folder; two one-line shims
beside a copy of it map those names to ``schedlab`` and ``schedlab.console``.

The seed lives outside the repository, in ``shared/seed/`` beside the repository root
(CI clones the repository next to a copy of ``shared/``). ``SCHEDLAB_SEED`` may name
the file instead. Where the seed is absent (a fresh clone on its own) the three tests that
need it skip with a one-line reason naming ``SCHEDLAB_SEED``; where it is present they run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import schedlab
from schedlab.core.landscape import landscape
from schedlab.studies.space import space_summary

REPO = Path(__file__).resolve().parents[1]
SEED_NAME = "03_gpu_schedule_space.py"
SEED_NAMES = ("SPACE", "GemmConfig", "H100_TC", "all_configs", "gemm_time", "static_valid")
CONSOLE_NAMES = ("fmt_time", "print_header", "print_observations", "print_table")


def seed_path() -> Path:
    override = os.environ.get("SCHEDLAB_SEED")
    return Path(override) if override else REPO.parent / "shared" / "seed" / SEED_NAME


@pytest.fixture(scope="module")
def seed() -> Path:
    """The seed's path; skips the calling test, saying how to provide the seed, when the file is absent."""
    path = seed_path()
    if not path.is_file():
        pytest.skip(
            f"seed script {path} absent: set SCHEDLAB_SEED to a copy of {SEED_NAME} "
            f"(or put shared/ beside the repository)"
        )
    return path


def test_star_imports_export_what_the_seed_uses():
    assert set(SEED_NAMES) <= set(schedlab.__all__)
    import schedlab.console as console

    assert set(CONSOLE_NAMES) <= set(console.__all__)
    for name in CONSOLE_NAMES:
        assert callable(getattr(console, name))


@pytest.fixture(scope="module")
def seed_run(seed, tmp_path_factory) -> subprocess.CompletedProcess:
    """The seed's run, once per module."""
    src = seed
    work = tmp_path_factory.mktemp("seed")
    shutil.copy(src, work / SEED_NAME)
    (work / "sched_lab.py").write_text("from schedlab import *\n", encoding="utf-8")
    (work / "console.py").write_text("from schedlab.console import *\n", encoding="utf-8")
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, SEED_NAME], cwd=work, capture_output=True, text=True, encoding="utf-8", env=env, timeout=600
    )


def test_seed_is_present(seed):
    assert seed.read_text(encoding="utf-8").startswith('"""')


@pytest.mark.slow  # the seed prices every config one call at a time (about 40 s of CPU)
def test_seed_runs_unmodified(seed_run):
    assert seed_run.returncode == 0, seed_run.stderr[-4000:]
    assert "Traceback" not in seed_run.stderr
    positions = [seed_run.stdout.find(f"演示 {i}") for i in (1, 2, 3, 4)]
    assert all(p >= 0 for p in positions), positions
    assert positions == sorted(positions)


@pytest.mark.slow  # the seed prices every config one call at a time (about 40 s of CPU)
def test_seed_counts_agree_with_the_analysis(seed_run):
    s = space_summary()
    assert f"一共 {s.n_configs} 个组合，能启动的 {s.n_launchable} 个" in seed_run.stdout
    assert f"最优配置 {landscape((4096, 4096, 4096)).best.as_tuple()}" in seed_run.stdout


def _pytest_this_file(seed_file: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SCHEDLAB_SEED=str(seed_file))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            __file__,
            "-p",
            "no:cacheprovider",
            "-vv",
            "-rs",
            "-k",
            "not test_seed_skips_only_when_absent",
            *args,
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.slow  # two pytest runs in subprocesses
def test_seed_skips_only_when_absent(tmp_path):
    """A missing seed skips the three seed tests with the reason naming SCHEDLAB_SEED; a present one runs."""
    absent = _pytest_this_file(tmp_path / "missing" / SEED_NAME)
    assert absent.returncode == 0, absent.stdout[-3000:]
    assert "1 passed, 3 skipped" in absent.stdout, absent.stdout[-3000:]
    reasons = [line for line in absent.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(reasons) == 3, absent.stdout[-3000:]  # one line each (-vv: not cut to the terminal's width)
    assert all(f"{tmp_path / 'missing' / SEED_NAME} absent" in r and "SCHEDLAB_SEED" in r for r in reasons), reasons

    present = tmp_path / SEED_NAME
    present.write_text('"""A stand-in seed: present, so test_seed_is_present must run, not skip."""\n')
    ran = _pytest_this_file(present, "-k", "test_seed_is_present")
    assert ran.returncode == 0 and "1 passed" in ran.stdout and "skipped" not in ran.stdout, ran.stdout[-3000:]
