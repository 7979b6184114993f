"""The lecture's seed script runs, unmodified, on this package.

The seed imports ``sched_lab`` and ``console`` from its own folder; two one-line shims
beside a copy of it map those names to ``schedlab`` and ``schedlab.console``.

The seed lives outside the repository, in ``shared/seed/`` beside the repository root
(CI clones the repository next to a copy of ``shared/``). ``SCHEDLAB_SEED`` may name
the file instead. A missing seed is a failure, not a skip: this test is the contract.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import schedlab
from schedlab import landscape, space_summary

REPO = Path(__file__).resolve().parents[1]
SEED_NAME = "03_gpu_schedule_space.py"
SEED_NAMES = ("SPACE", "GemmConfig", "H100_TC", "all_configs", "gemm_time", "static_valid")
CONSOLE_NAMES = ("fmt_time", "print_header", "print_observations", "print_table")


def seed_path() -> Path:
    override = os.environ.get("SCHEDLAB_SEED")
    return Path(override) if override else REPO.parent / "shared" / "seed" / SEED_NAME


def require_seed() -> Path:
    """The seed's path; fails the calling test (not skips it) when the file is missing."""
    path = seed_path()
    if not path.is_file():
        pytest.fail(f"seed script not found at {path}: the repository expects a copy of shared/ beside it "
                    f"({REPO.parent / 'shared' / 'seed'}), or SCHEDLAB_SEED naming {SEED_NAME}", pytrace=False)
    return path


def test_star_imports_export_what_the_seed_uses():
    assert set(SEED_NAMES) <= set(schedlab.__all__)
    import schedlab.console as console

    assert set(CONSOLE_NAMES) <= set(console.__all__)
    for name in CONSOLE_NAMES:
        assert callable(getattr(console, name))


@pytest.fixture(scope="module")
def seed_run(tmp_path_factory) -> subprocess.CompletedProcess | None:
    """The seed's run, once per module; None when the seed is missing (each test then fails)."""
    src = seed_path()
    if not src.is_file():
        return None
    work = tmp_path_factory.mktemp("seed")
    shutil.copy(src, work / SEED_NAME)
    (work / "sched_lab.py").write_text("from schedlab import *\n", encoding="utf-8")
    (work / "console.py").write_text("from schedlab.console import *\n", encoding="utf-8")
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return subprocess.run([sys.executable, SEED_NAME], cwd=work, capture_output=True, text=True, encoding="utf-8",
                          env=env, timeout=600)


def test_seed_is_present():
    assert require_seed().read_text(encoding="utf-8").startswith('"""')


def test_seed_runs_unmodified(seed_run):
    require_seed()
    assert seed_run.returncode == 0, seed_run.stderr[-4000:]
    assert "Traceback" not in seed_run.stderr
    positions = [seed_run.stdout.find(f"演示 {i}") for i in (1, 2, 3, 4)]
    assert all(p >= 0 for p in positions), positions
    assert positions == sorted(positions)


def test_seed_counts_agree_with_the_analysis(seed_run):
    require_seed()
    s = space_summary()
    assert f"一共 {s.n_configs} 个组合，能启动的 {s.n_launchable} 个" in seed_run.stdout
    assert f"最优配置 {landscape((4096, 4096, 4096)).best.as_tuple()}" in seed_run.stdout
