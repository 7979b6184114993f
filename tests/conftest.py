"""Fixtures shared by the test files, the `site` marker on every test that needs the built site, and the
Hypothesis profiles.

Hypothesis runs each property on ``max_examples`` examples of the profile named by the environment variable
``HYPOTHESIS_PROFILE``: ``full`` (the default, and `make test`) or ``quick`` (`make check`, a tenth). A property
that needs more or fewer examples than the others asks for a multiple of the profile's count with
:func:`tests.strategies.examples`, so the quick loop shrinks every property alike.
"""

import os

import matplotlib.pyplot as plt
import pytest
from hypothesis import HealthCheck, settings

from tests.site_build import built_site  # noqa: F401  (the built site, one build per run, shared by xdist workers)

# No deadline: an example's time depends on the machine's load, not on the code under test.
settings.register_profile("full", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("quick", settings.get_profile("full"), max_examples=10)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "full"))


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
