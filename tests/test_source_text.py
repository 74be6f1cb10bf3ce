"""Source text holds the contract and the decisions, never a lab notebook.

Every ``.py`` file of the package folders (``mancala_envs/``, ``agents/``, ``evaluation/``,
``training/``, ``cli/``), code, docstrings and comments alike, is scanned for what belongs in a
results file or in git history instead: the tags of work branches or sessions ("(cards8s)",
"Session 6", "helper batch4"), UTC timestamps, ISO dates and load averages. A measurement goes
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
    # a work branch's or a session's tag in parentheses: (cards8s), (batch9), (speedk), (s17w2)
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
    "(cards8s)", "(batch9)", "(cards9s)", "(speedk)", "(s17w2)", "lane hash (cards9s)", "helper cards2",
    "Session 6", "the session of 2026-11-24", "in the previous session", "Session of 2026-11-25 06:05 UTC",
    "17:21-17:22 UTC", "09:16 UTC", "2026-11-24", "at load 11", "load average 12.5", "load 9 to 13",
    "(one run, load 14: 47.5 against 48.9 ns)",
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
