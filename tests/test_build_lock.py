"""Builds in one clone take turns: conf.py's build lock makes a second build wait, and both succeed."""

import fcntl
import os
import subprocess
import threading

from conf import BUILD_LOCK
from tests.site_build import ROOT, sphinx_command, write_book

CELL_PAGE = "# {title}\n\n```{{code-cell}} ipython3\nimport schedlab\nprint({title!r}, schedlab.H100_TC.n_sm)\n```\n"
WAITING = "waiting for another build of this clone to finish"


def start_build(cmd):
    """Start `cmd` with its output unbuffered and merged, killed after 300 s at most (a safety bound)."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    bound = threading.Timer(300, proc.kill)
    bound.daemon = True
    bound.start()
    return proc


def test_a_build_waits_while_another_holds_the_lock(tmp_path):
    src = write_book(tmp_path, {"index": CELL_PAGE.format(title="锁")})
    out, cache = tmp_path / "html", tmp_path / "cache"
    BUILD_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with BUILD_LOCK.open("a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as a running build holds it
        proc = start_build(sphinx_command(src, out, tmp_path / "doctrees", cache))
        log = []
        for line in proc.stdout:
            log.append(line)
            if WAITING in line:
                break
        assert WAITING in "".join(log), "".join(log)
        # Blocked before it touches anything shared: no execution cache, no pages.
        assert not cache.exists() and not (out / "index.html").exists()
    rest, _ = proc.communicate()
    assert proc.returncode == 0, "".join(log) + rest
    assert (out / "index.html").exists()


def test_two_builds_at_once_both_succeed(tmp_path):
    """The same small book built twice at once into the same folders (cache, doctrees, output)."""
    src = write_book(tmp_path, {"index": CELL_PAGE.format(title="一"), "second": CELL_PAGE.format(title="二")})
    cmd = sphinx_command(src, tmp_path / "html", tmp_path / "doctrees", tmp_path / "cache")
    procs = [start_build(cmd) for _ in range(2)]
    logs = [proc.communicate()[0] for proc in procs]
    for proc, log in zip(procs, logs):
        assert proc.returncode == 0, log[-4000:]
    for page in ("index", "second"):
        assert "132" in (tmp_path / "html" / f"{page}.html").read_text(encoding="utf-8")
