"""One number per fact: a quantity several pages quote shows the same on each of them.

Reads the built site: each ``{glue:text}`key[:spec]``` of a page's source is matched, in order, with the
pasted value in its HTML (as tests/test_site.py does), so what is compared is what a reader sees.
A key glued on several pages names one fact (a page that means something else must use another name);
facts that pages glue under different names are listed in :data:`SAME_FACT`.
"""

import html
import re
from collections import defaultdict

import pytest

from tests.site_build import BOOK, PAGES

pytestmark = pytest.mark.site

GLUE_ROLE = re.compile(r"\{glue:text\}`([^`:]+)(?::([^`]*))?`")

#: Facts glued under different names: every (page, key) of a group must show the same text.
SAME_FACT = {
    "4096³ 上离最优 5% 以内的配置数": [
        ("landscape", "n_within_5"),
        ("guides", "sq_n5"),
        ("guides", "pl_n"),
        ("measured", "model_within"),
    ],
    "4096³ 的最优配置": [
        ("landscape", "best_cfg"),
        ("shapes", "big_cfg"),
        ("sensitivity", "base_cfg"),
        ("searching", "best_sq"),
    ],
    "4096³ 最优的 TFLOPS（h100-lecture）": [
        ("landscape", "best_tflops"),
        ("model", "tflops"),
        ("gpus", "h100_lecture_best"),
    ],
    "h100-lecture 的稠密峰值": [("landscape", "peak_tflops"), ("gpus", "h100_lecture_peak")],
    "h100-lecture 每块最多的共享内存": [("space", "smem_limit_kib"), ("gpus", "lecture_smem_kib")],
    "4096³ 平台外的第一个台阶": [("landscape", "runner_up"), ("guides", "pl_next")],
    "decode 16 的最优（h100-lecture）": [("shapes", "decode_cfg"), ("guides", "dec_lecture_best")],
    "decode 16 上 5% 以内的配置数": [("searching", "dec_n5"), ("guides", "dec_n5_lecture")],
    "研究用的形状数": [("searching", "n_study"), ("buckets", "n_shapes")],
    # The two launch rules' counts: every page that names a rule set's count shows the same one (space_summary).
    "原始讲义脚本的规则下能启动的配置数（h100-lecture）": [
        ("index", "n_launchable"),
        ("space", "n_launchable"),
        ("landscape", "n_launchable"),
        ("shapes", "n_launchable"),
        ("sensitivity", "n_launchable"),
        ("questions", "n_launchable"),
        ("model", "rules_admit_h100_lecture"),
    ],
    "Triton 的规则下能启动的配置数（h100-sxm）": [
        ("index", "n_launchable_triton"),
        ("space", "n_launchable_triton"),
        ("landscape", "n_launchable_triton"),
        ("shapes", "n_launchable_triton"),
        ("sensitivity", "n_launchable_triton"),
        ("questions", "n_launchable_triton"),
        ("model", "rules_admit_h100_sxm"),
    ],
    "调度空间的组合数": [
        ("index", "n_configs"),
        ("space", "n_configs"),
        ("model", "rules_n_all"),
    ],
}

#: Seed counts of the same 4096³ experiment: (page, key); a page whose count differs from the search page's
#: must say so, by showing the search page's count (``n_seeds_sq``) beside its own.
SEED_COUNTS = [
    ("searching", "n_seeds_sq"),
    ("statistics", "n_seeds_sq"),
    ("guides", "n_seeds"),
    ("measured", "n_seeds_ours"),
    ("measured", "n_seeds_theirs"),
]


def shown(site) -> dict[str, dict[str, set[tuple[str, str]]]]:
    """page -> key -> {(format spec, text shown)} over every page of the built site."""
    out = {}
    for page in PAGES:
        roles = GLUE_ROLE.findall((BOOK / f"{page}.md").read_text(encoding="utf-8"))
        spans = re.findall(
            r'<span class="pasted-text">([^<]*)</span>', (site / f"{page}.html").read_text(encoding="utf-8")
        )
        assert len(spans) == len(roles), f"{page}: {len(roles)} glue roles but {len(spans)} pasted values"
        keys = defaultdict(set)
        for (key, spec), text in zip(roles, spans):
            keys[key].add((spec, html.unescape(text)))
        out[page] = keys
    return out


@pytest.fixture(scope="module")
def values(built_site):
    return shown(built_site)


def _agree(a: tuple[str, str], b: tuple[str, str]) -> bool:
    """Two shown values of one fact agree: the same text, or numbers equal to the coarser one's precision."""
    if a[1] == b[1]:
        return True
    try:
        x, y = float(a[1].rstrip("%")), float(b[1].rstrip("%"))
    except ValueError:
        return False
    decimals = min(len(t.split(".")[1]) if "." in t else 0 for t in (a[1], b[1]))
    return abs(x - y) <= 0.5 * 10**-decimals + 1e-12


def test_a_key_on_several_pages_shows_one_value(values):
    by_key = defaultdict(list)
    for page, keys in values.items():
        for key, shows in keys.items():
            by_key[key] += [(page, s) for s in shows]
    clashes = [
        f"{key}: " + ", ".join(f"{page} shows {text!r}" for page, (_, text) in seen)
        for key, seen in by_key.items()
        if any(not _agree(a, b) for (_, a) in seen for (_, b) in seen)
    ]
    assert not clashes, "one key, two values (rename one, or make them one fact):\n" + "\n".join(clashes)


@pytest.mark.parametrize("fact", SAME_FACT)
def test_a_fact_glued_under_several_names_shows_one_value(values, fact):
    seen = []
    for page, key in SAME_FACT[fact]:
        assert key in values[page], f"{fact}: {page}.md no longer shows {key} (update SAME_FACT)"
        seen += [(page, key, s) for s in values[page][key]]
    assert all(_agree(a, b) for *_, a in seen for *_, b in seen), f"{fact}: " + ", ".join(
        f"{page}:{key} = {text!r}" for page, key, (_, text) in seen
    )


def test_seed_counts_agree_or_the_difference_is_said(values):
    ((_, search_count),) = values["searching"]["n_seeds_sq"]
    for page, key in SEED_COUNTS:
        assert key in values[page], f"{page}.md no longer shows {key} (update SEED_COUNTS)"
        (count,) = {text for _, text in values[page][key]}
        if count != search_count:
            assert "n_seeds_sq" in values[page], (
                f"{page}.md runs the 4096³ comparison on {count} seeds, the search page on {search_count}, and does not say so"
            )
