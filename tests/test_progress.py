"""Progress of long commands: plain lines every few seconds off a terminal, a rich bar on one."""

from __future__ import annotations

import io
import subprocess
import sys

from mancala_envs.evaluation.progress import Progress
from mancala_envs.evaluation.tournament import round_robin


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_progress_is_whole_lines():
    stream = io.StringIO()
    with Progress(4, "games", "match", stream=stream, every=0) as bar:
        for done in range(1, 5):
            bar.update(done, "a vs b")
    text = stream.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert lines[0].startswith("match: 1/4 games (25%), ") and "s left; a vs b" in lines[0]
    assert lines[-1].startswith("match: 4/4 games (100%), ") and "left" not in lines[-1]


def test_lines_come_every_few_seconds_only():
    stream = io.StringIO()
    with Progress(1000, "steps", "training", stream=stream, every=3600) as bar:
        for done in range(1000):
            bar.update(done)
    assert stream.getvalue().splitlines() == [stream.getvalue().splitlines()[-1]]  # only the final line
    assert stream.getvalue().startswith("training: 999/1000 steps")


def test_disabled_progress_writes_nothing():
    stream = io.StringIO()
    with Progress(3, stream=stream, enabled=False, every=0) as bar:
        bar.advance(3)
    assert stream.getvalue() == ""


def test_on_a_terminal_a_rich_bar():
    stream = Terminal()
    with Progress(3, "games", "tournament", stream=stream) as bar:
        assert bar._bar is not None
        bar.advance(2, "x vs y")
    assert bar._bar is None


def test_tournament_progress_in_a_log_file(tmp_path):
    stream = io.StringIO()
    sys_stderr, sys.stderr = sys.stderr, stream
    try:
        round_robin("kalah-v0", ["random", "greedy", "alphabeta:depth=1"], openings=2, workers=1, progress=True,
                    pits=3)
    finally:
        sys.stderr = sys_stderr
    text = stream.getvalue()
    assert "\r" not in text
    assert text.splitlines()[-1].startswith("tournament: 12/12 games (100%)")


def test_the_commands_print_lines_when_piped():
    command = [sys.executable, "-m", "mancala_envs.cli"]
    out = subprocess.run(command + ["match", "kalah-v0", "greedy", "random", "pits=3", "--openings", "2"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "\r" not in out.stderr
    assert "match: 4/4 games (100%)" in out.stderr
    quiet = subprocess.run(command + ["match", "kalah-v0", "greedy", "random", "pits=3", "--openings", "2",
                                      "--no-progress"], capture_output=True, text=True, timeout=300)
    assert quiet.returncode == 0 and quiet.stderr == ""
