"""Fixtures shared by the test files."""

import matplotlib.pyplot as plt
import pytest

from tests.site_build import built_site  # noqa: F401  (the built site, one build per session)


@pytest.fixture
def close():
    """Collect figures and close them after the test (``plt.close`` works on unmanaged figures too)."""
    made = []
    yield made.append
    for fig in made:
        plt.close(fig)
