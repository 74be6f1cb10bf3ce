"""The documentation site builds in strict mode: a broken link, reference or docstring fails."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra")
pytest.importorskip("pygame", reason="the game pictures need the render extra")

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", DISABLE_MKDOCS_2_WARNING="true", SDL_VIDEODRIVER="dummy")
    out = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, timeout=900, env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    site = tmp_path / "site"
    for family in ("kalah", "afrika", "progressive", "rondell", "widdershins"):
        page = (site / "games" / family / "index.html").read_text()
        assert "Observation" in page and "Actions" in page and "Options" in page, family
        assert (site / "games" / f"{family}.gif").read_bytes()[:6] == b"GIF89a"
    assert "kalah-irving2000-v0" in (site / "games" / "kalah" / "index.html").read_text()
    assert "mancala train" in (site / "reference" / "cli" / "index.html").read_text()
    assert "make_agent" in (site / "reference" / "api" / "agents" / "index.html").read_text()
    for page in ("train", "evaluate", "custom-agent", "frameworks"):
        assert (site / "tutorials" / page / "index.html").is_file()
