"""The figures' colour cycle (schedlab/figures/matplotlibrc) stays distinguishable for colour-blind readers.

Each pair of cycle colours is simulated for full deuteranopia and protanopia (Machado, Oliveira and
Fernandes 2009, as implemented by colorspacious) and compared in CAM02-UCS, a space where Euclidean
distance tracks perceived difference. The Okabe-Ito cycle keeps every pair at least 14 apart under
deuteranopia; matplotlib's default tab10 cycle falls to 5.2 (its green and red), which the test
below shows is caught by the bound of 10.
"""

import itertools

import matplotlib
import numpy as np
import pytest
from colorspacious import cspace_convert
from matplotlib.colors import to_rgb

from tests.site_build import ROOT

BOOK_RC = ROOT / "schedlab" / "figures" / "matplotlibrc"
#: Least CAM02-UCS distance between two cycle colours as a colour-blind reader sees them.
MIN_DISTANCE = 10.0


def cycle_colours():
    with matplotlib.rc_context(fname=str(BOOK_RC)):
        return [to_rgb(c) for c in matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]]


def closest_pair(colours, cvd_type):
    """(distance, i, j) of the two colours least apart after simulating ``cvd_type`` at full severity."""
    space = {"name": "sRGB1+CVD", "cvd_type": cvd_type, "severity": 100}
    seen = [cspace_convert(np.array(c), space, "CAM02-UCS") for c in colours]
    return min((float(np.linalg.norm(seen[i] - seen[j])), i, j) for i, j in itertools.combinations(range(len(seen)), 2))


@pytest.mark.parametrize("cvd_type", ["deuteranomaly", "protanomaly"])
def test_cycle_colours_stay_apart_for_colour_blind_readers(cvd_type):
    colours = cycle_colours()
    assert len(colours) >= 6  # the search chapter draws six strategies, C0-C5
    distance, i, j = closest_pair(colours, cvd_type)
    assert distance >= MIN_DISTANCE, f"C{i} and C{j} are {distance:.1f} apart under {cvd_type}"


def test_the_bound_catches_a_palette_that_is_not_colour_blind_safe():
    distance, i, j = closest_pair(matplotlib.color_sequences["tab10"][:8], "deuteranomaly")
    assert distance < MIN_DISTANCE, (distance, i, j)
