"""Issue 21 — the demo game's site in a real browser: headless Chromium (Debian's package) driven by
Selenium through Debian's chromedriver. Left/right step through the nation-turns, Home/End jump to
the first/last; the shown turn and the map change; the screenshot is not blank."""

from __future__ import annotations

import io
import json
import os
import shutil

import numpy as np
import pytest
from PIL import Image

from .conftest import DEMO_TURNS

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def browser():
    missing = [p for p in (CHROMIUM, DRIVER) if not os.path.exists(p)]
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        missing.append("selenium (pip install -e '.[test]')")
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"missing for the browser test: {missing} (tools/test.sh installs them)")
        pytest.skip(f"missing: {missing}")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000",
                "--no-first-run", "--disable-background-networking", "--disable-extensions"):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=opts, service=Service(DRIVER))   # the system driver: nothing is downloaded
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


def _press(driver, key: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).send_keys(key).perform()


def _shown(driver) -> tuple[str, str]:
    """(the turn label in the bar, the file name of the map that is shown), once the map has loaded."""
    from selenium.webdriver.support.ui import WebDriverWait

    def loaded(d):
        return d.execute_script(
            "var img = document.querySelector('section.turn.current img');"
            "return img && img.complete && img.naturalWidth > 0 ? "
            "[document.getElementById('shown-turn').textContent, img.getAttribute('src')] : null;")

    label, src = WebDriverWait(driver, 30).until(loaded)
    return label, src.rsplit("/", 1)[-1]


def test_keys_step_through_the_turns_in_headless_chromium(demo_site, browser, tmp_path):
    from selenium.webdriver.common.keys import Keys

    _, site = demo_site
    browser.get((site / "index.html").resolve().as_uri())
    browser.find_element("link text", "demo").click()
    assert browser.current_url.startswith("file://") and browser.current_url.split("#")[0].endswith("/demo/index.html")
    n = len(DEMO_TURNS)
    maps = [f"{e:06d}.png" for e in DEMO_TURNS]

    label, img = _shown(browser)                       # the latest turn first
    assert label == f"Round 2: the Belgae ({n} of {n})" and img == maps[-1]
    _press(browser, Keys.HOME)
    assert _shown(browser) == (f"Round 1: the Romans (1 of {n})", maps[0])
    _press(browser, Keys.ARROW_RIGHT)
    assert _shown(browser) == (f"Round 1: the Belgae (2 of {n})", maps[1])
    _press(browser, Keys.ARROW_RIGHT)
    _press(browser, Keys.ARROW_LEFT)
    assert _shown(browser)[1] == maps[1]
    _press(browser, Keys.ARROW_LEFT)
    _press(browser, Keys.ARROW_LEFT)                   # stays on the first
    assert _shown(browser)[0].endswith(f"(1 of {n})")
    _press(browser, Keys.END)
    assert _shown(browser) == (label, maps[-1])
    assert browser.current_url.endswith(f"#t-{DEMO_TURNS[-1]:06d}")

    # no network and nothing outside the site: every resource the page loaded is a file in the folder
    root = site.resolve().as_uri()
    requested = [json.loads(e["message"])["message"] for e in browser.get_log("performance")]
    urls = {m["params"]["request"]["url"] for m in requested if m.get("method") == "Network.requestWillBeSent"}
    assert {f"{root}/demo/maps/{m}" for m in (maps[0], maps[1], maps[-1])} <= urls
    assert all(u.startswith(root + "/") for u in urls), urls
    refs = browser.execute_script("return Array.prototype.map.call(document.querySelectorAll('[src], [href]'),"
                                  " function (x) { return x.src || x.href; });")
    assert refs and all(u.startswith(root + "/") for u in refs), refs
    # a link to one turn opens that turn
    browser.get((site / "demo" / "index.html").resolve().as_uri() + f"#t-{DEMO_TURNS[1]:06d}")
    assert _shown(browser) == (f"Round 1: the Belgae (2 of {n})", maps[1])
    # ... at the top of the page, its header in view (issue 30 item 8: it opened scrolled past it)
    assert browser.execute_script("return window.scrollY") == 0
    assert browser.execute_script("return document.querySelector('header').getBoundingClientRect().top") >= 0
    errors = [e for e in browser.get_log("browser") if e.get("level") == "SEVERE"]
    assert not errors, errors

    png = browser.get_screenshot_as_png()
    (tmp_path / "demo.png").write_bytes(png)
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)
    assert pixels.shape[0] > 500 and pixels.std() > 20        # a map and text, not a blank page
    assert len(np.unique(pixels)) > 50
