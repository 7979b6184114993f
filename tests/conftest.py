"""Fixtures shared by the test files, and the `site` marker on every test that needs the built site."""

import matplotlib.pyplot as plt
import pytest

from tests.site_build import built_site  # noqa: F401  (the built site, one build per run, shared by xdist workers)


def pytest_collection_modifyitems(items):
    """A test that asks for the built site is a `site` test, wherever it is (`make check` deselects them)."""
    for item in items:
        if "built_site" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.site)


@pytest.fixture
def close():
    """Collect figures and close them after the test (``plt.close`` works on unmanaged figures too)."""
    made = []
    yield made.append
    for fig in made:
        plt.close(fig)
