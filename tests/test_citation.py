"""CITATION.cff names the package's version and the author its licences name, and the index's citation line agrees."""

import re
import tomllib

from tests.site_build import BOOK, ROOT


def cff_field(text: str, name: str) -> str:
    match = re.search(rf'^{name}: "?([^"\n]+)"?$', text, re.M)
    assert match, f"CITATION.cff has no {name} field"
    return match[1]


def test_citation_file_has_the_package_version_and_the_licences_author():
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert cff_field(cff, "cff-version") == "1.2.0"
    assert cff_field(cff, "version") == project["version"]
    authors = re.findall(r'^  - name: "([^"]+)"$', cff, re.M)
    holder = re.search(r"Copyright \(c\) \d{4} (.+)$", (ROOT / "LICENSE").read_text(encoding="utf-8"), re.M)[1]
    assert authors == [holder], f"CITATION.cff authors {authors}, LICENSE names {holder!r}"
    assert re.findall(r"^  - (\S+)$", cff, re.M)[:2] == ["MIT", "CC-BY-4.0"], "the code's and the text's licences"


def test_index_tells_how_to_cite_with_the_same_author():
    index = (BOOK / "index.md").read_text(encoding="utf-8")
    section = index.split("### 怎么引用", 1)[1].split("\n#", 1)[0]
    assert "CITATION.cff" in section and "CS349E" in section and "{glue:text}`version`" in section
