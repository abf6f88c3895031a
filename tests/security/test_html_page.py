"""The interactive HTML page escapes every user string: spec names, labels and run file names
that carry markup come out as text, in the page, the inline SVG and the hover text, and no
script but cmpc's own runs (checked statically, and in the real browser of test_browser)."""

from __future__ import annotations

import shutil
from html.parser import HTMLParser
from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from cmpc.build.pipeline import build_spec
from tests.report.chromium import browser  # noqa: F401  (the fixture)

REPO = Path(__file__).resolve().parents[2]
PWN = "<img src=x onerror=window.__pwned=1>"
FILE = '"><svg onload=window.__pwned=1>'


def _hostile_build(tmp_path: Path) -> Path:
    spec = (REPO / "specs" / "synthetic-sweep.cmp").read_text(encoding="utf-8")
    spec = spec.replace('label "alpha (synthetic)"', f'label "alpha {PWN}"')
    spec = spec.replace(
        '"Synthetic sweep: alpha vs beta', '"Sweep <script>window.__pwned=1</script> alpha vs beta'
    )
    spec = spec.replace('"data/synthetic/alpha/*.jsonl"', '"data/alpha/*.jsonl"')
    spec = spec.replace('"data/synthetic/beta/*.jsonl"', '"data/beta/*.jsonl"')
    for side in ("alpha", "beta"):
        folder = tmp_path / "data" / side
        folder.mkdir(parents=True)
        for run in sorted((REPO / "specs/data/synthetic" / side).glob("*.jsonl")):
            shutil.copy(run, folder / f"{FILE}{run.name}")
    (tmp_path / "hostile.cmp").write_text(spec, encoding="utf-8")
    outcome = build_spec(str(tmp_path / "hostile.cmp"), out_dir=str(tmp_path / "out"), html=True)
    assert outcome.code == 0, outcome.diagnostics
    return tmp_path / "out" / "report.html"


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.found.append((tag, [name for name, _ in attrs]))


def _elements(page: str) -> list[tuple[str, list[str]]]:
    """Every element as a browser's parser sees it: tag and attribute names."""
    parser = _Elements()
    parser.feed(page)
    return parser.found


def test_hostile_names_are_escaped_in_the_page(tmp_path):
    page = _hostile_build(tmp_path).read_text(encoding="utf-8")
    assert page.count("<script") == 1  # cmpc's own, allowed by hash in the page's CSP
    assert "<img" not in page and "<svg onload" not in page
    elements = _elements(page)
    assert [t for t, _ in elements].count("script") == 1 and "img" not in {t for t, _ in elements}
    handlers = [(t, a) for t, attrs in elements for a in attrs if a.lower().startswith("on")]
    assert handlers == []  # no live event handler on any element
    assert "&lt;img src=x onerror=window.__pwned=1&gt;" in page  # shown, as text
    assert "conc-64.jsonl" in page and "&quot;&gt;&lt;svg onload" in page  # the file name too
    assert "default-src 'none'" in page


def test_hostile_names_stay_text_in_the_browser(tmp_path, browser):  # noqa: F811
    page = _hostile_build(tmp_path)
    browser.get_log("browser")
    browser.get(page.as_uri())
    frontier = browser.find_elements(By.CSS_SELECTOR, "figure svg")[0]
    points = frontier.find_elements(By.CSS_SELECTOR, ".cmpc-point")
    assert len(points) == 14
    for point in points[:7]:
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", point)
        ActionChains(browser).move_to_element(point).perform()
        tooltip = browser.find_element(By.ID, "cmpc-tooltip")
        if "alpha" in tooltip.text:
            assert PWN in tooltip.text  # the label, shown as it is written
        assert tooltip.find_elements(By.CSS_SELECTOR, "img, svg, script") == []
    assert browser.execute_script("return window.__pwned === undefined")
    assert browser.title.startswith("Sweep <script>")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []
