"""Screenshots of the page of ``mancala serve``, one per game family, to docs/images/page-<id>.png.

    python scripts/page_screenshots.py [--out docs/images]

Serves the page on a free port of 127.0.0.1 and drives Debian's headless Chromium through
chromedriver (``apt-get install chromium chromium-driver``; needs the web and test extras).
Each game starts from a fixed seed against ``greedy``; the human side plays fixed picks of its
legal moves (the same on every run), then the page is photographed; Kalah's shows the
oracle's evaluation too.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import threading
from pathlib import Path

from PIL import Image
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from mancala_envs.cli.serve import make_server

# id -> (game seed, human moves before the picture, page height in pixels)
PAGES = {
    "kalah-v0": (1, 4, 600),
    "afrika-v0": (1, 8, 600),
    "progressive-v0": (1, 4, 560),
    "rondell-v0": (3, 4, 960),
    "widdershins-v0": (4, 5, 960),
}


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-proxy-server", "--hide-scrollbars",
                 "--force-device-scale-factor=1"):
        options.add_argument(flag)
    return webdriver.Chrome(service=webdriver.ChromeService(executable_path=shutil.which("chromedriver")),
                            options=options)


def shown(driver) -> int:
    return int(driver.find_element(By.TAG_NAME, "body").get_attribute("data-shown") or 0)


def photograph(driver, url: str, env_id: str, seed: int, moves: int, height: int, path: Path) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": False})
    driver.get(url)
    wait = WebDriverWait(driver, 120)
    wait.until(lambda d: shown(d) >= 1)
    driver.execute_script(f"document.getElementById('game').value = '{env_id}';"
                          f"document.getElementById('seed').value = '{seed}';")
    before = shown(driver)
    driver.find_element(By.ID, "new").click()
    wait.until(lambda d: shown(d) > before)
    for k in range(moves):  # the human's picks: a fixed stride through the legal moves
        before = shown(driver)
        driver.execute_script(
            "const legal = view.legal; if (legal.length) act('POST', '/api/move', "
            f"{{action: legal[({k} * 7 + 3) % legal.length].action}});")
        wait.until(lambda d: shown(d) > before)
    if env_id.startswith("kalah"):
        driver.find_element(By.ID, "evaluate").click()
        wait.until(lambda d: "thinking" not in d.find_element(By.ID, "evaluation").text)
    driver.save_screenshot(str(path))
    Image.open(path).convert("RGB").quantize(colors=96, method=Image.Quantize.MEDIANCUT,
                                             dither=Image.Dither.NONE).save(path, optimize=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "images"))
    args = parser.parse_args(argv)
    server = make_server("127.0.0.1", 0, "greedy")
    threading.Thread(target=server.serve_forever, daemon=True).start()
    driver = browser()
    try:
        for env_id, (seed, moves, height) in PAGES.items():
            path = Path(args.out) / f"page-{env_id}.png"
            photograph(driver, f"http://127.0.0.1:{server.port}/", env_id, seed, moves, height, path)
            print(f"{path} ({path.stat().st_size // 1024} KB)")
    finally:
        driver.quit()
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
