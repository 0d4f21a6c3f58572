"""Every seed game's preview page (build/<game>/index.html) opened from the file system in a
real browser, headless Chromium driven by Selenium: no console error, every image loads and
decodes, every scenario of every edition shows its picture, the page works by keyboard and
fits a phone's width, and its top looks like the golden screenshot (tests/goldens.py;
UPDATE_GOLDENS=1 writes them again)."""

from __future__ import annotations

import io
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from compiler.model.gamedata import GameData
from compiler.model.series import title_game
from compiler.pipeline import build_game
from tests.conftest import SOURCES, seed_game
from tests.goldens import check_golden

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
GAMES = sorted(p.name for p in SOURCES.iterdir() if p.is_dir())
GOLDEN = Path(__file__).parent / "golden" / "preview"
SCREEN = (1000, 800)
PHONE = (390, 844)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--font-render-hinting=none",
)
"""Without the background-networking flags Chromium misbehaves on a machine with no network."""

LOAD_ALL_IMAGES = """
const done = arguments[arguments.length - 1];
const images = Array.from(document.images);
images.forEach((image) => { image.loading = "eager"; });
Promise.all(images.map((image) => image.complete ? null : new Promise((settled) => {
  image.addEventListener("load", settled);
  image.addEventListener("error", settled);
}))).then(() => Promise.all(images.map((image) => image.decode().catch(() => null))))
  .then(() => done(images.filter((image) => !(image.complete && image.naturalWidth > 0))
  .map((image) => image.getAttribute("src"))));
"""
"""Load every image (lazy ones too) and wait until each is decoded (a screenshot shows them
all); returns the sources of those that did not load."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every seed game built once, into a fresh folder."""
    out = tmp_path_factory.mktemp("preview-browser")
    for name in GAMES:
        report, written = build_game(SOURCES / name, out)
        assert written, [str(f) for f in report.findings]
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        pytest.skip("headless Chromium not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="preview-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={SCREEN[0]},{SCREEN[1]}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
    driver.set_script_timeout(180)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _open(driver: Any, page: Path, size: tuple[int, int], mobile: bool = False) -> None:
    metrics = {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": mobile}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)
    driver.get_log("browser")  # what an earlier page logged is not this page's
    driver.get(page.as_uri())


def _scenarios(game: GameData) -> int:
    """Scenario pictures the page should show: one per scenario of each edition."""
    if not game.game.titles:
        return len(game.scenarios)
    return sum(len(title_game(game, title).scenarios) for title in game.game.titles)


@pytest.mark.parametrize("name", GAMES)
def test_preview_page_in_chromium(built: Path, browser: Any, name: str) -> None:
    page = built / name / "index.html"
    _open(browser, page, SCREEN)
    broken = browser.execute_async_script(LOAD_ALL_IMAGES)
    assert broken == [], f"images that did not load: {broken[:5]}"
    count = browser.execute_script("return document.images.length")
    assert count > 20
    scenes = browser.execute_script(
        "return Array.from(document.querySelectorAll('li.scenario')).map("
        "(li) => li.querySelectorAll('img').length)"
    )
    assert len(scenes) == _scenarios(seed_game(name)) > 0
    assert all(pictures == 1 for pictures in scenes), scenes
    unnamed = browser.execute_script(
        "return Array.from(document.querySelectorAll('img')).filter((i) => !i.alt.trim()).length"
        " + Array.from(document.querySelectorAll('a')).filter("
        "(a) => !(a.textContent.trim() || a.getAttribute('aria-label')"
        " || a.querySelector('img[alt]:not([alt=\"\"])'))).length"
    )
    assert unnamed == 0
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert errors == []
    browser.execute_script("window.scrollTo(0, 0)")
    shot = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
    assert shot.size == SCREEN
    check_golden(GOLDEN, name, shot)


def test_preview_page_by_keyboard_and_on_a_phone(built: Path, browser: Any) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    page = built / "gcacw" / "index.html"
    _open(browser, page, PHONE, mobile=True)
    width = browser.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert width[0] <= width[1], f"the page is wider than a phone's screen: {width}"
    ActionChains(browser).send_keys(Keys.TAB).perform()
    first = browser.switch_to.active_element
    assert first.get_attribute("class") == "skip" and first.is_displayed()
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    assert browser.current_url.endswith("#main")
    ActionChains(browser).send_keys(Keys.TAB).perform()  # on into the page's own links
    assert browser.switch_to.active_element.tag_name == "a"
    assert [e for e in browser.get_log("browser") if e["level"] == "SEVERE"] == []
