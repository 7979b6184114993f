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
