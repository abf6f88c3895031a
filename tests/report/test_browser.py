"""The interactive page in a real browser: Debian's Chromium, driven by selenium through
Debian's chromedriver (no driver download). `.ci/run` installs both. Each showcase report is
opened from disk with the network disabled; a point is hovered and its tooltip read, a legend
entry toggles its series, the console stays clean, and a screenshot is not blank."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By

from cmpc.build.pipeline import build_spec
from tests.report.chromium import browser  # noqa: F401  (the fixture)

REPO = Path(__file__).resolve().parents[2]
SHOWCASES = sorted(p for p in (REPO / "specs").glob("*.cmp") if "claims" not in p.stem)


def _page(spec: Path, tmp_path: Path) -> Path:
    out = tmp_path / spec.stem
    outcome = build_spec(f"specs/{spec.name}", out_dir=str(out), html=True)
    assert outcome.code == 0, outcome.diagnostics
    return out / "report.html"


def _open(driver, page: Path) -> None:
    driver.get_log("browser")  # drop what an earlier page logged
    driver.get(page.as_uri())
    assert driver.execute_script("return document.readyState") == "complete"


def _png_pixels(png: bytes) -> bytes:
    """The filtered scanlines of a PNG (enough to tell a blank image from a drawn one)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    data, pos = b"", 8
    while pos < len(png):
        (length,) = struct.unpack(">I", png[pos : pos + 4])
        kind = png[pos + 4 : pos + 8]
        if kind == b"IDAT":
            data += png[pos + 8 : pos + 8 + length]
        pos += 12 + length
    return zlib.decompress(data)


@pytest.mark.parametrize("spec", SHOWCASES, ids=lambda p: p.stem)
def test_showcase_page_hover_toggle_console_screenshot(spec, browser, in_repo, tmp_path):  # noqa: F811
    _open(browser, _page(spec, tmp_path))
    # a table of contents that links the sections
    toc = browser.find_elements(By.CSS_SELECTOR, "nav.cmpc-toc a")
    assert {"Results", "Disclosure"} <= {a.text for a in toc}
    # hover a point: the tooltip names the system and the run's figures
    point = browser.find_elements(By.CSS_SELECTOR, ".cmpc-point")[0]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", point)
    ActionChains(browser).move_to_element(point).perform()
    tooltip = browser.find_element(By.ID, "cmpc-tooltip")
    assert tooltip.is_displayed()
    lines = tooltip.text.splitlines()
    assert lines[0].startswith("system: ")
    expected = point.get_attribute("data-tip").splitlines()
    assert lines == expected
    # click a legend entry: its series hides, a second click shows it again
    entry = browser.find_elements(By.CSS_SELECTOR, ".cmpc-legend")[0]
    series = entry.get_attribute("data-series")
    figure = entry.find_element(By.XPATH, "ancestor::*[local-name()='svg']")
    marks = figure.find_elements(By.CSS_SELECTOR, f'.cmpc-series[data-series="{series}"]')
    assert marks and all(m.value_of_css_property("display") != "none" for m in marks)
    ActionChains(browser).move_to_element(entry).click().perform()
    assert all(m.value_of_css_property("display") == "none" for m in marks)
    assert entry.get_attribute("aria-pressed") == "true"
    others = figure.find_elements(By.CSS_SELECTOR, ".cmpc-series:not(.cmpc-hidden)")
    assert others, "only the clicked series hides"
    ActionChains(browser).move_to_element(entry).click().perform()
    assert all(m.value_of_css_property("display") != "none" for m in marks)
    # tables fit the page: the page itself never scrolls sideways
    width = browser.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert width[0] <= width[1], width
    # nothing was fetched, nothing went wrong
    fetched = browser.execute_script("return performance.getEntriesByType('resource').length")
    assert fetched == 0
    errors = [e for e in browser.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
    assert errors == []
    png = browser.get_screenshot_as_png()
    (tmp_path / f"{spec.stem}.png").write_bytes(png)
    pixels = _png_pixels(png)
    assert len(set(pixels)) > 64, "the screenshot is blank"
    assert sum(b != 0xFF for b in pixels) > len(pixels) // 100
