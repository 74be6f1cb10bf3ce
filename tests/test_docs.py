"""The README stays a front page, and the documentation site builds in strict mode (a broken
link, reference or docstring fails)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

README_MAX_LINES = 250  # the front page: the rest lives in the docs site
QUICK_START_COMMANDS = (  # the README's two quick-start commands, verbatim (.ci/run runs the second)
    "bash scripts/setup.sh train && .venv/bin/mancala train configs/kalah-v0-quick.yaml",
    "bash scripts/setup.sh && .venv/bin/python -m pytest -n 2",
)
FAST_LANE = '.venv/bin/python -m pytest -n 2 -m "not slow"'
RESULTS_BEGIN, RESULTS_END = "<!-- headline-results:begin -->", "<!-- headline-results:end -->"


def readme_text() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_is_a_front_page_with_the_quick_start_commands():
    text = readme_text()
    lines = text.splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; at most {README_MAX_LINES}"
    for command in (*QUICK_START_COMMANDS, FAST_LANE):
        assert command in lines, f"README.md lost the command line {command!r}"


def test_readme_headline_results_block_is_marked_once():
    text = readme_text()
    assert text.count(RESULTS_BEGIN) == 1 and text.count(RESULTS_END) == 1
    assert text.index(RESULTS_BEGIN) < text.index(RESULTS_END)


def test_readme_links_to_files_of_the_repository():
    """Every relative link and picture of the README names a file or folder of the repository."""
    targets = re.findall(r"\]\(([^)\s]+)\)", readme_text()) + re.findall(r'<img src="([^"]+)"', readme_text())
    relative = {t.split("#")[0] for t in targets if "://" not in t and not t.startswith("#")}
    assert relative, "no relative links found: the pattern is broken"
    missing = sorted(t for t in relative if not (ROOT / t).exists())
    assert not missing, f"README.md links to missing files: {missing}"


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra")
    pytest.importorskip("pygame", reason="the game pictures need the render extra")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", DISABLE_MKDOCS_2_WARNING="true", SDL_VIDEODRIVER="dummy")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    site = tmp_path / "site"
    for family in ("kalah", "afrika", "progressive", "rondell", "widdershins"):
        page = (site / "games" / family / "index.html").read_text()
        assert "Observation" in page and "Actions" in page and "Options" in page, family
        assert (site / "games" / f"{family}.gif").read_bytes()[:6] == b"GIF89a"
    kalah_page = (site / "games" / "kalah" / "index.html").read_text()
    assert "kalah-irving2000-v0" in kalah_page
    assert "The first 40 plies of <code>kalah-v0</code>" in kalah_page  # the family's main id, not kalah-basic-v0
    assert "mancala train" in (site / "reference" / "cli" / "index.html").read_text()
    assert "make_agent" in (site / "reference" / "api" / "agents" / "index.html").read_text()
    for page in ("train", "evaluate", "custom-agent", "frameworks"):
        assert (site / "tutorials" / page / "index.html").is_file()
    for page in ("apis", "play", "agents", "training", "cli", "layout", "development"):
        assert (site / "guide" / page / "index.html").is_file()
    assert "search-bootstrap" in (site / "index.html").read_text()
