"""Source text holds the contract and the decisions, never a lab notebook.

Every ``.py`` file of the package folders (``mancala_envs/``, ``agents/``, ``evaluation/``,
``training/``, ``cli/``), code, docstrings and comments alike, is scanned for what belongs in a
results file or in git history instead: the tags of work branches or sessions, UTC timestamps,
ISO dates and load averages (``test_patterns_catch_notebook_text`` lists made-up samples of each). A measurement goes
to ``benchmarks/results/*.json`` and the docs pages generated from it
(``scripts/gen_results_pages.py``).

The patterns are narrow on purpose: "version 2", "Kalah(6,4)", "Irving et al. (2000)" or a
play session are legitimate text and must not match (``test_patterns_leave_legitimate_text``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_FOLDERS = ("mancala_envs", "agents", "evaluation", "training", "cli")

PATTERNS = {
    # a work branch's or a session's tag: a word and a number in parentheses, or "helper" and such a name
    "branch or session tag": re.compile(
        r"\((?:cards|batch|speed|cold|lead|merge)\d+[a-z]?\)|\(speedk\)|\(s\d+[a-z]\d*\)"
        r"|\bhelper (?:cards|batch|speed|cold)\d+[a-z]?\b|\bspeedk helper\b"),
    "session name": re.compile(r"\b[Ss]ession (?:\d+\b|of \d|of the \d)|\b(?:this|previous|last|next) session\b"),
    "UTC timestamp": re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*-\s*\d{1,2}:\d{2})?\s*UTC\b"),
    "ISO date": re.compile(r"\b(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b"),
    "load average": re.compile(r"\bload(?: average)?s? (?:of |was |about |near )?\d+(?:\.\d+)?\b(?! ?(?:bytes|words|games))"
                               r"|\bat load\b|\bload \d+(?:\.\d+)? to \d"),
}


def python_files(folders=PACKAGE_FOLDERS) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def findings(path: Path) -> list[str]:
    """``file:line: what: the line`` for every match in ``path``."""
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        for what, pattern in PATTERNS.items():
            if pattern.search(line):
                out.append(f"{path.relative_to(ROOT)}:{number}: {what}: {line.strip()}")
    return out


@pytest.mark.parametrize("folder", PACKAGE_FOLDERS)
def test_no_notebook_text_in_source(folder):
    found = [f for path in python_files((folder,)) for f in findings(path)]
    assert not found, "move measurements to benchmarks/results/*.json, history to git:\n" + "\n".join(found)


@pytest.mark.parametrize("text", [
    # made-up samples, one or more for every branch of every pattern
    "(cards1x)", "(batch3)", "(speed2a)", "(speedk)", "(s4w1)", "lane hash (cold5)", "helper batch7",
    "Session 3", "the session of 2000-01-02", "in the previous session", "Session of 2000-01-02 03:04 UTC",
    "01:02-03:04 UTC", "05:06 UTC", "2000-01-02", "at load 1", "load average 1.5", "load 2 to 3",
    "(one run, load 4: 1.5 against 2.5 ns)",
])
def test_patterns_catch_notebook_text(text):
    assert any(p.search(text) for p in PATTERNS.values()), text


@pytest.mark.parametrize("text", [
    "version 2", "Kalah(6,4)", "Irving et al. (2000), Table 9", "Plaat et al. 1996", "the play session",
    "a session Ray", "kalah-v0", "(N = 26)", "load the database", "loaded from the cache", "workload",
    "(p0, p1)", "sow(state, 12)", "len(cards)", "_positions(batches)", "(s1)", "the 2**20-entry table", "mancala-eval-2", "UTC time of the record",
    "load 3 bytes",
])
def test_patterns_leave_legitimate_text(text):
    assert not any(p.search(text) for p in PATTERNS.values()), text
