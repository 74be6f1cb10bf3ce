"""``mancala serve`` in a real browser: Debian's headless Chromium, driven by its chromedriver.

The page is served on 127.0.0.1 from a thread of the test process; Selenium drives the
system's ``chromium`` through ``chromedriver`` (nothing is downloaded). Without them the tests
are skipped with the install line, except under ``CI=true``, where a missing browser fails
(``scripts/setup.sh`` installs it there).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading

import pytest


def missing(reason: str) -> None:
    """Skip the module saying what is missing; under ``CI=true`` the browser tests must run."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason + ": under CI=true the browser tests must run", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


try:
    import flask  # noqa: F401
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as err:
    missing(f"{err.name} is not installed (bash scripts/setup.sh test,web)")

from mancala_envs.cli.serve import make_server  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    missing("the browser tests need Debian's chromium and chromium-driver "
            "(apt-get install chromium chromium-driver; scripts/setup.sh does it as root)")

WAIT = 30  # seconds a step may take: the first agent move of a process compiles its kernels


@pytest.fixture(scope="module")
def server():
    """The page on a free port of 127.0.0.1, against the greedy agent (fast and deterministic)."""
    httpd = make_server("127.0.0.1", 0, "greedy")
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.port}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-proxy-server", "--disable-dev-shm-usage",
                 "--window-size=1300,900"):
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium')}")
    driver = webdriver.Chrome(service=webdriver.ChromeService(executable_path=CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def views_shown(browser) -> int:
    return int(browser.find_element(By.TAG_NAME, "body").get_attribute("data-shown") or 0)


def new_game(browser, server, env_id="kalah-v0", seat="0", seed="5"):
    """Open the page and start a game; waits for its board."""
    browser.get(server)
    wait = WebDriverWait(browser, WAIT)
    wait.until(lambda d: views_shown(d) >= 1)  # the page shows this session's game, or a new one
    shown = views_shown(browser)
    browser.execute_script(f"document.getElementById('game').value = '{env_id}';"
                           f"document.getElementById('seat').value = '{seat}';")
    seed_box = browser.find_element(By.ID, "seed")
    seed_box.clear()
    seed_box.send_keys(seed)
    browser.find_element(By.ID, "new").click()
    wait.until(lambda d: views_shown(d) > shown)
    assert env_id in browser.find_element(By.ID, "board").get_attribute("innerHTML")
    return wait


def moves_listed(browser) -> list[str]:
    """The move list, read in one script call (the page redraws it under a slower reader)."""
    return browser.execute_script("return [...document.querySelectorAll('#moves li')].map(li => li.textContent)")


def click_cell(browser, key: str) -> None:
    cell = browser.find_element(By.CSS_SELECTOR, f"#board rect.cell[data-cell='{key}']")
    browser.execute_script("arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true, "
                           "clientX: arguments[0].getBoundingClientRect().left + 5, "
                           "clientY: arguments[0].getBoundingClientRect().top + 5}))", cell)


def test_a_move_and_the_agents_reply_appear_on_the_board(browser, server):
    wait = new_game(browser, server)
    # South's hole 6 (p0.0, the farthest from the store: no extra turn), and greedy answers
    click_cell(browser, "p0.0")
    wait.until(lambda d: len(moves_listed(d)) >= 2)
    listed = moves_listed(browser)
    assert listed[0] == "player_0 (South) (you): 6" and listed[1].startswith("player_1 (North): ")
    board = browser.find_element(By.ID, "board")
    assert re.search(r"ply [2-9]", board.get_attribute("innerHTML"))  # the board is the new position
    assert "greedy played" in browser.find_element(By.ID, "message").text
    reply = listed[-1].rsplit(": ", 1)[1]  # the agent's last move, ringed and named under the board
    assert f"last move: player_1 (North) played {reply}" in board.get_attribute("innerHTML")
    # Undo goes back to the human's turn before the move
    browser.find_element(By.ID, "undo").click()
    wait.until(lambda d: moves_listed(d) == [])
    assert "ply 0" in board.get_attribute("innerHTML")


def test_an_illegal_click_is_refused(browser, server):
    wait = new_game(browser, server)
    click_cell(browser, "p1.0")  # a hole of the opponent's row
    wait.until(lambda d: d.find_element(By.ID, "message").get_attribute("class") == "error")
    message = browser.find_element(By.ID, "message").text
    assert "is not a legal move here; legal moves: 6, 5, 4, 3, 2, 1" in message, message
    assert moves_listed(browser) == []  # nothing was applied
    assert "ply 0" in browser.find_element(By.ID, "board").get_attribute("innerHTML")


def test_a_saved_record_replays(browser, server, tmp_path):
    wait = new_game(browser, server)
    click_cell(browser, "p0.0")
    wait.until(lambda d: len(moves_listed(d)) >= 2)
    played = moves_listed(browser)
    record = browser.execute_async_script(
        "const done = arguments[0]; fetch('/api/record').then(r => r.text()).then(done);")
    assert json.loads(record)["env_id"] == "kalah-v0"
    path = tmp_path / "game.json"
    path.write_text(record, encoding="utf-8")
    browser.find_element(By.ID, "load-file").send_keys(str(path))
    wait.until(lambda d: d.find_element(By.ID, "review").is_displayed())
    assert moves_listed(browser) == [move.replace(" (you)", "") for move in played]
    assert browser.find_element(By.ID, "ply").text == f"ply 0 of {len(played)}"
    browser.find_element(By.ID, "next").click()
    wait.until(lambda d: d.find_element(By.ID, "ply").text == f"ply 1 of {len(played)}")
    assert "ply 1" in browser.find_element(By.ID, "board").get_attribute("innerHTML")
    browser.find_element(By.ID, "last").click()
    wait.until(lambda d: d.find_element(By.ID, "ply").text == f"ply {len(played)} of {len(played)}")
