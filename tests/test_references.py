"""Every source on the references page links to where a reader can find it (a URL or a DOI)."""

import re

from tests.site_build import BOOK

BIB = (BOOK / "references.bib").read_text(encoding="utf-8")
ENTRIES = re.findall(r"^@\w+\{([^,]+),(.*?)^\}", BIB, re.M | re.S)


def test_the_bibliography_is_read():
    assert len(ENTRIES) == BIB.count("\n@") + BIB.startswith("@")


def test_every_reference_has_a_link():
    missing = [key for key, body in ENTRIES if not re.search(r"^\s*(url|doi)\s*=", body, re.M)]
    assert not missing, f"references without a url or doi: {missing}"


def test_every_source_key_of_the_profiles_is_in_the_bibliography_and_explained_on_the_gpu_page():
    """The parameter tables cite sources by short keys ([BENCH-DATA] ...): each one leads to a reference."""
    from schedlab.core.profile_sources import PROFILE_SOURCES, SOURCE_KEYS

    cited = {
        key
        for sources in PROFILE_SOURCES.values()
        for text in sources.values()
        for key in re.findall(r"\[([A-Z][\w&-]*)\]", text)
    }
    assert cited and cited <= set(SOURCE_KEYS), f"source keys without a reference: {sorted(cited - set(SOURCE_KEYS))}"
    entries = {key for key, _body in ENTRIES}
    assert set(SOURCE_KEYS.values()) <= entries, sorted(set(SOURCE_KEYS.values()) - entries)
    gpus = (BOOK / "gpus.md").read_text(encoding="utf-8")
    missing = [k for k, bib in SOURCE_KEYS.items() if f"[{k}] {{cite}}`{bib}`" not in gpus]
    assert not missing, f"gpus.md does not explain these source keys: {missing}"
